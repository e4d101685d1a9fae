//! What every `gpu_*` suite shares: the common command-line options, the device tag, the
//! records file, medians, CUDA-event timing, the device-to-device copy floor measured in
//! the same run, and the floor and vendor ratios.
//!
//! The GPU suites are not criterion benchmarks: each times its cases itself (CUDA events
//! around each run after a warm-up, or host wall time with the backend synchronised) and
//! appends its [`Record`]s to `<out>/<suite>.jsonl`.

use crate::Record;
use matexp_gpu::Device;
use matexp_gpu::{DeviceBuffer, GpuBackend};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Result of a suite step: errors are messages.
pub type Res<T> = Result<T, String>;

/// Any displayable error as a message.
pub fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Records folder when neither `--out` nor `MATEXP_BENCH_RECORDS` names one.
pub const DEFAULT_RECORDS_DIR: &str = "target/bench-records";

/// The options every GPU suite takes: `--out DIR` (records folder, default
/// `$MATEXP_BENCH_RECORDS` or `target/bench-records`), `--small` (reduced sizes) and
/// `--reps N` (timed repetitions; the suite's default when absent or not a number).
#[derive(Debug, Clone, PartialEq)]
pub struct CommonArgs {
    /// Folder the records file goes to.
    pub out: PathBuf,
    /// Reduced problem sizes.
    pub small: bool,
    /// Timed repetitions per case.
    pub reps: usize,
}

impl CommonArgs {
    /// Parses the process's arguments (after the program name): the common options here,
    /// every other argument handed to `extra` with the iterator, from which a suite flag
    /// takes its value. Arguments neither knows (`--bench` from cargo) are ignored.
    pub fn parse(
        default_reps: usize,
        extra: impl FnMut(&str, &mut dyn Iterator<Item = String>),
    ) -> Self {
        Self::parse_from(
            std::env::args().skip(1),
            std::env::var("MATEXP_BENCH_RECORDS").ok(),
            default_reps,
            extra,
        )
    }

    /// [`parse`](Self::parse) over `args`, with `records_env` standing for the value of
    /// `MATEXP_BENCH_RECORDS`.
    pub fn parse_from(
        args: impl IntoIterator<Item = String>,
        records_env: Option<String>,
        default_reps: usize,
        mut extra: impl FnMut(&str, &mut dyn Iterator<Item = String>),
    ) -> Self {
        let mut a = CommonArgs {
            out: records_env
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(DEFAULT_RECORDS_DIR)),
            small: false,
            reps: default_reps,
        };
        let mut it = args.into_iter();
        while let Some(s) = it.next() {
            match s.as_str() {
                "--out" => a.out = it.next().map(PathBuf::from).unwrap_or(a.out),
                "--small" => a.small = true,
                "--reps" => a.reps = it.next().and_then(|v| v.parse().ok()).unwrap_or(a.reps),
                other => extra(other, &mut it),
            }
        }
        a
    }
}

/// Parses the value after a flag, keeping `current` when it is missing or malformed.
pub fn parse_value<T: std::str::FromStr>(it: &mut dyn Iterator<Item = String>, current: T) -> T {
    it.next().and_then(|v| v.parse().ok()).unwrap_or(current)
}

/// Device name of the records: `$MATEXP_BENCH_DEVICE`, else `short_name` (the device's
/// short name).
pub fn device_tag(short_name: impl FnOnce() -> String) -> String {
    std::env::var("MATEXP_BENCH_DEVICE").unwrap_or_else(|_| short_name())
}

/// The records file of `suite` in `dir`: `dir/<suite>.jsonl`.
pub fn records_path(dir: &Path, suite: &str) -> PathBuf {
    dir.join(format!("{suite}.jsonl"))
}

/// Appends `records` (one JSON object per line) to [`records_path`]`(dir, suite)`,
/// creating `dir`, and prints the path.
pub fn write_records(dir: &Path, suite: &str, records: &[Record]) -> Res<()> {
    std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).map_err(err)?);
        text.push('\n');
    }
    let path = records_path(dir, suite);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("write {}: {e}", path.display()))?;
    println!("records: {}", path.display());
    Ok(())
}

/// Median of ascending `sorted` times: the middle one, the mean of the two middle ones for
/// an even count, NaN for none (as `matexp_gpu::median`).
pub fn median(sorted: &[f64]) -> f64 {
    matexp_gpu::median(sorted)
}

