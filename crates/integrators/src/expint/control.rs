//! Options, step-size control and the report of the exponential integrators.

use super::{PhiMethod, Scheme};
use matexp_core::{Error, Result, Scalar};
use matexp_expmv::Tolerance;

/// How the steps are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stepping {
    /// `steps` equal steps `h = (t₁ − t₀)/steps`.
    Fixed {
        /// Number of steps (≥ 1).
        steps: usize,
    },
    /// Steps chosen by [`Controller`] from the embedded error estimate so that the estimated
    /// local error of every accepted step is at most [`ExpIntOptions::tol`].
    Adaptive {
        /// First trial step; `None`: 1% of the interval.
        h0: Option<f64>,
        /// Smallest step before giving up with [`Error::NoConvergence`].
        h_min: f64,
        /// Largest step.
        h_max: f64,
    },
}

/// The PI step-size controller (Hairer & Wanner, *Solving ODEs II*, §IV.2, (2.43c)):
/// after a step with error norm `err_n` (≤ 1 accepted), the next step is
/// `h·clamp(safety · err_n^{−α} · err_{n−1}^{β}, fac_min, fac_max)` with `α = k_i/k`,
/// `β = k_p/k`, `k` = embedded order + 1 (the order of the estimate). After a rejection the
/// integral part alone is used and the next step may not grow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Controller {
    /// Safety factor; default 0.9.
    pub safety: f64,
    /// Smallest step ratio; default 0.2.
    pub fac_min: f64,
    /// Largest step ratio; default 5.
    pub fac_max: f64,
    /// Integral gain; default 0.7 (Hairer–Wanner's PI choice; 1 with `k_p = 0` is the
    /// elementary controller).
    pub k_i: f64,
    /// Proportional gain; default 0.4.
    pub k_p: f64,
}

impl Default for Controller {
    fn default() -> Self {
        Controller {
            safety: 0.9,
            fac_min: 0.2,
            fac_max: 5.0,
            k_i: 0.7,
            k_p: 0.4,
        }
    }
}

impl Controller {
    /// The factor for the next step after an accepted (`err ≤ 1`) or rejected step.
    pub fn factor(&self, err: f64, err_prev: f64, order_of_estimate: u32, accepted: bool) -> f64 {
        let k = order_of_estimate as f64;
        let err = err.max(1e-10);
        let f = if accepted {
            self.safety * err.powf(-self.k_i / k) * err_prev.max(1e-4).powf(self.k_p / k)
        } else {
            self.safety * err.powf(-1.0 / k)
        };
        let hi = if accepted { self.fac_max } else { 1.0 };
        f.clamp(self.fac_min, hi)
    }

    fn validate(&self) -> Result<()> {
        let ok = self.safety > 0.0
            && self.safety <= 1.0
            && self.fac_min > 0.0
            && self.fac_min < 1.0
            && self.fac_max > 1.0
            && self.fac_max.is_finite()
            && self.k_i > 0.0
            && self.k_p >= 0.0
            && self.k_p.is_finite()
            && self.k_i.is_finite();
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(
                "controller",
                format!("{self:?}"),
                "needs 0 < safety ≤ 1, 0 < fac_min < 1 < fac_max < ∞, k_i > 0, k_p ≥ 0",
            ))
        }
    }
}

/// Options of [`super::ExpIntegrator`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpIntOptions {
    /// The scheme; default [`Scheme::Exprb32`].
    pub scheme: Scheme,
    /// The solver of the φ-combinations; default [`PhiMethod::Leja`].
    pub phi: PhiMethod,
    /// Local error per step for adaptive stepping: `‖est‖₂ ≤ atol + rtol·‖u‖₂` (norms of the
    /// whole vector: scale `atol` by √n for a per-component meaning). Default rtol = 1e−5.
    pub tol: Tolerance,
    /// Accuracy of each φ-combination; `None`: `tol` / 10 (the φ-error must stay below the
    /// local error the controller sees, or the estimate measures the φ-solver).
    pub phi_tol: Option<Tolerance>,
    /// Fixed or adaptive steps; default adaptive.
    pub stepping: Stepping,
    /// The step-size controller.
    pub controller: Controller,
    /// Most steps (accepted and rejected) before [`Error::NoConvergence`]; default 100 000.
    pub max_steps: usize,
}

impl Default for ExpIntOptions {
    fn default() -> Self {
        ExpIntOptions {
            scheme: Scheme::default(),
            phi: PhiMethod::default(),
            tol: Tolerance::new(1e-5, 0.0),
            phi_tol: None,
            stepping: Stepping::Adaptive {
                h0: None,
                h_min: 1e-12,
                h_max: f64::INFINITY,
            },
            controller: Controller::default(),
            max_steps: 100_000,
        }
    }
}

impl ExpIntOptions {
    /// The tolerance handed to the φ-solver.
    pub fn phi_tolerance(&self) -> Tolerance {
        self.phi_tol.unwrap_or_else(|| {
            let (atol, rtol) = parts(&self.tol);
            Tolerance::new(rtol / 10.0, atol / 10.0)
        })
    }

    pub(crate) fn validate<S: Scalar>(&self) -> Result<()> {
        self.tol.resolve::<S>()?;
        self.phi_tolerance().resolve::<S>()?;
        self.controller.validate()?;
        if self.max_steps == 0 {
            return Err(Error::invalid("max_steps", 0, "must be at least 1"));
        }
        match self.stepping {
            Stepping::Fixed { steps: 0 } => Err(Error::invalid("steps", 0, "must be at least 1")),
            Stepping::Fixed { .. } => Ok(()),
            Stepping::Adaptive { h0, h_min, h_max } => {
                if self.scheme.embedded_order().is_none() {
                    return Err(Error::invalid(
                        "stepping",
                        "Adaptive",
                        format!(
                            "{} has no error estimate: use fixed steps",
                            self.scheme.name()
                        ),
                    ));
                }
                if let Some(h0) = h0 {
                    if !(h0 > 0.0 && h0.is_finite()) {
                        return Err(Error::invalid("h0", h0, "must be positive and finite"));
                    }
                }
                if !(h_min > 0.0 && h_min <= h_max) || h_max.is_nan() {
                    return Err(Error::invalid(
                        "h_min",
                        h_min,
                        format!("needs 0 < h_min ≤ h_max = {h_max}"),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// (atol, rtol) of a tolerance.
pub(crate) fn parts(tol: &Tolerance) -> (f64, f64) {
    let atol = tol.bound(0.0);
    (atol, tol.bound(1.0) - atol)
}

/// What an integration did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ExpIntReport {
    /// The scheme's name.
    pub scheme: &'static str,
    /// Accepted steps.
    pub steps: usize,
    /// Rejected steps.
    pub rejected: usize,
    /// φ-combinations evaluated (solver calls).
    pub phi_calls: usize,
    /// Products with `A` or the Jacobian inside the φ-solvers (a product with a
    /// difference Jacobian also costs one evaluation of `g`).
    pub matvecs: usize,
    /// Evaluations of `g` outside the φ-solvers (stages, remainders, differences).
    pub g_evals: usize,
    /// Largest estimated local error norm of an accepted step (relative to the tolerance:
    /// ≤ 1), 0 for fixed steps without estimate.
    pub max_error_ratio: f64,
    /// Smallest and largest accepted step.
    pub h_min: f64,
    /// Largest accepted step.
    pub h_max: f64,
}

impl ExpIntReport {
    pub(crate) fn new(scheme: Scheme) -> Self {
        ExpIntReport {
            scheme: scheme.name(),
            h_min: f64::INFINITY,
            ..Default::default()
        }
    }
}
