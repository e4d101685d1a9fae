//! Device and pinned host buffers.
//!
//! Copies are queued on the owning device's stream, so they are ordered with its kernels;
//! host-visible copies (uploads from and downloads to ordinary memory) wait for the stream
//! before returning, so the host slice may be reused or read at once.

use crate::device::Device;
use crate::driver::{check, check_raw};
use cudarc::driver::{result, sys};
use matexp_core::{Error, Result, check_dim};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
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
        // SAFETY: plain allocation in the device's (current) context; at least one byte so
        // that empty buffers have a valid, distinct address.
        let ptr = check(
            &format!("gpu:{}: cuMemAlloc of {bytes} bytes", device.ordinal()),
            unsafe { result::malloc_sync(bytes.max(1)) },
        )?;
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
            sys::cuMemsetD8Async(b.ptr, 0, b.bytes(), device.stream())
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

    /// Raw device address of element `i` (one past the end allowed).
    pub(crate) fn ptr_at(&self, i: usize) -> sys::CUdeviceptr {
        debug_assert!(i <= self.len);
        self.ptr + (i * std::mem::size_of::<T>()) as u64
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
                self.device.stream(),
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
                self.device.stream(),
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
                    self.device.stream(),
                )
            })
        } else {
            // SAFETY: both ranges are inside their allocations; contexts are retained.
            check(
                &format!(
                    "cuMemcpyPeerAsync gpu:{} -> gpu:{}",
                    src.device.ordinal(),
                    self.device.ordinal()
                ),
                unsafe {
                    result::memcpy_peer_async(
                        self.device.context(),
                        self.ptr_at(offset),
                        src.device.context(),
                        src.ptr_at(offset),
                        bytes,
                        self.device.stream(),
                    )
                },
            )
        }
    }
}

impl<T: DeviceElement> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // Kernels queued on the stream may still use the memory: wait for them first.
        // Errors cannot be reported from drop; a failed free leaks the allocation.
        if self.device.synchronize().is_ok() {
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
        crate::driver::init()?;
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
