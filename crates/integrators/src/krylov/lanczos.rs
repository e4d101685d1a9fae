//! The Lanczos method for f(tA)v with Hermitian A.

use super::small::{Coefficients, exp_coefficients, phi_coefficients};
use crate::checks;
use crate::{LanczosOptions, Report};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, c64};

/// Which function of the tridiagonal matrix is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func {
    Exp,
    Phi(usize),
}

/// Lanczos approximation of e^{tA}v and φ_k(tA)v for Hermitian (real symmetric or complex
/// Hermitian) A, with a reusable workspace.
///
/// **Method.** q₁ = v/‖v‖, A·Q_k = Q_k·T_k + β_{k+1}q_{k+1}e_kᵀ with T_k real symmetric
/// tridiagonal (no reorthogonalization unless asked for), and
/// f(tA)v ≈ ‖v‖·Q_k·f(tT_k)e₁. For f = exp the small function is computed from the
/// eigen-decomposition T_k = ZΛZᵀ by LAPACK `dstevd` (y = Z·e^{tΛ}·Zᵀe₁); for φ_k from the
/// exponential of an augmented (k+p+1)-matrix ([`matexp_dense::phi_vectors`]).
///
/// **Stopping rule.** At check points (every [`LanczosOptions::check_every`] steps, the
/// interval growing to ~k/10), the error of y_k = f(tT_k)e₁ is estimated as
/// ‖v‖·max(‖y_k − [y_{k−1}; 0]‖₂, β_{k+1}·|e_kᵀ f(tT_k)e₁|): the difference of two
/// successive iterates (an estimate of the error of y_{k−1}, hence pessimistic for y_k
/// once convergence is superlinear) and Saad's estimate, whose "safety factor" is the
/// maximum with the first. (Saad's sharper first-term estimate |t|β_{k+1}|e_kᵀφ₁(tT_k)e₁|
/// is not used: for stiff decay, where f(tA)v ≪ ‖v‖, φ₁ decays only like 1/|tλ| and the
/// estimate exceeds the true error by many orders of magnitude.) Iteration stops when the
/// estimate is below `atol + rtol·‖w‖` for every requested time. These are estimates, not
/// bounds: like all a-posteriori Krylov estimates they can be fooled by a v nearly
/// orthogonal to the part of the spectrum that dominates f(tA)v.
///
/// **Breakdown.** β_{k+1} ≤ 10·u·‖Aq_k‖ means span(Q_k) is invariant (to rounding): the
/// result is exact and returned at once.
///
/// **Overflow.** e^{tA}·1 reaches 1e195 on large graphs. ‖v‖ is kept apart, e^{tΛ} is
/// evaluated as e^{c}·e^{tΛ − c} with c = max Re(tλ), the estimate is compared in that
/// scaled form, and e^{c}·‖v‖ multiplies the coefficients only at the end (never squared);
/// a result beyond the floating-point range is [`Error::NonFinite`].
///
/// **Cost.** k products with A, O(n·k) vector work, O(n·k) memory for the basis (O(n)
/// and 2k products in [`LanczosOptions::two_pass`] mode), plus two k×k tridiagonal
/// eigensolves per check. For A with spectrum in an interval of width ρ, k grows like
/// √(ρ|t|) (Hochbruck–Lubich), so Lanczos is the method of choice for Hermitian problems.
///
/// **Several times.** One basis serves all times t_i of [`Lanczos::expmv_times`]: the
/// dimension grows until every time meets the tolerance.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_integrators::{Lanczos, LanczosOptions, Tolerance};
/// let cpu = CpuBackend::new();
/// // 1D Laplacian tridiag(1, −2, 1), n = 50.
/// let n = 50;
/// let mut a = vec![0.0; n * n];
/// for i in 0..n {
///     a[i * n + i] = -2.0;
///     if i + 1 < n { a[i * n + i + 1] = 1.0; a[(i + 1) * n + i] = 1.0; }
/// }
/// let op = DenseMatrixOperator::new(n, n, a)?;
/// let opts = LanczosOptions { tol: Tolerance::relative(1e-10), ..Default::default() };
/// let mut lz = Lanczos::new(&cpu, n, opts)?;
/// let v = vec![1.0; n];
/// let mut w = vec![0.0; n];
/// let report = lz.expmv(&op, 2.0, &v, &mut w)?;
/// assert!(report.converged && report.krylov_dim < n);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Lanczos<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    opts: LanczosOptions,
    n: usize,
    /// One-pass: q₀, q₁, …; two-pass: three rotating vectors.
    basis: Vec<B::Vector<S>>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
}

/// Where the iteration stopped: T_k is in `alpha[..k]`, `beta[..k − 1]`.
struct Tridiagonal {
    k: usize,
}

