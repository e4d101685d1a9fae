//! Occupations of every basis state, bit-packed: the state table of the seed's GPU kernel
//! and the sorted keys of a binary-search lookup.
//!
//! Each state is one or more 64-bit words holding its occupations at 4 bits per site
//! (`N ≤ 15`) or 8 bits per site (`N ≤ 255`), site 0 in the most significant bits of the first
//! word. With that layout the lexicographic order of the states is the numeric order of their
//! keys, so the table is sorted and a state can be found by binary search (Zhang & Dong's
//! lookup, the alternative the seed measures against its Δ method).
//!
//! Memory: `D · words · 8` bytes; for `M = 8` one word per state (4.2 GB would be the complex
//! state vector at `N = 50`, the table is 2.1 GB).

use crate::FockBasis;
use matexp_core::{Error, Result};
use rayon::prelude::*;

/// Bits per site of a packed table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackBits {
    /// 4 bits per site: up to 15 particles.
    Four = 4,
    /// 8 bits per site: up to 255 particles.
    Eight = 8,
}

impl PackBits {
    /// The narrowest width holding `n` particles per site.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `n > 255`.
    pub fn for_particles(n: u32) -> Result<Self> {
        match n {
            0..=15 => Ok(PackBits::Four),
            16..=255 => Ok(PackBits::Eight),
            _ => Err(Error::invalid(
                "n",
                n,
                "packed occupations hold at most 255 particles per site",
            )),
        }
    }

    /// Bits per site.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// Sites per 64-bit word.
    pub fn sites_per_word(self) -> usize {
        64 / self as usize
    }
}

/// The occupations of all `D` states in index order, packed.
///
/// ```
/// use matexp_fock::{FockBasis, PackedStates};
/// let b = FockBasis::new(2, 3)?;
/// let p = PackedStates::new(&b)?;
/// let mut occ = [0u32; 3];
/// p.occupations(3, &mut occ);
/// assert_eq!(occ, [1, 0, 1]);
/// assert_eq!(p.find(&[1, 0, 1]), Some(3));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PackedStates {
    bits: PackBits,
    sites: usize,
    words: usize,
    data: Vec<u64>,
}

impl PackedStates {
    /// The packed table of `basis`, at the narrowest width. Cost `O(D·M)`, parallel.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `N > 255` or a table beyond the address space.
    pub fn new(basis: &FockBasis) -> Result<Self> {
        Self::with_bits(basis, PackBits::for_particles(basis.particles())?)
    }

    /// The packed table at a given width.
    ///
    /// # Errors
    /// As [`PackedStates::new`], and when `N` does not fit in `bits`.
    pub fn with_bits(basis: &FockBasis, bits: PackBits) -> Result<Self> {
        let n = basis.particles();
        if n >= 1 << bits.bits() {
            return Err(Error::invalid(
                "bits",
                bits.bits(),
                format!("{n} particles do not fit in {} bits per site", bits.bits()),
            ));
        }
        let sites = basis.sites() as usize;
        let words = sites.div_ceil(bits.sites_per_word());
        let dim = basis.len()?;
        let total = dim.checked_mul(words).ok_or_else(|| {
            Error::invalid("dim", dim, "the packed table exceeds the address space")
        })?;
        let mut data = vec![0u64; total];
        const BLOCK: usize = 1 << 12;
        data.par_chunks_mut(BLOCK * words)
            .enumerate()
            .for_each(|(b, chunk)| {
                let mut occ = vec![0u32; sites];
                basis.unrank_unchecked((b * BLOCK) as u64, &mut occ);
                for (j, key) in chunk.chunks_mut(words).enumerate() {
                    if j > 0 {
                        FockBasis::next_state(&mut occ);
                    }
                    pack_into(&occ, bits, key);
                }
            });
        Ok(PackedStates {
            bits,
            sites,
            words,
            data,
        })
    }

    /// Bits per site.
    pub fn bits(&self) -> PackBits {
        self.bits
    }

    /// 64-bit words per state.
    pub fn words_per_state(&self) -> usize {
        self.words
    }

    /// The packed words, `words_per_state()` per state in index order.
    pub fn words(&self) -> &[u64] {
        &self.data
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.data.len() * 8
    }

    /// Unpacks state `index` into `occ` (`occ.len() == M`; panics on a wrong length or an
    /// index out of range, as slice indexing does).
    pub fn occupations(&self, index: usize, occ: &mut [u32]) {
        let key = &self.data[index * self.words..(index + 1) * self.words];
        unpack(key, self.bits, occ);
    }

    /// The index of the state with occupations `occ`, by binary search over the sorted keys
    /// (`O(log D)`), or `None` if it is not a state of the basis.
    pub fn find(&self, occ: &[u32]) -> Option<u64> {
        if occ.len() != self.sites || occ.iter().any(|&x| x >= 1 << self.bits.bits()) {
            return None;
        }
        let mut key = vec![0u64; self.words];
        pack_into(occ, self.bits, &mut key);
        let (mut lo, mut hi) = (0usize, self.data.len() / self.words);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let probe = &self.data[mid * self.words..(mid + 1) * self.words];
            match probe.cmp(&key[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u64),
            }
        }
        None
    }
}

/// Packs `occ` into `key`, site 0 in the top bits of word 0 (numeric order = lexicographic).
fn pack_into(occ: &[u32], bits: PackBits, key: &mut [u64]) {
    let per = bits.sites_per_word();
    let b = bits.bits();
    key.fill(0);
    for (k, &x) in occ.iter().enumerate() {
        let shift = 64 - b * (k % per + 1) as u32;
        key[k / per] |= u64::from(x) << shift;
    }
}

fn unpack(key: &[u64], bits: PackBits, occ: &mut [u32]) {
    let per = bits.sites_per_word();
    let b = bits.bits();
    let mask = (1u64 << b) - 1;
    for (k, o) in occ.iter_mut().enumerate() {
        let shift = 64 - b * (k % per + 1) as u32;
        *o = ((key[k / per] >> shift) & mask) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_table_round_trips_and_is_sorted() {
        for (n, m) in [(3, 5), (15, 3), (16, 3), (4, 17), (2, 9)] {
            let b = FockBasis::new(n, m).unwrap();
            let p = PackedStates::new(&b).unwrap();
            let w = p.words_per_state();
            let mut occ = vec![0; m as usize];
            let mut want = vec![0; m as usize];
            for i in 0..b.dim() as usize {
                p.occupations(i, &mut occ);
                b.unrank(i as u64, &mut want).unwrap();
                assert_eq!(occ, want);
                assert_eq!(p.find(&occ), Some(i as u64));
                if i > 0 {
                    assert!(p.words()[(i - 1) * w..i * w] < p.words()[i * w..(i + 1) * w]);
                }
            }
        }
    }

    #[test]
    fn widths_follow_the_particle_number() {
        assert_eq!(PackBits::for_particles(15).unwrap(), PackBits::Four);
        assert_eq!(PackBits::for_particles(16).unwrap(), PackBits::Eight);
        assert!(PackBits::for_particles(256).is_err());
        let b = FockBasis::new(16, 3).unwrap();
        assert!(PackedStates::with_bits(&b, PackBits::Four).is_err());
        let p = PackedStates::new(&FockBasis::new(2, 3).unwrap()).unwrap();
        assert_eq!(p.find(&[3, 0, 0]), None);
        assert_eq!(p.find(&[1, 1]), None);
    }
}
