//! CUDA devices: discovery, the primary context, the work stream, kernel loading and the
//! per-device scratch space of reductions.
//!
//! One [`Device`] exists per ordinal and process (a registry hands out shared handles), so
//! buffers made through different backends on the same GPU are interchangeable. Every
//! operation of this crate on a device is queued on that device's single non-blocking
//! stream, in program order; the host waits only where a result must reach it (reductions,
//! downloads, [`Device::synchronize`]).

use crate::driver::{check, check_raw, device_count, driver_error, guarded, init};
use cudarc::driver::{result, sys};
use matexp_core::{Error, Result};
use matexp_cuda_sys::{MODULES, MX_MAX_PARTIALS, module_of};
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// What a device is, read once when it is opened.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// CUDA ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// L2 cache in bytes.
    pub l2_cache: usize,
    /// PCI bus id, e.g. `0000:18:00.0`.
    pub pci_bus_id: String,
}

impl DeviceInfo {
    /// A short lowercase tag for benchmark records: `h200`, `h100`, `a100`, else the name
    /// with spaces replaced.
    pub fn short_name(&self) -> String {
        let lower = self.name.to_lowercase();
        for tag in [
            "h200", "h100", "gh200", "a100", "l40s", "l4", "v100", "b200",
        ] {
            if lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == tag)
            {
                return tag.to_string();
            }
        }
        lower
            .replace("nvidia", "")
            .trim()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gpu:{} {} (sm_{}{}, {} SMs, {:.1} GiB, L2 {} MiB, PCI {})",
            self.ordinal,
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            self.total_memory as f64 / (1u64 << 30) as f64,
            self.l2_cache >> 20,
            self.pci_bus_id
        )
    }
}

/// A device allocation without an owner handle (the device's own scratch space).
#[derive(Debug)]
pub(crate) struct RawAlloc {
    pub(crate) ptr: sys::CUdeviceptr,
}

/// Where one reduction lands: a few doubles on the device, their pinned host copy, and an
/// event marking the copy's completion. Slots are pooled per device.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) result: sys::CUdeviceptr,
    pub(crate) host: *mut f64,
    pub(crate) event: sys::CUevent,
}

/// Doubles per reduction slot (the widest finish writes 3: a sum of squares).
pub(crate) const SLOT_WIDTH: usize = 4;

#[derive(Debug, Clone, Copy)]
struct Module(sys::CUmodule);
#[derive(Debug, Clone, Copy)]
pub(crate) struct Function(pub(crate) sys::CUfunction);
// SAFETY: driver handles are process-wide and may be used from any thread once the owning
// context is current (every use binds it first).
unsafe impl Send for Module {}
unsafe impl Sync for Module {}
unsafe impl Send for Function {}
unsafe impl Sync for Function {}
unsafe impl Send for Slot {}
unsafe impl Sync for Slot {}

/// One CUDA device with its primary context and work stream.
pub struct Device {
    info: DeviceInfo,
    cu_device: sys::CUdevice,
    ctx: sys::CUcontext,
    stream: sys::CUstream,
    modules: Vec<OnceLock<std::result::Result<Module, String>>>,
    functions: Mutex<HashMap<String, Function>>,
    /// Per-block partials of the reduction being queued; the lock is held from the partial
    /// launch to its finish launch, so concurrent callers cannot interleave the two.
    partials: Mutex<RawAlloc>,
    slots: Mutex<Vec<Slot>>,
    pub(crate) cusparse: OnceLock<std::result::Result<crate::cusparse::Handle, String>>,
}

// SAFETY: see `Function`; the mutable state is behind mutexes.
unsafe impl Send for Device {}
unsafe impl Sync for Device {}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device").field("info", &self.info).finish()
    }
}

impl Device {
    /// The device with CUDA ordinal `ordinal`, opened on first use and shared afterwards.
    /// Errors (never panics) when there is no driver, no device, or no such ordinal.
    pub fn open(ordinal: usize) -> Result<Arc<Device>> {
        static REGISTRY: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();
        init()?;
        let count = device_count()?;
        if count == 0 {
            return Err(Error::Device("no CUDA device found".into()));
        }
        if ordinal >= count {
            return Err(Error::invalid(
                "ordinal",
                ordinal,
                format!("this machine has {count} CUDA device(s)"),
            ));
        }
        let reg = REGISTRY.get_or_init(Default::default);
        let mut map = reg
            .lock()
            .map_err(|_| Error::Device("device registry poisoned".into()))?;
        if let Some(d) = map.get(&ordinal) {
            return Ok(d.clone());
        }
        let d = Arc::new(guarded("open device", || Device::create(ordinal))?);
        map.insert(ordinal, d.clone());
        Ok(d)
    }

