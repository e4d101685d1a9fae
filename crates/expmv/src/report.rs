//! What a call did: one report for every method.

use crate::Tolerance;
use crate::leja::BoundsSource;
use matexp_core::SpectralBounds;
use std::fmt;

/// Work and accuracy of one call of any f(tA)v method (summed over output times and vectors
/// where a call has several). It prints as one line:
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ExpmvMethod, Lanczos, LanczosOptions};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![-2.0, 1.0, 1.0, -2.0])?;
/// let mut lz = Lanczos::new(&cpu, LanczosOptions::default())?;
/// let mut w = vec![0.0; 2];
/// let report = lz.expmv(&op, 1.0, &vec![1.0, 0.0], &mut w)?;
/// let line = report.to_string();
/// assert!(line.starts_with("lanczos: 2 products") && line.contains("rtol 1.0e-8"));
/// assert!(report.rel_error_estimate <= report.rtol);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// **The rule.** Every output w_i of a call (each output time, each φ_j of `phimv`, each
/// column or vector of a block) has its own absolute estimate e_i ≈ ‖w_i − f_i(A)v‖₂
/// ([`Report::output_estimates`]): the method's estimate for that output, never below the
/// rounding floor [`crate::ROUNDING_FACTOR`]·ε·(1 + products)·‖w_i‖₂. The output meets the
/// tolerance when e_i ≤ atol + rtol·‖w_i‖₂, i.e. when e_i/(‖w_i‖₂ + atol/rtol) ≤ rtol. The
/// report gives the worst of these relative estimates, and
///
/// `converged` ⇔ `rel_error_estimate` = max_i e_i/(‖w_i‖₂ + atol/rtol) ≤ `rtol`,
///
/// in every report of every method and output kind. A method that stopped without meeting
/// its own stopping test (at its caps with `allow_unconverged`, or the thesis's fixed
/// substeps, whose test bounds nothing) reports `converged = false`; its relative estimate is
/// then at least just above `rtol` even where the number it computed is smaller, since that
/// number did not pass the method's test. Where the rounding floor exceeds the tolerance
/// (tolerances near the unit roundoff, or many products), the result is returned with
/// `converged = false`: no amount of work in the same precision would certify it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// `"leja"`, `"leja-seed"` (the thesis's fixed substeps), `"lanczos"`, `"arnoldi"` or
    /// `"taylor"`.
    pub method: &'static str,
    /// Operator applications, including those spent on estimates (spectral bounds, norms,
    /// error estimates) and on rejected substeps.
    pub matvecs: usize,
    /// Operator applications spent on estimating the spectrum (Leja) or the norm (Taylor);
    /// included in `matvecs`.
    pub estimate_matvecs: usize,
    /// Accepted substeps (Leja, Arnoldi), scaling steps s summed over intervals (Taylor), 1
    /// per vector for Lanczos unless a large τ‖A‖ splits e^{τA}v into substeps.
    pub substeps: usize,
    /// Rejected step-size trials (Arnoldi), halved substeps (Leja), or Lanczos substeps whose
    /// Krylov basis carried no fraction of the time (its products spent).
    pub rejected: usize,
    /// Largest degree of the polynomial in A that was used: the Krylov dimension (Lanczos,
    /// Arnoldi), the Taylor degree m* (Taylor) or the interpolation degree (Leja).
    pub max_degree: usize,
    /// Degree of every accepted substep, in order (Leja only; empty for the others).
    pub degrees: Vec<usize>,
    /// Estimated absolute 2-norm error of the result (largest over vectors and output
    /// times): Lanczos' a posteriori estimate at the final dimension (with substeps: their
    /// estimates, each times ‖e^{sA}‖ over the rest s of the time, summed), Arnoldi's and Leja's
    /// local estimates summed over substeps, Taylor's relative sizes of the last series terms
    /// summed over steps times ‖w‖ (Leja adds ε·Σ_j|d_j|·‖y_j‖, the rounding of its Newton
    /// sums), and never below the rounding floor [`crate::ROUNDING_FACTOR`]·ε·(1 +
    /// products)·‖w‖. An estimate, not a proven bound: it bounded the achieved error in
    /// 98 % of the converged runs of the accuracy suite (`bench-results/accuracy/`).
    pub error_estimate: f64,
    /// The worst relative estimate over the outputs, in the scale of the tolerance:
    /// max_i e_i / (‖w_i‖₂ + atol/rtol), where e_i is the absolute estimate of output i
    /// ([`Report::output_estimates`]) and w_i that output (each time, each φ_j, each column
    /// is an output of its own). With `atol = 0` it is the largest e_i/‖w_i‖₂. It is 0 when
    /// every e_i is 0, and ∞ when an output with e_i > 0 has ‖w_i‖₂ + atol/rtol = 0 or is not
    /// finite. See the rule on [`Report`].
    pub rel_error_estimate: f64,
    /// The absolute estimate e_i of each output, in the order of the outputs (per time, per
    /// φ_j, per column), each raised to its rounding floor; `error_estimate` is the largest.
    pub output_estimates: Vec<f64>,
    /// The relative tolerance that was requested (after the default for the precision was
    /// filled in).
    pub rtol: f64,
    /// The absolute tolerance that was requested.
    pub atol: f64,
    /// Whether every output met the tolerance by its estimate: e_i ≤ atol + rtol·‖w_i‖₂ for
    /// every i, which is `rel_error_estimate ≤ rtol` (see the rule on [`Report`]).
    pub converged: bool,
    /// Up-front estimate of the products of the call (Leja: the planned substeps times the
    /// degree they aim at, before the first product, spectral estimate not included;
    /// Taylor: Σ s·m* plus the norm estimate, an upper bound, before the first series
    /// product; Lanczos: the predicted Krylov dimension, before the first product when the
    /// operator bounds its spectrum; Arnoldi: the planned substeps times m + 1, after the
    /// first basis; 0 where none was made). See each method for its measured accuracy.
    pub cost_estimate: usize,
    /// The spectral bounds used and where they came from (Leja and Taylor), or for the
    /// Krylov methods the box their projected matrices showed ([`BoundsSource::Ritz`]).
    pub bounds: Option<(SpectralBounds, BoundsSource)>,
    /// Lanczos: the first step from which the basis was reorthogonalized (`Some(0)` with
    /// [`crate::Reorthogonalize::Always`], the restart point where the estimated loss of
    /// orthogonality passed min(√ε, rtol) with `Auto`), the smallest over bases and substeps;
    /// `None` where it never was.
    pub reorthogonalized_from: Option<usize>,
    /// Methods that refused the call before `method` answered it (the facade's
    /// `Method::Auto` fallback), in the order they were tried; empty otherwise. Their
    /// products are not in `matvecs`.
    pub declined: Vec<&'static str>,
}

