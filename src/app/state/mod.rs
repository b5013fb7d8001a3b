//! The editor's state, split by what it is: the document (what is open and tuned), the session (how it is
//! viewed) and the history (undo and redo of the tuning) and the window's layout.

pub mod document;
pub mod history;
pub mod layout;
pub mod session;
