//! `cargo xtask fuzz`: runs the cargo-fuzz targets of `fuzz/` for a given time each and
//! reports every target's executions and verdict.

use crate::util::{display_cmd, root_shell};
use std::process::{Command, Stdio};
use xshell::cmd;

/// What `cargo xtask fuzz --help` says beyond the options.
pub const ABOUT: &str = "\
Runs each cargo-fuzz target of fuzz/ (all of them by default) for N seconds (default 60),
starting from its committed seed corpus fuzz/corpus/<TARGET>/, and prints the number of
executions and the verdict of each. Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable
toolchain is used with RUSTC_BOOTSTRAP=1 for the instrumentation flags. A crash leaves its
input under fuzz/artifacts/<TARGET>/ and fails the command.

Targets:
  matrix_market  the MatrixMarket reader: every scalar and index type, CSR, pattern, dense
  csr_raw        CsrMatrix / PatternCsr construction from raw parts
  fock_rank      FockBasis rank / unrank / successor
  time_grid      the command-line time and time-grid parser (builds the CLI: slow)";

/// The targets, with the cargo features each needs.
const TARGETS: &[(&str, &[&str])] = &[
    ("matrix_market", &[]),
    ("csr_raw", &[]),
    ("fock_rank", &[]),
    ("time_grid", &["cli"]),
    ("sizes", &[]),
];

/// The options of `cargo xtask fuzz`.
#[derive(Debug, PartialEq, clap::Args)]
pub struct FuzzArgs {
    /// time per target
    #[arg(long, value_name = "N", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    seconds: u64,
    /// libFuzzer's memory limit per input, in MiB
    #[arg(long = "rss-mb", value_name = "M", default_value_t = 2048,
          value_parser = clap::value_parser!(u64).range(1..))]
    rss_mb: u64,
    /// the targets to run (default: all)
    #[arg(value_name = "TARGET",
          value_parser = clap::builder::PossibleValuesParser::new(TARGETS.iter().map(|(t, _)| *t)))]
    targets: Vec<String>,
}

impl FuzzArgs {
    /// The targets asked for, or every target.
    fn targets(&self) -> Vec<String> {
        if self.targets.is_empty() {
            TARGETS.iter().map(|(t, _)| t.to_string()).collect()
        } else {
            self.targets.clone()
        }
    }
}

/// One target's outcome, read from libFuzzer's final statistics.
#[derive(Debug, Default, PartialEq)]
struct Outcome {
    executions: Option<u64>,
    crashed: bool,
}

fn parse_outcome(log: &str) -> Outcome {
    let mut out = Outcome::default();
    for line in log.lines() {
        if let Some(v) = line.strip_prefix("stat::number_of_executed_units:") {
            out.executions = v.trim().parse().ok();
        }
        if line.contains("==ERROR: libFuzzer")
            || line.contains("panicked at")
            || line.contains("Test unit written to")
        {
            out.crashed = true;
        }
    }
    out
}

pub fn run(args: FuzzArgs) -> Result<(), String> {
    let probe = Command::new("cargo")
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        return Err("cargo-fuzz is not installed: run `cargo install cargo-fuzz`".into());
    }
    let sh = root_shell()?;
    sh.change_dir("fuzz");
    let (seconds, rss_mb) = (args.seconds.to_string(), args.rss_mb.to_string());
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for target in &args.targets() {
        let features = TARGETS
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, f)| *f)
            .unwrap_or(&[]);
        let features = (!features.is_empty()).then(|| features.join(","));
        let features = features.iter().flat_map(|f| ["--features", f]);
        let mut cmd = Command::from(
            cmd!(
                sh,
                "cargo fuzz run -O -a -s none {features...} {target} corpus/{target} --
                 -max_total_time={seconds} -rss_limit_mb={rss_mb} -print_final_stats=1"
            )
            .env("RUSTC_BOOTSTRAP", "1"),
        );
        let shown = display_cmd(&cmd);
        println!("$ (cd fuzz && {shown})");
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("could not start `{shown}`: {e}"))?;
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let outcome = parse_outcome(&log);
        let verdict = if outcome.crashed || !out.status.success() {
            // The tail names the failing input and the panic.
            let tail: Vec<&str> = log.lines().rev().take(25).collect();
            for line in tail.iter().rev() {
                eprintln!("  {line}");
            }
            failed.push(target.clone());
            format!("FAILED ({})", out.status)
        } else {
            "no crash".to_string()
        };
        let execs = outcome
            .executions
            .map_or_else(|| "?".to_string(), |n| n.to_string());
        println!(
            "{target}: {execs} executions in {} s: {verdict}",
            args.seconds
        );
        rows.push((target.clone(), execs, verdict));
    }
    println!("\n| target | seconds | executions | verdict |\n| --- | --- | --- | --- |");
    for (t, e, v) in &rows {
        println!("| {t} | {} | {e} | {v} |", args.seconds);
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fuzz target(s) failed: {} (inputs under fuzz/artifacts/)",
            failed.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        use crate::cli::parse;
        let cli = parse(&["fuzz", "--seconds", "30", "csr_raw"]).unwrap();
        let a = cli.fuzz().unwrap();
        assert_eq!((a.seconds, a.rss_mb), (30, 2048));
        assert_eq!(a.targets(), ["csr_raw"]);
        let cli = parse(&["fuzz"]).unwrap();
        assert_eq!(cli.fuzz().unwrap().targets().len(), TARGETS.len());
        assert_eq!(cli.fuzz().unwrap().seconds, 60);
        assert!(parse(&["fuzz", "--seconds", "0"]).is_err());
        assert!(parse(&["fuzz", "--seconds"]).is_err());
        assert!(parse(&["fuzz", "nope"]).is_err());
    }

    #[test]
    fn outcome_from_libfuzzer_statistics() {
        let log =
            "#1000 DONE cov: 10\nstat::number_of_executed_units: 123456\nstat::peak_rss_mb: 40\n";
        assert_eq!(
            parse_outcome(log),
            Outcome {
                executions: Some(123456),
                crashed: false
            }
        );
        let log = "thread '<unnamed>' panicked at src/x.rs:1:1\n==ERROR: libFuzzer: deadly signal\nTest unit written to ./artifacts/x/crash-1\nstat::number_of_executed_units: 7\n";
        assert!(parse_outcome(log).crashed);
    }
}
