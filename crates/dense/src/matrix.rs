//! The dense matrix type: column-major storage, LAPACK's native layout.

use matexp_core::{Error, RealScalar, Result, Scalar, check_dim};
use num_traits::{Float, Zero};
use std::ops::{Index, IndexMut};

/// A dense `nrows × ncols` matrix stored **column-major**: entry `(i, j)` lives at
/// `data[i + j·nrows]`, so columns are contiguous and the storage is passed to LAPACK and
/// BLAS without copies or transposes.
///
/// Meant for the small problems of the library (Krylov projections of size ≤ a few hundred,
/// dense references in tests); products go through `gemm` (OpenBLAS for `f64`/`c64` with the `lapack` feature).
///
/// ```
/// use matexp_dense::Matrix;
/// let a = Matrix::from_row_major(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(a[(1, 0)], 4.0);
/// assert_eq!(a.col(2), &[3.0, 6.0]);
/// assert_eq!(a.norm_one(), 9.0); // max column sum
/// assert_eq!(a.norm_inf(), 15.0); // max row sum
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix<S: Scalar> {
    // Invariant: `data.len() == nrows·ncols` without overflow. Every constructor checks it
    // and no method changes the length, so the BLAS calls may rely on it.
    nrows: usize,
    ncols: usize,
    data: Vec<S>,
}

impl<S: Scalar> Matrix<S> {
    /// The zero matrix.
    ///
    /// # Panics
    ///
    /// When `nrows·ncols` overflows `usize` (like `vec!` on a capacity overflow): a matrix
    /// never has fewer entries than its shape. Sizes that come from input go through
    /// [`Matrix::try_zeros`].
    pub fn zeros(nrows: usize, ncols: usize) -> Self {
        match entries(nrows, ncols) {
            Some(len) => Matrix {
                nrows,
                ncols,
                data: vec![S::zero(); len],
            },
            None => panic!("Matrix::zeros: {nrows}×{ncols} entries overflow usize"),
        }
    }

    /// The zero matrix, or a typed error when `nrows·ncols` entries overflow `usize` or
    /// cannot be allocated (a size from a file or a caller must not abort the process).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the shape, for an overflowing product or an
    /// allocation the system refuses.
    pub fn try_zeros(nrows: usize, ncols: usize) -> Result<Self> {
        let len = checked_entries(nrows, ncols, "Matrix::try_zeros")?;
        let data = matexp_core::try_filled(len, S::zero(), "nrows·ncols (dense matrix)")?;
        Ok(Matrix { nrows, ncols, data })
    }

