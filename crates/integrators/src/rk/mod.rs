//! Explicit Runge–Kutta integrators for linear non-autonomous systems `y' = c·A(t)·y`, written
//! once over [`matexp_core::Backend`] and [`matexp_core::TimeDependentOperator`].
//!
//! The main use is the Schrödinger equation `ψ' = −i·H(t)·ψ` of the time-dependent
//! Bose–Hubbard model (`c = −i`, [`LinearOde::schrodinger`]), integrated as in Dieckmann's
//! thesis (seed 001):
//!
//! * [`Rk4`]: the classic fourth-order method with fixed steps; 4 products per step, global
//!   error `O(h⁴)`, workspace of 3 vectors besides the state.
//! * [`CashKarp`]: the embedded 5(4) pair of Cash and Karp (Numerical Recipes, §16.2) with the
//!   seed's two-rule step control (per-step error and an accumulated-error budget to the final
//!   time, see [`Rk45Options`]); 6 products per attempted step, workspace of 8 vectors;
//!   [`CashKarpLean`], its mode for autonomous systems, with 3 (the stages as powers of `hA`).
//!
//! Both are explicit, so stable only for `h·‖A‖` below a method constant (about 2.8 on the
//! imaginary axis for RK4): they suit moderately stiff problems with time-dependent
//! coefficients. For a time-independent operator, `e^{tA}v` by the `f(tA)v` solvers of this
//! crate (Leja, Lanczos, Taylor) is cheaper and unconditionally accurate; `AtTime` turns a
//! frozen time-dependent operator into the `LinearOperator` they take.
//!
//! ```
//! use matexp_core::{Autonomous, CpuBackend, DenseMatrixOperator, c64};
//! use matexp_integrators::rk::{CashKarp, LinearOde, Rk45Options};
//! // Two-level system H = [[0, 1], [1, 0]]: |ψ(t)⟩ = cos t |0⟩ − i sin t |1⟩.
//! let one = c64::new(1.0, 0.0);
//! let zero = c64::new(0.0, 0.0);
//! let h = Autonomous(DenseMatrixOperator::new(2, 2, vec![zero, one, one, zero])?);
//! let ode = LinearOde::schrodinger(&h)?;
//! let cpu = CpuBackend;
//! let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10))?;
//! let mut psi = vec![one, zero];
//! rk.integrate(&ode, 0.0, 3.0, &mut psi)?;
//! assert!((psi[0] - c64::new(3.0f64.cos(), 0.0)).norm() < 1e-9);
//! assert!((psi[1] - c64::new(0.0, -(3.0f64.sin()))).norm() < 1e-9);
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod cash_karp;
mod rk4;

pub use cash_karp::{CashKarp, CashKarpLean, Rk45Options};
pub use rk4::Rk4;

use matexp_core::{Backend, Error, Result, Scalar, TimeDependentOperator, c64};

/// The linear system `y' = c·A(t)·y` for a time-dependent operator `A` and a constant `c`.
#[derive(Debug, Clone, Copy)]
pub struct LinearOde<'a, Op: ?Sized, S> {
    op: &'a Op,
    factor: S,
}

impl<'a, Op: ?Sized, S: Scalar> LinearOde<'a, Op, S> {
    /// `y' = factor·A(t)·y`.
    pub fn new(op: &'a Op, factor: S) -> Self {
        LinearOde { op, factor }
    }

    /// The Schrödinger equation `ψ' = −i·H(t)·ψ` (`ħ = 1`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a real scalar type.
    pub fn schrodinger(op: &'a Op) -> Result<Self> {
        if !S::IS_COMPLEX {
            return Err(Error::Unsupported(format!(
                "the Schrödinger equation needs a complex scalar, not {}",
                S::NAME
            )));
        }
        Ok(LinearOde {
            op,
            factor: S::from_c64(c64::new(0.0, -1.0)),
        })
    }

    /// The operator `A`.
    pub fn operator(&self) -> &'a Op {
        self.op
    }

    /// The factor `c`.
    pub fn factor(&self) -> S {
        self.factor
    }

    /// `out ← γ·c·A(t)·y + β·out`: one right-hand side, scaled (`out` not read when `β = 0`).
    pub fn eval_scaled<B: Backend>(
        &self,
        backend: &B,
        t: f64,
        gamma: S,
        y: &B::Vector<S>,
        beta: S,
        out: &mut B::Vector<S>,
    ) -> Result<()>
    where
        Op: TimeDependentOperator<B, S>,
    {
        self.op
            .apply_at(backend, t, gamma * self.factor, y, beta, out)
    }

    /// The order of the system.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a non-square operator.
    pub fn order<B: Backend>(&self) -> Result<usize>
    where
        Op: TimeDependentOperator<B, S>,
    {
        matexp_core::check_dim(
            "Runge–Kutta: operator must be square (columns vs rows)",
            self.op.nrows(),
            self.op.ncols(),
        )?;
        Ok(self.op.nrows())
    }
}

/// What an integration did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RkReport {
    /// Accepted steps.
    pub steps: usize,
    /// Rejected (and retried) steps.
    pub rejected: usize,
    /// Operator products `A(t)·y`.
    pub products: usize,
    /// Sum of the per-step error estimates over the accepted steps (embedded methods; 0 for
    /// fixed-step RK4): the seed's "accumulated error".
    pub accumulated_error: f64,
    /// The last step size tried.
    pub last_step: f64,
}

fn check_interval(t0: f64, t1: f64) -> Result<()> {
    if !t0.is_finite() {
        return Err(Error::invalid("t0", t0, "must be finite"));
    }
    if !t1.is_finite() || t1 < t0 {
        return Err(Error::invalid(
            "t1",
            t1,
            format!("must be finite and ≥ t0 = {t0}"),
        ));
    }
    Ok(())
}

fn check_state<B: Backend, S: Scalar>(backend: &B, y: &B::Vector<S>, n: usize) -> Result<()> {
    matexp_core::check_dim("Runge–Kutta: state length", n, backend.len(y))
}

#[cfg(test)]
mod tests;
