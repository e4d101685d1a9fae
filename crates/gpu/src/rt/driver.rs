//! Loading the CUDA driver and turning its failures into [`Error::Device`].
//!
//! cudarc loads `libcuda` on first use and panics when it is missing (or lacks a symbol).
//! Everything here probes the library first and runs the first driver calls under
//! `catch_unwind`, so a machine without a driver or GPU gets a typed error and the CPU
//! backend keeps working.

use cudarc::driver::{DriverError, result, sys};
use matexp_core::{Error, Result};
use std::sync::OnceLock;

/// `what: CUDA_ERROR_NAME (description)` as an [`Error::Device`].
pub(crate) fn driver_error(what: &str, e: DriverError) -> Error {
    let name = e
        .error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    Error::Device(format!("{what}: {name} ({text})"))
}

/// Maps a driver result, naming the failed operation.
pub(crate) fn check<T>(what: &str, r: std::result::Result<T, DriverError>) -> Result<T> {
    r.map_err(|e| driver_error(what, e))
}

/// Maps a raw `CUresult`, naming the failed operation.
pub(crate) fn check_raw(what: &str, r: sys::CUresult) -> Result<()> {
    check(what, r.result())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`, converting a panic inside cudarc (missing library or symbol) into an error.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Error::Device(format!(
            "{what}: the CUDA library failed to load: {}",
            panic_message(p.as_ref())
        )))
    })
}

/// Loads the driver and calls `cuInit` once per process. Set `MATEXP_NO_CUDA=1` to behave as
/// if no driver were installed (to exercise CPU fallbacks on a GPU machine).
pub(crate) fn init() -> Result<()> {
    static INIT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| {
        if std::env::var_os("MATEXP_NO_CUDA").is_some_and(|v| !v.is_empty() && v != "0") {
            return Err("CUDA disabled by MATEXP_NO_CUDA".into());
        }
        // SAFETY: only tries to open the library; no symbol is called.
        let present = std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return Err(
                "no CUDA driver: libcuda.so could not be loaded (install the NVIDIA driver, or use the CPU backend)"
                    .into(),
            );
        }
        guarded("cuInit", || check("cuInit", result::init())).map_err(|e| match e {
            Error::Device(m) if m.contains("CUDA_ERROR_NO_DEVICE") => {
                "no CUDA device: the driver is installed but reports no GPU".to_string()
            }
            other => other.to_string(),
        })
    })
    .clone()
    .map_err(Error::Device)
}

/// Number of CUDA devices; an [`Error::Device`] (never a panic) when there is no driver.
///
/// ```
/// // On a machine without a GPU this is an error, not a crash.
/// match matexp_gpu::device_count() {
///     Ok(n) => println!("{n} CUDA device(s)"),
///     Err(e) => println!("no GPU: {e}"),
/// }
/// ```
pub fn device_count() -> Result<usize> {
    init()?;
    guarded("cuDeviceGetCount", || {
        check("cuDeviceGetCount", result::device::get_count()).map(|n| n.max(0) as usize)
    })
}

/// The driver's CUDA version as (major, minor), e.g. (13, 0).
pub fn driver_version() -> Result<(i32, i32)> {
    init()?;
    guarded("cuDriverGetVersion", || {
        let mut v = 0;
        // SAFETY: writes one int.
        check_raw("cuDriverGetVersion", unsafe {
            sys::cuDriverGetVersion(&mut v)
        })?;
        Ok((v / 1000, v % 1000 / 10))
    })
}
