//! Reductions on the device: dot products, overflow-safe Euclidean norms, max-abs.
//!
//! Each reduction is two launches (a grid-stride partial pass writing one row per block,
//! and a one-block finish pass) followed by an asynchronous copy of a few doubles to pinned
//! host memory: the host waits once, when it asks for the value. Accumulation is in double
//! precision for every scalar type, and the summation order depends only on the device's
//! SM count, so results are reproducible.
//!
//! The norm follows Blue's algorithm (LAPACK `dnrm2`, 2017): squares are accumulated in
//! three power-of-two-scaled bins (tiny, mid-range, huge) so that neither overflow (values
//! of 10¹⁹⁵ and beyond) nor underflow of the squares loses accuracy, in a single pass; the
//! bins are combined on the host by [`ssq_norm`]. The error is a few ulps of `f64` before
//! rounding to the vector's precision.

use super::{AMAX_PARTIAL, DOT_PARTIAL, FINISH_MAX, FINISH_SUM, NRM2_PARTIAL, SUM_PARTIAL};
use crate::rt::driver::{check, check_raw};
use crate::rt::{Device, DeviceElement, DeviceSlice, LaunchConfig, MAX_DEVICES};
use cudarc::driver::{result, sys};
use matexp_core::{Error, RealScalar, Result, Scalar, c64, check_dim};
use matexp_cuda_sys::{
    MX_MAX_PARTIALS, MX_REDUCE_THREADS, MX_SSQ_SBIG_EXP2, MX_SSQ_SSML_EXP2, MxSsqPartial,
};
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// Doubles per reduction slot (the widest finish writes 3: a sum of squares).
pub(crate) const SLOT_WIDTH: usize = 4;

/// Where one reduction lands: a few doubles on the device, their pinned host copy, and an
/// event marking the copy's completion. Slots are pooled per device.
#[derive(Debug)]
pub(crate) struct Slot {
    result: sys::CUdeviceptr,
    host: *mut f64,
    event: sys::CUevent,
}
// SAFETY: the handles are process-wide; every use binds the owning context first.
unsafe impl Send for Slot {}
unsafe impl Sync for Slot {}

/// A device's reduction workspace: the per-block partials of the reduction being queued
/// (locked from the partial launch to its finish launch, so that concurrent callers cannot
/// interleave the two) and the pool of result slots. Allocated once, never freed.
#[derive(Debug)]
struct Workspace {
    partials: Mutex<sys::CUdeviceptr>,
    slots: Mutex<Vec<Slot>>,
}

fn workspace(device: &Device) -> Result<&'static Workspace> {
    static WORKSPACES: [OnceLock<std::result::Result<Workspace, String>>; MAX_DEVICES] =
        [const { OnceLock::new() }; MAX_DEVICES];
    WORKSPACES[device.ordinal()]
        .get_or_init(|| {
            device.bind().map_err(|e| e.to_string())?;
            let bytes = MX_MAX_PARTIALS as usize * SLOT_WIDTH * 8;
            // SAFETY: plain allocation in the current context, kept for the process.
            let partials = check(
                &format!("gpu:{}: cuMemAlloc (reduction partials)", device.ordinal()),
                unsafe { result::malloc_sync(bytes) },
            )
            .map_err(|e| e.to_string())?;
            Ok(Workspace {
                partials: Mutex::new(partials),
                slots: Mutex::new(Vec::new()),
            })
        })
        .as_ref()
        .map_err(|e| Error::Device(e.clone()))
}

/// Runs `f` with this device's partials workspace (`MX_MAX_PARTIALS` rows of up to
/// [`SLOT_WIDTH`] doubles) locked, for a partial pass and the finish that consumes it
/// (queued back to back, so no other reduction can overwrite the rows in between).
pub(crate) fn with_partials<R>(device: &Device, f: impl FnOnce(u64) -> Result<R>) -> Result<R> {
    let ws = workspace(device)?;
    let scratch = ws
        .partials
        .lock()
        .map_err(|_| Error::Device("reduction scratch poisoned".into()))?;
    f(*scratch)
}

/// How the finish kernel combines partial rows.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Finish {
    /// Column sums of `width` doubles per row.
    Sum(u32),
    /// NaN-propagating maximum of one double per row.
    Max,
}

