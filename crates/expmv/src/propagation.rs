//! How far the rest of the propagation carries an error committed on the way.
//!
//! Every method commits errors along the way — the rounding of v, of each product, of each
//! substep's state — and an error δ committed at time s reaches the output as e^{(t−s)A}δ.
//! The methods' own estimates measure each error where it is made, relative to the state
//! there; they see what the propagation does to it only where e^{(t−s)A} amplifies δ no more
//! than it amplifies the state. Where it amplifies δ more — a non-normal A whose entries
//! cancel in e^{tA}v (the Pascal matrix times a vector of alternating sign: entries up to
//! 10¹⁷, a result of norm 1), or a Hermitian A and a v nearly free of the slowest-decaying
//! mode, which rounding then brings in — the output's error is about
//! ε·‖e^{tA}‖₂·‖v‖₂ while its norm is ‖e^{tA}v‖₂, and no estimate made along the way sees it.
//!
//! [`certify`] adds that term to each output's estimate:
//! [`ROUNDING_FACTOR`]·ε·(1 + products)·G(tᵢ)·‖v‖₂ with G(t) ≈ ‖e^{tA}‖₂, and for a
//! non-Hermitian A multiplies the method's own estimate by κ = max(1, G(tᵢ)·‖v‖₂/‖wᵢ‖₂), the
//! factor by which the propagation may amplify an error beyond the state's own growth (the
//! Leja substeps of the Pascal matrix of order 10 accumulate 2.2 times the error they
//! measured). G comes from the cheapest source that suffices:
//!
//! 1. a bound: ‖e^{tA}‖₂ ≤ e^{max(t·lo, t·hi)} for real t and λ(H) ⊂ [lo, hi], H = (A + Aᴴ)/2
//!    ([`LinearOperator::hermitian_part_bounds`]; for Hermitian A, H = A, and the imaginary
//!    part of t only rotates). Free, and enough for dissipative and unitary problems.
//!    For Hermitian A the bound needs the extreme eigenvalues to within about 1/t, so it is
//!    taken only from the Ritz values the method saw (Lanczos), from bounds the operator says
//!    are tight, or for imaginary times (G = 1); otherwise the term is left out;
//! 2. where the bound is too loose to certify the tolerance for a non-Hermitian A, a probe:
//!    the same method at a loose tolerance on a seeded random unit vector r,
//!    G ≈ ‖e^{tA}r‖₂. Rounding errors are not aligned with A's worst direction, and a random
//!    vector measures what the propagation does to a generic one, which is what an error
//!    committed on the way is (about one extra solve, spent only on operators that can
//!    amplify).
//!
//! The products spent here count in the report's `matvecs` and `estimate_matvecs`.

use crate::leja::BoundsSource;
use crate::options::{ROUNDING_FACTOR, Tolerance};
use crate::report::Report;
use crate::times::split_rays;
use matexp_core::{Backend, LinearOperator, RealScalar, Result, Scalar};

/// Below this fraction of the tolerance the bound's term is taken as it is: refining it
/// could lower the estimate but not change the verdict.
const CERTIFY_FRACTION: f64 = 0.1;

/// The relative tolerance of the probe solve: only the magnitude of ‖e^{tA}r‖ is needed.
pub(crate) const PROBE_RTOL: f64 = 1e-2;

/// Raises `report`'s output estimates by the propagated-rounding term (module docs) for the
/// outputs `out[i]` = e^{tᵢA}v. Costs a norm per vector where the operator's bound suffices.
///
/// # Errors
///
/// Those of the backend's norms and of the refinement's products, except a probe that does
/// not converge (the bound then stands, which may be ∞: `converged = false`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn certify<B, S, O>(
    be: &B,
    tol: Tolerance,
    amplified_factor: f64,
    op: &O,
    times: &[S],
    v: &B::Vector<S>,
    out: &[B::Vector<S>],
    mut report: Report,
    prober: Option<&mut Prober<'_, B, S>>,
) -> Result<Report>
where
    B: Backend,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    let vnorm = be.nrm2(v)?.as_f64();
    if !(vnorm.is_finite() && vnorm > 0.0) || out.len() != times.len() {
        return Ok(report);
    }
    let norms: Vec<f64> = out
        .iter()
        .map(|w| Ok(be.nrm2(w)?.as_f64()))
        .collect::<Result<_>>()?;
    let unit = ROUNDING_FACTOR * S::Real::EPS.as_f64() * (1 + report.matvecs) as f64 * vnorm;
    let suffices = |g: &[f64]| {
        g.iter()
            .zip(&norms)
            .all(|(&g, &w)| unit * g <= CERTIFY_FRACTION * threshold(tol, w))
    };
    let hermitian = op.is_hermitian();
    let (g, amplifying) = if hermitian {
        (hermitian_growth(&report, op, times), false)
    } else {
        let bounded = bound(op, times);
        if bounded.as_deref().is_some_and(suffices) {
            (bounded, false)
        } else {
            let probed = match prober {
                Some(run) => probe(be, op, times, &mut report, run)?,
                None => None,
            };
            let g = match (bounded, probed) {
                (Some(b), Some(p)) => b.iter().zip(&p).map(|(b, p)| b.min(*p)).collect(),
                (None, Some(p)) => p,
                (b, None) => b.unwrap_or_else(|| vec![f64::INFINITY; times.len()]),
            };
            (Some(g), true)
        }
    };
    let Some(g) = g else {
        return Ok(report);
    };
    let mut est = report.per_output(times.len()).into_owned();
    for ((e, g), w) in est.iter_mut().zip(&g).zip(&norms) {
        if !hermitian && *e > 0.0 {
            // The method's own estimate sums errors measured relative to the state where
            // they were made; a non-normal propagation may amplify them by up to
            // κ = ‖e^{tA}‖·‖v‖/‖e^{tA}v‖ relative to the state's own growth. (For Hermitian A
            // the errors in the slow modes decay with the state, and κ measured from the
            // start would only repeat v's share of the slowest mode.)
            let mut kappa = (g * vnorm / w).max(1.0);
            if amplifying {
                kappa *= amplified_factor;
            }
            *e = if kappa.is_finite() {
                *e * kappa
            } else {
                f64::INFINITY
            };
        }
        let term = unit * g;
        *e = e.max(if term.is_nan() { f64::INFINITY } else { term });
    }
    report.output_estimates = est;
    Ok(report)
}

