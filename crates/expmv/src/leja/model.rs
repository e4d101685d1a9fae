//! The a-priori convergence model of Newton interpolation of `e^{βξ}` at the Leja points of
//! [−2, 2]: how many points a substep needs, hence how long a substep may be.
//!
//! For `g(ξ) = e^{βξ}` (after the affine map, every substep interpolates such a function up to
//! a constant factor) the Newton form `Σ d_k ω_k(ξ)` has terms bounded on [−2, 2] by
//! `|d_k|·W_k`, `W_k = ∏_{j<k}|ξ_k − ξ_j|` (for Leja points `W_k = max_{[−2,2]}|ω_k|`). The
//! *model degree* `m(β, tol)` is the first `m` from which every pair of consecutive terms
//! stays below `tol·max_{[−2,2]}|g|` up to the last node computed. Taking the whole tail
//! (not the first small pair) matters: for oscillatory `g` (imaginary `β`) the first Leja
//! points (2, −2, 0, ±1, ±1.5, …) lie on coarse dyadic grids that alias `e^{iρξ}` to a
//! slowly varying function, and the terms can decay by five orders of magnitude before they
//! grow again — an early stop with an error of order one.
//!
//! Measured with the stable divided differences (`ρ = |β|`):
//!
//! | tol | real β: ρ = 8, 32, 128 | imaginary β: ρ = 8, 32, 128 |
//! |---|---|---|
//! | 1e−4 | 20, 34, 67 | 29, 84, 289 |
//! | 1e−8 | 28, 52, 98 | 37, 96, 305 |
//! | 1e−12 | 34, 63, 120 | 42, 104, 319 |
//!
//! Real `β` (diffusion) needs `O(√ρ)` points and the terms never exceed `max|g|` (no
//! cancellation), so long substeps are cheap; imaginary `β` (Schrödinger) needs about
//! `2ρ + O(ρ^{1/3})` points, and the terms exceed `max|g| = 1` by at most ≈ 20.

use matexp_core::{Result, c64};
use matexp_divdiff::{Affine, Function, Method, divided_differences};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// `W_k = ∏_{j<k}|ξ_k − ξ_j|` for the first `xi.len()` nodes.
pub(crate) fn node_products(xi: &[f64]) -> Vec<f64> {
    (0..xi.len())
        .map(|k| xi[..k].iter().map(|&x| (xi[k] - x).abs()).product())
        .collect()
}

/// The model degree from the terms' logarithms `log(|d_k|·W_k / max|g|)`: the first `m ≥ 1`
/// with `est_k + est_{k−1} ≤ tol` for every `k ≥ m` among the nodes given, or `None` if the
/// last pair is above `tol` (more nodes are needed).
pub(crate) fn tail_degree(log_terms: &[f64], tol: f64) -> Option<usize> {
    let n = log_terms.len();
    if n < 2 {
        return None;
    }
    let pair = |k: usize| log_terms[k].exp() + log_terms[k - 1].exp();
    if pair(n - 1) > tol {
        return None;
    }
    let mut m = 1;
    for k in (1..n - 1).rev() {
        if pair(k) > tol {
            m = k + 1;
            break;
        }
    }
    Some(m)
}

/// Model degree of `e^{βξ}` at `nodes` (a prefix of the Leja sequence), tolerance `tol`
/// relative to `max_{[−2,2]}|e^{βξ}|`. `None` when more than `nodes.len() − 1` points are
/// needed.
pub(crate) fn model_degree(beta: c64, tol: f64, nodes: &[f64], w: &[f64]) -> Result<Option<usize>> {
    // Shift by −2|Re β| so that max|g| = 1: e^{2ρ} would overflow for long real substeps.
    let alpha = c64::new(-2.0 * beta.re.abs(), 0.0);
    let logs: Vec<f64> = if beta.im == 0.0 {
        divided_differences(
            Function::Exp,
            Affine::new(alpha.re, beta.re),
            nodes,
            Method::Stable,
        )?
        .iter()
        .zip(w)
        .map(|(d, wk)| (d.abs() * wk).ln())
        .collect()
    } else {
        divided_differences(
            Function::Exp,
            Affine::new(alpha, beta),
            nodes,
            Method::Stable,
        )?
        .iter()
        .zip(w)
        .map(|(d, wk)| (d.norm() * wk).ln())
        .collect()
    };
    Ok(tail_degree(&logs, tol))
}

/// Key of the process-wide cache of [`max_radius`]: direction of β (radians, quantized),
/// tolerance bucket (exponent of a power of two ≤ tol), target degree, node count, and a
/// fingerprint of the nodes (Leja or conjugate Leja points).
type RadiusKey = (i64, i32, usize, usize, u64);

