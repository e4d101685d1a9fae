//! The embedded Runge–Kutta 5(4) pair of Cash and Karp with the seed's step control.

use super::{LinearOde, RkReport, check_interval, check_state};
use matexp_core::{
    Autonomous, Backend, Error, LinearOperator, RealScalar, Result, Scalar, TimeDependentOperator,
};

/// Nodes `c_i` of the Cash–Karp tableau.
const C: [f64; 6] = [0.0, 0.2, 0.3, 0.6, 1.0, 0.875];
/// Coupling coefficients `a_ij` (row i, j < i).
const A: [[f64; 5]; 6] = [
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [0.2, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0],
    [0.3, -0.9, 1.2, 0.0, 0.0],
    [-11.0 / 54.0, 2.5, -70.0 / 27.0, 35.0 / 27.0, 0.0],
    [
        1631.0 / 55296.0,
        175.0 / 512.0,
        575.0 / 13824.0,
        44275.0 / 110592.0,
        253.0 / 4096.0,
    ],
];
/// Fifth-order weights (the solution that is propagated: local extrapolation).
const B5: [f64; 6] = [
    37.0 / 378.0,
    0.0,
    250.0 / 621.0,
    125.0 / 594.0,
    0.0,
    512.0 / 1771.0,
];
/// Fourth-order weights (the embedded comparison solution).
const B4: [f64; 6] = [
    2825.0 / 27648.0,
    0.0,
    18575.0 / 48384.0,
    13525.0 / 55296.0,
    277.0 / 14336.0,
    0.25,
];

/// Step control of [`CashKarp`], after Dieckmann's thesis (seed 001, §4.4, Eqs. 4.19–4.24).
///
/// The error of a step of size `h` is `ε = max_i |y5_i − y4_i|` (the seed's element-wise
/// maximum of the difference of the 5th- and 4th-order solutions). A step is accepted when
/// `ε ≤ ε₁` and the next step is
///
/// ```text
/// h_next = min( S·h·(ε₁/ε)^{1/5},  S·(ε₂·h⁵ / (ε·T))^{1/4} ),   clamped to [h/5, 5h]
/// ```
///
/// The first rule keeps the per-step error near `ε₁` (error ∝ h⁵); the second spends an
/// accumulated-error budget `ε₂` evenly over the interval of length `T`, so that the sum of the
/// per-step errors at the end stays near `ε₂`. A rejected step is retried with
/// `h·max(1/10, S·(ε₁/ε)^{1/4})` (Numerical Recipes' shrink rule).
///
/// The thesis does not give `ε₁`, `ε₂`, `S`; the constants chosen here:
/// `S = 0.9` (Numerical Recipes' safety factor, applied to both rules so that the estimate's
/// own noise rarely causes a rejection), `ε₁ = ε₂ = tol` ([`Rk45Options::new`]), growth at
/// most ×5 and shrink at most ×1/10 per step (Numerical Recipes). Since the propagated
/// solution is the 5th-order one, the true error is usually well below the accumulated
/// estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rk45Options {
    /// `ε₁`: the largest accepted per-step error (max-norm, absolute).
    pub tol: f64,
    /// `ε₂`: the budget for the sum of the per-step errors over the whole interval; `None`
    /// drops the second rule.
    pub accumulated_tol: Option<f64>,
    /// Safety factor `S ∈ (0, 1)`.
    pub safety: f64,
    /// First step size; `None` picks `0.5·ε₁^{1/5}/‖A‖` from the operator's norm bound at
    /// `t0` (or `T/100` without one).
    pub first_step: Option<f64>,
    /// Most step attempts (accepted and rejected) before giving up.
    pub max_steps: usize,
}

impl Rk45Options {
    /// `ε₁ = ε₂ = tol`, `S = 0.9`, automatic first step, at most 10⁷ steps.
    pub fn new(tol: f64) -> Self {
        Rk45Options {
            tol,
            accumulated_tol: Some(tol),
            safety: 0.9,
            first_step: None,
            max_steps: 10_000_000,
        }
    }

