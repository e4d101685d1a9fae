//! The structure of a CSR matrix on one device (row pointers and column indices, shared by
//! [`GpuCsr`](super::csr::GpuCsr), [`GpuPattern`](super::csr::GpuPattern) and each device's
//! row block of the multi-GPU operators), the SpMV kernel choice, and the launches of the
//! SpMV and fused Leja kernels over it.

use crate::kernels::blas1::mx_scalar;
use crate::kernels::reduce::{self, Finish, PendingSlot};
use crate::kernels::{
    FOLD_ROWS, LEJA_CSR, LEJA_PATTERN, LEJA_RCSR, SPMV_CSR_LANCZOS, SPMV_CSR_LANCZOS_ADVANCE,
    SPMV_CSR_SCALAR, SPMV_CSR_VECTOR, SPMV_PATTERN_SCALAR, SPMV_PATTERN_VECTOR, SPMV_RCSR_LANCZOS,
    SPMV_RCSR_LANCZOS_ADVANCE, SPMV_RCSR_SCALAR, SPMV_RCSR_VECTOR,
};
use crate::rt::{Device, DeviceBuffer, Function, Kernel, KernelIndex, LaunchConfig, scalar};
use matexp_core::{Error, Result, Scalar, ShiftedStep, SpectralBounds};
use matexp_cuda_sys::{MX_MAX_PARTIALS, MX_REDUCE_THREADS, MxLejaParams, MxSpmvParams};

use matexp_sparse::CsrIndex;
pub(crate) use matexp_sparse::gershgorin_box;
use rayon::prelude::*;
use std::fmt;
use std::sync::Arc;

/// The most blocks of a fused Lanczos product (`spmv_csr_lanczos`, its deferred advance)
/// with a thread per row; with several lanes per row the cap is `MX_MAX_PARTIALS` (16384).
/// The product grid-strides over its row groups. Too few blocks leave the memory underused;
/// too many pay a block reduction and a row of partials per row group. The value is the
/// minimum of a grid sweep on seed 000's Table 12 matrix (the sweep, and the Table 10 matrix's
/// that keeps the vector mapping at 16384: `bench-results/notes/tuning.md`). Fewer row groups
/// than the cap are not strided at all.
pub(crate) const LANCZOS_GRID: u32 = 24576;
/// Capacity in rows of the fused products' block-row buffer: the larger of the fused Leja
/// step's grid (`MX_MAX_PARTIALS`) and the Lanczos product's.
const BLOCK_ROWS: u32 = if LANCZOS_GRID > MX_MAX_PARTIALS {
    LANCZOS_GRID
} else {
    MX_MAX_PARTIALS
};

/// Index types of GPU sparse matrices: `u32` (half the index traffic) or `u64`. The index
/// concept is `matexp-sparse`'s [`CsrIndex`]; this bound adds only that kernels exist for the
/// type ([`KernelIndex`]), and every `CsrIndex` has them.
pub trait GpuIndex: CsrIndex + KernelIndex {}

impl<I: CsrIndex + KernelIndex> GpuIndex for I {}

/// Which SpMV kernel an operator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpmvKernel {
    /// The vector kernel with [`auto_lanes`] lanes per row (the scalar kernel for 1 lane);
    /// for a [`GpuPattern`](super::csr::GpuPattern) with skewed row lengths,
    /// [`SpmvKernel::Hybrid`].
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
    /// Pattern matrices only: rows binned by length at upload (light rows with lanes as the
    /// vector kernel, medium rows a warp each, long rows a block each) in one launch; what
    /// [`GpuPattern`](super::csr::GpuPattern)'s `Auto` uses for skewed row lengths.
    Hybrid,
}

impl fmt::Display for SpmvKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpmvKernel::Auto => write!(f, "auto"),
            SpmvKernel::Scalar => write!(f, "scalar"),
            SpmvKernel::Vector { lanes } => write!(f, "vector{lanes}"),
            SpmvKernel::Cusparse => write!(f, "cusparse"),
            SpmvKernel::Hybrid => write!(f, "hybrid"),
        }
    }
}

