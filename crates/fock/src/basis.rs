//! The Fock basis of `N` bosons on `M` sites in lexicographic order.
//!
//! A basis state is an occupation tuple `(n_0, …, n_{M−1})` with `Σ n_k = N`. States are
//! numbered from 0 in ascending lexicographic order of their tuples, so
//! `(0, …, 0, N)` has index 0 and `(N, 0, …, 0)` has index `D − 1`, where
//!
//! ```text
//! D(N, M) = C(N + M − 1, M − 1)
//! ```
//!
//! is the number of ways to put `N` indistinguishable particles on `M` sites.
//!
//! **Ranking** (closed form, the combinatorial number system): the states that precede
//! `(n_0, …)` are those with a smaller first occupation — `Σ_{j<n_0} D(N − j, M − 1)` of them —
//! and recursively on the tail. With `R_k = N − Σ_{l<k} n_l` the particles left for sites
//! `k…M−1`, the hockey-stick identity sums each inner series in closed form:
//!
//! ```text
//! rank(n) = Σ_{k=0}^{M−2} Σ_{j<n_k} D(R_k − j, M−k−1) = Σ_{k=0}^{M−2} [D(R_k, M−k) − D(R_{k+1}, M−k)]
//! ```
//!
//! so a rank costs `2(M − 1)` table look-ups. **Unranking** inverts it site by site; each
//! site's occupation is found by a short scan (`O(N + M)` per state in total).
//!
//! **Hops in O(1)** (the Δ table): moving one particle between neighbouring sites changes the
//! index by a single table entry. With `r` the particles on sites `m+1…M−1` *before* the hop
//! and `s = M − m` the sites from `m` on,
//!
//! ```text
//! hop m → m+1:  index − Δ(r, s),      hop m+1 → m:  index + Δ(r − 1, s),      Δ(r, s) = D(r, s − 1)
//! ```
//!
//! (proof: only the terms of sites `m` and `m+1` change, and Pascal's rule
//! `D(r+1, s) − D(r+1, s−1) = D(r, s)` collapses their difference).
//!
//! Indices are `u64` throughout: `D(N, M)` passes `2³²` already at `M = 6, N = 255`.
//! [`FockBasis::new`] rejects a basis whose dimension does not fit (typed error) and every
//! entry of the tables is then representable, because all of them are at most `D(N, M)`.

use matexp_core::{Error, Result, try_filled};

/// The dimension `D(n, m) = C(n + m − 1, m − 1)` of the space of `n` bosons on `m` sites, or
/// `None` when it exceeds `u64::MAX`.
///
/// `D(n, 0)` is 1 for `n = 0` (the empty configuration) and 0 otherwise. Cost `O(min(n, m))`
/// multiplications in 128-bit integers, exact.
///
/// ```
/// use matexp_fock::dimension;
/// assert_eq!(dimension(2, 3), Some(6));
/// assert_eq!(dimension(50, 8), Some(264_385_836));
/// assert_eq!(dimension(255, 6), Some(9_525_431_552));
/// assert_eq!(dimension(10_000, 100), None);
/// ```
pub fn dimension(n: u64, m: u64) -> Option<u64> {
    if m == 0 {
        return Some(u64::from(n == 0));
    }
    // C(n + m − 1, k) with k = min(n, m − 1); each partial product C(n_k, j) is an integer,
    // so the exact division keeps the running value ≤ the final binomial times j.
    let top = n.checked_add(m - 1)?;
    let k = n.min(m - 1);
    let mut c: u128 = 1;
    for j in 1..=k {
        let num = u128::from(top - k + j);
        c = c.checked_mul(num)? / u128::from(j);
        if c > u128::from(u64::MAX) {
            return None;
        }
    }
    Some(c as u64)
}

/// The most sites a basis may have: occupation buffers live on the stack in the kernels.
pub const MAX_SITES: usize = 64;

/// The most entries of a basis' table of dimensions, (N + 1)·(M + 1) (8 GiB): with few sites
/// a huge N has a small dimension (one state for M = 1) but a table of N + 1 rows.
pub const MAX_TABLE_ENTRIES: usize = 1 << 30;

/// The Fock basis of `N` bosons on `M` sites (`M ≥ 1`), with the table of dimensions that
/// makes ranking, unranking and hops cheap.
///
/// ```
/// use matexp_fock::FockBasis;
/// let b = FockBasis::new(2, 3)?;
/// assert_eq!(b.dim(), 6);
/// // lexicographic order: (0,0,2), (0,1,1), (0,2,0), (1,0,1), (1,1,0), (2,0,0)
/// assert_eq!(b.rank(&[1, 0, 1])?, 3);
/// let mut occ = [0u32; 3];
/// b.unrank(5, &mut occ)?;
/// assert_eq!(occ, [2, 0, 0]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FockBasis {
    n: u32,
    m: u32,
    dim: u64,
    /// `table[r·(M+1) + s] = D(r, s)` for `r ∈ 0..=N`, `s ∈ 0..=M`.
    table: Vec<u64>,
}