    fn validate<R: RealScalar>(&self) -> Result<()> {
        let floor = 10.0 * R::epsilon().as_f64();
        if !(self.tol.is_finite() && self.tol > floor) {
            return Err(Error::invalid(
                "tol",
                self.tol,
                format!("must be finite and above 10·ε = {floor:e} of the working precision"),
            ));
        }
        if let Some(e2) = self.accumulated_tol
            && !(e2.is_finite() && e2 > 0.0)
        {
            return Err(Error::invalid(
                "accumulated_tol",
                e2,
                "must be finite and positive",
            ));
        }
        if !(self.safety > 0.0 && self.safety < 1.0) {
            return Err(Error::invalid("safety", self.safety, "must lie in (0, 1)"));
        }
        if let Some(h) = self.first_step
            && !(h.is_finite() && h > 0.0)
        {
            return Err(Error::invalid(
                "first_step",
                h,
                "must be finite and positive",
            ));
        }
        if self.max_steps == 0 {
            return Err(Error::invalid("max_steps", 0, "must be positive"));
        }
        Ok(())
    }
}

/// The Cash–Karp embedded Runge–Kutta 5(4) method with adaptive steps ([`Rk45Options`]).
///
/// An attempted step costs 6 products and about 25 vector updates (the generic path forms
/// each stage with `axpby`); the workspace is 8 vectors (6 stages, the stage input or the new
/// solution, the error). Accuracy: the accumulated error estimate of the report stays near
/// `ε₂`; the propagated 5th-order solution is usually more accurate than that.
#[derive(Debug)]
pub struct CashKarp<'b, B: Backend, S: Scalar> {
    backend: &'b B,
    n: usize,
    opts: Rk45Options,
    k: Vec<B::Vector<S>>,
    tmp: B::Vector<S>,
    /// The error vector of the standard mode; `None` in the lean mode.
    err: Option<B::Vector<S>>,
    /// The lean mode's polynomial coefficients `(R₅, E)` (see [`CashKarpLean`]).
    lean: Option<([f64; 7], [f64; 7])>,
}

impl<'b, B: Backend, S: Scalar> CashKarp<'b, B, S> {
    /// A workspace for systems of order `n`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bad options (a tolerance at or below 10 units of
    /// roundoff of `S`, a safety factor outside (0, 1), …); allocation failures.
    pub fn new(backend: &'b B, n: usize, opts: Rk45Options) -> Result<Self> {
        opts.validate::<S::Real>()?;
        Ok(CashKarp {
            backend,
            n,
            opts,
            k: (0..6).map(|_| backend.zeros(n)).collect::<Result<_>>()?,
            tmp: backend.zeros(n)?,
            err: Some(backend.zeros(n)?),
            lean: None,
        })
    }

    /// The backend vectors the workspace holds besides the state: 8 in the standard mode, 3
    /// in the lean one (the plan of `matexp_expmv::plan` adds the state).
    pub fn workspace_vectors(&self) -> usize {
        self.k.len() + 1 + usize::from(self.err.is_some())
    }

    /// The options.
    pub fn options(&self) -> &Rk45Options {
        &self.opts
    }

