//! The stepping: one step of each scheme and the fixed or adaptive march.

use super::control::{ExpIntOptions, ExpIntReport, Stepping};
use super::phi::PhiEvaluator;
use super::problem::{Jacobian, NonlinearJacobian, Nonlinearity, sqrt_eps};
use super::scheme::{Scheme, epirk4s3};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar};
use matexp_expmv::checks;
use std::sync::Mutex;

/// Backend vectors of one step, allocated once.
struct Work<B: Backend, S: Scalar> {
    gu: B::Vector<S>,
    f: B::Vector<S>,
    v: B::Vector<S>,
    /// Stage increments from one φ-combination at up to two times.
    inc: [B::Vector<S>; 2],
    stage: B::Vector<S>,
    r: [B::Vector<S>; 2],
    d: B::Vector<S>,
    c3: B::Vector<S>,
    c4: B::Vector<S>,
    out: B::Vector<S>,
    err: B::Vector<S>,
    diff: Option<(B::Vector<S>, B::Vector<S>)>,
}

/// What one step produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepOutcome {
    /// ‖estimated local error‖₂ (0 when the scheme has none or it was not asked for).
    pub error_norm: f64,
    /// φ-combinations evaluated.
    pub phi_calls: usize,
    /// Operator products inside the φ-solvers.
    pub matvecs: usize,
    /// Evaluations of `g` outside them.
    pub g_evals: usize,
}

/// An exponential integrator for `u' = A u + g(t, u)` on one backend, with its workspace
/// (about 15 vectors of length n) kept across steps. See the [module documentation](super).
pub struct ExpIntegrator<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    n: usize,
    opts: ExpIntOptions,
    phi: PhiEvaluator<'a, B, S>,
    w: Work<B, S>,
}

impl<B: Backend, S: Scalar> std::fmt::Debug for ExpIntegrator<'_, B, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpIntegrator")
            .field("backend", &self.backend)
            .field("n", &self.n)
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

impl<'a, B: Backend, S: Scalar> ExpIntegrator<'a, B, S> {
    /// A workspace for problems of dimension `n`.
    ///
    /// # Errors
    /// `InvalidArgument` for invalid options; backend allocation errors.
    pub fn new(backend: &'a B, n: usize, opts: ExpIntOptions) -> Result<Self> {
        opts.validate::<S>()?;
        let z = || backend.zeros::<S>(n);
        let w = Work {
            gu: z()?,
            f: z()?,
            v: z()?,
            inc: [z()?, z()?],
            stage: z()?,
            r: [z()?, z()?],
            d: z()?,
            c3: z()?,
            c4: z()?,
            out: z()?,
            err: z()?,
            diff: Some((z()?, z()?)),
        };
        let phi = PhiEvaluator::new(backend, opts.phi, opts.phi_tolerance())?;
        Ok(ExpIntegrator {
            backend,
            n,
            opts,
            phi,
            w,
        })
    }

    /// The options in use.
    pub fn options(&self) -> &ExpIntOptions {
        &self.opts
    }

    /// One step of size `h` from `(t, u)`: `u_out ← u_{n+1}`; with `estimate`, also the
    /// embedded error estimate (its norm in the outcome), which costs one more
    /// φ-combination for `exprb43` and `epirk4s3` and nothing for `exprb32`.
    ///
    /// # Errors
    /// `DimensionMismatch` for wrong sizes, `InvalidArgument` for a non-finite or
    /// non-positive `h`, `NonFinite` when the step produced NaN or ∞, and the φ-solver's
    /// errors.
    #[allow(clippy::too_many_arguments)]
    pub fn step<A, G>(
        &mut self,
        a: &A,
        g: &G,
        t: f64,
        h: f64,
        u: &B::Vector<S>,
        u_out: &mut B::Vector<S>,
        estimate: bool,
    ) -> Result<StepOutcome>
    where
        A: LinearOperator<B, S> + ?Sized,
        G: Nonlinearity<B, S> + ?Sized,
    {
        if !(h > 0.0 && h.is_finite() && t.is_finite()) {
            return Err(Error::invalid(
                "h",
                h,
                format!("a step needs finite t (= {t}) and h > 0"),
            ));
        }
        let n = checks::square_order("exponential integrator", a)?;
        checks::count("exponential integrator: operator order", self.n, n)?;
        checks::vector(self.backend, "exponential integrator: u", u, n)?;
        checks::output(self.backend, "exponential integrator: u_out", u_out, n)?;
        let out = self.step_unchecked(a, g, t, h, u, estimate)?;
        let be = self.backend;
        be.copy(&self.w.out, u_out)?;
        let norm = be.nrm2(u_out)?.as_f64();
        if !norm.is_finite() {
            return Err(Error::NonFinite {
                context: format!("{} step at t = {t}, h = {h}", self.opts.scheme.name()),
                index: 0,
                value: format!("‖u‖ = {norm}"),
            });
        }
        Ok(out)
    }

