//! The Lanczos method for f(tA)v with Hermitian A.

use super::orthogonality::OmegaMonitor;
use super::small::{Coefficients, Screen, exp_coefficients, phi_coefficients};
use crate::method::check_phi_order;
use crate::{
    ExpmvMethod, LanczosOptions, MethodOptions, Progress, Reorthogonalize, Report, checks,
};
use matexp_core::OperatorSteps;
use matexp_core::{Backend, Error, KrylovBackend, LinearOperator, RealScalar, Result, Scalar, c64};
use std::time::Instant;

/// 1/β, or 0 for β = 0 (as [`Backend::lanczos_step`] scales an exactly vanished residual).
fn inverse_or_zero(beta: f64) -> f64 {
    if beta == 0.0 { 0.0 } else { 1.0 / beta }
}

/// How many steps to queue ahead of a convergence check on an asynchronous backend.
///
/// At a check the host reads α, β (waiting for the device) and then spends H seconds on
/// small eigenproblems (O(k²); solved side by side, with the eigenvalue refinement skipped
/// where the tolerance cannot see it, about the time of one eigensolve), during which a
/// device with nothing queued would idle, for a large share of the call when k is in the
/// hundreds. So `L` steps are queued before the host computation, with
/// L = round(1.25·H_prev/s) (H_prev the previous check's host time, growing slowly with k;
/// s the device time of a step, from the first read after one step), at most
/// max(`check_every`, k/4): a check that costs the host under ~0.4 of a step queues none,
/// since a step queued for nothing would cost more than the idle time it saves.
/// If the check converges, those L steps (≈ H of device time, the idle time of one check)
/// are spent for nothing and counted; every check that does not converge saves H. The cap
/// k/4 bounds those spent products; it was k/10, which left a fast operator (the GPU
/// stencil) idle for most of each check near k = 250.
///
/// At least one step is queued at a check that the schedule does not expect to converge
/// (one placed by the growing interval, not by the extrapolation to the tolerance of
/// `check_interval`): that step is the loop's next one anyway, so it costs nothing unless the
/// check converges after all, and it keeps the device busy through the read and the host's
/// work, which for small k is otherwise device idle time at every check. None is queued at
/// a check the extrapolation places where it expects the tolerance met (it lands at or after
/// convergence, see `check_interval`): the steps queued there were spent for nothing when it
/// converged (the product count changed by one from run to run as the host's time rounded L
/// to 0 or 1), and when it does not converge the device idles for that one check's host time.
/// The measurements behind these choices: `bench-results/notes/tuning.md`, "expmv: Lanczos look-ahead".
#[derive(Debug, Default)]
struct Lookahead {
    /// Device seconds per step, from the first read.
    step_secs: Option<f64>,
    /// Host seconds of the last check.
    host_secs: f64,
    /// Whether the next check was placed where the extrapolation expects convergence.
    expects_convergence: bool,
}

impl Lookahead {
    fn read_done(&mut self, k: usize, waited: f64) {
        if self.step_secs.is_none() && k > 0 && waited > 0.0 {
            self.step_secs = Some(waited / k as f64);
        }
    }

    fn host_done(&mut self, secs: f64) {
        self.host_secs = secs;
    }

    fn steps(&self, k: usize, check_every: usize) -> usize {
        let hi = check_every.max(k / 4);
        let covering = match self.step_secs {
            Some(s) if s > 0.0 => (1.25 * self.host_secs / s).round().min(hi as f64) as usize,
            _ => 0,
        };
        if self.expects_convergence {
            0
        } else {
            covering.max(1)
        }
    }
}

