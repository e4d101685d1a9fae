//! Time-dependent operators `A(t)`: the interface of Magnus, Runge–Kutta and exponential
//! integrators for non-autonomous problems such as `ψ' = −iH(t)ψ`.
//!
//! The host evaluates the time-dependent coefficients (hopping J(t), fields, potentials) once
//! per product and hands them to the kernel, so a product at time `t` costs what a product of
//! the frozen operator costs. [`AtTime`] freezes an operator at one time and is then an
//! ordinary [`LinearOperator`], so every `f(tA)v` solver applies to `A(t*)` (the exponential
//! midpoint rule is `e^{h·A(t + h/2)}`); [`Autonomous`] lifts a constant operator.

use crate::{Backend, LinearOperator, Result, Scalar, SpectralBounds};

/// An operator whose entries depend on a real time `t`: `y ← α·A(t)·x + β·y`.
pub trait TimeDependentOperator<B: Backend, S: Scalar>: Send + Sync {
    /// Number of rows (the same at every time).
    fn nrows(&self) -> usize;
    /// Number of columns (the same at every time).
    fn ncols(&self) -> usize;

    /// `y ← α·A(t)·x + β·y` (y is not read when β = 0).
    ///
    /// # Errors
    /// Dimension errors of the underlying product, and [`crate::Error::NonFinite`] where the
    /// coefficients at `t` are not finite.
    fn apply_at(
        &self,
        backend: &B,
        t: f64,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()>;

    /// Bounds on the spectrum of `A(t)` if known cheaply.
    fn spectral_bounds_at(&self, _t: f64) -> Option<SpectralBounds> {
        None
    }

    /// An upper bound on ‖A(t)‖₂ if known cheaply.
    fn norm_bound_at(&self, _t: f64) -> Option<f64> {
        None
    }

    /// Whether `A(t)` is Hermitian at every `t`.
    fn is_hermitian(&self) -> bool {
        false
    }
}

/// `A(t*)` for one fixed time: an ordinary [`LinearOperator`].
#[derive(Debug)]
pub struct AtTime<'a, Op: ?Sized> {
    op: &'a Op,
    t: f64,
}

impl<'a, Op: ?Sized> AtTime<'a, Op> {
    /// The operator frozen at `t`.
    pub fn new(op: &'a Op, t: f64) -> Self {
        AtTime { op, t }
    }

    /// The time it is frozen at.
    pub fn time(&self) -> f64 {
        self.t
    }
}

impl<B: Backend, S: Scalar, Op: TimeDependentOperator<B, S> + ?Sized> LinearOperator<B, S>
    for AtTime<'_, Op>
{
    fn nrows(&self) -> usize {
        self.op.nrows()
    }
    fn ncols(&self) -> usize {
        self.op.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.op.apply_at(backend, self.t, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.op.spectral_bounds_at(self.t)
    }
    fn norm_bound(&self) -> Option<f64> {
        self.op.norm_bound_at(self.t)
    }
    fn is_hermitian(&self) -> bool {
        self.op.is_hermitian()
    }
}

/// A constant operator seen as a time-dependent one.
#[derive(Debug, Clone)]
pub struct Autonomous<Op>(pub Op);

impl<B: Backend, S: Scalar, Op: LinearOperator<B, S>> TimeDependentOperator<B, S>
    for Autonomous<Op>
{
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply_at(
        &self,
        backend: &B,
        _t: f64,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.0.apply(backend, alpha, x, beta, y)
    }
    fn spectral_bounds_at(&self, _t: f64) -> Option<SpectralBounds> {
        self.0.spectral_bounds()
    }
    fn norm_bound_at(&self, _t: f64) -> Option<f64> {
        self.0.norm_bound()
    }
    fn is_hermitian(&self) -> bool {
        self.0.is_hermitian()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CpuBackend, Error, check_dim};

    /// A(t) = diag(1, t): the simplest non-autonomous operator.
    struct Ramp;
    impl TimeDependentOperator<CpuBackend, f64> for Ramp {
        fn nrows(&self) -> usize {
            2
        }
        fn ncols(&self) -> usize {
            2
        }
        fn apply_at(
            &self,
            _: &CpuBackend,
            t: f64,
            alpha: f64,
            x: &Vec<f64>,
            beta: f64,
            y: &mut Vec<f64>,
        ) -> Result<()> {
            check_dim("Ramp: x length", 2, x.len())?;
            if !t.is_finite() {
                return Err(Error::invalid("t", t, "must be finite"));
            }
            let d = [1.0, t];
            for i in 0..2 {
                y[i] = alpha * d[i] * x[i] + if beta == 0.0 { 0.0 } else { beta * y[i] };
            }
            Ok(())
        }
    }

    #[test]
    fn frozen_operator_applies_the_coefficients_of_its_time() {
        let frozen = AtTime::new(&Ramp, 3.0);
        let mut y = vec![1.0, 1.0];
        frozen
            .apply(&CpuBackend, 2.0, &vec![1.0, 1.0], 1.0, &mut y)
            .unwrap();
        assert_eq!(y, vec![3.0, 7.0]);
        assert!(
            AtTime::new(&Ramp, f64::NAN)
                .apply(&CpuBackend, 1.0, &vec![1.0, 1.0], 0.0, &mut y)
                .is_err()
        );
    }
}
