//! Graph centralities of a real symmetric operator (an adjacency matrix, weighted or not):
//! total communicability e^{βA}·1, subgraph centralities [e^{βA}]_ii and the Estrada index
//! tr e^{βA}, to a relative tolerance with intervals ([`matexp::graph`]).

use crate::errors::invalid;
use crate::operator::Operator;
use crate::watch::Ctx;
use matexp::{Centrality, CentralityOptions, CommunicabilityOptions, CpuBackend, Tolerance};
use numpy::PyArray1;
use pyo3::prelude::*;

fn centrality_options(py: Python<'_>, rtol: f64) -> PyResult<CentralityOptions> {
    if !(rtol > 0.0 && rtol < 1.0) {
        return Err(invalid(py, format!("rtol = {rtol}: must lie in (0, 1)")));
    }
    Ok(CentralityOptions::default().with_tolerance(Tolerance::relative(rtol)))
}

fn real(py: Python<'_>, op: &Operator) -> PyResult<()> {
    if op.complex() {
        return Err(invalid(py, "graph measures need a real adjacency matrix"));
    }
    Ok(())
}

fn method_name(c: &Centrality) -> String {
    format!("{:?}", c.method).to_lowercase()
}

/// e^{βA}·1 (rtol in the 2-norm): the array and the number of products.
#[pyfunction]
#[pyo3(signature = (op, beta, rtol = 1e-12))]
pub fn total_communicability<'py>(
    py: Python<'py>,
    op: &Operator,
    beta: f64,
    rtol: f64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize)> {
    real(py, op)?;
    let opts = CommunicabilityOptions {
        rtol,
        ..Default::default()
    };
    let ctx = Ctx::new(None);
    let r = op.with::<f64, _>(py, &ctx, |a| {
        matexp::total_communicability(&CpuBackend::new(), a, beta, &opts)
    })?;
    let (tc, report) = ctx.finish(py, r)?;
    Ok((PyArray1::from_vec(py, tc), report.matvecs))
}

/// Per node of `nodes` (all when None): (values, lower, upper), and the method, whether
/// every interval met the tolerance, and the products.
#[pyfunction]
#[pyo3(signature = (op, beta, rtol = 1e-6, nodes = None))]
#[allow(clippy::type_complexity)]
pub fn subgraph_centrality<'py>(
    py: Python<'py>,
    op: &Operator,
    beta: f64,
    rtol: f64,
    nodes: Option<Vec<usize>>,
) -> PyResult<(
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    String,
    bool,
    usize,
)> {
    real(py, op)?;
    let opts = centrality_options(py, rtol)?;
    let nodes = nodes.unwrap_or_else(|| (0..op.dims().0).collect());
    let ctx = Ctx::new(None);
    let r = op.with::<f64, _>(py, &ctx, |a| {
        matexp::graph::subgraph_centrality(&CpuBackend::new(), a, beta, &nodes, &opts)
    })?;
    let cs = ctx.finish(py, r)?;
    let pick = |f: fn(&Centrality) -> f64| PyArray1::from_vec(py, cs.iter().map(f).collect());
    let method = cs.first().map(method_name).unwrap_or_else(|| "none".into());
    Ok((
        pick(|c| c.value),
        pick(|c| c.lower),
        pick(|c| c.upper),
        method,
        cs.iter().all(|c| c.met),
        cs.first().map_or(0, |c| c.matvecs),
    ))
}

/// tr e^{βA}: (value, lower, upper, method, met, products).
#[pyfunction]
#[pyo3(signature = (op, beta, rtol = 1e-6))]
pub fn estrada_index(
    py: Python<'_>,
    op: &Operator,
    beta: f64,
    rtol: f64,
) -> PyResult<(f64, f64, f64, String, bool, usize)> {
    real(py, op)?;
    let opts = centrality_options(py, rtol)?;
    let ctx = Ctx::new(None);
    let r = op.with::<f64, _>(py, &ctx, |a| {
        matexp::estrada_index(&CpuBackend::new(), a, beta, &opts)
    })?;
    let c = ctx.finish(py, r)?;
    Ok((c.value, c.lower, c.upper, method_name(&c), c.met, c.matvecs))
}
