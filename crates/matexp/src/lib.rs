//! # matexp
//!
//! The matrix exponential and φ-functions of large sparse or matrix-free operators applied to
//! vectors, w = f(tA)v, on the CPU and on NVIDIA GPUs, with error control: one front door
//! ([`expmv`], [`phimv_k`], [`phimv`], [`expmv_times`], [`phi_combination`],
//! [`expmv_columns`]) over four methods ([`Method`]: Leja interpolation, Lanczos, Arnoldi,
//! Taylor), chosen per call by [`Method::Auto`] or by name. Every call takes a backend, an
//! operator, the time t (real, negative or complex), the vector and [`Options`], and returns
//! the result with a [`Report`] that prints: one vector ([`expmv`], [`phimv_k`],
//! [`phi_combination`]) or one vector per time, order or column ([`expmv_times`], [`phimv`],
//! [`expmv_columns`]), always with one report. Errors name the call, the method and the
//! argument.
//!
//! Read a MatrixMarket file and compute e^{tA}v on the CPU (paths relative to this crate;
//! `data/heat.mtx` is a 2D heat-equation matrix, n = 144):
//!
//! ```
//! use matexp::{CpuBackend, CsrMatrix, Options, expmv, read_matrix_market};
//!
//! let a: CsrMatrix<f64> = read_matrix_market("data/heat.mtx")?;
//! let v = vec![1.0; a.nrows()];
//! let (w, report) = expmv(&CpuBackend::new(), &a, 0.01, &v, &Options::default())?;
//! println!("w[0] = {:.6e}; {report}", w[0]);
//! # assert!(report.converged && report.rel_error_estimate <= report.rtol);
//! # Ok::<(), matexp::Error>(())
//! ```
//!
//! The same on the GPU (feature `gpu`; `tests/gpu_facade.rs` runs it on a GPU host):
//!
//! ```no_run
//! # #[cfg(feature = "gpu")] {
//! use matexp::{Backend, CsrMatrix, GpuBackend, GpuCsr, Options, expmv, read_matrix_market};
//!
//! let a: CsrMatrix<f64> = read_matrix_market("data/heat.mtx")?;
//! let gpu = GpuBackend::new(0)?;
//! let (ag, v) = (GpuCsr::from_csr(&gpu, &a)?, gpu.upload(&vec![1.0; a.nrows()])?);
//! let (w, report) = expmv(&gpu, &ag, 0.01, &v, &Options::default())?;
//! println!("w[0] = {:.6e}; {report}", gpu.to_host(&w)?[0]);
//! # }
//! # Ok::<(), matexp::Error>(())
//! ```
//!
//! `AnyBackend` (feature `gpu`) chooses the CPU or a GPU at run time with host vectors in and out.
//!
//! ## Features
//!
//! | feature | default | brings |
//! |---|---|---|
//! | `sparse` | yes | [`CsrMatrix`], [`PatternCsr`], the MatrixMarket reader ([`read_matrix_market`]) and the test-problem generators ([`sparse`]) |
//! | `gpu` | no | `GpuBackend`, `GpuCsr`, the multi-GPU backend, `Target` and `AnyBackend` (cudarc, loaded at run time: builds on machines without CUDA) |
//! | `graph` | yes | [`graph`]: total communicability ([`total_communicability`]), subgraph centrality and the Estrada index of graphs |
//! | `lapack` | no | LAPACKE and OpenBLAS for Arnoldi's small dense exponentials and the graph module's dense reference (pure Rust without it) |
//!
//! A CPU user of the default features compiles no cudarc and links no LAPACK.
//!
//! ## Accuracy and errors
//!
//! Every method aims at ‖w − f(tA)v‖₂ ≤ atol + rtol·‖f(tA)v‖₂ with estimates, not bounds
//! ([`Report::rel_error_estimate`] next to [`Report::rtol`]); the default tolerance depends on
//! the precision ([`Tolerance::default_rtol`]). Errors are [`Error`] values, never panics:
//! wrong sizes, NaN in the input, a tolerance below roundoff (with the fix in the message), a
//! method that does not apply (Lanczos on a non-Hermitian operator), no convergence within the
//! caps. For the methods themselves, their workspaces and time stepping without allocation,
//! see [`matexp_expmv`] (re-exported as [`methods`]).

