//! Spectral bounds of an operator: the one estimator of the workspace, on any backend.
//!
//! Leja's focal interval, Taylor's shift, the graph measures and the command line all ask
//! this module: Lanczos for Hermitian operators ([`lanczos_bounds`]), power iteration
//! otherwise ([`power_bounds`]), both on backend vectors (a GPU operator is never copied
//! to the host; the seeded starting vector is made where the vectors live,
//! `matexp_core::seeded_unit`), and Gershgorin bounds of
//! explicit matrices ([`gershgorin_bounds`], through the small [`RowEntries`] trait).
//! [`estimate_spectral_bounds`] takes what the operator knows and estimates otherwise.
//!
//! # Lanczos and its safety margin
//!
//! `k` steps of the Lanczos recurrence from a seeded random unit vector build the
//! tridiagonal `T_k = V_kᴴ A V_k` and `A V_k = V_k T_k + β_k v_k e_kᵀ`. The Ritz values
//! `θ_1 ≤ … ≤ θ_k` lie in the numerical range of `A`, hence inside `[λ_min, λ_max]`; for a
//! Ritz pair `(θ_i, V_k s_i)` the residual is `ρ_i = |β_k|·|e_kᵀ s_i|`, and `[θ_i − ρ_i,
//! θ_i + ρ_i]` contains an eigenvalue. The estimate is
//!
//! `[θ_1 − ρ_1 − δ·w − τ, θ_k + ρ_k + δ·w + τ]`,  `w = θ_k − θ_1`,  `τ = 2k·ε·max|θ|`,
//!
//! with `δ` = [`SpectrumOptions::lanczos_margin`] (1 %) and `ε` the unit roundoff of the
//! scalar type. Once the extreme Ritz values have converged the residual term alone encloses
//! the spectrum; before, `θ_k + ρ_k` overshoots (the eigenvalue error decreases like the
//! square of the residual), and `δ·w` covers dense clusters at the ends (discrete
//! Laplacians converge slowest). `τ` absorbs rounding: without reorthogonalisation, by
//! Paige's analysis, the computed Ritz values stay within `O(k·ε·‖A‖)` of the numerical
//! range. It is an estimate, not a proof (a start orthogonal to the extreme eigenvectors
//! would hide them). The tridiagonal eigenproblems go to `matexp-dense`'s implicit QL.
//! Cost: `k` products, three vectors, no reorthogonalisation.
//!
//! # Power iteration
//!
//! From the same start, `x_{j+1} = A x_j / ‖A x_j‖`; every ratio `‖A x_j‖/‖x_j‖` lies in
//! `[0, ‖A‖₂]` and tends to `ρ(A)` for an operator with a dominant eigenvalue. The estimate
//! is the largest ratio widened by [`SpectrumOptions::power_margin`] (5 %), `ρ̂ = (1 + δ)·max_j
//! ‖A x_j‖`, and the box `[−ρ̂, ρ̂] × [−ρ̂, ρ̂]`. The maximum errs on the safe side (early
//! ratios of a non-normal operator see `‖A‖`-sized growth); convergence is linear with
//! ratio `|λ₂/λ₁|`, slow for clustered or equal-modulus dominant eigenvalues, which the
//! margin covers when moderate.
//!
//! ```
//! use matexp_core::{CpuBackend, DenseMatrixOperator};
//! use matexp_expmv::spectrum::{SpectrumOptions, estimate_spectral_bounds, lanczos_bounds};
//! // diag(1, 2, ..., 60): spectrum [1, 60].
//! let n = 60;
//! let mut a = vec![0.0; n * n];
//! (0..n).for_each(|i| a[i * n + i] = (i + 1) as f64);
//! let a = DenseMatrixOperator::new(n, n, a)?;
//! let est = lanczos_bounds(&CpuBackend, &a, &SpectrumOptions::default())?;
//! assert!(est.bounds.re_min <= 1.0 && est.bounds.re_max >= 60.0);
//! assert!(est.bounds.re_min > 0.0 && est.bounds.re_max < 62.0);
//! // The operator's own (Gershgorin) bounds come first where it has them.
//! let b = estimate_spectral_bounds(&CpuBackend, &a, &SpectrumOptions::default())?;
//! assert_eq!((b.re_min, b.re_max), (1.0, 60.0));
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod gershgorin;

pub use gershgorin::{
    GershgorinDisc, GershgorinShape, RowEntries, gershgorin_bounds, gershgorin_discs,
};

use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds};
use matexp_dense::{symmetric_tridiagonal_eigenvalues, symmetric_tridiagonal_last_components};