mod substeps;

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
/// tridiagonal (reorthogonalized only where the loss of orthogonality is found harmful, see
/// **Reorthogonalization**), and
/// f(tA)v ≈ ‖v‖·Q_k·f(tT_k)e₁. For f = exp the small function is computed from the
/// eigen-decomposition T_k = ZΛZᵀ, y = Z·e^{tΛ}·Zᵀe₁, with Z kept as the plane rotations of
/// `matexp-leja`'s implicit QL (pure Rust, O(k²)); for φ_k from the
/// exponential of an augmented (k+p+1)-matrix ([`matexp_dense::phi_vectors`]).
///
/// **Stopping rule.** At check points (every [`LanczosOptions::check_every`] steps, the
/// interval growing to ~k/10, shortened to the dimension where the log-linear extrapolation
/// of the last two checks' estimates meets the tolerance, see `check_interval`), the error of
/// y_k = f(tT_k)e₁ is estimated by the smaller of two estimates (details in `small.rs`):
/// the one-step estimate ‖v‖·max(‖y_k − [y_{k−1}; 0]‖₂, β_{k+1}·|e_kᵀ f(tT_k)e₁|), the
/// difference of two successive iterates and Saad's estimate (sharp for oscillatory and
/// growing f(tA)v; for stiff decay orders of magnitude above the error, as it leaves out the damping
/// of q_{k+1} by e^{(1−s)tA} in the error integral), and the lagged estimate
/// ‖v‖·‖y_k − [y_{k−m}; 0]‖₂ with m ≈ k/10, used only where that difference is at most a
/// quarter of the one m steps before (the iterates are seen to contract): it is then a
/// sharp estimate of the error of y_{k−m}, and a bound for y_k's since the error falls at
/// least as fast over the next m steps (Lanczos convergence for exp is superlinear).
/// On stiff decay it stops with fewer products and an estimate much closer to the error
/// (measured: `bench-results/notes/tuning.md`, "expmv: Lanczos stopping rule").
/// (Saad's sharper first-term estimate |t|β_{k+1}|e_kᵀφ₁(tT_k)e₁|
/// is not used: for stiff decay, where f(tA)v ≪ ‖v‖, φ₁ decays only like 1/|tλ| and the
/// estimate exceeds the true error by many orders of magnitude.) Iteration stops when the
/// estimate is below `atol + rtol·‖w‖` for every requested time. These are estimates, not
/// bounds: like all a-posteriori Krylov estimates they can be fooled by a v nearly
/// orthogonal to the part of the spectrum that dominates f(tA)v.
///
/// **Working precision.** The rounding of the operator and of the recurrence limits what
/// Lanczos attains to about u·k of the result (u the unit roundoff of the vector type, k the
/// dimension; measured 0.4–1.5·u·k in f32 on seed 000's 3D Laplacians at k ≈ 300), which
/// the truncation estimates above do not see. Where rtol is below u·k at the dimension that
/// meets the estimate, the run is not claimed converged: `NoConvergence` naming the floor,
/// or `converged = false` with `allow_unconverged`. In f64 that is rtol < 1.1e−16·k.
///
/// **Breakdown.** β_{k+1} ≤ 10·u·‖Aq_k‖ means span(Q_k) is invariant (to rounding): the
/// result is exact. It is found where the coefficients are read (after the first step, at
/// the checks and at k = n), and T is truncated to the step where it happened; the products
/// spent after it (at most one check interval) are counted.
///
/// **Host round trips.** A step is [`matexp_core::FusedOperator::lanczos_product`] (w = A·q_j −
/// β_j·q_{j−1} with the sums Re⟨q_j, w⟩, ‖w‖², ‖q_j‖² formed in the product's own pass on
/// GPU CSR matrices) and [`Backend::lanczos_update`] (α_j = Re⟨q_j, w⟩ and β_{j+1} by the
/// Pythagorean identity ‖w − α_j q_j‖² = ‖w‖² − 2α_j Re⟨q_j, w⟩ + α_j²‖q_j‖² where it keeps
/// at least 1/16 of ‖w‖², else by the overflow-safe norm; q_{j+1} written in the same pass).
/// α_j and β_{j+1} stay in a coefficient array on the backend (device memory on GPUs), and
/// the host reads them in one batch per check point, so on a GPU a step queues the product
/// and four small kernels without waiting: about 4n elements of memory traffic beside the
/// product (measured: the `gpu_expmv` records under `bench-results/`). On asynchronous backends
/// ([`Backend::is_asynchronous`]) steps are queued ahead of each check so that the device
/// works while the host solves the small eigenproblems (`Lookahead`); the two-pass mode's
/// second pass reads nothing. A reorthogonalized step is formed from host scalars (its O(k)
/// dot products per step cost more than the round trips).
///
/// **Reorthogonalization** ([`LanczosOptions::reorthogonalization`], default
/// [`Reorthogonalize::Auto`]). At every read of the coefficients (the checks) the host runs
/// the ω-recurrence of Paige and Simon on the new α, β (O(k) per step), an estimate of
/// max_j |q_{i+1}ᵀq_j|, and records the first step i₀ where it passes min(√ε, rtol). Lost
/// orthogonality alone is common and mostly harmless for f(tA)v (the 3D Laplacian, XXZ
/// chains and seed 000's spin bath all pass √ε before they converge, with the same
/// products as with reorthogonalization); it hurts when converged Ritz values return as
/// ghosts. So once the estimate passes 10⁻², each check counts the Ritz values of T_k within
/// √ε·‖T_k‖ of another (one eigenvalue solve, O(k²)), and with at least
/// max(3, ⌈(k − i₀)/32⌉) of them, at a check that has not converged and whose log-linear
/// extrapolation from the check before needs more than the k − i₀ steps a restart redoes
/// (`restart_point`), the iteration goes back to step i₀ (the basis up to there is
/// semi-orthogonal to the tolerance, so T_{i₀} is accurate) and continues with full
/// reorthogonalization (one modified Gram–Schmidt sweep per step, O(n·k)); the products since
/// i₀ are spent and counted, and [`Report::reorthogonalized_from`] says i₀. A substep after
/// one that restarted reorthogonalizes from its first step. Measured on a dense n = 200
/// matrix with spectrum in [−1e6, −1e−2] (log-spaced), t = 1, rtol 10⁻⁸: plain Lanczos does
/// not converge at k = 500, `Always` converges at k = 134 (error 7.6e−11), `Auto` restarts
/// from step 19 and converges at k = 134 in 159 products (error 1.0e−10); on the accuracy
/// suite's dense_stiff40 (t = 1) 144 → 49 products at rtol 10⁻⁶ and 181 → 53 at 10⁻¹⁰, where
/// at t = 10⁻³, rtol 10⁻¹⁰ the restart costs 34 → 53. Table-12-like runs (3D Laplacian, XXZ
/// chain, spin bath; `tests/lanczos_robust.rs` and `tests/lanczos_estimate.rs`) take exactly
/// the products and results of plain Lanczos. In two-pass mode there is no stored basis:
/// `Auto` is plain Lanczos there.
///
/// **Substeps.** A single e^{τA}v (not φ-functions, not several output times) whose
/// predicted dimension for Im τ exceeds `max_dim` < n, or which reaches `max_dim`
/// unconverged, is split into substeps e^{τA}v = e^{θ_s τA}⋯e^{θ_1 τA}v, each a Lanczos run
/// from the last result meeting the share θ_i·(atol + rtol·‖w_i‖) of the tolerance, so the
/// errors, carried to the end by e^{(1 − θ_1 − … − θ_i)τA} (norm 1 for imaginary τ), add up
/// to at most the tolerance of the call (details and the real-τ case in `substeps.rs`). The
/// run that reached `max_dim` is kept: its T_k takes the largest fraction of τ it can carry.
/// Measured on the tight-binding chain n = 2000 (rtol 10⁻⁸, max_dim 500): τ‖H‖ = 2500 in
/// 2831 products (6 substeps, error 1.0e−9; one run with max_dim 3000: about 2130 products
/// in four times the time), τ‖H‖ = 10⁴ in 11308 (23 substeps, error 2.7e−9); a random
/// sparse symmetric H, n = 800, τ‖H‖ = 2500 in 2524 products (error 5.1e−10).
///
/// **Overflow.** e^{tA}·1 reaches 1e195 on large graphs. ‖v‖ is kept apart, e^{tΛ} is
/// evaluated as e^{c}·e^{tΛ − c} with c = max Re(tλ), the estimate is compared in that
/// scaled form, and e^{c}·‖v‖ multiplies the coefficients only at the end (never squared);
/// a result beyond the floating-point range is [`Error::NonFinite`], and so is a time whose
/// products t·λ with the Krylov eigenvalues leave it (t = ±10³⁰⁸), at the first check.
///
/// **Cost.** k products with A, O(n·k) vector work, O(n·k) memory for the basis (O(n)
/// and 2k products in [`LanczosOptions::two_pass`] mode), plus O(k²) per check: the
/// extreme eigenvalues of T_k by bisection (O(k) per Sturm count, for the scaling), then
/// tridiagonal eigensolves of orders k, k − m (the lagged difference), k − 1 and k − 2m,
/// all at once on a host with four or more threads (about one eigensolve's time); with
/// fewer threads the last two only when Saad's term or the lagged difference meets the
/// tolerance or the check is the last. Where 64ε·|t|·‖T_k‖∞ is below 10⁻³·rtol the
/// eigensolves keep QL's eigenvalues without the bisection refinement (a third of their
/// time), as the error it removes is then below a thousandth of the tolerance. `Auto` adds O(k) per step on the host (the ω-recurrence) and,
/// once the estimate passes 10⁻², one eigenvalue solve of order k per check. For A with
/// spectrum in an interval of width ρ, k grows like √(ρ|t|) (Hochbruck–Lubich), so Lanczos is
/// the method of choice for Hermitian problems.
///
/// **Several times.** One basis serves all times t_i of [`ExpmvMethod::expmv_times`]: the
/// dimension grows until every time meets the tolerance.
///
/// **Cost estimate, cap and progress.** [`Report::cost_estimate`] is the dimension the
/// Hochbruck–Lubich bounds predict for a spectrum of width W: with ρ = |Re τ|·W/4 the
/// smallest k with 10·e^{−k²/(5ρ)} ≤ rtol (√(4ρ) ≤ k ≤ 2ρ) or (eρ/k)^k ≤ rtol, with
/// r = |Im τ|·W/2 the smallest k with (e·r/(2k))^k ≤ rtol, the larger over the requested
/// times, rounded up to the next check point and capped at n and `max_dim` (2k − 1 in
/// two-pass mode). W comes from the operator's spectral bounds or norm bound before the first
/// product, otherwise from the Gershgorin interval of T_k at the first check (after
/// `check_every` products). An estimate, not a bound (how close it comes: `bench-results/notes/tuning.md`,
/// "expmv: Lanczos dimension estimate"); beyond n, lost orthogonality makes the actual
/// dimension exceed it. A call whose
/// estimate exceeds twice [`LanczosOptions::max_products`] is refused when the estimate is
/// made; one whose dimension would pass the cap stops there; both with
/// [`Error::NoConvergence`] naming `max_products`. [`LanczosOptions::progress`] is called
/// at every check that has not converged (time fraction 0) and once at the end (1).
///
/// # Errors
///
/// Those of [`ExpmvMethod::expmv`]; [`Error::InvalidArgument`] for a non-Hermitian operator
/// (unless `assume_hermitian`); [`Error::NoConvergence`] at `max_dim` (unless
/// `allow_unconverged`, or when substeps are taken) and at `max_substeps` and the cost cap
/// `max_products` (always); its message says what to try (reorthogonalization, `max_dim`,
/// substeps).
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ExpmvMethod, Lanczos, LanczosOptions};
/// let cpu = CpuBackend::new();
/// // 1D Laplacian tridiag(1, −2, 1), n = 50.
/// let n = 50;
/// let mut a = vec![0.0; n * n];
/// for i in 0..n {
///     a[i * n + i] = -2.0;
///     if i + 1 < n { a[i * n + i + 1] = 1.0; a[(i + 1) * n + i] = 1.0; }
/// }
/// let op = DenseMatrixOperator::new(n, n, a)?;
/// let mut lz = Lanczos::new(&cpu, LanczosOptions::default().with_rtol(1e-10))?;
/// let v = vec![1.0; n];
/// let mut w = vec![0.0; n];
/// let report = lz.expmv(&op, 2.0, &v, &mut w)?;
/// assert!(report.converged && report.max_degree < n);
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
    /// α_j, β_{j+1} where the vectors live ([`Backend::lanczos_step`]), allocated on first use.
    coeffs: Option<B::Vector<f64>>,
    /// The sums of the Pythagorean step ([`Backend::lanczos_update`]), allocated on first use.
    sums: Option<B::Vector<f64>>,
    /// The deferred form ([`matexp_core::FusedOperator::lanczos_advance`]): the two vectors w_j =
    /// A·q_j − β_j·q_{j−1} alternate between these slots (the fused advance still gathers
    /// from one while it writes the other).
    pending: Vec<B::Vector<S>>,
    /// Step whose product is done but not yet settled ([`Backend::lanczos_settle`]).
    unsettled: Option<usize>,
    /// Whether this run takes the deferred form (set per `build`).
    deferred: bool,
    /// `build` returns the unconverged T at `max_dim` instead of failing (a substep is then
    /// cut to what it can take, see `substeps.rs`).
    partial_at_max_dim: bool,
    /// Dimension of the first convergence check of `build` (at least `check_every`): a
    /// substep sets it below the dimension the one before needed, 0 otherwise.
    first_check: usize,
}

