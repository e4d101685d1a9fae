//! The CPU dense backend: host matrices, products by a threaded BLAS.
//!
//! Products: with the `lapack` feature, `f64` and `c64` go to OpenBLAS (`cblas_dgemm` /
//! `cblas_zgemm` through `matexp-dense`), threaded over every core (`OPENBLAS_NUM_THREADS`,
//! default all) with the host's AVX-512/AVX2 kernels: the choice for the seed's `n ≥ 2048`
//! tables. Without it, and always for `f32`/`c32`, `matrixmultiply` (pure Rust, all four
//! scalar types, links nothing), whose `threading` feature runs at most **4** threads
//! (`MATMUL_NUM_THREADS`, capped at 4 by that crate), so on a 16-core host it leaves three
//! quarters of the machine idle. [`gemm_threads`] says which library and how many threads
//! a run used; the benchmark suite records it beside the measured DGEMM rate.
//!
//! The `O(n²)` operations (axpy, linear combinations, zeroing, copies) run on rayon over
//! column blocks: on a many-core host one thread streams only a fraction of the memory
//! bandwidth, and a Paterson–Stockmeyer block at `n = 6144` moves gigabytes.

use crate::backend::DenseBackend;
use matexp_core::{Error, RealScalar, Result, Scalar, c32, c64, check_dim};
use matexp_dense::Matrix;
use matrixmultiply::CGemmOption;
use rayon::prelude::*;
use std::any::Any;

/// Scalars per rayon task of the entry-wise operations (a few hundred KiB: large enough to
/// hide the scheduling, small enough to balance over many cores).
const CHUNK: usize = 1 << 15;

/// Which library [`gemm`] uses for scalar type `S` and how many threads it runs:
/// `("openblas", threads)` for `f64`/`c64` with the `lapack` feature, else
/// `("matrixmultiply", threads ≤ 4)`.
pub fn gemm_threads<S: Scalar>() -> (&'static str, usize) {
    #[cfg(feature = "lapack")]
    if matches!(S::NAME, "f64" | "c64") {
        // SAFETY: a query without arguments; the library is linked by matexp-dense/lapack.
        let t = unsafe { openblas_get_num_threads() };
        return ("openblas", t.max(1) as usize);
    }
    // matrixmultiply's rule: MATMUL_NUM_THREADS, else the cores, clamped to 1..=4.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let want = std::env::var("MATMUL_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(cores);
    ("matrixmultiply", want.clamp(1, 4))
}

#[cfg(feature = "lapack")]
unsafe extern "C" {
    fn openblas_get_num_threads() -> std::os::raw::c_int;
}

/// The CPU backend: matrices are [`matexp_dense::Matrix`] (column-major host storage).
///
/// ```
/// use matexp_matpoly::{CpuDense, DenseBackend};
/// use matexp_dense::Matrix;
/// let mut cpu = CpuDense::new();
/// let a = Matrix::from_row_major(2, 2, &[1.0, 2.0, 3.0, 4.0])?;
/// let mut c = Matrix::zeros(2, 2);
/// cpu.gemm(1.0, &a, &a, 0.0, &mut c)?;
/// assert_eq!(c.to_row_major(), vec![7.0, 10.0, 15.0, 22.0]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuDense;

impl CpuDense {
    /// The CPU backend.
    pub fn new() -> Self {
        CpuDense
    }
}

fn same_shape<S: Scalar>(what: &str, a: &Matrix<S>, b: &Matrix<S>) -> Result<()> {
    check_dim(&format!("{what}: rows"), a.nrows(), b.nrows())?;
    check_dim(&format!("{what}: columns"), a.ncols(), b.ncols())
}

impl<S: Scalar> DenseBackend<S> for CpuDense {
    type Mat = Matrix<S>;

