//! The shape every f(tA)v method shares: [`ExpmvMethod`], written once over the one
//! operation each method implements (Σ_j τ^jφ_j(τA)b_j along a ray of times).

use crate::report::Report;
use crate::times::split_rays;
use crate::{MethodOptions, checks};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar};

/// The largest φ order the methods accept (the divided differences' limit).
pub const MAX_PHI_ORDER: usize = matexp_divdiff::MAX_PHI_ORDER;

/// A method for w = f(tA)v with a reusable workspace: [`crate::Leja`], [`crate::Lanczos`],
/// [`crate::Arnoldi`] and [`crate::Taylor`].
///
/// A method implements one operation, [`ExpmvMethod::combination`]: the φ-combination
/// Σ_j τᵢ^j·φ_j(τᵢA)·b_j at times τᵢ = scale·rᵢ along one ray (0 ≤ r₀ ≤ r₁ ≤ …). Everything
/// a caller uses is written once on top of it: [`expmv`](ExpmvMethod::expmv),
/// [`expmv_times`](ExpmvMethod::expmv_times) (any real or complex times on a line through 0,
/// negative ones included), [`phimv`](ExpmvMethod::phimv) (φ₀ … φ_k together, like Julia's
/// `phiv`), [`phimv_k`](ExpmvMethod::phimv_k), [`phi_combination`](ExpmvMethod::phi_combination)
/// and [`expmv_block`](ExpmvMethod::expmv_block). Complex time is spelled the same way for
/// every method: `t` is a scalar of the computation, e.g. `c64::new(0.0, -τ)` for e^{−iτH}v.
///
/// The workspace takes its order from the first operator it meets and resizes when a later
/// one has another order. Every call returns a [`Report`] with the relative error estimate
/// next to the requested `rtol`.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{Arnoldi, ExpmvMethod, Lanczos, Leja, Report, Taylor};
/// use matexp_core::Result;
/// fn solve<'a, M: ExpmvMethod<'a, CpuBackend, f64>>(cpu: &'a CpuBackend) -> Result<(Vec<f64>, Report)> {
///     let op = DenseMatrixOperator::new(2, 2, vec![-2.0, 1.0, 1.0, -2.0])?;
///     let mut m = M::new(cpu, M::Options::default())?;
///     let mut w = vec![0.0; 2];
///     let report = m.expmv(&op, 1.0, &vec![1.0, 1.0], &mut w)?;
///     Ok((w, report))
/// }
/// let cpu = CpuBackend::new();
/// let exact = (-1f64).exp(); // (1, 1) is an eigenvector for the eigenvalue −1
/// for (w, report) in [solve::<Leja<_, _>>(&cpu)?, solve::<Lanczos<_, _>>(&cpu)?,
///                     solve::<Arnoldi<_, _>>(&cpu)?, solve::<Taylor<_, _>>(&cpu)?] {
///     assert!((w[0] - exact).abs() < 1e-7 && (w[1] - exact).abs() < 1e-7, "{report}");
/// }
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub trait ExpmvMethod<'a, B: Backend + 'a, S: Scalar>: Sized {
    /// The method's options.
    type Options: MethodOptions;
    /// The method's name as it appears in reports.
    const NAME: &'static str;

    /// How much the method's own estimate is raised on a non-Hermitian operator whose
    /// propagation may amplify errors (the free bound on ‖e^{tA}‖ does not certify the
    /// tolerance; see the `propagation` module): 1 where the estimate already holds there.
    const AMPLIFIED_ESTIMATE_FACTOR: f64 = 1.0;

    /// A method with an empty workspace (vectors are allocated on first use, sized by the
    /// operator).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for options out of their domain or a tolerance below the
    /// roundoff of `S`.
    fn new(backend: &'a B, opts: Self::Options) -> Result<Self>;

    /// The backend the method runs on.
    fn backend(&self) -> &'a B;

    /// The options in use (tolerance resolved for `S`).
    fn options(&self) -> &Self::Options;

    /// Replaces the options.
    ///
    /// # Errors
    ///
    /// As [`ExpmvMethod::new`].
    fn set_options(&mut self, opts: Self::Options) -> Result<()>;

    /// `out[i]` ← Σ_j τᵢ^j·φ_j(τᵢA)·b_j with τᵢ = `scale`·`times[i]`, for `bs = [b₀, …, b_p]`
    /// (`None` is a zero vector). The caller has checked that `scale` is finite, `times` is
    /// non-empty, finite, ≥ 0 and non-decreasing, `out.len() == times.len()`, `bs` is not
    /// empty and p ≤ [`MAX_PHI_ORDER`]; the method checks the operator and vectors. The
    /// report's relative estimate and tolerance are filled in by the caller.
    ///
    /// # Errors
    ///
    /// `DimensionMismatch` for a non-square operator or vectors of another length,
    /// `NonFinite` for NaN/∞ in a vector or an overflowing result, `InvalidArgument` for an
    /// operator the method cannot take (Lanczos: not Hermitian), `Unsupported` for what the
    /// method does not compute, `NoConvergence` at the method's caps.
    fn combination<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        bs: &[Option<&B::Vector<S>>],
        out: &mut [B::Vector<S>],
    ) -> Result<Report>;

    /// w ← e^{tA}v (`t` complex for complex `S`, e.g. t = −iτ for e^{−iτH}v).
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for a non-finite `t`, and those of [`ExpmvMethod::combination`].
    fn expmv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<Report> {
        checks::time("t", t)?;
        let w = std::slice::from_mut(w);
        let r = self.combination(op, t, &[1.0], &[Some(v)], w)?;
        let r = certify(self, op, &[t], v, w, r)?;
        self.finish(r, w)
    }

    /// `out[i]` ← e^{tᵢA}v for times on one line through 0 (real times of either sign and
    /// in any order; complex times tᵢ = rᵢ·d with real rᵢ and one direction d). Times of one
    /// sign are computed in one march from 0, in order of |tᵢ|, so each output costs only the
    /// steps from the previous one (Lanczos: one basis for all).
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for no times, a non-finite time or complex times not on one line
    /// through 0; `DimensionMismatch` when `out.len() != times.len()`; and those of
    /// [`ExpmvMethod::combination`].
    fn expmv_times<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        times: &[S],
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        self.phi_combination_times(op, times, &[v], out)
    }

    /// w ← Σ_{j=0}^{p} t^j·φ_j(tA)·b_j for `bs = [b₀, …, b_p]`: the combination exponential
    /// integrators need (exponential Euler: u₁ = φ₀(hA)u₀ + h·φ₁(hA)g, i.e. bs = [u₀, g],
    /// t = h).
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for a non-finite `t`, an empty `bs` or p > [`MAX_PHI_ORDER`], and
    /// those of [`ExpmvMethod::combination`].
    fn phi_combination<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        bs: &[&B::Vector<S>],
        w: &mut B::Vector<S>,
    ) -> Result<Report> {
        checks::time("t", t)?;
        self.phi_combination_times(op, &[t], bs, std::slice::from_mut(w))
    }

    /// `out[i]` ← Σ_j tᵢ^j·φ_j(tᵢA)·b_j for times as in [`ExpmvMethod::expmv_times`].
    ///
    /// # Errors
    ///
    /// As [`ExpmvMethod::expmv_times`] and [`ExpmvMethod::phi_combination`].
    fn phi_combination_times<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        times: &[S],
        bs: &[&B::Vector<S>],
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        if bs.is_empty() {
            return Err(Error::invalid("bs", "[]", "needs at least b₀"));
        }
        check_phi_order(bs.len() - 1)?;
        checks::count(
            &format!("{}: number of outputs vs times", Self::NAME),
            times.len(),
            out.len(),
        )?;
        let bs: Vec<Option<&B::Vector<S>>> = bs.iter().map(|b| Some(*b)).collect();
        let rays = split_rays(times)?;
        let mut report: Option<Report> = None;
        // Estimates in ray order (the order the outputs have while `run` computes them).
        let mut estimates: Vec<f64> = Vec::with_capacity(times.len());
        rays.run(out, |scale, rs, outs| {
            let r = self.combination(op, scale, rs, &bs, outs)?;
            estimates.extend_from_slice(&r.per_output(rs.len()));
            match report.as_mut() {
                Some(total) => total.merge(&r),
                None => report = Some(r),
            }
            Ok(())
        })?;
        let mut report = report.unwrap_or_else(|| Report::new(Self::NAME));
        // Back to the caller's order of the times.
        let mut ordered = vec![0.0; estimates.len()];
        for (e, &i) in estimates.iter().zip(rays.order().iter()) {
            ordered[i] = *e;
        }
        report.output_estimates = ordered;
        if let [v] = bs.as_slice() {
            report = certify(self, op, times, v.expect("b₀"), out, report)?;
        }
        self.finish(report, out)
    }

    /// `out[j]` ← φ_j(tA)v for j = 0, …, k with k = `out.len()` − 1 (φ₀ = exp), like Julia's
    /// `phiv`. Lanczos builds one basis for all of them; the other methods compute each φ_j
    /// as t^{−j}·(t^jφ_j(tA)v) from the augmented operator, one after another. `t = 0` gives
    /// v/j!.
    ///
    /// # Errors
    ///
    /// `InvalidArgument` for an empty `out`, k > [`MAX_PHI_ORDER`], a non-finite `t` or
    /// t^k outside the floating-point range (use [`ExpmvMethod::phi_combination`]), and
    /// those of [`ExpmvMethod::combination`].
    fn phimv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        phimv_each(self, op, t, v, out)
    }

    /// w ← φ_k(tA)v (φ₀ = exp), as t^{−k}·(t^kφ_k(tA)v) by [`ExpmvMethod::combination`]
    /// with bs = [0, …, 0, v]; `t = 0` gives v/k!.
    ///
    /// # Errors
    ///
    /// As [`ExpmvMethod::phimv`].
    fn phimv_k<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        k: usize,
        t: S,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<Report> {
        checks::time("t", t)?;
        check_phi_order(k)?;
        if k == 0 {
            return self.expmv(op, t, v, w);
        }
        let be = self.backend();
        if t == S::zero() {
            let n = checks::square_order(Self::NAME, op)?;
            checks::vector(be, &format!("{}: v", Self::NAME), v, n)?;
            checks::output(be, &format!("{}: w", Self::NAME), w, n)?;
            let kfact: f64 = (1..=k).map(|i| i as f64).product();
            be.copy(v, w)?;
            be.scale(S::from_f64(1.0 / kfact), w)?;
            let r = Report::new(Self::NAME);
            return self.finish(r, std::slice::from_mut(w));
        }
        let tk = (0..k).fold(S::one(), |acc, _| acc * t);
        let inv = S::one() / tk;
        if !(inv.finite() && inv != S::zero()) {
            return Err(Error::invalid(
                "t",
                t,
                format!("t^{k} is outside the floating-point range; use phi_combination"),
            ));
        }
        let mut bs: Vec<Option<&B::Vector<S>>> = vec![None; k + 1];
        bs[k] = Some(v);
        let mut r = self.combination(op, t, &[1.0], &bs, std::slice::from_mut(w))?;
        be.scale(inv, w)?;
        // The combination's estimate is of t^kφ_k(tA)v; the result is scaled by t^{−k}, and
        // so is its error.
        let shrink = inv.to_c64().norm();
        r.error_estimate *= shrink;
        r.output_estimates.iter_mut().for_each(|e| *e *= shrink);
        self.finish(r, std::slice::from_mut(w))
    }

    /// `ws[j]` ← e^{tA}·`vs[j]` for a block of vectors, one after another through this
    /// workspace. The report sums the work and takes the worst estimate.
    ///
    /// # Errors
    ///
    /// `DimensionMismatch` when `ws.len() != vs.len()`, and those of [`ExpmvMethod::expmv`].
    fn expmv_block<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        vs: &[B::Vector<S>],
        ws: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::count(
            &format!("{}: number of outputs vs inputs", Self::NAME),
            vs.len(),
            ws.len(),
        )?;
        let mut total = Report::new(Self::NAME);
        for (v, w) in vs.iter().zip(ws.iter_mut()) {
            total.merge(&self.expmv(op, t, v, w)?);
        }
        // Each vector's estimate has its floor from its own products already.
        conclude_merged(self, total, ws)
    }

    /// Completes a report for `outputs` by the rule on [`Report`]: the tolerance, each
    /// output's absolute estimate ([`Report::output_estimates`] as the method gave them, or
    /// its largest estimate for every output) raised to its rounding floor
    /// [`ROUNDING_FACTOR`]·ε·(1 + products)·‖w_i‖₂, the worst relative estimate
    /// max_i e_i/(‖w_i‖₂ + atol/rtol), and `converged` ⇔ that estimate ≤ rtol (and the
    /// method's own test passed). Costs one norm per output.
    ///
    /// # Errors
    ///
    /// Those of the backend's norm.
    fn finish(&self, mut report: Report, outputs: &[B::Vector<S>]) -> Result<Report> {
        let norms = output_norms(self.backend(), outputs)?;
        // Rounding floor: every method's truncation estimate misses the rounding error,
        // which it cannot see (Krylov estimates are exactly 0 after a breakdown, Leja's last
        // terms fall below ε). The error of a backward-stable evaluation grows with the
        // work; ROUNDING_FACTOR·ε·(1 + products)·‖w‖ is calibrated on the accuracy suite
        // (fixtures/accuracy: it makes the estimate bound the achieved error wherever
        // the error is rounding-dominated, see bench-results/accuracy/).
        let eps = S::Real::EPS.as_f64();
        report.conclude(&norms, self.options().tolerance(), Some(eps));
        Ok(report)
    }
}

