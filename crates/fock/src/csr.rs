//! Assembly of `H(t)` as a CSR matrix: the stored-matrix comparison of the seed's benchmarks
//! (cuSPARSE and the library's own SpMV against the matrix-free product).
//!
//! Each row holds the diagonal and one entry per possible hop, at most `1 + 2·bonds`
//! (15 for `M = 8`); columns are sorted. Memory: `nnz·(sizeof(S) + sizeof(I)) + (D+1)·sizeof(I)`
//! against the matrix-free product's `O(N·M)` tables.

use crate::FockBasis;
use crate::apply::BLOCK;
use crate::model::{BoseHubbard, Boundary};
use matexp_core::{Result, Scalar};
use matexp_sparse::{CsrIndex, CsrMatrix};
use rayon::prelude::*;

/// Row lengths and `(column, value)` entries of a block of consecutive rows.
type RowBlock<S> = (Vec<usize>, Vec<(usize, S)>);

impl BoseHubbard {
    /// `H(t)` as a canonical CSR matrix with indices `I`. Entries that vanish because a
    /// coupling is zero are kept (the pattern does not depend on `t`). Cost `O(D·M)`,
    /// parallel.
    ///
    /// # Errors
    /// [`matexp_core::Error::NonFinite`] for couplings that are not finite at `t`, and
    /// [`matexp_core::Error::InvalidArgument`] when `D` or the number of entries does not fit in `I`.
    ///
    /// ```
    /// use matexp_fock::{BoseHubbard, Coupling, FockBasis};
    /// let h = BoseHubbard::new(FockBasis::new(2, 3)?).with_hopping(Coupling::Uniform(1.0))?;
    /// let a = h.to_csr::<f64, u32>(0.0)?;
    /// assert_eq!(a.nrows(), 6);
    /// assert!(a.is_symmetric());
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    pub fn to_csr<S: Scalar, I: CsrIndex>(&self, t: f64) -> Result<CsrMatrix<S, I>> {
        let c = self.coefficients_at(t)?;
        let basis = self.basis();
        let dim = basis.len()?;
        I::narrow_checked(dim, "Bose–Hubbard CSR dimension")?;
        let m = basis.sites() as usize;
        let periodic = self.boundary() == Boundary::Periodic;
        let sq = self.sqrt_table();
        let blocks: Vec<RowBlock<S>> = (0..dim.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let start = b * BLOCK;
                let end = (start + BLOCK).min(dim);
                let mut occ = vec![0u32; m];
                let mut hopped = vec![0u32; m];
                let mut lens = Vec::with_capacity(end - start);
                let mut entries = Vec::with_capacity((end - start) * (1 + 2 * m));
                basis.unrank_unchecked(start as u64, &mut occ);
                for i in start..end {
                    if i > start {
                        FockBasis::next_state(&mut occ);
                    }
                    let before = entries.len();
                    let mut diag = 0.0;
                    for k in 0..m {
                        let nk = f64::from(occ[k]);
                        diag += c.potential[k] * nk + 0.5 * c.interaction[k] * nk * (nk - 1.0);
                    }
                    entries.push((i, S::from_f64(diag)));
                    let bonds = if periodic { m } else { m - 1 };
                    for k in 0..bonds {
                        let l = (k + 1) % m;
                        for (from, to) in [(k, l), (l, k)] {
                            if occ[from] == 0 {
                                continue;
                            }
                            hopped.copy_from_slice(&occ);
                            hopped[from] -= 1;
                            hopped[to] += 1;
                            let j = basis.rank_unchecked(&hopped) as usize;
                            let amp =
                                -c.hopping[k] * (sq[occ[to] as usize + 1] * sq[occ[from] as usize]);
                            entries.push((j, S::from_f64(amp)));
                        }
                    }
                    entries[before..].sort_unstable_by_key(|e| e.0);
                    lens.push(entries.len() - before);
                }
                (lens, entries)
            })
            .collect();
        let nnz: usize = blocks.iter().map(|b| b.1.len()).sum();
        I::narrow_checked(nnz, "Bose–Hubbard CSR entries")?;
        let mut row_ptr = Vec::with_capacity(dim + 1);
        let mut col_idx = Vec::with_capacity(nnz);
        let mut values = Vec::with_capacity(nnz);
        row_ptr.push(I::narrow(0));
        let mut acc = 0usize;
        for (lens, entries) in blocks {
            for l in lens {
                acc += l;
                row_ptr.push(I::narrow(acc));
            }
            for (j, v) in entries {
                col_idx.push(I::narrow(j));
                values.push(v);
            }
        }
        CsrMatrix::try_new_canonical(dim, dim, row_ptr, col_idx, values)
    }
}