impl Report {
    pub(crate) fn new(method: &'static str) -> Self {
        Report {
            method,
            converged: true,
            ..Default::default()
        }
    }

    /// Adds another call's work: products, substeps and rejections add up, degrees and
    /// error estimates take the largest, `converged` holds if it held for both (for blocks
    /// of vectors and φ_j computed one after another).
    pub fn merge(&mut self, o: &Report) {
        self.matvecs += o.matvecs;
        self.cost_estimate += o.cost_estimate;
        self.estimate_matvecs += o.estimate_matvecs;
        self.substeps += o.substeps;
        self.rejected += o.rejected;
        self.degrees.extend_from_slice(&o.degrees);
        self.max_degree = self.max_degree.max(o.max_degree);
        self.error_estimate = self.error_estimate.max(o.error_estimate);
        // The other call's outputs follow this one's (blocks of vectors, φ_j one after
        // another, rays of times): its estimates follow too.
        self.output_estimates
            .extend_from_slice(o.per_output(o.output_estimates.len().max(1)).as_ref());
        self.rel_error_estimate = self.rel_error_estimate.max(o.rel_error_estimate);
        self.converged &= o.converged;
        if self.bounds.is_none() {
            self.bounds = o.bounds;
        }
        self.reorthogonalized_from = match (self.reorthogonalized_from, o.reorthogonalized_from) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// The absolute estimate of each of `count` outputs: [`Report::output_estimates`] when
    /// the method gave one per output, otherwise `error_estimate` for each (the largest
    /// over the outputs, so never smaller than the output's own).
    pub(crate) fn per_output(&self, count: usize) -> std::borrow::Cow<'_, [f64]> {
        if self.output_estimates.len() == count {
            std::borrow::Cow::Borrowed(&self.output_estimates)
        } else {
            std::borrow::Cow::Owned(vec![self.error_estimate; count])
        }
    }

