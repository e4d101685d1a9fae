//! `cargo xtask bundle [--out DIR]`: the self-contained GPU bundle.
//!
//! Builds on this (CPU) machine, in release mode, every GPU test binary and GPU benchmark of
//! the workspace, found by convention (no list to edit when a crate adds one):
//!
//! * every integration test target named `gpu*` (a file `tests/gpu*.rs`) of any workspace
//!   member, as `cargo metadata` lists them: its tests are `#[ignore]`d elsewhere and run here with
//!   `--include-ignored`;
//! * every benchmark suite `benches/benches/gpu_*.rs` of `matexp-benches`.
//!
//! It strips them, checks that they need no shared library beyond glibc's, libgcc_s, LAPACKE
//! and OpenBLAS (CUDA is loaded at run time), and gathers them with `run.sh` into one folder
//! (default `bundle/`): test binaries under `tests/<package>--<file>`, benchmarks under
//! `bench/<suite>`. A folder over the 64 MiB of one transfer to a GPU host (every binary
//! embeds the kernels' PTX) is also packed as `bundle.tar.xz` (~10× smaller), to copy and
//! unpack there (`tar xJf bundle.tar.xz`). On a GPU host:
//!
//! ```text
//! bundle/run.sh OUTDIR [FILTER...]   # tests, then benchmarks; summary table last
//! cargo xtask ingest OUTDIR          # back here: merge OUTDIR/records into bench-results/
//! ```
//!
//! A FILTER (a shell pattern such as `*e2e*` or `gpu_spmv`) runs only the binaries whose
//! name matches; `MATEXP_TEST_ARGS` passes test-name filters to the test binaries.
//!
//! `MATEXP_SANITIZE=memcheck,racecheck,initcheck,synccheck` runs the test binaries under
//! compute-sanitizer instead, every tool in one invocation, with the tests' small problem
//! sizes (`MATEXP_GPU_TEST_SCALE=small`, see `matexp_testkit::gpu_sizes`). racecheck checks
//! the project's own kernels only (the names of `sanitize-kernels.txt`, gathered here from
//! the `.entry` directives of every crate's `ptx/*.ptx`): it finds shared-memory hazards,
//! and cuBLAS / cuSPARSE kernels are neither ours nor tracked reliably by it.

