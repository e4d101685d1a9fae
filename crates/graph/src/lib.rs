//! Graph centrality by the matrix exponential, at scale.
//!
//! For an undirected graph with adjacency matrix A and a parameter β > 0 (the "inverse
//! temperature"; β = 1 in the seed study), e^{βA} = Σ_ℓ β^ℓA^ℓ/ℓ! counts walks of every
//! length, long ones discounted. Three measures follow (Estrada & Higham, SIAM Review 2010;
//! Benzi & Klymko 2013):
//!
//! | measure | definition | here |
//! |---|---|---|
//! | total communicability | TC = e^{βA}·1 | [`total_communicability`]: Lanczos from 1, automatic Krylov dimension, one- or two-pass |
//! | subgraph centrality | SC = diag(e^{βA}) | [`subgraph_centrality`]: to a tolerance, by quadrature or probing; [`subgraph_centrality_quadrature`]: exact per node by Gauss quadrature; [`subgraph_centrality_estimate`]: all nodes by probing, with error bars |
//! | Estrada index | EE = tr e^{βA} | [`estrada_index`]: to a tolerance, by quadrature or Hutch++; [`estrada_index_slq`] (stochastic Lanczos quadrature) and [`estrada_index_hutchpp`] (Hutch++), with confidence intervals |
//!
//! [`subgraph_centrality`] and [`estrada_index`] take [`CentralityOptions`] (a relative
//! tolerance, `with_tolerance` as the facade's options) and return [`Centrality`] values:
//! value, interval, and the method that produced them. Every function takes β as the
//! scalar of the computation (`1.0` is `f64`), so a pattern graph, an operator in every
//! precision, needs no turbofish.
//!
//! plus [`top_k`] rankings and [`DenseCentrality`], the O(n³) dense reference for small
//! graphs (LAPACK's `dsyevd` with the `lapack` feature, the pure-Rust Jacobi method
//! without).
//!
//! Every routine is written once over [`matexp_core::Backend`] and any symmetric
//! [`matexp_core::LinearOperator`]: the pattern-only CSR adjacency of
//! [`matexp_sparse::PatternCsr`] on the CPU (the main case), a GPU pattern operator on a GPU
//! backend, or a matrix-free operator. Large graphs come from
//! [`matexp_sparse::matrix_market`] (a two-pass streaming reader keeps memory at the size of
//! the result) or [`matexp_sparse::generators`] (power-law, road-like and mesh-like graphs of
//! any size).
//!
//! **Overflow.** e^{A}·1 reaches 1.9e195 on com-LiveJournal, and tr e^{A} exceeds the f64
//! range once λ_max > 709. Quadratures are carried as logarithms, stochastic estimates in a
//! common scale e^{ln_scale}, and products e^{βA}z as e^{βσ}·e^{β(A−σI)}z with σ an extreme
//! Ritz value, so results are representable whenever their logarithm is.
//!
//! ```
//! use matexp_core::CpuBackend;
//! use matexp_graph::*;
//! use matexp_sparse::generators::barabasi_albert;
//! let g = barabasi_albert::<u32>(500, 2, 1)?;
//! let cpu = CpuBackend::new();
//! let (tc, _) = total_communicability(&cpu, &g, 1.0, &CommunicabilityOptions::default())?;
//! let top = top_k(&tc, 5)?;
//! let sc = subgraph_centrality_quadrature(&cpu, &g, 1.0, &[top[0].0], &QuadratureOptions::default(), false)?;
//! let ee = estrada_index_hutchpp(&cpu, &g, 1.0, &ProbeOptions::default(), &QuadratureOptions::default())?;
//! let dense = DenseCentrality::new(&g, 1.0)?;
//! assert!((sc[0].value() / dense.subgraph_centrality[top[0].0] - 1.0).abs() < 1e-11);
//! let (lo, hi) = ee.interval();
//! assert!(lo < hi && ee.value() > 0.0);
//! # Ok::<(), matexp_core::Error>(())
//! ```

/// `pub fn with_<field>(mut self, value) -> Self` builders of option structs, one per
/// listed field.
macro_rules! with_setters {
    ($($(#[$doc:meta])* $name:ident => $field:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $field: $ty) -> Self {
                self.$field = $field;
                self
            }
        )*
    };
}

mod centrality;
mod communicability;
mod dense;
mod estimate;
mod gauss;
pub mod probes;
mod quadrature;
mod rank;
pub mod stats;
mod subgraph;
mod trace;

pub use centrality::{
    Centrality, CentralityMethod, CentralityOptions, estrada_index, subgraph_centrality,
};
pub use communicability::{CommunicabilityOptions, total_communicability};
pub use dense::{DenseCentrality, MAX_DENSE_NODES};
pub use estimate::{DiagonalEstimate, MAX_PROBES, ProbeOptions, TraceEstimate};
pub use quadrature::{LanczosQuadrature, QuadraticForm, QuadratureOptions};
pub use rank::top_k;
pub use subgraph::{subgraph_centrality_estimate, subgraph_centrality_quadrature};
pub use trace::{estrada_index_hutchpp, estrada_index_slq};
