//! Tests of the editor (features `cli` and `editor`): egui_kittest UI tests, exports from the editor, hostile
//! inputs through the binary and the window, and the real window under Xvfb. One module per topic.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/kittest.rs"]
mod kittest;

mod browser;
mod export;
mod feet;
mod malformed;
mod paths_agree;
mod repairs;
mod states;
mod ui;
mod ui_panels;
mod window_xvfb;
