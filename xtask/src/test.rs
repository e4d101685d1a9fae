//! `cargo xtask test`: everything CI checks, in one command that works on a fresh machine.

use crate::cuda;
use crate::util::{
    Steps, cargo_program, ensure_python_venv, ensure_rustup_component, ensure_system_packages,
    root_shell, run_cmd, workspace_root,
};
use xshell::cmd;

/// What `cargo xtask test --help` says beyond the options.
pub const ABOUT: &str = "\
Provisions the system libraries (LAPACKE, OpenBLAS; apt-get as root), then runs
  cargo fmt --all --check
  cargo clippy --workspace --all-targets -- -D warnings
  cargo test --workspace --no-fail-fast          (unit, integration and doc tests)
  cargo xtask package                            (every publishable crate packages and builds)
  cargo xtask python                             (the Python wheel and its pytest suite)
  cargo xtask mpi                                (the distributed check under mpiexec, 1-4 ranks)
  cargo xtask cuda --check                       (every kernel with the pinned nvcc)
and ends with a summary of every step.";

/// The options of `cargo xtask test`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct TestArgs {
    /// skip the kernel check (no Python/pip needed)
    #[arg(long)]
    no_cuda: bool,
    /// skip clippy
    #[arg(long)]
    quick: bool,
    /// skip the Python wheel and its tests
    #[arg(long)]
    no_python: bool,
    /// skip the MPI check (no MPICH needed)
    #[arg(long)]
    no_mpi: bool,
}

pub fn run(args: TestArgs) -> Result<(), String> {
    let sh = root_shell()?;
    let cargo = cargo_program();
    let mut steps = Steps::new("test", 8);

    let provisioned = steps.run(
        "provision",
        "system libraries (LAPACKE, OpenBLAS)",
        ensure_system_packages,
    );

    steps.run("fmt", "cargo fmt --all --check", || {
        ensure_rustup_component("rustfmt", &["fmt", "--version"])?;
        run_cmd(cmd!(sh, "{cargo} fmt --all --check"))
    });

    if args.quick {
        steps.skip("clippy", "--quick");
    } else {
        steps.run(
            "clippy",
            "cargo clippy --workspace --all-targets -- -D warnings",
            || {
                ensure_rustup_component("clippy", &["clippy", "--version"])?;
                run_cmd(cmd!(
                    sh,
                    "{cargo} clippy --workspace --all-targets -- -D warnings"
                ))
            },
        );
    }

    if provisioned {
        steps.run("test", "cargo test --workspace --no-fail-fast", || {
            run_cmd(cmd!(sh, "{cargo} test --workspace --no-fail-fast"))
        });
    } else {
        steps.skip("test", "system libraries missing (see provision)");
    }

    // Builds each publishable crate from its package alone (about 40 s of CPU from cold,
    // seconds when warm): catches files outside a crate and unresolvable dependencies.
    steps.run("package", "cargo xtask package", || {
        crate::package::package_workspace(false)
    });

    // The wheel (test profile) and pytest: about 2 min from cold on 2 cores, see
    // crates/python/README.md.
    if args.no_python {
        steps.skip("python", "--no-python");
    } else {
        steps.run("python", "cargo xtask python", || {
            crate::python::run(Default::default())
        });
    }

    // The distributed engine under mpiexec at 1-4 ranks: at most about 3 min on 2 cores, less
    // after the test step (see xtask/src/mpi.rs).
    if args.no_mpi {
        steps.skip("mpi", "--no-mpi");
    } else {
        steps.run("mpi", "cargo xtask mpi", || {
            crate::mpi::run(Default::default())
        });
    }

    if args.no_cuda {
        steps.skip("cuda", "--no-cuda");
    } else {
        steps.run("cuda", "cargo xtask cuda --check", || {
            // The pinned nvcc comes from pip wheels in a venv under .tools/nvcc; creating that
            // venv needs python3 with ensurepip (Debian: python3-venv).
            if !workspace_root().join(".tools").join("nvcc").exists() {
                ensure_python_venv()?;
            }
            cuda::run(cuda::CudaArgs {
                check: true,
                ..Default::default()
            })
        });
    }

    steps.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse;

    #[test]
    fn options_parse() {
        let a = parse(&["test", "--quick", "--no-cuda"]).unwrap();
        assert_eq!(
            a.test(),
            Some(&TestArgs {
                no_cuda: true,
                quick: true,
                no_python: false,
                no_mpi: false,
            })
        );
        assert_eq!(parse(&["test"]).unwrap().test(), Some(&TestArgs::default()));
        let a = parse(&["test", "--no-mpi"]).unwrap();
        assert!(a.test().is_some_and(|t| t.no_mpi && !t.no_python));
        assert!(parse(&["test", "--cuda"]).unwrap_err().contains("--cuda"));
    }
}
