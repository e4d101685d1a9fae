//! The Leja solver: bounds, focal interval, substep planning and the march through the
//! output times.

use super::LejaReport;
use super::focal::{Focal, check_bounds, symmetric_leja_points};
use super::model::{max_radius, model_degree, node_products, tail_degree};
use super::newton::{Augmented, Outcome, Rule, substep, substep_conjugate};
use super::options::{LejaMethod, LejaOptions, Progress};
use super::spectrum::{BoundsSource, estimate, tighten};
use super::workspace::{CoeffKey, Coefficients, LejaWorkspace, lru_get, lru_put};
use crate::checks;
use crate::{ExpmvMethod, MethodOptions, Report};
use matexp_core::{
    Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds, c64,
};
use matexp_divdiff::{Affine, Function, Method, divided_differences};

/// Fraction of the model degree below which a substep may not stop (the degree floor; see
/// the module documentation).
pub(crate) const DEGREE_FLOOR: f64 = 1.0;
/// Across-axis extent, in radians of oscillation per substep, beyond which the ellipse
/// (not the segment) decides the model: `|τ|·b > 0.5`.
const ACROSS_OSCILLATION: f64 = 0.5;

/// Leja interpolation of `e^{tA}v`, `φ_k(tA)v`, `Σ t^jφ_j(tA)b_j` and `e^{−itH}v` on any
/// backend, with a reusable workspace. See the [module documentation](crate::leja) for the
/// method, its stopping rule, cost and accuracy.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
/// let cpu = CpuBackend::new();
/// // e^{tA}v for A = [[−1, 10], [0, −2]] (non-normal), t = 1.
/// let op = DenseMatrixOperator::new(2, 2, vec![-1.0, 10.0, 0.0, -2.0])?;
/// let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-10))?;
/// let mut w = vec![0.0; 2];
/// let report = leja.expmv(&op, 1.0, &vec![0.0, 1.0], &mut w)?;
/// let (e1, e2) = ((-1f64).exp(), (-2f64).exp());
/// assert!((w[0] - 10.0 * (e1 - e2)).abs() < 1e-9 && (w[1] - e2).abs() < 1e-10);
/// assert!(report.converged && report.matvecs > 0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Leja<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    opts: LejaOptions,
    ws: LejaWorkspace<B, S>,
}

/// The spectral information of one call.
#[derive(Debug, Clone, Copy)]
struct Resolved {
    bounds: SpectralBounds,
    source: BoundsSource,
    focal: Focal,
    matvecs: usize,
}

/// The φ part of a call: `W`'s columns (`b_p, …, b_1`), their largest norm, and `k` for
/// `φ_k` (divide by `t^k` at the end) or `None` for a combination.
struct PhiPart<'w, B: Backend, S: Scalar> {
    cols: &'w [Option<&'w B::Vector<S>>],
    max_norm: f64,
}

impl<'a, B: Backend, S: Scalar> Leja<'a, B, S> {
    /// A solver reusing `ws` (its vectors and cached coefficients).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for options out of their domain.
    pub fn with_workspace(
        backend: &'a B,
        ws: LejaWorkspace<B, S>,
        opts: LejaOptions,
    ) -> Result<Self> {
        opts.validate::<S>()?;
        let opts = opts.resolved::<S>()?;
        Ok(Leja { backend, opts, ws })
    }

    /// The workspace (to move it to another solver).
    pub fn into_workspace(self) -> LejaWorkspace<B, S> {
        self.ws
    }

    /// The workspace in use.
    pub fn workspace(&self) -> &LejaWorkspace<B, S> {
        &self.ws
    }

    /// w ← e^{−itH}v for Hermitian `H` (complex scalars): the same as
    /// [`expmv`](ExpmvMethod::expmv) with the complex time −i·t, which interpolates on the
    /// imaginary focal interval `−it·[λ_min, λ_max]`.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for real `S`, and those of [`ExpmvMethod::expmv`].
    pub fn schrodinger<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: f64,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<LejaReport> {
        if !t.is_finite() {
            return Err(Error::invalid("t", t, "must be finite"));
        }
        self.expmv(op, minus_i::<S>()? * S::from_f64(t), v, w)
    }

    /// `out[i]` ← e^{−itᵢH}v (see [`Leja::schrodinger`]).
    ///
    /// # Errors
    ///
    /// As [`Leja::schrodinger`] and [`ExpmvMethod::expmv_times`].
    pub fn schrodinger_times<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        times: &[f64],
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<LejaReport> {
        let mi = minus_i::<S>()?;
        let ts: Vec<S> = times.iter().map(|&t| mi * S::from_f64(t)).collect();
        self.expmv_times(op, &ts, v, out)
    }

