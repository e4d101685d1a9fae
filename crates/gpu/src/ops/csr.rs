//! CSR matrices on one GPU: [`GpuCsr`] (with values) and [`GpuPattern`] (pattern only, every
//! stored entry 1: graphs), as [`LinearOperator`]s of [`GpuBackend`].
//!
//! SpMV kernels (see `cuda-sys/kernels/spmv.cu`):
//! * [`SpmvKernel::Scalar`]: one thread per row;
//! * [`SpmvKernel::Vector`]: a group of 2–32 consecutive lanes per row, reduced with warp
//!   shuffles (coalesced loads of values and column indices);
//! * [`SpmvKernel::Cusparse`]: `cusparseSpMV`, as a reference;
//! * [`SpmvKernel::Auto`] (default): the vector kernel with the lane count [`auto_lanes`]
//!   picks from the mean row length.
//!
//! The Newton–Leja step is fused into one kernel (SpMV, shift, accumulation into p and the
//! partial sums of squares of the new vector) plus a one-block finish; its norm reaches the
//! host through one wait, which [`GpuCsr::leja_step_deferred`] lets the caller postpone.
//!
//! Bytes moved per product (the floor [`GpuCsr::bytes_per_product`] reports): row pointers,
//! column indices and values once, x at least once, y written (and read when β ≠ 0).

use crate::backend::{GpuBackend, GpuVector};
use crate::blas::mx_scalar;
use crate::device::{Device, PendingSlot, arg};
use crate::memory::{DeviceBuffer, DeviceElement};
use crate::reduce::{self, Pending};
use crate::{cusparse, scalar};
use matexp_core::{Error, LinearOperator, Result, Scalar, ShiftedStep, SpectralBounds, check_dim};
use matexp_cuda_sys::{MX_MAX_PARTIALS, MX_REDUCE_THREADS, MxLejaParams, MxSpmvParams};
use rayon::prelude::*;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Index types of GPU sparse matrices: `u32` (half the index traffic) or `u64`.
pub trait GpuIndex: sealed::Sealed + DeviceElement + Ord + fmt::Debug + fmt::Display {
    /// `u32` or `u64` (kernel name suffix).
    const NAME: &'static str;
    /// Widens to `usize`.
    fn to_usize(self) -> usize;
    /// Narrows from `usize`, `None` if it does not fit.
    fn from_usize(i: usize) -> Option<Self>;
}

impl GpuIndex for u32 {
    const NAME: &'static str = "u32";
    fn to_usize(self) -> usize {
        self as usize
    }
    fn from_usize(i: usize) -> Option<Self> {
        u32::try_from(i).ok()
    }
}

impl GpuIndex for u64 {
    const NAME: &'static str = "u64";
    fn to_usize(self) -> usize {
        self as usize
    }
    fn from_usize(i: usize) -> Option<Self> {
        Some(i as u64)
    }
}

/// Which SpMV kernel an operator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpmvKernel {
    /// The vector kernel with [`auto_lanes`] lanes per row (the scalar kernel for 1 lane).
    #[default]
    Auto,
    /// One thread per row.
    Scalar,
    /// `lanes` threads per row (a power of two, 1 to 32).
    Vector {
        /// Threads sharing a row.
        lanes: u32,
    },
    /// cuSPARSE's `cusparseSpMV` (matrices with values only).
    Cusparse,
}

impl fmt::Display for SpmvKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpmvKernel::Auto => write!(f, "auto"),
            SpmvKernel::Scalar => write!(f, "scalar"),
            SpmvKernel::Vector { lanes } => write!(f, "vector{lanes}"),
            SpmvKernel::Cusparse => write!(f, "cusparse"),
        }
    }
}

/// Lanes per row from the row-length statistics: the largest power of two not above a
/// quarter of the mean row length (between 1 and 32), so that each lane handles about four
/// entries (enough independent loads in flight, few idle lanes in the last round); but a
/// whole warp per row when rows are skewed (longest row above 16 times the mean, as in
/// power-law graphs), which balances the long rows against the short ones.
///
/// Measured on an H200 (bench `gpu_spmv`): the 3D Laplacian (7 per row) runs fastest with one
/// thread per row, the spin bath as stored in the thesis (34–40 per row) with 8 lanes, a
/// Barabási–Albert graph (mean 20, hubs of thousands) with 32.
pub fn auto_lanes(nrows: usize, nnz: usize, max_row: usize) -> u32 {
    if nrows == 0 {
        return 1;
    }
    let mean = nnz as f64 / nrows as f64;
    if max_row as f64 > 16.0 * mean.max(1.0) && mean >= 4.0 {
        return 32;
    }
    let mut lanes = 1u32;
    while lanes < 32 && f64::from(lanes * 2) <= mean / 4.0 {
        lanes *= 2;
    }
    lanes
}

