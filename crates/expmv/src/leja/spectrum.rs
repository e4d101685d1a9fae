//! Spectral bounds for the focal interval, on any backend: given, from the operator (narrowed
//! by an estimate when not known to be tight, [`tighten`]), or estimated (Lanczos for
//! Hermitian operators, power iteration otherwise).
//!
//! The estimators mirror [`matexp_leja::lanczos_bounds`] and
//! [`matexp_leja::power_spectral_radius`] (same margins) but run on backend vectors, so that
//! a GPU operator is never copied to the host; only the starting vector is uploaded.

use matexp_core::{
    Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds, c64,
};

/// Lanczos steps of the estimate (fewer for smaller operators).
pub(crate) const LANCZOS_STEPS: usize = 40;
/// Relative widening of the Lanczos interval (of its width), as in `matexp-leja`.
pub(crate) const LANCZOS_MARGIN: f64 = 0.01;
/// Power-iteration steps of the estimate for non-Hermitian operators.
pub(crate) const POWER_STEPS: usize = 40;
/// Relative widening of the power-iteration radius.
pub(crate) const POWER_MARGIN: f64 = 0.05;
/// When narrowing a box ([`tighten`]), the power iteration stops once its radius has grown
/// by less than [`POWER_STALL`] (relative) over this many steps.
pub(crate) const POWER_PATIENCE: usize = 8;
/// See [`POWER_PATIENCE`].
pub(crate) const POWER_STALL: f64 = 0.005;

/// Where the bounds came from (for error messages and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundsSource {
    /// [`crate::LejaOptions::bounds`].
    Options,
    /// [`LinearOperator::spectral_bounds`].
    Operator,
    /// A Lanczos estimate (Hermitian operators).
    Lanczos,
    /// A power-iteration box (non-Hermitian operators).
    Power,
    /// [`LinearOperator::spectral_bounds`] (not [tight](LinearOperator::spectral_bounds_are_tight))
    /// intersected with a Lanczos interval (Hermitian operators) or a power-iteration disc
    /// (others), because the intersection was less than half as wide: see [`tighten`].
    Tightened,
    /// What a Krylov method saw rather than used, from its projected matrices. Lanczos:
    /// [θ_min, θ_max], the extreme Ritz values of its tridiagonal T_k (Sturm bisection),
    /// clipped to the operator's proven bounds where it has them. They are Rayleigh
    /// quotients, so for a Hermitian operator the interval lies inside [λ_min, λ_max]: an
    /// inner estimate that the spectrum may exceed, never the reverse (a negative-definite
    /// operator never shows a positive end). Arnoldi: the Gershgorin box of its Hessenberg
    /// matrices H_m (of every substep, united), which holds their Ritz values, intersected
    /// with the operator's proven bounds ([`LinearOperator::spectral_bounds`]) where it has
    /// them and with the real axis for a Hermitian operator. For Hermitian A that is an
    /// interval inside the proven one that contains the Ritz values (Rayleigh quotients,
    /// inside [λ_min, λ_max]) but may be wider than [λ_min, λ_max] by H's off-diagonal
    /// radii; for other A the Ritz values lie in the field of values, and the box is neither
    /// an inner nor an outer bound of the spectrum (it is inside the proven box, when there
    /// is one).
    Ritz,
}

/// A tightened box is used only when its width is below this fraction of the given box's.
pub(crate) const TIGHTEN_RATIO: f64 = 0.5;

/// Width of a box as the focal interval sees it: its longer side.
fn box_width(b: &SpectralBounds) -> f64 {
    (b.re_max - b.re_min).max(b.im_max - b.im_min)
}

/// `a ∩ b` (both enclose the spectrum, so the intersection does); `None` when empty (the
/// estimate contradicts the given box: keep the box).
fn intersect(a: &SpectralBounds, b: &SpectralBounds) -> Option<SpectralBounds> {
    let (re_min, re_max) = (a.re_min.max(b.re_min), a.re_max.min(b.re_max));
    let (im_min, im_max) = (a.im_min.max(b.im_min), a.im_max.min(b.im_max));
    (re_min <= re_max && im_min <= im_max).then_some(SpectralBounds {
        re_min,
        re_max,
        im_min,
        im_max,
    })
}

