//! Typed kernel launches on a device's work stream.
//!
//! [`Device::launch_builder`] starts a launch of a [`Function`]; [`Launch::arg`] appends
//! arguments in the kernel's parameter order: plain values ([`KernelParam`]: numbers, the
//! parameter structs of `matexp-cuda-sys`, a crate's own `#[repr(C)]` structs) by value, and
//! device memory ([`DeviceBuffer`](crate::rt::DeviceBuffer), [`DeviceSlice`](crate::rt::DeviceSlice))
//! as its device address. Arguments are borrowed until the launch, so none can be freed
//! while the driver copies them; [`Launch::launch`] queues the kernel on the device's stream.
//!
//! ```no_run
//! # use matexp_gpu::rt::{Device, DeviceBuffer, Kernel, LaunchConfig, PtxModule};
//! # static M: PtxModule = PtxModule::new("m", "");
//! # static SCALE: Kernel = Kernel::new(&M, "scale");
//! # fn main() -> matexp_core::Result<()> {
//! let dev = Device::open(0)?;
//! let mut x = DeviceBuffer::from_host(&dev, &[1.0f64, 2.0, 3.0])?;
//! let (n, alpha) = (x.len() as u64, 2.0f64);
//! let f = SCALE.for_scalar::<f64>(&dev)?;
//! let cfg = LaunchConfig::grid_stride(&dev, x.len(), 256);
//! // SAFETY: `scale_f64(uint64_t n, double alpha, double *x)` writes x[0..n).
//! unsafe {
//!     dev.launch_builder(f)
//!         .arg(&n)
//!         .arg(&alpha)
//!         .arg(&mut x)
//!         .launch(cfg)?;
//! }
//! # Ok(()) }
//! ```

use super::device::Device;
use super::driver::driver_error;
use super::memory::{DeviceBuffer, DeviceElement, DeviceSlice};
use super::module::Function;
use cudarc::driver::{result, sys};
use matexp_core::{Error, Result};
use std::ffi::c_void;
use std::marker::PhantomData;

/// Plain-old-data values passed to kernels by value.
///
/// # Safety
/// The type must be `#[repr(C)]` (or a primitive) with the size, alignment and layout of
/// the kernel parameter it is passed as, and hold no host pointers the kernel would follow.
pub unsafe trait KernelParam: Copy {}

// SAFETY: primitives and the bindgen mirrors of the C header's structs (layout asserted in
// matexp-cuda-sys).
unsafe impl KernelParam for i32 {}
unsafe impl KernelParam for u32 {}
unsafe impl KernelParam for i64 {}
unsafe impl KernelParam for u64 {}
unsafe impl KernelParam for f32 {}
unsafe impl KernelParam for f64 {}
unsafe impl KernelParam for matexp_core::c32 {}
unsafe impl KernelParam for matexp_core::c64 {}
unsafe impl<T: KernelParam, const N: usize> KernelParam for [T; N] {}
unsafe impl KernelParam for matexp_cuda_sys::MxScalar {}
unsafe impl KernelParam for matexp_cuda_sys::MxBlas1Params {}
unsafe impl KernelParam for matexp_cuda_sys::MxSpmvParams {}
unsafe impl KernelParam for matexp_cuda_sys::MxLejaParams {}
unsafe impl KernelParam for matexp_cuda_sys::MxSsqPartial {}

/// Something a kernel argument can be made of: its parameter bytes live at
/// [`KernelArg::param_ptr`] for as long as the value is borrowed.
///
/// # Safety
/// `param_ptr` must point at the bytes of exactly one kernel parameter (a value, or a
/// device address stored in `self`), valid while `self` is borrowed.
pub unsafe trait KernelArg {
    /// Address of the parameter's bytes.
    fn param_ptr(&self) -> *mut c_void;
}

// SAFETY: the value's own bytes.
unsafe impl<T: KernelParam> KernelArg for T {
    fn param_ptr(&self) -> *mut c_void {
        self as *const T as *mut c_void
    }
}

// SAFETY: the parameter is the device address stored in the buffer (a `CUdeviceptr`).
unsafe impl<T: DeviceElement> KernelArg for DeviceBuffer<T> {
    fn param_ptr(&self) -> *mut c_void {
        self.address() as *const sys::CUdeviceptr as *mut c_void
    }
}

// SAFETY: as for buffers.
unsafe impl<T: DeviceElement> KernelArg for DeviceSlice<'_, T> {
    fn param_ptr(&self) -> *mut c_void {
        self.address() as *const sys::CUdeviceptr as *mut c_void
    }
}

/// Grid, block and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A one-dimensional launch of `grid` blocks of `block` threads (at least one block).
    pub fn linear(grid: u32, block: u32) -> Self {
        LaunchConfig {
            grid: (grid.max(1), 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// A grid-stride loop over `n` items with `block` threads per block: enough blocks to
    /// fill the device (8 per SM), fewer for short loops.
    pub fn grid_stride(device: &Device, n: usize, block: u32) -> Self {
        Self::linear(device.grid_for(n, block, u32::MAX), block)
    }
}

/// Kernel parameters one launch can take (no matexp kernel has more than ten).
const MAX_ARGS: usize = 24;

/// A launch being assembled; see the [module documentation](self).
#[derive(Debug)]
#[must_use = "a launch does nothing until `launch` is called"]
pub struct Launch<'a> {
    device: &'a Device,
    function: Function,
    args: [*mut c_void; MAX_ARGS],
    len: usize,
    overflow: bool,
    _borrows: PhantomData<&'a ()>,
}

impl Device {
    /// Starts a launch of `function` on this device's stream.
    pub fn launch_builder(&self, function: Function) -> Launch<'_> {
        Launch {
            device: self,
            function,
            args: [std::ptr::null_mut(); MAX_ARGS],
            len: 0,
            overflow: false,
            _borrows: PhantomData,
        }
    }
}

impl<'a> Launch<'a> {
    /// Appends the next kernel argument.
    pub fn arg<A: KernelArg + ?Sized>(&mut self, a: &'a A) -> &mut Self {
        if self.len < MAX_ARGS {
            self.args[self.len] = a.param_ptr();
            self.len += 1;
        } else {
            self.overflow = true;
        }
        self
    }

    /// Queues the kernel on the device's stream.
    ///
    /// # Errors
    /// [`Error::Device`] when the function belongs to another device, there are too many
    /// arguments, or the driver rejects the launch (bad configuration, a fault of earlier
    /// work).
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type, and every
    /// device address among them must be valid for what the kernel reads and writes; the
    /// kernel must not access memory outside those ranges.
    pub unsafe fn launch(&mut self, cfg: LaunchConfig) -> Result<()> {
        let ordinal = self.device.ordinal();
        if self.function.ordinal() != ordinal {
            return Err(Error::Device(format!(
                "a kernel of gpu:{} launched on gpu:{ordinal}",
                self.function.ordinal()
            )));
        }
        if self.overflow {
            return Err(Error::Device(format!(
                "more than {MAX_ARGS} kernel arguments"
            )));
        }
        self.device.bind()?;
        // SAFETY: forwarded from the caller; the argument pointers are borrowed for 'a.
        unsafe {
            result::launch_kernel(
                self.function.cu_function(),
                cfg.grid,
                cfg.block,
                cfg.shared_mem_bytes,
                self.device.cu_stream(),
                &mut self.args[..self.len],
            )
        }
        .map_err(|e| {
            driver_error(
                &format!(
                    "gpu:{ordinal}: launch <<<{:?}, {:?}>>>",
                    cfg.grid, cfg.block
                ),
                e,
            )
        })
    }
}