/// A kernel choice made concrete: scalar, or vector with `1 << log2` lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mapping {
    Scalar,
    Vector(u32),
    Cusparse,
}

pub(crate) fn resolve(kernel: SpmvKernel, auto: u32) -> Result<Mapping> {
    let vector = |lanes: u32| -> Result<Mapping> {
        if !(1..=32).contains(&lanes) || !lanes.is_power_of_two() {
            return Err(Error::invalid(
                "lanes",
                lanes,
                "must be a power of two from 1 to 32",
            ));
        }
        Ok(Mapping::Vector(lanes.trailing_zeros()))
    };
    match kernel {
        SpmvKernel::Auto if auto <= 1 => Ok(Mapping::Scalar),
        SpmvKernel::Auto => vector(auto),
        SpmvKernel::Scalar => Ok(Mapping::Scalar),
        SpmvKernel::Vector { lanes } => vector(lanes),
        SpmvKernel::Cusparse => Ok(Mapping::Cusparse),
    }
}

/// Checks CSR structure: `row_ptr` has `nrows + 1` non-decreasing entries from 0 to
/// `col_idx.len()`, every column index is below `ncols`. Returns the longest row.
pub fn validate_csr<I: GpuIndex>(
    nrows: usize,
    ncols: usize,
    row_ptr: &[I],
    col_idx: &[I],
) -> Result<usize> {
    check_dim("CSR row_ptr length (nrows + 1)", nrows + 1, row_ptr.len())?;
    if row_ptr[0].to_usize() != 0 {
        return Err(Error::invalid("row_ptr[0]", row_ptr[0], "must be 0"));
    }
    check_dim(
        "CSR col_idx length (row_ptr[nrows])",
        row_ptr[nrows].to_usize(),
        col_idx.len(),
    )?;
    if let Some(i) = (0..nrows)
        .into_par_iter()
        .find_first(|&i| row_ptr[i + 1] < row_ptr[i])
    {
        return Err(Error::invalid(
            "row_ptr",
            format!(
                "row_ptr[{}] = {} > row_ptr[{}] = {}",
                i,
                row_ptr[i],
                i + 1,
                row_ptr[i + 1]
            ),
            "row pointers must not decrease",
        ));
    }
    if let Some(j) = col_idx.par_iter().position_first(|c| c.to_usize() >= ncols) {
        return Err(Error::invalid(
            "col_idx",
            format!("col_idx[{j}] = {}", col_idx[j]),
            format!("column index out of range for {ncols} columns"),
        ));
    }
    // Kernels step through a row with `j += lanes` in the index type: keep that below the
    // type's maximum.
    if I::NAME == "u32" && col_idx.len() > (u32::MAX - 64) as usize {
        return Err(Error::invalid(
            "nnz",
            col_idx.len(),
            "too many entries for u32 indices; use u64",
        ));
    }
    Ok((0..nrows)
        .into_par_iter()
        .map(|i| row_ptr[i + 1].to_usize() - row_ptr[i].to_usize())
        .max()
        .unwrap_or(0))
}

/// Gershgorin discs of the rows, enclosed in a box: (re_min, re_max, im_min, im_max).
/// `values = None` means every stored entry is 1.
pub(crate) fn gershgorin_box<S: Scalar, I: GpuIndex>(
    nrows: usize,
    row_ptr: &[I],
    col_idx: &[I],
    values: Option<&[S]>,
) -> (f64, f64, f64, f64) {
    (0..nrows)
        .into_par_iter()
        .map(|i| {
            let (a, b) = (row_ptr[i].to_usize(), row_ptr[i + 1].to_usize());
            let mut center = matexp_core::c64::new(0.0, 0.0);
            let mut radius = 0.0;
            for k in a..b {
                let v = values.map_or(matexp_core::c64::new(1.0, 0.0), |v| v[k].to_c64());
                if col_idx[k].to_usize() == i {
                    center += v;
                } else {
                    radius += v.norm();
                }
            }
            (
                center.re - radius,
                center.re + radius,
                center.im - radius,
                center.im + radius,
            )
        })
        .reduce(
            || {
                (
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                )
            },
            |p, q| (p.0.min(q.0), p.1.max(q.1), p.2.min(q.2), p.3.max(q.3)),
        )
}

