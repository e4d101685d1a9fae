//! Extreme eigenvalues of matrix-free Hermitian operators by the Lanczos method.
//!
//! `k` steps of the Lanczos recurrence from a seeded random unit vector `v_0` build the
//! tridiagonal `T_k = V_kᴴ A V_k` and the relation `A V_k = V_k T_k + β_k v_k e_kᵀ`. The
//! eigenvalues `θ_1 ≤ … ≤ θ_k` of `T_k` (Ritz values) lie in the numerical range of `A`,
//! hence inside `[λ_min, λ_max]`, and approach the extreme eigenvalues first. For a Ritz
//! pair `(θ_i, V_k s_i)` the residual is `‖A V_k s_i − θ_i V_k s_i‖ = |β_k|·|e_kᵀ s_i| =: ρ_i`,
//! and for Hermitian `A` the interval `[θ_i − ρ_i, θ_i + ρ_i]` contains an eigenvalue.
//!
//! # The safety margin
//!
//! The estimate returned is
//!
//! `[θ_1 − ρ_1 − δ·w − τ, θ_k + ρ_k + δ·w + τ]`,  `w = θ_k − θ_1`,  `τ = 2k·ε·max|θ|`,
//!
//! with `δ = rel_margin` (default 1%) and `ε` the unit roundoff of the scalar type.
//!
//! * Once the extreme Ritz values have converged, the eigenvalue within `ρ_k` of `θ_k` is
//!   `λ_max` (and likewise at the bottom), so the residual term alone encloses the
//!   spectrum: the bound is then rigorous up to rounding.
//! * Before convergence the residual `ρ_k` is large compared with the gap `λ_max − θ_k`:
//!   the eigenvalue error of a Ritz value decreases like the *square* of its residual, so
//!   `θ_k + ρ_k` overshoots. Spectra with dense clusters at the ends (discrete Laplacians,
//!   the hardest case) converge slowest; the relative margin `δ·w` covers what remains.
//!   The crate's tests check the enclosure on 1D and 2D Laplacians against their analytic
//!   spectra.
//! * `τ` absorbs rounding: without reorthogonalisation Lanczos loses orthogonality, but by
//!   Paige's analysis the computed Ritz values still lie within `O(k·ε·‖A‖)` of the
//!   numerical range (lost orthogonality only produces duplicate copies of converged Ritz
//!   values).
//!
//! It is an estimate, not a proof: a starting vector orthogonal to the extreme eigenvectors
//! would hide them, an event of probability zero for the random start (and never seen in
//! floating point). Overestimating the interval is cheap for Leja interpolation (the number
//! of points grows linearly with the capacity); underestimating slows convergence.
//!
//! Cost: `k` operator applications, `O(k·n)` vector work, three vectors of memory
//! (no reorthogonalisation), `O(k²)` for the tridiagonal eigenproblem.

use crate::start::{check_dimension, check_margin, check_output, check_steps, random_unit_vector};
use crate::tridiagonal::eigen_last_components;
use matexp_core::norms::{axpby, dot, nrm2};
use matexp_core::{RealScalar, Result, Scalar, SpectralBounds};

/// Seed of the default starting vector.
pub const DEFAULT_SEED: u64 = 0x6d61_7465_7870_4c6a;

/// Options of [`lanczos_bounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LanczosOptions {
    /// Number of Lanczos steps (operator applications), at most the dimension; default 40.
    pub steps: usize,
    /// Relative widening `δ` of the interval, as a fraction of the Ritz spread; default 0.01.
    pub rel_margin: f64,
    /// Seed of the random starting vector.
    pub seed: u64,
}

impl Default for LanczosOptions {
    fn default() -> Self {
        LanczosOptions {
            steps: 40,
            rel_margin: 0.01,
            seed: DEFAULT_SEED,
        }
    }
}

/// Result of [`lanczos_bounds`]: the widened interval and the data behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LanczosEstimate {
    /// The widened real interval (see the module documentation for the margin).
    pub bounds: SpectralBounds,
    /// Smallest Ritz value `θ_1` (≥ λ_min up to rounding).
    pub ritz_min: f64,
    /// Largest Ritz value `θ_k` (≤ λ_max up to rounding).
    pub ritz_max: f64,
    /// Residual norm `|β_k·s_{k,1}|` of the smallest Ritz pair.
    pub residual_min: f64,
    /// Residual norm `|β_k·s_{k,k}|` of the largest Ritz pair.
    pub residual_max: f64,
    /// Lanczos steps performed (fewer than requested when the Krylov space became invariant).
    pub steps: usize,
    /// Whether the Krylov space became invariant (`β` negligible): the Ritz values are then
    /// eigenvalues.
    pub invariant: bool,
}

