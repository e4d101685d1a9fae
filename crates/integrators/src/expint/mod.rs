//! Exponential integrators for semilinear problems `u' = F(t, u) = A u + g(t, u)`.
//!
//! `A` is any [`LinearOperator`](matexp_core::LinearOperator) (stiff: a discrete Laplacian,
//! a stencil), `g` a [`Nonlinearity`] evaluated on the same backend (an affine problem has
//! `g(t, u) = b`). Each step evaluates linear combinations of φ-functions,
//! `Σ_k (c h)^k φ_k(c h M) b_k` with `M = A` or the Jacobian `J = A + ∂g/∂u`, in **one
//! solver call per stage** (several nodes `c` of one stage share the call), by Leja
//! interpolation or the Arnoldi process ([`PhiMethod`]); the integrators are written over
//! [`matexp_core::Backend`] and so run on the CPU and on GPUs.
//!
//! | scheme | order | embedded | φ-calls per step (+ estimate) | needs |
//! |---|---|---|---|---|
//! | [`Scheme::ExponentialEuler`] | 1 | – | 1 | `A`, `g` |
//! | [`Scheme::RosenbrockEuler`] | 2 | – | 1 | `J` |
//! | [`Scheme::Exprb32`] | 3 | 2 | 2 (+0) | `J` |
//! | [`Scheme::Exprb43`] | 4 | 3 | 3 (+1) | `J` |
//! | [`Scheme::Epirk4s3`] | 4 | 3 | 2 (+1) | `J` |
//!
//! The orders are stiff orders (they hold uniformly in ‖hA‖, see [`Scheme`] for sources);
//! the tests measure them on a manufactured semilinear heat problem (log–log slopes within
//! 0.2 of the table). The Jacobian action is the user's
//! ([`Nonlinearity::jacobian_apply`]) or a directional difference; `∂g/∂t` likewise.
//!
//! **Step control** ([`Stepping::Adaptive`]): the embedded estimate `est` of each step is
//! measured as `‖est‖₂ / (atol + rtol·max(‖u_n‖₂, ‖u_{n+1}‖₂))`; a step with ratio ≤ 1 is
//! accepted and the next step is chosen by the PI [`Controller`]. A φ-solve that does not
//! converge within its caps counts as a rejection and shortens the step. The φ-tolerance
//! defaults to a tenth of the step tolerance.
//!
//! **Cost.** Each φ-call costs what the solver needs for the operator `hJ` (Leja:
//! about `√(h‖J‖)` to `h‖J‖` products, with substeps); a difference Jacobian adds one
//! evaluation of `g` per product.
//!
//! ```
//! use matexp_core::{Backend, CpuBackend, DenseMatrixOperator, Result};
//! use matexp_expmv::Tolerance;
//! use matexp_integrators::expint::{ExpIntOptions, ExpIntegrator, Nonlinearity, Scheme, Stepping};
//! // u' = A u + b with A = diag(−1, −4), b = (1, 1), u(0) = 0: u_i(t) = (1 − e^{λ_i t})/(−λ_i).
//! struct Source;
//! impl Nonlinearity<CpuBackend, f64> for Source {
//!     fn eval(&self, _: &CpuBackend, _t: f64, _u: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
//!         out.fill(1.0);
//!         Ok(())
//!     }
//!     fn is_autonomous(&self) -> bool { true }
//! }
//! let cpu = CpuBackend::new();
//! let a = DenseMatrixOperator::new(2, 2, vec![-1.0, 0.0, 0.0, -4.0])?;
//! let opts = ExpIntOptions {
//!     scheme: Scheme::ExponentialEuler,
//!     stepping: Stepping::Fixed { steps: 1 },
//!     tol: Tolerance::relative(1e-10),
//!     ..Default::default()
//! };
//! let mut integ = ExpIntegrator::new(&cpu, 2, opts)?;
//! let mut u = vec![0.0, 0.0];
//! integ.integrate(&a, &Source, 0.0, 2.0, &mut u)?;
//! // Exponential Euler is exact for a constant g.
//! assert!((u[0] - (1.0 - (-2.0f64).exp())).abs() < 1e-9);
//! assert!((u[1] - (1.0 - (-8.0f64).exp()) / 4.0).abs() < 1e-9);
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod control;
mod integrator;
mod phi;
mod problem;
mod scheme;

pub use control::{Controller, ExpIntOptions, ExpIntReport, Stepping};
pub use integrator::{ExpIntegrator, StepOutcome};
pub use phi::PhiMethod;
pub use problem::Nonlinearity;
pub use scheme::Scheme;
