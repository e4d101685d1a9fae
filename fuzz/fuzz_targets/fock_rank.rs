//! Fock-space ranking and unranking (`FockBasis`): for any `N` bosons on `M` sites the
//! basis is built or refused with a typed error, `rank(unrank(i)) = i` for every index below
//! the dimension, indices beyond it and occupations of the wrong sum are refused, and the
//! lexicographic successor has the next rank.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_fock::{FockBasis, MAX_SITES};

/// The basis stores an (N + 1)·(M + 1) table; particle counts beyond this bound are a
/// valid request for gigabytes (see bench-results/fuzz/README.md), not a parser edge.
const MAX_PARTICLES: u32 = 1 << 12;

fuzz_target!(|data: &[u8]| {
    if data.len() < 11 {
        return;
    }
    let n = u32::from(u16::from_le_bytes([data[0], data[1]])) % (MAX_PARTICLES + 1);
    let m = u32::from(data[2]) % (MAX_SITES as u32 + 3);
    let index = u64::from_le_bytes(data[3..11].try_into().unwrap());
    let rest = &data[11..];
    let Ok(basis) = FockBasis::new(n, m) else {
        assert!(
            m == 0
                || m as usize > MAX_SITES
                || matexp_fock::dimension(n.into(), m.into()).is_none()
        );
        return;
    };
    let dim = basis.dim();
    assert!(dim >= 1);
    let mut occ = vec![0u32; m as usize];
    let i = index % dim;
    basis.unrank(i, &mut occ).unwrap();
    assert_eq!(occ.iter().map(|&x| u64::from(x)).sum::<u64>(), u64::from(n));
    assert_eq!(basis.rank(&occ).unwrap(), i);
    if FockBasis::next_state(&mut occ) {
        assert!(i + 1 < dim);
        assert_eq!(basis.rank(&occ).unwrap(), i + 1);
    } else {
        assert_eq!(i + 1, dim, "no successor before the last state");
    }
    if index >= dim {
        assert!(basis.unrank(index, &mut occ).is_err());
    }
    // Arbitrary occupations: ranked only when they hold N particles on M sites.
    let cand: Vec<u32> = rest
        .chunks(2)
        .take(m as usize + 1)
        .map(|c| u32::from(c[0]) | (u32::from(*c.get(1).unwrap_or(&0)) << 8))
        .collect();
    match basis.rank(&cand) {
        Ok(r) => {
            assert!(r < dim);
            let mut back = vec![0u32; m as usize];
            basis.unrank(r, &mut back).unwrap();
            assert_eq!(back, cand);
        }
        Err(_) => assert!(
            cand.len() != m as usize
                || cand.iter().map(|&x| u64::from(x)).sum::<u64>() != u64::from(n)
        ),
    }
});
