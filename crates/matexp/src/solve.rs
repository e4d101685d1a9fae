//! The entry points: f(tA)v by the method the options name, on any backend.

use crate::{Method, Options};
use matexp_core::{Error, KrylovBackend, LinearOperator, Result, Scalar, check_dim};
use matexp_expmv::{Arnoldi, ExpmvMethod, Lanczos, Leja, MAX_PHI_ORDER, Report, Taylor};

/// Runs `$body` with `$m` bound to a fresh solver of each method that `$opts` resolves to for
/// `$op` in turn ([`Method::candidates`]: one method unless it is [`Method::Auto`]), until
/// one answers: a refusal ([`Error::NoConvergence`], [`Error::Unsupported`]) of all but the
/// last passes the call to the next, any other error is returned. The report names the
/// method that answered and, in [`Report::declined`], those that refused before it (the
/// body is compiled once per method: the solvers are generic, not objects).
macro_rules! with_method {
    ($backend:expr, $op:expr, $opts:expr, |$m:ident| $body:expr) => {{
        let opts: &Options = $opts;
        let candidates = opts.method.candidates($op);
        let mut declined: Vec<&'static str> = Vec::new();
        let mut answer: Option<Report> = None;
        for (i, method) in candidates.iter().enumerate() {
            let attempt = (|| -> Result<Report> {
                Ok(match method {
                    Method::Leja => {
                        let mut $m = Leja::new($backend, opts.for_method(&opts.leja))?;
                        $body
                    }
                    Method::Lanczos => {
                        let mut $m = Lanczos::new($backend, opts.for_method(&opts.lanczos))?;
                        $body
                    }
                    Method::Arnoldi => {
                        let mut $m = Arnoldi::new($backend, opts.for_method(&opts.arnoldi))?;
                        $body
                    }
                    // `candidates` never lists Auto.
                    Method::Auto | Method::Taylor => {
                        let mut $m = Taylor::new($backend, opts.for_method(&opts.taylor))?;
                        $body
                    }
                })
            })();
            match attempt {
                Ok(mut r) => {
                    r.declined = std::mem::take(&mut declined);
                    answer = Some(r);
                    break;
                }
                Err(Error::NoConvergence { .. } | Error::Unsupported(_))
                    if i + 1 < candidates.len() =>
                {
                    declined.push(method.name());
                }
                Err(e) => return Err(e),
            }
        }
        answer.expect("the last candidate answers or returns its error")
    }};
}

/// w = e^{tA}v by the method of `opts` ([`Method::Auto`] by default): the front door.
///
/// `t` is a scalar of the computation, complex for complex `S`: e^{−iτH}v is
/// `expmv(.., c64::new(0.0, -τ), ..)` for every method. Accuracy: ‖w − e^{tA}v‖₂ ≲
/// atol + rtol·‖e^{tA}v‖₂ as estimated by the method ([`Report::rel_error_estimate`]); cost:
/// see [`Method`].
///
/// ```
/// use matexp::{CpuBackend, DenseMatrixOperator, Options, expmv};
/// let cpu = CpuBackend::new();
/// let a = DenseMatrixOperator::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
/// let (w, report) = expmv(&cpu, &a, 1.0, &vec![1.0, 0.0], &Options::default())?;
/// assert!((w[0] - 1f64.cosh()).abs() < 1e-8 && (w[1] - 1f64.sinh()).abs() < 1e-8);
/// println!("{report}"); // lanczos: 2 products, 1 substeps, degree ≤ 2; …
/// # Ok::<(), matexp::Error>(())
/// ```
///
/// # Errors
///
/// `InvalidArgument` for a non-finite `t`, options out of their domain or a tolerance below
/// the roundoff of `S` (the message names a usable one), a non-Hermitian operator given to
/// Lanczos; `DimensionMismatch` for a non-square operator or a vector of another length
/// (checked before the result is allocated, so an operator claiming more rows than memory
/// holds is refused, not an abort); `NonFinite` for NaN/∞ in `v` or an overflowing result;
/// `NoConvergence` at the method's caps; errors of the backend (`InvalidArgument` for a
/// vector the CPU cannot allocate).
pub fn expmv<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &Options,
) -> Result<(B::Vector<S>, Report)> {
    let mut w = outputs("expmv", opts, backend, op, Some(("v", v)), 1)?
        .pop()
        .expect("one output");
    let report = with_method!(backend, op, opts, |m| m.expmv(op, t, v, &mut w)?);
    Ok((w, report))
}

