//! Memory budget: what a declared problem needs, compared with what the process may use,
//! before anything of that size is allocated.
//!
//! A size read from a file header, an operator or a caller (10⁹ rows in a 70-byte file) must
//! be refused with a typed error, not grow the process until the kernel kills it: on Linux an
//! allocation of any size "succeeds" (memory is overcommitted) and fails only when touched, so
//! a fallible allocation (`Vec::try_reserve_exact`) alone does not protect the machine. Every
//! allocation sized by input is therefore first compared with [`available`]:
//!
//! * `MemAvailable` of `/proc/meminfo` (memory the kernel can hand out without swapping);
//! * the address-space limit `RLIMIT_AS` (`ulimit -v`, read from `/proc/self/limits`) less the
//!   address space already mapped (`VmSize` of `/proc/self/status`);
//! * a user limit: [`set_limit`] (the tool's `--memory-limit`, the C ABI's
//!   `matexp_set_memory_limit`) or else the environment variable `MATEXP_MEMORY_LIMIT`, in
//!   bytes with an optional suffix `K`, `M`, `G`, `T` (powers of 1024; `KiB`, `GB`, … are
//!   read the same way). A user limit bounds the resident memory of the whole process: what
//!   is already resident (`VmRSS`) is subtracted from it.
//!
//! The smallest of these is the budget; where none can be read (a platform without `/proc`)
//! only the user limit applies. Cost: reading three small files, tens of microseconds, so
//! [`check`] skips requests below [`CHECK_THRESHOLD`] bytes unless a user limit is set.
//!
//! ```
//! use matexp_core::{Error, memory};
//! // 10⁹ × 10⁹ matrix of f64 with row pointers: far beyond any machine's memory.
//! let e = memory::check("row pointers of a 10⁹-row matrix", u64::MAX / 2).unwrap_err();
//! assert!(matches!(e, Error::OutOfMemoryBudget { .. }), "{e}");
//! assert!(memory::check("a small vector", 1024).is_ok());
//! ```

use crate::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// Requests below this many bytes are not checked against the machine's memory (the check
/// reads `/proc`, and what small requests could exhaust is not worth that cost); a user limit
/// is checked at every size.
pub const CHECK_THRESHOLD: u64 = 16 << 20;

/// Name of the environment variable holding a user limit (bytes, optional K/M/G/T suffix).
pub const LIMIT_ENV: &str = "MATEXP_MEMORY_LIMIT";

/// `u64::MAX`: no limit set through [`set_limit`] (the environment is read instead).
static USER_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets the process-wide user limit in bytes (`None`: back to `MATEXP_MEMORY_LIMIT`, or no
/// user limit when that is unset). It takes precedence over the environment variable.
pub fn set_limit(bytes: Option<u64>) {
    USER_LIMIT.store(
        bytes.map_or(u64::MAX, |b| b.min(u64::MAX - 1)),
        Ordering::Relaxed,
    );
}

/// The memory the process may still use and which limit binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Bytes that may still be allocated.
    pub bytes: u64,
    /// Which limit gives `bytes` (e.g. `MemAvailable in /proc/meminfo`).
    pub limit: String,
}

/// Parses a byte count: digits with an optional suffix `K`, `M`, `G`, `T` (×1024 each; `KB`,
/// `KiB`, … read the same), e.g. `512M`, `8GiB`, `1000000`. Fractions are accepted (`1.5G`).
///
/// ```
/// use matexp_core::memory::parse_bytes;
/// assert_eq!(parse_bytes("512M"), Some(512 << 20));
/// assert_eq!(parse_bytes("1.5 GiB"), Some(3 << 29));
/// assert_eq!(parse_bytes("4096"), Some(4096));
/// assert_eq!(parse_bytes("-1"), None);
/// assert_eq!(parse_bytes("lots"), None);
/// ```
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let scale: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return None,
    };
    if num.is_empty() {
        return None;
    }
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(scale);
    }
    let x = num.parse::<f64>().ok()?;
    let b = x * scale as f64;
    (b.is_finite() && b >= 0.0 && b < u64::MAX as f64).then_some(b as u64)
}

/// The user limit: [`set_limit`], else `MATEXP_MEMORY_LIMIT`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] naming `MATEXP_MEMORY_LIMIT` when it is set but not a byte
/// count.
pub fn user_limit() -> Result<Option<u64>> {
    let set = USER_LIMIT.load(Ordering::Relaxed);
    if set != u64::MAX {
        return Ok(Some(set));
    }
    match std::env::var(LIMIT_ENV) {
        Ok(s) => parse_bytes(&s).map(Some).ok_or_else(|| {
            Error::invalid(
                "MATEXP_MEMORY_LIMIT",
                s,
                "expected a byte count such as 4000000000, 512M or 8G",
            )
        }),
        Err(_) => Ok(None),
    }
}

