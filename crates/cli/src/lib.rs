//! The `matexp` command-line tool and the C ABI of the matexp library.
//!
//! * The binary `matexp` (subcommands `expmv`, `phimv`, `centrality`, `spectrum`,
//!   `spin-bath`, `heat`) reads MatrixMarket files and writes MatrixMarket, CSV or JSON, with
//!   a JSON report. Each subcommand is one module of [`cmd`] over the shared input/output
//!   layer [`io`], the solver layer [`solve`] and the report in [`Outcome`]; adding a
//!   subcommand is a new module and one line in [`Command`].
//! * The C ABI ([`capi`], header `include/matexp.h`) gives C, Python (ctypes) and Matlab
//!   (`loadlibrary`) callers CSR handles, solver options and `matexp_expmv` / `matexp_phimv`.
//!
//! Exit statuses: 0 success, 2 usage, 3 input file or data, 4 numerical failure, 5 device,
//! 6 output file, 7 memory (see [`error::Kind`]).
//!
//! ```
//! use matexp_cli::io::{TimeSpec, parse_complex};
//! use matexp::c64;
//! assert_eq!(parse_complex("0-1i"), Some(c64::new(0.0, -1.0)));
//! assert_eq!(parse_complex("-i*2.5"), Some(c64::new(0.0, -2.5)));
//! let grid: TimeSpec = "0:1:3".parse().unwrap();
//! assert_eq!(grid.times()[1], c64::new(0.5, 0.0));
//! ```

#![warn(missing_docs)]

pub mod capi;
pub mod cmd;
pub mod error;
pub mod io;
pub mod solve;

use clap::{Parser, Subcommand};
use error::{CliError, CliResult};
use io::{Format, Table};
use std::path::PathBuf;
use std::time::Instant;

/// `matexp`: matrix exponentials and φ-functions of sparse matrices from MatrixMarket files.
#[derive(Debug, Parser)]
#[command(
    name = "matexp",
    version,
    about,
    after_help = "Exit status: 0 success, 2 usage, 3 input file or data, 4 numerical failure, 5 device (no GPU: use --device cpu), 6 output file, 7 more memory needed than available (or than --memory-limit)."
)]
pub struct Cli {
    /// What to compute.
    #[command(subcommand)]
    pub command: Command,
    /// Output and report options shared by every subcommand.
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Where results and the report go.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Result file (.mtx, .csv or .json); standard output (CSV) when absent.
    #[arg(short, long, global = true)]
    pub output: Option<PathBuf>,
    /// Result format, overriding the output file's extension.
    #[arg(long, value_enum, global = true)]
    pub format: Option<Format>,
    /// Write the JSON report to this file instead of standard error.
    #[arg(long, global = true)]
    pub report: Option<PathBuf>,
    /// No progress display and no report on standard error.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Most memory the process may use, in bytes with an optional K, M, G or T suffix
    /// (powers of 1024; default: the MATEXP_MEMORY_LIMIT variable, else the available memory
    /// and the address-space limit only). Problems declared larger are refused, status 7.
    #[arg(long, global = true, value_parser = parse_memory_limit)]
    pub memory_limit: Option<u64>,
}

fn parse_memory_limit(s: &str) -> Result<u64, String> {
    matexp_core::memory::parse_bytes(s)
        .ok_or_else(|| format!("'{s}' is not a byte count: expected e.g. 4000000000, 512M or 8G"))
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// e^{tA}v for one (complex) time or a time grid.
    Expmv(cmd::expmv::Args),
    /// φ_0(tA)v, …, φ_k(tA)v.
    Phimv(cmd::phimv::Args),
    /// Graph centrality: total communicability, subgraph centrality, Estrada index.
    Centrality(cmd::centrality::Args),
    /// Spectral bounds: Gershgorin and an estimated interval (Lanczos or power iteration).
    Spectrum(cmd::spectrum::Args),
    /// Seed 000's two spins in a spin bath: ψ(t) = e^{−itH}ψ₀.
    SpinBath(cmd::spin_bath::Args),
    /// The heat equation u' = Δu on the unit cube: u(t) = e^{tΔ}u₀ (matrix-free 3D stencil).
    Heat(cmd::heat::Args),
}

