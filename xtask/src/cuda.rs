//! `cargo xtask cuda` (provided by the GPU tooling; not part of this build yet).

/// Runs `cargo xtask cuda` with the arguments after the subcommand.
pub fn run(args: &[String]) -> Result<(), String> {
    let _ = args;
    Err("`cargo xtask cuda` is not available in this build yet".into())
}
