//! The Lanczos steps of [`crate::GpuBackend`]: α_j, β_{j+1} stay in a coefficient array in
//! device memory, so a step never waits for the device.
//!
//! With `c` the array (`c[2i] = α_i`, `c[2i + 1] = β_{i+1}`):
//!
//! **The Pythagorean step** (what `Lanczos` runs; [`Backend::lanczos_update`]): the product
//! leaves w = A·q_j − β_j·q_{j−1} and `sums` = (Re⟨q_j, w⟩, Im⟨q_j, w⟩, ‖w‖², ‖q_j‖²) — in its
//! own pass for CSR matrices (`spmv_csr_lanczos`), else through `lanczos_sums` (one pass
//! after the product) — then `lanczos_pythag_update` computes α_j and β_{j+1}² =
//! ‖w‖² − 2α_j·Re⟨q_j, w⟩ + α_j²‖q_j‖² in every block and, where that keeps at least 1/16 of
//! ‖w‖², writes q_{j+1} = (w − α_j q_j)/β_{j+1} in one pass (reads 2n, writes n);
//! otherwise it writes w − α_j q_j with Blue's sums of squares and `lanczos_beta_if` /
//! `lanczos_scale_if` finish by the exact norm (they return at once when not needed).
//! Traffic beside the product: n (q_{j−1} in the product) + 3n, against 8n for the
//! classical step below.
//!
//! **The deferred form** (what `Lanczos` runs on `GpuCsr`; [`Backend::lanczos_settle`]):
//! `lanczos_pythag_update` with `defer` writes α_j, β_{j+1} and leaves a trusted w as it
//! is; the next product (`spmv_csr_lanczos_advance`) gathers q_{j+1} = (w − α_j q_j)/β_{j+1}
//! from w and q_j, writes it once and forms w_{j+1} with its sums. Traffic beside the
//! product: n (q_j) + n (w, read) + n (q_{j+1}, written): 3n against 4n, and one launch
//! pass fewer over memory. Where the settle does not trust β it finishes as the
//! Pythagorean step does and the product reads w as q_{j+1} (`sums[4]` = 1).
//!
//! [`Backend::lanczos_settle`]: matexp_core::Backend::lanczos_settle
//!
//! **The classical step** ([`Backend::lanczos_step`], w = A·q_j on entry):
//! 1. `dot_partial` + `finish_sum` (width 2) into `c + 2j`: α_j = Re⟨q_j, w⟩;
//! 2. `lanczos_update`: w ← w − α_j·q_j − β_j·q_{j−1}, with Blue's per-block sums of squares;
//! 3. `lanczos_beta`: β_{j+1} = ‖w‖₂ at `c[2j + 1]`;
//! 4. `lanczos_scale`: w ← w/β_{j+1} (0 when β_{j+1} = 0).
//!
//! [`Backend::lanczos_update`]: matexp_core::Backend::lanczos_update
//! [`Backend::lanczos_step`]: matexp_core::Backend::lanczos_step
//!
//! **Accuracy.** The dot product and the sums of squares accumulate in double precision for
//! every scalar type (the reductions of `reduce.cu`), in a fixed order, so a step is
//! reproducible run to run; β is overflow- and underflow-safe (Blue's three bins, combined on
//! the device as LAPACK's `dnrm2` does). A plain double sum of squares would do for
//! normalized Lanczos vectors (‖w‖ ≤ ‖A‖), but not for operators scaled near the range's
//! ends, and the bins cost nothing extra in a memory-bound pass.

use super::reduce::{Finish, reduce_into, with_partials};
use super::{
    LANCZOS_BETA, LANCZOS_BETA_IF, LANCZOS_FORM, LANCZOS_PYTHAG_UPDATE, LANCZOS_SCALE,
    LANCZOS_SCALE_IF, LANCZOS_SUMS, LANCZOS_UPDATE,
};
use crate::rt::{Device, Function, LaunchConfig};
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
    let update = LANCZOS_UPDATE.for_scalar::<S>(device)?;
    let finish = StepEnd {
        beta: LANCZOS_BETA.get(device)?,
        scale: LANCZOS_SCALE.for_scalar::<S>(device)?,
        flag: None,
    };
    update_then_finish(device, n, j, w, c, finish, |grid, partials| {
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
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))
        }
    })
}

/// The kernels that end a step after its update: β_{j+1} from the update's partial sums of
/// squares, then w ← w/β_{j+1}; both gated by the Pythagorean flag `sums[4]` when `flag` is
/// the address of the sums (they return at once where the update was trusted).
struct StepEnd {
    beta: Function,
    scale: Function,
    flag: Option<u64>,
}

