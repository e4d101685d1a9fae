//! Helpers shared by the xtask subcommands: where the workspace is, running commands visibly,
//! timed steps with a closing summary, and provisioning of the system libraries and tools the
//! workspace needs on a fresh Debian/Ubuntu machine.
//!
//! Commands are written with xshell's `cmd!` in a [`Shell`]; [`run_cmd`] runs them with
//! inherited standard streams and [`cmd_stdout`] reads what they print.

use matexp_records::{now_secs, utc_parts};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use xshell::{Cmd, Shell, cmd};

/// The workspace root (the directory holding the workspace `Cargo.toml`).
///
/// Taken from where xtask was compiled (`xtask/` sits directly under the root), so it does
/// not depend on the caller's working directory.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest_dir.to_path_buf())
}

/// The workspace's member packages (`cargo metadata --no-deps`), sorted by their folder.
pub fn workspace_packages() -> Result<Vec<cargo_metadata::Package>, String> {
    let meta = cargo_metadata::MetadataCommand::new()
        .current_dir(workspace_root())
        .no_deps()
        .exec()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    let mut packages: Vec<cargo_metadata::Package> =
        meta.workspace_packages().into_iter().cloned().collect();
    packages.sort_by(|a, b| a.manifest_path.cmp(&b.manifest_path));
    Ok(packages)
}

/// The folder of each workspace member (where its `Cargo.toml` is), sorted.
pub fn crate_dirs() -> Result<Vec<PathBuf>, String> {
    Ok(workspace_packages()?
        .iter()
        .filter_map(|p| {
            p.manifest_path
                .parent()
                .map(|d| d.as_std_path().to_path_buf())
        })
        .collect())
}

/// A shell in the folder xtask was started from.
pub fn shell() -> Result<Shell, String> {
    Shell::new().map_err(|e| format!("no working folder: {e}"))
}

/// A shell in the workspace root, where every cargo command of xtask runs.
pub fn root_shell() -> Result<Shell, String> {
    let sh = shell()?;
    sh.change_dir(workspace_root());
    Ok(sh)
}

/// The cargo binary that runs xtask (and thus the same toolchain), for `cmd!(sh, "{cargo} …")`.
pub fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A `cargo` command in `sh` (from [`root_shell`]: the workspace root), with the same cargo
/// binary that runs xtask.
pub fn cargo(sh: &Shell) -> Cmd<'_> {
    sh.cmd(cargo_program())
}

/// The command line as a user could paste it into a shell (explicitly set environment
/// variables first).
pub fn display_cmd(cmd: &Command) -> String {
    let mut s = String::new();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            let _ = write!(
                s,
                "{}={} ",
                key.to_string_lossy(),
                shell_quote(&value.to_string_lossy())
            );
        }
    }
    // The cargo that runs xtask is shown as `cargo`: same toolchain, shorter line.
    let program = cmd.get_program();
    if std::env::var_os("CARGO").is_some_and(|c| c == program) {
        s.push_str("cargo");
    } else {
        s.push_str(&shell_quote(&program.to_string_lossy()));
    }
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&shell_quote(&arg.to_string_lossy()));
    }
    s
}

fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Prints the command (`$ cmd args`), runs it with inherited stdio, and fails with the
/// command line and exit status when it does not succeed.
pub fn run_cmd(cmd: impl Into<Command>) -> Result<(), String> {
    let mut cmd = cmd.into();
    let shown = display_cmd(&cmd);
    println!("$ {shown}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Runs a command quietly and returns its stdout; `None` when it cannot start or fails.
pub fn cmd_stdout(cmd: Cmd<'_>) -> Option<String> {
    let out = cmd.quiet().ignore_stderr().output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether a command runs and succeeds, with no input and its output discarded.
fn succeeds(cmd: Cmd<'_>) -> bool {
    cmd.quiet().ignore_stdout().ignore_stderr().run().is_ok()
}

/// Short hash of `HEAD` (12 hex digits), with `-dirty` when tracked files differ from it, so
/// that a benchmark record names exactly the code it measured; `unknown` outside git.
pub fn git_commit() -> String {
    let Ok(sh) = root_shell() else {
        return "unknown".into();
    };
    let Some(hash) = cmd_stdout(cmd!(sh, "git rev-parse --short=12 HEAD")) else {
        return "unknown".into();
    };
    let dirty = cmd_stdout(cmd!(sh, "git status --porcelain --untracked-files=no"))
        .is_some_and(|s| !s.trim().is_empty());
    format!("{}{}", hash.trim(), if dirty { "-dirty" } else { "" })
}

/// The current UTC time as `YYYYMMDDTHHMMSSZ` (sorts chronologically; safe in file names).
pub fn utc_stamp() -> String {
    stamp_of(now_secs())
}

fn stamp_of(secs: u64) -> String {
    let (y, m, d, s) = utc_parts(secs);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// A duration for humans: `850 ms`, `12.3 s`, `4 min 05 s`.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{:.0} ms", s * 1e3)
    } else if s < 60.0 {
        format!("{s:.1} s")
    } else {
        let whole = s.round() as u64;
        format!("{} min {:02} s", whole / 60, whole % 60)
    }
}

/// How a step of a multi-step command ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The step succeeded.
    Passed,
    /// The step failed; the message says how.
    Failed(String),
    /// The step did not run; the message says why.
    Skipped(String),
}

#[derive(Debug)]
struct StepRecord {
    name: String,
    outcome: Outcome,
    duration: Duration,
}

/// A sequence of named, timed steps that keeps going after a failure and ends with a summary
/// table (step, result, duration), so one run shows every problem at once.
///
/// ```ignore
/// let mut steps = Steps::new("test", 2);
/// steps.run("fmt", "cargo fmt --all --check", || run_cmd(cargo().args(["fmt", "--all", "--check"])));
/// steps.skip("cuda", "--no-cuda given");
/// steps.finish()?;
/// ```
#[derive(Debug)]
pub struct Steps {
    title: String,
    total: usize,
    done: Vec<StepRecord>,
}

impl Steps {
    /// A new sequence called `title` of `total` steps (the count appears in the headers).
    pub fn new(title: &str, total: usize) -> Self {
        Steps {
            title: title.into(),
            total,
            done: Vec::new(),
        }
    }

    /// Runs one step under a header, times it, and records the outcome. Returns whether it
    /// passed.
    pub fn run(
        &mut self,
        name: &str,
        what: &str,
        step: impl FnOnce() -> Result<(), String>,
    ) -> bool {
        let index = self.done.len() + 1;
        println!();
        println!("==> [{index}/{}] {name}: {what}", self.total.max(index));
        let start = Instant::now();
        let result = step();
        let duration = start.elapsed();
        let outcome = match result {
            Ok(()) => {
                println!("<== {name} passed in {}", fmt_duration(duration));
                Outcome::Passed
            }
            Err(message) => {
                println!(
                    "<== {name} FAILED after {}: {message}",
                    fmt_duration(duration)
                );
                Outcome::Failed(message)
            }
        };
        let passed = outcome == Outcome::Passed;
        self.done.push(StepRecord {
            name: name.into(),
            outcome,
            duration,
        });
        passed
    }

    /// Records a step that is not run, with the reason.
    pub fn skip(&mut self, name: &str, reason: &str) {
        let index = self.done.len() + 1;
        println!();
        println!(
            "==> [{index}/{}] {name}: skipped ({reason})",
            self.total.max(index)
        );
        self.done.push(StepRecord {
            name: name.into(),
            outcome: Outcome::Skipped(reason.into()),
            duration: Duration::ZERO,
        });
    }

    /// Prints the summary table and fails when any step failed.
    pub fn finish(self) -> Result<(), String> {
        let width = self
            .done
            .iter()
            .map(|s| s.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!();
        println!("{} summary", self.title);
        println!(
            "  {:<width$}  {:<7}  {:>12}  detail",
            "step", "result", "time"
        );
        let mut failed = Vec::new();
        let mut total = Duration::ZERO;
        for step in &self.done {
            total += step.duration;
            let (result, detail) = match &step.outcome {
                Outcome::Passed => ("pass", String::new()),
                Outcome::Failed(m) => {
                    failed.push(step.name.clone());
                    ("FAIL", m.clone())
                }
                Outcome::Skipped(r) => ("skipped", r.clone()),
            };
            let time = match step.outcome {
                Outcome::Skipped(_) => "-".to_string(),
                _ => fmt_duration(step.duration),
            };
            let line = format!("  {:<width$}  {result:<7}  {time:>12}  {detail}", step.name);
            println!("{}", line.trim_end());
        }
        println!(
            "  {:<width$}  {:<7}  {:>12}",
            "total",
            "",
            fmt_duration(total)
        );
        if failed.is_empty() {
            println!("{}: all steps passed", self.title);
            Ok(())
        } else {
            Err(format!(
                "{}: {} step(s) failed: {}",
                self.title,
                failed.len(),
                failed.join(", ")
            ))
        }
    }
}

/// Whether the process runs as root (effective uid 0), read from `/proc/self/status` with
/// `id -u` as a fallback.
pub fn is_root() -> bool {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        if let Some(line) = status.lines().find(|l| l.starts_with("Uid:")) {
            // Uid: real effective saved filesystem
            return line.split_whitespace().nth(2) == Some("0");
        }
    }
    let Ok(sh) = shell() else {
        return false;
    };
    cmd_stdout(cmd!(sh, "id -u")).is_some_and(|s| s.trim() == "0")
}

/// Debian/Ubuntu packages that provide the link-time libraries of the workspace: LAPACKE
/// (`liblapacke.so`) and a BLAS/LAPACK implementation (`libopenblas.so`).
pub const SYSTEM_PACKAGES: [&str; 2] = ["liblapacke-dev", "libopenblas-dev"];

/// Link-time names (`-l<name>`) of the system libraries the workspace needs.
pub const SYSTEM_LIBRARIES: [&str; 2] = ["lapacke", "openblas"];

/// Names the dynamic linker cache knows (`ldconfig -p`), e.g. `liblapacke.so`.
fn ldconfig_names() -> Option<Vec<String>> {
    let sh = shell().ok()?;
    ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .iter()
        .find_map(|exe| cmd_stdout(cmd!(sh, "{exe} -p")))
        .map(|out| {
            out.lines()
                .skip(1) // "N libs found in cache ..."
                .filter_map(|l| l.split_whitespace().next().map(str::to_string))
                .collect()
        })
}

/// The libraries of `libs` for which no development symlink `lib<name>.so` is known to the
/// linker cache or present in the usual library directories.
fn missing_libraries(libs: &[&str]) -> Vec<String> {
    let cache = ldconfig_names().unwrap_or_default();
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ];
    libs.iter()
        .filter(|lib| {
            let file = format!("lib{lib}.so");
            let in_cache = cache.contains(&file);
            let on_disk = dirs.iter().any(|d| Path::new(d).join(&file).exists());
            !(in_cache || on_disk)
        })
        .map(|lib| format!("lib{lib}.so"))
        .collect()
}

