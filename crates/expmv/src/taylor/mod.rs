//! The truncated Taylor method of Al-Mohy & Higham for e^{tA}v ("Computing the action of the
//! matrix exponential, with an application to exponential integrators", SIAM J. Sci.
//! Comput. 33(2), 2011, Algorithm 3.2 — the algorithm behind SciPy's `expm_multiply`), and
//! for φ-combinations Σ_j t^jφ_j(tA)b_j through the paper's augmented matrix (§2).

mod params;
mod theta;

pub use theta::taylor_theta;

use crate::{
    ExpmvMethod, MethodOptions, NormBound, Progress, Report, Shift, TaylorOptions, checks,
};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, c64};
use num_traits::Zero;
use params::{NormInfo, guard_rounding, select};

/// Truncated Taylor series with scaling: e^{tA}v = e^{tμ}·(T_m(t(A − μI)/s))^s·v, with a
/// reusable workspace.
///
/// **Method.** The degree m* ≤ m_max = 55 and the number of steps s minimize m*·s subject to
/// ‖t(A − μI)/s‖ ≤ θ_{m*}(tol_b), where θ_m(tol_b) bounds the backward error of the truncated
/// series by tol_b ([`taylor_theta`], computed for the requested tolerance rather than
/// tabulated for 2⁻⁵³ only). Because `rtol` is a forward-error request and the exponential
/// amplifies a backward error by up to ‖t(A − μI)‖, tol_b = rtol/max(1, ‖t(A − μI)‖)
/// (at least 2⁻⁵³) — which costs only a few percent more steps since θ_m ∝ tol_b^{1/m}.
/// Each of the s steps sums F ← Σ_{j≤m*} (t(A − μI)/s)^j F/j! and stops early once two
/// consecutive terms satisfy ‖b_{j−1}‖_∞ + ‖b_j‖_∞ ≤ (rtol·‖F‖_∞ + atol/√n)/s (the paper
/// uses tol·‖F‖_∞; the 1/s keeps the s truncation errors within the budget); then
/// F ← e^{tμ/s}F.
///
/// **Norm information** (see [`NormBound`]; this is where we differ from SciPy, whose
/// operators offer a 1-norm and an adjoint for the Higham–Tisseur estimator): the exact 2-norm
/// from the spectral bounds of Hermitian operators (and the shift μ at the spectrum's
/// midpoint, which minimizes it); a caller-supplied bound; or estimates of ‖(A − μI)^p‖^{1/p}
/// from powers applied to random probes (lower bounds inflated by 1.25, like SciPy's
/// estimates not guaranteed). Other differences from SciPy: θ_m is computed for the requested
/// `rtol`; the shift is the spectral midpoint when known (SciPy: trace/n, available here
/// through [`Shift::Value`]); several output times step from one to the next instead of
/// SciPy's interval algorithm.
///
/// **Cost.** m*·s products (s ≈ ‖tA‖/θ_{m*}, so about ‖tA‖·(m*/θ_{m*}) ≈ 5.6‖tA‖ for
/// m* = 55 in double precision), plus 2·probes·(p_max + 1) for estimates; 3 vectors of memory.
/// Krylov methods need far fewer products for Hermitian problems (√‖tA‖), Taylor needs no
/// inner products — attractive on GPUs and for nonnormal problems.
///
/// **φ-functions** (Al-Mohy & Higham 2011, §2, Thm. 2.1). A combination
/// Σ_{j=0}^{p} t^jφ_j(tA)b_j (φ_k(tA)v by [`ExpmvMethod::phimv_k`] is bs = [0, …, 0, v]
/// divided by t^k) is the top block of exp(Â)[b₀; η·e_p] with
/// Â = [[σA, B̂/η], [0, J]], B̂ = [σ^p b_p, …, σb₁], J the p×p upper shift and σ = t (for
/// several times on a ray, σ is the last one and the times run in [0, 1], so the tail stays
/// ≤ η). Scaling B̂ by 1/η and the tail by η is a similarity that leaves the top block
/// exact; η = 2^⌈log₂ y⌉ with y = Σ_j √n·|σ|^j‖b_j‖₂ makes ‖B̂/η‖ ≤ 1 in the 1-, 2-, ∞- and
/// Frobenius norms (the paper's balancing). The same algorithm then runs on Â: the p tail
/// entries live on the host, and each term costs one product with A plus ≤ p axpys with the
/// b_j (O(p·n)). Degree and steps are chosen for ‖Â − σμI‖ ≤ max(|σ|‖A − μI‖, 1 + |σμ|) + 1
/// (block triangular, ‖J‖ ≤ 1), a bound wherever ‖A − μI‖'s is, checked by the series as
/// for e^{tA}; the automatic shift is the midpoint of the spectral interval extended to 0
/// (J's eigenvalue). A term's size for the stopping test is max(‖top‖_∞, ‖B̂/η‖_∞·‖tail‖_∞)
/// (what the tail feeds into the top block), compared with rtol·‖top of F‖_∞; the error
/// estimate is that of the top block, i.e. of the value returned (φ_kv, not t^kφ_kv: the
/// trait divides the estimate by |t|^k with the result). Cost: at most a few percent more
/// products than e^{tA}v for ‖tA‖ ≫ 1 (counted for φ₁…φ₄ on a diagonal operator:
/// `bench-results/notes/tuning.md`, "expmv: Taylor φ_k"). Measured on the accuracy suite's φ₁…φ₄ cases (nonnormal, stiff
/// symmetric, upwind advection, A = 0, n = 1; mpmath references): error/rtol 2·10⁻⁴ to
/// 3·10⁻² at rtol 10⁻⁶ and 10⁻¹⁰, every estimate above the error (by factors 25 to 2·10³), 5 to 167
/// products; `tests/taylor_phi.rs` checks these and closed forms up to φ₁₆, complex t,
/// several columns and times.
///
/// **Cost estimate, cap and progress.** The degree m* and the steps s of every output
/// interval are chosen before the first series product, so [`Report::cost_estimate`] =
/// (norm-estimate products) + Σ s·m* is known then and is an upper bound (a step stops its
/// series early once the terms are small): products/estimate was 0.23–1.0 on 1D Laplacians
/// and upwind advection–diffusion (t‖A‖ up to 1.6·10⁴, rtol 10⁻⁶ and 10⁻¹⁰). A call whose
/// estimate exceeds twice [`TaylorOptions::max_products`] is refused before the first
/// series product; one that reaches the cap stops before its next step (at most m* products
/// past it); both with [`Error::NoConvergence`] naming `max_products`, never a partial
/// result. [`TaylorOptions::progress`] is called after every step.
///
/// **Accuracy.** Backward error ≤ tol_b·‖tA‖ in exact arithmetic when the norm information is
/// a bound. A bound is checked for free against the series' own terms, a power sequence of
/// A − μI: terms growing faster than n·(|τ|b/s)^j, which no bound b in the 1-, 2-, ∞- or
/// Frobenius norm allows, end the call with [`Error::InvalidArgument`] rather than a
/// truncated series (a bound a little too small may pass unseen, and then costs accuracy). Rounding: each step sums terms of size up to e^{θ}‖F‖/√(2πθ) (θ ≤ ~10). For
/// real spectra (Hermitian A, real t, with the midpoint shift) the components that suffer
/// cancellation are the damped ones, and the errors stay at the level of u. For oscillatory
/// or nonnormal problems they accumulate like u·s·e^θ, so — beyond the paper — s is doubled
/// (and m lowered) until that estimate is below rtol/4; this only costs extra products at
/// tolerances near 10⁻¹² with ‖tA‖ ≳ 10³ in double precision, and from ‖tA‖ ≈ 10 in single
/// precision (c32, e^{−iτH}v with τ‖H − μI‖ = 45 at rtol 10⁻⁵: 384 products instead of 164,
/// error 8·10⁻⁷ instead of 6.5·10⁻⁴).
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ExpmvMethod, NormBound, Taylor, TaylorOptions, Tolerance};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![-1.0, 10.0, 0.0, -2.0])?;
/// let opts = TaylorOptions {
///     tol: Tolerance::relative(1e-12),
///     norm: NormBound::Upper(11.0), // ‖A‖₁ = max column sum
///     ..Default::default()
/// };
/// let mut tay = Taylor::new(&cpu, opts)?;
/// let mut w = vec![0.0; 2];
/// tay.expmv(&op, 1.0, &vec![0.0, 1.0], &mut w)?;
/// let (e1, e2) = ((-1f64).exp(), (-2f64).exp());
/// assert!((w[0] - 10.0 * (e1 - e2)).abs() < 1e-11 && (w[1] - e2).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// **Results beyond the range.** A result that overflows ends the call with
/// [`Error::NonFinite`] when a series term or the state overflows. Its cost (s grows with
/// |t|·‖A‖) usually refuses the plan first; for a Hermitian operator a refused plan of
/// e^{tA}v is then checked against ‖e^{tA}v‖ ≥ ‖v‖·e^{Re t·ρ}, ρ = vᴴAv/vᴴv (Jensen's
/// inequality, the bound Lanczos and Leja apply; one product), and a result proven beyond
/// the range is reported as [`Error::NonFinite`], not as its cost. For non-Hermitian
/// operators and φ-combinations nothing is proven: a plan beyond the caps is
/// [`Error::NoConvergence`] whether or not the result would fit.
///
/// # Errors
///
/// Those of [`ExpmvMethod::expmv`]; [`Error::NoConvergence`] beyond `max_matvecs` or the
/// cost cap `max_products` (for Hermitian operators, [`Error::NonFinite`] instead where the
/// result provably overflows); [`Error::InvalidArgument`] naming `norm` when the series proves a
/// given bound too small, or naming `t` when |t|^j·‖b_j‖ of a φ-combination is beyond the
/// floating-point range.
#[derive(Debug)]
pub struct Taylor<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    opts: TaylorOptions,
    n: usize,
    f: Option<B::Vector<S>>,
    b: Option<B::Vector<S>>,
    tmp: Option<B::Vector<S>>,
    /// Random probes of the norm estimator, uploaded once.
    probes: Vec<B::Vector<S>>,
}

