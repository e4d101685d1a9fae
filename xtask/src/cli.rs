//! The command line of `cargo xtask`: one clap parser, a subcommand per command, each with
//! the options struct of its module.

use crate::{bench, bundle, cuda, fuzz, mpi, package, python, test};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Workspace automation for matexp.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// provision system libraries, then fmt, clippy, tests and the kernel check
    #[command(long_about = test::ABOUT)]
    Test(test::TestArgs),
    /// run the criterion suites and record the results in bench-results/
    #[command(long_about = bench::ABOUT)]
    Bench(bench::BenchArgs),
    /// regenerate bench-results/REPORT.md from bench-results/<device>/<suite>.json
    #[command(long_about = REPORT_ABOUT)]
    Report,
    /// merge the benchmark records found under a folder (a GPU run's output) into
    /// bench-results/ and regenerate the report
    #[command(long_about = INGEST_ABOUT)]
    Ingest {
        /// the folder holding the records (searched recursively)
        folder: PathBuf,
    },
    /// compile the CUDA kernels with the pinned nvcc
    #[command(long_about = cuda::ABOUT)]
    Cuda(cuda::CudaArgs),
    /// build the self-contained GPU test and benchmark bundle
    #[command(long_about = bundle::ABOUT)]
    Bundle(bundle::BundleArgs),
    /// run the cargo-fuzz targets of fuzz/ for a given time each
    #[command(long_about = fuzz::ABOUT)]
    Fuzz(fuzz::FuzzArgs),
    /// `cargo package` every publishable crate and build each package on its own
    #[command(long_about = package::ABOUT)]
    Package(package::PackageArgs),
    /// build the Python wheel (crates/python) in .tools/python and run its tests
    #[command(long_about = python::ABOUT)]
    Python(python::PythonArgs),
    /// run the distributed engine's check under mpiexec at 1-4 ranks (MPICH provisioned)
    #[command(long_about = mpi::ABOUT)]
    Mpi(mpi::MpiArgs),
}

const REPORT_ABOUT: &str = "Regenerates bench-results/REPORT.md and the README's headline table \
                            (rows chosen in bench-results/headline.toml).";

const INGEST_ABOUT: &str = "\
Reads every *.jsonl and *.json record file under <folder> (recursively), merges the records
into bench-results/<device>/<suite>.json (a record replaces an earlier one of the same
measurement: suite, case, backend, precision, device, size, tol and any other defining field;
see bench-results/README.md) and regenerates bench-results/REPORT.md.";

/// Parses `cargo xtask` arguments (without the program name); the error is clap's message.
#[cfg(test)]
pub fn parse(args: &[&str]) -> Result<Cli, String> {
    Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
impl Cli {
    pub fn test(&self) -> Option<&test::TestArgs> {
        match &self.command {
            Command::Test(a) => Some(a),
            _ => None,
        }
    }
    pub fn bench(&self) -> Option<&bench::BenchArgs> {
        match &self.command {
            Command::Bench(a) => Some(a),
            _ => None,
        }
    }
    pub fn fuzz(&self) -> Option<&fuzz::FuzzArgs> {
        match &self.command {
            Command::Fuzz(a) => Some(a),
            _ => None,
        }
    }
    pub fn package(&self) -> Option<&package::PackageArgs> {
        match &self.command {
            Command::Package(a) => Some(a),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_parser_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_keeps_its_name_and_help() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for name in [
            "test", "bench", "report", "ingest", "cuda", "bundle", "fuzz", "package", "python",
            "mpi",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
        }
        let help = parse(&["bench", "--help"]).unwrap_err();
        assert!(
            help.contains("--suite <NAME>") && help.contains("peer_env.py"),
            "{help}"
        );
    }

    #[test]
    fn ingest_takes_exactly_one_folder_and_report_none() {
        let cli = parse(&["ingest", "out"]).unwrap();
        assert!(matches!(cli.command, Command::Ingest { ref folder } if folder.ends_with("out")));
        assert!(parse(&["ingest"]).is_err());
        assert!(parse(&["ingest", "a", "b"]).is_err());
        assert!(parse(&["report", "extra"]).is_err());
        assert!(parse(&["nope"]).unwrap_err().contains("nope"));
    }

    #[test]
    fn cuda_and_bundle_options() {
        let cli = parse(&["cuda", "--check", "--report-only"]).unwrap();
        let Command::Cuda(a) = cli.command else {
            panic!("not cuda")
        };
        assert!(a.check && a.report_only && !a.bindgen);
        assert!(parse(&["cuda", "--chek"]).is_err());
        assert!(parse(&["bundle", "--out"]).is_err());
        assert!(matches!(
            parse(&["bundle", "--out", "b"]).unwrap().command,
            Command::Bundle(_)
        ));
    }
}
