//! The committed C header `include/matexp.h` must be what cbindgen makes of `src/capi.rs`.
//! Regenerate with `MATEXP_BLESS_HEADER=1 cargo test -p matexp-cli --test header`.

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/capi.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("UTF-8 header");
    let path = dir.join("include/matexp.h");
    if std::env::var_os("MATEXP_BLESS_HEADER").is_some() {
        std::fs::write(&path, &fresh).expect("write include/matexp.h");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/matexp.h is stale: regenerate it with MATEXP_BLESS_HEADER=1 cargo test -p matexp-cli --test header"
    );
    // The header declares every exported function.
    let src = std::fs::read_to_string(dir.join("src/capi.rs")).expect("read capi.rs");
    for line in src.lines() {
        if let Some(rest) = line.split("extern \"C\" fn ").nth(1) {
            let name = rest.split('(').next().unwrap_or_default();
            assert!(
                committed.contains(&format!("{name}(")),
                "{name} missing from the header"
            );
        }
    }
}
