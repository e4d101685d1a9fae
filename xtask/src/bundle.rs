//! `cargo xtask bundle` (provided by the GPU tooling; not part of this build yet).

/// Runs `cargo xtask bundle` with the arguments after the subcommand.
pub fn run(args: &[String]) -> Result<(), String> {
    let _ = args;
    Err("`cargo xtask bundle` is not available in this build yet".into())
}