    fn name(&self) -> String {
        "cpu".into()
    }
    fn zeros(&mut self, nrows: usize, ncols: usize) -> Result<Matrix<S>> {
        Matrix::try_zeros(nrows, ncols)
    }
    fn upload(&mut self, m: &Matrix<S>) -> Result<Matrix<S>> {
        Ok(m.clone())
    }
    fn download(&mut self, a: &Matrix<S>) -> Result<Matrix<S>> {
        Ok(a.clone())
    }
    fn shape(&self, a: &Matrix<S>) -> (usize, usize) {
        (a.nrows(), a.ncols())
    }
    fn gemm(
        &mut self,
        alpha: S,
        a: &Matrix<S>,
        b: &Matrix<S>,
        beta: S,
        c: &mut Matrix<S>,
    ) -> Result<()> {
        gemm(alpha, a, b, beta, c)
    }
    fn axpy(&mut self, alpha: S, x: &Matrix<S>, y: &mut Matrix<S>) -> Result<()> {
        same_shape("axpy", x, y)?;
        y.as_mut_slice()
            .par_chunks_mut(CHUNK)
            .zip(x.as_slice().par_chunks(CHUNK))
            .for_each(|(y, x)| {
                for (y, &x) in y.iter_mut().zip(x) {
                    *y += alpha * x;
                }
            });
        Ok(())
    }
    fn add_identity(&mut self, alpha: S, a: &mut Matrix<S>, col0: usize) -> Result<()> {
        let (n, m) = (a.nrows(), a.ncols());
        for j in 0..m {
            if col0 + j < n {
                a[(col0 + j, j)] += alpha;
            }
        }
        Ok(())
    }
    /// One pass over `out`'s columns, in parallel over column blocks: each column is
    /// written as `α₀·δ` (the identity's entry) and then receives the terms in order, so the
    /// entries round exactly as zero / add-identity / axpy would.
    fn lincomb(
        &mut self,
        alpha0: S,
        terms: &[(S, &Matrix<S>)],
        col0: usize,
        out: &mut Matrix<S>,
    ) -> Result<()> {
        for (_, m) in terms {
            same_shape("lincomb", m, out)?;
        }
        let n = out.nrows();
        if n == 0 || out.ncols() == 0 {
            return Ok(());
        }
        // Whole columns per task, about CHUNK scalars each.
        let cols = (CHUNK / n).max(1);
        out.as_mut_slice()
            .par_chunks_mut(cols * n)
            .enumerate()
            .for_each(|(blk, o)| {
                let j0 = blk * cols;
                for (jj, oc) in o.chunks_mut(n).enumerate() {
                    let j = j0 + jj;
                    oc.iter_mut().for_each(|x| *x = S::zero());
                    if col0 + j < n {
                        oc[col0 + j] = alpha0;
                    }
                    for &(c, m) in terms {
                        for (o, &x) in oc.iter_mut().zip(m.col(j)) {
                            *o += c * x;
                        }
                    }
                }
            });
        Ok(())
    }
    fn scale(&mut self, alpha: S, a: &mut Matrix<S>) -> Result<()> {
        a.as_mut_slice()
            .par_chunks_mut(CHUNK)
            .for_each(|c| c.iter_mut().for_each(|x| *x *= alpha));
        Ok(())
    }
    fn set_zero(&mut self, a: &mut Matrix<S>) -> Result<()> {
        par_zero(a.as_mut_slice());
        Ok(())
    }
    fn copy(&mut self, src: &Matrix<S>, dst: &mut Matrix<S>) -> Result<()> {
        same_shape("copy", src, dst)?;
        dst.as_mut_slice()
            .par_chunks_mut(CHUNK)
            .zip(src.as_slice().par_chunks(CHUNK))
            .for_each(|(d, s)| d.copy_from_slice(s));
        Ok(())
    }
    fn norm_one(&mut self, a: &Matrix<S>) -> Result<f64> {
        let mut best = 0.0f64;
        for j in 0..a.ncols() {
            let s: f64 = a.col(j).iter().map(|x| x.modulus().as_f64()).sum();
            if s.is_nan() {
                return Ok(f64::NAN);
            }
            best = best.max(s);
        }
        Ok(best)
    }
}

fn par_zero<S: Scalar>(a: &mut [S]) {
    a.par_chunks_mut(CHUNK)
        .for_each(|c| c.iter_mut().for_each(|x| *x = S::zero()));
}

