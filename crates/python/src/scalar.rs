//! The two scalar types of the Python interface, float64 and complex128.

use matexp::{CsrMatrix, Scalar, c64};
use numpy::Element;

/// f64 or c64: a facade scalar that NumPy stores.
pub trait PyScalar: Scalar + Element + Copy {
    /// Whether this is complex128.
    const COMPLEX: bool;
    /// From a complex number; `None` for a real type and a nonzero imaginary part.
    fn exact_from_c64(z: c64) -> Option<Self>;
    /// As a complex number.
    fn to_c64(self) -> c64;
    /// `o` if its values are of this type.
    fn pick(o: &Owned) -> Option<&CsrMatrix<Self, u64>>;
}

/// An owned CSR matrix, real or complex.
#[derive(Debug)]
pub enum Owned {
    /// float64 values.
    Real(CsrMatrix<f64, u64>),
    /// complex128 values.
    Complex(CsrMatrix<c64, u64>),
}

impl PyScalar for f64 {
    const COMPLEX: bool = false;
    fn exact_from_c64(z: c64) -> Option<Self> {
        (z.im == 0.0).then_some(z.re)
    }
    fn to_c64(self) -> c64 {
        c64::new(self, 0.0)
    }
    fn pick(o: &Owned) -> Option<&CsrMatrix<Self, u64>> {
        match o {
            Owned::Real(a) => Some(a),
            Owned::Complex(_) => None,
        }
    }
}

impl PyScalar for c64 {
    const COMPLEX: bool = true;
    fn exact_from_c64(z: c64) -> Option<Self> {
        Some(z)
    }
    fn to_c64(self) -> c64 {
        self
    }
    fn pick(o: &Owned) -> Option<&CsrMatrix<Self, u64>> {
        match o {
            Owned::Complex(a) => Some(a),
            Owned::Real(_) => None,
        }
    }
}
