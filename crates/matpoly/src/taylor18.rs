//! The degree-18 Taylor polynomial of `exp` in 5 matrix products.
//!
//! Paterson–Stockmeyer needs 7 products for degree 18. Bader, Blanes & Casas (*Computing
//! the matrix exponential with an optimized Taylor polynomial approximation*, Mathematics 7
//! (2019) 1174, §4, the case `m = 18`) evaluate `T₁₈` with 5 by nesting two products of
//! polynomials in `X, X², X³, X⁶`:
//!
//! ```text
//! A₂ = X², A₃ = A₂X, A₆ = A₃²,   B_i = b_{i0}I + b_{i1}X + b_{i2}A₂ + b_{i3}A₃ + b_{i4}A₆,
//! A₉ = B₀B₄ + B₃,   T₁₈(X) = B₁ + (B₂ + A₉)A₉.
//! ```
//!
//! The 25 constants `b_ij` ([`COEFFS`]) solve the nonlinear system that makes the
//! expansion equal `Σ_{k=0}^{18} X^k/k!`; they are the published values, and
//! `fixtures/matpoly/expm_reference.py` checks in 40-digit arithmetic that the expansion
//! reproduces every Taylor coefficient to a relative 1e−15 (the printed digits) and has
//! degree exactly 18.
//!
//! **Stability.** Unlike `T₈`'s, these constants range from `b₂₀ ≈ −11` down to `1e−5`, and
//! the identity terms of `B₁ + (B₂ + A₉)A₉` cancel from `(−10.97 − 0.09²)²`-sized
//! intermediates down to 1. For `‖X‖ ≤ θ₁₈ ≈ 1.09`, the only range the exponential uses it
//! in, every `B_i` and `A₉` stays below about 12 in norm, so the rounding error is a small
//! multiple of `u` (Bader et al. report it comparable to Paterson–Stockmeyer's); the test
//! `taylor18_agrees_with_horner_in_five_products` bounds it against Horner by 1e−14 up to
//! `‖X‖ = θ₁₈`.

use crate::backend::DenseBackend;
use matexp_core::{Result, Scalar};

/// `COEFFS[i] = [b_i0, b_i1, b_i2, b_i3, b_i4]`, the coefficients of `B_i` on
/// `I, X, X², X³, X⁶` (Bader, Blanes & Casas 2019, `m = 18`).
pub const COEFFS: [[f64; 5]; 5] = [
    [
        0.0,
        -1.00365581030144618291e-01,
        -8.02924648241156932449e-03,
        -8.92138498045729985177e-04,
        0.0,
    ],
    [
        0.0,
        3.97849749499645077844e-01,
        1.36783778460411720168e+00,
        4.98289622525382669416e-01,
        -6.37898194594723280150e-04,
    ],
    [
        -1.09676396052962061844e+01,
        1.68015813878906206114e+00,
        5.71779846478865511061e-02,
        -6.98210122488052056106e-03,
        3.34975017086070470649e-05,
    ],
    [
        -9.04316832390810593223e-02,
        -6.76404519071381882256e-02,
        6.75961301770459654925e-02,
        2.95552570429315521194e-02,
        -1.39180257516060693404e-05,
    ],
    [
        0.0,
        0.0,
        -9.23364619367118555360e-02,
        -1.69364939002081722752e-02,
        -1.40086798182036094347e-05,
    ],
];

/// Products of this evaluation (including the one forming `X²`).
pub const PRODUCTS: usize = 5;

/// `out ← B_i (+ extra)` from the terms `X, X², X³, X⁶`: one [`DenseBackend::lincomb`]
/// pass; `extra` (coefficient 1) folds the `B₂ + A₉` sum into the same pass.
fn combination<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    i: usize,
    terms: [&B::Mat; 4],
    extra: Option<&B::Mat>,
    out: &mut B::Mat,
) -> Result<()> {
    let c = COEFFS[i];
    let mut t: Vec<(S, &B::Mat)> = terms
        .into_iter()
        .enumerate()
        .filter(|&(k, _)| c[k + 1] != 0.0)
        .map(|(k, m)| (S::from_f64(c[k + 1]), m))
        .collect();
    if let Some(e) = extra {
        t.push((S::one(), e));
    }
    be.lincomb(S::from_f64(c[0]), &t, 0, out)
}

/// `out ← T₁₈(X)` given `x = X`, `x2 = X²`; `x3` receives `X³`; `w` are four scratch
/// matrices. Products: 4 (plus the one that formed `X²`).
pub(crate) fn taylor18<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &B::Mat,
    x2: &B::Mat,
    x3: &mut B::Mat,
    w: &mut [B::Mat],
    out: &mut B::Mat,
) -> Result<()> {
    let [a6, p, q, a9] = w else {
        return Err(matexp_core::Error::invalid(
            "scratch",
            w.len(),
            "T18 needs four scratch matrices",
        ));
    };
    be.gemm(S::one(), x2, x, S::zero(), x3)?;
    be.gemm(S::one(), x3, x3, S::zero(), a6)?;
    let terms = [x, x2, &*x3, &*a6];
    // A₉ = B₀B₄ + B₃.
    combination(be, 0, terms, None, p)?;
    combination(be, 4, terms, None, q)?;
    combination(be, 3, terms, None, a9)?;
    be.gemm(S::one(), p, q, S::one(), a9)?;
    // T₁₈ = B₁ + (B₂ + A₉)A₉.
    combination(be, 2, terms, Some(&*a9), p)?;
    combination(be, 1, terms, None, out)?;
    be.gemm(S::one(), p, a9, S::one(), out)
}
