//! The small problems of the Lanczos method: f(τT_k)e₁ for the tridiagonal T_k, with the
//! error estimate, kept in a scaled form that cannot overflow.

use crate::Tolerance;
use matexp_core::{Error, Result, Scalar, c64};
use matexp_dense::{Matrix, phi_vectors};
use matexp_leja::symmetric_tridiagonal_rotations;

/// f(τT_k)e₁ = e^{c}·y with the estimated error of y (same scaling) and ‖y‖₂.
#[derive(Debug, Clone)]
pub(crate) struct Coefficients {
    y: Vec<c64>,
    c: f64,
    err: f64,
    norm_y: f64,
}

/// atol + rtol·‖v‖·e^{c}·‖y‖ in the scaling of y (divided by ‖v‖·e^{c}), without forming
/// e^{c}.
fn scaled_tolerance(tol: &Tolerance, c: f64, beta0: f64, norm_y: f64) -> f64 {
    let atol_scaled = if tol.atol == 0.0 {
        0.0
    } else {
        (tol.atol.ln() - c - beta0.ln()).exp()
    };
    atol_scaled + tol.rtol * norm_y
}

/// What a convergence check that cannot stop the iteration may skip: with
/// `Some((tolerance, ‖v‖))`, a check whose two cheapest parts, Saad's term and the lagged
/// difference, both miss the tolerance solves no further small problem (the estimate is at
/// least the smaller of the two, so the check fails either way), and its estimate is then
/// that lower bound. `None` (the last check) always takes every part. See [`estimate`].
pub(crate) type Screen<'t> = Option<(&'t Tolerance, f64)>;

impl Coefficients {
    /// Whether ‖v‖·e^{c}·err ≤ atol + rtol·‖v‖·e^{c}·‖y‖, evaluated without forming e^{c}.
    pub(crate) fn converged(&self, tol: &Tolerance, beta0: f64) -> bool {
        self.err <= scaled_tolerance(tol, self.c, beta0, self.norm_y)
    }

    /// Whether the tolerance lies below a relative rounding floor: `floor`·‖v‖·e^{c}·‖y‖ >
    /// atol + rtol·‖v‖·e^{c}·‖y‖.
    pub(crate) fn below_floor(&self, tol: &Tolerance, beta0: f64, floor: f64) -> bool {
        floor * self.norm_y > scaled_tolerance(tol, self.c, beta0, self.norm_y)
    }

    /// Estimate / tolerance in the scaling of y (≤ 1: converged; ∞ for a zero tolerance).
    pub(crate) fn miss(&self, tol: &Tolerance, beta0: f64) -> f64 {
        let t = scaled_tolerance(tol, self.c, beta0, self.norm_y);
        if self.err == 0.0 { 0.0 } else { self.err / t }
    }

    /// The estimate as an absolute error of the result (∞ only if the result overflows).
    pub(crate) fn abs_error(&self, beta0: f64) -> f64 {
        if self.err == 0.0 {
            0.0
        } else {
            (self.err.ln() + self.c + beta0.ln()).exp()
        }
    }

    /// ‖v‖·e^{c}·y as scalars of the vector type; an overflowing coefficient is an error.
    pub(crate) fn final_coefficients<S: Scalar>(&self, beta0: f64) -> Result<Vec<S>> {
        let g = beta0.ln() + self.c;
        let direct = g.exp();
        self.y
            .iter()
            .enumerate()
            .map(|(j, &y)| {
                let z = if direct.is_finite() && direct > 0.0 {
                    y * direct
                } else if y == c64::new(0.0, 0.0) {
                    y
                } else {
                    // e^{g} alone over- or underflows; the product may not.
                    (y / y.norm()) * (y.norm().ln() + g).exp()
                };
                let s = S::from_c64(z);
                if s.finite() {
                    Ok(s)
                } else {
                    Err(Error::NonFinite {
                        context: format!(
                            "lanczos: coefficient {j} of the result overflows the {} range \
                             (‖f(tA)v‖ ≈ e^{g:.1})",
                            S::NAME
                        ),
                        index: j,
                        value: format!("{s}"),
                    })
                }
            })
            .collect()
    }
}

fn norm(y: &[c64]) -> f64 {
    matexp_core::norms::nrm2(y)
}

