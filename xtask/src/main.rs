//! Workspace automation for matexp, run as `cargo xtask <command>`.
//!
//! Commands that build (test, bench) call cargo with the default target directory of the
//! workspace, so a user, CI and these commands share one build.

mod bench;
mod bundle;
mod cuda;
mod fuzz;
mod package;
mod ptx_stamp;
mod records;
mod report;
mod test;
#[cfg(test)]
mod tidy;
mod util;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test     provision system libraries, then fmt, clippy, tests and the kernel check
           [--no-cuda] [--quick]
  bench    run the criterion suites and record the results in bench-results/
           [--full] [--suite NAME]... [--device NAME] [--list] [-- CRITERION_ARGS...]
  report   regenerate bench-results/REPORT.md from bench-results/<device>/<suite>.json
  ingest   merge the benchmark records found under a folder (a GPU run's output) into
           bench-results/ and regenerate the report: ingest <folder>
  cuda     compile the CUDA kernels with the pinned nvcc (see `cargo xtask cuda --help`)
  bundle   build the self-contained GPU test and benchmark bundle (see `cargo xtask bundle --help`)
  fuzz     run the cargo-fuzz targets of fuzz/ for a given time each
           [--seconds N] [TARGET]...
  package  `cargo package` every publishable crate and build each package on its own
           [--no-verify] [--list]
  help     this message (also `<command> --help`)";

fn wants_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help" || a == "-h")
}

fn report(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!(
            "`report` takes no arguments (got `{extra}`)\n\nusage: cargo xtask report"
        ));
    }
    let root = util::workspace_root();
    let (path, n) = report::write_report(&root.join("bench-results"))?;
    println!("wrote {} ({n} records)", bench::rel(&root, &path));
    write_headlines(&root)
}

/// The README's headline table, from the same records as the report.
fn write_headlines(root: &std::path::Path) -> Result<(), String> {
    let records = records::load_results(&root.join("bench-results"))?;
    report::headline::write_readme(root, &records)?;
    println!("wrote the headline table of README.md");
    Ok(())
}

const INGEST_USAGE: &str = "\
usage: cargo xtask ingest <folder>

Reads every *.jsonl and *.json record file under <folder> (recursively), merges the records
into bench-results/<device>/<suite>.json (a record replaces an earlier one of the same
measurement: suite, case, backend, precision, device, size, tol and any other defining field;
see bench-results/README.md) and regenerates bench-results/REPORT.md.";

fn ingest(args: &[String]) -> Result<(), String> {
    let [folder] = args else {
        return Err(format!(
            "`ingest` needs exactly one folder\n\n{INGEST_USAGE}"
        ));
    };
    let folder = std::path::Path::new(folder);
    if !folder.is_dir() {
        return Err(format!("{} is not a folder", folder.display()));
    }
    let root = util::workspace_root();
    let results = root.join("bench-results");
    let folder_abs = std::fs::canonicalize(folder)
        .map_err(|e| format!("cannot resolve {}: {e}", folder.display()))?;
    if let Ok(results_abs) = std::fs::canonicalize(&results) {
        if folder_abs.starts_with(&results_abs) {
            return Err(format!(
                "{} is inside bench-results/ itself; to rebuild the report use `cargo xtask report`",
                folder.display()
            ));
        }
    }
    let (records, warnings) = records::read_folder(folder)?;
    for w in &warnings {
        println!("warning: {w}");
    }
    if records.is_empty() {
        return Err(format!(
            "no benchmark records under {} (looked for *.jsonl and *.json files)",
            folder.display()
        ));
    }
    println!(
        "found {} record(s) under {}",
        records.len(),
        folder.display()
    );
    for (path, n) in records::store(&results, records.clone())? {
        println!("merged {n} record(s) into {}", bench::rel(&root, &path));
    }
    let (path, total) = report::write_report(&results)?;
    println!("wrote {} ({total} records)", bench::rel(&root, &path));
    write_headlines(&root)?;
    println!();
    print!("{}", report::render_summary(&records));
    Ok(())
}

fn dispatch(command: &str, rest: &[String]) -> Result<(), String> {
    let local_help = match command {
        "test" => Some(test::USAGE),
        "bench" => Some(bench::USAGE),
        "report" => Some(
            "usage: cargo xtask report\n\nRegenerates bench-results/REPORT.md and the README's \
             headline table (rows chosen in bench-results/headline.toml).",
        ),
        "ingest" => Some(INGEST_USAGE),
        "package" => Some(package::USAGE),
        _ => None,
    };
    if let Some(help) = local_help {
        if wants_help(rest) {
            println!("{help}");
            return Ok(());
        }
    }
    match command {
        "test" => test::run(rest),
        "bench" => bench::run(rest),
        "report" => report(rest),
        "ingest" => ingest(rest),
        "cuda" => cuda::run(rest),
        "bundle" => bundle::run(rest),
        "fuzz" => fuzz::run(rest),
        "package" => package::run(rest),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    match dispatch(command, rest) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