    fn method_name(&self) -> &'static str {
        match self.opts.method {
            LejaMethod::Adaptive => "leja",
            LejaMethod::SeedFixed { .. } => "leja-seed",
        }
    }

    fn check_op<O: LinearOperator<B, S> + ?Sized>(&mut self, op: &O) -> Result<usize> {
        let n = checks::square_order("leja", op)?;
        self.ws.resize(n);
        Ok(n)
    }

    /// Spectral bounds (options, operator — narrowed by measuring when not known to be
    /// tight and `measure` is set —, or estimate) and the focal interval.
    fn resolve<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        include_zero: bool,
        measure: bool,
    ) -> Result<Resolved> {
        let (bounds, source, matvecs) = if let Some(b) = self.opts.bounds {
            (b, BoundsSource::Options, 0)
        } else if let Some(b) = op.spectral_bounds() {
            check_bounds(&b, "LinearOperator::spectral_bounds")?;
            if op.spectral_bounds_are_tight() || !measure {
                (b, BoundsSource::Operator, 0)
            } else {
                // The same operator (address, order, box) as last time: its narrowing is
                // remembered, so that time stepping measures once.
                let key = (
                    op as *const O as *const () as usize,
                    op.nrows(),
                    [b.re_min, b.re_max, b.im_min, b.im_max].map(f64::to_bits),
                    op.is_hermitian(),
                );
                let (narrowed, k) = match self.ws.tightened {
                    Some((k0, t)) if k0 == key => (t, 0),
                    _ => {
                        self.ws.ensure(self.backend)?;
                        let ws = &mut self.ws;
                        let (u, p, ya) = (
                            ws.u.as_mut().expect("allocated"),
                            ws.p.as_mut().expect("allocated"),
                            ws.ya.as_mut().expect("allocated"),
                        );
                        let (t, k) = tighten(self.backend, op, &b, [u, p, ya])?;
                        self.ws.tightened = Some((key, t));
                        (t, k)
                    }
                };
                match narrowed {
                    Some(t) => (t, BoundsSource::Tightened, k),
                    None => (b, BoundsSource::Operator, k),
                }
            }
        } else {
            self.ws.ensure(self.backend)?;
            let ws = &mut self.ws;
            let (u, p, ya) = (
                ws.u.as_mut().expect("allocated"),
                ws.p.as_mut().expect("allocated"),
                ws.ya.as_mut().expect("allocated"),
            );
            let (b, src, k) = estimate(self.backend, op, [u, p, ya])?;
            check_bounds(
                &b,
                if src == BoundsSource::Lanczos {
                    "the Lanczos estimate"
                } else {
                    "the power-iteration estimate"
                },
            )?;
            (b, src, k)
        };
        // Conjugate Leja points (real arithmetic on an imaginary segment) for the adaptive
        // method's exponential; φ-columns (the augmented operator) and the thesis's method
        // keep the real axis for real scalars.
        let conjugate = !include_zero && matches!(self.opts.method, LejaMethod::Adaptive);
        let focal = Focal::new(&bounds, include_zero, S::IS_COMPLEX, conjugate)?;
        Ok(Resolved {
            bounds,
            source,
            focal,
            matvecs,
        })
    }

    /// Marches `u' = Au (+ polynomial forcing)` from `u(0) = b₀` through `times·scale`.
    fn integrate<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        res: &Resolved,
        scale: S,
        times: &[f64],
        start: Option<(&B::Vector<S>, f64)>,
        phi: Option<PhiPart<'_, B, S>>,
        out: &mut [B::Vector<S>],
    ) -> Result<LejaReport> {
        let be = self.backend;
        let opts = self.opts;
        let mut report = Report::new(self.method_name());
        report.bounds = Some((res.bounds, res.source));
        report.matvecs = res.matvecs;
        report.estimate_matvecs = res.matvecs;
        let seed_substeps = match opts.method {
            LejaMethod::Adaptive => None,
            LejaMethod::SeedFixed { substeps } => {
                if phi.is_some() {
                    return Err(Error::Unsupported(
                        "the thesis's fixed-substep Leja method computes exp only; use \
                         LejaMethod::Adaptive for φ-functions"
                            .into(),
                    ));
                }
                Some(substeps)
            }
        };
        self.ws.ensure(be)?;
        if res.focal.conjugate {
            self.ws.ensure_third(be)?;
        }
        let ws = &mut self.ws;
        let mut yc = if res.focal.conjugate {
            ws.yc.take()
        } else {
            None
        };
        let mut u = ws.u.take().expect("allocated");
        let mut p = ws.p.take().expect("allocated");
        let mut ya = ws.ya.take().expect("allocated");
        let mut yb = ws.yb.take().expect("allocated");
        let result = march(
            be,
            op,
            &opts,
            res,
            scale,
            times,
            start,
            phi.as_ref(),
            seed_substeps,
            ws,
            [&mut u, &mut p, &mut ya, &mut yb],
            yc.as_mut(),
            out,
            &mut report,
        );
        if yc.is_some() {
            ws.yc = yc;
        }
        ws.u = Some(u);
        ws.p = Some(p);
        ws.ya = Some(ya);
        ws.yb = Some(yb);
        // The thesis's single-term test bounds nothing (the plain recurrence can pass it far
        // from the result, and the substeps' errors add up): its runs never claim the
        // tolerance.
        if seed_substeps.is_some() {
            report.converged = false;
        }
        result.map(|()| report)
    }
}

impl<'a, B: Backend + 'a, S: Scalar> ExpmvMethod<'a, B, S> for Leja<'a, B, S> {
    type Options = LejaOptions;
    const NAME: &'static str = "leja";
    /// The two-term and rounding estimates assume the Newton basis behaves as for a normal
    /// operator with its spectrum in the focal ellipse (Caliari, Kandolf, Ostermann & Rainer
    /// 2014, §3). On operators that can amplify errors they do not: on the Pascal matrix of
    /// order 10 the achieved error was 2.2 and 21 times the estimate (rtol 10⁻¹⁰ and 10⁻⁶,
    /// `tests/nonnormal.rs`), so there the estimate is reported ten times larger.
    const AMPLIFIED_ESTIMATE_FACTOR: f64 = 10.0;

    fn new(backend: &'a B, opts: LejaOptions) -> Result<Self> {
        Self::with_workspace(backend, LejaWorkspace::new(), opts)
    }

    fn backend(&self) -> &'a B {
        self.backend
    }

    fn options(&self) -> &LejaOptions {
        &self.opts
    }

    fn set_options(&mut self, opts: LejaOptions) -> Result<()> {
        opts.validate::<S>()?;
        self.opts = opts.resolved::<S>()?;
        Ok(())
    }

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
        let mut norms = Vec::with_capacity(bs.len());
        for (j, b) in bs.iter().enumerate() {
            norms.push(match b {
                Some(b) => checks::vector(self.backend, &format!("leja: b_{j}"), b, n)?,
                None => 0.0,
            });
        }
        for (i, o) in out.iter().enumerate() {
            checks::output(self.backend, &format!("leja: output {i}"), o, n)?;
        }
        if n == 0 {
            // Order 0: the empty result, as the other methods give (no spectrum to estimate).
            return Ok(Report::new(self.method_name()));
        }
        let p = bs.len() - 1;
        // Nothing to march (t = 0 everywhere, or no start and no forcing): the box is not
        // worth a product.
        let work =
            scale != S::zero() && times.iter().any(|&t| t != 0.0) && norms.iter().any(|&x| x > 0.0);
        let res = self.resolve(op, p > 0, work)?;
        let start = bs[0].map(|b| (b, norms[0]));
        if p == 0 {
            return self.integrate(op, &res, scale, times, start, None, out);
        }
        // W = [b_p, …, b_1]; zero columns cost nothing.
        let cols: Vec<Option<&B::Vector<S>>> = (0..p).map(|i| bs[p - i]).collect();
        let phi = PhiPart {
            cols: &cols,
            max_norm: norms[1..].iter().cloned().fold(0.0, f64::max),
        };
        self.integrate(op, &res, scale, times, start, Some(phi), out)
    }

    /// φ₀, …, φ_k one after another, with one spectral estimate for all of them (the
    /// generic version estimates per φ_j when the operator knows no bounds).
    fn phimv<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        v: &B::Vector<S>,
        out: &mut [B::Vector<S>],
    ) -> Result<Report> {
        let saved = self.opts.bounds;
        let mut estimated = None;
        if saved.is_none()
            && op.spectral_bounds().is_none()
            && !out.is_empty()
            && self.check_op(op)? > 0
        {
            let res = self.resolve(op, false, t != S::zero())?;
            self.opts.bounds = Some(res.bounds);
            estimated = Some(res);
        }
        let result = crate::method::phimv_each(self, op, t, v, out);
        self.opts.bounds = saved;
        let mut report = result?;
        if let Some(res) = estimated {
            report.matvecs += res.matvecs;
            report.estimate_matvecs += res.matvecs;
            report.bounds = Some((res.bounds, res.source));
        }
        Ok(report)
    }

    /// One spectral estimate for the whole block (the generic version estimates per vector).
    fn expmv_block<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        t: S,
        vs: &[B::Vector<S>],
        ws: &mut [B::Vector<S>],
    ) -> Result<Report> {
        checks::time("t", t)?;
        checks::count("leja: number of outputs vs inputs", vs.len(), ws.len())?;
        let n = self.check_op(op)?;
        let mut norms = Vec::with_capacity(vs.len());
        for (j, (v, w)) in vs.iter().zip(ws.iter()).enumerate() {
            norms.push(checks::vector(
                self.backend,
                &format!("leja: vs[{j}]"),
                v,
                n,
            )?);
            checks::output(self.backend, &format!("leja: ws[{j}]"), w, n)?;
        }
        if n == 0 {
            return self.finish(Report::new(self.method_name()), ws);
        }
        let res = self.resolve(op, false, t != S::zero() && norms.iter().any(|&x| x > 0.0))?;
        let mut total = Report::new(self.method_name());
        total.bounds = Some((res.bounds, res.source));
        total.matvecs = res.matvecs;
        total.estimate_matvecs = res.matvecs;
        let no_estimate = Resolved { matvecs: 0, ..res };
        for ((v, w), &vn) in vs.iter().zip(ws.iter_mut()).zip(&norms) {
            let r = self.integrate(
                op,
                &no_estimate,
                t,
                &[1.0],
                Some((v, vn)),
                None,
                std::slice::from_mut(w),
            )?;
            total.merge(&r);
        }
        self.finish(total, ws)
    }
}

