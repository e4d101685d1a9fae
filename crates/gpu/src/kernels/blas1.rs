//! Level-1 kernels on device ranges: x ← value, x ← α·x, y ← α·x + β·y.
//!
//! Grid-stride launches sized to fill the device; each is one pass over memory (axpby
//! reads x and y and writes y; with β = 0 it does not read y, the BLAS convention).

use super::{AXPBY, FILL, SCALE};
use crate::rt::{Device, LaunchConfig};
use matexp_core::{Result, Scalar};
use matexp_cuda_sys::{MX_REDUCE_THREADS, MxBlas1Params, MxScalar};

/// A scalar as the kernels receive it (double-precision complex; kernels round it).
pub(crate) fn mx_scalar<S: Scalar>(s: S) -> MxScalar {
    let z = s.to_c64();
    MxScalar { re: z.re, im: z.im }
}

fn params<S: Scalar>(n: usize, alpha: S, beta: S) -> MxBlas1Params {
    MxBlas1Params {
        n: n as u64,
        alpha: mx_scalar(alpha),
        beta: mx_scalar(beta),
    }
}

fn cfg(device: &Device, n: usize) -> LaunchConfig {
    LaunchConfig::grid_stride(device, n, MX_REDUCE_THREADS)
}

/// x[0..n) ← value.
pub(crate) fn fill<S: Scalar>(device: &Device, n: usize, x: u64, value: S) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let p = params(n, value, S::zero());
    let f = FILL.for_scalar::<S>(device)?;
    // SAFETY: x holds n elements of S.
    unsafe {
        device
            .launch_builder(f)
            .arg(&p)
            .arg(&x)
            .launch(cfg(device, n))
    }
}

/// x[0..n) ← α·x.
pub(crate) fn scale<S: Scalar>(device: &Device, n: usize, alpha: S, x: u64) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let p = params(n, alpha, S::zero());
    let f = SCALE.for_scalar::<S>(device)?;
    // SAFETY: x holds n elements of S.
    unsafe {
        device
            .launch_builder(f)
            .arg(&p)
            .arg(&x)
            .launch(cfg(device, n))
    }
}

/// y[0..n) ← α·x + β·y (y not read when β = 0).
pub(crate) fn axpby<S: Scalar>(
    device: &Device,
    n: usize,
    alpha: S,
    x: u64,
    beta: S,
    y: u64,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let p = params(n, alpha, beta);
    let f = AXPBY.for_scalar::<S>(device)?;
    // SAFETY: x and y hold n elements of S each and do not overlap partially (they are
    // distinct buffers or the same one).
    unsafe {
        device
            .launch_builder(f)
            .arg(&p)
            .arg(&x)
            .arg(&y)
            .launch(cfg(device, n))
    }
}