/// How privileged commands can be run here: directly as root, through passwordless `sudo`
/// on CI machines (`CI` set, as on GitHub runners), or not at all.
fn privilege_prefix() -> Option<Vec<&'static str>> {
    if is_root() {
        return Some(Vec::new());
    }
    let on_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    let sudo_ok = on_ci && shell().is_ok_and(|sh| succeeds(cmd!(sh, "sudo -n true")));
    sudo_ok.then(|| vec!["sudo", "-n"])
}

/// `apt-get <args>` behind `prefix` (empty, or `sudo -n`), never waiting for input.
fn apt_command(prefix: &[&str], args: &[&str]) -> Command {
    let mut cmd = match prefix.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg("apt-get");
            c
        }
        None => Command::new("apt-get"),
    };
    cmd.args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null());
    cmd
}

/// Installs Debian/Ubuntu packages with `apt-get` (after `apt-get update`) when that is
/// possible without asking anyone: as root, or with passwordless sudo on CI. Otherwise fails
/// with the exact command for the user to run.
pub fn apt_install(packages: &[&str], why: &str) -> Result<(), String> {
    let manual = format!(
        "sudo apt-get update && sudo apt-get install -y {}",
        packages.join(" ")
    );
    let sh = shell()?;
    let has_apt = cmd_stdout(cmd!(sh, "apt-get --version")).is_some();
    if !has_apt {
        return Err(format!(
            "{why}; this is not a Debian/Ubuntu system (no apt-get): install the equivalent of \
             `{}` with the system's package manager and rerun",
            packages.join(" ")
        ));
    }
    let Some(prefix) = privilege_prefix() else {
        return Err(format!(
            "{why}; installing them needs root. Run:\n    {manual}\nand then rerun this command"
        ));
    };
    let apt = |args: &[&str]| apt_command(&prefix, args);
    println!("{why}; installing {} with apt-get", packages.join(" "));
    run_cmd(apt(&["update"]))?;
    let mut install = apt(&["install", "-y", "--no-install-recommends"]);
    install.args(packages);
    run_cmd(install)
}