fn bounds_from_box(b: (f64, f64, f64, f64), hermitian: bool) -> Option<SpectralBounds> {
    if hermitian {
        SpectralBounds::real(b.0, b.1).ok()
    } else {
        SpectralBounds::new(b.0, b.1, b.2, b.3).ok()
    }
}

/// Device copies of the index arrays.
#[derive(Debug)]
pub(crate) enum Indices {
    U32 {
        row_ptr: DeviceBuffer<u32>,
        col_idx: DeviceBuffer<u32>,
    },
    U64 {
        row_ptr: DeviceBuffer<u64>,
        col_idx: DeviceBuffer<u64>,
    },
}

impl Indices {
    fn upload<I: GpuIndex>(device: &Arc<Device>, row_ptr: &[I], col_idx: &[I]) -> Result<Self> {
        if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u32>(row_ptr),
            scalar::cast_slice::<I, u32>(col_idx),
        ) {
            return Ok(Indices::U32 {
                row_ptr: DeviceBuffer::from_host(device, r)?,
                col_idx: DeviceBuffer::from_host(device, c)?,
            });
        }
        if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u64>(row_ptr),
            scalar::cast_slice::<I, u64>(col_idx),
        ) {
            return Ok(Indices::U64 {
                row_ptr: DeviceBuffer::from_host(device, r)?,
                col_idx: DeviceBuffer::from_host(device, c)?,
            });
        }
        Err(Error::Unsupported(format!("index type {}", I::NAME)))
    }

    pub(crate) fn name(&self) -> &'static str {
        match self {
            Indices::U32 { .. } => "u32",
            Indices::U64 { .. } => "u64",
        }
    }

    pub(crate) fn width(&self) -> usize {
        match self {
            Indices::U32 { .. } => 4,
            Indices::U64 { .. } => 8,
        }
    }

    pub(crate) fn ptrs(&self) -> (u64, u64) {
        match self {
            Indices::U32 { row_ptr, col_idx } => (row_ptr.device_ptr(), col_idx.device_ptr()),
            Indices::U64 { row_ptr, col_idx } => (row_ptr.device_ptr(), col_idx.device_ptr()),
        }
    }
}

/// The structure of a CSR matrix on one device (shared by [`GpuCsr`] and [`GpuPattern`],
/// and by each device's row block of the multi-GPU operators).
#[derive(Debug)]
pub(crate) struct CsrStructure {
    pub(crate) device: Arc<Device>,
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) nnz: usize,
    pub(crate) indices: Indices,
    pub(crate) auto_lanes: u32,
}

impl CsrStructure {
    pub(crate) fn upload<I: GpuIndex>(
        device: &Arc<Device>,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        auto_lanes: u32,
    ) -> Result<Self> {
        Ok(CsrStructure {
            device: device.clone(),
            nrows,
            ncols,
            nnz: col_idx.len(),
            indices: Indices::upload(device, row_ptr, col_idx)?,
            auto_lanes,
        })
    }

    fn kernel_name<S: Scalar>(&self, op: &str, with_values: bool, mapping: Mapping) -> String {
        let kind = if with_values { "csr" } else { "pattern" };
        let map = match mapping {
            Mapping::Scalar => "scalar_",
            _ => "vector_",
        };
        let map = if op == "leja" { "" } else { map };
        format!("{op}_{kind}_{map}{}_{}", S::NAME, self.indices.name())
    }

