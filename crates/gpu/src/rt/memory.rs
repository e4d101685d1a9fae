//! Device and pinned host buffers.
//!
//! Copies are queued on the owning device's stream, so they are ordered with its kernels;
//! host-visible copies (uploads from and downloads to ordinary memory) wait for the stream
//! before returning, so the host slice may be reused or read at once.
//!
//! Allocation and release are stream-ordered where the device has memory pools (every GPU
//! since Pascal with a CUDA 11.2+ driver): a dropped buffer returns to the pool once the work
//! queued before the drop is done, without blocking the host. Elsewhere a drop waits for the
//! device's stream, as `cuMemFree` requires.

use super::device::Device;
use super::driver::{check, check_raw};
use cudarc::driver::{result, sys};
use matexp_core::{Error, Result, check_dim};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

/// Plain-old-data element types of device buffers: the four scalars, indices, bytes.
///
/// # Safety
/// Implementors must be `Copy` types without padding or invalid bit patterns that the kernels
/// read with the layout they have on the host.
pub unsafe trait DeviceElement: Copy + Send + Sync + 'static {}
// SAFETY: plain numbers; complex numbers are `#[repr(C)] { re, im }`.
unsafe impl DeviceElement for f32 {}
unsafe impl DeviceElement for f64 {}
unsafe impl DeviceElement for u8 {}
unsafe impl DeviceElement for u32 {}
unsafe impl DeviceElement for u64 {}
unsafe impl DeviceElement for matexp_core::c32 {}
unsafe impl DeviceElement for matexp_core::c64 {}

/// `len` elements of `T` in one device's memory.
pub struct DeviceBuffer<T: DeviceElement> {
    ptr: sys::CUdeviceptr,
    len: usize,
    device: Arc<Device>,
    _t: PhantomData<T>,
}

impl<T: DeviceElement> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on gpu:{}",
            std::any::type_name::<T>(),
            self.len,
            self.device.ordinal()
        )
    }
}