/// e^{τT − c}e₁ = Z·(e^{τλ − c} ∘ Zᵀe₁) for the tridiagonal T (diagonal `alpha`,
/// off-diagonal `beta`) with Z kept as QL's rotations (pure Rust, `matexp-leja`, so that
/// Lanczos links no LAPACK): row 0 of Z and one product with Z, O(k²) for order k, where
/// forming Z costs O(k³). The eigenvalues are those of `symmetric_tridiagonal_eigen`,
/// bisection refinement included; `c = None` takes c = max Re(τλ). Returns (y, c).
fn exp_first_column(
    alpha: &[f64],
    beta: &[f64],
    tau: c64,
    c: Option<f64>,
) -> Result<(Vec<c64>, f64)> {
    let e = symmetric_tridiagonal_rotations(alpha, beta)?;
    let c = c.unwrap_or_else(|| {
        e.values
            .iter()
            .map(|&l| (tau * l).re)
            .fold(f64::NEG_INFINITY, f64::max)
    });
    let mut y: Vec<c64> = e
        .row(0)
        .iter()
        .zip(&e.values)
        .map(|(&z0, &l)| (tau * l - c).exp() * z0)
        .collect();
    e.mul(&mut y);
    Ok((y, c))
}

/// The lag m of the lagged difference at a check of dimension k: about k/10 (at least 2),
/// and small enough that y_{k−2m} exists; `None` for k < 3.
fn lag(k: usize) -> Option<usize> {
    (k >= 3).then(|| (k / 10).max(2).min((k - 1) / 2))
}

/// ‖a − [b; 0]‖₂ for b no longer than a.
fn gap(a: &[c64], b: &[c64]) -> f64 {
    let d: Vec<c64> = a
        .iter()
        .enumerate()
        .map(|(i, &x)| x - b.get(i).copied().unwrap_or_default())
        .collect();
    norm(&d)
}

/// The error estimate of y = y_k = f(τT_k)e₁ (in y's scaling), given Saad's term
/// β_{k+1}·|e_kᵀy_k| and `first_column(j)` = y_j, the same function of T_j in the same
/// scaling. The smaller of two estimates, each of which bounds the error where its premise
/// holds:
///
/// * the **one-step estimate** max(‖y_k − [y_{k−1}; 0]‖, β_{k+1}|e_kᵀy_k|) (the difference
///   of successive iterates and Saad's term). Saad's term is sharp for oscillatory and
///   growing f(tA)v, but for stiff decay it exceeds the error by the damping that
///   e^{(1−s)tA} applies to q_{k+1} in the error integral, which it leaves out: measured
///   10³–10⁴× on the 3D Laplacian at t‖A‖ ≈ 8·10³ (it alone set the stopping point).
/// * the **lagged estimate** d₁ = ‖y_k − [y_{k−m}; 0]‖, m = [`lag`] (≈ k/10), taken only
///   where the iterates are seen to contract: d₁ ≤ d₂/4 with d₂ = ‖y_{k−m} − [y_{k−2m}; 0]‖.
///   d₁ ≥ err(y_{k−m}) − err(y_k), so d₁ bounds err(y_k) whenever the error at least halves
///   over the m steps from k − m to k; the contraction d₁/d₂ ≤ 1/4 of the differences
///   shows that it fell about fourfold over the m steps before, and the convergence of
///   Lanczos for exp is superlinear (the rate only improves). It is a sharp estimate of the error of
///   y_{k−m} and a bound for y_k's (pessimistic by the factor gained in m steps). Before
///   that contraction is seen (the slow start, stagnation, the rounding floor) it is not
///   used, as the difference of nearly parallel errors can be far below either.
///
/// With a [`Screen`] threshold, a check where both Saad's term and d₁ exceed it returns
/// their minimum (a lower bound of the estimate) without the remaining small problems.
/// Cost: small problems of orders k − m, k − 1 and k − 2m besides y_k itself (one tridiagonal
/// eigensolve each, O(k²)).
fn estimate(
    y: &[c64],
    saad: f64,
    screen: Option<f64>,
    first_column: impl Fn(usize) -> Result<Vec<c64>> + Sync,
) -> Result<f64> {
    let k = y.len();
    if norm(y).is_nan() || saad.is_nan() {
        // t·λ beyond the range: NaN marks the estimate meaningless (the caller's error).
        return Ok(f64::NAN);
    }
    let Some(m) = lag(k) else {
        let successive = if k >= 2 {
            gap(y, &first_column(k - 1)?)
        } else {
            norm(y)
        };
        return Ok(saad.max(successive));
    };
    // y_{k−m}, y_{k−1} and y_{k−2m} are independent small problems: solved at once, a check
    // costs one eigensolve's time on a multicore host instead of up to three, which is host
    // time an asynchronous device would otherwise spend idle or on lookahead steps. (A screen
    // that fails the check after y_{k−m} leaves the other two unused.)
    let (ym, (y1, y2)) = rayon::join(
        || first_column(k - m),
        || {
            rayon::join(
                || (m != 1).then(|| first_column(k - 1)).transpose(),
                || first_column(k - 2 * m),
            )
        },
    );
    let (ym, y1, y2) = (ym?, y1?, y2?);
    let d1 = gap(y, &ym);
    if let Some(threshold) = screen
        && saad.min(d1) > threshold
    {
        return Ok(saad.min(d1));
    }
    let successive = match &y1 {
        Some(y1) => gap(y, y1),
        None => d1,
    };
    let one_step = saad.max(successive);
    let lagged = if d1 < one_step {
        let d2 = gap(&ym, &y2);
        if d1 <= 0.25 * d2 { d1 } else { f64::INFINITY }
    } else {
        f64::INFINITY
    };
    Ok(one_step.min(lagged))
}

