//! The integration tests of `fock`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

mod basis;
mod dynamics;
mod hamiltonian;
mod hostile;
mod spin;
mod states;
