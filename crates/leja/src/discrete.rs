//! Discrete Leja points: Leja points of a finite candidate set, by default a fine uniform
//! grid of [−2, 2] (the method of the GPU thesis and of Caliari–Vianello–Bergamaschi).
//!
//! Given candidates `x_0, …, x_{M−1}`, the first point is the candidate of largest modulus
//! and each further point maximises the Leja product over the candidates:
//!
//! `z_n = argmax_k ∏_{j<n} |x_k − z_j|`.
//!
//! **Ties** are broken towards the larger candidate, deterministically: `z_0 = 2` on
//! [−2, 2] (not −2), and of the symmetric pair `±(2/3)√3` the positive one is chosen (on
//! the exactly symmetric grid their products are equal in floating point too). Later
//! products that tie only in exact arithmetic are decided by the rounding of the fixed
//! order of multiplications.
//!
//! **Cost** `O(n·M)` flops and `O(M)` memory: one pass over the candidates per point updates
//! every product by one factor and finds the maximum.
//!
//! **Range** The products are kept as plain `f64` and rescaled by an exact power of two
//! whenever their maximum leaves [2⁻²⁰⁰, 2²⁰⁰]. Power-of-two scaling is exact, so every
//! comparison is the one an unbounded-exponent float would make; products 2⁻⁸⁰⁰ below the
//! maximum may flush to zero, which can only matter once nearly every candidate is chosen.
//!
//! **Accuracy** A discrete point is within the grid spacing `4/(M−1)` of a maximiser over
//! the grid, not over the interval. Leja points cluster at the endpoints with spacing about
//! `2π²/n²`, so the first `n ≲ √M` points resolve like the continuous sequence and later
//! ones are forced onto grid points; [`crate::fast_leja_points`] has no grid and no such
//! limit.

use crate::wide::{WideProduct, pow2};
use matexp_core::{Error, Result};

/// `m ≥ 2` equispaced points of [−2, 2], ascending: `x_k = 2(2k − (m−1))/(m−1)`.
///
/// The formula makes the grid exactly symmetric (`x_{m−1−k} = −x_k` in floating point),
/// contains ±2 exactly, and contains 0 exactly when `m` is odd.
///
/// # Errors
/// [`Error::InvalidArgument`] if `m < 2` or `m ≥ 2⁵²` (the integers would not be exact).
pub fn uniform_grid(m: usize) -> Result<Vec<f64>> {
    if m < 2 {
        return Err(Error::invalid(
            "grid",
            m,
            "a grid of [-2, 2] needs at least its two endpoints",
        ));
    }
    if m as u64 >= 1 << 52 {
        return Err(Error::invalid(
            "grid",
            m,
            "grid too large for exact integer arithmetic",
        ));
    }
    let denom = (m - 1) as f64;
    Ok((0..m)
        .map(|k| 2.0 * (2.0 * k as f64 - denom) / denom)
        .collect())
}

/// The first `n` discrete Leja points of [−2, 2] on the uniform grid of `grid` points
/// ([`uniform_grid`]): `2, −2, 0, ≈(2/3)√3, ≈−1.3174, …` (use an odd `grid` so that 0 is a
/// grid point; later points are grid points within the grid spacing of the continuous
/// maximiser while the grid resolves them).
///
/// # Errors
/// [`Error::InvalidArgument`] if `n = 0`, if `grid < 2`, or if `grid < n` (the grid is too
/// small for the number of points).
///
/// ```
/// let z = matexp_leja::discrete_leja_points(5, 100_001)?;
/// assert_eq!(&z[..3], &[2.0, -2.0, 0.0]);
/// let t = 2.0 / 3.0 * 3f64.sqrt();
/// assert!((z[3] - t).abs() <= 4e-5 && z[4] < -1.3);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn discrete_leja_points(n: usize, grid: usize) -> Result<Vec<f64>> {
    check_count(n)?;
    if grid < n {
        return Err(Error::invalid(
            "grid",
            grid,
            format!(
                "grid too small for the number of points: {n} points need at least {n} grid points"
            ),
        ));
    }
    let candidates = uniform_grid(grid)?;
    leja_order_unchecked(&candidates, n)
}