fn minus_i<S: Scalar>() -> Result<S> {
    if !S::IS_COMPLEX {
        return Err(Error::Unsupported(format!(
            "e^(-itH)v needs complex scalars (c32 or c64), not {}",
            S::NAME
        )));
    }
    Ok(S::from_c64(c64::new(0.0, -1.0)))
}

/// Direction (radians) of `β` in the convergence model of a substep `τ`: that of `τ·scale`
/// (0 or π for real growth, ±π/2 for oscillation), or π/2 when the box's extent across the
/// focal axis makes the substep oscillate regardless.
fn model_direction(focal: &Focal, tau: c64) -> f64 {
    if focal.across * tau.norm() > ACROSS_OSCILLATION {
        std::f64::consts::FRAC_PI_2
    } else {
        (tau * focal.scale).arg()
    }
}

/// Work (products × rows of the default plan) from which a segment's plan considers long
/// substeps: CPU products of a 7-point stencil at this work take about as long as the one-time
/// model search for the longer cap, per process and tolerance bucket (measured:
/// `bench-results/notes/tuning.md`, "expmv: Leja long substeps").
/// Below it the host time of the search exceeds what the saved products would take.
const LONG_SUBSTEP_WORK: f64 = (1u64 << 27) as f64;

/// The substeps of a segment of complex length `delta` and the number of nodes they use (the
/// degree cap plus one): `max_degree` by default; `diffusion_max_degree` where `long_ok` (a real
/// focal segment, no φ-columns, real Leja points), the model direction is real, the
/// default plan needs several substeps, and its work (`rows` × products) reaches
/// [`LONG_SUBSTEP_WORK`]. For real `β` the model degree grows like `√ρ`, so fewer, longer
/// substeps cost fewer products in total.
#[allow(clippy::too_many_arguments)]
fn plan_segment(
    focal: &Focal,
    delta: c64,
    total: f64,
    opts: &LejaOptions,
    eps: f64,
    nodes_all: &[f64],
    long_ok: bool,
    rows: usize,
) -> Result<(usize, usize)> {
    let short = (opts.max_degree + 1).min(nodes_all.len());
    let s = substeps_for(focal, delta, total, opts, eps, &nodes_all[..short], short)?;
    if !long_ok || s < 2 || nodes_all.len() <= short {
        return Ok((s, short));
    }
    let work = rows as f64 * s as f64 * (opts.target_fraction * opts.max_degree as f64);
    let theta = model_direction(focal, delta / s as f64);
    if work < LONG_SUBSTEP_WORK || theta.sin().abs() > 1e-12 {
        return Ok((s, short));
    }
    let long = substeps_for(focal, delta, total, opts, eps, nodes_all, short)?;
    Ok(if long < s {
        (long, nodes_all.len())
    } else {
        (s, short)
    })
}

/// Number of substeps for a segment of complex length `delta` with at most `nodes.len() − 1`
/// points per substep; when there are more than `short` nodes, the radius search starts
/// from that of the first `short` scaled by the √ρ law.
fn substeps_for(
    focal: &Focal,
    delta: c64,
    total: f64,
    opts: &LejaOptions,
    eps: f64,
    nodes: &[f64],
    short: usize,
) -> Result<usize> {
    let target_of =
        |len: usize| ((opts.target_fraction * (len - 1) as f64).floor() as usize).max(2);
    let target = target_of(nodes.len());
    let r_seg = delta.norm() * focal.capacity;
    let mut s = 1usize;
    for _ in 0..6 {
        let tau = delta / s as f64;
        let theta = model_direction(focal, tau);
        let tol = local_rtol(opts.tol.rtol, tau.norm(), total, eps);
        let r_max = if nodes.len() > short {
            // For real β the model degree grows like √ρ: the radius scales with the square
            // of the target (measured ratio 16.4–18.6 for 384 against 96 points).
            let t_short = target_of(short);
            let r_short = max_radius(theta, tol, t_short, &nodes[..short], None)?;
            let guess = r_short * (target as f64 / t_short as f64).powi(2);
            max_radius(theta, tol, target, nodes, Some(guess))?
        } else {
            max_radius(theta, tol, target, nodes, None)?
        };
        let need = (r_seg / r_max).ceil();
        let need = if need.is_finite() {
            need.clamp(1.0, 1e15) as usize
        } else {
            usize::MAX
        };
        if need <= s {
            break;
        }
        s = need;
    }
    if s > opts.max_substeps {
        // Refused before any product, and before divided differences of a spread no
        // substep could bring into range.
        return Err(Error::NoConvergence {
            method: "leja",
            detail: format!(
                "|Δt|·capacity = {r_seg:.3e} needs about {s:.1e} substeps, beyond \
                 max_substeps = {}; shorten the time range or raise max_substeps",
                opts.max_substeps
            ),
        });
    }
    Ok(s)
}

