//! Sparse matrices for matexp: CSR and pattern-only CSR, rayon SpMV, MatrixMarket I/O and the
//! test problems of the seed documents.

mod csr;
pub mod fixtures;
pub mod generators;
mod index;
pub mod matrix_market;
mod operator;
mod parallel;
mod pattern;
mod sprs_interop;

pub use csr::CsrMatrix;
pub use index::CsrIndex;
pub use pattern::PatternCsr;
