//! The matrix exponential by scaling and squaring with Padé approximants
//! (Al-Mohy & Higham, "A new scaling and squaring algorithm for the matrix exponential",
//! SIAM J. Matrix Anal. Appl. 31(3), 2009, Algorithm 6.1 — the algorithm of MATLAB's `expm`
//! since R2015 and of SciPy's `expm`).

use crate::Matrix;
use crate::lu::solve_in_place;
use crate::wide::{Wide, WideScalar};
use matexp_core::{Result, Scalar, c64};

/// θ_m: the largest ‖2^{-s}A‖ for which the [m/m] Padé approximant has backward error
/// ≤ u = 2⁻⁵³ (Al-Mohy & Higham 2009, Table 3.1; θ₁₃ = 4.25 as in their Algorithm 6.1).
pub const THETA: [(usize, f64); 5] = [
    (3, 1.495585217958292e-2),
    (5, 2.539398330063230e-1),
    (7, 9.504178996162932e-1),
    (9, 2.097847961257068e0),
    (13, 4.25),
];

/// 1/|c_{2m+1}|, where c_{2m+1} is the leading coefficient of the Padé error series
/// e^x − r_m(x) = c_{2m+1} x^{2m+1} + …; used by the ℓ correction (2009 paper, eq. (5.1)).
fn c_recip(m: usize) -> f64 {
    match m {
        3 => 100800.0,
        5 => 10059033600.0,
        7 => 4487938430976000.0,
        9 => 5914384781877411840000.0,
        13 => 113250775606021113483283660800000000.0,
        _ => unreachable!("Padé degree {m} is not in the table"),
    }
}

/// Coefficients b_0..b_m of the numerator p_m(x) = Σ b_j x^j of the [m/m] Padé approximant
/// (q_m(x) = p_m(−x)).
fn pade_coefficients(m: usize) -> &'static [f64] {
    match m {
        3 => &[120.0, 60.0, 12.0, 1.0],
        5 => &[30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
        7 => &[
            17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0,
        ],
        9 => &[
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
        13 => &[
            64764752532480000.0,
            32382376266240000.0,
            7771770303897600.0,
            1187353796428800.0,
            129060195264000.0,
            10559470521600.0,
            670442572800.0,
            33522128640.0,
            1323241920.0,
            40840800.0,
            960960.0,
            16380.0,
            182.0,
            1.0,
        ],
        _ => unreachable!("Padé degree {m} is not in the table"),
    }
}

/// What [`expm_with_info`] chose: the Padé degree m ∈ {0, 3, 5, 7, 9, 13} (0 for A = 0) and
/// the number s of squarings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpmInfo {
    /// Degree m of the [m/m] Padé approximant used.
    pub pade_degree: usize,
    /// Number of squarings s (the approximant was evaluated at 2^{-s}A).
    pub squarings: u32,
}