/// [`crate::propagation::certify`] for method `m`, whose probe is `m`'s kind of method at the
/// probe's loose tolerance, reusing the spectrum `report` names.
fn certify<'a, M, B, S, O>(
    m: &M,
    op: &O,
    times: &[S],
    v: &B::Vector<S>,
    out: &[B::Vector<S>],
    report: Report,
) -> Result<Report>
where
    M: ExpmvMethod<'a, B, S>,
    B: Backend + 'a,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    let be = m.backend();
    let tol = m.options().tolerance();
    let mut opts = m.options().clone();
    opts.set_tolerance(
        tol.with_rtol(tol.rtol.max(crate::propagation::PROBE_RTOL))
            .with_atol(0.0),
    );
    if let Some((b, _)) = report.bounds {
        // The spectrum the solve used serves the probe as well.
        opts.reuse_bounds(b);
    }
    let mut prober = M::new(be, opts).ok();
    let mut run =
        |scale: S, rs: &[f64], r: &B::Vector<S>, o: &mut [B::Vector<S>]| match prober.as_mut() {
            Some(p) => p.combination(op, scale, rs, &[Some(r)], o),
            None => Err(Error::Unsupported("no probe method".into())),
        };
    crate::propagation::certify(
        be,
        tol,
        M::AMPLIFIED_ESTIMATE_FACTOR,
        op,
        times,
        v,
        out,
        report,
        Some(&mut run),
    )
}

