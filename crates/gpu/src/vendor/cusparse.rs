//! cuSPARSE's `cusparseSpMV` as the reference SpMV (loaded at run time like the driver).

use crate::ops::structure::{CsrStructure, Indices};
use crate::rt::DeviceBuffer;
use crate::rt::driver::guarded;
use crate::rt::scalar;
use crate::rt::{Device, MAX_DEVICES};
use cudarc::cusparse::sys;
use matexp_core::{Error, Result, Scalar};
use std::ffi::c_void;
use std::sync::OnceLock;

/// A cuSPARSE handle bound to a device's stream.
#[derive(Debug)]
pub(crate) struct Handle(sys::cusparseHandle_t);
// SAFETY: the handle is only used with its device's context bound, under the callers' locks.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn status(what: &str, s: sys::cusparseStatus_t) -> Result<()> {
    if s == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Device(format!("{what}: {s:?}")))
    }
}

/// One handle per device, bound to its work stream, created on first use and kept for the
/// process (the library's own advice: handles are costly to create).
fn handle(device: &Device) -> Result<sys::cusparseHandle_t> {
    static HANDLES: [OnceLock<std::result::Result<Handle, String>>; MAX_DEVICES] =
        [const { OnceLock::new() }; MAX_DEVICES];
    HANDLES[device.ordinal()]
        .get_or_init(|| {
            guarded("cuSPARSE", || {
                // SAFETY: only tries to open the library.
                if !unsafe { sys::is_culib_present() } {
                    return Err(Error::Device(
                        "libcusparse could not be loaded (install the CUDA libraries)".into(),
                    ));
                }
                device.bind()?;
                let mut h = std::ptr::null_mut();
                // SAFETY: writes one handle in the current context.
                status("cusparseCreate", unsafe { sys::cusparseCreate(&mut h) })?;
                // SAFETY: the stream belongs to the current context and outlives the handle.
                status("cusparseSetStream", unsafe {
                    sys::cusparseSetStream(h, device.cu_stream() as sys::cudaStream_t)
                })?;
                Ok(Handle(h))
            })
            .map_err(|e| e.to_string())
        })
        .as_ref()
        .map(|h| h.0)
        .map_err(|e| Error::Device(e.clone()))
}

/// The cuSPARSE state of one [`crate::GpuCsr`]: the matrix descriptor, descriptors of x and
/// y (their data pointers are updated with `cusparseDnVecSetValues` when the vectors change)
/// and the SpMV workspace, sized once.
///
/// Everything lives as long as the matrix: cuSPARSE 12.x requires the same external buffer
/// for every `cusparseSpMV` call on a matrix descriptor (CUDA 12.6 release notes), and
/// reusing the descriptors keeps the per-call host work to the SpMV itself, as a user of the
/// library would set it up.
#[derive(Debug)]
pub(crate) struct SpMatrix {
    descr: sys::cusparseSpMatDescr_t,
    x: DnVec,
    y: DnVec,
    workspace: DeviceBuffer<u8>,
}
// SAFETY: used only under the owning matrix's mutex.
unsafe impl Send for SpMatrix {}

impl Drop for SpMatrix {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateCsr and destroyed once (the vector descriptors and
        // the workspace go after it, in field order).
        let _ = unsafe { sys::cusparseDestroySpMat(self.descr) };
    }
}

#[derive(Debug)]
struct DnVec {
    descr: sys::cusparseDnVecDescr_t,
    ptr: u64,
}

impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateDnVec and destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.descr) };
    }
}

impl DnVec {
    fn new<S: Scalar>(n: usize, ptr: u64) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        // SAFETY: ptr addresses n elements of S on the device.
        status("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(
                &mut d,
                n as i64,
                ptr as *mut c_void,
                scalar::cuda_data_type::<S>(),
            )
        })?;
        Ok(DnVec { descr: d, ptr })
    }

    /// Points the descriptor at `ptr` (same length and type).
    fn point_at(&mut self, ptr: u64) -> Result<()> {
        if ptr != self.ptr {
            // SAFETY: valid descriptor; ptr addresses a vector of the descriptor's size.
            status("cusparseDnVecSetValues", unsafe {
                sys::cusparseDnVecSetValues(self.descr, ptr as *mut c_void)
            })?;
            self.ptr = ptr;
        }
        Ok(())
    }
}

/// A host scalar handed to cuSPARSE by pointer, aligned as `cuDoubleComplex` is (16 bytes):
/// cuSPARSE reads complex scalars with aligned vector loads, and `Complex<f64>` on the Rust
/// stack is only 8-byte aligned (an unaligned `alpha` crashed `cusparseSpMV` for c64).
#[repr(C, align(16))]
struct HostScalar<S>(S);

