//! The classic fourth-order Runge–Kutta method with fixed steps.

use super::{LinearOde, RkReport, check_interval, check_state};
use matexp_core::{Backend, Error, Result, Scalar, TimeDependentOperator};

/// Classic RK4 (tableau 0, ½, ½, 1; weights 1/6, 1/3, 1/3, 1/6) with a fixed step.
///
/// One step costs 4 products and 7 vector updates; the stage vector is formed by the product
/// itself (`tmp ← y; tmp ← (h/2)·c·A·k + tmp` is one operator call with `β = 1`), so the
/// workspace is 3 vectors (`acc`, `tmp`, `k`). Global error `O(h⁴)`; for
/// `ψ' = −iHψ` stable while `h·‖H‖ < 2√2`.
///
/// ```
/// use matexp_core::{Autonomous, CpuBackend, DenseMatrixOperator};
/// use matexp_integrators::rk::{LinearOde, Rk4};
/// // y' = −y: y(1) = e^{−1}.
/// let a = Autonomous(DenseMatrixOperator::new(1, 1, vec![-1.0f64])?);
/// let cpu = CpuBackend;
/// let mut rk = Rk4::new(&cpu, 1)?;
/// let mut y = vec![1.0];
/// rk.integrate(&LinearOde::new(&a, 1.0), 0.0, 1.0, 100, &mut y)?;
/// assert!((y[0] - (-1.0f64).exp()).abs() < 1e-9);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Rk4<'b, B: Backend, S: Scalar> {
    backend: &'b B,
    n: usize,
    acc: B::Vector<S>,
    tmp: B::Vector<S>,
    k: B::Vector<S>,
}

impl<'b, B: Backend, S: Scalar> Rk4<'b, B, S> {
    /// A workspace for systems of order `n`.
    ///
    /// # Errors
    /// Allocation failures of the backend.
    pub fn new(backend: &'b B, n: usize) -> Result<Self> {
        Ok(Rk4 {
            backend,
            n,
            acc: backend.zeros(n)?,
            tmp: backend.zeros(n)?,
            k: backend.zeros(n)?,
        })
    }

    /// One step from `t` to `t + h`, in place.
    ///
    /// # Errors
    /// Dimension errors, and those of the operator.
    pub fn step<Op>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        t: f64,
        h: f64,
        y: &mut B::Vector<S>,
    ) -> Result<()>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
    {
        check_state(self.backend, y, self.n)?;
        let b = self.backend;
        let (one, zero) = (S::one(), S::zero());
        let half = S::from_f64(0.5 * h);
        let full = S::from_f64(h);
        let sixth = S::from_f64(h / 6.0);
        let third = S::from_f64(h / 3.0);
        // k1 = f(t, y); acc = y + h/6·k1; tmp = y + h/2·k1
        ode.eval_scaled(b, t, one, y, zero, &mut self.k)?;
        b.copy(y, &mut self.acc)?;
        b.axpby(sixth, &self.k, one, &mut self.acc)?;
        b.copy(y, &mut self.tmp)?;
        b.axpby(half, &self.k, one, &mut self.tmp)?;
        // k2 = f(t + h/2, tmp); acc += h/3·k2; tmp = y + h/2·k2
        ode.eval_scaled(b, t + 0.5 * h, one, &self.tmp, zero, &mut self.k)?;
        b.axpby(third, &self.k, one, &mut self.acc)?;
        b.copy(y, &mut self.tmp)?;
        b.axpby(half, &self.k, one, &mut self.tmp)?;
        // k3 = f(t + h/2, tmp); acc += h/3·k3; tmp = y + h·k3
        ode.eval_scaled(b, t + 0.5 * h, one, &self.tmp, zero, &mut self.k)?;
        b.axpby(third, &self.k, one, &mut self.acc)?;
        b.copy(y, &mut self.tmp)?;
        b.axpby(full, &self.k, one, &mut self.tmp)?;
        // k4 = f(t + h, tmp); y = acc + h/6·k4 (formed in acc, then swapped in)
        ode.eval_scaled(b, t + h, sixth, &self.tmp, one, &mut self.acc)?;
        std::mem::swap(y, &mut self.acc);
        Ok(())
    }

    /// `steps` equal steps from `t0` to `t1`, in place.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad interval or `steps = 0` with `t1 > t0`; those of
    /// [`Rk4::step`].
    pub fn integrate<Op>(
        &mut self,
        ode: &LinearOde<'_, Op, S>,
        t0: f64,
        t1: f64,
        steps: usize,
        y: &mut B::Vector<S>,
    ) -> Result<RkReport>
    where
        Op: TimeDependentOperator<B, S> + ?Sized,
    {
        check_interval(t0, t1)?;
        check_state(self.backend, y, ode.order::<B>()?)?;
        if steps == 0 && t1 > t0 {
            return Err(Error::invalid(
                "steps",
                0,
                "at least one step is needed when t1 > t0",
            ));
        }
        let h = if steps == 0 {
            0.0
        } else {
            (t1 - t0) / steps as f64
        };
        for s in 0..steps {
            self.step(ode, t0 + s as f64 * h, h, y)?;
        }
        Ok(RkReport {
            steps,
            rejected: 0,
            products: 4 * steps,
            accumulated_error: 0.0,
            last_step: h,
        })
    }
}
