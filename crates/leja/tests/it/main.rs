//! The integration tests of `leja`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod errors;
mod leja_points;
