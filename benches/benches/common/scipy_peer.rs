//! The SciPy peers of the CPU suites: `benches/peers/scipy_cpu_peers.py`, run with
//! `$MATEXP_PYTHON` (the venv `cargo xtask bench` prepares; else `python3` from the PATH) on
//! inputs written here as raw little-endian arrays (CSR row pointers and column indices as
//! u32, values and vectors as f32, f64 or interleaved complex f64), so that the peer reads
//! exactly the matrix and vector ours used.

#![allow(dead_code)]

use matexp_core::Scalar;
use matexp_sparse::{CsrIndex, CsrMatrix};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The peer script, compiled in so that the GPU bundle (binaries only) can run it on its
/// host's CPU.
const SCRIPT: &str = include_str!("../../peers/scipy_cpu_peers.py");

/// The peer script: the source tree's, or the embedded copy written to the temporary folder
/// where there is no source tree (the GPU bundle).
pub fn script() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/scipy_cpu_peers.py");
    if source.exists() {
        return source;
    }
    let copy =
        std::env::temp_dir().join(format!("matexp-scipy-cpu-peers-{}.py", std::process::id()));
    if !copy.exists() {
        let _ = std::fs::write(&copy, SCRIPT);
    }
    copy
}

pub fn python() -> String {
    std::env::var("MATEXP_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether the interpreter imports SciPy (a missing peer is said once, on stderr).
pub fn available(suite: &str) -> bool {
    let ok = Command::new(python())
        .args(["-c", "import scipy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "{suite}: {} cannot import scipy; no SciPy peer rows (`cargo xtask bench` \
             prepares the venv and sets MATEXP_PYTHON)",
            python()
        );
    }
    ok
}

/// A fresh scratch folder for one peer call.
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matexp-peer-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Writes a vector as raw little-endian values (complex: re, im interleaved; c32 is written
/// as c64).
pub fn write_vec<S: Scalar>(path: &Path, v: &[S]) {
    let mut bytes = Vec::with_capacity(std::mem::size_of_val(v));
    for x in v {
        let z = x.to_c64();
        match S::NAME {
            "f32" => bytes.extend_from_slice(&(z.re as f32).to_le_bytes()),
            "f64" => bytes.extend_from_slice(&z.re.to_le_bytes()),
            _ => {
                bytes.extend_from_slice(&z.re.to_le_bytes());
                bytes.extend_from_slice(&z.im.to_le_bytes());
            }
        }
    }
    std::fs::write(path, bytes).expect("peer input");
}

/// Writes `f64` values.
pub fn write_f64(path: &Path, v: &[f64]) {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("peer input");
}

/// Reads complex f64 values written by the peer.
pub fn read_c64(path: &Path) -> Option<Vec<matexp_core::c64>> {
    let b = std::fs::read(path).ok()?;
    Some(
        b.chunks_exact(16)
            .map(|c| {
                matexp_core::c64::new(
                    f64::from_le_bytes(c[..8].try_into().unwrap()),
                    f64::from_le_bytes(c[8..].try_into().unwrap()),
                )
            })
            .collect(),
    )
}

/// Reads f64 values written by the peer.
pub fn read_f64(path: &Path) -> Option<Vec<f64>> {
    let b = std::fs::read(path).ok()?;
    Some(
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

/// Writes `a` as `<stem>.indptr`, `<stem>.indices` (u32) and `<stem>.data` in `dir`.
pub fn write_csr<S: Scalar, I: CsrIndex>(dir: &Path, stem: &str, a: &CsrMatrix<S, I>) {
    let (ptr, idx, val) = (a.row_ptr(), a.col_idx(), a.values());
    let u32s = |v: &[I]| -> Vec<u8> {
        v.iter()
            .flat_map(|i| (i.as_usize() as u32).to_le_bytes())
            .collect()
    };
    std::fs::write(dir.join(format!("{stem}.indptr")), u32s(ptr)).expect("peer input");
    std::fs::write(dir.join(format!("{stem}.indices")), u32s(idx)).expect("peer input");
    write_vec(&dir.join(format!("{stem}.data")), val);
}

/// Runs `scipy_cpu_peers.py <command> <dir> <args>`; its last stdout line is a JSON object.
pub fn run(command: &str, dir: &Path, args: &[String]) -> Option<Value> {
    let out = Command::new(python())
        .arg(script())
        .arg(command)
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "SciPy peer {command} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.lines().last()?).ok()?;
    eprintln!("SciPy peer {command}: {v}");
    Some(v)
}

/// Criterion's median of `group/id` in seconds, as `Recorder::finish` reads it (so that a
/// peer's ratio can be set on our record before it is registered).
pub fn criterion_median(group: &str, id: &str) -> Option<f64> {
    let home = std::env::var("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("CARGO_TARGET_DIR").map(|t| Path::new(&t).join("criterion")))
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"));
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                '?' | '"' | '/' | '\\' | '*' | '<' | '>' | ':' | '|' | '^' => '_',
                c => c,
            })
            .collect()
    };
    let path = home
        .join(safe(group))
        .join(safe(id))
        .join("new")
        .join("estimates.json");
    let est: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(est["median"]["point_estimate"].as_f64()? * 1e-9)
}

/// The peer's record: `base` (ours, with its identifying fields) as backend `scipy` with the
/// time, repetitions and error the script printed, our own results removed.
pub fn peer_record(base: &matexp_benches::Record, v: &Value) -> Option<matexp_benches::Record> {
    let mut r = base.clone();
    r.backend = "scipy".into();
    r.time_s = v["time_s"].as_f64()?;
    r.reps = v["reps"].as_u64()?;
    r.error = v["error"].as_f64();
    r.matvecs = v["nfev"].as_u64();
    r.tol = None;
    r.floor_ratio = None;
    r.vendor_ratio = None;
    r.peer_ratio = None;
    r.extra = serde_json::Map::new();
    r.extra
        .insert("scipy".into(), v["scipy"].as_str().unwrap_or("?").into());
    Some(r)
}
