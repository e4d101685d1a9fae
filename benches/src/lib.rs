//! Benchmark records of matexp and the glue between criterion and them.
//!
//! Every benchmark run appends machine-readable [`Record`]s that `cargo xtask bench` gathers
//! into `bench-results/<device>/<suite>.json` and renders as a markdown report. Criterion
//! does the timing (warm-up, many samples, outlier analysis); a [`Recorder`] registers, for
//! each criterion benchmark, what the record needs besides the time (sizes, matvecs, errors,
//! bytes moved), and after criterion has finished reads criterion's median estimate back from
//! its output directory.
//!
//! ```no_run
//! use criterion::Criterion;
//! use matexp_benches::{Recorder, Record};
//! let mut c = Criterion::default();
//! let mut rec = Recorder::new("example");
//! let mut group = c.benchmark_group("example");
//! group.bench_function("sum", |b| b.iter(|| (0..1000u64).sum::<u64>()));
//! group.finish();
//! rec.add("example", "sum", Record::new("example", "sum", "cpu", "u64").size("n", 1000), None);
//! rec.finish().unwrap();
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use criterion;

/// One measured case, as stored in `bench-results/<device>/<suite>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// Suite (one JSON file per suite and device).
    pub suite: String,
    /// Case within the suite.
    pub case: String,
    /// `cpu`, `gpu`, `gpu×2`, `cusparse`, `scipy`, ...
    pub backend: String,
    /// Device description (`cpu-2core`, `h100`, ...).
    pub device: String,
    /// `f32`, `f64`, `c32`, `c64`, ...
    pub precision: String,
    /// Problem size: `n`, `nnz`, points, ...
    pub size: Map<String, Value>,
    /// Median time in seconds.
    pub time_s: f64,
    /// Number of timed repetitions behind the median.
    pub reps: u64,
    /// Operator applications per run, where that applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub matvecs: Option<u64>,
    /// Requested tolerance.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tol: Option<f64>,
    /// Achieved error against a reference.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<f64>,
    /// time / (bytes-moved or flops floor) with the floor rate measured in the same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub floor_ratio: Option<f64>,
    /// vendor library time / ours, same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub vendor_ratio: Option<f64>,
    /// peer (e.g. SciPy) time / ours, same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub peer_ratio: Option<f64>,
    /// Further figures (GB/s, substeps, ...).
    #[serde(skip_serializing_if = "Map::is_empty", default)]
    pub extra: Map<String, Value>,
    /// Git commit of the measured code.
    pub commit: String,
    /// UTC date of the run (YYYY-MM-DD).
    pub date: String,
}

impl Record {
    /// A record with the identifying fields set; time and provenance are filled in later.
    pub fn new(suite: &str, case: &str, backend: &str, precision: &str) -> Self {
        Record {
            suite: suite.into(),
            case: case.into(),
            backend: backend.into(),
            device: device_name(),
            precision: precision.into(),
            size: Map::new(),
            time_s: 0.0,
            reps: 0,
            matvecs: None,
            tol: None,
            error: None,
            floor_ratio: None,
            vendor_ratio: None,
            peer_ratio: None,
            extra: Map::new(),
            commit: commit(),
            date: today(),
        }
    }
    /// Adds a size field.
    pub fn size(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.size.insert(key.into(), value.into());
        self
    }
    /// Adds an extra figure.
    pub fn extra(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
    /// Sets the matvec count.
    pub fn matvecs(mut self, m: u64) -> Self {
        self.matvecs = Some(m);
        self
    }
    /// Sets the requested tolerance.
    pub fn tol(mut self, t: f64) -> Self {
        self.tol = Some(t);
        self
    }
    /// Sets the error against a reference.
    pub fn error(mut self, e: f64) -> Self {
        self.error = Some(e);
        self
    }
}

/// What a floor ratio is computed from: bytes that must cross memory per run, divided by a
/// bandwidth measured in the same run.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    /// Bytes read plus written per run.
    pub bytes: f64,
    /// Measured bandwidth (bytes/s) in this run.
    pub bandwidth: f64,
}

/// Collects records for one suite while criterion runs, then writes them.
#[derive(Debug)]
pub struct Recorder {
    suite: String,
    pending: Vec<(String, String, Record, Option<Floor>)>,
    done: Vec<Record>,
}