/// Runs `partial` (which launches a partial pass writing at most `MX_MAX_PARTIALS` rows of
/// the finish's width into the given scratch pointer and returns the row count), then the
/// finish kernel into `out` on the device.
pub(crate) fn reduce_into(
    device: &Device,
    finish: Finish,
    out: sys::CUdeviceptr,
    partial: impl FnOnce(sys::CUdeviceptr) -> Result<u32>,
) -> Result<()> {
    let ws = workspace(device)?;
    let scratch = ws
        .partials
        .lock()
        .map_err(|_| Error::Device("reduction scratch poisoned".into()))?;
    let partials: u64 = *scratch;
    let n = partial(partials)?;
    let cfg = LaunchConfig::linear(1, MX_REDUCE_THREADS);
    match finish {
        Finish::Sum(width) => {
            let f = FINISH_SUM.get(device)?;
            // SAFETY: partials holds n rows of `width` doubles written by `partial`; out
            // holds at least `width` doubles (callers check).
            unsafe {
                device
                    .launch_builder(f)
                    .arg(&n)
                    .arg(&width)
                    .arg(&partials)
                    .arg(&out)
                    .launch(cfg)
            }
        }
        Finish::Max => {
            let f = FINISH_MAX.get(device)?;
            // SAFETY: as above with width 1.
            unsafe {
                device
                    .launch_builder(f)
                    .arg(&n)
                    .arg(&partials)
                    .arg(&out)
                    .launch(cfg)
            }
        }
    }
}

/// [`reduce_into`] a pooled slot, and the slot's copy to pinned host memory queued.
pub(crate) fn reduce(
    device: &Arc<Device>,
    finish: Finish,
    partial: impl FnOnce(sys::CUdeviceptr) -> Result<u32>,
) -> Result<PendingSlot> {
    let slot = take_slot(device)?;
    let mut pending = PendingSlot {
        device: device.clone(),
        slot: Some(slot),
    };
    let out = pending.slot.as_ref().map(|s| s.result).unwrap_or(0);
    reduce_into(device, finish, out, partial)?;
    pending.queue_copy()?;
    Ok(pending)
}

fn take_slot(device: &Device) -> Result<Slot> {
    let ws = workspace(device)?;
    if let Some(s) = ws
        .slots
        .lock()
        .map_err(|_| Error::Device("slot pool poisoned".into()))?
        .pop()
    {
        return Ok(s);
    }
    device.bind()?;
    let bytes = SLOT_WIDTH * 8;
    // SAFETY: plain allocations in the current context; freed never (pooled).
    let result = check("cuMemAlloc (reduction slot)", unsafe {
        result::malloc_sync(bytes)
    })?;
    // A reduction writes only the words it needs and the copy to the host takes the whole
    // slot: zeroed once here, so no copy ever reads memory nothing wrote (compute-sanitizer's
    // initcheck flagged every reduction before).
    // SAFETY: `bytes` bytes of the allocation above.
    check_raw("cuMemsetD8 (reduction slot)", unsafe {
        sys::cuMemsetD8_v2(result, 0, bytes)
    })?;
    // SAFETY: as above.
    let host = check("cuMemHostAlloc (reduction slot)", unsafe {
        result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
    })? as *mut f64;
    let mut event = std::ptr::null_mut();
    // SAFETY: writes one event handle.
    check_raw("cuEventCreate", unsafe {
        sys::cuEventCreate(
            &mut event,
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
        )
    })?;
    Ok(Slot {
        result,
        host,
        event,
    })
}

/// A reduction result on its way to the host from one device.
#[derive(Debug)]
pub(crate) struct PendingSlot {
    device: Arc<Device>,
    slot: Option<Slot>,
}

