//! The pattern SpMV for skewed row lengths ([`SpmvKernel::Hybrid`](super::structure::SpmvKernel)):
//! rows binned by length once, at upload (the pattern is fixed), and served by one launch of
//! `spmv_pattern_hybrid` (`cuda-sys/kernels/spmv.cu`):
//!
//! * **light** rows (at most [`HybridTiers::light_max`] entries): every row in natural order,
//!   `light_lanes` consecutive lanes per row as in the vector kernel (a quarter of the mean
//!   row length, a power of two from 1 to 32), skipping the rows of the two lists below;
//! * **medium** rows (up to [`BLOCK_MIN`] entries): one warp each, from a row list;
//! * **long** rows (more than [`BLOCK_MIN`]): one block of 256 threads each, longest first,
//!   reduced through shared memory.
//!
//! The long rows' blocks are the launch's first, so their chains of dependent loads overlap
//! the bulk of light rows instead of trailing it (the vector kernel with a warp per row waits
//! on its hubs at the end, and wastes most lanes of the short rows). Every row is summed by
//! one group in a fixed order and written once: no atomics, reproducible results.
//!
//! [`is_skewed`] is the choice of [`GpuPattern`](super::csr::GpuPattern)'s `Auto`: the
//! longest row above 16 times the mean (power-law graphs) takes the hybrid; uniform patterns
//! keep the vector kernel with [`auto_lanes`](super::structure::auto_lanes).

use super::structure::{CsrStructure, GpuIndex};
use crate::kernels::SPMV_PATTERN_HYBRID;
use crate::kernels::blas1::mx_scalar;
use crate::rt::{Device, DeviceBuffer, LaunchConfig};
use matexp_core::{Error, Result, Scalar};
use matexp_cuda_sys::{MX_REDUCE_THREADS, MxSpmvParams};
use std::sync::Arc;

/// Rows longer than this get a block of their own (256 threads, four gathers in flight
/// each: a row of 1024 is one round); shorter non-light rows a warp (at most eight rounds).
pub const BLOCK_MIN: usize = 1024;

/// Light rows hold at most this many rounds of their lanes (`light_max = 16 · lanes`).
const LIGHT_ROUNDS: usize = 16;

/// Whether a pattern's row lengths are skewed enough for the hybrid kernel: the longest row
/// above 16 times the mean (and above [`LIGHT_ROUNDS`] entries, so that it is not light).
pub fn is_skewed(nrows: usize, nnz: usize, max_row: usize) -> bool {
    if nrows == 0 {
        return false;
    }
    let mean = nnz as f64 / nrows as f64;
    max_row as f64 > 16.0 * mean.max(1.0) && max_row > LIGHT_ROUNDS
}

/// Lanes per light row: the largest power of two not above a quarter of the mean row length
/// (1 to 32), the rule [`auto_lanes`](super::structure::auto_lanes) applies to uniform rows.
fn light_lanes(nrows: usize, nnz: usize) -> u32 {
    let mean = if nrows == 0 {
        0.0
    } else {
        nnz as f64 / nrows as f64
    };
    let mut lanes = 1u32;
    while lanes < 32 && f64::from(lanes * 2) <= mean / 4.0 {
        lanes *= 2;
    }
    lanes
}

/// The tiers of the hybrid kernel for one pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridTiers {
    /// Lanes per light row (a power of two, 1 to 32).
    pub light_lanes: u32,
    /// Longest light row (`16 · light_lanes`).
    pub light_max: usize,
    /// Rows longer than `light_max`, at most [`BLOCK_MIN`]: a warp each.
    pub warp_rows: usize,
    /// Rows longer than [`BLOCK_MIN`] (and `light_max`): a block each.
    pub block_rows: usize,
}

/// The bins of a pattern on its device: the long rows (longest first) then the medium rows,
/// as one list of row numbers.
#[derive(Debug)]
pub(crate) struct HybridPlan {
    pub(crate) tiers: HybridTiers,
    rows: Option<DeviceBuffer<u64>>,
}

impl HybridPlan {
    /// Bins the rows of `row_ptr` (validated CSR) and uploads the lists.
    pub(crate) fn build<I: GpuIndex>(
        device: &Arc<Device>,
        nrows: usize,
        row_ptr: &[I],
    ) -> Result<Self> {
        let nnz = if nrows == 0 {
            0
        } else {
            row_ptr[nrows].as_usize()
        };
        let (tiers, list) = bin_rows(nrows, nnz, |i| {
            row_ptr[i + 1].as_usize() - row_ptr[i].as_usize()
        });
        let rows = if list.is_empty() {
            None
        } else {
            Some(DeviceBuffer::from_host(device, &list)?)
        };
        Ok(HybridPlan { tiers, rows })
    }