/// The matrix exponential e^A.
///
/// **Method.** Scaling and squaring with [m/m] Padé approximants, m ∈ {3, 5, 7, 9, 13}
/// (Al-Mohy & Higham 2009, Algorithm 6.1): the degree and the scaling 2^{-s} are chosen from
/// η = max(‖A^p‖₁^{1/p}, ‖A^{p+1}‖₁^{1/(p+1)}) rather than from ‖A‖₁ (much less scaling for
/// nonnormal matrices, hence less "overscaling"), and s is then increased by the
/// ℓ correction ℓ = ⌈log₂(α/u)/(2m)⌉, α = ‖|A|^{2m+1}‖₁/(‖A‖₁|c_{2m+1}|), which guards
/// against the rounding error of the Padé evaluation. r_m = p_m/q_m is evaluated as
/// Q⁻¹P with P = V + U, Q = V − U by LU with partial pivoting (pure Rust, or LAPACK's
/// `?getrf2`/`?getrs` with the `lapack` feature), and squared s times. For an
/// upper triangular A the diagonal and first superdiagonal are recomputed exactly after each
/// squaring (the paper's Code Fragment 2.1), which keeps e.g. Jordan blocks accurate.
/// The 1-norms of A⁴, A⁶, A⁸, A¹⁰ are computed exactly (the paper estimates the last two;
/// exact norms choose the same or larger s, so the bounds still hold).
///
/// **Precision.** Computed in `f64` for real and `c64` for complex input; `f32`/`c32` are
/// promoted and the result rounded back.
///
/// **Cost.** About (6 + ⌈π_m⌉ + s)·2n³ flops (π₁₃ = 6 products), plus O(m·n²) for ℓ.
///
/// **Accuracy.** Backward error ≤ u‖A‖₁ in exact arithmetic; forward error
/// ≲ κ_exp(A)·u‖e^A‖, with κ_exp the condition number of the exponential (≈ ‖A‖ for normal
/// A; larger for strongly nonnormal A).
///
/// # Errors
///
/// [`Error::DimensionMismatch`](matexp_core::Error::DimensionMismatch) if A is not square,
/// [`Error::NonFinite`](matexp_core::Error::NonFinite) if A has a NaN/∞ entry or e^A overflows,
/// [`Error::Lapack`](matexp_core::Error::Lapack) if the Padé denominator is singular (cannot
/// happen for the chosen degrees in exact arithmetic).
///
/// ```
/// use matexp_dense::{Matrix, expm};
/// // exp([[0, −θ], [θ, 0]]) is the rotation by θ.
/// let th = 0.75f64;
/// let g = Matrix::from_row_major(2, 2, &[0.0, -th, th, 0.0])?;
/// let r = expm(&g)?;
/// assert!((r[(0, 0)] - th.cos()).abs() < 1e-15);
/// assert!((r[(1, 0)] - th.sin()).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn expm<S: Scalar>(a: &Matrix<S>) -> Result<Matrix<S>> {
    expm_with_info(a).map(|(x, _)| x)
}

/// [`expm`] that also reports the Padé degree and the number of squarings it chose.
///
/// # Errors
///
/// As [`expm`].
///
/// ```
/// use matexp_dense::{Matrix, expm_with_info};
/// let a = Matrix::<f64>::from_row_major(2, 2, &[-100.0, 1.0, 0.0, -100.0])?;
/// let (x, info) = expm_with_info(&a)?;
/// assert_eq!(info.pade_degree, 13);
/// assert!(((x[(0, 1)] / (-100f64).exp()) - 1.0).abs() < 1e-13);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn expm_with_info<S: Scalar>(a: &Matrix<S>) -> Result<(Matrix<S>, ExpmInfo)> {
    a.check_square("expm")?;
    a.check_finite("expm: A")?;
    match Wide::of(a) {
        Wide::Real(m) => {
            let (x, info) = expm_wide(&m)?;
            Ok((Wide::Real(x).narrow(), info))
        }
        Wide::Complex(m) => {
            let (x, info) = expm_wide(&m)?;
            Ok((Wide::Complex(x).narrow(), info))
        }
    }
}

fn mul<T: WideScalar>(a: &Matrix<T>, b: &Matrix<T>) -> Matrix<T> {
    a.matmul(b).expect("square matrices of one order")
}

/// Σ c_k·M_k + c_I·I.
fn lincomb<T: WideScalar>(n: usize, terms: &[(f64, &Matrix<T>)], ident: f64) -> Matrix<T> {
    let mut out = Matrix::zeros(n, n);
    for &(c, m) in terms {
        let c = T::from_f64(c);
        for (o, &x) in out.as_mut_slice().iter_mut().zip(m.as_slice()) {
            *o += c * x;
        }
    }
    for i in 0..n {
        out[(i, i)] += T::from_f64(ident);
    }
    out
}

