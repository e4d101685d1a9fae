//! Benchmark suites of matexp: the glue between criterion and the benchmark records
//! ([`Record`], defined in `matexp-records` and re-exported here).
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

pub mod gpu_harness;

pub use matexp_records::{Record, device_name, today};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use criterion;

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