impl<'a, B: Backend, S: Scalar> Lanczos<'a, B, S> {
    /// A workspace for operators of order `n`. Basis vectors are allocated as the
    /// dimension grows and kept for later calls.
    pub fn new(backend: &'a B, n: usize, opts: LanczosOptions) -> Result<Self> {
        opts.validate::<S>()?;
        Ok(Lanczos {
            backend,
            opts,
            n,
            basis: Vec::new(),
            alpha: Vec::new(),
            beta: Vec::new(),
        })
    }

    /// The options in use.
    pub fn options(&self) -> &LanczosOptions {
        &self.opts
    }

    /// Replaces the options (validated).
    pub fn set_options(&mut self, opts: LanczosOptions) -> Result<()> {
        opts.validate::<S>()?;
        self.opts = opts;
        Ok(())
    }

    /// w ← e^{tA}v. `t` may be complex for complex `S` (e.g. t = −i·τ for the Schrödinger
    /// propagator e^{−iτH}).
    pub fn expmv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<Report> {
        checks::time("t", t)?;
        self.run(op, Func::Exp, t, &[1.0], v, std::slice::from_mut(w))
    }

    /// out[i] ← e^{tᵢ·scale·A}v for non-decreasing tᵢ ≥ 0, from one Krylov basis.
    pub fn expmv_times<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::time("scale", scale)?;
        checks::times(times)?;
        checks::count(
            "lanczos: number of outputs vs times",
            times.len(),
            out.len(),
        )?;
        self.run(op, Func::Exp, scale, times, v, out)
    }

    /// w ← φ_k(tA)v (φ₀ = exp).
    pub fn phimv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        k: usize,
        t: S,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<Report> {
        checks::time("t", t)?;
        check_phi_order(k)?;
        let func = if k == 0 { Func::Exp } else { Func::Phi(k) };
        self.run(op, func, t, &[1.0], v, std::slice::from_mut(w))
    }

    /// ws[j] ← e^{tA}·vs[j] for a block of vectors, one after another through this
    /// workspace. The report sums the work and takes the worst estimate.
    pub fn expmv_block<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        vs: &[B::Vector<S>],
        ws: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::count("lanczos: number of outputs vs inputs", vs.len(), ws.len())?;
        let mut total = Report::new("lanczos");
        for (v, w) in vs.iter().zip(ws.iter_mut()) {
            let r = self.expmv(op, t, v, w)?;
            total.merge(&r);
        }
        Ok(total)
    }

    fn run<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        func: Func,
        scale: S,
        times: &[f64],
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let n = checks::square_order("lanczos", op)?;
        if n != self.n {
            return Err(Error::dim(
                "lanczos: operator order vs workspace",
                self.n,
                n,
            ));
        }
        if !(op.is_hermitian() || self.opts.assume_hermitian) {
            return Err(Error::invalid(
                "op",
                "operator with is_hermitian() = false",
                "Lanczos needs a Hermitian operator; use Arnoldi, or set assume_hermitian",
            ));
        }
        let beta0 = checks::vector(self.backend, "lanczos: v", v, n)?;
        for (i, o) in out.iter().enumerate() {
            checks::output(self.backend, &format!("lanczos: output {i}"), o, n)?;
        }
        let mut report = Report::new("lanczos");
        report.substeps = 1;
        if beta0 == 0.0 || n == 0 {
            for o in out.iter_mut() {
                self.backend.fill(o, S::zero())?;
            }
            return Ok(report);
        }
        let taus: Vec<c64> = times.iter().map(|&t| scale.to_c64() * t).collect();
        let (tri, coeffs) = self.build(op, func, &taus, v, beta0, &mut report)?;
        report.krylov_dim = tri.k;
        self.accumulate(op, &tri, &coeffs, v, beta0, out, &mut report)?;
        Ok(report)
    }

    fn ensure_basis(&mut self, count: usize) -> Result<()> {
        while self.basis.len() < count {
            self.basis.push(self.backend.zeros(self.n)?);
        }
        Ok(())
    }

    /// First (or only) pass: builds T_k until the estimate meets the tolerance.
    fn build<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        func: Func,
        taus: &[c64],
        v: &B::Vector<S>,
        beta0: f64,
        report: &mut Report,
    ) -> Result<(Tridiagonal, Vec<Coefficients>)> {
        let be = self.backend;
        let opts = self.opts;
        let two_pass = opts.two_pass;
        self.alpha.clear();
        self.beta.clear();
        self.ensure_basis(if two_pass { 3 } else { 2 })?;
        be.copy(v, &mut self.basis[0])?;
        be.scale(S::from_f64(1.0 / beta0), &mut self.basis[0])?;
        let eps = S::Real::EPS.as_f64();
        let mut next_check = opts.check_every.min(opts.max_dim);
        let mut j = 0;
        loop {
            // Slots: one-pass q_j = basis[j], u = basis[j+1]; two-pass rotates three.
            let (ip, ic, iu) = if two_pass {
                ((j + 2) % 3, j % 3, (j + 1) % 3)
            } else {
                self.ensure_basis(j + 2)?;
                (j.wrapping_sub(1), j, j + 1)
            };
            let (q_prev, q_cur, u) = three_slots(&mut self.basis, ip, ic, iu, j > 0);
            op.apply(be, S::one(), q_cur, S::zero(), u)?;
            report.matvecs += 1;
            let a = be.dot(q_cur, u)?.re().as_f64();
            be.axpby(S::from_f64(-a), q_cur, S::one(), u)?;
            let bprev = if j > 0 { self.beta[j - 1] } else { 0.0 };
            if let Some(qp) = q_prev {
                be.axpby(S::from_f64(-bprev), qp, S::one(), u)?;
            }
            if opts.reorthogonalize {
                let (done, rest) = self.basis.split_at_mut(j + 1);
                for q in done.iter() {
                    let h = be.dot(q, &rest[0])?;
                    be.axpby(-h, q, S::one(), &mut rest[0])?;
                }
            }
            let b = be.nrm2(&self.basis[iu])?.as_f64();
            if !(a.is_finite() && b.is_finite()) {
                return Err(Error::NonFinite {
                    context: format!(
                        "lanczos: step {j} produced α = {a}, β = {b} (the operator returned NaN/∞)"
                    ),
                    index: j,
                    value: format!("{}", if a.is_finite() { b } else { a }),
                });
            }
            self.alpha.push(a);
            self.beta.push(b);
            let k = j + 1;
            let scale = (a * a + bprev * bprev + b * b).sqrt();
            let breakdown = b <= 10.0 * eps * scale;
            let last = k >= opts.max_dim;
            if breakdown || last || k >= next_check {
                let coeffs = self.coefficients(func, taus, k, breakdown)?;
                let converged = breakdown || coeffs.iter().all(|c| c.converged(&opts.tol, beta0));
                report.error_estimate = coeffs
                    .iter()
                    .map(|c| c.abs_error(beta0))
                    .fold(0.0, f64::max);
                if converged || last {
                    report.converged = converged;
                    if !converged && !opts.allow_unconverged {
                        return Err(Error::NoConvergence {
                            method: "lanczos",
                            detail: format!(
                                "dimension {k} = max_dim reached with estimated error {:.3e} \
                                 (tolerance rtol = {:.1e}, atol = {:.1e}); raise max_dim, use \
                                 two_pass for memory, or Arnoldi with substeps",
                                report.error_estimate, opts.tol.rtol, opts.tol.atol
                            ),
                        });
                    }
                    return Ok((Tridiagonal { k }, coeffs));
                }
                next_check = (k + opts.check_every.max(k / 10)).min(opts.max_dim);
            }
            be.scale(S::from_f64(1.0 / b), &mut self.basis[iu])?;
            j += 1;
        }
    }

    fn coefficients(
        &self,
        func: Func,
        taus: &[c64],
        k: usize,
        exact: bool,
    ) -> Result<Vec<Coefficients>> {
        taus.iter()
            .map(|&tau| match func {
                Func::Exp => exp_coefficients(&self.alpha, &self.beta, k, tau, exact),
                Func::Phi(p) => phi_coefficients(&self.alpha, &self.beta, k, p, tau, exact),
            })
            .collect()
    }

    /// out[i] = ‖v‖·e^{cᵢ}·Q_k·yᵢ, from the stored basis or by regenerating it.
    fn accumulate<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        tri: &Tridiagonal,
        coeffs: &[Coefficients],
        v: &B::Vector<S>,
        beta0: f64,
        out: &mut [B::Vector<S>],
        report: &mut Report,
    ) -> Result<()> {
        let be = self.backend;
        let k = tri.k;
        let scaled: Vec<Vec<S>> = coeffs
            .iter()
            .map(|c| c.final_coefficients::<S>(beta0))
            .collect::<Result<_>>()?;
        for o in out.iter_mut() {
            be.fill(o, S::zero())?;
        }
        if !self.opts.two_pass {
            for j in 0..k {
                for (o, y) in out.iter_mut().zip(&scaled) {
                    if y[j] != S::zero() {
                        be.axpby(y[j], &self.basis[j], S::one(), o)?;
                    }
                }
            }
        } else {
            // Regenerate q_j with the stored α, β: the same operations in the same order as
            // the first pass, so the vectors agree with it to rounding (bitwise on
            // deterministic backends).
            be.copy(v, &mut self.basis[0])?;
            be.scale(S::from_f64(1.0 / beta0), &mut self.basis[0])?;
            for j in 0..k {
                let ic = j % 3;
                for (o, y) in out.iter_mut().zip(&scaled) {
                    if y[j] != S::zero() {
                        be.axpby(y[j], &self.basis[ic], S::one(), o)?;
                    }
                }
                if j + 1 == k {
                    break;
                }
                let (ip, iu) = ((j + 2) % 3, (j + 1) % 3);
                let (q_prev, q_cur, u) = three_slots(&mut self.basis, ip, ic, iu, j > 0);
                op.apply(be, S::one(), q_cur, S::zero(), u)?;
                report.matvecs += 1;
                be.axpby(S::from_f64(-self.alpha[j]), q_cur, S::one(), u)?;
                if let Some(qp) = q_prev {
                    be.axpby(S::from_f64(-self.beta[j - 1]), qp, S::one(), u)?;
                }
                be.scale(S::from_f64(1.0 / self.beta[j]), u)?;
            }
        }
        for (i, o) in out.iter().enumerate() {
            if !be.nrm2(o)?.as_f64().is_finite() {
                let host = be.to_host(o)?;
                let (index, value) = matexp_core::norms::first_non_finite(&host)
                    .map(|(i, v)| (i, format!("{v}")))
                    .unwrap_or((0, "‖w‖ = ∞".into()));
                return Err(Error::NonFinite {
                    context: format!(
                        "lanczos: result {i} overflows the {} range (‖f(tA)v‖ too large)",
                        S::NAME
                    ),
                    index,
                    value,
                });
            }
        }
        Ok(())
    }
}