/// rtol·‖w‖ + atol, the error a converged output may have.
fn threshold(tol: Tolerance, w: f64) -> f64 {
    tol.rtol * w + tol.atol
}

/// e^{max(Re t·lo, Re t·hi)}: ‖e^{tA}‖₂ for λ(H) ⊂ [lo, hi] where t is real or A is Hermitian.
fn growth<S: Scalar>(t: S, lo: f64, hi: f64) -> f64 {
    let re = t.to_c64().re;
    (re * lo).max(re * hi).exp()
}

/// The bound of step 1 for a non-Hermitian operator, or `None` where it gives no bounds on
/// its Hermitian part or a time is complex.
fn bound<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    op: &O,
    times: &[S],
) -> Option<Vec<f64>> {
    if times.iter().any(|t| t.to_c64().im != 0.0) {
        return None;
    }
    let (lo, hi) = op.hermitian_part_bounds()?;
    Some(times.iter().map(|t| growth(*t, lo, hi)).collect())
}

/// G(t) = e^{max(Re t·λ_min, Re t·λ_max)} for a Hermitian operator, from the extreme
/// eigenvalues as far as they are known without further products: 1 for imaginary times
/// (e^{−iτH} is unitary), the Ritz values the method saw (Lanczos), or bounds the operator
/// says are tight. `None` otherwise: a loose end of a Gershgorin interval (0 for a Laplacian
/// whose slowest mode decays) would claim an amplification the decay of every mode excludes,
/// and narrowing it to within 1/t takes more products than the solve.
fn hermitian_growth<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    report: &Report,
    op: &O,
    times: &[S],
) -> Option<Vec<f64>> {
    if times.iter().all(|t| t.to_c64().re == 0.0) {
        return Some(vec![1.0; times.len()]);
    }
    let (lo, hi) = match report.bounds {
        Some((b, BoundsSource::Ritz)) => (b.re_min, b.re_max),
        _ if op.spectral_bounds_are_tight() => {
            let b = op.spectral_bounds()?;
            (b.re_min, b.re_max)
        }
        _ => return None,
    };
    Some(times.iter().map(|t| growth(*t, lo, hi)).collect())
}

/// The probe's solve: `(scale, sorted times, r, outputs)` ↦ the outputs e^{scale·tⱼA}r and
/// the report, by the method itself at [`PROBE_RTOL`] (the caller builds it).
pub(crate) type Prober<'p, B, S> = dyn FnMut(S, &[f64], &<B as Backend>::Vector<S>, &mut [<B as Backend>::Vector<S>]) -> Result<Report>
    + 'p;

/// Step 2 for a non-Hermitian operator: ‖e^{tᵢA}r‖₂ for a seeded random unit r; `None` when
/// the probe does not converge or overflows (∞ is then the honest growth).
fn probe<B, S, O>(
    be: &B,
    op: &O,
    times: &[S],
    report: &mut Report,
    run: &mut Prober<'_, B, S>,
) -> Result<Option<Vec<f64>>>
where
    B: Backend,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    let n = op.nrows();
    let mut r = be.zeros(n)?;
    matexp_core::seeded_unit(be, &mut r, crate::spectrum::DEFAULT_SEED)?;
    let mut outs = (0..times.len())
        .map(|_| be.alloc(n))
        .collect::<Result<Vec<_>>>()?;
    let rays = split_rays(times)?;
    let mut spent = 0;
    let result = rays.run(&mut outs, |scale, rs, o| {
        let rep = run(scale, rs, &r, o)?;
        spent += rep.matvecs;
        Ok(())
    });
    report.matvecs += spent;
    report.estimate_matvecs += spent;
    match result {
        Ok(()) => Ok(Some(
            outs.iter()
                .map(|x| Ok(be.nrm2(x)?.as_f64()))
                .collect::<Result<_>>()?,
        )),
        Err(_) => Ok(None),
    }
}
