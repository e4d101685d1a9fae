//! LAPACKE kernels (LU solve, symmetric/Hermitian and tridiagonal eigensolvers) and the
//! promotion of every scalar type to the double-precision kernels.

use crate::Matrix;
use lapacke::Layout;
use matexp_core::{Error, RealScalar, Result, Scalar, c64, check_dim};

/// The two scalar types LAPACK work is done in: `f64` and `c64`. Sealed.
pub trait LapackScalar: Scalar<Real = f64> + private::Sealed {
    /// LU factorization with partial pivoting (`?getrf2`, the recursive `?getrf`; OpenBLAS's
    /// threaded `?getrf` needs more stack than a default 2 MiB thread has for n ≳ 100, while
    /// `?getrf2` does not); returns LAPACK's `info`.
    #[doc(hidden)]
    fn getrf(n: i32, a: &mut [Self], ipiv: &mut [i32]) -> i32;
    /// Solve with an LU factorization (`?getrs`, no transpose); returns `info`.
    #[doc(hidden)]
    fn getrs(n: i32, nrhs: i32, a: &[Self], ipiv: &[i32], b: &mut [Self]) -> i32;
    /// Eigen-decomposition of a symmetric/Hermitian matrix (`dsyevd` / `zheevd`, upper
    /// triangle); returns `info`.
    #[doc(hidden)]
    fn heevd(n: i32, a: &mut [Self], w: &mut [f64]) -> i32;
    /// Names for error reports.
    #[doc(hidden)]
    const GETRF: &'static str;
    #[doc(hidden)]
    const GETRS: &'static str;
    #[doc(hidden)]
    const HEEVD: &'static str;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for matexp_core::c64 {}
}

// SAFETY (all blocks below): the callers pass column-major buffers of exactly n·n (or n·nrhs)
// entries with leading dimension n ≥ 1, and pivot/eigenvalue buffers of length n.
impl LapackScalar for f64 {
    fn getrf(n: i32, a: &mut [f64], ipiv: &mut [i32]) -> i32 {
        unsafe { lapacke::dgetrf2(Layout::ColumnMajor, n, n, a, n, ipiv) }
    }
    fn getrs(n: i32, nrhs: i32, a: &[f64], ipiv: &[i32], b: &mut [f64]) -> i32 {
        unsafe { lapacke::dgetrs(Layout::ColumnMajor, b'N', n, nrhs, a, n, ipiv, b, n) }
    }
    fn heevd(n: i32, a: &mut [f64], w: &mut [f64]) -> i32 {
        unsafe { lapacke::dsyevd(Layout::ColumnMajor, b'V', b'U', n, a, n, w) }
    }
    const GETRF: &'static str = "LAPACKE_dgetrf2";
    const GETRS: &'static str = "LAPACKE_dgetrs";
    const HEEVD: &'static str = "LAPACKE_dsyevd";
}

impl LapackScalar for c64 {
    fn getrf(n: i32, a: &mut [c64], ipiv: &mut [i32]) -> i32 {
        unsafe { lapacke::zgetrf2(Layout::ColumnMajor, n, n, a, n, ipiv) }
    }
    fn getrs(n: i32, nrhs: i32, a: &[c64], ipiv: &[i32], b: &mut [c64]) -> i32 {
        unsafe { lapacke::zgetrs(Layout::ColumnMajor, b'N', n, nrhs, a, n, ipiv, b, n) }
    }
    fn heevd(n: i32, a: &mut [c64], w: &mut [f64]) -> i32 {
        unsafe { lapacke::zheevd(Layout::ColumnMajor, b'V', b'U', n, a, n, w) }
    }
    const GETRF: &'static str = "LAPACKE_zgetrf2";
    const GETRS: &'static str = "LAPACKE_zgetrs";
    const HEEVD: &'static str = "LAPACKE_zheevd";
}

/// A matrix widened to the precision LAPACK runs in: real types to `f64`, complex to `c64`.
#[derive(Debug)]
pub(crate) enum Wide {
    Real(Matrix<f64>),
    Complex(Matrix<c64>),
}

