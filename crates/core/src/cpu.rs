//! The CPU backend: `Vec<S>` vectors, rayon-parallel BLAS-1.

use crate::error::{check_dim, try_filled};
use crate::{Backend, Result, Scalar, norms};

/// Host vectors (`Vec<S>`) with rayon-parallel kernels; the reference every other backend is
/// tested against.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuBackend;

impl CpuBackend {
    /// The CPU backend (uses rayon's global pool; size it with `RAYON_NUM_THREADS`).
    pub fn new() -> Self {
        CpuBackend
    }
}

impl Backend for CpuBackend {
    type Vector<S: Scalar> = Vec<S>;

    fn name(&self) -> String {
        format!("cpu({} threads)", rayon::current_num_threads())
    }
    /// A zero vector, or [`crate::Error::InvalidArgument`] when `n` entries cannot be
    /// allocated (an operator claiming more rows than memory holds is an error, not an abort).
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Vec<S>> {
        try_filled(n, S::zero(), "vector length")
    }
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Vec<S>> {
        Ok(host.to_vec())
    }
    fn download<S: Scalar>(&self, x: &Vec<S>, host: &mut [S]) -> Result<()> {
        check_dim("download: host length", x.len(), host.len())?;
        host.copy_from_slice(x);
        Ok(())
    }
    fn len<S: Scalar>(&self, x: &Vec<S>) -> usize {
        x.len()
    }
    fn copy<S: Scalar>(&self, src: &Vec<S>, dst: &mut Vec<S>) -> Result<()> {
        check_dim("copy: destination length", src.len(), dst.len())?;
        dst.copy_from_slice(src);
        Ok(())
    }
    fn fill<S: Scalar>(&self, x: &mut Vec<S>, value: S) -> Result<()> {
        x.iter_mut().for_each(|v| *v = value);
        Ok(())
    }
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Vec<S>) -> Result<()> {
        norms::scal(alpha, x);
        Ok(())
    }
    fn axpby<S: Scalar>(&self, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        check_dim("axpby: y length", x.len(), y.len())?;
        norms::axpby(alpha, x, beta, y);
        Ok(())
    }
    fn dot<S: Scalar>(&self, x: &Vec<S>, y: &Vec<S>) -> Result<S> {
        check_dim("dot: y length", x.len(), y.len())?;
        Ok(norms::dot(x, y))
    }
    fn nrm2<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        Ok(norms::nrm2(x))
    }
    fn amax<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        Ok(norms::amax(x))
    }
}