/// Relative tolerance of a substep of length `tau` out of `total`: the local errors then sum
/// to at most `rtol` over the whole range; never below a few units of rounding.
fn local_rtol(rtol: f64, tau: f64, total: f64, eps: f64) -> f64 {
    let frac = if total > 0.0 {
        (tau / total).min(1.0)
    } else {
        1.0
    };
    (rtol * frac).max(4.0 * eps)
}

fn bits(z: c64) -> (u64, u64) {
    (z.re.to_bits(), z.im.to_bits())
}

/// The Newton coefficients of `e^{α + βξ}`, `α = τ·center`, `β = τ·scale`, at `nodes`, in
/// double precision, with `(α, β)`.
fn newton_coefficients(
    focal: &Focal,
    tau: c64,
    nodes: &[f64],
    method: Method,
    complex: bool,
) -> Result<(Vec<c64>, c64, c64)> {
    let alpha = tau * focal.center;
    let beta = tau * focal.scale;
    let values = if alpha.im == 0.0 && beta.im == 0.0 {
        divided_differences(Function::Exp, Affine::new(alpha.re, beta.re), nodes, method)?
            .into_iter()
            .map(|d| c64::new(d, 0.0))
            .collect()
    } else {
        if !complex {
            return Err(Error::Unsupported(format!(
                "complex interpolation coefficients (α = {alpha}, β = {beta}) with real scalars"
            )));
        }
        divided_differences(Function::Exp, Affine::new(alpha, beta), nodes, method)?
    };
    Ok((values, alpha, beta))
}

/// The model degree read off actual coefficients `d` of `e^{α+βξ}`: terms `|d_k|·W_k`
/// relative to `max_{[−2,2]}|g| = e^{Re α + 2|Re β|}`.
fn degree_of(d: &[c64], alpha: c64, beta: c64, w: &[f64], tol: f64) -> Option<usize> {
    let log_max = alpha.re + 2.0 * beta.re.abs();
    let logs: Vec<f64> = d
        .iter()
        .zip(w)
        .map(|(dk, wk)| (dk.norm() * wk).ln() - log_max)
        .collect();
    tail_degree(&logs, tol)
}

/// z_i(t) = t^{p−1−i}/(p−1−i)! for i = 0..p, the tail of e^{tJ}e_p.
fn tail_at<S: Scalar>(t: c64, p: usize, out: &mut [S]) {
    let mut val = c64::new(1.0, 0.0);
    for j in 0..p {
        // entry p−1−j holds t^j/j!
        out[p - 1 - j] = S::from_c64(val);
        val = val * t / (j + 1) as f64;
    }
}

/// What the convergence model of a substep `τ` depends on: its local tolerance, the model
/// direction of `β` and the radius `|τ|·capacity`.
struct SubstepModel {
    tol: f64,
    theta: f64,
    radius: f64,
}

impl SubstepModel {
    fn new(focal: &Focal, tau: c64, opts: &LejaOptions, total: f64, eps: f64) -> Self {
        SubstepModel {
            tol: local_rtol(opts.tol.rtol, tau.norm(), total, eps),
            theta: model_direction(focal, tau),
            radius: tau.norm() * focal.capacity,
        }
    }

    /// `β` of the model function `e^{βξ}`.
    fn model_beta(&self) -> c64 {
        c64::from_polar(self.radius, self.theta)
    }
}

/// Process-wide cache of long coefficient sets (more than 129 nodes): their divided
/// differences at 513 points take about as long as all the products of a GPU solve of
/// seed 000's Table 12 (`bench-results/notes/tuning.md`), and one-shot calls (`leja_expmv`, a fresh workspace each) would
/// repeat them. At most [`LONG_SETS_CAPACITY`] sets (≈ 12 KB each), least recently used out.
type LongSet = (CoeffKey, std::sync::Arc<Coefficients<c64>>);
const LONG_SETS_CAPACITY: usize = 8;
const LONG_SET_NODES: usize = 130;

fn long_sets() -> &'static std::sync::Mutex<Vec<LongSet>> {
    static SETS: std::sync::OnceLock<std::sync::Mutex<Vec<LongSet>>> = std::sync::OnceLock::new();
    SETS.get_or_init(|| std::sync::Mutex::new(Vec::new()))
}

/// `make`'s coefficients, or the process-wide cached ones for `key` (long sets only).
fn long_cached<S: Scalar>(
    key: CoeffKey,
    make: impl FnOnce() -> Result<Coefficients<S>>,
) -> Result<Coefficients<S>> {
    if key.nodes < LONG_SET_NODES {
        return make();
    }
    let hit = lru_get(&mut *long_sets().lock().map_err(|_| poisoned_sets())?, &key);
    if let Some(c) = hit {
        return Ok(recast(&c));
    }
    let c = make()?;
    let stored = std::sync::Arc::new(recast::<c64, S>(&c));
    lru_put(
        &mut *long_sets().lock().map_err(|_| poisoned_sets())?,
        key,
        stored,
        LONG_SETS_CAPACITY,
    );
    Ok(c)
}

/// The same coefficient set with its values in scalar type `T` (from the exact ones, as
/// `substep_coefficients` makes them).
fn recast<T: Scalar, U>(c: &Coefficients<U>) -> Coefficients<T> {
    Coefficients {
        values: c.exact.iter().map(|&x| T::from_c64(x)).collect(),
        exact: c.exact.clone(),
        degree: c.degree,
        floor: c.floor,
        tail: c.tail.clone(),
    }
}

fn poisoned_sets() -> Error {
    Error::Unsupported("the Leja coefficient cache was poisoned by a panic".into())
}

