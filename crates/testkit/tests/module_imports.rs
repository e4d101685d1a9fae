//! Layers point down inside every crate too: no crate of the workspace has an import cycle
//! among its modules (see `matexp_testkit::import_cycles` for what counts as an import).

use std::path::{Path, PathBuf};

/// `src/` of every crate folder at the workspace root or under `crates/`.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut v = Vec::new();
    for parent in [root.clone(), root.join("crates")] {
        for e in std::fs::read_dir(&parent).unwrap().flatten() {
            let p = e.path();
            if p.join("Cargo.toml").is_file() && p.join("src").is_dir() {
                v.push(p.join("src"));
            }
        }
    }
    v.sort();
    v
}

/// Cycles known when this check was introduced, in crates whose owners are untangling them;
/// remove an entry when its cycle is gone. Any other cycle fails the test.
const KNOWN: [&str; 0] = [];

#[test]
fn module_imports_have_no_cycle() {
    let crates = crate_sources();
    assert!(crates.iter().any(|c| c.ends_with("gpu/src")), "{crates:?}");
    let mut found = Vec::new();
    for src in &crates {
        let cycles = matexp_testkit::import_cycles(src).unwrap();
        eprintln!("{}: {} cycle(s)", src.display(), cycles.len());
        let name = src
            .strip_prefix(src.parent().and_then(Path::parent).unwrap_or(src))
            .unwrap_or(src)
            .display()
            .to_string();
        for c in cycles {
            let line = format!("{name}: {}", c.join(" ⇄ "));
            if !KNOWN.contains(&line.as_str()) {
                found.push(line);
            }
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}
