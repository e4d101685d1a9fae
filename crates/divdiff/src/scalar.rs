//! The two argument types of the crate (`f64`, `c64`) and exponentials carried with a
//! separate power-of-two exponent, so that `e^σ` for `|Re σ|` far beyond the `f64` range can
//! be applied to a small factor without intermediate overflow or underflow.

use matexp_core::{Scalar, c64};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for matexp_core::c64 {}
}

/// The type of `α`, `β` and of the divided differences: `f64` when `α` and `β` are real
/// (real results), [`c64`] otherwise (e.g. `exp(−i·h·H)` on an imaginary focal interval).
///
/// Sealed: implemented for `f64` and `c64` only.
pub trait DdScalar: Scalar<Real = f64> + sealed::Sealed {
    /// `e^self`.
    fn exp_of(self) -> Self;
    /// `self / r` for real `r`, dividing each component (no complex division, whose
    /// intermediate `|r|²` could under- or overflow).
    fn div_real(self, r: f64) -> Self;
    /// `max(|re|, |im|)`: within a factor √2 of the modulus, and free of `hypot`.
    fn max_component(self) -> f64;
}

impl DdScalar for f64 {
    #[inline]
    fn exp_of(self) -> Self {
        self.exp()
    }
    #[inline]
    fn div_real(self, r: f64) -> Self {
        self / r
    }
    #[inline]
    fn max_component(self) -> f64 {
        self.abs()
    }
}

impl DdScalar for c64 {
    #[inline]
    fn exp_of(self) -> Self {
        self.exp()
    }
    #[inline]
    fn div_real(self, r: f64) -> Self {
        c64::new(self.re / r, self.im / r)
    }
    #[inline]
    fn max_component(self) -> f64 {
        self.re.abs().max(self.im.abs())
    }
}

/// `2^e` for `e` in the normal exponent range `[-1022, 1023]`.
#[inline]
pub(crate) fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `x · 2^e` without intermediate overflow for any `i64` exponent (saturating to `±∞` or
/// `±0`, as the exact result would).
pub(crate) fn ldexp(x: f64, e: i64) -> f64 {
    let mut e = e.clamp(-2400, 2400) as i32;
    let mut x = x;
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

/// The exponent `e` with `x = m · 2^e`, `m ∈ [1, 2)`, for finite nonzero `x` (subnormals included).
pub(crate) fn exponent(x: f64) -> i32 {
    debug_assert!(x.is_finite() && x != 0.0);
    let bits = x.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: renormalise by 2^64 first.
        exponent(x * pow2(64)) - 64
    } else {
        biased - 1023
    }
}

/// Error-free product: `a·b = p + e` exactly (Dekker's TwoProduct via fused multiply-add).
#[inline]
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// A complex number `mant · 2^exp2`, with `|mant|` kept near 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Scaled {
    pub mant: c64,
    pub exp2: i64,
}

// Cody–Waite split of ln 2: LN2_HI has 21 trailing zero bits, so k·LN2_HI is exact for |k| < 2^21.
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;

impl Scaled {
    pub fn one() -> Self {
        Scaled {
            mant: c64::new(1.0, 0.0),
            exp2: 0,
        }
    }

    /// `e^x` for real `x` as `e^r · 2^k`, `|r| ≤ ln2/2`: the reduction is exact for
    /// `|x| < 7·10^5`, so the relative error is that of one `exp` of a small argument.
    pub fn exp_real(x: f64) -> Self {
        let k = (x / std::f64::consts::LN_2).round();
        let r = if k.abs() < 1.0e6 {
            (x - k * LN2_HI) - k * LN2_LO
        } else {
            // Far outside the f64 range: any product with this factor over/underflows
            // unless another factor cancels it almost exactly, so the mantissa is 1. The
            // plain reduction x − k·ln 2 loses every digit once |x| ≳ 1e22 (at x = 1e308 it
            // left |r| ≈ 1e292, e^r = 0 and a silent zero for e^{1e308 + 3i}).
            0.0
        };
        Scaled {
            mant: c64::new(r.exp(), 0.0),
            exp2: k as i64,
        }
    }

