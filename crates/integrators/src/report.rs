//! What a call did.

/// Work and accuracy of one call (summed over output times and vectors where a call has
/// several).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Report {
    /// `"lanczos"`, `"arnoldi"` or `"taylor"`.
    pub method: &'static str,
    /// Operator applications (including those spent on error and norm estimation).
    pub matvecs: usize,
    /// Accepted substeps (Arnoldi), scaling steps s summed over intervals (Taylor), 1 per
    /// vector for Lanczos.
    pub substeps: usize,
    /// Rejected step-size trials (Arnoldi).
    pub rejected: usize,
    /// Largest Krylov dimension (Lanczos, Arnoldi) or Taylor degree m* (Taylor) used.
    pub krylov_dim: usize,
    /// Estimated absolute 2-norm error of the result (largest over vectors): Lanczos' a
    /// posteriori estimate at the final dimension (largest over output times), Arnoldi's
    /// local estimates summed over substeps, and for Taylor the relative sizes of the last
    /// series terms summed over steps, times ‖w‖. An estimate, not a bound.
    pub error_estimate: f64,
    /// Whether every estimate met the tolerance (false only with
    /// [`crate::LanczosOptions::allow_unconverged`]).
    pub converged: bool,
}

impl Report {
    pub(crate) fn new(method: &'static str) -> Self {
        Report {
            method,
            converged: true,
            ..Default::default()
        }
    }

    /// Adds another call's work (for blocks of vectors).
    pub(crate) fn merge(&mut self, o: &Report) {
        self.matvecs += o.matvecs;
        self.substeps += o.substeps;
        self.rejected += o.rejected;
        self.krylov_dim = self.krylov_dim.max(o.krylov_dim);
        self.error_estimate = self.error_estimate.max(o.error_estimate);
        self.converged &= o.converged;
    }
}
