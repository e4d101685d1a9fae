//! Optional speed-ups over the base traits.
//!
//! A new backend needs only the vector interface ([`crate::Backend`]) and a new operator only
//! [`crate::LinearOperator::apply`]; what lives here is what a fast implementation overrides.
//!
//! * [`krylov`]: [`KrylovBackend`], the Krylov hooks of a backend (Lanczos' steps with their
//!   coefficients kept where the vectors live), defaulting to the BLAS-1 sequences of
//!   [`crate::Backend`].

pub mod krylov;

pub use krylov::{KrylovBackend, LANCZOS_SUMS, LANCZOS_TRUST, lanczos_pythagoras};
