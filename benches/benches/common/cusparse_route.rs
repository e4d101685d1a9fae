//! The vendor route of the GPU suites: a CSR matrix whose every product goes through
//! cuSPARSE (`SpmvKernel::Cusparse`), so that one of our solvers (Lanczos, Leja) runs
//! unchanged over the vendor's SpMV instead of ours. Everything else of the operator
//! (Hermitian flag, spectral bounds, norm bound) is the matrix's; the fused products of our
//! operators (the Lanczos product with its sums, the fused Leja step) are not used: the
//! trait's defaults build them from the product and the backend's vector operations, as a
//! user composing the vendor's SpMV with our solver would get.

#![allow(dead_code)]

use matexp_core::{LinearOperator, Scalar, SpectralBounds};
use matexp_gpu::{GpuBackend, GpuCsr, GpuVector, SpmvKernel};

/// `GpuCsr` with cuSPARSE for every product (see the module documentation).
pub struct CusparseRoute<'a, S: Scalar>(pub &'a GpuCsr<S>);

/// What a record of the vendor route says it ran (`extra.route`).
pub const ROUTE: &str = "our solver, cusparseSpMV (CSR, ALG_DEFAULT) for every product";

impl<S: Scalar> LinearOperator<GpuBackend, S> for CusparseRoute<'_, S> {
    fn nrows(&self) -> usize {
        LinearOperator::<GpuBackend, S>::nrows(self.0)
    }
    fn ncols(&self) -> usize {
        LinearOperator::<GpuBackend, S>::ncols(self.0)
    }
    fn apply(
        &self,
        backend: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> matexp_core::Result<()> {
        self.0
            .apply_with(backend, SpmvKernel::Cusparse, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        LinearOperator::<GpuBackend, S>::spectral_bounds(self.0)
    }
    fn is_hermitian(&self) -> bool {
        LinearOperator::<GpuBackend, S>::is_hermitian(self.0)
    }
    fn norm_bound(&self) -> Option<f64> {
        LinearOperator::<GpuBackend, S>::norm_bound(self.0)
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        LinearOperator::<GpuBackend, S>::spectral_bounds_are_tight(self.0)
    }
}