/// Steps to the next convergence check after a failed one at dimension `k` whose worst
/// estimate / tolerance ratio is `miss` (> 1), with `previous` the (dimension, ratio) of
/// the check before.
///
/// The interval grows like k/10 (at least `check_every`) so that the O(k²) small problems
/// stay a small part of the work; once the ratio falls, the log-linear extrapolation of the
/// last two checks predicts the dimension where it reaches 1, and the next check is placed
/// there when that is sooner. Lanczos convergence for exp is superlinear (the log of the
/// error falls ever faster, Hochbruck–Lubich), so the extrapolation from two past checks
/// overestimates the steps still needed: the check lands at or after convergence, and the
/// overshoot past the first converged dimension is bounded by the error of the
/// extrapolation over one interval instead of by the interval (k/10: 32 products at
/// k = 320). A ratio that does not fall (estimates can grow early on, while T_k has not yet
/// seen the spectrum's extent) keeps the growing interval.
///
/// Returns the steps and whether the extrapolation expects the tolerance to be met there.
fn check_interval(
    opts: &LanczosOptions,
    k: usize,
    previous: Option<(usize, f64)>,
    miss: f64,
) -> (usize, bool) {
    let growth = opts.check_every.max(k / 10);
    let Some((kp, mp)) = previous else {
        return (growth, false);
    };
    if !(miss.is_finite() && mp.is_finite() && miss > 1.0 && miss < mp && kp < k) {
        return (growth, false);
    }
    let rate = (mp / miss).ln() / (k - kp) as f64;
    let steps = miss.ln() / rate;
    if steps.is_finite() && steps >= 0.0 {
        let steps = steps.ceil() as usize;
        (steps.clamp(1, growth), steps <= growth)
    } else {
        (growth, false)
    }
}

/// Krylov dimension the Hochbruck–Lubich bounds predict for e^{τA}v to relative accuracy
/// `tol`, A Hermitian with spectrum in an interval of width `width`: with ρ = |Re τ|·width/4,
/// the decay part needs the smallest k with 10·e^{−k²/(5ρ)} ≤ tol (√(4ρ) ≤ k ≤ 2ρ) or
/// (eρ/k)^k ≤ tol; with r = |Im τ|·width/2, the oscillatory part the smallest k with
/// (e·r/(2k))^k ≤ tol (the Bessel coefficients of the Chebyshev series). The larger of the two.
fn predicted_dim(width: f64, tau: c64, tol: f64) -> usize {
    let ln_tol = tol.ln();
    let rho = tau.re.abs() * width / 4.0;
    let r = tau.im.abs() * width / 2.0;
    let smallest = |ok: &dyn Fn(f64) -> bool| -> usize {
        let mut k = 1usize;
        while k < 1 << 40 && !ok(k as f64) {
            k = if k < 1024 { k + 1 } else { k + k / 64 };
        }
        k
    };
    let decay = |k: f64| {
        rho == 0.0
            || (k >= (4.0 * rho).sqrt()
                && k <= 2.0 * rho
                && 10f64.ln() - k * k / (5.0 * rho) <= ln_tol)
            || (k >= rho && k * (std::f64::consts::E * rho / k).ln() <= ln_tol)
    };
    let oscillation = |k: f64| {
        r == 0.0 || (k >= r / 2.0 && k * (std::f64::consts::E * r / (2.0 * k)).ln() <= ln_tol)
    };
    smallest(&decay).max(smallest(&oscillation))
}

/// Where the iteration stopped: T_k is in `alpha[..k]`, `beta[..k − 1]`.
struct Tridiagonal {
    k: usize,
}

/// The state of one Lanczos build besides the basis: its targets and start norm, where the
/// next convergence check falls, the previous check's worst miss, the ω-monitor and the
/// lookahead of an asynchronous backend.
struct Build<'t> {
    targets: &'t [(Func, c64)],
    beta0: f64,
    mode: Reorthogonalize,
    eps: f64,
    monitor: Option<OmegaMonitor>,
    next_check: usize,
    /// The worst estimate / tolerance ratio at the previous check, for the schedule.
    previous: Option<(usize, f64)>,
    look: Lookahead,
}

/// What a convergence check of the build decided.
enum Checked {
    /// The basis is complete: T_k and the coefficients of the targets.
    Done(Tridiagonal, Vec<Coefficients>),
    /// The basis lost orthogonality from step i on: redo it with reorthogonalization.
    Restart(usize),
    /// Not yet: the worst miss (estimate / tolerance) for the next check's schedule.
    Next(f64),
}

impl<'a, B: KrylovBackend + 'a, S: Scalar> ExpmvMethod<'a, B, S> for Lanczos<'a, B, S> {
    type Options = LanczosOptions;
    const NAME: &'static str = "lanczos";

    /// Basis vectors are allocated as the dimension grows and kept for later calls.
    fn new(backend: &'a B, opts: LanczosOptions) -> Result<Self> {
        Ok(Lanczos {
            backend,
            opts: opts.resolved::<S>()?,
            n: 0,
            basis: Vec::new(),
            alpha: Vec::new(),
            beta: Vec::new(),
            coeffs: None,
            sums: None,
            pending: Vec::new(),
            unsettled: None,
            deferred: false,
            partial_at_max_dim: false,
            first_check: 0,
        })
    }

