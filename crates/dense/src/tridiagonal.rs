//! Eigenvalues and eigenvectors of real symmetric tridiagonal matrices by the implicit QL
//! method with Wilkinson shifts (EISPACK `tql2`), in pure Rust.
//!
//! The crate's one tridiagonal eigensolver ([`crate::eigh_tridiagonal`] returns its result
//! as a [`crate::Matrix`]). Used for the Ritz values of Lanczos tridiagonals, whose order is the number of Lanczos
//! steps (tens to hundreds): `O(k²)` for eigenvalues, `O(k³)` with the eigenvector matrix
//! ([`symmetric_tridiagonal_eigen`]), `O(k²)` with the eigenvectors kept as QL's plane
//! rotations ([`symmetric_tridiagonal_rotations`], what `f(T)·e₁` needs). Lanczos solves
//! these small problems at every convergence check, so at small operator sizes their
//! constant factors show next to the operator applications.
//!
//! Accuracy: the method is backward stable; the computed eigenvectors are orthonormal to a
//! modest multiple of `ε`. The eigenvalues of QL, which drift by some tens of `ε·‖T‖₂` over
//! the many sweeps of a large matrix, are then refined by bisection on the Sturm count to a
//! few `ε·‖T‖₂` (O(n²) in all; for a random T of order 500 with ‖T‖ ≈ 2·10³ the largest
//! difference to LAPACK's `dstevd` fell from 1.1·10⁻¹¹ to 3·10⁻¹²), which is what Lanczos
//! for `e^{−itH}` at large `‖tH‖` needs, since an eigenvalue error δ becomes a phase error
//! `t·δ`. The refinement, O(n²) like the sweeps, is a sizeable part of
//! [`symmetric_tridiagonal_rotations`] (measured share: `bench-results/notes/tuning.md`); [`symmetric_tridiagonal_rotations_unrefined`] leaves it
//! out for uses where `|t|·64ε·‖T‖` is far below the accuracy asked for. Where only the
//! extreme eigenvalues are needed, [`symmetric_tridiagonal_extreme_eigenvalues`] bisects
//! them from the Gershgorin interval in `O(n)` per Sturm count (about 50 counts each,
//! interleaved), a few percent of a decomposition's time at order 267. The matrix is
//! scaled by its largest entry first, so no intermediate overflows or underflows
//! harmfully.

use matexp_core::{Error, Result};
use std::ops::{Add, Mul, Sub};

/// Eigen-decomposition `T = Z·diag(λ)·Zᵀ` of a symmetric tridiagonal matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricTridiagonalEigen {
    /// Eigenvalues in ascending order.
    pub values: Vec<f64>,
    /// Orthonormal eigenvectors, column-major `n × n`: column `j` (entries
    /// `vectors[j*n .. (j+1)*n]`) belongs to `values[j]`.
    pub vectors: Vec<f64>,
}

impl SymmetricTridiagonalEigen {
    /// Eigenvector `j` (belonging to `values[j]`).
    pub fn vector(&self, j: usize) -> &[f64] {
        let n = self.values.len();
        &self.vectors[j * n..(j + 1) * n]
    }
}

/// Eigenvalues and orthonormal eigenvectors of the symmetric tridiagonal matrix with
/// diagonal `diag` (length `n`) and off-diagonal `offdiag` (length `n − 1`).
///
/// # Errors
/// [`Error::InvalidArgument`] if `n = 0`, [`Error::DimensionMismatch`] if `offdiag` does not
/// have `n − 1` entries, [`Error::NonFinite`] for NaN or infinite entries,
/// [`Error::NoConvergence`] if an eigenvalue needs more than 60 QL sweeps (not observed in
/// practice; the iteration converges cubically).
///
/// ```
/// use matexp_dense::symmetric_tridiagonal_eigen;
/// // tridiag(1, 2, 1) of order 2 has eigenvalues 1 and 3.
/// let e = symmetric_tridiagonal_eigen(&[2.0, 2.0], &[1.0])?;
/// assert!((e.values[0] - 1.0).abs() < 1e-15 && (e.values[1] - 3.0).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn symmetric_tridiagonal_eigen(
    diag: &[f64],
    offdiag: &[f64],
) -> Result<SymmetricTridiagonalEigen> {
    let n = diag.len();
    check(diag, offdiag)?;
    let mut z = vec![0.0; n * n];
    for i in 0..n {
        z[i * n + i] = 1.0;
    }
    // Row-major: z[r*n + c] = Z[r][c]; the eigenvectors are the columns of Z.
    let values = implicit_ql(diag, offdiag, |i, c, s| {
        for row in z.chunks_exact_mut(n) {
            rotate_row(row, i, c, s);
        }
    })?;
    let (mut values, perm) = sorted(values);
    refine_by_bisection(diag, offdiag, &mut values);
    let mut vectors = vec![0.0; n * n];
    for (j, &p) in perm.iter().enumerate() {
        for r in 0..n {
            vectors[j * n + r] = z[r * n + p];
        }
    }
    Ok(SymmetricTridiagonalEigen { values, vectors })
}

/// Scalars that the plane rotations of [`SymmetricTridiagonalRotations`] apply to: `f64`,
/// `c64` and anything else closed under `+`, `−` and multiplication by an `f64`.
pub trait RotationScalar:
    Copy + Mul<f64, Output = Self> + Add<Output = Self> + Sub<Output = Self>
{
}

impl<T: Copy + Mul<f64, Output = T> + Add<Output = T> + Sub<Output = T>> RotationScalar for T {}

