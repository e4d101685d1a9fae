//! Source stamps of the committed PTX, so that a plain test (no nvcc) can tell stale PTX.
//!
//! `cargo xtask cuda` writes `<crate>/ptx/STAMPS` after compiling: one line per module,
//! `<name>.ptx source=<hash> ptx=<hash>`, where the source hash covers the `.cu` file, every
//! header it includes with `#include "…"` (transitively), the nvcc flags and the nvcc pin,
//! and the PTX hash covers the bytes written. A source edited since, or a PTX edited by hand,
//! no longer matches its line. The hash is FNV-1a 64 ([`fnv1a64`]): a change
//! detector, not a security measure. `cargo xtask cuda --check` still recompiles with nvcc
//! and compares the bytes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The stamps file of a crate's `ptx/` folder.
pub const STAMPS: &str = "STAMPS";

/// Header names of the `#include "name"` lines of a source (system `<…>` headers are the
/// toolchain's, covered by the nvcc pin).
fn quoted_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("#include"))
        .filter_map(|rest| {
            let rest = rest.trim().strip_prefix('"')?;
            Some(rest.split('"').next()?.to_string())
        })
        .collect()
}

/// The `.cu` file and the headers it reaches, resolved as nvcc does with the include paths
/// of `cargo xtask cuda`: the including file's folder, the crate's `include/`, then
/// `cuda-sys/include` and `cuda-sys/kernels`.
fn closure(root: &Path, crate_dir: &Path, cu: &Path) -> Result<BTreeSet<PathBuf>, String> {
    let search = [
        crate_dir.join("include"),
        root.join("cuda-sys/include"),
        root.join("cuda-sys/kernels"),
    ];
    let mut seen = BTreeSet::new();
    let mut todo = vec![cu.to_path_buf()];
    while let Some(file) = todo.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("read {}: {e}", file.display()))?;
        for name in quoted_includes(&text) {
            let here = file.parent().map(|d| d.join(&name));
            let found = here
                .into_iter()
                .chain(search.iter().map(|d| d.join(&name)))
                .find(|p| p.is_file())
                .ok_or_else(|| format!("{}: include \"{name}\" not found", file.display()))?;
            todo.push(found);
        }
    }
    Ok(seen)
}

/// The source hash of one module: the toolchain (`toolchain`: pin and flags, in order), then
/// each file of the closure as its path relative to `root` and its bytes.
pub fn source_hash(
    root: &Path,
    crate_dir: &Path,
    cu: &Path,
    toolchain: &[&str],
) -> Result<u64, String> {
    let mut bytes = Vec::new();
    for part in toolchain {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    for file in closure(root, crate_dir, cu)? {
        let rel = file.strip_prefix(root).unwrap_or(&file);
        bytes.extend_from_slice(rel.to_string_lossy().replace('\\', "/").as_bytes());
        bytes.push(0);
        bytes.extend(std::fs::read(&file).map_err(|e| format!("read {}: {e}", file.display()))?);
        bytes.push(0);
    }
    Ok(fnv1a64(&bytes))
}

/// The stamp line of a module.
pub fn line(ptx_name: &str, source: u64, ptx: &[u8]) -> String {
    format!("{ptx_name} source={source:016x} ptx={:016x}", fnv1a64(ptx))
}

/// The text of a `STAMPS` file for these lines.
pub fn file_text(lines: &[String]) -> String {
    let mut text = String::from(
        "# Written by `cargo xtask cuda` with the PTX beside it; checked by a plain test.\n",
    );
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text
}

/// 64-bit FNV-1a of a file's bytes: the fingerprint of a PTX module's sources and of the
/// header that `bindings.rs` records. The bindgen example computes the same function.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_includes_only() {
        let src = "#include <stdint.h>\n  #include \"common.cuh\"\n// #include \"no\"\n";
        assert_eq!(quoted_includes(src), ["common.cuh"]);
    }

    #[test]
    fn a_header_edit_changes_the_source_hash() {
        let root = std::env::temp_dir().join(format!("matexp-stamp-{}", std::process::id()));
        let krate = root.join("k");
        std::fs::create_dir_all(krate.join("kernels")).unwrap();
        std::fs::create_dir_all(krate.join("include")).unwrap();
        let cu = krate.join("kernels/a.cu");
        std::fs::write(&cu, "#include \"p.h\"\n").unwrap();
        std::fs::write(krate.join("include/p.h"), "int x;").unwrap();
        let before = source_hash(&root, &krate, &cu, &["nvcc"]).unwrap();
        std::fs::write(krate.join("include/p.h"), "int y;").unwrap();
        let after = source_hash(&root, &krate, &cu, &["nvcc"]).unwrap();
        let flags = source_hash(&root, &krate, &cu, &["nvcc", "-O3"]).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_ne!(before, after);
        assert_ne!(after, flags);
    }
}