    fn backend(&self) -> &'a B {
        self.backend
    }

    fn options(&self) -> &LanczosOptions {
        &self.opts
    }

    fn set_options(&mut self, opts: LanczosOptions) -> Result<()> {
        self.opts = opts.resolved::<S>()?;
        Ok(())
    }

    /// Σ_j τᵢ^j·φ_j(τᵢA)·b_j by linearity: one Lanczos basis per nonzero b_j, serving every
    /// time; each term meets the tolerance relative to its own norm.
    fn combination<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        bs: &[Option<&B::Vector<S>>],
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let be = self.backend;
        let taus: Vec<c64> = times.iter().map(|&t| scale.to_c64() * t).collect();
        let terms: Vec<(usize, &B::Vector<S>)> = bs
            .iter()
            .enumerate()
            .filter_map(|(j, b)| b.map(|b| (j, b)))
            .collect();
        if let [(0, b0)] = terms[..] {
            let targets: Vec<(Func, c64)> = taus.iter().map(|&t| (Func::Exp, t)).collect();
            return self.run(op, &targets, b0, out);
        }
        let n = checks::square_order("lanczos", op)?;
        for (i, o) in out.iter_mut().enumerate() {
            checks::output(be, &format!("lanczos: output {i}"), o, n)?;
            be.fill(o, S::zero())?;
        }
        let mut total = Report::new("lanczos");
        let mut tmp: Vec<B::Vector<S>> = Vec::with_capacity(times.len());
        // Output i is Σ_j τᵢ^j·(its term j): its estimate is Σ_j |τᵢ|^j·e_{j,i}.
        let mut estimates = vec![0.0f64; times.len()];
        for (j, b) in terms {
            let func = if j == 0 { Func::Exp } else { Func::Phi(j) };
            let targets: Vec<(Func, c64)> = taus.iter().map(|&t| (func, t)).collect();
            while tmp.len() < times.len() {
                tmp.push(be.zeros(n)?);
            }
            let r = self.run(op, &targets, b, &mut tmp)?;
            total.merge(&r);
            for ((e, term), tau) in estimates
                .iter_mut()
                .zip(r.per_output(times.len()).iter())
                .zip(&taus)
            {
                *e += tau.norm().powi(j as i32) * term;
            }
            for ((o, w), tau) in out.iter_mut().zip(&tmp).zip(&taus) {
                be.axpby(S::from_c64(tau.powi(j as i32)), w, S::one(), o)?;
            }
        }
        total.error_estimate = estimates.iter().copied().fold(0.0, f64::max);
        total.output_estimates = estimates;
        Ok(total)
    }

    /// φ₀, …, φ_k from one Lanczos basis: the dimension grows until all of them meet the
    /// tolerance.
    fn phimv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::time("t", t)?;
        if out.is_empty() {
            return Err(Error::invalid(
                "out",
                "[]",
                "needs k + 1 ≥ 1 outputs for φ₀, …, φ_k",
            ));
        }
        check_phi_order(out.len() - 1)?;
        let targets: Vec<(Func, c64)> = (0..out.len())
            .map(|j| {
                let f = if j == 0 { Func::Exp } else { Func::Phi(j) };
                (f, t.to_c64())
            })
            .collect();
        let r = self.run(op, &targets, v, out)?;
        self.finish(r, out)
    }

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
        let func = if k == 0 { Func::Exp } else { Func::Phi(k) };
        let w = std::slice::from_mut(w);
        let r = self.run(op, &[(func, t.to_c64())], v, w)?;
        self.finish(r, w)
    }
}