/// `C ← α·A·B + β·C` on the host, for all four scalar types: OpenBLAS for `f64`/`c64` with
/// the `lapack` feature (all cores), `matrixmultiply` otherwise (at most 4 threads; module
/// docs). Errors with [`Error::DimensionMismatch`] on incompatible shapes. `C` is not read
/// when `β = 0` (NaN in a reused buffer does not leak into the result: both libraries
/// write, not scale, `C` when `β = 0`).
pub fn gemm<S: Scalar>(
    alpha: S,
    a: &Matrix<S>,
    b: &Matrix<S>,
    beta: S,
    c: &mut Matrix<S>,
) -> Result<()> {
    check_dim("gemm: inner dimension", a.ncols(), b.nrows())?;
    check_dim("gemm: rows of C", a.nrows(), c.nrows())?;
    check_dim("gemm: columns of C", b.ncols(), c.ncols())?;
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    // The kernels below form addresses from (m, k, n) and the strides: the three buffers
    // must hold their shapes (checked, not assumed), and the strides must fit isize.
    a.check_storage("gemm: A")?;
    b.check_storage("gemm: B")?;
    c.check_storage("gemm: C")?;
    let stride = |what: &str, d: usize| {
        isize::try_from(d).map_err(|_| {
            Error::dim(
                format!("gemm: {what} exceeds the isize stride range"),
                isize::MAX as usize,
                d,
            )
        })
    };
    let (csa, csb) = (stride("rows of A", m)?, stride("rows of B", k)?);
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        // C ← β·C, with β = 0 writing zeros (not 0·NaN).
        if beta == S::zero() {
            par_zero(c.as_mut_slice());
        } else {
            c.scale_mut(beta);
        }
        return Ok(());
    }
    #[cfg(feature = "lapack")]
    if matches!(S::NAME, "f64" | "c64") {
        // cblas_dgemm / cblas_zgemm (OpenBLAS zero-fills C for β = 0 without reading it).
        return matexp_dense::gemm(alpha, a, b, beta, c);
    }
    matrixmultiply_gemm(alpha, a, b, beta, c, csa, csb)
}

/// The `matrixmultiply` kernel of [`gemm`], `C ← α·A·B + β·C` for the scalar type `S`
/// names: shapes and storage checked by the caller, no dimension zero, `csa` and `csb` the
/// column strides of A and B (their row counts) as `isize`.
fn matrixmultiply_gemm<S: Scalar>(
    alpha: S,
    a: &Matrix<S>,
    b: &Matrix<S>,
    beta: S,
    c: &mut Matrix<S>,
    csa: isize,
    csb: isize,
) -> Result<()> {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    // Column-major: row stride 1, column stride = rows.
    let (rsa, rsb, rsc, csc) = (1isize, 1isize, 1isize, csa);
    let any_a = a as &dyn Any;
    let any_b = b as &dyn Any;
    let any_c = c as &mut dyn Any;
    let unsupported = || Error::Unsupported(format!("gemm for scalar type {}", S::NAME));
    // SAFETY (all four arms): shapes and storage lengths were checked above (each buffer
    // holds rows·cols entries, without overflow), so every index the kernels form from
    // (m, k, n) and the column-major strides stays inside the three buffers; C does
    // not alias A or B (Rust borrows). num_complex::Complex<T> is #[repr(C)] {re, im},
    // the layout of matrixmultiply's [T; 2].
    match S::NAME {
        "f64" => {
            let (a, b) = (down::<f64>(any_a)?, down::<f64>(any_b)?);
            let c = down_mut::<f64>(any_c)?;
            unsafe {
                matrixmultiply::dgemm(
                    m,
                    k,
                    n,
                    alpha.re().as_f64(),
                    a.as_slice().as_ptr(),
                    rsa,
                    csa,
                    b.as_slice().as_ptr(),
                    rsb,
                    csb,
                    beta.re().as_f64(),
                    c.as_mut_slice().as_mut_ptr(),
                    rsc,
                    csc,
                );
            }
        }
        "f32" => {
            let (a, b) = (down::<f32>(any_a)?, down::<f32>(any_b)?);
            let c = down_mut::<f32>(any_c)?;
            unsafe {
                matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    alpha.re().as_f64() as f32,
                    a.as_slice().as_ptr(),
                    rsa,
                    csa,
                    b.as_slice().as_ptr(),
                    rsb,
                    csb,
                    beta.re().as_f64() as f32,
                    c.as_mut_slice().as_mut_ptr(),
                    rsc,
                    csc,
                );
            }
        }
        "c64" => {
            let (a, b) = (down::<c64>(any_a)?, down::<c64>(any_b)?);
            let c = down_mut::<c64>(any_c)?;
            let (al, be) = (alpha.to_c64(), beta.to_c64());
            unsafe {
                matrixmultiply::zgemm(
                    CGemmOption::Standard,
                    CGemmOption::Standard,
                    m,
                    k,
                    n,
                    [al.re, al.im],
                    a.as_slice().as_ptr().cast(),
                    rsa,
                    csa,
                    b.as_slice().as_ptr().cast(),
                    rsb,
                    csb,
                    [be.re, be.im],
                    c.as_mut_slice().as_mut_ptr().cast(),
                    rsc,
                    csc,
                );
            }
        }
        "c32" => {
            let (a, b) = (down::<c32>(any_a)?, down::<c32>(any_b)?);
            let c = down_mut::<c32>(any_c)?;
            let (al, be) = (alpha.to_c64(), beta.to_c64());
            unsafe {
                matrixmultiply::cgemm(
                    CGemmOption::Standard,
                    CGemmOption::Standard,
                    m,
                    k,
                    n,
                    [al.re as f32, al.im as f32],
                    a.as_slice().as_ptr().cast(),
                    rsa,
                    csa,
                    b.as_slice().as_ptr().cast(),
                    rsb,
                    csb,
                    [be.re as f32, be.im as f32],
                    c.as_mut_slice().as_mut_ptr().cast(),
                    rsc,
                    csc,
                );
            }
        }
        _ => return Err(unsupported()),
    }
    Ok(())
}