/// Sorts `times` ascending and returns the element at index len/2 (the upper of the two
/// middle ones for an even count): the median of the suites timed by host wall clock.
/// Panics on no times.
pub fn upper_median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The `p`-quantile (0 ≤ p ≤ 1) of ascending `sorted` times, interpolated linearly between
/// neighbours; NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let x = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let (i, f) = (x.floor() as usize, x.fract());
            if i + 1 >= n {
                sorted[n - 1]
            } else {
                sorted[i] + f * (sorted[i + 1] - sorted[i])
            }
        }
    }
}

/// Time over the floor: `time` against the time `bytes` take at `bandwidth` (bytes/s).
pub fn floor_ratio(time: f64, bytes: f64, bandwidth: f64) -> f64 {
    time / (bytes / bandwidth)
}

/// The vendor's time over ours (above 1: ours is faster).
pub fn vendor_ratio(vendor_time: f64, ours: f64) -> f64 {
    vendor_time / ours
}

/// Bytes of the copy that defines the floor: 2 GiB, 64 MiB with `--small`.
pub fn floor_copy_bytes(small: bool) -> usize {
    if small { 1 << 26 } else { 1 << 31 }
}

/// Sorted per-run times (s) of `reps` runs of `f`, each between two CUDA events, after
/// `warmup` untimed runs (`matexp_gpu::time_runs`).
pub fn time_runs(
    dev: &Arc<Device>,
    warmup: usize,
    reps: usize,
    f: impl FnMut() -> matexp_core::Result<()>,
) -> Res<Vec<f64>> {
    matexp_gpu::time_runs(dev, warmup, reps, f).map_err(err)
}

/// Sorted per-run times (s) of `reps` event pairs around `batch` runs queued back to back,
/// after `warmup` untimed runs (`matexp_gpu::time_batched`).
pub fn time_batched(
    dev: &Arc<Device>,
    warmup: usize,
    reps: usize,
    batch: usize,
    f: impl FnMut() -> matexp_core::Result<()>,
) -> Res<Vec<f64>> {
    matexp_gpu::time_batched(dev, warmup, reps, batch, f).map_err(err)
}

/// Median of [`time_runs`].
pub fn time_median(
    dev: &Arc<Device>,
    warmup: usize,
    reps: usize,
    f: impl FnMut() -> matexp_core::Result<()>,
) -> Res<f64> {
    Ok(median(&time_runs(dev, warmup, reps, f)?))
}

/// Host wall times (s) of `reps` runs of `f` after `warmup` untimed ones, in run order;
/// `f` synchronises whatever device it uses before returning.
pub fn time_wall(warmup: usize, reps: usize, mut f: impl FnMut() -> Res<()>) -> Res<Vec<f64>> {
    for _ in 0..warmup {
        f()?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(times)
}

/// [`time_wall`] of a run that yields a value: the host wall times (s) of `reps` runs of `f`
/// after `warmup` untimed ones, in run order, and the last run's value (a warm-up's when
/// `reps` is 0; an error when there was no run at all).
pub fn time_wall_last<T>(
    warmup: usize,
    reps: usize,
    mut f: impl FnMut() -> Res<T>,
) -> Res<(Vec<f64>, T)> {
    let mut last = None;
    let times = time_wall(warmup, reps, || {
        last = Some(f()?);
        Ok(())
    })?;
    Ok((times, last.ok_or("no run")?))
}

/// Device-to-device copy bandwidth (bytes read + written per second) of a `bytes` buffer:
/// median of 20 event-timed copies after 3 warm-up ones.
pub fn copy_bandwidth(gpu: &GpuBackend, bytes: usize) -> Res<f64> {
    let dev = gpu.device();
    let src = DeviceBuffer::<u8>::zeros(dev, bytes).map_err(err)?;
    let mut dst = DeviceBuffer::<u8>::zeros(dev, bytes).map_err(err)?;
    let times = time_runs(dev, 3, 20, || dst.copy_from(&src))?;
    Ok(2.0 * bytes as f64 / median(&times))
}

/// The run's floor: [`copy_bandwidth`] of [`floor_copy_bytes`]`(small)`, printed.
pub fn measure_floor(gpu: &GpuBackend, small: bool) -> Res<f64> {
    let bw = copy_bandwidth(gpu, floor_copy_bytes(small))?;
    println!(
        "device-to-device copy: {:.0} GB/s (bytes read + written)",
        bw / 1e9
    );
    Ok(bw)
}

/// The GPU of device 0; exits with status 3 (no GPU) when there is none.
pub fn gpu_or_exit(suite: &str) -> GpuBackend {
    match GpuBackend::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{suite}: no CUDA device: {e}");
            std::process::exit(3);
        }
    }
}

