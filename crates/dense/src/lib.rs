//! Small dense matrices for matexp: the matrix exponential and φ-functions, LU solves,
//! symmetric/Hermitian and tridiagonal eigensolvers.
//!
//! These are the small problems inside the large-scale methods — the Hessenberg exponential
//! of Arnoldi, the Padé solves of Taylor — and the dense references the tests compare
//! against.
//!
//! * [`Matrix`]: column-major dense matrix over any [`matexp_core::Scalar`], with
//!   [`gemm`] and the 1-, ∞-, Frobenius and max norms.
//! * [`expm`]: scaling and squaring with Padé approximants and the backward-error-based
//!   degree/scaling choice of Al-Mohy & Higham (2009).
//! * [`phi_functions`], [`phi_vectors`], [`phi_scalar`]: φ_k(A), φ_k(A)b and φ_k(z).
//! * [`solve`] (LU with partial pivoting), [`eigh`] (symmetric/Hermitian),
//!   [`eigh_tridiagonal`].
//! * The symmetric tridiagonal eigensolver of the workspace, implicit QL in pure Rust (the
//!   Lanczos back end of every method and estimator): [`symmetric_tridiagonal_eigen`],
//!   [`symmetric_tridiagonal_eigenvalues`], [`symmetric_tridiagonal_last_components`];
//!   [`symmetric_tridiagonal_rotations`] keeps the eigenvectors as QL's plane rotations,
//!   `O(n²)` for `f(T)·b` where the eigenvector matrix costs `O(n³)`
//!   ([`symmetric_tridiagonal_rotations_unrefined`]: without the bisection refinement of
//!   the eigenvalues, for `f` that cannot see errors of some tens of `ε·‖T‖`);
//!   [`symmetric_tridiagonal_extreme_eigenvalues`] brackets λ_min and λ_max by bisection in
//!   `O(n)` per Sturm count, no decomposition.
//!
//! All kernels run in double precision: `f32`/`c32` inputs are promoted and results rounded
//! back.
//!
//! # Pure Rust, or LAPACK by feature
//!
//! By default the crate is pure Rust and links nothing: LU with partial pivoting, the cyclic
//! Jacobi eigensolver and loop GEMM, which are accurate to the same order as LAPACK's and
//! fast enough for the small matrices of the Krylov methods (order ≲ 100). The `lapack`
//! feature switches [`solve`] (and with it [`expm`]) to `?getrf2`/`?getrs`, [`eigh`] to
//! `dsyevd`/`zheevd` and [`gemm`] to OpenBLAS's threaded
//! `cblas_?gemm`, for large dense problems; binaries then need `liblapacke.so.3` and
//! `libopenblas.so.0` (see `build.rs`; `MATEXP_LAPACK_LIB_DIR` adds a search path). The
//! results agree to rounding; the API is the same.
//!
//! # Errors
//!
//! Every fallible function returns [`matexp_core::Error`]: non-square input gives
//! `DimensionMismatch`, NaN/∞ gives `NonFinite`, a singular matrix or a LAPACK failure gives
//! `Lapack` with LAPACK's `info`.
//!
//! ```
//! use matexp_dense::{Matrix, expm, eigh};
//! // e^A for symmetric A agrees with V·e^Λ·Vᵀ.
//! let a = Matrix::<f64>::from_row_major(3, 3, &[-2.0, 1.0, 0.0, 1.0, -2.0, 1.0, 0.0, 1.0, -2.0])?;
//! let e = expm(&a)?;
//! let (lambda, v) = eigh(&a)?;
//! let el = Matrix::from_diagonal(&lambda.iter().map(|l| l.exp()).collect::<Vec<_>>());
//! let r = v.matmul(&el)?.matmul(&v.transpose())?;
//! let mut d = e.clone();
//! d.add_scaled(-1.0, &r)?;
//! assert!(d.norm_one() < 1e-15 * e.norm_one() * 10.0);
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod blas;
mod eigen;
mod expm;
#[cfg(not(feature = "lapack"))]
mod jacobi;
#[cfg(feature = "lapack")]
mod lapack;
mod lu;
mod matrix;
mod phi;
mod tridiagonal;
mod wide;

pub use blas::gemm;
pub use eigen::{eigh, eigh_tridiagonal};
pub use expm::{ExpmInfo, THETA, expm, expm_with_info};
pub use lu::solve;
pub use matrix::Matrix;
pub use phi::{phi_functions, phi_scalar, phi_vectors};
pub use tridiagonal::{
    RotationScalar, SymmetricTridiagonalEigen, SymmetricTridiagonalRotations,
    symmetric_tridiagonal_eigen, symmetric_tridiagonal_eigenvalues,
    symmetric_tridiagonal_extreme_eigenvalues, symmetric_tridiagonal_last_components,
    symmetric_tridiagonal_rotations, symmetric_tridiagonal_rotations_unrefined,
};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