#![warn(missing_docs)]

mod method;
mod options;
mod solve;

#[cfg(feature = "gpu")]
mod target;

pub use method::Method;
pub use options::Options;
pub use solve::{expmv, expmv_columns, expmv_times, phi_combination, phimv, phimv_k};

#[cfg(feature = "gpu")]
pub use target::{AnyBackend, Target};

pub use matexp_core::{
    AtTime, Autonomous, Backend, Complex, CpuBackend, DenseMatrixOperator, Error, FusedOperator,
    KrylovBackend, LinearOperator, OperatorSteps, RealScalar, Result, Scalar, Scaled, Shifted,
    ShiftedStep, SpectralBounds, Sum, TimeDependentOperator, c32, c64,
};
pub use matexp_expmv::{
    ArnoldiOptions, BoundsSource, ExpmvMethod, LanczosOptions, LejaOptions, MethodOptions,
    NormBound, Progress, ProgressFn, Report, Shift, TaylorOptions, TimeGrid, Tolerance,
};

/// The methods with reusable workspaces (for time stepping without allocation), their
/// options and the lower-level calls.
pub use matexp_expmv as methods;

#[cfg(feature = "sparse")]
pub use matexp_sparse::{
    CsrIndex, CsrMatrix, PatternCsr,
    matrix_market::{DenseArray, read_dense_file, read_matrix_market, read_pattern_file},
};

/// Graph centrality by the matrix exponential (feature `graph`): total communicability,
/// subgraph centrality, the Estrada index, rankings and the dense reference.
#[cfg(feature = "graph")]
pub use matexp_graph as graph;

#[cfg(feature = "graph")]
pub use matexp_graph::CommunicabilityOptions;
/// Total communicability e^{βA}·1 of a graph (feature `graph`; [`graph`]'s one
/// implementation): `total_communicability(backend, op, beta, &CommunicabilityOptions)`, the
/// scalar taken from β.
///
/// ```
/// use matexp::{CommunicabilityOptions, CpuBackend, PatternCsr, total_communicability};
/// let cpu = CpuBackend::new();
/// // The path graph 1 – 2: e^A·1 = e·1.
/// let g = PatternCsr::<u32>::try_new(2, 2, vec![0, 1, 2], vec![1, 0])?;
/// let (tc, report) = total_communicability(&cpu, &g, 1.0, &CommunicabilityOptions::default())?;
/// assert!((tc[0] - 1f64.exp()).abs() < 1e-12, "{report}");
/// # Ok::<(), matexp::Error>(())
/// ```
#[cfg(feature = "graph")]
pub use matexp_graph::total_communicability;

/// The Estrada index tr e^{βA} of a graph to a requested tolerance (feature `graph`): exact
/// quadrature or Hutch++, whichever meets it ([`Centrality::method`] says which), with its
/// interval; [`graph::subgraph_centrality`] does the same per node.
///
/// ```
/// use matexp::{CentralityOptions, CpuBackend, PatternCsr, Tolerance, estrada_index};
/// // The path graph 1 – 2: tr e^A = 2 cosh 1.
/// let g = PatternCsr::<u32>::try_new(2, 2, vec![0, 1, 2], vec![1, 0])?;
/// let opts = CentralityOptions::default().with_tolerance(Tolerance::relative(1e-10));
/// let ee = estrada_index(&CpuBackend::new(), &g, 1.0, &opts)?;
/// assert!(ee.met && ee.contains(2.0 * 1f64.cosh()));
/// # Ok::<(), matexp::Error>(())
/// ```
#[cfg(feature = "graph")]
pub use matexp_graph::estrada_index;
#[cfg(feature = "graph")]
pub use matexp_graph::{Centrality, CentralityMethod, CentralityOptions};

/// Sparse matrices, MatrixMarket I/O and the test-problem generators (feature `sparse`).
#[cfg(feature = "sparse")]
pub use matexp_sparse as sparse;

#[cfg(feature = "gpu")]
pub use matexp_gpu::{GpuBackend, GpuCsr, GpuPattern, MultiGpuBackend, MultiGpuCsr};

/// The GPU runtime (feature `gpu`).
#[cfg(feature = "gpu")]
pub use matexp_gpu as gpu;
