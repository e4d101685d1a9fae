//! The one place where exponential integrators meet the `f(tA)v` solvers: linear
//! combinations of φ-functions, `Σ_j τ_j^k φ_k(τ_j A) b_k`, evaluated in one call per stage.

use matexp_core::{Backend, LinearOperator, Result, Scalar};
use matexp_expmv::{Arnoldi, ArnoldiOptions, ExpmvMethod, Leja, LejaOptions, Tolerance};

/// Which `f(tA)v` solver evaluates the φ-combinations of an exponential integrator.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum PhiMethod {
    /// Newton interpolation at Leja points of the augmented operator's exponential
    /// ([`ExpmvMethod::phi_combination_times`] of [`Leja`]): products, vector updates and norms only, no inner
    /// products, so the method of choice on GPUs.
    #[default]
    Leja,
    /// The Arnoldi process on the augmented operator with Expokit substepping
    /// ([`Arnoldi`]); for operators whose spectrum is far from an
    /// interval (strongly non-normal Jacobians).
    Krylov,
}

/// The solver behind a [`PhiMethod`], with its workspace kept across stages and steps.
pub(crate) enum PhiEvaluator<'a, B: Backend, S: Scalar> {
    Leja(Leja<'a, B, S>),
    Krylov(Arnoldi<'a, B, S>),
}

impl<'a, B: Backend, S: Scalar> PhiEvaluator<'a, B, S> {
    pub(crate) fn new(backend: &'a B, method: PhiMethod, tol: Tolerance) -> Result<Self> {
        Ok(match method {
            PhiMethod::Leja => PhiEvaluator::Leja(Leja::new(
                backend,
                LejaOptions {
                    tol,
                    ..Default::default()
                },
            )?),
            PhiMethod::Krylov => PhiEvaluator::Krylov(Arnoldi::new(
                backend,
                ArnoldiOptions {
                    tol,
                    ..Default::default()
                },
            )?),
        })
    }

    /// `out[i] ← Σ_k (c_i h)^k φ_k(c_i h A) b_k` for non-decreasing `cs > 0` (`None`: a zero
    /// vector, which costs nothing), returning the number of operator products spent.
    pub(crate) fn combination<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        h: f64,
        cs: &[f64],
        bs: &[Option<&B::Vector<S>>],
        out: &mut [B::Vector<S>],
    ) -> Result<usize> {
        // The callers pass positive, increasing nodes, a finite h and at most φ₄: the
        // preconditions of ExpmvMethod::combination.
        debug_assert!(h.is_finite() && !cs.is_empty() && cs.windows(2).all(|w| w[0] <= w[1]));
        debug_assert!(!bs.is_empty() && bs.len() <= matexp_expmv::MAX_PHI_ORDER + 1);
        let scale = S::from_f64(h);
        Ok(match self {
            PhiEvaluator::Leja(l) => l.combination(op, scale, cs, bs, out)?.matvecs,
            PhiEvaluator::Krylov(a) => a.combination(op, scale, cs, bs, out)?.matvecs,
        })
    }
}