impl<'a, B: Backend + 'a, S: Scalar> ExpmvMethod<'a, B, S> for Taylor<'a, B, S> {
    type Options = TaylorOptions;
    const NAME: &'static str = "taylor";

    /// Three vectors, allocated on first use.
    fn new(backend: &'a B, opts: TaylorOptions) -> Result<Self> {
        Ok(Taylor {
            backend,
            opts: opts.resolved::<S>()?,
            n: 0,
            f: None,
            b: None,
            tmp: None,
            probes: Vec::new(),
        })
    }

    fn backend(&self) -> &'a B {
        self.backend
    }

    fn options(&self) -> &TaylorOptions {
        &self.opts
    }

    fn set_options(&mut self, opts: TaylorOptions) -> Result<()> {
        self.opts = opts.resolved::<S>()?;
        Ok(())
    }

    /// Σ_j τᵢ^j·φ_j(τᵢA)·b_j: e^{τA}b₀ directly, each interval from the previous result
    /// (norm information is obtained once); with φ-terms (b_j ≠ 0 for some j ≥ 1) the same
    /// algorithm on the augmented operator (see [`Taylor`], **φ-functions**).
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
        let p = bs.iter().rposition(Option::is_some).unwrap_or(0);
        if p > 0 {
            if let Some(forcing) = self.forcing(op, scale, times, bs, out)? {
                let r_last = *times.last().expect("checked non-empty");
                let rs: Vec<f64> = times.iter().map(|r| r / r_last).collect();
                let sigma = scale * S::from_f64(r_last);
                return self.run(op, sigma, &rs, bs[0], Some(forcing), r_last, out);
            }
        }
        match bs[0] {
            Some(v) => self.run(op, scale, times, Some(v), None, 1.0, out),
            None => {
                let n = checks::square_order("taylor", op)?;
                for (i, o) in out.iter_mut().enumerate() {
                    checks::output(self.backend, &format!("taylor: output {i}"), o, n)?;
                    self.backend.fill(o, S::zero())?;
                }
                Ok(Report::new("taylor"))
            }
        }
    }
}

