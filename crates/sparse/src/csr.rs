//! Compressed sparse row matrices over the four scalar types and two index widths.

// Older path of the coordinate assembly, kept for the modules that import it from here.
pub(crate) use crate::raw::coo_to_csr;
use crate::raw::{canonicalize_in_place, transpose_raw};
use crate::{CsrIndex, PatternCsr};
use matexp_core::{Error, Result, Scalar, SpectralBounds};
use rayon::prelude::*;
use std::fmt;
use std::sync::OnceLock;

/// A sparse matrix in compressed sparse row form: row `i` holds the entries
/// `(col_idx[k], values[k])` for `k ∈ row_ptr[i]..row_ptr[i+1]`.
///
/// * Scalars: `f32`, `f64`, [`matexp_core::c32`], [`matexp_core::c64`]; indices `u32`
///   (default) or `u64` (see [`CsrIndex`]).
/// * Invariants (checked by every constructor): those of [`PatternCsr`], one value per
///   stored entry, every value finite. Columns within a row may be unsorted and may repeat
///   (repeats add up, as in a coordinate file); [`CsrMatrix::is_canonical`] tells whether
///   each row is strictly increasing.
/// * Stored zeros are kept: they cost memory and bandwidth but are part of what some
///   producers (the seed's spin-bath matrices) store. [`CsrMatrix::drop_zeros`] removes them.
/// * Memory: `(nrows + 1 + nnz)·size_of::<I>() + nnz·size_of::<S>()` bytes.
///
/// Derived quantities that need a pass over the entries — Hermitian-ness and Gershgorin
/// bounds — are computed on first use and cached.
///
/// ```
/// use matexp_sparse::CsrMatrix;
/// // [[2, -1], [-1, 2]]
/// let a = CsrMatrix::<f64>::from_triplets(2, 2, &[(0, 0, 2.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 2.0)])?;
/// let mut y = vec![0.0; 2];
/// a.spmv(1.0, &[1.0, 1.0], 0.0, &mut y)?;
/// assert_eq!(y, vec![1.0, 1.0]);
/// assert!(a.is_hermitian());
/// let b = a.gershgorin().unwrap();
/// assert_eq!((b.re_min, b.re_max), (1.0, 3.0));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Clone)]
pub struct CsrMatrix<S: Scalar, I: CsrIndex = u32> {
    pattern: PatternCsr<I>,
    values: Vec<S>,
    hermitian: OnceLock<bool>,
    bounds: OnceLock<Option<SpectralBounds>>,
    hermitian_part: OnceLock<Option<(f64, f64)>>,
}

impl<S: Scalar, I: CsrIndex> fmt::Debug for CsrMatrix<S, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CsrMatrix")
            .field("nrows", &self.nrows())
            .field("ncols", &self.ncols())
            .field("nnz", &self.nnz())
            .field("scalar", &S::NAME)
            .field("index", &I::NAME)
            .field("canonical", &self.is_canonical())
            .finish()
    }
}

impl<S: Scalar, I: CsrIndex> PartialEq for CsrMatrix<S, I> {
    /// Equality of the stored arrays (an unsorted row differs from its sorted copy; use
    /// [`CsrMatrix::canonicalize`] on both sides to compare the matrices themselves).
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.values == other.values
    }
}

fn check_finite<S: Scalar>(values: &[S], context: &str) -> Result<()> {
    let bad = if values.len() < crate::parallel::SERIAL_WORK {
        values.iter().position(|v| !v.finite())
    } else {
        values.par_iter().position_first(|v| !v.finite())
    };
    match bad {
        Some(k) => Err(Error::NonFinite {
            context: context.into(),
            index: k,
            value: format!("{}", values[k]),
        }),
        None => Ok(()),
    }
}

