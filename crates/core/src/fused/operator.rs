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

use crate::{Backend, KrylovBackend, LinearOperator, Result, Scalar, ShiftedStep};

/// The fused passes an operator may override; each default is the BLAS-1 sequence it
/// replaces. An operator implements this trait and returns itself from
/// [`LinearOperator::fused`] (`Some(self)`); methods reach it through [`OperatorSteps`].
/// (The two traits share method names: where both are in scope, call
/// `OperatorSteps::shifted_step(&op, …)`.)
pub trait FusedOperator<B: Backend, S: Scalar>: LinearOperator<B, S> {
    /// The product of a Lanczos step with its sums: w ← A·q_j − β_j·q_{j−1} (β_j =
    /// `c[2j − 1]`, read where the coefficients live; no subtraction when `q_prev` is
    /// `None`) and `sums[0..4]` ← (Re⟨q_j, w⟩, Im⟨q_j, w⟩, ‖w‖², ‖q_j‖²) for
    /// [`KrylovBackend::lanczos_update`]. The default applies the operator and calls
    /// [`KrylovBackend::lanczos_sums`] (a second pass over the vectors); GPU operators
    /// override it with one pass.
    ///
    /// # Errors
    ///
    /// Those of [`LinearOperator::apply`] and [`KrylovBackend::lanczos_sums`].
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
        sequence::lanczos_product(self, backend, j, q_prev, q, w, c, sums)
    }

    /// Whether [`lanczos_advance`](Self::lanczos_advance) forms q_{j+1} inside the product's
    /// own pass. Lanczos then runs the deferred form of its step
    /// ([`KrylovBackend::lanczos_settle`] and `lanczos_advance`), which saves the update
    /// pass; `false` (the default) keeps the product-and-update form.
    fn lanczos_advance_fused(&self) -> bool {
        false
    }

    /// Step j + 1 of the deferred Lanczos form, once step j is settled
    /// ([`KrylovBackend::lanczos_settle`]): `q_next` ← q_{j+1} (formed from `w_prev` and q_j =
    /// `q` as [`KrylovBackend::lanczos_form`] does), then `w` ← A·q_{j+1} − β_{j+1}·q_j with
    /// the sums of step j + 1 in `sums` (as [`lanczos_product`](Self::lanczos_product)). `w`
    /// overlaps neither `w_prev` nor `q_next`: a fused product still gathers from `w_prev`
    /// while other rows are written.
    ///
    /// The default is [`KrylovBackend::lanczos_form`] followed by `lanczos_product`;
    /// operators that say [`lanczos_advance_fused`](Self::lanczos_advance_fused) do both in
    /// one pass (reads A, q_j and w_prev; writes q_{j+1} and w), the same values up to the
    /// order of the sums' rounding.
    ///
    /// # Errors
    ///
    /// Those of [`KrylovBackend::lanczos_form`] and [`lanczos_product`](Self::lanczos_product).
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
        backend.lanczos_form(j, q, w_prev, c, sums, q_next)?;
        FusedOperator::lanczos_product(self, backend, j + 1, Some(q), q_next, w, c, sums)
    }

    /// One fused shifted-product step ([`ShiftedStep`]): `y_next ← alpha·A·y_prev +
    /// shift·y_prev`, `p ← p + coeff·y_next`, returns ‖y_next‖₂. The default runs the four
    /// operations one after another; GPU operators override it with a single pass over
    /// memory.
    ///
    /// # Errors
    ///
    /// Those of [`LinearOperator::apply`] and of the backend's vector operations.
    fn shifted_step(
        &self,
        backend: &B,
        step: &ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real> {
        sequence::shifted_step(self, backend, step, y_prev, y_next, p)
    }
}

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

/// The BLAS-1 sequences the fused passes replace.
mod sequence {
    use super::*;

    #[allow(clippy::too_many_arguments)]
    pub(super) fn lanczos_product<B, S, O>(
        op: &O,
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
        S: Scalar,
        O: LinearOperator<B, S> + ?Sized,
    {
        op.apply(backend, S::one(), q, S::zero(), w)?;
        backend.lanczos_sums(j, q_prev, q, w, c, sums)
    }

    pub(super) fn shifted_step<B, S, O>(
        op: &O,
        backend: &B,
        step: &ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real>
    where
        B: Backend,
        S: Scalar,
        O: LinearOperator<B, S> + ?Sized,
    {
        backend.copy(y_prev, y_next)?;
        op.apply(backend, step.alpha, y_prev, step.shift, y_next)?;
        backend.axpby(step.coeff, y_next, S::one(), p)?;
        backend.nrm2(y_next)
    }
}
