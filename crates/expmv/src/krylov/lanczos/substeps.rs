//! Substeps of Lanczos for a large τ‖A‖: e^{τA}v = e^{θ_s τA}⋯e^{θ_1 τA}v with fractions
//! θ_i > 0, Σθ_i = 1, each substep a Lanczos run from the previous result (Expokit's
//! step-size control, Sidje 1998, with Lanczos' own dimension growth inside a substep).
//!
//! **When.** Only for a single output e^{τA}v (not φ-functions, not several times, which
//! share one basis), when [`LanczosOptions::max_substeps`] > 1 and `allow_unconverged` is off
//! (it asks for the result at `max_dim`), and when either the
//! Hochbruck–Lubich prediction for the oscillatory part of τ (Im τ; sharp, 2134 products for
//! 2500 predicted on the tight-binding chain) exceeds `max_dim` (< n) before the first
//! product, or a run reaches `max_dim` without meeting the tolerance. The products of that run
//! are not lost: its T_k is kept and the first substep takes the fraction of τ it can carry.
//!
//! **Tolerance shares.** A substep of fraction θ must meet
//! err_i ≤ θ·(atol + rtol·‖w_i‖), w_i its result. The error made in substep i reaches the
//! end multiplied by e^{(1 − θ_1 − … − θ_i)τA}, whose norm is 1 for imaginary τ (A
//! Hermitian: unitary) and at most 1 for real τ with A ≤ 0. In the unitary case ‖w_i‖ =
//! ‖v‖ = ‖result‖, so the errors add up to Σθ_i·(atol + rtol·‖result‖) = atol +
//! rtol·‖result‖: the tolerance of the whole call. For real τ the sum is bounded by
//! atol + rtol·max_i‖w_i‖ (the largest intermediate norm, above ‖result‖ for a decaying
//! solution; the errors decay with the solution where they lie in the same eigenmodes).
//! [`Report::error_estimate`] is Σ err_i.
//!
//! **Step size.** With W the width of the spectrum (the operator's bounds, otherwise the
//! Gershgorin interval of the first T_k), θ is the largest fraction of what is left whose
//! predicted dimension ([`predicted_dim`] at τθ and share θ·rtol) is at most `max_dim`,
//! corrected by the ratio of predicted to actual dimension measured on the previous
//! substep. A substep that still reaches `max_dim` is cut: the largest θ' < θ whose
//! estimate on the T_k built meets the share θ'·tol is found (a guess from the prediction
//! for the Gershgorin width of T_k, then bisection; O(k²) per trial) and taken, so no
//! product is discarded.
//!
//! **Cost.** For e^{−iτH}v the dimension of one run grows like |τ|‖H‖; substeps need more
//! products than one run of that dimension (each substep pays the start-up of its own Krylov
//! space, and its share θ·tol is tighter), but O(n·max_dim) memory and O(max_dim²) per check
//! instead of O(n·|τ|‖H‖) and O((|τ|‖H‖)²), so once the O(k²) checks dominate, substeps take
//! less time for more products. Oscillatory substeps after the first make their first
//! convergence check at 3/4 of the dimension the previous one needed (they need about the
//! same), which saves checks and a few products. Measured on a tight-binding chain:
//! `bench-results/notes/tuning.md`, "expmv: Lanczos substeps".

use super::{Func, Lanczos, Tridiagonal, predicted_dim};
use crate::krylov::small::{Coefficients, exp_coefficients};
use crate::{LanczosOptions, Progress, Reorthogonalize, Report, Tolerance};
use matexp_core::{Error, KrylovBackend, LinearOperator, RealScalar, Result, Scalar, c64};
use matexp_dense::symmetric_tridiagonal_eigenvalues;

/// The share θ·tol of a substep of fraction θ.
fn share(tol: &Tolerance, theta: f64) -> Tolerance {
    let mut t = *tol;
    t.rtol *= theta;
    t.atol *= theta;
    t
}

/// Largest fraction θ ≤ `left` of τ whose predicted Krylov dimension at share θ·rtol is at
/// most `target` (bisection; `left` itself when it fits).
pub(super) fn planned_fraction(width: f64, tau: c64, rtol: f64, left: f64, target: f64) -> f64 {
    let fits = |theta: f64| predicted_dim(width, tau * theta, rtol * theta) as f64 <= target;
    if fits(left) {
        return left;
    }
    let (mut lo, mut hi) = (0.0, left);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if lo > 0.0 { lo } else { hi * 1e-3 }
}

