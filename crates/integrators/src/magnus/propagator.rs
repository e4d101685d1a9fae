//! `w ← e^{−iτM}v` for the Hermitian exponent `M` of a Magnus step, by an `f(tA)v` solver.

use matexp_core::{Backend, Error, LinearOperator, Result, Scalar, c64};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Tolerance,
};

/// Which solver computes the exponentials `e^{−iτM}v` of the Magnus steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpMethod {
    /// Lanczos on the Hermitian `M` (the natural choice: few products for short steps,
    /// error estimate a posteriori).
    #[default]
    Lanczos,
    /// Leja interpolation on the imaginary focal interval of `−iτ·[λ_min, λ_max]`, with
    /// the bounds from `H`'s `spectral_bounds_at` or a Lanczos estimate per step.
    Leja,
    /// Arnoldi (any `M`, also when `H(t)` is not Hermitian).
    Krylov,
}

pub(crate) enum Propagator<'a, B: Backend, S: Scalar> {
    Lanczos(Lanczos<'a, B, S>),
    Leja(Leja<'a, B, S>),
    Krylov(Arnoldi<'a, B, S>),
}

impl<'a, B: matexp_core::KrylovBackend, S: Scalar> Propagator<'a, B, S> {
    pub(crate) fn new(backend: &'a B, method: ExpMethod, tol: Tolerance) -> Result<Self> {
        if !S::IS_COMPLEX {
            return Err(Error::Unsupported(format!(
                "Magnus integrators propagate ψ' = −iH(t)ψ and need complex scalars (c32 or c64), not {}",
                S::NAME
            )));
        }
        Ok(match method {
            ExpMethod::Lanczos => Propagator::Lanczos(Lanczos::new(
                backend,
                LanczosOptions {
                    tol,
                    ..Default::default()
                },
            )?),
            ExpMethod::Leja => Propagator::Leja(Leja::new(
                backend,
                LejaOptions {
                    tol,
                    ..Default::default()
                },
            )?),
            ExpMethod::Krylov => Propagator::Krylov(Arnoldi::new(
                backend,
                ArnoldiOptions {
                    tol,
                    ..Default::default()
                },
            )?),
        })
    }

    /// `w ← e^{−iτM}v`; returns the number of applications of `M`.
    pub(crate) fn apply<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        m: &O,
        tau: f64,
        v: &B::Vector<S>,
        w: &mut B::Vector<S>,
    ) -> Result<usize> {
        let t = S::from_c64(c64::new(0.0, -tau));
        Ok(match self {
            Propagator::Lanczos(l) => l.expmv(m, t, v, w)?.matvecs,
            Propagator::Leja(l) => l.expmv(m, t, v, w)?.matvecs,
            Propagator::Krylov(a) => a.expmv(m, t, v, w)?.matvecs,
        })
    }
}