impl<S> HostScalar<S> {
    fn ptr(&self) -> *const c_void {
        &self.0 as *const S as *const c_void
    }
}

const OP: sys::cusparseOperation_t = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
const ALG: sys::cusparseSpMVAlg_t = sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;

fn create<S: Scalar>(
    h: sys::cusparseHandle_t,
    st: &CsrStructure,
    values: u64,
    alpha: &HostScalar<S>,
    x: u64,
    beta: &HostScalar<S>,
    y: u64,
) -> Result<SpMatrix> {
    let (rp, ci) = st.indices.ptrs();
    let itype = match st.indices {
        Indices::U32 { .. } => {
            // cuSPARSE's 32-bit indices are signed.
            if st.nnz > i32::MAX as usize || st.ncols > i32::MAX as usize {
                return Err(Error::Unsupported(
                    "cuSPARSE 32-bit indices are signed: nnz and ncols must stay below 2^31".into(),
                ));
            }
            sys::cusparseIndexType_t::CUSPARSE_INDEX_32I
        }
        Indices::U64 { .. } => sys::cusparseIndexType_t::CUSPARSE_INDEX_64I,
    };
    let mut descr = std::ptr::null_mut();
    // SAFETY: the device arrays hold nrows + 1 offsets, nnz indices and nnz values.
    status("cusparseCreateCsr", unsafe {
        sys::cusparseCreateCsr(
            &mut descr,
            st.nrows as i64,
            st.ncols as i64,
            st.nnz as i64,
            rp as *mut c_void,
            ci as *mut c_void,
            values as *mut c_void,
            itype,
            itype,
            sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            // Real values with complex vectors: cuSPARSE's mixed regular/complex SpMV
            // (A CUDA_R_64F, x, y and the computation CUDA_C_64F; likewise in f32).
            if st.real_values {
                scalar::cuda_data_type::<S::Real>()
            } else {
                scalar::cuda_data_type::<S>()
            },
        )
    })?;
    // From here on the descriptor is owned by a guard, so an error below destroys it.
    struct Guard(sys::cusparseSpMatDescr_t);
    impl Drop for Guard {
        fn drop(&mut self) {
            if !self.0.is_null() {
                // SAFETY: created above, destroyed once.
                let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
            }
        }
    }
    let mut guard = Guard(descr);
    let vx = DnVec::new::<S>(st.ncols, x)?;
    let vy = DnVec::new::<S>(st.nrows, y)?;
    let mut size = 0usize;
    // SAFETY: descriptors are valid; alpha and beta are host scalars of the compute type.
    status("cusparseSpMV_bufferSize", unsafe {
        sys::cusparseSpMV_bufferSize(
            h,
            OP,
            alpha.ptr(),
            descr,
            vx.descr,
            beta.ptr(),
            vy.descr,
            scalar::cuda_data_type::<S>(),
            ALG,
            &mut size,
        )
    })?;
    let workspace = DeviceBuffer::uninit(&st.device, size)?;
    guard.0 = std::ptr::null_mut();
    Ok(SpMatrix {
        descr,
        x: vx,
        y: vy,
        workspace,
    })
}

/// Queues y ← α·A·x + β·y through cuSPARSE on the matrix's device stream.
pub(crate) fn spmv<S: Scalar>(
    st: &CsrStructure,
    values: u64,
    cache: &mut Option<SpMatrix>,
    alpha: S,
    x: u64,
    beta: S,
    y: u64,
) -> Result<()> {
    let h = handle(&st.device)?;
    st.device.bind()?;
    let (alpha, beta) = (HostScalar(alpha), HostScalar(beta));
    if cache.is_none() {
        *cache = Some(create::<S>(h, st, values, &alpha, x, &beta, y)?);
    }
    let Some(mat) = cache.as_mut() else {
        return Err(Error::Device("cuSPARSE descriptor missing".into()));
    };
    mat.x.point_at(x)?;
    mat.y.point_at(y)?;
    // SAFETY: descriptors are valid and point at live vectors of the right sizes; alpha and
    // beta are host scalars of the compute type; the workspace has the size cuSPARSE asked
    // for and stays the same for every call on this matrix.
    status("cusparseSpMV", unsafe {
        sys::cusparseSpMV(
            h,
            OP,
            alpha.ptr(),
            mat.descr,
            mat.x.descr,
            beta.ptr(),
            mat.y.descr,
            scalar::cuda_data_type::<S>(),
            ALG,
            mat.workspace.device_ptr() as *mut c_void,
        )
    })
}
