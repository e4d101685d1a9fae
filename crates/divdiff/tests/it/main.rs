//! The integration tests of `divdiff`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod accuracy;
mod analytic;
mod errors;
mod hostile;
mod phi_high_order;
mod properties;