/// e^{τT_k}e₁ = e^{c}·y from the eigendecomposition of T_k, c = max Re(τλ), with the error
/// estimate of [`estimate`] (same scaling); zero when `exact`; a lower bound of it when
/// `screen` shows that the check fails ([`Screen`]).
pub(crate) fn exp_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    tau: c64,
    exact: bool,
    screen: Screen<'_>,
) -> Result<Coefficients> {
    let (y, c) = exp_first_column(&alpha[..k], &beta[..k - 1], tau, None)?;
    let norm_y = norm(&y);
    let err = if exact {
        0.0
    } else {
        let saad = beta[k - 1] * y[k - 1].norm();
        let threshold = screen.map(|(tol, beta0)| scaled_tolerance(tol, c, beta0, norm_y));
        estimate(&y, saad, threshold, |j| {
            exp_first_column(&alpha[..j], &beta[..j - 1], tau, Some(c)).map(|(y, _)| y)
        })?
    };
    Ok(Coefficients { y, c, err, norm_y })
}

fn tridiagonal_times(alpha: &[f64], beta: &[f64], k: usize, tau: c64) -> Matrix<c64> {
    Matrix::from_fn(k, k, |i, j| {
        if i == j {
            tau * alpha[i]
        } else if i.abs_diff(j) == 1 {
            tau * beta[i.min(j)]
        } else {
            c64::new(0.0, 0.0)
        }
    })
}

fn e1(k: usize) -> Vec<c64> {
    let mut e = vec![c64::new(0.0, 0.0); k];
    e[0] = c64::new(1.0, 0.0);
    e
}

