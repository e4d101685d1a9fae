//! The `matexp` binary: parses the command line, runs it, and maps errors to one line on
//! standard error and a documented exit status.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match matexp_cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind as K;
            if matches!(
                e.kind(),
                K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid command line");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("matexp: error: {first} (see matexp --help)");
            return ExitCode::from(2);
        }
    };
    let result = std::panic::catch_unwind(|| matexp_cli::run(&cli));
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("matexp: error: {}", e.message);
            ExitCode::from(e.kind.exit_code() as u8)
        }
        Err(_) => {
            eprintln!("matexp: internal error (a bug: please report it with the command line)");
            ExitCode::from(70)
        }
    }
}