impl<'a, B: KrylovBackend, S: Scalar> Lanczos<'a, B, S> {
    /// `out[i]` ← fᵢ(τᵢA)v for the targets (fᵢ, τᵢ), from one basis.
    fn run<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        targets: &[(Func, c64)],
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let n = checks::square_order("lanczos", op)?;
        if n != self.n {
            self.n = n;
            self.basis.clear();
            self.pending.clear();
        }
        if !(op.is_hermitian() || self.opts.assume_hermitian) {
            return Err(Error::invalid(
                "op",
                "operator with is_hermitian() = false",
                "Lanczos needs a Hermitian operator; use Arnoldi or Leja, or set \
                 assume_hermitian",
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
        // Width of the spectrum: from the operator's bounds or norm bound before the first
        // product, otherwise from T_k at the first check.
        let width = op
            .spectral_bounds()
            .map(|b| b.re_max - b.re_min)
            .or_else(|| op.norm_bound().map(|b| 2.0 * b))
            .filter(|w| w.is_finite());
        let may_substep = self.substeps_allowed(targets) && out.len() == 1;
        match width {
            Some(w) if may_substep && self.predicts_substeps(w, targets[0].1, n) => {
                self.substeps(
                    op,
                    targets[0].1,
                    v,
                    beta0,
                    width,
                    None,
                    &mut out[0],
                    &mut report,
                )?;
            }
            _ => {
                if let Some(w) = width {
                    self.plan(targets, w, n, &mut report)?;
                }
                self.partial_at_max_dim = may_substep;
                let built = self.build(op, targets, v, beta0, &mut report);
                self.partial_at_max_dim = false;
                let (tri, coeffs) = built?;
                if may_substep && !report.converged {
                    // max_dim reached: substeps, the first from this T_k.
                    let tau = targets[0].1;
                    self.substeps(
                        op,
                        tau,
                        v,
                        beta0,
                        width,
                        Some(tri),
                        &mut out[0],
                        &mut report,
                    )?;
                } else {
                    report.max_degree = tri.k;
                    // One estimate per target (time or φ_j), each met relative to its own
                    // result: the report keeps them apart (see the rule on Report).
                    report.output_estimates = coeffs.iter().map(|c| c.abs_error(beta0)).collect();
                    self.accumulate(op, &tri, &coeffs, v, beta0, out, &mut report)?;
                }
            }
        }
        if let Some(cb) = self.opts.progress {
            (cb.0)(&Progress {
                products: report.matvecs,
                estimated_products: report.cost_estimate,
                fraction: 1.0,
            });
        }
        Ok(report)
    }

    /// The up-front cost estimate for a spectrum of width `width` (see [`Lanczos`]), and the
    /// refusal of a call whose estimate exceeds twice [`LanczosOptions::max_products`].
    fn plan(
        &self,
        targets: &[(Func, c64)],
        width: f64,
        n: usize,
        report: &mut Report,
    ) -> Result<()> {
        let opts = &self.opts;
        let k = targets
            .iter()
            .map(|&(_, tau)| predicted_dim(width, tau, opts.tol.rtol))
            .max()
            .unwrap_or(1)
            .min(n)
            .min(opts.max_dim);
        // The dimension is only tested at the check points.
        let mut check = opts.check_every.min(opts.max_dim);
        while check < k {
            check = (check + opts.check_every.max(check / 10)).min(opts.max_dim);
        }
        let k = check.min(n.max(1));
        report.cost_estimate = if opts.two_pass { 2 * k - 1 } else { k };
        if report.cost_estimate / 2 > opts.max_products {
            return Err(Error::NoConvergence {
                method: "lanczos",
                detail: format!(
                    "cost cap max_products = {} refused after {} products: about {} are needed \
                     (Krylov dimension {k} for a spectrum of width {width:.3e})",
                    opts.max_products, report.matvecs, report.cost_estimate
                ),
            });
        }
        Ok(())
    }

    /// Step j of the fused path: u = A·q_j − β_j·q_{j−1} with the step's sums
    /// ([`matexp_core::FusedOperator::lanczos_product`]), then [`Backend::lanczos_update`] (α_j, β_{j+1}
    /// into the coefficient array, u ← q_{j+1}): the three-term recurrence in Paige's order,
    /// β_{j+1} by the Pythagorean identity where it is trusted. One-pass: q_j = basis[j], u = basis[j+1];
    /// two-pass: three rotating slots.
    ///
    /// In the deferred form (`self.deferred`) step j is instead the settling of step j − 1
    /// ([`Backend::lanczos_settle`], unless a read point did it) and
    /// [`matexp_core::FusedOperator::lanczos_advance`]: q_j is written into basis[j] by the product
    /// that gathers it, and w_j waits in a `pending` slot for the next step or
    /// [`Self::settle`]. Same coefficients, same basis, one pass over memory fewer.
    fn fused_step<O: LinearOperator<B, S> + ?Sized>(&mut self, op: &O, j: usize) -> Result<()> {
        if self.deferred {
            return self.deferred_step(op, j);
        }
        let be = self.backend;
        self.ensure_coeffs(j)?;
        let (ip, ic, iu) = if self.opts.two_pass {
            ((j + 2) % 3, j % 3, (j + 1) % 3)
        } else {
            self.ensure_basis(j + 2)?;
            (j.wrapping_sub(1), j, j + 1)
        };
        self.ensure_sums()?;
        let (q_prev, q_cur, u) = three_slots(&mut self.basis, ip, ic, iu, j > 0);
        let (Some(c), Some(sums)) = (self.coeffs.as_mut(), self.sums.as_mut()) else {
            return Err(Error::Device("lanczos: coefficient arrays missing".into()));
        };
        // The product forms the step's sums in its own pass where the operator fuses them.
        op.lanczos_product(be, j, q_prev, q_cur, u, c, sums)?;
        be.lanczos_update(j, q_cur, u, c, sums)
    }

    fn ensure_sums(&mut self) -> Result<()> {
        if self.sums.is_none() {
            self.sums = Some(self.backend.zeros::<f64>(matexp_core::LANCZOS_SUMS)?);
        }
        Ok(())
    }

    /// Step j of the deferred form (one-pass only; see [`Self::fused_step`]).
    fn deferred_step<O: LinearOperator<B, S> + ?Sized>(&mut self, op: &O, j: usize) -> Result<()> {
        let be = self.backend;
        self.ensure_coeffs(j)?;
        self.ensure_basis(j + 1)?;
        self.ensure_sums()?;
        while self.pending.len() < 2 {
            self.pending.push(be.alloc(self.n)?);
        }
        if j == 0 {
            let (Some(c), Some(sums)) = (self.coeffs.as_ref(), self.sums.as_mut()) else {
                return Err(Error::Device("lanczos: coefficient arrays missing".into()));
            };
            op.lanczos_product(be, 0, None, &self.basis[0], &mut self.pending[0], c, sums)?;
        } else {
            if self.unsettled == Some(j - 1) {
                self.settle()?;
            }
            let (done, rest) = self.basis.split_at_mut(j);
            let (w_prev, w) = {
                let (a, b) = self.pending.split_at_mut(1);
                if j % 2 == 1 {
                    (&a[0], &mut b[0])
                } else {
                    (&b[0], &mut a[0])
                }
            };
            let (Some(c), Some(sums)) = (self.coeffs.as_ref(), self.sums.as_mut()) else {
                return Err(Error::Device("lanczos: coefficient arrays missing".into()));
            };
            op.lanczos_advance(be, j - 1, &done[j - 1], w_prev, &mut rest[0], w, c, sums)?;
        }
        self.unsettled = Some(j);
        Ok(())
    }

    /// Settles the step whose product is done ([`Backend::lanczos_settle`]): its α_j,
    /// β_{j+1} reach the coefficient array. A no-op outside the deferred form.
    fn settle(&mut self) -> Result<()> {
        let Some(j) = self.unsettled.take() else {
            return Ok(());
        };
        let (Some(c), Some(sums)) = (self.coeffs.as_mut(), self.sums.as_mut()) else {
            return Err(Error::Device("lanczos: coefficient arrays missing".into()));
        };
        self.backend
            .lanczos_settle(j, &self.basis[j], &mut self.pending[j % 2], c, sums)
    }

    /// q_k into basis[k] from a settled deferred step k − 1 (for a restart from step k).
    fn form_next(&mut self, k: usize) -> Result<()> {
        self.settle()?;
        self.ensure_basis(k + 1)?;
        let (done, rest) = self.basis.split_at_mut(k);
        let (Some(c), Some(sums)) = (self.coeffs.as_ref(), self.sums.as_ref()) else {
            return Err(Error::Device("lanczos: coefficient arrays missing".into()));
        };
        self.backend.lanczos_form(
            k - 1,
            &done[k - 1],
            &self.pending[(k - 1) % 2],
            c,
            sums,
            &mut rest[0],
        )
    }

    /// Full-size vectors the workspace holds now (the basis and the deferred form's pending
    /// slots): what [`crate::plan`] counts besides v and w.
    pub fn stored_vectors(&self) -> usize {
        self.basis.len() + self.pending.len()
    }

    fn ensure_basis(&mut self, count: usize) -> Result<()> {
        // Written before read: no clearing pass (Backend::alloc).
        while self.basis.len() < count {
            self.basis.push(self.backend.alloc(self.n)?);
        }
        Ok(())
    }

    /// The coefficient array has room for step `j` (2j + 2 doubles): allocated at
    /// 2·min(`max_dim`, 128) doubles and doubled when full, the known coefficients carried
    /// over through the host (one synchronization per doubling, so a few per call at most).
    fn ensure_coeffs(&mut self, j: usize) -> Result<()> {
        let be = self.backend;
        let have = self.coeffs.as_ref().map_or(0, |c| be.len(c));
        if have >= 2 * j + 2 {
            return Ok(());
        }
        let steps = (have / 2 * 2)
            .max(self.opts.max_dim.min(128))
            .min(self.opts.max_dim)
            .max(j + 1);
        let mut fresh = be.zeros::<f64>(2 * steps)?;
        if let Some(old) = &self.coeffs
            && j > 0
        {
            let mut known = vec![0.0; 2 * j];
            be.read_coeffs(old, 0, &mut known)?;
            be.write_coeffs(&mut fresh, 0, &known)?;
        }
        self.coeffs = Some(fresh);
        Ok(())
    }

    /// First (or only) pass: builds T_k until the estimate meets the tolerance.
    ///
    /// Steps run through [`Backend::lanczos_step`], whose α_j, β_{j+1} stay in the backend's
    /// coefficient array; they reach the host (one synchronization) only at the read points:
    /// after the first step (an eigenvector or A = 0 breaks down there), at the convergence
    /// checks, at k = n and at `max_dim`. The steps read are then scanned in order for
    /// non-finite values (an error) and breakdown, β_{j+1} ≤ 10·u·‖(β_j, α_j, β_{j+1})‖.
    /// A breakdown found at step i < k truncates T to order i + 1 and the steps after it are
    /// discarded: α_0, …, α_i and β_1, …, β_i were computed from valid vectors, so T_{i+1}
    /// and the basis vectors q_0, …, q_i are exactly those of a run that had stopped at the
    /// breakdown; only q_{i+1} (w/β_{i+1}, noise or 0) and what was computed from it are
    /// garbage, and nothing of them is used. The products after the breakdown are spent
    /// (counted in the report): at most the distance to the next read point.
    ///
    /// With `reorthogonalize` the step runs on the host's scalars as before (it needs a
    /// dot product per stored vector anyway) and every step is scanned at once.
    fn build<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        targets: &[(Func, c64)],
        v: &B::Vector<S>,
        beta0: f64,
        report: &mut Report,
    ) -> Result<(Tridiagonal, Vec<Coefficients>)> {
        let be = self.backend;
        let opts = self.opts;
        let two_pass = opts.two_pass;
        let mode = opts.effective_reorthogonalization();
        let mut fused = mode != Reorthogonalize::Always;
        // The deferred form needs every q_j stored (the two-pass mode regenerates its basis
        // by the classical order of the fused step).
        self.deferred = fused && !two_pass && op.lanczos_advance_fused();
        self.unsettled = None;
        self.alpha.clear();
        self.beta.clear();
        self.ensure_basis(if two_pass { 3 } else { 2 })?;
        be.copy(v, &mut self.basis[0])?;
        be.scale(S::from_f64(1.0 / beta0), &mut self.basis[0])?;
        let eps = S::Real::EPS.as_f64();
        let mut st = Build {
            targets,
            beta0,
            mode,
            eps,
            // Auto: the ω-recurrence runs on the coefficients as they reach the host.
            monitor: (mode == Reorthogonalize::Auto).then(|| OmegaMonitor::new(eps, opts.tol.rtol)),
            next_check: opts.check_every.max(self.first_check).min(opts.max_dim),
            previous: None,
            look: Lookahead::default(),
        };
        if mode == Reorthogonalize::Always {
            report.reorthogonalized_from = Some(0);
        }
        let mut scanned = 0;
        let mut j = 0;
        let mult = if two_pass { 2 } else { 1 };
        loop {
            if (j + 1) * mult > opts.max_products.saturating_add(usize::from(two_pass)) {
                return Err(Error::NoConvergence {
                    method: "lanczos",
                    detail: format!(
                        "cost cap max_products = {} reached at dimension {j} (estimated error \
                         {:.3e}; estimated up front: {} products)",
                        opts.max_products, report.error_estimate, report.cost_estimate
                    ),
                });
            }
            if fused {
                self.fused_step(op, j)?;
                report.matvecs += 1;
            } else {
                self.host_step(op, j, report)?;
            }
            let mut k = j + 1;
            let due = k >= opts.max_dim || k >= st.next_check;
            let read_point = fused && (due || k == 1 || k == self.n);
            let ahead = if read_point {
                self.read_point(op, &mut st, j, due, report)?
            } else {
                0
            };
            let host = Instant::now();
            let mut breakdown = false;
            if self.alpha.len() == k {
                if let Some(i) = self.breakdown_at(scanned, k, eps)? {
                    // Step i broke down: T of order i + 1 is exact (see above).
                    breakdown = true;
                    k = i + 1;
                    self.alpha.truncate(k);
                    self.beta.truncate(k);
                }
                scanned = k;
            }
            if breakdown || due {
                match self.check(op, &mut st, k, breakdown, report)? {
                    Checked::Done(t, coeffs) => return Ok((t, coeffs)),
                    Checked::Restart(i) => {
                        // Steps 0..i kept a semi-orthogonal basis: redo step i onwards with
                        // full reorthogonalization (the products since are spent and
                        // counted); the check due at k is made when k is reached again.
                        if self.deferred && i == k {
                            self.form_next(k)?;
                        }
                        self.deferred = false;
                        fused = false;
                        self.alpha.truncate(i);
                        self.beta.truncate(i);
                        scanned = i;
                        st.next_check = k;
                        st.previous = None;
                        report.reorthogonalized_from = Some(i);
                        j = i;
                        continue;
                    }
                    Checked::Next(miss) => {
                        let (interval, expects) = check_interval(&opts, k, st.previous, miss);
                        st.look.expects_convergence = expects;
                        st.next_check = (k + interval).max(k + ahead + 1).min(opts.max_dim);
                        st.previous = Some((k, miss));
                        st.look.host_done(host.elapsed().as_secs_f64());
                    }
                }
            }
            j += 1 + ahead;
        }
    }

    /// One Lanczos step on the host's scalars (reorthogonalization; one-pass only, checked
    /// by the options): u = A·q_j, α_j, the three-term recurrence, full Gram–Schmidt against
    /// the stored basis, then β_j and q_{j+1}.
    fn host_step<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        j: usize,
        report: &mut Report,
    ) -> Result<()> {
        let be = self.backend;
        self.ensure_basis(j + 2)?;
        let (q_prev, q_cur, u) = three_slots(&mut self.basis, j.wrapping_sub(1), j, j + 1, j > 0);
        op.apply(be, S::one(), q_cur, S::zero(), u)?;
        report.matvecs += 1;
        let a = be.dot(q_cur, u)?.re().as_f64();
        be.axpby(S::from_f64(-a), q_cur, S::one(), u)?;
        if let Some(qp) = q_prev {
            be.axpby(S::from_f64(-self.beta[j - 1]), qp, S::one(), u)?;
        }
        let (done, rest) = self.basis.split_at_mut(j + 1);
        for q in done.iter() {
            let h = be.dot(q, &rest[0])?;
            be.axpby(-h, q, S::one(), &mut rest[0])?;
        }
        let b = be.nrm2(&self.basis[j + 1])?.as_f64();
        be.scale(S::from_f64(inverse_or_zero(b)), &mut self.basis[j + 1])?;
        self.alpha.push(a);
        self.beta.push(b);
        Ok(())
    }

