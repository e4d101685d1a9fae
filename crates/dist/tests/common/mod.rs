//! What the distributed tests share: the relative difference and the check of one result
//! at 1–4 ranks against the single-process one.

#![allow(dead_code)]

use matexp_dist::comm::{ThreadComm, run_ranks};
use std::sync::Arc;

/// ‖a − b‖₂ / ‖b‖₂.
pub fn rel(a: &[f64], b: &[f64]) -> f64 {
    let num: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt();
    let den: f64 = b.iter().map(|y| y * y).sum::<f64>().sqrt();
    num / den
}

/// Runs `f` at 1, 2, 3 and 4 in-process ranks; every rank's whole result must be the same
/// on all ranks of a run, within `tol` (relative) of `want` (the single-process solver) and
/// of the 1-rank run. Returns the worst difference from `want`.
pub fn at_1_to_4_ranks(
    what: &str,
    want: &[f64],
    tol: f64,
    f: impl Fn(Arc<ThreadComm>) -> Vec<f64> + Sync,
) -> f64 {
    let mut one_rank: Option<Vec<f64>> = None;
    let mut worst = 0.0f64;
    for ranks in 1..=4 {
        let ws = run_ranks(ranks, |comm| f(Arc::new(comm)));
        for w in &ws {
            assert_eq!(
                w, &ws[0],
                "{what}: ranks of one run disagree at {ranks} ranks"
            );
            let e = rel(w, want);
            worst = worst.max(e);
            assert!(
                e <= tol,
                "{what} at {ranks} ranks: {e:e} from the single process"
            );
            if let Some(o) = &one_rank {
                let e1 = rel(w, o);
                assert!(e1 <= tol, "{what} at {ranks} ranks: {e1:e} from 1 rank");
            }
        }
        one_rank.get_or_insert_with(|| ws[0].clone());
    }
    worst
}
