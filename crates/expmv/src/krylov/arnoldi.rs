//! The Arnoldi method with adaptive substeps (Expokit's `expv`/`phiv`, Sidje 1998), on the
//! augmented operator of [`crate::augmented`] for φ-functions (as in KIOPS, Gaudreault,
//! Rainwater & Tokman 2018).

use crate::augmented::{self as aug, AugOp, AugVec};
use crate::{ArnoldiOptions, ExpmvMethod, MethodOptions, Progress, Report, Tolerance, checks};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar};
use matexp_dense::{Matrix, expm};

/// Expokit's safety factors: accept if err ≤ δ·tol, next step γ·τ·(tol/err)^{1/m}.
const DELTA: f64 = 1.2;
const GAMMA: f64 = 0.9;
/// Largest growth of the step size from one substep to the next.
const MAX_GROWTH: f64 = 10.0;
/// Largest ‖τH‖₁ of a substep taken on an invariant Krylov space (a breakdown): far below
/// the ≈ 10¹⁶ where scaling and squaring of an oscillatory H loses every digit (it returns
/// 0 for ‖τH‖ ≳ 10²⁰), far above what a dissipative step needs to reach 0.
const BREAKDOWN_STEP_NORM: f64 = 1e9;

/// Arnoldi approximation of e^{tA}v, φ_k(tA)v and Σ_k t^kφ_k(tA)b_k for general (non-Hermitian)
/// A, with adaptive substeps and a reusable workspace.
///
/// **Method.** Each substep of length τ builds an m-dimensional Krylov basis V_{m+1} and
/// Hessenberg H_m of the current state x (modified Gram–Schmidt), and advances
/// x ← β·V_{m+1}·exp(τH̄)_{1:m+1,1}, with H̄ the (m+2)×(m+2) matrix
/// [[H_m, 0, 0], [h_{m+1,m}e_mᵀ, 0, 0], [0, 1, 0]] — Expokit's "corrected" scheme, whose
/// extra rows also give the error estimate. The small exponential is [`matexp_dense::expm`].
///
/// **Error control.** Expokit's estimate from φ₁ = β|exp(τH̄)_{m+1,1}| and
/// φ₂ = β|exp(τH̄)_{m+2,1}|·‖Av_{m+1}‖ (err = φ₂ if φ₁ > 10φ₂, φ₁φ₂/(φ₁ − φ₂) if
/// φ₁ > φ₂, φ₁ otherwise; one extra product per substep). A substep is accepted when
/// err ≤ 1.2·(τ/T)·(atol + rtol·‖x_new‖), so the local errors sum to the requested
/// tolerance over [0, T]; otherwise τ shrinks to 0.9·τ·(tol/err)^{1/m} and only the small
/// exponential is recomputed. The first τ is Expokit's a-priori guess with ‖H_m‖₁ in place of
/// ‖A‖. The estimate is heuristic (it assumes the error series decays); local errors are
/// summed, not propagated, which is exact for dissipative problems and optimistic for
/// strongly growing ones.
///
/// **Breakdown.** h_{j+1,j} ≤ 10·u·‖Av_j‖ means the Krylov space is invariant: the substep
/// has no truncation error and spans the remaining interval, up to ‖τH‖₁ ≤ 10⁹. What is
/// left is the rounding error of the small exponential, ≈ u·‖τH‖₁·‖x_new‖ (the condition of
/// the exponential), which is the substep's estimate; where it exceeds the tolerance no
/// substep can meet it (the ratio does not depend on τ) and the call fails with
/// [`Error::NoConvergence`] (e.g. e^{−itH} at |t|·‖H‖ ≳ 10⁸ for rtol = 10⁻⁸ in `f64`)
/// instead of returning what the exponential made of it.
///
/// **Results beyond the range.** For a Hermitian operator (e^{tA}v, not φ-combinations)
/// every Krylov basis proves an overflow for free: ‖e^{τA}x‖ ≥ ‖x‖·e^{Re τ·ρ} with the
/// Rayleigh quotient ρ = h₁₁ of the current state x (Jensen's inequality,
/// the bound Lanczos and Leja apply), so a remaining time whose bound exceeds the range ends
/// the call with [`Error::NonFinite`] before a substep is spent on it (e^{tA}·1 of a 2D
/// Laplacian at t = −10³⁰⁰: at the first basis). The bound tightens as the state turns
/// towards the dominant eigenvectors. For non-Hermitian operators nothing is proven up
/// front (ρ is a point of the field of values, and ‖e^{tA}v‖ may lie below e^{Re t·ρ}‖v‖):
/// an overflow is detected only when a substep's result or the state overflows
/// ([`Error::NonFinite`] too), and a result beyond the range that needs more substeps than
/// the caps allow ends with [`Error::NoConvergence`] at the cap instead.
///
/// **φ-functions.** Σ_{k=0}^{p} t^kφ_k(tA)b_k is the exponential of the (n+p)-dimensional
/// operator [[A, W/η], [0, J]] applied to [b₀; η·e_p]; the p extra entries live on the host,
/// η is rebalanced to ‖x‖ at every substep, and the same substepping applies (KIOPS).
///
/// **Cost.** Per substep m + 1 products, O(n·m²) vector work (Gram–Schmidt), one
/// exponential of order m + 2 per trial; memory (m + 3) vectors. Rejections cost no
/// products. The number of substeps grows like ‖tA‖/m for nonnormal or skew problems.
///
/// **Several times.** [`ExpmvMethod::expmv_times`] steps through t₁ ≤ t₂ ≤ …, landing exactly
/// on each output time.
///
/// **Cost estimate, cap and progress.** After the first Krylov basis (m + 1 products, the
/// only ones before it), [`Report::cost_estimate`] applies the step-size rule to that basis:
/// the steady step τ* where τ ← γτ(tol_τ/err)^{1/m} settles (err(τ*) = γ^m·tol_τ, found by
/// bisection on the small exponential, no products), the output intervals cut into
/// substeps of at most τ*, plus the ⌈log₁₀(τ*/τ₀)⌉ substeps the rule needs to grow from
/// Expokit's first step τ₀, times m + 1. An estimate from the first state: on nonnormal
/// operators (upwind advection–diffusion, t‖A‖ up to 4·10³) products/estimate was
/// 0.22–1.0; on dissipative Hermitian ones the state smooths and later substeps grow, so
/// the estimate errs high (products/estimate down to 0.15 at t‖A‖ = 1.6·10⁴, falling as
/// t‖A‖ grows). A call whose estimate exceeds twice [`ArnoldiOptions::max_products`] is
/// refused after that first basis — except for Hermitian operators at real times, whose
/// estimate is too pessimistic to refuse on; a substep that would pass the cap is not
/// started; both with [`Error::NoConvergence`] naming `max_products`, never a partial
/// result. [`ArnoldiOptions::progress`] is called after every accepted substep.
///
/// # Errors
///
/// Those of [`ExpmvMethod::expmv`]; [`Error::NoConvergence`] at `max_substeps`,
/// `max_rejections`, `max_matvecs`, the cost cap `max_products`, or a rounding floor above
/// the tolerance; [`Error::NonFinite`] when the state overflows or, for Hermitian
/// operators, as soon as a basis proves that the result does (see **Results beyond the
/// range**).
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{Arnoldi, ArnoldiOptions, ExpmvMethod};
/// let cpu = CpuBackend::new();
/// // A nonnormal 2×2: e^{[[−1, 10], [0, −2]]}.
/// let op = DenseMatrixOperator::new(2, 2, vec![-1.0, 10.0, 0.0, -2.0])?;
/// let mut arn = Arnoldi::new(&cpu, ArnoldiOptions::default().with_rtol(1e-12))?;
/// let mut w = vec![0.0; 2];
/// arn.expmv(&op, 1.0, &vec![0.0, 1.0], &mut w)?;
/// let (e1, e2) = ((-1f64).exp(), (-2f64).exp());
/// assert!((w[0] - 10.0 * (e1 - e2)).abs() < 1e-11 && (w[1] - e2).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Arnoldi<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    opts: ArnoldiOptions,
    n: usize,
    basis: Vec<AugVec<B, S>>,
    av: Option<AugVec<B, S>>,
    x: Option<AugVec<B, S>>,
    cand: Option<AugVec<B, S>>,
}

