//! φ-functions of small matrices by exponentiating an augmented block matrix.
//!
//! φ₀(z) = e^z, φ_k(z) = Σ_{j≥0} z^j/(j+k)!, so φ_k(z) = (φ_{k−1}(z) − 1/(k−1)!)/z and
//! φ_k(A) = ∫₀¹ e^{(1−θ)A} θ^{k−1}/(k−1)! dθ. Evaluating the recurrence on matrices
//! cancels catastrophically for small ‖A‖ and needs A⁻¹; instead both routines read φ_k off
//! the exponential of a block upper triangular matrix (Higham, *Functions of Matrices*,
//! Thm. 10.28; Sidje 1998, Thm. 1), which [`crate::expm`] computes to backward stability.

use crate::{Matrix, expm};
use matexp_core::{Error, RealScalar, Result, Scalar, check_dim};

/// [φ₀(A), φ₁(A), …, φ_p(A)] for a square A.
///
/// exp of the block matrix M = [[A, I, 0, …], [0, 0, 2I, …], …, [0, …, pI], [0, …, 0]]
/// with p + 1 block rows has j!·φ_j(A) in block (0, j): the links 1, 2, …, p keep every
/// block of the size of e^A, so each φ_j keeps the relative accuracy of `expm` (with unit
/// links, φ_j ≈ 1/j! falls below the squarings' absolute rounding of order ε·‖e^M‖ for
/// large j).
///
/// Cost: one [`expm`] of order (p+1)·n, i.e. O((p+1)³n³) (‖M‖ grows by about p, a few more
/// squarings). Accuracy: that of `expm` on M, relative to each block (Al-Mohy & Higham 2011;
/// tested for p ≤ 30 against high-precision series in `tests/phi.rs`).
///
/// # Errors
///
/// Those of [`expm`]; [`Error::InvalidArgument`] when the order (p+1)·n overflows or the
/// augmented matrix cannot be allocated.
///
/// ```
/// use matexp_dense::{Matrix, phi_functions};
/// let a = Matrix::<f64>::from_row_major(1, 1, &[1.0])?;
/// let phi = phi_functions(&a, 2)?;
/// let e = 1f64.exp();
/// assert!((phi[1][(0, 0)] - (e - 1.0)).abs() < 1e-15);
/// assert!((phi[2][(0, 0)] - (e - 2.0)).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn phi_functions<S: Scalar>(a: &Matrix<S>, p: usize) -> Result<Vec<Matrix<S>>> {
    a.check_square("phi_functions")?;
    a.check_finite("phi_functions: A")?;
    let n = a.nrows();
    let big = augmented_order(p, n, 1, "phi_functions")?;
    let mut m = Matrix::<S>::try_zeros(big, big)?;
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] = a[(i, j)];
        }
    }
    // Link blk → blk + 1 scaled by blk + 1, so that block (0, j) holds j!·φ_j(A), of the
    // size of e^A, instead of φ_j(A) ≈ 1/j! (see `phi_vectors`).
    for blk in 0..p {
        let link = S::from_f64((blk + 1) as f64);
        for i in 0..n {
            m[(blk * n + i, (blk + 1) * n + i)] = link;
        }
    }
    let e = expm(&m)?;
    let mut fact = 1.0f64;
    (0..=p)
        .map(|j| {
            fact *= j.max(1) as f64;
            let mut blk = e.submatrix(0, j * n, n, n)?;
            blk.scale_mut(S::from_f64(1.0 / fact));
            Ok(blk)
        })
        .collect()
}