/// The φ-part of a combination: Σ_j σ^jφ_j(σA)b_j (σ = scale·r_last) is the top block of
/// exp(Â)[b₀; η·e_p] with Â = [[σA, Y], [0, J]], Y = B̂/η, B̂ = [σ^p b_p, …, σb₁] and J the
/// p×p upper shift (Al-Mohy & Higham 2011, Thm. 2.1, in time normalized to [0, 1]).
struct Forcing<'v, B: Backend, S: Scalar> {
    /// Column i of Y, coupling tail entry i: (b_{p−i}, σ^{p−i}/η), `None` for a zero b.
    cols: Vec<Option<(&'v B::Vector<S>, S)>>,
    /// η: the tail starts as η·e_p.
    eta: f64,
    /// Bound on ‖Y‖ in the 1-, 2-, ∞- and Frobenius norms: Σ_j √n·|σ|^j‖b_j‖₂/η ≤ 1.
    norm: f64,
    /// Bound on ‖Y‖_∞, Σ_j |σ|^j‖b_j‖_∞/η: what a tail term feeds into the top block, the
    /// weight of the tail in the series' stopping test.
    weight: f64,
}

impl<'a, B: Backend, S: Scalar> Taylor<'a, B, S> {
    /// Checks the vectors of a φ-combination and sets up its augmentation; `None` when the
    /// φ-terms vanish (σ = 0 or every b_j = 0 for j ≥ 1), which leaves e^{τA}b₀.
    fn forcing<'v, O: LinearOperator<B, S> + ?Sized>(
        &self,
        op: &O,
        scale: S,
        times: &[f64],
        bs: &[Option<&'v B::Vector<S>>],
        out: &[B::Vector<S>],
    ) -> Result<Option<Forcing<'v, B, S>>> {
        let be = self.backend;
        let n = checks::square_order("taylor", op)?;
        for (j, b) in bs.iter().enumerate() {
            if let Some(b) = b {
                checks::vector(be, &format!("taylor: b_{j}"), b, n)?;
            }
        }
        for (i, o) in out.iter().enumerate() {
            checks::output(be, &format!("taylor: output {i}"), o, n)?;
        }
        let r_last = *times.last().expect("checked non-empty");
        let sigma = scale * S::from_f64(r_last);
        let abs_sigma = sigma.modulus().as_f64();
        if abs_sigma == 0.0 {
            return Ok(None);
        }
        let sqrt_n = (n.max(1) as f64).sqrt();
        let (mut y, mut winf, mut p) = (0.0f64, 0.0f64, 0usize);
        let mut norms = vec![(0.0f64, 0.0f64); bs.len()];
        for (j, b) in bs.iter().enumerate().skip(1) {
            if let Some(b) = b {
                let (n2, ninf) = (be.nrm2(b)?.as_f64(), be.amax(b)?.as_f64());
                if n2 > 0.0 {
                    let pw = abs_sigma.powi(j as i32);
                    y += pw * sqrt_n * n2;
                    winf += pw * ninf;
                    norms[j] = (n2, ninf);
                    p = j;
                }
            }
        }
        if p == 0 {
            return Ok(None);
        }
        let eta = 2f64.powi(y.log2().ceil().clamp(-1000.0, 1000.0) as i32);
        let overflow = || {
            Error::invalid(
                "t",
                format!("{:e}", abs_sigma),
                format!(
                    "|t|^{p}·‖b_{p}‖ is outside the floating-point range of {}; scale the \
                     problem",
                    S::NAME
                ),
            )
        };
        if !(y.is_finite() && eta.is_finite() && eta > 0.0) {
            return Err(overflow());
        }
        let mut cols = Vec::with_capacity(p);
        for i in 0..p {
            let j = p - i;
            match bs[j] {
                Some(b) if norms[j].0 > 0.0 => {
                    // σ^j/η, dividing first: η ≥ |σ|^j‖b_j‖ keeps it in range.
                    let mut c = S::from_f64(1.0 / eta);
                    for _ in 0..j {
                        c *= sigma;
                    }
                    if !c.finite() {
                        return Err(overflow());
                    }
                    cols.push(Some((b, c)));
                }
                _ => cols.push(None),
            }
        }
        Ok(Some(Forcing {
            cols,
            eta,
            norm: y / eta,
            weight: winf / eta,
        }))
    }

    /// The series on τ(A − μI), or with `forcing` on the augmented operator (then `scale`
    /// is σ and `times` run in [0, 1]; `time_unit` = r_last converts them back for messages).
    #[allow(clippy::too_many_arguments)]
    fn run<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        scale: S,
        times: &[f64],
        v: Option<&B::Vector<S>>,
        forcing: Option<Forcing<'_, B, S>>,
        time_unit: f64,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let be = self.backend;
        let n = self.prepare(op, v, out)?;
        let mut report = Report::new("taylor");
        let opts = self.opts.clone();
        let (mu, mut info) = self.norm_info(op, forcing.is_some(), &mut report)?;
        report.estimate_matvecs = report.matvecs;
        if op.is_hermitian() && report.bounds.is_none() {
            if let Some(b) = op.spectral_bounds() {
                report.bounds = Some((b, crate::BoundsSource::Operator));
            }
        }
        // The augmentation: tail (p host entries) and the shift σμ of its block J − σμI.
        let p = forcing.as_ref().map_or(0, |f| f.cols.len());
        let sigma_mu = scale * S::from_c64(mu);
        let mut ft = vec![S::zero(); p];
        if let Some(fc) = &forcing {
            // ‖Â − σμI‖ ≤ max(|σ|‖A − μI‖, 1 + |σμ|) + ‖Y‖ (block triangular; ‖J‖ ≤ 1 in
            // the 1-, 2- and ∞-norms), expressed per unit of |σ| like ‖A − μI‖.
            let abs_sigma = scale.modulus().as_f64();
            let cz = (1.0 + sigma_mu.modulus().as_f64()) / abs_sigma;
            let extra = fc.norm / abs_sigma;
            info.norm = info.norm.max(cz) + extra;
            info.d.iter_mut().for_each(|d| *d = d.max(cz) + extra);
            ft[p - 1] = S::from_f64(fc.eta);
        }
        let weight = forcing.as_ref().map_or(0.0, |f| f.weight);
        let (f, b, tmp) = (
            self.f.as_mut().expect("allocated"),
            self.b.as_mut().expect("allocated"),
            self.tmp.as_mut().expect("allocated"),
        );
        match v {
            Some(v) => be.copy(v, f)?,
            None => be.fill(f, S::zero())?,
        }
        let mut series = Series {
            be,
            op,
            atol_inf: opts.tol.atol / (n.max(1) as f64).sqrt(),
            opts,
            scale,
            time_unit,
            n,
            mu,
            info,
            forcing,
            p,
            sigma_mu,
            weight,
            unit_roundoff: 0.5 * S::Real::EPS.as_f64(),
            real_spectrum: op.is_hermitian() && scale.im() == S::Real::zero(),
            t_last: times.last().copied().unwrap_or(0.0),
            f,
            b,
            tmp,
            ft,
            bt: vec![S::zero(); p],
            tt: vec![S::zero(); p],
            report,
            abs_error: 0.0,
            prev_norm: 0.0,
        };
        let plans = series.plan(times)?;
        series.prev_norm = be.nrm2(series.f)?.as_f64();
        let mut t_prev = 0.0;
        for (i, &ti) in times.iter().enumerate() {
            let dt = ti - t_prev;
            let t_start = t_prev;
            t_prev = ti;
            if let Some((m, s)) = plans[i] {
                series.interval(t_start, ti, dt, m, s)?;
            }
            be.copy(series.f, &mut out[i])?;
            // The relative errors of the steps so far, of this output.
            series.report.output_estimates.push(series.abs_error);
        }
        let fin = be.nrm2(series.f)?.as_f64();
        let mut report = series.report;
        report.error_estimate = series.abs_error;
        if !fin.is_finite() {
            return Err(Error::NonFinite {
                context: format!("taylor: the result overflows the {} range", S::NAME),
                index: 0,
                value: format!("{fin}"),
            });
        }
        Ok(report)
    }

    /// Checks the operator, `v` and the outputs, and sizes the workspace for the operator's
    /// order (returned); a new order drops the vectors and probes of the last.
    fn prepare<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        v: Option<&B::Vector<S>>,
        out: &[B::Vector<S>],
    ) -> Result<usize> {
        let be = self.backend;
        let n = checks::square_order("taylor", op)?;
        if n != self.n {
            self.n = n;
            self.f = None;
            self.b = None;
            self.tmp = None;
            self.probes.clear();
        }
        if let Some(v) = v {
            checks::vector(be, "taylor: v", v, n)?;
        }
        for (i, o) in out.iter().enumerate() {
            checks::output(be, &format!("taylor: output {i}"), o, n)?;
        }
        for slot in [&mut self.f, &mut self.b, &mut self.tmp] {
            if slot.is_none() {
                *slot = Some(be.zeros(n)?);
            }
        }
        Ok(n)
    }

    /// The shift μ and the norm information of A − μI, per [`NormBound`] and [`Shift`].
    /// With `with_zero` (a φ-combination) the automatic shift is the midpoint of the
    /// spectral interval extended to contain 0, the eigenvalue of the augmentation's block J.
    fn norm_info<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        with_zero: bool,
        report: &mut Report,
    ) -> Result<(c64, NormInfo)> {
        let mut bounds = if op.is_hermitian() {
            op.spectral_bounds()
        } else {
            None
        };
        // A loose (Gershgorin) interval would be taken as the exact ‖A − μI‖: narrow it as
        // Leja does (a short Lanczos estimate intersected with it, kept when less than half
        // as wide; measured on a dense stiff matrix with spectrum in [−1e6, 0] and Gershgorin
        // interval [−2.5e6, 1.1e6], n = 120, t = 1e−3: 3 381 → 1 557 products at rtol 1e−6).
        if let (Some(b), NormBound::Auto) = (bounds, &self.opts.norm) {
            if !op.spectral_bounds_are_tight() {
                let scratch = [
                    self.f.as_mut().expect("allocated"),
                    self.b.as_mut().expect("allocated"),
                    self.tmp.as_mut().expect("allocated"),
                ];
                let (narrowed, k) = crate::leja::tighten(self.backend, op, &b, scratch)?;
                report.matvecs += k;
                if let Some(t) = narrowed {
                    bounds = Some(t);
                    report.bounds = Some((t, crate::BoundsSource::Tightened));
                }
            }
        }
        let bounds = match bounds {
            Some(mut b) if with_zero => {
                b.re_min = b.re_min.min(0.0);
                b.re_max = b.re_max.max(0.0);
                Some(b)
            }
            other => other,
        };
        let given = |sh: Shift| match sh {
            Shift::Value(re, im) => c64::new(re, if S::IS_COMPLEX { im } else { 0.0 }),
            _ => c64::new(0.0, 0.0),
        };
        let from_bounds = |mu: c64| -> Option<f64> {
            bounds.map(|b| {
                let r = (b.re_min - mu.re).abs().max((b.re_max - mu.re).abs());
                r.hypot(mu.im)
            })
        };
        let midpoint = bounds.map(|b| c64::new(0.5 * (b.re_min + b.re_max), 0.0));
        let shift = self.opts.shift;
        match self.opts.norm.clone() {
            NormBound::Upper(b) => Ok((
                given(shift),
                NormInfo {
                    norm: b,
                    d: Vec::new(),
                    exact: true,
                },
            )),
            NormBound::Auto if bounds.is_some() => {
                let mu = match shift {
                    Shift::Auto => midpoint.expect("bounds exist"),
                    other => given(other),
                };
                Ok((
                    mu,
                    NormInfo {
                        norm: from_bounds(mu).expect("bounds exist"),
                        d: Vec::new(),
                        exact: true,
                    },
                ))
            }
            NormBound::Auto if op.norm_bound().is_some_and(|b| b.is_finite() && b >= 0.0) => {
                // ‖A − μI‖ ≤ ‖A‖ + |μ|: safe, and free where the operator knows ‖A‖.
                let mu = given(shift);
                Ok((
                    mu,
                    NormInfo {
                        norm: op.norm_bound().expect("checked") + mu.norm(),
                        d: Vec::new(),
                        exact: true,
                    },
                ))
            }
            NormBound::Auto | NormBound::Estimate { .. } => {
                let probes = match self.opts.norm {
                    NormBound::Estimate { probes } => probes,
                    _ => 2,
                };
                let mu = match (shift, midpoint) {
                    (Shift::Auto, Some(m)) => m,
                    (other, _) => given(other),
                };
                let mut d = self.estimate_powers(op, mu, probes, report)?;
                let norm = d.iter().cloned().fold(0.0, f64::max);
                // ρ(A − μI) ≤ ‖(A − μI)^p‖^{1/p} for every p: the long power sequence's
                // estimate of ρ is a floor for the α_p.
                let rho = d[self.opts.p_max + 1..].iter().cloned().fold(0.0, f64::max);
                d.truncate(self.opts.p_max + 1);
                d.iter_mut().for_each(|x| *x = x.max(rho));
                Ok((
                    mu,
                    NormInfo {
                        norm,
                        d,
                        exact: false,
                    },
                ))
            }
        }
    }

    /// d_p = 1.25·max over probes (‖(A − μI)^p x‖₂/‖x‖₂)^{1/p}, p = 1, …, 2(p_max + 1), for
    /// seeded random ±1 (real) or unit-modulus (complex) probes.
    fn estimate_powers<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        mu: c64,
        probes: usize,
        report: &mut Report,
    ) -> Result<Vec<f64>> {
        const SAFETY: f64 = 1.25;
        let be = self.backend;
        let n = self.n;
        let pmax = self.opts.p_max;
        // α_p needs d_p for p ≤ p_max + 1; the power sequence continues to twice that
        // length, which brings the overall ‖A − μI‖ estimate closer to the spectral radius.
        let steps = 2 * (pmax + 1);
        let mut d = vec![0.0f64; steps];
        let (x, y) = (
            self.b.as_mut().expect("allocated"),
            self.tmp.as_mut().expect("allocated"),
        );
        let mu_s = S::from_c64(mu);
        while self.probes.len() < probes {
            // Seeded by the probe's index: the same probes in every call (reproducible).
            let mut state = 0x9E37_79B9_7F4A_7C15u64
                ^ (self.probes.len() as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
            let host: Vec<S> = (0..n)
                .map(|_| {
                    let r = splitmix(&mut state);
                    let re = if r & 1 == 0 { 1.0 } else { -1.0 };
                    let im = if r & 2 == 0 { 1.0 } else { -1.0 };
                    if S::IS_COMPLEX {
                        S::from_c64(c64::new(re, im) / 2f64.sqrt())
                    } else {
                        S::from_f64(re)
                    }
                })
                .collect();
            self.probes.push(be.upload(&host)?);
        }
        for x0 in &self.probes[..probes] {
            be.copy(x0, x)?;
            // log‖(A − μI)^p x‖ − log‖x‖, renormalizing x each step.
            let mut log_growth = 0.0;
            for p in 1..=steps {
                op.apply(be, S::one(), x, S::zero(), y)?;
                if mu_s != S::zero() {
                    be.axpby(-mu_s, x, S::one(), y)?;
                }
                report.matvecs += 1;
                let ny = be.nrm2(y)?.as_f64();
                let nx = be.nrm2(x)?.as_f64();
                if !(ny.is_finite() && nx > 0.0) {
                    if !ny.is_finite() {
                        return Err(Error::NonFinite {
                            context: "taylor: norm estimation (the operator returned NaN/∞)".into(),
                            index: p,
                            value: format!("{ny}"),
                        });
                    }
                    break;
                }
                if ny == 0.0 {
                    break; // (A − μI)^p x = 0: nilpotent on this probe.
                }
                log_growth += (ny / nx).ln();
                d[p - 1] = d[p - 1].max(SAFETY * (log_growth / p as f64).exp());
                std::mem::swap(x, y);
            }
        }
        Ok(d)
    }
}

