//! Pieces shared by the readers and the writers: limits on what a file may ask for, atomic writes, GLB assembly.

pub mod bits;
pub mod fsutil;
pub mod glb;
pub mod limits;
