//! Matrix products: CBLAS (OpenBLAS, threaded) for `f64` and `c64` with the `lapack` feature,
//! column-oriented loops otherwise and for `f32`/`c32`.

use crate::Matrix;
#[cfg(feature = "lapack")]
use matexp_core::{RealScalar, c64};
use matexp_core::{Result, Scalar, check_dim};
#[cfg(feature = "lapack")]
use std::any::Any;
use std::os::raw::c_int;

#[cfg(feature = "lapack")]
const CBLAS_COL_MAJOR: c_int = 102;
#[cfg(feature = "lapack")]
const CBLAS_NO_TRANS: c_int = 111;

#[cfg(feature = "lapack")]
unsafe extern "C" {
    fn cblas_dgemm(
        layout: c_int,
        transa: c_int,
        transb: c_int,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        b: *const f64,
        ldb: c_int,
        beta: f64,
        c: *mut f64,
        ldc: c_int,
    );
    fn cblas_zgemm(
        layout: c_int,
        transa: c_int,
        transb: c_int,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: *const c64,
        a: *const c64,
        lda: c_int,
        b: *const c64,
        ldb: c_int,
        beta: *const c64,
        c: *mut c64,
        ldc: c_int,
    );
}

/// C ← α·A·B + β·C (C is not read when β = 0).
///
/// With the `lapack` feature, `f64` and `c64` call OpenBLAS `cblas_dgemm` / `cblas_zgemm`
/// (blocked and threaded: the choice for large products). Otherwise, and for `f32`/`c32`, a
/// column-oriented loop with a contiguous inner loop computes C: 2mnk flops, each entry a
/// left-to-right sum, which is fast enough for the small matrices of the Krylov methods.
///
/// # Errors
///
/// [`matexp_core::Error::DimensionMismatch`] on incompatible shapes or when a dimension
/// exceeds the BLAS integer range.
///
/// ```
/// use matexp_dense::{Matrix, gemm};
/// let a = Matrix::from_row_major(2, 2, &[1.0, 2.0, 3.0, 4.0])?;
/// let mut c = Matrix::identity(2);
/// gemm(1.0, &a, &a, 1.0, &mut c)?; // c = a² + I
/// assert_eq!(c.to_row_major(), vec![8.0, 10.0, 15.0, 23.0]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn gemm<S: Scalar>(
    alpha: S,
    a: &Matrix<S>,
    b: &Matrix<S>,
    beta: S,
    c: &mut Matrix<S>,
) -> Result<()> {
    check_dim(
        "gemm: inner dimension (B rows vs A columns)",
        a.ncols(),
        b.nrows(),
    )?;
    check_dim("gemm: C rows", a.nrows(), c.nrows())?;
    check_dim("gemm: C columns", b.ncols(), c.ncols())?;
    let (m, n, k) = (a.nrows(), b.ncols(), a.ncols());
    for (what, d) in [
        ("rows of A", m),
        ("columns of B", n),
        ("inner dimension", k),
    ] {
        if d > c_int::MAX as usize {
            return Err(matexp_core::Error::dim(
                format!("gemm: {what} exceeds the BLAS integer range"),
                c_int::MAX as usize,
                d,
            ));
        }
    }
    // The kernels below index raw memory from (m, n, k): the storage must hold the shape.
    a.check_storage("gemm: A")?;
    b.check_storage("gemm: B")?;
    c.check_storage("gemm: C")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        c.scale_mut(beta);
        if beta == S::zero() {
            c.as_mut_slice().iter_mut().for_each(|x| *x = S::zero());
        }
        return Ok(());
    }
    #[cfg(feature = "lapack")]
    if cblas(alpha, a, b, beta, c) {
        return Ok(());
    }
    gemm_loops(alpha, a, b, beta, c);
    Ok(())
}

/// C ← α·A·B + β·C by CBLAS when S is `f64` or `c64` (shapes checked, all nonzero); false
/// when S is another type.
#[cfg(feature = "lapack")]
fn cblas<S: Scalar>(alpha: S, a: &Matrix<S>, b: &Matrix<S>, beta: S, c: &mut Matrix<S>) -> bool {
    let (m, n, k) = (a.nrows(), b.ncols(), a.ncols());
    let ld = |r: usize| r.max(1) as c_int;
    if let (Some(a64), Some(b64)) = (
        (a as &dyn Any).downcast_ref::<Matrix<f64>>(),
        (b as &dyn Any).downcast_ref::<Matrix<f64>>(),
    ) {
        let al = alpha.re().as_f64();
        let be = beta.re().as_f64();
        let c64m = (c as &mut dyn Any)
            .downcast_mut::<Matrix<f64>>()
            .expect("C has the scalar type of A");
        // SAFETY: shapes and storage lengths (rows·cols entries each, without overflow) were
        // checked by `gemm`; leading dimensions are the row counts of the column-major
        // buffers, and every dimension fits c_int.
        unsafe {
            cblas_dgemm(
                CBLAS_COL_MAJOR,
                CBLAS_NO_TRANS,
                CBLAS_NO_TRANS,
                m as c_int,
                n as c_int,
                k as c_int,
                al,
                a64.as_slice().as_ptr(),
                ld(m),
                b64.as_slice().as_ptr(),
                ld(k),
                be,
                c64m.as_mut_slice().as_mut_ptr(),
                ld(m),
            );
        }
        return true;
    }
    if let (Some(az), Some(bz)) = (
        (a as &dyn Any).downcast_ref::<Matrix<c64>>(),
        (b as &dyn Any).downcast_ref::<Matrix<c64>>(),
    ) {
        let al = alpha.to_c64();
        let be = beta.to_c64();
        let cz = (c as &mut dyn Any)
            .downcast_mut::<Matrix<c64>>()
            .expect("C has the scalar type of A");
        // SAFETY: as above; num_complex::Complex<f64> is #[repr(C)] {re, im}, the layout of
        // the C double complex CBLAS expects.
        unsafe {
            cblas_zgemm(
                CBLAS_COL_MAJOR,
                CBLAS_NO_TRANS,
                CBLAS_NO_TRANS,
                m as c_int,
                n as c_int,
                k as c_int,
                &al,
                az.as_slice().as_ptr(),
                ld(m),
                bz.as_slice().as_ptr(),
                ld(k),
                &be,
                cz.as_mut_slice().as_mut_ptr(),
                ld(m),
            );
        }
        return true;
    }
    false
}