    /// Every device of this machine; an error when there is no driver or no device.
    pub fn all() -> Result<Vec<Arc<Device>>> {
        (0..device_count()?).map(Device::open).collect()
    }

    fn create(ordinal: usize) -> Result<Device> {
        let what = |s: &str| format!("gpu:{ordinal}: {s}");
        let cu_device = check(&what("cuDeviceGet"), result::device::get(ordinal as i32))?;
        // SAFETY: the device handle is valid; the retained context is released never (the
        // registry keeps devices for the life of the process).
        let ctx = check(&what("cuDevicePrimaryCtxRetain"), unsafe {
            result::primary_ctx::retain(cu_device)
        })?;
        // SAFETY: ctx was just retained.
        check(&what("cuCtxSetCurrent"), unsafe {
            result::ctx::set_current(ctx)
        })?;
        let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
            // SAFETY: valid device and attribute enum.
            check(&what("cuDeviceGetAttribute"), unsafe {
                result::device::get_attribute(cu_device, a)
            })
        };
        use sys::CUdevice_attribute::*;
        let name = check(
            &what("cuDeviceGetName"),
            result::device::get_name(cu_device),
        )?;
        let mut bus = [0 as std::ffi::c_char; 32];
        // SAFETY: the buffer holds 32 bytes, the length passed.
        check_raw(&what("cuDeviceGetPCIBusId"), unsafe {
            sys::cuDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as i32, cu_device)
        })?;
        // SAFETY: the driver NUL-terminates within the buffer.
        let pci_bus_id = unsafe { std::ffi::CStr::from_ptr(bus.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let info = DeviceInfo {
            ordinal,
            name,
            compute_capability: (
                attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as u32,
            // SAFETY: valid device.
            total_memory: check(&what("cuDeviceTotalMem"), unsafe {
                result::device::total_mem(cu_device)
            })?,
            l2_cache: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.max(0) as usize,
            pci_bus_id,
        };
        let mut stream = std::ptr::null_mut();
        // SAFETY: writes one stream handle; the context is current.
        check_raw(&what("cuStreamCreate"), unsafe {
            sys::cuStreamCreate(
                &mut stream,
                sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
            )
        })?;
        let partial_bytes = MX_MAX_PARTIALS as usize * SLOT_WIDTH * 8;
        // SAFETY: plain allocation in the current context.
        let partials = check(&what("cuMemAlloc"), unsafe {
            result::malloc_sync(partial_bytes)
        })?;
        Ok(Device {
            info,
            cu_device,
            ctx,
            stream,
            modules: MODULES.iter().map(|_| OnceLock::new()).collect(),
            functions: Mutex::new(HashMap::new()),
            partials: Mutex::new(RawAlloc { ptr: partials }),
            slots: Mutex::new(Vec::new()),
            cusparse: OnceLock::new(),
        })
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// CUDA ordinal.
    pub fn ordinal(&self) -> usize {
        self.info.ordinal
    }

    /// Makes this device's context current on the calling thread (cheap when it already is).
    pub fn bind(&self) -> Result<()> {
        let current = check("cuCtxGetCurrent", result::ctx::get_current())?;
        if current != Some(self.ctx) {
            // SAFETY: the context is retained for the life of the process.
            check("cuCtxSetCurrent", unsafe {
                result::ctx::set_current(self.ctx)
            })?;
        }
        Ok(())
    }

    /// The raw work stream (for interoperation; all of this crate's work goes there).
    pub fn stream(&self) -> sys::CUstream {
        self.stream
    }

    /// The raw primary context.
    pub fn context(&self) -> sys::CUcontext {
        self.ctx
    }

    /// Blocks until all queued work on the device's stream is done, reporting any
    /// asynchronous kernel fault.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: the stream lives as long as the device.
        check(
            &format!("gpu:{}: cuStreamSynchronize", self.ordinal()),
            unsafe { result::stream::synchronize(self.stream) },
        )
    }

    /// (free, total) device memory in bytes.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        check("cuMemGetInfo", result::mem_get_info())
    }

    /// Whether this device can read and write `other`'s memory directly (NVLink / PCIe P2P).
    pub fn can_access_peer(&self, other: &Device) -> Result<bool> {
        let mut can = 0;
        // SAFETY: writes one int; both handles are valid.
        check_raw("cuDeviceCanAccessPeer", unsafe {
            sys::cuDeviceCanAccessPeer(&mut can, self.cu_device, other.cu_device)
        })?;
        Ok(can != 0)
    }

    /// Enables direct access from this device to `other`'s memory when the hardware allows;
    /// returns whether it is enabled. Copies between the two work either way (staged
    /// through the host when not).
    pub fn enable_peer_access(&self, other: &Device) -> Result<bool> {
        if self.ordinal() == other.ordinal() || !self.can_access_peer(other)? {
            return Ok(false);
        }
        self.bind()?;
        // SAFETY: both contexts are retained for the life of the process.
        let r = unsafe { sys::cuCtxEnablePeerAccess(other.ctx, 0) };
        match r {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
                Ok(true)
            }
            e => Err(driver_error(
                &format!(
                    "gpu:{}: cuCtxEnablePeerAccess(gpu:{})",
                    self.ordinal(),
                    other.ordinal()
                ),
                cudarc::driver::DriverError(e),
            )),
        }
    }

    fn module(&self, index: usize) -> Result<Module> {
        let m = &MODULES[index];
        self.modules[index]
            .get_or_init(|| self.load_module(m.name, m.ptx))
            .clone()
            .map_err(Error::Device)
    }

    /// JIT-compiles a PTX module, keeping the JIT's error log for the message.
    fn load_module(&self, name: &str, ptx: &str) -> std::result::Result<Module, String> {
        self.bind().map_err(|e| e.to_string())?;
        let image = CString::new(ptx).map_err(|_| format!("PTX module {name} holds a NUL byte"))?;
        let mut log = vec![0u8; 8192];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        let mut module = std::ptr::null_mut();
        // SAFETY: image is NUL-terminated PTX; the option arrays have the length passed and
        // the log buffer outlives the call.
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
            sys::CUresult::CUDA_SUCCESS => Ok(Module(module)),
            e => {
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                Err(format!(
                    "{}; JIT log: {}",
                    driver_error(
                        &format!("gpu:{}: loading PTX module {name}", self.ordinal()),
                        cudarc::driver::DriverError(e)
                    ),
                    String::from_utf8_lossy(&log[..end]).trim()
                ))
            }
        }
    }

    /// The kernel called `name` (its module is JIT-compiled on first use).
    pub(crate) fn function(&self, name: &str) -> Result<Function> {
        let mut map = self
            .functions
            .lock()
            .map_err(|_| Error::Device("kernel table poisoned".into()))?;
        if let Some(f) = map.get(name) {
            return Ok(*f);
        }
        let module = module_of(name)
            .ok_or_else(|| Error::Device(format!("no PTX module defines kernel {name}")))?;
        let index = MODULES
            .iter()
            .position(|m| m.name == module.name)
            .unwrap_or(0);
        let m = self.module(index)?;
        let cname = CString::new(name).map_err(|_| Error::invalid("kernel", name, "NUL byte"))?;
        self.bind()?;
        // SAFETY: the module is loaded and never unloaded.
        let f = check(&format!("gpu:{}: kernel {name}", self.ordinal()), unsafe {
            result::module::get_function(m.0, cname)
        })?;
        let f = Function(f);
        map.insert(name.to_string(), f);
        Ok(f)
    }

    /// Launches kernel `name` on the device's stream with a 1-D grid.
    ///
    /// # Safety
    /// `args` must point at values whose types and order match the kernel's parameters, and
    /// every device pointer among them must be valid for what the kernel accesses.
    pub(crate) unsafe fn launch(
        &self,
        name: &str,
        grid: u32,
        block: u32,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        let f = self.function(name)?;
        self.bind()?;
        // SAFETY: forwarded from the caller.
        check(
            &format!(
                "gpu:{}: launch {name} <<<{grid}, {block}>>>",
                self.ordinal()
            ),
            unsafe {
                result::launch_kernel(
                    f.0,
                    (grid.max(1), 1, 1),
                    (block, 1, 1),
                    0,
                    self.stream,
                    args,
                )
            },
        )
    }

    /// Blocks for a grid-stride loop over `n` items: enough to fill the device (8 blocks of
    /// 256 threads per SM), fewer for short loops, at most `cap`.
    pub(crate) fn grid_for(&self, n: usize, threads: u32, cap: u32) -> u32 {
        let want = n.div_ceil(threads as usize).max(1);
        let fill = self.info.multiprocessors as usize * 8;
        want.min(fill).min(cap as usize) as u32
    }

    /// Runs `partial` (which launches a partial pass writing at most MX_MAX_PARTIALS rows of
    /// `width` doubles into the given scratch pointer and returns the row count), then the
    /// finish kernel into a slot, and queues the slot's copy to pinned host memory.
    pub(crate) fn reduce(
        self: &Arc<Self>,
        finish: Finish,
        partial: impl FnOnce(sys::CUdeviceptr) -> Result<u32>,
    ) -> Result<PendingSlot> {
        let slot = self.take_slot()?;
        let mut pending = PendingSlot {
            device: self.clone(),
            slot: Some(slot),
        };
        let scratch = self
            .partials
            .lock()
            .map_err(|_| Error::Device("reduction scratch poisoned".into()))?;
        let nparts = partial(scratch.ptr)?;
        let slot = pending.slot.as_ref().map(|s| s.result).unwrap_or(0);
        let mut partials = scratch.ptr;
        let mut out = slot;
        let mut n = nparts;
        match finish {
            Finish::Sum(width) => {
                let mut w = width;
                // SAFETY: partials holds nparts rows of `width` doubles written by `partial`;
                // the slot holds SLOT_WIDTH >= width doubles.
                unsafe {
                    self.launch(
                        "finish_sum",
                        1,
                        matexp_cuda_sys::MX_REDUCE_THREADS,
                        &mut [arg(&mut n), arg(&mut w), arg(&mut partials), arg(&mut out)],
                    )?
                };
            }
            Finish::Max => {
                // SAFETY: as above with width 1.
                unsafe {
                    self.launch(
                        "finish_max",
                        1,
                        matexp_cuda_sys::MX_REDUCE_THREADS,
                        &mut [arg(&mut n), arg(&mut partials), arg(&mut out)],
                    )?
                };
            }
        }
        drop(scratch);
        pending.queue_copy()?;
        Ok(pending)
    }

    fn take_slot(&self) -> Result<Slot> {
        if let Some(s) = self
            .slots
            .lock()
            .map_err(|_| Error::Device("slot pool poisoned".into()))?
            .pop()
        {
            return Ok(s);
        }
        self.bind()?;
        let bytes = SLOT_WIDTH * 8;
        // SAFETY: plain allocations in the current context; freed never (pooled).
        let result = check("cuMemAlloc (reduction slot)", unsafe {
            result::malloc_sync(bytes)
        })?;
        let host = check("cuMemHostAlloc (reduction slot)", unsafe {
            result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
        })? as *mut f64;
        let mut event = std::ptr::null_mut();
        // SAFETY: writes one event handle.
        check_raw("cuEventCreate", unsafe {
            sys::cuEventCreate(
                &mut event,
                sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
            )
        })?;
        Ok(Slot {
            result,
            host,
            event,
        })
    }

    fn return_slot(&self, slot: Slot) {
        if let Ok(mut v) = self.slots.lock() {
            v.push(slot);
        }
    }
}