impl PendingSlot {
    fn queue_copy(&mut self) -> Result<()> {
        let Some(slot) = self.slot.as_ref() else {
            return Ok(());
        };
        self.device.bind()?;
        // SAFETY: the pinned host buffer and the device slot hold SLOT_WIDTH doubles.
        check_raw("cuMemcpyDtoHAsync (reduction)", unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                slot.host as *mut c_void,
                slot.result,
                SLOT_WIDTH * 8,
                self.device.cu_stream(),
            )
        })?;
        // SAFETY: valid event and stream.
        check_raw("cuEventRecord (reduction)", unsafe {
            sys::cuEventRecord(slot.event, self.device.cu_stream())
        })
    }

    /// Whether the result has reached the host (never blocks).
    pub(crate) fn is_ready(&self) -> bool {
        self.slot.as_ref().is_none_or(|s| {
            // SAFETY: valid event.
            let r = unsafe { sys::cuEventQuery(s.event) };
            r == sys::CUresult::CUDA_SUCCESS
        })
    }

    /// Waits for the copy and returns the slot's doubles.
    pub(crate) fn wait(&self) -> Result<[f64; SLOT_WIDTH]> {
        let slot = self
            .slot
            .as_ref()
            .ok_or_else(|| Error::Device("reduction slot already consumed".into()))?;
        self.device.bind()?;
        // SAFETY: valid event; after it completes the pinned buffer holds the result.
        check_raw(
            &format!("gpu:{}: waiting for a reduction", self.device.ordinal()),
            unsafe { sys::cuEventSynchronize(slot.event) },
        )?;
        let mut out = [0.0; SLOT_WIDTH];
        // SAFETY: the pinned buffer holds SLOT_WIDTH doubles, written by the completed copy.
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(slot.host, SLOT_WIDTH) });
        Ok(out)
    }
}

impl Drop for PendingSlot {
    fn drop(&mut self) {
        if let Some(s) = self.slot.take() {
            // Reuse is stream-ordered after this reduction, so an unread slot is safe to
            // hand out again.
            if let Ok(mut v) = workspace(&self.device).and_then(|ws| {
                ws.slots
                    .lock()
                    .map_err(|_| Error::Device("slot pool poisoned".into()))
            }) {
                v.push(s);
            }
        }
    }
}

/// Combines Blue's three scaled sums of squares into √(Σ aᵢ²), as LAPACK's `dnrm2` does:
/// when huge components exist the mid-range sum is folded into them (smaller terms cannot
/// matter), when only tiny and mid-range exist both are unscaled and added as
/// `ymax·√(1 + (ymin/ymax)²)`. NaN propagates; an infinite component gives +∞.
pub fn ssq_norm(s: &MxSsqPartial) -> f64 {
    let sbig = 2f64.powi(MX_SSQ_SBIG_EXP2);
    let ssml = 2f64.powi(MX_SSQ_SSML_EXP2 as i32);
    let (mut abig, amed, asml) = (s.big, s.medium, s.small);
    if abig > 0.0 {
        if amed > 0.0 || amed.is_nan() {
            abig += (amed * sbig) * sbig;
        }
        abig.sqrt() / sbig
    } else if asml > 0.0 {
        if amed > 0.0 || amed.is_nan() {
            let amed = amed.sqrt();
            let asml = asml.sqrt() / ssml;
            let (ymin, ymax) = if asml > amed {
                (amed, asml)
            } else {
                (asml, amed)
            };
            ymax * (1.0 + (ymin / ymax) * (ymin / ymax)).sqrt()
        } else {
            asml.sqrt() / ssml
        }
    } else {
        amed.sqrt()
    }
}

/// Adds two partial sums of squares (they are sums, so partials of blocks or devices add).
pub fn ssq_add(a: MxSsqPartial, b: MxSsqPartial) -> MxSsqPartial {
    MxSsqPartial {
        small: a.small + b.small,
        medium: a.medium + b.medium,
        big: a.big + b.big,
    }
}

/// A reduction result still on its way from one or more devices. [`Pending::wait`] blocks
/// until it has arrived (one host synchronization per device involved); until then the host
/// is free to queue more work, which is how hot loops avoid a round trip per iteration.
pub struct Pending<T> {
    slots: Vec<PendingSlot>,
    combine: fn(&[[f64; SLOT_WIDTH]]) -> T,
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pending({} device(s))", self.slots.len())
    }
}

impl<T> Pending<T> {
    pub(crate) fn new(slots: Vec<PendingSlot>, combine: fn(&[[f64; SLOT_WIDTH]]) -> T) -> Self {
        Pending { slots, combine }
    }

    /// Whether every device has delivered its part (never blocks).
    pub fn is_ready(&self) -> bool {
        self.slots.iter().all(PendingSlot::is_ready)
    }

    /// Waits for the result. Asynchronous kernel faults of the work before it surface here.
    pub fn wait(self) -> Result<T> {
        let parts = self
            .slots
            .iter()
            .map(PendingSlot::wait)
            .collect::<Result<Vec<_>>>()?;
        Ok((self.combine)(&parts))
    }
}

