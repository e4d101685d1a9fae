//! Symmetric/Hermitian eigendecompositions (the pure-Rust Jacobi method, or LAPACK's divide
//! and conquer with the `lapack` feature) and the tridiagonal one as a [`Matrix`] (implicit
//! QL, [`crate::symmetric_tridiagonal_eigen`]).

use crate::Matrix;
use crate::wide::{Wide, WideScalar};
use matexp_core::{Error, RealScalar, Result, Scalar, check_dim};

fn eigh_wide<T: WideScalar>(a: Matrix<T>) -> Result<(Vec<f64>, Matrix<T>)> {
    #[cfg(feature = "lapack")]
    {
        crate::lapack::eigh(a)
    }
    #[cfg(not(feature = "lapack"))]
    {
        crate::jacobi::eigh_jacobi(a)
    }
}

/// Eigen-decomposition A = V·diag(λ)·Vᴴ of a symmetric (real) or Hermitian (complex) matrix,
/// in double precision (`f32`/`c32` are promoted and the results rounded back).
///
/// Returns the eigenvalues in ascending order and the orthonormal eigenvectors as the columns
/// of V. Kernel: the cyclic Jacobi method in pure Rust (about 6n³ flops per sweep, 6–10
/// sweeps), or with the `lapack` feature the divide-and-conquer drivers `dsyevd` / `zheevd`
/// (O(n³), several times faster for n in the hundreds). Both give eigenvalues accurate to
/// O(u·‖A‖₂) absolutely and eigenvectors orthonormal to O(n·u).
///
/// # Errors
///
/// [`Error::DimensionMismatch`] if not square, [`Error::NonFinite`] for NaN/∞ entries,
/// [`Error::InvalidArgument`] if A is not Hermitian to within 100·u·max|a_ij| (the solvers
/// would silently read only one triangle), [`Error::NoConvergence`] if Jacobi has not
/// converged after 60 sweeps (not observed), [`Error::Lapack`] if the LAPACK solver fails.
///
/// ```
/// use matexp_dense::{Matrix, eigh};
/// let a = Matrix::<f64>::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?;
/// let (lambda, v) = eigh(&a)?;
/// assert!((lambda[0] - 1.0).abs() < 1e-14 && (lambda[1] - 3.0).abs() < 1e-14);
/// assert!((v[(0, 1)].abs() - 0.5f64.sqrt()).abs() < 1e-14);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn eigh<S: Scalar>(a: &Matrix<S>) -> Result<(Vec<S::Real>, Matrix<S>)> {
    a.check_square("eigh")?;
    a.check_finite("eigh: A")?;
    let tol = 100.0 * S::Real::EPS.as_f64();
    if !a.is_hermitian(tol) {
        return Err(Error::invalid(
            "a",
            format!("{}×{} matrix", a.nrows(), a.ncols()),
            format!(
                "eigh needs a symmetric/Hermitian matrix (|a_ij − conj(a_ji)| ≤ {tol:.1e}·max|a|)"
            ),
        ));
    }
    let (w, v) = match Wide::of(a) {
        Wide::Real(m) => {
            let (w, v) = eigh_wide(symmetrized(m))?;
            (w, Wide::Real(v))
        }
        Wide::Complex(m) => {
            let (w, v) = eigh_wide(symmetrized(m))?;
            (w, Wide::Complex(v))
        }
    };
    Ok((w.into_iter().map(S::Real::from_f64).collect(), v.narrow()))
}

/// (A + Aᴴ)/2: both kernels then see exactly one Hermitian matrix, whichever triangle they
/// read (A is Hermitian to rounding, checked by the caller).
fn symmetrized<T: WideScalar>(a: Matrix<T>) -> Matrix<T> {
    let n = a.nrows();
    Matrix::from_fn(n, n, |i, j| (a[(i, j)] + a[(j, i)].conj()).scale(0.5))
}

