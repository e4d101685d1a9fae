//! Ranking, unranking, lexicographic order and the Δ identities of the Fock basis.

use matexp_core::Error;
use matexp_fock::{FockBasis, MAX_TABLE_ENTRIES, dimension};
use proptest::prelude::*;

/// A random state of `n` bosons on `m` sites from `m − 1` cut points ("stars and bars").
fn state_from_cuts(n: u32, m: usize, mut cuts: Vec<u32>) -> Vec<u32> {
    cuts.truncate(m - 1);
    cuts.sort_unstable();
    let mut occ = Vec::with_capacity(m);
    let mut prev = 0;
    for c in cuts {
        occ.push(c - prev);
        prev = c;
    }
    occ.push(n - prev);
    occ
}

fn arb_state() -> impl Strategy<Value = (u32, Vec<u32>)> {
    (0u32..60, 1usize..12).prop_flat_map(|(n, m)| {
        proptest::collection::vec(0..=n, m - 1)
            .prop_map(move |cuts| (n, state_from_cuts(n, m, cuts)))
    })
}

proptest! {
    #[test]
    fn unrank_inverts_rank((n, occ) in arb_state()) {
        let b = FockBasis::new(n, occ.len() as u32).unwrap();
        let i = b.rank(&occ).unwrap();
        prop_assert!(i < b.dim());
        let mut back = vec![0; occ.len()];
        b.unrank(i, &mut back).unwrap();
        prop_assert_eq!(back, occ);
    }

    #[test]
    fn rank_inverts_unrank(n in 0u32..200, m in 1u32..9, frac in 0.0f64..1.0) {
        let b = FockBasis::new(n, m).unwrap();
        let i = ((b.dim() as f64 * frac) as u64).min(b.dim() - 1);
        let mut occ = vec![0; m as usize];
        b.unrank(i, &mut occ).unwrap();
        prop_assert_eq!(occ.iter().sum::<u32>(), n);
        prop_assert_eq!(b.rank(&occ).unwrap(), i);
    }

    /// Rank order is lexicographic order: comparing two random states by rank and by tuple
    /// gives the same answer.
    #[test]
    fn rank_order_is_lexicographic((n, a) in arb_state(), cuts in proptest::collection::vec(0u32..60, 11)) {
        let m = a.len();
        let cuts: Vec<u32> = cuts.into_iter().map(|c| c.min(n)).collect();
        let bst = state_from_cuts(n, m, cuts);
        let basis = FockBasis::new(n, m as u32).unwrap();
        prop_assert_eq!(basis.rank(&a).unwrap().cmp(&basis.rank(&bst).unwrap()), a.cmp(&bst));
    }

    /// The O(1) hop shifts equal the rank difference of the hopped state.
    #[test]
    fn delta_identities((n, occ) in arb_state()) {
        let m = occ.len();
        let b = FockBasis::new(n, m as u32).unwrap();
        let i = b.rank(&occ).unwrap();
        let mut r = n;
        for k in 0..m.saturating_sub(1) {
            r -= occ[k];
            let s = m - k;
            if occ[k] > 0 {
                let mut h = occ.clone();
                h[k] -= 1;
                h[k + 1] += 1;
                prop_assert_eq!(b.rank(&h).unwrap(), i - b.delta(r, s));
            }
            if occ[k + 1] > 0 {
                let mut h = occ.clone();
                h[k] += 1;
                h[k + 1] -= 1;
                prop_assert_eq!(b.rank(&h).unwrap(), i + b.delta(r - 1, s));
            }
        }
    }
}

/// Exhaustive: walking with `next_state` from index 0 visits every state in order, each with
/// the rank of its position, and the count is D(N, M) by the closed form.
#[test]
fn successor_enumerates_the_basis_in_order() {
    for (n, m) in [(0, 1), (5, 1), (0, 4), (4, 4), (7, 3), (3, 7), (10, 5)] {
        let b = FockBasis::new(n, m).unwrap();
        let mut occ = vec![0; m as usize];
        occ[m as usize - 1] = n;
        let mut count = 0u64;
        let mut prev: Option<Vec<u32>> = None;
        loop {
            assert_eq!(b.rank(&occ).unwrap(), count);
            if let Some(p) = &prev {
                assert!(p < &occ);
            }
            prev = Some(occ.clone());
            count += 1;
            if !FockBasis::next_state(&mut occ) {
                break;
            }
        }
        assert_eq!(count, dimension(n.into(), m.into()).unwrap());
        assert_eq!(occ[0], n, "the last state is (N, 0, …, 0)");
    }
}

#[test]
fn a_table_beyond_memory_is_a_typed_error() {
    // One state (all bosons on the one site), but a table of 2³² rows: 64 GiB.
    for (n, m) in [(u32::MAX, 1), (u32::MAX, 2), (1 << 29, 3)] {
        match FockBasis::new(n, m) {
            Err(e @ Error::InvalidArgument { name: "n", .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&n.to_string()), "{msg}");
                assert!(msg.contains(&MAX_TABLE_ENTRIES.to_string()), "{msg}");
            }
            other => panic!("FockBasis::new({n}, {m}): {other:?}"),
        }
    }
    // Below the cap a few-site basis of many bosons is fine.
    let b = FockBasis::new(1_000_000, 1).unwrap();
    assert_eq!(b.dim(), 1);
    assert_eq!(b.rank(&[1_000_000]).unwrap(), 0);
}
