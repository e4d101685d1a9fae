//! The cuBLAS dense backend (feature `gpu`): one GPU, one stream, one cuBLAS handle.
//!
//! Products are `cublas?gemm_v2`, axpy and scaling `cublas?axpy_v2` / `cublas?scal_v2` on the
//! matrix as one vector, copies and zeroing stream-ordered driver copies, all on the stream
//! of `matexp-gpu`'s [`Device`]. Two operations have no BLAS form and are this crate's own
//! kernels (`kernels/matpoly.cu`, PTX committed in `ptx/`, loaded through `matexp-gpu`'s
//! kernel API): adding a multiple of the identity's column block (one thread per diagonal
//! entry), the one-pass linear combination `α₀I + Σ c_k M_k` of up to 8 matrices per launch
//! (the Paterson–Stockmeyer blocks: each power read once, the result written once, the
//! identity on the diagonal in the same pass) and the column absolute sums of the 1-norm (one block per column,
//! double-precision sums; the host takes the maximum of the `n` sums).
//!
//! Accuracy: the handle runs in `CUBLAS_DEFAULT_MATH`, which keeps TF32 off for `f32`/`c32`
//! (unless the process sets `NVIDIA_TF32_OVERRIDE=1`) and lets `f64` use the FP64 tensor
//! cores of Ampere and later, which round like IEEE double: results agree with the CPU
//! backend to the rounding of the respective precision (tested in `tests/gpu_matpoly.rs`).
//!
//! cudarc loads the driver and cuBLAS at run time, so this builds without CUDA; on a machine
//! without a GPU [`CublasDense::new`] returns [`Error::Device`].

use crate::backend::DenseBackend;
use matexp_core::{Error, Result, Scalar, c32, c64, check_dim};
use matexp_dense::Matrix;
use matexp_gpu::cudarc::cublas::CudaBlas;
use matexp_gpu::cudarc::cublas::sys as cb;
use matexp_gpu::cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits,
};
use matexp_gpu::rt::{Device, Kernel, KernelParam, LaunchConfig, PtxModule};
use std::ffi::c_int;
use std::sync::Arc;

fn dev<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> Error + '_ {
    move |e| Error::Device(format!("{what}: {e:?}"))
}

fn to_int(what: &'static str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::invalid(what, v, "exceeds the cuBLAS 32-bit range"))
}

/// A scalar cuBLAS computes with: the real element type stored on the device and the BLAS
/// calls of its precision. Implemented for `f32`, `f64`, `c32`, `c64`.
pub trait GpuScalar: Scalar {
    /// Device element: `f32` or `f64` (complex numbers are stored as two of them).
    type Elem: DeviceRepr + ValidAsZeroBits + KernelParam + Copy + Default + Send + Sync + 'static;
    /// Reals per scalar: 1 or 2.
    const WIDTH: usize;
    /// Real and imaginary parts as device elements.
    fn parts(self) -> (Self::Elem, Self::Elem);
    /// `C ← αAB + βC`.
    ///
    /// # Safety
    /// Pointers must address device arrays of the stated column-major shapes on the
    /// handle's context.
    unsafe fn gemm(
        h: cb::cublasHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: Self,
        a: u64,
        b: u64,
        beta: Self,
        c: u64,
    ) -> cb::cublasStatus_t;
    /// `y ← αx + y` on `len` scalars.
    ///
    /// # Safety
    /// As [`GpuScalar::gemm`].
    unsafe fn axpy(
        h: cb::cublasHandle_t,
        len: c_int,
        alpha: Self,
        x: u64,
        y: u64,
    ) -> cb::cublasStatus_t;
    /// `x ← αx` on `len` scalars.
    ///
    /// # Safety
    /// As [`GpuScalar::gemm`].
    unsafe fn scal(h: cb::cublasHandle_t, len: c_int, alpha: Self, x: u64) -> cb::cublasStatus_t;
}

const NT: cb::cublasOperation_t = cb::cublasOperation_t::CUBLAS_OP_N;

