//! Conversion to and from [`sprs`] matrices.
//!
//! sprs requires sorted, duplicate-free rows, so [`CsrMatrix::to_sprs`] canonicalizes
//! (sorts, sums repeats) when needed; the conversion back accepts CSR or CSC storage and
//! any view (including sub-views whose row pointers do not start at 0).

use crate::{CsrIndex, CsrMatrix};
use matexp_core::{Result, Scalar};
use sprs::{CsMatI, CsMatViewI};

impl<S: Scalar, I: CsrIndex> CsrMatrix<S, I> {
    /// An owned sprs CSR matrix with the same entries (canonicalized: rows sorted, repeated
    /// columns summed). O(nnz) copy, plus sorting if `self` is not canonical.
    ///
    /// ```
    /// use matexp_sparse::CsrMatrix;
    /// let a = CsrMatrix::<f64, u32>::from_triplets(2, 3, &[(0, 2, 1.5), (1, 0, -2.0)])?;
    /// let s = a.to_sprs();
    /// assert_eq!(s.get(0, 2), Some(&1.5));
    /// assert_eq!(CsrMatrix::from_sprs(s.view())?, a);
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    pub fn to_sprs(&self) -> CsMatI<S, I> {
        let canon = self.canonicalize();
        let (n, m, p, c, v) = canon.into_parts();
        // The arrays satisfy sprs's checks (sorted, in range, monotone); a failure here
        // would be a bug in canonicalize, not a user error.
        CsMatI::try_new((n, m), p, c, v)
            .unwrap_or_else(|(_, _, _, e)| unreachable!("canonical CSR rejected by sprs: {e}"))
    }

    /// A matrix from a sprs matrix view (CSR or CSC; CSC is converted). Values are checked
    /// to be finite. O(nnz) (plus the CSC → CSR conversion).
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::NonFinite`] for a NaN or infinite value, and the structural
    /// errors of [`CsrMatrix::try_new`].
    pub fn from_sprs(m: CsMatViewI<'_, S, I>) -> Result<Self> {
        if m.is_csc() {
            let csr = m.to_csr();
            return Self::from_sprs(csr.view());
        }
        let (n, cols) = (m.rows(), m.cols());
        let indptr = m.proper_indptr();
        let p: Vec<I> = indptr.iter().copied().collect();
        CsrMatrix::try_new(n, cols, p, m.indices().to_vec(), m.data().to_vec())
    }
}

impl<S: Scalar, I: CsrIndex> From<&CsrMatrix<S, I>> for CsMatI<S, I> {
    fn from(a: &CsrMatrix<S, I>) -> Self {
        a.to_sprs()
    }
}

impl<S: Scalar, I: CsrIndex> TryFrom<&CsMatI<S, I>> for CsrMatrix<S, I> {
    type Error = matexp_core::Error;
    fn try_from(m: &CsMatI<S, I>) -> Result<Self> {
        CsrMatrix::from_sprs(m.view())
    }
}