/// The Gershgorin interval of T_k.
pub(super) fn gershgorin(alpha: &[f64], beta: &[f64], k: usize) -> (f64, f64) {
    (0..k).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| {
        let below = if i > 0 { beta[i - 1] } else { 0.0 };
        let above = if i + 1 < k { beta[i] } else { 0.0 };
        let r = below + above;
        (lo.min(alpha[i] - r), hi.max(alpha[i] + r))
    })
}

/// Bound of ‖e^{σA}‖ = max e^{Re(σλ)} over λ in [lo, hi] (1 for imaginary σ).
fn growth(sigma: c64, (lo, hi): (f64, f64)) -> f64 {
    (sigma.re * lo).max(sigma.re * hi).exp()
}

/// The state of a substep march (see the module docs): the call's τ and options, the
/// plan's width and target dimension, the current vector and its norm, and what the
/// substeps so far have done.
struct Substeps<V> {
    tau: c64,
    /// The caller's options (`self.opts` holds each substep's share).
    opts: LanczosOptions,
    /// The Krylov dimension a substep is planned for: `max_dim`, at most n.
    target: f64,
    /// The width of the spectrum, once known.
    width: Option<f64>,
    /// The unconverged first run over the whole τ, taken by the first substep.
    first: Option<Tridiagonal>,
    cur: V,
    next: V,
    /// ‖cur‖.
    nrm: f64,
    /// Fraction of τ done.
    done: f64,
    /// Error estimates summed.
    err_sum: f64,
    /// Predicted/actual dimension.
    scale: f64,
    /// Each substep's estimate and the fraction done after it, for the propagated sum.
    errors: Vec<(f64, f64)>,
    /// From the smallest to the largest Ritz value seen (the spectrum as far as known).
    interval: (f64, f64),
    /// Substeps taken.
    count: usize,
    /// The reorthogonalization of the next substep's run.
    reorth: Reorthogonalize,
    /// Largest fraction for the next substep after a T_k that carried none.
    cap: f64,
    /// Dimension of the last accepted substep.
    last_k: usize,
}

impl<V> Substeps<V> {
    /// The up-front estimate where the width is known: equal substeps at the planned
    /// fraction; a cost over the cap is refused before the first product.
    fn up_front_estimate(&self, report: &mut Report) -> Result<()> {
        let Some(w) = self.width else {
            return Ok(());
        };
        let (opts, tau) = (self.opts, self.tau);
        let theta = planned_fraction(w, tau, opts.tol.rtol, 1.0, self.target);
        let k = predicted_dim(w, tau * theta, opts.tol.rtol * theta).min(opts.max_dim);
        report.cost_estimate = (1.0 / theta).ceil() as usize * k;
        // Refused only when planned before the first product (an oscillatory τ, whose
        // bound is sharp; the decay bound overestimates several-fold).
        if self.first.is_none() && report.cost_estimate / 2 > opts.max_products {
            return Err(Error::NoConvergence {
                method: "lanczos",
                detail: format!(
                    "cost cap max_products = {} refused after {} products: about {} are \
                     needed ({} substeps of Krylov dimension {k} for a spectrum of width \
                     {w:.3e})",
                    opts.max_products,
                    report.matvecs,
                    report.cost_estimate,
                    (1.0 / theta).ceil()
                ),
            });
        }
        Ok(())
    }
}

