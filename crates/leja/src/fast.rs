//! Fast Leja points (Baglama, Calvetti, Reichel, ETNA 7, 1998).
//!
//! Instead of a fixed grid, the candidates are the midpoints of the gaps between consecutive
//! chosen points. Starting from `z_0 = 2`, `z_1 = −2`, the candidate set is `{0}`; when the
//! candidate `t` of gap `(l, r)` is chosen it is replaced by the midpoints of `(l, t)` and
//! `(t, r)`. Each candidate carries its Leja product `∏_{j<n}|t − z_j|`, updated by one
//! factor per new point, so a step costs `O(n)`: the two new candidates' products from
//! scratch plus one factor for each of the `n − 1` others.
//!
//! * Cost `O(n²)` flops, `O(n)` memory, no grid: the resolution refines itself where the
//!   points cluster (near ±2, spacing ≈ 2π²/n²).
//! * The sequence is prefix-consistent (the first `k` of `n` points do not depend on `n`)
//!   and bit-for-bit reproducible: midpoints, absolute differences, products and exact
//!   power-of-two rescalings are correctly rounded IEEE-754 operations, and the maximiser is
//!   chosen by a total order.
//! * Ties go to the larger candidate: `z_0 = 2` and `z_3 = +1`. Products that tie in exact
//!   arithmetic but are separated by rounding (symmetric configurations recur) are decided
//!   by the rounding of the fixed order of multiplications: deterministic, not symmetric.
//! * The points are *not* the continuous Leja points of [−2, 2]: `z_0, z_1, z_2 = 2, −2, 0`
//!   agree, but `z_3 = 1` (the midpoint of [0, 2]) where the Leja point is `(2/3)√3`.
//!   Baglama–Calvetti–Reichel report that they share the asymptotic distribution of Leja
//!   points (the arcsine law) and the subexponential growth of the Leja product, which is
//!   what interpolation needs; the crate's tests check both.

use crate::discrete::check_count;
use crate::wide::WideProduct;
use matexp_core::{Error, Result};
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Midpoint of the gap `(left, right)` between consecutive chosen points.
    x: f64,
    left: f64,
    right: f64,
    /// ∏ |x − z_j| over the chosen points.
    product: WideProduct,
}

/// `∏_j |x − z_j|`, multiplied in the order of the points (the order fixes the rounding, and
/// with it the sequence).
fn product_over(x: f64, points: &[f64]) -> WideProduct {
    points
        .iter()
        .fold(WideProduct::ONE, |p, &z| p.times((x - z).abs()))
}

/// The first `n` fast Leja points of [−2, 2]: `2, −2, 0, 1, −1, …`.
///
/// # Errors
/// [`Error::InvalidArgument`] if `n = 0`; [`Error::NoConvergence`] if the gaps shrink below
/// the floating-point spacing so that no new distinct point exists (far beyond any useful
/// `n`: the smallest gap after 10⁴ points is ≈ 10⁻⁷).
///
/// ```
/// let z = matexp_leja::fast_leja_points(6)?;
/// assert_eq!(z, vec![2.0, -2.0, 0.0, 1.0, -1.0, z[5]]);
/// assert!(z[5].abs() > 1.0 && z[5].abs() < 2.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn fast_leja_points(n: usize) -> Result<Vec<f64>> {
    check_count(n)?;
    let mut points = Vec::with_capacity(n);
    points.push(2.0);
    if n == 1 {
        return Ok(points);
    }
    points.push(-2.0);
    let mut candidates = Vec::with_capacity(n);
    candidates.push(Candidate {
        x: 0.0,
        left: -2.0,
        right: 2.0,
        product: product_over(0.0, &points),
    });
    let mut best = 0;
    while points.len() < n {
        let chosen = candidates.swap_remove(best);
        let t = chosen.x;
        if chosen.product.is_zero() || t <= chosen.left || t >= chosen.right {
            return Err(Error::NoConvergence {
                method: "fast Leja points",
                detail: format!(
                    "after {} points the gap ({}, {}) has no floating-point midpoint",
                    points.len(),
                    chosen.left,
                    chosen.right
                ),
            });
        }
        points.push(t);
        // One pass: multiply in the new factor and find the next maximiser.
        best = usize::MAX;
        for k in 0..candidates.len() {
            let c = &mut candidates[k];
            c.product = c.product.times((c.x - t).abs());
            if best == usize::MAX || beats(&candidates[k], &candidates[best]) {
                best = k;
            }
        }
        for (left, right) in [(chosen.left, t), (t, chosen.right)] {
            let x = (left + right) / 2.0;
            candidates.push(Candidate {
                x,
                left,
                right,
                product: product_over(x, &points),
            });
            let k = candidates.len() - 1;
            if best == usize::MAX || beats(&candidates[k], &candidates[best]) {
                best = k;
            }
        }
    }
    Ok(points)
}

/// Larger product wins; equal products go to the larger point.
#[inline]
fn beats(a: &Candidate, b: &Candidate) -> bool {
    a.product.cmp_value(b.product).then(a.x.total_cmp(&b.x)) == Ordering::Greater
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_points_follow_the_midpoint_rule() {
        let z = fast_leja_points(8).unwrap();
        assert_eq!(&z[..5], &[2.0, -2.0, 0.0, 1.0, -1.0]);
        // After 2, −2, 0, ±1 the gap midpoints are ±0.5 and ±1.5; ±1.5 win.
        assert_eq!(z[5].abs(), 1.5);
        assert_eq!(z[6], -z[5]);
    }

    #[test]
    fn prefix_consistent() {
        let long = fast_leja_points(300).unwrap();
        let short = fast_leja_points(77).unwrap();
        assert_eq!(&long[..77], &short[..]);
    }
}