/// The first `n` discrete Leja points of an arbitrary finite set of real `candidates` (a
/// *Leja ordering* of them when `n` equals their number): `z_0` is the candidate of largest
/// modulus and `z_n` maximises `∏_{j<n}|x − z_j|` over the candidates, ties to the larger.
///
/// # Errors
/// [`Error::InvalidArgument`] if `n = 0`, if there are fewer candidates than `n`, or if two
/// candidates are equal (a point could otherwise be chosen twice); [`Error::NonFinite`] for
/// a NaN or infinite candidate.
pub fn leja_ordering(candidates: &[f64], n: usize) -> Result<Vec<f64>> {
    check_count(n)?;
    if candidates.len() < n {
        return Err(Error::invalid(
            "candidates",
            format!("{} values", candidates.len()),
            format!("too few candidates for the number of points: {n} points requested"),
        ));
    }
    if let Some(i) = candidates.iter().position(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            context: "leja_ordering candidates".into(),
            index: i,
            value: candidates[i].to_string(),
        });
    }
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&i, &j| candidates[i].total_cmp(&candidates[j]));
    for w in order.windows(2) {
        // total_cmp separates −0.0 from 0.0; as points they coincide.
        if candidates[w[0]] == candidates[w[1]] {
            return Err(Error::invalid(
                "candidates",
                candidates[w[0]],
                format!(
                    "duplicate candidate (indices {} and {}): Leja points must be distinct",
                    w[0].min(w[1]),
                    w[0].max(w[1])
                ),
            ));
        }
    }
    leja_order_unchecked(candidates, n)
}

pub(crate) fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            n,
            "zero points requested: need at least one Leja point",
        ));
    }
    Ok(())
}

/// Rescale the products when their maximum leaves [2^-LIMIT, 2^LIMIT].
const RESCALE_LIMIT: i64 = 200;

/// Greedy maximisation over distinct finite candidates, `1 ≤ n ≤ candidates.len()`.
fn leja_order_unchecked(x: &[f64], n: usize) -> Result<Vec<f64>> {
    let mut best = 0;
    for k in 1..x.len() {
        let (a, b) = (x[k].abs(), x[best].abs());
        if a > b || (a == b && x[k] > x[best]) {
            best = k;
        }
    }
    let mut points = Vec::with_capacity(n);
    points.push(x[best]);
    // prod[k] = ∏_{j<len} |x_k − z_j| · 2^(−shift); chosen candidates hold exactly 0
    // because their own factor |x_k − z_k| is 0.
    let mut prod = vec![1.0f64; x.len()];
    while points.len() < n {
        let z = points[points.len() - 1];
        let mut best = 0;
        let mut best_val = -1.0f64;
        for (k, (p, &xk)) in prod.iter_mut().zip(x).enumerate() {
            *p *= (xk - z).abs();
            if *p > best_val || (*p == best_val && xk > x[best]) {
                best = k;
                best_val = *p;
            }
        }
        if best_val <= 0.0 {
            return Err(Error::NoConvergence {
                method: "discrete Leja points",
                detail: format!(
                    "after {} points every remaining Leja product underflowed; use fewer points \
                     or more candidates",
                    points.len()
                ),
            });
        }
        points.push(x[best]);
        let e = WideProduct::ONE.times(best_val).exponent();
        if e.abs() > RESCALE_LIMIT {
            let s = pow2(-e);
            prod.iter_mut().for_each(|p| *p *= s);
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_is_exactly_symmetric() {
        for m in [2, 3, 10, 11, 1001] {
            let g = uniform_grid(m).unwrap();
            assert_eq!(g[0], -2.0);
            assert_eq!(g[m - 1], 2.0);
            for k in 0..m {
                assert_eq!(g[k], -g[m - 1 - k]);
            }
            assert!(g.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(uniform_grid(101).unwrap().contains(&0.0));
    }

    #[test]
    fn ordering_of_all_candidates_is_a_permutation() {
        let c = [0.5, -1.0, 3.0, 2.0, -2.5];
        let mut z = leja_ordering(&c, 5).unwrap();
        assert_eq!(z[0], 3.0);
        assert_eq!(z[1], -2.5);
        z.sort_by(f64::total_cmp);
        assert_eq!(z, vec![-2.5, -1.0, 0.5, 2.0, 3.0]);
    }
}
