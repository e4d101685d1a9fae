//! Operators and backends built on the runtime and the kernels: the one-GPU backend, CSR and
//! pattern-only CSR operators, and their multi-GPU counterparts.

pub mod backend;
pub mod csr;
pub mod multi;
pub mod pattern;
pub mod structure;
