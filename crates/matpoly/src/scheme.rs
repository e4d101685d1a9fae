//! Evaluation schemes for `P(X) = Σ_{i=0}^{d} α_i X^i` and their matrix-product counts.
//!
//! Only products count: a product costs `2n³` flops (`8n³` complex), every other step
//! (axpy, adding a multiple of the identity) `O(n²)`. For degree `d`:
//!
//! | scheme | products | stored `n × n` matrices |
//! | --- | --- | --- |
//! | powers (seed 004, Alg. 1) | `d − 1` | 4 |
//! | Horner | `d − 1` | 3 |
//! | Paterson–Stockmeyer, block `b` | `min(d, b+1) − 1 + ⌈(d − b − 1)/(b + 1)⌉₊` | `b + 3` |
//! | Sastre-type `T₈` (exp only) | 3 for degree 8 | 5 |
//!
//! Paterson–Stockmeyer ("boxing" in seed 004, Alg. 4–6 with the errata of the notes) writes
//! `P = X^{b+1}(X^{b+1}(⋯) + Q_1) + Q_0` with blocks `Q_j` of degree `b` in the stored powers
//! `X, …, X^{b+1}`; the innermost block takes up to `b + 1` coefficients (degree `q ≤ b+1`),
//! which is what the seed's Table 1 implies: `(d, b) = (12, 3), (20, 4), (30, 5)` cost 5, 7
//! and 9 products. The seed's block size `b = round(√(d+1) − 1)` minimises the count up to
//! ties; [`Scheme::paterson_stockmeyer`] takes the true minimiser nearest to it.

use matexp_core::{Error, Result};

/// How to evaluate a matrix polynomial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Seed 004, Alg. 1: form `X^i` one after another and accumulate `α_i X^i`.
    Powers,
    /// Horner's rule `P ← X·P + α_i I`.
    Horner,
    /// Paterson–Stockmeyer with block size `block ≥ 1` (powers `X … X^{block+1}` stored).
    PatersonStockmeyer {
        /// The block size `b`: the degree of the inner polynomials.
        block: usize,
    },
}

impl Scheme {
    /// Paterson–Stockmeyer with the block size that minimises the product count for degree
    /// `d` (ties broken toward the seed's `√(d+1) − 1`).
    pub fn paterson_stockmeyer(d: usize) -> Self {
        Scheme::PatersonStockmeyer {
            block: optimal_block(d),
        }
    }

    /// Matrix products this scheme spends on a polynomial of degree `d`.
    ///
    /// ```
    /// use matexp_matpoly::Scheme;
    /// assert_eq!(Scheme::Horner.products(12), 11);
    /// let table1: Vec<usize> = [(12, 3), (20, 4), (30, 5)]
    ///     .iter()
    ///     .map(|&(d, b)| Scheme::PatersonStockmeyer { block: b }.products(d))
    ///     .collect();
    /// assert_eq!(table1, vec![5, 7, 9]);
    /// ```
    pub fn products(self, d: usize) -> usize {
        match self {
            Scheme::Powers | Scheme::Horner => d.saturating_sub(1),
            Scheme::PatersonStockmeyer { block } => ps_products(d, block.max(1)),
        }
    }

    /// Short name for reports.
    pub fn name(self) -> String {
        match self {
            Scheme::Powers => "powers".into(),
            Scheme::Horner => "horner".into(),
            Scheme::PatersonStockmeyer { block } => format!("ps-b{block}"),
        }
    }

    pub(crate) fn validate(self) -> Result<()> {
        match self {
            Scheme::PatersonStockmeyer { block: 0 } => Err(Error::invalid(
                "block",
                0,
                "the Paterson–Stockmeyer block size must be at least 1",
            )),
            _ => Ok(()),
        }
    }
}

/// Number of outer (Horner-in-`X^{b+1}`) steps of Paterson–Stockmeyer: the innermost block
/// starts at `K(b+1)` with `K` the least integer such that `d − K(b+1) ≤ b + 1`.
/// A block `b ≥ d` (up to `usize::MAX`) has no outer step: `b + 1` saturates instead of
/// wrapping to a zero divisor.
pub(crate) fn ps_outer_steps(d: usize, b: usize) -> usize {
    let b1 = b.saturating_add(1);
    if d <= b1 { 0 } else { (d - b1).div_ceil(b1) }
}

/// Products of Paterson–Stockmeyer: powers `X² … X^{min(d, b+1)}`, then one per outer step.
pub(crate) fn ps_products(d: usize, b: usize) -> usize {
    d.min(b.saturating_add(1)).saturating_sub(1) + ps_outer_steps(d, b)
}

/// The block Paterson–Stockmeyer actually uses for degree `d`: a block beyond `d` stores
/// the same powers `X … X^d` and has no outer step, so it is the block `d` (at least 1).
pub(crate) fn effective_block(d: usize, b: usize) -> usize {
    b.clamp(1, d.max(1))
}

/// The Paterson–Stockmeyer block size minimising [`Scheme::products`] for degree `d`; among
/// minimisers the one nearest the seed's `√(d+1) − 1`.
///
/// ```
/// use matexp_matpoly::optimal_block;
/// assert_eq!([12, 20, 30].map(optimal_block), [3, 4, 5]); // seed 004, Table 1
/// ```
///
/// Cost O(1): with `c = b + 1 ≤ d` and `N = d + 1` the count is `c − 2 + ⌈N/c⌉`, and
/// `min_c (c + ⌈N/c⌉) = ⌈2√N⌉` is reached at `c = ⌈√N⌉` (the least perimeter of a
/// rectangle of area ≥ N). Other minimisers may lie up to about `N^{1/4}` away, where
/// `c + N/c` is flat, but the tie-break takes the one nearest `√N`, which is within 1 of it:
/// the search covers `b ∈ isqrt(d + 1) ± 4`, plus `b = d` (count `d − 1`) for small `d`.
/// The tests compare it with the exhaustive search.
pub fn optimal_block(d: usize) -> usize {
    let target = ((d as f64) + 1.0).sqrt() - 1.0;
    let root = ((d as u128) + 1).isqrt() as usize;
    let hi = root.saturating_add(4).min(d.max(1));
    let lo = root.saturating_sub(4).max(1).min(hi);
    (lo..=hi)
        .chain(std::iter::once(d.max(1)))
        .min_by(|&a, &b| {
            ps_products(d, a).cmp(&ps_products(d, b)).then(
                (a as f64 - target)
                    .abs()
                    .total_cmp(&(b as f64 - target).abs()),
            )
        })
        .unwrap_or(1)
}

/// Products of the Sastre-type evaluation of the degree-8 Taylor polynomial of `exp`.
pub const TAYLOR8_PRODUCTS: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_table_block_sizes_are_optimal() {
        for (d, b) in [(12, 3), (20, 4), (30, 5)] {
            assert_eq!(optimal_block(d), b, "d = {d}");
        }
    }

    #[test]
    fn optimal_block_never_loses_to_horner() {
        for d in 0..200 {
            let b = optimal_block(d);
            assert!(ps_products(d, b) <= d.saturating_sub(1), "d = {d}");
            for other in 1..=d.max(1) {
                assert!(ps_products(d, b) <= ps_products(d, other));
            }
        }
    }

    #[test]
    fn ps_count_grows_like_two_root_d() {
        // The classical bound: about 2√d products for large d.
        for d in [100usize, 400, 1600] {
            let p = ps_products(d, optimal_block(d)) as f64;
            assert!(p <= 2.0 * (d as f64).sqrt() + 1.0, "d = {d}: {p}");
        }
    }
}