/// [φ₀(A)b, φ₁(A)b, …, φ_p(A)b] for a square A and a vector b.
///
/// exp of the (n+p)×(n+p) matrix [[A, b·e₁ᵀ], [0, J]], J the p×p upper shift with entries
/// 2, 3, …, p, holds [1!·φ₁(A)b, …, p!·φ_p(A)b] in the top rows of its last p columns (Sidje
/// 1998, Thm. 1, with the shift scaled so that every column has the size of e^A·b and keeps
/// its relative accuracy; unit entries left φ_30 with relative errors of 1e−4); φ₀(A)b
/// is its leading n×n block times b. b is scaled by a power of two to ‖b‖₁ ≈ 1 first, so
/// that a large ‖b‖ does not inflate the scaling of the exponential (exact, by linearity).
/// This is the small-matrix kernel of the Krylov φ-methods.
///
/// Cost: one [`expm`] of order n + p. Accuracy: that of `expm` on the augmented matrix.
///
/// # Errors
///
/// [`Error::DimensionMismatch`] if A is not square or `b.len() != n`,
/// [`Error::NonFinite`] for NaN/∞ in A or b, [`Error::InvalidArgument`] when the order
/// n + p overflows or the augmented matrix cannot be allocated, and those of [`expm`].
///
/// ```
/// use matexp_dense::{Matrix, phi_vectors};
/// let a = Matrix::<f64>::from_row_major(2, 2, &[0.0, 1.0, 0.0, 0.0])?; // nilpotent
/// let w = phi_vectors(&a, &[0.0, 1.0], 1)?;
/// // φ₁(A) = I + A/2 for A² = 0.
/// assert!((w[1][0] - 0.5).abs() < 1e-15 && (w[1][1] - 1.0).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn phi_vectors<S: Scalar>(a: &Matrix<S>, b: &[S], p: usize) -> Result<Vec<Vec<S>>> {
    a.check_square("phi_vectors")?;
    let n = a.nrows();
    check_dim("phi_vectors: b length", n, b.len())?;
    a.check_finite("phi_vectors: A")?;
    if let Some((i, v)) = matexp_core::norms::first_non_finite(b) {
        return Err(Error::NonFinite {
            context: "phi_vectors: b".into(),
            index: i,
            value: format!("{v}"),
        });
    }
    let bnorm: f64 = b.iter().map(|x| x.modulus().as_f64()).sum();
    // Power-of-two scaling: exact, and undone exactly at the end.
    let log2 = if bnorm > 0.0 {
        bnorm.log2().round() as i32
    } else {
        0
    };
    let down = S::from_f64(2f64.powi(-log2));
    let up = S::from_f64(2f64.powi(log2));
    let big = augmented_order(p, 1, n, "phi_vectors")?;
    let mut m = Matrix::<S>::try_zeros(big, big)?;
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] = a[(i, j)];
        }
    }
    if p > 0 {
        for i in 0..n {
            m[(i, n)] = b[i] * down;
        }
        // Shift entries k + 2 instead of 1: column n + j − 1 then holds j!·φ_j(A)b, of the
        // size of e^A·b. With ones it held φ_j(A)b ≈ 1/j!, and the squarings' absolute
        // rounding (≈ u·‖e^M‖) left φ_30 with a relative error of 1e−4.
        for k in 0..p - 1 {
            m[(n + k, n + k + 1)] = S::from_f64((k + 2) as f64);
        }
    }
    let e = expm(&m)?;
    let mut out = Vec::with_capacity(p + 1);
    let lead = e.submatrix(0, 0, n, n)?;
    out.push(lead.matvec(b)?);
    let mut fact = 1.0f64;
    for j in 1..=p {
        fact *= j as f64;
        let unscale = up * S::from_f64(1.0 / fact);
        out.push(e.col(n + j - 1)[..n].iter().map(|&x| x * unscale).collect());
    }
    for (k, v) in out.iter().enumerate() {
        if let Some((i, x)) = matexp_core::norms::first_non_finite(v) {
            return Err(Error::NonFinite {
                context: format!("phi_vectors: φ_{k}(A)b overflows"),
                index: i,
                value: format!("{x}"),
            });
        }
    }
    Ok(out)
}

/// `(p + extra)·block`, the order of an augmented matrix, or `InvalidArgument` naming `p`
/// when it overflows (the allocation of its square is checked by [`Matrix::try_zeros`]).
fn augmented_order(p: usize, block: usize, extra: usize, context: &str) -> Result<usize> {
    p.checked_add(extra)
        .and_then(|q| q.checked_mul(block))
        .ok_or_else(|| {
            Error::invalid(
                "p",
                p,
                format!("{context}: the augmented matrix's order overflows usize"),
            )
        })
}

/// φ_k(z) for a scalar (real or complex), `k ≤` [`matexp_divdiff::MAX_PHI_ORDER`] (30),
/// by [`matexp_divdiff::phi`]: the Taylor series Σ_j z^j/(j+k)! at z/2^s with
/// |z/2^s| ≤ 1/2, then s steps of the modified squaring φ_k(2w) = 2^{−k}[e^w φ_k(w) +
/// Σ_{j=1}^{k} φ_j(w)/(k−j)!] for |z| < max(2, 2k); e^z and the recurrence
/// φ_{l+1} = (φ_l − 1/l!)/z beyond. Relative error ≲ 1e−13 for real z and ≲ 1e−12 for
/// complex z, every k ≤ 30 (tests against 256-bit series). Cost O(k²·log|z|) flops.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for `k > MAX_PHI_ORDER` or a non-finite z;
/// [`Error::NonFinite`] when φ_k(z) overflows.
///
/// ```
/// use matexp_dense::phi_scalar;
/// assert!((phi_scalar(1, 1e-10f64)? - (1.0 + 0.5e-10)).abs() < 1e-16);
/// assert!((phi_scalar(2, -50.0f64)? - (49.0 + (-50f64).exp()) / 2500.0).abs() < 1e-16);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn phi_scalar<S: Scalar>(k: usize, z: S) -> Result<S> {
    let zc = z.to_c64();
    if zc.im == 0.0 {
        // Real arithmetic for real arguments: no imaginary rounding leaks in.
        return matexp_divdiff::phi(k, zc.re).map(S::from_f64);
    }
    matexp_divdiff::phi(k, zc).map(S::from_c64)
}