/// Eigen-decomposition `T = Z·diag(λ)·Zᵀ` of a symmetric tridiagonal matrix with `Z` kept
/// as the product of the plane rotations of implicit QL instead of as a matrix.
///
/// The eigenvalues are those of [`symmetric_tridiagonal_eigen`], bit for bit (the same QL
/// sweeps, the same bisection refinement), and `Z` is the same product of rotations that
/// that function accumulates into its `n × n` eigenvector matrix. Keeping the rotations
/// (about `n²` of them for the usual one to two sweeps per eigenvalue) instead of their
/// product makes every use that needs only a few rows of `Z` or a few products `Z·x`,
/// `Zᵀ·x` cost `O(n²)` instead of the `O(n³)` of accumulating `Z`: a function of `T`
/// applied to one vector, `f(T)·b = Z·(f(λ) ∘ Zᵀb)`, is two passes over the rotations.
/// This is what the Lanczos method's small problems `e^{τT_k}e₁` need.
///
/// ```
/// use matexp_dense::symmetric_tridiagonal_rotations;
/// // T = tridiag(1, 2, 1) of order 2: λ = 1, 3 with eigenvectors (1, ∓1)/√2.
/// let e = symmetric_tridiagonal_rotations(&[2.0, 2.0], &[1.0])?;
/// // e^{T}e₁ = Z·(e^{λ} ∘ Zᵀe₁)
/// let mut y = e.row(0);
/// for (yj, &l) in y.iter_mut().zip(&e.values) {
///     *yj *= l.exp();
/// }
/// e.mul(&mut y);
/// // e^{T} = e²·[[cosh 1, sinh 1], [sinh 1, cosh 1]]
/// let want = [2f64.exp() * 1f64.cosh(), 2f64.exp() * 1f64.sinh()];
/// for (yi, wi) in y.iter().zip(want) {
///     assert!((yi - wi).abs() < 1e-14 * wi);
/// }
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricTridiagonalRotations {
    /// Eigenvalues in ascending order.
    pub values: Vec<f64>,
    /// `(i, c, s)` in QL's order: `Z = G₁·G₂·…·G_R` before sorting (see [`implicit_ql`]).
    rotations: Vec<(usize, f64, f64)>,
    /// Column `j` of the sorted `Z` (belonging to `values[j]`) is column `perm[j]` of the
    /// product of the rotations.
    perm: Vec<usize>,
}

impl SymmetricTridiagonalRotations {
    /// The order `n` of the matrix.
    pub fn order(&self) -> usize {
        self.values.len()
    }

    /// The number of plane rotations kept (the cost of one product with `Z` or `Zᵀ`).
    pub fn rotation_count(&self) -> usize {
        self.rotations.len()
    }

    /// Row `r` of `Z`: component `r` of every eigenvector, `Z[r][j]` for `values[j]`, in
    /// `O(R)` for `R` rotations. Row 0 is `Zᵀe₁`.
    ///
    /// # Panics
    /// If `r` is not below the order.
    pub fn row(&self, r: usize) -> Vec<f64> {
        let n = self.order();
        assert!(r < n, "row {r} of a tridiagonal matrix of order {n}");
        let mut x = vec![0.0; n];
        x[r] = 1.0;
        self.mul_transpose(&mut x);
        x
    }

    /// `x ← Zᵀ·x`: the components of `x` along the eigenvectors, in the order of `values`.
    ///
    /// # Panics
    /// If `x` does not have the order's length.
    pub fn mul_transpose<T: RotationScalar>(&self, x: &mut [T]) {
        let n = self.order();
        assert_eq!(
            x.len(),
            n,
            "vector length vs order of the tridiagonal matrix"
        );
        // Zᵀx = G_Rᵀ·…·G₁ᵀ·x, then the columns in sorted order.
        for &(i, c, s) in &self.rotations {
            rotate_row(x, i, c, s);
        }
        let unsorted = x.to_vec();
        for (xj, &p) in x.iter_mut().zip(&self.perm) {
            *xj = unsorted[p];
        }
    }

    /// `x ← Z·x`: the combination `Σ_j x_j·z_j` of the eigenvectors (in the order of
    /// `values`).
    ///
    /// # Panics
    /// If `x` does not have the order's length.
    pub fn mul<T: RotationScalar>(&self, x: &mut [T]) {
        let n = self.order();
        assert_eq!(
            x.len(),
            n,
            "vector length vs order of the tridiagonal matrix"
        );
        let sorted = x.to_vec();
        for (&xj, &p) in sorted.iter().zip(&self.perm) {
            x[p] = xj;
        }
        // Zx = G₁·(G₂·(…·(G_R·x))).
        for &(i, c, s) in self.rotations.iter().rev() {
            rotate_column(x, i, c, s);
        }
    }
}

/// Eigenvalues and the eigenvectors of the symmetric tridiagonal matrix with diagonal `diag`
/// and off-diagonal `offdiag` as products of rotations ([`SymmetricTridiagonalRotations`]):
/// `O(n²)` work and memory, where [`symmetric_tridiagonal_eigen`] spends `O(n³)` on the
/// eigenvector matrix.
///
/// # Errors
/// As [`symmetric_tridiagonal_eigen`].
pub fn symmetric_tridiagonal_rotations(
    diag: &[f64],
    offdiag: &[f64],
) -> Result<SymmetricTridiagonalRotations> {
    let mut e = symmetric_tridiagonal_rotations_unrefined(diag, offdiag)?;
    refine_by_bisection(diag, offdiag, &mut e.values);
    Ok(e)
}

