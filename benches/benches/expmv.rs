//! Benchmark suite `expmv` (written together with its crate).
fn main() {}
