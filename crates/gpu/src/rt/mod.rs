//! The CUDA runtime: driver loading, devices with their context and stream, memory, events,
//! PTX modules and typed launches. It knows no kernel of its own; every crate (this one's
//! [`kernels`](crate::kernels) included) brings its PTX through [`PtxModule`] and [`Kernel`].
//!
//! Layers inside: `driver` → `device` → `memory`, `event` → `scalar` → `module` → `launch`.

mod device;
pub(crate) mod driver;
mod event;
mod launch;
mod memory;
mod module;
pub(crate) mod scalar;

pub use device::{Device, DeviceInfo, MAX_DEVICES};
pub use driver::{device_count, driver_version};
pub use event::{Event, median, time_batched, time_runs};
pub use launch::{KernelArg, KernelParam, Launch, LaunchConfig};
pub use memory::{DeviceBuffer, DeviceElement, DeviceSlice, PinnedBuffer};
pub use module::{Function, Kernel, PtxModule};
pub use scalar::{KernelIndex, is_kernel_scalar};