    /// Integrates from `t0` to `t1` in place.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad interval, [`Error::DimensionMismatch`] for a
    /// wrong state length, [`Error::NonFinite`] when the error estimate is not finite (the
    /// solution blew up), [`Error::NoConvergence`] when the step size underflows or
    /// `max_steps` is reached; those of the operator.
    pub fn integrate<Op>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        t0: f64,
        t1: f64,
        y: &mut B::Vector<S>,
    ) -> Result<RkReport>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
    {
        self.integrate_observed(ode, &[t0, t1], y, |_, _| Ok(()))
    }

    /// Integrates through the increasing `times` (the first is the start), calling
    /// `observe(t, y)` at each of them (the start included); steps are shortened to land on
    /// every time exactly. The accumulated-error budget is spread over the whole interval.
    ///
    /// # Errors
    /// As [`CashKarp::integrate`], and [`Error::InvalidArgument`] for fewer than one time or
    /// times that decrease; errors returned by `observe` stop the integration.
    pub fn integrate_observed<Op, F>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        times: &[f64],
        y: &mut B::Vector<S>,
        mut observe: F,
    ) -> Result<RkReport>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
        F: FnMut(f64, &B::Vector<S>) -> Result<()>,
    {
        self.integrate_until(ode, times, y, |t, y, _| observe(t, y).map(|()| true))
    }

    /// [`CashKarp::integrate_observed`] whose observer also sees the report so far and
    /// returns whether to go on: `false` stops at that output time (the report then says how
    /// far the run came through `y`'s last observed time; a wall-clock budget, for example).
    ///
    /// # Errors
    /// As [`CashKarp::integrate_observed`].
    pub fn integrate_until<Op, F>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        times: &[f64],
        y: &mut B::Vector<S>,
        mut observe: F,
    ) -> Result<RkReport>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
        F: FnMut(f64, &B::Vector<S>, &RkReport) -> Result<bool>,
    {
        let (&t0, &t_end) = match (times.first(), times.last()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(Error::invalid(
                    "times",
                    "[]",
                    "needs at least the start time",
                ));
            }
        };
        for w in times.windows(2) {
            check_interval(w[0], w[1])?;
        }
        check_interval(t0, t_end)?;
        let n = ode.order::<B>()?;
        check_state(self.backend, y, n)?;
        check_state(self.backend, y, self.n)?;
        let span = t_end - t0;
        let mut report = RkReport::default();
        let mut h = match self.opts.first_step {
            Some(h) => h,
            None => match ode.operator().norm_bound_at(t0) {
                Some(nb) if nb > 0.0 => {
                    0.5 * self.opts.tol.powf(0.2) / (nb * ode.factor().modulus().as_f64())
                }
                _ => span / 100.0,
            },
        };
        let mut t = t0;
        if !observe(t, y, &report)? {
            return Ok(report);
        }
        for &target in &times[1..] {
            while t < target {
                let last = h >= target - t;
                let hs = if last { target - t } else { h };
                if hs <= 8.0 * f64::EPSILON * t.abs().max(span) {
                    return Err(Error::NoConvergence {
                        method: "Cash–Karp RK45",
                        detail: format!("step size underflow ({hs:e}) at t = {t}"),
                    });
                }
                if report.steps + report.rejected >= self.opts.max_steps {
                    return Err(Error::NoConvergence {
                        method: "Cash–Karp RK45",
                        detail: format!(
                            "{} steps reached at t = {t} of {t_end}",
                            self.opts.max_steps
                        ),
                    });
                }
                let eps = self.attempt(ode, t, hs, y)?;
                report.products += 6;
                report.last_step = hs;
                if !eps.is_finite() {
                    return Err(Error::NonFinite {
                        context: format!("Cash–Karp RK45 error estimate at t = {t}, h = {hs:e}"),
                        index: 0,
                        value: format!("{eps}"),
                    });
                }
                let s = self.opts.safety;
                if eps > self.opts.tol {
                    report.rejected += 1;
                    h = hs * (s * (self.opts.tol / eps).powf(0.25)).max(0.1);
                    continue;
                }
                // Accept: the 5th-order solution is in `tmp`.
                std::mem::swap(y, &mut self.tmp);
                t = if last { target } else { t + hs };
                report.steps += 1;
                report.accumulated_error += eps;
                let mut next = if eps == 0.0 {
                    5.0 * hs
                } else {
                    let rule1 = s * hs * (self.opts.tol / eps).powf(0.2);
                    match self.opts.accumulated_tol {
                        Some(e2) => rule1.min(s * (e2 * hs.powi(5) / (eps * span)).powf(0.25)),
                        None => rule1,
                    }
                };
                next = next.clamp(0.2 * hs, 5.0 * hs);
                // A step cut short to land on an output time says little about the next one.
                h = if last { next.max(h) } else { next };
            }
            if !observe(t, y, &report)? {
                return Ok(report);
            }
        }
        Ok(report)
    }

    /// One attempted step: the 5th-order solution into `tmp`, returns the error estimate.
    /// The lean attempt (see [`CashKarpLean`]): `w_j = (h·c·A)ʲ·y` in two rotating buffers,
    /// `tmp ← Σ_j r_j w_j`, and the error `e₅w₅ + e₆w₆` formed in the buffer of `w₅`.
    fn attempt_lean<Op>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        t: f64,
        h: f64,
        y: &B::Vector<S>,
        (r5, e): ([f64; 7], [f64; 7]),
    ) -> Result<f64>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
    {
        let b = self.backend;
        let (one, zero) = (S::one(), S::zero());
        let gamma = S::from_f64(h);
        let (wa, wb) = self.k.split_at_mut(1);
        let (mut wa, mut wb) = (&mut wa[0], &mut wb[0]);
        b.copy(y, &mut self.tmp)?;
        ode.eval_scaled(b, t, gamma, y, zero, wa)?;
        b.axpby(S::from_f64(r5[1]), wa, one, &mut self.tmp)?;
        for r in &r5[2..] {
            ode.eval_scaled(b, t, gamma, wa, zero, wb)?;
            b.axpby(S::from_f64(*r), wb, one, &mut self.tmp)?;
            std::mem::swap(&mut wa, &mut wb);
        }
        // wa = w₆, wb = w₅: the error e₅w₅ + e₆w₆ (e_j = 0 for j ≤ 4) into wb.
        b.axpby(S::from_f64(e[6]), wa, S::from_f64(e[5]), wb)?;
        Ok(b.amax(wb)?.as_f64())
    }

    fn attempt<Op>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        t: f64,
        h: f64,
        y: &B::Vector<S>,
    ) -> Result<f64>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
    {
        if let Some(coeffs) = self.lean {
            return self.attempt_lean(ode, t, h, y, coeffs);
        }
        let b = self.backend;
        let (one, zero) = (S::one(), S::zero());
        let Some(err) = self.err.as_mut() else {
            return Err(Error::Device(
                "Cash–Karp: the error vector is missing".into(),
            ));
        };
        ode.eval_scaled(b, t, one, y, zero, &mut self.k[0])?;
        for i in 1..6 {
            b.copy(y, &mut self.tmp)?;
            for j in 0..i {
                if A[i][j] != 0.0 {
                    b.axpby(S::from_f64(h * A[i][j]), &self.k[j], one, &mut self.tmp)?;
                }
            }
            ode.eval_scaled(b, t + C[i] * h, one, &self.tmp, zero, &mut self.k[i])?;
        }
        b.copy(y, &mut self.tmp)?;
        let mut first = true;
        for i in 0..6 {
            if B5[i] != 0.0 {
                b.axpby(S::from_f64(h * B5[i]), &self.k[i], one, &mut self.tmp)?;
            }
            let d = B5[i] - B4[i];
            if d != 0.0 {
                let beta = if first { zero } else { one };
                b.axpby(S::from_f64(h * d), &self.k[i], beta, err)?;
                first = false;
            }
        }
        Ok(b.amax(err)?.as_f64())
    }
}

