//! Small statistics for the confidence intervals of the stochastic estimators: Student's t
//! quantile, sample mean and standard error.

use matexp_core::{Error, Result};

/// ln Γ(x) for x > 0 by the Lanczos approximation (g = 7, nine terms; relative error
/// below 2e−15 on the arguments used here, x = ν/2 and 1/2).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (modified Lentz), valid for
/// x < (a + 1)/(a + b + 2).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function I_x(a, b).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

/// P(T ≤ t) for Student's t with `df` degrees of freedom.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// The quantile t_{p, df} of Student's t distribution (P(T ≤ t) = p), by bisection on the
/// CDF (the incomplete beta function by its continued fraction): absolute error below 1e−12.
///
/// Errors: [`Error::InvalidArgument`] unless 0 < p < 1 and df ≥ 1.
///
/// ```
/// use matexp_graph::stats::student_t_quantile;
/// // Tabulated: t_{0.975, 10} = 2.228138851986…, t_{0.995, 1} = 63.656741162871…
/// assert!((student_t_quantile(0.975, 10.0)? - 2.228138851986).abs() < 1e-9);
/// assert!((student_t_quantile(0.995, 1.0)? - 63.656741162871).abs() < 1e-7);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn student_t_quantile(p: f64, df: f64) -> Result<f64> {
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::invalid(
            "p",
            p,
            "a probability strictly between 0 and 1",
        ));
    }
    if !(df >= 1.0 && df.is_finite()) {
        return Err(Error::invalid("df", df, "degrees of freedom must be ≥ 1"));
    }
    if p < 0.5 {
        return Ok(-student_t_quantile(1.0 - p, df)?);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while student_t_cdf(hi, df) < p {
        lo = hi;
        hi *= 2.0;
        if hi > 1e12 {
            break;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 * hi.max(1.0) {
            break;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Mean and standard error of the mean (sample standard deviation / √m).
pub(crate) fn mean_and_error(x: &[f64]) -> (f64, f64) {
    let m = x.len();
    if m == 0 {
        return (0.0, 0.0);
    }
    let mean = x.iter().sum::<f64>() / m as f64;
    if m == 1 {
        return (mean, 0.0);
    }
    let var = x.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / (m - 1) as f64;
    (mean, (var / m as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Values of R's qt().
        for (p, df, want) in [
            (0.975, 1.0, 12.706204736174707),
            (0.975, 5.0, 2.570581835636314),
            (0.975, 29.0, 2.045229642132703),
            (0.95, 9.0, 1.833112932653634),
            (0.995, 99.0, 2.626405456936238),
            (0.5, 7.0, 0.0),
        ] {
            let t = student_t_quantile(p, df).unwrap();
            assert!((t - want).abs() < 1e-9, "qt({p}, {df}) = {t}, want {want}");
        }
        assert!(student_t_quantile(0.025, 5.0).unwrap() + 2.570581835636314 < 1e-9);
    }

    #[test]
    fn t_quantile_rejects_nonsense() {
        assert!(student_t_quantile(1.0, 3.0).is_err());
        assert!(student_t_quantile(0.9, 0.5).is_err());
        assert!(student_t_quantile(f64::NAN, 3.0).is_err());
    }
}
