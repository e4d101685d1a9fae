//! The scalar types of matexp: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
//!
//! Method names avoid those of [`num_traits::Float`] (`modulus` rather than `abs`,
//! `as_f64` rather than `to_f64`) so that generic code bounded by both traits never meets
//! an ambiguous call.

use num_complex::Complex;
use num_traits::{Float, One, Zero};
use std::fmt::{Debug, Display, LowerExp};
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// Single-precision complex number.
#[allow(non_camel_case_types)]
pub type c32 = Complex<f32>;
/// Double-precision complex number.
#[allow(non_camel_case_types)]
pub type c64 = Complex<f64>;

/// A field element the library computes with: real or complex, single or double precision.
pub trait Scalar:
    Copy
    + Send
    + Sync
    + Debug
    + Display
    + LowerExp
    + Default
    + PartialEq
    + 'static
    + Zero
    + One
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Sum
{
    /// The real type of the same precision (`f32` for `c32`).
    type Real: RealScalar;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// Short name used in kernels, benchmarks and reports: `f32`, `f64`, `c32`, `c64`.
    const NAME: &'static str;

    /// Embeds a real number.
    fn from_real(re: Self::Real) -> Self;
    /// Converts from `f64`, rounding to this precision.
    fn from_f64(x: f64) -> Self;
    /// Converts from a double-precision complex number; real types keep the real part, so
    /// callers must check [`Scalar::IS_COMPLEX`] when the imaginary part matters.
    fn from_c64(z: c64) -> Self;
    /// Widens to a double-precision complex number.
    fn to_c64(self) -> c64;
    /// Real part.
    fn re(self) -> Self::Real;
    /// Imaginary part (zero for real types).
    fn im(self) -> Self::Real;
    /// Complex conjugate (identity for real types).
    fn conj(self) -> Self;
    /// |z|, computed without intermediate overflow (`hypot` for complex).
    fn modulus(self) -> Self::Real;
    /// |z|², which may overflow for |z| > √max.
    fn modulus_sqr(self) -> Self::Real;
    /// Multiplies by a real number.
    fn scale(self, r: Self::Real) -> Self;
    /// Whether every component is finite.
    fn finite(self) -> bool;
}

/// A real scalar: `f32` or `f64`.
pub trait RealScalar: Scalar<Real = Self> + Float + PartialOrd + LowerExp {
    /// Widens to `f64`.
    fn as_f64(self) -> f64;
    /// Machine epsilon (unit roundoff × 2).
    const EPS: Self;
}

macro_rules! impl_real {
    ($t:ty, $name:literal) => {
        impl Scalar for $t {
            type Real = $t;
            const IS_COMPLEX: bool = false;
            const NAME: &'static str = $name;
            #[inline]
            fn from_real(re: $t) -> Self {
                re
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn from_c64(z: c64) -> Self {
                z.re as $t
            }
            #[inline]
            fn to_c64(self) -> c64 {
                c64::new(self as f64, 0.0)
            }
            #[inline]
            fn re(self) -> $t {
                self
            }
            #[inline]
            fn im(self) -> $t {
                0.0
            }
            #[inline]
            fn conj(self) -> Self {
                self
            }
            #[inline]
            fn modulus(self) -> $t {
                Float::abs(self)
            }
            #[inline]
            fn modulus_sqr(self) -> $t {
                self * self
            }
            #[inline]
            fn scale(self, r: $t) -> Self {
                self * r
            }
            #[inline]
            fn finite(self) -> bool {
                Float::is_finite(self)
            }
        }
        impl RealScalar for $t {
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
            const EPS: $t = <$t>::EPSILON;
        }
    };
}
impl_real!(f32, "f32");
impl_real!(f64, "f64");

macro_rules! impl_complex {
    ($t:ty, $name:literal) => {
        impl Scalar for Complex<$t> {
            type Real = $t;
            const IS_COMPLEX: bool = true;
            const NAME: &'static str = $name;
            #[inline]
            fn from_real(re: $t) -> Self {
                Complex::new(re, 0.0)
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                Complex::new(x as $t, 0.0)
            }
            #[inline]
            fn from_c64(z: c64) -> Self {
                Complex::new(z.re as $t, z.im as $t)
            }
            #[inline]
            fn to_c64(self) -> c64 {
                c64::new(self.re as f64, self.im as f64)
            }
            #[inline]
            fn re(self) -> $t {
                self.re
            }
            #[inline]
            fn im(self) -> $t {
                self.im
            }
            #[inline]
            fn conj(self) -> Self {
                Complex::new(self.re, -self.im)
            }
            #[inline]
            fn modulus(self) -> $t {
                self.re.hypot(self.im)
            }
            #[inline]
            fn modulus_sqr(self) -> $t {
                self.re * self.re + self.im * self.im
            }
            #[inline]
            fn scale(self, r: $t) -> Self {
                Complex::new(self.re * r, self.im * r)
            }
            #[inline]
            fn finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
        }
    };
}
impl_complex!(f32, "c32");
impl_complex!(f64, "c64");

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<S: Scalar>(z: c64) -> c64 {
        S::from_c64(z).to_c64()
    }

    #[test]
    fn conversions_keep_what_the_type_can_hold() {
        let z = c64::new(1.5, -2.25);
        assert_eq!(roundtrip::<c64>(z), z);
        assert_eq!(roundtrip::<c32>(z), z);
        assert_eq!(roundtrip::<f64>(z), c64::new(1.5, 0.0));
        assert_eq!(roundtrip::<f32>(z), c64::new(1.5, 0.0));
    }

    #[test]
    fn modulus_does_not_overflow() {
        let big = c64::new(1e300, 1e300);
        assert!((big.modulus() / 1e300 - 2f64.sqrt()).abs() < 1e-15);
        assert!(big.modulus_sqr().is_infinite());
        assert_eq!(c32::new(3.0, 4.0).modulus(), 5.0);
        assert_eq!((-2.0f64).modulus(), 2.0);
    }

    #[test]
    fn conj_and_finite() {
        assert_eq!(c64::new(1.0, 2.0).conj(), c64::new(1.0, -2.0));
        assert_eq!(3.0f32.conj(), 3.0);
        assert!(!c64::new(1.0, f64::NAN).finite());
        assert!(!f32::INFINITY.finite());
        assert!(c32::new(1.0, 2.0).finite());
    }
}
