//! Spectral bounds of a [`LinearOperator`] on the CPU backend: what the operator knows, else
//! a Lanczos or power-iteration estimate.

use crate::lanczos::{LanczosOptions, lanczos_fallible};
use crate::power::{PowerOptions, power_fallible};
use matexp_core::{CpuBackend, Error, LinearOperator, Result, Scalar, SpectralBounds};

/// Spectral bounds of `op`: [`LinearOperator::spectral_bounds`] when the operator provides
/// them (Gershgorin for explicit matrices, analytic for stencils), otherwise
/// [`crate::lanczos_bounds`] if [`LinearOperator::is_hermitian`], otherwise the box of
/// [`crate::power_spectral_radius`].
///
/// # Errors
/// [`Error::DimensionMismatch`] for a non-square operator, and the errors of the operator's
/// `apply` and of the estimators.
///
/// ```
/// use matexp_core::DenseMatrixOperator;
/// use matexp_leja::{LanczosOptions, PowerOptions, estimate_spectral_bounds};
/// let a = DenseMatrixOperator::new(2, 2, vec![2.0, 1.0, 1.0, 2.0])?;
/// let b = estimate_spectral_bounds(&a, &LanczosOptions::default(), &PowerOptions::default())?;
/// assert!(b.re_min <= 1.0 && b.re_max >= 3.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn estimate_spectral_bounds<S: Scalar, O: LinearOperator<CpuBackend, S> + ?Sized>(
    op: &O,
    lanczos: &LanczosOptions,
    power: &PowerOptions,
) -> Result<SpectralBounds> {
    if let Some(b) = op.spectral_bounds() {
        return Ok(b);
    }
    let n = op.nrows();
    if op.ncols() != n {
        return Err(Error::dim(
            "estimate_spectral_bounds: square operator (columns)",
            n,
            op.ncols(),
        ));
    }
    let cpu = CpuBackend::new();
    let mut x_buf: Vec<S> = vec![S::zero(); n];
    let mut y_buf: Vec<S> = vec![S::zero(); n];
    let apply = |x: &[S], y: &mut [S]| -> Result<()> {
        x_buf.copy_from_slice(x);
        op.apply(&cpu, S::one(), &x_buf, S::zero(), &mut y_buf)?;
        y.copy_from_slice(&y_buf);
        Ok(())
    };
    if op.is_hermitian() {
        Ok(lanczos_fallible(n, apply, lanczos)?.bounds)
    } else {
        Ok(power_fallible(n, apply, power)?.bounds)
    }
}