/// Disjoint borrows of three basis slots: (previous if `with_prev`, current, next), for
/// distinct in-bounds indices.
fn three_slots<V>(
    basis: &mut [V],
    ip: usize,
    ic: usize,
    iu: usize,
    with_prev: bool,
) -> (Option<&V>, &V, &mut V) {
    let (left, rest) = basis.split_at_mut(iu);
    let (u, right) = rest.split_first_mut().expect("iu is in bounds");
    let (left, right) = (&*left, &*right);
    let get = move |i: usize| -> &V { if i < iu { &left[i] } else { &right[i - iu - 1] } };
    (with_prev.then(|| get(ip)), get(ic), u)
}

pub(crate) fn check_phi_order(k: usize) -> Result<()> {
    if k > 20 {
        return Err(Error::invalid("k", k, "φ_k is supported for k ≤ 20"));
    }
    Ok(())
}

/// e^{tA}v by Lanczos with a fresh workspace; returns the result and the report.
/// See [`Lanczos`] for the method, its stopping rule and costs.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_integrators::{LanczosOptions, lanczos_expmv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
/// let (w, _) = lanczos_expmv(&cpu, &op, 1.0, &vec![1.0, 0.0], &LanczosOptions::default())?;
/// assert!((w[0] - 1f64.cosh()).abs() < 1e-12 && (w[1] - 1f64.sinh()).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn lanczos_expmv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &LanczosOptions,
) -> Result<(B::Vector<S>, Report)> {
    let n = op.nrows();
    let mut lz = Lanczos::new(backend, n, *opts)?;
    let mut w = backend.zeros(n)?;
    let r = lz.expmv(op, t, v, &mut w)?;
    Ok((w, r))
}