    /// A read point of the fused recurrence after step `j`: the pending step settled, the
    /// new coefficients brought to the host and, at a check (`due`) on an asynchronous
    /// backend, the lookahead steps queued; returns how many.
    fn read_point<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        st: &mut Build<'_>,
        j: usize,
        due: bool,
        report: &mut Report,
    ) -> Result<usize> {
        let (be, opts, k) = (self.backend, self.opts, j + 1);
        let last = k >= opts.max_dim;
        let mult = if opts.two_pass { 2 } else { 1 };
        self.settle()?;
        let mut ahead = 0;
        if let Some(c) = self.coeffs.as_ref() {
            let known = self.alpha.len();
            let mut fresh = vec![0.0; 2 * (k - known)];
            let waited = Instant::now();
            be.read_coeffs(c, 2 * known, &mut fresh)?;
            st.look.read_done(k, waited.elapsed().as_secs_f64());
            for pair in fresh.chunks_exact(2) {
                self.alpha.push(pair[0]);
                self.beta.push(pair[1]);
            }
            if due && !last && k < self.n && be.is_asynchronous() {
                // Keep the device busy while the host checks (see `Lookahead`); steps
                // after a breakdown or past convergence are spent and counted.
                let cap = opts.max_products.saturating_add(usize::from(opts.two_pass)) / mult;
                ahead = st
                    .look
                    .steps(k, opts.check_every)
                    // Leave the step that reaches max_dim, n or the cap to the loop.
                    .min(opts.max_dim.saturating_sub(k + 1))
                    .min(self.n.saturating_sub(k + 1))
                    .min(cap.saturating_sub(k + 1));
                for a in 0..ahead {
                    self.fused_step(op, j + 1 + a)?;
                    report.matvecs += 1;
                }
            }
        }
        Ok(ahead)
    }

    /// Scans the steps `from..k` that reached the host, in order: a non-finite coefficient
    /// is an error, and the first step whose β_{i+1} falls to 10·u·‖(β_i, α_i, β_{i+1})‖
    /// broke down (returned).
    fn breakdown_at(&self, from: usize, k: usize, eps: f64) -> Result<Option<usize>> {
        for i in from..k {
            let (a, b) = (self.alpha[i], self.beta[i]);
            if !(a.is_finite() && b.is_finite()) {
                return Err(Error::NonFinite {
                    context: format!(
                        "lanczos: step {i} produced α = {a}, β = {b} (the operator \
                         returned NaN/∞)"
                    ),
                    index: i,
                    value: format!("{}", if a.is_finite() { b } else { a }),
                });
            }
            let bprev = if i > 0 { self.beta[i - 1] } else { 0.0 };
            let scale = (a * a + bprev * bprev + b * b).sqrt();
            if b <= 10.0 * eps * scale {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// The convergence check at dimension k: the coefficients of every target in T_k and
    /// their error estimates. Done where they converge, at a breakdown, at `max_dim` or
    /// below the rounding floor; a restart where the ω-monitor saw the basis lose
    /// orthogonality; else the worst miss, for the schedule of the next check.
    fn check<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        st: &mut Build<'_>,
        k: usize,
        breakdown: bool,
        report: &mut Report,
    ) -> Result<Checked> {
        let opts = self.opts;
        let (targets, beta0) = (st.targets, st.beta0);
        let last = k >= opts.max_dim;
        // A check that cannot be the last skips what cannot make it pass.
        let screen = (!last).then_some((&opts.tol, beta0));
        let coeffs = self.coefficients(targets, k, breakdown, screen)?;
        self.range_check(targets, &coeffs, k, beta0)?;
        if let Some(i) = coeffs.iter().position(|c| c.abs_error(beta0).is_nan()) {
            return Err(self.out_of_range(targets[i].1, k));
        }
        let converged = breakdown || coeffs.iter().all(|c| c.converged(&opts.tol, beta0));
        report.error_estimate = coeffs
            .iter()
            .map(|c| c.abs_error(beta0))
            .fold(0.0, f64::max);
        if report.cost_estimate == 0 && !converged {
            // Gershgorin interval of T_k: the width seen so far.
            let (lo, hi) = (0..k).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| {
                let below = if i > 0 { self.beta[i - 1] } else { 0.0 };
                let above = if i + 1 < k { self.beta[i] } else { 0.0 };
                let r = below + above;
                (lo.min(self.alpha[i] - r), hi.max(self.alpha[i] + r))
            });
            self.plan(targets, hi - lo, self.n, report)?;
        }
        if !converged {
            if let Some(cb) = opts.progress {
                (cb.0)(&Progress {
                    products: report.matvecs,
                    estimated_products: report.cost_estimate,
                    fraction: 0.0,
                });
            }
        }
        // The accuracy Lanczos attains in the working precision: about u·k relative
        // to the result (measured in f32 on seed 000's Laplacians: 0.4–1.5·u·k at
        // k ≈ 290–340, where the estimate had met rtol 1e−5), which no estimate of the
        // truncation error sees. A tolerance below it is not claimed.
        let floor = 0.5 * st.eps * k as f64;
        if converged
            && !breakdown
            && coeffs
                .iter()
                .any(|c| c.below_floor(&opts.tol, beta0, floor))
        {
            return self.at_rounding_floor(op, k, floor, coeffs, report);
        }
        if converged || last {
            report.converged = converged;
            if !converged && !opts.allow_unconverged && !self.partial_at_max_dim {
                return Err(Error::NoConvergence {
                    method: "lanczos",
                    detail: format!(
                        "dimension {k} = max_dim reached with estimated error {:.3e} \
                         (tolerance rtol = {:.1e}, atol = {:.1e}); {}",
                        report.error_estimate,
                        opts.tol.rtol,
                        opts.tol.atol,
                        max_dim_hint(&opts, st.mode, targets)
                    ),
                });
            }
            report.bounds = self
                .ritz_interval(k, op.spectral_bounds())
                .or(report.bounds);
            return Ok(Checked::Done(Tridiagonal { k }, coeffs));
        }
        let miss = coeffs
            .iter()
            .map(|c| c.miss(&opts.tol, beta0))
            .fold(0.0, f64::max);
        if let Some(i) = restart_point(
            &mut st.monitor,
            &self.alpha,
            &self.beta,
            k,
            st.previous,
            miss,
        ) {
            return Ok(Checked::Restart(i));
        }
        Ok(Checked::Next(miss))
    }

    /// The end of a build whose estimate met a tolerance below the rounding floor `floor`
    /// of dimension k: the result unconverged with `allow_unconverged`, else the error.
    fn at_rounding_floor<O: LinearOperator<B, S> + ?Sized>(
        &self,
        op: &O,
        k: usize,
        floor: f64,
        coeffs: Vec<Coefficients>,
        report: &mut Report,
    ) -> Result<Checked> {
        let opts = self.opts;
        report.converged = false;
        report.bounds = self
            .ritz_interval(k, op.spectral_bounds())
            .or(report.bounds);
        if !opts.allow_unconverged {
            return Err(Error::NoConvergence {
                method: "lanczos",
                detail: format!(
                    "the estimate meets the tolerance at dimension {k} (estimated \
                     error {:.3e}), but rtol = {:.1e} is below what Lanczos attains \
                     in {} there (its rounding, about u·k = {floor:.1e} of the \
                     result): ask for rtol ≥ {:.0e}, or compute in double precision",
                    report.error_estimate,
                    opts.tol.rtol,
                    S::NAME,
                    2.0 * floor
                ),
            });
        }
        Ok(Checked::Done(Tridiagonal { k }, coeffs))
    }

    /// The interval [θ_min, θ_max] of the extreme Ritz values of T_k, for the report
    /// ([`crate::BoundsSource::Ritz`]), intersected with the operator's proven bounds
    /// (`proven`, e.g. its Gershgorin interval) where it has them; `None` when not finite.
    ///
    /// θ_min and θ_max are Rayleigh quotients of A on span(Q_k), so for Hermitian A they lie
    /// in [λ_min, λ_max] (up to the rounding of the recurrence and a few ε·‖T_k‖ of the
    /// bisection brackets, [`matexp_dense::symmetric_tridiagonal_extreme_eigenvalues`]): an
    /// inner estimate of the spectrum's hull, converging to its ends from inside. The
    /// Gershgorin interval of T_k, reported before, held the Ritz values but reached far
    /// outside the spectrum (a positive end for a negative-definite matrix). Cost: two
    /// bisections of O(k) per Sturm count, once per call.
    fn ritz_interval(
        &self,
        k: usize,
        proven: Option<matexp_core::SpectralBounds>,
    ) -> Option<(matexp_core::SpectralBounds, crate::BoundsSource)> {
        let k = k.min(self.alpha.len());
        if k == 0 {
            return None;
        }
        let (mut lo, mut hi) = matexp_dense::symmetric_tridiagonal_extreme_eigenvalues(
            &self.alpha[..k],
            &self.beta[..k - 1],
        )
        .ok()?;
        if let Some(p) = proven {
            // Both hold: θ ∈ [λ_min, λ_max] ⊂ the proven interval; clipping removes the
            // rounding that may carry θ past a proven end.
            (lo, hi) = (lo.max(p.re_min), hi.min(p.re_max));
            if lo > hi {
                (lo, hi) = (hi, lo);
            }
        }
        matexp_core::SpectralBounds::real(lo, hi)
            .ok()
            .map(|b| (b, crate::BoundsSource::Ritz))
    }

    /// The typed errors for an e^{τA}v that the scalar type cannot hold or the `f64`
    /// exponents cannot resolve, checked at every convergence check (before an estimate of
    /// 0 could pass a result of zeros):
    ///
    /// * **Proven overflow.** For Hermitian A, ‖e^{τA}v‖² = vᴴe^{2Re(τ)A}v = Σᵢ|cᵢ|²e^{2Re(τ)λᵢ}
    ///   ≥ ‖v‖²·e^{2Re(τ)·ρ} by Jensen's inequality, with the weights |cᵢ|²/‖v‖² and the
    ///   Rayleigh quotient ρ = vᴴAv/vᴴv = α₁ (the first Lanczos coefficient). Where
    ///   ln‖v‖ + Re(τ)·α₁, less the rounding of α₁ (n·ε·|τ|·(|α₁| + β₂)) and of the exponents,
    ///   exceeds ln of the largest finite value of the vector type, the result overflows:
    ///   [`Error::NonFinite`], whatever the iteration would make of it (the bound shared
    ///   with Leja, Arnoldi and Taylor, [`crate::leja::overflow_bound`]).
    /// * **Exponents beyond resolution.** The exponents τλ carry a rounding of
    ///   r = 4ε·|τ|·‖T_k‖∞ ([`super::small::exponent_rounding`]); from r > ln 2 on no digit of
    ///   the result is determined (the scaling itself is off by e^{r}, and for r ≳ 700 every
    ///   term of y underflows to 0). Unless the result is below the underflow threshold even
    ///   for exponents r too large (ln‖v‖ + c + r < ln of the smallest positive value: zero is
    ///   then the nearest representable result), that is [`Error::NonFinite`] as well, with
    ///   r in the message: rescale t or A.
    fn range_check(
        &self,
        targets: &[(Func, c64)],
        coeffs: &[Coefficients],
        k: usize,
        beta0: f64,
    ) -> Result<()> {
        use num_traits::Float;
        let ln_min = <S::Real as Float>::min_positive_value().as_f64().ln();
        let (alpha, beta) = (&self.alpha[..k], &self.beta[..k]);
        let beta_inner = &beta[..k - 1];
        for (i, (&(func, tau), c)) in targets.iter().zip(coeffs).enumerate() {
            if func != Func::Exp {
                // φ_p is not scaled: an overflow is ∞ in y, found as a NaN estimate.
                continue;
            }
            let r = super::small::exponent_rounding(alpha, beta_inner, tau);
            let rho = alpha[0];
            let rho_rounding = self.n.max(1) as f64 * S::Real::EPS.as_f64() * (rho.abs() + beta[0]);
            let slack = tau.re.abs() * rho_rounding + r;
            if let Some(e) =
                crate::leja::overflow_bound::<S>("lanczos", beta0.ln(), tau, rho, slack, i)
            {
                return Err(e);
            }
            let upper = beta0.ln() + c.log_scale() + r;
            if r > std::f64::consts::LN_2 && upper >= ln_min {
                return Err(Error::NonFinite {
                    context: format!(
                        "lanczos: e^{{tA}}v at t = {tau:e} cannot be evaluated in f64: the \
                         exponents t·λ over the eigenvalues of T_{k} carry a rounding of \
                         4ε·|t|·‖T‖∞ = {r:.3e} (beyond ln 2, so no digit of the result is \
                         determined), and ‖e^{{tA}}v‖ may be as large as e^{upper:.6e}; \
                         rescale t or A"
                    ),
                    index: i,
                    value: format!("4ε·|t|·‖T‖∞ = {r:.3e}"),
                });
            }
        }
        Ok(())
    }

    /// The error for a time whose products t·λ with the eigenvalues of T_k leave the `f64`
    /// range (the small exponential is NaN, its estimate meaningless): iterating further
    /// cannot help.
    fn out_of_range(&self, tau: c64, k: usize) -> Error {
        // Gershgorin: every eigenvalue of T_k is within max |α_i| + |β_{i−1}| + |β_i|.
        let radius = (0..k)
            .map(|i| {
                let below = if i > 0 { self.beta[i - 1] } else { 0.0 };
                let above = if i + 1 < k { self.beta[i] } else { 0.0 };
                self.alpha[i].abs() + below + above
            })
            .fold(0.0, f64::max);
        Error::NonFinite {
            context: format!(
                "lanczos: t·λ for the eigenvalues λ of T_{k} (|λ| ≤ {radius:.3e}) is beyond \
                 the f64 range at t = {tau:e}, so e^{{tA}}v cannot be evaluated; rescale t or A"
            ),
            index: k,
            value: format!("|t|·max|λ| ≈ {:e}", tau.norm() * radius),
        }
    }

    fn coefficients(
        &self,
        targets: &[(Func, c64)],
        k: usize,
        exact: bool,
        screen: Screen<'_>,
    ) -> Result<Vec<Coefficients>> {
        targets
            .iter()
            .map(|&(func, tau)| match func {
                Func::Exp => {
                    let tol = &self.opts.tol;
                    exp_coefficients(&self.alpha, &self.beta, k, tau, exact, tol, screen)
                }
                Func::Phi(p) => {
                    let tol = &self.opts.tol;
                    phi_coefficients(&self.alpha, &self.beta, k, p, tau, exact, tol, screen)
                }
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
            // One pass over the basis per output (Backend::linear_combination).
            let basis: Vec<&B::Vector<S>> = self.basis[..k].iter().collect();
            for (o, y) in out.iter_mut().zip(&scaled) {
                be.linear_combination(&y[..k], &basis, o)?;
            }
        } else {
            // Regenerate q_j by the same fused steps as the first pass (they recompute α, β
            // into the coefficient array, where nothing reads them back), so the vectors
            // agree with it to rounding (bitwise on deterministic backends) and the pass
            // needs no host scalar.
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
                self.fused_step(op, j)?;
                report.matvecs += 1;
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

/// Where to restart with reorthogonalization, decided at a check of dimension `k` that did
/// not converge (worst estimate / tolerance `miss`, `previous` the check before): the Auto
/// monitor's restart point i₀ when it finds the loss of orthogonality harmful
/// ([`OmegaMonitor::verdict`]) and the restart pays, i.e. the steps still needed by the
/// log-linear extrapolation of the last two checks (infinite while the estimate does not
/// fall) exceed the k − i₀ steps it redoes. The monitor is switched off once it has fired (the
/// rest of the run reorthogonalizes).
fn restart_point(
    monitor: &mut Option<OmegaMonitor>,
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    previous: Option<(usize, f64)>,
    miss: f64,
) -> Option<usize> {
    let m = monitor.as_mut()?;
    if alpha.len() < k {
        return None;
    }
    let remaining = match previous {
        Some((kp, mp)) if miss > 1.0 && miss < mp && kp < k => {
            miss.ln() / ((mp / miss).ln() / (k - kp) as f64)
        }
        _ => f64::INFINITY,
    };
    let i = m.verdict(alpha, beta, k, |i| remaining > (k - i) as f64)?;
    *monitor = None;
    Some(i)
}

/// What to try when Lanczos stops at `max_dim` without meeting the tolerance.
///
/// Without reorthogonalization a stiff operator (‖A‖ ≫ the spread of the eigenvalues that
/// matter) loses orthogonality and stalls on ghost copies of converged eigenvalues
/// (measured: a dense n = 200 matrix with spectrum in [−1e6, 0] does not converge at
/// k = 500 without it, and does at k = 127 with it); a large τ‖A‖ needs a dimension of about
/// |τ|‖A‖ (oscillatory) or √(|τ|‖A‖) (decay), which substeps split up.
fn max_dim_hint(opts: &LanczosOptions, mode: Reorthogonalize, targets: &[(Func, c64)]) -> String {
    let reorth = match mode {
        Reorthogonalize::Always => "",
        Reorthogonalize::Auto => {
            "if the operator is stiff, set reorthogonalization = Always (Auto watched the \
             estimated loss of orthogonality); "
        }
        Reorthogonalize::Never if opts.two_pass => {
            "orthogonality may be lost (stiff operator): reorthogonalization needs the stored \
             basis, so turn two_pass off (Auto then reorthogonalizes where needed); "
        }
        Reorthogonalize::Never => {
            "orthogonality may be lost (stiff operator): set reorthogonalize (or \
             reorthogonalization = Auto); "
        }
    };
    let single_exp = targets.len() == 1 && targets[0].0 == Func::Exp;
    let steps = if !single_exp {
        "substeps are taken only for a single output time of exp (not for φ-functions or \
         several times): split the time range yourself, or use Arnoldi, which takes substeps"
    } else if opts.max_substeps <= 1 {
        "substeps are off (max_substeps = 1): raise max_substeps"
    } else {
        "raise max_substeps"
    };
    format!("{reorth}raise max_dim; {steps}")
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

/// e^{tA}v by Lanczos with a fresh workspace; returns the result and the report.
/// See [`Lanczos`] for the method, its stopping rule and costs.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{LanczosOptions, lanczos_expmv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
/// let (w, _) = lanczos_expmv(&cpu, &op, 1.0, &vec![1.0, 0.0], &LanczosOptions::default())?;
/// assert!((w[0] - 1f64.cosh()).abs() < 1e-12 && (w[1] - 1f64.sinh()).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::expmv`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn lanczos_expmv<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &LanczosOptions,
) -> Result<(B::Vector<S>, Report)> {
    crate::method::expmv_with::<Lanczos<'_, B, S>, _, _, _>(backend, op, t, v, *opts)
}

/// φ_k(tA)v by Lanczos with a fresh workspace, in the argument order of the facade's
/// `matexp::phimv_k` (backend, operator, t, v, k, options): the lower layer for callers that
/// name the method. See [`ExpmvMethod::phimv_k`].
///
/// # Errors
///
/// As [`ExpmvMethod::phimv_k`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn lanczos_phimv<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    k: usize,
    opts: &LanczosOptions,
) -> Result<(B::Vector<S>, Report)> {
    crate::method::phimv_k_with::<Lanczos<'_, B, S>, _, _, _>(backend, op, k, t, v, *opts)
}
