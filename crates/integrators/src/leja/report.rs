//! What a Leja call did.

use super::spectrum::BoundsSource;
use crate::Report;
use matexp_core::SpectralBounds;

/// Work and accuracy of one Leja call (summed over output times and vectors).
#[derive(Debug, Clone, PartialEq)]
pub struct LejaReport {
    /// `"leja"` (adaptive) or `"leja-seed"` (the thesis's fixed substeps).
    pub method: &'static str,
    /// Operator applications, including rejected substeps and the spectral estimate.
    pub matvecs: usize,
    /// Accepted substeps.
    pub substeps: usize,
    /// Substeps that did not converge within `max_degree` points and were halved.
    pub rejected: usize,
    /// Degree (points − 1) of every accepted substep, in order (vectors one after another).
    pub degrees: Vec<usize>,
    /// Largest degree used.
    pub max_degree: usize,
    /// Estimated absolute 2-norm error of the result: the accepted substeps' estimates
    /// summed over the whole time range (largest over vectors). An estimate, not a bound.
    pub error_estimate: f64,
    /// Whether every substep met its tolerance (false only with `allow_unconverged`).
    pub converged: bool,
    /// The spectral bounds used and where they came from.
    pub bounds: Option<(SpectralBounds, BoundsSource)>,
    /// Operator applications spent on the spectral estimate (included in `matvecs`).
    pub estimate_matvecs: usize,
}

impl LejaReport {
    pub(crate) fn new(method: &'static str) -> Self {
        LejaReport {
            method,
            matvecs: 0,
            substeps: 0,
            rejected: 0,
            degrees: Vec::new(),
            max_degree: 0,
            error_estimate: 0.0,
            converged: true,
            bounds: None,
            estimate_matvecs: 0,
        }
    }

    /// Adds another call's work (for blocks of vectors).
    pub(crate) fn merge(&mut self, o: &LejaReport) {
        self.matvecs += o.matvecs;
        self.substeps += o.substeps;
        self.rejected += o.rejected;
        self.degrees.extend_from_slice(&o.degrees);
        self.max_degree = self.max_degree.max(o.max_degree);
        self.error_estimate = self.error_estimate.max(o.error_estimate);
        self.converged &= o.converged;
        self.estimate_matvecs += o.estimate_matvecs;
        if self.bounds.is_none() {
            self.bounds = o.bounds;
        }
    }

    /// The summary in the form the Krylov and Taylor methods report
    /// (`krylov_dim` holds the largest interpolation degree).
    pub fn summary(&self) -> Report {
        Report {
            method: self.method,
            matvecs: self.matvecs,
            substeps: self.substeps,
            rejected: self.rejected,
            krylov_dim: self.max_degree,
            error_estimate: self.error_estimate,
            converged: self.converged,
        }
    }
}
