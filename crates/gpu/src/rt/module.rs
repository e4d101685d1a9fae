//! PTX modules and typed kernel handles, open to every crate.
//!
//! A crate that ships kernels declares, once, a `static` [`PtxModule`] holding its embedded
//! PTX and one `static` [`Kernel`] per kernel family. The module is JIT-compiled the first
//! time a kernel of it runs on a device, and each kernel's function handle is looked up once
//! per (device, scalar, index) and kept in a lock-free cache inside the [`Kernel`] static:
//! a launch costs an atomic load, not a name lookup.
//!
//! Kernel names follow the convention of the X-macro instantiations in the `.cu` files:
//! `<base>` for untyped kernels, `<base>_<S>` per scalar (`f32`, `f64`, `c32`, `c64`) and
//! `<base>_<S>_<I>` per scalar and index (`u32`, `u64`).
//!
//! ```
//! use matexp_gpu::rt::{Kernel, PtxModule};
//! // In a crate that ships `kernels/axpy.cu`, compiled by `cargo xtask cuda` into
//! // `ptx/axpy.ptx`: `static AXPY_PTX: PtxModule = PtxModule::new("axpy", include_str!(…));`
//! static AXPY_PTX: PtxModule = PtxModule::new("axpy", ".version 9.0\n.target sm_80\n");
//! static AXPY: Kernel = Kernel::new(&AXPY_PTX, "axpy");
//! assert_eq!(AXPY.base_name(), "axpy");
//! assert_eq!(AXPY.module().name(), "axpy");
//! ```

use super::device::{Device, MAX_DEVICES};
use super::driver::{check, driver_error};
use super::scalar::{KernelIndex, scalar_slot};
use cudarc::driver::{result, sys};
use matexp_core::{Error, Result, Scalar};
use std::ffi::{CString, c_void};
use std::fmt;
use std::sync::OnceLock;

/// A loaded module handle (never unloaded: modules live as long as the process).
#[derive(Debug, Clone, Copy)]
struct LoadedModule(sys::CUmodule);
// SAFETY: module handles are process-wide; every use binds the owning context first.
unsafe impl Send for LoadedModule {}
unsafe impl Sync for LoadedModule {}

/// The handle of one kernel on one device, ready to launch with
/// [`Device::launch_builder`](crate::rt::Device::launch_builder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    raw: sys::CUfunction,
    ordinal: usize,
}
// SAFETY: as for modules.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

impl Function {
    /// The raw driver handle (valid for the life of the process).
    pub fn cu_function(&self) -> sys::CUfunction {
        self.raw
    }

    /// Ordinal of the device the handle belongs to.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }
}

/// One compiled `.cu` file: its name and PTX text, JIT-compiled once per device on first use.
pub struct PtxModule {
    name: &'static str,
    ptx: &'static str,
    loaded: [OnceLock<std::result::Result<LoadedModule, String>>; MAX_DEVICES],
}

impl fmt::Debug for PtxModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PtxModule({}, {} bytes)", self.name, self.ptx.len())
    }
}

impl PtxModule {
    /// A module named `name` (the `.cu` stem, for messages) with PTX text `ptx`, usually
    /// `include_str!("../ptx/<name>.ptx")`.
    pub const fn new(name: &'static str, ptx: &'static str) -> Self {
        PtxModule {
            name,
            ptx,
            loaded: [const { OnceLock::new() }; MAX_DEVICES],
        }
    }

