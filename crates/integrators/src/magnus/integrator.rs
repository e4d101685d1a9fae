//! Magnus steps and the fixed or adaptive march.

use super::generators::{Combination, GaussMagnus};
use super::propagator::{ExpMethod, Propagator};
use crate::expint::Controller;
use matexp_core::{AtTime, Backend, Error, RealScalar, Result, Scalar, TimeDependentOperator};
use matexp_expmv::Tolerance;
use matexp_expmv::checks;
use std::sync::Mutex;

/// A Magnus-type integrator for `ψ' = −iH(t)ψ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MagnusScheme {
    /// Exponential midpoint `ψ_{n+1} = e^{−ihH(t_n + h/2)}ψ_n`: order 2, one exponential of
    /// `H` per step.
    Midpoint,
    /// Fourth-order Gauss–Magnus `ψ_{n+1} = e^{−iM}ψ_n`,
    /// `M = (h/2)(H₁ + H₂) − i(√3h²/12)[H₂, H₁]`, `H_j = H(t_n + c_j h)`,
    /// `c_{1,2} = ½ ∓ √3/6`; the commutator is matrix-free, so each product with `M`
    /// costs four with `H`. One exponential per step.
    #[default]
    Gauss4,
    /// Commutator-free CF4:2 (Blanes & Moan, Appl. Numer. Math. 56 (2006) 1519–1537;
    /// Alvermann & Fehske, J. Comput. Phys. 230 (2011) 5930–5956):
    /// `ψ_{n+1} = e^{−ih(α₂H₁ + α₁H₂)} e^{−ih(α₁H₁ + α₂H₂)} ψ_n`, `α_{1,2} = ¼ ± √3/6`,
    /// same nodes: order 4, two exponentials per step of two-product combinations.
    CommutatorFree4,
}

impl MagnusScheme {
    /// The order.
    pub fn order(self) -> u32 {
        match self {
            MagnusScheme::Midpoint => 2,
            MagnusScheme::Gauss4 | MagnusScheme::CommutatorFree4 => 4,
        }
    }

    /// Products with `H` per product with the exponent.
    fn products_per_apply(self) -> usize {
        match self {
            MagnusScheme::Midpoint => 1,
            MagnusScheme::Gauss4 => 4,
            MagnusScheme::CommutatorFree4 => 2,
        }
    }

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            MagnusScheme::Midpoint => "exponential midpoint",
            MagnusScheme::Gauss4 => "Gauss-Magnus 4",
            MagnusScheme::CommutatorFree4 => "CF4:2",
        }
    }
}

/// How the Magnus steps are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MagnusStepping {
    /// `steps` equal steps.
    Fixed {
        /// Number of steps (≥ 1).
        steps: usize,
    },
    /// Step doubling: each step of size `h` is also taken as two of size `h/2`;
    /// `‖ψ_{h/2,h/2} − ψ_h‖₂/(2^p − 1)` estimates the local error of the two half steps,
    /// which are kept when it is at most `tol.atol + tol.rtol·‖ψ‖₂`. Steps by the
    /// [`Controller`] with `k = p + 1`. Cost: three step evaluations per accepted step.
    Adaptive {
        /// Local error per step.
        tol: Tolerance,
        /// First trial step; `None`: 1% of the interval.
        h0: Option<f64>,
        /// Smallest step before [`Error::NoConvergence`].
        h_min: f64,
        /// Largest step.
        h_max: f64,
    },
}

/// Options of [`Magnus`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MagnusOptions {
    /// The scheme; default [`MagnusScheme::Gauss4`].
    pub scheme: MagnusScheme,
    /// The solver of the exponentials; default [`ExpMethod::Lanczos`].
    pub method: ExpMethod,
    /// Accuracy of each exponential `e^{−iτM}v` (default rtol 1e−10); the norm of `ψ` is
    /// preserved to about this accuracy per step.
    pub exp_tol: Tolerance,
    /// Fixed or adaptive steps; default 100 fixed steps.
    pub stepping: MagnusStepping,
    /// The step-size controller of adaptive stepping.
    pub controller: Controller,
    /// Most step attempts before [`Error::NoConvergence`]; default 1 000 000.
    pub max_steps: usize,
}

