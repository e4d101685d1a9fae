#![cfg(target_os = "linux")]
//! Runs `tests/python/abi_hostile.py` (hostile C ABI calls from Python ctypes, each in its own
//! process so that a crash shows as one) against this build's shared library, when a python3
//! is on the PATH (the test says so and passes without one).

use std::path::{Path, PathBuf};
use std::process::Command;

fn library() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_matexp"));
    let dir = bin.parent().expect("binary folder");
    let name = format!(
        "{}matexp_cli{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join(&name), dir.join("deps").join(&name)]
        .into_iter()
        .filter(|p| modified(p).is_some())
        .max_by_key(modified)
        .expect("the shared library is built with the tests")
}

#[test]
fn hostile_ctypes_calls_return_their_status() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("no python3 on the PATH: the ctypes test did not run");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/abi_hostile.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(library())
        .output()
        .expect("run python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("all calls returned their status"), "{text}");
}