/// Lanes per row from the row-length statistics: the largest power of two not above a
/// quarter of the mean row length (between 1 and 32), so that each lane handles about four
/// entries (enough independent loads in flight, few idle lanes in the last round); but a
/// whole warp per row when rows are skewed (longest row above 16 times the mean, as in
/// power-law graphs), which balances the long rows against the short ones.
///
/// The rule picks the fastest mapping of the `gpu_spmv` bench on its three kinds of matrix
/// (one thread per row for 7 per row, 8 lanes for 34–40, 32 for a power-law graph; see
/// `bench-results/notes/tuning.md`).
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
    Hybrid,
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
        SpmvKernel::Hybrid => Ok(Mapping::Hybrid),
    }
}

/// Checks CSR arrays for an upload with `matexp-sparse`'s [`validate_csr`](matexp_sparse::validate_csr)
/// (the one definition of a valid CSR structure), plus the one limit of the kernels: they
/// step through a row with `j += lanes` in the index type, so with `u32` indices the entry
/// count must stay 64 below `u32::MAX`. Returns the longest row (for the kernel choice).
///
/// # Errors
/// As `validate_csr`, and [`Error::InvalidArgument`] for too many entries for `u32`.
pub fn validate_csr<I: GpuIndex>(
    nrows: usize,
    ncols: usize,
    row_ptr: &[I],
    col_idx: &[I],
) -> Result<usize> {
    matexp_sparse::validate_csr(nrows, ncols, row_ptr, col_idx)?;
    if I::BYTES == 4 && col_idx.len() > (u32::MAX - 64) as usize {
        return Err(Error::invalid(
            "nnz",
            col_idx.len(),
            "too many entries for u32 indices; use u64",
        ));
    }
    Ok((0..nrows)
        .into_par_iter()
        .map(|i| row_ptr[i + 1].as_usize() - row_ptr[i].as_usize())
        .max()
        .unwrap_or(0))
}

