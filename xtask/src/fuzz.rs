//! `cargo xtask fuzz`: runs the cargo-fuzz targets of `fuzz/` for a given time each and
//! reports every target's executions and verdict.

use crate::util::{display_cmd, workspace_root};
use std::process::{Command, Stdio};

pub const USAGE: &str = "\
cargo xtask fuzz [--seconds N] [TARGET]...

Runs each cargo-fuzz target of fuzz/ (all of them by default) for N seconds (default 60),
starting from its committed seed corpus fuzz/corpus/<TARGET>/, and prints the number of
executions and the verdict of each. Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable
toolchain is used with RUSTC_BOOTSTRAP=1 for the instrumentation flags. A crash leaves its
input under fuzz/artifacts/<TARGET>/ and fails the command.

Targets:
  matrix_market  the MatrixMarket reader: every scalar and index type, CSR, pattern, dense
  csr_raw        CsrMatrix / PatternCsr construction from raw parts
  fock_rank      FockBasis rank / unrank / successor
  time_grid      the command-line time and time-grid parser (builds the CLI: slow)

Options:
  --seconds N    time per target (default 60)
  --rss-mb M     libFuzzer's memory limit per input, in MiB (default 2048)";

/// The targets, with the cargo features each needs.
const TARGETS: &[(&str, &[&str])] = &[
    ("matrix_market", &[]),
    ("csr_raw", &[]),
    ("fock_rank", &[]),
    ("time_grid", &["cli"]),
    ("sizes", &[]),
];

#[derive(Debug, PartialEq)]
struct FuzzArgs {
    seconds: u64,
    rss_mb: u64,
    targets: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<FuzzArgs, String> {
    let mut out = FuzzArgs {
        seconds: 60,
        rss_mb: 2048,
        targets: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" | "--rss-mb" => {
                let value = it
                    .next()
                    .ok_or_else(|| format!("`{arg}` needs a value\n\n{USAGE}"))?;
                let n: u64 = value
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| format!("`{arg} {value}`: expected a whole number ≥ 1"))?;
                if arg == "--seconds" {
                    out.seconds = n;
                } else {
                    out.rss_mb = n;
                }
            }
            t if TARGETS.iter().any(|(name, _)| *name == t) => out.targets.push(t.to_string()),
            other => {
                return Err(format!("unknown option or target `{other}`\n\n{USAGE}"));
            }
        }
    }
    if out.targets.is_empty() {
        out.targets = TARGETS.iter().map(|(t, _)| t.to_string()).collect();
    }
    Ok(out)
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

pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    let args = parse_args(args)?;
    let fuzz_dir = workspace_root().join("fuzz");
    let probe = Command::new("cargo")
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        return Err("cargo-fuzz is not installed: run `cargo install cargo-fuzz`".into());
    }
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for target in &args.targets {
        let features = TARGETS
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, f)| *f)
            .unwrap_or(&[]);
        let mut cmd = Command::new("cargo");
        cmd.current_dir(&fuzz_dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", "-O", "-a", "-s", "none"]);
        if !features.is_empty() {
            cmd.args(["--features", &features.join(",")]);
        }
        cmd.arg(target)
            .arg(format!("corpus/{target}"))
            .arg("--")
            .arg(format!("-max_total_time={}", args.seconds))
            .arg(format!("-rss_limit_mb={}", args.rss_mb))
            .arg("-print_final_stats=1");
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

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn arguments() {
        let a = parse_args(&s(&["--seconds", "30", "csr_raw"])).unwrap();
        assert_eq!(a.seconds, 30);
        assert_eq!(a.targets, ["csr_raw"]);
        let a = parse_args(&[]).unwrap();
        assert_eq!(a.targets.len(), TARGETS.len());
        assert!(parse_args(&s(&["--seconds", "0"])).is_err());
        assert!(parse_args(&s(&["--seconds"])).is_err());
        assert!(parse_args(&s(&["nope"])).is_err());
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
