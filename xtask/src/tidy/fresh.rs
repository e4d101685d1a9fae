//! Generated files match their sources, checked without the generators.
//!
//! * PTX: each `<crate>/ptx/<name>.ptx` has the line of `ptx/STAMPS` that `cargo xtask cuda`
//!   wrote when it compiled it, and that line's source hash is the hash of today's `.cu` and
//!   headers ([`crate::ptx_stamp`]), so no nvcc is needed to tell stale PTX.
//! * Rust mirrors of the C parameter structs: `cuda-sys/src/bindings.rs` records the hash of
//!   its header (`cuda::tests::committed_bindings_match_the_header`).
//! * The C ABI header `crates/cli/include/matexp.h` is what cbindgen makes of the sources
//!   (`crates/cli/tests/header.rs`, a test of `matexp-cli`).
//! * The README's headline table is what `cargo xtask report` writes from the records
//!   ([`crate::report::headline`]).

use super::root;
use crate::cuda::{kernel_sources, ptx_name, ptx_toolchain};
use crate::ptx_stamp;
use std::collections::BTreeMap;

#[test]
fn committed_ptx_was_compiled_from_todays_sources() {
    let root = root();
    let toolchain = ptx_toolchain();
    let mut errors = Vec::new();
    let mut stamp_files: BTreeMap<_, String> = BTreeMap::new();
    for src in kernel_sources(&root).expect("kernel sources") {
        let dir = src.crate_dir.join("ptx");
        let stamps = stamp_files.entry(dir.clone()).or_insert_with(|| {
            std::fs::read_to_string(dir.join(ptx_stamp::STAMPS)).unwrap_or_default()
        });
        let name = ptx_name(&src.path);
        let rel = |p: &std::path::Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
        let Ok(ptx) = std::fs::read(dir.join(&name)) else {
            errors.push(format!("{} is missing", rel(&dir.join(&name))));
            continue;
        };
        let source = ptx_stamp::source_hash(&root, &src.crate_dir, &src.path, &toolchain)
            .unwrap_or_else(|e| panic!("{e}"));
        let want = ptx_stamp::line(&name, source, &ptx);
        if !stamps.lines().any(|l| l == want) {
            errors.push(format!(
                "{} is not stamped as compiled from today's {} and its headers",
                rel(&dir.join(&name)),
                rel(&src.path)
            ));
        }
    }
    assert!(
        errors.is_empty(),
        "stale PTX (run `cargo xtask cuda` and commit the ptx/ folders, STAMPS included):\n  {}",
        errors.join("\n  ")
    );
}

#[test]
fn readme_headline_table_is_what_the_report_writes() {
    let root = root();
    let records = crate::records::load_results(&root.join("bench-results")).expect("records");
    let fresh =
        crate::report::headline::fresh_readme(&root, &records).unwrap_or_else(|e| panic!("{e}"));
    let committed = super::read("README.md");
    assert!(
        fresh == committed,
        "README.md's headline table is stale: run `cargo xtask report` and commit README.md"
    );
}
