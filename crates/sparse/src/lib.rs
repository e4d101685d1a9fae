//! Sparse matrices for matexp: CSR and pattern-only CSR, rayon SpMV, MatrixMarket I/O and the
//! test problems of the seed documents.
//!
//! # Formats
//!
//! * [`CsrMatrix<S, I>`]: compressed sparse row with scalar `S` ∈ {`f32`, `f64`,
//!   [`c32`](matexp_core::c32), [`c64`](matexp_core::c64)} and index `I` ∈ {`u32`
//!   (default), `u64`} ([`CsrIndex`]). `u32` covers every seed problem (≤ 117 M stored
//!   entries) and halves the index traffic; `u64` is for larger ones.
//! * [`PatternCsr<I>`]: the structure alone, for unweighted graphs; as an operator every
//!   stored entry is 1. It saves `nnz·size_of::<S>()` bytes of memory and of traffic per
//!   product (for graphs in `f64`, two thirds of the SpMV bytes).
//!
//! Both are validated on construction (monotone row pointers, columns in range, finite
//! values) and remember whether their rows are *canonical* (strictly increasing columns).
//! Conversions: [`CsrMatrix::to_sprs`] / [`CsrMatrix::from_sprs`] for [`sprs`],
//! [`CsrMatrix::cast`] between scalar types, `with_index` between index types.
//!
//! # Operators
//!
//! Both formats implement [`matexp_core::LinearOperator`] on the [`matexp_core::CpuBackend`]
//! (see [`operator`] for the memory model): `y ← αAx + βy` over rayon row chunks balanced
//! by stored entries, `y` never read when β = 0; [`matexp_core::FusedOperator::shifted_step`] fused into
//! one pass with an overflow-safe norm; Gershgorin [`SpectralBounds`] (a real interval for
//! Hermitian matrices) and Hermitian-ness computed once and cached.
//!
//! | operation | cost |
//! |---|---|
//! | SpMV, fused Leja step | O(nnz + n), parallel, memory-bound |
//! | construction checks, Gershgorin | O(nnz + n), parallel |
//! | Hermitian / symmetric check | O(nnz log d) binary searches in sorted rows, parallel |
//! | transpose | O(nnz + n), serial counting sort |
//! | canonicalize, triplets → CSR | O(nnz log d), rows sorted in parallel |
//!
//! **Accuracy.** Each entry of `A·x` is a left-to-right sum in precision `S`; results do not
//! depend on the thread count. Norms are accumulated in `f64`.
//!
//! # MatrixMarket and generators
//!
//! [`matrix_market`] reads every combination of the format (streaming, with errors naming the
//! line) and writes files that read back bit-identically. [`generators`] builds the seed
//! problems (spin bath, Dirichlet Laplacians, Barabási–Albert and other graphs, a road-like
//! network) deterministically from a seed; [`fixtures`] holds seed 002's example graphs.
//!
//! ```
//! use matexp_core::{CpuBackend, LinearOperator, c64};
//! use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d};
//!
//! // Seed 000's heat problem: the 7-point Laplacian, spectrum inside [−12(N+1)², 0].
//! let a = laplacian_3d::<f64, u32>(16)?;
//! let bounds = a.spectral_bounds().unwrap();
//! assert_eq!((bounds.re_min, bounds.re_max), (-12.0 * 289.0, 0.0));
//! let x = vec![1.0; a.ncols()];
//! let mut y = vec![0.0; a.nrows()];
//! a.apply(&CpuBackend, 1.0, &x, 0.0, &mut y)?;
//! assert_eq!(y[17 + 16 * 17], 0.0); // interior rows of A·1 vanish
//!
//! // Seed 000's spin bath, stored like the seed: (2L − 2)·2^L entries.
//! let h = SpinBath::seed000(12, 1)?.hamiltonian::<c64, u32>(StoredZeros::Keep)?;
//! assert_eq!(h.nnz(), 22 << 12);
//! assert!(h.is_hermitian());
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod csr;
pub mod fixtures;
pub mod generators;
mod gershgorin;
mod index;
pub mod matrix_market;
pub mod mixed;
pub mod operator;
mod parallel;
mod pattern;
mod raw;
mod sprs_interop;
mod view;

pub use csr::CsrMatrix;
pub use gershgorin::{gershgorin_box, hermitian_part_bounds};
pub use index::CsrIndex;
pub use pattern::PatternCsr;
pub use raw::validate as validate_csr;
pub use view::CsrView;

#[cfg(doc)]
use matexp_core::{LinearOperator, SpectralBounds};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