macro_rules! real_gpu {
    ($t:ty, $gemm:ident, $axpy:ident, $scal:ident) => {
        impl GpuScalar for $t {
            type Elem = $t;
            const WIDTH: usize = 1;
            fn parts(self) -> ($t, $t) {
                (self, 0.0)
            }
            unsafe fn gemm(
                h: cb::cublasHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: Self,
                a: u64,
                b: u64,
                beta: Self,
                c: u64,
            ) -> cb::cublasStatus_t {
                // SAFETY: forwarded from the caller's contract.
                unsafe {
                    cb::$gemm(
                        h,
                        NT,
                        NT,
                        m,
                        n,
                        k,
                        &alpha,
                        a as *const $t,
                        m.max(1),
                        b as *const $t,
                        k.max(1),
                        &beta,
                        c as *mut $t,
                        m.max(1),
                    )
                }
            }
            unsafe fn axpy(
                h: cb::cublasHandle_t,
                len: c_int,
                alpha: Self,
                x: u64,
                y: u64,
            ) -> cb::cublasStatus_t {
                // SAFETY: forwarded from the caller's contract.
                unsafe { cb::$axpy(h, len, &alpha, x as *const $t, 1, y as *mut $t, 1) }
            }
            unsafe fn scal(
                h: cb::cublasHandle_t,
                len: c_int,
                alpha: Self,
                x: u64,
            ) -> cb::cublasStatus_t {
                // SAFETY: forwarded from the caller's contract.
                unsafe { cb::$scal(h, len, &alpha, x as *mut $t, 1) }
            }
        }
    };
}
real_gpu!(f32, cublasSgemm_v2, cublasSaxpy_v2, cublasSscal_v2);
real_gpu!(f64, cublasDgemm_v2, cublasDaxpy_v2, cublasDscal_v2);

/// A host scalar on a 16-byte boundary. cuBLAS reads complex `alpha`/`beta` as
/// `cuDoubleComplex` (`double2`, 16-byte aligned) with aligned vector loads, so a
/// `Complex<f64>` on an 8-byte boundary can fault in the host library.
#[repr(C, align(16))]
struct Aligned<T>(T);

macro_rules! complex_gpu {
    ($t:ty, $r:ty, $ct:ty, $gemm:ident, $axpy:ident, $scal:ident) => {
        impl GpuScalar for $t {
            type Elem = $r;
            const WIDTH: usize = 2;
            fn parts(self) -> ($r, $r) {
                (self.re, self.im)
            }
            unsafe fn gemm(
                h: cb::cublasHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: Self,
                a: u64,
                b: u64,
                beta: Self,
                c: u64,
            ) -> cb::cublasStatus_t {
                let (alpha, beta) = (Aligned(alpha), Aligned(beta));
                // SAFETY: forwarded from the caller's contract; Complex<T> is #[repr(C)]
                // {re, im}, the layout of cuBLAS's float2 / double2.
                unsafe {
                    cb::$gemm(
                        h,
                        NT,
                        NT,
                        m,
                        n,
                        k,
                        (&alpha.0 as *const $t).cast::<$ct>(),
                        a as *const $ct,
                        m.max(1),
                        b as *const $ct,
                        k.max(1),
                        (&beta.0 as *const $t).cast::<$ct>(),
                        c as *mut $ct,
                        m.max(1),
                    )
                }
            }
            unsafe fn axpy(
                h: cb::cublasHandle_t,
                len: c_int,
                alpha: Self,
                x: u64,
                y: u64,
            ) -> cb::cublasStatus_t {
                let alpha = Aligned(alpha);
                // SAFETY: as above.
                unsafe {
                    cb::$axpy(
                        h,
                        len,
                        (&alpha.0 as *const $t).cast::<$ct>(),
                        x as *const $ct,
                        1,
                        y as *mut $ct,
                        1,
                    )
                }
            }
            unsafe fn scal(
                h: cb::cublasHandle_t,
                len: c_int,
                alpha: Self,
                x: u64,
            ) -> cb::cublasStatus_t {
                let alpha = Aligned(alpha);
                // SAFETY: as above.
                unsafe {
                    cb::$scal(
                        h,
                        len,
                        (&alpha.0 as *const $t).cast::<$ct>(),
                        x as *mut $ct,
                        1,
                    )
                }
            }
        }
    };
}
complex_gpu!(
    c32,
    f32,
    cb::cuComplex,
    cublasCgemm_v2,
    cublasCaxpy_v2,
    cublasCscal_v2
);
complex_gpu!(
    c64,
    f64,
    cb::cuDoubleComplex,
    cublasZgemm_v2,
    cublasZaxpy_v2,
    cublasZscal_v2
);