impl<S: Scalar, I: CsrIndex> CsrMatrix<S, I> {
    /// A matrix from its CSR arrays, validated: the structure as in [`PatternCsr::try_new`],
    /// `values.len() == nnz`, every value finite ([`Error::NonFinite`] names the first bad
    /// entry). O(nrows + nnz), parallel.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] or [`Error::InvalidArgument`] for a malformed structure
    /// (row pointers not monotone or not ending at `nnz`, a column out of range, sizes beyond
    /// `I`), [`Error::DimensionMismatch`] if `values.len() != nnz`, [`Error::NonFinite`] for
    /// the first NaN or infinite value.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<S>,
    ) -> Result<Self> {
        let pattern = PatternCsr::try_new(nrows, ncols, row_ptr, col_idx)?;
        Self::from_pattern(pattern, values)
    }

    /// Like [`CsrMatrix::try_new`], and additionally requires strictly increasing columns in
    /// every row.
    ///
    /// # Errors
    ///
    /// Those of [`CsrMatrix::try_new`], and [`Error::InvalidArgument`] for a row with unsorted
    /// or repeated columns.
    pub fn try_new_canonical(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<S>,
    ) -> Result<Self> {
        let pattern = PatternCsr::try_new_canonical(nrows, ncols, row_ptr, col_idx)?;
        Self::from_pattern(pattern, values)
    }

    /// A matrix with the given structure and values (`values.len() == pattern.nnz()`,
    /// every value finite).
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if `values.len() != pattern.nnz()`, [`Error::NonFinite`]
    /// for the first NaN or infinite value.
    pub fn from_pattern(pattern: PatternCsr<I>, values: Vec<S>) -> Result<Self> {
        matexp_core::check_dim("CsrMatrix values length (nnz)", pattern.nnz(), values.len())?;
        check_finite(&values, "CsrMatrix values")?;
        Ok(Self::from_pattern_trusted(pattern, values))
    }

    pub(crate) fn from_pattern_trusted(pattern: PatternCsr<I>, values: Vec<S>) -> Self {
        debug_assert_eq!(pattern.nnz(), values.len());
        CsrMatrix {
            pattern,
            values,
            hermitian: OnceLock::new(),
            bounds: OnceLock::new(),
            hermitian_part: OnceLock::new(),
        }
    }

    pub(crate) fn from_raw_trusted(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<S>,
        canonical: bool,
    ) -> Self {
        Self::from_pattern_trusted(
            PatternCsr::from_parts_trusted(nrows, ncols, row_ptr, col_idx, canonical),
            values,
        )
    }

    /// The canonical matrix holding the coordinate entries `(row, col, value)` (0-based);
    /// repeated coordinates are summed, zeros are kept. O(nnz log(row length)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a coordinate outside `nrows × ncols` or sizes beyond `I`,
    /// [`Error::NonFinite`] for a NaN or infinite value.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        entries: &[(usize, usize, S)],
    ) -> Result<Self> {
        I::narrow_checked(nrows, "nrows")?;
        I::narrow_checked(ncols, "ncols")?;
        I::narrow_checked(entries.len(), "number of entries")?;
        for (k, &(i, j, v)) in entries.iter().enumerate() {
            if i >= nrows || j >= ncols {
                return Err(Error::invalid(
                    "entries",
                    format!("({i}, {j}) at position {k}"),
                    format!("outside the {nrows} × {ncols} matrix"),
                ));
            }
            if !v.finite() {
                return Err(Error::NonFinite {
                    context: "CsrMatrix::from_triplets".into(),
                    index: k,
                    value: format!("{v}"),
                });
            }
        }
        let rows: Vec<I> = entries.iter().map(|e| I::narrow(e.0)).collect();
        let cols: Vec<I> = entries.iter().map(|e| I::narrow(e.1)).collect();
        let vals: Vec<S> = entries.iter().map(|e| e.2).collect();
        let (mut p, mut c, mut v) = coo_to_csr(nrows, &rows, &cols, &vals)?;
        canonicalize_in_place(&mut p, &mut c, &mut v, |a, b| a + b);
        let m = Self::from_raw_trusted(nrows, ncols, p, c, v, true);
        check_finite(
            &m.values,
            "CsrMatrix::from_triplets (sum of repeated entries)",
        )?;
        Ok(m)
    }

    /// The matrix of the row-major dense array `data` (`nrows·ncols` entries), storing the
    /// nonzero entries only.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `nrows·ncols` overflows `usize`,
    /// [`Error::DimensionMismatch`] if `data.len() != nrows·ncols`, and those of
    /// [`CsrMatrix::from_triplets`].
    pub fn from_dense(nrows: usize, ncols: usize, data: &[S]) -> Result<Self> {
        let len = nrows.checked_mul(ncols).ok_or_else(|| {
            Error::invalid(
                "nrows·ncols",
                format!("{nrows} · {ncols}"),
                "CsrMatrix::from_dense: the dense size overflows usize",
            )
        })?;
        matexp_core::check_dim(
            "CsrMatrix::from_dense: data length (nrows·ncols)",
            len,
            data.len(),
        )?;
        let entries: Vec<(usize, usize, S)> = data
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != S::zero())
            .map(|(k, &v)| (k / ncols.max(1), k % ncols.max(1), v))
            .collect();
        Self::from_triplets(nrows, ncols, &entries)
    }

    /// The n × n identity.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `n` does not fit the index type `I`.
    pub fn identity(n: usize) -> Result<Self> {
        I::narrow_checked(n, "n")?;
        let idx: Vec<I> = (0..n).map(I::narrow).collect();
        let mut ptr = idx.clone();
        ptr.push(I::narrow(n));
        Ok(Self::from_raw_trusted(
            n,
            n,
            ptr,
            idx,
            vec![S::one(); n],
            true,
        ))
    }

    /// Row-major dense copy (`nrows·ncols` entries; for tests and small problems).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `nrows·ncols` overflows `usize`.
    pub fn to_dense(&self) -> Result<Vec<S>> {
        let len = self.nrows().checked_mul(self.ncols()).ok_or_else(|| {
            Error::invalid(
                "nrows·ncols",
                format!("{} · {}", self.nrows(), self.ncols()),
                "overflows usize",
            )
        })?;
        let mut d = vec![S::zero(); len];
        for i in 0..self.nrows() {
            let (cols, vals) = self.row(i);
            for (c, v) in cols.iter().zip(vals) {
                d[i * self.ncols() + c.as_usize()] += *v;
            }
        }
        Ok(d)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.pattern.nrows()
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.pattern.ncols()
    }
    /// Number of stored entries (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
    /// Row pointers (`nrows + 1` entries).
    pub fn row_ptr(&self) -> &[I] {
        self.pattern.row_ptr()
    }
    /// Column indices (`nnz` entries).
    pub fn col_idx(&self) -> &[I] {
        self.pattern.col_idx()
    }
    /// Stored values (`nnz` entries).
    pub fn values(&self) -> &[S] {
        &self.values
    }
    /// The structure without values.
    pub fn pattern(&self) -> &PatternCsr<I> {
        &self.pattern
    }
    /// Whether every row's columns are strictly increasing.
    pub fn is_canonical(&self) -> bool {
        self.pattern.is_canonical()
    }
    /// Column indices and values of row `i`. Panics if `i >= nrows` (like slice indexing).
    pub fn row(&self, i: usize) -> (&[I], &[S]) {
        let rp = self.row_ptr();
        let (s, e) = (rp[i].as_usize(), rp[i + 1].as_usize());
        (&self.col_idx()[s..e], &self.values[s..e])
    }
    /// Entry (i, j): the sum of the stored entries at that position, zero if none.
    /// O(row length). Panics if `i >= nrows`.
    pub fn get(&self, i: usize, j: usize) -> S {
        let (cols, vals) = self.row(i);
        cols.iter()
            .zip(vals)
            .filter(|(c, _)| c.as_usize() == j)
            .map(|(_, v)| *v)
            .sum()
    }
    /// The CSR arrays `(nrows, ncols, row_ptr, col_idx, values)`.
    pub fn into_parts(self) -> (usize, usize, Vec<I>, Vec<I>, Vec<S>) {
        let (n, m, p, c) = self.pattern.into_parts();
        (n, m, p, c, self.values)
    }

    /// The main diagonal (length min(nrows, ncols)); repeated diagonal entries are summed.
    pub fn diagonal(&self) -> Vec<S> {
        (0..self.nrows().min(self.ncols()))
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| self.get(i, i))
            .collect()
    }

    /// The canonical form: rows sorted by column, repeated columns summed (zeros kept).
    pub fn canonicalize(&self) -> Self {
        if self.is_canonical() {
            return self.clone();
        }
        let (mut p, mut c, mut v) = (
            self.row_ptr().to_vec(),
            self.col_idx().to_vec(),
            self.values.clone(),
        );
        canonicalize_in_place(&mut p, &mut c, &mut v, |a, b| a + b);
        Self::from_raw_trusted(self.nrows(), self.ncols(), p, c, v, true)
    }

    /// A copy without stored zeros.
    pub fn drop_zeros(&self) -> Self {
        let mut ptr = Vec::with_capacity(self.nrows() + 1);
        let mut cols = Vec::new();
        let mut vals = Vec::new();
        ptr.push(I::narrow(0));
        for i in 0..self.nrows() {
            let (c, v) = self.row(i);
            for (c, v) in c.iter().zip(v).filter(|(_, v)| **v != S::zero()) {
                cols.push(*c);
                vals.push(*v);
            }
            ptr.push(I::narrow(cols.len()));
        }
        Self::from_raw_trusted(
            self.nrows(),
            self.ncols(),
            ptr,
            cols,
            vals,
            self.is_canonical(),
        )
    }

    /// Aᵀ (rows sorted). O(nnz + ncols), serial.
    pub fn transpose(&self) -> Self {
        self.transpose_with(|v| v)
    }

    /// Aᴴ = conj(A)ᵀ (rows sorted). O(nnz + ncols), serial.
    pub fn conj_transpose(&self) -> Self {
        self.transpose_with(|v: S| v.conj())
    }

    fn transpose_with(&self, f: impl Fn(S) -> S) -> Self {
        let (p, c, v) = transpose_raw(
            self.nrows(),
            self.ncols(),
            self.row_ptr(),
            self.col_idx(),
            &self.values,
            f,
        );
        // Transposed rows are sorted; strictly so iff the input had no repeats (decided
        // before construction: the trusted constructor's debug check compares it).
        let canonical = self.is_canonical() || crate::raw::rows_strictly_increasing(&p, &c);
        let t = PatternCsr::from_parts_trusted(self.ncols(), self.nrows(), p, c, canonical);
        Self::from_pattern_trusted(t, v)
    }

    /// Whether a_ij = f(a_ji) for all i, j (absent entries are zero, repeats summed).
    /// O(nnz log d) by binary search in sorted rows, parallel, no transpose built.
    fn transpose_relation(&self, f: impl Fn(S) -> S + Sync) -> bool {
        if self.nrows() != self.ncols() {
            return false;
        }
        let canon;
        let a = if self.is_canonical() {
            self
        } else {
            canon = self.canonicalize();
            &canon
        };
        (0..a.nrows()).into_par_iter().with_min_len(256).all(|i| {
            let (cols, vals) = a.row(i);
            cols.iter().zip(vals).all(|(j, &v)| {
                let (tc, tv) = a.row(j.as_usize());
                let w = match tc.binary_search(&I::narrow(i)) {
                    Ok(k) => tv[k],
                    Err(_) => S::zero(),
                };
                v == f(w)
            })
        })
    }

    /// Whether A = Aᴴ exactly (A = Aᵀ for real scalars). Cached after the first call.
    pub fn is_hermitian(&self) -> bool {
        *self
            .hermitian
            .get_or_init(|| self.transpose_relation(|w| w.conj()))
    }

    /// Whether A = Aᵀ exactly (no conjugation; differs from Hermitian for complex scalars).
    pub fn is_symmetric(&self) -> bool {
        if !S::IS_COMPLEX {
            return self.is_hermitian();
        }
        self.transpose_relation(|w| w)
    }

    /// Whether A = −Aᵀ exactly.
    pub fn is_skew_symmetric(&self) -> bool {
        self.transpose_relation(|w| -w)
    }

    /// Whether A = −Aᴴ exactly (A = −Aᵀ for real scalars): a normal matrix with a purely
    /// imaginary spectrum. O(nnz), not cached.
    pub fn is_skew_hermitian(&self) -> bool {
        self.transpose_relation(|w| -w.conj())
    }

    /// Bounds `(lo, hi)` on the spectrum of the Hermitian part (A + Aᴴ)/2
    /// ([`crate::hermitian_part_bounds`]; the Gershgorin interval itself for a
    /// Hermitian matrix). `None` for non-square or empty matrices. Cached; O(nnz).
    pub fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        *self.hermitian_part.get_or_init(|| {
            if self.nrows() != self.ncols() || self.nrows() == 0 {
                return None;
            }
            if self.is_hermitian() {
                return self.gershgorin().map(|b| (b.re_min, b.re_max));
            }
            if self.is_skew_hermitian() {
                // A + Aᴴ = 0: the Gershgorin radii of the sum would not see the cancellation.
                return Some((0.0, 0.0));
            }
            crate::gershgorin::hermitian_part_bounds(
                self.nrows(),
                self.row_ptr(),
                self.col_idx(),
                Some(self.values()),
            )
        })
    }

    /// Gershgorin bounds: every eigenvalue lies in a disc centred at a_ii with radius
    /// Σ_{j≠i} |a_ij|; this returns the box enclosing the discs, or the real interval
    /// [min(a_ii − r_i), max(a_ii + r_i)] when the matrix is Hermitian (its spectrum is real),
    /// or the imaginary segment `i·[min(Im a_ii − r_i), max(Im a_ii + r_i)]` when it is
    /// skew-Hermitian (its spectrum is imaginary; checked once, O(nnz), for matrices that are
    /// not Hermitian). `None` for non-square or empty matrices or if the sums overflow.
    /// Computed in `f64`; cached after the first call; O(nnz), parallel.
    pub fn gershgorin(&self) -> Option<SpectralBounds> {
        *self.bounds.get_or_init(|| {
            if self.nrows() != self.ncols() || self.nrows() == 0 {
                return None;
            }
            let (a, b, c, d) = crate::gershgorin_box(
                self.nrows(),
                self.row_ptr(),
                self.col_idx(),
                Some(self.values()),
            );
            if self.is_hermitian() {
                SpectralBounds::real(a, b).ok()
            } else if self.is_skew_hermitian() {
                SpectralBounds::new(0.0, 0.0, c, d).ok()
            } else {
                SpectralBounds::new(a, b, c, d).ok()
            }
        })
    }

    /// The same matrix in scalar type `T`. Real → complex embeds; complex → real requires
    /// every imaginary part to be zero ([`Error::InvalidArgument`] names the first entry that
    /// is not); narrowing `f64` → `f32` rounds and fails with [`Error::NonFinite`] if a value
    /// overflows.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a nonzero imaginary part when `T` is real,
    /// [`Error::NonFinite`] for a value that overflows `T`.
    pub fn cast<T: Scalar>(&self) -> Result<CsrMatrix<T, I>> {
        if S::IS_COMPLEX && !T::IS_COMPLEX {
            if let Some(k) = self
                .values
                .par_iter()
                .position_first(|v| v.im() != <S::Real as num_traits::Zero>::zero())
            {
                return Err(Error::invalid(
                    "values",
                    format!("entry {k} = {}", self.values[k]),
                    format!(
                        "has a nonzero imaginary part; cannot cast {} to {}",
                        S::NAME,
                        T::NAME
                    ),
                ));
            }
        }
        let values: Vec<T> = self
            .values
            .par_iter()
            .map(|v| T::from_c64(v.to_c64()))
            .collect();
        check_finite(&values, "CsrMatrix::cast")?;
        Ok(CsrMatrix::from_pattern_trusted(
            self.pattern.clone(),
            values,
        ))
    }

    /// The same matrix with index type `J`; errors if a size does not fit `J`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if a dimension or `nnz` does not fit `J`.
    pub fn with_index<J: CsrIndex>(&self) -> Result<CsrMatrix<S, J>> {
        Ok(CsrMatrix::from_pattern_trusted(
            self.pattern.with_index()?,
            self.values.clone(),
        ))
    }

    /// A new matrix with values `f(v)` on the same structure (non-finite results rejected).
    ///
    /// # Errors
    ///
    /// [`Error::NonFinite`] for the first NaN or infinite result of `f`.
    pub fn map_values<T: Scalar>(
        &self,
        f: impl Fn(S) -> T + Sync + Send,
    ) -> Result<CsrMatrix<T, I>> {
        let values: Vec<T> = self.values.par_iter().map(|&v| f(v)).collect();
        CsrMatrix::from_pattern(self.pattern.clone(), values)
    }
}

impl<I: CsrIndex> PatternCsr<I> {
    /// The weighted matrix with every stored entry equal to `value`.
    pub fn with_values<S: Scalar>(&self, value: S) -> CsrMatrix<S, I> {
        CsrMatrix::from_pattern_trusted(self.clone(), vec![value; self.nnz()])
    }
}
