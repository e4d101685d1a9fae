//! Helpers shared by the integration tests: random matrices and independent references.
#![allow(dead_code)]

use matexp_core::{RealScalar, Scalar, c64};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A random scalar with components uniform in [−1, 1].
pub fn scalar<S: Scalar>(rng: &mut ChaCha8Rng) -> S {
    S::from_c64(c64::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    ))
}

pub fn vector<S: Scalar>(rng: &mut ChaCha8Rng, n: usize) -> Vec<S> {
    (0..n).map(|_| scalar(rng)).collect()
}

/// Random coordinates with about `density·nrows·ncols` entries, some repeated.
pub fn triplets<S: Scalar>(
    rng: &mut ChaCha8Rng,
    nrows: usize,
    ncols: usize,
    density: f64,
) -> Vec<(usize, usize, S)> {
    let mut t = Vec::new();
    if nrows == 0 || ncols == 0 {
        return t;
    }
    let count = ((nrows * ncols) as f64 * density).round() as usize;
    for _ in 0..count {
        t.push((
            rng.random_range(0..nrows),
            rng.random_range(0..ncols),
            scalar(rng),
        ));
    }
    // A few repeats of existing coordinates.
    for k in 0..t.len() / 8 {
        let (i, j, _) = t[k * 3 % t.len()];
        t.push((i, j, scalar(rng)));
    }
    t
}

/// y_ref = α·A·x + β·y computed in c64 straight from the coordinate list (β = 0 ignores y),
/// with the entrywise error bound γ·(|α|·Σ|a||x| + |β||y|) for the working precision.
pub fn reference_spmv<S: Scalar>(
    nrows: usize,
    t: &[(usize, usize, S)],
    alpha: S,
    x: &[S],
    beta: S,
    y: &[S],
) -> (Vec<c64>, Vec<f64>) {
    let mut acc = vec![c64::new(0.0, 0.0); nrows];
    let mut mag = vec![0.0; nrows];
    let mut count = vec![0usize; nrows];
    for &(i, j, v) in t {
        acc[i] += v.to_c64() * x[j].to_c64();
        mag[i] += v.to_c64().norm() * x[j].to_c64().norm();
        count[i] += 1;
    }
    let eps = <S::Real as RealScalar>::EPS.as_f64();
    let mut out = Vec::with_capacity(nrows);
    let mut bound = Vec::with_capacity(nrows);
    for i in 0..nrows {
        let by = if beta == S::zero() {
            c64::new(0.0, 0.0)
        } else {
            beta.to_c64() * y[i].to_c64()
        };
        out.push(alpha.to_c64() * acc[i] + by);
        let scale = alpha.to_c64().norm() * mag[i]
            + if beta == S::zero() {
                0.0
            } else {
                (beta.to_c64() * y[i].to_c64()).norm()
            };
        bound.push(8.0 * (count[i] as f64 + 4.0) * eps * scale + 1e-300);
    }
    (out, bound)
}

pub fn assert_close<S: Scalar>(got: &[S], want: &[c64], bound: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        let e = (got[i].to_c64() - want[i]).norm();
        assert!(
            e <= bound[i],
            "{what}: entry {i}: got {}, want {}, error {e:e} > bound {:e}",
            got[i],
            want[i],
            bound[i]
        );
    }
}
