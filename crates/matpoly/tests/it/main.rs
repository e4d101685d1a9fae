//! The integration tests of `matpoly`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod expm;
mod hostile;
mod schemes;
mod split;
