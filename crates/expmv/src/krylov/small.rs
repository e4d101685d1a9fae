//! The small problems of the Lanczos method: f(τT_k)e₁ for the tridiagonal T_k, with the
//! error estimate, kept in a scaled form that cannot overflow.

use crate::Tolerance;
use matexp_core::{Error, Result, Scalar, c64};
use matexp_dense::{Matrix, phi_scalar, phi_vectors};
use matexp_dense::{
    symmetric_tridiagonal_extreme_eigenvalues, symmetric_tridiagonal_rotations,
    symmetric_tridiagonal_rotations_unrefined,
};

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

    /// The scaling c of f(τT)e₁ = e^{c}·y (0 for the φ-functions, which are not scaled).
    pub(crate) fn log_scale(&self) -> f64 {
        self.c
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
/// forming Z costs O(k³). With `refine` the eigenvalues are those of
/// `symmetric_tridiagonal_eigen`, bisection refinement included; without, QL's own
/// (see [`refinement_needed`]).
fn exp_first_column(
    alpha: &[f64],
    beta: &[f64],
    tau: c64,
    c: f64,
    refine: bool,
) -> Result<Vec<c64>> {
    let e = if refine {
        symmetric_tridiagonal_rotations(alpha, beta)?
    } else {
        symmetric_tridiagonal_rotations_unrefined(alpha, beta)?
    };
    let mut y: Vec<c64> = e
        .row(0)
        .iter()
        .zip(&e.values)
        .map(|(&z0, &l)| (tau * l - c).exp() * z0)
        .collect();
    e.mul(&mut y);
    Ok(y)
}

/// The scaling c of e^{τT}e₁ = e^{c}·y: max Re(τλ) over the eigenvalues λ of T, to rounding,
/// from the extreme eigenvalues alone (no decomposition of T).
///
/// For real λ, Re(τλ) = Re(τ)·λ, so the maximum is Re(τ)·λ_max for Re τ > 0, Re(τ)·λ_min
/// for Re τ < 0 and 0 for Re τ = 0. The extreme eigenvalue is taken as the outer end of a
/// Sturm-count bisection bracket a few ulps wide (`symmetric_tridiagonal_extreme_eigenvalues`,
/// the brackets whose midpoints are the refined eigenvalues of the full solve): since the
/// Sturm count is exact for a T̃ within a few ε of T entrywise, that end is beyond λ(T̃),
/// which is within a few ε‖T‖ of λ(T) (Weyl). Hence
/// max Re(τλ) − |Re τ|·O(ε‖T‖) ≤ c ≤ max Re(τλ) + |Re τ|·O(ε‖T‖):
///
/// * **No overflow.** c is never below max Re(τλ) by more than rounding, and the
///   eigenvalues of every leading T_j (j ≤ k) lie within those of T_k (Cauchy
///   interlacing), so every exponent Re(τλ) − c of the small problems is at most
///   |τ|·O(ε‖T‖), plus QL's own drift of some tens of ε‖T‖ where the eigenvalues are not
///   refined: e^{τλ − c} ≤ 1 + O(ε|τ|‖T‖), as before.
/// * **Same meaning.** The c of the full eigen-decomposition (max over the refined Ritz
///   values) carries errors of the same order, so the two differ by |Re τ|·O(ε‖T‖): y is
///   rescaled by e^{O(ε|τ|‖T‖)}, and y, its estimate and ‖y‖ alike, so nothing that is
///   compared (estimate against tolerance, both in y's scaling) changes beyond rounding,
///   and e^{c}·y is the same result.
fn scaling(alpha: &[f64], beta: &[f64], tau: c64) -> Result<f64> {
    if tau.re == 0.0 {
        return Ok(0.0);
    }
    let (lo, hi) = symmetric_tridiagonal_extreme_eigenvalues(alpha, beta)?;
    Ok(if tau.re > 0.0 {
        tau.re * hi
    } else {
        tau.re * lo
    })
}

/// A bound of the rounding of the exponents τλ over the eigenvalues λ of T (diagonal
/// `alpha`, off-diagonal `beta`): 4ε·|τ|·‖T‖∞.
///
/// The refined eigenvalues (bisection on the Sturm count, and the brackets of [`scaling`])
/// are exact for a T̃ within a few ε of T entrywise, hence within a few ε·‖T‖₂ ≤ 4ε‖T‖∞ of
/// T's (Weyl); QL's unrefined ones drift further, but they are used only where
/// 64ε·|τ|·‖T‖∞ < 10⁻³·rtol ([`refinement_needed`]), far below the thresholds this bound is
/// compared with. An error δ of the exponent multiplies its term of y by e^{δ}: where the
/// bound reaches ln 2, not even the leading digit of e^{τT}e₁ is determined (and the
/// scaling c, off by as much, can push every term of y below the underflow threshold: the
/// all-zero results of e^{tA}·1 at t = −10¹⁴ on a 2D Laplacian, ‖tT‖ ≈ 3·10¹⁸).
pub(crate) fn exponent_rounding(alpha: &[f64], beta: &[f64], tau: c64) -> f64 {
    let k = alpha.len();
    let norm = (0..k)
        .map(|i| {
            let below = if i > 0 { beta[i - 1].abs() } else { 0.0 };
            let above = if i + 1 < k { beta[i].abs() } else { 0.0 };
            alpha[i].abs() + below + above
        })
        .fold(0.0, f64::max);
    4.0 * f64::EPSILON * tau.norm() * norm
}

/// Whether the small problems e^{τT_j}e₁ (j ≤ k, T = T_k with diagonal `alpha`,
/// off-diagonal `beta`) need the bisection refinement of QL's eigenvalues at tolerance
/// `tol`.
///
/// QL's eigenvalues drift by up to some tens of ε‖T‖₂ (measured up to ~25 at order 500;
/// the refinement brings them to a few). An eigenvalue error δᵢ multiplies the term
/// e^{τλᵢ − c}·Z[0, i]·zᵢ of y by e^{τδᵢ}, so, Z being orthogonal,
/// ‖Δy‖ ≤ maxᵢ|e^{τδᵢ} − 1|·‖y‖ ≈ |τ|·δ·‖y‖: a relative error of y (and of each y_j in the
/// difference estimates), the quantity rtol bounds. With δ ≤ 64ε‖T‖ (‖T‖ ≤ ‖T‖∞, the
/// Gershgorin bound of T_k, which bounds every leading T_j too) and 64ε·|τ|·‖T‖∞ below
/// 10⁻³·rtol, that perturbation is under a thousandth of the tolerance: the refinement
/// cannot change a verdict short of a tie to 0.1 %, nor the result beyond 10⁻³·rtol, and is
/// skipped (its share of each small problem's time: `bench-results/notes/tuning.md`). atol is not counted (conservative:
/// with rtol = 0 the eigenvalues are always refined). At Table 12's |τ|·‖T‖ ≈ 8·10³ the
/// rule skips it for rtol ≳ 1.1·10⁻⁷; for e^{−itH} at ‖tH‖ = 10⁴ and rtol 10⁻⁸ it keeps it.
fn refinement_needed(alpha: &[f64], beta: &[f64], tau: c64, tol: &Tolerance) -> bool {
    let k = alpha.len();
    let norm = (0..k)
        .map(|i| {
            let below = if i > 0 { beta[i - 1].abs() } else { 0.0 };
            let above = if i + 1 < k { beta[i].abs() } else { 0.0 };
            alpha[i].abs() + below + above
        })
        .fold(0.0, f64::max);
    let perturbation = 64.0 * f64::EPSILON * tau.norm() * norm;
    // NaN (τλ beyond the range) refines, as before.
    let negligible = perturbation < 1e-3 * tol.rtol;
    !negligible
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
/// β_{k+1}·|e_kᵀy_k| and the other small problems y_j, the same function of T_j in the same
/// scaling: `ym` = y_{k−m} (`None` for k < 3) and `rest` = (y_{k−1}, y_{k−2m}) on demand.
/// The smaller of two estimates, each of which bounds the error where its premise holds:
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
/// their minimum (a lower bound of the estimate) without asking for `rest`.
/// Cost: small problems of orders k − m, k − 1 and k − 2m besides y_k itself (one tridiagonal
/// eigensolve each, O(k²)), solved together with y_k where the host has the cores
/// ([`solve_and_estimate`]).
fn estimate(
    y: &[c64],
    saad: f64,
    screen: Option<f64>,
    ym: Option<&[c64]>,
    rest: impl FnOnce() -> Result<(Option<Vec<c64>>, Option<Vec<c64>>)>,
) -> Result<f64> {
    if norm(y).is_nan() || saad.is_nan() {
        // t·λ beyond the range: NaN marks the estimate meaningless (the caller's error).
        return Ok(f64::NAN);
    }
    let Some(ym) = ym else {
        // k < 3: no lag; y_{k−1} where k = 2.
        let successive = match rest()?.0 {
            Some(y1) => gap(y, &y1),
            None => norm(y),
        };
        return Ok(saad.max(successive));
    };
    let d1 = gap(y, ym);
    if let Some(threshold) = screen
        && saad.min(d1) > threshold
    {
        return Ok(saad.min(d1));
    }
    let (y1, y2) = rest()?;
    let successive = match &y1 {
        Some(y1) => gap(y, y1),
        None => d1,
    };
    let one_step = saad.max(successive);
    let lagged = if d1 < one_step {
        let d2 = gap(
            ym,
            y2.as_deref().expect("y_{k−2m} exists where the lag does"),
        );
        if d1 <= 0.25 * d2 { d1 } else { f64::INFINITY }
    } else {
        f64::INFINITY
    };
    Ok(one_step.min(lagged))
}

/// Rayon threads from which a check solves all its small problems at once (see
/// [`solve_and_estimate`]).
const ALL_AT_ONCE_THREADS: usize = 4;

/// y_k = `first_column(k)`, its estimate ([`estimate`]; 0 when `exact`) and ‖y_k‖, with
/// `threshold(‖y_k‖)` the screen's threshold ([`Screen`]; `None`: no screen) and `beta`
/// holding β_{k+1} at index k − 1 (read only when not `exact`).
///
/// y_k and y_{k−m}, y_{k−1}, y_{k−2m} are independent small problems (the scaling c that
/// they share comes before, from the extreme eigenvalues of T_k alone): solved at once on
/// a host with [`ALL_AT_ONCE_THREADS`] or more threads, a check costs the time of its
/// largest eigensolve (y_k's) instead of two or more, and that host time is what an
/// asynchronous device spends idle or on lookahead steps, which are wasted at the
/// converging check. The screen then saves no wall time there (a check it fails had
/// y_{k−1} and y_{k−2m} computed on otherwise idle cores, and returns the same lower bound),
/// whereas solving them only after the screen passes would make every check that passes
/// it, the converging one included, two eigensolves long. With fewer threads the four do
/// not fit side by side (on two, all at once take about 1.7 solve-times, screened or not),
/// so y_k and y_{k−m} go first and y_{k−1}, y_{k−2m} only where the screen passes: one
/// solve-time for a screened-out check, two for the others. The results are the same
/// either way, bit for bit.
fn solve_and_estimate(
    k: usize,
    beta: &[f64],
    exact: bool,
    threshold: Option<impl FnOnce(f64) -> f64>,
    first_column: impl Fn(usize) -> Result<Vec<c64>> + Sync,
) -> Result<(Vec<c64>, f64, f64)> {
    let m = if exact { None } else { lag(k) };
    let lagged = m.map(|m| k - m);
    // y_{k−1} is y_{k−m} where m = 1.
    let previous = (!exact && k >= 2 && m != Some(1)).then(|| k - 1);
    let second = m.map(|m| k - 2 * m);
    let solve = |j: Option<usize>| j.map(&first_column).transpose();
    let pair = || {
        let (y1, y2) = rayon::join(|| solve(previous), || solve(second));
        Ok::<_, Error>((y1?, y2?))
    };
    let all_at_once = threshold.is_none() || rayon::current_num_threads() >= ALL_AT_ONCE_THREADS;
    let ((y, ym), rest) = if all_at_once {
        let (first, rest) = rayon::join(|| rayon::join(|| first_column(k), || solve(lagged)), pair);
        (first, Some(rest))
    } else {
        (rayon::join(|| first_column(k), || solve(lagged)), None)
    };
    let (y, ym) = (y?, ym?);
    let norm_y = norm(&y);
    if exact {
        return Ok((y, 0.0, norm_y));
    }
    let saad = beta[k - 1] * y[k - 1].norm();
    let err = estimate(
        &y,
        saad,
        threshold.map(|t| t(norm_y)),
        ym.as_deref(),
        || rest.unwrap_or_else(pair),
    )?;
    Ok((y, err, norm_y))
}

/// e^{τT_k}e₁ = e^{c}·y with c = max Re(τλ) over the eigenvalues of T_k ([`scaling`]), with
/// the error estimate of [`estimate`] (same scaling); zero when `exact`; a lower bound of it
/// when `screen` shows that the check fails ([`Screen`]). `tol` is the tolerance the result
/// is for: where it allows ([`refinement_needed`]) the small problems keep QL's eigenvalues
/// unrefined.
///
/// Cost: the extreme eigenvalues of T_k by bisection (O(k) per Sturm count), then the four
/// small problems of [`solve_and_estimate`], at once on a multicore host.
pub(crate) fn exp_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    tau: c64,
    exact: bool,
    tol: &Tolerance,
    screen: Screen<'_>,
) -> Result<Coefficients> {
    let (a, b) = (&alpha[..k], &beta[..k - 1]);
    let c = scaling(a, b, tau)?;
    let refine = refinement_needed(a, b, tau, tol);
    let threshold =
        screen.map(|(tol, beta0)| move |norm_y| scaled_tolerance(tol, c, beta0, norm_y));
    let (y, err, norm_y) = solve_and_estimate(k, beta, exact, threshold, |j| {
        exp_first_column(&alpha[..j], &beta[..j - 1], tau, c, refine)
    })?;
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

/// φ_p(τT)e₁ = Z·(φ_p(τλ) ∘ Zᵀe₁) for the tridiagonal T (diagonal `alpha`, off-diagonal
/// `beta`), as [`exp_first_column`] does for the exponential: the decomposition T = ZΛZᵀ and
/// k scalar φ_p(τλᵢ) (`matexp_dense::phi_scalar`, accurate to a few ulps for p ≤ 30): the
/// cost of the exponential's small problem, where the augmented exponential of order k + p
/// (Padé with scaling and squaring) costs O((k + p)³) with a large constant per call. An
/// eigenvalue error δᵢ moves its term by about τδᵢ·φ_p′(τλᵢ) with φ_p′ = φ_p − p·φ_{p+1}, so
/// ‖Δy‖ ≲ |τ|·δ·maxᵢ(|φ_p(τλᵢ)| + p·|φ_{p+1}(τλᵢ)|), which for Re τλ ≤ 0 is at most
/// 2|τ|δ/p!: the exponential's perturbation bound with φ_p in place of e^z, so the
/// exponential's refinement rule ([`refinement_needed`]) is kept.
fn phi_first_column(
    alpha: &[f64],
    beta: &[f64],
    tau: c64,
    p: usize,
    refine: bool,
) -> Result<Vec<c64>> {
    let e = if refine {
        symmetric_tridiagonal_rotations(alpha, beta)?
    } else {
        symmetric_tridiagonal_rotations_unrefined(alpha, beta)?
    };
    let mut y = e
        .row(0)
        .iter()
        .zip(&e.values)
        .map(|(&z0, &l)| Ok(phi_scalar(p, tau * l)? * z0))
        .collect::<Result<Vec<c64>>>()?;
    e.mul(&mut y);
    Ok(y)
}

/// φ_p(τT_k)e₁ (no scaling, c = 0) with the estimate of [`estimate`], screened and solved
/// as in [`exp_coefficients`] ([`solve_and_estimate`]): by the decomposition of T
/// ([`phi_first_column`]), and from the augmented exponential where a φ_p(τλᵢ) is beyond
/// the floating-point range there (the augmented form then reports what the range allows).
#[allow(clippy::too_many_arguments)]
pub(crate) fn phi_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    p: usize,
    tau: c64,
    exact: bool,
    tol: &Tolerance,
    screen: Screen<'_>,
) -> Result<Coefficients> {
    let refine = refinement_needed(&alpha[..k], &beta[..k - 1], tau, tol);
    let column = |j: usize| -> Result<Vec<c64>> {
        match phi_first_column(&alpha[..j], &beta[..j - 1], tau, p, refine) {
            Err(Error::NonFinite { .. }) => {
                let m = tridiagonal_times(alpha, beta, j, tau);
                Ok(phi_vectors(&m, &e1(j), p)?.pop().expect("p + 1 vectors"))
            }
            other => other,
        }
    };
    let threshold =
        screen.map(|(tol, beta0)| move |norm_y| scaled_tolerance(tol, 0.0, beta0, norm_y));
    let (y, err, norm_y) = solve_and_estimate(k, beta, exact, threshold, column)?;
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
    use matexp_dense::symmetric_tridiagonal_eigen;
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
            let c = scaling(&alpha, &beta, tau).unwrap();
            let y = exp_first_column(&alpha, &beta, tau, c, true).unwrap();
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
            // rtol 10⁻¹⁵ keeps the refinement: the eigenvalues of the reference.
            let tol = Tolerance::relative(1e-15);
            let got = exp_coefficients(&alpha, &beta, k, tau, false, &tol, None).unwrap();
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// The scaling c from the extreme eigenvalues against max Re(τλ) over the refined
        /// eigenvalues: equal to a few ε·|τ|·‖T‖, and never below by more than that.
        #[test]
        fn scaling_is_the_largest_exponent(
            kind in 0u8..5,
            k in 1usize..60,
            seed in any::<u64>(),
            re in -1e3f64..1e3,
            im in -60.0f64..60.0,
        ) {
            let (alpha, beta) = tridiagonal(kind, k, seed);
            for tau in [c64::new(re, im), c64::new(-re, im), c64::new(0.0, im)] {
                let c = scaling(&alpha, &beta, tau).unwrap();
                let want = symmetric_tridiagonal_eigen(&alpha, &beta)
                    .unwrap()
                    .values
                    .iter()
                    .map(|&l| (tau * l).re)
                    .fold(f64::NEG_INFINITY, f64::max);
                let norm = alpha.iter().chain(&beta).fold(0.0f64, |m, x| m.max(x.abs()));
                let rounding = 16.0 * f64::EPSILON * tau.re.abs() * 3.0 * norm;
                prop_assert!(c >= want - rounding, "c {c:e} below {want:e}");
                prop_assert!(c <= want + rounding, "c {c:e} above {want:e}");
            }
        }

        /// Where the rule drops the refinement, the result and the estimate move by less
        /// than 10⁻³·rtol relative to ‖y‖ (the rule's promise), here on random τ with
        /// |τ|·‖T‖ up to ~10⁴ at rtol chosen at the rule's edge.
        #[test]
        fn unrefined_checks_stay_within_the_rule(
            kind in 0u8..5,
            k in 2usize..80,
            seed in any::<u64>(),
            re in -3e3f64..0.0,
            im in -3e3f64..3e3,
        ) {
            let (alpha, mut beta) = tridiagonal(kind, k, seed);
            beta.push(0.4);
            let tau = c64::new(re, im);
            let norm = (0..k)
                .map(|i| {
                    alpha[i].abs()
                        + if i > 0 { beta[i - 1].abs() } else { 0.0 }
                        + if i + 1 < k { beta[i].abs() } else { 0.0 }
                })
                .fold(0.0, f64::max);
            // Just loose enough for the rule to skip the refinement.
            let tol = Tolerance::relative(1.01e3 * 64.0 * f64::EPSILON * tau.norm() * norm);
            prop_assert!(!refinement_needed(&alpha[..k], &beta[..k - 1], tau, &tol));
            let tight = Tolerance::relative(1e-15);
            let unrefined = exp_coefficients(&alpha, &beta, k, tau, false, &tol, None).unwrap();
            let refined = exp_coefficients(&alpha, &beta, k, tau, false, &tight, None).unwrap();
            prop_assert_eq!(unrefined.c, refined.c);
            let bound = 1e-3 * tol.rtol * refined.norm_y + 1e-14 * k as f64;
            prop_assert!(diff(&unrefined.y, &refined.y) <= bound);
            // The estimate is a difference of two such y (up to the lagged one's choice,
            // which a tie within the perturbation may flip).
            let moved = (unrefined.err - refined.err).abs();
            prop_assert!(
                moved <= 4.0 * bound || moved <= 0.75 * refined.err.max(unrefined.err),
                "estimate {:e} vs {:e}", unrefined.err, refined.err
            );
        }
    }

    /// The small problems solved all at once and in two rounds around the screen give the
    /// same coefficients and estimates, bit for bit.
    #[test]
    fn all_at_once_and_two_rounds_agree() {
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let (one, many) = (pool(1), pool(ALL_AT_ONCE_THREADS));
        for seed in 0..10u64 {
            let (alpha, mut beta) = tridiagonal((seed % 5) as u8, 50, seed);
            beta.push(0.5);
            for k in [1, 2, 3, 5, 20, 50] {
                for (rtol, beta0) in [(1e-5, 1.0), (1e-12, 30.0)] {
                    let tol = Tolerance::relative(rtol);
                    let tau = c64::new(-2.0, 3.0);
                    let run = || {
                        let c = exp_coefficients(
                            &alpha,
                            &beta,
                            k,
                            tau,
                            false,
                            &tol,
                            Some((&tol, beta0)),
                        )
                        .unwrap();
                        (c.y, c.c.to_bits(), c.err.to_bits(), c.norm_y.to_bits())
                    };
                    assert_eq!(one.install(run), many.install(run), "seed {seed}, k {k}");
                }
            }
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
                    for (rtol, atol, beta0) in [(1e-5, 0.0, 1.0), (1e-10, 1e-12, 30.0)] {
                        let tol = Tolerance::new(rtol, atol);
                        // The same tolerance: the same refinement of the eigenvalues.
                        let full =
                            exp_coefficients(&alpha, &beta, k, tau, false, &tol, None).unwrap();
                        let screened = exp_coefficients(
                            &alpha,
                            &beta,
                            k,
                            tau,
                            false,
                            &tol,
                            Some((&tol, beta0)),
                        )
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
            let tau = c64::new(0.0, -t);
            let c = scaling(&alpha, &beta, tau).unwrap();
            assert_eq!(c, 0.0);
            // 64ε·|t|·‖T‖ ≈ 1.4·10⁻¹⁰: refined for any rtol below 10⁻⁷.
            assert!(refinement_needed(
                &alpha,
                &beta,
                tau,
                &Tolerance::relative(1e-8)
            ));
            let y = exp_first_column(&alpha, &beta, tau, c, true).unwrap();
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

#[cfg(test)]
mod timing {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use std::time::Instant;

    /// α, β of k Lanczos steps (no reorthogonalization) on a diagonal matrix whose spectrum
    /// samples that of the 3D Laplacian at N = 256 (in [−7.9·10⁵, 0]), from a random start.
    fn stiff_lanczos(k: usize) -> (Vec<f64>, Vec<f64>) {
        let n = 50_000;
        let mut rng = StdRng::seed_from_u64(7);
        let h2 = (1.0f64 / 257.0).powi(2);
        let half_pi = std::f64::consts::FRAC_PI_2;
        let lambda: Vec<f64> = (0..n)
            .map(|_| {
                let s: f64 = (0..3)
                    .map(|_| rng.random_range(0.0..half_pi).sin().powi(2))
                    .sum();
                -4.0 * s / h2
            })
            .collect();
        let mut q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let nq = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.iter_mut().for_each(|x| *x /= nq);
        let mut q_prev = vec![0.0; n];
        let (mut alpha, mut beta) = (Vec::new(), Vec::new());
        for j in 0..k {
            let mut w: Vec<f64> = q.iter().zip(&lambda).map(|(x, l)| x * l).collect();
            let a: f64 = w.iter().zip(&q).map(|(x, y)| x * y).sum();
            let b_prev = if j > 0 { beta[j - 1] } else { 0.0 };
            for i in 0..n {
                w[i] -= a * q[i] + b_prev * q_prev[i];
            }
            let b = w.iter().map(|x| x * x).sum::<f64>().sqrt();
            w.iter_mut().for_each(|x| *x /= b);
            alpha.push(a);
            beta.push(b);
            q_prev = std::mem::replace(&mut q, w);
        }
        (alpha, beta)
    }

    fn check(
        alpha: &[f64],
        beta: &[f64],
        k: usize,
        tau: c64,
        tol: &Tolerance,
        screen: Screen<'_>,
    ) -> Coefficients {
        exp_coefficients(alpha, beta, k, tau, false, tol, screen).unwrap()
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// Wall time of one convergence check of e^{τT_k}e₁ at k = 267 (τ = 0.01, rtol 10⁻⁵:
    /// the regime of the 3D Laplacian at N = 256), full and screened, on the rayon pool of
    /// this host. `cargo test -p matexp-expmv --release -- --ignored --nocapture
    /// check_time`.
    #[test]
    #[ignore = "timing"]
    fn check_time_at_k267() {
        let k = 267;
        let (alpha, beta) = stiff_lanczos(k + 1);
        let tau = c64::new(0.01, 0.0);
        let tol = Tolerance::new(1e-5, 0.0);
        let time = |f: &dyn Fn() -> Coefficients| {
            f();
            median(
                (0..41)
                    .map(|_| {
                        let t = Instant::now();
                        std::hint::black_box(f());
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            )
        };
        let full = time(&|| check(&alpha, &beta, k, tau, &tol, None));
        let screened = time(&|| check(&alpha, &beta, k, tau, &tol, Some((&tol, 1.0))));
        let (a, b) = (&alpha[..k], &beta[..k - 1]);
        let part = |f: &dyn Fn()| {
            median(
                (0..41)
                    .map(|_| {
                        let t = Instant::now();
                        f();
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            )
        };
        let extremes = part(&|| {
            std::hint::black_box(scaling(a, b, tau).unwrap());
        });
        let cs = scaling(a, b, tau).unwrap();
        let refined = part(&|| {
            std::hint::black_box(exp_first_column(a, b, tau, cs, true).unwrap());
        });
        let unrefined = part(&|| {
            std::hint::black_box(exp_first_column(a, b, tau, cs, false).unwrap());
        });
        eprintln!(
            "one small problem of order {k}: refined {refined:.3} ms, unrefined {unrefined:.3} \
             ms; scaling from the extreme eigenvalues {extremes:.3} ms; refinement needed at \
             rtol 1e-5: {}",
            refinement_needed(a, b, tau, &tol)
        );
        let c = check(&alpha, &beta, k, tau, &tol, None);
        eprintln!(
            "k = {k}, {} rayon threads: full check {full:.3} ms, screened {screened:.3} ms \
             (c = {:.6e}, estimate {:.3e}, ‖y‖ = {:.3e}, converged at rtol 1e-5: {})",
            rayon::current_num_threads(),
            c.c,
            c.err,
            c.norm_y,
            c.converged(&tol, 1.0)
        );
    }
}
