//! Regenerates `src/bindings.rs` from `include/matexp_params.h`.
//!
//! Run through `cargo xtask cuda --bindgen` (needs libclang, e.g. `apt-get install
//! libclang-dev`). Only the `Mx*` types and `MX_*` constants of the header are emitted, with
//! layout assertions, so a header change that the Rust side does not see fails to compile.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = root.join("include").join("matexp_params.h");
    let out = root.join("src").join("bindings.rs");
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