/// Makes sure the system libraries the workspace links are installed: LAPACKE and OpenBLAS
/// (Debian packages `liblapacke-dev libopenblas-dev`; a GPU host has their runtime parts
/// `liblapacke.so.3` and `libopenblas.so.0`). Installs them with `apt-get` when running as
/// root (or with passwordless sudo on CI); otherwise fails with the exact command to run.
pub fn ensure_system_packages() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        println!(
            "not Linux: make sure LAPACKE and a BLAS/LAPACK (e.g. OpenBLAS) are installed where \
             the linker finds them"
        );
        return Ok(());
    }
    let missing = missing_libraries(&SYSTEM_LIBRARIES);
    if missing.is_empty() {
        println!(
            "system libraries present: {}",
            SYSTEM_LIBRARIES
                .iter()
                .map(|l| format!("lib{l}.so"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(());
    }
    apt_install(
        &SYSTEM_PACKAGES,
        &format!("missing system libraries: {}", missing.join(", ")),
    )?;
    let still = missing_libraries(&SYSTEM_LIBRARIES);
    if still.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "still missing after installing {}: {}",
            SYSTEM_PACKAGES.join(" "),
            still.join(", ")
        ))
    }
}

/// Debian/Ubuntu packages of the MPI check (`cargo xtask mpi`): MPICH's launcher and
/// compiler wrapper, its headers and library, and libclang for rsmpi's generated bindings.
pub const MPI_PACKAGES: [&str; 3] = ["mpich", "libmpich-dev", "libclang-dev"];

/// What of the MPI toolchain is missing: `mpiexec` and `mpicc` on the PATH, libclang in the
/// linker cache or an LLVM library directory.
fn missing_mpi_parts() -> Vec<String> {
    let mut missing = Vec::new();
    let on_path = |exe: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(exe).is_file()))
    };
    for exe in ["mpiexec", "mpicc"] {
        if !on_path(exe) {
            missing.push(exe.to_string());
        }
    }
    let cached = ldconfig_names()
        .unwrap_or_default()
        .iter()
        .any(|n| n.starts_with("libclang.so") || n.starts_with("libclang-"));
    let llvm = std::fs::read_dir("/usr/lib").is_ok_and(|dir| {
        dir.flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with("llvm-")
                && e.path().join("lib").join("libclang.so").exists()
        })
    });
    if !(cached || llvm) {
        missing.push("libclang.so".into());
    }
    missing
}

/// Makes sure MPI (MPICH) and libclang are installed, like [`ensure_system_packages`]:
/// installs [`MPI_PACKAGES`] with `apt-get` as root (or with passwordless sudo on CI),
/// otherwise fails with the exact command to run. Another MPI already on the PATH (Open
/// MPI, a cluster's module) is used as it is.
pub fn ensure_mpi_packages() -> Result<(), String> {
    let missing = missing_mpi_parts();
    if missing.is_empty() {
        println!("MPI present: mpiexec, mpicc and libclang");
        return Ok(());
    }
    apt_install(
        &MPI_PACKAGES,
        &format!("missing for the MPI check: {}", missing.join(", ")),
    )?;
    let still = missing_mpi_parts();
    if still.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "still missing after installing {}: {}",
            MPI_PACKAGES.join(" "),
            still.join(", ")
        ))
    }
}