impl<'a, B: Backend + 'a, S: Scalar> ExpmvMethod<'a, B, S> for Arnoldi<'a, B, S> {
    type Options = ArnoldiOptions;
    const NAME: &'static str = "arnoldi";

    /// Vectors are allocated on first use and kept for later calls.
    fn new(backend: &'a B, opts: ArnoldiOptions) -> Result<Self> {
        Ok(Arnoldi {
            backend,
            opts: opts.resolved::<S>()?,
            n: 0,
            basis: Vec::new(),
            av: None,
            x: None,
            cand: None,
        })
    }

    fn backend(&self) -> &'a B {
        self.backend
    }

    fn options(&self) -> &ArnoldiOptions {
        &self.opts
    }

    fn set_options(&mut self, opts: ArnoldiOptions) -> Result<()> {
        self.opts = opts.resolved::<S>()?;
        Ok(())
    }

    /// Substeps through the augmented operator [[A, W/η], [0, J]], W = [b_p, …, b₁], from
    /// [b₀; η·e_p], landing exactly on each output time.
    fn combination<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        bs: &[Option<&B::Vector<S>>],
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::time("scale", scale)?;
        checks::times(times)?;
        let n = self.check_op(op)?;
        for (j, b) in bs.iter().enumerate() {
            if let Some(b) = b {
                checks::vector(self.backend, &format!("arnoldi: b_{j}"), b, n)?;
            }
        }
        for (i, o) in out.iter().enumerate() {
            checks::output(self.backend, &format!("arnoldi: output {i}"), o, n)?;
        }
        let p = bs.len() - 1;
        let wcols: Vec<Option<&B::Vector<S>>> = (0..p).map(|i| bs[p - i]).collect();
        self.integrate(op, scale, times, bs[0], wcols, out)
    }
}

impl<'a, B: Backend, S: Scalar> Arnoldi<'a, B, S> {
    fn check_op<O: LinearOperator<B, S> + ?Sized>(&mut self, op: &O) -> Result<usize> {
        let n = checks::square_order("arnoldi", op)?;
        if n != self.n {
            self.n = n;
            self.basis.clear();
            self.av = None;
            self.x = None;
            self.cand = None;
        }
        Ok(n)
    }

    fn ensure(&mut self, m: usize, p: usize) -> Result<()> {
        let (be, n) = (self.backend, self.n);
        while self.basis.len() < m + 1 {
            self.basis.push(AugVec::zeros(be, n, p)?);
        }
        for slot in [&mut self.av, &mut self.x, &mut self.cand] {
            if slot.is_none() {
                *slot = Some(AugVec::zeros(be, n, p)?);
            }
        }
        for v in self.basis.iter_mut() {
            v.set_tail_len(p);
        }
        for v in [&mut self.av, &mut self.x, &mut self.cand]
            .into_iter()
            .flatten()
        {
            v.set_tail_len(p);
        }
        Ok(())
    }

