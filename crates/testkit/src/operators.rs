//! Operators for failure-path tests.

use matexp_core::{CpuBackend, Error, LinearOperator, Result, Scalar};

/// A Hermitian operator that claims `self.0` rows and columns and has no storage behind
/// them (2⁶¹, say): the solvers must refuse it before allocating anything of its order. A
/// product with it is an [`Error::Unsupported`].
#[derive(Debug, Clone, Copy)]
pub struct ClaimsOrder(pub usize);

impl<S: Scalar> LinearOperator<CpuBackend, S> for ClaimsOrder {
    fn nrows(&self) -> usize {
        self.0
    }
    fn ncols(&self) -> usize {
        self.0
    }
    fn is_hermitian(&self) -> bool {
        true
    }
    fn apply(&self, _: &CpuBackend, _: S, _: &Vec<S>, _: S, _: &mut Vec<S>) -> Result<()> {
        Err(Error::Unsupported(format!(
            "a product with an operator that only claims order {}",
            self.0
        )))
    }
}
