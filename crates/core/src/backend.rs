//! The vector interface algorithms are written against.

use crate::{Result, Scalar};
use std::fmt::Debug;

/// Where vectors live and how BLAS-1 runs on them.
///
/// Algorithms (Leja, Lanczos, Arnoldi, Taylor, integrators) are generic over a backend, so
/// they are written once and run on the CPU ([`crate::CpuBackend`]), one GPU or several.
/// Reductions return host scalars; backends whose reductions cost a round trip (GPUs) also
/// offer fused operator steps (see [`crate::LinearOperator::shifted_step`]) so that hot loops
/// synchronize rarely.
pub trait Backend: Send + Sync + Debug {
    /// A vector of `S` owned by this backend.
    type Vector<S: Scalar>: Send + Sync + Debug;

    /// Human-readable name (`cpu`, `gpu:0`, `gpu:0,1`), used in reports.
    fn name(&self) -> String;

    /// A zero vector of length `n`.
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Self::Vector<S>>;
    /// A vector holding a copy of `host`.
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Self::Vector<S>>;
    /// Copies `x` into `host` (lengths must agree).
    fn download<S: Scalar>(&self, x: &Self::Vector<S>, host: &mut [S]) -> Result<()>;
    /// Length of `x`.
    fn len<S: Scalar>(&self, x: &Self::Vector<S>) -> usize;

    /// dst ← src.
    fn copy<S: Scalar>(&self, src: &Self::Vector<S>, dst: &mut Self::Vector<S>) -> Result<()>;
    /// x ← value everywhere.
    fn fill<S: Scalar>(&self, x: &mut Self::Vector<S>, value: S) -> Result<()>;
    /// x ← α·x.
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Self::Vector<S>) -> Result<()>;
    /// y ← α·x + β·y (y is not read when β = 0).
    fn axpby<S: Scalar>(
        &self,
        alpha: S,
        x: &Self::Vector<S>,
        beta: S,
        y: &mut Self::Vector<S>,
    ) -> Result<()>;
    /// Σ conj(xᵢ)·yᵢ.
    fn dot<S: Scalar>(&self, x: &Self::Vector<S>, y: &Self::Vector<S>) -> Result<S>;
    /// ‖x‖₂, overflow-safe (NaN if x holds a NaN).
    fn nrm2<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real>;
    /// max |xᵢ|.
    fn amax<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real>;

    /// Waits for all queued work (no-op on synchronous backends).
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    /// A vector holding a copy of `x`.
    fn duplicate<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<Self::Vector<S>> {
        let mut y = self.zeros(self.len(x))?;
        self.copy(x, &mut y)?;
        Ok(y)
    }

    /// Copies `x` to a new host vector.
    fn to_host<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<Vec<S>> {
        let mut h = vec![S::zero(); self.len(x)];
        self.download(x, &mut h)?;
        Ok(h)
    }
}