    /// `e^{iθ}`.
    pub fn cis(theta: f64) -> Self {
        if theta == 0.0 {
            return Scaled::one();
        }
        let (s, c) = theta.sin_cos();
        Scaled {
            mant: c64::new(c, s),
            exp2: 0,
        }
    }

    /// `e^z` for complex `z`.
    pub fn exp(z: c64) -> Self {
        Scaled::exp_real(z.re).mul(Scaled::cis(z.im))
    }

    /// The product, renormalised so that `max(|re|, |im|)` of the mantissa is in `[1, 2)`.
    pub fn mul(self, other: Scaled) -> Self {
        Scaled {
            mant: self.mant * other.mant,
            // Saturating: e^x for x ≈ 1e308 has exponent i64::MAX (`k as i64` saturates),
            // and a wrapped sum would turn an overflow into a finite wrong value.
            exp2: self.exp2.saturating_add(other.exp2),
        }
        .normalized()
    }

    /// Multiplies the mantissa by a factor close to one (a first-order correction `1 + δ`).
    pub fn mul_mant(self, f: c64) -> Self {
        Scaled {
            mant: self.mant * f,
            exp2: self.exp2,
        }
        .normalized()
    }

    fn normalized(self) -> Self {
        let m = self.mant.re.abs().max(self.mant.im.abs());
        if m == 0.0 || !m.is_finite() {
            return self;
        }
        let e = exponent(m);
        let f = pow2(-e);
        Scaled {
            mant: c64::new(self.mant.re * f, self.mant.im * f),
            exp2: self.exp2.saturating_add(i64::from(e)),
        }
    }

    /// `self · v` as an ordinary complex number (saturating to ±∞ / ±0 like the exact value).
    pub fn apply(self, v: c64) -> c64 {
        let p = self.mant * v;
        c64::new(ldexp(p.re, self.exp2), ldexp(p.im, self.exp2))
    }

    /// `log10 |self · v|` (for error messages about overflow).
    pub fn log10_abs(self, v: c64) -> f64 {
        let p = self.mant * v;
        let m = p.re.hypot(p.im);
        m.log10() + self.exp2 as f64 * std::f64::consts::LOG10_2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldexp_matches_powi_and_saturates() {
        assert_eq!(ldexp(1.5, 10), 1536.0);
        assert_eq!(ldexp(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp(1.0, -1080), 0.0);
        assert_eq!(ldexp(pow2(-1000), 1500), pow2(500));
    }

    #[test]
    fn exponent_of_normals_and_subnormals() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(3.0), 1);
        assert_eq!(exponent(0.75), -1);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
    }

    #[test]
    fn scaled_exp_agrees_with_exp_in_range_and_extends_it() {
        for &x in &[-700.0, -3.5, 0.0, 1e-3, 2.0, 700.0] {
            let s = Scaled::exp_real(x).apply(c64::new(1.0, 0.0)).re;
            assert!(
                (s - f64::exp(x)).abs() <= 4.0 * f64::EPSILON * f64::exp(x),
                "{x}"
            );
        }
        // e^800 · e^-790 = e^10 although e^800 overflows f64.
        let p = Scaled::exp_real(800.0).mul(Scaled::exp_real(-790.0));
        let v = p.apply(c64::new(1.0, 0.0)).re;
        assert!((v / 10f64.exp() - 1.0).abs() < 1e-13, "{v}");
    }

    #[test]
    fn two_prod_is_error_free() {
        let (p, e) = two_prod(0.1, 3.0);
        // 0.1·3 in exact arithmetic differs from fl(0.1·3) by a representable tail.
        assert_eq!(p, 0.30000000000000004);
        assert!(e != 0.0 && e.abs() < 1e-16);
    }
}
