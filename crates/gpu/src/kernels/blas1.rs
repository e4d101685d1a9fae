//! Level-1 kernels on device ranges: x ← value, x ← α·x, y ← α·x + β·y, y ← Σⱼ cⱼ·xⱼ.
//!
//! Grid-stride launches sized to fill the device; each is one pass over memory (axpby
//! reads x and y and writes y; with β = 0 it does not read y, the BLAS convention).

use super::{AXPBY, COMBINE, FILL, SCALE};
use crate::rt::{Device, DeviceBuffer, LaunchConfig};
use matexp_core::{Result, Scalar};
use matexp_cuda_sys::{MX_REDUCE_THREADS, MxBlas1Params, MxScalar};
use std::sync::Arc;

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

/// Vectors per `combine` launch (`MX_COMBINE_MAX` of blas1.cu: their addresses and
/// coefficients are staged in shared memory).
const COMBINE_MAX: usize = 512;

/// y[0..n) ← Σⱼ cⱼ·xⱼ for device addresses `xs` of n elements of S each: one launch per 512
/// vectors (the first writes y, later ones add to it), each reading its vectors once. The
/// address and coefficient tables are uploaded first (one small synchronous copy each).
pub(crate) fn combine<S: Scalar>(
    device: &Arc<Device>,
    n: usize,
    coeffs: &[S],
    xs: &[u64],
    y: u64,
) -> Result<()> {
    debug_assert_eq!(coeffs.len(), xs.len());
    if n == 0 {
        return Ok(());
    }
    if xs.is_empty() {
        return fill(device, n, y, S::zero());
    }
    let f = COMBINE.for_scalar::<S>(device)?;
    for (chunk, (cs, ps)) in coeffs
        .chunks(COMBINE_MAX)
        .zip(xs.chunks(COMBINE_MAX))
        .enumerate()
    {
        // c64 has MxScalar's layout ({re, im} doubles).
        let table: Vec<matexp_core::c64> = cs.iter().map(|c| c.to_c64()).collect();
        let ptrs = DeviceBuffer::<u64>::from_host(device, ps)?;
        let cbuf = DeviceBuffer::<matexp_core::c64>::from_host(device, &table)?;
        let (n64, count, acc) = (n as u64, ps.len() as u32, u32::from(chunk > 0));
        let (pp, cp) = (ptrs.device_ptr(), cbuf.device_ptr());
        // SAFETY: `ptrs` holds `count` ≤ 512 addresses of n elements of S each, `cbuf` as
        // many coefficients ({re, im} doubles, MxScalar's layout); y holds n elements and is
        // none of the xⱼ (the caller's borrows are disjoint). The tables are freed in stream
        // order after the launch.
        unsafe {
            device
                .launch_builder(f)
                .arg(&n64)
                .arg(&count)
                .arg(&pp)
                .arg(&cp)
                .arg(&acc)
                .arg(&y)
                .launch(cfg(device, n))?
        };
    }
    Ok(())
}
