//! `cargo xtask bench`: runs the criterion suites of `matexp-benches`, merges the records they
//! write into `bench-results/<device>/<suite>.json`, and regenerates `bench-results/REPORT.md`.

use crate::records::{read_folder, store};
use crate::report::{render_summary, write_report};
use crate::util::{
    Steps, cargo_program, ensure_python_venv, ensure_system_packages, git_commit, root_shell,
    run_cmd, shell, utc_stamp, workspace_packages, workspace_root,
};
use std::path::{Path, PathBuf};
use xshell::cmd;

/// What `cargo xtask bench --help` says beyond the options.
pub const ABOUT: &str = "\
Prepares the peers' venv (target/peer-venv: numpy, SciPy from PyPI, through
benches/peers/peer_env.py), runs the criterion suites of matexp-benches (all of them unless
--suite is given) with SciPy beside ours where a suite has a peer, then merges the records into
bench-results/<device>/<suite>.json and regenerates bench-results/REPORT.md.";

/// The options of `cargo xtask bench`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct BenchArgs {
    /// paper-size cases (MATEXP_BENCH_FULL=1); the default is a quick laptop run
    #[arg(long)]
    full: bool,
    /// run only this suite (repeatable); see --list
    #[arg(long = "suite", value_name = "NAME")]
    suites: Vec<String>,
    /// device name in the records and the results folder (default
    /// cpu-<model>-<cores>core, the model from /proc/cpuinfo)
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// list the suites and exit
    #[arg(long)]
    list: bool,
    /// passed to every suite's criterion binary (e.g. a benchmark name filter)
    #[arg(last = true, value_name = "CRITERION_ARGS")]
    criterion: Vec<String>,
}

/// The suites of `matexp-benches`: its bench targets as `cargo metadata` lists them, in
/// the order cargo gives them (by name).
pub fn suites() -> Result<Vec<String>, String> {
    let names: Vec<String> = workspace_packages()?
        .iter()
        .filter(|p| p.name.as_str() == "matexp-benches")
        .flat_map(|p| &p.targets)
        .filter(|t| t.is_kind(cargo_metadata::TargetKind::Bench))
        .map(|t| t.name.clone())
        .collect();
    if names.is_empty() {
        return Err("matexp-benches declares no bench target (benches/Cargo.toml)".into());
    }
    Ok(names)
}

/// The device name of a CPU run: `cpu-<model>-<cores>core`, with the model from
/// `/proc/cpuinfo` (see [`cpu_device_name`]); `cpu-<cores>core` where that file is absent.
pub fn default_device() -> String {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpu_device_name(&cpuinfo, cores)
}

/// `cpu-<model>-<cores>core` from the text of `/proc/cpuinfo`: the first `model name`
/// without trademarks, clock, core count and filler words, lower-cased with `-` between
/// words (`AMD EPYC 7B13 64-Core Processor` → `cpu-amd-epyc-7b13-2core`). A generic name
/// with no model number in it (virtual machines report `Intel(R) Xeon(R) Processor`) gets the
/// `cpu family` and `model` numbers (`cpu-intel-xeon-f6m167-2core`), which tell processor
/// generations apart. Without a model name, `cpu-<cores>core`.
pub fn cpu_device_name(cpuinfo: &str, cores: usize) -> String {
    let field = |name: &str| {
        cpuinfo.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let Some(model_name) = field("model name").filter(|m| !m.is_empty()) else {
        return format!("cpu-{cores}core");
    };
    const FILLER: [&str; 5] = ["cpu", "processor", "with", "radeon", "graphics"];
    let cleaned = model_name
        .replace("(R)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ");
    let mut words: Vec<String> = Vec::new();
    for word in cleaned.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        // The clock (`@ 2.20GHz`) and what follows it say nothing about the model.
        if lower == "@" || lower.ends_with("ghz") {
            break;
        }
        // `64-Core`, `Eight-Core`: the socket's core count, not the cores this run had.
        if FILLER.contains(&lower.as_str()) || lower.ends_with("-core") {
            continue;
        }
        let slug: String = lower
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let slug = slug.trim_matches('-').to_string();
        if !slug.is_empty() {
            words.push(slug);
        }
    }
    if !words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit())) {
        if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
            words.push(format!("f{family}m{model}"));
        }
    }
    if words.is_empty() {
        return format!("cpu-{cores}core");
    }
    format!("cpu-{}-{cores}core", words.join("-"))
}