    /// The step into `self.w.out` (and the estimate into `self.w.err`): g(t, u), then the
    /// exponential Euler step with A itself, or F, ∂g/∂t and the Jacobian at (t, u) for the
    /// stages of a Rosenbrock-type scheme.
    fn step_unchecked<A, G>(
        &mut self,
        a: &A,
        g: &G,
        t: f64,
        h: f64,
        u: &B::Vector<S>,
        estimate: bool,
    ) -> Result<StepOutcome>
    where
        A: LinearOperator<B, S> + ?Sized,
        G: Nonlinearity<B, S> + ?Sized,
    {
        let be = self.backend;
        let scheme = self.opts.scheme;
        let Work {
            gu,
            f,
            v,
            inc,
            stage,
            r,
            d,
            c3,
            c4,
            out,
            err,
            diff,
        } = &mut self.w;
        let phi = &mut self.phi;
        let one = S::one();
        let mut o = StepOutcome {
            error_norm: 0.0,
            phi_calls: 0,
            matvecs: 0,
            g_evals: 1,
        };
        g.eval(be, t, u, gu)?;
        if scheme == Scheme::ExponentialEuler {
            // e^{hA}u + hφ₁(hA)g: the combination [u, g] of the operator A itself.
            o.matvecs += phi.combination(
                a,
                h,
                &[1.0],
                &[Some(u), Some(gu)],
                std::slice::from_mut(out),
            )?;
            o.phi_calls += 1;
            return Ok(o);
        }
        // F = A u + g(t, u).
        be.copy(gu, f)?;
        a.apply(be, one, u, one, f)?;
        let autonomous = g.is_autonomous();
        if !autonomous && !g.time_derivative(be, t, u, v)? {
            // Central difference: its O(δ²) error stays below √ε_mach.
            let delta = sqrt_eps::<S>().powf(2.0 / 3.0) * t.abs().max(1.0);
            let [plus, minus] = inc;
            g.eval(be, t + delta, u, plus)?;
            g.eval(be, t - delta, u, minus)?;
            be.copy(plus, v)?;
            be.axpby(
                S::from_f64(-1.0 / (2.0 * delta)),
                minus,
                S::from_f64(1.0 / (2.0 * delta)),
                v,
            )?;
            o.g_evals += 2;
        }
        let unorm = be.nrm2(u)?.as_f64();
        let bounds = g.jacobian_bounds(be, t, u)?;
        let dg = NonlinearJacobian {
            bounds,
            g,
            t,
            u,
            gu,
            unorm,
            scratch: Mutex::new(diff.take().ok_or_else(|| {
                Error::Device("exponential integrator workspace lost its scratch vectors".into())
            })?),
        };
        // bs = [0, F, v]: Σ (c h)^k φ_k(c h J) b_k = c h φ₁ F + (c h)² φ₂ v.
        let base_full = [None, Some(&*f), Some(&*v)];
        let base = if autonomous {
            &base_full[..2]
        } else {
            &base_full[..]
        };
        let g_per_product = usize::from(!g.has_jacobian());
        let lin = Linearization {
            be,
            jac: Jacobian { a, dg: &dg },
            g,
            t,
            h,
            u,
            gu,
            f,
            v,
            base,
            autonomous,
            g_per_product,
            estimate,
        };
        let mut s = Stages {
            inc,
            stage,
            r,
            d,
            c3,
            c4,
            out,
            err,
        };
        let result = lin.stages(scheme, phi, &mut s, &mut o);
        // The scratch vectors go back to the workspace before an error of the stages is
        // passed on.
        *diff = Some(
            dg.scratch
                .into_inner()
                .map_err(|_| Error::Device("Jacobian scratch lock poisoned".into()))?,
        );
        result?;
        o.g_evals += o.matvecs * g_per_product;
        Ok(o)
    }

