//! Benchmark suite `spmv` (written together with its crate).
fn main() {}
