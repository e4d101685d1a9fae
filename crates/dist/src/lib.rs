//! The distributed engine of matexp: every f(tA)v method, exponential integrator and graph
//! measure of the workspace, unchanged, on vectors split across ranks.
//!
//! * [`comm`]: the [`comm::Communicator`] interface, its in-process implementation
//!   ([`comm::ThreadComm`], ranks as threads: what plain `cargo test` runs) and, with the
//!   feature `mpi`, `MpiComm` over rsmpi (the world, a split, or a raw C handle such as
//!   mpi4py's).
//! * [`DistBackend`]: a [`matexp_core::Backend`] over any local backend (the CPU, or one GPU
//!   per rank): vectors of the layout's length in row blocks ([`RowLayout`]), reductions
//!   combined across ranks in rank order (identical on every rank, reproducible).
//! * [`DistCsr`]: a CSR matrix in row blocks balanced by stored entries, with a ghost plan
//!   built once from the column indices and the halo exchange overlapped with the interior
//!   rows; built from this rank's rows, from a matrix every rank holds, scattered from a
//!   root rank, or read from a MatrixMarket file.
//! * [`DistStencil`]: a `matexp_stencil` operator (2D or 3D, every boundary kind, any
//!   coefficient, the affine term of Dirichlet data) on slabs of z-planes (y-lines in 2D)
//!   with halo planes, matrix-free; the product is bit-identical to the stencil's.
//! * [`DistFock`]: the Bose–Hubbard Hamiltonian of `matexp_fock` in row blocks of its Fock
//!   basis, matrix-free, the remote indices of each rank's hops gathered once into a ghost
//!   plan; the product is bit-identical to the single-process one.
//! * [`plan()`]: each rank's predicted peak host memory for a method on an operator (the
//!   vector count of `matexp_expmv::plan` on the rank's rows, plus the operator's local
//!   storage and halo buffers, [`LocalStorage`]), refused on every rank with
//!   `Error::OutOfMemoryBudget` when any rank's plan exceeds the budget.
//!
//! The solvers do not know they are distributed: the same `matexp::expmv(&backend, &op, t,
//! &v, &opts)` runs on one process or many.
//!
//! **Not yet here** (issue 32 continues): GPU ranks (NCCL or host staging) and device memory
//! in the planner, an exchange in chunks for halos larger than a block, the spin-chain (XXZ)
//! operator in row blocks and the `mpirun` front door of the CLI.
//!
//! ```
//! use std::sync::Arc;
//! use matexp_core::{Backend, CpuBackend};
//! use matexp_dist::{DistBackend, DistCsr, comm::run_ranks};
//! use matexp_sparse::generators::laplacian_1d;
//!
//! let a = laplacian_1d::<f64, u32>(40)?;
//! let v: Vec<f64> = (0..40).map(|i| (i as f64 * 0.3).sin()).collect();
//! let (w1, _) = matexp::expmv(&CpuBackend, &a, 1e-3, &v, &matexp::Options::default())?;
//! let ws = run_ranks(3, |comm| {
//!     let comm = Arc::new(comm);
//!     let op = DistCsr::from_global(comm.clone(), &a).unwrap();
//!     let dist = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
//!     let (w, _) = matexp::expmv(&dist, &op, 1e-3, &dist.upload(&v).unwrap(),
//!                                &matexp::Options::default()).unwrap();
//!     dist.to_host(&w).unwrap()
//! });
//! for w in ws {
//!     let err = w.iter().zip(&w1).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
//!     assert!(err < 1e-13);
//! }
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod backend;
pub mod comm;
mod csr;
mod fock;
mod halo;
mod layout;
pub mod plan;
mod stencil;
pub mod wire;

pub use backend::{DistBackend, DistVector};
pub use csr::{DistCsr, GhostPlan};
pub use fock::DistFock;
pub use layout::RowLayout;
pub use plan::{LocalStorage, plan};
pub use stencil::DistStencil;