/// log₂ ‖M^p‖₁ for entry-wise nonnegative M, by p products 1ᵀ·M (row sums of powers), each
/// renormalized so that huge powers do not overflow. −∞ if the power is zero.
fn log2_norm1_power_nonneg(m: &Matrix<f64>, p: usize) -> f64 {
    let n = m.nrows();
    let mut r = vec![1.0; n];
    let mut next = vec![0.0; n];
    let mut log2_scale = 0.0;
    for _ in 0..p {
        for (j, nj) in next.iter_mut().enumerate() {
            *nj = r.iter().zip(m.col(j)).map(|(a, b)| a * b).sum();
        }
        let mx = next.iter().fold(0.0f64, |a, &b| a.max(b));
        if mx == 0.0 {
            return f64::NEG_INFINITY;
        }
        log2_scale += mx.log2();
        for (ri, &ni) in r.iter_mut().zip(&next) {
            *ri = ni / mx;
        }
    }
    log2_scale
}

/// The ℓ correction of Al-Mohy & Higham (2009, eq. (5.1)) for the approximant of degree m at
/// 2^{-s}A: the number of extra squarings that keeps the rounding error of evaluating
/// r_m(2^{-s}A) below u.
fn ell(abs_a: &Matrix<f64>, norm_a: f64, s: u32, m: usize) -> u32 {
    let p = 2 * m + 1;
    let log2_pow = log2_norm1_power_nonneg(abs_a, p);
    if log2_pow == f64::NEG_INFINITY {
        return 0;
    }
    // α = ‖|2^{-s}A|^{2m+1}‖₁ / (‖2^{-s}A‖₁ · 1/|c_{2m+1}|)
    let log2_alpha = log2_pow - norm_a.log2() - 2.0 * m as f64 * s as f64 - c_recip(m).log2();
    let u_log2 = -53.0;
    let v = ((log2_alpha - u_log2) / (2.0 * m as f64)).ceil();
    if v > 0.0 { v as u32 } else { 0 }
}

/// U, V of r_m = (V + U)/(V − U) for m ∈ {3, 5, 7, 9}: U = A·Σ b_{2k+1}A^{2k}, V = Σ b_{2k}A^{2k}.
fn pade_low<T: WideScalar>(m: usize, a: &Matrix<T>, pows: &[&Matrix<T>]) -> (Matrix<T>, Matrix<T>) {
    let n = a.nrows();
    let b = pade_coefficients(m);
    // pows = [A², A⁴, A⁶, A⁸] (as many as m needs)
    let k = (m - 1) / 2;
    let odd: Vec<(f64, &Matrix<T>)> = (1..=k).map(|i| (b[2 * i + 1], pows[i - 1])).collect();
    let even: Vec<(f64, &Matrix<T>)> = (1..=k).map(|i| (b[2 * i], pows[i - 1])).collect();
    let u = mul(a, &lincomb(n, &odd, b[1]));
    let v = lincomb(n, &even, b[0]);
    (u, v)
}

/// U, V of r₁₃ at B = 2^{-s}A, with the 6-product evaluation of Higham (2005).
fn pade13<T: WideScalar>(
    a: &Matrix<T>,
    a2: &Matrix<T>,
    a4: &Matrix<T>,
    a6: &Matrix<T>,
    s: u32,
) -> (Matrix<T>, Matrix<T>) {
    let n = a.nrows();
    let b = pade_coefficients(13);
    let sc = |m: &Matrix<T>, p: i32| m.scaled(T::from_f64(2f64.powi(-p * s as i32)));
    let (b1, b2, b4, b6) = (sc(a, 1), sc(a2, 2), sc(a4, 4), sc(a6, 6));
    let u2 = mul(
        &b6,
        &lincomb(n, &[(b[13], &b6), (b[11], &b4), (b[9], &b2)], 0.0),
    );
    let mut inner = lincomb(n, &[(b[7], &b6), (b[5], &b4), (b[3], &b2)], b[1]);
    inner.add_scaled(T::one(), &u2).expect("same order");
    let u = mul(&b1, &inner);
    let v2 = mul(
        &b6,
        &lincomb(n, &[(b[12], &b6), (b[10], &b4), (b[8], &b2)], 0.0),
    );
    let mut v = lincomb(n, &[(b[6], &b6), (b[4], &b4), (b[2], &b2)], b[0]);
    v.add_scaled(T::one(), &v2).expect("same order");
    (u, v)
}

