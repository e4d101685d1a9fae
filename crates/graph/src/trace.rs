//! The Estrada index tr e^{βA} by stochastic Lanczos quadrature and by Hutch++.

use crate::estimate::{ProbeOptions, TraceEstimate};
use crate::probes::rademacher;
use crate::quadrature::{LanczosQuadrature, QuadraticForm, QuadratureOptions};

use crate::gauss::check_beta;
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, Shifted};
use matexp_expmv::{ExpmvMethod, Lanczos, LanczosOptions, Tolerance};

fn upload_probe<B: Backend, S: Scalar>(
    backend: &B,
    n: usize,
    seed: u64,
    index: u64,
) -> Result<B::Vector<S>> {
    let z: Vec<S> = rademacher(n, seed, index)
        .into_iter()
        .map(S::from_f64)
        .collect();
    backend.upload(&z)
}

fn square<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(op: &O) -> Result<usize> {
    if op.nrows() != op.ncols() {
        return Err(Error::dim(
            "estrada index: square operator",
            op.nrows(),
            op.ncols(),
        ));
    }
    Ok(op.nrows())
}

/// The Estrada index EE = tr e^{βA} = Σᵢ e^{βλᵢ} by stochastic Lanczos quadrature (Ubaru,
/// Chen & Saad 2017): the mean of zₖᵀe^{βA}zₖ over m Rademacher probes zₖ, each quadratic form
/// by the Gauss rule of Lanczos started at zₖ ([`LanczosQuadrature`]).
///
/// **Interval.** A Student t-interval over the m samples plus the quadrature allowance (see
/// [`TraceEstimate`]). The variance of one sample is 2Σ_{i≠j}[e^{βA}]ᵢⱼ²: small when e^{βA}
/// is nearly diagonal (small β, low-degree graphs), large when one eigenvalue dominates (the
/// samples then follow e^{βλ₁}(v₁ᵀz)², a skewed law that a t-interval covers less often than
/// asked; use [`estrada_index_hutchpp`] there).
///
/// **Cost.** m quadratures of k ≈ 20–50 products each, three vectors of memory; the work is
/// independent of n beyond the products.
///
/// Errors: [`Error::InvalidArgument`] for bad options or a non-symmetric operator, and the
/// quadrature's errors.
///
/// ```
/// use matexp_core::CpuBackend;
/// use matexp_graph::{ProbeOptions, QuadratureOptions, estrada_index_slq};
/// use matexp_sparse::generators::grid_graph_2d;
/// let g = grid_graph_2d::<u32>(20, 20)?;
/// let est = estrada_index_slq(&CpuBackend, &g, 1.0, &ProbeOptions::default(),
///                             &QuadratureOptions::default())?;
/// // The grid's spectrum is known: λ = 2cos(πa/21) + 2cos(πb/21), a, b = 1..20.
/// let c: Vec<f64> = (1..=20).map(|a| (2.0 * (std::f64::consts::PI * a as f64 / 21.0).cos()).exp()).collect();
/// let exact: f64 = c.iter().map(|x| c.iter().map(|y| x * y).sum::<f64>()).sum();
/// let (lo, hi) = est.interval();
/// assert!(lo < exact && exact < hi, "{lo} {exact} {hi}");
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn estrada_index_slq<B: Backend, S: RealScalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    beta: S,
    probes: &ProbeOptions,
    quad: &QuadratureOptions,
) -> Result<TraceEstimate> {
    let beta = beta.as_f64();
    check_beta(beta)?;
    probes.validate()?;
    let n = square(op)?;
    let t = probes.t_factor()?;
    let mut lq = LanczosQuadrature::<B, S>::new(backend, n, *quad)?;
    let mut forms = Vec::with_capacity(probes.probes);
    for k in 0..probes.probes {
        let z = upload_probe::<B, S>(backend, n, probes.seed, k as u64)?;
        forms.push(lq.quadratic_form(op, beta, &z)?);
    }
    let matvecs = forms.iter().map(|f| f.steps).sum();
    let (ln_scale, parts, slacks) = common_scale(&forms, &[]);
    let (mean, se) = crate::stats::mean_and_error(&parts);
    let slack = slacks.iter().sum::<f64>() / slacks.len() as f64;
    let rounding = rounding_of(&forms, ln_scale) / forms.len() as f64;
    let quadrature_tolerance = quad.rtol * mean;
    finite_estimate(
        "estrada index (slq)",
        &[ln_scale, mean, se, slack, rounding],
    )?;
    Ok(TraceEstimate {
        method: "slq",
        ln_scale,
        mean,
        std_error: se,
        half_width: t * se,
        quadrature_error: slack,
        rounding_error: rounding,
        confidence: probes.confidence,
        samples: probes.probes,
        matvecs,
        quadrature_tolerance,
        converged: slack <= quadrature_tolerance,
    })
}

