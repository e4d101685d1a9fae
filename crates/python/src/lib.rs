//! The compiled part of matexp's Python package (`matexp._matexp`): operators over NumPy and
//! SciPy arrays without copies where the types allow ([`operator`]), the solves of the
//! facade with the GIL released and Python's signals polled between products ([`solve`],
//! [`watch`]), graph centralities ([`graph`]) and the mapping of errors onto the Python
//! exception classes of `matexp._errors` ([`errors`]). The Python package (python/matexp)
//! gives them SciPy's and networkx's signatures.

mod device;
mod errors;
mod graph;
mod job;
mod operator;
mod scalar;
mod solve;
mod watch;

use pyo3::prelude::*;

/// The module `matexp._matexp`.
#[pymodule]
fn _matexp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<operator::Operator>()?;
    m.add_function(wrap_pyfunction!(solve::expmv_times, m)?)?;
    m.add_function(wrap_pyfunction!(solve::phimv, m)?)?;
    m.add_function(wrap_pyfunction!(graph::total_communicability, m)?)?;
    m.add_function(wrap_pyfunction!(graph::subgraph_centrality, m)?)?;
    m.add_function(wrap_pyfunction!(graph::estrada_index, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_available, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("GPU_BUILD", cfg!(feature = "gpu"))?;
    Ok(())
}

/// Whether this build has the GPU backend and a CUDA device answers (the device count, or
/// the reason why not).
#[pyfunction]
fn gpu_available() -> (bool, String) {
    #[cfg(feature = "gpu")]
    {
        match matexp::GpuBackend::new(0) {
            Ok(_) => (true, "device 0 available".into()),
            Err(e) => (false, e.to_string()),
        }
    }
    #[cfg(not(feature = "gpu"))]
    {
        (
            false,
            "this build of matexp has no GPU backend (build the wheel with the cargo feature `gpu`)"
                .into(),
        )
    }
}
