//! Regenerates `src/bindings.rs` from `include/matexp_params.h`.
//!
//! Run through `cargo xtask cuda --bindgen` (needs libclang, e.g. `apt-get install
//! libclang-dev`). Only the `Mx*` types and `MX_*` constants of the header are emitted, with
//! layout assertions. The header's fingerprint (64-bit FNV-1a of its bytes) is written into
//! the file, and `cargo xtask cuda --check` fails when it no longer matches the header, so a
//! header edit without regenerated bindings cannot go unnoticed.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = root.join("include").join("matexp_params.h");
    // MATEXP_BINDINGS_OUT writes elsewhere (to compare with the committed file).
    let out = std::env::var_os("MATEXP_BINDINGS_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("src").join("bindings.rs"));
    let header_bytes = std::fs::read(&header).unwrap_or_else(|e| {
        eprintln!("cannot read {}: {e}", header.display());
        std::process::exit(1)
    });
    // Must equal xtask's `header_stamp`.
    let fnv = header_bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .allowlist_type("Mx.*")
        .allowlist_var("MX_.*")
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        .derive_partialeq(true)
        .layout_tests(true)
        .use_core()
        .generate_comments(true)
        .raw_line("// Generated from include/matexp_params.h by `cargo xtask cuda --bindgen`; do not edit.")
        .raw_line(format!("// header fnv1a64: {fnv:016x}"))
        .raw_line("#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, missing_docs)]")
        .generate()
        .unwrap_or_else(|e| {
            eprintln!("bindgen failed on {}: {e}", header.display());
            std::process::exit(1)
        });
    if let Err(e) = bindings.write_to_file(&out) {
        eprintln!("cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
    println!("wrote {}", out.display());
}