/// A dense column-major matrix in GPU memory (`WIDTH` reals per entry).
#[derive(Debug)]
pub struct GpuMatrix<S: GpuScalar> {
    data: CudaSlice<S::Elem>,
    nrows: usize,
    ncols: usize,
}

impl<S: GpuScalar> GpuMatrix<S> {
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
}

static MATPOLY_PTX: PtxModule = PtxModule::new("matpoly", include_str!("../ptx/matpoly.ptx"));
/// `matpoly_add_diag_<s>(R *a, i64 nrows, i64 col0, i64 count, R re, R im)`.
static ADD_DIAG: Kernel = Kernel::new(&MATPOLY_PTX, "matpoly_add_diag");
/// `matpoly_col_abs_sum_<s>(const R *a, i64 nrows, f64 *out)`, 256 threads per block.
static COL_ABS_SUM: Kernel = Kernel::new(&MATPOLY_PTX, "matpoly_col_abs_sum");
/// `matpoly_lincomb_<s>(R *out, i64 nrows, i64 ncols, i64 col0, i32 nterms, i32 acc, R a0r,
/// R a0i, {u64 p[8]}, {R c[16]})`, 256 threads per block, rows on x, columns on y.
static LINCOMB: Kernel = Kernel::new(&MATPOLY_PTX, "matpoly_lincomb");
/// Terms one `matpoly_lincomb` launch takes (`MXP_TERMS` in the kernel).
const LINCOMB_TERMS: usize = 8;

/// One GPU as a [`DenseBackend`]: `matexp-gpu`'s device (context, stream, kernels) and a
/// cuBLAS handle on its stream.
///
/// Several backends may share one GPU (the splits of [`crate::split`] on one device): they
/// share its stream, so their work is correct but serialised.
///
/// ```no_run
/// use matexp_matpoly::{CublasDense, Evaluator};
/// use matexp_dense::Matrix;
/// let a = Matrix::<f64>::from_fn(512, 512, |i, j| ((i * 31 + j * 17) % 13) as f64 / 100.0);
/// let mut ev = Evaluator::new(CublasDense::new(0)?);
/// let (e, report) = ev.expm(&a)?;
/// println!("degree {}, {} squarings, e[0,0] = {}", report.degree, report.squarings, e[(0, 0)]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct CublasDense {
    device: Arc<Device>,
    stream: Arc<CudaStream>,
    blas: CudaBlas,
}

impl CublasDense {
    /// A backend on GPU `ordinal` (opened through `matexp-gpu`, shared with other users).
    ///
    /// # Errors
    /// [`Error::Device`] when there is no driver or GPU or cuBLAS cannot be loaded.
    pub fn new(ordinal: usize) -> Result<Self> {
        Self::on_device(Device::open(ordinal)?)
    }

    /// A backend on an open device, queueing on its stream.
    ///
    /// # Errors
    /// As [`CublasDense::new`].
    pub fn on_device(device: Arc<Device>) -> Result<Self> {
        device.bind()?;
        let stream = device.stream().clone();
        let blas = std::panic::catch_unwind(|| CudaBlas::new(stream.clone()))
            .map_err(|_| Error::Device("the cuBLAS library could not be loaded".into()))?
            .map_err(dev("creating the cuBLAS handle"))?;
        // SAFETY: the handle is valid; DEFAULT_MATH keeps TF32 off (module docs).
        unsafe { cb::cublasSetMathMode(*blas.handle(), cb::cublasMath_t::CUBLAS_DEFAULT_MATH) }
            .result()
            .map_err(dev("cublasSetMathMode"))?;
        Ok(CublasDense {
            device,
            stream,
            blas,
        })
    }

