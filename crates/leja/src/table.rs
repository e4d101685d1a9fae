//! The shipped table of Leja points of [−2, 2].
//!
//! `data/fast_leja_10000.bin` holds the first [`TABLE_LEN`] fast Leja points
//! ([`crate::fast_leja_points`]) as little-endian IEEE-754 `f64`, 8 bytes per point, written
//! by `cargo run -p matexp-leja --example generate_table --release`. The crate's tests
//! re-derive the table with the generator and compare bit for bit.

use matexp_core::{Error, Result};
use std::sync::OnceLock;

const TABLE_BYTES: &[u8] = include_bytes!("../data/fast_leja_10000.bin");

/// Number of points in the shipped table.
pub const TABLE_LEN: usize = TABLE_BYTES.len() / 8;

fn table() -> &'static [f64] {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE.get_or_init(|| decode_table(TABLE_BYTES))
}

/// Decodes little-endian `f64`s (the shipped file format).
fn decode_table(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect()
}

/// The first `n` Leja points of [−2, 2] from the shipped table (fast Leja points:
/// `2, −2, 0, 1, −1, ±1.5, …`), without computation. Map them onto an interval with
/// [`crate::Interval::leja_points`] or [`crate::Interval::map_points`].
///
/// # Errors
/// [`Error::InvalidArgument`] if `n = 0` or `n > TABLE_LEN` ("too many points requested";
/// compute longer sequences with [`crate::fast_leja_points`]).
///
/// ```
/// let z = matexp_leja::leja_points(4)?;
/// assert_eq!(z, &[2.0, -2.0, 0.0, 1.0]);
/// assert!(matexp_leja::leja_points(matexp_leja::TABLE_LEN + 1).is_err());
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn leja_points(n: usize) -> Result<&'static [f64]> {
    crate::discrete::check_count(n)?;
    let t = table();
    if n > t.len() {
        return Err(Error::invalid(
            "n",
            n,
            format!(
                "too many points requested: the shipped table holds {} Leja points (compute \
                 more with fast_leja_points)",
                t.len()
            ),
        ));
    }
    Ok(&t[..n])
}
