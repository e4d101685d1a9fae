//! The U(1) sector of a spin-½ chain: `L` sites, `K` of them up (hard-core bosons, at most one
//! per site), `S^z = K − L/2`.
//!
//! A state is an `L`-bit word `s`, bit `k` set when site `k` is up. The `D = C(L, K)` words of
//! popcount `K` are numbered in ascending numeric order, which is the *colexicographic* order
//! of their sets of up sites `c₁ < c₂ < … < c_K`, and the **combinatorial number system**
//! ranks them in closed form:
//!
//! ```text
//! rank(s) = Σ_{i=1}^{K} C(c_i, i)
//! ```
//!
//! (the words below `s` are those whose highest differing up site is lower: for each `i`,
//! `C(c_i, i)` counts the ways to place `i` ups below `c_i`). **Unranking** is greedy: for
//! `i = K, K−1, …, 1` take the largest `c` with `C(c, i) ≤ r` and subtract; the `c` decrease,
//! so one scan over the sites, `O(L)`. **Successor** in O(1): Gosper's hack on the word.
//!
//! **The flip-flop shift in O(1).** A flip-flop on bond `(j, j+1)` (`S⁺_j S⁻_{j+1}` or its
//! adjoint) moves one up spin between neighbouring sites. Let `p = popcount(s & (2ʲ − 1))` be
//! the ups below site `j`. If site `j` is up and `j + 1` down, the up at `j` is the
//! `(p+1)`-th, and after the move it sits at `j + 1`; every other term of the rank is unchanged,
//! so by Pascal's rule
//!
//! ```text
//! rank(s') − rank(s) = C(j+1, p+1) − C(j, p+1) = C(j, p)          (up moves j → j+1)
//! rank(s') − rank(s) = −C(j, p)                                   (up moves j+1 → j)
//! ```
//!
//! the second being the first read backwards. One popcount and one table look-up per bond. The
//! periodic bond `(L−1, 0)` changes the ordinal of every other up (the moved spin passes all
//! of them), so its column is re-ranked, `O(K)`.
//!
//! **Sizes.** Words are 64 bits, so `L ≤ 64`; every binomial `C(n, k)` with `n ≤ 64` is at
//! most `C(64, 32) ≈ 1.8·10¹⁸ < 2⁶⁴`, and the table is built with checked additions anyway
//! (an overflow would be a typed error, not a wrapped index).

use matexp_core::{Error, Result};

/// The most sites of a spin chain: states are 64-bit words.
pub const MAX_SPIN_SITES: u32 = 64;

/// `C(n, k)` exactly, or `None` past `u64::MAX` (128-bit intermediates).
///
/// ```
/// use matexp_fock::binomial;
/// assert_eq!(binomial(34, 17), Some(2_333_606_220));
/// assert_eq!(binomial(32, 16), Some(601_080_390));
/// assert_eq!(binomial(5, 7), Some(0));
/// assert_eq!(binomial(70, 35), None);
/// ```
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for j in 1..=k {
        // C(n−k+j, j) = C(n−k+j−1, j−1)·(n−k+j)/j exactly.
        c = c.checked_mul(u128::from(n - k + j))? / u128::from(j);
        if c > u128::from(u64::MAX) {
            return None;
        }
    }
    Some(c as u64)
}

/// The sector of `K` up spins on `L` sites (see the module documentation).
///
/// ```
/// use matexp_fock::SpinBasis;
/// let b = SpinBasis::new(4, 2)?;
/// assert_eq!(b.dim(), 6);
/// // numeric order: 0011, 0101, 0110, 1001, 1010, 1100
/// assert_eq!(b.rank(0b0110)?, 2);
/// assert_eq!(b.unrank(5)?, 0b1100);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpinBasis {
    sites: u32,
    ups: u32,
    dim: u64,
    /// `binom[n·(K+2) + k] = C(n, k)` for `n ∈ 0..=L`, `k ∈ 0..=K+1`.
    binom: Vec<u64>,
}