pub(crate) fn combine_norm<R: RealScalar>(parts: &[[f64; SLOT_WIDTH]]) -> R {
    let total = parts.iter().fold(MxSsqPartial::default(), |acc, p| {
        ssq_add(
            acc,
            MxSsqPartial {
                small: p[0],
                medium: p[1],
                big: p[2],
            },
        )
    });
    R::from_f64(ssq_norm(&total))
}

pub(crate) fn combine_dot<S: Scalar>(parts: &[[f64; SLOT_WIDTH]]) -> S {
    let (re, im) = parts
        .iter()
        .fold((0.0, 0.0), |(r, i), p| (r + p[0], i + p[1]));
    S::from_c64(c64::new(re, im))
}

pub(crate) fn combine_max<R: RealScalar>(parts: &[[f64; SLOT_WIDTH]]) -> R {
    let m = parts.iter().fold(0.0f64, |m, p| {
        if m.is_nan() || p[0].is_nan() {
            f64::NAN
        } else {
            m.max(p[0])
        }
    });
    R::from_f64(m)
}

/// Queues the partial and finish passes of Σ conj(xᵢ)·yᵢ over `n` elements at `x`, `y`.
pub(crate) fn dot_slot<S: Scalar>(
    device: &Arc<Device>,
    n: usize,
    x: u64,
    y: u64,
) -> Result<PendingSlot> {
    reduce(device, Finish::Sum(2), |partials| {
        dot_partial::<S>(device, n, x, y, partials)
    })
}

pub(crate) fn dot_partial<S: Scalar>(
    device: &Device,
    n: usize,
    x: u64,
    y: u64,
    partials: u64,
) -> Result<u32> {
    let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
    let f = DOT_PARTIAL.for_scalar::<S>(device)?;
    let n = n as u64;
    // SAFETY: x and y hold n elements of S; partials holds grid rows of 2 doubles.
    unsafe {
        device
            .launch_builder(f)
            .arg(&n)
            .arg(&x)
            .arg(&y)
            .arg(&partials)
            .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))?
    };
    Ok(grid)
}

/// Launches the one-operand partial pass `kernel` (`(n, x, partials)`) over `n` elements.
fn unary_partial<S: Scalar>(
    kernel: &'static crate::rt::Kernel,
    device: &Device,
    n: usize,
    x: u64,
    partials: u64,
) -> Result<u32> {
    let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
    let f = kernel.for_scalar::<S>(device)?;
    let n = n as u64;
    // SAFETY: x holds n elements of S; partials holds grid rows of the kernel's width.
    unsafe {
        device
            .launch_builder(f)
            .arg(&n)
            .arg(&x)
            .arg(&partials)
            .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))?
    };
    Ok(grid)
}

/// Queues Blue's partial sums of squares of `n` elements at `x`, and their finish.
pub(crate) fn nrm2_slot<S: Scalar>(device: &Arc<Device>, n: usize, x: u64) -> Result<PendingSlot> {
    reduce(device, Finish::Sum(3), |p| {
        unary_partial::<S>(&NRM2_PARTIAL, device, n, x, p)
    })
}

/// Queues max |xᵢ| over `n` elements at `x`.
pub(crate) fn amax_slot<S: Scalar>(device: &Arc<Device>, n: usize, x: u64) -> Result<PendingSlot> {
    reduce(device, Finish::Max, |p| {
        unary_partial::<S>(&AMAX_PARTIAL, device, n, x, p)
    })
}

/// Queues Σ xᵢ over `n` elements at `x`.
pub(crate) fn sum_slot<S: Scalar>(device: &Arc<Device>, n: usize, x: u64) -> Result<PendingSlot> {
    reduce(device, Finish::Sum(2), |p| {
        unary_partial::<S>(&SUM_PARTIAL, device, n, x, p)
    })
}

fn same_device<T: DeviceElement>(
    what: &'static str,
    a: &DeviceSlice<'_, T>,
    b: &DeviceSlice<'_, T>,
) -> Result<()> {
    if a.device().ordinal() != b.device().ordinal() {
        return Err(Error::invalid(
            what,
            format!("gpu:{}", b.device().ordinal()),
            format!(
                "operands must live on one device (gpu:{})",
                a.device().ordinal()
            ),
        ));
    }
    Ok(())
}

