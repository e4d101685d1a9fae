//! Matrix-free finite-difference stencils on `[0, 1]^d` (seed 003, and seed 000's Laplace
//! problems): the 2D 5-point and 3D 7-point Laplacians with homogeneous and inhomogeneous
//! Dirichlet, homogeneous Neumann and periodic boundaries and the seed's "no boundary"
//! frame; a position-dependent coefficient `D(x)·Δu`; pointwise nonlinearities; and a
//! z-split of the domain with halo exchange for several devices.
//!
//! * [`Grid`], [`Dim`], [`Boundary`]: the grid and what its boundary means (spacing, point
//!   coordinates; Neumann is the mass-conserving cell-centred scheme).
//! * [`Stencil`]: the operator, a [`matexp_core::LinearOperator`] on the CPU backend
//!   (`y ← αAx + βy`, the one-pass `(αA + βI)x` and fused shifted step), with exact
//!   spectral bounds, its affine term `b` for inhomogeneous Dirichlet data, and (feature
//!   `csr`, on by default) its assembled CSR matrix.
//! * [`nonlinear`]: the combustion source and user pointwise functions.
//! * [`partition`]: the domain split along z into any number of parts, with halos packed
//!   into one buffer per neighbour.
//!
//! The GPU operator (feature `gpu`) runs the same operator with kernels of this crate loaded
//! through `matexp-gpu`'s kernel API.
//!
//! ```
//! use matexp_core::{CpuBackend, LinearOperator};
//! use matexp_stencil::{Boundary, BoundaryFunction, Dim, Stencil};
//! // u' = Δu on the unit cube with u = z(1−z)xy on the boundary: u' = A u + b.
//! let a = Stencil::<f64>::builder(Dim::Three, 8)
//!     .boundary(Boundary::Dirichlet)
//!     .boundary_values(BoundaryFunction::Polynomial)
//!     .build()?;
//! let u = vec![0.0; a.grid().len()];
//! let mut rhs = vec![0.0; u.len()];
//! a.apply_affine(1.0, &u, 0.0, &mut rhs)?; // A·0 + b = b
//! assert_eq!(rhs.as_slice(), a.affine_term().unwrap());
//! assert!(a.is_hermitian());
//! # Ok::<(), matexp_core::Error>(())
//! ```

#[cfg(feature = "csr")]
mod assemble;
#[cfg(feature = "gpu")]
pub mod gpu;
mod grid;
mod kernel;
pub mod nonlinear;
pub mod partition;
pub mod spectrum;
mod stencil;
mod terms;

pub use grid::{Boundary, Dim, Grid};
pub use kernel::laplacian_row;
pub use nonlinear::Pointwise;
pub use stencil::{Stencil, StencilBuilder};
pub use terms::{BoundaryFunction, Coefficient, PointFn};