/// The coefficient set of the substep `τ` from the workspace cache, computed on a miss: the
/// divided differences at all `nodes` (`w` their `W_k`), the model degree and the tail sums.
#[allow(clippy::too_many_arguments)]
fn substep_coefficients<B: Backend, S: Scalar>(
    ws: &mut LejaWorkspace<B, S>,
    focal: &Focal,
    tau: c64,
    sm: &SubstepModel,
    nodes: &[f64],
    w: &[f64],
    seed: bool,
    opts: &LejaOptions,
) -> Result<std::sync::Arc<Coefficients<S>>> {
    let key = CoeffKey {
        tau: bits(tau),
        center: bits(focal.center),
        scale: bits(focal.scale),
        nodes: nodes.len(),
        seed,
        floor_tol: sm.tol.to_bits(),
        floor_theta: sm.theta.to_bits(),
        floor_radius: sm.radius.to_bits(),
    };
    ws.coefficients(key, || {
        long_cached(key, || {
            let method = if seed {
                Method::Recurrence
            } else {
                Method::Stable
            };
            let (d, alpha, beta) =
                newton_coefficients(focal, tau, nodes, method, S::IS_COMPLEX || focal.conjugate)?;
            let (degree, floor) = if seed {
                (opts.max_degree, 0)
            } else {
                // On a segment the model is the substep's own function; with an ellipse it is
                // e^{βξ} with |β| the ellipse's capacity·|τ| in the model direction.
                let m = if focal.across == 0.0 {
                    degree_of(&d, alpha, beta, w, sm.tol)
                } else {
                    model_degree(sm.model_beta(), sm.tol, nodes, w)?
                };
                let m = m.unwrap_or(nodes.len() - 1);
                (m, (DEGREE_FLOOR * m as f64).ceil() as usize)
            };
            let mut tail = vec![0.0; d.len()];
            for m in (0..d.len().saturating_sub(1)).rev() {
                tail[m] = tail[m + 1] + d[m + 1].norm() * w[m + 1];
            }
            let values = d.iter().map(|&x| S::from_c64(x)).collect();
            Ok(Coefficients {
                values,
                exact: d,
                degree,
                floor,
                tail,
            })
        })
    })
}

/// The march of one call through its output times: the fixed context (operator, options,
/// the ray `scale·t`, the Leja points) and the state carried from substep to substep.
struct March<'c, B: Backend, S: Scalar, O: ?Sized> {
    be: &'c B,
    op: &'c O,
    opts: &'c LejaOptions,
    focal: Focal,
    times: &'c [f64],
    phi: Option<&'c PhiPart<'c, B, S>>,
    seed_substeps: Option<usize>,
    /// ‖b₀‖ of the start (0 without one), the scale of the thesis's single-term test.
    start_norm: f64,
    /// The Leja points of the call (each substep takes a prefix) and their `W_k`.
    nodes_all: &'c [f64],
    w_all: &'c [f64],
    long_ok: bool,
    rows: usize,
    eps: f64,
    /// √max of the vector type, above which a substep runs on a scaled start
    /// ([`March::scale_down`]).
    sqrt_max: f64,
    scale_c: c64,
    t_last: f64,
    /// |scale·t_last|.
    total: f64,
    /// Nothing to do for a zero start without forcing (e^{tA}0 = 0), or t = 0 everywhere.
    trivial: bool,
    hermitian_segment: bool,
    ncols: usize,
    ws: &'c mut LejaWorkspace<B, S>,
    report: &'c mut LejaReport,
    u: &'c mut B::Vector<S>,
    p: &'c mut B::Vector<S>,
    ya: &'c mut B::Vector<S>,
    yb: &'c mut B::Vector<S>,
    yc: Option<&'c mut B::Vector<S>>,
    aug: Option<Augmented<'c, B, S>>,
    /// ‖u‖₂ of the state `u` at `t_cur`.
    unorm: f64,
    t_cur: f64,
    /// What the halvings and cuts so far multiply the planned substeps of an interval by.
    split: usize,
    halvings: usize,
    attempts: usize,
    /// Σ over accepted substeps of estimate/(‖state‖ + atol/rtol): each substep's test is
    /// relative to the state it reached, and relative errors add up (as Taylor's do); an
    /// output's estimate is this sum times its norm.
    rel_sum: f64,
    /// The up-front cost estimate ([`March::plan`]).
    planned: usize,
    /// Products of the report before the march (the spectral estimate's).
    report_start: usize,
}

/// One tried substep: the outcome of its Newton sum (in the scale of u/σ, except `pnorm` of
/// an accepted result, which is in that of u), the scaling σ and the verdict.
struct Trial {
    outcome: Outcome,
    sigma: f64,
    rounding_limited: bool,
    accept: bool,
}