/// The values and quadrature allowances of `forms` (stochastic samples) and `exact` (summed
/// deterministic parts, returned as the last element's companions) in the common scale
/// e^{L}, L = the largest ln value.
fn common_scale(forms: &[QuadraticForm], exact: &[QuadraticForm]) -> (f64, Vec<f64>, Vec<f64>) {
    let l = forms
        .iter()
        .chain(exact)
        .map(|f| f.ln_value)
        .fold(f64::NEG_INFINITY, f64::max);
    let l = if l.is_finite() { l } else { 0.0 };
    let scaled = |f: &QuadraticForm| (f.ln_value - l).exp();
    let parts = forms.iter().map(scaled).collect();
    let slacks = forms
        .iter()
        .map(|f| scaled(f) * f.relative_error())
        .collect();
    (l, parts, slacks)
}

/// The Estrada index tr e^{βA} by Hutch++ (Meyer, Musco, Musco & Woodruff 2021) with Lanczos
/// quadrature for the quadratic forms.
///
/// **Method.** With s = `sketch` and m = `probes`:
/// 1. one quadrature from a probe gives the largest Ritz value θ, and the shift σ = θ
///    (β ≥ 0; the smallest Ritz value for β < 0) keeps e^{β(A−σI)} of unit size;
/// 2. Y = e^{β(A−σI)}S for s Rademacher columns (Lanczos, [`matexp_expmv::Lanczos`] at
///    rtol 1e−8: Y only has to find the dominant eigenspace), Q = orth(Y) by Gram–Schmidt
///    applied twice;
/// 3. tr e^{βA} = Σᵢ qᵢᵀe^{βA}qᵢ + tr((I − QQᵀ)e^{βA}(I − QQᵀ)): the first part by s
///    quadratures, the second by the mean of pⱼᵀe^{βA}pⱼ with pⱼ = (I − QQᵀ)gⱼ over m
///    Rademacher gⱼ (unbiased for any Q independent of the gⱼ).
///
/// **Interval.** The deflated part is deterministic given Q (up to the quadrature allowance);
/// the t-interval is that of the residual part's m samples (see [`TraceEstimate`]). Deflating
/// the dominant eigenvectors removes what makes plain Hutchinson samples skewed, so the
/// interval is both narrower and closer to its nominal coverage.
///
/// **Cost.** (s + 1 + s + m) Lanczos runs of k ≈ 20–50 products; memory s + 4 vectors.
/// The residual forms are resolved to `rtol` of the deflated part Σᵢ qᵢᵀe^{βA}qᵢ (a lower
/// bound of the trace), not of themselves: when one eigenvalue dominates (coPapersDBLP-like
/// graphs, λ₁ ≈ 110) they are ~e^{−β(λ₁−λ₂)} of the trace and stop after a few steps, where
/// resolving each to 1e−12 of itself took 100–500 steps. The allowance counts rtol·(deflated
/// part) for each. Quadratures that still miss `rtol` at `max_steps` are accepted with their
/// last relative change counted in the allowance.
///
/// Errors: as [`estrada_index_slq`]; [`Error::InvalidArgument`] for `sketch` = 0.
pub fn estrada_index_hutchpp<
    B: matexp_core::KrylovBackend,
    S: RealScalar,
    O: LinearOperator<B, S> + ?Sized,