    /// The module's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The PTX text.
    pub fn ptx(&self) -> &'static str {
        self.ptx
    }

    /// Names of the kernels (`.entry` directives) the PTX defines.
    pub fn entries(&self) -> impl Iterator<Item = &'static str> {
        self.ptx.lines().filter_map(|l| {
            let rest = l.trim_start().strip_prefix(".visible .entry ")?;
            Some(rest.split('(').next().unwrap_or(rest).trim())
        })
    }

    /// JIT-compiles the module for `device` (once; later calls return the cached handle or
    /// the first failure, with the JIT's log).
    fn load(&self, device: &Device) -> Result<LoadedModule> {
        self.loaded[device.ordinal()]
            .get_or_init(|| load_ptx(device, self.name, self.ptx))
            .clone()
            .map_err(Error::Device)
    }

    /// Loads the module on `device` now (otherwise the first launch does), so that a PTX
    /// the driver rejects is reported before any work is queued.
    pub fn preload(&self, device: &Device) -> Result<()> {
        self.load(device).map(|_| ())
    }

    /// The kernel called `name` on `device`, looked up by name (for one-off launches; a
    /// [`Kernel`] static caches the handle).
    pub fn function(&self, device: &Device, name: &str) -> Result<Function> {
        let m = self.load(device)?;
        let cname = CString::new(name).map_err(|_| Error::invalid("kernel", name, "NUL byte"))?;
        device.bind()?;
        // SAFETY: the module is loaded and never unloaded.
        let raw = check(
            &format!(
                "gpu:{}: kernel {name} in PTX module {}",
                device.ordinal(),
                self.name
            ),
            unsafe { result::module::get_function(m.0, cname) },
        )?;
        Ok(Function {
            raw,
            ordinal: device.ordinal(),
        })
    }
}

/// JIT-compiles a PTX module, keeping the JIT's error log for the message.
fn load_ptx(device: &Device, name: &str, ptx: &str) -> std::result::Result<LoadedModule, String> {
    device.bind().map_err(|e| e.to_string())?;
    let image = CString::new(ptx).map_err(|_| format!("PTX module {name} holds a NUL byte"))?;
    let mut log = vec![0u8; 8192];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut module = std::ptr::null_mut();
    // SAFETY: image is NUL-terminated PTX; the option arrays have the length passed and the
    // log buffer outlives the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(LoadedModule(module)),
        e => {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            Err(format!(
                "{}; JIT log: {}",
                driver_error(
                    &format!("gpu:{}: loading PTX module {name}", device.ordinal()),
                    cudarc::driver::DriverError(e)
                ),
                String::from_utf8_lossy(&log[..end]).trim()
            ))
        }
    }
}

/// Cache slots per device: the untyped kernel, 4 scalars, 4 scalars × 2 indices.
const VARIANTS: usize = 1 + 4 + 8;

/// A family of kernels of one [`PtxModule`] sharing a base name: the typed id a crate
/// launches by. Function handles are cached per (device, scalar, index).
pub struct Kernel {
    module: &'static PtxModule,
    base: &'static str,
    cache: [[OnceLock<std::result::Result<Function, String>>; VARIANTS]; MAX_DEVICES],
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({}::{})", self.module.name, self.base)
    }
}

impl Kernel {
    /// The kernels named `base`, `base_<S>` or `base_<S>_<I>` in `module`.
    pub const fn new(module: &'static PtxModule, base: &'static str) -> Self {
        Kernel {
            module,
            base,
            cache: [const { [const { OnceLock::new() }; VARIANTS] }; MAX_DEVICES],
        }
    }

    /// The base name.
    pub fn base_name(&self) -> &'static str {
        self.base
    }

    /// The module defining the family.
    pub fn module(&self) -> &'static PtxModule {
        self.module
    }

    fn cached(
        &self,
        device: &Device,
        slot: usize,
        name: impl FnOnce() -> String,
    ) -> Result<Function> {
        self.cache[device.ordinal()][slot]
            .get_or_init(|| {
                self.module
                    .function(device, &name())
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(Error::Device)
    }

    /// The untyped kernel `base`.
    pub fn get(&self, device: &Device) -> Result<Function> {
        self.cached(device, 0, || self.base.to_string())
    }

    /// The kernel `base_<S>` for scalar `S`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when `S` is not `f32`, `f64`, `c32` or `c64`; [`Error::Device`]
    /// when the module does not define the kernel or fails to load.
    pub fn for_scalar<S: Scalar>(&self, device: &Device) -> Result<Function> {
        let s = scalar_slot::<S>()?;
        self.cached(device, 1 + s, || format!("{}_{}", self.base, S::NAME))
    }

    /// The kernel `base_<S>_<I>` for scalar `S` and index `I`.
    ///
    /// # Errors
    /// As [`Kernel::for_scalar`].
    pub fn for_scalar_index<S: Scalar, I: KernelIndex>(&self, device: &Device) -> Result<Function> {
        let s = scalar_slot::<S>()?;
        self.cached(device, 5 + 2 * s + I::SLOT, || {
            format!("{}_{}_{}", self.base, S::NAME, I::KERNEL_SUFFIX)
        })
    }
}