    /// Queues y ← α·A·x + β·y (A the pattern of `st`) with the hybrid kernel.
    pub(crate) fn spmv<S: Scalar>(
        &self,
        st: &CsrStructure,
        alpha: S,
        x: u64,
        beta: S,
        y: u64,
    ) -> Result<()> {
        if st.nrows == 0 {
            return Ok(());
        }
        let t = &self.tiers;
        let log2 = t.light_lanes.trailing_zeros();
        let threads = MX_REDUCE_THREADS as usize;
        let grid =
            t.block_rows + t.warp_rows.div_ceil(threads / 32) + st.nrows.div_ceil(threads >> log2);
        let grid = u32::try_from(grid)
            .map_err(|_| Error::invalid("nrows", st.nrows, "too many rows for one launch"))?;
        let p = MxSpmvParams {
            nrows: st.nrows as u64,
            lanes_log2: log2,
            reserved: 0,
            alpha: mx_scalar(alpha),
            beta: mx_scalar(beta),
        };
        let f = st.function::<S>(&SPMV_PATTERN_HYBRID)?;
        let (rp, ci) = st.indices.ptrs();
        let rows = self.rows.as_ref().map_or(0, |b| b.device_ptr());
        let (n_block, n_warp, light_max) =
            (t.block_rows as u64, t.warp_rows as u64, t.light_max as u64);
        let mut launch = st.device.launch_builder(f);
        launch.arg(&p).arg(&rp).arg(&ci).arg(&rows);
        launch.arg(&n_block).arg(&n_warp).arg(&light_max);
        // SAFETY: the structure holds nrows + 1 row pointers and nnz column indices; `rows`
        // holds n_block + n_warp row numbers below nrows (null only when both are 0, and
        // then never read); x has ncols elements and y nrows, as the callers check.
        unsafe {
            launch
                .arg(&x)
                .arg(&y)
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))
        }
    }
}

/// The tiers and the row list (long rows longest first, then medium rows in order) for rows
/// of lengths `len(i)`.
fn bin_rows(nrows: usize, nnz: usize, len: impl Fn(usize) -> usize) -> (HybridTiers, Vec<u64>) {
    let light_lanes = light_lanes(nrows, nnz);
    let light_max = LIGHT_ROUNDS * light_lanes as usize;
    let block_min = BLOCK_MIN.max(light_max);
    let mut long: Vec<(usize, u64)> = Vec::new();
    let mut medium: Vec<u64> = Vec::new();
    for i in 0..nrows {
        let l = len(i);
        if l > block_min {
            long.push((l, i as u64));
        } else if l > light_max {
            medium.push(i as u64);
        }
    }
    long.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let tiers = HybridTiers {
        light_lanes,
        light_max,
        warp_rows: medium.len(),
        block_rows: long.len(),
    };
    let mut list: Vec<u64> = long.into_iter().map(|(_, i)| i).collect();
    list.extend(medium);
    (tiers, list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skew_picks_the_hybrid_only_for_hubs() {
        assert!(is_skewed(1_000_000, 20_000_000, 5000)); // Barabási–Albert, m = 10
        assert!(is_skewed(100, 200, 3000)); // mostly tiny rows and one hub
        assert!(!is_skewed(100, 700, 7)); // 3D Laplacian
        assert!(!is_skewed(100, 3400, 40)); // spin bath
        assert!(!is_skewed(10, 10, 12)); // a row of 12 is light anyway
        assert!(!is_skewed(0, 0, 0));
    }

    #[test]
    fn rows_fall_into_exactly_one_tier() {
        // Mean 8 → 2 lanes, light rows up to 32 entries.
        let lens = [0usize, 3, 32, 33, 1024, 1025, 5000, 7, 40, 2000];
        let nnz = 8 * lens.len();
        let (t, list) = bin_rows(lens.len(), nnz, |i| lens[i]);
        assert_eq!(t.light_lanes, 2);
        assert_eq!(t.light_max, 32);
        assert_eq!((t.block_rows, t.warp_rows), (3, 3));
        // Long rows longest first, then medium rows in row order.
        assert_eq!(list, vec![6, 9, 5, 3, 4, 8]);
        // Every listed row is exactly one the light tier skips.
        for (i, &l) in lens.iter().enumerate() {
            assert_eq!(l > t.light_max, list.contains(&(i as u64)), "row {i}");
        }
        // Lanes of 32: light rows up to 512, block rows above 1024.
        let (t, _) = bin_rows(4, 4 * 200, |i| [100, 600, 1100, 0][i]);
        assert_eq!((t.light_lanes, t.light_max), (32, 512));
        assert_eq!((t.warp_rows, t.block_rows), (1, 1));
        let (t, list) = bin_rows(0, 0, |_| 0);
        assert_eq!((t.light_lanes, t.warp_rows, t.block_rows), (1, 0, 0));
        assert!(list.is_empty());
    }
}