/// A new, empty folder `<base>/<stamp>` (with `-2`, `-3`, … when that exists).
fn fresh_dir(base: &Path, stamp: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(base).map_err(|e| format!("cannot create {}: {e}", base.display()))?;
    let mut attempt = 1;
    loop {
        let name = if attempt == 1 {
            stamp.to_string()
        } else {
            format!("{stamp}-{attempt}")
        };
        let dir = base.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => attempt += 1,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
}

pub fn run(args: BenchArgs) -> Result<(), String> {
    let all = suites()?;
    if args.list {
        for s in &all {
            println!("{s}");
        }
        return Ok(());
    }
    for s in &args.suites {
        if !all.contains(s) {
            return Err(format!(
                "unknown suite `{s}`; the suites are: {}",
                all.join(", ")
            ));
        }
    }
    let selected: Vec<String> = if args.suites.is_empty() {
        all
    } else {
        all.into_iter()
            .filter(|s| args.suites.contains(s))
            .collect()
    };

    let root = workspace_root();
    let device = args.device.clone().unwrap_or_else(default_device);
    let commit = git_commit();
    let run_dir = fresh_dir(&root.join("target").join("bench-records"), &utc_stamp())?;
    let results = root.join("bench-results");
    println!(
        "bench: suites {} on device `{device}` at commit {commit}, {} cases; records in {}",
        selected.join(", "),
        if args.full {
            "paper-size (--full)"
        } else {
            "quick default"
        },
        run_dir.display()
    );

    let mut steps = Steps::new("bench", selected.len() + 3);
    let provisioned = steps.run(
        "provision",
        "system libraries (LAPACKE, OpenBLAS)",
        ensure_system_packages,
    );
    // The peers (SciPy's expm_multiply beside our expmv) live in a venv the bench makes itself,
    // so that a run never silently drops them because the system Python lacks SciPy.
    let mut peer_python = None;
    steps.run(
        "peers",
        &format!("venv with {}", PEER_REQUIREMENTS.join(" ")),
        || {
            peer_python = Some(prepare_peer_venv(&root)?);
            Ok(())
        },
    );
    for suite in &selected {
        let what = format!("cargo bench -p matexp-benches --bench {suite}");
        if !provisioned {
            steps.skip(suite, "system libraries missing (see provision)");
            continue;
        }
        if suite.starts_with("gpu") && !has_cuda_driver() {
            steps.skip(
                suite,
                "no NVIDIA driver here; GPU suites run on a GPU host through `cargo xtask bundle`",
            );
            continue;
        }
        steps.run(suite, &what, || {
            let sh = root_shell()?;
            let cargo = cargo_program();
            let criterion = &args.criterion;
            let separator = (!criterion.is_empty()).then_some("--");
            let mut cmd = cmd!(
                sh,
                "{cargo} bench -p matexp-benches --bench {suite} {separator...} {criterion...}"
            )
            .env("CRITERION_HOME", root.join("target").join("criterion"))
            .env("MATEXP_BENCH_RECORDS", &run_dir)
            .env("MATEXP_COMMIT", &commit)
            .env("MATEXP_BENCH_DEVICE", &device);
            if let Some(py) = &peer_python {
                cmd = cmd.env("MATEXP_PYTHON", py);
            }
            cmd = if args.full {
                cmd.env("MATEXP_BENCH_FULL", "1")
            } else {
                // The flag, not a stray variable in the caller's shell, decides the sizes.
                cmd.env_remove("MATEXP_BENCH_FULL")
            };
            run_cmd(cmd)
        });
    }

    let mut produced = Vec::new();
    steps.run(
        "records",
        "merge into bench-results/ and write REPORT.md",
        || {
            let (records, warnings) = read_folder(&run_dir)?;
            for w in &warnings {
                println!("warning: {w}");
            }
            if records.is_empty() {
                println!(
                    "no records were produced by this run (suites without registered benchmarks?)"
                );
            } else {
                for (path, n) in store(&results, records.clone())? {
                    println!("merged {n} record(s) into {}", rel(&root, &path));
                }
            }
            let (report, total) = write_report(&results)?;
            println!("wrote {} ({total} records)", rel(&root, &report));
            crate::report::headline::write_readme(&root, &crate::records::load_results(&results)?)?;
            produced = records;
            Ok(())
        },
    );
    let outcome = steps.finish();
    if !produced.is_empty() {
        println!();
        println!("records of this run ({}):", produced.len());
        print!("{}", render_summary(&produced));
    }
    outcome
}

/// What the CPU suites' peers need (SciPy's `expm_multiply`; the graph and Bose–Hubbard peers
/// have their own scripts in `benches/peers/`, which make the same venv).
const PEER_REQUIREMENTS: &[&str] = &["numpy>=2.0", "scipy>=1.13"];

/// Prepares `target/peer-venv` through `benches/peers/peer_env.py` and returns its interpreter.
fn prepare_peer_venv(root: &Path) -> Result<PathBuf, String> {
    ensure_python_venv()?;
    let script = root.join("benches").join("peers").join("peer_env.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(PEER_REQUIREMENTS)
        .current_dir(root)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("python3 {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "python3 {} failed ({}); the SciPy peer rows of this run will be missing",
            script.display(),
            out.status
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let py = stdout.lines().last().unwrap_or("").trim();
    if py.is_empty() {
        return Err(format!(
            "python3 {} printed no interpreter",
            script.display()
        ));
    }
    Ok(PathBuf::from(py))
}

/// `path` relative to `root` when it lies below it (shorter messages).
pub fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether this machine has the CUDA driver library, so that GPU suites can run at all.
/// Without it they are skipped rather than failed: a CPU-only laptop still runs the main job.
fn has_cuda_driver() -> bool {
    let listed = shell().is_ok_and(|sh| {
        cmd!(sh, "ldconfig -p")
            .quiet()
            .ignore_status()
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so.1"))
    });
    listed || std::path::Path::new("/dev/nvidia0").exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_workspace_declares_suites() {
        let suites = suites().unwrap();
        assert!(!suites.is_empty());
        for s in &suites {
            let file = workspace_root()
                .join("benches/benches")
                .join(format!("{s}.rs"));
            assert!(file.exists(), "suite {s} has no {}", file.display());
        }
    }

    #[test]
    fn arguments_parse_and_reject_mistakes() {
        use crate::cli::parse;
        let a = parse(&[
            "bench", "--full", "--suite", "leja", "--suite", "spmv", "--device", "h200", "--",
            "--bench", "x",
        ])
        .unwrap();
        assert_eq!(
            a.bench(),
            Some(&BenchArgs {
                full: true,
                suites: strings(&["leja", "spmv"]),
                device: Some("h200".into()),
                list: false,
                criterion: strings(&["--bench", "x"]),
            })
        );
        assert!(
            parse(&["bench", "--suite"])
                .unwrap_err()
                .contains("--suite")
        );
        assert!(parse(&["bench", "--suite", "--full"]).is_err());
        assert!(parse(&["bench", "--fast"]).unwrap_err().contains("--fast"));
    }

    #[test]
    fn cpu_devices_are_named_by_model_and_cores() {
        let epyc = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\
                    model name\t: AMD EPYC 7B13 64-Core Processor\n";
        assert_eq!(cpu_device_name(epyc, 2), "cpu-amd-epyc-7b13-2core");
        let xeon = "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\ncpu family\t: 6\nmodel\t\t: 79\n";
        assert_eq!(cpu_device_name(xeon, 2), "cpu-intel-xeon-f6m79-2core");
        let vm = "cpu family\t: 6\nmodel\t\t: 167\nmodel name\t: Intel(R) Xeon(R) Processor\n";
        assert_eq!(cpu_device_name(vm, 4), "cpu-intel-xeon-f6m167-4core");
        let laptop = "model name\t: 13th Gen Intel(R) Core(TM) i7-1365U\n";
        assert_eq!(
            cpu_device_name(laptop, 12),
            "cpu-13th-gen-intel-core-i7-1365u-12core"
        );
        assert_eq!(cpu_device_name("", 2), "cpu-2core");
        // Two machines with the same core count but different processors stay apart.
        assert_ne!(cpu_device_name(epyc, 2), cpu_device_name(vm, 2));
    }

    #[test]
    fn fresh_dirs_never_reuse_a_folder() {
        let base = crate::records::tests::temp_dir("fresh");
        let a = fresh_dir(&base, "20261122T000000Z").unwrap();
        let b = fresh_dir(&base, "20261122T000000Z").unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("20261122T000000Z-2"));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
