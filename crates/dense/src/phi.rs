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
/// exp of the block matrix M = [[A, I, 0, …], [0, 0, I, …], …, [0, …, 0]] with p + 1 block
/// rows has φ_j(A) in block (0, j).
///
/// Cost: one [`expm`] of order (p+1)·n, i.e. O((p+1)³n³). Accuracy: that of `expm` on M.
///
/// # Errors
///
/// Those of [`expm`].
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
    let big = (p + 1) * n;
    let mut m = Matrix::<S>::zeros(big, big);
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] = a[(i, j)];
        }
    }
    for blk in 0..p {
        for i in 0..n {
            m[(blk * n + i, (blk + 1) * n + i)] = S::one();
        }
    }
    let e = expm(&m)?;
    (0..=p).map(|j| e.submatrix(0, j * n, n, n)).collect()
}

/// [φ₀(A)b, φ₁(A)b, …, φ_p(A)b] for a square A and a vector b.
///
/// exp of the (n+p)×(n+p) matrix [[A, b·e₁ᵀ], [0, J]], J the p×p upper shift, holds
/// [φ₁(A)b, …, φ_p(A)b] in the top rows of its last p columns (Sidje 1998, Thm. 1); φ₀(A)b
/// is its leading n×n block times b. b is scaled by a power of two to ‖b‖₁ ≈ 1 first, so
/// that a large ‖b‖ does not inflate the scaling of the exponential (exact, by linearity).
/// This is the small-matrix kernel of the Krylov φ-methods.
///
/// Cost: one [`expm`] of order n + p. Accuracy: that of `expm` on the augmented matrix.
///
/// # Errors
///
/// [`Error::DimensionMismatch`] if A is not square or `b.len() != n`,
/// [`Error::NonFinite`] for NaN/∞ in A or b, and those of [`expm`].
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
    let big = n + p;
    let mut m = Matrix::<S>::zeros(big, big);
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] = a[(i, j)];
        }
    }
    if p > 0 {
        for i in 0..n {
            m[(i, n)] = b[i] * down;
        }
        for k in 0..p - 1 {
            m[(n + k, n + k + 1)] = S::one();
        }
    }
    let e = expm(&m)?;
    let mut out = Vec::with_capacity(p + 1);
    let lead = e.submatrix(0, 0, n, n)?;
    out.push(lead.matvec(b)?);
    for j in 1..=p {
        out.push(e.col(n + j - 1)[..n].iter().map(|&x| x * up).collect());
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

/// φ_k(z) for a scalar (real or complex), to near full precision: the Taylor series
/// Σ_j z^j/(j+k)! for |z| < 1, otherwise the recurrence φ_k = (φ_{k−1} − 1/(k−1)!)/z from
/// φ₀ = e^z. Relative error ≲ 10·u for k ≤ 3; the recurrence loses up to about k!·u near
/// |z| = 1 for larger k.
///
/// ```
/// use matexp_dense::phi_scalar;
/// assert!((phi_scalar(1, 1e-10f64) - (1.0 + 0.5e-10)).abs() < 1e-16);
/// assert!((phi_scalar(2, -50.0f64) - (49.0 + (-50f64).exp()) / 2500.0).abs() < 1e-16);
/// ```
pub fn phi_scalar<S: Scalar>(k: usize, z: S) -> S {
    let zc = z.to_c64();
    let r = if zc.norm() < 1.0 {
        // Terms decay at least like 1/(j+k)!; 30 terms reach below 1e-32 relative.
        let mut term = num_complex::Complex::new(1.0, 0.0);
        for i in 1..=k {
            term /= i as f64;
        }
        let mut sum = term;
        for j in 1..30 {
            term = term * zc / (j + k) as f64;
            sum += term;
        }
        sum
    } else {
        let mut phi = zc.exp();
        let mut fact = 1.0; // (j−1)!
        for j in 1..=k {
            phi = (phi - 1.0 / fact) / zc;
            fact *= j as f64;
        }
        phi
    };
    S::from_c64(r)
}