    /// The `n × n` identity.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m[(i, i)] = S::one();
        }
        m
    }

    /// A square matrix with `d` on its diagonal.
    pub fn from_diagonal(d: &[S]) -> Self {
        let mut m = Self::zeros(d.len(), d.len());
        for (i, &v) in d.iter().enumerate() {
            m[(i, i)] = v;
        }
        m
    }

    /// Entry `(i, j)` = `f(i, j)`.
    ///
    /// # Panics
    ///
    /// When `nrows·ncols` overflows `usize`, as [`Matrix::zeros`].
    pub fn from_fn(nrows: usize, ncols: usize, mut f: impl FnMut(usize, usize) -> S) -> Self {
        let len = entries(nrows, ncols)
            .unwrap_or_else(|| panic!("Matrix::from_fn: {nrows}×{ncols} entries overflow usize"));
        let mut data = Vec::with_capacity(len);
        if len == 0 {
            // An empty matrix of 2⁶¹ columns must not loop over them.
            return Matrix { nrows, ncols, data };
        }
        for j in 0..ncols {
            for i in 0..nrows {
                data.push(f(i, j));
            }
        }
        Matrix { nrows, ncols, data }
    }

    /// Takes ownership of column-major `data` (length `nrows·ncols`).
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if `data.len() != nrows·ncols`,
    /// [`Error::InvalidArgument`] if `nrows·ncols` overflows `usize`.
    pub fn from_col_major(nrows: usize, ncols: usize, data: Vec<S>) -> Result<Self> {
        check_dim(
            "Matrix::from_col_major: data length (nrows·ncols)",
            checked_entries(nrows, ncols, "Matrix::from_col_major")?,
            data.len(),
        )?;
        Ok(Matrix { nrows, ncols, data })
    }

    /// Copies row-major `data` (length `nrows·ncols`), the order matrices are usually written in.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if `data.len() != nrows·ncols`,
    /// [`Error::InvalidArgument`] if `nrows·ncols` overflows `usize`.
    pub fn from_row_major(nrows: usize, ncols: usize, data: &[S]) -> Result<Self> {
        check_dim(
            "Matrix::from_row_major: data length (nrows·ncols)",
            checked_entries(nrows, ncols, "Matrix::from_row_major")?,
            data.len(),
        )?;
        Ok(Self::from_fn(nrows, ncols, |i, j| data[i * ncols + j]))
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Whether the matrix is square.
    pub fn is_square(&self) -> bool {
        self.nrows == self.ncols
    }

    /// Column-major entries.
    pub fn as_slice(&self) -> &[S] {
        &self.data
    }

    /// Column-major entries, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [S] {
        &mut self.data
    }

    /// The column-major storage.
    pub fn into_vec(self) -> Vec<S> {
        self.data
    }

    /// The entries in row-major order.
    pub fn to_row_major(&self) -> Vec<S> {
        let mut out = Vec::with_capacity(self.data.len());
        if self.data.is_empty() {
            return out;
        }
        for i in 0..self.nrows {
            for j in 0..self.ncols {
                out.push(self[(i, j)]);
            }
        }
        out
    }

    /// Column `j` (contiguous). Panics if `j ≥ ncols`, like slice indexing.
    pub fn col(&self, j: usize) -> &[S] {
        &self.data[j * self.nrows..(j + 1) * self.nrows]
    }

    /// Column `j`, mutable.
    pub fn col_mut(&mut self, j: usize) -> &mut [S] {
        &mut self.data[j * self.nrows..(j + 1) * self.nrows]
    }

    /// The transpose Aᵀ.
    pub fn transpose(&self) -> Self {
        Self::from_fn(self.ncols, self.nrows, |i, j| self[(j, i)])
    }

    /// The conjugate transpose Aᴴ.
    pub fn adjoint(&self) -> Self {
        Self::from_fn(self.ncols, self.nrows, |i, j| self[(j, i)].conj())
    }

    /// Entry-wise map to another scalar type (e.g. widening to `c64`).
    pub fn map<T: Scalar>(&self, mut f: impl FnMut(S) -> T) -> Matrix<T> {
        Matrix {
            nrows: self.nrows,
            ncols: self.ncols,
            data: self.data.iter().map(|&x| f(x)).collect(),
        }
    }

    /// The block of rows `r0..r0+nr`, columns `c0..c0+nc`, copied.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if the block reaches past the last row or column.
    pub fn submatrix(&self, r0: usize, c0: usize, nr: usize, nc: usize) -> Result<Self> {
        // An end beyond usize is beyond the matrix too (reported as usize::MAX).
        let r1 = r0.saturating_add(nr);
        if r1 > self.nrows {
            return Err(Error::dim("Matrix::submatrix: rows", self.nrows, r1));
        }
        let c1 = c0.saturating_add(nc);
        if c1 > self.ncols {
            return Err(Error::dim("Matrix::submatrix: columns", self.ncols, c1));
        }
        Ok(Self::from_fn(nr, nc, |i, j| self[(r0 + i, c0 + j)]))
    }

    /// A ← α·A.
    pub fn scale_mut(&mut self, alpha: S) {
        self.data.iter_mut().for_each(|x| *x *= alpha);
    }

    /// α·A, as a new matrix.
    pub fn scaled(&self, alpha: S) -> Self {
        let mut m = self.clone();
        m.scale_mut(alpha);
        m
    }

    /// A ← A + α·B.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if B has another shape.
    pub fn add_scaled(&mut self, alpha: S, b: &Matrix<S>) -> Result<()> {
        self.check_same_shape("Matrix::add_scaled", b)?;
        for (x, &y) in self.data.iter_mut().zip(&b.data) {
            *x += alpha * y;
        }
        Ok(())
    }

    /// A ← A + α·I (A square).
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if A is not square.
    pub fn add_identity(&mut self, alpha: S) -> Result<()> {
        self.check_square("Matrix::add_identity")?;
        for i in 0..self.nrows {
            self[(i, i)] += alpha;
        }
        Ok(())
    }

    /// The product A·x.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if `x.len()` is not the number of columns;
    /// [`Error::InvalidArgument`] if the `nrows` entries of the result cannot be allocated
    /// (an empty `2⁶¹ × 0` matrix).
    pub fn matvec(&self, x: &[S]) -> Result<Vec<S>> {
        check_dim("Matrix::matvec: x length", self.ncols, x.len())?;
        let mut y = matexp_core::try_filled(self.nrows, S::zero(), "nrows (Matrix::matvec)")?;
        for (j, &xj) in x.iter().enumerate() {
            if xj == S::zero() {
                continue;
            }
            for (yi, &a) in y.iter_mut().zip(self.col(j)) {
                *yi += a * xj;
            }
        }
        Ok(y)
    }

    /// ‖A‖₁ = max_j Σ_i |a_ij| (maximum column sum), the norm the `expm` error analysis uses.
    pub fn norm_one(&self) -> S::Real {
        if self.data.is_empty() {
            return S::Real::zero();
        }
        (0..self.ncols)
            .map(|j| {
                self.col(j)
                    .iter()
                    .fold(S::Real::zero(), |s, x| s + x.modulus())
            })
            .fold(S::Real::zero(), max_nan)
    }

    /// ‖A‖_∞ = max_i Σ_j |a_ij| (maximum row sum).
    pub fn norm_inf(&self) -> S::Real {
        if self.data.is_empty() {
            return S::Real::zero();
        }
        let mut rows = vec![S::Real::zero(); self.nrows];
        for j in 0..self.ncols {
            for (r, x) in rows.iter_mut().zip(self.col(j)) {
                *r += x.modulus();
            }
        }
        rows.into_iter().fold(S::Real::zero(), max_nan)
    }

    /// ‖A‖_F = (Σ |a_ij|²)^{1/2}, computed without overflow (scaled when needed).
    pub fn norm_fro(&self) -> S::Real {
        matexp_core::norms::nrm2(&self.data)
    }

    /// max |a_ij|.
    pub fn norm_max(&self) -> S::Real {
        matexp_core::norms::amax(&self.data)
    }

    /// Row, column and value of the first non-finite entry (column-major order), if any.
    pub fn first_non_finite(&self) -> Option<(usize, usize, S)> {
        matexp_core::norms::first_non_finite(&self.data)
            .map(|(k, v)| (k % self.nrows.max(1), k / self.nrows.max(1), v))
    }

    /// Whether a_ij = 0 for all i > j.
    pub fn is_upper_triangular(&self) -> bool {
        self.data.is_empty()
            || (0..self.ncols).all(|j| ((j + 1)..self.nrows).all(|i| self[(i, j)] == S::zero()))
    }

    /// Checks that the matrix is square.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] unless square; `context` names the caller.
    pub fn check_square(&self, context: &str) -> Result<()> {
        check_dim(
            &format!("{context}: matrix must be square (columns vs rows)"),
            self.nrows,
            self.ncols,
        )
    }

    /// Checks that every entry is finite.
    ///
    /// # Errors
    ///
    /// [`Error::NonFinite`] (row-major index `i·ncols + j`, and the position in the
    /// message) if an entry is NaN or infinite.
    pub fn check_finite(&self, context: &str) -> Result<()> {
        match self.first_non_finite() {
            None => Ok(()),
            Some((i, j, v)) => Err(Error::NonFinite {
                context: format!("{context} (entry ({i}, {j}))"),
                index: i * self.ncols + j,
                value: format!("{v}"),
            }),
        }
    }

    /// Checks the storage invariant `as_slice().len() == nrows·ncols` before a kernel
    /// that indexes raw memory from the shape (BLAS, `matrixmultiply`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `nrows·ncols` overflows, [`Error::DimensionMismatch`]
    /// when the storage does not hold `nrows·ncols` entries.
    pub fn check_storage(&self, context: &str) -> Result<()> {
        check_dim(
            &format!(
                "{context}: storage of a {}×{} matrix",
                self.nrows, self.ncols
            ),
            checked_entries(self.nrows, self.ncols, context)?,
            self.data.len(),
        )
    }

    fn check_same_shape(&self, context: &str, b: &Matrix<S>) -> Result<()> {
        check_dim(&format!("{context}: rows"), self.nrows, b.nrows)?;
        check_dim(&format!("{context}: columns"), self.ncols, b.ncols)
    }
}