    /// Queues y ← α·A·x + β·y with our kernels; `x` has `ncols` elements, `y` `nrows`.
    pub(crate) fn spmv<S: Scalar>(
        &self,
        values: Option<u64>,
        mapping: Mapping,
        alpha: S,
        x: u64,
        beta: S,
        y: u64,
    ) -> Result<()> {
        if self.nrows == 0 {
            return Ok(());
        }
        let log2 = match mapping {
            Mapping::Vector(l) => l,
            Mapping::Scalar => 0,
            Mapping::Cusparse => {
                return Err(Error::Unsupported(
                    "cuSPARSE through CsrStructure::spmv".into(),
                ));
            }
        };
        let mut p = MxSpmvParams {
            nrows: self.nrows as u64,
            lanes_log2: log2,
            reserved: 0,
            alpha: mx_scalar(alpha),
            beta: mx_scalar(beta),
        };
        let rows_per_block = (MX_REDUCE_THREADS >> log2) as usize;
        let grid = self.nrows.div_ceil(rows_per_block);
        let grid = u32::try_from(grid)
            .map_err(|_| Error::invalid("nrows", self.nrows, "too many rows for one launch"))?;
        let name = self.kernel_name::<S>("spmv", values.is_some(), mapping);
        let (mut rp, mut ci) = self.indices.ptrs();
        let (mut x, mut y) = (x, y);
        match values {
            Some(mut v) => {
                // SAFETY: the buffers hold nrows + 1 row pointers, nnz column indices and
                // values, ncols entries of x and nrows of y, as the callers check.
                unsafe {
                    self.device.launch(
                        &name,
                        grid,
                        MX_REDUCE_THREADS,
                        &mut [
                            arg(&mut p),
                            arg(&mut rp),
                            arg(&mut ci),
                            arg(&mut v),
                            arg(&mut x),
                            arg(&mut y),
                        ],
                    )
                }
            }
            None => {
                // SAFETY: as above, without values.
                unsafe {
                    self.device.launch(
                        &name,
                        grid,
                        MX_REDUCE_THREADS,
                        &mut [
                            arg(&mut p),
                            arg(&mut rp),
                            arg(&mut ci),
                            arg(&mut x),
                            arg(&mut y),
                        ],
                    )
                }
            }
        }
    }

    /// Queues the fused Leja step over this structure's rows and the finish of its norm.
    /// `x` is the full input vector, `x_rows`, `y_next` and `acc` point at this block's
    /// first row.
    pub(crate) fn leja_slot<S: Scalar>(
        &self,
        values: Option<u64>,
        log2: u32,
        step: &ShiftedStep<S>,
        x: u64,
        x_rows: u64,
        y_next: u64,
        acc: u64,
    ) -> Result<PendingSlot> {
        let rows_per_block = (MX_REDUCE_THREADS >> log2) as usize;
        let grid = self
            .nrows
            .div_ceil(rows_per_block)
            .clamp(1, MX_MAX_PARTIALS as usize) as u32;
        let name = self.kernel_name::<S>("leja", values.is_some(), Mapping::Vector(log2));
        let mut p = MxLejaParams {
            nrows: self.nrows as u64,
            lanes_log2: log2,
            reserved: 0,
            inv_gamma: mx_scalar(step.alpha),
            shift: mx_scalar(step.shift),
            coeff: mx_scalar(step.coeff),
        };
        let (mut rp, mut ci) = self.indices.ptrs();
        let (mut x, mut x_rows, mut y_next, mut acc) = (x, x_rows, y_next, acc);
        self.device
            .reduce(crate::device::Finish::Sum(3), |mut partials| {
                match values {
                    Some(mut v) => {
                        // SAFETY: structure buffers as in `spmv`; x has ncols elements,
                        // x_rows, y_next, acc nrows; partials holds grid rows of 3 doubles.
                        unsafe {
                            self.device.launch(
                                &name,
                                grid,
                                MX_REDUCE_THREADS,
                                &mut [
                                    arg(&mut p),
                                    arg(&mut rp),
                                    arg(&mut ci),
                                    arg(&mut v),
                                    arg(&mut x),
                                    arg(&mut x_rows),
                                    arg(&mut y_next),
                                    arg(&mut acc),
                                    arg(&mut partials),
                                ],
                            )?
                        }
                    }
                    None => {
                        // SAFETY: as above, without values.
                        unsafe {
                            self.device.launch(
                                &name,
                                grid,
                                MX_REDUCE_THREADS,
                                &mut [
                                    arg(&mut p),
                                    arg(&mut rp),
                                    arg(&mut ci),
                                    arg(&mut x),
                                    arg(&mut x_rows),
                                    arg(&mut y_next),
                                    arg(&mut acc),
                                    arg(&mut partials),
                                ],
                            )?
                        }
                    }
                }
                Ok(grid)
            })
    }

    /// Bytes a product must move at least: structure and values once, x once, y written
    /// (and read when β ≠ 0).
    pub(crate) fn floor_bytes(
        &self,
        scalar_bytes: usize,
        with_values: bool,
        reads_y: bool,
    ) -> usize {
        let w = self.indices.width();
        let y = if reads_y { 2 } else { 1 };
        (self.nrows + 1) * w
            + self.nnz * w
            + if with_values {
                self.nnz * scalar_bytes
            } else {
                0
            }
            + self.ncols * scalar_bytes
            + y * self.nrows * scalar_bytes
    }
}

