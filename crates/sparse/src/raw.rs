//! Algorithms on raw CSR arrays shared by [`crate::PatternCsr`] and [`crate::CsrMatrix`]:
//! validation, canonicalization, transposition and assembly from coordinates.

use crate::CsrIndex;
use matexp_core::{Error, Result, memory};
use rayon::prelude::*;

/// Checks the CSR invariants, the single definition of a valid CSR structure in matexp (the
/// GPU uploads call it too): `row_ptr` has `nrows + 1` non-decreasing entries from 0 to
/// `col_idx.len()`, every column index is below `ncols`, and `nrows`, `ncols` fit `I`.
/// Returns whether every row is strictly increasing (canonical). O(nnz), parallel for large
/// inputs.
///
/// # Errors
/// [`Error::DimensionMismatch`] or [`Error::InvalidArgument`] naming the first violation.
///
/// ```
/// use matexp_sparse::validate_csr;
/// assert!(validate_csr(2, 2, &[0u32, 1, 2], &[0, 1]).unwrap());
/// assert!(validate_csr(2, 2, &[0u32, 2, 1], &[0]).is_err());
/// ```
pub fn validate<I: CsrIndex>(
    nrows: usize,
    ncols: usize,
    row_ptr: &[I],
    col_idx: &[I],
) -> Result<bool> {
    I::narrow_checked(nrows, "nrows")?;
    I::narrow_checked(ncols, "ncols")?;
    // `nrows + 1` wraps for nrows = usize::MAX (64-bit indices accept it).
    let ptr_len = nrows
        .checked_add(1)
        .ok_or_else(|| Error::invalid("nrows", nrows, "nrows + 1 row pointers overflow usize"))?;
    if row_ptr.len() != ptr_len {
        return Err(Error::dim(
            "CSR row_ptr length (nrows + 1)",
            ptr_len,
            row_ptr.len(),
        ));
    }
    if row_ptr[0].as_usize() != 0 {
        return Err(Error::invalid("row_ptr[0]", row_ptr[0], "must be 0"));
    }
    if let Some(r) = row_ptr.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::invalid(
            "row_ptr",
            format!(
                "row_ptr[{}] = {} > row_ptr[{}] = {}",
                r,
                row_ptr[r],
                r + 1,
                row_ptr[r + 1]
            ),
            "row pointers must be non-decreasing",
        ));
    }
    if row_ptr[nrows].as_usize() != col_idx.len() {
        return Err(Error::dim(
            "CSR col_idx length (row_ptr[nrows])",
            row_ptr[nrows].as_usize(),
            col_idx.len(),
        ));
    }
    // One parallel pass: range check and sortedness together.
    let check_row = |r: usize| -> Result<bool> {
        let cols = &col_idx[row_ptr[r].as_usize()..row_ptr[r + 1].as_usize()];
        if let Some(c) = cols.iter().find(|c| c.as_usize() >= ncols) {
            return Err(Error::invalid(
                "col_idx",
                format!("{c} in row {r}"),
                format!("column index out of range 0..{ncols}"),
            ));
        }
        Ok(cols.windows(2).all(|w| w[0] < w[1]))
    };
    if col_idx.len() + nrows < crate::parallel::SERIAL_WORK {
        (0..nrows).map(check_row).try_fold(true, |a, b| Ok(a & b?))
    } else {
        (0..nrows)
            .into_par_iter()
            .with_min_len(1024)
            .map(check_row)
            .try_reduce(|| true, |a, b| Ok(a & b))
    }
}