impl<T: DeviceElement> DeviceBuffer<T> {
    /// An allocation of `len` elements whose contents are unspecified (device memory is never
    /// read as Rust values, so this is safe; kernels must write before they read).
    pub fn uninit(device: &Arc<Device>, len: usize) -> Result<Self> {
        device.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::invalid("len", len, "byte size overflows"))?;
        // At least one byte, so that empty buffers have a valid, distinct address.
        let ptr = if device.has_stream_ordered_alloc() {
            // SAFETY: allocation from the default pool, ordered on the device's stream, which
            // every later use of the buffer is queued on (or waits for).
            let first = unsafe { result::malloc_async(device.cu_stream(), bytes.max(1)) };
            let attempt = if first.is_err() {
                // The pool may hold freed memory the request needs, or what a refused request
                // reserved: give it back to the driver, then ask once more.
                let _ = device.synchronize();
                let _ = super::device::trim_pool(device.cu_device());
                // SAFETY: as above.
                let again = unsafe { result::malloc_async(device.cu_stream(), bytes.max(1)) };
                if again.is_err() {
                    let _ = super::device::trim_pool(device.cu_device());
                }
                again
            } else {
                first
            };
            check(
                &format!("gpu:{}: cuMemAllocAsync of {bytes} bytes", device.ordinal()),
                attempt,
            )?
        } else {
            // SAFETY: plain allocation in the device's (current) context.
            check(
                &format!("gpu:{}: cuMemAlloc of {bytes} bytes", device.ordinal()),
                unsafe { result::malloc_sync(bytes.max(1)) },
            )?
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device: device.clone(),
            _t: PhantomData,
        })
    }

    /// `len` zero bytes' worth of elements (0.0 for the scalar types).
    pub fn zeros(device: &Arc<Device>, len: usize) -> Result<Self> {
        let b = Self::uninit(device, len)?;
        // SAFETY: the range is inside the allocation.
        check_raw("cuMemsetD8Async", unsafe {
            sys::cuMemsetD8Async(b.ptr, 0, b.bytes(), device.cu_stream())
        })?;
        Ok(b)
    }

    /// A copy of `host` on `device`.
    pub fn from_host(device: &Arc<Device>, host: &[T]) -> Result<Self> {
        let mut b = Self::uninit(device, host.len())?;
        b.upload(host)?;
        Ok(b)
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The owning device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Raw device address of the first element.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    /// Where the buffer's device address is stored (a kernel parameter points here).
    pub(crate) fn address(&self) -> &sys::CUdeviceptr {
        &self.ptr
    }

    /// Raw device address of element `i` (one past the end allowed).
    pub(crate) fn ptr_at(&self, i: usize) -> sys::CUdeviceptr {
        debug_assert!(i <= self.len);
        self.ptr + (i * std::mem::size_of::<T>()) as u64
    }

    /// The whole buffer as a [`DeviceSlice`].
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            device: &self.device,
            _t: PhantomData,
        }
    }

    /// Elements `range` as a kernel argument (its device address and length).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`](matexp_core::Error) when the range does not lie inside the
    /// buffer.
    pub fn slice(&self, range: Range<usize>) -> Result<DeviceSlice<'_, T>> {
        if range.start > range.end || range.end > self.len {
            return Err(Error::dim(
                "slice: end",
                self.len,
                range.end.max(range.start),
            ));
        }
        Ok(DeviceSlice {
            ptr: self.ptr_at(range.start),
            len: range.end - range.start,
            device: &self.device,
            _t: PhantomData,
        })
    }

    /// Element `i` as a kernel argument: a device scalar (a reduction's result, a step size)
    /// that a kernel reads without a round trip through the host.
    pub fn at(&self, i: usize) -> Result<DeviceSlice<'_, T>> {
        self.slice(i..i.saturating_add(1))
    }

    /// Overwrites the buffer with `host` (lengths must agree); returns once `host` has been
    /// consumed.
    pub fn upload(&mut self, host: &[T]) -> Result<()> {
        check_dim("upload: host length", self.len, host.len())?;
        self.upload_range(0, host)
    }

    /// Overwrites elements `offset..offset + host.len()`.
    pub(crate) fn upload_range(&mut self, offset: usize, host: &[T]) -> Result<()> {
        if offset + host.len() > self.len {
            return Err(Error::dim(
                "upload_range: end",
                self.len,
                offset + host.len(),
            ));
        }
        if host.is_empty() {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the destination range is inside the allocation, the source slice is valid
        // for its byte length, and the stream is synchronized before the slice is released.
        check_raw("cuMemcpyHtoDAsync", unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                self.ptr_at(offset),
                host.as_ptr() as *const c_void,
                std::mem::size_of_val(host),
                self.device.cu_stream(),
            )
        })?;
        self.device.synchronize()
    }

    /// Copies the buffer to `host` (lengths must agree), after all queued work.
    pub fn download(&self, host: &mut [T]) -> Result<()> {
        check_dim("download: host length", self.len, host.len())?;
        self.download_range(0, host)
    }

    /// Copies elements `offset..offset + host.len()` to `host`.
    pub(crate) fn download_range(&self, offset: usize, host: &mut [T]) -> Result<()> {
        if offset + host.len() > self.len {
            return Err(Error::dim(
                "download_range: end",
                self.len,
                offset + host.len(),
            ));
        }
        if host.is_empty() {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: ranges valid as above; the host slice is borrowed until the stream is
        // synchronized.
        check_raw("cuMemcpyDtoHAsync", unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                host.as_mut_ptr() as *mut c_void,
                self.ptr_at(offset),
                std::mem::size_of_val(host),
                self.device.cu_stream(),
            )
        })?;
        self.device.synchronize()
    }

    /// A new host vector with the buffer's contents.
    pub fn to_vec(&self) -> Result<Vec<T>>
    where
        T: Default,
    {
        let mut v = vec![T::default(); self.len];
        self.download(&mut v)?;
        Ok(v)
    }

    /// Queues self ← src (same device, same length).
    pub fn copy_from(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        check_dim("copy_from: source length", self.len, src.len)?;
        self.copy_range_from(src, 0, self.len)
    }

    /// Queues self[offset..offset+len] ← src[offset..offset+len] on this device's stream.
    /// When `src` lives on another device this is a peer copy (direct over NVLink / PCIe
    /// when peer access is enabled, staged otherwise).
    pub fn copy_range_from(
        &mut self,
        src: &DeviceBuffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<()> {
        if offset + len > self.len.min(src.len) {
            return Err(Error::dim(
                "copy_range_from: end",
                self.len.min(src.len),
                offset + len,
            ));
        }
        if len == 0 {
            return Ok(());
        }
        let bytes = len * std::mem::size_of::<T>();
        self.device.bind()?;
        if src.device.ordinal() == self.device.ordinal() {
            // SAFETY: both ranges are inside their allocations.
            check_raw("cuMemcpyDtoDAsync", unsafe {
                sys::cuMemcpyDtoDAsync_v2(
                    self.ptr_at(offset),
                    src.ptr_at(offset),
                    bytes,
                    self.device.cu_stream(),
                )
            })
        } else {
            let what = format!(
                "cuMemcpyPeerAsync gpu:{} -> gpu:{}",
                src.device.ordinal(),
                self.device.ordinal()
            );
            // SAFETY: both ranges are inside their allocations; contexts are retained.
            check(&what, unsafe {
                result::memcpy_peer_async(
                    self.device.cu_context(),
                    self.ptr_at(offset),
                    src.device.cu_context(),
                    src.ptr_at(offset),
                    bytes,
                    self.device.cu_stream(),
                )
            })?;
            // The copy runs on this device's stream, but `src` is freed in its own device's
            // stream order: make that stream wait for the copy, so a drop of `src` right
            // after this call cannot release memory the copy still reads.
            order_after(&self.device, &src.device).map_err(|e| {
                crate::rt::driver::driver_error(&format!("{what}: ordering the source's stream"), e)
            })
        }
    }
}

