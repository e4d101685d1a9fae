//! The integration tests of `dense`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod eigen_and_errors;
mod expm;
mod hostile_sizes;
mod phi;
mod tridiagonal;
