//! Gauss and Gauss–Radau rules of the Lanczos tridiagonal matrix, in logarithms (the
//! eigenproblem itself is `matexp-dense`'s implicit QL).
//!
//! Lanczos started at u/‖u‖ produces T_k, the Jacobi matrix of the spectral measure of A
//! weighted by u (Golub & Meurant, *Matrices, Moments and Quadrature*, 2010). With
//! T_k = ZΘZᵀ, the k-point Gauss rule is uᵀf(A)u ≈ ‖u‖²·e₁ᵀf(T_k)e₁ = ‖u‖²·Σᵢ Z₁ᵢ²f(θᵢ).
//! For f(x) = e^{βx} every even derivative is positive, so the Gauss rule is a **lower
//! bound** in exact arithmetic; the Gauss–Radau rule with one node fixed at the end of the
//! spectrum (the upper end for β > 0, the lower end for β < 0) is an **upper bound**.
//!
//! The values are returned as natural logarithms: with c = max βθᵢ,
//! ln(e₁ᵀe^{βT}e₁) = c + ln Σᵢ Z₁ᵢ²e^{βθᵢ − c}, where the sum lies in [min Z₁ᵢ², 1] and the
//! weights Z₁ᵢ² sum to one, so nothing overflows for any β‖A‖.

use matexp_core::{Error, Result};
use matexp_dense::symmetric_tridiagonal_rotations;

/// ln(e₁ᵀe^{βT}e₁) for the symmetric tridiagonal T with diagonal `alpha` and off-diagonal
/// `off` (length `alpha.len() − 1`), and the smallest and largest eigenvalues of T (the
/// extreme Ritz values).
///
/// The Golub–Welsch algorithm: the eigenvalues θᵢ and the first components Z₁ᵢ of the
/// eigenvectors from implicit QL with the eigenvectors kept as plane rotations
/// ([`matexp_dense::symmetric_tridiagonal_rotations`]), O(k²) flops. A full eigendecomposition
/// (O(k³); a dense Jacobi solve of ~50k³ flops without LAPACK) at every Lanczos step made a
/// k-step quadrature cost O(k⁴).
pub(crate) fn gauss_ln(alpha: &[f64], off: &[f64], beta: f64) -> Result<(f64, f64, f64)> {
    let eig = symmetric_tridiagonal_rotations(alpha, off)?;
    let theta = &eig.values;
    let z = eig.row(0);
    let c = theta
        .iter()
        .map(|&t| beta * t)
        .fold(f64::NEG_INFINITY, f64::max);
    if !c.is_finite() {
        // β·θ beyond the f64 range (β = 1e308): the logarithm of the form is not
        // representable, and ∞ − ∞ made the value NaN.
        return Err(Error::NonFinite {
            context: format!(
                "Gauss rule: β·θ_max = {beta:e}·{:e} exceeds the f64 range; ln uᵀe^{{βA}}u is not representable",
                theta.iter().fold(0.0f64, |m, t| m.max(t.abs()))
            ),
            index: 0,
            value: format!("{c}"),
        });
    }
    let sum: f64 = theta
        .iter()
        .zip(&z)
        .map(|(&t, &w)| w * w * (beta * t - c).exp())
        .sum();
    let ln = c + sum.ln();
    // −∞ is an honest answer (every weight of the dominant nodes vanished: the form is below
    // the f64 range, as when a deflated residual has no component left); NaN or +∞ is not.
    if ln.is_nan() || ln == f64::INFINITY {
        return Err(Error::NonFinite {
            context: "Gauss rule: ln uᵀe^{βA}u".into(),
            index: 0,
            value: format!("{ln}"),
        });
    }
    // Ascending order.
    Ok((ln, theta[0], theta[theta.len() - 1]))
}

/// ln of the Gauss–Radau rule with the node `node` prescribed: T_k extended by one row,
/// α̃ = node + δ_k where (T_k − node·I)δ = β_k²e_k (Golub & Meurant §6.2), `beta_k` the
/// last Lanczos coefficient. `None` when `node` is (numerically) an eigenvalue of T_k and
/// the extension does not exist.
pub(crate) fn radau_ln(
    alpha: &[f64],
    off: &[f64],
    beta_k: f64,
    node: f64,
    beta: f64,
) -> Result<Option<f64>> {
    let k = alpha.len();
    let Some(delta_last) = solve_shifted_last(alpha, off, node, beta_k * beta_k) else {
        return Ok(None);
    };
    let mut a = alpha.to_vec();
    a.push(node + delta_last);
    let mut o = off[..k - 1].to_vec();
    o.push(beta_k);
    if !a[k].is_finite() {
        return Ok(None);
    }
    Ok(Some(gauss_ln(&a, &o, beta)?.0))
}

