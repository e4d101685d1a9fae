#![cfg(target_os = "linux")]
//! Compiles `tests/c/abi_test.c` against `include/matexp.h` with the `cc` crate's compiler
//! detection, links it to the shared library built with this package, runs it, and checks
//! that every C-side check passed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of the built artefacts (`target/<profile>`), where the shared library is.
fn artefact_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_matexp"))
        .parent()
        .expect("binary folder")
        .to_path_buf()
}

#[test]
fn c_program_calls_the_abi() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = format!(
        "{}matexp_cli{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    // `cargo build` copies the cdylib next to the binary; under `cargo test` alone it stays
    // in `deps/`, where the build put it: the newer of the two is this build's (a copy next
    // to the binary may be left from an earlier `cargo build`).
    let modified = |d: &PathBuf| {
        std::fs::metadata(d.join(&name))
            .and_then(|m| m.modified())
            .ok()
    };
    let libdir = [artefact_dir(), artefact_dir().join("deps")]
        .into_iter()
        .filter(|d| modified(d).is_some())
        .max_by_key(modified)
        .unwrap_or_else(artefact_dir);
    let so = libdir.join(&name);
    assert!(so.exists(), "shared library {} not built", so.display());
    let out = tempfile::tempdir().expect("temp dir");
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .opt_level(0)
        .host(&target)
        .target(&target)
        .out_dir(out.path())
        .try_get_compiler()
        .expect("a C compiler");
    let exe = out.path().join("abi_test");
    let mut cmd = compiler.to_command();
    cmd.arg("-std=c99")
        .arg("-Wall")
        .arg("-Werror")
        .arg(format!("-I{}", dir.join("include").display()))
        .arg(dir.join("tests/c/abi_test.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", libdir.display()))
        .arg(format!("-Wl,-rpath,{}", libdir.display()))
        .arg("-lmatexp_cli")
        .arg("-lm");
    let status = cmd.status().expect("run the C compiler");
    assert!(status.success(), "compiling the C test failed: {cmd:?}");
    // cargo's LD_LIBRARY_PATH (searched before the rpath) may name a folder holding an older
    // copy of the library: this build's comes first.
    let search = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
    let mut paths = vec![libdir.clone()];
    paths.extend(std::env::split_paths(&search));
    let run = Command::new(&exe)
        .env(
            "LD_LIBRARY_PATH",
            std::env::join_paths(paths).expect("library path"),
        )
        .output()
        .expect("run the C test");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "C checks failed:\n{stdout}{stderr}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
}