    /// Integrates from `t0` to `t1 > t0`, overwriting `u` (the initial value) with `u(t1)`.
    ///
    /// # Errors
    /// As [`ExpIntegrator::step`]; `InvalidArgument` for `t1 ≤ t0`; `NoConvergence` when
    /// the adaptive step falls below `h_min` or `max_steps` is reached.
    pub fn integrate<A, G>(
        &mut self,
        a: &A,
        g: &G,
        t0: f64,
        t1: f64,
        u: &mut B::Vector<S>,
    ) -> Result<ExpIntReport>
    where
        A: LinearOperator<B, S> + ?Sized,
        G: Nonlinearity<B, S> + ?Sized,
    {
        if !(t0.is_finite() && t1.is_finite() && t1 > t0) {
            return Err(Error::invalid(
                "t1",
                t1,
                format!("needs finite t0 (= {t0}) < t1"),
            ));
        }
        let be = self.backend;
        let n = checks::square_order("exponential integrator", a)?;
        checks::count("exponential integrator: operator order", self.n, n)?;
        checks::vector(be, "exponential integrator: u", u, n)?;
        let scheme = self.opts.scheme;
        let mut rep = ExpIntReport::new(scheme);
        match self.opts.stepping {
            Stepping::Fixed { steps } => {
                let h = (t1 - t0) / steps as f64;
                for k in 0..steps {
                    let t = t0 + k as f64 * h;
                    let o = self.step_unchecked(a, g, t, h, u, false)?;
                    rep.account(&o);
                    be.copy(&self.w.out, u)?;
                    rep.steps += 1;
                }
                check_finite(be, u, t1)?;
                rep.h_min = h;
                rep.h_max = h;
            }
            Stepping::Adaptive { h0, h_min, h_max } => {
                let q = scheme
                    .embedded_order()
                    .expect("validated: adaptive needs an estimate");
                let ctl = self.opts.controller;
                let tol = self.opts.tol.resolve::<S>()?;
                let mut h = h0.unwrap_or((t1 - t0) / 100.0).min(h_max);
                let mut t = t0;
                let mut err_prev = 1.0;
                let mut unorm = be.nrm2(u)?.as_f64();
                let mut last_rejected = false;
                while t < t1 {
                    if rep.steps + rep.rejected >= self.opts.max_steps {
                        return Err(Error::NoConvergence {
                            method: "exponential integrator",
                            detail: format!(
                                "{} steps reached at t = {t} of [{t0}, {t1}]",
                                self.opts.max_steps
                            ),
                        });
                    }
                    // Land on t1 without a sliver of a last step.
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
                            method: "exponential integrator",
                            detail: format!("step {hs:e} is below the resolution of t = {t}"),
                        });
                    }
                    let outcome = self.step_unchecked(a, g, t, hs, u, true);
                    let o = match outcome {
                        Ok(o) => o,
                        // A φ-solve that failed on a step too long for it: shorten the step.
                        Err(Error::NoConvergence { .. }) if hs > h_min => {
                            rep.rejected += 1;
                            h = (hs * ctl.fac_min).max(h_min);
                            last_rejected = true;
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    rep.account(&o);
                    let new_norm = be.nrm2(&self.w.out)?.as_f64();
                    let scale = tol.bound(unorm.max(new_norm));
                    let err = if new_norm.is_finite() {
                        o.error_norm / scale
                    } else {
                        f64::INFINITY
                    };
                    let err = if err.is_nan() { f64::INFINITY } else { err };
                    if err <= 1.0 {
                        be.copy(&self.w.out, u)?;
                        t = if hs == remaining { t1 } else { t + hs };
                        unorm = new_norm;
                        rep.steps += 1;
                        rep.h_min = rep.h_min.min(hs);
                        rep.h_max = rep.h_max.max(hs);
                        rep.max_error_ratio = rep.max_error_ratio.max(err);
                        let mut fac = ctl.factor(err, err_prev, q + 1, true);
                        if last_rejected {
                            fac = fac.min(1.0);
                        }
                        h = (hs * fac).min(h_max);
                        err_prev = err;
                        last_rejected = false;
                    } else {
                        rep.rejected += 1;
                        if hs <= h_min {
                            return Err(Error::NoConvergence {
                                method: "exponential integrator",
                                detail: format!(
                                    "step {hs:e} at t = {t} is at h_min with error ratio {err:e}"
                                ),
                            });
                        }
                        h = (hs * ctl.factor(err, err_prev, q + 1, false)).max(h_min);
                        last_rejected = true;
                    }
                }
            }
        }
        Ok(rep)
    }
}