impl Default for MagnusOptions {
    fn default() -> Self {
        MagnusOptions {
            scheme: MagnusScheme::default(),
            method: ExpMethod::default(),
            exp_tol: Tolerance::new(1e-10, 0.0),
            stepping: MagnusStepping::Fixed { steps: 100 },
            controller: Controller {
                k_p: 0.0,
                k_i: 1.0,
                ..Default::default()
            },
            max_steps: 1_000_000,
        }
    }
}

/// What a Magnus integration did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MagnusReport {
    /// The scheme's name.
    pub scheme: &'static str,
    /// Accepted steps.
    pub steps: usize,
    /// Rejected steps (adaptive).
    pub rejected: usize,
    /// Exponentials `e^{−iτM}v` computed.
    pub exponentials: usize,
    /// Products with `H(t)`.
    pub matvecs: usize,
    /// Largest estimated local error relative to the tolerance (adaptive; ≤ 1).
    pub max_error_ratio: f64,
    /// Smallest accepted step.
    pub h_min: f64,
    /// Largest accepted step.
    pub h_max: f64,
}

/// A Magnus integrator on one backend with its workspace. See the
/// [module documentation](super).
pub struct Magnus<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    n: usize,
    opts: MagnusOptions,
    prop: Propagator<'a, B, S>,
    tmp: B::Vector<S>,
    /// ψ after one step and after two half steps (adaptive).
    pair: Option<(B::Vector<S>, B::Vector<S>)>,
    scratch: Option<(B::Vector<S>, B::Vector<S>)>,
}

const GAUSS_OFFSET: f64 = 0.288_675_134_594_812_9; // √3/6

impl<B: Backend, S: Scalar> std::fmt::Debug for Magnus<'_, B, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Magnus")
            .field("backend", &self.backend)
            .field("n", &self.n)
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

impl<'a, B: matexp_core::KrylovBackend, S: Scalar> Magnus<'a, B, S> {
    /// A workspace for Hamiltonians of order `n`.
    ///
    /// # Errors
    /// `Unsupported` for real scalars; `InvalidArgument` for invalid options.
    pub fn new(backend: &'a B, n: usize, opts: MagnusOptions) -> Result<Self> {
        opts.exp_tol.resolve::<S>()?;
        match opts.stepping {
            MagnusStepping::Fixed { steps: 0 } => {
                return Err(Error::invalid("steps", 0, "must be at least 1"));
            }
            MagnusStepping::Adaptive {
                tol,
                h0,
                h_min,
                h_max,
            } => {
                tol.resolve::<S>()?;
                if !(h_min > 0.0 && h_min <= h_max)
                    || h0.is_some_and(|h| !(h > 0.0 && h.is_finite()))
                {
                    return Err(Error::invalid(
                        "stepping",
                        format!("{:?}", opts.stepping),
                        "needs 0 < h_min ≤ h_max and a positive finite h0",
                    ));
                }
            }
            MagnusStepping::Fixed { .. } => {}
        }
        if opts.max_steps == 0 {
            return Err(Error::invalid("max_steps", 0, "must be at least 1"));
        }
        let prop = Propagator::new(backend, opts.method, opts.exp_tol)?;
        Ok(Magnus {
            backend,
            n,
            opts,
            prop,
            tmp: backend.zeros(n)?,
            pair: Some((backend.zeros(n)?, backend.zeros(n)?)),
            scratch: Some((backend.zeros(n)?, backend.zeros(n)?)),
        })
    }

    /// The options in use.
    pub fn options(&self) -> &MagnusOptions {
        &self.opts
    }

    /// One step `ψ ← U(t + h, t)ψ` in place; returns (exponentials, products with `H`).
    ///
    /// # Errors
    /// `DimensionMismatch`, `InvalidArgument` for a non-finite `t` or `h`, and the
    /// exponential solver's errors.
    pub fn step<H: TimeDependentOperator<B, S> + ?Sized>(
        &mut self,
        h_op: &H,
        t: f64,
        h: f64,
        psi: &mut B::Vector<S>,
    ) -> Result<(usize, usize)> {
        if !(t.is_finite() && h.is_finite()) {
            return Err(Error::invalid(
                "h",
                h,
                format!("t (= {t}) and h must be finite"),
            ));
        }
        self.check(h_op, psi)?;
        self.step_unchecked(h_op, t, h, psi)
    }

