//! Row blocks: which global rows each rank owns.

use matexp_core::{Error, Result};
use std::ops::Range;

/// A split of `0..n` into `size` contiguous blocks, block `r` owned by rank `r` (blocks may
/// be empty when there are more ranks than rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLayout {
    offsets: Vec<usize>,
}

impl RowLayout {
    /// Blocks from their offsets: block `r` is `offsets[r]..offsets[r + 1]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `offsets` has at least two entries, starts at 0
    /// and does not decrease.
    pub fn from_offsets(offsets: Vec<usize>) -> Result<Self> {
        if offsets.len() < 2 || offsets[0] != 0 || offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::invalid(
                "offsets",
                format!("{offsets:?}"),
                "need 0 = o_0 ≤ o_1 ≤ … ≤ o_size = n with at least one rank",
            ));
        }
        Ok(RowLayout { offsets })
    }

    /// `size` blocks of `n` rows as equal as possible (the first `n mod size` one longer).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `size` is 0.
    pub fn even(n: usize, size: usize) -> Result<Self> {
        if size == 0 {
            return Err(Error::invalid("size", 0, "need at least one rank"));
        }
        Self::from_offsets(
            (0..=size)
                .map(|r| r * (n / size) + r.min(n % size))
                .collect(),
        )
    }

    /// Blocks of about equal work, the work of row `i` being `nnz(i) + 1` (the stored
    /// entries it streams plus its own write), from the CSR row pointers: block `r` starts
    /// at the first row whose preceding work reaches `r/size` of the total. O(size·log n).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `size` is 0 or `row_ptr` is empty.
    pub fn by_work(row_ptr: &[usize], size: usize) -> Result<Self> {
        if size == 0 || row_ptr.is_empty() {
            return Err(Error::invalid(
                "size",
                size,
                "need at least one rank and a row pointer array",
            ));
        }
        let n = row_ptr.len() - 1;
        let work = |i: usize| (row_ptr[i] - row_ptr[0]) as u128 + i as u128;
        let total = work(n);
        let mut offsets = vec![0; size + 1];
        for r in 1..size {
            let target = total * r as u128 / size as u128;
            // First row i with work(i) ≥ target.
            let (mut lo, mut hi) = (offsets[r - 1], n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if work(mid) < target {
                    lo = mid + 1
                } else {
                    hi = mid
                }
            }
            offsets[r] = lo;
        }
        offsets[size] = n;
        Self::from_offsets(offsets)
    }

    /// Number of rows in all.
    pub fn n(&self) -> usize {
        *self.offsets.last().expect("at least two offsets")
    }
    /// Number of blocks (ranks).
    pub fn size(&self) -> usize {
        self.offsets.len() - 1
    }
    /// The rows of rank `r`.
    pub fn range(&self, r: usize) -> Range<usize> {
        self.offsets[r]..self.offsets[r + 1]
    }
    /// The offsets, `size + 1` of them.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }
    /// The rank owning global row `i` (`i < n`); for empty blocks, the last rank whose block
    /// starts at or before `i` and is not empty.
    pub fn owner(&self, i: usize) -> usize {
        // The last offset ≤ i among offsets[0..size]: partition_point counts offsets ≤ i.
        self.offsets[..self.size()].partition_point(|&o| o <= i) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_and_balance() {
        let l = RowLayout::even(10, 3).unwrap();
        assert_eq!(l.offsets(), &[0, 4, 7, 10]);
        assert_eq!(
            (0..10).map(|i| l.owner(i)).collect::<Vec<_>>(),
            [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        );
        let l = RowLayout::even(2, 4).unwrap();
        assert_eq!(l.offsets(), &[0, 1, 2, 2, 2]);
        assert_eq!((l.owner(0), l.owner(1)), (0, 1));
        // One heavy row (100 entries) then 100 rows of one entry: work 101 + 200.
        let mut rp = vec![0usize, 100];
        rp.extend((1..=100).map(|k| 100 + k));
        let l = RowLayout::by_work(&rp, 2).unwrap();
        let w = |a: usize, b: usize| (rp[b] - rp[a]) + (b - a);
        let (w0, w1) = (w(0, l.offsets()[1]), w(l.offsets()[1], 101));
        // Rows are atoms of work 2 here: the halves differ by at most one row.
        assert!(w0.abs_diff(w1) <= 2, "{w0} {w1}");
        assert!(RowLayout::from_offsets(vec![0, 3, 2]).is_err());
        assert!(RowLayout::even(3, 0).is_err());
    }
}