/// Column-oriented product: C[:, j] = β·C[:, j] + Σ_l (α·b_lj)·A[:, l], contiguous inner loop.
fn gemm_loops<S: Scalar>(alpha: S, a: &Matrix<S>, b: &Matrix<S>, beta: S, c: &mut Matrix<S>) {
    for j in 0..b.ncols() {
        let cj = c.col_mut(j);
        if beta == S::zero() {
            cj.iter_mut().for_each(|x| *x = S::zero());
        } else if beta != S::one() {
            cj.iter_mut().for_each(|x| *x *= beta);
        }
        for l in 0..a.ncols() {
            let s = alpha * b[(l, j)];
            if s == S::zero() {
                continue;
            }
            for (x, &y) in cj.iter_mut().zip(a.col(l)) {
                *x += y * s;
            }
        }
    }
}

impl<S: Scalar> Matrix<S> {
    /// The product A·B through [`gemm`]. Cost 2·m·n·k flops.
    ///
    /// Defined beside `gemm` rather than with the other methods of [`Matrix`], so that the
    /// storage module does not depend on the product module that depends on it.
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] if the columns of A and the rows of B differ;
    /// [`matexp_core::Error::InvalidArgument`] if the m×n product cannot be stored (a 2⁴⁰×0
    /// times 0×2⁴⁰ product would have 2⁸⁰ entries).
    pub fn matmul(&self, b: &Matrix<S>) -> Result<Matrix<S>> {
        check_dim(
            "matmul: inner dimension (B rows vs A columns)",
            self.ncols(),
            b.nrows(),
        )?;
        let mut c = Matrix::try_zeros(self.nrows(), b.ncols())?;
        gemm(S::one(), self, b, S::zero(), &mut c)?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{RealScalar, c32, c64};

    fn naive<S: Scalar>(a: &Matrix<S>, b: &Matrix<S>) -> Matrix<S> {
        Matrix::from_fn(a.nrows(), b.ncols(), |i, j| {
            (0..a.ncols()).map(|l| a[(i, l)] * b[(l, j)]).sum()
        })
    }

    fn check<S: Scalar>(tol: f64) {
        let a = Matrix::<S>::from_fn(5, 3, |i, j| {
            S::from_c64(c64::new(
                (i * 3 + j) as f64 * 0.25 - 1.0,
                (i as f64) - (j as f64),
            ))
        });
        let b = Matrix::<S>::from_fn(3, 4, |i, j| {
            S::from_c64(c64::new(1.0 / (1.0 + i as f64 + j as f64), 0.5 * j as f64))
        });
        let mut c = Matrix::<S>::from_fn(5, 4, |i, j| S::from_f64((i + j) as f64));
        let c0 = c.clone();
        let alpha = S::from_c64(c64::new(2.0, -1.0));
        let beta = S::from_f64(0.5);
        gemm(alpha, &a, &b, beta, &mut c).unwrap();
        let r = naive(&a, &b);
        for i in 0..5 {
            for j in 0..4 {
                let want = alpha * r[(i, j)] + beta * c0[(i, j)];
                assert!(
                    (c[(i, j)] - want).modulus().as_f64() <= tol * (1.0 + want.modulus().as_f64())
                );
            }
        }
    }

    #[test]
    fn all_scalar_types_agree_with_the_definition() {
        check::<f64>(1e-14);
        check::<c64>(1e-14);
        check::<f32>(1e-5);
        check::<c32>(1e-5);
    }

    #[test]
    fn shapes_are_checked_and_empty_products_work() {
        let a = Matrix::<f64>::zeros(2, 3);
        let mut c = Matrix::<f64>::zeros(2, 2);
        assert!(gemm(1.0, &a, &a, 0.0, &mut c).is_err());
        let e = Matrix::<f64>::zeros(2, 0);
        let f = Matrix::<f64>::zeros(0, 2);
        let mut c = Matrix::from_diagonal(&[f64::NAN, 1.0]);
        gemm(1.0, &e, &f, 0.0, &mut c).unwrap();
        assert!(c.as_slice().iter().all(|&x| x == 0.0));
    }
}
