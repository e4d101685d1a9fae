//! θ_m(tol): how far the degree-m Taylor polynomial can be pushed with backward error ≤ tol.
//!
//! Al-Mohy & Higham (2011, §3): T_m(2^{-s}·A)^{2^s} = e^{A + ΔA} with
//! ‖ΔA‖/‖A‖ ≤ h̃_{m+1}(θ)/θ for ‖2^{-s}A‖ ≤ θ, where h_{m+1}(x) = log(e^{−x}T_m(x)) =
//! Σ_{k≥m+1} c_k x^k and h̃_{m+1}(x) = Σ |c_k| x^k. θ_m = max{θ : h̃_{m+1}(θ)/θ ≤ tol}.
//!
//! The paper tabulates θ_m for u = 2⁻²⁴ and 2⁻⁵³ only (computed in 250-digit arithmetic);
//! here θ_m is computed for the requested tolerance. The coefficients of
//! r(x) = 1 − e^{−x}T_m(x) have the closed form r_n = (−1)^{n−m−1}·C(n−1, m)/n! (an
//! alternating binomial partial sum), so no cancellation arises there; the log series
//! follows from n·L_n = n·g_n − Σ k·L_k·g_{n−k} (g = 1 − r), whose terms are products of
//! these and stay accurate in double precision (the tests reproduce the published table).
//! Tables are cached per tolerance.

use std::sync::{Arc, Mutex};

/// Number of series terms beyond m: the terms decay like (θ/ρ)^k with ρ the radius of
/// convergence (the smallest zero of T_m); for tolerances ≤ [`MAX_TOL`] and m ≤ 60, 400
/// terms plus a geometric bound on the rest give θ_m to within 1 %, never above the value
/// from 800 terms (checked by the tests).
const EXTRA_TERMS: usize = 400;

/// Loosest tolerance θ_m is computed for (see [`taylor_theta`]).
const MAX_TOL: f64 = 1e-4;

/// θ_m for the backward-error tolerance `tol`: the largest θ with h̃_{m+1}(θ)/θ ≤ tol.
///
/// Tolerances above 10⁻⁴ are treated as 10⁻⁴: looser ones push θ_m towards the radius of
/// convergence of the series (the smallest zero of T_m), where it cannot be summed reliably,
/// for at most ~10 % larger steps. Valid for m ≤ 60. Returns 0 for m = 0 or a tolerance
/// that is not a positive finite number.
///
/// ```
/// use matexp_expmv::taylor_theta;
/// // Al-Mohy & Higham (2011), Table 3.1, u = 2⁻⁵³: θ₅₅ = 9.9.
/// assert!((taylor_theta(55, 2f64.powi(-53)) - 9.9).abs() < 0.05);
/// ```
pub fn taylor_theta(m: usize, tol: f64) -> f64 {
    theta_with_terms(m, tol, EXTRA_TERMS)
}

fn theta_with_terms(m: usize, tol: f64, extra: usize) -> f64 {
    if m == 0 || !(tol.is_finite() && tol > 0.0) {
        return 0.0;
    }
    let tol = tol.min(MAX_TOL);
    let theta0 = 0.3 * m as f64 + 1.0;
    let kmax = m + extra;
    // ĝ_n = g_n·θ0^n for n = 0..=kmax (g_0 = 1, g_n = −r_n for n > m, 0 otherwise).
    let mut g = vec![0.0f64; kmax + 1];
    g[0] = 1.0;
    // |r̂_{m+1}| = θ0^{m+1}/(m+1)!, then |r̂_{n+1}|/|r̂_n| = n/(n−m)·θ0/(n+1).
    let mut log_mag: f64 = (1..=m + 1).map(|i| (theta0 / i as f64).ln()).sum();
    for n in (m + 1)..=kmax {
        if n > m + 1 {
            let nm1 = (n - 1) as f64;
            log_mag += (nm1 / (nm1 - m as f64)).ln() + (theta0 / n as f64).ln();
        }
        let sign = if (n - m - 1) % 2 == 0 { 1.0 } else { -1.0 };
        g[n] = -sign * log_mag.exp();
    }
    // L̂_n = L_n·θ0^n, log g = Σ L_n x^n.
    let mut l = vec![0.0f64; kmax + 1];
    for n in (m + 1)..=kmax {
        let mut acc = n as f64 * g[n];
        for k in (m + 1)..n.saturating_sub(m) {
            acc -= k as f64 * l[k] * g[n - k];
        }
        l[n] = acc / n as f64;
    }
    let h_over_theta = |theta: f64| -> f64 {
        const BLOCK: usize = 20;
        let q = theta / theta0;
        let mut pw = q.powi(m as i32 + 1);
        let (mut s, mut blocks) = (0.0, [0.0f64; 2]);
        for (i, &ln) in l[(m + 1)..].iter().enumerate() {
            let term = ln.abs() * pw;
            s += term;
            if i + 2 * BLOCK >= kmax - m {
                blocks[usize::from(i + BLOCK >= kmax - m)] += term;
            }
            pw *= q;
        }
        // Geometric bound on the neglected tail from the decay of the last two blocks of
        // terms (blocks smooth out the oscillation of |c_k|). It matters only near the
        // radius of convergence (loose tolerances, large m); a tail that does not decay
        // means θ is beyond the radius.
        let rho = if blocks[0] > 0.0 {
            blocks[1] / blocks[0]
        } else {
            0.0
        };
        if rho >= 1.0 {
            return f64::INFINITY;
        }
        (s + blocks[1] * rho / (1.0 - rho)) / theta
    };
    // h̃/θ increases with θ: bisection in log θ between a point below and one above.
    let (mut lo, mut hi) = (1e-30f64, theta0);
    if h_over_theta(hi) <= tol {
        return hi;
    }
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if h_over_theta(mid) <= tol {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo < 1.0 + 1e-12 {
            break;
        }
    }
    lo
}

type Table = Arc<Vec<f64>>;

static CACHE: Mutex<Vec<(u64, usize, Table)>> = Mutex::new(Vec::new());

/// [θ_0 = 0, θ_1, …, θ_{m_max}] for `tol`, computed once per (tol, m_max).
pub(crate) fn theta_table(tol: f64, m_max: usize) -> Table {
    let key = tol.to_bits();
    {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, t)) = cache.iter().find(|(k, mm, _)| *k == key && *mm >= m_max) {
            return t.clone();
        }
    }
    let mut t = vec![0.0];
    t.extend((1..=m_max).map(|m| taylor_theta(m, tol)));
    let t = Arc::new(t);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() > 64 {
        cache.remove(0);
    }
    cache.push((key, m_max, t.clone()));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_series_is_conservative_and_close() {
        for tol in [2f64.powi(-53), 2f64.powi(-24), 1e-8, 1e-4] {
            for m in [1, 5, 20, 55, 60] {
                let a = theta_with_terms(m, tol, EXTRA_TERMS);
                let b = theta_with_terms(m, tol, 2 * EXTRA_TERMS);
                // Never larger (the tail bound is conservative), and at most 1 % smaller.
                assert!(
                    a <= b * (1.0 + 1e-9) && a >= 0.99 * b,
                    "m={m}, tol={tol:e}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn theta_grows_with_m_and_tol() {
        let t = theta_table(1e-8, 55);
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert!(taylor_theta(30, 1e-8) < taylor_theta(30, 1e-6));
        assert_eq!(taylor_theta(0, 1e-8), 0.0);
        assert_eq!(taylor_theta(5, f64::NAN), 0.0);
        assert_eq!(taylor_theta(40, 0.5), taylor_theta(40, MAX_TOL));
    }
}
