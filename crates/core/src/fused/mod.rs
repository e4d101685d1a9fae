//! Optional speed-ups over the base traits.
//!
//! A new backend needs only the vector interface ([`crate::Backend`]) and a new operator only
//! [`crate::LinearOperator::apply`]; what lives here is what a fast implementation overrides.
//!
//! * [`krylov`]: [`KrylovBackend`], the Krylov hooks of a backend (Lanczos' steps with their
//!   coefficients kept where the vectors live), defaulting to the BLAS-1 sequences of
//!   [`crate::Backend`].
//! * [`operator`]: [`OperatorSteps`], the fused passes of any operator (the Lanczos product
//!   with its sums, the deferred Lanczos step, Leja's shifted step): the operator's
//!   [`crate::FusedOperator`] override, reached through [`crate::LinearOperator::fused`], or
//!   the BLAS-1 sequences for operators without one. (`FusedOperator` lives beside
//!   `LinearOperator`, which names it.)

pub mod krylov;
pub mod operator;

pub use krylov::{KrylovBackend, LANCZOS_SUMS, LANCZOS_TRUST, lanczos_pythagoras};
pub use operator::OperatorSteps;
