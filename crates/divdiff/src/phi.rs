//! Pointwise values of `φ_k(z) = Σ_{j≥0} z^j/(j+k)!` (`φ_0 = exp`).

use crate::DdScalar;

/// `1/l!` for `l = 0..=MAX_PHI_ORDER`.
pub(crate) fn inv_factorial(l: usize) -> f64 {
    (1..=l).fold(1.0, |acc, i| acc / i as f64)
}

/// `φ_k(z)` to a small multiple of the unit roundoff (relative) for `k ≤ MAX_PHI_ORDER`.
///
/// Two regimes:
/// * `|z| < max(2, 2k)`: **scaling and modified squaring** (Skaflestad & Wright 2009). With
///   `w = z/2^s`, `|w| ≤ 1/2`, the series `φ_k(w) = Σ_i w^i/(i+k)!` (terms fall by a factor
///   `≥ 2(i+k)`), then the downward recurrence `φ_j(w) = 1/j! + w·φ_{j+1}(w)` (which damps
///   errors for `|w| ≤ 1/2`) gives `φ_0(w) … φ_k(w)`, and `s` doublings
///   `φ_j(2w) = 2^{−j}[φ_0(w)φ_j(w) + Σ_{i=1}^{j} φ_i(w)/(j−i)!]` reach `z`. For real `z`
///   every term is positive (`φ_j(x) = ∫₀¹ e^{(1−θ)x}θ^{j−1}/(j−1)! dθ > 0`), so each doubling
///   adds about `(j + 2)·u` relative error and nothing cancels: the plain series at `z`
///   instead cancels by `φ_k(|z|)/|φ_k(z)|`, ≈ 10⁶ at `k = 30`, `z = −60`. Cost
///   `O(k²·s)` with `s ≤ log₂(4k)`.
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
        scaled_phi(k, z)
    } else {
        let mut v = z.exp_of();
        for l in 0..k {
            v = (v - T::from_real(inv_factorial(l))) / z;
        }
        v
    }
}

/// `φ_k(z)` for `|z| < max(2, 2k)` by scaling and modified squaring (see [`phi_value`]).
fn scaled_phi<T: DdScalar>(k: usize, z: T) -> T {
    let r = z.modulus();
    let mut s = 0u32;
    while r / f64::from(1u32 << s) > 0.5 {
        s += 1;
    }
    let w = z.div_real(f64::from(1u32 << s));
    // φ_k(w) by its series, then φ_{k−1}(w) … φ_0(w) downward.
    let mut term = T::from_real(inv_factorial(k));
    let mut top = term;
    for i in 1..64 {
        term = (term * w).div_real((i + k) as f64);
        top += term;
        if term.modulus() <= 1e-18 * top.modulus() {
            break;
        }
    }
    let mut phis = vec![T::zero(); k + 1];
    phis[k] = top;
    for j in (0..k).rev() {
        phis[j] = T::from_real(inv_factorial(j)) + w * phis[j + 1];
    }
    let mut next = vec![T::zero(); k + 1];
    for _ in 0..s {
        let e = phis[0];
        for j in 0..=k {
            let mut acc = e * phis[j];
            for i in 1..=j {
                acc += phis[i] * T::from_real(inv_factorial(j - i));
            }
            // 2^{−j}: exact.
            next[j] = acc.div_real(2f64.powi(j as i32));
        }
        std::mem::swap(&mut phis, &mut next);
    }
    phis[k]
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