/// The stability polynomials of the Cash–Karp pair in powers of `z = h·c·A`: the stage
/// polynomials `K_i(z) = z·(1 + Σ_{j<i} a_ij K_j(z))`, then `R₅ = 1 + Σ b⁵_i K_i`,
/// `R₄ = 1 + Σ b⁴_i K_i`; returns `(R₅, R₅ − R₄)`, coefficients of `z⁰…z⁶`.
pub(super) fn stability_polynomials() -> ([f64; 7], [f64; 7]) {
    let mut k = [[0.0f64; 7]; 6];
    for i in 0..6 {
        let mut inner = [0.0f64; 7];
        inner[0] = 1.0;
        for j in 0..i {
            for d in 0..7 {
                inner[d] += A[i][j] * k[j][d];
            }
        }
        k[i][1..].copy_from_slice(&inner[..6]);
    }
    let (mut r5, mut r4) = ([0.0f64; 7], [0.0f64; 7]);
    r5[0] = 1.0;
    r4[0] = 1.0;
    for i in 0..6 {
        for d in 0..7 {
            r5[d] += B5[i] * k[i][d];
            r4[d] += B4[i] * k[i][d];
        }
    }
    let mut e = [0.0f64; 7];
    for d in 0..7 {
        e[d] = r5[d] - r4[d];
    }
    // Orders 5 and 4: R₅ and R₄ agree with e^z through z⁴, so e₀…e₄ vanish exactly in exact
    // arithmetic; drop their rounding.
    for x in &mut e[..5] {
        *x = 0.0;
    }
    (r5, e)
}