/// The stage vectors of the Rosenbrock-type schemes, from the step's [`Work`].
struct Stages<'w, B: Backend, S: Scalar> {
    /// Stage increments from one φ-combination at up to two times.
    inc: &'w mut [B::Vector<S>; 2],
    stage: &'w mut B::Vector<S>,
    r: &'w mut [B::Vector<S>; 2],
    d: &'w mut B::Vector<S>,
    c3: &'w mut B::Vector<S>,
    c4: &'w mut B::Vector<S>,
    out: &'w mut B::Vector<S>,
    err: &'w mut B::Vector<S>,
}

/// A Rosenbrock-type step's linearization at (t, u): g(t, u), F = A u + g(t, u), v = ∂g/∂t,
/// the Jacobian J = A + ∂g/∂u, and the step h with its φ-combinations' base terms.
struct Linearization<'s, B: Backend, S: Scalar, A: ?Sized, G: ?Sized> {
    be: &'s B,
    jac: Jacobian<'s, 's, B, S, A, G>,
    g: &'s G,
    t: f64,
    h: f64,
    u: &'s B::Vector<S>,
    gu: &'s B::Vector<S>,
    f: &'s B::Vector<S>,
    v: &'s B::Vector<S>,
    /// bs = [0, F, v], without v for an autonomous g.
    base: &'s [Option<&'s B::Vector<S>>],
    autonomous: bool,
    /// Evaluations of g per product with a difference Jacobian.
    g_per_product: usize,
    /// Whether the embedded error estimate is asked for.
    estimate: bool,
}

