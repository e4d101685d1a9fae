//! Gershgorin bounds of explicit matrices, behind a trait small enough for any storage
//! format to implement.
//!
//! Gershgorin's theorem: every eigenvalue of `A` lies in the union of the discs
//! `{z : |z − a_ii| ≤ r_i}`, `r_i = Σ_{j≠i}|a_ij|`. The library encloses the union in a box;
//! for a Hermitian (real symmetric) matrix the eigenvalues are real, so they lie in the
//! projection of the discs onto the real axis, `[min_i(Re a_ii − r_i), max_i(Re a_ii + r_i)]`.
//! Cost: one pass over the stored entries. The bounds are rigorous up to the rounding of the
//! row sums (relative `n·ε`), and can be pessimistic by a factor up to about two for
//! operators such as the Laplacian, whose extreme eigenvalues are `a_ii ± r_i` only in the
//! limit of large dimension.

use matexp_core::{DenseMatrixOperator, Error, Result, Scalar, SpectralBounds, c64};

/// Row-wise access to the stored entries of a matrix: the one thing Gershgorin bounds need.
///
/// Implementations call `f(column, value)` once per stored entry of `row`, in any order.
/// Duplicate entries of one position are allowed: diagonal duplicates are summed, and
/// off-diagonal duplicates only enlarge the radius (`|a + b| ≤ |a| + |b|`), which stays safe.
///
/// ```
/// use matexp_expmv::spectrum::RowEntries;
/// /// tridiag(1, −2, 1) of order n, never stored.
/// struct Laplacian1d(usize);
/// impl RowEntries<f64> for Laplacian1d {
///     fn nrows(&self) -> usize { self.0 }
///     fn ncols(&self) -> usize { self.0 }
///     fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
///         if i > 0 { f(i - 1, 1.0) }
///         f(i, -2.0);
///         if i + 1 < self.0 { f(i + 1, 1.0) }
///     }
/// }
/// let b = matexp_expmv::spectrum::gershgorin_bounds(&Laplacian1d(100), matexp_expmv::spectrum::GershgorinShape::Hermitian)?;
/// assert_eq!((b.re_min, b.re_max), (-4.0, 0.0));
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub trait RowEntries<S: Scalar> {
    /// Number of rows.
    fn nrows(&self) -> usize;
    /// Number of columns.
    fn ncols(&self) -> usize;
    /// Calls `f(column, value)` for every stored entry of row `row < nrows()`.
    fn for_each_in_row<F: FnMut(usize, S)>(&self, row: usize, f: F);
}

impl<S: Scalar> RowEntries<S> for DenseMatrixOperator<S> {
    fn nrows(&self) -> usize {
        matexp_core::LinearOperator::<matexp_core::CpuBackend, S>::nrows(self)
    }
    fn ncols(&self) -> usize {
        matexp_core::LinearOperator::<matexp_core::CpuBackend, S>::ncols(self)
    }
    fn for_each_in_row<F: FnMut(usize, S)>(&self, row: usize, mut f: F) {
        let m = RowEntries::<S>::ncols(self);
        for (j, &v) in self.data()[row * m..(row + 1) * m].iter().enumerate() {
            f(j, v);
        }
    }
}

/// Which Gershgorin enclosure applies: what is known about the symmetry of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GershgorinShape {
    /// Hermitian (real symmetric for real scalars): real eigenvalues, real interval.
    Hermitian,
    /// No structure assumed: box around the Gershgorin discs.
    General,
}

/// One Gershgorin disc: centre `a_ii` and radius `Σ_{j≠i}|a_ij|`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GershgorinDisc {
    /// The diagonal entry.
    pub center: c64,
    /// The off-diagonal absolute row sum.
    pub radius: f64,
}

/// The Gershgorin disc of every row.
///
/// # Errors
/// [`Error::InvalidArgument`] for a matrix with no rows, [`Error::DimensionMismatch`] if it
/// is not square or an entry's column is out of range, [`Error::NonFinite`] for a NaN or
/// infinite entry or a row sum that overflows.
pub fn gershgorin_discs<S: Scalar, M: RowEntries<S>>(matrix: &M) -> Result<Vec<GershgorinDisc>> {
    let (n, m) = (matrix.nrows(), matrix.ncols());
    if n == 0 {
        return Err(Error::invalid(
            "matrix",
            "0 x 0",
            "zero-dimension matrix has no spectrum",
        ));
    }
    if n != m {
        return Err(Error::dim(
            "Gershgorin bounds: square matrix (columns)",
            n,
            m,
        ));
    }
    let mut discs = Vec::with_capacity(n);
    for i in 0..n {
        let mut center = c64::new(0.0, 0.0);
        let mut radius = 0.0f64;
        let mut bad: Option<Error> = None;
        matrix.for_each_in_row(i, |j, v| {
            if bad.is_some() {
                return;
            }
            if j >= m {
                bad = Some(Error::dim(
                    format!("Gershgorin bounds: column index of an entry in row {i} (< ncols)"),
                    m,
                    j,
                ));
            } else if !v.finite() {
                bad = Some(Error::NonFinite {
                    context: format!("matrix entry ({i}, {j})"),
                    index: i,
                    value: v.to_string(),
                });
            } else if j == i {
                center += v.to_c64();
            } else {
                radius += v.to_c64().norm();
            }
        });
        if let Some(e) = bad {
            return Err(e);
        }
        if !(radius.is_finite() && center.re.is_finite() && center.im.is_finite()) {
            return Err(Error::NonFinite {
                context: format!("Gershgorin disc of row {i} (centre {center}, radius)"),
                index: i,
                value: radius.to_string(),
            });
        }
        discs.push(GershgorinDisc { center, radius });
    }
    Ok(discs)
}

/// Gershgorin enclosure of the spectrum: a real interval for [`GershgorinShape::Hermitian`], a box
/// for [`GershgorinShape::General`].
///
/// The caller vouches for `Hermitian`; the projection onto the real axis is only an
/// enclosure when the eigenvalues are real.
///
/// # Errors
/// As [`gershgorin_discs`].
pub fn gershgorin_bounds<S: Scalar, M: RowEntries<S>>(
    matrix: &M,
    shape: GershgorinShape,
) -> Result<SpectralBounds> {
    let discs = gershgorin_discs(matrix)?;
    let (mut re_min, mut re_max) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut im_min, mut im_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for d in &discs {
        re_min = re_min.min(d.center.re - d.radius);
        re_max = re_max.max(d.center.re + d.radius);
        im_min = im_min.min(d.center.im - d.radius);
        im_max = im_max.max(d.center.im + d.radius);
    }
    match shape {
        GershgorinShape::Hermitian => SpectralBounds::real(re_min, re_max),
        GershgorinShape::General => SpectralBounds::new(re_min, re_max, im_min, im_max),
    }
}
