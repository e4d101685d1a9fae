//! Python peers of the GPU suites, run on the GPU host from the benchmark binary.
//!
//! The scripts of `benches/peers/` are compiled into the binary (`include_str!`) and written
//! to a scratch folder when needed, so that the GPU bundle, which ships binaries only, runs
//! them too. The interpreter is `$MATEXP_PYTHON`, else `python3` from the PATH. Inputs travel
//! as raw little-endian arrays in the scratch folder, results come back as one JSON object on
//! the script's last stdout line. A peer that cannot run (no interpreter, a library missing,
//! a failure, the time limit) records nothing and says why on stderr.

#![allow(dead_code)]

use serde_json::Value;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `benches/peers/pointwise_peers.py` (seed 003 Table III: torch, CuPy, NumPy).
pub const POINTWISE: (&str, &str) = (
    "pointwise_peers.py",
    include_str!("../../peers/pointwise_peers.py"),
);

/// `benches/peers/expm_multiply_peers.py` (SciPy's expm_multiply on the host CPU, and its
/// algorithm over CuPy's CSR on the GPU).
pub const EXPM_MULTIPLY: (&str, &str) = (
    "expm_multiply_peers.py",
    include_str!("../../peers/expm_multiply_peers.py"),
);

pub fn python() -> String {
    std::env::var("MATEXP_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// A scratch folder for one suite's peer inputs; removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Result<Self, String> {
        let dir =
            std::env::temp_dir().join(format!("matexp-gpu-peer-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `f64` values, raw little-endian.
pub fn write_f64(path: &Path, v: &[f64]) -> Result<(), String> {
    let mut bytes = Vec::with_capacity(v.len() * 8);
    for x in v {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| format!("write {}: {e}", path.display()))
}

/// Writes `u32` values, raw little-endian.
pub fn write_u32(path: &Path, v: impl Iterator<Item = u32>) -> Result<(), String> {
    let bytes: Vec<u8> = v.flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("write {}: {e}", path.display()))
}

/// Reads raw little-endian `f64` values.
pub fn read_f64(path: &Path) -> Result<Vec<f64>, String> {
    let b = std::fs::read(path).map_err(|e| format!("read {}: {e}", path.display()))?;
    Ok(b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// Runs `script` (written into `scratch`) with `args`; returns its last stdout line as JSON.
/// The child is killed after `limit` (its own limits are meant to act first).
pub fn run(
    scratch: &Scratch,
    script: (&str, &str),
    args: &[String],
    limit: Duration,
) -> Result<Value, String> {
    let path = scratch.path(script.0);
    std::fs::write(&path, script.1).map_err(|e| format!("write {}: {e}", path.display()))?;
    let mut child = Command::new(python())
        .arg(&path)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", python()))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} killed after {:.0} s (its time limit)",
                    script.0,
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for {}: {e}", script.0)),
        }
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(format!("{} exited with {status}", script.0));
    }
    let last = out
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| format!("{} printed nothing", script.0))?;
    serde_json::from_str(last).map_err(|e| format!("{}: bad JSON ({e}): {last}", script.0))
}

/// [`run`] for the peers `what` of `case` in `suite`: the answer, or `None` after saying on
/// stderr why nothing is recorded; the answer's `skipped` entries are reported as well.
pub fn run_or_report(
    suite: &str,
    what: &str,
    case: &str,
    scratch: &Scratch,
    script: (&str, &str),
    args: &[String],
    limit: Duration,
) -> Option<Value> {
    match run(scratch, script, args, limit) {
        Ok(v) => {
            report_skipped(suite, case, &v);
            Some(v)
        }
        Err(e) => {
            eprintln!("{suite}: {what} peers of {case} not recorded: {e}");
            None
        }
    }
}

/// Prints every `skipped` entry of a peer script's answer (`{backend, why, ...}`).
fn report_skipped(suite: &str, case: &str, v: &Value) {
    for s in v["skipped"].as_array().into_iter().flatten() {
        eprintln!(
            "{suite}: peer {} {} of {case} not recorded: {}",
            s["backend"].as_str().unwrap_or("?"),
            s["precision"].as_str().unwrap_or(""),
            s["why"].as_str().unwrap_or("?")
        );
    }
}
