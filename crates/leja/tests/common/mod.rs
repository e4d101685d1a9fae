//! Independent references for the tests: direct products and the arcsine law.
#![allow(dead_code)]

use matexp_core::c64;
use std::f64::consts::PI;

/// ∏_{j<n} |x − z_j| by direct multiplication (small n only).
pub fn direct_product(x: f64, z: &[f64]) -> f64 {
    z.iter().map(|&zj| (x - zj).abs()).product()
}

/// log ∏_{j<n} |z_n − z_j|: the Leja product of the n-th point, as a sum of logarithms.
pub fn log_leja_product(z: &[f64], n: usize) -> f64 {
    (0..n).map(|j| (z[n] - z[j]).abs().ln()).sum()
}

/// Same for complex points.
pub fn log_leja_product_c(z: &[c64], n: usize) -> f64 {
    (0..n).map(|j| (z[n] - z[j]).norm().ln()).sum()
}

/// Kolmogorov distance between the empirical distribution of `z` and the arcsine law
/// F(x) = 1/2 + asin(x/2)/π, the equilibrium measure of [−2, 2].
pub fn arcsine_distance(z: &[f64]) -> f64 {
    let mut s = z.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let mut d: f64 = 0.0;
    for (i, x) in s.iter().enumerate() {
        let f = 0.5 + (x / 2.0).clamp(-1.0, 1.0).asin() / PI;
        d = d
            .max((f - i as f64 / n).abs())
            .max((f - (i + 1) as f64 / n).abs());
    }
    d
}
