//! The integration tests of `integrators`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

mod expint_convergence;
mod expint_errors;
mod magnus_cnot;
mod magnus_convergence;
mod magnus_spin_bath;