    /// The stream all work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The device name, for reports.
    pub fn device_name(&self) -> String {
        self.device.info().to_string()
    }

    /// What the driver reports about the device (name, memory, compute capability).
    pub fn device_info(&self) -> &matexp_gpu::DeviceInfo {
        self.device.info()
    }

    fn bind(&self) -> Result<()> {
        // Backends move between host threads (the multi-device splits).
        self.device.bind()
    }

    fn status(&self, what: &str, s: cb::cublasStatus_t) -> Result<()> {
        s.result().map_err(dev(what))
    }
}

fn same_shape<S: GpuScalar>(what: &str, a: &GpuMatrix<S>, b: &GpuMatrix<S>) -> Result<()> {
    check_dim(&format!("{what}: rows"), a.nrows, b.nrows)?;
    check_dim(&format!("{what}: columns"), a.ncols, b.ncols)
}

fn host_as_elems<S: GpuScalar>(s: &[S]) -> &[S::Elem] {
    // SAFETY: S is f32/f64 (Elem = S) or Complex<f32/f64> (#[repr(C)] {re, im} of Elem),
    // so the bytes of s are exactly WIDTH·len properly aligned Elems.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len() * S::WIDTH) }
}

impl<S: GpuScalar> DenseBackend<S> for CublasDense {
    type Mat = GpuMatrix<S>;

    fn name(&self) -> String {
        "cublas".into()
    }

    fn zeros(&mut self, nrows: usize, ncols: usize) -> Result<GpuMatrix<S>> {
        self.bind()?;
        let elems = nrows
            .checked_mul(ncols)
            .and_then(|e| e.checked_mul(S::WIDTH))
            .ok_or_else(|| {
                Error::invalid(
                    "nrows·ncols",
                    format!("{nrows}×{ncols}"),
                    "the number of device matrix entries overflows usize",
                )
            })?;
        let data = self
            .stream
            .alloc_zeros::<S::Elem>(elems.max(1))
            .map_err(dev("allocating a matrix"))?;
        Ok(GpuMatrix { data, nrows, ncols })
    }

    fn upload(&mut self, m: &Matrix<S>) -> Result<GpuMatrix<S>> {
        let mut g = <Self as DenseBackend<S>>::zeros(self, m.nrows(), m.ncols())?;
        if !m.as_slice().is_empty() {
            self.stream
                .memcpy_htod(host_as_elems(m.as_slice()), &mut g.data)
                .map_err(dev("uploading a matrix"))?;
        }
        Ok(g)
    }