/// ‖w_i‖₂ of each output.
fn output_norms<B: Backend, S: Scalar>(be: &B, outputs: &[B::Vector<S>]) -> Result<Vec<f64>> {
    outputs.iter().map(|o| Ok(be.nrm2(o)?.as_f64())).collect()
}

/// [`ExpmvMethod::finish`] for reports merged from finished ones (φ_j one after another,
/// blocks of vectors): each output's estimate has its rounding floor, from the products of
/// its own call, already.
pub(crate) fn conclude_merged<'a, M, B, S>(
    m: &M,
    mut report: Report,
    outputs: &[B::Vector<S>],
) -> Result<Report>
where
    M: ExpmvMethod<'a, B, S>,
    B: Backend + 'a,
    S: Scalar,
{
    let norms = output_norms(m.backend(), outputs)?;
    report.conclude(&norms, m.options().tolerance(), None);
    Ok(report)
}

/// φ₀, …, φ_k one after another by [`ExpmvMethod::phimv_k`] (the default `phimv`).
pub(crate) fn phimv_each<'a, M, B, S, O>(
    m: &mut M,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    out: &mut [B::Vector<S>],
) -> Result<Report>
where
    M: ExpmvMethod<'a, B, S>,
    B: Backend + 'a,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    if out.is_empty() {
        return Err(Error::invalid(
            "out",
            "[]",
            "needs k + 1 ≥ 1 outputs for φ₀, …, φ_k",
        ));
    }
    check_phi_order(out.len() - 1)?;
    let mut total: Option<Report> = None;
    for (j, w) in out.iter_mut().enumerate() {
        let r = m.phimv_k(op, j, t, v, w)?;
        match total.as_mut() {
            Some(tot) => tot.merge(&r),
            None => total = Some(r),
        }
    }
    let report = total.expect("out is not empty");
    conclude_merged(m, report, out)
}