/// r_m = (V − U)⁻¹(V + U).
fn solve_pq<T: WideScalar>(u: Matrix<T>, v: Matrix<T>) -> Result<Matrix<T>> {
    let mut p = v.clone();
    p.add_scaled(T::one(), &u)?;
    let mut q = v;
    q.add_scaled(-T::one(), &u)?;
    solve_in_place(q, &mut p)?;
    Ok(p)
}

/// (e^{y} − e^{x})/(y − x), computed without cancellation as e^{(x+y)/2}·sinh(d)/d,
/// d = (y − x)/2.
fn exp_divided_difference(x: c64, y: c64) -> c64 {
    let d = (y - x) * 0.5;
    if d.re.abs() > 300.0 {
        // Far apart: no cancellation, and sinh(d) would overflow.
        return (y.exp() - x.exp()) / (y - x);
    }
    let mid = ((x + y) * 0.5).exp();
    let sinhc = if d.norm() < 1e-4 {
        let d2 = d * d;
        c64::new(1.0, 0.0) + d2 / 6.0 + d2 * d2 / 120.0
    } else {
        d.sinh() / d
    };
    mid * sinhc
}

/// Overwrites diag(X) and its first superdiagonal with those of exp(σ·A), A upper triangular
/// (Higham, Functions of Matrices, eq. (10.42)).
fn fix_triangular<T: WideScalar>(x: &mut Matrix<T>, a: &Matrix<T>, sigma: f64) {
    let n = a.nrows();
    for i in 0..n {
        x[(i, i)] = T::from_c64((a[(i, i)].to_c64() * sigma).exp());
    }
    for i in 0..n.saturating_sub(1) {
        let l1 = a[(i, i)].to_c64() * sigma;
        let l2 = a[(i + 1, i + 1)].to_c64() * sigma;
        let t12 = a[(i, i + 1)].to_c64() * sigma;
        x[(i, i + 1)] = if t12 == c64::new(0.0, 0.0) {
            T::zero()
        } else {
            T::from_c64(t12 * exp_divided_difference(l1, l2))
        };
    }
}