/// Narrows a box that is not known to be tight (a Gershgorin box) by measuring: the Lanczos
/// estimate for Hermitian operators, the power-iteration disc otherwise (the estimators and
/// margins of [`estimate`]), intersected with `given`. Returns the intersection when its
/// width is below [`TIGHTEN_RATIO`] times `given`'s, else `None`, and the products spent.
///
/// **Cost.** The estimators stop as soon as the intersection of `given` with what they have
/// already seen — the Ritz interval `[θ_min, θ_max]` without margins, or the largest ratio
/// `‖Ax‖/‖x‖` so far, both of which only grow with more steps — is at least half as wide as
/// `given`: a box that is nearly tight costs a few products (measured on the accuracy
/// suite: Laplacians and the Hermitian chain 2, a graph 6, Markov, upwind and nonnormal
/// matrices 1), a loose one at most [`LANCZOS_STEPS`] products, or [`POWER_STEPS`] — the
/// power iteration also stops once its radius has grown by less than [`POWER_STALL`] over
/// [`POWER_PATIENCE`] steps (a random 12 × 12 matrix: 14 products, narrowed; skew-symmetric
/// advection, n = 40: 12, not narrowed).
///
/// **Safety.** Ritz values lie inside `[λ_min, λ_max]`; the Lanczos interval is widened by
/// the residuals `|β_k s_{k,i}|` of the extreme Ritz pairs and by 1 % of its width. For a
/// normal operator the power ratios never exceed `ρ(A)` and reach it from below, so the 5 %
/// margin is what protects the disc; for a non-normal one the first ratios see `‖A‖`-sized
/// growth. Neither is a proof, as for [`estimate`] when the operator gives no box; Leja's
/// a-posteriori two-term test still sees components outside the focal ellipse (their Newton
/// terms do not decay) and shortens the substep. The intersection never leaves `given`.
pub(crate) fn tighten<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
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
    *v = be.upload(&start_vector::<S>(n))?;
    // `seen` is a box every later estimate contains: once its intersection with `given` is
    // at least `target` wide, no tightening can follow.
    let hopeless =
        |seen: &SpectralBounds| intersect(seen, given).is_none_or(|b| box_width(&b) >= target);
    let (est, k) = if op.is_hermitian() {
        lanczos(be, op, v, v_prev, w, &|lo, hi| {
            hopeless(&SpectralBounds {
                re_min: lo,
                re_max: hi,
                im_min: 0.0,
                im_max: 0.0,
            })
        })?
    } else {
        power(
            be,
            op,
            v,
            w,
            &|r| {
                let r = (1.0 + POWER_MARGIN) * r;
                hopeless(&SpectralBounds {
                    re_min: -r,
                    re_max: r,
                    im_min: -r,
                    im_max: r,
                })
            },
            Some(POWER_PATIENCE),
        )?
    };
    let Some(est) = est else {
        return Ok((None, k));
    };
    check_bounds_finite(&est)?;
    let narrowed = intersect(&est, given).filter(|b| box_width(b) < target);
    Ok((narrowed, k))
}

/// The error for an e^{τA}u that provably overflows the vector type, A Hermitian, from its
/// Rayleigh quotient ρ = uᴴAu/uᴴu: ‖e^{τA}u‖² = uᴴe^{2Re(τ)A}u = Σᵢ|cᵢ|²e^{2Re(τ)λᵢ} ≥
/// ‖u‖²·e^{2Re(τ)·ρ} (Jensen's inequality over the spectral weights |cᵢ|²/‖u‖²; e^{i·Im(τ)A}
/// is unitary and commutes). Where ln‖u‖ + Re(τ)·ρ − `slack` exceeds ln of the largest finite
/// value of `S`'s real type, no method can return the result: [`Error::NonFinite`] naming
/// `method`, the time, ρ and the bound, with `index` (the output). `slack` ≥ 0 is what the
/// caller's ρ and exponents may be off by (at least |Re τ| times the rounding of ρ). `None`
/// where the bound is in range or not finite. Nothing is proven for a non-Hermitian A (ρ is
/// then a point of the field of values, and ‖e^{τA}u‖ may lie below e^{Re(τ)·ρ}‖u‖): callers
/// check [`LinearOperator::is_hermitian`] first.
pub(crate) fn overflow_bound<S: Scalar>(
    method: &str,
    ln_norm: f64,
    tau: c64,
    rho: f64,
    slack: f64,
    index: usize,
) -> Option<Error> {
    let lower = ln_norm + tau.re * rho - slack;
    let ln_max = <S::Real as num_traits::Float>::max_value().as_f64().ln();
    if !(rho.is_finite() && lower.is_finite() && lower > ln_max) {
        return None;
    }
    Some(Error::NonFinite {
        context: format!(
            "{method}: e^{{tA}}v at t = {tau:e} overflows the {} range: ‖e^{{tA}}v‖ ≥ \
             ‖v‖·e^{{Re t·ρ}} with the Rayleigh quotient ρ = vᴴAv/vᴴv = {rho:.6e} (A \
             Hermitian), and ln of that bound, {lower:.6e}, exceeds ln max = {ln_max:.2}",
            S::NAME
        ),
        index,
        value: format!("‖e^{{tA}}v‖ ≥ e^{lower:.6e}"),
    })
}