/// Brings CSR arrays to canonical form in place: each row sorted by column (stable, so
/// repeated entries keep their input order) and repeated columns combined with `merge`.
/// Sorting runs over rows in parallel and skips rows already strictly increasing; the
/// compaction of repeats is one serial pass, run only if some row has repeats.
/// O(nnz log d) time, O(max row length) extra memory per thread.
pub(crate) fn canonicalize_in_place<I, V, M>(
    row_ptr: &mut [I],
    cols: &mut Vec<I>,
    vals: &mut Vec<V>,
    merge: M,
) where
    I: CsrIndex,
    V: Copy + Send + Sync,
    M: Fn(V, V) -> V,
{
    let repeats = crate::parallel::for_each_row_mut(row_ptr, cols, vals, |_, c, v| {
        if c.windows(2).all(|w| w[0] < w[1]) {
            return false;
        }
        if size_of::<V>() == 0 {
            // Patterns: nothing travels with the columns.
            c.sort_unstable();
        } else if c.len() <= 32 {
            // Short rows (the common case): stable insertion sort in place, no allocation.
            for k in 1..c.len() {
                let (ck, vk) = (c[k], v[k]);
                let mut j = k;
                while j > 0 && c[j - 1] > ck {
                    c[j] = c[j - 1];
                    v[j] = v[j - 1];
                    j -= 1;
                }
                c[j] = ck;
                v[j] = vk;
            }
        } else {
            let mut pairs: Vec<(I, V)> = c.iter().copied().zip(v.iter().copied()).collect();
            pairs.sort_by_key(|p| p.0);
            for (k, (pc, pv)) in pairs.into_iter().enumerate() {
                c[k] = pc;
                v[k] = pv;
            }
        }
        c.windows(2).any(|w| w[0] == w[1])
    });
    if !repeats {
        return;
    }
    let nrows = row_ptr.len() - 1;
    let mut w = 0usize;
    let mut start = 0usize;
    for r in 0..nrows {
        let end = row_ptr[r + 1].as_usize();
        let row_start = w;
        for k in start..end {
            if w > row_start && cols[w - 1] == cols[k] {
                vals[w - 1] = merge(vals[w - 1], vals[k]);
            } else {
                cols[w] = cols[k];
                vals[w] = vals[k];
                w += 1;
            }
        }
        start = end;
        row_ptr[r + 1] = I::narrow(w);
    }
    cols.truncate(w);
    vals.truncate(w);
}

/// Transposes a CSR structure with payload by a counting sort over columns, O(nnz + ncols).
/// Rows of the result come out sorted when the input rows are visited in order, which they
/// are: entry (i, j) lands in row j after every (i', j) with i' < i.
pub(crate) fn transpose_raw<I, V, F>(
    nrows: usize,
    ncols: usize,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[V],
    map: F,
) -> (Vec<I>, Vec<I>, Vec<V>)
where
    I: CsrIndex,
    V: Copy + Default,
    F: Fn(V) -> V,
{
    let nnz = col_idx.len();
    let mut counts = vec![0usize; ncols + 1];
    for c in col_idx {
        counts[c.as_usize() + 1] += 1;
    }
    for j in 0..ncols {
        counts[j + 1] += counts[j];
    }
    let t_ptr: Vec<I> = counts.iter().map(|&c| I::narrow(c)).collect();
    let mut next = counts;
    let mut t_cols = vec![I::narrow(0); nnz];
    let mut t_vals = vec![V::default(); nnz];
    for i in 0..nrows {
        for k in row_ptr[i].as_usize()..row_ptr[i + 1].as_usize() {
            let j = col_idx[k].as_usize();
            let dst = next[j];
            next[j] += 1;
            t_cols[dst] = I::narrow(i);
            t_vals[dst] = map(vals[k]);
        }
    }
    (t_ptr, t_cols, t_vals)
}

/// Whether every row of a CSR structure is strictly increasing. O(nnz), serial.
pub(crate) fn rows_strictly_increasing<I: CsrIndex>(row_ptr: &[I], col_idx: &[I]) -> bool {
    row_ptr.windows(2).all(|w| {
        col_idx[w[0].as_usize()..w[1].as_usize()]
            .windows(2)
            .all(|c| c[0] < c[1])
    })
}

/// Counting sort of coordinates by row, stable within rows. O(nnz + nrows), serial.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if `nrows + 1` overflows or the row pointers cannot be
/// allocated.
pub(crate) fn coo_to_csr<I: CsrIndex, V: Copy + Default>(
    nrows: usize,
    rows: &[I],
    cols: &[I],
    vals: &[V],
) -> Result<(Vec<I>, Vec<I>, Vec<V>)> {
    let nnz = rows.len();
    let ptr_len = nrows
        .checked_add(1)
        .ok_or_else(|| Error::invalid("nrows", nrows, "nrows + 1 row pointers overflow usize"))?;
    let mut next = memory::try_filled(ptr_len, 0usize, "nrows + 1 (row pointers)")?;
    for r in rows {
        next[r.as_usize() + 1] += 1;
    }
    for i in 0..nrows {
        next[i + 1] += next[i];
    }
    let mut row_ptr: Vec<I> =
        memory::try_filled(ptr_len, I::narrow(0), "nrows + 1 (row pointers)")?;
    for (p, &c) in row_ptr.iter_mut().zip(&next) {
        *p = I::narrow(c);
    }
    let mut col_idx = memory::try_filled(nnz, I::narrow(0), "column indices")?;
    let mut out = memory::try_filled(nnz, V::default(), "values")?;
    for k in 0..nnz {
        let r = rows[k].as_usize();
        let dst = next[r];
        next[r] += 1;
        col_idx[dst] = cols[k];
        out[dst] = vals[k];
    }
    Ok((row_ptr, col_idx, out))
}