/// [`symmetric_tridiagonal_rotations`] without the bisection refinement of the eigenvalues:
/// the same rotations and ordering, the eigenvalues as implicit QL leaves them.
///
/// Accuracy: QL is backward stable, but its eigenvalues drift over the sweeps of a large
/// matrix by some tens of `ε·‖T‖₂` (measured up to about 25 at order 500; the refinement
/// brings them to a few). For `f(T)·b` with `f(λ) = e^{τλ}` an eigenvalue error δ is a
/// relative error `|τ|·δ` of `e^{τλ}` (a phase error for imaginary τ), so this is for uses
/// where `64·ε·|τ|·‖T‖` lies far below the accuracy asked for; a third to 40 % of the time
/// of [`symmetric_tridiagonal_rotations`] is then saved (measured at order 267) for no
/// visible change. The eigenvectors (rotations) are unaffected: the refinement
/// never touches them.
///
/// # Errors
/// As [`symmetric_tridiagonal_eigen`].
///
/// ```
/// use matexp_dense::{symmetric_tridiagonal_rotations, symmetric_tridiagonal_rotations_unrefined};
/// let (d, e) = ([2.0, -1.0, 0.5], [1.0, 0.25]);
/// let refined = symmetric_tridiagonal_rotations(&d, &e)?;
/// let unrefined = symmetric_tridiagonal_rotations_unrefined(&d, &e)?;
/// for (a, b) in refined.values.iter().zip(&unrefined.values) {
///     assert!((a - b).abs() <= 64.0 * f64::EPSILON * 2.0);
/// }
/// assert_eq!(refined.row(0), unrefined.row(0));
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn symmetric_tridiagonal_rotations_unrefined(
    diag: &[f64],
    offdiag: &[f64],
) -> Result<SymmetricTridiagonalRotations> {
    check(diag, offdiag)?;
    let mut rotations = Vec::with_capacity(diag.len() * diag.len());
    let values = implicit_ql(diag, offdiag, |i, c, s| rotations.push((i, c, s)))?;
    let (values, perm) = sorted(values);
    Ok(SymmetricTridiagonalRotations {
        values,
        rotations,
        perm,
    })
}

/// Brackets `(lo, hi)` of the smallest and largest eigenvalue of the symmetric tridiagonal
/// matrix with diagonal `diag` and off-diagonal `offdiag`, by bisection on the Sturm count
/// from the Gershgorin interval: `O(n)` per count, 50 to 70 counts for each (more for an
/// eigenvalue far below ‖T‖ in magnitude), interleaved, no eigen-decomposition.
///
/// Accuracy: the Sturm count is exact for a matrix `T̃` within a few ε of `T` entrywise
/// (Kahan), so `lo ≤ λ_min(T̃)` and `λ_max(T̃) ≤ hi`, and bisection stops, as the
/// refinement of [`symmetric_tridiagonal_eigen`] does, when a bracket is a few ulps of its
/// ends wide (or after 100 halvings, `2⁻⁹⁸·max|Tᵢⱼ|`). With Weyl's inequality
/// (`|λ(T̃) − λ(T)| ≤ ‖T̃ − T‖₂`, a few `ε·‖T‖`): `lo` and `hi` are the extreme eigenvalues
/// to a few `ε·‖T‖` and bound them outward up to that rounding, like the refined
/// eigenvalues of [`symmetric_tridiagonal_eigen`] (which are the midpoints of such
/// brackets).
///
/// # Errors
/// As [`symmetric_tridiagonal_eigen`], except that no iteration can fail to converge.
///
/// ```
/// use matexp_dense::symmetric_tridiagonal_extreme_eigenvalues;
/// // tridiag(1, 2, 1) of order 2 has eigenvalues 1 and 3.
/// let (lo, hi) = symmetric_tridiagonal_extreme_eigenvalues(&[2.0, 2.0], &[1.0])?;
/// assert!((lo - 1.0).abs() <= 1e-15 && (hi - 3.0).abs() <= 4e-15);
/// assert!(lo <= 1.0 && hi >= 3.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn symmetric_tridiagonal_extreme_eigenvalues(
    diag: &[f64],
    offdiag: &[f64],
) -> Result<(f64, f64)> {
    check(diag, offdiag)?;
    let n = diag.len();
    let Some(SturmData {
        scale,
        d,
        e2,
        norm,
        pivmin,
    }) = SturmData::new(diag, offdiag, n)
    else {
        // Order one: the entry itself; the zero matrix: zeros.
        return Ok(if n == 1 {
            (diag[0], diag[0])
        } else {
            (0.0, 0.0)
        });
    };
    // Gershgorin interval of the scaled matrix, widened as LAPACK's dstebz does so that the
    // Sturm counts at its ends are 0 and n despite rounding; inner ends from the diagonal
    // (λ_min ≤ min dᵢ ≤ max dᵢ ≤ λ_max: Rayleigh quotients of unit vectors).
    let (mut gl, mut gu) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut dmin, mut dmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..n {
        let r = if i > 0 {
            offdiag[i - 1].abs() / scale
        } else {
            0.0
        } + offdiag.get(i).map_or(0.0, |x| x.abs() / scale);
        gl = gl.min(d[i] - r);
        gu = gu.max(d[i] + r);
        dmin = dmin.min(d[i]);
        dmax = dmax.max(d[i]);
    }
    let fudge = 2.1 * f64::EPSILON * norm * n as f64 + 4.2 * pivmin;
    let (gl, gu) = (gl - fudge, gu + fudge);
    // [lo, hi) brackets: count(lo) ≤ j < count(hi) for j = 0 (λ_min) and j = n − 1 (λ_max).
    let mut lo = [gl, dmax - fudge];
    let mut hi = [dmin + fudge, gu];
    let inner = count_below_lanes(&d, &e2, &[hi[0], lo[1]], pivmin);
    if inner[0] == 0 {
        hi[0] = gu;
    }
    if inner[1] >= n {
        lo[1] = gl;
    }
    // Both bisections advance together: a Sturm count is a chain of dependent divisions,
    // so two interleaved cost little more than one. Each stops where the refinement of
    // the full eigensolvers does: a few ulps of the eigenvalue wide.
    for _ in 0..MAX_HALVINGS {
        let mid = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        let open = [0, 1].map(|l| {
            hi[l] - lo[l] > 2.0 * f64::EPSILON * lo[l].abs().max(hi[l].abs()) + pivmin
                && mid[l] != lo[l]
                && mid[l] != hi[l]
        });
        if open == [false, false] {
            break;
        }
        let counts = count_below_lanes(&d, &e2, &mid, pivmin);
        for l in 0..2 {
            if open[l] {
                let j = if l == 0 { 0 } else { n - 1 };
                if counts[l] > j {
                    hi[l] = mid[l];
                } else {
                    lo[l] = mid[l];
                }
            }
        }
    }
    Ok((lo[0] * scale, hi[1] * scale))
}