/// Seed of the default starting vector (the methods' estimates use it).
pub const DEFAULT_SEED: u64 = 0x6c65_6a61_7370_6563;
/// Lanczos steps of the methods' estimate (fewer for smaller operators).
pub(crate) const LANCZOS_STEPS: usize = 40;
/// Relative widening of the Lanczos interval (of its width).
pub(crate) const LANCZOS_MARGIN: f64 = 0.01;
/// Power-iteration steps of the methods' estimate for non-Hermitian operators.
pub(crate) const POWER_STEPS: usize = 40;
/// Relative widening of the power-iteration radius.
pub(crate) const POWER_MARGIN: f64 = 0.05;
/// When narrowing a box ([`narrow`]), the power iteration stops once its radius has grown
/// by less than [`POWER_STALL`] (relative) over this many steps.
pub(crate) const POWER_PATIENCE: usize = 8;
/// See [`POWER_PATIENCE`].
pub(crate) const POWER_STALL: f64 = 0.005;
/// A narrowed box is used only when its width is below this fraction of the given box's.
pub(crate) const TIGHTEN_RATIO: f64 = 0.5;

/// Options of the estimators. The default is what Leja and Taylor run: 40 Lanczos or
/// power steps, margins 1 % and 5 %, [`DEFAULT_SEED`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectrumOptions {
    /// Lanczos steps (operator applications), at most the dimension; default 40.
    pub lanczos_steps: usize,
    /// Relative widening `δ` of the Lanczos interval, as a fraction of the Ritz spread.
    pub lanczos_margin: f64,
    /// Power-iteration steps (operator applications); default 40.
    pub power_steps: usize,
    /// Relative widening `δ` of the power-iteration radius.
    pub power_margin: f64,
    /// Seed of the random starting vector.
    pub seed: u64,
}

impl Default for SpectrumOptions {
    fn default() -> Self {
        SpectrumOptions {
            lanczos_steps: LANCZOS_STEPS,
            lanczos_margin: LANCZOS_MARGIN,
            power_steps: POWER_STEPS,
            power_margin: POWER_MARGIN,
            seed: DEFAULT_SEED,
        }
    }
}

impl SpectrumOptions {
    /// The same step count for both estimators.
    pub fn with_steps(mut self, steps: usize) -> Self {
        self.lanczos_steps = steps;
        self.power_steps = steps;
        self
    }

    /// Another starting vector.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
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
    /// Lanczos steps performed, one product each (fewer than asked when the Krylov space
    /// became invariant).
    pub steps: usize,
    /// Whether the Krylov space became invariant (`β` negligible): the Ritz values are then
    /// eigenvalues.
    pub invariant: bool,
}

/// Result of [`power_bounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerEstimate {
    /// `ρ̂ = (1 + δ)·raw_radius`.
    pub radius: f64,
    /// Largest ratio `‖A x_j‖/‖x_j‖` observed.
    pub raw_radius: f64,
    /// The ratio of the last step (the classical power-method estimate).
    pub last_ratio: f64,
    /// Operator applications performed (fewer than asked if `A x_j = 0`).
    pub steps: usize,
    /// The box `[−ρ̂, ρ̂] × [−ρ̂, ρ̂]`.
    pub bounds: SpectralBounds,
}

/// Which estimator ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Estimator {
    Lanczos,
    Power,
}

/// Estimates the spectral interval of the Hermitian (real symmetric for real `S`) operator
/// `op` by Lanczos (see the module documentation).
///
/// # Errors
/// [`Error::InvalidArgument`] for an operator of order 0, `lanczos_steps = 0` or a
/// negative or non-finite margin; [`Error::DimensionMismatch`] for a non-square operator;
/// [`Error::NonFinite`] if the operator returns a NaN or infinity; the operator's and the
/// backend's errors.
pub fn lanczos_bounds<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    options: &SpectrumOptions,
) -> Result<LanczosEstimate> {
    let n = check_square(op)?;
    check_steps(options.lanczos_steps)?;
    check_margin(options.lanczos_margin)?;
    let mut v = backend.zeros(n)?;
    matexp_core::seeded_unit(backend, &mut v, options.seed)?;
    let (mut v_prev, mut w) = (backend.zeros(n)?, backend.zeros(n)?);
    let (est, _) = lanczos(
        backend,
        op,
        options.lanczos_steps,
        options.lanczos_margin,
        [&mut v, &mut v_prev, &mut w],
        None,
    )?;
    Ok(est.expect("never stopped early"))
}