impl<B, S, A, G> Linearization<'_, B, S, A, G>
where
    B: Backend,
    S: Scalar,
    A: LinearOperator<B, S> + ?Sized,
    G: Nonlinearity<B, S> + ?Sized,
{
    /// The stages of `scheme` (not exponential Euler) into `s.out` and `s.err`.
    fn stages(
        &self,
        scheme: Scheme,
        phi: &mut PhiEvaluator<'_, B, S>,
        s: &mut Stages<'_, B, S>,
        o: &mut StepOutcome,
    ) -> Result<()> {
        match scheme {
            Scheme::ExponentialEuler => unreachable!("handled above"),
            Scheme::RosenbrockEuler => {
                let (be, one) = (self.be, S::one());
                o.matvecs += phi.combination(
                    &self.jac,
                    self.h,
                    &[1.0],
                    self.base,
                    std::slice::from_mut(s.out),
                )?;
                o.phi_calls += 1;
                be.axpby(one, self.u, one, s.out)?;
            }
            Scheme::Exprb32 => self.exprb32(phi, s, o)?,
            Scheme::Exprb43 => self.exprb43(phi, s, o)?,
            Scheme::Epirk4s3 => self.epirk4s3(phi, s, o)?,
        }
        Ok(())
    }

    /// R(t', U) = g(t', U) − g(t, u) − ∂g/∂u (U − u) − v (t' − t) into `r`.
    fn remainder(
        &self,
        tt: f64,
        st: &B::Vector<S>,
        r: &mut B::Vector<S>,
        d: &mut B::Vector<S>,
    ) -> Result<()> {
        let (be, one) = (self.be, S::one());
        self.g.eval(be, tt, st, r)?;
        be.axpby(-one, self.gu, one, r)?;
        be.copy(st, d)?;
        be.axpby(-one, self.u, one, d)?;
        self.jac.dg.apply(be, -one, d, one, r)?;
        if !self.autonomous {
            be.axpby(S::from_f64(-(tt - self.t)), self.v, one, r)?;
        }
        Ok(())
    }

    /// c3 = w₀·R₀ + w₁·R₁ and c4 likewise, from the remainders of the two stages (weights
    /// (w₀, w₁) with their powers of 1/h): the φ₃ and φ₄ vectors of the last combination.
    fn combine_remainders(
        &self,
        s: &mut Stages<'_, B, S>,
        c3: (f64, f64),
        c4: (f64, f64),
    ) -> Result<()> {
        let be = self.be;
        be.copy(&s.r[0], s.c3)?;
        be.axpby(S::from_f64(c3.1), &s.r[1], S::from_f64(c3.0), s.c3)?;
        be.copy(&s.r[0], s.c4)?;
        be.axpby(S::from_f64(c4.1), &s.r[1], S::from_f64(c4.0), s.c4)?;
        Ok(())
    }

    /// The `exprb32` step: the Rosenbrock–Euler stage U₂, then its correction (the error
    /// estimate) from the remainder at t + h.
    fn exprb32(
        &self,
        phi: &mut PhiEvaluator<'_, B, S>,
        s: &mut Stages<'_, B, S>,
        o: &mut StepOutcome,
    ) -> Result<()> {
        let (be, one, jac, t, h, u) = (self.be, S::one(), &self.jac, self.t, self.h, self.u);
        // U₂ = u + hφ₁F + h²φ₂v (Rosenbrock–Euler), then U₂ + 2hφ₃R₂.
        o.matvecs += phi.combination(jac, h, &[1.0], self.base, std::slice::from_mut(s.stage))?;
        be.axpby(one, u, one, s.stage)?;
        self.remainder(t + h, s.stage, &mut s.r[0], s.d)?;
        o.g_evals += 1 + self.g_per_product;
        be.copy(&s.r[0], s.c3)?;
        be.scale(S::from_f64(2.0 / (h * h)), s.c3)?;
        let bs = [None, None, None, Some(&*s.c3)];
        o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.err))?;
        o.phi_calls += 2;
        be.copy(s.stage, s.out)?;
        be.axpby(one, s.err, one, s.out)?;
        if self.estimate {
            o.error_norm = be.nrm2(s.err)?.as_f64();
        }
        Ok(())
    }

    /// The `exprb43` step: the stages at t + ½h and t + h from one combination and the
    /// remainders, the φ₃/φ₄ combination of the result, and the estimate's extra one.
    fn exprb43(
        &self,
        phi: &mut PhiEvaluator<'_, B, S>,
        s: &mut Stages<'_, B, S>,
        o: &mut StepOutcome,
    ) -> Result<()> {
        let (be, one, jac, t, h, u) = (self.be, S::one(), &self.jac, self.t, self.h, self.u);
        // inc[0] = ½hφ₁(½hJ)F + …, inc[1] = hφ₁(hJ)F + h²φ₂(hJ)v.
        o.matvecs += phi.combination(jac, h, &[0.5, 1.0], self.base, &mut s.inc[..])?;
        be.copy(u, s.stage)?;
        be.axpby(one, &s.inc[0], one, s.stage)?;
        self.remainder(t + 0.5 * h, s.stage, &mut s.r[0], s.d)?;
        // U₃ = u + inc[1] + hφ₁(hJ)R₂.
        let bs = [None, Some(&s.r[0])];
        o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.stage))?;
        be.axpby(one, u, one, s.stage)?;
        be.axpby(one, &s.inc[1], one, s.stage)?;
        self.remainder(t + h, s.stage, &mut s.r[1], s.d)?;
        o.g_evals += 2 * (1 + self.g_per_product);
        let h2 = 1.0 / (h * h);
        let h3 = h2 / h;
        // c3 = (16R₂ − 2R₃)/h², c4 = (−48R₂ + 12R₃)/h³.
        self.combine_remainders(s, (16.0 * h2, -2.0 * h2), (-48.0 * h3, 12.0 * h3))?;
        let bs = [None, None, None, Some(&*s.c3), Some(&*s.c4)];
        o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.out))?;
        o.phi_calls += 3;
        be.axpby(one, u, one, s.out)?;
        be.axpby(one, &s.inc[1], one, s.out)?;
        if self.estimate {
            let bs = [None, None, None, None, Some(&*s.c4)];
            o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.err))?;
            o.phi_calls += 1;
            o.error_norm = be.nrm2(s.err)?.as_f64();
        }
        Ok(())
    }

    /// The `epirk4s3` step: both stages from one combination at the scheme's nodes, the
    /// final combination, and the estimate's extra one.
    fn epirk4s3(
        &self,
        phi: &mut PhiEvaluator<'_, B, S>,
        s: &mut Stages<'_, B, S>,
        o: &mut StepOutcome,
    ) -> Result<()> {
        let (be, one, jac, t, h, u) = (self.be, S::one(), &self.jac, self.t, self.h, self.u);
        o.matvecs += phi.combination(jac, h, &epirk4s3::NODES, self.base, &mut s.inc[..])?;
        for i in 0..2 {
            be.copy(u, s.stage)?;
            be.axpby(one, &s.inc[i], one, s.stage)?;
            self.remainder(t + epirk4s3::NODES[i] * h, s.stage, &mut s.r[i], s.d)?;
        }
        o.g_evals += 2 * (1 + self.g_per_product);
        let h2 = 1.0 / (h * h);
        let h3 = h2 / h;
        let (b9, b8) = (epirk4s3::B_NINTH, epirk4s3::B_EIGHTH);
        self.combine_remainders(s, (b9.0 * h2, b8.0 * h2), (b9.1 * h3, b8.1 * h3))?;
        let vv = if self.autonomous { None } else { Some(self.v) };
        let bs = [None, Some(self.f), vv, Some(&*s.c3), Some(&*s.c4)];
        o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.out))?;
        o.phi_calls += 2;
        be.axpby(one, u, one, s.out)?;
        if self.estimate {
            // u_{n+1} − û = hφ₃(c3 − 128R_{1/8}/h²)·h² + hφ₄ c4·h³.
            be.axpby(
                S::from_f64(-epirk4s3::B_HAT_EIGHTH * h2),
                &s.r[1],
                one,
                s.c3,
            )?;
            let bs = [None, None, None, Some(&*s.c3), Some(&*s.c4)];
            o.matvecs += phi.combination(jac, h, &[1.0], &bs, std::slice::from_mut(s.err))?;
            o.phi_calls += 1;
            o.error_norm = be.nrm2(s.err)?.as_f64();
        }
        Ok(())
    }
}

impl ExpIntReport {
    fn account(&mut self, o: &StepOutcome) {
        self.phi_calls += o.phi_calls;
        self.matvecs += o.matvecs;
        self.g_evals += o.g_evals;
    }
}

fn check_finite<B: Backend, S: Scalar>(be: &B, u: &B::Vector<S>, t: f64) -> Result<()> {
    let norm = be.nrm2(u)?.as_f64();
    if norm.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFinite {
            context: format!("exponential integrator solution at t = {t}"),
            index: 0,
            value: format!("‖u‖ = {norm}"),
        })
    }
}
