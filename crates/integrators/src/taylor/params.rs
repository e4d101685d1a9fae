//! The choice of the Taylor degree m* and the number of steps s (Al-Mohy & Higham 2011,
//! Code Fragment 3.1).

/// What is known of ‖A − μI‖ (without the factor |t|).
#[derive(Debug, Clone)]
pub(crate) struct NormInfo {
    /// ‖A − μI‖ (a bound if `exact`, an estimate otherwise).
    pub(crate) norm: f64,
    /// d_p ≈ ‖(A − μI)^p‖^{1/p}, p = 1, …, p_max + 1 (index p − 1); empty when `exact`.
    pub(crate) d: Vec<f64>,
    /// Whether `norm` is a bound (Hermitian spectral bounds, or given by the caller).
    pub(crate) exact: bool,
}

/// (m*, s) minimizing the number of products m·s, for the operator τ(A − μI) of size
/// |τ|·‖A − μI‖.
///
/// With a norm bound, or when ‖τ(A − μI)‖ is small enough that the α_p would not pay for
/// themselves (the paper's condition (3.13) with ℓ = 2, n₀ = 1), s = ⌈‖·‖/θ_m⌉; otherwise the
/// smaller α_p = max(d_p, d_{p+1}) of nonnormal operators are used (eq. (3.11)).
pub(crate) fn select(
    info: &NormInfo,
    abs_tau: f64,
    theta: &[f64],
    m_max: usize,
    p_max: usize,
) -> (usize, f64) {
    let norm = abs_tau * info.norm;
    if norm == 0.0 {
        return (0, 1.0);
    }
    let cost = |m: usize, a: f64| -> f64 { (a / theta[m]).ceil() };
    let cond_3_13 = norm <= 4.0 * (p_max * (p_max + 3)) as f64 * theta[m_max] / m_max as f64;
    let (mut best_m, mut best_s) = (0usize, f64::INFINITY);
    if info.exact || cond_3_13 {
        for m in 1..=m_max {
            let s = cost(m, norm);
            if (m as f64) * s < best_m as f64 * best_s || best_m == 0 {
                best_m = m;
                best_s = s;
            }
        }
    } else {
        for p in 2..=p_max {
            let alpha = abs_tau * info.d[p - 1].max(info.d[p]);
            for m in (p * (p - 1) - 1).max(1)..=m_max {
                let s = cost(m, alpha);
                if (m as f64) * s < best_m as f64 * best_s || best_m == 0 {
                    best_m = m;
                    best_s = s;
                }
            }
        }
    }
    (best_m, best_s.max(1.0))
}
