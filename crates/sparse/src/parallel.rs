//! Row partitions balanced by stored entries, and the rayon drivers every row-wise kernel
//! (SpMV, the fused Leja step, generators) runs on.
//!
//! A partition by equal row counts is poor for power-law graphs, where a few hubs hold a large
//! share of the entries; a partition by equal entry counts alone is poor for matrices with many
//! empty rows, whose `y` writes are the work. Rows are therefore weighted by `nnz(row) + 1`
//! and split where the cumulative weight `row_ptr[r] + r` crosses multiples of the chunk
//! weight (a binary search per boundary, O(chunks · log n)). A single row is never split, so
//! one hub row bounds the balance from below.

use crate::CsrIndex;
use rayon::prelude::*;
use std::ops::Range;

/// Below this many rows + stored entries a kernel runs on the calling thread: rayon's
/// fork-join overhead (a few µs) exceeds the work.
pub(crate) const SERIAL_WORK: usize = 1 << 15;

/// Chunks per rayon thread: enough slack for work stealing to even out cache effects.
const CHUNKS_PER_THREAD: usize = 8;

/// Row boundaries `0 = b₀ < b₁ < … < b_k = n` splitting the rows into at most `parts`
/// chunks of roughly equal weight `Σ (nnz(row) + 1)`.
pub(crate) fn row_partition<I: CsrIndex>(row_ptr: &[I], parts: usize) -> Vec<usize> {
    let n = row_ptr.len() - 1;
    let weight = |r: usize| row_ptr[r].as_usize() + r;
    let total = weight(n);
    let parts = parts.clamp(1, n.max(1));
    let mut bounds = Vec::with_capacity(parts + 1);
    bounds.push(0);
    let mut start = 0;
    // Each boundary spreads the weight still unassigned evenly over the chunks still to
    // make, so that a heavy row early on does not starve the later chunks.
    for remaining in (2..=parts).rev() {
        let w0 = weight(start);
        let target = w0 + (total - w0).div_ceil(remaining);
        let (mut lo, mut hi) = (start + 1, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if weight(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo >= n {
            break;
        }
        bounds.push(lo);
        start = lo;
    }
    bounds.push(n);
    bounds
}

/// Splits `y` (one entry per row) at the row boundaries.
pub(crate) fn split_at_bounds<'a, T>(mut y: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = y.split_at_mut(w[1] - w[0]);
        parts.push(head);
        y = tail;
    }
    parts
}

/// The partition a kernel over `row_ptr` should use: one chunk when the work is small, else
/// a few chunks per rayon thread.
pub(crate) fn partition_for<I: CsrIndex>(row_ptr: &[I]) -> Vec<usize> {
    let n = row_ptr.len() - 1;
    let work = row_ptr[n].as_usize() + n;
    if work < SERIAL_WORK || rayon::current_num_threads() == 1 {
        vec![0, n]
    } else {
        row_partition(row_ptr, CHUNKS_PER_THREAD * rayon::current_num_threads())
    }
}

/// Runs `f(rows, y_rows)` over a balanced partition of the rows, in parallel, and returns the
/// per-chunk results in row order.
pub(crate) fn map_row_chunks<I, T, R, F>(row_ptr: &[I], y: &mut [T], f: F) -> Vec<R>
where
    I: CsrIndex,
    T: Send,
    R: Send,
    F: Fn(Range<usize>, &mut [T]) -> R + Sync,
{
    let bounds = partition_for(row_ptr);
    if bounds.len() == 2 {
        return vec![f(0..bounds[1], y)];
    }
    let chunks = split_at_bounds(y, &bounds);
    chunks
        .into_par_iter()
        .enumerate()
        .map(|(k, yc)| f(bounds[k]..bounds[k + 1], yc))
        .collect()
}