pub(crate) fn expm_wide<T: WideScalar>(a_in: &Matrix<T>) -> Result<(Matrix<T>, ExpmInfo)> {
    let n = a_in.nrows();
    let norm_in = a_in.norm_one();
    if n == 0 || norm_in == 0.0 {
        return Ok((
            Matrix::identity(n),
            ExpmInfo {
                pade_degree: 0,
                squarings: 0,
            },
        ));
    }
    // Powers up to A¹⁰ overflow when ‖A‖₁ > ~1e30; pre-scale such (rare) matrices so that
    // the norm-based selection below sees a moderate norm, and square back afterwards.
    let pre = if norm_in > 1e30 {
        (norm_in / THETA[4].1).log2().ceil() as u32
    } else {
        0
    };
    let a_scaled;
    let a = if pre > 0 {
        a_scaled = a_in.scaled(T::from_f64(2f64.powi(-(pre as i32))));
        &a_scaled
    } else {
        a_in
    };
    let triangular = a.is_upper_triangular();
    let norm_a = a.norm_one();
    let abs_a = a.map(|x| x.modulus());
    let a2 = mul(a, a);
    let a4 = mul(&a2, &a2);
    let a6 = mul(&a4, &a2);
    let d4 = a4.norm_one().powf(0.25);
    let d6 = a6.norm_one().powf(1.0 / 6.0);

    let finish = |x: Matrix<T>, m: usize, s: u32| -> Result<(Matrix<T>, ExpmInfo)> {
        let mut x = x;
        let total = s + pre;
        if triangular {
            fix_triangular(&mut x, a_in, 2f64.powi(-(total as i32)));
        }
        for k in (0..total).rev() {
            x = mul(&x, &x);
            if triangular {
                fix_triangular(&mut x, a_in, 2f64.powi(-(k as i32)));
            }
        }
        x.check_finite("expm: result (e^A overflows the floating-point range)")?;
        Ok((
            x,
            ExpmInfo {
                pade_degree: m,
                squarings: total,
            },
        ))
    };

    let eta1 = d4.max(d6);
    for &(m, theta) in &THETA[..2] {
        if eta1 <= theta && ell(&abs_a, norm_a, 0, m) == 0 {
            let (u, v) = pade_low(m, a, &[&a2, &a4]);
            return finish(solve_pq(u, v)?, m, 0);
        }
    }
    let a8 = mul(&a4, &a4);
    let d8 = a8.norm_one().powf(1.0 / 8.0);
    let eta3 = d6.max(d8);
    for &(m, theta) in &THETA[2..4] {
        if eta3 <= theta && ell(&abs_a, norm_a, 0, m) == 0 {
            let (u, v) = pade_low(m, a, &[&a2, &a4, &a6, &a8]);
            return finish(solve_pq(u, v)?, m, 0);
        }
    }
    let a10 = mul(&a4, &a6);
    let d10 = a10.norm_one().powf(0.1);
    let eta4 = d8.max(d10);
    let eta5 = eta3.min(eta4);
    let theta13 = THETA[4].1;
    let mut s = if eta5 == 0.0 {
        0
    } else {
        let v = (eta5 / theta13).log2().ceil();
        if v > 0.0 { v as u32 } else { 0 }
    };
    s += ell(&abs_a, norm_a, s, 13);
    let (u, v) = pade13(a, &a2, &a4, &a6, s);
    finish(solve_pq(u, v)?, 13, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_norms_use_low_degrees_and_no_scaling() {
        let a = Matrix::from_row_major(2, 2, &[1e-3, 2e-3, -1e-3, 0.0]).unwrap();
        let (_, info) = expm_with_info(&a).unwrap();
        assert_eq!(
            info,
            ExpmInfo {
                pade_degree: 3,
                squarings: 0
            }
        );
        let (_, info) = expm_with_info(&a.scaled(100.0)).unwrap();
        assert!(info.pade_degree > 3 && info.squarings == 0);
    }

    #[test]
    fn nonnormal_matrices_are_not_overscaled() {
        // [[1, b], [0, −1]]: ‖A‖₁ = b + 1 is large but ‖A^p‖^{1/p} → 1. The 2005 algorithm
        // would take s ≈ log₂(b/5.4); the 2009 choice takes far fewer squarings.
        let b = 1e6;
        let a = Matrix::from_row_major(2, 2, &[1.0, b, 0.0, -1.0]).unwrap();
        let (x, info) = expm_with_info(&a).unwrap();
        assert!(info.squarings <= 8, "s = {}", info.squarings);
        let e = 1f64.exp();
        let want12 = b * (e - 1.0 / e) / 2.0;
        assert!((x[(0, 1)] / want12 - 1.0).abs() < 1e-14);
        assert!((x[(0, 0)] / e - 1.0).abs() < 1e-15);
    }

    #[test]
    fn exp_divided_difference_is_accurate_near_coincidence() {
        let x = c64::new(0.3, 0.0);
        for d in [0.0, 1e-12, 1e-6, 1e-3, 0.5] {
            let y = x + d;
            let got = exp_divided_difference(x, y);
            // e^x·expm1(d)/d is accurate for every d.
            let want = if d == 0.0 {
                x.exp()
            } else {
                c64::new(x.re.exp() * d.exp_m1() / d, 0.0)
            };
            let tol = 4e-16;
            assert!(
                (got - want).norm() <= tol * want.norm(),
                "d = {d}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn zero_and_empty_matrices() {
        assert!(expm(&Matrix::<f64>::zeros(3, 3)).unwrap().is_identity());
        assert_eq!(expm(&Matrix::<f64>::zeros(0, 0)).unwrap().nrows(), 0);
    }
}