/// [`overflow_bound`] for the state `u` (2-norm `unorm`) at the times τ of `taus` (the
/// first that overflows names its index), with ρ from one product (into `scratch`) and its
/// rounding n·ε·|Re τ|·‖Au‖/‖u‖. `Ok(None)`, without a product, for a non-Hermitian
/// operator, a zero or non-finite `u`, or times with Re τ = 0 (unitary evolutions).
pub(crate) fn proven_overflow<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    method: &str,
    be: &B,
    op: &O,
    u: &B::Vector<S>,
    unorm: f64,
    taus: &[c64],
    scratch: &mut B::Vector<S>,
) -> Result<Option<Error>> {
    if !(op.is_hermitian() && unorm > 0.0 && unorm.is_finite()) || taus.iter().all(|t| t.re == 0.0)
    {
        return Ok(None);
    }
    op.apply(be, S::one(), u, S::zero(), scratch)?;
    let rho = be.dot(u, scratch)?.re().as_f64() / unorm / unorm;
    let au = be.nrm2(scratch)?.as_f64() / unorm;
    let eps = S::Real::EPS.as_f64();
    let rounding = op.nrows().max(1) as f64 * eps * au;
    Ok(taus.iter().enumerate().find_map(|(i, &tau)| {
        overflow_bound::<S>(method, unorm.ln(), tau, rho, tau.re.abs() * rounding, i)
    }))
}

fn check_bounds_finite(b: &SpectralBounds) -> Result<()> {
    super::focal::check_bounds(b, "the estimate narrowing the operator's bounds")
}

/// A seeded unit vector (SplitMix64, uniform entries in [−1, 1)) on the host.
pub(crate) fn start_vector<S: Scalar>(n: usize) -> Vec<S> {
    let mut state: u64 = 0x6c65_6a61_7370_6563;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    };
    let mut v: Vec<S> = (0..n)
        .map(|_| {
            let re = next();
            let im = if S::IS_COMPLEX { next() } else { 0.0 };
            S::from_c64(c64::new(re, im))
        })
        .collect();
    let nrm = matexp_core::norms::nrm2(&v).as_f64();
    let inv = <S::Real as Scalar>::from_f64(1.0 / nrm);
    v.iter_mut().for_each(|x| *x = x.scale(inv));
    v
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

/// Estimated spectral bounds and the number of operator applications spent. The three
/// scratch vectors (length n) are overwritten.
pub(crate) fn estimate<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    scratch: [&mut B::Vector<S>; 3],
) -> Result<(SpectralBounds, BoundsSource, usize)> {
    let n = op.nrows();
    let [v, v_prev, w] = scratch;
    *v = be.upload(&start_vector::<S>(n))?;
    if op.is_hermitian() {
        let (b, k) = lanczos(be, op, v, v_prev, w, &|_, _| false)?;
        Ok((b.expect("never stopped early"), BoundsSource::Lanczos, k))
    } else {
        let (b, k) = power(be, op, v, w, &|_| false, None)?;
        Ok((b.expect("never stopped early"), BoundsSource::Power, k))
    }
}

