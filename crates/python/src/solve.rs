//! The solves: e^{tA}B at a list of times and φ-functions, each column of B through the
//! facade ([`matexp::expmv_times`], [`matexp::phimv`], [`matexp::phimv_k`]) with the GIL
//! released.
//!
//! Scalar type: real when A, B and the times are real; a real A with complex columns and
//! real times runs as real solves of the real and imaginary parts (e^{tA} is real, so
//! e^{tA}(x + iy) = e^{tA}x + i·e^{tA}y: no complex copy of A); anything else is complex.

use crate::errors::invalid;
use crate::job::{Job, Outputs, merge};
use crate::operator::Operator;
use crate::scalar::PyScalar;
use crate::watch::Ctx;
use matexp::{CpuBackend, Method, Options, Report, c64};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The facade options from the keywords of a call.
fn options(
    py: Python<'_>,
    method: &str,
    rtol: Option<f64>,
    atol: f64,
    max_products: Option<usize>,
) -> PyResult<Options> {
    let m: Method = method.parse().map_err(|e| crate::errors::to_py(py, e))?;
    let mut o = Options::default().with_method(m);
    if let Some(r) = rtol {
        o = o.with_rtol(r);
    }
    o = o.with_atol(atol);
    if let Some(p) = max_products {
        o.leja.max_products = p;
        o.lanczos.max_products = p;
        o.arnoldi.max_products = p;
        o.taylor.max_products = p;
    }
    Ok(o)
}

/// The columns of a (k, n) C-contiguous block as vectors of `S` (complex columns of a real
/// type are split: the real parts, then the imaginary parts).
enum Block {
    Real(Vec<Vec<f64>>),
    Complex(Vec<Vec<c64>>),
}

fn block(py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<(usize, Block)> {
    if let Ok(r) = b.extract::<PyReadonlyArray2<'_, f64>>() {
        let n = r.shape()[1];
        let s = r.as_slice().map_err(|e| invalid(py, e.to_string()))?;
        return Ok((
            n,
            Block::Real(s.chunks(n.max(1)).map(<[f64]>::to_vec).collect()),
        ));
    }
    let r = b.extract::<PyReadonlyArray2<'_, c64>>()?;
    let n = r.shape()[1];
    let s = r.as_slice().map_err(|e| invalid(py, e.to_string()))?;
    Ok((
        n,
        Block::Complex(s.chunks(n.max(1)).map(<[c64]>::to_vec).collect()),
    ))
}

/// The report as a dict (the `info` of `return_info=True`).
fn info<'py>(py: Python<'py>, r: &Report) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("method", r.method)?;
    d.set_item("products", r.matvecs)?;
    d.set_item("estimate_products", r.estimate_matvecs)?;
    d.set_item("substeps", r.substeps)?;
    d.set_item("rejected", r.rejected)?;
    d.set_item("max_degree", r.max_degree)?;
    d.set_item("error_estimate", r.error_estimate)?;
    d.set_item("rel_error_estimate", r.rel_error_estimate)?;
    d.set_item("rtol", r.rtol)?;
    d.set_item("atol", r.atol)?;
    d.set_item("converged", r.converged)?;
    d.set_item("declined", r.declined.clone())?;
    d.set_item("report", r.to_string())?;
    Ok(d)
}

/// Runs `job(op, column)` → outputs (one vector each) for every column with scalar `S`,
/// returning per column the outputs and the merged report.
fn columns<S: PyScalar>(
    py: Python<'_>,
    op: &Operator,
    ctx: &Ctx,
    device: Option<usize>,
    cols: Vec<Vec<S>>,
    job: Job<'_>,
    opts: &Options,
) -> PyResult<matexp::Result<(Outputs<S>, Report)>> {
    if let Some(ordinal) = device {
        return crate::device::columns(py, op, ordinal, cols, job, opts);
    }
    op.with::<S, _>(py, ctx, |a| {
        let cpu = CpuBackend::new();
        let mut out = Vec::with_capacity(cols.len());
        let mut total = None;
        for c in &cols {
            let (w, r) = job.run(&cpu, opts, a, c)?;
            out.push(w);
            merge(&mut total, r);
        }
        Ok((out, total.unwrap_or_default()))
    })
}

/// Lays out `out[col][j]` (vectors of length n) as a flat C-order array of shape (m, k, n).
fn flat<S: Copy>(out: &[Vec<Vec<S>>], m: usize, n: usize) -> Vec<S> {
    let k = out.len();
    let mut f = Vec::with_capacity(m * k * n);
    for j in 0..m {
        for col in out {
            f.extend_from_slice(&col[j][..n]);
        }
    }
    debug_assert_eq!(f.len(), m * k * n);
    f
}

