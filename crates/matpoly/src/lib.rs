//! Dense matrix polynomials and the matrix exponential, on the CPU and on cuBLAS, split over
//! several devices (seed 004: Alonso, Boratto, Peinado, Ibáñez & Sastre, *On the evaluation
//! of matrix polynomials using several GPGPUs*, 2014).
//!
//! * [`DenseBackend`]: the operations the schemes need (gemm, axpy, add a multiple of the
//!   identity, a one-pass linear combination `α₀I + Σ c_k M_k`, scale/zero/copy, 1-norm).
//!   [`CpuDense`] runs them on the host (OpenBLAS with the `lapack` feature, else
//!   `matrixmultiply`; rayon for the rest); `CublasDense` (feature `gpu`) on one GPU
//!   through cuBLAS and this crate's kernels.
//! * [`Evaluator`]: `P(X) = Σ α_i X^i` by [`Scheme::Powers`] (the seed's Alg. 1),
//!   [`Scheme::Horner`] or [`Scheme::PatersonStockmeyer`] (Alg. 4–6 with the errata of the
//!   notes), product counts by [`Scheme::products`]; the degree-8 Taylor polynomial of `exp`
//!   in 3 products and the degree-18 one in 5 (Sastre-type, [`Evaluator::taylor8_into`],
//!   [`Evaluator::taylor18_into`]; [`taylor8`], [`taylor18`] for the formulas);
//!   the exponential [`Evaluator::expm_into`] by Taylor with scaling and squaring and a
//!   backward-error degree choice ([`expm`] for the method and its sources, [`normest`] for
//!   the norm estimates); [`Evaluator::phi_functions`]. Workspaces live in the evaluator and are
//!   reused across calls.
//! * [`split`]: several devices, one host thread each — the seed's power split (Alg. 2/3)
//!   and column split (Alg. 7/8) for any number of devices.
//!
//! | scheme, degree `d` | matrix products |
//! | --- | --- |
//! | powers, Horner | `d − 1` |
//! | Paterson–Stockmeyer, block `b` | `min(d, b+1) − 1 + ⌈(d−b−1)/(b+1)⌉₊` (≈ `2√d`) |
//! | `T₈` (Sastre) | 3 (Paterson–Stockmeyer: 4) |
//! | `T₁₈` (Bader–Blanes–Casas) | 5 (Paterson–Stockmeyer: 7) |
//!
//! ```
//! use matexp_matpoly::{CpuDense, Evaluator, Scheme};
//! use matexp_dense::Matrix;
//! let x = Matrix::<f64>::from_fn(6, 6, |i, j| ((i * 7 + j * 3) % 5) as f64 / 10.0 - 0.2);
//! let alpha: Vec<f64> = (0..=12).map(|i| 1.0 / (1.0 + i as f64)).collect();
//! let mut ev = Evaluator::new(CpuDense::new());
//! let h = ev.polyval(&x, &alpha, Scheme::Horner)?;
//! let p = ev.polyval(&x, &alpha, Scheme::paterson_stockmeyer(12))?;
//! let mut d = p.clone();
//! d.add_scaled(-1.0, &h)?;
//! assert!(d.norm_one() <= 1e-14 * h.norm_one());
//! # Ok::<(), matexp_core::Error>(())
//! ```
//!
//! Errors are [`matexp_core::Error`]: shapes (`DimensionMismatch`), empty or non-finite
//! coefficients, NaN input or an overflowing exponential (`NonFinite`), device failures
//! (`Device`).

mod backend;
mod core;
mod cpu;
mod evaluator;
pub mod expm;
pub mod normest;
mod scheme;
pub mod split;
pub mod taylor18;
pub mod taylor8;

#[cfg(feature = "gpu")]
mod gpu;

pub use backend::{Counting, DenseBackend};
pub use cpu::{CpuDense, gemm, gemm_threads};
pub use evaluator::Evaluator;
pub use expm::{ExpmReport, THETA, TaylorEvaluation};
pub use scheme::{Scheme, TAYLOR8_PRODUCTS, optimal_block};

#[cfg(feature = "gpu")]
pub use gpu::{CublasDense, GpuMatrix, GpuScalar};