/// One call's series: the (possibly augmented) operator with its shift and norm
/// information, the workspace vectors and the error estimate carried from step to step.
struct Series<'c, B: Backend, S: Scalar, O: ?Sized> {
    be: &'c B,
    op: &'c O,
    opts: TaylorOptions,
    scale: S,
    /// Converts the times back for messages (r_last with forcing, else 1).
    time_unit: f64,
    n: usize,
    /// The shift μ and the norm information of A − μI (of the augmented operator with
    /// forcing).
    mu: c64,
    info: NormInfo,
    forcing: Option<Forcing<'c, B, S>>,
    /// Length of the tail (φ-columns).
    p: usize,
    /// The shift σμ of the augmentation's block J − σμI.
    sigma_mu: S,
    /// ‖Y‖_∞ (0 without forcing): the weight of the tail in the stopping test.
    weight: f64,
    /// atol in the ∞-norm of the stopping test.
    atol_inf: f64,
    unit_roundoff: f64,
    real_spectrum: bool,
    t_last: f64,
    /// The state F, the current term b_j and a scratch vector.
    f: &'c mut B::Vector<S>,
    b: &'c mut B::Vector<S>,
    tmp: &'c mut B::Vector<S>,
    /// The tails (host entries of the augmentation) of F, of b_j and scratch.
    ft: Vec<S>,
    bt: Vec<S>,
    tt: Vec<S>,
    report: Report,
    /// Absolute 2-norm error estimate of the state, carried from step to step (see
    /// `propagate`), and the state's 2-norm before the current step.
    abs_error: f64,
    prev_norm: f64,
}

