//! cuSPARSE's `cusparseSpMV` as the reference SpMV (loaded at run time like the driver).

use crate::csr::{CsrStructure, Indices};
use crate::device::Device;
use crate::driver::guarded;
use crate::memory::DeviceBuffer;
use crate::scalar;
use cudarc::cusparse::sys;
use matexp_core::{Error, Result, Scalar};
use std::ffi::c_void;

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

fn handle(device: &Device) -> Result<sys::cusparseHandle_t> {
    device
        .cusparse
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
                    sys::cusparseSetStream(h, device.stream() as sys::cudaStream_t)
                })?;
                Ok(Handle(h))
            })
            .map_err(|e| e.to_string())
        })
        .as_ref()
        .map(|h| h.0)
        .map_err(|e| Error::Device(e.clone()))
}

/// A cached matrix descriptor and SpMV workspace of one [`crate::GpuCsr`].
#[derive(Debug)]
pub(crate) struct SpMatrix {
    descr: sys::cusparseSpMatDescr_t,
    workspace: Option<DeviceBuffer<u8>>,
}
// SAFETY: used only under the owning matrix's mutex.
unsafe impl Send for SpMatrix {}

impl Drop for SpMatrix {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateCsr and destroyed once.
        let _ = unsafe { sys::cusparseDestroySpMat(self.descr) };
    }
}

struct DnVec(sys::cusparseDnVecDescr_t);
impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateDnVec and destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.0) };
    }
}

fn dn_vec<S: Scalar>(n: usize, ptr: u64) -> Result<DnVec> {
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
    Ok(DnVec(d))
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
    if cache.is_none() {
        let (rp, ci) = st.indices.ptrs();
        let itype = match st.indices {
            Indices::U32 { .. } => {
                // cuSPARSE's 32-bit indices are signed.
                if st.nnz > i32::MAX as usize || st.ncols > i32::MAX as usize {
                    return Err(Error::Unsupported(
                        "cuSPARSE 32-bit indices are signed: nnz and ncols must stay below 2^31"
                            .into(),
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
                scalar::cuda_data_type::<S>(),
            )
        })?;
        *cache = Some(SpMatrix {
            descr,
            workspace: None,
        });
    }
    let Some(mat) = cache.as_mut() else {
        return Err(Error::Device("cuSPARSE descriptor missing".into()));
    };
    let vx = dn_vec::<S>(st.ncols, x)?;
    let vy = dn_vec::<S>(st.nrows, y)?;
    let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    let alg = sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
    let dtype = scalar::cuda_data_type::<S>();
    let a = &alpha as *const S as *const c_void;
    let b = &beta as *const S as *const c_void;
    let mut size = 0usize;
    // SAFETY: descriptors are valid; alpha and beta are host scalars of the compute type.
    status("cusparseSpMV_bufferSize", unsafe {
        sys::cusparseSpMV_bufferSize(h, op, a, mat.descr, vx.0, b, vy.0, dtype, alg, &mut size)
    })?;
    if mat.workspace.as_ref().is_none_or(|w| w.len() < size) {
        mat.workspace = Some(DeviceBuffer::uninit(&st.device, size)?);
    }
    let ws = mat
        .workspace
        .as_ref()
        .map_or(std::ptr::null_mut(), |w| w.device_ptr() as *mut c_void);
    // SAFETY: as above; the workspace holds at least `size` bytes and lives in the cache
    // until the matrix is dropped (which waits for the stream).
    status("cusparseSpMV", unsafe {
        sys::cusparseSpMV(h, op, a, mat.descr, vx.0, b, vy.0, dtype, alg, ws)
    })
}