/// Makes sure `python3 -m venv` works (it needs `ensurepip`, which Debian ships separately
/// in `python3-venv`), installing `python3 python3-venv` like [`ensure_system_packages`]
/// when it does not. The pinned nvcc is installed from pip wheels into such a venv.
pub fn ensure_python_venv() -> Result<(), String> {
    let sh = shell()?;
    let works = || succeeds(cmd!(sh, "python3 -c 'import venv, ensurepip'"));
    if works() {
        println!("python3 with venv and ensurepip present");
        return Ok(());
    }
    apt_install(
        &["python3", "python3-venv"],
        "python3 with the venv module (needed to install the pinned nvcc) is missing",
    )?;
    if works() {
        Ok(())
    } else {
        Err(
            "`python3 -c 'import venv, ensurepip'` still fails after installing python3-venv"
                .into(),
        )
    }
}

/// Makes sure a rustup component (`rustfmt`, `clippy`) is installed: adds it with rustup
/// when it is missing and rustup is there, else fails with the command to run.
pub fn ensure_rustup_component(component: &str, probe: &[&str]) -> Result<(), String> {
    let root = root_shell()?;
    let present = || succeeds(cargo(&root).args(probe));
    if present() {
        return Ok(());
    }
    let sh = shell()?;
    if cmd_stdout(cmd!(sh, "rustup --version")).is_none() {
        return Err(format!(
            "`cargo {}` does not work and rustup is not installed: install the Rust component \
             `{component}` for this toolchain",
            probe.join(" ")
        ));
    }
    run_cmd(cmd!(sh, "rustup component add {component}"))?;
    if present() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {}` still fails after adding {component}",
            probe.join(" ")
        ))
    }
}

/// Makes a string safe as one path component (`h200`, `cpu-2core`): keeps ASCII letters,
/// digits, `.`, `_`, `-` and `+`, replaces anything else with `_`.
pub fn path_component(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    match cleaned.as_str() {
        "" | "." | ".." => format!("_{cleaned}"),
        _ => cleaned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamp_matches_known_instants() {
        assert_eq!(stamp_of(0), "19700101T000000Z");
        // 2000-02-29 23:59:59 UTC, a leap day of a century leap year.
        assert_eq!(stamp_of(951_868_799), "20000229T235959Z");
        // 2026-11-22 03:14:15 UTC.
        assert_eq!(stamp_of(1_795_317_255), "20261122T031415Z");
    }

    #[test]
    fn shell_quoting_round_trips_through_sh() {
        let args = ["plain", "with space", "it's", "", "a|b"];
        let mut cmd = Command::new("printf");
        cmd.arg("%s\\n").args(args);
        let line = display_cmd(&cmd);
        let sh = shell().expect("a working folder");
        let out = cmd_stdout(cmd!(sh, "sh -c {line}")).expect("sh runs");
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(&lines[..args.len()], &args);
    }

    #[test]
    fn apt_runs_noninteractively_behind_the_prefix() {
        let root = apt_command(&[], &["update"]);
        assert_eq!(
            display_cmd(&root),
            "DEBIAN_FRONTEND=noninteractive apt-get update"
        );
        let ci = apt_command(&["sudo", "-n"], &["install", "-y", "liblapacke-dev"]);
        assert_eq!(
            display_cmd(&ci),
            "DEBIAN_FRONTEND=noninteractive sudo -n apt-get install -y liblapacke-dev"
        );
    }

    #[test]
    fn library_probe_tells_present_from_missing() {
        // libc.so (the glibc development link) is on every machine that links Rust programs.
        assert_eq!(
            missing_libraries(&["c", "matexp_no_such_library"]),
            ["libmatexp_no_such_library.so"]
        );
    }

    #[test]
    fn path_components_are_safe() {
        assert_eq!(path_component("cpu-2core"), "cpu-2core");
        assert_eq!(path_component("h200 x2/a"), "h200_x2_a");
        assert_eq!(path_component("gpu×2"), "gpu_2");
        assert_eq!(path_component(".."), "_..");
        assert_eq!(path_component(""), "_");
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(fmt_duration(Duration::from_millis(850)), "850 ms");
        assert_eq!(fmt_duration(Duration::from_millis(12_340)), "12.3 s");
        assert_eq!(fmt_duration(Duration::from_secs(245)), "4 min 05 s");
    }
}
