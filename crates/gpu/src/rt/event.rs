//! CUDA events: timing on the device's clock, and ordering between devices' streams.

use super::device::Device;
use super::driver::check_raw;
use cudarc::driver::sys;
use matexp_core::{Error, Result};
use std::fmt;
use std::sync::Arc;

/// A CUDA event of one device.
pub struct Event {
    ev: sys::CUevent,
    device: Arc<Device>,
}

// SAFETY: event handles may be used from any thread with the owning context bound.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Event(gpu:{})", self.device.ordinal())
    }
}

impl Event {
    /// A timing event (use [`Event::sync_only`] for pure ordering, which is cheaper).
    pub fn new(device: &Arc<Device>) -> Result<Self> {
        Self::with_flags(device, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
    }

    /// An event without timing, for ordering streams.
    pub fn sync_only(device: &Arc<Device>) -> Result<Self> {
        Self::with_flags(device, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32)
    }

    fn with_flags(device: &Arc<Device>, flags: u32) -> Result<Self> {
        device.bind()?;
        let mut ev = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check_raw("cuEventCreate", unsafe {
            sys::cuEventCreate(&mut ev, flags)
        })?;
        Ok(Event {
            ev,
            device: device.clone(),
        })
    }

    /// The device whose stream the event is recorded on.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Records the event after all work queued so far on the device's stream.
    pub fn record(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid event and stream of the same context.
        check_raw("cuEventRecord", unsafe {
            sys::cuEventRecord(self.ev, self.device.cu_stream())
        })
    }

    /// Makes `device`'s stream wait (on the device, not the host) until this event has
    /// completed; `device` may be another GPU.
    pub fn make_wait(&self, device: &Device) -> Result<()> {
        device.bind()?;
        // SAFETY: valid handles; cross-device waits are allowed.
        check_raw("cuStreamWaitEvent", unsafe {
            sys::cuStreamWaitEvent(device.cu_stream(), self.ev, 0)
        })
    }

    /// Blocks the host until the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid event.
        check_raw("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(self.ev)
        })
    }

    /// Milliseconds between `self` (earlier) and `end`, both recorded and completed.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        if self.device.ordinal() != end.device.ordinal() {
            return Err(Error::invalid(
                "end",
                format!("gpu:{}", end.device.ordinal()),
                format!(
                    "events of different devices (gpu:{})",
                    self.device.ordinal()
                ),
            ));
        }
        end.synchronize()?;
        let mut ms = 0f32;
        // SAFETY: both events are recorded and complete.
        check_raw("cuEventElapsedTime", unsafe {
            sys::cuEventElapsedTime_v2(&mut ms, self.ev, end.ev)
        })?;
        Ok(ms as f64)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: created by cuEventCreate and destroyed once.
            let _ = unsafe { sys::cuEventDestroy_v2(self.ev) };
        }
    }
}

/// Times `reps` runs of `f` with device events (after `warmup` untimed runs) and returns the
/// per-run times in seconds, sorted ascending. `f` must only queue work on `device`'s stream
/// (or on streams that `device`'s stream waits for before the end event).
pub fn time_runs(
    device: &Arc<Device>,
    warmup: usize,
    reps: usize,
    f: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    time_batched(device, warmup, reps, 1, f)
}

/// Times `reps` batches of `batch` back-to-back runs of `f` with device events (after
/// `warmup` untimed runs) and returns the per-run time of each batch in seconds, sorted
/// ascending. Where [`time_runs`] brackets each run, so that a short kernel's time also holds
/// the host's submission of its launch (a few microseconds while the device waits), here the
/// runs are queued one after another as a solver queues its products, and the figure is what
/// one run adds to such a sequence. `batch` is at least 1; `f` as for [`time_runs`].
pub fn time_batched(
    device: &Arc<Device>,
    warmup: usize,
    reps: usize,
    batch: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    let batch = batch.max(1);
    for _ in 0..warmup {
        f()?;
    }
    device.synchronize()?;
    let start = Event::new(device)?;
    let end = Event::new(device)?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        start.record()?;
        for _ in 0..batch {
            f()?;
        }
        end.record()?;
        times.push(start.elapsed_ms(&end)? * 1e-3 / batch as f64);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times)
}

/// The median of sorted samples (the mean of the middle two for an even count).
pub fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}