/// The constants of the steps of one interval.
struct StepPlan<S: Scalar> {
    /// The end of the interval and its length.
    ti: f64,
    dt: f64,
    /// τ = scale·dt, the degree m* and the number of steps s.
    tau: S,
    m: usize,
    s: usize,
    /// The shift μ in S.
    mu_s: S,
    /// Each step's share of the tolerance.
    rtol_step: f64,
    atol_step: f64,
    bound_check: Option<BoundCheck>,
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> Series<'_, B, S, O> {
    /// The plan of every interval, before the first series product: its Σ s·m* is the
    /// cost estimate (an upper bound: steps may stop their series early). (m*, s) per
    /// interval, `None` for an empty one; a plan beyond the caps refuses the call.
    fn plan(&mut self, times: &[f64]) -> Result<Vec<Option<(usize, f64)>>> {
        let mut plans: Vec<Option<(usize, f64)>> = Vec::with_capacity(times.len());
        let mut t_prev = 0.0;
        let mut planned_total = self.report.matvecs as f64;
        let (max_products, max_matvecs) = (self.opts.max_products, self.opts.max_matvecs);
        for &ti in times {
            let dt = ti - t_prev;
            t_prev = ti;
            if dt <= 0.0 {
                plans.push(None);
                continue;
            }
            let tau = self.scale * S::from_f64(dt);
            let abs_tau = tau.modulus().as_f64();
            let (m, s) = self.degree_and_steps(tau, abs_tau);
            let planned = m as f64 * s;
            let refused = (planned_total + planned) / 2.0 > max_products as f64
                || planned_total + planned > max_matvecs as f64;
            if refused && self.forcing.is_none() {
                self.prove_overflow(times)?;
            }
            if (planned_total + planned) / 2.0 > max_products as f64 {
                return Err(Error::NoConvergence {
                    method: "taylor",
                    detail: format!(
                        "cost cap max_products = {} refused before the first product of the \
                         series: at least {:.3e} products are planned (s·m* over the \
                         intervals, plus {} for the norm estimate; ‖τ(A − μI)‖ ≈ {:.3e})",
                        max_products,
                        planned_total + planned,
                        self.report.matvecs,
                        abs_tau * self.info.norm
                    ),
                });
            }
            if planned_total + planned > max_matvecs as f64 {
                return Err(Error::NoConvergence {
                    method: "taylor",
                    detail: format!(
                        "the interval [{:.6e}, {:.6e}] needs m* = {m}, s = {s:.3e} \
                         (≈ {planned:.3e} products) for ‖τ(A − μI)‖ ≈ {:.3e}, beyond \
                         max_matvecs = {} (after {} products)",
                        (ti - dt) * self.time_unit,
                        ti * self.time_unit,
                        abs_tau * self.info.norm,
                        max_matvecs,
                        self.report.matvecs
                    ),
                });
            }
            planned_total += planned;
            plans.push(Some((m, s)));
        }
        self.report.cost_estimate = planned_total.min(usize::MAX as f64) as usize;
        Ok(plans)
    }