/// Halvings of [`symmetric_tridiagonal_extreme_eigenvalues`] at most: from the Gershgorin
/// interval (width ≤ 4 after scaling) to 2⁻⁹⁸ of the largest entry.
const MAX_HALVINGS: usize = 100;

/// Eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal `diag` and
/// off-diagonal `offdiag`.
///
/// # Errors
/// As [`symmetric_tridiagonal_eigen`].
pub fn symmetric_tridiagonal_eigenvalues(diag: &[f64], offdiag: &[f64]) -> Result<Vec<f64>> {
    check(diag, offdiag)?;
    let values = implicit_ql(diag, offdiag, |_, _, _| {})?;
    let mut values = sorted(values).0;
    refine_by_bisection(diag, offdiag, &mut values);
    Ok(values)
}

/// Eigenvalues (ascending) and the last component of each normalised eigenvector: what the
/// Lanczos residual bound `|β_k·s_{k,i}|` needs, in `O(k²)`. The same bits as
/// [`symmetric_tridiagonal_eigen`]'s values and the last entries of its vectors (the last
/// row of `Z` undergoes the same rotations alone).
///
/// # Errors
/// As [`symmetric_tridiagonal_eigen`].
///
/// ```
/// use matexp_dense::symmetric_tridiagonal_last_components;
/// // tridiag(1, 2, 1) of order 2: eigenvectors (1, ∓1)/√2.
/// let (values, last) = symmetric_tridiagonal_last_components(&[2.0, 2.0], &[1.0])?;
/// assert!((values[1] - 3.0).abs() < 1e-15);
/// assert!((last[0].abs() - 0.5f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn symmetric_tridiagonal_last_components(
    diag: &[f64],
    offdiag: &[f64],
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = diag.len();
    check(diag, offdiag)?;
    // The last row of Z evolves independently of the others under the QL rotations.
    let mut last = vec![0.0; n];
    last[n - 1] = 1.0;
    let values = implicit_ql(diag, offdiag, |i, c, s| rotate_row(&mut last, i, c, s))?;
    let (mut values, perm) = sorted(values);
    refine_by_bisection(diag, offdiag, &mut values);
    Ok((values, perm.iter().map(|&p| last[p]).collect()))
}

/// `x ← Gᵀx` for the rotation `(i, c, s)` of [`implicit_ql`] (for a row: `xᵀ ← xᵀG`).
#[inline(always)]
fn rotate_row<T: RotationScalar>(x: &mut [T], i: usize, c: f64, s: f64) {
    let (a, b) = (x[i], x[i + 1]);
    x[i] = a * c - b * s;
    x[i + 1] = a * s + b * c;
}

/// `x ← Gx` for the rotation `(i, c, s)` of [`implicit_ql`].
#[inline(always)]
fn rotate_column<T: RotationScalar>(x: &mut [T], i: usize, c: f64, s: f64) {
    let (a, b) = (x[i], x[i + 1]);
    x[i] = a * c + b * s;
    x[i + 1] = b * c - a * s;
}

fn check(diag: &[f64], offdiag: &[f64]) -> Result<()> {
    let n = diag.len();
    if n == 0 {
        return Err(Error::invalid(
            "diag",
            "[]",
            "a tridiagonal matrix of dimension zero has no eigenvalues",
        ));
    }
    if offdiag.len() != n - 1 {
        return Err(Error::dim(
            "tridiagonal off-diagonal length (n - 1)",
            n - 1,
            offdiag.len(),
        ));
    }
    for (name, v) in [
        ("tridiagonal diagonal", diag),
        ("tridiagonal off-diagonal", offdiag),
    ] {
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                context: name.into(),
                index: i,
                value: v[i].to_string(),
            });
        }
    }
    Ok(())
}

fn sorted(values: Vec<f64>) -> (Vec<f64>, Vec<usize>) {
    let mut perm: Vec<usize> = (0..values.len()).collect();
    perm.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    (perm.iter().map(|&p| values[p]).collect(), perm)
}

