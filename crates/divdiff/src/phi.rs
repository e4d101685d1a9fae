//! Pointwise values of `φ_k(z) = Σ_{j≥0} z^j/(j+k)!` (`φ_0 = exp`).

use crate::DdScalar;

/// `1/l!` for `l = 0..=MAX_PHI_ORDER`.
pub(crate) fn inv_factorial(l: usize) -> f64 {
    (1..=l).fold(1.0, |acc, i| acc / i as f64)
}

/// `φ_k(z)`, accurate to a small multiple of the unit roundoff (relative) for `k ≤ 16`.
///
/// Two regimes, split where neither loses more than about two digits:
/// * `|z| < max(2, 2k)`: the Taylor series `Σ z^j/(j+k)!` (cancellation is bounded by
///   `φ_k(|z|)/|φ_k(z)|`, at most ≈ 50 for `k ≤ 4` and a few thousand for `k = 16`);
/// * otherwise `e^z` followed by the upward recurrence `φ_{l+1}(z) = (φ_l(z) − 1/l!)/z`, whose
///   error amplification per step is `≈ 2(l+1)/|z| ≤ 1` in this region.
///
/// Returns `±∞`/NaN when `e^z` overflows; callers check.
pub(crate) fn phi_value<T: DdScalar>(k: usize, z: T) -> T {
    if k == 0 {
        return z.exp_of();
    }
    let r = z.modulus();
    let split = (2 * k).max(2) as f64;
    if r < split {
        let mut term = T::from_real(inv_factorial(k));
        let mut sum = term;
        for j in 1..600 {
            term = (term * z).div_real((j + k) as f64);
            sum += term;
            // Terms decrease once j + k > |z|; stop when the next ones cannot change the sum.
            if (j + k) as f64 > r && term.modulus() <= 1e-18 * sum.modulus() {
                break;
            }
            if term == T::zero() {
                break;
            }
        }
        sum
    } else {
        let mut v = z.exp_of();
        for l in 0..k {
            v = (v - T::from_real(inv_factorial(l))) / z;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::c64;

    #[test]
    fn closed_forms_of_phi1_phi2() {
        for &z in &[-30.0, -5.0, -2.5, -1.0, -1e-3, 0.0, 1e-3, 0.7, 3.0, 10.0] {
            let p1 = if z == 0.0 { 1.0 } else { f64::exp_m1(z) / z };
            assert!((phi_value(1, z) - p1).abs() <= 1e-15 * p1.abs(), "φ1({z})");
            if z.abs() > 0.5 {
                let p2 = (f64::exp_m1(z) - z) / (z * z);
                assert!((phi_value(2, z) - p2).abs() <= 1e-14 * p2.abs(), "φ2({z})");
            }
        }
        assert_eq!(phi_value(3, 0.0), 1.0 / 6.0);
    }

    #[test]
    fn complex_argument_matches_recurrence_identity() {
        // φ_k(z) = z φ_{k+1}(z) + 1/k! on both sides of the regime split.
        for &z in &[
            c64::new(0.3, 1.9),
            c64::new(-4.0, 3.0),
            c64::new(0.0, 7.5),
            c64::new(12.0, -9.0),
        ] {
            for k in 0..6 {
                let lhs = phi_value(k, z);
                let rhs = z * phi_value(k + 1, z) + c64::new(inv_factorial(k), 0.0);
                let scale = lhs.norm() + (z * phi_value(k + 1, z)).norm();
                assert!((lhs - rhs).norm() <= 1e-14 * scale, "k={k} z={z}");
            }
        }
    }
}