    /// The degree m* and the number of steps s for τ(A − μI) of size `abs_tau`·‖A − μI‖, at
    /// the backward-error tolerance that meets `rtol` forward.
    fn degree_and_steps(&self, tau: S, abs_tau: f64) -> (usize, f64) {
        let opts = &self.opts;
        // The series controls a backward error ‖ΔA‖ ≤ tol_b‖τ(A − μI)‖; the forward
        // error is up to κ_exp ≈ ‖τ(A − μI)‖ times larger, so tol_b = rtol/‖τ(A − μI)‖
        // (rounded down to a power of two to share cached θ tables).
        let tol_b = (opts.tol.rtol / (abs_tau * self.info.norm).max(1.0)).max(UNIT_ROUNDOFF);
        let theta = theta::theta_table(2f64.powi(tol_b.log2().floor() as i32), opts.m_max);
        let mut choice = select(&self.info, abs_tau, &theta, opts.m_max, opts.p_max);
        // Real spectra (Hermitian A, real τ) damp the rounding errors of the terms;
        // others need the guard (see params::guard_rounding).
        if !(self.op.is_hermitian() && tau.im() == S::Real::zero()) {
            let max_s = opts.max_matvecs as f64;
            let u = 0.5 * S::Real::EPS.as_f64();
            choice = guard_rounding(choice, &theta, opts.m_max, 0.25 * opts.tol.rtol, max_s, u);
        }
        (choice.m, choice.s)
    }

    /// A plan beyond the caps may be that of a result beyond the range (|t|·‖A‖ grows with
    /// the exponent): for Hermitian A the Rayleigh quotient of v proves it, at one product,
    /// and the call reports that instead of its cost.
    fn prove_overflow(&mut self, times: &[f64]) -> Result<()> {
        let be = self.be;
        let vnorm = be.nrm2(self.f)?.as_f64();
        let taus: Vec<c64> = times.iter().map(|&t| self.scale.to_c64() * t).collect();
        if let Some(e) =
            crate::leja::proven_overflow("taylor", be, self.op, self.f, vnorm, &taus, self.tmp)?
        {
            return Err(e);
        }
        Ok(())
    }

