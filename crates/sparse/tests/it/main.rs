//! The integration tests of `sparse`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod generators;
mod hostile_inputs;
mod matrix_market;
mod spmv;
mod structure;