impl FockBasis {
    /// The basis of `n` bosons on `m` sites.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `m` is 0 or exceeds [`MAX_SITES`], when `D(n, m)`
    /// does not fit in 64 bits, or when the table of (n + 1)·(m + 1) dimensions exceeds
    /// [`MAX_TABLE_ENTRIES`] or cannot be allocated (the message gives `n` and `m`).
    pub fn new(n: u32, m: u32) -> Result<Self> {
        if m == 0 || m as usize > MAX_SITES {
            return Err(Error::invalid(
                "m",
                m,
                format!("the number of sites must lie in 1..={MAX_SITES}"),
            ));
        }
        let dim = dimension(u64::from(n), u64::from(m)).ok_or_else(|| {
            Error::invalid(
                "n",
                n,
                format!("the dimension C(n + m − 1, m − 1) of {n} bosons on {m} sites exceeds 2⁶⁴"),
            )
        })?;
        let (rows, cols) = (n as usize + 1, m as usize + 1);
        let entries = rows
            .checked_mul(cols)
            .filter(|&e| e <= MAX_TABLE_ENTRIES)
            .ok_or_else(|| {
                Error::invalid(
                    "n",
                    n,
                    format!(
                        "the table of dimensions of {n} bosons on {m} sites has (n + 1)·(m + 1) \
                         entries, beyond {MAX_TABLE_ENTRIES}"
                    ),
                )
            })?;
        let mut table = try_filled(entries, 0u64, "(n + 1)·(m + 1) (Fock table)")?;
        // Pascal's rule D(r, s) = D(r, s−1) + D(r−1, s); every entry is ≤ D(n, m), so the
        // additions cannot overflow once D(n, m) fits.
        for r in 0..rows {
            for s in 0..cols {
                table[r * cols + s] = match (r, s) {
                    (0, _) => 1,
                    (_, 0) => 0,
                    _ => table[r * cols + s - 1] + table[(r - 1) * cols + s],
                };
            }
        }
        // D(0, 0) = 1 by convention; D(0, s) = 1 for every s.
        Ok(FockBasis { n, m, dim, table })
    }

    /// Number of particles `N`.
    pub fn particles(&self) -> u32 {
        self.n
    }

    /// Number of sites `M`.
    pub fn sites(&self) -> u32 {
        self.m
    }

    /// Dimension `D(N, M)`.
    pub fn dim(&self) -> u64 {
        self.dim
    }

    /// The dimension as a `usize` (vector length).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on targets where it does not fit.
    pub fn len(&self) -> Result<usize> {
        usize::try_from(self.dim)
            .map_err(|_| Error::invalid("dim", self.dim, "does not fit in usize on this target"))
    }

    /// Whether the basis is empty (never: `D ≥ 1` for `M ≥ 1`).
    pub fn is_empty(&self) -> bool {
        self.dim == 0
    }

    /// `D(r, s)` for `r ≤ N`, `s ≤ M` (0 for `r < 0`).
    #[inline]
    pub fn d(&self, r: i64, s: usize) -> u64 {
        if r < 0 {
            0
        } else {
            self.table[r as usize * (self.m as usize + 1) + s]
        }
    }

    /// The table of `D(r, s)`, row-major with `M + 1` columns: what the GPU kernels upload.
    pub fn table(&self) -> &[u64] {
        &self.table
    }

    /// `Δ(r, s) = D(r, s − 1)`: the index shift of a hop (see the module documentation);
    /// `r ∈ 0..=N`, `s ∈ 2..=M`.
    #[inline]
    pub fn delta(&self, r: u32, s: usize) -> u64 {
        self.table[r as usize * (self.m as usize + 1) + s - 1]
    }

    /// The index of the state with occupations `occ` (`occ.len() == M`, `Σ occ = N`).
    /// Cost `2(M − 1)` look-ups.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length, [`Error::InvalidArgument`] when the
    /// occupations do not sum to `N`.
    pub fn rank(&self, occ: &[u32]) -> Result<u64> {
        matexp_core::check_dim("FockBasis::rank: occupations", self.m as usize, occ.len())?;
        let total: u64 = occ.iter().map(|&x| u64::from(x)).sum();
        if total != u64::from(self.n) {
            return Err(Error::invalid(
                "occ",
                format!("{occ:?}"),
                format!("occupations sum to {total}, not N = {}", self.n),
            ));
        }
        Ok(self.rank_unchecked(occ))
    }

    /// [`FockBasis::rank`] without the checks (the caller guarantees a valid state).
    #[inline]
    pub fn rank_unchecked(&self, occ: &[u32]) -> u64 {
        let m = self.m as usize;
        let mut r = i64::from(self.n);
        let mut idx = 0u64;
        for k in 0..m - 1 {
            let next = r - i64::from(occ[k]);
            idx += self.d(r, m - k) - self.d(next, m - k);
            r = next;
        }
        idx
    }

