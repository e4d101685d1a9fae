//! The degree-8 Taylor polynomial of `exp` in 3 matrix products (Sastre-type evaluation).
//!
//! Paterson–Stockmeyer needs 4 products for degree 8 (and 3 reach only degree 6). Sastre's
//! evaluation formulas (J. Sastre, *Efficient evaluation of matrix polynomials*, Linear
//! Algebra Appl. 539 (2018) 229–250) reach degree 8 with 3 by multiplying two polynomials
//! that already contain a product; with the coefficients of Bader, Blanes & Casas
//! (*Computing the matrix exponential with an optimized Taylor polynomial approximation*,
//! Mathematics 7 (2019) 1174, eq. (11)):
//!
//! ```text
//! A₂ = X²,   A₄ = A₂(x₁X + x₂A₂),   A₈ = (x₃A₂ + A₄)(x₄I + x₅X + x₆A₂ + x₇A₄),
//! T₈(X) = I + X + y₂A₂ + A₈,
//! x₃ = 2/3,  x₁ = x₃(1+√177)/88,  x₂ = x₃(1+√177)/352,  x₄ = (−271+29√177)/(315x₃),
//! x₅ = 11(−1+√177)/(1260x₃),  x₆ = 11(−9+√177)/(5040x₃),  x₇ = (89−√177)/(5040x₃²),
//! y₂ = (857−58√177)/630.
//! ```
//!
//! Expanding gives `Σ_{k=0}^{8} X^k/k!` exactly (checked in 40-digit arithmetic when the
//! constants were transcribed, and by the tests against Horner).
//!
//! **Stability of the coefficients.** All constants are of modest size
//! (`x₁ ≈ 0.1084`, `x₂ ≈ 0.0271`, `x₃ ≈ 0.667`, `x₄ ≈ 0.5468`, `x₅ ≈ 0.1611`,
//! `x₆ ≈ 0.0141`, `x₇ ≈ 0.0338`, `y₂ ≈ 0.1355`), none is formed by cancellation of large
//! terms, and the two factors of `A₈` are each evaluated from a short sum of positive-weight
//! terms. For `‖X‖ ≤ θ₈ ≈ 0.05` (the only range the exponential uses it in) every
//! intermediate is bounded by a small multiple of `‖X‖²`, so the rounding error is of the
//! order of `u` relative to `T₈`, like Horner's; the test `taylor8_matches_horner` measures
//! it on random and structured matrices.

use crate::backend::DenseBackend;
use matexp_core::{Result, Scalar};

/// The constants `[x₁, x₂, x₃, x₄, x₅, x₆, x₇, y₂]`.
pub(crate) fn constants() -> [f64; 8] {
    let s = 177f64.sqrt();
    let x3 = 2.0 / 3.0;
    [
        x3 * (1.0 + s) / 88.0,
        x3 * (1.0 + s) / 352.0,
        x3,
        (-271.0 + 29.0 * s) / (315.0 * x3),
        11.0 * (-1.0 + s) / (1260.0 * x3),
        11.0 * (-9.0 + s) / (5040.0 * x3),
        (89.0 - s) / (5040.0 * x3 * x3),
        (857.0 - 58.0 * s) / 630.0,
    ]
}

/// `out ← T₈(X)` given `x = X` and `x2 = X²`; `u`, `a4`, `l` are scratch. Products: 2
/// (plus the one that formed `X²`).
pub(crate) fn taylor8<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &B::Mat,
    x2: &B::Mat,
    u: &mut B::Mat,
    a4: &mut B::Mat,
    l: &mut B::Mat,
    out: &mut B::Mat,
) -> Result<()> {
    let [x1, x2c, x3, x4, x5, x6, x7, y2] = constants().map(S::from_f64);
    // u = x₁X + x₂A₂; A₄ = A₂·u.
    // Each combination is one lincomb pass (reads its terms once, writes once).
    let one = S::one();
    be.lincomb(S::zero(), &[(x1, x), (x2c, x2)], 0, u)?;
    be.gemm(one, x2, u, S::zero(), a4)?;
    // l = x₃A₂ + A₄; u = x₄I + x₅X + x₆A₂ + x₇A₄.
    be.lincomb(S::zero(), &[(one, &*a4), (x3, x2)], 0, l)?;
    be.lincomb(x4, &[(x5, x), (x6, x2), (x7, &*a4)], 0, u)?;
    // out = I + X + y₂A₂ + l·u.
    be.lincomb(one, &[(one, x), (y2, x2)], 0, out)?;
    be.gemm(one, l, u, one, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula_expands_to_the_taylor_polynomial_for_scalars() {
        let [x1, x2, x3, x4, x5, x6, x7, y2] = constants();
        for &a in &[0.05f64, -0.03, 0.5, -1.2] {
            let a2 = a * a;
            let a4 = a2 * (x1 * a + x2 * a2);
            let a8 = (x3 * a2 + a4) * (x4 + x5 * a + x6 * a2 + x7 * a4);
            let t = 1.0 + a + y2 * a2 + a8;
            let mut want = 0.0;
            let mut term = 1.0;
            for k in 0..=8 {
                want += term;
                term *= a / (k + 1) as f64;
            }
            assert!(
                (t - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "{a}: {t} vs {want}"
            );
        }
    }
}
