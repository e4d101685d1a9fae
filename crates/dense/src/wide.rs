//! The precision every dense kernel runs in: real input is widened to `f64`, complex input to
//! `c64`, and results are rounded back, so that `f32`/`c32` callers get double-precision
//! small problems (their cost is negligible next to the large-scale work around them).

use crate::Matrix;
use matexp_core::{RealScalar, Scalar, c64};

/// The two scalar types dense kernels run in: `f64` and `c64`. Sealed.
pub(crate) trait WideScalar: Scalar<Real = f64> + private::Sealed {
    /// |re| + |im|, the pivot size of LAPACK's `i?amax` (cheaper than the modulus and
    /// equivalent up to a factor √2).
    fn abs1(self) -> f64;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for matexp_core::c64 {}
}

impl WideScalar for f64 {
    fn abs1(self) -> f64 {
        self.abs()
    }
}

impl WideScalar for c64 {
    fn abs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
}

/// A matrix widened to the precision the kernels run in.
#[derive(Debug)]
pub(crate) enum Wide {
    Real(Matrix<f64>),
    Complex(Matrix<c64>),
}

impl Wide {
    pub(crate) fn of<S: Scalar>(a: &Matrix<S>) -> Self {
        if S::IS_COMPLEX {
            Wide::Complex(a.map(|x| x.to_c64()))
        } else {
            Wide::Real(a.map(|x| x.re().as_f64()))
        }
    }

    pub(crate) fn narrow<S: Scalar>(self) -> Matrix<S> {
        match self {
            Wide::Real(m) => m.map(S::from_f64),
            Wide::Complex(m) => m.map(S::from_c64),
        }
    }
}
