//! Rankings: the k most central nodes.

use matexp_core::{Error, Result};

/// The `k` largest entries of `scores` as (node, score), in decreasing order of score, ties
/// broken by the smaller node index (so rankings are reproducible). k > n gives all nodes.
///
/// Errors: [`Error::NonFinite`] if a score is NaN (a NaN has no rank; ∞ is ranked first).
/// O(n + k log k) by selection.
///
/// ```
/// use matexp_graph::top_k;
/// assert_eq!(top_k(&[3.0, 9.0, 1.0, 9.0], 3)?, vec![(1, 9.0), (3, 9.0), (0, 3.0)]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn top_k(scores: &[f64], k: usize) -> Result<Vec<(usize, f64)>> {
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return Err(Error::NonFinite {
            context: "top_k: scores".into(),
            index: i,
            value: "NaN".into(),
        });
    }
    let mut all: Vec<(usize, f64)> = scores.iter().copied().enumerate().collect();
    let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let k = k.min(all.len());
    if k == 0 {
        return Ok(Vec::new());
    }
    if k < all.len() {
        all.select_nth_unstable_by(k - 1, order);
        all.truncate(k);
    }
    all.sort_unstable_by(order);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn top_k_agrees_with_a_full_sort(v in proptest::collection::vec(-1e3f64..1e3, 0..60), k in 0usize..70) {
            let mut full: Vec<(usize, f64)> = v.iter().copied().enumerate().collect();
            full.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            full.truncate(k);
            prop_assert_eq!(top_k(&v, k).unwrap(), full);
        }
    }

    #[test]
    fn nan_is_an_error() {
        assert!(top_k(&[1.0, f64::NAN], 1).is_err());
    }
}