    /// The s steps of the interval [t_start, ti] of length `dt` at degree m: each sums its
    /// series, multiplies by e^{τμ/s} and carries the error estimate to the new state.
    fn interval(&mut self, t_start: f64, ti: f64, dt: f64, m: usize, s: f64) -> Result<()> {
        let be = self.be;
        let tau = self.scale * S::from_f64(dt);
        let abs_tau = tau.modulus().as_f64();
        let s = s as usize;
        self.report.max_degree = self.report.max_degree.max(m);
        // Truncation errors of the s steps add up: each step gets 1/s of the budget.
        let (rtol_step, atol_step) = (self.opts.tol.rtol / s as f64, self.atol_inf / s as f64);
        // η = e^{τμ/s}, applied after each step (never e^{τμ} at once: it may overflow
        // where the result does not).
        let eta = S::from_c64((tau.to_c64() * self.mu / s as f64).exp());
        let sp = StepPlan {
            ti,
            dt,
            tau,
            m,
            s,
            mu_s: S::from_c64(self.mu),
            rtol_step,
            atol_step,
            bound_check: self.info.exact.then(|| BoundCheck {
                ln_step: (abs_tau * self.info.norm / s as f64).ln(),
                ln_n: ((self.n + self.p).max(1) as f64).ln(),
                given: matches!(self.opts.norm, NormBound::Upper(_)),
                norm: self.info.norm,
            }),
        };
        let (t_last, time_unit) = (self.t_last, self.time_unit);
        for step in 0..s {
            if self.report.matvecs >= self.opts.max_products {
                return Err(Error::NoConvergence {
                    method: "taylor",
                    detail: format!(
                        "cost cap max_products = {} reached at t = {:.6e} of \
                         {:.6e} after {} products (estimated up front: {})",
                        self.opts.max_products,
                        (t_start + dt * step as f64 / s as f64) * time_unit,
                        t_last * time_unit,
                        self.report.matvecs,
                        self.report.cost_estimate
                    ),
                });
            }
            let (last, term_sum) = self.sum_series(&sp)?;
            let fmax = be.amax(self.f)?.as_f64();
            if eta != S::one() {
                be.scale(eta, self.f)?;
                self.ft.iter_mut().for_each(|x| *x *= eta);
            }
            let norm = be.nrm2(self.f)?.as_f64();
            // This step's truncation and cancellation errors, relative in ∞-norm,
            // as an absolute 2-norm error of the new state.
            let local = if fmax > 0.0 {
                (last + self.unit_roundoff * term_sum) / fmax * norm
            } else {
                0.0
            };
            self.abs_error =
                propagate(self.abs_error, self.prev_norm, norm, self.real_spectrum) + local;
            self.prev_norm = norm;
            self.report.substeps += 1;
            if let Some(cb) = self.opts.progress {
                let reached = if step + 1 == s {
                    ti
                } else {
                    t_start + dt * (step + 1) as f64 / s as f64
                };
                (cb.0)(&Progress {
                    products: self.report.matvecs,
                    estimated_products: self.report.cost_estimate,
                    fraction: if t_last > 0.0 { reached / t_last } else { 1.0 },
                });
            }
        }
        Ok(())
    }

    /// One step's series F ← Σ_{j≤m*} M^jF/j!, M = τ(A − μI)/s, stopped once two consecutive
    /// terms fall below the step's tolerance. Returns the size of those last two terms and
    /// Σ_j ‖b_j‖_∞ (for the rounding of the sum).
    fn sum_series(&mut self, sp: &StepPlan<S>) -> Result<(f64, f64)> {
        let be = self.be;
        be.copy(self.f, self.b)?;
        self.bt.copy_from_slice(&self.ft);
        // Sizes of the terms: the top block, and what the tail feeds into it
        // (‖Y‖_∞·‖tail‖_∞) for the stopping test; both parts unweighted for
        // the bound check.
        let top0 = be.amax(self.b)?.as_f64();
        let tail0 = tail_amax(&self.bt);
        let mut c1 = top0.max(self.weight * tail0);
        let c0 = top0.max(tail0);
        let mut ln_fact = 0.0;
        // m* = 0 only for τ(A − μI) = 0, whose series is exact.
        let mut last = if sp.m == 0 { 0.0 } else { c1 };
        // Σ_j ‖b_j‖_∞: where it exceeds ‖F‖_∞ the terms cancel, and the sum
        // loses u·Σ_j‖b_j‖_∞ to rounding (Pascal-like operators on vectors of
        // mixed sign: factors up to 10¹⁷).
        // Of the top block only: the tail's terms are exact polynomials in τ,
        // and the error is measured on the top block (φ_k's top starts at 0).
        let mut term_sum = top0;
        for j in 1..=sp.m {
            self.next_term(sp, j)?;
            self.report.matvecs += 1;
            let top2 = be.amax(self.b)?.as_f64();
            let tail2 = tail_amax(&self.bt);
            let c2 = top2.max(self.weight * tail2);
            be.axpby(S::one(), self.b, S::one(), self.f)?;
            for (fk, &bk) in self.ft.iter_mut().zip(self.bt.iter()) {
                *fk += bk;
            }
            last = c1 + c2;
            if !last.is_finite() {
                return Err(Error::NonFinite {
                    context: format!(
                        "taylor: a Taylor term overflowed at t = {:.6e} \
                         (the operator returned NaN/∞, or e^{{tA}}v is beyond range)",
                        sp.ti * self.time_unit
                    ),
                    index: j,
                    value: format!("{c2}"),
                });
            }
            ln_fact += (j as f64).ln();
            term_sum += top2;
            if c2 == 0.0 {
                // A zero term makes every later one zero (b_{j+1} = M·b_j/(j+1)):
                // the series is exact here (nilpotent operators, A = cI).
                last = 0.0;
                break;
            }
            if let Some(check) = &sp.bound_check {
                check.term(j, top2.max(tail2).ln() + ln_fact - c0.ln())?;
            }
            if last <= sp.rtol_step * be.amax(self.f)?.as_f64() + sp.atol_step {
                break;
            }
            c1 = c2;
        }
        Ok((last, term_sum))
    }