/// Marches `u' = Au (+ polynomial forcing)` from the start through `times·scale` in Leja
/// substeps, writing the state at each output time into `out`.
#[allow(clippy::too_many_arguments)]
fn march<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    opts: &LejaOptions,
    res: &Resolved,
    scale: S,
    times: &[f64],
    start: Option<(&B::Vector<S>, f64)>,
    phi: Option<&PhiPart<'_, B, S>>,
    seed_substeps: Option<usize>,
    ws: &mut LejaWorkspace<B, S>,
    vecs: [&mut B::Vector<S>; 4],
    yc: Option<&mut B::Vector<S>>,
    out: &mut [B::Vector<S>],
    report: &mut LejaReport,
) -> Result<()> {
    let [u, p, ya, yb] = vecs;
    let focal = res.focal;
    let eps = S::Real::EPS.as_f64();
    let conjugate_nodes;
    // Long substeps (see `plan_segment`) interpolate at more of the same real Leja points:
    // the default nodes are a prefix, and so are their `W_k`.
    // Double precision only: in single, the rounding of a 300-term Newton recurrence
    // reaches the tolerance (measured on seed 000's Table 12 at tol 1e−5: errors above it
    // with one long substep, below it with 128-point ones; bench-results/notes/tuning.md).
    let long_ok = eps < 1e-10
        && !focal.conjugate
        && focal.across == 0.0
        && phi.is_none()
        && seed_substeps.is_none()
        && opts.diffusion_max_degree > opts.max_degree;
    let nodes_all: &[f64] = if focal.conjugate {
        conjugate_nodes = symmetric_leja_points(opts.max_degree + 1)?;
        &conjugate_nodes
    } else if long_ok {
        matexp_leja::leja_points(opts.diffusion_max_degree + 1)?
    } else {
        matexp_leja::leja_points(opts.max_degree + 1)?
    };
    let scale_c = scale.to_c64();
    let t_last = *times.last().expect("validated non-empty");
    let total = (scale_c * t_last).norm();
    let unorm = match start {
        Some((v, vn)) => {
            be.copy(v, u)?;
            vn
        }
        None => {
            be.fill(u, S::zero())?;
            0.0
        }
    };
    let ncols = phi.map_or(0, |f| f.cols.len());
    let aug = phi.map(|f| Augmented::<B, S> {
        cols: f.cols,
        inv_eta: S::one(),
        tail0: vec![S::zero(); ncols],
        tail_a: vec![S::zero(); ncols],
        tail_b: vec![S::zero(); ncols],
    });
    let phi_norm = phi.map_or(0.0, |f| f.max_norm);
    // `W_k` of the nodes, once per call (the coefficient sets and the plan share it).
    let w_all = node_products(nodes_all);
    let mut m = March {
        be,
        op,
        opts,
        focal,
        times,
        phi,
        seed_substeps,
        start_norm: start.map_or(0.0, |(_, vn)| vn),
        nodes_all,
        w_all: &w_all,
        long_ok,
        rows: op.nrows(),
        eps,
        sqrt_max: <S::Real as num_traits::Float>::max_value().as_f64().sqrt(),
        scale_c,
        t_last,
        total,
        trivial: (unorm == 0.0 && phi_norm == 0.0) || total == 0.0,
        hermitian_segment: op.is_hermitian() && focal.across == 0.0,
        ncols,
        ws,
        report,
        u,
        p,
        ya,
        yb,
        yc,
        aug,
        unorm,
        t_cur: 0.0,
        split: 1,
        halvings: 0,
        attempts: 0,
        rel_sum: 0.0,
        planned: 0,
        report_start: 0,
    };
    m.plan()?;
    m.report_start = m.report.matvecs;
    for (j, &t_j) in times.iter().enumerate() {
        m.advance(t_j, j + 1 == times.len(), &mut out[j])?;
    }
    Ok(())
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> March<'_, B, S, O> {
    /// The up-front cost: the planned substeps of every output interval times the model
    /// degree of one substep, added to the report's estimate. A call whose estimate exceeds
    /// twice the product cap is refused here, before the first product.
    fn plan(&mut self) -> Result<()> {
        // Halvings and rounding cuts can add to it; the thesis's fixed substeps count
        // `max_degree` each.
        let mut planned = 0usize;
        if !self.trivial {
            let mut prev = 0.0f64;
            for &t_j in self.times {
                if t_j != prev {
                    let (s, m) = self.interval_cost(prev, t_j)?;
                    planned = planned.saturating_add(s.saturating_mul(m));
                }
                prev = t_j;
            }
        }
        self.planned = planned;
        self.report.cost_estimate = self.report.cost_estimate.saturating_add(planned);
        if planned / 2 > self.opts.max_products {
            return Err(Error::NoConvergence {
                method: "leja",
                detail: format!(
                    "cost cap max_products = {} refused before the first product: about {planned} \
                     products are needed (|t|·capacity = {:.3e})",
                    self.opts.max_products,
                    self.total * self.focal.capacity
                ),
            });
        }
        Ok(())
    }

    /// The planned substeps of the output interval `[prev, t_j]` and the model degree of its
    /// first substep.
    fn interval_cost(&mut self, prev: f64, t_j: f64) -> Result<(usize, usize)> {
        if let Some(n) = self.seed_substeps {
            return Ok((self.seed_count(n, t_j - prev), self.opts.max_degree));
        }
        let (s, len) = match self.segment_plan(self.scale_c * (t_j - prev)) {
            Ok(plan) => plan,
            // A refused plan may be that of a result beyond the range.
            Err(e) if self.phi.is_none() => {
                let tau = [self.scale_c * t_j];
                return Err(super::proven_overflow(
                    "leja",
                    self.be,
                    self.op,
                    &*self.u,
                    self.unorm,
                    &tau,
                    &mut *self.ya,
                )?
                .unwrap_or(e));
            }
            Err(e) => return Err(e),
        };
        let (nodes, w) = (&self.nodes_all[..len], &self.w_all[..len]);
        // The first substep's τ exactly as the march forms it, so that its coefficient set,
        // made here through the workspace cache, is the one the march uses: the plan costs
        // no divided differences of its own.
        let tau = self.scale_c * ((t_j - prev) / s as f64);
        let sm = SubstepModel::new(&self.focal, tau, self.opts, self.total, self.eps);
        let m = match substep_coefficients(
            self.ws,
            &self.focal,
            tau,
            &sm,
            nodes,
            w,
            false,
            self.opts,
        ) {
            Ok(c) => c.degree,
            // Reported by the march at this substep, after the cost check; the plan falls
            // back on the a-priori model.
            Err(_) => model_degree(sm.model_beta(), sm.tol, nodes, w)?.unwrap_or(len - 1),
        };
        Ok((s, m.max(1)))
    }

    /// [`plan_segment`] of the interval `delta` = scale·(its length) in this call.
    fn segment_plan(&self, delta: c64) -> Result<(usize, usize)> {
        plan_segment(
            &self.focal,
            delta,
            self.total,
            self.opts,
            self.eps,
            self.nodes_all,
            self.long_ok,
            self.rows,
        )
    }

    /// The thesis's fixed substeps in a span of time: `n` over the whole ray, pro rata.
    fn seed_count(&self, n: usize, span: f64) -> usize {
        ((n as f64) * span / self.t_last).ceil().max(1.0) as usize
    }

    /// Advances the state from `t_cur` to the output time `t_j` (the last output if `last`)
    /// in substeps, the planned ones halved or cut where one fails, and writes it to `out`.
    fn advance(&mut self, t_j: f64, last: bool, out: &mut B::Vector<S>) -> Result<()> {
        if self.trivial || t_j == self.t_cur {
            return self.write_output(out);
        }
        let mut seg_start = self.t_cur;
        let (mut s, len) = match self.seed_substeps {
            Some(n) => (self.seed_count(n, t_j - self.t_cur), self.nodes_all.len()),
            None => {
                let (s, len) = self.segment_plan(self.scale_c * (t_j - self.t_cur))?;
                (s * self.split, len)
            }
        };
        let mut k = 0usize;
        while k < s {
            self.count_attempt()?;
            let dt = (t_j - seg_start) / s as f64;
            let tau = self.scale_c * dt;
            let trial = self.try_substep(tau, len, last && k + 1 == s)?;
            if trial.accept {
                self.accept(&trial)?;
                k += 1;
                self.t_cur = if k == s {
                    t_j
                } else {
                    seg_start + dt * k as f64
                };
                self.notify_progress();
                continue;
            }
            // Not converged within max_degree points (or the basis overflowed).
            let factor = self.reject(&trial, tau, k, s)?;
            self.split = self.split.saturating_mul(factor);
            seg_start = self.t_cur;
            s = factor * (s - k);
            k = 0;
        }
        self.write_output(out)
    }

    /// The state as an output, with its estimate: the summed relative estimate times its norm.
    fn write_output(&mut self, out: &mut B::Vector<S>) -> Result<()> {
        self.be.copy(self.u, out)?;
        self.report.output_estimates.push(self.rel_sum * self.unorm);
        Ok(())
    }

    /// Counts one more substep tried against `max_substeps`.
    fn count_attempt(&mut self) -> Result<()> {
        self.attempts += 1;
        if self.attempts > self.opts.max_substeps {
            let (t_cur, t_last) = (self.t_cur, self.t_last);
            return Err(Error::NoConvergence {
                method: "leja",
                detail: format!(
                    "max_substeps = {} reached at t = {t_cur} of {t_last} ({} products)",
                    self.opts.max_substeps, self.report.matvecs
                ),
            });
        }
        Ok(())
    }

    /// One substep `u ↦ e^{τA}u` (plus the forcing) into `p` at `len` Leja points: the
    /// coefficient set, the stopping rule, the Newton sum, the cost cap and the verdict,
    /// which weighs the rounding of the sum as well as its truncation.
    fn try_substep(&mut self, tau: c64, len: usize, final_substep: bool) -> Result<Trial> {
        let (nodes_all, w_all) = (self.nodes_all, self.w_all);
        let (nodes, w) = (&nodes_all[..len], &w_all[..len]);
        let sm = SubstepModel::new(&self.focal, tau, self.opts, self.total, self.eps);
        let frac = if self.total > 0.0 {
            (tau.norm() / self.total).min(1.0)
        } else {
            1.0
        };
        let seed = self.seed_substeps.is_some();
        let coeffs =
            substep_coefficients(self.ws, &self.focal, tau, &sm, nodes, w, seed, self.opts)?;
        let sigma = self.scale_down()?;
        let (unorm_s, atol_s) = (self.unorm / sigma, self.opts.tol.atol * frac / sigma);
        let rule = self.stopping_rule(&coeffs, sm.tol, unorm_s, atol_s, sigma);
        self.set_forcing_tail();
        let mut outcome = self.newton_sum(&coeffs, nodes, rule, unorm_s)?;
        // The outcome stays in the scale of u/σ (what decides below are ratios, and
        // Σ|terms| itself may be beyond the range in the scale of u).
        self.report.matvecs += outcome.matvecs;
        self.check_cost_cap(final_substep)?;
        // Rounding in the Newton sum is about ε·Σ|d_j|·‖y_j‖: when that exceeds the
        // tolerance (the focal interval reaches far above the part of the spectrum that
        // survives, so early terms cancel), a shorter substep is needed.
        let rounding_limited = !seed && self.eps * outcome.term_sum > outcome.threshold;
        let accept = (outcome.converged && !rounding_limited)
            || (self.opts.allow_unconverged
                && !outcome.overflow
                && (seed || self.halvings >= self.opts.max_halvings));
        if sigma != 1.0 {
            if accept {
                self.be.scale(S::from_f64(sigma), self.p)?;
                outcome.pnorm = self.be.nrm2(self.p)?.as_f64();
            } else {
                self.be.scale(S::from_f64(sigma), self.u)?;
            }
        }
        Ok(Trial {
            outcome,
            sigma,
            rounding_limited,
            accept,
        })
    }

    /// The scaling σ of the substep's start (a power of two, 1 below √max), with `u`
    /// divided by it.
    fn scale_down(&mut self) -> Result<f64> {
        // Near the top of the range the terms |d_j|·‖y_j‖ (their sum is the hump
        // Σ|terms|/‖p‖ times ‖u‖) overflow before the result does, and the result of a
        // substep is lost where e^{τA}u alone would fit: e^{tA}v of the 3-point path graph
        // at t = 500 (‖w‖ ≈ 2·10³⁰⁷) came out as 1.8·10³⁰⁵. Above √max of the vector type
        // the substep runs on u/σ with σ = 2^⌊log₂‖u‖⌋ (exact, the power of two) and its
        // result is multiplied by σ, which overflows only where the result does
        // (`NonFinite` below). Not with φ-columns, whose forcing does not scale with u.
        let sigma = if self.aug.is_none() && self.unorm > self.sqrt_max {
            2f64.powi(self.unorm.log2().floor() as i32)
        } else {
            1.0
        };
        if sigma != 1.0 {
            self.be.scale(S::from_f64(1.0 / sigma), self.u)?;
        }
        Ok(sigma)
    }

    /// The stopping rule of a substep in the scale of u/σ: the thesis's single-term test, or
    /// the two-term rule with its degree floor and, where it holds, the a-priori tail bound.
    fn stopping_rule<'r>(
        &self,
        coeffs: &'r Coefficients<S>,
        tol_loc: f64,
        unorm_s: f64,
        atol_s: f64,
        sigma: f64,
    ) -> Rule<'r> {
        if self.seed_substeps.is_some() {
            return Rule::Single {
                abs: (self.opts.tol.atol + self.opts.tol.rtol * self.start_norm) / sigma,
            };
        }
        let augmented = self.aug.is_some();
        // With φ-columns, the top block of the first `ncols` terms can vanish by
        // structure (b₁ = … = b_{p−1} = 0 and a zero start: y_j's top block is
        // W·J^{j−1}z, which meets b_p only at j = p), so the rule may not stop
        // before two terms past that (measured: φ₃ of A = 0 stopped at degree 1
        // with the result 0).
        Rule::TwoTerm {
            // The a-priori tail bound holds for normal operators with the spectrum on
            // the focal segment: Hermitian ones with a real box (not the augmented
            // φ operator, which is not normal).
            tail: if self.hermitian_segment && !augmented {
                &coeffs.tail
            } else {
                &[]
            },
            unorm: unorm_s,
            floor: coeffs.floor.max(if augmented { self.ncols + 2 } else { 0 }),
            rel: tol_loc,
            abs: atol_s,
        }
    }

    /// The forcing's part of the augmented start: the tail `e^{t_cur·J}e_p` of the φ
    /// operator, scaled by η to the norm of the state (of the forcing, from a zero start).
    fn set_forcing_tail(&mut self) {
        if let (Some(a), Some(f)) = (self.aug.as_mut(), self.phi) {
            tail_at(self.scale_c * self.t_cur, self.ncols, &mut a.tail0);
            let znorm = matexp_core::norms::nrm2(&a.tail0).as_f64();
            let target = if self.unorm > 0.0 {
                self.unorm
            } else {
                f.max_norm
            };
            let eta = if znorm > 0.0 && target > 0.0 {
                target / znorm
            } else {
                1.0
            };
            a.tail0.iter_mut().for_each(|z| *z *= S::from_f64(eta));
            a.inv_eta = S::from_f64(1.0 / eta);
        }
    }

    /// The Newton sum of the substep from `u` (norm `unorm_s`) into `p`: in conjugate pairs
    /// of nodes (real arithmetic on an imaginary segment) or node by node.
    fn newton_sum(
        &mut self,
        coeffs: &Coefficients<S>,
        nodes: &[f64],
        rule: Rule<'_>,
        unorm_s: f64,
    ) -> Result<Outcome> {
        let seed = self.seed_substeps.is_some();
        match self.yc.as_deref_mut() {
            Some(yc) if self.focal.conjugate && self.aug.is_none() && !seed => substep_conjugate(
                self.be,
                self.op,
                &self.focal,
                &coeffs.exact,
                nodes,
                rule,
                self.u,
                unorm_s,
                self.p,
                [&mut *self.ya, &mut *self.yb, yc],
            ),
            _ => substep(
                self.be,
                self.op,
                &self.focal,
                &coeffs.values,
                nodes,
                rule,
                self.u,
                unorm_s,
                self.p,
                self.ya,
                self.yb,
                self.aug.as_mut(),
            ),
        }
    }

    /// Stops the march once the products since its start reach `max_products`, except after
    /// the final substep of the call.
    fn check_cost_cap(&self, final_substep: bool) -> Result<()> {
        let spent = self.report.matvecs - self.report_start;
        if spent >= self.opts.max_products && !final_substep {
            let (t_cur, t_last, planned) = (self.t_cur, self.t_last, self.planned);
            return Err(Error::NoConvergence {
                method: "leja",
                detail: format!(
                    "cost cap max_products = {} reached at t = {t_cur} of {t_last} after \
                     {spent} products (estimated up front: {planned})",
                    self.opts.max_products
                ),
            });
        }
        Ok(())
    }

    /// Takes an accepted substep: its result becomes the state, its estimate (truncation
    /// plus rounding) joins the report's.
    fn accept(&mut self, trial: &Trial) -> Result<()> {
        let outcome = &trial.outcome;
        std::mem::swap(&mut *self.u, &mut *self.p);
        self.unorm = outcome.pnorm;
        if !self.unorm.is_finite() {
            let (t_cur, unorm) = (self.t_cur, self.unorm);
            let host = self.be.to_host(self.u)?;
            let (index, value) = matexp_core::norms::first_non_finite(&host)
                .map(|(i, v)| (i, format!("{v}")))
                .unwrap_or((0, format!("norm {unorm}")));
            return Err(Error::NonFinite {
                context: format!("Leja result at t = {t_cur} (overflow)"),
                index,
                value,
            });
        }
        let report = &mut *self.report;
        report.substeps += 1;
        report.degrees.push(outcome.degree);
        report.max_degree = report.max_degree.max(outcome.degree);
        // The truncation estimate (two terms) plus the rounding of the Newton sum,
        // ε·Σ_j |d_j|·‖y_j‖: once the terms have fallen below rounding, the error
        // is rounding, which the two last terms do not see.
        let local = outcome.estimate * trial.sigma + self.eps * outcome.term_sum * trial.sigma;
        report.error_estimate += local;
        if local > 0.0 {
            let shift = self.opts.tol.atol / self.opts.tol.rtol;
            self.rel_sum += local / (self.unorm + shift);
        }
        report.converged &= outcome.converged && !trial.rounding_limited;
        Ok(())
    }

    /// Tells the progress callback, if any, the work done and the time reached.
    fn notify_progress(&self) {
        if let Some(cb) = self.opts.progress {
            (cb.0)(&Progress {
                products: self.report.matvecs,
                estimated_products: self.report.cost_estimate,
                fraction: if self.t_last > 0.0 {
                    self.t_cur / self.t_last
                } else {
                    1.0
                },
            });
        }
    }

    /// Counts a failed substep (the `k`-th of `s`, of step τ) and returns the factor the
    /// rest of the interval's substeps are cut by; fails for the thesis's method, which has
    /// no recovery, and once the halvings run out.
    fn reject(&mut self, trial: &Trial, tau: c64, k: usize, s: usize) -> Result<usize> {
        let outcome = &trial.outcome;
        let (t_cur, t_last) = (self.t_cur, self.t_last);
        let overflow = if outcome.overflow {
            " (basis overflow)"
        } else {
            ""
        };
        self.report.rejected += 1;
        if self.seed_substeps.is_some() {
            return Err(Error::NoConvergence {
                method: "leja-seed",
                detail: format!(
                    "substep {k} of {s} (t = {t_cur}) reached {} points with |d_m|·‖y_m‖ = {:.3e} \
                     ≥ tol = {:.3e}{overflow}",
                    outcome.degree + 1,
                    outcome.estimate,
                    outcome.threshold,
                ),
            });
        }
        self.halvings += 1;
        if self.halvings > self.opts.max_halvings {
            return Err(Error::NoConvergence {
                method: "leja",
                detail: format!(
                    "substep τ = {tau} at t = {t_cur} of {t_last} reached degree {} with \
                     estimate {:.3e} and rounding {:.3e} vs threshold {:.3e}{overflow} after {} \
                     halvings ({} products); the spectral bounds may not enclose the \
                     spectrum, or the tolerance is below what rounding allows",
                    outcome.degree,
                    outcome.estimate,
                    self.eps * outcome.term_sum,
                    outcome.threshold,
                    self.opts.max_halvings,
                    self.report.matvecs
                ),
            });
        }
        Ok(cut_factor(outcome, trial.rounding_limited, self.eps))
    }
}