    /// The substepping driver: x(0) = [b₀; η·e_p], x ← exp(τ·scale·Ã)x, outputs the top
    /// block at each time.
    fn integrate<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        b0: Option<&B::Vector<S>>,
        wcols: Vec<Option<&B::Vector<S>>>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let be = self.backend;
        let n = self.n;
        let p = wcols.len();
        if p > MAX_AUGMENTED_COLUMNS {
            return Err(Error::Unsupported(format!(
                "arnoldi: {p} φ-columns (φ_k with k = {p}, or a combination of {p} vectors): the \
                 augmented Hessenberg exponential of Arnoldi loses its range beyond \
                 {MAX_AUGMENTED_COLUMNS}; use Leja, Lanczos (Hermitian operators) or Taylor"
            )));
        }
        let m = self.opts.krylov_dim.min(n + p).max(1);
        // The rounding probe (`sensitivity`) is for the amplification that non-normality adds
        // to the process's rounding. A Hermitian operator is normal: its rounding grows at
        // most with the state, which the local estimates already follow. With φ-columns
        // (p > 0) the probe would measure the augmented vector, whose tail is exact, against
        // a tolerance on the top block alone; those calls keep the local estimates only.
        let probe_rounding = p == 0 && !op.is_hermitian();
        self.ensure(m, p)?;
        let mut x = self.x.take().expect("allocated by ensure");
        let mut cand = self.cand.take().expect("allocated by ensure");
        let mut av = self.av.take().expect("allocated by ensure");
        let result = (|| -> Result<Report> {
            let aop = augmented_start(be, op, b0, wcols, &mut x)?;
            let mut state = ArnoldiState {
                be,
                opts: self.opts,
                aop,
                scale,
                times,
                n,
                p,
                m,
                probe_rounding,
                t_end: *times.last().expect("checked non-empty"),
                abs_scale: scale.modulus().as_f64(),
                eps: S::Real::EPS.as_f64(),
                basis: &mut self.basis,
                prev_top: be.nrm2(&x.big)?.as_f64(),
                x: &mut x,
                cand: &mut cand,
                av: &mut av,
                report: Report::new("arnoldi"),
                h: Matrix::<S>::zeros(m + 2, m + 2),
                s: 0.0,
                oi: 0,
                dt_next: None,
            };
            state.run(out)?;
            Ok(state.report)
        })();
        self.x = Some(x);
        self.cand = Some(cand);
        self.av = Some(av);
        result.map(|mut report| {
            report.bounds = report
                .bounds
                .map(|(b, src)| (clip_box(b, op.spectral_bounds(), op.is_hermitian()), src));
            report
        })
    }
}

/// The augmented start x = [b₀; η·e_p] (b₀ = 0 where absent) and the operator Ã with that η,
/// a power of two near the largest ‖b_k‖, k ≥ 1.
fn augmented_start<'o, B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &'o O,
    b0: Option<&B::Vector<S>>,
    wcols: Vec<Option<&'o B::Vector<S>>>,
    x: &mut AugVec<B, S>,
) -> Result<AugOp<'o, B, S, O>> {
    match b0 {
        Some(b) => be.copy(b, &mut x.big)?,
        None => be.fill(&mut x.big, S::zero())?,
    }
    let mut wmax = 0.0f64;
    for w in wcols.iter().flatten() {
        wmax = wmax.max(be.nrm2(w)?.as_f64());
    }
    let eta = checks::pow2_near(wmax);
    let p = wcols.len();
    if p > 0 {
        x.tail[p - 1] = S::from_f64(eta);
    }
    Ok(AugOp {
        op,
        w: wcols,
        inv_eta: S::from_f64(1.0 / eta),
    })
}

/// One call's substepping: the augmented operator and the call's constants, the Krylov
/// basis and vectors of the workspace, and what carries from substep to substep.
struct ArnoldiState<'c, B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> {
    be: &'c B,
    opts: ArnoldiOptions,
    aop: AugOp<'c, B, S, O>,
    scale: S,
    times: &'c [f64],
    n: usize,
    /// φ-columns (the tail length of the augmented vectors).
    p: usize,
    /// Krylov dimension.
    m: usize,
    probe_rounding: bool,
    t_end: f64,
    abs_scale: f64,
    eps: f64,
    basis: &'c mut [AugVec<B, S>],
    /// The state at time `s`.
    x: &'c mut AugVec<B, S>,
    /// A substep's candidate result.
    cand: &'c mut AugVec<B, S>,
    /// Ã·v_{m+1}, for Expokit's error estimate.
    av: &'c mut AugVec<B, S>,
    report: Report,
    /// The Hessenberg matrix of the current basis (leading (m + 1) × m block).
    h: Matrix<S>,
    /// The time reached.
    s: f64,
    /// The next output not written.
    oi: usize,
    /// The step the rule proposed after the last accepted substep.
    dt_next: Option<f64>,
    /// ‖top block‖ of the state after the last accepted substep.
    prev_top: f64,
}

/// What the Krylov basis of one state gives a substep.
struct Krylov {
    /// ‖x‖₂ of the state the basis starts from.
    beta: f64,
    /// Dimension reached: `m`, or less at a breakdown.
    mb: usize,
    /// The Krylov space is invariant (no truncation error).
    breakdown: bool,
    /// ‖Ã·v_{m+1}‖₂ (0 at a breakdown).
    avnorm: f64,
    /// |scale|·‖H‖₁: ‖τH‖₁ = dt·hnorm.
    hnorm: f64,
}

/// One step size tried on a basis: the small matrix τH̄ and its exponential (`None` where it
/// overflowed), Expokit's estimate, its exponent 1/m for the step-size rule, the substep's
/// share of the tolerance and the top norm of the candidate.
struct Trial<S: Scalar> {
    hbar: Matrix<S>,
    f: Option<Matrix<S>>,
    err: f64,
    xm: f64,
    tol_loc: f64,
    cand_top: f64,
}