/// Refines the ascending eigenvalues `values` of QL to a few ε·‖T‖ by bisection on the
/// Sturm count, each in a bracket of about 2⁶ε·‖T‖ around its QL value.
///
/// Why: QL's eigenvalues carry an absolute error of some tens of ε·‖T‖ after the many
/// sweeps of a large matrix, and Lanczos for `e^{−itH}` turns an eigenvalue error δ into a
/// phase error t·δ: at ‖tT‖ = 10⁴ and k = 500 that stalled the error estimate near 3·10⁻¹¹.
/// Bisection brings each eigenvalue to the accuracy the data determine, at O(k) flops per
/// Sturm count and ten to sixty counts per eigenvalue (those near zero are bisected to
/// relative accuracy), O(k²) in all. A Sturm count is a chain of dependent divisions, so
/// the bisections of eight eigenvalues are interleaved: the same counts at the same points,
/// hence the same results bit for bit, in a fraction of the time.
fn refine_by_bisection(diag: &[f64], offdiag: &[f64], values: &mut [f64]) {
    let Some(SturmData {
        scale,
        d,
        e2,
        norm,
        pivmin,
    }) = SturmData::new(diag, offdiag, values.len())
    else {
        return;
    };
    let width = 64.0 * f64::EPSILON * norm;
    // The bisections of different eigenvalues are independent; a Sturm count is a chain of
    // dependent divisions, so LANES of them advance together (the divisions of one step
    // overlap) and a finished lane takes the next eigenvalue. Each lane makes exactly the
    // queries of the one-at-a-time bisection, so the results are the same bit for bit.
    const LANES: usize = 8;
    let mut lanes: [Option<Bisection>; LANES] = [None; LANES];
    let mut next = 0;
    loop {
        for lane in lanes.iter_mut().filter(|l| l.is_none()) {
            if next < values.len() {
                *lane = Some(Bisection::new(next, values[next] / scale, width));
                next += 1;
            }
        }
        if lanes.iter().all(Option::is_none) {
            break;
        }
        let mut xs = [0.0; LANES];
        for (x, lane) in xs.iter_mut().zip(&lanes) {
            if let Some(b) = lane {
                *x = b.query();
            }
        }
        let counts = count_below_lanes(&d, &e2, &xs, pivmin);
        for (lane, &count) in lanes.iter_mut().zip(&counts) {
            if let Some(b) = lane {
                if let Some(done) = b.answer(count, pivmin) {
                    if let Some(x) = done {
                        values[b.j] = x * scale;
                    }
                    *lane = None;
                }
            }
        }
    }
}

/// The matrix as bisection sees it: scaled to unit max entry (as in QL: no overflow in e² or
/// the pivots), with the max row sum of the scaled matrix and the pivot floor.
struct SturmData {
    scale: f64,
    d: Vec<f64>,
    /// Squared off-diagonal.
    e2: Vec<f64>,
    norm: f64,
    pivmin: f64,
}

impl SturmData {
    /// `None` when there is nothing to refine: order one is exact, the zero matrix has only
    /// zeros (`count` is the number of eigenvalues to refine).
    fn new(diag: &[f64], offdiag: &[f64], count: usize) -> Option<Self> {
        let scale = diag
            .iter()
            .chain(offdiag)
            .fold(0.0f64, |m, x| m.max(x.abs()));
        if scale == 0.0 || count < 2 {
            return None;
        }
        let d: Vec<f64> = diag.iter().map(|x| x / scale).collect();
        let e2: Vec<f64> = offdiag.iter().map(|x| (x / scale) * (x / scale)).collect();
        let norm = (0..d.len())
            .map(|i| {
                d[i].abs()
                    + if i > 0 {
                        offdiag[i - 1].abs() / scale
                    } else {
                        0.0
                    }
                    + offdiag.get(i).map_or(0.0, |x| x.abs() / scale)
            })
            .fold(0.0, f64::max);
        let pivmin = f64::MIN_POSITIVE * e2.iter().fold(1.0f64, |m, &x| m.max(x));
        Some(SturmData {
            scale,
            d,
            e2,
            norm,
            pivmin,
        })
    }
}

/// Number of eigenvalues of the tridiagonal matrix (`d`, squared off-diagonal `e2`) below
/// each of the points `xs`: the negative pivots of the LDLᵀ factorization of T − x (Sturm
/// sequence). Backward stable: the count is exact for a matrix within a few ε of T
/// entrywise (Kahan; LAPACK `dlaebz`). Pivots smaller than `pivmin` are replaced by
/// −`pivmin`, as LAPACK does. The points' recurrences are interleaved, each with the
/// operations of a count at one point in their order.
fn count_below_lanes<const L: usize>(
    d: &[f64],
    e2: &[f64],
    xs: &[f64; L],
    pivmin: f64,
) -> [usize; L] {
    let mut count = [0; L];
    let mut q = [1.0; L];
    for i in 0..d.len() {
        for l in 0..L {
            let mut ql = d[i] - xs[l] - if i > 0 { e2[i - 1] / q[l] } else { 0.0 };
            if ql.abs() < pivmin {
                ql = -pivmin;
            }
            if ql < 0.0 {
                count[l] += 1;
            }
            q[l] = ql;
        }
    }
    count
}

/// Where the bisection of eigenvalue `j` (of the scaled matrix) stands.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Widening the bracket downwards until the Sturm count at `lo` is at most `j`.
    Lower,
    /// Widening it upwards until the count at `hi` exceeds `j`; `lo_holds`: the count at
    /// `lo` is at most `j`.
    Upper { lo_holds: bool },
    /// Halving [lo, hi) around `mid`, `halvings` done.
    Halving { mid: f64, halvings: usize },
}

/// The bisection of one eigenvalue from its QL value: a bracket of half-width about
/// 2⁶ε·‖T‖, widened (by doubling, at most 60 times down and 120 in all) until it holds the
/// `j`-th eigenvalue, then halved (at most 64 times) until it is a few ulps wide.
#[derive(Debug, Clone, Copy)]
struct Bisection {
    j: usize,
    x: f64,
    width: f64,
    lo: f64,
    hi: f64,
    tries: usize,
    stage: Stage,
}

impl Bisection {
    fn new(j: usize, x: f64, width: f64) -> Self {
        Bisection {
            j,
            x,
            width,
            lo: x - width,
            hi: x + width,
            tries: 0,
            stage: Stage::Lower,
        }
    }

    /// The point whose Sturm count is needed next.
    fn query(&self) -> f64 {
        match self.stage {
            Stage::Lower => self.lo,
            Stage::Upper { .. } => self.hi,
            Stage::Halving { mid, .. } => mid,
        }
    }