/// The (m, k, n) result array from real or complex outputs; `split` rejoins the real and
/// imaginary halves of split complex columns.
fn result_array<'py>(
    py: Python<'py>,
    out: Result<Outputs<f64>, Outputs<c64>>,
    split: bool,
    m: usize,
    n: usize,
) -> PyResult<Bound<'py, PyAny>> {
    match out {
        Ok(real) if split => {
            let k = real.len() / 2;
            let joined: Outputs<c64> = (0..k)
                .map(|c| {
                    real[c]
                        .iter()
                        .zip(&real[c + k])
                        .map(|(x, y)| x.iter().zip(y).map(|(&a, &b)| c64::new(a, b)).collect())
                        .collect()
                })
                .collect();
            Ok(PyArray1::from_vec(py, flat(&joined, m, n))
                .reshape([m, k, n])?
                .into_any())
        }
        Ok(real) => {
            let k = real.len();
            Ok(PyArray1::from_vec(py, flat(&real, m, n))
                .reshape([m, k, n])?
                .into_any())
        }
        Err(cplx) => {
            let k = cplx.len();
            Ok(PyArray1::from_vec(py, flat(&cplx, m, n))
                .reshape([m, k, n])?
                .into_any())
        }
    }
}

/// Runs `job` on every column of `b` (a (k, n) array) and returns the (m, k, n) array and
/// the report.
fn solve<'py>(
    py: Python<'py>,
    op: &Operator,
    b: &Bound<'py, PyAny>,
    job: Job<'_>,
    opts: Options,
    progress: Option<Py<PyAny>>,
    device: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let (n, blk) = block(py, b)?;
    let m = job.outputs();
    let ctx = Ctx::new(progress);
    let complex = op.complex() || job.complex();
    // The library's own time (the solves, with the borrowing of the arrays and the copies of
    // the columns), for the interface's overhead: the caller's wall time minus this.
    let clock = std::time::Instant::now();
    let (out, split) = match blk {
        Block::Real(cols) if !complex => (
            columns::<f64>(py, op, &ctx, device, cols, job, &opts)?.map(|(o, r)| (Ok(o), r)),
            false,
        ),
        Block::Complex(cols) if !complex => {
            let mut parts: Vec<Vec<f64>> = cols
                .iter()
                .map(|c| c.iter().map(|z| z.re).collect())
                .collect();
            parts.extend(
                cols.iter()
                    .map(|c| c.iter().map(|z| z.im).collect::<Vec<f64>>()),
            );
            (
                columns::<f64>(py, op, &ctx, device, parts, job, &opts)?.map(|(o, r)| (Ok(o), r)),
                true,
            )
        }
        Block::Real(cols) => {
            let cols = cols
                .into_iter()
                .map(|c| c.into_iter().map(|x| c64::new(x, 0.0)).collect())
                .collect();
            (
                columns::<c64>(py, op, &ctx, device, cols, job, &opts)?.map(|(o, r)| (Err(o), r)),
                false,
            )
        }
        Block::Complex(cols) => (
            columns::<c64>(py, op, &ctx, device, cols, job, &opts)?.map(|(o, r)| (Err(o), r)),
            false,
        ),
    };
    let solve_s = clock.elapsed().as_secs_f64();
    let (out, report) = ctx.finish(py, out)?;
    let d = info(py, &report)?;
    d.set_item("solve_s", solve_s)?;
    Ok((result_array(py, out, split, m, n)?, d))
}

/// e^{t_j A}·b_c for every time t_j and column b_c of `b` ((k, n), float64 or complex128):
/// an array of shape (m, k, n) and the report as a dict. `device`: a GPU's ordinal (the
/// matrix and vectors are uploaded, the results downloaded), None for the CPU.
#[pyfunction]
#[pyo3(signature = (op, b, times, *, method = "auto", rtol = None, atol = 0.0, max_products = None, progress = None, device = None))]
#[allow(clippy::too_many_arguments)]
pub fn expmv_times<'py>(
    py: Python<'py>,
    op: &Operator,
    b: &Bound<'py, PyAny>,
    times: Vec<c64>,
    method: &str,
    rtol: Option<f64>,
    atol: f64,
    max_products: Option<usize>,
    progress: Option<Py<PyAny>>,
    device: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let opts = options(py, method, rtol, atol, max_products)?;
    solve(py, op, b, Job::Times(&times), opts, progress, device)
}

/// φ₀(tA)b … φ_k(tA)b (`all`) or φ_k(tA)b alone for every column of `b` ((k, n)): an array
/// of shape (k + 1 or 1, columns, n) and the report.
#[pyfunction]
#[pyo3(signature = (op, b, t, k, all, *, method = "auto", rtol = None, atol = 0.0, max_products = None, progress = None, device = None))]
#[allow(clippy::too_many_arguments)]
pub fn phimv<'py>(
    py: Python<'py>,
    op: &Operator,
    b: &Bound<'py, PyAny>,
    t: c64,
    k: usize,
    all: bool,
    method: &str,
    rtol: Option<f64>,
    atol: f64,
    max_products: Option<usize>,
    progress: Option<Py<PyAny>>,
    device: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let opts = options(py, method, rtol, atol, max_products)?;
    solve(py, op, b, Job::Phi { t, k, all }, opts, progress, device)
}