use crate::util::{
    cargo, crate_dirs, ensure_system_packages, git_commit, root_shell, workspace_packages,
    workspace_root,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `cargo xtask bundle --help` says beyond the options.
pub const ABOUT: &str = "\
Builds every GPU test binary (tests/gpu*.rs of any crate) and GPU benchmark
(benches/benches/gpu_*.rs) in release mode, strips them, and gathers them with run.sh into
DIR (default: bundle/ in the workspace root; replaced if present). Copy DIR to a GPU host
and run `DIR/run.sh OUTDIR [FILTER...]`: it writes tests/*.log, bench/*.log, nvidia-smi.txt
and records/*.jsonl to OUTDIR and prints a summary last; FILTERs (shell patterns) pick
binaries by name. Merge the records here with `cargo xtask ingest OUTDIR`. MATEXP_TEST_ARGS
and MATEXP_BENCH_ARGS pass options to the test and benchmark binaries; MATEXP_TEST_SEED
replays the random inputs of a logged run. `MATEXP_SANITIZE=memcheck,racecheck,initcheck,synccheck
DIR/run.sh OUTDIR` runs the tests under compute-sanitizer with each tool instead and writes
OUTDIR/sanitize-<tool>.log, each ending in its verdict, and OUTDIR/sanitize-summary.txt
(the tests take their small sizes; racecheck checks the project's kernels only; see
DIR/README.txt for the MATEXP_SANITIZE_* options).";

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

/// The options of `cargo xtask bundle`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct BundleArgs {
    /// the bundle folder (default: bundle/ in the workspace root; replaced if present)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Entry point of `cargo xtask bundle`.
pub fn run(args: BundleArgs) -> Result<(), String> {
    let root = workspace_root();
    let out = args.out.unwrap_or_else(|| root.join("bundle"));
    ensure_system_packages()?;

    let packages = workspace_packages()?;
    let tests = gpu_test_files(&packages);
    let suites = gpu_bench_suites(&packages);
    if tests.is_empty() && suites.is_empty() {
        return Err("no GPU tests (tests/gpu*.rs) or benchmarks (benches/benches/gpu_*.rs)".into());
    }
    let mut built: Vec<(PathBuf, String)> = Vec::new();
    let mut packages: Vec<&str> = tests.iter().map(|t| t.package.as_str()).collect();
    packages.dedup();
    for package in packages {
        let names: Vec<&GpuTest> = tests.iter().filter(|t| t.package == package).collect();
        let mut args = vec!["test", "-p", package, "--release", "--no-run"];
        let feature = format!("{package}/gpu");
        if names.iter().any(|t| t.gpu_feature) {
            args.extend(["--features", feature.as_str()]);
        }
        for t in &names {
            args.extend(["--test", t.file.as_str()]);
        }
        println!(
            "bundle: building the GPU tests of {package} (release): {}",
            names
                .iter()
                .map(|t| t.file.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let exes = build_executables(&args, "test")?;
        for t in names {
            let exe = exes
                .iter()
                .find(|(n, _)| *n == t.file)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| {
                    format!("cargo built no test executable `{}` of {package}", t.file)
                })?;
            built.push((exe, format!("tests/{package}--{}", t.file)));
        }
    }
    if !suites.is_empty() {
        let mut args = vec!["bench", "-p", "matexp-benches", "--no-run"];
        for s in &suites {
            args.extend(["--bench", s.as_str()]);
        }
        println!(
            "bundle: building the GPU benchmarks (bench profile): {}",
            suites.join(", ")
        );
        let exes = build_executables(&args, "bench")?;
        for s in &suites {
            let exe = exes
                .iter()
                .find(|(n, _)| n == s)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| format!("cargo built no bench executable `{s}`"))?;
            built.push((exe, format!("bench/{s}")));
        }
    }

    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("remove {}: {e}", out.display()))?;
    }
    for dir in ["tests", "bench"] {
        std::fs::create_dir_all(out.join(dir))
            .map_err(|e| format!("create {}: {e}", out.join(dir).display()))?;
    }
    for (src, name) in &built {
        let dst = out.join(name);
        std::fs::copy(src, &dst)
            .map_err(|e| format!("copy {} -> {}: {e}", src.display(), dst.display()))?;
        strip(&dst)?;
        check_libraries(&dst)?;
    }
    let kernels = project_kernels()?;
    println!(
        "bundle: {} project kernels for the sanitizer's kernel filter",
        kernels.len()
    );
    write(&out.join(KERNEL_LIST), &(kernels.join("\n") + "\n"))?;
    let commit = git_commit();
    write(&out.join("COMMIT"), &format!("{commit}\n"))?;
    write(&out.join("run.sh"), RUN_SH)?;
    make_executable(&out.join("run.sh"))?;
    write(&out.join("README.txt"), &readme(&commit))?;

    // An archive of an earlier bundle would be stale.
    let _ = std::fs::remove_file(archive_path(&out));
    let mut size = folder_size(&out)?;
    if size > MAX_BYTES {
        // Symbol tables only serve backtraces: drop them rather than a test binary.
        println!(
            "bundle: {:.1} MiB is over the limit; removing symbol tables too",
            size as f64 / (1 << 20) as f64
        );
        for (_, name) in &built {
            strip_all(&out.join(name))?;
        }
        size = folder_size(&out)?;
    }
    println!(
        "bundle: {} ({:.1} MiB, commit {commit})",
        out.display(),
        size as f64 / (1 << 20) as f64
    );
    if size > MAX_BYTES {
        // The binaries embed every kernel's PTX text, which compresses ~10×: ship the
        // folder as one xz archive instead.
        let archive = pack(&out)?;
        let packed = std::fs::metadata(&archive)
            .map_err(|e| format!("{}: {e}", archive.display()))?
            .len();
        println!(
            "bundle: {:.1} MiB is over the {} MiB of one transfer; packed as {} ({:.1} MiB)",
            size as f64 / (1 << 20) as f64,
            MAX_BYTES >> 20,
            archive.display(),
            packed as f64 / (1 << 20) as f64
        );
        if packed > MAX_BYTES {
            return Err(format!(
                "the packed bundle is {packed} bytes, over the {MAX_BYTES}-byte limit of one \
                 transfer"
            ));
        }
        let name = out
            .file_name()
            .map_or("bundle".into(), |n| n.to_string_lossy());
        println!(
            "run on a GPU host: copy {}, then `tar xJf {} && {name}/run.sh OUTDIR`",
            archive.display(),
            archive
                .file_name()
                .map_or("".into(), |n| n.to_string_lossy())
        );
        return Ok(());
    }
    println!("run on a GPU host: {}/run.sh OUTDIR", out.display());
    Ok(())
}

/// `<out>.tar.xz`, beside the bundle folder `out`.
fn archive_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".tar.xz");
    PathBuf::from(name)
}

/// Packs the bundle folder `out` into `<out>.tar.xz` beside it (system `tar` and `xz`, both
/// on every Linux host the project builds on); returns the archive's path.
fn pack(out: &Path) -> Result<PathBuf, String> {
    let parent = out.parent().unwrap_or(Path::new("."));
    let name = out
        .file_name()
        .ok_or_else(|| format!("{}: no folder name", out.display()))?;
    let archive = archive_path(out);
    let status = Command::new("tar")
        .arg("-cJf")
        .arg(&archive)
        .arg("-C")
        .arg(parent)
        .arg(name)
        .env("XZ_OPT", "-6 -T0")
        .status()
        .map_err(|e| format!("tar (to pack the bundle): {e}"))?;
    if !status.success() {
        return Err(format!("tar -cJf {} failed ({status})", archive.display()));
    }
    Ok(archive)
}

/// A GPU integration test file: its package, file stem, and whether the package has a `gpu`
/// feature (then enabled for the build: GPU tests of crates with optional GPU support need it).
#[derive(Debug, Clone, PartialEq, Eq)]
struct GpuTest {
    package: String,
    file: String,
    gpu_feature: bool,
}

/// Every GPU integration test of the workspace: the test targets named `gpu*` (from
/// `tests/gpu*.rs`) of every member, by package folder then name.
fn gpu_test_files(packages: &[cargo_metadata::Package]) -> Vec<GpuTest> {
    let mut v = Vec::new();
    for p in packages {
        let gpu_feature = p.features.contains_key("gpu");
        let mut files: Vec<String> = p
            .targets
            .iter()
            .filter(|t| t.is_kind(cargo_metadata::TargetKind::Test) && t.name.starts_with("gpu"))
            .map(|t| t.name.clone())
            .collect();
        files.sort();
        v.extend(files.into_iter().map(|file| GpuTest {
            package: p.name.to_string(),
            file,
            gpu_feature,
        }));
    }
    v
}

/// Every benchmark suite `gpu_*` of `matexp-benches` (`benches/benches/gpu_*.rs`), sorted.
fn gpu_bench_suites(packages: &[cargo_metadata::Package]) -> Vec<String> {
    let mut v: Vec<String> = packages
        .iter()
        .filter(|p| p.name.as_str() == "matexp-benches")
        .flat_map(|p| &p.targets)
        .filter(|t| t.is_kind(cargo_metadata::TargetKind::Bench) && t.name.starts_with("gpu_"))
        .map(|t| t.name.clone())
        .collect();
    v.sort();
    v
}

/// The bundle's list of the project's kernel names, one per line: the kernels racecheck
/// checks by default (`run.sh` joins them into one anchored `--kernel-name regex=`).
const KERNEL_LIST: &str = "sanitize-kernels.txt";

/// Names of the kernels a PTX text defines (its `.entry` directives).
fn ptx_entries(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in ptx.lines() {
        // PTX comments run from `//` to the end of the line.
        let code = line.split("//").next().unwrap_or_default();
        let mut words = code.split_whitespace();
        while let Some(w) = words.next() {
            if w == ".entry" {
                if let Some(rest) = words.next() {
                    let name = rest.split('(').next().unwrap_or_default();
                    if !name.is_empty() {
                        names.push(name.to_string());
                    }
                }
                break;
            }
        }
    }
    names
}

/// Every kernel of the project: the `.entry` names of each crate's `ptx/*.ptx` (the PTX the
/// binaries embed and JIT-compile, so the names the sanitizer sees), sorted and unique.
/// Names must be plain identifiers, so that the alternation `run.sh` builds of them matches
/// exactly these kernels and no vendor kernel.
fn project_kernels() -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for dir in crate_dirs()? {
        let Ok(rd) = std::fs::read_dir(dir.join("ptx")) else {
            continue;
        };
        for path in rd.flatten().map(|e| e.path()) {
            if path.extension().is_some_and(|x| x == "ptx") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("read {}: {e}", path.display()))?;
                names.extend(ptx_entries(&text));
            }
        }
    }
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err("no kernel (.entry) in any ptx/*.ptx of the workspace".into());
    }
    if let Some(bad) = names
        .iter()
        .find(|n| !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(format!(
            "kernel name `{bad}` is not a plain identifier: the sanitizer's kernel filter \
             could not match it exactly"
        ));
    }
    Ok(names)
}

/// Runs `cargo <args> --message-format=json` and returns (target name, executable) of every
/// built target of kind `kind`.
fn build_executables(args: &[&str], kind: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let sh = root_shell()?;
    let output = Command::from(cargo(&sh).args(args))
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
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
    let mut found = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" {
            continue;
        }
        let kinds = v["target"]["kind"].as_array().cloned().unwrap_or_default();
        if !kinds.iter().any(|k| k == kind) {
            continue;
        }
        if let (Some(name), Some(exe)) = (v["target"]["name"].as_str(), v["executable"].as_str()) {
            found.push((name.to_string(), PathBuf::from(exe)));
        }
    }
    Ok(found)
}

fn strip_all(path: &Path) -> Result<(), String> {
    let status = Command::new("strip")
        .arg("--strip-all")
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run strip (binutils): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "strip --strip-all {} failed ({status})",
            path.display()
        ))
    }
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
         tests/<package>--<file>  GPU integration tests (every tests/gpu*.rs of the workspace):\n\
         \x20                        kernels and solvers against the CPU, every scalar type,\n\
         \x20                        multi-GPU parts when the host has several GPUs\n\
         bench/<suite>            GPU benchmarks (benches/benches/gpu_*.rs), CUDA events\n\
         run.sh                   run.sh OUTDIR [FILTER...]: all of them (or those whose name\n\
         \x20                        matches a shell pattern FILTER), logs in OUTDIR/tests and\n\
         \x20                        OUTDIR/bench, records in OUTDIR/records, summary last.\n\n\
         Environment: MATEXP_TEST_ARGS (test-name filters and harness options), MATEXP_BENCH_ARGS\n\
         (options of the benchmarks, e.g. --small, --reps N, --no-multi for gpu_spmv),\n\
         MATEXP_TEST_SEED (replays the random inputs of a logged run: every test prints its\n\
         seed), MATEXP_TEST_TIMEOUT / MATEXP_BENCH_TIMEOUT (seconds per binary).\n\
         MATEXP_SANITIZE=memcheck,racecheck,initcheck,synccheck runs the tests (no benchmarks)\n\
         under compute-sanitizer with each tool, all in one invocation: OUTDIR/sanitize-<tool>.log\n\
         with a verdict line each, OUTDIR/sanitize-summary.txt. Options:\n\
         \x20 COMPUTE_SANITIZER           its path (default /usr/local/cuda/bin/compute-sanitizer)\n\
         \x20 MATEXP_SANITIZE_TIMEOUT     seconds per binary (default 3600)\n\
         \x20 MATEXP_SANITIZE_JOBS        sanitized binaries at once, over all tools (default 1)\n\
         \x20 MATEXP_SANITIZE_TEST_THREADS  test threads per sanitized binary (default 1:\n\
         \x20                             concurrent launches from several threads break\n\
         \x20                             racecheck's launch tracking)\n\
         \x20 MATEXP_SANITIZE_ALONE       binaries that run first, one at a time, with nothing\n\
         \x20                             else on the GPU (default *failure_paths*: they read\n\
         \x20                             the free device memory)\n\
         \x20 MATEXP_SANITIZE_ALONE_TIMEOUT  seconds for each of those (default: the timeout)\n\
         \x20 MATEXP_SANITIZE_NO_API      binaries whose API errors are expected (default\n\
         \x20                             *failure_paths*: they provoke out-of-memory refusals)\n\
         \x20 MATEXP_SANITIZE_KERNELS     ours: only the kernels of sanitize-kernels.txt (the\n\
         \x20                             project's); all: every kernel, cuBLAS and cuSPARSE\n\
         \x20                             included. Default: ours for racecheck, all otherwise\n\
         \x20 MATEXP_GPU_TEST_SCALE       small (the default here) or full: the tests' sizes\n\n\
         Needs: an NVIDIA driver with CUDA >= 13.0 (libcuda, libcusparse, libcublas are loaded\n\
         at run time), glibc, liblapacke.so.3 and libopenblas.so.0.\n"
    )
}

/// The script that runs everything on the GPU host (`xtask/assets/run.sh`). POSIX sh; keeps
/// going after a failure so that one run reports every problem; exit status 0 only if every
/// binary passed.
const RUN_SH: &str = include_str!("../assets/run.sh");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_tests_and_benches_are_found_by_convention() {
        let packages = workspace_packages().unwrap();
        let tests = gpu_test_files(&packages);
        assert!(tests.contains(&GpuTest {
            package: "matexp-gpu".into(),
            file: "gpu".into(),
            gpu_feature: false,
        }));
        assert!(tests.iter().all(|t| t.file.starts_with("gpu")));
        // A crate with optional GPU code builds its GPU tests with its `gpu` feature.
        assert!(
            tests
                .iter()
                .filter(|t| t.package == "matexp-stencil")
                .all(|t| t.gpu_feature)
        );
        assert!(gpu_bench_suites(&packages).contains(&"gpu_spmv".to_string()));
        assert!(
            gpu_bench_suites(&packages)
                .iter()
                .all(|s| s.starts_with("gpu_"))
        );
    }

    #[test]
    fn run_script_filters_binaries_by_pattern() {
        let dir = std::env::temp_dir().join(format!("matexp-runsh-f-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/tests")).unwrap();
        std::fs::create_dir_all(dir.join("b/bench")).unwrap();
        std::fs::write(dir.join("b/COMMIT"), "abc\n").unwrap();
        std::fs::write(dir.join("b/run.sh"), RUN_SH).unwrap();
        // Stand-ins that log their name and succeed.
        for n in [
            "tests/matexp-gpu--gpu",
            "tests/matexp-e2e--gpu_own_kernel",
            "bench/gpu_spmv",
        ] {
            let p = dir.join("b").join(n);
            std::fs::write(&p, format!("#!/bin/sh\necho ran {n}\n")).unwrap();
            make_executable(&p).unwrap();
        }
        let out = dir.join("out");
        let st = Command::new("sh")
            .arg(dir.join("b/run.sh"))
            .arg(&out)
            .arg("*e2e*")
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        let logs: Vec<String> = std::fs::read_dir(out.join("tests"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(logs, ["matexp-e2e--gpu_own_kernel.log"]);
        assert_eq!(std::fs::read_dir(out.join("bench")).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Runs the bundle script in sanitizer mode with a stand-in compute-sanitizer that
    /// reports `errors` errors; returns the exit success and the memcheck log.
    fn sanitize_run(tag: &str, errors: u32) -> (bool, String, String) {
        let dir = std::env::temp_dir().join(format!("matexp-runsh-s{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/tests")).unwrap();
        std::fs::create_dir_all(dir.join("b/bench")).unwrap();
        std::fs::write(dir.join("b/COMMIT"), "abc\n").unwrap();
        std::fs::write(dir.join("b/run.sh"), RUN_SH).unwrap();
        let t = dir.join("b/tests/matexp-gpu--gpu");
        std::fs::write(&t, "#!/bin/sh\necho test result: ok\n").unwrap();
        make_executable(&t).unwrap();
        let b = dir.join("b/bench/gpu_spmv");
        std::fs::write(&b, "#!/bin/sh\necho bench ran\n").unwrap();
        make_executable(&b).unwrap();
        let cs = dir.join("cs");
        std::fs::write(
            &cs,
            format!(
                "#!/bin/sh\n# --tool T [--report-api-errors no] --error-exitcode N exe args\nwhile [ \"${{1#--}}\" != \"$1\" ]; do shift 2; done\n\"$@\"\necho \"========= ERROR SUMMARY: {errors} errors\"\n[ {errors} -eq 0 ] || exit 99\n"
            ),
        )
        .unwrap();
        make_executable(&cs).unwrap();
        let out = dir.join("out");
        let st = Command::new("sh")
            .arg(dir.join("b/run.sh"))
            .arg(&out)
            .env("MATEXP_SANITIZE", "memcheck,synccheck")
            .env("COMPUTE_SANITIZER", &cs)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        let log = std::fs::read_to_string(out.join("sanitize-memcheck.log")).unwrap_or_default();
        let summary = std::fs::read_to_string(out.join("sanitize-summary.txt")).unwrap_or_default();
        assert!(
            !out.join("bench/gpu_spmv.log").exists(),
            "benchmarks ran under the sanitizer"
        );
        let _ = std::fs::remove_dir_all(&dir);
        (st.success(), log, summary)
    }

    #[test]
    fn sanitizer_mode_reports_each_tool_verdict() {
        let (ok, log, summary) = sanitize_run("clean", 0);
        assert!(ok, "{log}");
        assert!(log.contains("test result: ok"), "{log}");
        assert!(
            log.contains("sanitize memcheck: clean: 0 errors in 1 test binaries"),
            "{log}"
        );
        assert_eq!(summary.lines().count(), 2, "{summary}");
        assert!(summary.contains("sanitize synccheck: clean"), "{summary}");
        let (ok, log, _) = sanitize_run("dirty", 3);
        assert!(!ok);
        assert!(
            log.contains("sanitize memcheck: FAILED: 3 errors in 1 test binaries"),
            "{log}"
        );
        assert!(
            log.contains("tests/matexp-gpu--gpu (exit 99, 3 errors)"),
            "{log}"
        );
    }

    /// What a sanitizer-mode run of a stand-in bundle left: its success, its stderr, and the
    /// files of its OUTDIR (and of the stand-ins' records) by name.
    struct SanitizeRun {
        ok: bool,
        stderr: String,
        files: std::collections::BTreeMap<String, String>,
    }

    impl SanitizeRun {
        fn file(&self, name: &str) -> &str {
            self.files.get(name).map_or("", String::as_str)
        }
    }

    /// Runs run.sh in sanitizer mode over stand-in test binaries `tests` (name, shell body),
    /// a stand-in compute-sanitizer whose output after the test's is `cs_tail` (shell), and
    /// an optional kernel list. Stand-ins append to `$REC/order` (the tests) and `$REC/args`
    /// (the sanitizer's arguments).
    fn sanitize_with(
        tag: &str,
        tests: &[(&str, &str)],
        cs_tail: &str,
        kernels: Option<&str>,
        env: &[(&str, &str)],
    ) -> SanitizeRun {
        let dir = std::env::temp_dir().join(format!("matexp-runsh-w{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["b/tests", "b/bench", "rec"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(dir.join("b/COMMIT"), "abc\n").unwrap();
        std::fs::write(dir.join("b/run.sh"), RUN_SH).unwrap();
        if let Some(k) = kernels {
            std::fs::write(dir.join("b").join(KERNEL_LIST), k).unwrap();
        }
        for (name, body) in tests {
            let p = dir.join("b/tests").join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
            make_executable(&p).unwrap();
        }
        let cs = dir.join("cs");
        std::fs::write(
            &cs,
            format!(
                "#!/bin/sh\necho \"$*\" >> \"$REC/args\"\ntool=$2\nwhile [ \"${{1#--}}\" != \"$1\" ]; do shift 2; done\n\"$@\"\n{cs_tail}\n"
            ),
        )
        .unwrap();
        make_executable(&cs).unwrap();
        let out = dir.join("out");
        let mut cmd = Command::new("sh");
        cmd.arg(dir.join("b/run.sh"))
            .arg(&out)
            .env("COMPUTE_SANITIZER", &cs)
            .env("REC", dir.join("rec"))
            .env_remove("MATEXP_GPU_TEST_SCALE")
            .env_remove("MATEXP_SANITIZE_KERNELS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let o = cmd.output().unwrap();
        let mut files = std::collections::BTreeMap::new();
        for d in [out, dir.join("rec")] {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if let Ok(t) = std::fs::read_to_string(e.path()) {
                    files.insert(e.file_name().to_string_lossy().into_owned(), t);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        SanitizeRun {
            ok: o.status.success(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            files,
        }
    }

    #[test]
    fn racecheck_checks_our_kernels_only_and_the_failure_paths_run_alone_first() {
        let r = sanitize_with(
            "ours",
            &[
                ("matexp-e2e--gpu_failure_paths", "echo fp >> \"$REC/order\""),
                (
                    "matexp-gpu--gpu",
                    "echo gpu >> \"$REC/order\"; echo \"scale=$MATEXP_GPU_TEST_SCALE\"",
                ),
            ],
            "echo \"========= ERROR SUMMARY: 0 errors\"",
            Some("axpby_f64\nfock_hx_c64\n"),
            &[
                ("MATEXP_SANITIZE", "memcheck,racecheck"),
                ("MATEXP_SANITIZE_JOBS", "4"),
            ],
        );
        assert!(r.ok, "{}\n{:?}", r.stderr, r.files);
        // The failure paths first (one per tool, alone), then the others.
        assert_eq!(r.file("order"), "fp\nfp\ngpu\ngpu\n");
        let args = r.file("args");
        assert_eq!(args.lines().count(), 4, "{args}");
        for l in args.lines() {
            let filtered = l.contains("--kernel-name regex=^(axpby_f64|fock_hx_c64)$ ");
            assert_eq!(filtered, l.starts_with("--tool racecheck"), "{l}");
            assert_eq!(
                l.contains("--report-api-errors no"),
                l.contains("failure_paths"),
                "{l}"
            );
        }
        let race = r.file("sanitize-racecheck.log");
        assert!(race.contains("scale=small"), "{race}");
        assert!(race.contains("kernels checked: the project's 2 "), "{race}");
        assert!(
            race.contains("sanitize racecheck: clean: 0 errors in 2 test binaries"),
            "{race}"
        );
        assert!(
            r.file("sanitize-memcheck.log")
                .contains("kernels checked: all"),
            "{:?}",
            r.files
        );
        assert_eq!(r.file("sanitize-summary.txt").lines().count(), 2);
    }

    #[test]
    fn racecheck_without_a_kernel_list_refuses_unless_told_to_check_all() {
        let tests = [("matexp-gpu--gpu", "echo ran")];
        let tail =
            "echo \"========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\"";
        let env = [("MATEXP_SANITIZE", "racecheck")];
        let r = sanitize_with("nolist", &tests, tail, None, &env);
        assert!(!r.ok);
        assert!(r.stderr.contains("sanitize-kernels.txt"), "{}", r.stderr);
        assert_eq!(r.file("args"), "");
        let env = [
            ("MATEXP_SANITIZE", "racecheck"),
            ("MATEXP_SANITIZE_KERNELS", "all"),
            ("MATEXP_GPU_TEST_SCALE", "full"),
        ];
        let r = sanitize_with("all", &tests, tail, None, &env);
        assert!(r.ok, "{}", r.stderr);
        assert!(!r.file("args").contains("--kernel-name"), "{:?}", r.files);
        assert!(
            r.file("sanitize-racecheck.log")
                .contains("MATEXP_GPU_TEST_SCALE=full; kernels checked: all"),
            "{:?}",
            r.files
        );
    }

    #[test]
    fn internal_sanitizer_errors_are_counted_and_named() {
        // racecheck counts the failure in its summary; a summary of 0 errors with the same
        // line still fails.
        let tail = "echo \"========= Internal Sanitizer Error: Detected a failure to track a kernel launch. Future records might be incomplete\"\n\
                    if [ \"$tool\" = racecheck ]; then echo \"========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\"; exit 99; fi\n\
                    echo \"========= ERROR SUMMARY: 0 errors\"";
        let r = sanitize_with(
            "internal",
            &[("matexp-gpu--gpu", "echo ran")],
            tail,
            Some("axpby_f64\n"),
            &[("MATEXP_SANITIZE", "racecheck,synccheck")],
        );
        assert!(!r.ok);
        let summary = r.file("sanitize-summary.txt");
        assert!(
            summary.contains(
                "sanitize racecheck: FAILED: 1 errors in 1 test binaries; failing: \
                 tests/matexp-gpu--gpu (exit 99, 1 errors, 1 internal sanitizer errors)"
            ),
            "{summary}"
        );
        assert!(
            summary.contains(
                "sanitize synccheck: FAILED: 1 errors in 1 test binaries; failing: \
                 tests/matexp-gpu--gpu (exit 0, 1 errors, 1 internal sanitizer errors)"
            ),
            "{summary}"
        );
        assert!(
            r.file("sanitize-racecheck.log")
                .contains("Internal Sanitizer Error: Detected a failure to track"),
            "{:?}",
            r.files
        );
    }

    #[test]
    fn kernel_names_come_from_the_ptx_entries() {
        let ptx = ".version 9.0\n.target sm_80\n.visible .entry fill_f32(\n\t.param .u64 p\n)\n\
                   .func helper(\n.visible .entry  scale_c64 (\n// .entry in a comment is a line of its own\n";
        assert_eq!(ptx_entries(ptx), ["fill_f32", "scale_c64"]);
        let names = project_kernels().unwrap();
        for k in ["axpby_f64", "sin_times_x_f64", "fill_c64"] {
            assert!(names.iter().any(|n| n == k), "{k} missing from {names:?}");
        }
        assert!(names.windows(2).all(|w| w[0] < w[1]));
    }

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
