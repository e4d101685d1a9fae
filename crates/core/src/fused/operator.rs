//! The fused passes of an operator: one pass over memory where the BLAS-1 sequence takes
//! several.
//!
//! An operator that has such kernels says so through [`LinearOperator::fused`], which returns
//! it as a [`FusedOperator`]; every other operator (the default `None`) gets the sequences
//! below, built from [`LinearOperator::apply`] and the backend's vector operations. The
//! methods call the hooks through [`OperatorSteps`], implemented for every operator, so that
//! they reach an override when there is one without knowing the operator's type:
//!
//! ```
//! use matexp_core::{CpuBackend, DenseMatrixOperator, OperatorSteps, ShiftedStep};
//! let cpu = CpuBackend::new();
//! let a = DenseMatrixOperator::new(2, 2, vec![2.0, 0.0, 0.0, 3.0])?;
//! let step = ShiftedStep { alpha: 1.0, shift: -1.0, coeff: 0.5 };
//! let (y, mut y_next, mut p) = (vec![1.0, 1.0], vec![0.0; 2], vec![0.0; 2]);
//! // y_next = (A − I)·y = (1, 2), p = 0.5·y_next, returns ‖y_next‖₂.
//! let norm: f64 = OperatorSteps::shifted_step(&a, &cpu, &step, &y, &mut y_next, &mut p)?;
//! assert_eq!((y_next, p), (vec![1.0, 2.0], vec![0.5, 1.0]));
//! assert!((norm - 5f64.sqrt()).abs() < 1e-15);
//! # Ok::<(), matexp_core::Error>(())
//! ```

use crate::operator::sequence;
use crate::{Backend, FusedOperator, KrylovBackend, LinearOperator, Result, Scalar, ShiftedStep};

/// The fused passes of any operator: its [`FusedOperator`] override when
/// [`LinearOperator::fused`] gives one, the BLAS-1 sequence otherwise. Methods call these;
/// operators implement [`FusedOperator`] instead.
pub trait OperatorSteps<B: Backend, S: Scalar>: LinearOperator<B, S> {
    /// [`FusedOperator::lanczos_product`] of this operator.
    ///
    /// # Errors
    ///
    /// As [`FusedOperator::lanczos_product`].
    #[allow(clippy::too_many_arguments)]
    fn lanczos_product(
        &self,
        backend: &B,
        j: usize,
        q_prev: Option<&B::Vector<S>>,
        q: &B::Vector<S>,
        w: &mut B::Vector<S>,
        c: &B::Vector<f64>,
        sums: &mut B::Vector<f64>,
    ) -> Result<()>
    where
        B: KrylovBackend,
    {
        match self.fused() {
            Some(f) => FusedOperator::lanczos_product(f, backend, j, q_prev, q, w, c, sums),
            None => sequence::lanczos_product(self, backend, j, q_prev, q, w, c, sums),
        }
    }

    /// [`FusedOperator::lanczos_advance_fused`] of this operator (`false` without one).
    fn lanczos_advance_fused(&self) -> bool {
        self.fused()
            .is_some_and(|f| FusedOperator::lanczos_advance_fused(f))
    }

    /// [`FusedOperator::lanczos_advance`] of this operator.
    ///
    /// # Errors
    ///
    /// As [`FusedOperator::lanczos_advance`].
    #[allow(clippy::too_many_arguments)]
    fn lanczos_advance(
        &self,
        backend: &B,
        j: usize,
        q: &B::Vector<S>,
        w_prev: &B::Vector<S>,
        q_next: &mut B::Vector<S>,
        w: &mut B::Vector<S>,
        c: &B::Vector<f64>,
        sums: &mut B::Vector<f64>,
    ) -> Result<()>
    where
        B: KrylovBackend,
    {
        match self.fused() {
            Some(f) => FusedOperator::lanczos_advance(f, backend, j, q, w_prev, q_next, w, c, sums),
            None => {
                backend.lanczos_form(j, q, w_prev, c, sums, q_next)?;
                sequence::lanczos_product(self, backend, j + 1, Some(q), q_next, w, c, sums)
            }
        }
    }

    /// [`FusedOperator::shifted_step`] of this operator.
    ///
    /// # Errors
    ///
    /// As [`FusedOperator::shifted_step`].
    fn shifted_step(
        &self,
        backend: &B,
        step: &ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real> {
        match self.fused() {
            Some(f) => FusedOperator::shifted_step(f, backend, step, y_prev, y_next, p),
            None => sequence::shifted_step(self, backend, step, y_prev, y_next, p),
        }
    }
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> OperatorSteps<B, S> for O {}
