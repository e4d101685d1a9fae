//! The example graphs of seed 002 (Tables 1 and 2), embedded at compile time from the
//! crate's `data/` MatrixMarket files, with SciPy reference values (`data/make_references.py`).
//!
//! ```
//! use matexp_sparse::fixtures;
//! let g = fixtures::seed002_table1()?;
//! assert_eq!((g.nrows(), g.nnz()), (10, 22)); // 11 undirected edges
//! let r = fixtures::seed002_references()?;
//! assert!((r.data[0] - 7.7820).abs() < 1e-4); // [exp(A)·1]₁ of Table 1
//! # Ok::<(), matexp_core::Error>(())
//! ```

use crate::PatternCsr;
use crate::matrix_market::{DenseArray, MatrixMarketReader};
use matexp_core::Result;

const TABLE1: &str = include_str!("../data/seed002_table1.mtx");
const TABLE2: &str = include_str!("../data/seed002_table2_dumbbell.mtx");
const REFERENCES: &str = include_str!("../data/seed002_references.mtx");

/// Seed 002, Table 1: 10 nodes, 11 edges (1-based): (1,10) (2,5) (2,8) (2,10) (3,6) (3,7)
/// (3,8) (4,5) (5,10) (8,9) (9,10); stored 0-based and symmetric.
///
/// # Errors
///
/// None in practice: the embedded file is valid; a [`matexp_core::Error::Parse`] would mean the
/// crate's data were altered.
pub fn seed002_table1() -> Result<PatternCsr<u32>> {
    MatrixMarketReader::new(TABLE1.as_bytes(), "matexp-sparse/data/seed002_table1.mtx")?
        .read_pattern()
}

/// Seed 002, Table 2, the "dumbbell": 10 nodes, 14 edges (1-based): (1,4) (1,5) (1,10)
/// (2,3) (2,4) (2,5) (3,4) (3,5) (4,5) (6,8) (6,9) (7,8) (7,9) (7,10).
///
/// # Errors
///
/// As [`seed002_table1`].
pub fn seed002_dumbbell() -> Result<PatternCsr<u32>> {
    MatrixMarketReader::new(
        TABLE2.as_bytes(),
        "matexp-sparse/data/seed002_table2_dumbbell.mtx",
    )?
    .read_pattern()
}

/// 10 × 4 column-major array from `scipy.linalg.expm`: columns e^A·1 and diag(e^A) of the
/// Table 1 graph, then of the dumbbell (`data/make_references.py`). Estrada
/// indices (column sums of the diagonals): 28.2238…, 44.1073….
///
/// # Errors
///
/// As [`seed002_table1`].
pub fn seed002_references() -> Result<DenseArray<f64>> {
    MatrixMarketReader::new(
        REFERENCES.as_bytes(),
        "matexp-sparse/data/seed002_references.mtx",
    )?
    .read_dense()
}