/// φ_k(tA)v by Lanczos with a fresh workspace. See [`Lanczos::phimv`].
pub fn lanczos_phimv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    k: usize,
    t: S,
    v: &B::Vector<S>,
    opts: &LanczosOptions,
) -> Result<(B::Vector<S>, Report)> {
    let n = op.nrows();
    let mut lz = Lanczos::new(backend, n, *opts)?;
    let mut w = backend.zeros(n)?;
    let r = lz.phimv(op, k, t, v, &mut w)?;
    Ok((w, r))
}

/// Total communicability TC = e^{βA}·1 of a graph with symmetric adjacency operator A
/// (Estrada & Higham; seed 002 computes it with β = 1): Lanczos from the all-ones vector.
/// Overflow-safe up to the floating-point range (values of 1e195 occur on large graphs).
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_integrators::{LanczosOptions, total_communicability};
/// let cpu = CpuBackend::new();
/// // Path graph 1 – 2: e^A·1 = (cosh 1 + sinh 1)·1 = e·1.
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
/// let (tc, _) = total_communicability(&cpu, &op, 1.0, &LanczosOptions::default())?;
/// assert!((tc[0] - 1f64.exp()).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn total_communicability<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    beta: f64,
    opts: &LanczosOptions,
) -> Result<(B::Vector<S>, Report)> {
    if !beta.is_finite() {
        return Err(Error::invalid("beta", beta, "must be finite"));
    }
    let n = op.nrows();
    let mut ones = backend.zeros(n)?;
    backend.fill(&mut ones, S::one())?;
    lanczos_expmv(backend, op, S::from_f64(beta), &ones, opts)
}
