//! Links LAPACKE and a BLAS/LAPACK implementation when the `lapack` feature is on; without it
//! the crate is pure Rust and links nothing.
//!
//! The `lapacke` crate only declares the C symbols; this script names the shared libraries so
//! that every binary depending on `matexp-dense/lapack` needs exactly `liblapacke.so.3` (which
//! brings its LAPACK) and `libopenblas.so.0` (CBLAS GEMM), the sonames present on the
//! Debian/Ubuntu hosts the project targets. `MATEXP_LAPACK_LIB_DIR` adds a search directory
//! for hosts that keep these libraries elsewhere.

fn main() {
    println!("cargo:rerun-if-env-changed=MATEXP_LAPACK_LIB_DIR");
    if std::env::var_os("CARGO_FEATURE_LAPACK").is_none() {
        return;
    }
    if let Ok(dir) = std::env::var("MATEXP_LAPACK_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
    }
    println!("cargo:rustc-link-lib=dylib=lapacke");
    println!("cargo:rustc-link-lib=dylib=openblas");
}
