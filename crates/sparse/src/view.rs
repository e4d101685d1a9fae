//! A borrowed CSR matrix over index and value slices owned elsewhere (a SciPy matrix's
//! `indptr`, `indices` and `data`, a memory map): the same product as [`crate::CsrMatrix`]
//! without copying the arrays.

use crate::operator::drive_spmv;
use crate::{CsrIndex, gershgorin_box, hermitian_part_bounds, validate_csr};
use matexp_core::{CpuBackend, LinearOperator, Result, Scalar, SpectralBounds, check_dim};
use std::sync::OnceLock;

/// An `nrows × ncols` CSR matrix borrowing its three arrays, validated once at construction
/// (row pointers non-decreasing from 0 to nnz, column indices below `ncols`; duplicate and
/// unsorted entries are allowed and summed, as in SciPy). It is a CPU [`LinearOperator`]
/// with the product of [`crate::CsrMatrix`] (row-parallel, O(nnz) per product), Gershgorin
/// bounds and an exact Hermitian test, both computed on first use and kept; Leja's step
/// runs as its unfused sequence.
///
/// ```
/// use matexp_core::{CpuBackend, LinearOperator};
/// use matexp_sparse::CsrView;
/// // [[2, 1], [1, 2]] from arrays owned by the caller.
/// let (ptr, idx, val) = ([0u32, 2, 4], [0u32, 1, 0, 1], [2.0, 1.0, 1.0, 2.0]);
/// let a = CsrView::try_new(2, 2, &ptr, &idx, &val)?;
/// let mut y = vec![0.0; 2];
/// a.apply(&CpuBackend::new(), 1.0, &vec![1.0, 0.0], 0.0, &mut y)?;
/// assert_eq!(y, [2.0, 1.0]);
/// assert!(LinearOperator::<CpuBackend, f64>::is_hermitian(&a));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct CsrView<'a, S: Scalar, I: CsrIndex = u32> {
    nrows: usize,
    ncols: usize,
    row_ptr: &'a [I],
    col_idx: &'a [I],
    values: &'a [S],
    hermitian: OnceLock<bool>,
    bounds: OnceLock<Option<SpectralBounds>>,
}

impl<'a, S: Scalar, I: CsrIndex> CsrView<'a, S, I> {
    /// The view over `row_ptr` (nrows + 1), `col_idx` and `values` (nnz each).
    ///
    /// # Errors
    ///
    /// `DimensionMismatch` when `values` and `col_idx` differ in length, and the errors of
    /// [`crate::validate_csr`] for a malformed structure (its message names the entry).
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        row_ptr: &'a [I],
        col_idx: &'a [I],
        values: &'a [S],
    ) -> Result<Self> {
        check_dim(
            "CsrView: values vs column indices",
            col_idx.len(),
            values.len(),
        )?;
        validate_csr(nrows, ncols, row_ptr, col_idx)?;
        Ok(CsrView {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
            hermitian: OnceLock::new(),
            bounds: OnceLock::new(),
        })
    }

    /// Stored entries (duplicates counted).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Σ_j a_ij x_j for row `r` (two accumulators, as the owned matrix's kernel).
    #[inline(always)]
    fn row(&self, r: usize, x: &[S]) -> S {
        let (s, e) = (self.row_ptr[r].as_usize(), self.row_ptr[r + 1].as_usize());
        let (mut a0, mut a1) = (S::zero(), S::zero());
        let (cols, vals) = (&self.col_idx[s..e], &self.values[s..e]);
        let mut k = 0;
        while k + 1 < cols.len() {
            a0 += vals[k] * x[cols[k].as_usize()];
            a1 += vals[k + 1] * x[cols[k + 1].as_usize()];
            k += 2;
        }
        if k < cols.len() {
            a0 += vals[k] * x[cols[k].as_usize()];
        }
        a0 + a1
    }

    /// The sum of the stored entries at (i, j) (0 when none), by a scan of row i.
    fn entry(&self, i: usize, j: usize) -> S {
        let (s, e) = (self.row_ptr[i].as_usize(), self.row_ptr[i + 1].as_usize());
        self.col_idx[s..e]
            .iter()
            .zip(&self.values[s..e])
            .filter(|(c, _)| c.as_usize() == j)
            .fold(S::zero(), |acc, (_, v)| acc + *v)
    }

    /// Whether A = Aᴴ exactly: every stored a_ij equals conj(a_ji) summed over duplicates.
    /// Cost: Σ_i Σ_{j ∈ row i} (len(row i) + len(row j)), O(nnz·d) for d entries per row.
    fn hermitian_now(&self) -> bool {
        if self.nrows != self.ncols {
            return false;
        }
        (0..self.nrows).all(|i| {
            let (s, e) = (self.row_ptr[i].as_usize(), self.row_ptr[i + 1].as_usize());
            self.col_idx[s..e].iter().all(|c| {
                let j = c.as_usize();
                self.entry(i, j) == self.entry(j, i).conj()
            })
        })
    }
}

impl<S: Scalar, I: CsrIndex> LinearOperator<CpuBackend, S> for CsrView<'_, S, I> {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        check_dim("CsrView::apply: x length (ncols)", self.ncols, x.len())?;
        check_dim("CsrView::apply: y length (nrows)", self.nrows, y.len())?;
        drive_spmv(self.row_ptr, alpha, beta, y, |r| self.row(r, x));
        Ok(())
    }
    /// Gershgorin's box, narrowed to the real interval for a Hermitian matrix (as
    /// [`crate::CsrMatrix::gershgorin`]); `None` for a non-square or empty matrix or
    /// overflowing sums.
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        *self.bounds.get_or_init(|| {
            if self.nrows != self.ncols || self.nrows == 0 {
                return None;
            }
            let (a, b, c, d) =
                gershgorin_box(self.nrows, self.row_ptr, self.col_idx, Some(self.values));
            if LinearOperator::<CpuBackend, S>::is_hermitian(self) {
                SpectralBounds::real(a, b).ok()
            } else {
                SpectralBounds::new(a, b, c, d).ok()
            }
        })
    }
    fn is_hermitian(&self) -> bool {
        *self.hermitian.get_or_init(|| self.hermitian_now())
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        hermitian_part_bounds(self.nrows, self.row_ptr, self.col_idx, Some(self.values))
    }
}