    /// Takes the Sturm count at [`Self::query`]; `Some(Some(x))` when the refined value is
    /// `x`, `Some(None)` when no bracket was found (keep the QL value; cannot happen short
    /// of NaN), `None` while it needs more counts.
    fn answer(&mut self, count: usize, pivmin: f64) -> Option<Option<f64>> {
        let j = self.j;
        match self.stage {
            Stage::Lower => {
                if count > j && self.tries < 60 {
                    self.width *= 2.0;
                    self.lo = self.x - self.width;
                    self.tries += 1;
                } else {
                    self.stage = Stage::Upper {
                        lo_holds: count <= j,
                    };
                }
                None
            }
            Stage::Upper { lo_holds } => {
                if count <= j && self.tries < 120 {
                    self.width *= 2.0;
                    self.hi = self.x + self.width;
                    self.tries += 1;
                    None
                } else if !lo_holds || count <= j {
                    Some(None)
                } else {
                    self.halve(0, pivmin)
                }
            }
            Stage::Halving { mid, halvings } => {
                if count > j {
                    self.hi = mid;
                } else {
                    self.lo = mid;
                }
                self.halve(halvings + 1, pivmin)
            }
        }
    }

    /// The next halving after `halvings` of them, or the midpoint when the bracket is a few
    /// ulps wide (or after 64).
    fn halve(&mut self, halvings: usize, pivmin: f64) -> Option<Option<f64>> {
        let (lo, hi) = (self.lo, self.hi);
        let mid = 0.5 * (lo + hi);
        if halvings >= 64
            || hi - lo <= 2.0 * f64::EPSILON * lo.abs().max(hi.abs()) + pivmin
            || mid == lo
            || mid == hi
        {
            return Some(Some(0.5 * (lo + hi)));
        }
        self.stage = Stage::Halving { mid, halvings };
        None
    }
}

