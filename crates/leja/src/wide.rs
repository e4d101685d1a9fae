//! Products of many distances without overflow or underflow.
//!
//! A Leja product ∏|z − z_j| over thousands of factors can leave the exponent range of `f64`
//! on sets of capacity ≠ 1, and even on [−2, 2] the products at points close to chosen ones
//! shrink geometrically. [`WideProduct`] keeps the binary exponent in an `i64` beside a
//! mantissa in [1, 2). Renormalising multiplies by an exact power of two, so every
//! multiplication rounds exactly as it would in a float with an unbounded exponent: results
//! are bit-for-bit reproducible on every IEEE-754 platform and independent of how often the
//! value was renormalised.

use std::cmp::Ordering;

const MANTISSA_MASK: u64 = (1 << 52) - 1;
const EXPONENT_BIAS: i64 = 1023;
/// 2^64, used to lift subnormal inputs into the normal range before reading their exponent.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
/// Mantissas stay in (LAZY_LO, LAZY_HI) = (2⁻⁵⁰⁰, 2⁵⁰⁰) between normalisations.
const LAZY_LO: f64 = 3.054936363499605e-151;
const LAZY_HI: f64 = 3.273390607896142e150;

/// A non-negative real number `m · 2^e`. The mantissa is kept in (2⁻⁵⁰⁰, 2⁵⁰⁰) (or is
/// exactly zero) and brought to [1, 2) only when it would leave that range or when values
/// are compared: a multiplication is then one `f64` product and a range check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WideProduct {
    mantissa: f64,
    exponent: i64,
}

impl WideProduct {
    /// The number one, the empty product.
    pub(crate) const ONE: WideProduct = WideProduct {
        mantissa: 1.0,
        exponent: 0,
    };

    /// `x · 2^e` normalised; `x` must be finite and non-negative.
    fn normalised(x: f64, e: i64) -> WideProduct {
        if x == 0.0 {
            return WideProduct {
                mantissa: 0.0,
                exponent: 0,
            };
        }
        let (x, e) = if x < f64::MIN_POSITIVE {
            (x * TWO_POW_64, e - 64)
        } else {
            (x, e)
        };
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        WideProduct {
            mantissa: f64::from_bits((bits & MANTISSA_MASK) | ((EXPONENT_BIAS as u64) << 52)),
            exponent: e + biased - EXPONENT_BIAS,
        }
    }

    /// The product of `self` and a finite non-negative factor.
    #[inline]
    pub(crate) fn times(self, factor: f64) -> WideProduct {
        if (LAZY_LO..LAZY_HI).contains(&factor) {
            // Both operands lie in (2⁻⁵⁰⁰, 2⁵⁰⁰): the product is a normal number.
            let m = self.mantissa * factor;
            if m > LAZY_LO && m < LAZY_HI {
                return WideProduct {
                    mantissa: m,
                    exponent: self.exponent,
                };
            }
            return WideProduct::normalised(m, self.exponent);
        }
        // Extreme factor: multiply normalised mantissas in [1, 2). Scaling by powers of two
        // is exact, so this rounds exactly like the direct product.
        let f = WideProduct::normalised(factor, 0);
        let s = self.normalise();
        WideProduct::normalised(s.mantissa * f.mantissa, s.exponent + f.exponent)
    }

    /// The same value with mantissa in [1, 2) (or zero).
    #[inline]
    fn normalise(self) -> WideProduct {
        WideProduct::normalised(self.mantissa, self.exponent)
    }

    /// Whether the product is exactly zero (a factor was zero).
    pub(crate) fn is_zero(self) -> bool {
        self.mantissa == 0.0
    }

    /// Natural logarithm (−∞ for zero).
    #[cfg(test)]
    pub(crate) fn ln(self) -> f64 {
        self.mantissa.ln() + self.exponent as f64 * std::f64::consts::LN_2
    }

    /// Total order on the represented values.
    pub(crate) fn cmp_value(self, other: WideProduct) -> Ordering {
        let (a, b) = (self.normalise(), other.normalise());
        match (a.is_zero(), b.is_zero()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => a
                .exponent
                .cmp(&b.exponent)
                .then(a.mantissa.total_cmp(&b.mantissa)),
        }
    }

    /// The binary exponent `e` of `m · 2^e` (0 for zero).
    pub(crate) fn exponent(self) -> i64 {
        self.normalise().exponent
    }
}

/// `2^k` as an `f64` for `k` in the normal exponent range; callers keep `|k| ≤ 1000`.
pub(crate) fn pow2(k: i64) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + EXPONENT_BIAS) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lazy_bounds_are_the_powers_of_two() {
        assert_eq!(LAZY_LO, pow2(-500));
        assert_eq!(LAZY_HI, pow2(500));
    }

    #[test]
    fn survives_products_far_outside_the_f64_range() {
        let mut p = WideProduct::ONE;
        for _ in 0..5000 {
            p = p.times(1e-3);
        }
        assert!((p.ln() - 5000.0 * 1e-3f64.ln()).abs() < 1e-9 * 5000.0 * 7.0);
        let mut q = WideProduct::ONE;
        for _ in 0..5000 {
            q = q.times(1e3);
        }
        assert!((q.ln() + p.ln()).abs() < 1e-8);
        assert_eq!(p.cmp_value(q), Ordering::Less);
    }

    #[test]
    fn rounds_like_plain_multiplication_in_range() {
        let factors = [0.3, 1.7, 3.9, 0.011, 2.5, 1e-5, 3.3];
        let mut plain = 1.0f64;
        let mut wide = WideProduct::ONE;
        for f in factors {
            plain *= f;
            wide = wide.times(f);
        }
        let w = wide.normalise();
        assert_eq!(w.mantissa * pow2(w.exponent), plain);
    }

    #[test]
    fn handles_subnormal_factors_and_zero() {
        let tiny = f64::MIN_POSITIVE / 1024.0;
        let p = WideProduct::ONE.times(tiny);
        assert_eq!(p.exponent(), -1022 - 10);
        assert_eq!(p.normalise().mantissa, 1.0);
        let z = p.times(0.0);
        assert!(z.is_zero());
        assert_eq!(z.cmp_value(p), Ordering::Less);
        assert_eq!(z.ln(), f64::NEG_INFINITY);
    }
}
