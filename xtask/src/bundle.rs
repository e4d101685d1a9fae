//! `cargo xtask bundle [--out DIR]`: the self-contained GPU bundle.
//!
//! Builds on this (CPU) machine, in release mode, the GPU integration tests of matexp-gpu
//! (`crates/gpu/tests/gpu.rs`, ignored elsewhere) and the GPU benchmark
//! (`benches/benches/gpu_spmv.rs`), strips them, checks that they need no shared library
//! beyond glibc's, libgcc_s, LAPACKE and OpenBLAS (CUDA is loaded at run time), and gathers
//! them with `run.sh` into one folder (default `bundle/`, at most 64 MiB). On a GPU host:
//!
//! ```text
//! bundle/run.sh OUTDIR        # tests, then benchmarks; summary table last
//! cargo xtask ingest OUTDIR   # back here: merge OUTDIR/records into bench-results/
//! ```

use crate::util::{cargo, ensure_system_packages, git_commit, workspace_root};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const USAGE: &str = "\
usage: cargo xtask bundle [--out DIR]

Builds the GPU test and benchmark binaries (release, stripped) and gathers them with run.sh
into DIR (default: bundle/ in the workspace root; replaced if present). Copy DIR to a GPU host
and run `DIR/run.sh OUTDIR`: it writes tests.log, bench.log, nvidia-smi.txt and
records/*.jsonl to OUTDIR and prints a summary last. Merge the records here with
`cargo xtask ingest OUTDIR`. Set MATEXP_BENCH_ARGS (e.g. `--small`, `--reps 100`,
`--no-multi`) to pass options to the benchmark.";

/// The bundle may not exceed what one transfer to a GPU host carries.
const MAX_BYTES: u64 = 64 << 20;

/// Shared libraries the binaries may need: the C runtime, and LAPACKE / OpenBLAS, which GPU
/// hosts have under these sonames. CUDA libraries are dlopen'ed by cudarc.
const ALLOWED_LIBS: [&str; 10] = [
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
    "liblapacke.so.3",
    "libopenblas.so.0",
    "ld-linux-aarch64.so.1",
];

/// Entry point of `cargo xtask bundle`.
pub fn run(args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let mut out = root.join("bundle");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => {
                out = it.next().map(PathBuf::from).ok_or("--out needs a folder")?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("bundle: unknown argument `{other}`\n\n{USAGE}")),
        }
    }
    ensure_system_packages()?;

    println!("bundle: building the GPU tests (release)");
    let tests = build_executable(
        &[
            "test",
            "-p",
            "matexp-gpu",
            "--release",
            "--test",
            "gpu",
            "--no-run",
        ],
        "gpu",
        "test",
    )?;
    println!("bundle: building the GPU benchmark (bench profile)");
    let bench = build_executable(
        &[
            "bench",
            "-p",
            "matexp-benches",
            "--bench",
            "gpu_spmv",
            "--no-run",
        ],
        "gpu_spmv",
        "bench",
    )?;

    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("remove {}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("create {}: {e}", out.display()))?;
    for (src, name) in [(&tests, "gpu_tests"), (&bench, "gpu_bench")] {
        let dst = out.join(name);
        std::fs::copy(src, &dst)
            .map_err(|e| format!("copy {} -> {}: {e}", src.display(), dst.display()))?;
        strip(&dst)?;
        check_libraries(&dst)?;
    }
    let commit = git_commit();
    write(&out.join("COMMIT"), &format!("{commit}\n"))?;
    write(&out.join("run.sh"), RUN_SH)?;
    make_executable(&out.join("run.sh"))?;
    write(&out.join("README.txt"), &readme(&commit))?;

    let size = folder_size(&out)?;
    println!(
        "bundle: {} ({:.1} MiB, commit {commit})",
        out.display(),
        size as f64 / (1 << 20) as f64
    );
    if size > MAX_BYTES {
        return Err(format!(
            "the bundle is {size} bytes, over the {MAX_BYTES}-byte limit of one transfer"
        ));
    }
    println!("run on a GPU host: {}/run.sh OUTDIR", out.display());
    Ok(())
}

/// Runs `cargo <args> --message-format=json` and returns the executable of the target
/// `name` of kind `kind`.
fn build_executable(args: &[&str], name: &str, kind: &str) -> Result<PathBuf, String> {
    let mut cmd = cargo();
    cmd.args(args)
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run cargo {}: {e}", args.join(" ")))?;
    if !output.status.success() {
        return Err(format!(
            "cargo {} failed ({})",
            args.join(" "),
            output.status
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut found = None;
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" || v["target"]["name"] != name {
            continue;
        }
        let kinds = v["target"]["kind"].as_array().cloned().unwrap_or_default();
        if !kinds.iter().any(|k| k == kind) {
            continue;
        }
        if let Some(exe) = v["executable"].as_str() {
            found = Some(PathBuf::from(exe));
        }
    }
    found.ok_or_else(|| {
        format!(
            "cargo {} produced no {kind} executable `{name}`",
            args.join(" ")
        )
    })
}

fn strip(path: &Path) -> Result<(), String> {
    // Debug sections go; symbols stay so that backtraces on the GPU host name functions.
    let status = Command::new("strip")
        .arg("--strip-debug")
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run strip (binutils): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("strip {} failed ({status})", path.display()))
    }
}

/// Fails if the binary needs a shared library outside [`ALLOWED_LIBS`] (read from the ELF
/// NEEDED entries; `ldd`'s full list is printed for the record).
fn check_libraries(path: &Path) -> Result<(), String> {
    let out = Command::new("readelf")
        .args(["-d", "--wide"])
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run readelf (binutils): {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let needed: Vec<String> = text
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1).and_then(|s| s.split(']').next()))
        .map(str::to_string)
        .collect();
    if needed.is_empty() {
        return Err(format!(
            "readelf found no NEEDED entries in {}",
            path.display()
        ));
    }
    let bad: Vec<&String> = needed
        .iter()
        .filter(|n| !ALLOWED_LIBS.contains(&n.as_str()))
        .collect();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    println!("bundle: {name} needs {}", needed.join(", "));
    if let Ok(ldd) = Command::new("ldd").arg(path).output() {
        for l in String::from_utf8_lossy(&ldd.stdout).lines() {
            println!("    ldd: {}", l.trim());
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{name} needs shared libraries a GPU host may not have: {bad:?} (allowed: {ALLOWED_LIBS:?})"
        ))
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}

fn folder_size(dir: &Path) -> Result<u64, String> {
    let mut total = 0;
    for e in std::fs::read_dir(dir).map_err(|e| format!("read {}: {e}", dir.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let m = e.metadata().map_err(|e| e.to_string())?;
        total += if m.is_dir() {
            folder_size(&e.path())?
        } else {
            m.len()
        };
    }
    Ok(total)
}

fn readme(commit: &str) -> String {
    format!(
        "matexp GPU bundle (commit {commit})\n\n\
         gpu_tests  GPU integration tests of matexp-gpu (kernels vs the CPU, every scalar type,\n\
         \x20          multi-GPU when the host has several GPUs)\n\
         gpu_bench  SpMV / Leja-step / BLAS-1 benchmarks with CUDA events (matrices generated here)\n\
         run.sh     run.sh OUTDIR: both, logs and bench records (records/*.jsonl) in OUTDIR,\n\
         \x20          summary last. MATEXP_BENCH_ARGS passes options to gpu_bench\n\
         \x20          (--small, --reps N, --no-multi); MATEXP_TEST_ARGS to gpu_tests;\n\
         \x20          MATEXP_TEST_TIMEOUT / MATEXP_BENCH_TIMEOUT (seconds) stop a hung part.\n\n\
         Needs: an NVIDIA driver with CUDA >= 13.0 (libcuda, libcusparse are loaded at run time),\n\
         glibc, liblapacke.so.3 and libopenblas.so.0.\n"
    )
}

/// The script that runs everything on the GPU host. POSIX sh; keeps going after a failure
/// so that one run reports every problem; exit status 0 only if both parts passed.
const RUN_SH: &str = r#"#!/bin/sh
# matexp GPU bundle: tests, then benchmarks. Usage: run.sh OUTDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: run.sh OUTDIR}
mkdir -p "$OUT/records"
OUT=$(cd "$OUT" && pwd)
# Leave NVLink multicast off (shared hosts); nothing here uses it.
export NCCL_NVLS_ENABLE=0
export MATEXP_COMMIT="$(cat "$HERE/COMMIT")"
export RUST_BACKTRACE=1

nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi not available" > "$OUT/nvidia-smi.txt"
nvidia-smi topo -m >> "$OUT/nvidia-smi.txt" 2>&1 || true

start=$(date +%s)
# A hung part is stopped (exit 124) so that the other still runs and the logs come back.
limit() { if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi; }
# cuSPARSE is a third-party library: its test runs in a process of its own, so that a crash
# there cannot take the other results with it.
limit "${MATEXP_TEST_TIMEOUT:-900}" "$HERE/gpu_tests" --include-ignored --show-output --skip cusparse ${MATEXP_TEST_ARGS:-} > "$OUT/tests.log" 2>&1
tests_rc=$?
echo "==== cuSPARSE tests (separate process) ====" >> "$OUT/tests.log"
limit "${MATEXP_TEST_TIMEOUT:-900}" "$HERE/gpu_tests" --include-ignored --show-output cusparse ${MATEXP_TEST_ARGS:-} >> "$OUT/tests.log" 2>&1
cusparse_rc=$?
mid=$(date +%s)
limit "${MATEXP_BENCH_TIMEOUT:-1800}" "$HERE/gpu_bench" --out "$OUT/records" ${MATEXP_BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
bench_rc=$?
end=$(date +%s)

echo
echo "=== matexp GPU bundle (commit $MATEXP_COMMIT) ==="
grep -m1 '^device:' "$OUT/bench.log" || grep -m1 'device: gpu' "$OUT/tests.log" || echo "device: unknown"
echo "tests: exit $tests_rc (cuSPARSE tests: exit $cusparse_rc) in $((mid - start)) s"
grep -E '^test result' "$OUT/tests.log" | sed 's/^/  /'
grep -E '^test .* (FAILED|ok)$' "$OUT/tests.log" | sed 's/^/  /'
if [ "$tests_rc" -ne 0 ] || [ "$cusparse_rc" -ne 0 ]; then
  echo "  failures:"; grep -A2 'panicked at' "$OUT/tests.log" | head -40 | sed 's/^/    /'
fi
echo "bench: exit $bench_rc in $((end - mid)) s; records: $(ls "$OUT/records" | tr '\n' ' ')"
if [ "$bench_rc" -ne 0 ]; then
  tail -5 "$OUT/bench.log" | sed 's/^/    /'
fi
sed -n '/^summary on/,$p' "$OUT/bench.log"
[ "$tests_rc" -eq 0 ] && [ "$cusparse_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_script_is_valid_posix_sh() {
        let dir = std::env::temp_dir().join(format!("matexp-runsh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("run.sh");
        std::fs::write(&p, RUN_SH).unwrap();
        let ok = Command::new("sh")
            .arg("-n")
            .arg(&p)
            .status()
            .unwrap()
            .success();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(ok, "sh -n rejects run.sh");
    }
}
