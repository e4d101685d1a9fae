//! No benchmark figure in library sources.
//!
//! Measured figures (a time, a bandwidth, a rate, a speed-up, the GPU it ran on) change with
//! every rerun and belong to the records under `bench-results/`; library comments and rustdoc
//! state the mathematics, the cost as a formula and the accuracy with its source. This test
//! reads the comments of `crates/*/src/**/*.rs` and `cuda-sys/src/**/*.rs` and reports each
//! figure as `file:line`.

use super::{root, rust_files, source_dirs};
use regex::Regex;
use std::path::{Path, PathBuf};

/// Crates whose sources still carry figures, skipped until they are cleaned. A listed crate
/// without figures fails the test, so the list only shrinks; it is empty: every crate is
/// scanned.
const NOT_YET_CLEAN: &[&str] = &[];

/// What counts as a figure, one alternative per kind.
fn figure_pattern() -> Regex {
    Regex::new(concat!(
        // a time, a bandwidth or a rate after a number
        r"\d\s?(µs|us|ns|ms|[GTM]i?B/s|[GT][Ff]lop/s)\b",
        // a time in seconds: "2.5 s" before a space or punctuation
        r"|\d(\.\d+)? s[ ,;:.)]",
        // a speed-up glued to its number: 2.1×, 3x (not 4×4, 0x1f, 2x2, 315x₃)
        r"|\d×($|[^\w×₀-₉])",
        r"|(\d*[1-9]\d*|\d+\.\d+)x($|[^\w×₀-₉`])",
        // a spaced speed-up: "2 × the ..."
        r"|\d ×\s(the|its|faster|slower|fewer|more|less|over|than|of)\b",
        // a GPU model
        r"|\b(H100|H200|A100|A10|V100|GH200|B200|L40S?|RTX ?\d*)\b",
    ))
    .expect("figure pattern")
}

/// The comment part of a line of Rust: the whole line for `//`, `///`, `//!` and block-comment
/// continuation lines, the tail after a `//` that lies outside a string literal otherwise.
fn comment_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') {
        return Some(t);
    }
    let mut in_string = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' if i == 0 || bytes[i - 1] != b'\\' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(&line[i..]),
            _ => {}
        }
    }
    None
}

/// `file:line: text` for every figure in the comments of `files`.
fn figures_in(root: &Path, files: &[PathBuf], pattern: &Regex) -> Vec<String> {
    let mut hits = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let rel = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (i, line) in text.lines().enumerate() {
            if comment_of(line).is_some_and(|c| pattern.is_match(c)) {
                hits.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn library_sources_carry_no_benchmark_figures() {
    let root = root();
    let pattern = figure_pattern();
    let mut hits = Vec::new();
    let mut stale = Vec::new();
    for dir in source_dirs(&root) {
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        let found = figures_in(&root, &files, &pattern);
        let krate = dir.parent().unwrap().strip_prefix(&root).unwrap();
        if NOT_YET_CLEAN.iter().any(|skip| Path::new(skip) == krate) {
            if found.is_empty() {
                stale.push(krate.display().to_string());
            }
            continue;
        }
        hits.extend(found);
    }
    assert!(
        stale.is_empty(),
        "{} carry no figures any more: delete them from NOT_YET_CLEAN (xtask/src/tidy/figures.rs)",
        stale.join(", ")
    );
    assert!(
        hits.is_empty(),
        "benchmark figures in library comments (state the mathematics, the cost as a formula and \
         the accuracy with its source; measured figures go to bench-results/):\n{}",
        hits.join("\n")
    );
}

#[test]
fn figures_are_told_from_mathematics() {
    let p = figure_pattern();
    for hit in [
        "/// takes 76 µs on",
        "// 1.19× its floor",
        "// 3x faster",
        "/// 2.5 s, then",
        "// 516 GB/s",
        "// on an H200",
        "// 58 TFlop/s",
        "// 2 × the bytes",
    ] {
        assert!(p.is_match(comment_of(hit).unwrap()), "{hit}");
    }
    for miss in [
        "/// an n × n matrix",
        "// 4×4 blocks",
        "// mask 0x1f",
        "/// hexadecimal with `0x`",
        "//! (−271+29√177)/(315x₃)",
        "/// O(n²) work, 3 passes over x",
        "// a 2x2 block",
        "/// φ_k(z) for k ≥ 0",
    ] {
        assert!(!p.is_match(comment_of(miss).unwrap()), "{miss}");
    }
    assert_eq!(comment_of(r#"let s = "a // b"; // 5 ms"#), Some("// 5 ms"));
    assert_eq!(comment_of(r#"let s = "5 ms";"#), None);
}