/// `nrows·ncols`, or `None` when it overflows `usize`.
fn entries(nrows: usize, ncols: usize) -> Option<usize> {
    nrows.checked_mul(ncols)
}

/// `nrows·ncols`, or [`Error::InvalidArgument`] naming the shape and `context`.
fn checked_entries(nrows: usize, ncols: usize, context: &str) -> Result<usize> {
    entries(nrows, ncols).ok_or_else(|| {
        Error::invalid(
            "nrows·ncols",
            format!("{nrows}×{ncols}"),
            format!("{context}: the number of entries overflows usize"),
        )
    })
}

/// max that propagates NaN (so a NaN entry yields a NaN norm, never a silent finite one).
fn max_nan<R: RealScalar>(a: R, b: R) -> R {
    if a.is_nan() || b.is_nan() {
        R::nan()
    } else {
        Float::max(a, b)
    }
}

impl<S: Scalar> Index<(usize, usize)> for Matrix<S> {
    type Output = S;
    #[inline]
    fn index(&self, (i, j): (usize, usize)) -> &S {
        debug_assert!(i < self.nrows && j < self.ncols);
        &self.data[i + j * self.nrows]
    }
}

impl<S: Scalar> IndexMut<(usize, usize)> for Matrix<S> {
    #[inline]
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut S {
        debug_assert!(i < self.nrows && j < self.ncols);
        &mut self.data[i + j * self.nrows]
    }
}