    fn download(&mut self, a: &GpuMatrix<S>) -> Result<Matrix<S>> {
        self.bind()?;
        let len = a.nrows * a.ncols;
        let mut host = vec![S::zero(); len];
        if len > 0 {
            // SAFETY: as host_as_elems, mutable.
            let elems: &mut [S::Elem] =
                unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr().cast(), len * S::WIDTH) };
            let view = a.data.slice(0..len * S::WIDTH);
            self.stream
                .memcpy_dtoh(&view, elems)
                .map_err(dev("downloading a matrix"))?;
            self.stream.synchronize().map_err(dev("synchronizing"))?;
        }
        Matrix::from_col_major(a.nrows, a.ncols, host)
    }

    fn shape(&self, a: &GpuMatrix<S>) -> (usize, usize) {
        (a.nrows, a.ncols)
    }

    fn gemm(
        &mut self,
        alpha: S,
        a: &GpuMatrix<S>,
        b: &GpuMatrix<S>,
        beta: S,
        c: &mut GpuMatrix<S>,
    ) -> Result<()> {
        check_dim("gemm: inner dimension", a.ncols, b.nrows)?;
        check_dim("gemm: rows of C", a.nrows, c.nrows)?;
        check_dim("gemm: columns of C", b.ncols, c.ncols)?;
        if c.nrows == 0 || c.ncols == 0 {
            return Ok(());
        }
        let (m, n, k) = (
            to_int("rows", a.nrows)?,
            to_int("columns", b.ncols)?,
            to_int("inner dimension", a.ncols)?,
        );
        self.bind()?;
        let (pa, _ga) = a.data.device_ptr(&self.stream);
        let (pb, _gb) = b.data.device_ptr(&self.stream);
        let (pc, _gc) = c.data.device_ptr_mut(&self.stream);
        // SAFETY: shapes checked above; the buffers hold rows·cols scalars each and C does
        // not alias A or B (Rust borrows).
        let s = unsafe { S::gemm(*self.blas.handle(), m, n, k, alpha, pa, pb, beta, pc) };
        self.status("cublas gemm", s)
    }

    fn axpy(&mut self, alpha: S, x: &GpuMatrix<S>, y: &mut GpuMatrix<S>) -> Result<()> {
        same_shape("axpy", x, y)?;
        let len = to_int("matrix entries", x.nrows * x.ncols)?;
        if len == 0 {
            return Ok(());
        }
        self.bind()?;
        let (px, _gx) = x.data.device_ptr(&self.stream);
        let (py, _gy) = y.data.device_ptr_mut(&self.stream);
        // SAFETY: same shapes, len scalars each.
        let s = unsafe { S::axpy(*self.blas.handle(), len, alpha, px, py) };
        self.status("cublas axpy", s)
    }

    fn add_identity(&mut self, alpha: S, a: &mut GpuMatrix<S>, col0: usize) -> Result<()> {
        let count = a.ncols.min(a.nrows.saturating_sub(col0));
        if count == 0 || alpha == S::zero() {
            return Ok(());
        }
        self.bind()?;
        let (ar, ai) = alpha.parts();
        let (n, c0, cnt) = (a.nrows as i64, col0 as i64, count as i64);
        let f = ADD_DIAG.for_scalar::<S>(&self.device)?;
        let (pa, _ga) = a.data.device_ptr_mut(&self.stream);
        let cfg = LaunchConfig::linear(count.div_ceil(256) as u32, 256);
        // SAFETY: matpoly_add_diag_<s>(R *a, i64, i64, i64, R, R) writes entries
        // (col0 + j, j), j < count ≤ min(ncols, nrows − col0), all inside the buffer.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&pa)
                .arg(&n)
                .arg(&c0)
                .arg(&cnt)
                .arg(&ar)
                .arg(&ai)
                .launch(cfg)
        }
    }

    /// One `matpoly_lincomb` launch per 8 terms (the Paterson–Stockmeyer blocks of the
    /// seed's table have at most 6): each term read once, `out` written once, so a block of
    /// `t` terms moves `(t + 1)·n²` scalars instead of `(3t + 1)·n²` for a memset and `t`
    /// cuBLAS axpys.
    fn lincomb(
        &mut self,
        alpha0: S,
        terms: &[(S, &GpuMatrix<S>)],
        col0: usize,
        out: &mut GpuMatrix<S>,
    ) -> Result<()> {
        for (_, m) in terms {
            same_shape("lincomb", m, out)?;
        }
        let (nrows, ncols) = (out.nrows, out.ncols);
        if nrows == 0 || ncols == 0 {
            return Ok(());
        }
        let gx = u32::try_from(nrows.div_ceil(256))
            .map_err(|_| Error::invalid("rows", nrows, "exceeds the launch grid"))?;
        // Columns beyond the y-grid limit are covered by the kernel's stride loop.
        let cfg = LaunchConfig {
            grid: (gx, ncols.min(65_535) as u32, 1),
            block: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        self.bind()?;
        let f = LINCOMB.for_scalar::<S>(&self.device)?;
        let (a0r, a0i) = alpha0.parts();
        let (n, m, c0) = (nrows as i64, ncols as i64, col0 as i64);
        let mut first = true;
        let mut chunks = terms.chunks(LINCOMB_TERMS);
        // No terms at all: one launch writes α₀·I.
        let empty: [(S, &GpuMatrix<S>); 0] = [];
        let mut next = chunks.next().or(Some(&empty[..]));
        while let Some(chunk) = next {
            let mut ptrs = [0u64; LINCOMB_TERMS];
            let mut coefs = [S::Elem::default(); 2 * LINCOMB_TERMS];
            let mut guards = Vec::with_capacity(chunk.len());
            for (k, &(c, mat)) in chunk.iter().enumerate() {
                let (p, g) = mat.data.device_ptr(&self.stream);
                ptrs[k] = p;
                guards.push(g);
                let (cr, ci) = c.parts();
                coefs[2 * k] = cr;
                coefs[2 * k + 1] = ci;
            }
            let (nt, acc) = (chunk.len() as i32, i32::from(!first));
            let (po, _go) = out.data.device_ptr_mut(&self.stream);
            // SAFETY: matpoly_lincomb_<s> reads entries idx < nrows·ncols of the nterms
            // matrices in ptrs (all of out's shape, checked above, device memory of this
            // context kept alive by the borrows and guards) and writes the same entries of
            // out, which no term aliases (Rust borrows: out is &mut, the terms &).
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&po)
                    .arg(&n)
                    .arg(&m)
                    .arg(&c0)
                    .arg(&nt)
                    .arg(&acc)
                    .arg(&a0r)
                    .arg(&a0i)
                    .arg(&ptrs)
                    .arg(&coefs)
                    .launch(cfg)?;
            }
            drop(guards);
            first = false;
            next = chunks.next();
        }
        Ok(())
    }

    fn scale(&mut self, alpha: S, a: &mut GpuMatrix<S>) -> Result<()> {
        let len = to_int("matrix entries", a.nrows * a.ncols)?;
        if len == 0 {
            return Ok(());
        }
        self.bind()?;
        let (pa, _ga) = a.data.device_ptr_mut(&self.stream);
        // SAFETY: len scalars.
        let s = unsafe { S::scal(*self.blas.handle(), len, alpha, pa) };
        self.status("cublas scal", s)
    }

    fn set_zero(&mut self, a: &mut GpuMatrix<S>) -> Result<()> {
        self.bind()?;
        self.stream
            .memset_zeros(&mut a.data)
            .map_err(dev("zeroing a matrix"))
    }

    fn copy(&mut self, src: &GpuMatrix<S>, dst: &mut GpuMatrix<S>) -> Result<()> {
        same_shape("copy", src, dst)?;
        self.bind()?;
        self.stream
            .memcpy_dtod(&src.data, &mut dst.data)
            .map_err(dev("copying a matrix"))
    }

    fn norm_one(&mut self, a: &GpuMatrix<S>) -> Result<f64> {
        if a.nrows == 0 || a.ncols == 0 {
            return Ok(0.0);
        }
        self.bind()?;
        let mut sums = self
            .stream
            .alloc_zeros::<f64>(a.ncols)
            .map_err(dev("allocating column sums"))?;
        let n = a.nrows as i64;
        let f = COL_ABS_SUM.for_scalar::<S>(&self.device)?;
        let ncols = u32::try_from(a.ncols)
            .map_err(|_| Error::invalid("columns", a.ncols, "exceeds the launch grid"))?;
        {
            let (pa, _ga) = a.data.device_ptr(&self.stream);
            let (ps, _gs) = sums.device_ptr_mut(&self.stream);
            // SAFETY: matpoly_col_abs_sum_<s>(const R *a, i64 nrows, f64 *out): one block of
            // 256 threads (the kernel's shared array) per column reads that column's nrows
            // entries and writes out[column]; sums holds ncols doubles.
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&pa)
                    .arg(&n)
                    .arg(&ps)
                    .launch(LaunchConfig::linear(ncols, 256))?;
            }
        }
        let host = self
            .stream
            .clone_dtoh(&sums)
            .map_err(dev("downloading column sums"))?;
        self.stream.synchronize().map_err(dev("synchronizing"))?;
        let mut best = 0.0f64;
        for s in host {
            if s.is_nan() {
                return Ok(f64::NAN);
            }
            best = best.max(s);
        }
        Ok(best)
    }

    fn synchronize(&mut self) -> Result<()> {
        self.bind()?;
        self.stream.synchronize().map_err(dev("synchronizing"))
    }
}