/// Implicit QL on a scaled copy of the matrix. Each plane rotation is handed to `rotate`
/// as `(i, c, s)` in the order QL applies it: the eigenvectors are the columns of
/// `Z = G₁·G₂·…·G_R`, where `G` is the identity except in rows and columns `i, i + 1`,
/// `G[i][i] = G[i+1][i+1] = c`, `G[i][i+1] = s`, `G[i+1][i] = −s`, and the eigenvalues
/// (returned, unsorted) belong to the columns of `Z` in order.
fn implicit_ql(
    diag: &[f64],
    offdiag: &[f64],
    mut rotate: impl FnMut(usize, f64, f64),
) -> Result<Vec<f64>> {
    let n = diag.len();
    let scale = diag
        .iter()
        .chain(offdiag)
        .fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 {
        return Ok(vec![0.0; n]);
    }
    let mut d: Vec<f64> = diag.iter().map(|x| x / scale).collect();
    // e[i] couples i and i + 1; e[n−1] = 0 is a sentinel.
    let mut e: Vec<f64> = offdiag.iter().map(|x| x / scale).collect();
    e.push(0.0);
    const MAX_SWEEPS: usize = 60;
    for l in 0..n {
        let mut sweeps = 0;
        loop {
            // Find the first negligible off-diagonal at or after l.
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= f64::EPSILON * dd || e[m] == 0.0 {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            sweeps += 1;
            if sweeps > MAX_SWEEPS {
                return Err(Error::NoConvergence {
                    method: "implicit QL (symmetric tridiagonal eigenvalues)",
                    detail: format!("eigenvalue {l} of {n} not isolated after {MAX_SWEEPS} sweeps"),
                });
            }
            // Wilkinson shift from the leading 2×2 block of the unreduced part.
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = fast_hypot(g, 1.0);
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0f64, 1.0f64, 0.0f64);
            let mut deflated_early = false;
            let mut i = m;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = fast_hypot(f, g);
                e[i + 1] = r;
                if r == 0.0 {
                    // Underflow: the matrix splits; restart from l.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    deflated_early = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                rotate(i, c, s);
            }
            if deflated_early {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    Ok(d.into_iter().map(|x| x * scale).collect())
}

/// √(a² + b²): the plain formula where its squares neither overflow nor lose precision to
/// underflow, else `f64::hypot`. The QL sweeps compute one per rotation, O(k²) per
/// eigensolve, and libm's `hypot` (correctly rounded, and several times slower) was a third
/// of a Lanczos convergence check at k ≈ 300 (measured); the plain formula is within an ulp.
#[inline]
fn fast_hypot(a: f64, b: f64) -> f64 {
    let h2 = a * a + b * b;
    if (1e-280..1e280).contains(&h2) {
        h2.sqrt()
    } else {
        a.hypot(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-eigenvalue-at-a-time bisection that [`refine_by_bisection`] interleaves: the
    /// reference for its results, bit for bit.
    mod sequential {
        /// Number of eigenvalues of the tridiagonal matrix (`d`, squared off-diagonal `e2`) below
        /// `x`: the negative pivots of the LDLᵀ factorization of T − x (Sturm sequence). Backward
        /// stable: the count is exact for a matrix within a few ε of T entrywise (Kahan; LAPACK
        /// `dlaebz`). Pivots smaller than `pivmin` are replaced by −`pivmin`, as LAPACK does.
        pub(super) fn count_below(d: &[f64], e2: &[f64], x: f64, pivmin: f64) -> usize {
            let mut count = 0;
            let mut q = 1.0;
            for i in 0..d.len() {
                q = d[i] - x - if i > 0 { e2[i - 1] / q } else { 0.0 };
                if q.abs() < pivmin {
                    q = -pivmin;
                }
                if q < 0.0 {
                    count += 1;
                }
            }
            count
        }

        pub(in super::super) fn refine(diag: &[f64], offdiag: &[f64], values: &mut [f64]) {
            let Some(sturm) = super::super::SturmData::new(diag, offdiag, values.len()) else {
                return;
            };
            let (scale, d, e2, norm, pivmin) =
                (sturm.scale, &sturm.d, &sturm.e2, sturm.norm, sturm.pivmin);
            let eps = f64::EPSILON;
            for (j, value) in values.iter_mut().enumerate() {
                let x = *value / scale;
                let mut width = 64.0 * eps * norm;
                let (mut lo, mut hi) = (x - width, x + width);
                let mut tries = 0;
                while count_below(d, e2, lo, pivmin) > j && tries < 60 {
                    width *= 2.0;
                    lo = x - width;
                    tries += 1;
                }
                while count_below(d, e2, hi, pivmin) <= j && tries < 120 {
                    width *= 2.0;
                    hi = x + width;
                    tries += 1;
                }
                if count_below(d, e2, lo, pivmin) > j || count_below(d, e2, hi, pivmin) <= j {
                    continue;
                }
                for _ in 0..64 {
                    let mid = 0.5 * (lo + hi);
                    if hi - lo <= 2.0 * eps * lo.abs().max(hi.abs()) + pivmin
                        || mid == lo
                        || mid == hi
                    {
                        break;
                    }
                    if count_below(d, e2, mid, pivmin) > j {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                *value = 0.5 * (lo + hi) * scale;
            }
        }
    }

    #[test]
    fn laplacian_eigenvalues_are_analytic() {
        // tridiag(1, −2, 1): λ_k = −4 sin²(kπ/(2(n+1))), k = 1..n.
        for n in [1usize, 2, 7, 50, 200] {
            let d = vec![-2.0; n];
            let e = vec![1.0; n - 1];
            let got = symmetric_tridiagonal_eigenvalues(&d, &e).unwrap();
            let mut want: Vec<f64> = (1..=n)
                .map(|k| {
                    let s = (k as f64 * std::f64::consts::PI / (2.0 * (n as f64 + 1.0))).sin();
                    -4.0 * s * s
                })
                .collect();
            want.sort_by(f64::total_cmp);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-13, "n = {n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn large_scaled_laplacians_have_eigenvalues_to_a_few_ulps_of_the_norm() {
        // The regime of long Lanczos runs: k = 500, ‖T‖ = 4·10³. Bisection on the Sturm
        // count brings every eigenvalue within 4ε‖T‖ (QL alone: tens of ε‖T‖).
        let (n, h) = (500usize, 1000.0);
        let got = symmetric_tridiagonal_eigenvalues(&vec![-2.0 * h; n], &vec![h; n - 1]).unwrap();
        let mut want: Vec<f64> = (1..=n)
            .map(|k| {
                let s = (k as f64 * std::f64::consts::PI / (2.0 * (n as f64 + 1.0))).sin();
                -4.0 * h * s * s
            })
            .collect();
        want.sort_by(f64::total_cmp);
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (g - w).abs())
            .fold(0.0, f64::max);
        assert!(
            worst <= 4.0 * f64::EPSILON * 4.0 * h,
            "worst error {worst:e}"
        );
    }

    #[test]
    fn eigenvectors_are_orthonormal_and_satisfy_the_equation() {
        let d = [4.0, -1.0, 2.5, 0.0, 3.0, -7.0];
        let e = [1.0, 0.5, -2.0, 1e-3, 4.0];
        let n = d.len();
        let eig = symmetric_tridiagonal_eigen(&d, &e).unwrap();
        for j in 0..n {
            let v = eig.vector(j);
            for i in 0..n {
                let mut tv = d[i] * v[i];
                if i > 0 {
                    tv += e[i - 1] * v[i - 1];
                }
                if i + 1 < n {
                    tv += e[i] * v[i + 1];
                }
                assert!((tv - eig.values[j] * v[i]).abs() < 1e-13);
            }
            for k in 0..n {
                let dot: f64 = v.iter().zip(eig.vector(k)).map(|(a, b)| a * b).sum();
                let want = if j == k { 1.0 } else { 0.0 };
                assert!((dot - want).abs() < 1e-14);
            }
        }
        let (vals, last) = symmetric_tridiagonal_last_components(&d, &e).unwrap();
        assert_eq!(vals, eig.values);
        for j in 0..n {
            assert!((last[j].abs() - eig.vector(j)[n - 1].abs()).abs() < 1e-14);
        }
    }

    /// Tridiagonals that stress QL and bisection: random, Wilkinson's W⁺ (pairs of
    /// eigenvalues agreeing to many digits), glued Wilkinson matrices (clusters to 1e−14),
    /// graded, zero diagonal, constant (a cluster of multiplicity ~n at the scale of ε), and
    /// extreme scales.
    fn hard_tridiagonals() -> Vec<(String, Vec<f64>, Vec<f64>)> {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(20_260_101);
        let mut out = Vec::new();
        for n in [2usize, 3, 5, 8, 13, 40, 63, 100] {
            let d = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let e = (1..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            out.push((format!("random {n}"), d, e));
        }
        for m in [10usize, 21, 41] {
            let d = (0..m).map(|i| (i as f64 - (m / 2) as f64).abs()).collect();
            out.push((format!("W+ {m}"), d, vec![1.0; m - 1]));
        }
        let w: Vec<f64> = (0..21).map(|i| (i as f64 - 10.0).abs()).collect();
        let (mut d, mut e) = (Vec::new(), Vec::new());
        for block in 0..4 {
            if block > 0 {
                e.push(1e-14);
            }
            d.extend(&w);
            e.extend(vec![1.0; 20]);
        }
        out.push(("glued W+ 4×21".into(), d, e));
        out.push((
            "graded".into(),
            (0..30).map(|i| 10f64.powi(-i)).collect(),
            (1..30).map(|i| 10f64.powi(-i)).collect(),
        ));
        out.push(("zero diagonal".into(), vec![0.0; 50], vec![1.0; 49]));
        out.push(("constant".into(), vec![3.0; 30], vec![1e-9; 29]));
        for scale in [1e-300, 1e300] {
            let d = (0..20)
                .map(|_| scale * rng.random_range(-1.0..1.0))
                .collect();
            let e = (1..20)
                .map(|_| scale * rng.random_range(-1.0..1.0))
                .collect();
            out.push((format!("scaled {scale:e}"), d, e));
        }
        out
    }

    #[test]
    fn interleaved_bisection_is_bitwise_the_sequential_one() {
        for (name, d, e) in hard_tridiagonals() {
            let ql = sorted(implicit_ql(&d, &e, |_, _, _| {}).unwrap()).0;
            let mut lanes = ql.clone();
            refine_by_bisection(&d, &e, &mut lanes);
            let mut one_by_one = ql.clone();
            sequential::refine(&d, &e, &mut one_by_one);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&lanes), bits(&one_by_one), "{name}");
        }
    }

    #[test]
    fn rotations_are_the_eigenvector_matrix() {
        for (name, d, e) in hard_tridiagonals() {
            let n = d.len();
            let full = symmetric_tridiagonal_eigen(&d, &e).unwrap();
            let rot = symmetric_tridiagonal_rotations(&d, &e).unwrap();
            assert_eq!(rot.order(), n);
            // The same QL and refinement: the same eigenvalues, bit for bit.
            assert_eq!(rot.values, full.values, "{name}");
            for r in 0..n {
                // A row is accumulated by the same operations as in the full matrix.
                let row = rot.row(r);
                for (j, &z) in row.iter().enumerate() {
                    assert_eq!(
                        z.to_bits(),
                        full.vector(j)[r].to_bits(),
                        "{name}: Z[{r}][{j}]"
                    );
                }
            }
            for j in 0..n {
                // Z·e_j is column j; Zᵀ·(Z·e_j) = e_j.
                let mut x = vec![0.0; n];
                x[j] = 1.0;
                rot.mul(&mut x);
                for (a, b) in x.iter().zip(full.vector(j)) {
                    assert!(
                        (a - b).abs() <= 8.0 * f64::EPSILON * n as f64,
                        "{name}: column {j}"
                    );
                }
                rot.mul_transpose(&mut x);
                for (i, &xi) in x.iter().enumerate() {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!(
                        (xi - want).abs() <= 8.0 * f64::EPSILON * n as f64,
                        "{name}: ZᵀZ"
                    );
                }
            }
        }
    }

    #[test]
    fn unrefined_rotations_differ_from_the_refined_only_in_the_eigenvalues() {
        for (name, d, e) in hard_tridiagonals() {
            let refined = symmetric_tridiagonal_rotations(&d, &e).unwrap();
            let unrefined = symmetric_tridiagonal_rotations_unrefined(&d, &e).unwrap();
            assert_eq!(unrefined.rotations, refined.rotations, "{name}");
            assert_eq!(unrefined.perm, refined.perm, "{name}");
            let ql = sorted(implicit_ql(&d, &e, |_, _, _| {}).unwrap()).0;
            assert_eq!(unrefined.values, ql, "{name}");
            let norm = d.iter().chain(&e).fold(0.0f64, |m, x| m.max(x.abs()));
            for (a, b) in unrefined.values.iter().zip(&refined.values) {
                assert!(
                    (a - b).abs() <= 64.0 * f64::EPSILON * 3.0 * norm,
                    "{name}: {a:e} vs {b:e}"
                );
            }
        }
    }

    #[test]
    fn extreme_eigenvalues_bracket_the_refined_ones() {
        let mut cases = hard_tridiagonals();
        cases.push(("order one".into(), vec![-7.5], vec![]));
        cases.push(("diagonal".into(), vec![3.0, -1.0, 2.0], vec![0.0, 0.0]));
        cases.push(("zero".into(), vec![0.0; 4], vec![0.0; 3]));
        // A stiff Lanczos-like spectrum: Laplacian scaled to [−8·10⁵, 0].
        cases.push(("stiff".into(), vec![-4e5; 300], vec![2e5; 299]));
        for (name, d, e) in cases {
            let all = symmetric_tridiagonal_eigenvalues(&d, &e).unwrap();
            let (lmin, lmax) = (all[0], all[all.len() - 1]);
            let (lo, hi) = symmetric_tridiagonal_extreme_eigenvalues(&d, &e).unwrap();
            let norm = (0..d.len())
                .map(|i| {
                    d[i].abs()
                        + if i > 0 { e[i - 1].abs() } else { 0.0 }
                        + e.get(i).map_or(0.0, |x| x.abs())
                })
                .fold(0.0, f64::max);
            // Within a bracket of a few ulps plus the backward errors of the two
            // bisections (a few ε‖T‖ each), and outward up to that rounding.
            let slack = 8.0 * f64::EPSILON * norm;
            assert!(
                lo <= lmin + slack && lmin - lo <= 4.0 * f64::EPSILON * norm + slack,
                "{name}: λ_min {lmin:e}, lo {lo:e}"
            );
            assert!(
                hi >= lmax - slack && hi - lmax <= 4.0 * f64::EPSILON * norm + slack,
                "{name}: λ_max {lmax:e}, hi {hi:e}"
            );
        }
    }

    #[test]
    fn zero_and_huge_matrices() {
        assert_eq!(
            symmetric_tridiagonal_eigenvalues(&[0.0, 0.0], &[0.0]).unwrap(),
            vec![0.0, 0.0]
        );
        let v = symmetric_tridiagonal_eigenvalues(&[1e300, 1e300], &[1e300]).unwrap();
        assert!((v[0] / 1e300).abs() < 1e-15 && (v[1] / 2e300 - 1.0).abs() < 1e-15);
    }
}