impl Wide {
    pub(crate) fn of<S: Scalar>(a: &Matrix<S>) -> Self {
        if S::IS_COMPLEX {
            Wide::Complex(a.map(|x| x.to_c64()))
        } else {
            Wide::Real(a.map(|x| x.re().as_f64()))
        }
    }

    pub(crate) fn narrow<S: Scalar>(self) -> Matrix<S> {
        match self {
            Wide::Real(m) => m.map(S::from_f64),
            Wide::Complex(m) => m.map(S::from_c64),
        }
    }
}

fn lapack_dim(context: &str, n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::dim(
            format!("{context}: exceeds LAPACK's 32-bit range"),
            i32::MAX as usize,
            n,
        )
    })
}

/// Solves Q·X = P in place (P becomes X) with `?getrf2` + `?getrs`; Q is consumed.
pub(crate) fn solve_in_place<T: LapackScalar>(mut q: Matrix<T>, p: &mut Matrix<T>) -> Result<()> {
    let n = q.nrows();
    if n == 0 {
        return Ok(());
    }
    let ni = lapack_dim("solve: order", n)?;
    let nrhs = lapack_dim("solve: right-hand sides", p.ncols())?;
    let mut ipiv = vec![0i32; n];
    let info = T::getrf(ni, q.as_mut_slice(), &mut ipiv);
    if info != 0 {
        return Err(Error::Lapack {
            routine: T::GETRF,
            info,
        });
    }
    if p.ncols() == 0 {
        return Ok(());
    }
    let info = T::getrs(ni, nrhs, q.as_slice(), &ipiv, p.as_mut_slice());
    if info != 0 {
        return Err(Error::Lapack {
            routine: T::GETRS,
            info,
        });
    }
    Ok(())
}

/// Solves A·X = B by LU with partial pivoting (LAPACK `?getrf2`/`?getrs`, in double
/// precision; `f32`/`c32` are promoted and the result rounded back).
///
/// Cost: (2/3)n³ + 2n²·nrhs flops. Backward stable in practice (growth factor permitting);
/// the forward error is about cond(A)·u.
///
/// Errors: [`Error::DimensionMismatch`] if A is not square or B has the wrong row count,
/// [`Error::NonFinite`] for NaN/∞ entries, [`Error::Lapack`] with `info = i > 0` when
/// U(i, i) is exactly zero (A singular).
///
/// ```
/// use matexp_dense::{Matrix, solve};
/// let a = Matrix::<f64>::from_row_major(2, 2, &[2.0, 1.0, 1.0, 3.0])?;
/// let b = Matrix::from_row_major(2, 1, &[3.0, 5.0])?;
/// let x = solve(&a, &b)?;
/// assert!((x[(0, 0)] - 0.8).abs() < 1e-15 && (x[(1, 0)] - 1.4).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn solve<S: Scalar>(a: &Matrix<S>, b: &Matrix<S>) -> Result<Matrix<S>> {
    a.check_square("solve")?;
    check_dim("solve: rows of B", a.nrows(), b.nrows())?;
    a.check_finite("solve: A")?;
    b.check_finite("solve: B")?;
    match (Wide::of(a), Wide::of(b)) {
        (Wide::Real(q), Wide::Real(mut p)) => {
            solve_in_place(q, &mut p)?;
            Ok(Wide::Real(p).narrow())
        }
        (Wide::Complex(q), Wide::Complex(mut p)) => {
            solve_in_place(q, &mut p)?;
            Ok(Wide::Complex(p).narrow())
        }
        _ => unreachable!("both operands have the scalar type S"),
    }
}

fn eigh_lapack<T: LapackScalar>(mut a: Matrix<T>) -> Result<(Vec<f64>, Matrix<T>)> {
    let n = a.nrows();
    if n == 0 {
        return Ok((vec![], a));
    }
    let ni = lapack_dim("eigh: order", n)?;
    let mut w = vec![0.0; n];
    let info = T::heevd(ni, a.as_mut_slice(), &mut w);
    if info != 0 {
        return Err(Error::Lapack {
            routine: T::HEEVD,
            info,
        });
    }
    Ok((w, a))
}

