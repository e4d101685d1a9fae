//! LAPACKE kernels behind the `lapack` feature: LU (`?getrf2`/`?getrs`) and the
//! symmetric/Hermitian divide-and-conquer eigensolvers (`dsyevd`/`zheevd`). The tridiagonal
//! eigensolver is the crate's own QL in every build.

use crate::Matrix;
use crate::wide::WideScalar;
use lapacke::Layout;
use matexp_core::{Error, Result, Scalar, c64};

/// The LAPACKE calls for one of the two kernel scalar types.
pub(crate) trait LapackKernels: WideScalar {
    /// LU with partial pivoting (`?getrf2`, the recursive `?getrf`: OpenBLAS's threaded
    /// `?getrf` needs more stack than a default 2 MiB thread has for n ≳ 100).
    fn getrf(n: i32, a: &mut [Self], ipiv: &mut [i32]) -> i32;
    /// Solve with an LU factorization (`?getrs`, no transpose).
    fn getrs(n: i32, nrhs: i32, a: &[Self], ipiv: &[i32], b: &mut [Self]) -> i32;
    /// Symmetric/Hermitian eigendecomposition (`dsyevd` / `zheevd`, upper triangle).
    fn heevd(n: i32, a: &mut [Self], w: &mut [f64]) -> i32;
    const GETRF: &'static str;
    const GETRS: &'static str;
    const HEEVD: &'static str;
}

// SAFETY (all blocks below): the callers pass column-major buffers of exactly n·n (or n·nrhs)
// entries with leading dimension n ≥ 1, and pivot/eigenvalue buffers of length n.
impl LapackKernels for f64 {
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

impl LapackKernels for c64 {
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

/// `T` as the LAPACK kernel type; every [`WideScalar`] is one (f64 or c64).
fn kernels<T: WideScalar>() -> Dispatch {
    if T::IS_COMPLEX {
        Dispatch::Complex
    } else {
        Dispatch::Real
    }
}

enum Dispatch {
    Real,
    Complex,
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

/// Reinterprets a matrix of `T` as one of `U` when they are the same type.
fn same<T: Scalar, U: Scalar>(m: &mut Matrix<T>) -> &mut Matrix<U> {
    (m as &mut dyn std::any::Any)
        .downcast_mut::<Matrix<U>>()
        .expect("dispatched on the scalar type")
}

fn solve_typed<T: LapackKernels>(q: &mut Matrix<T>, p: &mut Matrix<T>) -> Result<()> {
    let n = q.nrows();
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

/// Solves Q·X = P in place with `?getrf2` + `?getrs` (n ≥ 1).
pub(crate) fn solve_in_place<T: WideScalar>(q: &mut Matrix<T>, p: &mut Matrix<T>) -> Result<()> {
    match kernels::<T>() {
        Dispatch::Real => solve_typed::<f64>(same(q), same(p)),
        Dispatch::Complex => solve_typed::<c64>(same(q), same(p)),
    }
}

fn heevd_typed<T: LapackKernels>(a: &mut Matrix<T>) -> Result<Vec<f64>> {
    let n = a.nrows();
    let ni = lapack_dim("eigh: order", n)?;
    let mut w = vec![0.0; n];
    let info = T::heevd(ni, a.as_mut_slice(), &mut w);
    if info != 0 {
        return Err(Error::Lapack {
            routine: T::HEEVD,
            info,
        });
    }
    Ok(w)
}

/// Eigenvalues (ascending) and eigenvectors of the Hermitian `a` by `dsyevd`/`zheevd`.
pub(crate) fn eigh<T: WideScalar>(mut a: Matrix<T>) -> Result<(Vec<f64>, Matrix<T>)> {
    if a.nrows() == 0 {
        return Ok((vec![], a));
    }
    let w = match kernels::<T>() {
        Dispatch::Real => heevd_typed::<f64>(same(&mut a))?,
        Dispatch::Complex => heevd_typed::<c64>(same(&mut a))?,
    };
    Ok((w, a))
}