impl Recorder {
    /// A recorder for `suite`.
    pub fn new(suite: &str) -> Self {
        Recorder {
            suite: suite.into(),
            pending: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Registers criterion benchmark `group/id`; its median time goes into `record` once
    /// criterion is done. With a `floor`, `floor_ratio` and `extra.gbps` are derived.
    pub fn add(&mut self, group: &str, id: &str, record: Record, floor: Option<Floor>) {
        self.pending.push((group.into(), id.into(), record, floor));
    }

    /// Adds a record timed outside criterion (e.g. an external peer measured by a script).
    pub fn add_timed(&mut self, record: Record) {
        self.done.push(record);
    }

    /// Reads criterion's estimates, fills in times and ratios, and appends the records to
    /// `$MATEXP_BENCH_RECORDS/<suite>.jsonl` (default `target/bench-records`).
    /// Returns the completed records.
    pub fn finish(mut self) -> std::io::Result<Vec<Record>> {
        let home = criterion_home();
        for (group, id, mut rec, floor) in std::mem::take(&mut self.pending) {
            match read_estimate(&home, &group, &id) {
                Some((median, reps)) => {
                    rec.time_s = median;
                    rec.reps = reps;
                    if let Some(f) = floor {
                        rec.floor_ratio = Some(median / (f.bytes / f.bandwidth));
                        rec.extra
                            .insert("gbps".into(), (f.bytes / median / 1e9).into());
                        rec.extra
                            .insert("floor_gbps".into(), (f.bandwidth / 1e9).into());
                    }
                    self.done.push(rec);
                }
                None => eprintln!(
                    "matexp-benches: no criterion estimate for {group}/{id} under {} (filtered out?)",
                    home.display()
                ),
            }
        }
        let dir = records_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.jsonl", self.suite));
        let mut text = String::new();
        for r in &self.done {
            text.push_str(&serde_json::to_string(r).map_err(std::io::Error::other)?);
            text.push('\n');
        }
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?
            .write_all(text.as_bytes())?;
        Ok(self.done)
    }
}

fn criterion_home() -> PathBuf {
    if let Ok(h) = std::env::var("CRITERION_HOME") {
        return PathBuf::from(h);
    }
    if let Ok(t) = std::env::var("CARGO_TARGET_DIR") {
        return Path::new(&t).join("criterion");
    }
    workspace_root().join("target").join("criterion")
}

fn records_dir() -> PathBuf {
    std::env::var("MATEXP_BENCH_RECORDS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target").join("bench-records"))
}

fn workspace_root() -> PathBuf {
    // benches/ sits directly under the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Criterion's directory name for an id: it replaces characters that are not path-safe.
fn criterion_dir_name(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '?' | '"' | '/' | '\\' | '*' | '<' | '>' | ':' | '|' | '^' => '_',
            c => c,
        })
        .collect()
}

/// (median seconds, number of iterations measured) from criterion's output for group/id.
fn read_estimate(home: &Path, group: &str, id: &str) -> Option<(f64, u64)> {
    let dir = home
        .join(criterion_dir_name(group))
        .join(criterion_dir_name(id))
        .join("new");
    let est: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("estimates.json")).ok()?).ok()?;
    let median_ns = est.get("median")?.get("point_estimate")?.as_f64()?;
    let reps = std::fs::read_to_string(dir.join("sample.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .and_then(|v| {
            v.get("iters")
                .and_then(|i| i.as_array())
                .map(|a| a.iter().filter_map(Value::as_f64).sum::<f64>() as u64)
        })
        .unwrap_or(0);
    Some((median_ns * 1e-9, reps))
}

/// Device name for records: `$MATEXP_BENCH_DEVICE`, else `cpu-<cores>core`.
pub fn device_name() -> String {
    std::env::var("MATEXP_BENCH_DEVICE").unwrap_or_else(|_| {
        format!(
            "cpu-{}core",
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        )
    })
}

fn commit() -> String {
    std::env::var("MATEXP_COMMIT")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_else(|| "unknown".into())
        })
}

/// Today's UTC date as YYYY-MM-DD (civil-from-days, no date crate needed).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Host memory bandwidth (bytes read + written per second) of a parallel copy of `bytes`
/// bytes, median of `reps` runs: the floor that memory-bound kernels are compared against.
pub fn copy_bandwidth(bytes: usize, reps: usize) -> f64 {
    use rayon::prelude::*;
    let n = bytes / 8;
    let src: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut dst = vec![0.0f64; n];
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) + 1 {
        let t = Instant::now();
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        times.push(t.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    times.remove(0); // warm-up: first touch of dst pages
    times.sort_by(|a, b| a.total_cmp(b));
    (2 * n * 8) as f64 / times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        let year: i32 = d[..4].parse().unwrap();
        assert!((2024..2200).contains(&year), "{d}");
    }

    #[test]
    fn records_roundtrip_through_json() {
        let r = Record::new("s", "c", "cpu", "f64")
            .size("n", 10)
            .matvecs(3)
            .error(1e-12);
        let j = serde_json::to_string(&r).unwrap();
        let back: Record = serde_json::from_str(&j).unwrap();
        assert_eq!(back.case, "c");
        assert_eq!(back.matvecs, Some(3));
        assert_eq!(back, r);
    }
}