/// An accepted substep: its length, estimate, rounding probe and what the rule needs.
struct Accepted {
    dt: f64,
    err: f64,
    xm: f64,
    tol_loc: f64,
    sens: f64,
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> ArnoldiState<'_, B, S, O> {
    /// Substeps until every output is written: per substep a Krylov basis of the state, the
    /// cost estimate after the first one, the step-size trials and the accepted step.
    fn run(&mut self, out: &mut [B::Vector<S>]) -> Result<()> {
        loop {
            while self.oi < self.times.len() && self.times[self.oi] <= self.s {
                self.be.copy(&self.x.big, &mut out[self.oi])?;
                // The local estimates up to this time are this output's.
                self.report
                    .output_estimates
                    .push(self.report.error_estimate);
                self.oi += 1;
            }
            if self.oi == self.times.len() {
                return Ok(());
            }
            self.check_caps()?;
            if self.p > 0 {
                self.rebalance()?;
            }
            let beta = aug::nrm2(self.be, self.x)?;
            if !beta.is_finite() {
                return Err(Error::NonFinite {
                    context: format!("arnoldi: the state overflows at t = {:.6e}", self.s),
                    index: 0,
                    value: format!("{beta}"),
                });
            }
            if beta == 0.0 {
                for o in out[self.oi..].iter_mut() {
                    self.be.fill(o, S::zero())?;
                    self.report
                        .output_estimates
                        .push(self.report.error_estimate);
                }
                return Ok(());
            }
            let k = self.krylov_basis(beta)?;
            let remaining = self.times[self.oi] - self.s;
            if self.report.substeps == 0 && self.report.cost_estimate == 0 {
                self.estimate_cost(&k)?;
            }
            let dt = match self.dt_next {
                _ if k.breakdown => remaining.min(BREAKDOWN_STEP_NORM / k.hnorm),
                Some(d) => d.min(remaining),
                None => {
                    let anorm = self.abs_scale * self.h.norm_one().as_f64();
                    initial_step(
                        self.m,
                        anorm,
                        self.opts.tol.atol / beta + self.opts.tol.rtol,
                    )
                    .min(remaining)
                }
            };
            let step = self.substep(&k, dt)?;
            self.accept(&step, remaining)?;
        }
    }

    /// The error ending the call at a cap or limit: what stopped it, and how far it got.
    fn stop(&self, what: &str) -> Error {
        let (s, t_end, report) = (self.s, self.t_end, &self.report);
        Error::NoConvergence {
            method: "arnoldi",
            detail: format!(
                "{what}: reached t = {s:.6e} of {t_end:.6e} after {} substeps, {} \
                 rejections and {} products (estimated error so far {:.3e})",
                report.substeps, report.rejected, report.matvecs, report.error_estimate
            ),
        }
    }

    /// Refuses a substep that would pass `max_substeps`, `max_matvecs` or `max_products`.
    fn check_caps(&self) -> Result<()> {
        let (opts, m) = (&self.opts, self.m);
        if self.report.substeps >= opts.max_substeps {
            return Err(self.stop("max_substeps reached"));
        }
        if self.report.matvecs + m + 1 > opts.max_matvecs {
            return Err(self.stop("max_matvecs reached"));
        }
        if self.report.matvecs + m + 1 > opts.max_products {
            return Err(self.stop(&format!(
                "cost cap max_products = {} reached (estimated up front: {})",
                opts.max_products, self.report.cost_estimate
            )));
        }
        Ok(())
    }

    /// Rebalances η: ‖tail‖ ≈ ‖top‖ keeps the tolerance meaningful for the top.
    fn rebalance(&mut self) -> Result<()> {
        let nb = self.be.nrm2(&self.x.big)?.as_f64();
        let nt = aug::tail_norm(&self.x.tail);
        if nb > 0.0 && nt > 0.0 {
            let rho = checks::pow2_near(nb / nt);
            self.x.tail.iter_mut().for_each(|v| *v *= S::from_f64(rho));
            self.aop.inv_eta /= S::from_f64(rho);
        }
        Ok(())
    }

    /// The Krylov basis V and Hessenberg matrix H of the state (norm `beta`) by Arnoldi with
    /// modified Gram–Schmidt, stopping early where the space is invariant; the Ritz box, the
    /// overflow proof of a Hermitian operator and ‖Ã·v_{m+1}‖ follow from it.
    fn krylov_basis(&mut self, beta: f64) -> Result<Krylov> {
        let (be, m, eps, s) = (self.be, self.m, self.eps, self.s);
        aug::copy(be, self.x, &mut self.basis[0])?;
        aug::scale(be, S::from_f64(1.0 / beta), &mut self.basis[0])?;
        self.h
            .as_mut_slice()
            .iter_mut()
            .for_each(|v| *v = S::zero());
        let mut mb = m;
        let mut breakdown = false;
        // ‖Av₁‖ (the first product, before orthogonalization): the rounding of ρ.
        let mut av1 = 0.0;
        for j in 0..m {
            let (done, rest) = self.basis.split_at_mut(j + 1);
            let next = &mut rest[0];
            self.aop.apply(be, &done[j], next)?;
            self.report.matvecs += 1;
            let mut sq = 0.0;
            for (i, vi) in done.iter().enumerate() {
                let hij = aug::dot(be, vi, next)?;
                aug::axpby(be, -hij, vi, S::one(), next)?;
                self.h[(i, j)] = hij;
                sq += hij.modulus_sqr().as_f64();
            }
            let hn = aug::nrm2(be, next)?;
            if j == 0 {
                av1 = sq.sqrt().hypot(hn);
            }
            if !(hn.is_finite() && sq.is_finite()) {
                return Err(Error::NonFinite {
                    context: format!(
                        "arnoldi: Krylov step {j} at t = {s:.6e} (the operator returned NaN/∞)"
                    ),
                    index: j,
                    value: format!("{hn}"),
                });
            }
            // A basis of the whole space (j + 1 = n + p) spans an invariant space
            // whatever rounding leaves in `next`: there, hn of a few ε·‖Av_j‖
            // above the test would make a noise vector the next basis vector,
            // and its substeps would be truncation steps on rounding.
            if hn <= 10.0 * eps * (sq + hn * hn).sqrt() || j + 1 == self.n + self.p {
                breakdown = true;
                mb = j + 1;
                break;
            }
            self.h[(j + 1, j)] = S::from_f64(hn);
            aug::scale(be, S::from_f64(1.0 / hn), next)?;
        }
        self.report.max_degree = self.report.max_degree.max(mb);
        self.report.bounds = ritz_box(&self.h, mb, self.report.bounds);
        if self.p == 0 && self.aop.op.is_hermitian() {
            self.prove_in_range(beta, av1)?;
        }
        let avnorm = if breakdown {
            0.0
        } else {
            self.aop.apply(be, &self.basis[m], self.av)?;
            self.report.matvecs += 1;
            aug::nrm2(be, self.av)?
        };
        Ok(Krylov {
            beta,
            mb,
            breakdown,
            avnorm,
            hnorm: self.abs_scale * self.h.norm_one().as_f64(),
        })
    }

