//! The integration tests of `graph`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

mod estrada_coverage;
mod graphs;
mod hostile;
mod power_law_cost;
mod scale;
mod seed_graphs;
mod tolerance;
