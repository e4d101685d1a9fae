//! The fused Lanczos step of [`crate::GpuBackend`]: α_j, β_{j+1} stay in a coefficient array
//! in device memory, so a step queues five launches and never waits for the device.
//!
//! With `c` the array (`c[2i] = α_i`, `c[2i + 1] = β_{i+1}`) and w = A·q_j on entry:
//!
//! 1. `dot_partial` + `finish_sum` (width 2) into `c + 2j`: α_j = Re⟨q_j, w⟩ at `c[2j]` (its
//!    imaginary part lands in `c[2j + 1]`, overwritten in 3);
//! 2. `lanczos_update`: w ← w − α_j·q_j − β_j·q_{j−1}, reading both from `c`, with Blue's
//!    per-block sums of squares of the new w;
//! 3. `lanczos_beta`: β_{j+1} = ‖w‖₂ from those partials, at `c[2j + 1]`;
//! 4. `lanczos_scale`: w ← w/β_{j+1} (0 when β_{j+1} = 0).
//!
//! **Memory traffic** (n elements of s bytes): 2ns (dot) + 4ns (update; 3ns at j = 0) + 2ns
//! (scale) = 8ns per step, plus a few kilobytes of partials; the three-term recurrence needs
//! at least the 2ns of the dot and the 4ns of the update, so only the scaling pass (2ns) is
//! above the minimum of an operator-agnostic step.
//!
//! **Accuracy.** The dot product and the sums of squares accumulate in double precision for
//! every scalar type (the reductions of `reduce.cu`), in a fixed order, so a step is
//! reproducible run to run; β is overflow- and underflow-safe (Blue's three bins, combined on
//! the device as LAPACK's `dnrm2` does). A plain double sum of squares would do for
//! normalized Lanczos vectors (‖w‖ ≤ ‖A‖), but not for operators scaled near the range's
//! ends, and the bins cost nothing extra in a memory-bound pass.

use super::reduce::with_partials;
use super::{LANCZOS_BETA, LANCZOS_SCALE, LANCZOS_UPDATE};
use crate::rt::{Device, LaunchConfig};
use matexp_core::{Result, Scalar};
use matexp_cuda_sys::{MX_MAX_PARTIALS, MX_REDUCE_THREADS};

/// Queues α_j = Re⟨q_j, w⟩ into `c[2j]` (`dot_partial` + `finish_sum`; the imaginary part
/// lands in `c[2j + 1]`, overwritten by [`lanczos_finish`]).
pub(crate) fn lanczos_alpha<S: Scalar>(
    device: &Device,
    n: usize,
    j: usize,
    q: u64,
    w: u64,
    c: u64,
) -> Result<()> {
    super::reduce::dot_into::<S>(device, n, q, w, c + (16 * j) as u64)
}

/// Queues the rest of one Lanczos step on `n` elements once `c[2j] = α_j`: `q_prev` (0 for
/// none), `q`, `w` are device addresses of vectors of `S`, `c` of at least 2j + 2 doubles.
pub(crate) fn lanczos_finish<S: Scalar>(
    device: &Device,
    n: usize,
    j: usize,
    q_prev: u64,
    q: u64,
    w: u64,
    c: u64,
) -> Result<()> {
    let (n64, j64) = (n as u64, j as u64);
    with_partials(device, |partials| {
        let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
        let update = LANCZOS_UPDATE.for_scalar::<S>(device)?;
        // SAFETY: q, w (and q_prev unless 0) hold n elements of S, c holds 2j + 2 doubles
        // (checked by the caller), partials holds `grid` ≤ MX_MAX_PARTIALS rows of three
        // doubles; w does not overlap q or q_prev (distinct basis vectors).
        unsafe {
            device
                .launch_builder(update)
                .arg(&n64)
                .arg(&c)
                .arg(&j64)
                .arg(&q)
                .arg(&q_prev)
                .arg(&w)
                .arg(&partials)
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))?
        };
        let beta = LANCZOS_BETA.get(device)?;
        // SAFETY: partials holds the `grid` rows written above; c holds 2j + 2 doubles.
        unsafe {
            device
                .launch_builder(beta)
                .arg(&grid)
                .arg(&partials)
                .arg(&c)
                .arg(&j64)
                .launch(LaunchConfig::linear(1, MX_REDUCE_THREADS))
        }
    })?;
    let scale = LANCZOS_SCALE.for_scalar::<S>(device)?;
    // SAFETY: w holds n elements of S; c holds 2j + 2 doubles.
    unsafe {
        device
            .launch_builder(scale)
            .arg(&n64)
            .arg(&c)
            .arg(&j64)
            .arg(&w)
            .launch(LaunchConfig::grid_stride(device, n, MX_REDUCE_THREADS))
    }
}
