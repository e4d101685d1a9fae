//! Workspace automation for matexp, run as `cargo xtask <command>`.
//!
//! Commands that build (test, bench) call cargo with the default target directory of the
//! workspace, so a user, CI and these commands share one build.

mod bench;
mod bundle;
mod cli;
mod cuda;
mod fuzz;
mod mpi;
mod package;
mod ptx_stamp;
mod python;
mod records;
mod report;
mod test;
#[cfg(test)]
mod tidy;
mod util;

use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Command};
fn report() -> Result<(), String> {
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

fn ingest(folder: &std::path::Path) -> Result<(), String> {
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

fn dispatch(command: Command) -> Result<(), String> {
    match command {
        Command::Test(args) => test::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Report => report(),
        Command::Ingest { folder } => ingest(&folder),
        Command::Cuda(args) => cuda::run(args),
        Command::Bundle(args) => bundle::run(args),
        Command::Fuzz(args) => fuzz::run(args),
        Command::Package(args) => package::run(args),
        Command::Python(args) => python::run(args),
        Command::Mpi(args) => mpi::run(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