>(
    backend: &B,
    op: &O,
    beta: S,
    probes: &ProbeOptions,
    quad: &QuadratureOptions,
) -> Result<TraceEstimate> {
    let beta = beta.as_f64();
    check_beta(beta)?;
    probes.validate()?;
    if probes.sketch == 0 {
        return Err(Error::invalid(
            "sketch",
            0,
            "Hutch++ needs a sketch rank ≥ 1",
        ));
    }
    let n = square(op)?;
    let t = probes.t_factor()?;
    let be = backend;
    // A form that misses rtol at max_steps is accepted and its last change enters the
    // quadrature allowance (residual probes keep a rounding-level component ~u·‖g‖ along the
    // deflated eigenvectors, which e^{βλ₁} amplifies).
    let lenient = QuadratureOptions {
        allow_unconverged: true,
        ..*quad
    };
    let mut lq = LanczosQuadrature::<B, S>::new(be, n, lenient)?;
    let mut matvecs = 0;
    // Streams: 0 for the shift, 1..=s for S, then the residual probes.
    let s = probes.sketch.min(n);
    let z0 = upload_probe::<B, S>(be, n, probes.seed, 0)?;
    let f0 = lq.quadratic_form(op, beta, &z0)?;
    matvecs += f0.steps;
    let sigma = f0.exponent_shift(beta);
    let shifted = Shifted::new(op, -sigma);
    // The sketch's columns must be accurate well beyond the trace's tolerance: the residual
    // quadratic forms are relative to the deflated trace, and an error of the sketch left
    // in the residual costs far more Gauss-rule steps than the few Lanczos steps saved
    // (rtol 1e−8: 738 products on the power-law test graph, 1e−12: 278).
    let lopts = LanczosOptions {
        tol: Tolerance::relative(1e-12),
        // A Krylov space of A has dimension ≤ n: the quadratures stop there too.
        max_dim: quad.max_steps.min(n.max(1)),
        assume_hermitian: true,
        allow_unconverged: true,
        ..Default::default()
    };
    let mut lz = Lanczos::<B, S>::new(be, lopts)?;
    let mut q: Vec<B::Vector<S>> = Vec::with_capacity(s);
    for j in 0..s {
        let sj = upload_probe::<B, S>(be, n, probes.seed, 1 + j as u64)?;
        let mut y = be.zeros(n)?;
        let rep = lz.expmv(&shifted, S::from_f64(beta), &sj, &mut y)?;
        matvecs += rep.matvecs;
        if orthogonalize_into(be, &q, &mut y)? {
            q.push(y);
        }
    }
    let mut deflated = Vec::with_capacity(q.len());
    for qi in &q {
        let f = lq.quadratic_form(op, beta, qi)?;
        matvecs += f.steps;
        deflated.push(f);
    }
    // tr e^{βA} ≥ Σᵢ qᵢᵀe^{βA}qᵢ (the residual trace is ≥ 0), so a residual form is only
    // needed to rtol of the deflated part: when one eigenvalue dominates, the residual forms
    // are e^{−β(λ₁−λ_r)} of the trace and stop after a few steps instead of running to
    // max_steps (coPapersDBLP-like graphs: 30 forms of 110–500 steps for a part of 1e−25).
    let ln_deflated = ln_sum(deflated.iter().map(|f| f.ln_value));
    let mut residual = Vec::with_capacity(probes.probes);
    for j in 0..probes.probes {
        let mut p = upload_probe::<B, S>(be, n, probes.seed, (1 + s + j) as u64)?;
        project_out(be, &q, &mut p)?;
        project_out(be, &q, &mut p)?;
        let f = lq.quadratic_form_above(op, beta, &p, ln_deflated)?;
        matvecs += f.steps;
        residual.push(f);
    }
    let (ln_scale, parts, slacks) = common_scale(&residual, &deflated);
    let (mean_r, se) = crate::stats::mean_and_error(&parts);
    let scaled = |f: &QuadraticForm| (f.ln_value - ln_scale).exp();
    let exact: f64 = deflated.iter().map(scaled).sum();
    let exact_slack: f64 = deflated
        .iter()
        .map(|f| scaled(f) * f.relative_error())
        .sum();
    // Each residual form is resolved to rtol of the deflated part, which its allowance
    // counts at least (the last change of a form stopped early understates its gap).
    let floor = quad.rtol * exact;
    let slack = slacks.iter().map(|&x| x.max(floor)).sum::<f64>() / slacks.len() as f64;
    let mean = exact + mean_r;
    let quadrature_error = exact_slack + slack;
    let rounding_error =
        rounding_of(&deflated, ln_scale) + rounding_of(&residual, ln_scale) / residual.len() as f64;
    finite_estimate(
        "estrada index (hutch++)",
        &[ln_scale, mean, se, quadrature_error, rounding_error],
    )?;
    let quadrature_tolerance = 2.0 * quad.rtol * mean;
    Ok(TraceEstimate {
        method: "hutch++",
        ln_scale,
        mean,
        std_error: se,
        half_width: t * se,
        quadrature_error,
        rounding_error,
        confidence: probes.confidence,
        samples: probes.probes,
        matvecs,
        quadrature_tolerance,
        converged: quadrature_error <= quadrature_tolerance,
    })
}