/// Σ conj(xᵢ)·yᵢ of two device ranges of equal length (the dot product of BLAS `dotc`),
/// accumulated in double precision in a fixed order (reproducible run to run), rounded to
/// `S`. Two launches and a copy of two doubles; the host waits only in [`Pending::wait`].
///
/// # Errors
/// [`Error::DimensionMismatch`](matexp_core::Error) for unequal lengths, an argument error
/// for ranges on different devices, [`Error::Unsupported`] for a scalar without kernels,
/// [`Error::Device`] when a launch fails.
pub fn dot<S: Scalar + DeviceElement>(
    x: &DeviceSlice<'_, S>,
    y: &DeviceSlice<'_, S>,
) -> Result<Pending<S>> {
    check_dim("dot: length of y", x.len(), y.len())?;
    same_device("y", x, y)?;
    let slot = dot_slot::<S>(x.device(), x.len(), x.device_ptr(), y.device_ptr())?;
    Ok(Pending::new(vec![slot], combine_dot::<S>))
}

/// ‖x‖₂ without overflow or underflow (Blue's three accumulators, see the module
/// documentation): a few ulps of `f64` before rounding to `S::Real`.
///
/// # Errors
/// As [`dot`].
pub fn nrm2<S: Scalar + DeviceElement>(x: &DeviceSlice<'_, S>) -> Result<Pending<S::Real>> {
    let slot = nrm2_slot::<S>(x.device(), x.len(), x.device_ptr())?;
    Ok(Pending::new(vec![slot], combine_norm::<S::Real>))
}

/// maxᵢ |xᵢ| (0 for an empty range, NaN when any element is NaN).
///
/// # Errors
/// As [`dot`].
pub fn amax<S: Scalar + DeviceElement>(x: &DeviceSlice<'_, S>) -> Result<Pending<S::Real>> {
    let slot = amax_slot::<S>(x.device(), x.len(), x.device_ptr())?;
    Ok(Pending::new(vec![slot], combine_max::<S::Real>))
}

/// Σ xᵢ, accumulated in double precision in a fixed order.
///
/// # Errors
/// As [`dot`].
pub fn sum<S: Scalar + DeviceElement>(x: &DeviceSlice<'_, S>) -> Result<Pending<S>> {
    let slot = sum_slot::<S>(x.device(), x.len(), x.device_ptr())?;
    Ok(Pending::new(vec![slot], combine_dot::<S>))
}

/// Which reduction [`reduce_on_device`] computes, and what it leaves in its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceReduction {
    /// Σ conj(xᵢ)·yᵢ: two doubles (re, im).
    Dot,
    /// Σ xᵢ: two doubles (re, im).
    Sum,
    /// Blue's scaled sums of squares: three doubles (small, medium, big) as an
    /// [`MxSsqPartial`], turned into ‖x‖₂ by [`ssq_norm`] (or on the device by a kernel
    /// that includes `common.cuh`).
    SumOfSquares,
    /// maxᵢ |xᵢ|: one double.
    MaxAbs,
}

impl DeviceReduction {
    /// Doubles the reduction writes.
    pub fn width(self) -> usize {
        match self {
            DeviceReduction::Dot | DeviceReduction::Sum => 2,
            DeviceReduction::SumOfSquares => 3,
            DeviceReduction::MaxAbs => 1,
        }
    }
}