/// `out[i]` = e^{tᵢA}v for a list of times: a SciPy-style grid
/// `TimeGrid::linspace(start, stop, num)` (start ≠ 0 and t < 0 included) or any list, real or
/// complex (complex times on one line through 0, e.g. −i·τⱼ). Times of one sign are computed in
/// one march from 0 in order of |tᵢ| (Lanczos: one basis for all of them).
///
/// ```
/// use matexp::{CpuBackend, DenseMatrixOperator, Options, TimeGrid, expmv_times};
/// let cpu = CpuBackend::new();
/// let a = DenseMatrixOperator::new(1, 1, vec![-1.0])?;
/// let grid = TimeGrid::linspace(-1.0f64, 2.0, 4); // −1, 0, 1, 2
/// let (ws, _) = expmv_times(&cpu, &a, &grid, &vec![1.0], &Options::default())?;
/// for (w, t) in ws.iter().zip(grid.iter()) {
///     assert!((w[0] - (-t).exp()).abs() < 1e-7 * (-t).exp());
/// }
/// # Ok::<(), matexp::Error>(())
/// ```
///
/// # Errors
///
/// As [`expmv`], and `InvalidArgument` for an empty list or complex times not on one line
/// through 0.
pub fn expmv_times<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    times: &[S],
    v: &B::Vector<S>,
    opts: &Options,
) -> Result<(Vec<B::Vector<S>>, Report)> {
    // The times are checked before the outputs they size are allocated.
    if times.is_empty() {
        return Err(Error::invalid(
            "times",
            "[]",
            "expmv_times needs at least one time",
        ));
    }
    if let Some(i) = times.iter().position(|t| !t.finite()) {
        return Err(Error::invalid(
            "times",
            format!("times[{i}] = {}", times[i]),
            "expmv_times: times must be finite",
        ));
    }
    let mut out = outputs(
        "expmv_times",
        opts,
        backend,
        op,
        Some(("v", v)),
        times.len(),
    )?;
    let report = with_method!(backend, op, opts, |m| m
        .expmv_times(op, times, v, &mut out)?);
    Ok((out, report))
}

/// `[φ₀(tA)v, φ₁(tA)v, …, φ_k(tA)v]` together, like Julia's `phiv` (φ₀ = exp,
/// φ_j(z) = Σᵢ zⁱ/(i + j)!). Lanczos computes all of them from one basis; Leja, Arnoldi and
/// Taylor compute each from the augmented operator. [`Method::Auto`] starts with Lanczos or
/// Arnoldi and falls back to Taylor where that one refuses ([`Method::candidates`]).
///
/// ```
/// use matexp::{CpuBackend, DenseMatrixOperator, Options, phimv};
/// let cpu = CpuBackend::new();
/// let a = DenseMatrixOperator::new(1, 1, vec![-2.0])?;
/// let (phis, _) = phimv(&cpu, &a, 1.0, &vec![1.0], 2, &Options::default())?;
/// let z = -2.0f64;
/// let exact = [z.exp(), (z.exp() - 1.0) / z, (z.exp() - 1.0 - z) / (z * z)];
/// for (p, e) in phis.iter().zip(exact) {
///     assert!((p[0] - e).abs() < 1e-7);
/// }
/// # Ok::<(), matexp::Error>(())
/// ```
///
/// # Errors
///
/// As [`expmv`], `InvalidArgument` for k beyond [`matexp_expmv::MAX_PHI_ORDER`] or t^k
/// outside the floating-point range.
pub fn phimv<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    k: usize,
    opts: &Options,
) -> Result<(Vec<B::Vector<S>>, Report)> {
    // k sizes the outputs: checked before they are allocated.
    if k > MAX_PHI_ORDER {
        return Err(Error::invalid(
            "k",
            k,
            format!(
                "phimv ({}): φ_k is supported for k ≤ {MAX_PHI_ORDER}",
                opts.method.resolve(op).name()
            ),
        ));
    }
    let mut out = outputs("phimv", opts, backend, op, Some(("v", v)), k + 1)?;
    let report = with_method!(backend, op, opts, |m| m.phimv(op, t, v, &mut out)?);
    Ok((out, report))
}