/// What a subcommand produced: a result table and the fields of its report.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The result columns.
    pub table: Table,
    /// Report fields (method, products, error estimate, device, …).
    pub report: serde_json::Map<String, serde_json::Value>,
}

/// Progress display on standard error for computations without a progress callback: a
/// spinner with the elapsed time, hidden with `-q` or when standard error is not a terminal.
#[derive(Debug)]
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// Starts a spinner with `msg` unless `quiet`.
    pub fn start(quiet: bool, msg: &str) -> Self {
        if quiet {
            return Progress(None);
        }
        let pb = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
            pb.set_style(style);
        }
        pb.set_message(msg.to_string());
        pb.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(pb))
    }

    /// Removes the spinner.
    pub fn finish(self) {
        if let Some(pb) = self.0 {
            pb.finish_and_clear();
        }
    }
}

impl Command {
    fn name(&self) -> &'static str {
        match self {
            Command::Expmv(_) => "expmv",
            Command::Phimv(_) => "phimv",
            Command::Centrality(_) => "centrality",
            Command::Spectrum(_) => "spectrum",
            Command::SpinBath(_) => "spin-bath",
            Command::Heat(_) => "heat",
        }
    }

    fn run(&self, quiet: bool) -> CliResult<Outcome> {
        match self {
            Command::Expmv(a) => cmd::expmv::run(a, quiet),
            Command::Phimv(a) => cmd::phimv::run(a, quiet),
            Command::Centrality(a) => cmd::centrality::run(a, quiet),
            Command::Spectrum(a) => cmd::spectrum::run(a, quiet),
            Command::SpinBath(a) => cmd::spin_bath::run(a, quiet),
            Command::Heat(a) => cmd::heat::run(a, quiet),
        }
    }
}

/// Runs a parsed command line: computes, writes the result (atomically) and the report.
pub fn run(cli: &Cli) -> CliResult<()> {
    if cli.out.memory_limit.is_some() {
        matexp_core::memory::set_limit(cli.out.memory_limit);
    } else {
        // A malformed MATEXP_MEMORY_LIMIT is a usage error up front, not at the first check.
        matexp_core::memory::user_limit().map_err(|e| CliError::usage(e.to_string()))?;
    }
    let format = match &cli.out.output {
        Some(p) => Some(Format::resolve(cli.out.format, p)?),
        None => None,
    };
    let start = Instant::now();
    let mut outcome = cli.command.run(cli.out.quiet)?;
    let elapsed = start.elapsed().as_secs_f64();
    outcome.table.check_finite()?;
    match (&cli.out.output, format) {
        (Some(path), Some(f)) => io::write_atomic(path, outcome.table.render(f).as_bytes())?,
        _ => {
            let text = outcome.table.render(cli.out.format.unwrap_or(Format::Csv));
            use std::io::Write;
            std::io::stdout().write_all(text.as_bytes()).map_err(|e| {
                CliError::new(
                    error::Kind::Output,
                    format!("cannot write to standard output: {e}"),
                )
            })?;
        }
    }
    let mut report = serde_json::Map::new();
    report.insert("command".into(), cli.command.name().into());
    report.append(&mut outcome.report);
    report.insert("time_s".into(), serde_json::json!(elapsed));
    if let Some(p) = &cli.out.output {
        report.insert("output".into(), p.display().to_string().into());
    }
    let text =
        serde_json::to_string_pretty(&serde_json::Value::Object(report)).unwrap_or_default() + "\n";
    match &cli.out.report {
        Some(path) => io::write_atomic(path, text.as_bytes())?,
        None if !cli.out.quiet => eprint!("{text}"),
        None => {}
    }
    Ok(())
}
