//! Benchmark suite `leja` (written together with its crate).
fn main() {}