/// w = Σ_{j=0}^{p} t^j·φ_j(tA)·b_j for `bs = [b₀, …, b_p]`: the step of exponential
/// integrators (exponential Euler: bs = [u₀, g(u₀)], t = h).
///
/// # Errors
///
/// As [`phimv`], and `InvalidArgument` for an empty `bs`.
pub fn phi_combination<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    bs: &[&B::Vector<S>],
    opts: &Options,
) -> Result<(B::Vector<S>, Report)> {
    if bs.is_empty() {
        return Err(Error::invalid(
            "bs",
            "[]",
            format!(
                "phi_combination ({}) needs at least b₀",
                opts.method.resolve(op).name()
            ),
        ));
    }
    if bs.len() - 1 > MAX_PHI_ORDER {
        return Err(Error::invalid(
            "bs",
            format!("{} vectors (p = {})", bs.len(), bs.len() - 1),
            format!(
                "phi_combination ({}): φ_p is supported for p ≤ {MAX_PHI_ORDER}",
                opts.method.resolve(op).name()
            ),
        ));
    }
    let n = op.nrows();
    for (j, b) in bs.iter().enumerate() {
        check_dim(
            &format!("phi_combination: bs[{j}]: length vs the operator's order"),
            n,
            backend.len(b),
        )?;
    }
    let mut w = outputs(
        "phi_combination",
        opts,
        backend,
        op,
        bs.first().map(|b| ("bs[0]", *b)),
        1,
    )?
    .pop()
    .expect("one output");
    let report = with_method!(backend, op, opts, |m| m
        .phi_combination(op, t, bs, &mut w)?);
    Ok((w, report))
}

/// `out[j]` = e^{tA}·(column j) for a column-major host block (`columns.len()` = n·k, the
/// layout of the MatrixMarket reader's `DenseArray`): one backend vector per column, the shape
/// of [`expmv_times`] and [`phimv`]. The columns go to the backend one at a time, through one
/// workspace of the method; the report sums the work and keeps each column's estimate.
///
/// ```
/// use matexp::{CpuBackend, DenseMatrixOperator, Options, expmv_columns};
/// let cpu = CpuBackend::new();
/// let a = DenseMatrixOperator::new(2, 2, vec![-1.0, 0.0, 0.0, -2.0])?;
/// let block = [1.0, 0.0, /* second column */ 0.0, 1.0];
/// let (w, _) = expmv_columns(&cpu, &a, 1.0, &block, &Options::default())?;
/// assert!((w[0][0] - (-1f64).exp()).abs() < 1e-8 && (w[1][1] - (-2f64).exp()).abs() < 1e-8);
/// # Ok::<(), matexp::Error>(())
/// ```
///
/// # Errors
///
/// `DimensionMismatch` when `columns.len()` is not a multiple of the operator's order,
/// `InvalidArgument` for an empty block, and those of [`expmv`].
pub fn expmv_columns<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    columns: &[S],
    opts: &Options,
) -> Result<(Vec<B::Vector<S>>, Report)> {
    let n = op.nrows();
    let method = opts.method.resolve(op).name();
    if n == 0 {
        return Err(Error::invalid(
            "op",
            "0 × 0 operator",
            format!("expmv_columns ({method}) needs at least one row"),
        ));
    }
    if columns.is_empty() {
        // Nothing would justify the workspace of order n. (A non-empty block shorter than
        // one column is a length mismatch, below.)
        return Err(Error::invalid(
            "columns",
            format!("{} values for order n = {n}", columns.len()),
            format!("expmv_columns ({method}) needs at least one column (n values)"),
        ));
    }
    let k = columns.len() / n;
    check_dim(
        &format!("expmv_columns ({method}): length of the column-major block (n·k)"),
        k.max(1) * n,
        columns.len(),
    )?;
    let mut out = outputs("expmv_columns", opts, backend, op, None, k)?;
    let report = with_method!(backend, op, opts, |m| {
        let mut total: Option<Report> = None;
        for (col, w) in columns.chunks(n).zip(out.iter_mut()) {
            let v = backend.upload(col)?;
            let r = m.expmv(op, t, &v, w)?;
            match total.as_mut() {
                Some(tot) => tot.merge(&r),
                None => total = Some(r),
            }
        }
        total.unwrap_or_default()
    });
    Ok((out, report))
}

