//! `cargo xtask mpi`: the distributed engine under a real MPI launcher. Provisions MPICH
//! (apt-get as root), builds `matexp-dist`'s `mpi_check` example with the feature `mpi` and
//! runs it under `mpiexec -n R` for each rank count: every f(tA)v method on CSR, stencil and
//! Bose–Hubbard operators, one exponential-integrator step and the total communicability of
//! a graph, each against the single-process solver (the example exits non-zero on a miss).
//!
//! Cost: about 3 min on 2 cores from an empty target directory, four rank counts included
//! (the runs take seconds; the build is the cost). After `cargo test` the build reuses what
//! it compiled: dev profile at the test profile's opt-level 1, in target/debug.

use crate::util::{Steps, cargo_program, display_cmd, ensure_mpi_packages, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What `cargo xtask mpi --help` says beyond the options.
pub const ABOUT: &str = "\
Provisions MPI (Debian packages mpich libmpich-dev libclang-dev; apt-get as root, or
passwordless sudo on CI; an MPI already on the PATH is used as it is), then
  cargo build -p matexp-dist --features mpi --example mpi_check   (dev profile, opt-level 1)
  mpiexec -n R target/debug/examples/mpi_check                    (R = 1, 2, 3, 4)
Each run prints a table: CSR, stencil and Bose–Hubbard operators by every method, one
exponential-Euler step, total communicability, each against the single-process solver
(at most 1e-13 relative); any miss fails the step. As root, Open MPI gets
OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1; with more ranks than cores it gets --oversubscribe.";

/// The options of `cargo xtask mpi`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct MpiArgs {
    /// rank counts to run, comma-separated (default 1,2,3,4)
    #[arg(long, value_delimiter = ',')]
    ranks: Vec<usize>,
}

/// One run may not take longer than this (a rank that hangs must not stall CI).
const RUN_LIMIT: Duration = Duration::from_secs(300);

pub fn run(args: MpiArgs) -> Result<(), String> {
    let mut steps = Steps::new("mpi", 2 + ranks(&args).len());
    let ok = mpi_steps(&mut steps, &args);
    steps.finish().and(ok)
}

fn ranks(args: &MpiArgs) -> Vec<usize> {
    if args.ranks.is_empty() {
        vec![1, 2, 3, 4]
    } else {
        args.ranks.clone()
    }
}

/// The steps of `cargo xtask mpi`, also the `mpi` step of `cargo xtask test`.
pub fn mpi_steps(steps: &mut Steps, args: &MpiArgs) -> Result<(), String> {
    let root = workspace_root();
    let rank_counts = ranks(args);
    if let Some(&bad) = rank_counts.iter().find(|&&r| r == 0) {
        return Err(format!("--ranks: {bad} is not a number of ranks"));
    }
    let mut ok = steps.run(
        "provision",
        "MPICH and libclang (mpich libmpich-dev libclang-dev)",
        ensure_mpi_packages,
    );
    if !ok {
        return Err("MPI is not available".into());
    }
    let mut exe = None;
    ok &= steps.run(
        "build",
        "cargo build -p matexp-dist --features mpi --example mpi_check",
        || {
            exe = Some(build(&root)?);
            Ok(())
        },
    );
    let Some(exe) = exe else {
        return Err("the MPI check did not build".into());
    };
    let launcher = Launcher::detect()?;
    for r in rank_counts {
        ok &= steps.run(
            &format!("mpiexec -n {r}"),
            &format!("{} at {r} ranks", exe.display()),
            || launcher.run(&root, &exe, r),
        );
    }
    if ok {
        Ok(())
    } else {
        Err("an MPI step failed".into())
    }
}

/// Builds the example in the dev profile at opt-level 1 (the test profile's level, so the
/// workspace crates and registry dependencies that `cargo test` compiled in target/debug
/// are reused; only rsmpi and the crate with its feature are new).
fn build(root: &Path) -> Result<PathBuf, String> {
    let mut cmd = Command::new(cargo_program());
    cmd.args([
        "build",
        "-p",
        "matexp-dist",
        "--features",
        "mpi",
        "--example",
        "mpi_check",
    ])
    .current_dir(root)
    .env("CARGO_PROFILE_DEV_OPT_LEVEL", "1");
    crate::util::run_cmd(cmd)?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| root.join(d))
        .unwrap_or_else(|| root.join("target"));
    let exe = target.join("debug").join("examples").join("mpi_check");
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!("{} was not built", exe.display()))
    }
}

/// The MPI launcher on the PATH and what it needs to run here.
#[derive(Debug)]
struct Launcher {
    open_mpi: bool,
    cores: usize,
}

impl Launcher {
    fn detect() -> Result<Self, String> {
        let out = Command::new("mpiexec")
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot start mpiexec: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let open_mpi = text.contains("Open MPI") || text.contains("OpenRTE");
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        println!("launcher: mpiexec ({})", first.trim());
        Ok(Launcher {
            open_mpi,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        })
    }

    fn command(&self, exe: &Path, ranks: usize) -> Command {
        let mut cmd = Command::new("mpiexec");
        if self.open_mpi {
            // Open MPI refuses root and more ranks than slots unless told; MPICH's hydra
            // needs neither.
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            if ranks > self.cores {
                cmd.arg("--oversubscribe");
            }
        }
        cmd.arg("-n").arg(ranks.to_string()).arg(exe);
        cmd
    }

    fn run(&self, root: &Path, exe: &Path, ranks: usize) -> Result<(), String> {
        let mut cmd = self.command(exe, ranks);
        cmd.current_dir(root);
        println!("$ {}", display_cmd(&cmd));
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start mpiexec: {e}"))?;
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                return if status.success() {
                    Ok(())
                } else {
                    Err(format!("mpiexec -n {ranks} failed ({status})"))
                };
            }
            if start.elapsed() > RUN_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "mpiexec -n {ranks} still running after {} s: stopped",
                    RUN_LIMIT.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse;

    #[test]
    fn rank_counts_parse_and_default() {
        let cli = parse(&["mpi", "--ranks", "2,4"]).unwrap();
        let crate::cli::Command::Mpi(a) = cli.command else {
            panic!("not the mpi command")
        };
        assert_eq!(ranks(&a), vec![2, 4]);
        assert_eq!(ranks(&MpiArgs::default()), vec![1, 2, 3, 4]);
        assert!(parse(&["mpi", "--ranks", "two"]).is_err());
    }

    #[test]
    fn open_mpi_runs_as_root_and_oversubscribed() {
        let ompi = Launcher {
            open_mpi: true,
            cores: 2,
        };
        let cmd = display_cmd(&ompi.command(Path::new("check"), 4));
        assert!(cmd.contains("OMPI_ALLOW_RUN_AS_ROOT=1"), "{cmd}");
        assert!(cmd.contains("--oversubscribe -n 4 check"), "{cmd}");
        let two = display_cmd(&ompi.command(Path::new("check"), 2));
        assert!(!two.contains("--oversubscribe"), "{two}");
        let mpich = Launcher {
            open_mpi: false,
            cores: 2,
        };
        assert_eq!(
            display_cmd(&mpich.command(Path::new("check"), 4)),
            "mpiexec -n 4 check"
        );
    }
}