/// Estimates the spectral radius of `op` by power iteration, and a box enclosing its
/// spectrum (see the module documentation).
///
/// # Errors
/// As [`lanczos_bounds`], for `power_steps` and `power_margin`.
pub fn power_bounds<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    options: &SpectrumOptions,
) -> Result<PowerEstimate> {
    let n = check_square(op)?;
    check_steps(options.power_steps)?;
    check_margin(options.power_margin)?;
    let mut v = backend.zeros(n)?;
    matexp_core::seeded_unit(backend, &mut v, options.seed)?;
    let mut w = backend.zeros(n)?;
    let (est, _) = power(
        backend,
        op,
        options.power_steps,
        options.power_margin,
        &mut v,
        &mut w,
        None,
        None,
    )?;
    Ok(est.expect("never stopped early"))
}

/// Spectral bounds of `op`: [`LinearOperator::spectral_bounds`] when the operator provides
/// them (Gershgorin for explicit matrices, analytic for stencils), otherwise
/// [`lanczos_bounds`] if [`LinearOperator::is_hermitian`], otherwise the box of
/// [`power_bounds`].
///
/// # Errors
/// Those of the estimators.
pub fn estimate_spectral_bounds<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    options: &SpectrumOptions,
) -> Result<SpectralBounds> {
    if let Some(b) = op.spectral_bounds() {
        return Ok(b);
    }
    if op.is_hermitian() {
        Ok(lanczos_bounds(backend, op, options)?.bounds)
    } else {
        Ok(power_bounds(backend, op, options)?.bounds)
    }
}

/// The methods' estimate: bounds, the estimator, and the products spent. The three
/// scratch vectors (length n) are overwritten.
pub(crate) fn estimate<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    scratch: [&mut B::Vector<S>; 3],
) -> Result<(SpectralBounds, Estimator, usize)> {
    let [v, v_prev, w] = scratch;
    matexp_core::seeded_unit(be, v, DEFAULT_SEED)?;
    if op.is_hermitian() {
        let (e, k) = lanczos(be, op, LANCZOS_STEPS, LANCZOS_MARGIN, [v, v_prev, w], None)?;
        Ok((
            e.expect("never stopped early").bounds,
            Estimator::Lanczos,
            k,
        ))
    } else {
        let (e, k) = power(be, op, POWER_STEPS, POWER_MARGIN, v, w, None, None)?;
        Ok((e.expect("never stopped early").bounds, Estimator::Power, k))
    }
}

/// Width of a box as a focal interval sees it: its longer side.
pub(crate) fn box_width(b: &SpectralBounds) -> f64 {
    (b.re_max - b.re_min).max(b.im_max - b.im_min)
}

/// `a ∩ b` (both enclose the spectrum, so the intersection does); `None` when empty (the
/// estimate contradicts the given box: keep the box).
pub(crate) fn intersect(a: &SpectralBounds, b: &SpectralBounds) -> Option<SpectralBounds> {
    let (re_min, re_max) = (a.re_min.max(b.re_min), a.re_max.min(b.re_max));
    let (im_min, im_max) = (a.im_min.max(b.im_min), a.im_max.min(b.im_max));
    (re_min <= re_max && im_min <= im_max).then_some(SpectralBounds {
        re_min,
        re_max,
        im_min,
        im_max,
    })
}

/// The methods' estimate of a box that is not known to be tight, stopped as soon as it
/// cannot narrow `given` below [`TIGHTEN_RATIO`] of its width: the estimate (`None` when
/// stopped, or for an empty or degenerate `given`) and the products spent. Lanczos stops
/// when the Ritz interval seen so far (without margins), power iteration when its radius
/// so far (with margin), already covers the target within `given`: both only grow. Power
/// iteration also stops once its radius has grown by less than [`POWER_STALL`] over
/// [`POWER_PATIENCE`] steps.
pub(crate) fn narrow<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    given: &SpectralBounds,
    scratch: [&mut B::Vector<S>; 3],
) -> Result<(Option<SpectralBounds>, usize)> {
    let n = op.nrows();
    let target = TIGHTEN_RATIO * box_width(given);
    if n == 0 || target.is_nan() || target <= 0.0 {
        return Ok((None, 0));
    }
    let [v, v_prev, w] = scratch;
    matexp_core::seeded_unit(be, v, DEFAULT_SEED)?;
    // `seen` is a box every later estimate contains: once its intersection with `given` is
    // at least `target` wide, no narrowing can follow.
    let hopeless =
        |seen: &SpectralBounds| intersect(seen, given).is_none_or(|b| box_width(&b) >= target);
    if op.is_hermitian() {
        let stop = |lo: f64, hi: f64| {
            hopeless(&SpectralBounds {
                re_min: lo,
                re_max: hi,
                im_min: 0.0,
                im_max: 0.0,
            })
        };
        let (e, k) = lanczos(
            be,
            op,
            LANCZOS_STEPS,
            LANCZOS_MARGIN,
            [v, v_prev, w],
            Some(&stop),
        )?;
        Ok((e.map(|e| e.bounds), k))
    } else {
        let stop = |r: f64| {
            let r = (1.0 + POWER_MARGIN) * r;
            hopeless(&SpectralBounds {
                re_min: -r,
                re_max: r,
                im_min: -r,
                im_max: r,
            })
        };
        let (e, k) = power(
            be,
            op,
            POWER_STEPS,
            POWER_MARGIN,
            v,
            w,
            Some(&stop),
            Some(POWER_PATIENCE),
        )?;
        Ok((e.map(|e| e.bounds), k))
    }
}