    /// The occupations of state `index`, written to `occ` (`occ.len() == M`).
    /// Cost `O(N + M)` look-ups.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length, [`Error::InvalidArgument`] for
    /// `index ≥ D`.
    pub fn unrank(&self, index: u64, occ: &mut [u32]) -> Result<()> {
        matexp_core::check_dim("FockBasis::unrank: occupations", self.m as usize, occ.len())?;
        if index >= self.dim {
            return Err(Error::invalid(
                "index",
                index,
                format!("the basis has {} states", self.dim),
            ));
        }
        self.unrank_unchecked(index, occ);
        Ok(())
    }

    /// [`FockBasis::unrank`] without the checks.
    #[inline]
    pub fn unrank_unchecked(&self, mut index: u64, occ: &mut [u32]) {
        let m = self.m as usize;
        let mut rem = i64::from(self.n);
        for k in 0..m - 1 {
            // The states whose site k holds x particles form a block of D(rem − x, M−k−1).
            let mut x = 0i64;
            loop {
                let block = self.d(rem - x, m - k - 1);
                if index < block {
                    break;
                }
                index -= block;
                x += 1;
            }
            occ[k] = x as u32;
            rem -= x;
        }
        occ[m - 1] = rem as u32;
    }

    /// Advances `occ` to the next state in lexicographic order; returns `false` (leaving
    /// `occ` unchanged) at the last state, and for no sites at all (the empty tuple is its
    /// own only state). Amortised O(1), worst case O(M): the kernels unrank the first row of
    /// a block and step through the rest.
    #[inline]
    pub fn next_state(occ: &mut [u32]) -> bool {
        let m = occ.len();
        if m == 0 {
            return false;
        }
        // The last site that can take a particle from its right.
        let mut right = occ[m - 1];
        let mut k = m - 1;
        while k > 0 {
            k -= 1;
            if right > 0 {
                occ[k] += 1;
                for o in &mut occ[k + 1..m - 1] {
                    *o = 0;
                }
                occ[m - 1] = right - 1;
                return true;
            }
            right += occ[k];
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_of_the_notes() {
        for (n, d) in [
            (10, 19_448),
            (20, 888_030),
            (30, 10_295_472),
            (40, 62_891_499),
            (50, 264_385_836),
        ] {
            assert_eq!(dimension(n, 8), Some(d));
        }
        assert_eq!(dimension(255, 4), Some(2_829_056));
        assert_eq!(dimension(255, 5), Some(183_181_376));
        assert_eq!(dimension(19, 4), Some(1540));
        assert_eq!(dimension(190, 4), Some(1_179_616));
        assert_eq!(dimension(0, 5), Some(1));
        assert_eq!(dimension(7, 1), Some(1));
        assert_eq!(dimension(0, 0), Some(1));
        assert_eq!(dimension(3, 0), Some(0));
    }

    #[test]
    fn overflow_is_detected_exactly_at_the_boundary() {
        // C(67, 33) < 2⁶⁴ < C(68, 34): 34 bosons on 35 sites fit, 35 on 35 do not.
        assert_eq!(dimension(33, 35), Some(14_226_520_737_620_288_370));
        assert_eq!(dimension(34, 35), None);
        assert!(FockBasis::new(34, 35).is_err());
        assert!(FockBasis::new(33, 35).is_ok());
        assert!(FockBasis::new(1, 0).is_err());
        assert!(FockBasis::new(1, 65).is_err());
        assert_eq!(dimension(u64::MAX, 2), None);
    }

    #[test]
    fn table_agrees_with_the_closed_form() {
        let b = FockBasis::new(9, 6).unwrap();
        for r in 0..=9 {
            for s in 0..=6usize {
                assert_eq!(
                    b.d(r, s),
                    dimension(r as u64, s as u64).unwrap(),
                    "D({r},{s})"
                );
            }
        }
    }

    #[test]
    fn rank_rejects_invalid_states() {
        let b = FockBasis::new(2, 3).unwrap();
        assert!(b.rank(&[1, 1]).is_err());
        assert!(b.rank(&[1, 1, 1]).is_err());
        let mut occ = [0; 3];
        assert!(b.unrank(6, &mut occ).is_err());
    }

    #[test]
    fn the_thesis_example_order() {
        let b = FockBasis::new(2, 3).unwrap();
        let order = [
            [0, 0, 2],
            [0, 1, 1],
            [0, 2, 0],
            [1, 0, 1],
            [1, 1, 0],
            [2, 0, 0],
        ];
        for (i, s) in order.iter().enumerate() {
            assert_eq!(b.rank(s).unwrap(), i as u64);
        }
    }
}