/// `NonFinite` naming `what` unless every figure of an estimate is finite (a NaN or ∞
/// there is never an answer: β·λ beyond the range, or a product that overflowed).
fn finite_estimate(what: &str, figures: &[f64]) -> Result<()> {
    match figures.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            context: format!("{what}: a figure of the estimate"),
            index: i,
            value: format!("{}", figures[i]),
        }),
    }
}

/// ln Σᵢ e^{xᵢ} without overflow (−∞ for no terms).
fn ln_sum(x: impl Iterator<Item = f64> + Clone) -> f64 {
    let top = x.clone().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    top + x.map(|v| (v - top).exp()).sum::<f64>().ln()
}

/// Σ value·rounding of `forms` in units of e^{ln_scale}.
fn rounding_of(forms: &[QuadraticForm], ln_scale: f64) -> f64 {
    forms
        .iter()
        .map(|f| (f.ln_value - ln_scale).exp() * f.rounding)
        .sum()
}

/// x ← x − Σᵢ (qᵢᵀx)qᵢ (one classical Gram–Schmidt sweep).
fn project_out<B: Backend, S: Scalar>(
    be: &B,
    q: &[B::Vector<S>],
    x: &mut B::Vector<S>,
) -> Result<()> {
    for qi in q {
        let h = be.dot(qi, x)?;
        be.axpby(-h, qi, S::one(), x)?;
    }
    Ok(())
}

/// Orthonormalizes y against the orthonormal q (two sweeps, "twice is enough") and
/// normalizes it; false when y lies in span(q) to rounding (the column is dropped).
fn orthogonalize_into<B: Backend, S: Scalar>(
    be: &B,
    q: &[B::Vector<S>],
    y: &mut B::Vector<S>,
) -> Result<bool> {
    let before = be.nrm2(y)?.as_f64();
    if !before.is_finite() {
        return Err(Error::NonFinite {
            context: "hutch++: sketch column e^{β(A−σI)}s".into(),
            index: 0,
            value: format!("‖y‖ = {before}"),
        });
    }
    if before == 0.0 {
        return Ok(false);
    }
    project_out(be, q, y)?;
    project_out(be, q, y)?;
    let after = be.nrm2(y)?.as_f64();
    if after <= 1e-10 * before {
        return Ok(false);
    }
    be.scale(S::from_f64(1.0 / after), y)?;
    Ok(true)
}