fn check_square<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(op: &O) -> Result<usize> {
    let n = op.nrows();
    if n == 0 {
        return Err(Error::invalid(
            "n",
            n,
            "zero-dimension operator has no spectrum to estimate",
        ));
    }
    if op.ncols() != n {
        return Err(Error::dim(
            "spectral estimate: square operator (columns)",
            n,
            op.ncols(),
        ));
    }
    Ok(n)
}

fn check_margin(rel_margin: f64) -> Result<()> {
    if !(rel_margin.is_finite() && rel_margin >= 0.0) {
        return Err(Error::invalid(
            "rel_margin",
            rel_margin,
            "the safety margin must be finite and non-negative",
        ));
    }
    Ok(())
}

fn check_steps(steps: usize) -> Result<()> {
    if steps == 0 {
        return Err(Error::invalid(
            "steps",
            steps,
            "at least one operator application is needed",
        ));
    }
    Ok(())
}

fn check_output<B: Backend, S: Scalar>(
    be: &B,
    what: &str,
    step: usize,
    y: &B::Vector<S>,
) -> Result<f64> {
    let nrm = be.nrm2(y)?.as_f64();
    if nrm.is_finite() {
        return Ok(nrm);
    }
    let host = be.to_host(y)?;
    let (index, value) = matexp_core::norms::first_non_finite(&host)
        .map(|(i, v)| (i, format!("{v}")))
        .unwrap_or((0, format!("norm {nrm}")));
    Err(Error::NonFinite {
        context: format!("operator output in the {what} spectral estimate, step {step}"),
        index,
        value,
    })
}

/// Lanczos from `v` (a unit vector) for at most `steps` steps; `None` when `stop(θ_min,
/// θ_max)` of the Ritz values so far said so. Returns the products spent.
fn lanczos<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    steps: usize,
    margin: f64,
    scratch: [&mut B::Vector<S>; 3],
    stop: Option<&dyn Fn(f64, f64) -> bool>,
) -> Result<(Option<LanczosEstimate>, usize)> {
    let [v, v_prev, w] = scratch;
    let n = op.nrows();
    let k_max = steps.min(n);
    let eps = S::Real::EPS.as_f64();
    let (mut alpha, mut beta) = (Vec::with_capacity(k_max), Vec::with_capacity(k_max));
    let (mut beta_prev, mut beta_last) = (0.0f64, 0.0f64);
    let mut invariant = false;
    let mut matvecs = 0;
    for j in 0..k_max {
        op.apply(be, S::one(), v, S::zero(), w)?;
        matvecs += 1;
        check_output(be, "Lanczos", j, w)?;
        if j > 0 {
            be.axpby(S::from_f64(-beta_prev), v_prev, S::one(), w)?;
        }
        // vᴴAv is real for Hermitian A; the imaginary part is rounding.
        let a = be.dot(v, w)?.re().as_f64();
        be.axpby(S::from_f64(-a), v, S::one(), w)?;
        let b = be.nrm2(w)?.as_f64();
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
        // The Ritz interval only grows with more steps: ask whether it already says enough.
        if let Some(stop) = stop.filter(|_| j >= 1) {
            let ritz = symmetric_tridiagonal_eigenvalues(&alpha, &beta)?;
            if stop(ritz[0], ritz[j]) {
                return Ok((None, matvecs));
            }
        }
        beta.push(b);
        std::mem::swap(v_prev, v);
        be.copy(w, v)?;
        be.scale(S::from_f64(1.0 / b), v)?;
        beta_prev = b;
    }
    let k = alpha.len();
    let (theta, last) = symmetric_tridiagonal_last_components(&alpha, &beta)?;
    let (lo, hi) = (theta[0], theta[k - 1]);
    let res_lo = (beta_last * last[0]).abs();
    let res_hi = (beta_last * last[k - 1]).abs();
    let magnitude = lo.abs().max(hi.abs());
    let width = if hi > lo { hi - lo } else { magnitude };
    let widen = margin * width + 2.0 * k as f64 * eps * magnitude;
    let bounds = SpectralBounds {
        re_min: lo - res_lo - widen,
        re_max: hi + res_hi + widen,
        im_min: 0.0,
        im_max: 0.0,
    };
    let est = LanczosEstimate {
        bounds,
        ritz_min: lo,
        ritz_max: hi,
        residual_min: res_lo,
        residual_max: res_hi,
        steps: k,
        invariant,
    };
    Ok((Some(est), matvecs))
}