    /// Completes the report for outputs of 2-norms `norms` under tolerance `tol`: the
    /// per-output estimates (raised to the rounding floor `ROUNDING_FACTOR·eps·(1 +
    /// products)·‖w_i‖₂` when `floor_eps` is given), their largest absolute value, the worst
    /// relative estimate and `converged`, so that the rule on [`Report`] holds. `converged`
    /// on entry is the method's own verdict (false: its stopping test failed).
    pub(crate) fn conclude(&mut self, norms: &[f64], tol: Tolerance, floor_eps: Option<f64>) {
        self.rtol = tol.rtol;
        self.atol = tol.atol;
        let mut est = self.per_output(norms.len()).into_owned();
        if let Some(eps) = floor_eps {
            let products = (1 + self.matvecs) as f64;
            for (e, &w) in est.iter_mut().zip(norms) {
                if w.is_finite() {
                    *e = e.max(crate::options::ROUNDING_FACTOR * eps * products * w);
                }
            }
        }
        // ‖w‖ + atol/rtol: e ≤ atol + rtol·‖w‖ ⇔ e/(‖w‖ + atol/rtol) ≤ rtol (rtol > 0 for a
        // resolved tolerance; an unresolved zero leaves only the absolute part).
        let shift = if tol.rtol > 0.0 {
            tol.atol / tol.rtol
        } else {
            f64::INFINITY
        };
        let mut rel = 0.0f64;
        for (&e, &w) in est.iter().zip(norms) {
            let r = if e == 0.0 {
                0.0
            } else if w.is_finite() && w + shift > 0.0 {
                e / (w + shift)
            } else {
                f64::INFINITY
            };
            rel = rel.max(r);
        }
        if let Some(worst) = est.iter().copied().reduce(f64::max) {
            self.error_estimate = worst;
        }
        self.output_estimates = est;
        let met = rel <= tol.rtol;
        if !self.converged && met {
            // The method's own test failed: its number is not below the tolerance.
            rel = tol.rtol * (1.0 + f64::EPSILON);
        }
        self.converged = self.converged && met;
        self.rel_error_estimate = rel;
    }

    /// The same report (kept for callers of the former Leja-specific summary).
    pub fn summary(&self) -> Report {
        self.clone()
    }
}

impl fmt::Display for Report {
    /// `method: N products (E for estimates), S substeps (R rejected), degree ≤ D; estimated
    /// relative error e (rtol r[, atol a]); converged|NOT converged; spectrum in [a, b] (source)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} products", self.method, self.matvecs)?;
        if self.estimate_matvecs > 0 {
            write!(f, " ({} for estimates)", self.estimate_matvecs)?;
        }
        write!(f, ", {} substeps", self.substeps)?;
        if self.rejected > 0 {
            write!(f, " ({} rejected)", self.rejected)?;
        }
        write!(
            f,
            ", degree ≤ {}; estimated relative error {:.1e} (rtol {:.1e}",
            self.max_degree, self.rel_error_estimate, self.rtol
        )?;
        if self.atol > 0.0 {
            write!(f, ", atol {:.1e}", self.atol)?;
        }
        write!(
            f,
            "); {}",
            if self.converged {
                "converged"
            } else {
                "NOT converged"
            }
        )?;
        if let Some((b, source)) = &self.bounds {
            write!(f, "; spectrum in [{:.4e}, {:.4e}]", b.re_min, b.re_max)?;
            if !b.is_real() {
                write!(f, " × i[{:.4e}, {:.4e}]", b.im_min, b.im_max)?;
            }
            write!(f, " ({source:?})")?;
        }
        if let Some(i) = self.reorthogonalized_from {
            write!(f, "; reorthogonalized from step {i}")?;
        }
        if !self.declined.is_empty() {
            write!(f, "; after {} declined", self.declined.join(", "))?;
        }
        Ok(())
    }
}
