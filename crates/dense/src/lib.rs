//! Small dense matrices for matexp: the matrix exponential and φ-functions, LU solves,
//! symmetric/Hermitian and tridiagonal eigensolvers.
//!
//! These are the small problems inside the large-scale methods — the tridiagonal
//! eigenproblem of Lanczos, the Hessenberg exponential of Arnoldi — and the dense references
//! the tests compare against.
//!
//! * [`Matrix`]: column-major dense matrix over any [`matexp_core::Scalar`], with
//!   [`gemm`] (OpenBLAS for `f64`/`c64`) and the 1-, ∞-, Frobenius and max norms.
//! * [`expm`]: scaling and squaring with Padé approximants and the backward-error-based
//!   degree/scaling choice of Al-Mohy & Higham (2009).
//! * [`phi_functions`], [`phi_vectors`], [`phi_scalar`]: φ_k(A), φ_k(A)b and φ_k(z).
//! * [`solve`] (LU, `?getrf2`/`?getrs`), [`eigh`] (`dsyevd`/`zheevd`), [`eigh_tridiagonal`]
//!   (`dstevd`).
//!
//! All LAPACK work runs in double precision: `f32`/`c32` inputs are promoted and results
//! rounded back. Errors are typed ([`matexp_core::Error`]): non-square input gives
//! `DimensionMismatch`, NaN/∞ gives `NonFinite`, a LAPACK failure gives `Lapack` with its
//! `info`.
//!
//! Linking: binaries need `liblapacke.so.3` and `libopenblas.so.0` (see `build.rs`;
//! `MATEXP_LAPACK_LIB_DIR` adds a search path).
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

mod blas;
mod expm;
mod lapack;
mod matrix;
mod phi;

pub use blas::gemm;
pub use expm::{ExpmInfo, THETA, expm, expm_with_info};
pub use lapack::{LapackScalar, eigh, eigh_tridiagonal, solve};
pub use matrix::Matrix;
pub use phi::{phi_functions, phi_scalar, phi_vectors};
