//! Spectral bounds for the focal interval, on any backend: given, from the operator (narrowed
//! by an estimate when not known to be tight, [`tighten`]), or estimated (Lanczos for
//! Hermitian operators, power iteration otherwise: the workspace's one estimator,
//! [`crate::spectrum`]).

use crate::spectrum::{Estimator, TIGHTEN_RATIO, box_width, intersect, narrow};
use matexp_core::{
    Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds, c64,
};

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
/// matrices 1), a loose one at most [`crate::spectrum::LANCZOS_STEPS`] products, or [`crate::spectrum::POWER_STEPS`] — the
/// power iteration also stops once its radius has grown by less than [`crate::spectrum::POWER_STALL`] over
/// [`crate::spectrum::POWER_PATIENCE`] steps (a random 12 × 12 matrix: 14 products, narrowed; skew-symmetric
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
    let (est, k) = narrow(be, op, given, scratch)?;
    let Some(est) = est else {
        return Ok((None, k));
    };
    check_bounds_finite(&est)?;
    let target = TIGHTEN_RATIO * box_width(given);
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

/// Estimated spectral bounds ([`crate::spectrum`]'s estimator with the methods' settings)
/// and the number of operator applications spent. The three scratch vectors (length n) are
/// overwritten.
pub(crate) fn estimate<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    scratch: [&mut B::Vector<S>; 3],
) -> Result<(SpectralBounds, BoundsSource, usize)> {
    let (b, by, k) = crate::spectrum::estimate(be, op, scratch)?;
    let source = match by {
        Estimator::Lanczos => BoundsSource::Lanczos,
        Estimator::Power => BoundsSource::Power,
    };
    Ok((b, source, k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{CpuBackend, DenseMatrixOperator};

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
        assert!(k <= crate::spectrum::LANCZOS_STEPS);
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
}