/// The last entry of the solution of (T − σI)x = r·e_k by the Thomas algorithm; `None` on a
/// zero pivot. T − σI is definite when σ lies outside the spectrum of T, which interlacing
/// guarantees for σ beyond the spectrum of A, so no pivoting is needed.
fn solve_shifted_last(alpha: &[f64], off: &[f64], sigma: f64, r: f64) -> Option<f64> {
    // Forward elimination with the right-hand side zero until the last row.
    let k = alpha.len();
    let mut pivot = alpha[0] - sigma;
    for i in 1..k {
        if pivot == 0.0 || !pivot.is_finite() {
            return None;
        }
        pivot = alpha[i] - sigma - off[i - 1] * off[i - 1] / pivot;
    }
    if pivot == 0.0 || !pivot.is_finite() {
        return None;
    }
    Some(r / pivot)
}

/// Checks β (the centrality parameter).
pub(crate) fn check_beta(beta: f64) -> Result<()> {
    if !beta.is_finite() {
        return Err(Error::invalid("beta", beta, "must be finite"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_by_one_is_the_exponential() {
        let (g, _, t) = gauss_ln(&[3.0], &[], 2.0).unwrap();
        assert!((g - 6.0).abs() < 1e-15);
        assert_eq!(t, 3.0);
    }

    #[test]
    fn gauss_of_two_by_two_matches_closed_form() {
        // T = [[0, 1], [1, 0]]: e₁ᵀe^{βT}e₁ = cosh β, far beyond the f64 range for β = 1000.
        let (g, _, _) = gauss_ln(&[0.0, 0.0], &[1.0], 1000.0).unwrap();
        let want = 1000.0 + (0.5f64 * (1.0 + (-2000f64).exp())).ln();
        assert!((g - want).abs() < 1e-12, "{g} vs {want}");
    }

    /// Reference: the dense eigendecomposition of T.
    fn gauss_dense(alpha: &[f64], off: &[f64], beta: f64) -> (f64, f64, f64) {
        let (theta, z) = matexp_dense::eigh_tridiagonal(alpha, off).unwrap();
        let c = theta
            .iter()
            .map(|&t| beta * t)
            .fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = (0..theta.len())
            .map(|i| z[(0, i)] * z[(0, i)] * (beta * theta[i] - c).exp())
            .sum();
        (c + sum.ln(), theta[0], theta[theta.len() - 1])
    }

    #[test]
    fn golub_welsch_matches_the_dense_eigendecomposition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for k in [1, 2, 3, 5, 8, 20, 64, 150] {
            for beta in [1.0, -0.5, 3.0] {
                // Lanczos-like coefficients: a large leading eigenvalue and a dense bulk.
                let mut alpha: Vec<f64> = (0..k).map(|_| rng.random_range(-5.0..5.0)).collect();
                alpha[0] = 40.0;
                let off: Vec<f64> = (1..k).map(|_| rng.random_range(0.01..8.0)).collect();
                let (g, lo, hi) = gauss_ln(&alpha, &off, beta).unwrap();
                let (gd, lod, hid) = gauss_dense(&alpha, &off, beta);
                let scale = hid.abs().max(lod.abs()).max(1.0);
                assert!(
                    (g - gd).abs() <= 1e-13 * gd.abs().max(1.0),
                    "k={k} β={beta}: {g} vs {gd}"
                );
                assert!((lo - lod).abs() <= 1e-13 * scale && (hi - hid).abs() <= 1e-13 * scale);
            }
        }
        // Splits (zero off-diagonals) and repeated eigenvalues.
        let alpha = [1.0, 1.0, 1.0, 2.0, 0.0];
        let off = [0.0, 1.0, 0.0, 1e-300];
        let (g, _, _) = gauss_ln(&alpha, &off, 1.0).unwrap();
        assert!((g - 1.0).abs() < 1e-15, "{g}");
        assert!(gauss_ln(&[1.0, f64::NAN], &[1.0], 1.0).is_err());
        assert!(gauss_ln(&[1.0, 2.0], &[], 1.0).is_err());
    }

    #[test]
    fn radau_brackets_from_above() {
        // Measure of T = tridiag(1, 0, 1) of order 6 at e₁; the one-point Gauss rule is e⁰ = 1,
        // the two-point Radau rule with the node at the spectral bound 2 is above the truth.
        let n = 6;
        let alpha = vec![0.0; n];
        let off = vec![1.0; n - 1];
        let (exact, _, _) = gauss_ln(&alpha, &off, 1.0).unwrap();
        for k in 1..n {
            let (g, _, _) = gauss_ln(&alpha[..k], &off[..k - 1], 1.0).unwrap();
            let r = radau_ln(&alpha[..k], &off[..k - 1], off[k - 1], 2.0, 1.0)
                .unwrap()
                .unwrap();
            assert!(
                g <= exact + 1e-14 && exact <= r + 1e-14,
                "k={k}: {g} {exact} {r}"
            );
        }
    }
}