/// Lanes per row of the fused Leja kernel for a mapping (scalar = 1 lane).
fn leja_log2(mapping: Mapping, auto: u32) -> u32 {
    match mapping {
        Mapping::Vector(l) => l,
        Mapping::Scalar => 0,
        Mapping::Cusparse => auto.trailing_zeros(),
    }
}

fn check_vectors<S: Scalar>(
    backend: &GpuBackend,
    device: &Arc<Device>,
    nrows: usize,
    ncols: usize,
    x: &GpuVector<S>,
    y: &GpuVector<S>,
) -> Result<()> {
    if backend.device().ordinal() != device.ordinal() {
        return Err(Error::invalid(
            "backend",
            backend.device().ordinal(),
            format!("the matrix lives on gpu:{}", device.ordinal()),
        ));
    }
    backend.own("x", x)?;
    backend.own("y", y)?;
    check_dim("SpMV: x length (ncols)", ncols, x.len())?;
    check_dim("SpMV: y length (nrows)", nrows, y.len())
}

/// A CSR matrix with values of type `S` on one GPU.
///
/// ```no_run
/// use matexp_core::{Backend, LinearOperator};
/// use matexp_gpu::{GpuBackend, GpuCsr};
/// let gpu = GpuBackend::new(0)?;
/// // [[2, 1], [0, 3]]
/// let a = GpuCsr::from_parts(&gpu, 2, 2, &[0u32, 2, 3], &[0u32, 1, 1], &[2.0f64, 1.0, 3.0])?;
/// let x = gpu.upload(&[1.0, 1.0])?;
/// let mut y = gpu.zeros(2)?;
/// a.apply(&gpu, 1.0, &x, 0.0, &mut y)?;
/// assert_eq!(gpu.to_host(&y)?, vec![3.0, 3.0]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub struct GpuCsr<S: Scalar> {
    st: CsrStructure,
    values: DeviceBuffer<u8>,
    kernel: SpmvKernel,
    disc_box: (f64, f64, f64, f64),
    hermitian: bool,
    cusparse: Mutex<Option<cusparse::SpMatrix>>,
    _s: PhantomData<S>,
}

impl<S: Scalar> fmt::Debug for GpuCsr<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GpuCsr<{}, {}>({}x{}, nnz {}, kernel {}, gpu:{})",
            S::NAME,
            self.st.indices.name(),
            self.st.nrows,
            self.st.ncols,
            self.st.nnz,
            self.kernel,
            self.st.device.ordinal()
        )
    }
}