/// Power iteration from `v` (a unit vector) for at most `steps` products; `None` when
/// `stop(radius so far)` said so; with `patience`, it ends once the radius has grown by
/// less than [`POWER_STALL`] over that many steps.
#[allow(clippy::too_many_arguments)]
fn power<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    steps: usize,
    margin: f64,
    v: &mut B::Vector<S>,
    w: &mut B::Vector<S>,
    stop: Option<&dyn Fn(f64) -> bool>,
    patience: Option<usize>,
) -> Result<(Option<PowerEstimate>, usize)> {
    let (mut radius, mut last) = (0.0f64, 0.0f64);
    // Step and radius of the last growth by more than POWER_STALL.
    let (mut grown_at, mut grown_to) = (0usize, 0.0f64);
    let mut matvecs = 0;
    for j in 0..steps {
        op.apply(be, S::one(), v, S::zero(), w)?;
        matvecs += 1;
        let r = check_output(be, "power-iteration", j, w)?;
        last = r;
        radius = radius.max(r);
        if r == 0.0 {
            break;
        }
        if stop.is_some_and(|stop| stop(radius)) {
            return Ok((None, matvecs));
        }
        if radius > (1.0 + POWER_STALL) * grown_to {
            (grown_at, grown_to) = (j, radius);
        }
        if patience.is_some_and(|p| j >= grown_at + p) {
            break;
        }
        let inv = <S::Real as Scalar>::from_f64(1.0 / r);
        if !inv.as_f64().is_finite() {
            // ‖A x‖ below 1/max in this precision: as good as zero.
            break;
        }
        std::mem::swap(v, w);
        be.scale(S::from_f64(1.0 / r), v)?;
    }
    let r = (1.0 + margin) * radius;
    // Every eigenvalue has modulus ≤ ρ̂: the disc, enclosed in a box.
    let bounds = SpectralBounds {
        re_min: -r,
        re_max: r,
        im_min: -r,
        im_max: r,
    };
    let est = PowerEstimate {
        radius: r,
        raw_radius: radius,
        last_ratio: last,
        steps: matvecs,
        bounds,
    };
    Ok((Some(est), matvecs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{CpuBackend, DenseMatrixOperator};

    #[test]
    fn lanczos_encloses_a_diagonal_spectrum() {
        let n = 60;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = -(i as f64) * 3.0;
        }
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let cpu = CpuBackend::new();
        let (mut x, mut y, mut z) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (b, src, k) = estimate(&cpu, &op, [&mut x, &mut y, &mut z]).unwrap();
        assert_eq!(src, Estimator::Lanczos);
        assert!(k <= LANCZOS_STEPS);
        assert!(b.re_min <= -177.0 && b.re_max >= 0.0, "{b:?}");
        assert!(b.re_min > -190.0 && b.re_max < 5.0, "{b:?}");
        // The public entry point is the same estimate.
        let e = lanczos_bounds(&cpu, &op, &SpectrumOptions::default()).unwrap();
        assert_eq!((e.bounds, e.steps), (b, k));
    }

    #[test]
    fn power_box_holds_a_rotation() {
        let op = DenseMatrixOperator::new(2, 2, vec![0.0, -2.0, 2.0, 0.0]).unwrap();
        let cpu = CpuBackend::new();
        let (mut x, mut y, mut z) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
        let (b, src, _) = estimate(&cpu, &op, [&mut x, &mut y, &mut z]).unwrap();
        assert_eq!(src, Estimator::Power);
        assert!(b.im_max >= 2.0 && b.re_max >= 2.0 && b.im_min <= -2.0);
    }
}