impl<S: Scalar> Matrix<S> {
    /// Σ_i a_ii.
    pub fn trace(&self) -> S {
        (0..self.nrows.min(self.ncols)).map(|i| self[(i, i)]).sum()
    }

    /// Whether ‖A − Aᴴ‖_max ≤ `rel_tol`·‖A‖_max.
    pub fn is_hermitian(&self, rel_tol: f64) -> bool {
        if !self.is_square() {
            return false;
        }
        let scale = self.norm_max().as_f64();
        (0..self.ncols).all(|j| {
            (0..=j)
                .all(|i| (self[(i, j)] - self[(j, i)].conj()).modulus().as_f64() <= rel_tol * scale)
        })
    }
}

impl<S: Scalar> Matrix<S> {
    /// Whether the matrix is exactly the identity.
    pub fn is_identity(&self) -> bool {
        self.is_square()
            && (0..self.ncols).all(|j| {
                (0..self.nrows).all(|i| self[(i, j)] == if i == j { S::one() } else { S::zero() })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::c64;

    #[test]
    fn layout_and_constructors_agree() {
        let a = Matrix::from_row_major(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(a.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(a.to_row_major(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = Matrix::from_col_major(2, 3, a.as_slice().to_vec()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.transpose()[(2, 1)], 6.0);
        assert!(Matrix::<f64>::from_col_major(2, 2, vec![0.0; 3]).is_err());
        assert!(Matrix::<f64>::identity(3).is_identity());
    }

    #[test]
    fn norms_match_their_definitions() {
        let a = Matrix::<f64>::from_row_major(2, 2, &[1.0, -7.0, -2.0, 3.0]).unwrap();
        assert_eq!(a.norm_one(), 10.0);
        assert_eq!(a.norm_inf(), 8.0);
        assert!((a.norm_fro() - (1.0f64 + 49.0 + 4.0 + 9.0).sqrt()).abs() < 1e-15);
        let z = Matrix::from_row_major(1, 2, &[c64::new(3.0, 4.0), c64::new(0.0, -1.0)]).unwrap();
        assert_eq!(z.norm_one(), 5.0);
        assert_eq!(z.norm_inf(), 6.0);
        let huge = Matrix::<f64>::from_diagonal(&[1e200, 1e200]);
        assert!((huge.norm_fro() / (1e200 * 2f64.sqrt()) - 1.0).abs() < 1e-15);
        let nan = Matrix::from_diagonal(&[1.0, f64::NAN]);
        assert!(nan.norm_one().is_nan() && nan.norm_inf().is_nan());
    }

    #[test]
    fn adjoint_conjugates() {
        let z = Matrix::from_row_major(1, 2, &[c64::new(1.0, 2.0), c64::new(3.0, -4.0)]).unwrap();
        let h = z.adjoint();
        assert_eq!((h.nrows(), h.ncols()), (2, 1));
        assert_eq!(h[(1, 0)], c64::new(3.0, 4.0));
    }

    #[test]
    fn non_finite_entries_are_located() {
        let mut a = Matrix::<f64>::zeros(3, 2);
        a[(2, 1)] = f64::INFINITY;
        let err = a.check_finite("test").unwrap_err();
        match err {
            Error::NonFinite { index, .. } => assert_eq!(index, 2 * 2 + 1),
            e => panic!("unexpected {e}"),
        }
    }
}
