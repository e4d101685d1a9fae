//! End-to-end tests of matexp across crates, and the smallest example of a crate that ships
//! a GPU kernel of its own through `matexp-gpu`'s public kernel API.
//!
//! The kernel `kernels/sin_x.cu` (y = sin(x)·x) is compiled by `cargo xtask cuda` into
//! `ptx/sin_x.ptx`, embedded here, loaded once per device and launched by a typed id:
//!
//! ```no_run
//! use matexp_gpu::{Device, DeviceBuffer};
//! use matexp_gpu::kernels::reduce;
//! let dev = Device::open(0)?;
//! let x = DeviceBuffer::from_host(&dev, &[0.5f64, 1.0, 2.0])?;
//! let mut y = DeviceBuffer::<f64>::zeros(&dev, 3)?;
//! matexp_e2e::sin_times_x(&x, &mut y)?;
//! let total = reduce::sum(&y.as_slice())?.wait()?; // Σ sin(xᵢ)·xᵢ, reduced on the device
//! assert!((total - (0.5f64.sin() * 0.5 + 1f64.sin() + 2.0 * 2f64.sin())).abs() < 1e-14);
//! # Ok::<(), matexp_core::Error>(())
//! ```

use matexp_core::{Error, RealScalar, Result, check_dim};
use matexp_gpu::rt::{DeviceBuffer, DeviceElement, Kernel, LaunchConfig, PtxModule};

/// The crate's PTX module (`kernels/sin_x.cu`).
pub static SIN_X_PTX: PtxModule = PtxModule::new("sin_x", include_str!("../ptx/sin_x.ptx"));

/// `sin_times_x_{f32,f64}(uint64_t n, const T *x, T *y)`.
pub static SIN_TIMES_X: Kernel = Kernel::new(&SIN_X_PTX, "sin_times_x");

/// Threads per block of the grid-stride loop.
const THREADS: u32 = 256;

/// Queues yᵢ ← sin(xᵢ)·xᵢ on the device's stream (`f32` or `f64`; sin to within the CUDA
/// math library's 2 ulp, one pass over memory: 2·n·size_of::<T>() bytes).
///
/// # Errors
/// [`Error::DimensionMismatch`] for unequal lengths, an argument error for buffers on
/// different devices, [`Error::Device`] when the kernel cannot be loaded or launched.
pub fn sin_times_x<T: RealScalar + DeviceElement>(
    x: &DeviceBuffer<T>,
    y: &mut DeviceBuffer<T>,
) -> Result<()> {
    check_dim("sin_times_x: length of y", x.len(), y.len())?;
    let dev = x.device();
    if y.device().ordinal() != dev.ordinal() {
        return Err(Error::invalid(
            "y",
            format!("gpu:{}", y.device().ordinal()),
            format!("must live on x's device (gpu:{})", dev.ordinal()),
        ));
    }
    if x.is_empty() {
        return Ok(());
    }
    let f = SIN_TIMES_X.for_scalar::<T>(dev)?;
    let n = x.len() as u64;
    // SAFETY: the kernel reads n elements of x and writes n elements of y, both that long.
    unsafe {
        dev.launch_builder(f)
            .arg(&n)
            .arg(x)
            .arg(y)
            .launch(LaunchConfig::grid_stride(dev, x.len(), THREADS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_module_defines_the_kernel_for_both_precisions() {
        let entries: Vec<_> = SIN_X_PTX.entries().collect();
        assert_eq!(entries, ["sin_times_x_f32", "sin_times_x_f64"]);
        assert!(SIN_X_PTX.ptx().contains("\n.version 9.0\n"));
    }
}