    /// The next term b_j = M·b_{j−1}/j: the product with A and the shift, and with forcing
    /// the coupling of the tail into the top block and the tail's own step.
    fn next_term(&mut self, sp: &StepPlan<S>, j: usize) -> Result<()> {
        let (be, s, p) = (self.be, sp.s, self.p);
        let coeff = sp.tau / S::from_f64((s * j) as f64);
        self.op.apply(be, coeff, self.b, S::zero(), self.tmp)?;
        if sp.mu_s != S::zero() {
            be.axpby(-(coeff * sp.mu_s), self.b, S::one(), self.tmp)?;
        }
        if let Some(fc) = &self.forcing {
            // Top += (dt/(s·j))·Y·tail; tail ← (dt/(s·j))·(J − σμI)·tail.
            let c_r = S::from_f64(sp.dt / (s * j) as f64);
            for (col, &x) in fc.cols.iter().zip(self.bt.iter()) {
                if let Some((bj, c)) = col {
                    if x != S::zero() {
                        be.axpby(c_r * *c * x, bj, S::one(), self.tmp)?;
                    }
                }
            }
            for k in 0..p {
                let next = if k + 1 < p { self.bt[k + 1] } else { S::zero() };
                self.tt[k] = c_r * (next - self.sigma_mu * self.bt[k]);
            }
            std::mem::swap(&mut self.bt, &mut self.tt);
        }
        std::mem::swap(&mut *self.b, &mut *self.tmp);
        Ok(())
    }
}

/// ‖tail‖_∞.
fn tail_amax<S: Scalar>(t: &[S]) -> f64 {
    t.iter().fold(0.0f64, |m, x| m.max(x.modulus().as_f64()))
}

/// The check of a norm bound the series gets for free: the terms b_j = M^jF/j! of a step,
/// M = τ(A − μI)/s, give ‖M^jF‖_∞/‖F‖_∞, and a bound ‖A − μI‖ ≤ b in the 1-, 2-, ∞- or
/// Frobenius norm implies ‖M^j‖_∞ ≤ n·(|τ|b/s)^j (‖X‖_∞ ≤ n‖X‖₁, √n‖X‖₂, √n‖X‖_F). Terms
/// that grow faster prove the bound wrong, and the truncated series with them.
struct BoundCheck {
    /// ln(|τ|·b/s).
    ln_step: f64,
    /// ln n.
    ln_n: f64,
    /// Whether b is the caller's [`NormBound::Upper`] (else the operator's bounds).
    given: bool,
    /// b.
    norm: f64,
}

impl BoundCheck {
    /// Checks the term of degree j, given ln(‖M^jF‖_∞/‖F‖_∞).
    fn term(&self, j: usize, ln_growth: f64) -> Result<()> {
        // Slack for the rounding of the terms and of the logarithms.
        let allowed = j as f64 * (self.ln_step + 1e-6) + self.ln_n;
        // NaN (0/0 for a zero state) proves nothing.
        if ln_growth.is_nan() || ln_growth <= allowed {
            return Ok(());
        }
        // ‖(A − μI)^jF‖^{1/j}/‖F‖^{1/j}: what the terms show of ‖A − μI‖.
        let seen = self.norm * ((ln_growth - self.ln_n) / j as f64 - self.ln_step).exp();
        let (name, source) = if self.given {
            ("norm", "NormBound::Upper")
        } else {
            ("op", "the operator's spectral_bounds/norm_bound")
        };
        Err(Error::invalid(
            name,
            format!("{source} = {:e}", self.norm),
            format!(
                "below ‖A − μI‖: the Taylor terms show ‖A − μI‖ ≥ {seen:.3e} (from its \
                 power {j}, allowing n^(1/{j}) for the choice of norm), so the truncated series \
                 would be wrong; pass an upper bound (‖A‖₁ is the largest column sum) or \
                 NormBound::Estimate"
            ),
        ))
    }
}

/// The error carried through one step, from `error` in a state of 2-norm `before` to one
/// of `after`: scaled by the state's growth where it grows, kept where it decays — or, for
/// a real spectrum (`real_spectrum`: Hermitian A, real τ), scaled with the state either way.
///
/// The error of a step propagates with e^{τA}, whose norm the method does not know. Errors
/// scaled like the state (relative errors kept) is the right model for growing solutions,
/// and for Hermitian operators, whose truncation errors lie in the fast modes that decay
/// at least as fast as the state (the model the accuracy suite validated), but on
/// non-normal operators with a transient hump (SciPy's triangular matrix whose
/// logarithm has entries 3·10¹⁴: the state passes through 10¹³ on its way to 10⁵) it would
/// shrink the errors committed at the top of the hump with the state, while they mostly
/// remain (measured: true error 8.6·10⁻³ for an estimate of 4·10⁻⁷). Where the state
/// shrinks the estimate keeps the absolute error instead, which is exact for dissipative
/// normal operators (‖e^{τA}‖ ≤ 1) and pessimistic where the errors lie in modes that decay
/// faster than the state.
fn propagate(error: f64, before: f64, after: f64, real_spectrum: bool) -> f64 {
    if before > 0.0 && (after > before || real_spectrum) {
        error * (after / before)
    } else {
        error
    }
}

/// The unit roundoff of `f64`, the smallest backward-error tolerance θ_m is computed for.
const UNIT_ROUNDOFF: f64 = 1.0 / 9007199254740992.0;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// e^{tA}v by the Taylor method with a fresh workspace. See [`Taylor`].
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{TaylorOptions, taylor_expmv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, -1.0, 1.0, 0.0])?;
/// let (w, _) = taylor_expmv(&cpu, &op, 0.5, &vec![1.0, 0.0], &TaylorOptions::default())?;
/// assert!((w[0] - 0.5f64.cos()).abs() < 1e-8 && (w[1] - 0.5f64.sin()).abs() < 1e-8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::expmv`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort. `InvalidArgument` naming `norm` when the
/// series' terms prove [`NormBound::Upper`] below ‖A − μI‖ (see [`Taylor`]).
pub fn taylor_expmv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &TaylorOptions,
) -> Result<(B::Vector<S>, Report)> {
    crate::method::expmv_with::<Taylor<'_, B, S>, _, _, _>(backend, op, t, v, opts.clone())
}