impl SpinBasis {
    /// The sector of `ups` up spins on `sites` sites.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `sites` outside `1..=64`, `ups > sites`, or a binomial
    /// that overflows 64 bits (none does for `L ≤ 64`; checked all the same).
    pub fn new(sites: u32, ups: u32) -> Result<Self> {
        if sites == 0 || sites > MAX_SPIN_SITES {
            return Err(Error::invalid(
                "sites",
                sites,
                format!("a spin chain has 1..={MAX_SPIN_SITES} sites (64-bit states)"),
            ));
        }
        if ups > sites {
            return Err(Error::invalid(
                "ups",
                ups,
                format!("at most {sites} of {sites} spins can be up"),
            ));
        }
        let cols = ups as usize + 2;
        let mut binom = vec![0u64; (sites as usize + 1) * cols];
        for n in 0..=sites as usize {
            for k in 0..cols {
                binom[n * cols + k] = match (n, k) {
                    (_, 0) => 1,
                    (0, _) => 0,
                    _ => binom[(n - 1) * cols + k - 1]
                        .checked_add(binom[(n - 1) * cols + k])
                        .ok_or_else(|| {
                            Error::invalid("sites", sites, format!("C({n}, {k}) overflows 64 bits"))
                        })?,
                };
            }
        }
        let dim = binom[sites as usize * cols + ups as usize];
        Ok(SpinBasis {
            sites,
            ups,
            dim,
            binom,
        })
    }

    /// The sector of total `S^z = sz` (`sz = ups − L/2`, a half-integer for odd `L` given as
    /// `2·S^z` in `two_sz`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `L + two_sz` is odd or out of `0..=2L`; as
    /// [`SpinBasis::new`].
    pub fn with_two_sz(sites: u32, two_sz: i64) -> Result<Self> {
        let twice_ups = i64::from(sites) + two_sz;
        if twice_ups < 0 || twice_ups > 2 * i64::from(sites) || twice_ups % 2 != 0 {
            return Err(Error::invalid(
                "two_sz",
                two_sz,
                format!("2·S^z must have the parity of L = {sites} and lie in −L..=L"),
            ));
        }
        Self::new(sites, (twice_ups / 2) as u32)
    }

    /// Number of sites `L`.
    pub fn sites(&self) -> u32 {
        self.sites
    }

    /// Number of up spins `K`.
    pub fn ups(&self) -> u32 {
        self.ups
    }

    /// Dimension `C(L, K)`.
    pub fn dim(&self) -> u64 {
        self.dim
    }

    /// The dimension as a vector length.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] where it does not fit in `usize`.
    pub fn len(&self) -> Result<usize> {
        usize::try_from(self.dim)
            .map_err(|_| Error::invalid("dim", self.dim, "does not fit in usize on this target"))
    }

    /// Whether the sector is empty (never: `C(L, K) ≥ 1` for `K ≤ L`).
    pub fn is_empty(&self) -> bool {
        self.dim == 0
    }

    /// The binomial table `C(n, k)`, row-major with `K + 2` columns (`n ∈ 0..=L`): what the
    /// GPU kernels upload.
    pub fn table(&self) -> &[u64] {
        &self.binom
    }

    /// `C(n, k)` for `n ≤ L`, `k ≤ K + 1`.
    #[inline]
    pub fn c(&self, n: u32, k: u32) -> u64 {
        self.binom[n as usize * (self.ups as usize + 2) + k as usize]
    }

    /// The index of the word `s`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `s` has bits at or above site `L` or a popcount other
    /// than `K`.
    pub fn rank(&self, s: u64) -> Result<u64> {
        if self.sites < 64 && s >> self.sites != 0 {
            return Err(Error::invalid(
                "s",
                format!("{s:#b}"),
                format!("the chain has {} sites", self.sites),
            ));
        }
        if s.count_ones() != self.ups {
            return Err(Error::invalid(
                "s",
                format!("{s:#b}"),
                format!("has {} up spins, the sector {}", s.count_ones(), self.ups),
            ));
        }
        Ok(self.rank_unchecked(s))
    }