impl<S: Scalar> GpuCsr<S> {
    /// Uploads a CSR matrix given by its arrays (validated first: structure, finiteness).
    /// Gershgorin bounds are computed on the host on the way (one pass).
    pub fn from_parts<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[S],
    ) -> Result<Self> {
        scalar::check::<S>()?;
        let max_row = validate_csr(nrows, ncols, row_ptr, col_idx)?;
        check_dim("CSR values length (nnz)", col_idx.len(), values.len())?;
        if let Some(k) = values.par_iter().position_first(|v| !v.finite()) {
            return Err(Error::NonFinite {
                context: "GpuCsr values".into(),
                index: k,
                value: format!("{}", values[k]),
            });
        }
        let device = backend.device();
        let lanes = auto_lanes(nrows, col_idx.len(), max_row);
        let st = CsrStructure::upload(device, nrows, ncols, row_ptr, col_idx, lanes)?;
        let mut vals = DeviceBuffer::uninit(device, std::mem::size_of_val(values))?;
        vals.upload(scalar::as_bytes(values))?;
        Ok(GpuCsr {
            disc_box: gershgorin_box(nrows, row_ptr, col_idx, Some(values)),
            st,
            values: vals,
            kernel: SpmvKernel::Auto,
            hermitian: false,
            cusparse: Mutex::new(None),
            _s: PhantomData,
        })
    }

    /// Uploads a [`matexp_sparse::CsrMatrix`], keeping its index width; Hermitian-ness is
    /// taken from the matrix (an O(nnz log nnz) check on the host).
    #[cfg(feature = "sparse")]
    pub fn from_csr<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::CsrMatrix<S, I>,
    ) -> Result<Self> {
        let m = if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u32>(a.row_ptr()),
            scalar::cast_slice::<I, u32>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c, a.values())?
        } else if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u64>(a.row_ptr()),
            scalar::cast_slice::<I, u64>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c, a.values())?
        } else {
            return Err(Error::Unsupported(format!("index type {}", I::NAME)));
        };
        Ok(m.assume_hermitian(a.nrows() == a.ncols() && a.is_hermitian()))
    }

    /// Declares the matrix Hermitian (symmetric if real) or not: the spectral bounds become
    /// a real interval and Lanczos is allowed. The caller vouches for it.
    pub fn assume_hermitian(mut self, hermitian: bool) -> Self {
        self.hermitian = hermitian;
        self
    }

    /// Selects the SpMV kernel of [`LinearOperator::apply`].
    pub fn with_kernel(mut self, kernel: SpmvKernel) -> Result<Self> {
        self.set_kernel(kernel)?;
        Ok(self)
    }

    /// Selects the SpMV kernel of [`LinearOperator::apply`].
    pub fn set_kernel(&mut self, kernel: SpmvKernel) -> Result<()> {
        resolve(kernel, self.st.auto_lanes)?;
        self.kernel = kernel;
        Ok(())
    }

    /// The kernel [`LinearOperator::apply`] uses.
    pub fn kernel(&self) -> SpmvKernel {
        self.kernel
    }

    /// Lanes per row that [`SpmvKernel::Auto`] uses.
    pub fn auto_lanes(&self) -> u32 {
        self.st.auto_lanes
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.st.nnz
    }

    /// `u32` or `u64`.
    pub fn index_type(&self) -> &'static str {
        self.st.indices.name()
    }

    /// The device holding the matrix.
    pub fn device(&self) -> &Arc<Device> {
        &self.st.device
    }

    /// Bytes a product must move at least (see the module docs).
    pub fn bytes_per_product(&self, reads_y: bool) -> usize {
        self.st.floor_bytes(std::mem::size_of::<S>(), true, reads_y)
    }

    /// y ← α·A·x + β·y with an explicit kernel (y not read when β = 0).
    pub fn apply_with(
        &self,
        backend: &GpuBackend,
        kernel: SpmvKernel,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        check_vectors(backend, &self.st.device, self.st.nrows, self.st.ncols, x, y)?;
        match resolve(kernel, self.st.auto_lanes)? {
            Mapping::Cusparse => {
                let mut cache = self
                    .cusparse
                    .lock()
                    .map_err(|_| Error::Device("cuSPARSE descriptor poisoned".into()))?;
                cusparse::spmv::<S>(
                    &self.st,
                    self.values.device_ptr(),
                    &mut cache,
                    alpha,
                    x.device_ptr(),
                    beta,
                    y.device_ptr(),
                )
            }
            m => self.st.spmv(
                Some(self.values.device_ptr()),
                m,
                alpha,
                x.device_ptr(),
                beta,
                y.device_ptr(),
            ),
        }
    }

    /// The fused Leja step with its norm left on the way to the host (see
    /// [`LinearOperator::shifted_step`] for the math): one kernel over A, y_prev, y_next, p and
    /// one finish launch; the caller waits when (and if) it needs the norm.
    pub fn leja_step_deferred(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<Pending<S::Real>> {
        leja_checks(backend, &self.st, y_prev, y_next, p)?;
        let log2 = leja_log2(
            resolve(self.kernel, self.st.auto_lanes)?,
            self.st.auto_lanes,
        );
        let slot = self.st.leja_slot(
            Some(self.values.device_ptr()),
            log2,
            step,
            y_prev.device_ptr(),
            y_prev.device_ptr(),
            y_next.device_ptr(),
            p.device_ptr(),
        )?;
        Ok(Pending::new(vec![slot], reduce::combine_norm::<S::Real>))
    }
}