/// A fingerprint of a node sequence (its bit patterns folded).
fn fingerprint(nodes: &[f64]) -> u64 {
    nodes
        .iter()
        .fold(0u64, |h, x| h.rotate_left(7) ^ x.to_bits())
}

fn radius_cache() -> &'static Mutex<HashMap<RadiusKey, f64>> {
    static CACHE: OnceLock<Mutex<HashMap<RadiusKey, f64>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The largest `ρ` such that `e^{ρ·e^{iθ}ξ}` needs at most `target` points at tolerance
/// `tol` by [`model_degree`], to within 3 %. The tolerance is rounded down to a power of two
/// (a conservative bucket), and results are cached for the process: the search costs some
/// 25 stable divided-difference evaluations, about 5 from a good `guess` of the answer.
pub(crate) fn max_radius(
    theta: f64,
    tol: f64,
    target: usize,
    nodes: &[f64],
    guess: Option<f64>,
) -> Result<f64> {
    let bucket = tol.log2().floor().clamp(-1070.0, 0.0) as i32;
    let key = (
        (theta * 1e9).round() as i64,
        bucket,
        target,
        nodes.len(),
        fingerprint(nodes),
    );
    if let Some(&r) = radius_cache().lock().map_err(poisoned)?.get(&key) {
        return Ok(r);
    }
    let tol_b = 2f64.powi(bucket);
    let w = node_products(nodes);
    let dir = c64::from_polar(1.0, theta);
    let fits = |r: f64| -> Result<bool> {
        Ok(matches!(model_degree(dir * r, tol_b, nodes, &w)?, Some(m) if m <= target))
    };
    // Bracket: lo fits, hi does not. Tiny radii always fit when target ≥ the degree of a
    // near-constant function; if even that fails the caller's target is too small and the
    // smallest radius is returned (the substep loop then reports the failure).
    let (mut lo, mut hi) = match guess {
        // Walk from the guess by factors of 1.25 until the answer is bracketed.
        Some(g) if g.is_finite() && g > 1.0 / 64.0 => {
            let (mut lo, mut hi) = (g, g);
            if fits(g)? {
                loop {
                    hi = lo * 1.25;
                    if hi > 1.0e5 || !fits(hi)? {
                        break;
                    }
                    lo = hi;
                }
            } else {
                loop {
                    lo = hi / 1.25;
                    if lo <= 1.0 / 64.0 || fits(lo)? {
                        break;
                    }
                    hi = lo;
                }
            }
            (lo.max(1.0 / 64.0), hi)
        }
        _ => {
            // Bracket: lo fits, hi does not. Tiny radii always fit when target ≥ the degree
            // of a near-constant function; if even that fails the caller's target is too
            // small and the smallest radius is returned (the substep loop then reports the
            // failure).
            let mut lo = 1.0 / 64.0;
            if !fits(lo)? {
                radius_cache().lock().map_err(poisoned)?.insert(key, lo);
                return Ok(lo);
            }
            let mut hi = lo;
            while fits(hi)? {
                lo = hi;
                hi *= 2.0;
                if hi > 1.0e5 {
                    break;
                }
            }
            (lo, hi)
        }
    };
    while hi / lo > 1.03 {
        let mid = (lo * hi).sqrt();
        if fits(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    radius_cache().lock().map_err(poisoned)?.insert(key, lo);
    Ok(lo)
}

fn poisoned<T>(_: T) -> matexp_core::Error {
    matexp_core::Error::Unsupported("the Leja radius cache was poisoned by a panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_degree_ignores_an_isolated_dip() {
        // Terms 1, 1e-6, 1e-6, 1, 1e-9, 1e-9: the dip at 1..3 must not count.
        let logs: Vec<f64> = [1.0, 1e-6, 1e-6, 1.0, 1e-9, 1e-9, 1e-10]
            .iter()
            .map(|x: &f64| x.ln())
            .collect();
        assert_eq!(tail_degree(&logs, 1e-5), Some(5));
        assert_eq!(tail_degree(&logs, 1e-12), None);
    }

    #[test]
    fn model_matches_the_measured_table() {
        let nodes = matexp_leja::leja_points(400).unwrap();
        let w = node_products(nodes);
        // Real β = 32 at 1e-8 needs 52 points; imaginary β = 32 needs 96 (module table).
        let real = model_degree(c64::new(32.0, 0.0), 1e-8, nodes, &w)
            .unwrap()
            .unwrap();
        let imag = model_degree(c64::new(0.0, 32.0), 1e-8, nodes, &w)
            .unwrap()
            .unwrap();
        assert!((50..=56).contains(&real), "{real}");
        assert!((94..=100).contains(&imag), "{imag}");
        // The radius search inverts it.
        let r = max_radius(0.0, 1e-8, 52, &nodes[..121], None).unwrap();
        assert!((28.0..=36.0).contains(&r), "{r}");
    }
}