/// Queues a reduction of `x` (and `y`, for [`DeviceReduction::Dot`]) whose result stays on
/// the device, in `out` ([`DeviceReduction::width`] doubles): a scalar a later kernel reads
/// as an argument, with no host round trip. Nothing waits.
///
/// # Errors
/// As [`dot`]; an argument error when `y` is missing for a dot product or `out` is too short.
pub fn reduce_on_device<S: Scalar + DeviceElement>(
    what: DeviceReduction,
    x: &DeviceSlice<'_, S>,
    y: Option<&DeviceSlice<'_, S>>,
    out: &DeviceSlice<'_, f64>,
) -> Result<()> {
    if out.len() < what.width() {
        return Err(Error::dim(
            "reduce_on_device: out length",
            what.width(),
            out.len(),
        ));
    }
    same_device_any(x.device(), out.device())?;
    let device = x.device();
    let (n, xp) = (x.len(), x.device_ptr());
    match what {
        DeviceReduction::Dot => {
            let y = y.ok_or_else(|| Error::invalid("y", "None", "a dot product needs y"))?;
            check_dim("dot: length of y", n, y.len())?;
            same_device("y", x, y)?;
            let yp = y.device_ptr();
            reduce_into(device, Finish::Sum(2), out.device_ptr(), |p| {
                dot_partial::<S>(device, n, xp, yp, p)
            })
        }
        DeviceReduction::Sum => reduce_into(device, Finish::Sum(2), out.device_ptr(), |p| {
            unary_partial::<S>(&SUM_PARTIAL, device, n, xp, p)
        }),
        DeviceReduction::SumOfSquares => {
            reduce_into(device, Finish::Sum(3), out.device_ptr(), |p| {
                unary_partial::<S>(&NRM2_PARTIAL, device, n, xp, p)
            })
        }
        DeviceReduction::MaxAbs => reduce_into(device, Finish::Max, out.device_ptr(), |p| {
            unary_partial::<S>(&AMAX_PARTIAL, device, n, xp, p)
        }),
    }
}

/// How the rows of a custom partial pass are combined (see [`reduce_partials`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartialRows {
    /// Column sums of rows of `width` doubles (1 to 4): sums, dot products, and Blue's sums of
    /// squares (`width` 3, an [`MxSsqPartial`] per row; [`norm_from_partials`] finishes it).
    Sum {
        /// Doubles per row.
        width: u32,
    },
    /// The NaN-propagating maximum of one double per row.
    Max,
}

/// Finishes a reduction whose partial pass is a crate's own kernel (a fused operator step
/// that also reduces its output, say): `partial` receives the device address of this
/// device's partials workspace and the most rows it may write (`MX_MAX_PARTIALS`), launches
/// its kernel writing one row per block, and returns the row count; the finish kernel then
/// combines the rows on the device and the result travels to the host as with [`dot`]. The
/// result's first `width` doubles are the combined row (the rest are unspecified).
///
/// # Errors
/// An argument error for a width outside 1..=4 or a row count above the limit; whatever
/// `partial` returns; [`Error::Device`] when a launch fails.
pub fn reduce_partials(
    device: &Arc<Device>,
    rows: PartialRows,
    partial: impl FnOnce(u64, u32) -> Result<u32>,
) -> Result<Pending<[f64; SLOT_WIDTH]>> {
    let finish = match rows {
        PartialRows::Sum { width } if (1..=SLOT_WIDTH as u32).contains(&width) => {
            Finish::Sum(width)
        }
        PartialRows::Sum { width } => {
            return Err(Error::invalid(
                "width",
                width,
                "partial rows hold 1 to 4 doubles",
            ));
        }
        PartialRows::Max => Finish::Max,
    };
    let slot = custom_slot(device, finish, partial)?;
    Ok(Pending::new(vec![slot], |parts| parts[0]))
}

/// [`reduce_partials`] for a kernel that writes Blue's sums of squares ([`MxSsqPartial`]
/// rows, e.g. with `block_store_ssq` of `common.cuh`): the Euclidean norm, overflow-safe.
///
/// # Errors
/// As [`reduce_partials`].
pub fn norm_from_partials(
    device: &Arc<Device>,
    partial: impl FnOnce(u64, u32) -> Result<u32>,
) -> Result<Pending<f64>> {
    let slot = custom_slot(device, Finish::Sum(3), partial)?;
    Ok(Pending::new(vec![slot], combine_norm::<f64>))
}

/// [`reduce`] with a caller's partial pass, its row count checked against the workspace.
fn custom_slot(
    device: &Arc<Device>,
    finish: Finish,
    partial: impl FnOnce(u64, u32) -> Result<u32>,
) -> Result<PendingSlot> {
    reduce(device, finish, |p| {
        let n = partial(p, MX_MAX_PARTIALS)?;
        if n > MX_MAX_PARTIALS {
            return Err(Error::invalid(
                "partial rows",
                n,
                format!("at most {MX_MAX_PARTIALS} fit the workspace"),
            ));
        }
        Ok(n)
    })
}

fn same_device_any(a: &Device, b: &Device) -> Result<()> {
    if a.ordinal() != b.ordinal() {
        return Err(Error::invalid(
            "out",
            format!("gpu:{}", b.ordinal()),
            format!("must live on the operand's device (gpu:{})", a.ordinal()),
        ));
    }
    Ok(())
}

