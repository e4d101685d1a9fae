//! Benchmark suite `divdiff` (written together with its crate).
fn main() {}
