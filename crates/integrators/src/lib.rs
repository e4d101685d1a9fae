//! Time integrators on top of the `f(tA)v` methods of [`matexp_expmv`]: exponential
//! integrators for semilinear problems `u' = A u + g(t, u)` ([`expint`]: exponential Euler,
//! exponential Rosenbrock, EPIRK), Magnus integrators for `ψ' = −iH(t)ψ` ([`magnus`]) and
//! explicit Runge–Kutta methods for linear non-autonomous systems ([`rk`]: RK4, Cash–Karp
//! RK45). Like the methods below them they are written once against
//! [`matexp_core::Backend`] and [`matexp_core::LinearOperator`] (or
//! [`matexp_core::TimeDependentOperator`]), so they run on every backend and scalar type.
//!
//! **Layer.** Above `matexp-expmv` (whose Leja, Arnoldi and Lanczos methods evaluate the
//! φ-combinations and exponentials of the steps) and `matexp-core`; next to `matexp-graph`,
//! below the `matexp` facade. It depends on no sparse-matrix or GPU crate: those supply
//! operators and backends.
//!
//! The tolerances in the integrators' options ([`Tolerance`](matexp_expmv::Tolerance)) are
//! `matexp-expmv`'s; [`expmv`] re-exports that crate for users who depend on this one alone.

#![warn(missing_docs)]

pub mod expint;
pub mod magnus;
pub mod rk;

/// The `f(tA)v` methods, their options and reports (the crate `matexp-expmv`), for users of
/// the integrators who do not depend on it directly.
pub use matexp_expmv as expmv;