    /// For a Hermitian operator, fails with the overflow that the Rayleigh quotient of the
    /// state proves for a remaining output time; `av1` = ‖Av₁‖ sets the rounding of ρ.
    fn prove_in_range(&self, beta: f64, av1: f64) -> Result<()> {
        // ρ = h₁₁ = x̂ᴴAx̂ of the current state: a result beyond the range is
        // proven from it (no product of its own), before any substep towards it.
        let rho = self.h[(0, 0)].to_c64().re;
        let rounding = self.n.max(1) as f64 * self.eps * av1;
        let sc = self.scale.to_c64();
        for (j, &t) in self.times.iter().enumerate().skip(self.oi) {
            let tau = sc * (t - self.s);
            let slack = tau.re.abs() * rounding;
            let e = crate::leja::overflow_bound::<S>("arnoldi", beta.ln(), tau, rho, slack, j);
            if let Some(e) = e {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The up-front cost estimate from the first basis ([`Plan`]), and the refusal of a call
    /// whose estimate exceeds twice the product cap.
    fn estimate_cost(&mut self, k: &Krylov) -> Result<()> {
        let (m, opts) = (self.m, self.opts);
        let first = initial_step(m, k.hnorm, opts.tol.atol / k.beta + opts.tol.rtol);
        self.report.cost_estimate = if k.breakdown {
            let sub = (self.t_end * k.hnorm / BREAKDOWN_STEP_NORM).ceil().max(1.0);
            (sub * k.mb as f64).min(usize::MAX as f64) as usize
        } else {
            let plan = Plan {
                h: &self.h,
                m,
                beta: k.beta,
                avnorm: k.avnorm,
                scale: self.scale,
                t_end: self.t_end,
                tol: opts.tol,
            };
            plan.products(self.times, first)
        };
        // Dissipative Hermitian problems: pessimistic estimate, no refusal.
        let smoothing = self.aop.op.is_hermitian() && self.scale.to_c64().im == 0.0;
        if !smoothing && self.report.cost_estimate / 2 > opts.max_products {
            return Err(Error::NoConvergence {
                method: "arnoldi",
                detail: format!(
                    "cost cap max_products = {} refused after the first Krylov \
                     basis ({} products): about {} products are needed \
                     (|t|·‖H_m‖₁ = {:.3e})",
                    opts.max_products,
                    self.report.matvecs,
                    self.report.cost_estimate,
                    self.t_end * k.hnorm
                ),
            });
        }
        Ok(())
    }

    /// The step-size trials on one basis from `dt` on: shrink τ to 0.9·τ·(tol/err)^{1/m}
    /// until Expokit's estimate meets the substep's share of the tolerance (only the small
    /// exponential is recomputed), then probe the rounding of a non-normal substep.
    fn substep(&mut self, k: &Krylov, mut dt: f64) -> Result<Accepted> {
        let opts = self.opts;
        let mut rejections = 0;
        loop {
            let t = self.trial(k, dt)?;
            let (err, tol_loc) = (t.err, t.tol_loc);
            if k.breakdown && t.f.is_some() && err > DELTA * tol_loc {
                // err/tol_loc ≈ u·|scale|·‖H‖₁·t_end/rtol whatever τ is: a shorter
                // substep cannot help.
                return Err(self.stop(&format!(
                    "the Krylov space is invariant, but the rounding error of its \
                     small exponential, ≈ ε·‖τH‖₁·‖x‖ = {err:.3e}, exceeds the \
                     allowed {tol_loc:.3e} (|t|·‖H‖₁ ≈ {:.3e} is beyond what {} \
                     resolves at rtol = {:.1e})",
                    k.hnorm * self.t_end,
                    S::NAME,
                    opts.tol.rtol
                )));
            }
            if let (Some(f), true) = (&t.f, err <= DELTA * tol_loc) {
                // `sens` enters the estimate, not the step-size rule: shorter substeps do not
                // reduce it in proportion to their share of the tolerance.
                let sens = if k.breakdown || !self.probe_rounding {
                    0.0 // already in err, or not needed (see `probe_rounding`)
                } else {
                    sensitivity(&t.hbar, f, k.mb, k.beta)
                };
                if sens > opts.tol.bound(t.cand_top) {
                    // The rounding of the Krylov process alone, as amplified by this
                    // substep's exponential, exceeds the whole tolerance; shorter
                    // substeps do not shrink an amplification of non-normal growth.
                    return Err(self.stop(&format!(
                        "the result is sensitive to rounding beyond the tolerance: \
                         perturbing the Hessenberg matrix by ε·‖τH‖₁ changes this \
                         substep's result by {sens:.3e}, against the allowed \
                         {:.3e} (a strongly non-normal operator: use Taylor, whose \
                         products keep the structure of A)",
                        opts.tol.bound(t.cand_top)
                    )));
                }
                return Ok(Accepted {
                    dt,
                    err,
                    xm: t.xm,
                    tol_loc,
                    sens,
                });
            }
            self.report.rejected += 1;
            rejections += 1;
            if rejections > opts.max_rejections {
                return Err(self.stop(&format!(
                    "{} step-size rejections in a row (last τ = {dt:.3e}, \
                     estimated local error {err:.3e} vs allowed {tol_loc:.3e})",
                    rejections
                )));
            }
            dt = if err.is_finite() && err > 0.0 && tol_loc > 0.0 {
                (GAMMA * dt * (tol_loc / err).powf(t.xm)).min(0.5 * dt)
            } else {
                0.1 * dt
            };
            if dt.is_nan() || dt <= 0.0 || self.s + dt == self.s {
                return Err(self.stop("the step size underflowed"));
            }
        }
    }

    /// One step size `dt` on the basis: the exponential of τH̄ (Expokit's corrected matrix,
    /// or H alone at a breakdown), the estimate, and the candidate x_new = β·V·e^{τH̄}e₁ whose
    /// top norm sets the substep's tolerance. At a breakdown the estimate is the rounding
    /// of the small exponential.
    fn trial(&mut self, k: &Krylov, dt: f64) -> Result<Trial<S>> {
        let (m, mb, breakdown, beta) = (self.m, k.mb, k.breakdown, k.beta);
        let tau = self.scale * S::from_f64(dt);
        let size = if breakdown { mb } else { m + 2 };
        let mut hbar = Matrix::<S>::zeros(size, size);
        for j in 0..mb.min(size) {
            for i in 0..=(j + 1).min(size - 1) {
                hbar[(i, j)] = tau * self.h[(i, j)];
            }
        }
        if !breakdown {
            hbar[(m + 1, m)] = tau;
        }
        let f = match expm(&hbar) {
            Ok(f) => Some(f),
            Err(Error::NonFinite { .. }) => None,
            Err(e) => return Err(e),
        };
        let (mut err, xm, mc) = match &f {
            None => (f64::INFINITY, 1.0, 0),
            Some(_) if breakdown => (0.0, 1.0, mb),
            Some(f) => {
                let p1 = beta * f[(m, 0)].modulus().as_f64();
                let p2 = beta * f[(m + 1, 0)].modulus().as_f64() * k.avnorm;
                let (e, xm) = expokit_estimate(p1, p2, m);
                (e, xm, m + 1)
            }
        };
        let mut cand_top = 0.0;
        let tol_loc = if let Some(f) = &f {
            let top = self.candidate(f, mc, beta, dt)?;
            cand_top = top;
            if breakdown {
                // No truncation: the rounding of e^{τH} is the whole error, at
                // least ε·‖τH‖₁·‖x‖ and more where e^{τH} amplifies it.
                err = self.eps * dt * k.hnorm * top;
                if self.probe_rounding {
                    err = err.max(sensitivity(&hbar, f, mb, beta));
                }
            }
            (dt / self.t_end) * self.opts.tol.bound(top)
        } else {
            0.0
        };
        Ok(Trial {
            hbar,
            f,
            err,
            xm,
            tol_loc,
            cand_top,
        })
    }

    /// The candidate x_new = β·V·F[:, 0] over the first `mc` basis vectors, and its top
    /// norm; an overflow of it ends the call.
    fn candidate(&mut self, f: &Matrix<S>, mc: usize, beta: f64, dt: f64) -> Result<f64> {
        let be = self.be;
        be.fill(&mut self.cand.big, S::zero())?;
        self.cand.tail.iter_mut().for_each(|v| *v = S::zero());
        for i in 0..mc {
            let c = f[(i, 0)] * S::from_f64(beta);
            aug::axpby(be, c, &self.basis[i], S::one(), self.cand)?;
        }
        let top = be.nrm2(&self.cand.big)?.as_f64();
        if !top.is_finite() {
            let s = self.s;
            return Err(Error::NonFinite {
                context: format!(
                    "arnoldi: the solution overflows the {} range between \
                     t = {s:.6e} and {:.6e}",
                    S::NAME,
                    s + dt
                ),
                index: 0,
                value: format!("‖x‖ = {top}"),
            });
        }
        Ok(top)
    }

    /// Takes the accepted substep: the candidate becomes the state, its estimate joins the
    /// summed ones, the time advances (onto the output time where the substep reaches it)
    /// and the rule proposes the next step.
    fn accept(&mut self, a: &Accepted, remaining: f64) -> Result<()> {
        std::mem::swap(&mut *self.x, &mut *self.cand);
        self.report.substeps += 1;
        // Errors so far grow with the state where it grows (relative errors kept)
        // and stay where it decays: summing them unscaled (Expokit) is exact for
        // dissipative problems and under-reads growing ones by their growth.
        let x_top = self.be.nrm2(&self.x.big)?.as_f64();
        if self.prev_top > 0.0 && x_top > self.prev_top {
            self.report.error_estimate *= x_top / self.prev_top;
        }
        self.prev_top = x_top;
        self.report.error_estimate += a.err + a.sens;
        self.s = if a.dt >= remaining {
            self.times[self.oi]
        } else {
            self.s + a.dt
        };
        if let Some(cb) = self.opts.progress {
            (cb.0)(&Progress {
                products: self.report.matvecs,
                estimated_products: self.report.cost_estimate,
                fraction: if self.t_end > 0.0 {
                    self.s / self.t_end
                } else {
                    1.0
                },
            });
        }
        let grow = if a.err > 0.0 {
            (GAMMA * (a.tol_loc / a.err).powf(a.xm)).min(MAX_GROWTH)
        } else {
            MAX_GROWTH
        };
        self.dt_next = Some(a.dt * grow);
        Ok(())
    }
}

/// Expokit's local error estimate from φ₁ = β|e^{τH̄}_{m+1,1}| and φ₂ =
/// β|e^{τH̄}_{m+2,1}|·‖Av_{m+1}‖, with the exponent 1/m (1/(m − 1) in the last case) of its
/// step-size rule.
fn expokit_estimate(p1: f64, p2: f64, m: usize) -> (f64, f64) {
    if p1 > 10.0 * p2 {
        (p2, 1.0 / m as f64)
    } else if p1 > p2 {
        (p1 * p2 / (p1 - p2), 1.0 / m as f64)
    } else {
        (p1, 1.0 / (m.max(2) - 1) as f64)
    }
}

/// The reported box: the Ritz box `b` intersected with what is proven about the spectrum,
/// the operator's bounds `proven` where it has them and, for a Hermitian operator, the real
/// axis. The Ritz values of a Hermitian A are Rayleigh quotients, inside [λ_min, λ_max] and
/// so inside any proven interval: clipping only removes the Gershgorin radii of H (a
/// negative-definite A showed a positive end). For a non-Hermitian A the Ritz values lie in
/// the field of values, which may reach beyond a box of the spectrum: clipped, the box
/// describes the spectrum, not the field of values. Where the two are disjoint, each end is
/// moved into the proven box (the nearest edge).
fn clip_box(
    b: matexp_core::SpectralBounds,
    proven: Option<matexp_core::SpectralBounds>,
    hermitian: bool,
) -> matexp_core::SpectralBounds {
    let (mut a, mut c, mut d, mut e) = (b.re_min, b.re_max, b.im_min, b.im_max);
    if hermitian {
        (d, e) = (0.0, 0.0);
    }
    if let Some(p) = proven {
        let clamp = |x: f64, lo: f64, hi: f64| if lo <= hi { x.max(lo).min(hi) } else { x };
        (a, c) = (clamp(a, p.re_min, p.re_max), clamp(c, p.re_min, p.re_max));
        (d, e) = (clamp(d, p.im_min, p.im_max), clamp(e, p.im_min, p.im_max));
    }
    matexp_core::SpectralBounds::new(a.min(c), a.max(c), d.min(e), d.max(e)).unwrap_or(b)
}

/// The Gershgorin box of the leading `m × m` block of the Hessenberg matrix `h` (it holds
/// the Ritz values), united with `seen` (earlier substeps); `seen` unchanged when a value
/// is not finite.
fn ritz_box<S: Scalar>(
    h: &Matrix<S>,
    m: usize,
    seen: Option<(matexp_core::SpectralBounds, crate::BoundsSource)>,
) -> Option<(matexp_core::SpectralBounds, crate::BoundsSource)> {
    let (mut a, mut b, mut c, mut d) = seen.map_or(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(s, _)| (s.re_min, s.re_max, s.im_min, s.im_max),
    );
    for i in 0..m {
        let r: f64 = (0..m)
            .filter(|&j| j != i)
            .map(|j| h[(i, j)].to_c64().norm())
            .sum();
        let z = h[(i, i)].to_c64();
        (a, b) = (a.min(z.re - r), b.max(z.re + r));
        (c, d) = (c.min(z.im - r), d.max(z.im + r));
    }
    if !S::IS_COMPLEX {
        // Real H: its Ritz values come in conjugate pairs, so the box is symmetric.
        let y = d.max(-c);
        (c, d) = (-y, y);
    }
    match matexp_core::SpectralBounds::new(a, b, c, d) {
        Ok(bx) => Some((bx, crate::BoundsSource::Ritz)),
        Err(_) => seen,
    }
}

/// The rounding error of a substep's result β·V·e^{τH̄}e₁ as the exponential amplifies it:
/// β·‖(e^{τH̄ + E} − e^{τH̄})e₁‖₂ over the first `m` + 1 rows, for a fixed pseudo-random E on
/// the leading m × m block (the Hessenberg matrix) with ‖E‖₁ = ε·‖τH̄‖₁, the size of the
/// backward error of the Arnoldi relation in the working precision. For normal H this is
/// about ε·‖τH‖·‖x‖ (the rounding floor); for strongly non-normal H it is the error
/// estimate the truncation estimate misses (the Pascal matrix of order 40, whose
/// exponential spans 40 orders of magnitude: error 0.6 for an estimate of 5·10⁻¹²; SciPy's
/// upper triangular 4 × 4 with entries 3·10⁴, for which unstructured perturbations of
/// relative size 10⁻¹⁶ already move e^{A}v by 5 %). Cost: one exponential of the small
/// matrix; ∞ where the perturbed exponential overflows.
fn sensitivity<S: Scalar>(hbar: &Matrix<S>, f: &Matrix<S>, m: usize, beta: f64) -> f64 {
    let size = hbar.nrows();
    let m = m.min(size);
    let eps = S::Real::EPS.as_f64();
    let delta = eps * hbar.norm_one().as_f64() / m.max(1) as f64;
    if !(delta.is_finite() && delta > 0.0) {
        return 0.0;
    }
    let mut p = hbar.clone();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for j in 0..m {
        // Within the Hessenberg pattern: the Arnoldi process's rounding is a backward error
        // of A seen through the basis, H + δH with δH upper Hessenberg like H; entries below
        // the subdiagonal would couple directions that no rounding of the process couples.
        for i in 0..(j + 2).min(m) {
            // splitmix64: a sign per entry, the same in every call.
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let sign = if (z ^ (z >> 31)) & 1 == 0 { 1.0 } else { -1.0 };
            p[(i, j)] += S::from_f64(sign * delta);
        }
    }
    let Ok(g) = expm(&p) else {
        return f64::INFINITY;
    };
    let rows = (m + 1).min(size);
    let out = beta * column_norm((0..rows).map(|i| g[(i, 0)].to_c64() - f[(i, 0)].to_c64()));
    if out.is_nan() { f64::INFINITY } else { out }
}

/// The most φ-columns Arnoldi's augmented matrix takes (φ_k for k ≤ 16, as before the common
/// cap of the φ orders was raised to 30): beyond it the scaled links of the augmented
/// matrix (Sidje 1998, Theorem 1) carry the Krylov vectors past the range in the substeps
/// that the step-size control then takes. The other methods reach the common cap.
pub const MAX_AUGMENTED_COLUMNS: usize = 16;

/// ‖z‖₂ of entries near the top of the range without overflow of the squares (scaled by
/// the largest modulus; a small exponential's column near e^{700} has squares beyond f64,
/// and an `f32` one beyond `f32` from 1.8·10¹⁹ on).
fn column_norm(z: impl Iterator<Item = matexp_core::c64> + Clone) -> f64 {
    let big = z.clone().fold(0.0f64, |m, x| m.max(x.norm()));
    if !(big.is_finite() && big > 0.0) {
        return big;
    }
    big * z.map(|x| (x / big).norm_sqr()).sum::<f64>().sqrt()
}

/// The up-front cost model: the step-size rule applied to the first Krylov basis.
struct Plan<'h, S: Scalar> {
    h: &'h Matrix<S>,
    m: usize,
    beta: f64,
    avnorm: f64,
    scale: S,
    t_end: f64,
    tol: Tolerance,
}

impl<S: Scalar> Plan<'_, S> {
    /// `ln(err(τ)/(γ^m·tol_τ))`, with Expokit's estimate err(τ) of a substep τ from the first
    /// basis and tol_τ = (τ/T)·(atol + rtol·β‖e^{τH̄}e₁‖) its share of the tolerance; the
    /// step-size rule τ ← γτ(tol_τ/err)^{1/m} settles where this is 0. No products.
    fn excess(&self, dt: f64) -> f64 {
        let m = self.m;
        let tau = self.scale * S::from_f64(dt);
        let mut hbar = Matrix::<S>::zeros(m + 2, m + 2);
        for j in 0..m {
            for i in 0..=(j + 1) {
                hbar[(i, j)] = tau * self.h[(i, j)];
            }
        }
        hbar[(m + 1, m)] = tau;
        let Ok(f) = expm(&hbar) else {
            return f64::INFINITY;
        };
        let p1 = self.beta * f[(m, 0)].modulus().as_f64();
        let p2 = self.beta * f[(m + 1, 0)].modulus().as_f64() * self.avnorm;
        let (err, _) = expokit_estimate(p1, p2, m);
        let top = self.beta * column_norm((0..=m).map(|i| f[(i, 0)].to_c64()));
        let tol = (dt / self.t_end) * self.tol.bound(top) * GAMMA.powi(m as i32);
        if !(err.is_finite() && top.is_finite()) {
            f64::INFINITY
        } else if err <= 0.0 {
            f64::NEG_INFINITY
        } else {
            (err / tol).ln()
        }
    }

    /// Planned products of the call: the steady step τ* where the rule settles (bisection
    /// in ln τ between Expokit's first step and T), the intervals between output times cut
    /// into substeps of at most τ*, plus the substeps the rule needs to grow from its first
    /// step to τ* (growing by at most a factor 10 per substep), m + 1 products each.
    fn products(&self, times: &[f64], first: f64) -> usize {
        let t_end = self.t_end;
        let steady = if !(first.is_finite() && first > 0.0) || self.excess(t_end) <= 0.0 {
            t_end
        } else {
            let (mut lo, mut hi) = (first.min(t_end).ln(), t_end.ln());
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if self.excess(mid.exp()) <= 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo.exp()
        };
        let mut substeps = 0.0;
        let mut prev = 0.0;
        for &t in times {
            if t > prev {
                substeps += ((t - prev) / steady).ceil();
            }
            prev = t;
        }
        if first.is_finite() && first > 0.0 && first < steady {
            substeps += (steady / first).log10().ceil();
        }
        (substeps.max(1.0) * (self.m + 1) as f64).min(usize::MAX as f64) as usize
    }
}

/// Expokit's a-priori first step: τ = (1/‖A‖)·(fact·tol/(4‖A‖))^{1/m},
/// fact = ((m+1)/e)^{m+1}·√(2π(m+1)), with `rel_tol` = tol/β.
fn initial_step(m: usize, anorm: f64, rel_tol: f64) -> f64 {
    if anorm.is_nan() || anorm <= 0.0 {
        return f64::INFINITY;
    }
    let mp1 = (m + 1) as f64;
    let log_fact =
        mp1 * (mp1 / std::f64::consts::E).ln() + 0.5 * (2.0 * std::f64::consts::PI * mp1).ln();
    let log_tau = -anorm.ln() + (log_fact + rel_tol.ln() - (4.0 * anorm).ln()) / m as f64;
    log_tau.exp()
}

/// e^{tA}v by Arnoldi with a fresh workspace. See [`Arnoldi`].
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ArnoldiOptions, arnoldi_expmv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, -1.0, 1.0, 0.0])?; // rotation generator
/// let (w, _) = arnoldi_expmv(&cpu, &op, 0.5, &vec![1.0, 0.0], &ArnoldiOptions::default())?;
/// assert!((w[0] - 0.5f64.cos()).abs() < 1e-8 && (w[1] - 0.5f64.sin()).abs() < 1e-8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::expmv`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn arnoldi_expmv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &ArnoldiOptions,
) -> Result<(B::Vector<S>, Report)> {
    crate::method::expmv_with::<Arnoldi<'_, B, S>, _, _, _>(backend, op, t, v, *opts)
}

/// φ_k(tA)v by Arnoldi with a fresh workspace, in the argument order of the facade's
/// `matexp::phimv_k` (backend, operator, t, v, k, options): the lower layer for callers that
/// name the method. See [`ExpmvMethod::phimv_k`].
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ArnoldiOptions, arnoldi_phimv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(1, 1, vec![-2.0])?;
/// let (w, _) = arnoldi_phimv(&cpu, &op, 1.0, &vec![1.0], 1, &ArnoldiOptions::default())?;
/// assert!((w[0] - (1.0 - (-2f64).exp()) / 2.0).abs() < 1e-8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::phimv_k`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn arnoldi_phimv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    k: usize,
    opts: &ArnoldiOptions,
) -> Result<(B::Vector<S>, Report)> {
    crate::method::phimv_k_with::<Arnoldi<'_, B, S>, _, _, _>(backend, op, k, t, v, *opts)
}