fn leja_checks<S: Scalar>(
    backend: &GpuBackend,
    st: &CsrStructure,
    y_prev: &GpuVector<S>,
    y_next: &GpuVector<S>,
    p: &GpuVector<S>,
) -> Result<()> {
    if st.nrows != st.ncols {
        return Err(Error::invalid(
            "operator",
            format!("{}x{}", st.nrows, st.ncols),
            "a Leja step needs a square matrix",
        ));
    }
    check_vectors(backend, &st.device, st.nrows, st.ncols, y_prev, y_next)?;
    backend.own("p", p)?;
    check_dim("leja_step: p length", st.nrows, p.len())
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for GpuCsr<S> {
    fn nrows(&self) -> usize {
        self.st.nrows
    }
    fn ncols(&self) -> usize {
        self.st.ncols
    }
    fn apply(
        &self,
        backend: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.apply_with(backend, self.kernel, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.st.nrows != self.st.ncols {
            return None;
        }
        bounds_from_box(self.disc_box, self.hermitian)
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn shifted_step(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<S::Real> {
        self.leja_step_deferred(backend, step, y_prev, y_next, p)?
            .wait()
    }
}

/// A pattern-only CSR matrix (every stored entry is 1) on one GPU: adjacency matrices of
/// graphs, applied to vectors of any scalar type without storing values.
pub struct GpuPattern {
    st: CsrStructure,
    kernel: SpmvKernel,
    disc_box: (f64, f64, f64, f64),
    symmetric: bool,
}

impl fmt::Debug for GpuPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GpuPattern<{}>({}x{}, nnz {}, kernel {}, gpu:{})",
            self.st.indices.name(),
            self.st.nrows,
            self.st.ncols,
            self.st.nnz,
            self.kernel,
            self.st.device.ordinal()
        )
    }
}

impl GpuPattern {
    /// Uploads a pattern given by its arrays (validated first).
    pub fn from_parts<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
    ) -> Result<Self> {
        let max_row = validate_csr(nrows, ncols, row_ptr, col_idx)?;
        let lanes = auto_lanes(nrows, col_idx.len(), max_row);
        Ok(GpuPattern {
            disc_box: gershgorin_box::<f64, I>(nrows, row_ptr, col_idx, None),
            st: CsrStructure::upload(backend.device(), nrows, ncols, row_ptr, col_idx, lanes)?,
            kernel: SpmvKernel::Auto,
            symmetric: false,
        })
    }

    /// Uploads a [`matexp_sparse::PatternCsr`]; symmetry is taken from it.
    #[cfg(feature = "sparse")]
    pub fn from_pattern<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::PatternCsr<I>,
    ) -> Result<Self> {
        let m = if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u32>(a.row_ptr()),
            scalar::cast_slice::<I, u32>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c)?
        } else if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u64>(a.row_ptr()),
            scalar::cast_slice::<I, u64>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c)?
        } else {
            return Err(Error::Unsupported(format!("index type {}", I::NAME)));
        };
        Ok(m.assume_symmetric(a.nrows() == a.ncols() && a.is_symmetric()))
    }

    /// Declares the pattern symmetric (an undirected graph): real spectral bounds, Lanczos.
    pub fn assume_symmetric(mut self, symmetric: bool) -> Self {
        self.symmetric = symmetric;
        self
    }

    /// Selects the SpMV kernel ([`SpmvKernel::Cusparse`] is not available for patterns).
    pub fn with_kernel(mut self, kernel: SpmvKernel) -> Result<Self> {
        if kernel == SpmvKernel::Cusparse {
            return Err(Error::Unsupported(
                "cuSPARSE needs stored values; pattern matrices use the matexp kernels".into(),
            ));
        }
        resolve(kernel, self.st.auto_lanes)?;
        self.kernel = kernel;
        Ok(self)
    }

    /// Lanes per row that [`SpmvKernel::Auto`] uses.
    pub fn auto_lanes(&self) -> u32 {
        self.st.auto_lanes
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.st.nnz
    }

    /// Bytes a product on vectors of `S` must move at least.
    pub fn bytes_per_product<S: Scalar>(&self, reads_y: bool) -> usize {
        self.st
            .floor_bytes(std::mem::size_of::<S>(), false, reads_y)
    }

    /// y ← α·A·x + β·y with an explicit kernel.
    pub fn apply_with<S: Scalar>(
        &self,
        backend: &GpuBackend,
        kernel: SpmvKernel,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        check_vectors(backend, &self.st.device, self.st.nrows, self.st.ncols, x, y)?;
        match resolve(kernel, self.st.auto_lanes)? {
            Mapping::Cusparse => Err(Error::Unsupported(
                "cuSPARSE needs stored values; pattern matrices use the matexp kernels".into(),
            )),
            m => self
                .st
                .spmv(None, m, alpha, x.device_ptr(), beta, y.device_ptr()),
        }
    }

    /// The fused Leja step, its norm left on the way to the host.
    pub fn leja_step_deferred<S: Scalar>(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<Pending<S::Real>> {
        leja_checks(backend, &self.st, y_prev, y_next, p)?;
        let log2 = leja_log2(
            resolve(self.kernel, self.st.auto_lanes)?,
            self.st.auto_lanes,
        );
        let slot = self.st.leja_slot(
            None,
            log2,
            step,
            y_prev.device_ptr(),
            y_prev.device_ptr(),
            y_next.device_ptr(),
            p.device_ptr(),
        )?;
        Ok(Pending::new(vec![slot], reduce::combine_norm::<S::Real>))
    }
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for GpuPattern {
    fn nrows(&self) -> usize {
        self.st.nrows
    }
    fn ncols(&self) -> usize {
        self.st.ncols
    }
    fn apply(
        &self,
        backend: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.apply_with(backend, self.kernel, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.st.nrows != self.st.ncols {
            return None;
        }
        bounds_from_box(self.disc_box, self.symmetric)
    }
    fn is_hermitian(&self) -> bool {
        self.symmetric
    }
    fn shifted_step(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<S::Real> {
        self.leja_step_deferred(backend, step, y_prev, y_next, p)?
            .wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_follow_the_row_length_profile() {
        assert_eq!(auto_lanes(10, 10, 1), 1);
        assert_eq!(auto_lanes(100, 700, 7), 1); // 3D Laplacian, 7 per row
        assert_eq!(auto_lanes(100, 1750, 18), 4); // spin bath without explicit zeros
        assert_eq!(auto_lanes(100, 3400, 34), 8); // spin bath as stored in the thesis
        assert_eq!(auto_lanes(100, 2000, 3000), 32); // power-law graph: hubs
        assert_eq!(auto_lanes(100, 200, 3000), 1); // skewed but mostly tiny rows
        assert_eq!(auto_lanes(1, 10_000, 10_000), 32);
        assert_eq!(auto_lanes(0, 0, 0), 1);
    }

    #[test]
    fn kernel_choices_resolve_or_are_rejected() {
        assert_eq!(resolve(SpmvKernel::Auto, 1).unwrap(), Mapping::Scalar);
        assert_eq!(resolve(SpmvKernel::Auto, 8).unwrap(), Mapping::Vector(3));
        assert_eq!(
            resolve(SpmvKernel::Vector { lanes: 32 }, 1).unwrap(),
            Mapping::Vector(5)
        );
        for bad in [0, 3, 64] {
            assert!(matches!(
                resolve(SpmvKernel::Vector { lanes: bad }, 1),
                Err(Error::InvalidArgument { name: "lanes", .. })
            ));
        }
    }

    #[test]
    fn malformed_csr_is_rejected_with_context() {
        // Wrong row_ptr length, nonzero start, decreasing pointers, column out of range,
        // and a col_idx length that disagrees with the last pointer.
        assert!(matches!(
            validate_csr(2, 2, &[0u32, 1], &[0]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(validate_csr(1, 2, &[1u32, 1], &[]).is_err());
        let e = validate_csr(2, 2, &[0u32, 2, 1], &[0]).unwrap_err();
        assert!(e.to_string().contains("row_ptr[1] = 2"), "{e}");
        let e = validate_csr(2, 2, &[0u64, 1, 2], &[0, 2]).unwrap_err();
        assert!(e.to_string().contains("col_idx[1] = 2"), "{e}");
        assert!(validate_csr(2, 2, &[0u32, 1, 2], &[0, 1, 1]).is_err());
        assert_eq!(
            validate_csr(3, 3, &[0u32, 0, 3, 4], &[0, 1, 2, 2]).unwrap(),
            3
        );
    }

    #[test]
    fn gershgorin_box_encloses_the_discs() {
        // [[2, -1], [-1, 2]]: eigenvalues 1 and 3; discs [1, 3] twice.
        let b = gershgorin_box(
            2,
            &[0u32, 2, 4],
            &[0, 1, 0, 1],
            Some(&[2.0, -1.0, -1.0, 2.0]),
        );
        assert_eq!(b, (1.0, 3.0, -1.0, 1.0));
        let r = bounds_from_box(b, true).unwrap();
        assert_eq!(
            (r.re_min, r.re_max, r.im_min, r.im_max),
            (1.0, 3.0, 0.0, 0.0)
        );
        // A path graph 0-1-2 as a pattern: degrees 1, 2, 1, no diagonal.
        let p = gershgorin_box::<f64, u32>(3, &[0, 1, 3, 4], &[1, 0, 2, 1], None);
        assert_eq!((p.0, p.1), (-2.0, 2.0));
    }
}
