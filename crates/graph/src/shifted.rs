//! A borrowed shifted operator A − σI, so that e^{β(A−σI)} = e^{−βσ}e^{βA} stays inside the
//! floating-point range when e^{βA}·v does not.

use matexp_core::{Backend, LinearOperator, Result, Scalar, SpectralBounds};

/// `A − σ·I` for a borrowed square operator (one product of A and one `axpby` per apply).
pub(crate) struct ShiftedBy<'o, O: ?Sized> {
    pub(crate) inner: &'o O,
    pub(crate) sigma: f64,
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> LinearOperator<B, S>
    for ShiftedBy<'_, O>
{
    fn nrows(&self) -> usize {
        self.inner.nrows()
    }
    fn ncols(&self) -> usize {
        self.inner.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.inner.apply(backend, alpha, x, beta, y)?;
        backend.axpby(alpha * S::from_f64(-self.sigma), x, S::one(), y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let b = self.inner.spectral_bounds()?;
        SpectralBounds::new(
            b.re_min - self.sigma,
            b.re_max - self.sigma,
            b.im_min,
            b.im_max,
        )
        .ok()
    }
    fn is_hermitian(&self) -> bool {
        self.inner.is_hermitian()
    }
}
