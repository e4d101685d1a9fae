//! `cargo xtask python`: builds the Python wheel of crates/python with maturin and runs its
//! tests, in a virtual environment that this command makes under `.tools/python`.

use crate::util::{Steps, ensure_python_venv, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `cargo xtask python --help` says beyond the options.
pub const ABOUT: &str = "\
Makes .tools/python (python3 -m venv) with maturin, numpy, scipy, networkx, pytest, mpmath
and abi3audit from PyPI (once; again when the list changes), builds the abi3 wheel of
crates/python into target/wheels (dev profile at opt-level 1 unless --release), installs it and runs
  abi3audit on the wheel                       (only the stable ABI of CPython 3.9 is used)
  mypy.stubtest matexp._matexp                 (the .pyi stubs against the compiled module)
  pytest crates/python/tests                   (against SciPy, networkx, dense references)
  pytest --doctest-modules on the package      (the docstrings' examples)
  networkx's own tests of the served functions with --backend matexp";

/// The packages of the environment (unpinned: the tests compare with the current SciPy and
/// networkx, as users run them).
const PACKAGES: [&str; 8] = [
    "maturin>=1.9,<2",
    "numpy",
    "scipy",
    "networkx>=3.4",
    "pytest",
    "mpmath",
    "abi3audit",
    "mypy",
];

/// The options of `cargo xtask python`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct PythonArgs {
    /// build the wheel in the release profile (what users install; slower to build)
    #[arg(long)]
    release: bool,
    /// build with the cargo feature `gpu` (the CUDA backend, loaded at run time)
    #[arg(long)]
    gpu: bool,
    /// build and install the wheel only, no tests
    #[arg(long)]
    no_test: bool,
}

fn run_in(dir: &Path, program: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} {} failed ({status})",
            program.display(),
            args.join(" ")
        ))
    }
}

/// The venv's interpreter, creating the venv and installing [`PACKAGES`] when the stamp
/// file does not list them.
pub fn ensure_venv(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join(".tools").join("python");
    let python = venv.join("bin").join("python");
    let stamp = venv.join("matexp-packages.txt");
    let wanted = PACKAGES.join("\n");
    if python.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(&wanted) {
        return Ok(python);
    }
    ensure_python_venv()?;
    let venv_s = venv.to_string_lossy().into_owned();
    run_in(root, Path::new("python3"), &["-m", "venv", &venv_s])?;
    let mut args = vec![
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ];
    args.extend(PACKAGES);
    run_in(root, &python, &args)?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(python)
}

/// Builds the wheel and returns its path.
fn build_wheel(root: &Path, python: &Path, args: &PythonArgs) -> Result<PathBuf, String> {
    let out = root.join("target").join("wheels");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.to_string_lossy().into_owned();
    let mut a = vec![
        "-m",
        "maturin",
        "build",
        "--quiet",
        "-m",
        "crates/python/Cargo.toml",
        "--out",
        &out_s,
    ];
    // Not --release: the dev profile at opt-level 1 (the test profile's level). It builds in
    // target/debug, so the registry dependencies that `cargo test` compiled are reused
    // (a profile of its own would compile them again: minutes on two cores), and the
    // solves run several times faster than unoptimized.
    if args.release {
        a.push("--release");
    }
    if args.gpu {
        a.extend(["--features", "gpu"]);
    }
    let status = Command::new(python)
        .args(&a)
        .current_dir(root)
        .env("CARGO_PROFILE_DEV_OPT_LEVEL", "1")
        .status()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("maturin build failed ({status})"));
    }
    std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("no wheel in {}", out.display()))
}

fn site_packages(python: &Path) -> Result<String, String> {
    let out = Command::new(python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn run(args: PythonArgs) -> Result<(), String> {
    let mut steps = Steps::new("python", if args.no_test { 2 } else { 7 });
    let ok = python_steps(&mut steps, &args);
    steps.finish().and(ok)
}

/// The steps of `cargo xtask python`, also the `python` step of `cargo xtask test`.
pub fn python_steps(steps: &mut Steps, args: &PythonArgs) -> Result<(), String> {
    let root = workspace_root();
    let mut python = None;
    steps.run(
        "venv",
        ".tools/python with maturin, numpy, scipy, networkx, pytest",
        || {
            python = Some(ensure_venv(&root)?);
            Ok(())
        },
    );
    let Some(python) = python else {
        return Err("no Python environment".into());
    };
    let mut wheel = None;
    steps.run(
        "wheel",
        "maturin build -m crates/python/Cargo.toml; pip install",
        || {
            let w = build_wheel(&root, &python, args)?;
            let w_s = w.to_string_lossy().into_owned();
            run_in(
                &root,
                &python,
                &[
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--no-deps",
                    "--force-reinstall",
                    &w_s,
                ],
            )?;
            println!(
                "wheel: {} ({} KiB)",
                w.display(),
                std::fs::metadata(&w).map_or(0, |m| m.len() / 1024)
            );
            wheel = Some(w_s);
            Ok(())
        },
    );
    let Some(wheel) = wheel else {
        return Err("the wheel did not build".into());
    };
    if args.no_test {
        return Ok(());
    }
    let tests = root.join("crates").join("python").join("tests");
    let abi3audit = python.with_file_name("abi3audit");
    steps.run("abi3", "abi3audit --strict on the wheel", || {
        run_in(&root, &abi3audit, &["--strict", "--summary", &wheel])
    });
    let mypy_ini = root
        .join("crates/python/mypy.ini")
        .to_string_lossy()
        .into_owned();
    steps.run(
        "stubtest",
        "mypy.stubtest matexp._matexp (the stubs against the module)",
        || {
            run_in(
                &tests,
                &python,
                &[
                    "-m",
                    "mypy.stubtest",
                    "--mypy-config-file",
                    &mypy_ini,
                    "matexp._matexp",
                ],
            )
        },
    );
    // From the tests' folder: `import matexp` is the installed wheel.
    steps.run("pytest", "pytest crates/python/tests", || {
        run_in(
            &tests,
            &python,
            &["-m", "pytest", "-q", "-p", "no:cacheprovider", "."],
        )
    });
    let site = site_packages(&python)?;
    steps.run(
        "doctest",
        "pytest --doctest-modules (the installed package)",
        || {
            let pkg = format!("{site}/matexp");
            run_in(
                &tests,
                &python,
                &[
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--doctest-modules",
                    &pkg,
                ],
            )
        },
    );
    steps.run(
        "networkx",
        "networkx's test_subgraph with --backend matexp",
        || {
            let nx = format!("{site}/networkx");
            let file = format!("{nx}/algorithms/centrality/tests/test_subgraph.py");
            let rootdir = format!("--rootdir={nx}");
            // communicability_betweenness_centrality is not served: deselected, so that every
            // test that runs goes through the backend (no fallback to networkx).
            run_in(
                &tests,
                &python,
                &[
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    &rootdir,
                    &file,
                    "--backend",
                    "matexp",
                    "--runxfail",
                    "-k",
                    "not communicability",
                ],
            )
        },
    );
    Ok(())
}
