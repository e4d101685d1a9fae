//! The integration tests of `matexp`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

mod bad_input;
mod facade;
mod nonnormal;
mod overflow;
mod report_rule;
