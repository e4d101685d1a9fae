//! Repository rules that run as plain `cargo test` (so inside `cargo xtask test` and CI)
//! and need no tool beyond cargo: no nvcc, no network.
//!
//! * [`layers`]: the crate dependency graph against the layer table of `docs/architecture.md`.
//! * [`figures`]: no benchmark figure (a time, a bandwidth, a speed-up, a GPU model) in the
//!   library sources; measured figures live in `bench-results/`.
//! * [`fn_length`]: no function of a library crate longer than 150 lines.
//! * [`fresh`]: generated files (PTX, Rust bindings, README tables) match their sources.

mod figures;
mod fn_length;
mod fresh;
mod layers;

use std::path::{Path, PathBuf};

/// The workspace root (xtask sits one folder below it).
fn root() -> PathBuf {
    crate::util::workspace_root()
}

/// A file of the workspace as text; a missing file is a test failure naming it.
fn read(rel: impl AsRef<Path>) -> String {
    let path = root().join(rel.as_ref());
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `.rs` file under `dir`, sorted.
pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library source folders: `crates/<name>/src` and `cuda-sys/src`.
pub(super) fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("cuda-sys/src"));
    dirs.sort();
    dirs
}

/// The text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`, exclusive, or `None` when
/// either marker is missing.
fn marked<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let begin = format!("<!-- {name}:begin -->");
    let end = format!("<!-- {name}:end -->");
    let start = text.find(&begin)? + begin.len();
    let stop = start + text[start..].find(&end)?;
    Some(&text[start..stop])
}

#[test]
fn marked_blocks_are_found_between_their_markers() {
    let text = "a <!-- x:begin -->\nin\n<!-- x:end --> b";
    assert_eq!(marked(text, "x"), Some("\nin\n"));
    assert_eq!(marked(text, "y"), None);
}
