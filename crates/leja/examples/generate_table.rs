//! Writes the shipped table of Leja points: the first 10 000 fast Leja points of [−2, 2] as
//! little-endian `f64`.
//!
//! ```text
//! cargo run -p matexp-leja --example generate_table --release [-- OUTPUT [N]]
//! ```
//!
//! OUTPUT defaults to `target/fast_leja_10000.bin` of the workspace (a plain run never
//! rewrites the shipped file; refresh it with `-- crates/leja/data/fast_leja_10000.bin`), N to
//! 10 000. The crate's tests recompute the table with the same function and compare bit for
//! bit.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/fast_leja_10000.bin")
    });
    let n: usize = match args.next() {
        Some(s) => s.parse()?,
        None => 10_000,
    };
    let points = matexp_leja::fast_leja_points(n)?;
    let bytes: Vec<u8> = points.iter().flat_map(|x| x.to_le_bytes()).collect();
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&out, &bytes)?;
    println!(
        "wrote {n} fast Leja points of [-2, 2] ({} bytes) to {}",
        bytes.len(),
        out.display()
    );
    Ok(())
}