/// Checks a φ order against [`MAX_PHI_ORDER`].
pub(crate) fn check_phi_order(k: usize) -> Result<()> {
    if k > MAX_PHI_ORDER {
        return Err(Error::invalid(
            "k",
            k,
            format!("φ_k is supported for k ≤ {MAX_PHI_ORDER}"),
        ));
    }
    Ok(())
}

/// e^{tA}v with a fresh workspace of method `M`: the body of the per-method free functions.
pub(crate) fn expmv_with<'a, M, B, S, O>(
    backend: &'a B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: M::Options,
) -> Result<(B::Vector<S>, Report)>
where
    M: ExpmvMethod<'a, B, S>,
    B: Backend + 'a,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    let mut m = M::new(backend, opts)?;
    let mut w = checks::output_like(backend, M::NAME, op, v)?;
    let r = m.expmv(op, t, v, &mut w)?;
    Ok((w, r))
}

/// φ_k(tA)v with a fresh workspace of method `M`.
pub(crate) fn phimv_k_with<'a, M, B, S, O>(
    backend: &'a B,
    op: &O,
    k: usize,
    t: S,
    v: &B::Vector<S>,
    opts: M::Options,
) -> Result<(B::Vector<S>, Report)>
where
    M: ExpmvMethod<'a, B, S>,
    B: Backend + 'a,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    let mut m = M::new(backend, opts)?;
    let mut w = checks::output_like(backend, M::NAME, op, v)?;
    let r = m.phimv_k(op, k, t, v, &mut w)?;
    Ok((w, r))
}