impl<B: KrylovBackend, S: Scalar> Lanczos<'_, B, S> {
    /// Whether a call for these targets may take substeps (not with `allow_unconverged`,
    /// which asks for the result at `max_dim`, e.g. the graph crate's fixed dimension).
    pub(super) fn substeps_allowed(&self, targets: &[(Func, c64)]) -> bool {
        self.opts.max_substeps > 1
            && !self.opts.allow_unconverged
            && targets.len() == 1
            && targets[0].0 == Func::Exp
    }

    /// Whether the oscillatory part of the prediction for the whole τ (spectral width
    /// `width`) exceeds `max_dim` while `max_dim` < n (at n the basis is invariant, so no
    /// substep is needed). The decay part is left to the run itself: its bound overestimates
    /// several-fold (456 predicted, 135 needed on Table 12's twin in `lanczos_estimate.rs`), so
    /// planning on it would split runs that fit in `max_dim`.
    pub(super) fn predicts_substeps(&self, width: f64, tau: c64, n: usize) -> bool {
        let oscillation = c64::new(0.0, tau.im);
        self.opts.max_dim < n
            && predicted_dim(width, oscillation, self.opts.tol.rtol) > self.opts.max_dim
    }

    /// `out` ← e^{τA}v by substeps (see the module docs). `first`: the unconverged T_k of a
    /// run over the whole τ from v (α, β still in place, its basis in one-pass storage or
    /// regenerable from v), whose products are already in `report`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn substeps<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        tau: c64,
        v: &B::Vector<S>,
        beta0: f64,
        width: Option<f64>,
        first: Option<Tridiagonal>,
        out: &mut B::Vector<S>,
        report: &mut Report,
    ) -> Result<()> {
        let saved = self.opts;
        let result = self.substeps_inner(op, tau, v, beta0, width, first, out, report);
        self.opts = saved;
        self.partial_at_max_dim = false;
        self.first_check = 0;
        result
    }

    /// The substep march: the state set up from v and the first run, the up-front cost
    /// estimate, then substeps until the whole τ is done, and the propagated error sum.
    #[allow(clippy::too_many_arguments)]
    fn substeps_inner<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        tau: c64,
        v: &B::Vector<S>,
        beta0: f64,
        width: Option<f64>,
        first: Option<Tridiagonal>,
        out: &mut B::Vector<S>,
        report: &mut Report,
    ) -> Result<()> {
        let be = self.backend;
        let opts: LanczosOptions = self.opts;
        let n = self.n;
        let mut cur = be.zeros::<S>(n)?;
        let next = be.zeros::<S>(n)?;
        be.copy(v, &mut cur)?;
        let mut st = Substeps {
            tau,
            opts,
            target: opts.max_dim.min(n) as f64,
            width,
            first,
            cur,
            next,
            nrm: beta0,
            done: 0.0,
            err_sum: 0.0,
            scale: 1.0,
            errors: Vec::new(),
            interval: (f64::INFINITY, f64::NEG_INFINITY),
            count: 0,
            // A first run that restarted with reorthogonalization: the substeps start with it.
            reorth: if report.reorthogonalized_from.is_some() && !opts.two_pass {
                Reorthogonalize::Always
            } else {
                opts.reorthogonalization
            },
            cap: f64::INFINITY,
            last_k: 0,
        };
        st.up_front_estimate(report)?;
        while st.done < 1.0 {
            if st.count >= opts.max_substeps {
                return Err(Error::NoConvergence {
                    method: "lanczos",
                    detail: format!(
                        "max_substeps = {} reached at t = {:.6e}·τ after {} products (estimated \
                         error so far {:.3e}); raise max_substeps or max_dim",
                        opts.max_substeps, st.done, report.matvecs, st.err_sum
                    ),
                });
            }
            let left = 1.0 - st.done;
            let (tri, theta, coeffs) = self.substep_run(op, &mut st, left, report)?;
            let Some((theta, c)) = self.carried(&mut st, tri.k, theta, coeffs, report)? else {
                continue;
            };
            self.accept_substep(op, &mut st, &tri, theta, c, left, report)?;
            if st.nrm == 0.0 {
                break;
            }
        }
        be.copy(&st.cur, out)?;
        report.substeps = st.count;
        // Σ err_i·‖e^{(1 − t_i)τA}‖, the norm taken over the Ritz interval (exactly 1 for
        // imaginary τ; for real τ an estimate, the extreme Ritz values being at most
        // slightly inside the spectrum).
        report.error_estimate = st
            .errors
            .iter()
            .map(|&(e, t)| {
                if e == 0.0 {
                    0.0
                } else {
                    e * growth(tau * (1.0 - t), st.interval)
                }
            })
            .sum();
        report.converged = true;
        Ok(())
    }

    /// One substep's Lanczos run over the fraction `left` of τ still to do: the first run's
    /// T_k where there is one, otherwise a run from the current vector at the planned
    /// fraction and its share of the tolerance. Returns T_k, the fraction and, when the run
    /// converged, its coefficients.
    fn substep_run<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        st: &mut Substeps<B::Vector<S>>,
        left: f64,
        report: &mut Report,
    ) -> Result<(Tridiagonal, f64, Option<Coefficients>)> {
        let (opts, tau, done) = (st.opts, st.tau, st.done);
        if let Some(tri) = st.first.take() {
            return Ok((tri, left, None));
        }
        let last_fraction = |theta: f64| {
            if theta >= left * (1.0 - 1e-12) {
                left
            } else {
                theta
            }
        };
        let theta = match st.width {
            Some(w) => last_fraction(
                planned_fraction(w, tau, opts.tol.rtol, left, (st.target * st.scale).max(1.0))
                    .min(st.cap),
            ),
            None => left,
        };
        let budget = opts.max_products.saturating_sub(report.matvecs);
        if budget == 0 {
            return Err(self.cap_error(&opts, report, done, st.err_sum));
        }
        self.opts.tol = share(&opts.tol, theta);
        self.opts.reorthogonalization = st.reorth;
        // Progress is reported per substep, in `accept_substep`.
        self.opts.progress = None;
        self.opts.max_products = budget;
        self.partial_at_max_dim = true;
        // Oscillatory substeps are planned alike and need about the same
        // dimension: no check before 3/4 of the last one's (the small problems of
        // the early checks are spared). Decaying ones vary (the state smooths), so
        // they keep the usual schedule.
        if tau.im.abs() >= tau.re.abs() {
            self.first_check = st.last_k * 3 / 4;
        }
        // A nonzero estimate keeps `build` from planning (and refusing) anew.
        let mut sub = Report::new("lanczos");
        sub.cost_estimate = 1;
        let built = self.build(op, &[(Func::Exp, tau * theta)], &st.cur, st.nrm, &mut sub);
        report.matvecs += sub.matvecs;
        if let Some(i) = sub.reorthogonalized_from {
            // Auto found the loss of orthogonality harmful on this operator: the
            // later substeps reorthogonalize from their first step (sparing the
            // steps a restart redoes).
            report.reorthogonalized_from = report.reorthogonalized_from.or(Some(i));
            st.reorth = Reorthogonalize::Always;
        }
        let (tri, coeffs) = match built {
            Ok(b) => b,
            Err(Error::NoConvergence { detail, .. }) => {
                return Err(Error::NoConvergence {
                    method: "lanczos",
                    detail: format!(
                        "substep {} at t = {done:.6e}·τ (products left of \
                         max_products = {}: {budget}): {detail}",
                        st.count + 1,
                        opts.max_products
                    ),
                });
            }
            Err(e) => return Err(e),
        };
        let c = sub.converged.then(|| coeffs.into_iter().next()).flatten();
        Ok((tri, theta, c))
    }

    /// The fraction a substep's T_k (of dimension `k`, run for `theta`) carries: `theta`
    /// when it converged, otherwise the cut; `None` when no fraction passes, after which the
    /// next try is planned smaller.
    fn carried(
        &self,
        st: &mut Substeps<B::Vector<S>>,
        k: usize,
        theta: f64,
        coeffs: Option<Coefficients>,
        report: &mut Report,
    ) -> Result<Option<(f64, Coefficients)>> {
        if let Some(c) = coeffs {
            return Ok(Some((theta, c)));
        }
        if let Some(cut) = self.cut(st.tau, &st.opts.tol, st.nrm, theta, k)? {
            return Ok(Some(cut));
        }
        // No fraction passes on this T_k (the rounding floor of its estimate
        // is above the share of every fraction it carries): its products are
        // spent, and the next try is planned from the width, at most a
        // quarter of this one.
        report.rejected += 1;
        if report.rejected > 40 {
            return Err(Error::NoConvergence {
                method: "lanczos",
                detail: format!(
                    "substeps: 40 tries at t = {:.6e}·τ met no fraction of \
                     the time (the estimate's rounding floor is above the \
                     tolerance's share); loosen the tolerance or raise max_dim",
                    st.done
                ),
            });
        }
        if st.width.is_none() {
            let (lo, hi) = gershgorin(&self.alpha, &self.beta, k);
            st.width = Some(hi - lo);
        }
        st.cap = theta / 4.0;
        Ok(None)
    }

    /// An accepted substep of fraction `theta` with coefficients `c` on T_k: the width and
    /// the estimate of the whole call where they were unknown, the Ritz interval and the
    /// prediction's ratio for the next plan, the result e^{θτA}·cur into `cur`, its error
    /// recorded, and the progress report.
    #[allow(clippy::too_many_arguments)]
    fn accept_substep<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        st: &mut Substeps<B::Vector<S>>,
        tri: &Tridiagonal,
        theta: f64,
        c: Coefficients,
        left: f64,
        report: &mut Report,
    ) -> Result<()> {
        let (be, opts, tau, k) = (self.backend, st.opts, st.tau, tri.k);
        st.cap = f64::INFINITY;
        let (lo, hi) = gershgorin(&self.alpha, &self.beta, k);
        if st.width.is_none() {
            // Known now: the estimate of the whole call, from the products so far and
            // equal substeps over what is left at the step this T_k suggests.
            let w = hi - lo;
            st.width = Some(w);
            let rest = 1.0 - st.done - theta;
            if rest > 0.0 {
                let t = planned_fraction(w, tau, opts.tol.rtol, rest, k as f64);
                report.cost_estimate = report.matvecs + (rest / t).ceil() as usize * k;
            }
        }
        // The extreme Ritz values (inside the spectrum, the outer ones converging first):
        // for the norm of e^{sA} that carries this substep's error to the end.
        let ritz = symmetric_tridiagonal_eigenvalues(&self.alpha[..k], &self.beta[..k - 1])?;
        if let (Some(&a), Some(&b)) = (ritz.first(), ritz.last()) {
            st.interval = (st.interval.0.min(a), st.interval.1.max(b));
        }
        if let Some(w) = st.width {
            // The prediction's error on this operator, for the next step's plan (the
            // Hochbruck–Lubich bound for decay overestimates by orders of magnitude).
            let predicted = predicted_dim(w, tau * theta, opts.tol.rtol * theta) as f64;
            st.scale = (predicted / k as f64).clamp(0.05, 1e6);
        }
        self.accumulate(
            op,
            tri,
            std::slice::from_ref(&c),
            &st.cur,
            st.nrm,
            std::slice::from_mut(&mut st.next),
            report,
        )?;
        st.err_sum += c.abs_error(st.nrm);
        st.errors
            .push((c.abs_error(st.nrm), (st.done + theta).min(1.0)));
        std::mem::swap(&mut st.cur, &mut st.next);
        st.nrm = be.nrm2(&st.cur)?.as_f64();
        st.done += theta;
        if theta == left {
            st.done = 1.0;
        }
        st.count += 1;
        report.max_degree = report.max_degree.max(k);
        st.last_k = k;
        if st.done < 1.0 {
            if let Some(cb) = opts.progress {
                (cb.0)(&Progress {
                    products: report.matvecs,
                    estimated_products: report.cost_estimate,
                    fraction: st.done,
                });
            }
        }
        Ok(())
    }

    /// The largest fraction θ' < `theta` that T_k (just built, not converged at share
    /// θ·tol) carries within the share θ'·tol, with its coefficients; `None` where no
    /// fraction down to 2⁻¹²× the first guess passes.
    fn cut(
        &self,
        tau: c64,
        tol: &Tolerance,
        nrm: f64,
        theta: f64,
        k: usize,
    ) -> Result<Option<(f64, Coefficients)>> {
        let eval = |t: f64| -> Result<Option<Coefficients>> {
            let share = share(tol, t);
            let c = exp_coefficients(&self.alpha, &self.beta, k, tau * t, false, &share, None)?;
            Ok(c.converged(&share, nrm).then_some(c))
        };
        let (lo, hi) = gershgorin(&self.alpha, &self.beta, k);
        let w = hi - lo;
        let mut lo = planned_fraction(w, tau, tol.rtol, theta, k as f64).min(0.9 * theta);
        let mut hi = theta;
        let mut best = None;
        // Shrink the guess until it passes (12 halvings: below that the rounding floor of the
        // estimate, which does not shrink with θ, is what fails), then bisect (in log θ)
        // towards the failure.
        for _ in 0..12 {
            if let Some(c) = eval(lo)? {
                best = Some(c);
                break;
            }
            hi = lo;
            lo *= 0.5;
        }
        let Some(mut best) = best else {
            return Ok(None);
        };
        for _ in 0..6 {
            if hi / lo < 1.05 {
                break;
            }
            let mid = (lo * hi).sqrt();
            match eval(mid)? {
                Some(c) => {
                    lo = mid;
                    best = c;
                }
                None => hi = mid,
            }
        }
        Ok(Some((lo, best)))
    }

    fn cap_error(&self, opts: &LanczosOptions, report: &Report, done: f64, err: f64) -> Error {
        Error::NoConvergence {
            method: "lanczos",
            detail: format!(
                "cost cap max_products = {} reached at t = {done:.6e}·τ (estimated error so far \
                 {err:.3e}; estimated up front: {} products)",
                opts.max_products, report.cost_estimate
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planned_fraction_fits_the_target() {
        let tau = c64::new(0.0, -1.0);
        let theta = planned_fraction(1e4, tau, 1e-8, 1.0, 400.0);
        assert!(theta > 0.0 && theta < 1.0);
        assert!(predicted_dim(1e4, tau * theta, 1e-8 * theta) <= 400);
        assert!(predicted_dim(1e4, tau * (theta * 1.01), 1e-8 * theta * 1.01) > 400);
        assert_eq!(planned_fraction(10.0, tau, 1e-8, 0.5, 400.0), 0.5);
    }
}