/// The Cash–Karp RK45 of [`CashKarp`] in its lean mode, for a linear **autonomous** system
/// `u' = c·A·u`: 4 full-size vectors in all (the state, the new solution and two powers)
/// instead of 9, the same step control, the same 6 products per attempted step.
///
/// For a constant operator every stage of an explicit Runge–Kutta method is a polynomial in
/// `z = h·c·A` applied to `u`, so a step is `u ← R₅(z)u` with the error estimate
/// `(R₅ − R₄)(z)u = e₅z⁵u + e₆z⁶u` ([`stability_polynomials`]; the pair has orders 5 and 4,
/// so the lower terms cancel). The step forms the powers `w_j = zʲu` one after the other in
/// two buffers and accumulates `Σ r_j w_j`; the error is formed in the buffer of `w₅` once
/// `w₆` is there. Equal to the standard mode in exact arithmetic; the rounding differs (a sum
/// in the power basis, whose terms `|r_j|·‖zʲu‖` stay within `e^{‖z‖}‖u‖`, with `‖z‖` below the
/// stability bound ≈ 3.4 of the method). The operator type is a
/// [`matexp_core::LinearOperator`], so a time-dependent operator cannot be passed by mistake.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator, c64};
/// use matexp_integrators::rk::{CashKarpLean, Rk45Options};
/// let (one, zero) = (c64::new(1.0, 0.0), c64::new(0.0, 0.0));
/// let h = DenseMatrixOperator::new(2, 2, vec![zero, one, one, zero])?;
/// let cpu = CpuBackend;
/// let mut rk = CashKarpLean::new(&cpu, 2, Rk45Options::new(1e-10))?;
/// let mut psi = vec![one, zero];
/// rk.integrate(&h, c64::new(0.0, -1.0), 0.0, 3.0, &mut psi)?;
/// assert!((psi[0] - c64::new(3.0f64.cos(), 0.0)).norm() < 1e-9);
/// assert_eq!(rk.workspace_vectors(), 3);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct CashKarpLean<'b, B: Backend, S: Scalar>(CashKarp<'b, B, S>);

impl<'b, B: Backend, S: Scalar> CashKarpLean<'b, B, S> {
    /// A lean workspace for systems of order `n` (three vectors).
    ///
    /// # Errors
    /// As [`CashKarp::new`].
    pub fn new(backend: &'b B, n: usize, opts: Rk45Options) -> Result<Self> {
        opts.validate::<S::Real>()?;
        Ok(CashKarpLean(CashKarp {
            backend,
            n,
            opts,
            k: (0..2).map(|_| backend.zeros(n)).collect::<Result<_>>()?,
            tmp: backend.zeros(n)?,
            err: None,
            lean: Some(stability_polynomials()),
        }))
    }

    /// The backend vectors held besides the state (3).
    pub fn workspace_vectors(&self) -> usize {
        self.0.workspace_vectors()
    }

    /// Integrates `u' = c·A·u` from `t0` to `t1` in place.
    ///
    /// # Errors
    /// As [`CashKarp::integrate`].
    pub fn integrate<Op: LinearOperator<B, S>>(
        &mut self,
        op: &Op,
        c: S,
        t0: f64,
        t1: f64,
        y: &mut B::Vector<S>,
    ) -> Result<RkReport> {
        self.integrate_observed(op, c, &[t0, t1], y, |_, _| Ok(()))
    }

    /// As [`CashKarp::integrate_observed`]: `observe(t, u)` at every time of `times`.
    ///
    /// # Errors
    /// As [`CashKarp::integrate_observed`], and the observer's errors.
    pub fn integrate_observed<Op: LinearOperator<B, S>, F>(
        &mut self,
        op: &Op,
        c: S,
        times: &[f64],
        y: &mut B::Vector<S>,
        observe: F,
    ) -> Result<RkReport>
    where
        F: FnMut(f64, &B::Vector<S>) -> Result<()>,
    {
        let frozen = Autonomous(op);
        let ode = LinearOde::new(&frozen, c);
        self.0.integrate_observed(&ode, times, y, observe)
    }

    /// As [`CashKarp::integrate_until`]: the observer sees the report so far and returns
    /// whether to go on.
    ///
    /// # Errors
    /// As [`CashKarp::integrate_until`].
    pub fn integrate_until<Op: LinearOperator<B, S>, F>(
        &mut self,
        op: &Op,
        c: S,
        times: &[f64],
        y: &mut B::Vector<S>,
        observe: F,
    ) -> Result<RkReport>
    where
        F: FnMut(f64, &B::Vector<S>, &RkReport) -> Result<bool>,
    {
        let frozen = Autonomous(op);
        let ode = LinearOde::new(&frozen, c);
        self.0.integrate_until(&ode, times, y, observe)
    }
}
