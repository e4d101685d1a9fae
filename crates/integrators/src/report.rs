//! What a call did: one report for every method.

use crate::leja::BoundsSource;
use matexp_core::SpectralBounds;
use std::fmt;

/// Work and accuracy of one call of any f(tA)v method (summed over output times and vectors
/// where a call has several). It prints as one line:
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_integrators::{ExpmvMethod, Lanczos, LanczosOptions};
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
    /// `error_estimate` relative to the smallest ‖w‖₂ among the outputs (0 when the result is
    /// exact, ∞ when an output is zero and the estimate is not): the number to compare with
    /// `rtol`.
    pub rel_error_estimate: f64,
    /// The relative tolerance that was requested (after the default for the precision was
    /// filled in).
    pub rtol: f64,
    /// The absolute tolerance that was requested.
    pub atol: f64,
    /// Whether every estimate met the tolerance (false only with `allow_unconverged`).
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
        Ok(())
    }
}