/// Queues `update(grid, partials)` (a grid-stride kernel over n elements writing `grid` rows
/// of sums of squares), then the β and scaling kernels of `finish`.
#[allow(clippy::too_many_arguments)]
fn update_then_finish(
    device: &Device,
    n: usize,
    j: usize,
    w: u64,
    c: u64,
    finish: StepEnd,
    update: impl FnOnce(u32, u64) -> Result<()>,
) -> Result<()> {
    let (n64, j64) = (n as u64, j as u64);
    with_partials(device, |partials| {
        let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
        update(grid, partials)?;
        let mut launch = device.launch_builder(finish.beta);
        launch.arg(&grid).arg(&partials).arg(&c).arg(&j64);
        if let Some(flag) = finish.flag.as_ref() {
            launch.arg(flag);
        }
        // SAFETY: partials holds the `grid` rows the update wrote (when it flagged, for the
        // gated kernel, which reads nothing otherwise); c holds 2j + 2 doubles, the sums
        // LANCZOS_SUMS (checked by the callers).
        unsafe { launch.launch(LaunchConfig::linear(1, MX_REDUCE_THREADS)) }
    })?;
    let mut launch = device.launch_builder(finish.scale);
    launch.arg(&n64).arg(&c).arg(&j64);
    if let Some(flag) = finish.flag.as_ref() {
        launch.arg(flag);
    }
    // SAFETY: w holds n elements of S; c and the sums as above.
    unsafe {
        launch
            .arg(&w)
            .launch(LaunchConfig::grid_stride(device, n, MX_REDUCE_THREADS))
    }
}

/// Queues the sums pass of the Pythagorean step on `n` elements (`lanczos_sums`: w ← w −
/// β_j·q_prev unless `q_prev` is 0, rows of (Re⟨q, w⟩, Im⟨q, w⟩, ‖w‖², ‖q‖²)) and their
/// `finish_sum` into `sums[0..4]`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lanczos_sums<S: Scalar>(
    device: &Device,
    n: usize,
    j: usize,
    q_prev: u64,
    q: u64,
    w: u64,
    c: u64,
    sums: u64,
) -> Result<()> {
    let (n64, j64) = (n as u64, j as u64);
    let f = LANCZOS_SUMS.for_scalar::<S>(device)?;
    reduce_into(device, Finish::Sum(4), sums, |partials| {
        let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
        // SAFETY: q, w (and q_prev unless 0) hold n elements of S, c at least 2j + 2
        // doubles (checked by the caller); partials holds `grid` ≤ MX_MAX_PARTIALS rows of
        // four doubles; w overlaps neither q nor q_prev.
        unsafe {
            device
                .launch_builder(f)
                .arg(&n64)
                .arg(&c)
                .arg(&j64)
                .arg(&q)
                .arg(&q_prev)
                .arg(&w)
                .arg(&partials)
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))?
        };
        Ok(grid)
    })
}

/// Queues the Pythagorean update (`lanczos_pythag_update`), then `lanczos_beta_if` and
/// `lanczos_scale_if`, which finish the step by the exact norm only where the update
/// flagged it (they return at once otherwise). `defer` (the settle of the deferred form)
/// leaves a trusted w unscaled for the reader of q_{j+1} (`lanczos_form`,
/// `spmv_csr_lanczos_advance`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn lanczos_pythag_update<S: Scalar>(
    device: &Device,
    n: usize,
    j: usize,
    q: u64,
    w: u64,
    c: u64,
    sums: u64,
    defer: bool,
) -> Result<()> {
    let (n64, j64, defer) = (n as u64, j as u64, u32::from(defer));
    let update = LANCZOS_PYTHAG_UPDATE.for_scalar::<S>(device)?;
    let finish = StepEnd {
        beta: LANCZOS_BETA_IF.get(device)?,
        scale: LANCZOS_SCALE_IF.for_scalar::<S>(device)?,
        flag: Some(sums),
    };
    update_then_finish(device, n, j, w, c, finish, |grid, partials| {
        // SAFETY: q, w hold n elements of S and do not overlap, c at least 2j + 2 doubles,
        // sums LANCZOS_SUMS doubles (checked by the caller); partials holds `grid` rows of
        // three doubles.
        unsafe {
            device
                .launch_builder(update)
                .arg(&n64)
                .arg(&c)
                .arg(&j64)
                .arg(&sums)
                .arg(&q)
                .arg(&w)
                .arg(&partials)
                .arg(&defer)
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))
        }
    })
}

/// Queues `lanczos_form`: q_next ← q_{j+1} of a settled deferred step (formed from w and
/// q_j, or w itself where the settle took the exact norm; decided on the device).
pub(crate) fn lanczos_form<S: Scalar>(
    device: &Device,
    n: usize,
    j: usize,
    c: u64,
    sums: u64,
    q: u64,
    w: u64,
    q_next: u64,
) -> Result<()> {
    let (n64, j64) = (n as u64, j as u64);
    let f = LANCZOS_FORM.for_scalar::<S>(device)?;
    // SAFETY: q, w, q_next hold n elements of S, q_next overlapping neither; c holds at
    // least 2j + 2 doubles and sums LANCZOS_SUMS (checked by the caller).
    unsafe {
        device
            .launch_builder(f)
            .arg(&n64)
            .arg(&c)
            .arg(&j64)
            .arg(&sums)
            .arg(&q)
            .arg(&w)
            .arg(&q_next)
            .launch(LaunchConfig::grid_stride(device, n, MX_REDUCE_THREADS))
    }
}
