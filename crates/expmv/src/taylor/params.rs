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
) -> Choice {
    let norm = abs_tau * info.norm;
    if norm == 0.0 {
        return Choice {
            m: 0,
            s: 1.0,
            size: 0.0,
        };
    }
    let cost = |m: usize, a: f64| -> f64 { (a / theta[m]).ceil() };
    let cond_3_13 = norm <= 4.0 * (p_max * (p_max + 3)) as f64 * theta[m_max] / m_max as f64;
    let (mut best_m, mut best_s, mut size) = (0usize, f64::INFINITY, norm);
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
                    size = alpha;
                }
            }
        }
    }
    Choice {
        m: best_m,
        s: best_s.max(1.0),
        size,
    }
}

/// A choice of degree m and steps s, and the size (‖τ(A − μI)‖ or α_{p*}) it was made for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Choice {
    pub(crate) m: usize,
    pub(crate) s: f64,
    pub(crate) size: f64,
}

/// Rounding guard (not in the paper): summing the terms of one step, of size up to
/// θ^j/j!·‖F‖ ≤ e^θ‖F‖/√(2πθ) with θ = size/s, commits errors ≈ u·e^θ/√(2πθ) relative to
/// ‖F‖, which add up over the steps when the spectrum of τ(A − μI) is not real (oscillatory
/// or non-normal problems, where no step damps them). They add up *linearly* in s: the same
/// operator and the same coefficients make the error of every step alike (a systematic
/// phase error for e^{−iτH}), not a random walk — measured on the accuracy suite's
/// tight-binding chain at τ‖H‖ = 10⁴, where a √s model underestimated the error by a factor 8. While
/// s·u·e^θ/√(2πθ) exceeds `budget`, s is doubled and the smallest sufficient m re-chosen:
/// e^θ falls much faster than s grows, so one or two doublings suffice; the number of
/// products grows only at tight tolerances with ‖τA‖ ≳ 10³ (in double precision; `u` is the
/// unit roundoff of the working precision, and single precision needs the guard much earlier).
pub(crate) fn guard_rounding(
    mut c: Choice,
    theta: &[f64],
    m_max: usize,
    budget: f64,
    max_s: f64,
    u: f64,
) -> Choice {
    if c.m == 0 {
        return c;
    }
    let estimate = |c: &Choice| {
        let th = (c.size / c.s).max(1e-300);
        u * c.s * th.exp() / (2.0 * std::f64::consts::PI * th).sqrt().max(1.0)
    };
    // s·e^{size/s} is smallest at θ = 1: below that, more steps only add rounding, so the
    // doubling stops there even if the budget is not met (the tolerance is then beyond what
    // the working precision allows for this ‖τA‖, and the rounding floor of the report says so).
    while estimate(&c) > budget && 2.0 * c.s <= max_s {
        let mut next = c;
        next.s *= 2.0;
        if estimate(&next) >= estimate(&c) {
            break;
        }
        let per_step = next.size / next.s;
        next.m = (1..=m_max).find(|&m| theta[m] >= per_step).unwrap_or(m_max);
        c = next;
    }
    c
}