fn down<T: Scalar>(a: &dyn Any) -> Result<&Matrix<T>> {
    a.downcast_ref::<Matrix<T>>()
        .ok_or_else(|| Error::Unsupported(format!("gemm: scalar type named {}", T::NAME)))
}

fn down_mut<T: Scalar>(a: &mut dyn Any) -> Result<&mut Matrix<T>> {
    a.downcast_mut::<Matrix<T>>()
        .ok_or_else(|| Error::Unsupported(format!("gemm: scalar type named {}", T::NAME)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive<S: Scalar>(a: &Matrix<S>, b: &Matrix<S>) -> Matrix<S> {
        Matrix::from_fn(a.nrows(), b.ncols(), |i, j| {
            (0..a.ncols()).map(|l| a[(i, l)] * b[(l, j)]).sum()
        })
    }

    fn check<S: Scalar>(tol: f64) {
        let a = Matrix::<S>::from_fn(7, 5, |i, j| {
            S::from_c64(c64::new(
                (i * 5 + j) as f64 * 0.25 - 3.0,
                i as f64 - j as f64,
            ))
        });
        let b = Matrix::<S>::from_fn(5, 6, |i, j| {
            S::from_c64(c64::new(1.0 / (1.0 + (i + j) as f64), 0.5 * j as f64))
        });
        let mut c = Matrix::<S>::from_fn(7, 6, |i, j| S::from_f64((i + 2 * j) as f64));
        let c0 = c.clone();
        let (alpha, beta) = (S::from_c64(c64::new(2.0, -1.0)), S::from_f64(0.5));
        gemm(alpha, &a, &b, beta, &mut c).unwrap();
        let r = naive(&a, &b);
        for i in 0..7 {
            for j in 0..6 {
                let want = alpha * r[(i, j)] + beta * c0[(i, j)];
                let err = (c[(i, j)] - want).modulus().as_f64();
                assert!(
                    err <= tol * (1.0 + want.modulus().as_f64()),
                    "{i},{j}: {err}"
                );
            }
        }
    }

    #[test]
    fn every_scalar_type_agrees_with_the_definition() {
        check::<f64>(1e-14);
        check::<c64>(1e-14);
        check::<f32>(1e-5);
        check::<c32>(1e-5);
    }

    #[test]
    fn the_gemm_library_and_its_threads_are_reported() {
        let (lib, threads) = gemm_threads::<f64>();
        if cfg!(feature = "lapack") {
            assert_eq!(lib, "openblas");
            assert!(threads >= 1);
        } else {
            assert_eq!(lib, "matrixmultiply");
            assert!((1..=4).contains(&threads));
        }
        assert_eq!(gemm_threads::<f32>().0, "matrixmultiply");
    }

    #[test]
    fn beta_zero_ignores_nan_in_c_and_shapes_are_checked() {
        let a = Matrix::<f64>::identity(3);
        let mut c = Matrix::from_fn(3, 3, |_, _| f64::NAN);
        gemm(1.0, &a, &a, 0.0, &mut c).unwrap();
        assert_eq!(c, Matrix::identity(3));
        let mut bad = Matrix::<f64>::zeros(2, 3);
        assert!(gemm(1.0, &a, &a, 0.0, &mut bad).is_err());
    }
}