/// Eigen-decomposition T = Z·diag(λ)·Zᵀ of the real symmetric tridiagonal matrix with
/// diagonal `diag` (length n) and off-diagonal `offdiag` (length n − 1).
///
/// Returns ascending eigenvalues and the orthonormal eigenvectors as columns of Z: the
/// crate's one tridiagonal eigensolver, [`crate::symmetric_tridiagonal_eigen`] (implicit QL
/// with Wilkinson shifts, eigenvalues refined by Sturm bisection; O(n²) for the
/// eigenvalues, O(n³) with vectors), in a [`Matrix`]. The same with and without the
/// `lapack` feature. Order 0 gives empty results.
///
/// # Errors
///
/// [`Error::DimensionMismatch`] if `offdiag.len() != n − 1` (for n ≥ 1),
/// [`Error::NonFinite`] for NaN/∞ entries, [`Error::NoConvergence`] if QL does not
/// converge (not observed).
///
/// ```
/// use matexp_dense::eigh_tridiagonal;
/// // tridiag(1, 2, 1) of order 3 has eigenvalues 2 − √2, 2, 2 + √2.
/// let (lambda, _z) = eigh_tridiagonal(&[2.0; 3], &[1.0; 2])?;
/// let s = 2f64.sqrt();
/// for (l, e) in lambda.iter().zip([2.0 - s, 2.0, 2.0 + s]) {
///     assert!((l - e).abs() < 1e-14);
/// }
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn eigh_tridiagonal(diag: &[f64], offdiag: &[f64]) -> Result<(Vec<f64>, Matrix<f64>)> {
    let n = diag.len();
    if n == 0 {
        check_dim("eigh_tridiagonal: off-diagonal length", 0, offdiag.len())?;
        return Ok((vec![], Matrix::zeros(0, 0)));
    }
    check_dim(
        "eigh_tridiagonal: off-diagonal length (n − 1)",
        n - 1,
        offdiag.len(),
    )?;
    for (name, v) in [
        ("eigh_tridiagonal: diagonal", diag),
        ("eigh_tridiagonal: off-diagonal", offdiag),
    ] {
        if let Some((i, x)) = matexp_core::norms::first_non_finite(v) {
            return Err(Error::NonFinite {
                context: name.into(),
                index: i,
                value: format!("{x}"),
            });
        }
    }
    let eig = crate::symmetric_tridiagonal_eigen(diag, offdiag)?;
    // Column j of Z is `vectors[j·n..(j + 1)·n]`: column-major, as `Matrix` stores it.
    let z = Matrix::from_fn(n, n, |i, j| eig.vector(j)[i]);
    Ok((eig.values, z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::c64;

    #[test]
    fn eigh_rejects_non_hermitian_and_handles_complex() {
        let a = Matrix::from_row_major(2, 2, &[1.0, 2.0, 0.0, 1.0]).unwrap();
        assert!(matches!(eigh(&a), Err(Error::InvalidArgument { .. })));
        // Pauli-y has eigenvalues ±1.
        let y = Matrix::from_row_major(
            2,
            2,
            &[
                c64::new(0.0, 0.0),
                c64::new(0.0, -1.0),
                c64::new(0.0, 1.0),
                c64::new(0.0, 0.0),
            ],
        )
        .unwrap();
        let (w, v) = eigh(&y).unwrap();
        assert!((w[0] + 1.0).abs() < 1e-15 && (w[1] - 1.0).abs() < 1e-15);
        // Columns are eigenvectors: Y v = λ v.
        for k in 0..2 {
            let yv = y.matvec(v.col(k)).unwrap();
            for i in 0..2 {
                assert!((yv[i] - v[(i, k)] * w[k]).norm() < 1e-14);
            }
        }
    }

    #[test]
    fn tridiagonal_checks_lengths_and_values() {
        assert!(matches!(
            eigh_tridiagonal(&[1.0, 2.0], &[]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(matches!(
            eigh_tridiagonal(&[1.0, f64::NAN], &[1.0]),
            Err(Error::NonFinite { index: 1, .. })
        ));
        let (w, z) = eigh_tridiagonal(&[3.0], &[]).unwrap();
        assert_eq!((w, z[(0, 0)].abs()), (vec![3.0], 1.0));
    }
}