    fn check<H: TimeDependentOperator<B, S> + ?Sized>(
        &self,
        h_op: &H,
        psi: &B::Vector<S>,
    ) -> Result<()> {
        checks::count("magnus: H(t) rows", self.n, h_op.nrows())?;
        checks::count("magnus: H(t) columns", self.n, h_op.ncols())?;
        checks::vector(self.backend, "magnus: ψ", psi, self.n)?;
        Ok(())
    }

    fn step_unchecked<H: TimeDependentOperator<B, S> + ?Sized>(
        &mut self,
        h_op: &H,
        t: f64,
        h: f64,
        psi: &mut B::Vector<S>,
    ) -> Result<(usize, usize)> {
        let scheme = self.opts.scheme;
        let (t1, t2) = (t + (0.5 - GAUSS_OFFSET) * h, t + (0.5 + GAUSS_OFFSET) * h);
        let be = self.backend;
        let applies = match scheme {
            MagnusScheme::Midpoint => {
                let m = AtTime::new(h_op, t + 0.5 * h);
                let k = self.prop.apply(&m, h, psi, &mut self.tmp)?;
                be.copy(&self.tmp, psi)?;
                k
            }
            MagnusScheme::Gauss4 => {
                let scratch = self.scratch.take().ok_or_else(|| {
                    Error::Device("Magnus workspace lost its scratch vectors".into())
                })?;
                let m = GaussMagnus {
                    h_op,
                    t: [t1, t2],
                    h,
                    scratch: Mutex::new(scratch),
                };
                let r = self.prop.apply(&m, 1.0, psi, &mut self.tmp);
                self.scratch = Some(
                    m.scratch
                        .into_inner()
                        .map_err(|_| Error::Device("Gauss–Magnus scratch lock poisoned".into()))?,
                );
                let k = r?;
                be.copy(&self.tmp, psi)?;
                k
            }
            MagnusScheme::CommutatorFree4 => {
                let (a1, a2) = (0.25 + GAUSS_OFFSET, 0.25 - GAUSS_OFFSET);
                // The first factor weights the earlier node more.
                let first = Combination {
                    h: h_op,
                    nodes: [(t1, a1), (t2, a2)],
                };
                let second = Combination {
                    h: h_op,
                    nodes: [(t1, a2), (t2, a1)],
                };
                let k1 = self.prop.apply(&first, h, psi, &mut self.tmp)?;
                let k2 = self.prop.apply(&second, h, &self.tmp, psi)?;
                k1 + k2
            }
        };
        let exps = if scheme == MagnusScheme::CommutatorFree4 {
            2
        } else {
            1
        };
        Ok((exps, applies * scheme.products_per_apply()))
    }