    /// [`SpinBasis::rank`] without the checks. Cost `K` look-ups.
    #[inline]
    pub fn rank_unchecked(&self, mut s: u64) -> u64 {
        let mut idx = 0;
        let mut i = 1;
        while s != 0 {
            idx += self.c(s.trailing_zeros(), i);
            s &= s - 1;
            i += 1;
        }
        idx
    }

    /// The word of state `index`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `index ≥ D`.
    pub fn unrank(&self, index: u64) -> Result<u64> {
        if index >= self.dim {
            return Err(Error::invalid(
                "index",
                index,
                format!("the sector has {} states", self.dim),
            ));
        }
        Ok(self.unrank_unchecked(index))
    }

    /// [`SpinBasis::unrank`] without the checks. Cost `O(L)`.
    #[inline]
    pub fn unrank_unchecked(&self, mut r: u64) -> u64 {
        let mut s = 0u64;
        let mut c = self.sites;
        for i in (1..=self.ups).rev() {
            // The largest c with C(c, i) ≤ r; c ≥ i − 1 always qualifies (C(i−1, i) = 0).
            c -= 1;
            while self.c(c, i) > r {
                c -= 1;
            }
            r -= self.c(c, i);
            s |= 1u64 << c;
        }
        s
    }

    /// The next word of the same popcount in numeric order (Gosper's hack), for a word that
    /// is not the last state. O(1).
    #[inline]
    pub fn next_state(s: u64) -> u64 {
        if s == 0 {
            return 0;
        }
        let t = s | (s - 1);
        let low = (!t & t.wrapping_add(1)).wrapping_sub(1);
        t.wrapping_add(1) | (low >> (s.trailing_zeros() + 1))
    }

    /// The index shift of a flip-flop on bond `(j, j+1)` of word `s` (bits `j` and `j+1`
    /// differ): `+C(j, p)` when the up at `j` moves right, `−C(j, p)` when the up at `j+1` moves
    /// left, with `p` the ups below `j` (module documentation). `None` when the bits agree.
    #[inline]
    pub fn flip_shift(&self, s: u64, j: u32) -> Option<i128> {
        let (a, b) = ((s >> j) & 1, (s >> (j + 1)) & 1);
        if a == b {
            return None;
        }
        let p = (s & ((1u64 << j) - 1)).count_ones();
        let d = i128::from(self.c(j, p));
        Some(if a == 1 { d } else { -d })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_match_pascal_and_the_closed_form() {
        let b = SpinBasis::new(12, 5).unwrap();
        for n in 0..=12u32 {
            for k in 0..=6u32 {
                assert_eq!(b.c(n, k), binomial(n.into(), k.into()).unwrap());
            }
        }
        assert_eq!(
            SpinBasis::new(64, 32).unwrap().dim(),
            1_832_624_140_942_590_534
        );
        assert_eq!(binomial(64, 32), Some(1_832_624_140_942_590_534));
    }

    #[test]
    fn bad_sizes_are_typed_errors() {
        assert!(SpinBasis::new(0, 0).is_err());
        assert!(SpinBasis::new(65, 1).is_err());
        assert!(SpinBasis::new(4, 5).is_err());
        assert!(SpinBasis::with_two_sz(5, 0).is_err());
        assert_eq!(SpinBasis::with_two_sz(34, 0).unwrap().dim(), 2_333_606_220);
        let b = SpinBasis::new(4, 2).unwrap();
        assert!(b.rank(0b111).is_err());
        assert!(b.rank(0b10001).is_err());
        assert!(b.unrank(6).is_err());
    }

    #[test]
    fn the_order_is_numeric_and_the_successor_follows_it() {
        for (l, k) in [(6, 3), (7, 0), (7, 7), (9, 4), (64, 1)] {
            let b = SpinBasis::new(l, k).unwrap();
            let mut s = b.unrank(0).unwrap();
            assert_eq!(s, (1u64 << k) - 1);
            for i in 0..b.dim().min(5000) {
                assert_eq!(b.rank(s).unwrap(), i);
                if i + 1 < b.dim() {
                    let t = SpinBasis::next_state(s);
                    assert!(t > s && t.count_ones() == k);
                    s = t;
                }
            }
        }
    }
}