/// Σ conj(xᵢ)·yᵢ over n elements of S into `out[0..2)` (re, im doubles) on the device:
/// `dot_partial` + `finish_sum`, no host wait.
pub(crate) fn dot_into<S: Scalar>(
    device: &Device,
    n: usize,
    x: u64,
    y: u64,
    out: u64,
) -> Result<()> {
    reduce_into(device, Finish::Sum(2), out, |p| {
        dot_partial::<S>(device, n, x, y, p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::norms;
    use proptest::prelude::*;

    /// Blue's binning done on the host, as the kernels do it.
    fn bin(x: &[f64]) -> MxSsqPartial {
        let tbig = 2f64.powi(matexp_cuda_sys::MX_SSQ_TBIG_EXP2 as i32);
        let tsml = 2f64.powi(matexp_cuda_sys::MX_SSQ_TSML_EXP2);
        let sbig = 2f64.powi(MX_SSQ_SBIG_EXP2);
        let ssml = 2f64.powi(MX_SSQ_SSML_EXP2 as i32);
        let mut s = MxSsqPartial::default();
        for &a in x {
            if a.abs() > tbig {
                s.big += (a * sbig) * (a * sbig);
            } else if a.abs() < tsml {
                s.small += (a * ssml) * (a * ssml);
            } else {
                s.medium += a * a;
            }
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Against the CPU backend's norm (an independent two-pass rescaling), across the
        /// whole exponent range, split into several partials as blocks and devices are.
        #[test]
        fn binned_norm_matches_the_cpu_norm(
            mant in proptest::collection::vec(-1.0f64..1.0, 1..200),
            exps in proptest::collection::vec(-320i32..300, 1..200),
            split in 1usize..5,
        ) {
            let x: Vec<f64> = mant.iter().zip(exps.iter().cycle())
                .map(|(m, e)| m * 10f64.powi(*e)).collect();
            let chunk = x.len().div_ceil(split);
            let total = x.chunks(chunk).map(bin).fold(MxSsqPartial::default(), ssq_add);
            let got = ssq_norm(&total);
            let want = norms::nrm2(&x);
            if want == 0.0 {
                prop_assert_eq!(got, 0.0);
            } else {
                prop_assert!(((got - want) / want).abs() < 1e-14, "got {got:e} want {want:e}");
            }
        }
    }

    #[test]
    fn norms_of_graph_centralities_do_not_overflow() {
        // e^A·1 on LiveJournal reached 1.89e195; its square is not a double.
        let x = vec![1.89e195, 3.0e194, 1.0, 1e-200];
        let got = ssq_norm(&bin(&x));
        let want = 1.89e195 * (1.0 + (3.0e194f64 / 1.89e195).powi(2)).sqrt();
        assert!(((got - want) / want).abs() < 1e-15, "{got:e}");
        let tiny = vec![3e-200, 4e-200];
        assert!((ssq_norm(&bin(&tiny)) / 5e-200 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn nan_and_infinity_propagate() {
        assert!(ssq_norm(&bin(&[1.0, f64::NAN, 1e300])).is_nan());
        assert!(ssq_norm(&bin(&[f64::NAN, 1e-300])).is_nan());
        assert_eq!(ssq_norm(&bin(&[1.0, f64::INFINITY])), f64::INFINITY);
        assert_eq!(ssq_norm(&MxSsqPartial::default()), 0.0);
    }

    #[test]
    fn device_partials_combine_like_one_sum() {
        let parts = [[1.0, 9.0, 0.0, 0.0], [0.0, 16.0, 0.0, 0.0]];
        assert_eq!(combine_norm::<f64>(&parts), 5.0);
        let d: c64 = combine_dot(&[[1.0, 2.0, 0.0, 0.0], [0.5, -1.0, 0.0, 0.0]]);
        assert_eq!(d, c64::new(1.5, 1.0));
        assert_eq!(combine_dot::<f64>(&[[1.0, 2.0, 0.0, 0.0]]), 1.0);
        assert!(combine_max::<f32>(&[[1.0; 4], [f64::NAN; 4], [3.0; 4]]).is_nan());
        assert_eq!(combine_max::<f64>(&[[1.0; 4], [3.0; 4]]), 3.0);
    }
}
