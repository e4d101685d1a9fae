//! matexp on NVIDIA GPUs: a thin CUDA runtime over cudarc, the GPU backends and the sparse
//! operators the matrix-function algorithms run on.
//!
//! * [`Device`]: discovery ([`device_count`], [`Device::all`]), the primary context, one
//!   work stream per device, JIT loading of the PTX kernels of `matexp-cuda-sys`, peer access.
//! * [`DeviceBuffer`], [`PinnedBuffer`], [`Event`]: memory, copies (also between GPUs) and
//!   event timing ([`time_runs`]).
//! * [`GpuBackend`] implements [`matexp_core::Backend`] on one GPU with [`GpuVector`]s:
//!   BLAS-1 kernels and tree reductions (dot, overflow-safe norm, max-abs) in double
//!   precision, each costing one host synchronization — or none until the caller asks,
//!   through the `*_deferred` variants returning [`Pending`].
//! * [`GpuCsr`] / [`GpuPattern`] implement [`matexp_core::LinearOperator`] with our CSR SpMV
//!   kernels (thread-per-row and sub-warp vector rows) or cuSPARSE, and a fused Leja step.
//! * [`MultiGpuBackend`], [`MultiVector`], [`MultiGpuCsr`]: the same over several GPUs of one
//!   host, rows partitioned, the input vector gathered by peer copies before each product.
//!
//! Nothing CUDA is needed to build: the driver, cuSPARSE and friends are loaded at run time.
//! On a machine without a driver or GPU every entry point returns
//! [`matexp_core::Error::Device`] (never panics), and the CPU backend keeps working.
//!
//! ```
//! use matexp_gpu::GpuBackend;
//! match GpuBackend::new(0) {
//!     Ok(gpu) => println!("running on {}", gpu.device().info()),
//!     Err(e) => println!("falling back to the CPU: {e}"),
//! }
//! ```

pub mod kernels;
pub mod ops;
pub mod rt;
pub mod vendor;

pub use kernels::reduce::{DeviceReduction, PartialRows, Pending, ssq_add, ssq_norm};
pub use ops::backend::{GpuBackend, GpuVector};
pub use ops::csr::{GpuCsr, GpuPattern, ValueStorage};
pub use ops::multi::{MultiGpuBackend, MultiGpuCsr, MultiVector, RowPartition};
pub use ops::structure::{GpuIndex, SpmvKernel, auto_lanes, validate_csr};
pub use rt::{
    Device, DeviceBuffer, DeviceElement, DeviceInfo, DeviceSlice, Event, PinnedBuffer,
    device_count, driver_version, is_kernel_scalar, median, time_batched, time_runs,
};

/// The parameter structs and PTX of the kernels (re-exported from `matexp-cuda-sys`).
pub use matexp_cuda_sys as sys;

/// cudarc, re-exported so that a crate uses the same version as the runtime (its
/// `CudaStream` is [`Device::stream`]; cuBLAS is `cudarc::cublas`).
pub use cudarc;