/// φ_k(tA)v alone (φ₀ = exp, φ_k(z) = Σᵢ zⁱ/(i + k)!), without φ₀ … φ_{k−1}: one solve on
/// the operator augmented by k columns, `t^{−k}·(t^kφ_k(tA)v)` (Al-Mohy and Higham 2011,
/// Theorem 2.1), so it costs about one [`expmv`] of order n + k, where [`phimv`] computes
/// every order up to k. `t = 0` gives v/k!.
///
/// ```
/// use matexp::{CpuBackend, DenseMatrixOperator, Options, phimv_k};
/// let cpu = CpuBackend::new();
/// let a = DenseMatrixOperator::new(1, 1, vec![-2.0])?;
/// let (w, _) = phimv_k(&cpu, &a, 1.0, &vec![1.0], 2, &Options::default())?;
/// let z = -2.0f64;
/// assert!((w[0] - (z.exp() - 1.0 - z) / (z * z)).abs() < 1e-7);
/// # Ok::<(), matexp::Error>(())
/// ```
///
/// # Errors
///
/// As [`phimv`].
pub fn phimv_k<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    k: usize,
    opts: &Options,
) -> Result<(B::Vector<S>, Report)> {
    if k > MAX_PHI_ORDER {
        return Err(Error::invalid(
            "k",
            k,
            format!(
                "phimv_k ({}): φ_k is supported for k ≤ {MAX_PHI_ORDER}",
                opts.method.resolve(op).name()
            ),
        ));
    }
    let mut w = outputs("phimv_k", opts, backend, op, Some(("v", v)), 1)?
        .pop()
        .expect("one output");
    let report = with_method!(backend, op, opts, |m| m.phimv_k(op, k, t, v, &mut w)?);
    Ok((w, report))
}

/// `count` zero vectors of the operator's order, allocated only after the operator is found
/// square and `v` (when given) of its order: an operator claiming more rows than memory
/// holds is a `DimensionMismatch` (or the backend's allocation error), never an abort.
fn outputs<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    call: &str,
    opts: &Options,
    backend: &B,
    op: &O,
    v: Option<(&str, &B::Vector<S>)>,
    count: usize,
) -> Result<Vec<B::Vector<S>>> {
    let n = op.nrows();
    let method = opts.method.resolve(op).name();
    check_dim(
        &format!("{call} ({method}): operator must be square (columns vs rows)"),
        n,
        op.ncols(),
    )?;
    if let Some((name, v)) = v {
        check_dim(
            &format!("{call} ({method}): {name}: length vs the operator's order"),
            n,
            backend.len(v),
        )?;
    }
    (0..count).map(|_| backend.zeros(n)).collect()
}