/// A `key:  value kB` field of a `/proc` status file, in bytes.
fn proc_kb(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..]
        .trim_start_matches(':')
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// The soft address-space limit (`RLIMIT_AS`, as `ulimit -v` sets it), if finite.
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The memory the process may still use (see the module documentation), or `None` where no
/// limit is known (no `/proc`, no user limit).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a malformed `MATEXP_MEMORY_LIMIT`.
pub fn available() -> Result<Option<Budget>> {
    let mut best: Option<Budget> = None;
    let mut consider = |bytes: u64, limit: String| {
        if best.as_ref().is_none_or(|b| bytes < b.bytes) {
            best = Some(Budget { bytes, limit });
        }
    };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(user) = user_limit()? {
        let resident = proc_kb(&status, "VmRSS").unwrap_or(0);
        consider(
            user.saturating_sub(resident),
            format!(
                "the user limit of {user} bytes (--memory-limit or MATEXP_MEMORY_LIMIT) less \
                 {resident} bytes resident"
            ),
        );
    }
    if let Some(avail) = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| proc_kb(&m, "MemAvailable"))
    {
        consider(avail, "MemAvailable in /proc/meminfo".into());
    }
    if let Some(limit) = address_space_limit() {
        let mapped = proc_kb(&status, "VmSize").unwrap_or(0);
        consider(
            limit.saturating_sub(mapped),
            format!(
                "the address-space limit RLIMIT_AS (ulimit -v) of {limit} bytes less {mapped} \
                 bytes mapped"
            ),
        );
    }
    Ok(best)
}

/// Checks that `needed` more bytes fit the budget ([`available`]); `what` says what they are
/// for (it appears in the error with both numbers).
///
/// # Errors
///
/// [`Error::OutOfMemoryBudget`] with `what`, `needed`, the bytes available and the binding
/// limit; [`Error::InvalidArgument`] for a malformed `MATEXP_MEMORY_LIMIT`.
pub fn check(what: impl Into<String>, needed: u64) -> Result<()> {
    if needed < CHECK_THRESHOLD && user_limit()?.is_none() {
        return Ok(());
    }
    match available()? {
        Some(b) if needed > b.bytes => Err(Error::OutOfMemoryBudget {
            what: what.into(),
            needed,
            available: b.bytes,
            limit: b.limit,
        }),
        _ => Ok(()),
    }
}

/// Bytes of `count` values of `T`, saturating (a saturated count is refused by [`check`]).
pub fn bytes_of<T>(count: usize) -> u64 {
    (count as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// Checks `count` values of `T` against the budget ([`check`]), then reserves them exactly,
/// fallibly: an empty vector with capacity `count`.
///
/// # Errors
///
/// Those of [`check`], and [`Error::OutOfMemoryBudget`] when the allocator refuses.
pub fn try_with_capacity<T>(count: usize, what: &str) -> Result<Vec<T>> {
    let needed = bytes_of::<T>(count);
    check(what, needed)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count)
        .map_err(|e| Error::OutOfMemoryBudget {
            what: what.to_string(),
            needed,
            available: 0,
            limit: format!("the allocator refused: {e}"),
        })?;
    Ok(v)
}

/// `count` copies of `value`, checked against the budget and allocated fallibly.
///
/// # Errors
///
/// Those of [`try_with_capacity`].
pub fn try_filled<T: Clone>(count: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(count, what)?;
    v.resize(count, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("0"), Some(0));
        assert_eq!(parse_bytes("2k"), Some(2048));
        assert_eq!(parse_bytes("3 MB"), Some(3 << 20));
        assert_eq!(parse_bytes("64GiB"), Some(64 << 30));
        assert_eq!(parse_bytes("1T"), Some(1 << 40));
        assert_eq!(parse_bytes("99999999999999999999"), None);
        assert_eq!(parse_bytes("20000000000T"), None);
        for bad in ["", "G", "1X", "1.2.3", "nan", "-5M"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn proc_fields_read_in_bytes() {
        let text = "Name:\tx\nVmSize:\t  2048 kB\nVmRSS:\t     12 kB\n";
        assert_eq!(proc_kb(text, "VmSize"), Some(2 << 20));
        assert_eq!(proc_kb(text, "VmRSS"), Some(12 << 10));
        assert_eq!(proc_kb(text, "VmPeak"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_machine_budget_is_below_its_memory_and_refuses_more() {
        let b = available().unwrap().expect("Linux has /proc/meminfo");
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| proc_kb(&m, "MemTotal"))
            .unwrap();
        assert!(b.bytes <= total, "{b:?} vs MemTotal {total}");
        let e = check("twice the machine", total.saturating_mul(2)).unwrap_err();
        match e {
            Error::OutOfMemoryBudget {
                needed, available, ..
            } => {
                assert_eq!(needed, total * 2);
                assert!(available < needed);
            }
            e => panic!("{e}"),
        }
        assert!(try_with_capacity::<f64>(usize::MAX / 16, "huge").is_err());
        assert_eq!(try_filled(3, 7u8, "small").unwrap(), [7, 7, 7]);
    }
}