/// Exits with status 1 when the suite failed.
pub fn exit_on_failure(suite: &str, result: Res<()>) {
    if let Err(e) = result {
        eprintln!("{suite}: FAILED: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn common_flags_and_defaults() {
        let a = CommonArgs::parse_from(args(&[]), None, 30, |_, _| {});
        assert_eq!(a.out, PathBuf::from("target/bench-records"));
        assert!(!a.small);
        assert_eq!(a.reps, 30);
        let a = CommonArgs::parse_from(args(&[]), Some("/r".into()), 3, |_, _| {});
        assert_eq!(a.out, PathBuf::from("/r"));
        let a = CommonArgs::parse_from(
            args(&["--bench", "--out", "d", "--small", "--reps", "7"]),
            Some("/r".into()),
            3,
            |_, _| {},
        );
        assert_eq!((a.out, a.small, a.reps), (PathBuf::from("d"), true, 7));
        // A malformed or missing value keeps the default.
        let a = CommonArgs::parse_from(args(&["--reps", "x", "--out"]), None, 5, |_, _| {});
        assert_eq!((a.reps, a.out), (5, PathBuf::from(DEFAULT_RECORDS_DIR)));
    }

    #[test]
    fn suite_flags_take_their_values_in_order() {
        let mut seen = Vec::new();
        let mut limit = 120.0;
        let a = CommonArgs::parse_from(
            args(&[
                "--only",
                "--small",
                "--peer-time-limit",
                "5",
                "--no-e2e",
                "--small",
            ]),
            None,
            30,
            |flag, it| match flag {
                "--only" => seen.push(it.next().unwrap_or_default()),
                "--peer-time-limit" => limit = parse_value(it, limit),
                f => seen.push(f.to_string()),
            },
        );
        // `--only` took the first `--small` as its value; the second still counts.
        assert_eq!(seen, ["--small", "--no-e2e"]);
        assert_eq!(limit, 5.0);
        assert!(a.small);
    }

    #[test]
    fn medians_and_percentiles() {
        assert!(median(&[]).is_nan());
        assert_eq!(median(&[1.0, 2.0, 4.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 8.0]), 3.0);
        assert_eq!(upper_median(&mut [4.0, 1.0, 8.0, 2.0]), 4.0);
        assert_eq!(upper_median(&mut [3.0, 1.0, 2.0]), 2.0);
        let s = [1.0, 2.0, 3.0, 5.0];
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 1.0), 5.0);
        assert_eq!(percentile(&s, 0.5), 2.5);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn ratios() {
        // 1 GB at 1 TB/s takes 1 ms: 2 ms is twice the floor.
        assert_eq!(floor_ratio(2e-3, 1e9, 1e12), 2.0);
        assert_eq!(vendor_ratio(3.0, 1.5), 2.0);
        assert_eq!(floor_copy_bytes(true), 64 << 20);
        assert_eq!(floor_copy_bytes(false), 2 << 30);
    }

    #[test]
    fn records_file_name_and_append() {
        assert_eq!(
            records_path(Path::new("out"), "gpu_stencil"),
            PathBuf::from("out/gpu_stencil.jsonl")
        );
        let dir = std::env::temp_dir().join(format!("matexp-harness-{}", std::process::id()));
        let r = Record::new("s", "case", "gpu", "f64");
        write_records(&dir, "s", std::slice::from_ref(&r)).unwrap();
        write_records(&dir, "s", &[r]).unwrap();
        let text = std::fs::read_to_string(records_path(&dir, "s")).unwrap();
        assert_eq!(text.lines().count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wall_times_skip_the_warm_up() {
        let mut calls = 0;
        let t = time_wall(1, 3, || {
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((t.len(), calls), (3, 4));
    }

    #[test]
    fn wall_times_keep_the_last_value() {
        let mut calls = 0;
        let (t, last) = time_wall_last(1, 2, || {
            calls += 1;
            Ok(calls)
        })
        .unwrap();
        assert_eq!((t.len(), last), (2, 3));
        // Only a warm-up: its value; no run at all: an error.
        assert_eq!(time_wall_last(1, 0, || Ok(7)).unwrap(), (vec![], 7));
        assert!(time_wall_last(0, 0, || Ok(())).is_err());
    }
}