pub(crate) fn bounds_from_box(b: (f64, f64, f64, f64), hermitian: bool) -> Option<SpectralBounds> {
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
    /// Per-block rows of the fused products' sums, folded into the reduction workspace
    /// (`BLOCK_ROWS` rows of up to 4 doubles, allocated on first use).
    pub(crate) block_rows: std::sync::Mutex<Option<DeviceBuffer<f64>>>,
    /// The values (when a caller passes them) are of the vectors' real type: a real matrix
    /// acting on complex vectors, through the `rcsr` kernels (and cuSPARSE's mixed
    /// real/complex SpMV).
    pub(crate) real_values: bool,
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
            block_rows: std::sync::Mutex::new(None),
            real_values: false,
        })
    }

    /// The function of kernel family `kernel` for `S` and this structure's index type.
    pub(crate) fn function<S: Scalar>(&self, kernel: &'static Kernel) -> Result<Function> {
        match self.indices {
            Indices::U32 { .. } => kernel.for_scalar_index::<S, u32>(&self.device),
            Indices::U64 { .. } => kernel.for_scalar_index::<S, u64>(&self.device),
        }
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
            Mapping::Hybrid => {
                return Err(Error::Unsupported(
                    "the hybrid kernel is for pattern matrices (GpuPattern) only".into(),
                ));
            }
        };
        let p = MxSpmvParams {
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
        let kernel = match (values.is_some(), mapping) {
            (true, Mapping::Scalar) if self.real_values => &SPMV_RCSR_SCALAR,
            (true, _) if self.real_values => &SPMV_RCSR_VECTOR,
            (true, Mapping::Scalar) => &SPMV_CSR_SCALAR,
            (true, _) => &SPMV_CSR_VECTOR,
            (false, Mapping::Scalar) => &SPMV_PATTERN_SCALAR,
            (false, _) => &SPMV_PATTERN_VECTOR,
        };
        let f = self.function::<S>(kernel)?;
        let (rp, ci) = self.indices.ptrs();
        let cfg = LaunchConfig::linear(grid, MX_REDUCE_THREADS);
        let mut launch = self.device.launch_builder(f);
        launch.arg(&p).arg(&rp).arg(&ci);
        if let Some(v) = values.as_ref() {
            launch.arg(v);
        }
        // SAFETY: the buffers hold nrows + 1 row pointers, nnz column indices (and values),
        // ncols entries of x and nrows of y, as the callers check; the pattern kernels take
        // no values argument.
        unsafe { launch.arg(&x).arg(&y).launch(cfg) }
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
        // Many blocks (a capped grid) keep the memory busy, where one wave of blocks leaves
        // it underused (`LANCZOS_GRID`). Their rows are folded before the finish
        // (`fold_block_rows`).
        let rows_per_block = (MX_REDUCE_THREADS >> log2) as usize;
        let grid = self
            .nrows
            .div_ceil(rows_per_block)
            .clamp(1, MX_MAX_PARTIALS as usize) as u32;
        let kernel = if values.is_some() && self.real_values {
            &LEJA_RCSR
        } else if values.is_some() {
            &LEJA_CSR
        } else {
            &LEJA_PATTERN
        };
        let f = self.function::<S>(kernel)?;
        let p = MxLejaParams {
            nrows: self.nrows as u64,
            lanes_log2: log2,
            reserved: 0,
            inv_gamma: mx_scalar(step.alpha),
            shift: mx_scalar(step.shift),
            coeff: mx_scalar(step.coeff),
        };
        let (rp, ci) = self.indices.ptrs();
        reduce::reduce(&self.device, Finish::Sum(3), |partials| {
            self.fold_block_rows(grid, 3, partials, |rows| {
                let mut launch = self.device.launch_builder(f);
                launch.arg(&p).arg(&rp).arg(&ci);
                if let Some(v) = values.as_ref() {
                    launch.arg(v);
                }
                // SAFETY: structure buffers as in `spmv`; x has ncols elements, x_rows,
                // y_next, acc nrows; rows holds grid rows of 3 doubles.
                unsafe {
                    launch
                        .arg(&x)
                        .arg(&x_rows)
                        .arg(&y_next)
                        .arg(&acc)
                        .arg(&rows)
                        .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))
                }
            })
        })
    }

    /// The product of a Lanczos step with its sums (`spmv_csr_lanczos` + `finish_sum`):
    /// y ← A·x − β_j·x_prev (β_j = `c[2j − 1]`; no subtraction when `x_prev` is 0) and
    /// (Re⟨x, y⟩, Im⟨x, y⟩, ‖y‖², ‖x‖²) into `sums` on the device, in one pass. Square
    /// matrices only (callers check).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lanczos_into<S: Scalar>(
        &self,
        values: u64,
        log2: u32,
        c: u64,
        j: usize,
        x: u64,
        x_prev: u64,
        y: u64,
        sums: u64,
    ) -> Result<()> {
        let args = [c, j as u64, x, x_prev, y];
        let kernel = if self.real_values {
            &SPMV_RCSR_LANCZOS
        } else {
            &SPMV_CSR_LANCZOS
        };
        self.fused_lanczos::<S>(kernel, values, log2, sums, &args)
    }

    /// Step j + 1 of the deferred Lanczos form in one pass (`spmv_csr_lanczos_advance` +
    /// `finish_sum`), once step j is settled: q_{j+1} gathered from `w_prev` and q_j = `q`
    /// (or `w_prev` itself, by the flag in `sums`) and written to `q_next`, y ← A·q_{j+1} −
    /// β_{j+1}·q_j and the sums of step j + 1 into `sums`. Square matrices only.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lanczos_advance_into<S: Scalar>(
        &self,
        values: u64,
        log2: u32,
        c: u64,
        j: usize,
        q: u64,
        w_prev: u64,
        q_next: u64,
        y: u64,
        sums: u64,
    ) -> Result<()> {
        let args = [c, j as u64, sums, q, w_prev, q_next, y];
        let kernel = if self.real_values {
            &SPMV_RCSR_LANCZOS_ADVANCE
        } else {
            &SPMV_CSR_LANCZOS_ADVANCE
        };
        self.fused_lanczos::<S>(kernel, values, log2, sums, &args)
    }

    /// Launches a fused Lanczos product `kernel` (arguments: nrows, lanes_log2, row_ptr,
    /// col_idx, values, then `args` (addresses and the step, all 64-bit), then the block rows)
    /// and reduces its rows of four sums into `sums`.
    fn fused_lanczos<S: Scalar>(
        &self,
        kernel: &'static Kernel,
        values: u64,
        log2: u32,
        sums: u64,
        args: &[u64],
    ) -> Result<()> {
        // A capped grid, grid-stride over the row groups (see `LANCZOS_GRID`); the blocks'
        // rows are folded before the finish (`fold_block_rows`).
        let rows_per_block = (MX_REDUCE_THREADS >> log2) as usize;
        let cap = if log2 == 0 {
            LANCZOS_GRID
        } else {
            MX_MAX_PARTIALS
        };
        let grid = self.nrows.div_ceil(rows_per_block).clamp(1, cap as usize) as u32;
        let f = self.function::<S>(kernel)?;
        let (rp, ci) = self.indices.ptrs();
        let nrows = self.nrows as u64;
        reduce::reduce_into(&self.device, Finish::Sum(4), sums, |partials| {
            self.fold_block_rows(grid, 4, partials, |rows| {
                let mut launch = self.device.launch_builder(f);
                launch.arg(&nrows).arg(&log2).arg(&rp).arg(&ci).arg(&values);
                for a in args {
                    launch.arg(a);
                }
                // SAFETY: structure buffers as in `spmv`; values has nnz elements; the
                // vectors the callers pass hold nrows (= ncols) elements of S, the written
                // ones overlapping none of the read ones; c holds the step's coefficients
                // and sums LANCZOS_SUMS doubles (checked by the callers); rows holds grid
                // rows of 4 doubles.
                unsafe {
                    launch
                        .arg(&rows)
                        .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))
                }
            })
        })
    }

    /// The partial pass of a fused product's reduction: `launch(rows)` queues a kernel that
    /// writes `grid` ≤ `BLOCK_ROWS` rows of `width` ≤ 4 doubles at `rows` (this
    /// structure's buffer), then `fold_rows` sums them 256 to one into `partials` (the
    /// reduction workspace); returns the folded row count for the finish.
    fn fold_block_rows(
        &self,
        grid: u32,
        width: u32,
        partials: u64,
        launch: impl FnOnce(u64) -> Result<()>,
    ) -> Result<u32> {
        let mut guard = self
            .block_rows
            .lock()
            .map_err(|_| Error::Device("fused-product scratch poisoned".into()))?;
        if guard.is_none() {
            *guard = Some(DeviceBuffer::uninit(&self.device, BLOCK_ROWS as usize * 4)?);
        }
        let rows = guard.as_ref().map_or(0, |b| b.device_ptr());
        launch(rows)?;
        let folded = grid.div_ceil(MX_REDUCE_THREADS);
        let f = FOLD_ROWS.get(&self.device)?;
        // SAFETY: `rows` holds the `grid` rows of `width` doubles just written; partials holds
        // MX_MAX_PARTIALS ≥ `folded` rows of up to 4 doubles.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&grid)
                .arg(&width)
                .arg(&rows)
                .arg(&partials)
                .launch(LaunchConfig::linear(folded, MX_REDUCE_THREADS))?
        };
        Ok(folded)
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