fn lanczos<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    v: &mut B::Vector<S>,
    v_prev: &mut B::Vector<S>,
    w: &mut B::Vector<S>,
    stop: &dyn Fn(f64, f64) -> bool,
) -> Result<(Option<SpectralBounds>, usize)> {
    let n = op.nrows();
    let k_max = LANCZOS_STEPS.min(n);
    let eps = S::Real::EPS.as_f64();
    let (mut alpha, mut beta) = (Vec::with_capacity(k_max), Vec::with_capacity(k_max));
    let (mut beta_prev, mut beta_last) = (0.0f64, 0.0f64);
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
        let scale = (beta_prev * beta_prev + a * a + b * b).sqrt();
        if b <= 8.0 * eps * scale || j + 1 == k_max {
            break;
        }
        // The Ritz interval only grows with more steps: ask whether it already says enough.
        if j >= 1 {
            let ritz = matexp_leja::symmetric_tridiagonal_eigen(&alpha, &beta)?;
            if stop(ritz.values[0], ritz.values[j]) {
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
    let eig = matexp_leja::symmetric_tridiagonal_eigen(&alpha, &beta)?;
    let (lo, hi) = (eig.values[0], eig.values[k - 1]);
    let res_lo = (beta_last * eig.vector(0)[k - 1]).abs();
    let res_hi = (beta_last * eig.vector(k - 1)[k - 1]).abs();
    let magnitude = lo.abs().max(hi.abs());
    let width = if hi > lo { hi - lo } else { magnitude };
    let widen = LANCZOS_MARGIN * width + 2.0 * k as f64 * eps * magnitude;
    let b = SpectralBounds {
        re_min: lo - res_lo - widen,
        re_max: hi + res_hi + widen,
        im_min: 0.0,
        im_max: 0.0,
    };
    Ok((Some(b), matvecs))
}

fn power<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    v: &mut B::Vector<S>,
    w: &mut B::Vector<S>,
    stop: &dyn Fn(f64) -> bool,
    patience: Option<usize>,
) -> Result<(Option<SpectralBounds>, usize)> {
    let mut radius = 0.0f64;
    // Step and radius of the last growth by more than POWER_STALL.
    let (mut grown_at, mut grown_to) = (0usize, 0.0f64);
    let mut matvecs = 0;
    for j in 0..POWER_STEPS {
        op.apply(be, S::one(), v, S::zero(), w)?;
        matvecs += 1;
        let r = check_output(be, "power-iteration", j, w)?;
        radius = radius.max(r);
        if r == 0.0 {
            break;
        }
        if stop(radius) {
            return Ok((None, matvecs));
        }
        if radius > (1.0 + POWER_STALL) * grown_to {
            (grown_at, grown_to) = (j, radius);
        }
        if patience.is_some_and(|p| j >= grown_at + p) {
            break;
        }
        std::mem::swap(v, w);
        be.scale(S::from_f64(1.0 / r), v)?;
    }
    let r = (1.0 + POWER_MARGIN) * radius;
    // Every eigenvalue has modulus ≤ ρ̂: the disc, enclosed in a box.
    let b = SpectralBounds {
        re_min: -r,
        re_max: r,
        im_min: -r,
        im_max: r,
    };
    Ok((Some(b), matvecs))
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
        assert_eq!(src, BoundsSource::Lanczos);
        assert!(k <= LANCZOS_STEPS);
        assert!(b.re_min <= -177.0 && b.re_max >= 0.0, "{b:?}");
        assert!(b.re_min > -190.0 && b.re_max < 5.0, "{b:?}");
    }

    #[test]
    fn tighten_narrows_a_loose_box_and_gives_up_early_on_a_tight_one() {
        let cpu = CpuBackend::new();
        let n = 30;
        // Star graph (hub 0, 29 leaves): spectrum ±√29 and 0, Gershgorin [−29, 29].
        let mut a = vec![0.0; n * n];
        for i in 1..n {
            a[i] = 1.0;
            a[i * n] = 1.0;
        }
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let given = SpectralBounds::real(-29.0, 29.0).unwrap();
        let (mut x, mut y, mut z) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (b, k) = tighten(&cpu, &op, &given, [&mut x, &mut y, &mut z]).unwrap();
        let b = b.expect("narrowed");
        let r = 29f64.sqrt();
        assert!(
            b.re_min <= -r && b.re_max >= r && b.re_max < 1.2 * r,
            "{b:?}"
        );
        assert!(k <= LANCZOS_STEPS);
        // The 1D Laplacian tridiag(1, −2, 1): Gershgorin [−4, 0] is nearly its spectrum.
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            l[i * n + i] = -2.0;
            if i + 1 < n {
                l[i * n + i + 1] = 1.0;
                l[(i + 1) * n + i] = 1.0;
            }
        }
        let op = DenseMatrixOperator::new(n, n, l).unwrap();
        let given = SpectralBounds::real(-4.0, 0.0).unwrap();
        let (b, k) = tighten(&cpu, &op, &given, [&mut x, &mut y, &mut z]).unwrap();
        assert!(b.is_none() && k <= 4, "{b:?} after {k} products");
    }

    #[test]
    fn power_box_holds_a_rotation() {
        let op = DenseMatrixOperator::new(2, 2, vec![0.0, -2.0, 2.0, 0.0]).unwrap();
        let cpu = CpuBackend::new();
        let (mut x, mut y, mut z) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
        let (b, src, _) = estimate(&cpu, &op, [&mut x, &mut y, &mut z]).unwrap();
        assert_eq!(src, BoundsSource::Power);
        assert!(b.im_max >= 2.0 && b.re_max >= 2.0 && b.im_min <= -2.0);
    }
}
