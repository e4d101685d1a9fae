//! CUDA devices: discovery, the primary context and the work stream.
//!
//! One [`Device`] exists per ordinal and process (a registry hands out shared handles), so
//! buffers made through different backends on the same GPU are interchangeable. Every
//! operation of this crate on a device is queued on that device's single non-blocking
//! stream, in program order; the host waits only where a result must reach it (reductions,
//! downloads, [`Device::synchronize`]).

use super::driver::{check, check_raw, device_count, driver_error, guarded, init};
use cudarc::driver::{CudaContext, CudaStream, result, sys};
use matexp_core::{Error, Result};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// The most devices one process can open: caches of loaded modules and kernel handles are
/// fixed arrays indexed by ordinal, so that a launch looks its kernel up without a lock.
pub const MAX_DEVICES: usize = 32;

/// What a device is, read once when it is opened.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// CUDA ordinal.
    pub ordinal: usize,
    /// The name the driver reports (`cuDeviceGetName`).
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

/// One CUDA device with its primary context and work stream.
///
/// The context and stream are cudarc's ([`Device::context`], [`Device::stream`]), so a crate
/// can hand them to cudarc's cuBLAS, cuSPARSE or its own launch builder; work queued there is
/// ordered with this crate's kernels because it is the same stream.
pub struct Device {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Whether buffers are allocated and freed in stream order (`cuMemAllocAsync` /
    /// `cuMemFreeAsync` from the device's default pool), so that dropping one does not wait.
    stream_ordered_alloc: bool,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device").field("info", &self.info).finish()
    }
}

impl Device {
    /// The device with CUDA ordinal `ordinal`, opened on first use and shared afterwards.
    ///
    /// # Errors
    /// [`Error::Device`] when there is no driver or no device (never a panic), and
    /// [`Error::InvalidArgument`](matexp_core::Error) when `ordinal` is not below the device
    /// count or [`MAX_DEVICES`].
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
        if ordinal >= MAX_DEVICES {
            return Err(Error::invalid(
                "ordinal",
                ordinal,
                format!("matexp-gpu opens at most {MAX_DEVICES} devices per process"),
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
        // Retains the primary context (shared with every other user of the device in this
        // process) and binds it to the calling thread.
        let ctx = check(
            &what("opening the primary context"),
            CudaContext::new(ordinal),
        )?;
        let cu_device = ctx.cu_device();
        let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
            check(&what("cuDeviceGetAttribute"), ctx.attribute(a))
        };
        use sys::CUdevice_attribute::*;
        let name = check(&what("cuDeviceGetName"), ctx.name())?;
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
            total_memory: check(&what("cuDeviceTotalMem"), ctx.total_mem())?,
            l2_cache: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.max(0) as usize,
            pci_bus_id,
        };
        let stream = check(&what("cuStreamCreate"), ctx.new_stream())?;
        let stream_ordered_alloc = ctx.has_async_alloc() && keep_pool_memory(cu_device).is_ok();
        Ok(Device {
            info,
            ctx,
            stream,
            stream_ordered_alloc,
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
        check("cuCtxSetCurrent", self.ctx.bind_to_thread())
    }

    /// The work stream, as cudarc's [`CudaStream`]: every kernel, copy and reduction of this
    /// crate on the device is queued there in program order. Hand it to cudarc's cuBLAS
    /// (`CudaBlas::new(device.stream().clone())`) to order vendor calls with our kernels.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The raw work stream handle (for FFI; do not destroy it).
    pub fn cu_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }

    /// The primary context, as cudarc's [`CudaContext`].
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The raw primary context handle.
    pub fn cu_context(&self) -> sys::CUcontext {
        self.ctx.cu_ctx()
    }

    /// The raw device handle.
    pub fn cu_device(&self) -> sys::CUdevice {
        self.ctx.cu_device()
    }

    /// Whether device buffers are allocated and freed in stream order (memory pools are
    /// supported): then dropping a buffer never blocks the host.
    pub fn has_stream_ordered_alloc(&self) -> bool {
        self.stream_ordered_alloc
    }

    /// Blocks until all queued work on the device's stream is done, reporting any
    /// asynchronous kernel fault.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        check(
            &format!("gpu:{}: cuStreamSynchronize", self.ordinal()),
            self.stream.synchronize(),
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
            sys::cuDeviceCanAccessPeer(&mut can, self.cu_device(), other.cu_device())
        })?;
        Ok(can != 0)
    }

    /// Enables direct access from this device to `other`'s memory when the hardware allows;
    /// returns whether it is enabled. Copies between the two work either way (staged
    /// through the host when not). `other`'s memory pool is opened to this device too, so
    /// that stream-ordered allocations are as reachable as plain ones.
    pub fn enable_peer_access(&self, other: &Device) -> Result<bool> {
        if self.ordinal() == other.ordinal() || !self.can_access_peer(other)? {
            return Ok(false);
        }
        self.bind()?;
        // SAFETY: both contexts are retained for the life of the process.
        let r = unsafe { sys::cuCtxEnablePeerAccess(other.cu_context(), 0) };
        match r {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
            }
            e => {
                return Err(driver_error(
                    &format!(
                        "gpu:{}: cuCtxEnablePeerAccess(gpu:{})",
                        self.ordinal(),
                        other.ordinal()
                    ),
                    cudarc::driver::DriverError(e),
                ));
            }
        }
        if other.stream_ordered_alloc {
            grant_pool_access(other.cu_device(), self.cu_device()).map_err(|e| {
                driver_error(
                    &format!(
                        "gpu:{}: cuMemPoolSetAccess(pool of gpu:{})",
                        self.ordinal(),
                        other.ordinal()
                    ),
                    e,
                )
            })?;
        }
        Ok(true)
    }

    /// Blocks for a grid-stride loop over `n` items: enough to fill the device (8 blocks of
    /// `threads` per SM), fewer for short loops, at most `cap`.
    pub fn grid_for(&self, n: usize, threads: u32, cap: u32) -> u32 {
        let want = n.div_ceil(threads.max(1) as usize).max(1);
        let fill = self.info.multiprocessors as usize * 8;
        want.min(fill).min(cap as usize) as u32
    }
}

/// Keeps freed memory in the device's default pool instead of returning it to the driver
/// at every synchronization (the pool's default), so that temporaries allocated in a loop
/// are served from the pool.
fn keep_pool_memory(dev: sys::CUdevice) -> std::result::Result<(), cudarc::driver::DriverError> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: writes one pool handle of a valid device.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, dev) }.result()?;
    let mut threshold: u64 = u64::MAX;
    // SAFETY: the attribute takes a u64 value.
    unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut threshold as *mut u64 as *mut std::ffi::c_void,
        )
    }
    .result()
}

/// Returns the unused memory of `dev`'s default pool to the driver.
///
/// The pool keeps freed memory (see [`keep_pool_memory`]), and a refused request can leave it
/// holding what it reserved on the way: after an out-of-memory error the device would look
/// full to every other allocator (cuBLAS workspaces, other processes).
pub(crate) fn trim_pool(
    dev: sys::CUdevice,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: writes one pool handle of a valid device.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, dev) }.result()?;
    // SAFETY: releases only memory no allocation uses.
    unsafe { sys::cuMemPoolTrimTo(pool, 0) }.result()
}

/// Lets device `reader` read and write allocations of `owner`'s default pool.
fn grant_pool_access(
    owner: sys::CUdevice,
    reader: sys::CUdevice,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: writes one pool handle of a valid device.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, owner) }.result()?;
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: reader,
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: one descriptor, as counted.
    unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) }.result()
}