/// Makes `later`'s stream wait (on the device) for the work queued so far on `earlier`'s.
fn order_after(
    earlier: &Device,
    later: &Device,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    earlier
        .bind()
        .map_err(|_| cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_INVALID_CONTEXT))?;
    let event = earlier
        .context()
        .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
    event.record(earlier.stream())?;
    later.stream().wait(&event)
}

/// A borrowed range of a [`DeviceBuffer`]: a kernel argument (its device address) with its
/// length. Made by [`DeviceBuffer::slice`] and [`DeviceBuffer::at`].
#[derive(Debug, Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceElement> {
    ptr: sys::CUdeviceptr,
    len: usize,
    device: &'a Arc<Device>,
    _t: PhantomData<&'a T>,
}

impl<T: DeviceElement> DeviceSlice<'_, T> {
    /// Element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Raw device address of the first element.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    /// Where the range's device address is stored (a kernel parameter points here).
    pub(crate) fn address(&self) -> &sys::CUdeviceptr {
        &self.ptr
    }

    /// The owning device.
    pub fn device(&self) -> &Arc<Device> {
        self.device
    }
}

impl<T: DeviceElement> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; a failed free leaks the allocation.
        if self.device.bind().is_err() {
            return;
        }
        if self.device.has_stream_ordered_alloc() {
            // SAFETY: allocated from the pool on this stream and freed once; the memory is
            // released after the work queued so far (every user of the buffer) is done.
            let _ = unsafe { result::free_async(self.ptr, self.device.cu_stream()) };
        } else if self.device.synchronize().is_ok() {
            // Kernels queued on the stream may still use the memory: wait for them first.
            // SAFETY: allocated by cuMemAlloc in this context and freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

/// Page-locked host memory: the target of asynchronous downloads, and the fastest source of
/// uploads. Usable with every device (portable allocation).
pub struct PinnedBuffer<T: DeviceElement> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the buffer is uniquely owned host memory.
unsafe impl<T: DeviceElement> Send for PinnedBuffer<T> {}
unsafe impl<T: DeviceElement> Sync for PinnedBuffer<T> {}

impl<T: DeviceElement> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PinnedBuffer<{}>[{}]",
            std::any::type_name::<T>(),
            self.len
        )
    }
}

impl<T: DeviceElement + Default> PinnedBuffer<T> {
    /// `len` default-initialized elements of pinned memory. Needs an initialized driver
    /// (open a [`Device`] first).
    pub fn new(len: usize) -> Result<Self> {
        super::driver::init()?;
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        // SAFETY: plain allocation; initialized below before any read.
        let ptr = check("cuMemHostAlloc", unsafe {
            result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
        })? as *mut T;
        for i in 0..len {
            // SAFETY: inside the allocation, properly aligned (page-aligned base).
            unsafe { ptr.add(i).write(T::default()) };
        }
        Ok(PinnedBuffer { ptr, len })
    }
}

impl<T: DeviceElement> PinnedBuffer<T> {
    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: initialized at construction; no device write is in flight while a shared
        // borrow exists (downloads take `&mut self`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above, with unique access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Copies `src` into this buffer and waits for the copy.
    pub fn download_from(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        check_dim("PinnedBuffer::download_from: length", self.len, src.len())?;
        src.download(self.as_mut_slice())
    }
}

impl<T: DeviceElement> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc and freed once.
        let _ = unsafe { result::free_host(self.ptr as *mut c_void) };
    }
}
