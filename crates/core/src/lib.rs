//! Foundations shared by every matexp crate.
//!
//! * [`Scalar`] / [`RealScalar`]: the four scalar types of the library — `f32`, `f64`,
//!   [`c32`] and [`c64`] — with conjugation, moduli and conversions that generic numerical
//!   code needs.
//! * [`Backend`]: the small vector interface (allocate, copy, `axpby`, `dot`, overflow-safe
//!   `nrm2`) every algorithm is written against once, with [`CpuBackend`] (rayon) here and GPU
//!   backends in `matexp-gpu`. A new backend needs only it; the Krylov hooks of
//!   [`KrylovBackend`] are optional speed-ups with BLAS-1 defaults.
//! * [`LinearOperator`]: `y ← α·A·x + β·y`, the one operation the Leja, Krylov and Taylor
//!   methods need from a matrix, with an overridable fused Leja step.
//! * [`Error`]: the typed error every fallible routine returns.
//!
//! ```
//! use matexp_core::{Backend, CpuBackend, c64};
//! let cpu = CpuBackend::new();
//! let x = cpu.upload(&[c64::new(3.0, 0.0), c64::new(0.0, 4.0)])?;
//! assert_eq!(cpu.nrm2(&x)?, 5.0);
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod backend;
mod combinators;
mod cpu;
mod error;
pub mod fused;
pub mod memory;
pub mod norms;
mod operator;
pub mod rng;
mod scalar;
mod time_dependent;

pub use backend::{Backend, check_combination, seeded_unit};
pub use combinators::{Scaled, Shifted, Sum};
pub use cpu::CpuBackend;
pub use error::{Error, Result, check_dim};
pub use fused::{KrylovBackend, LANCZOS_SUMS, LANCZOS_TRUST, OperatorSteps, lanczos_pythagoras};
pub use memory::try_filled;
pub use operator::{
    DenseMatrixOperator, FusedOperator, LinearOperator, ShiftedStep, SpectralBounds,
};
pub use scalar::{RealScalar, Scalar, c32, c64};
pub use time_dependent::{AtTime, Autonomous, TimeDependentOperator};

pub use num_complex::Complex;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
