//! Options of the Leja methods.

use crate::Tolerance;
use matexp_core::{Error, Result, Scalar, SpectralBounds};

pub use crate::options::{Progress, ProgressFn};

/// Which Leja algorithm runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LejaMethod {
    /// Substeps sized a priori from the convergence model, the stable divided differences,
    /// the two-term stopping rule (with the aliasing floor for oscillatory substeps), and
    /// halving of a substep that does not converge within [`LejaOptions::max_degree`]
    /// points. See the [module documentation](crate::leja).
    #[default]
    Adaptive,
    /// The 2011 GPU thesis's Algorithm 10, for reproducing its runs: `substeps` equal
    /// substeps, divided differences by the plain Newton recurrence, and the single-term
    /// test `|d_m|·‖y_m‖₂ < atol + rtol·‖v‖₂` (the thesis's `< tol` for unit `v`), at most
    /// [`LejaOptions::max_degree`] points per substep (500 in the thesis) and no recovery
    /// when they do not suffice. φ-functions are not part of it. Its report has `converged =
    /// false` always: the single-term test is a heuristic (the plain recurrence can pass it
    /// far from the result: error 0.7 at tol 1e−5 on seed 000's 3D Laplacian, N = 48,
    /// h = 0.1) and the substeps' errors add up (4.4e−5 at tol 1e−5 over 200 substeps on the
    /// spin bath), so a run of it never claims the tolerance.
    SeedFixed {
        /// Number of equal substeps (the thesis's `N`, step `h = T/N`).
        substeps: usize,
    },
}

crate::options::method_options!(LejaOptions, bounds);

/// Options of the Leja methods ([`crate::Leja`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LejaOptions {
    /// Requested accuracy at every output time: ‖w − f(tA)v‖₂ ≲ atol + rtol·‖f(tA)v‖₂, as
    /// estimated (see the stopping rule in the module documentation).
    pub tol: Tolerance,
    /// Most Leja points per substep (interpolation degree); default 128. At most
    /// `matexp_leja::TABLE_LEN − 1`.
    pub max_degree: usize,
    /// Most Leja points per substep where longer substeps save products: a real focal
    /// segment, a real model direction (diffusion or growth: the model degree grows like
    /// `√ρ`, so one substep of radius `ρ` costs fewer products than `k` of radius `ρ/k`),
    /// no φ-columns, double precision (in single the rounding of the long Newton recurrence
    /// reaches a 1e−5 tolerance), and a plan with `max_degree` that needs several substeps and enough
    /// work (products × rows ≥ 2²⁷) to repay the longer divided differences (at 513 points)
    /// and a one-time model search per process and tolerance (their host times:
    /// `bench-results/notes/tuning.md`). Default 512; a value at or below `max_degree` disables long substeps.
    /// Measured on the 3D Laplacian N = 64 at `|t|·‖A‖` = 7 900 (seed 000's Table 12
    /// radius), tol 1e−5: 1 290 products with `max_degree` 128 alone, 416 with 512.
    pub diffusion_max_degree: usize,
    /// Fraction of `max_degree` the a-priori substep length aims at; default 0.75. Lower
    /// values give shorter, safer substeps (more of them); 1 leaves no room for operators
    /// that converge slower than the model (non-normal ones).
    pub target_fraction: f64,
    /// Most substeps (accepted plus rejected) per call before giving up; default 100 000.
    pub max_substeps: usize,
    /// Most substep reductions per call (a halving after a substep did not converge within
    /// `max_degree` points, or one cut after rounding limited it); default 12.
    pub max_halvings: usize,
    /// Bounds of the spectrum to use instead of [`matexp_core::LinearOperator::spectral_bounds`]
    /// or an estimate (pass them when calling repeatedly with an operator that has none:
    /// the estimate costs up to 40 products per call).
    pub bounds: Option<SpectralBounds>,
    /// The algorithm.
    pub method: LejaMethod,
    /// Return the result reached at the caps with `converged = false` instead of
    /// [`Error::NoConvergence`].
    pub allow_unconverged: bool,
    /// Cost cap: most operator applications per call (estimates included); default
    /// unlimited. A call whose up-front estimate ([`crate::Report::cost_estimate`]) exceeds
    /// twice the cap is refused before any product, one that reaches the cap stops after
    /// the substep that reached it;
    /// both with [`Error::NoConvergence`] naming `max_products` (never a partial result,
    /// even with `allow_unconverged`).
    pub max_products: usize,
    /// Called after every accepted substep with the work done and the time reached.
    pub progress: Option<ProgressFn>,
}

impl Default for LejaOptions {
    fn default() -> Self {
        LejaOptions {
            tol: Tolerance::default(),
            max_degree: 128,
            diffusion_max_degree: 512,
            target_fraction: 0.75,
            max_substeps: 100_000,
            max_halvings: 12,
            bounds: None,
            method: LejaMethod::Adaptive,
            allow_unconverged: false,
            max_products: usize::MAX,
            progress: None,
        }
    }
}

impl LejaOptions {
    /// The thesis's fixed-substep method with `substeps` substeps, tolerance `tol` and up to
    /// 500 points per substep.
    pub fn seed_fixed(substeps: usize, tol: f64) -> Self {
        LejaOptions {
            tol: Tolerance::relative(tol),
            max_degree: 500,
            method: LejaMethod::SeedFixed { substeps },
            ..Default::default()
        }
    }

    /// Checks the options for scalar type `S`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the first option out of its domain.
    pub fn validate<S: Scalar>(&self) -> Result<()> {
        self.tol.validate::<S>()?;
        self.check()
    }

    fn check(&self) -> Result<()> {
        let table = matexp_leja::TABLE_LEN - 1;
        if !(2..=table).contains(&self.max_degree) {
            return Err(Error::invalid(
                "max_degree",
                self.max_degree,
                format!("must be in 2..={table} (the shipped Leja table)"),
            ));
        }
        if self.diffusion_max_degree > table {
            return Err(Error::invalid(
                "diffusion_max_degree",
                self.diffusion_max_degree,
                format!("must be at most {table} (the shipped Leja table)"),
            ));
        }
        if !(self.target_fraction > 0.0 && self.target_fraction <= 1.0) {
            return Err(Error::invalid(
                "target_fraction",
                self.target_fraction,
                "must be in (0, 1]",
            ));
        }
        if self.max_products == 0 {
            return Err(Error::invalid("max_products", 0, "must be ≥ 1"));
        }
        if self.max_substeps == 0 {
            return Err(Error::invalid("max_substeps", 0, "must be ≥ 1"));
        }
        if let LejaMethod::SeedFixed { substeps: 0 } = self.method {
            return Err(Error::invalid("substeps", 0, "must be ≥ 1"));
        }
        if let Some(b) = &self.bounds {
            super::focal::check_bounds(b, "LejaOptions::bounds")?;
        }
        Ok(())
    }
}
