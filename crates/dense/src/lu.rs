//! Linear solves A·X = B by LU factorization with partial pivoting: a pure-Rust kernel, or
//! LAPACK's `?getrf2`/`?getrs` with the `lapack` feature.

use crate::Matrix;
use crate::wide::{Wide, WideScalar};
#[cfg(not(feature = "lapack"))]
use matexp_core::Error;
use matexp_core::{Result, Scalar, check_dim};

/// LU factorization P·A = L·U in place (column-major, order n): L unit lower triangular
/// below the diagonal, U on and above it, `ipiv[k]` the row swapped with row k at step k
/// (0-based). Returns LAPACK's `info`: 0, or i > 0 when U(i, i) (1-based) is exactly zero,
/// in which case the factorization is still completed, as `?getrf` does.
///
/// Right-looking elimination with the column operations on contiguous columns; pivots are
/// chosen by |re| + |im| like LAPACK's. Cost (2/3)n³ flops, backward stable for the usual
/// growth factors.
#[cfg_attr(feature = "lapack", allow(dead_code))]
fn getrf<T: WideScalar>(n: usize, a: &mut [T], ipiv: &mut [usize]) -> usize {
    let mut info = 0;
    for k in 0..n {
        let col = &a[k * n..(k + 1) * n];
        let p = (k..n)
            .max_by(|&i, &j| col[i].abs1().total_cmp(&col[j].abs1()).then(j.cmp(&i)))
            .unwrap_or(k);
        ipiv[k] = p;
        if a[k * n + p] == T::zero() {
            if info == 0 {
                info = k + 1;
            }
            continue;
        }
        if p != k {
            for j in 0..n {
                a.swap(j * n + k, j * n + p);
            }
        }
        let pivot = a[k * n + k];
        for x in &mut a[k * n + k + 1..(k + 1) * n] {
            *x /= pivot;
        }
        let (left, right) = a.split_at_mut((k + 1) * n);
        let lk = &left[k * n + k + 1..(k + 1) * n];
        for cj in right.chunks_exact_mut(n) {
            let ukj = cj[k];
            if ukj == T::zero() {
                continue;
            }
            for (x, &l) in cj[k + 1..].iter_mut().zip(lk) {
                *x -= l * ukj;
            }
        }
    }
    info
}

/// Solves with the factors of [`getrf`]: B ← U⁻¹·L⁻¹·P·B, column by column.
#[cfg_attr(feature = "lapack", allow(dead_code))]
fn getrs<T: WideScalar>(n: usize, lu: &[T], ipiv: &[usize], b: &mut [T]) {
    for bj in b.chunks_exact_mut(n) {
        for (k, &p) in ipiv.iter().enumerate() {
            bj.swap(k, p);
        }
        for k in 0..n {
            let x = bj[k];
            if x != T::zero() {
                for (y, &l) in bj[k + 1..].iter_mut().zip(&lu[k * n + k + 1..(k + 1) * n]) {
                    *y -= l * x;
                }
            }
        }
        for k in (0..n).rev() {
            bj[k] /= lu[k * n + k];
            let x = bj[k];
            if x != T::zero() {
                for (y, &u) in bj[..k].iter_mut().zip(&lu[k * n..k * n + k]) {
                    *y -= u * x;
                }
            }
        }
    }
}

/// The routine name in [`Error::Lapack`] when U has a zero pivot.
#[cfg(not(feature = "lapack"))]
fn getrf_name<T: WideScalar>() -> &'static str {
    if T::IS_COMPLEX {
        "zgetrf (matexp-dense, pure Rust)"
    } else {
        "dgetrf (matexp-dense, pure Rust)"
    }
}

/// Solves Q·X = P in place (P becomes X); Q is consumed.
pub(crate) fn solve_in_place<T: WideScalar>(mut q: Matrix<T>, p: &mut Matrix<T>) -> Result<()> {
    let n = q.nrows();
    if n == 0 {
        return Ok(());
    }
    #[cfg(feature = "lapack")]
    {
        crate::lapack::solve_in_place(&mut q, p)
    }
    #[cfg(not(feature = "lapack"))]
    {
        let mut ipiv = vec![0usize; n];
        let info = getrf(n, q.as_mut_slice(), &mut ipiv);
        if info != 0 {
            return Err(Error::Lapack {
                routine: getrf_name::<T>(),
                info: i32::try_from(info).unwrap_or(i32::MAX),
            });
        }
        getrs(n, q.as_slice(), &ipiv, p.as_mut_slice());
        Ok(())
    }
}

/// Solves A·X = B by LU with partial pivoting, in double precision (`f32`/`c32` are promoted
/// and the result rounded back).
///
/// The factorization is a pure-Rust right-looking LU, or LAPACK's `?getrf2` + `?getrs` with
/// the `lapack` feature; both pivot the same way.
///
/// Cost: (2/3)n³ + 2n²·nrhs flops. Backward stable in practice (growth factor permitting);
/// the forward error is about cond(A)·u.
///
/// # Errors
///
/// [`Error::DimensionMismatch`](matexp_core::Error::DimensionMismatch) if A is not square
/// or B has the wrong row count, [`Error::NonFinite`](matexp_core::Error::NonFinite) for
/// NaN/∞ entries, [`Error::Lapack`](matexp_core::Error::Lapack) with `info = i > 0` (LAPACK's
/// convention, whichever kernel ran) when U(i, i) is exactly zero (A singular).
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

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{Error, RealScalar, c32, c64};

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
    fn pivoting_handles_a_zero_leading_entry() {
        // Without row exchanges the first step divides by zero.
        let a = Matrix::<f64>::from_row_major(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0])
            .unwrap();
        let x = Matrix::from_row_major(3, 1, &[1.0, -2.0, 0.5]).unwrap();
        let y = solve(&a, &a.matmul(&x).unwrap()).unwrap();
        for k in 0..3 {
            assert!((y.as_slice()[k] - x.as_slice()[k]).abs() < 1e-15);
        }
    }

    #[test]
    fn factors_reproduce_the_permuted_matrix() {
        // P·A = L·U checked entry by entry on a matrix that needs several exchanges.
        let n = 6;
        let a = Matrix::<c64>::from_fn(n, n, |i, j| {
            c64::new(
                ((i * 7 + j * 3) % 5) as f64 - 2.0,
                (i as f64 - j as f64) * 0.3,
            )
        });
        let mut lu = a.clone();
        let mut ipiv = vec![0; n];
        assert_eq!(getrf(n, lu.as_mut_slice(), &mut ipiv), 0);
        let mut pa = a.clone();
        for (k, &p) in ipiv.iter().enumerate() {
            for j in 0..n {
                let (x, y) = (pa[(k, j)], pa[(p, j)]);
                pa[(k, j)] = y;
                pa[(p, j)] = x;
            }
        }
        for i in 0..n {
            for j in 0..n {
                let s: c64 = (0..=i.min(j))
                    .map(|k| {
                        if k == i {
                            lu[(k, j)]
                        } else {
                            lu[(i, k)] * lu[(k, j)]
                        }
                    })
                    .sum();
                assert!((s - pa[(i, j)]).norm() < 1e-14, "({i}, {j})");
            }
        }
    }

    #[test]
    fn singular_matrices_report_the_zero_pivot() {
        let a = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 4.0]).unwrap();
        let b = Matrix::identity(2);
        match solve(&a, &b) {
            Err(Error::Lapack { routine, info }) => {
                assert!(routine.contains("dgetrf"), "{routine}");
                assert_eq!(info, 2);
            }
            other => panic!("expected a singular-matrix error, got {other:?}"),
        }
    }
}