/// How the finish kernel combines partial rows.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Finish {
    /// Column sums of `width` doubles per row.
    Sum(u32),
    /// NaN-propagating maximum of one double per row.
    Max,
}

/// A kernel parameter pointer (cuLaunchKernel copies the pointed-to values at launch).
pub(crate) fn arg<T>(v: &mut T) -> *mut c_void {
    v as *mut T as *mut c_void
}

/// A reduction result on its way to the host.
#[derive(Debug)]
pub(crate) struct PendingSlot {
    device: Arc<Device>,
    slot: Option<Slot>,
}

impl PendingSlot {
    fn queue_copy(&mut self) -> Result<()> {
        let Some(slot) = self.slot.as_ref() else {
            return Ok(());
        };
        self.device.bind()?;
        // SAFETY: the pinned host buffer and the device slot hold SLOT_WIDTH doubles.
        check_raw("cuMemcpyDtoHAsync (reduction)", unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                slot.host as *mut c_void,
                slot.result,
                SLOT_WIDTH * 8,
                self.device.stream,
            )
        })?;
        // SAFETY: valid event and stream.
        check_raw("cuEventRecord (reduction)", unsafe {
            sys::cuEventRecord(slot.event, self.device.stream)
        })
    }

    /// Whether the result has reached the host (never blocks).
    pub(crate) fn is_ready(&self) -> bool {
        self.slot.as_ref().is_none_or(|s| {
            // SAFETY: valid event.
            let r = unsafe { sys::cuEventQuery(s.event) };
            r == sys::CUresult::CUDA_SUCCESS
        })
    }

    /// Waits for the copy and returns the slot's doubles.
    pub(crate) fn wait(&self) -> Result<[f64; SLOT_WIDTH]> {
        let slot = self
            .slot
            .as_ref()
            .ok_or_else(|| Error::Device("reduction slot already consumed".into()))?;
        self.device.bind()?;
        // SAFETY: valid event; after it completes the pinned buffer holds the result.
        check_raw(
            &format!("gpu:{}: waiting for a reduction", self.device.ordinal()),
            unsafe { sys::cuEventSynchronize(slot.event) },
        )?;
        let mut out = [0.0; SLOT_WIDTH];
        // SAFETY: the pinned buffer holds SLOT_WIDTH doubles, written by the completed copy.
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(slot.host, SLOT_WIDTH) });
        Ok(out)
    }
}

impl Drop for PendingSlot {
    fn drop(&mut self) {
        if let Some(s) = self.slot.take() {
            // Reuse is stream-ordered after this reduction, so an unread slot is safe to
            // hand out again.
            self.device.return_slot(s);
        }
    }
}