/// Eigen-decomposition A = V·diag(λ)·Vᴴ of a symmetric (real) or Hermitian (complex) matrix,
/// by the divide-and-conquer LAPACK drivers `dsyevd` / `zheevd` in double precision.
///
/// Returns the eigenvalues in ascending order and the orthonormal eigenvectors as the columns
/// of V. Cost O(n³). Eigenvalues are accurate to O(u·‖A‖₂) absolutely.
///
/// Errors: [`Error::DimensionMismatch`] if not square, [`Error::NonFinite`],
/// [`Error::InvalidArgument`] if A is not Hermitian to within 100·u·max|a_ij| (the drivers
/// would silently read only the upper triangle), [`Error::Lapack`] if the solver fails.
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
            let (w, v) = eigh_lapack(m)?;
            (w, Wide::Real(v))
        }
        Wide::Complex(m) => {
            let (w, v) = eigh_lapack(m)?;
            (w, Wide::Complex(v))
        }
    };
    Ok((w.into_iter().map(S::Real::from_f64).collect(), v.narrow()))
}

/// Eigen-decomposition T = Z·diag(λ)·Zᵀ of the real symmetric tridiagonal matrix with
/// diagonal `diag` (length n) and off-diagonal `offdiag` (length n − 1), by LAPACK `dstevd`
/// (divide and conquer) — the small eigenproblem of the Lanczos method.
///
/// Returns ascending eigenvalues and the orthonormal eigenvectors as columns of Z. Cost
/// O(n²) for the eigenvalues plus O(n³) for Z in the worst case (much less in practice).
///
/// Errors: [`Error::DimensionMismatch`] if `offdiag.len() != n − 1` (for n ≥ 1),
/// [`Error::NonFinite`], [`Error::Lapack`].
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
    let ni = lapack_dim("eigh_tridiagonal: order", n)?;
    let mut d = diag.to_vec();
    // LAPACKE reads n − 1 entries; one spare entry keeps the n = 1 case a valid slice.
    let mut e = offdiag.to_vec();
    e.push(0.0);
    let mut z = Matrix::<f64>::zeros(n, n);
    // SAFETY: d has n entries, e has n, z is n×n with leading dimension n.
    let info = unsafe {
        lapacke::dstevd(
            Layout::ColumnMajor,
            b'V',
            ni,
            &mut d,
            &mut e,
            z.as_mut_slice(),
            ni,
        )
    };
    if info != 0 {
        return Err(Error::Lapack {
            routine: "LAPACKE_dstevd",
            info,
        });
    }
    Ok((d, z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{c32, c64};

    #[test]
    fn solve_recovers_a_known_solution_in_every_precision() {
        fn run<S: Scalar>(tol: f64) {
            let a = Matrix::<S>::from_fn(4, 4, |i, j| {
                S::from_c64(c64::new(
                    if i == j {
                        5.0
                    } else {
                        1.0 / (1.0 + i as f64 + j as f64)
                    },
                    (i as f64 - j as f64) * 0.1,
                ))
            });
            let x = Matrix::<S>::from_fn(4, 2, |i, j| S::from_f64(i as f64 - 2.0 * j as f64 + 0.5));
            let b = a.matmul(&x).unwrap();
            let y = solve(&a, &b).unwrap();
            for k in 0..8 {
                assert!((y.as_slice()[k] - x.as_slice()[k]).modulus().as_f64() < tol);
            }
        }
        run::<f64>(1e-13);
        run::<c64>(1e-13);
        run::<f32>(1e-5);
        run::<c32>(1e-5);
    }

    #[test]
    fn singular_matrices_report_lapack_info() {
        let a = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 4.0]).unwrap();
        let b = Matrix::identity(2);
        match solve(&a, &b) {
            Err(Error::Lapack { routine, info }) => {
                assert_eq!(routine, "LAPACKE_dgetrf2");
                assert_eq!(info, 2);
            }
            other => panic!("expected a LAPACK error, got {other:?}"),
        }
    }

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