/// Like [`map_row_chunks`] with two row-indexed outputs split identically.
pub(crate) fn map_row_chunks2<I, T, U, R, F>(
    row_ptr: &[I],
    y: &mut [T],
    z: &mut [U],
    f: F,
) -> Vec<R>
where
    I: CsrIndex,
    T: Send,
    U: Send,
    R: Send,
    F: Fn(Range<usize>, &mut [T], &mut [U]) -> R + Sync,
{
    let bounds = partition_for(row_ptr);
    if bounds.len() == 2 {
        return vec![f(0..bounds[1], y, z)];
    }
    let ys = split_at_bounds(y, &bounds);
    let zs = split_at_bounds(z, &bounds);
    ys.into_par_iter()
        .zip(zs)
        .enumerate()
        .map(|(k, (yc, zc))| f(bounds[k]..bounds[k + 1], yc, zc))
        .collect()
}

/// Visits every row of a CSR structure with mutable access to its column and value
/// slices, rows in parallel: `f(row, cols, vals)` returns a flag, and the result is the OR of
/// all flags. Generators fill rows whose lengths they set in `row_ptr` beforehand; the
/// canonicalization sorts rows in place.
pub(crate) fn for_each_row_mut<I, V, F>(row_ptr: &[I], cols: &mut [I], vals: &mut [V], f: F) -> bool
where
    I: CsrIndex,
    V: Send,
    F: Fn(usize, &mut [I], &mut [V]) -> bool + Sync,
{
    let bounds = partition_for(row_ptr);
    let entry_bounds: Vec<usize> = bounds.iter().map(|&r| row_ptr[r].as_usize()).collect();
    let cs = split_at_bounds(cols, &entry_bounds);
    let vs = split_at_bounds(vals, &entry_bounds);
    let run = |k: usize, mut cc: &mut [I], mut vc: &mut [V]| -> bool {
        let mut any = false;
        for r in bounds[k]..bounds[k + 1] {
            let len = row_ptr[r + 1].as_usize() - row_ptr[r].as_usize();
            let (ch, ct) = cc.split_at_mut(len);
            let (vh, vt) = vc.split_at_mut(len);
            any |= f(r, ch, vh);
            cc = ct;
            vc = vt;
        }
        any
    };
    if bounds.len() == 2 {
        let mut cs = cs;
        let mut vs = vs;
        return match (cs.pop(), vs.pop()) {
            (Some(c), Some(v)) => run(0, c, v),
            _ => false,
        };
    }
    cs.into_par_iter()
        .zip(vs)
        .enumerate()
        .map(|(k, (cc, vc))| run(k, cc, vc))
        .reduce(|| false, |a, b| a | b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_balances_entries_and_covers_all_rows() {
        // One heavy row among light ones.
        let mut lens = vec![1usize; 1000];
        lens[10] = 5000;
        let mut row_ptr = vec![0u32];
        for l in &lens {
            row_ptr.push(row_ptr.last().unwrap() + *l as u32);
        }
        let b = row_partition(&row_ptr, 8);
        assert_eq!(b[0], 0);
        assert_eq!(*b.last().unwrap(), 1000);
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        // The heavy row sits alone (or nearly) in its chunk: the chunk after it starts at 11.
        assert!(b.contains(&11), "{b:?}");
        // The light rows after it are spread over the remaining chunks.
        let light: Vec<_> = b.windows(2).filter(|w| w[0] >= 11).collect();
        assert!(light.len() >= 5, "{b:?}");
        for w in light {
            let weight = (row_ptr[w[1]] - row_ptr[w[0]]) as usize + (w[1] - w[0]);
            assert!(weight <= 2 * 1978 / 7 + 2, "{w:?} weight {weight}");
        }
    }

    #[test]
    fn partition_handles_empty_and_tiny_matrices() {
        assert_eq!(row_partition::<u32>(&[0], 4), vec![0, 0]);
        assert_eq!(row_partition::<u64>(&[0, 0, 0], 4), vec![0, 1, 2]);
        let mut data = [1, 2, 3];
        let parts = split_at_bounds(&mut data[..], &[0, 1, 3]);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1], &mut [2, 3][..]);
    }
}