    /// Propagates `psi` (in place) from `t0` to `t1` (either direction for fixed steps,
    /// `t1 > t0` for adaptive ones).
    ///
    /// # Errors
    /// As [`Magnus::step`]; `NoConvergence` when the adaptive step falls below `h_min` or
    /// `max_steps` is reached; `NonFinite` when ψ is not finite at the end.
    pub fn integrate<H: TimeDependentOperator<B, S> + ?Sized>(
        &mut self,
        h_op: &H,
        t0: f64,
        t1: f64,
        psi: &mut B::Vector<S>,
    ) -> Result<MagnusReport> {
        if !(t0.is_finite() && t1.is_finite()) {
            return Err(Error::invalid(
                "t1",
                t1,
                format!("t0 (= {t0}) and t1 must be finite"),
            ));
        }
        self.check(h_op, psi)?;
        let scheme = self.opts.scheme;
        let mut rep = MagnusReport {
            scheme: scheme.name(),
            h_min: f64::INFINITY,
            ..Default::default()
        };
        let be = self.backend;
        match self.opts.stepping {
            MagnusStepping::Fixed { steps } => {
                let h = (t1 - t0) / steps as f64;
                for k in 0..steps {
                    let (e, m) = self.step_unchecked(h_op, t0 + k as f64 * h, h, psi)?;
                    rep.exponentials += e;
                    rep.matvecs += m;
                    rep.steps += 1;
                }
                rep.h_min = h.abs();
                rep.h_max = h.abs();
            }
            MagnusStepping::Adaptive {
                tol,
                h0,
                h_min,
                h_max,
            } => {
                if t1 <= t0 {
                    return Err(Error::invalid(
                        "t1",
                        t1,
                        format!("adaptive steps need t1 > t0 = {t0}"),
                    ));
                }
                let tol = tol.resolve::<S>()?;
                let p = scheme.order();
                let ctl = self.opts.controller;
                let mut h = h0.unwrap_or((t1 - t0) / 100.0).min(h_max);
                let mut t = t0;
                let mut err_prev = 1.0;
                let mut last_rejected = false;
                let mut psi_norm = be.nrm2(psi)?.as_f64();
                let doubling = f64::from(2u32.pow(p) - 1);
                while t < t1 {
                    if rep.steps + rep.rejected >= self.opts.max_steps {
                        return Err(Error::NoConvergence {
                            method: "magnus",
                            detail: format!(
                                "{} steps reached at t = {t} of [{t0}, {t1}]",
                                self.opts.max_steps
                            ),
                        });
                    }
                    let remaining = t1 - t;
                    let hs = if h >= remaining * (1.0 - 1e-12) {
                        remaining
                    } else if h > 0.5 * remaining {
                        0.5 * remaining
                    } else {
                        h
                    };
                    if t + hs == t {
                        return Err(Error::NoConvergence {
                            method: "magnus",
                            detail: format!("step {hs:e} is below the resolution of t = {t}"),
                        });
                    }
                    let (mut full, mut half) = self.pair.take().ok_or_else(|| {
                        Error::Device("Magnus workspace lost its step-doubling vectors".into())
                    })?;
                    let r = (|| -> Result<f64> {
                        be.copy(psi, &mut full)?;
                        be.copy(psi, &mut half)?;
                        for (tt, hh, v) in [(t, hs, &mut full), (t, 0.5 * hs, &mut half)] {
                            let (e, m) = self.step_unchecked(h_op, tt, hh, v)?;
                            rep.exponentials += e;
                            rep.matvecs += m;
                        }
                        let (e, m) =
                            self.step_unchecked(h_op, t + 0.5 * hs, 0.5 * hs, &mut half)?;
                        rep.exponentials += e;
                        rep.matvecs += m;
                        be.axpby(-S::one(), &half, S::one(), &mut full)?;
                        Ok(be.nrm2(&full)?.as_f64() / doubling)
                    })();
                    let est = match r {
                        Ok(e) => e,
                        Err(e) => {
                            self.pair = Some((full, half));
                            return Err(e);
                        }
                    };
                    let err = est / tol.bound(psi_norm);
                    let err = if err.is_finite() { err } else { f64::INFINITY };
                    if err <= 1.0 {
                        be.copy(&half, psi)?;
                        psi_norm = be.nrm2(psi)?.as_f64();
                        t = if hs == remaining { t1 } else { t + hs };
                        rep.steps += 1;
                        rep.h_min = rep.h_min.min(hs);
                        rep.h_max = rep.h_max.max(hs);
                        rep.max_error_ratio = rep.max_error_ratio.max(err);
                        let mut fac = ctl.factor(err, err_prev, p + 1, true);
                        if last_rejected {
                            fac = fac.min(1.0);
                        }
                        h = (hs * fac).min(h_max);
                        err_prev = err;
                        last_rejected = false;
                    } else {
                        rep.rejected += 1;
                        if hs <= h_min {
                            self.pair = Some((full, half));
                            return Err(Error::NoConvergence {
                                method: "magnus",
                                detail: format!(
                                    "step {hs:e} at t = {t} is at h_min with error ratio {err:e}"
                                ),
                            });
                        }
                        h = (hs * ctl.factor(err, err_prev, p + 1, false)).max(h_min);
                        last_rejected = true;
                    }
                    self.pair = Some((full, half));
                }
            }
        }
        let norm = be.nrm2(psi)?.as_f64();
        if !norm.is_finite() {
            return Err(Error::NonFinite {
                context: format!("magnus: ψ at t = {t1}"),
                index: 0,
                value: format!("‖ψ‖ = {norm}"),
            });
        }
        Ok(rep)
    }
}