/// φ_p(τT_k)e₁ (no scaling, c = 0) from the augmented exponential, with the estimate of
/// [`estimate`], screened as in [`exp_coefficients`].
pub(crate) fn phi_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    p: usize,
    tau: c64,
    exact: bool,
    screen: Screen<'_>,
) -> Result<Coefficients> {
    let column = |j: usize| -> Result<Vec<c64>> {
        let m = tridiagonal_times(alpha, beta, j, tau);
        Ok(phi_vectors(&m, &e1(j), p)?.pop().expect("p + 1 vectors"))
    };
    let y = column(k)?;
    let norm_y = norm(&y);
    let err = if exact {
        0.0
    } else {
        let saad = beta[k - 1] * y[k - 1].norm();
        let threshold = screen.map(|(tol, beta0)| scaled_tolerance(tol, 0.0, beta0, norm_y));
        estimate(&y, saad, threshold, column)?
    };
    Ok(Coefficients {
        y,
        c: 0.0,
        err,
        norm_y,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_dense::expm;
    use matexp_leja::symmetric_tridiagonal_eigen;
    use matexp_sparse::CsrMatrix;
    use matexp_testkit::reference::chebyshev_propagate;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// e^{τT − c}e₁ from the explicit k×k eigenvector matrix (the accumulation that the
    /// rotations replace): Σᵢ e^{τλᵢ − c}·Z[0, i]·Z[:, i].
    fn full_eigen_first_column(alpha: &[f64], beta: &[f64], tau: c64, c: f64) -> Vec<c64> {
        let e = symmetric_tridiagonal_eigen(alpha, beta).unwrap();
        let k = alpha.len();
        let mut y = vec![c64::new(0.0, 0.0); k];
        for (i, &l) in e.values.iter().enumerate() {
            let z = e.vector(i);
            let g = (tau * l - c).exp() * z[0];
            for (yr, &zr) in y.iter_mut().zip(z) {
                *yr += g * zr;
            }
        }
        y
    }

    /// e^{τT − c}e₁ by the Padé exponential of the dense k×k matrix τT − cI.
    fn dense_first_column(alpha: &[f64], beta: &[f64], tau: c64, c: f64) -> Vec<c64> {
        let k = alpha.len();
        let mut m = tridiagonal_times(alpha, beta, k, tau);
        for i in 0..k {
            m[(i, i)] -= c;
        }
        expm(&m).unwrap().col(0).to_vec()
    }

    /// ‖a − b‖, the shorter padded with zeros.
    fn diff(a: &[c64], b: &[c64]) -> f64 {
        let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        gap(a, b)
    }

    fn rel_diff(a: &[c64], b: &[c64]) -> f64 {
        diff(a, b) / norm(b)
    }

    /// Lanczos-like tridiagonals of order k: random, clustered (glued blocks whose
    /// eigenvalues agree to ~1e−12), Wilkinson's W⁺ (close pairs), graded, or a multiple
    /// eigenvalue perturbed at rounding level.
    fn tridiagonal(kind: u8, k: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut u = move || rng.random_range(-1.0..1.0);
        match kind {
            0 => (
                (0..k).map(|_| u()).collect(),
                (1..k).map(|_| 1.0 + 0.5 * u()).collect(),
            ),
            1 => {
                let block = 5;
                let alpha = (0..k).map(|i| (i % block) as f64 * 0.25).collect();
                let beta = (1..k)
                    .map(|i| if i % block == 0 { 1e-12 * u() } else { 0.5 })
                    .collect();
                (alpha, beta)
            }
            2 => {
                let m = k as f64 / 2.0;
                (
                    (0..k).map(|i| (i as f64 - m).abs()).collect(),
                    vec![1.0; k - 1],
                )
            }
            3 => (
                (0..k).map(|i| 2f64.powi(-(i as i32))).collect(),
                (1..k)
                    .map(|i| 2f64.powi(-(i as i32)) * (1.0 + u()))
                    .collect(),
            ),
            _ => (vec![-3.0; k], (1..k).map(|_| 1e-15 * u()).collect()),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// The rotation path against the explicit eigenvector matrix (same eigenvalues, so
        /// only the rounding of the vector differs) and against the dense Padé exponential.
        #[test]
        fn exp_first_column_matches_full_eigen_and_dense(
            kind in 0u8..5,
            k in 1usize..48,
            seed in any::<u64>(),
            re in -30.0f64..30.0,
            im in -60.0f64..60.0,
        ) {
            let (alpha, beta) = tridiagonal(kind, k, seed);
            let tau = c64::new(re, im);
            let (y, c) = exp_first_column(&alpha, &beta, tau, None).unwrap();
            let full = full_eigen_first_column(&alpha, &beta, tau, c);
            let dense = dense_first_column(&alpha, &beta, tau, c);
            // Normwise: relative to ‖e^{τT − c}‖₂ = max |e^{τλ − c}| = 1 (‖y‖ itself is tiny
            // when e₁ is nearly orthogonal to the dominant eigenvector).
            prop_assert!(diff(&y, &full) <= 1e-14 * k as f64, "full: {:e}", diff(&y, &full));
            let scale = tau.norm() * alpha.iter().chain(&beta).fold(1.0f64, |m, x| m.max(x.abs()));
            prop_assert!(
                diff(&y, &dense) <= 1e-14 * (k as f64 + scale),
                "dense: {:e} (|τ|·‖T‖ ≈ {scale:.1})", diff(&y, &dense)
            );
        }

        /// The estimate and the norms of `exp_coefficients` are those of the explicit
        /// eigenvector path, to rounding.
        #[test]
        fn exp_coefficients_match_the_full_eigen_estimate(
            kind in 0u8..5,
            k in 2usize..40,
            seed in any::<u64>(),
            re in -10.0f64..10.0,
            im in -40.0f64..40.0,
        ) {
            let (alpha, mut beta) = tridiagonal(kind, k, seed);
            beta.push(0.3);
            let tau = c64::new(re, im);
            let got = exp_coefficients(&alpha, &beta, k, tau, false, None).unwrap();
            let col = |j: usize| full_eigen_first_column(&alpha[..j], &beta[..j - 1], tau, got.c);
            let y = col(k);
            let one_step = (beta[k - 1] * y[k - 1].norm()).max(diff(&y, &col(k - 1)));
            // The lagged difference d₁ counts where d₁ ≤ d₂/4; a tie within rounding may
            // go either way.
            let (err, other) = lag(k).map_or((one_step, one_step), |m| {
                let (d1, d2) = (diff(&y, &col(k - m)), diff(&col(k - m), &col(k - 2 * m)));
                let (with, without) = (one_step.min(d1), one_step);
                let tie = (d1 - 0.25 * d2).abs() <= 1e-13 * k as f64;
                match (d1 <= 0.25 * d2, tie) {
                    (true, false) => (with, with),
                    (false, false) => (without, without),
                    _ => (with, without),
                }
            });
            let ny = norm(&y);
            // Normwise, as above: ‖e^{τT − c}‖₂ = 1.
            prop_assert!((got.norm_y - ny).abs() <= 1e-14 * k as f64);
            prop_assert!(
                (got.err - err).abs() <= 1e-14 * k as f64
                    || (got.err - other).abs() <= 1e-14 * k as f64,
                "estimate {:e} vs {err:e} (‖y‖ = {ny:e})", got.err
            );
        }
    }

    /// A screened check reaches the same verdict as the full one (so Lanczos stops after
    /// the same products) and, where it passes, the same estimate; where it skips the
    /// difference term its estimate is Saad's term, below the full one.
    #[test]
    fn screened_checks_decide_as_the_full_ones() {
        let mut decided = [0usize; 3];
        for seed in 0..40u64 {
            let kind = (seed % 5) as u8;
            let (alpha, mut beta) = tridiagonal(kind, 40, seed);
            beta.push(0.5);
            for (re, im) in [(-3.0, 0.0), (0.0, -8.0), (2.0, 1.0)] {
                let tau = c64::new(re, im);
                for k in 2..=40 {
                    let full = exp_coefficients(&alpha, &beta, k, tau, false, None).unwrap();
                    for (rtol, atol, beta0) in [(1e-5, 0.0, 1.0), (1e-10, 1e-12, 30.0)] {
                        let tol = Tolerance::new(rtol, atol);
                        let screened =
                            exp_coefficients(&alpha, &beta, k, tau, false, Some((&tol, beta0)))
                                .unwrap();
                        assert_eq!(screened.y, full.y);
                        assert_eq!(screened.c, full.c);
                        let verdict = full.converged(&tol, beta0);
                        assert_eq!(
                            screened.converged(&tol, beta0),
                            verdict,
                            "seed {seed}, k {k}"
                        );
                        if verdict {
                            assert_eq!(screened.err, full.err);
                            decided[0] += 1;
                        } else if screened.err == full.err {
                            decided[1] += 1;
                        } else {
                            assert!(screened.err < full.err);
                            decided[2] += 1;
                        }
                    }
                }
            }
        }
        // Every kind of verdict occurred: converged, failed on both terms, screened out.
        assert!(decided.iter().all(|&n| n > 0), "{decided:?}");
    }

    /// e^{−itT}e₁ at |t|·‖T‖ ≈ 10⁴ (the huge-imaginary-time regime, where an eigenvalue
    /// error δ is a phase error t·δ) against the Chebyshev expansion, which uses no
    /// eigenvalues, for random and clustered T.
    #[test]
    fn huge_imaginary_times_match_chebyshev() {
        for (kind, seed) in [(0u8, 1u64), (0, 2), (1, 3), (2, 4)] {
            let k = 60;
            let (alpha, beta) = tridiagonal(kind, k, seed);
            let tn = alpha
                .iter()
                .chain(&beta)
                .fold(0.0f64, |m, x| m.max(x.abs()));
            let t = 1e4 / tn;
            let (y, c) = exp_first_column(&alpha, &beta, c64::new(0.0, -t), None).unwrap();
            assert_eq!(c, 0.0);
            let dense: Vec<c64> = tridiagonal_times(&alpha, &beta, k, c64::new(1.0, 0.0))
                .as_slice()
                .to_vec();
            let h = CsrMatrix::<c64, u32>::from_dense(k, k, &dense).unwrap();
            let want = chebyshev_propagate(&h, t, &e1(k));
            let err = rel_diff(&y, &want);
            eprintln!("kind {kind}: |t|·‖T‖ = 1e4, error vs Chebyshev {err:.1e}");
            assert!(err <= 2e-11, "kind {kind}: {err:e}");
            let full = full_eigen_first_column(&alpha, &beta, c64::new(0.0, -t), 0.0);
            assert!(rel_diff(&y, &full) <= 1e-13, "kind {kind}");
        }
    }
}
