//! MatrixMarket exchange format: streaming reader and exact writer.
//!
//! The format (NIST, <https://math.nist.gov/MatrixMarket/formats.html>) is a text file whose
//! first line is the banner `%%MatrixMarket matrix <format> <field> <symmetry>`, followed by
//! `%` comment lines, a size line and the data:
//!
//! * `coordinate` (sparse): size line `M N NNZ`, then NNZ lines `i j [value]` with 1-based
//!   indices; `array` (dense): size line `M N`, then values in column-major order.
//! * field `real`, `integer`, `complex` (two numbers per value) or `pattern` (no value,
//!   coordinate only).
//! * symmetry `general`, `symmetric`, `skew-symmetric` (no diagonal entries) or
//!   `hermitian` (complex only): only one triangle is stored and the reader mirrors it
//!   (a_ji = a_ij, −a_ij or conj(a_ij)). In array files the stored triangle is the lower one.
//!
//! # Reading
//!
//! [`MatrixMarketReader`] reads line by line from any [`std::io::BufRead`] (memory: the
//! coordinate triplets plus the CSR result, never the text), so SuiteSparse graphs with 10⁸
//! entries load in a few GB. Decisions where the standard leaves room:
//!
//! * Repeated coordinates are summed (as SciPy and Matlab do) in [`MatrixMarketReader::read_csr`]
//!   and stored once in [`MatrixMarketReader::read_pattern`].
//! * Symmetric, skew-symmetric and Hermitian coordinate files may store either triangle, but
//!   only one: an entry in the other triangle is an error, because mirroring both would count
//!   the pair twice. Skew-symmetric files must not hold diagonal entries and Hermitian
//!   diagonals must be real.
//! * Complex data cannot be read into a real scalar type (an error at the banner, whatever
//!   the values): read into `c64`/`c32` and use [`crate::CsrMatrix::cast`], which accepts
//!   the data exactly when every imaginary part is zero. Real and integer data read into any
//!   type; integers are converted to the nearest representable value.
//! * Pattern data read into a valued matrix gives entries equal to 1; valued data read as a
//!   pattern keeps every stored entry (zeros included) and drops the values.
//! * Numbers are parsed exactly (correctly rounded) by Rust's float parser; Fortran-style
//!   exponents `1.5D+03` are accepted; NaN and infinities are rejected, as are values that
//!   overflow the requested precision.
//! * Blank lines and `%` comment lines may appear anywhere after the banner.
//! * A line is at most [`MAX_LINE_BYTES`] (1 MiB) long: a longer one (a file without newlines,
//!   `/dev/zero`) is a parse error at its line, after reading no more than that.
//! * Before the data is read, what it will allocate (row pointers from the declared rows,
//!   entries from the declared count bounded by what the input's length can hold) is compared
//!   with the memory the process may use ([`matexp_core::memory`]: `MemAvailable`, the
//!   address-space limit, `MATEXP_MEMORY_LIMIT`); a header declaring more is refused with
//!   [`matexp_core::Error::OutOfMemoryBudget`] naming both numbers, in microseconds. Storage
//!   beyond the reservation grows with the entries actually read, each growth checked the
//!   same way.
//!
//! Every malformed input gives [`matexp_core::Error::Parse`] naming the source, the 1-based
//! line and what was expected: a wrong banner, a wrong size line, a bad number, an
//! out-of-range index, a truncated file (fewer entries than declared) or trailing data (more
//! entries than declared). Nothing is returned from a file that was not fully consistent.
//!
//! # Writing
//!
//! [`write_csr`] and [`write_pattern`] write coordinate files (general, or one triangle of a
//! matrix verified to be symmetric / skew-symmetric / Hermitian), [`write_dense`] array files.
//! Numbers use Rust's shortest round-trip representation, so reading back gives bit-identical
//! values.
//!
//! ```
//! use matexp_sparse::{CsrMatrix, matrix_market::{self, Symmetry}};
//! let text = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n2 2 2\n1 1 4.0\n2 1 -1\n";
//! let a: CsrMatrix<f64> = matrix_market::read_csr(text.as_bytes(), "example")?;
//! assert_eq!(a.to_dense()?, vec![4.0, -1.0, -1.0, 0.0]);
//!
//! let mut out = Vec::new();
//! matrix_market::write_csr(&mut out, &a, Symmetry::Symmetric, &["written by the example"])?;
//! let b: CsrMatrix<f64> = matrix_market::read_csr(&out[..], "round trip")?;
//! assert_eq!(a, b);
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod read;
mod two_pass;
mod write;

pub use read::{
    DenseArray, MAX_LINE_BYTES, MatrixMarketReader, read_csr, read_csr_file, read_dense_file,
    read_matrix_market, read_pattern, read_pattern_file,
};
pub use two_pass::{read_pattern_two_pass, read_pattern_two_pass_with};
pub use write::{
    write_csr, write_csr_file, write_dense, write_dense_file, write_pattern, write_pattern_file,
};

use std::fmt;

/// Storage layout of a MatrixMarket file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Sparse: one line per stored entry.
    Coordinate,
    /// Dense, column-major.
    Array,
}

/// Kind of numbers in a MatrixMarket file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// One real number per entry.
    Real,
    /// One integer per entry.
    Integer,
    /// Real and imaginary part per entry.
    Complex,
    /// No value: every stored entry is 1 (coordinate format only).
    Pattern,
}

/// Which part of the matrix a MatrixMarket file stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry.
    General,
    /// One triangle of A = Aᵀ.
    Symmetric,
    /// The strict triangle of A = −Aᵀ.
    SkewSymmetric,
    /// One triangle of A = Aᴴ (complex only).
    Hermitian,
}

impl Format {
    fn keyword(self) -> &'static str {
        match self {
            Format::Coordinate => "coordinate",
            Format::Array => "array",
        }
    }
}
impl Field {
    fn keyword(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Complex => "complex",
            Field::Pattern => "pattern",
        }
    }
}
impl Symmetry {
    fn keyword(self) -> &'static str {
        match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
            Symmetry::Hermitian => "hermitian",
        }
    }
}

/// The banner and size line of a MatrixMarket file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Coordinate or array.
    pub format: Format,
    /// Real, integer, complex or pattern.
    pub field: Field,
    /// General, symmetric, skew-symmetric or Hermitian.
    pub symmetry: Symmetry,
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Number of data lines the file declares (coordinate: NNZ of the size line; array: the
    /// number of values of the stored part).
    pub entries: usize,
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}×{} ({} entries)",
            self.format.keyword(),
            self.field.keyword(),
            self.symmetry.keyword(),
            self.nrows,
            self.ncols,
            self.entries
        )
    }
}
