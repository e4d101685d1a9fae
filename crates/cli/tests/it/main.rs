//! The integration tests of `cli`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

mod c_abi;
mod c_abi_hostile;
mod cli;
mod header;
mod hostile_cli;
mod python_abi;