/// The factor a failed substep is cut by: 2, or, where rounding limited it, the power of two
/// `f` that brings the rounding of its cancellation factor below the tolerance.
fn cut_factor(outcome: &Outcome, rounding_limited: bool, eps: f64) -> usize {
    // Halve, or, when rounding limited the substep, cut it so that the cancellation
    // factor H = Σ|terms|/‖p‖, which behaves like e^{c·τ}, becomes H^{1/f} with
    // ε·H^{1/f} below the (proportionally smaller) tolerance.
    let mut factor = 2usize;
    if rounding_limited && outcome.converged && outcome.pnorm > 0.0 {
        let hump = (outcome.term_sum / outcome.pnorm).max(1.0);
        let tol_ratio = outcome.threshold / outcome.pnorm.max(f64::MIN_POSITIVE);
        // ε·f·H^{1/f} decreases up to f = ln H; beyond, shorter substeps only add up
        // more rounding.
        // (A hump beyond the range, ∞, would double `factor` without end.)
        let f_best = hump.ln().clamp(2.0, 1e6);
        while (factor as f64) < f_best
            && eps * hump.powf(1.0 / factor as f64) > 0.5 * tol_ratio / factor as f64
        {
            factor *= 2;
        }
    }
    factor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_is_the_exponential_of_the_shift() {
        let mut z = [0.0f64; 3];
        tail_at(c64::new(2.0, 0.0), 3, &mut z);
        assert_eq!(z, [2.0, 2.0, 1.0]);
    }

    #[test]
    fn local_tolerance_is_proportional_and_floored() {
        assert_eq!(local_rtol(1e-6, 1.0, 4.0, 1e-16), 2.5e-7);
        assert_eq!(local_rtol(1e-12, 1.0, 1e6, 1e-16), 4e-16);
    }
}