/// Estimates the spectral interval of the Hermitian (real symmetric for real `S`) operator
/// `x ↦ A x` of dimension `n`, given as `apply(x, y)` writing `y = A x`.
///
/// # Errors
/// [`matexp_core::Error::InvalidArgument`] if `n = 0`, `steps = 0` or `rel_margin` is
/// negative or not finite; [`matexp_core::Error::NonFinite`] if the operator returns a NaN
/// or infinity.
///
/// ```
/// use matexp_leja::{lanczos_bounds, LanczosOptions};
/// // diag(1, 2, ..., 100): spectrum [1, 100].
/// let est = lanczos_bounds::<f64, _>(100, |x, y| {
///     for (i, (yi, xi)) in y.iter_mut().zip(x).enumerate() {
///         *yi = (i + 1) as f64 * xi;
///     }
/// }, &LanczosOptions::default())?;
/// assert!(est.bounds.re_min <= 1.0 && est.bounds.re_max >= 100.0);
/// assert!(est.bounds.re_min > 0.0 && est.bounds.re_max < 102.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn lanczos_bounds<S: Scalar, F: FnMut(&[S], &mut [S])>(
    n: usize,
    mut apply: F,
    options: &LanczosOptions,
) -> Result<LanczosEstimate> {
    lanczos_fallible(
        n,
        |x, y| {
            apply(x, y);
            Ok(())
        },
        options,
    )
}

pub(crate) fn lanczos_fallible<S: Scalar, F: FnMut(&[S], &mut [S]) -> Result<()>>(
    n: usize,
    mut apply: F,
    options: &LanczosOptions,
) -> Result<LanczosEstimate> {
    check_dimension(n)?;
    check_steps(options.steps)?;
    check_margin(options.rel_margin)?;
    let k_max = options.steps.min(n);
    let mut v = random_unit_vector::<S>(n, options.seed);
    let mut v_prev = vec![S::zero(); n];
    let mut w = vec![S::zero(); n];
    let mut alpha: Vec<f64> = Vec::with_capacity(k_max);
    let mut beta: Vec<f64> = Vec::with_capacity(k_max);
    let mut beta_prev = 0.0f64;
    let mut beta_last = 0.0f64;
    let mut invariant = false;
    let eps = S::Real::EPS.as_f64();
    for j in 0..k_max {
        apply(&v, &mut w)?;
        check_output("Lanczos", j, &w)?;
        if j > 0 {
            axpby(S::from_f64(-beta_prev), &v_prev, S::one(), &mut w);
        }
        // For Hermitian A, vᴴAv is real; its imaginary part is rounding and is dropped.
        let a = dot(&v, &w).re().as_f64();
        axpby(S::from_f64(-a), &v, S::one(), &mut w);
        let b = nrm2(&w).as_f64();
        alpha.push(a);
        beta_last = b;
        // ‖A v_j‖² = β_{j−1}² + α_j² + β_j² in exact arithmetic: the scale of this step.
        let scale = (beta_prev * beta_prev + a * a + b * b).sqrt();
        if b <= 8.0 * eps * scale {
            invariant = true;
            break;
        }
        if j + 1 == k_max {
            break;
        }
        beta.push(b);
        let inv = S::from_f64(1.0 / b);
        std::mem::swap(&mut v_prev, &mut v);
        // v_prev now holds v_j; v becomes v_{j+1} = w/β_j.
        for (vi, wi) in v.iter_mut().zip(&w) {
            *vi = *wi * inv;
        }
        beta_prev = b;
    }
    let steps = alpha.len();
    let (theta, last) = eigen_last_components(&alpha, &beta)?;
    let (ritz_min, ritz_max) = (theta[0], theta[steps - 1]);
    let residual_min = (beta_last * last[0]).abs();
    let residual_max = (beta_last * last[steps - 1]).abs();
    let magnitude = ritz_min.abs().max(ritz_max.abs());
    let spread = ritz_max - ritz_min;
    let width = if spread > 0.0 { spread } else { magnitude };
    let round = 2.0 * steps as f64 * eps * magnitude;
    let widen = options.rel_margin * width + round;
    let bounds = SpectralBounds::real(
        ritz_min - residual_min - widen,
        ritz_max + residual_max + widen,
    )?;
    Ok(LanczosEstimate {
        bounds,
        ritz_min,
        ritz_max,
        residual_min,
        residual_max,
        steps,
        invariant,
    })
}
