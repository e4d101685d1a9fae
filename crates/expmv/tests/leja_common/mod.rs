//! Shared helpers of the Leja integration tests: references and error measures.
#![allow(dead_code)]

use matexp_core::{Scalar, c64};
use matexp_dense::{Matrix, eigh, expm};

/// ‖a − b‖₂ / ‖b‖₂ in f64 (overflow- and underflow-safe norms).
pub fn rel_err<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    assert_eq!(a.len(), b.len());
    let diff: Vec<c64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.to_c64() - y.to_c64())
        .collect();
    norm2(&diff) / norm2(b)
}

/// ‖x‖₂.
pub fn norm2<S: Scalar>(x: &[S]) -> f64 {
    let m = x.iter().map(|y| y.to_c64().norm()).fold(0.0, f64::max);
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * x
        .iter()
        .map(|y| (y.to_c64() / m).norm_sqr())
        .sum::<f64>()
        .sqrt()
}

/// e^{tA}v by the dense Al-Mohy–Higham expm of `t·A` (row-major `a`).
pub fn dense_expmv<S: Scalar>(a: &[S], n: usize, t: S, v: &[S]) -> Vec<S> {
    let m = Matrix::from_row_major(n, n, a).unwrap().scaled(t);
    expm(&m).unwrap().matvec(v).unwrap()
}

/// e^{−itH}v for real symmetric `H` from its eigendecomposition, computed once.
pub struct HermitianPropagator {
    n: usize,
    lambda: Vec<f64>,
    q: Matrix<f64>,
}

impl HermitianPropagator {
    /// Diagonalises the row-major real symmetric `h` (LAPACK `dsyevd`).
    pub fn new(h: &[f64], n: usize) -> Self {
        let (lambda, q) = eigh(&Matrix::from_row_major(n, n, h).unwrap()).unwrap();
        HermitianPropagator { n, lambda, q }
    }

    /// Q·e^{−itΛ}·Qᵀ·v.
    pub fn apply(&self, t: f64, v: &[c64]) -> Vec<c64> {
        let (n, q) = (self.n, &self.q);
        let c: Vec<c64> = (0..n)
            .map(|k| {
                let s: c64 = (0..n).map(|i| v[i] * q[(i, k)]).sum();
                s * c64::new(0.0, -t * self.lambda[k]).exp()
            })
            .collect();
        (0..n)
            .map(|i| (0..n).map(|k| c[k] * q[(i, k)]).sum())
            .collect()
    }
}

/// A reproducible vector with entries in [−1, 1) (SplitMix64).
pub fn random_vector<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut g = matexp_core::rng::SplitMix64::new(seed);
    let mut next = move || g.next_signed();
    (0..n)
        .map(|_| {
            let re = next();
            let im = if S::IS_COMPLEX { next() } else { 0.0 };
            S::from_c64(c64::new(re, im))
        })
        .collect()
}

/// The 1D advection–diffusion operator u_xx − peclet·u_x on (0, 1), Dirichlet, central
/// differences (the operator of the SciPy fixtures), row-major dense.
pub fn advection_diffusion_1d(n: usize, peclet: f64) -> Vec<f64> {
    let h = 1.0 / (n + 1) as f64;
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i * n + i] = -2.0 / (h * h);
        if i + 1 < n {
            a[i * n + i + 1] = 1.0 / (h * h) - peclet / (2.0 * h);
            a[(i + 1) * n + i] = 1.0 / (h * h) + peclet / (2.0 * h);
        }
    }
    a
}
