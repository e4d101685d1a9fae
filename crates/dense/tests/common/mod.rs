//! Shared helpers of the dense tests: seeded random matrices and a 256-bit Taylor reference
//! for the exponential.
#![allow(dead_code)]

use dashu_float::FBig;
use matexp_core::{Scalar, c64};
use matexp_dense::Matrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Entries uniform in [−1, 1] (both parts when complex).
pub fn random_matrix<S: Scalar>(n: usize, seed: u64) -> Matrix<S> {
    let mut r = rng(seed);
    Matrix::from_fn(n, n, |_, _| {
        S::from_c64(c64::new(
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
        ))
    })
}

/// ‖X − R‖₁ / ‖R‖₁.
pub fn rel_err<S: Scalar>(x: &Matrix<S>, r: &Matrix<S>) -> f64 {
    let mut d = x.clone();
    d.add_scaled(-S::one(), r).unwrap();
    use matexp_core::RealScalar;
    d.norm_one().as_f64() / r.norm_one().as_f64()
}

const PREC: usize = 256;
type Hp = FBig;

fn hp(x: f64) -> Hp {
    Hp::try_from(x).unwrap().with_precision(PREC).value()
}

#[derive(Clone)]
struct HpC {
    re: Hp,
    im: Hp,
}

impl HpC {
    fn new(z: c64) -> Self {
        HpC {
            re: hp(z.re),
            im: hp(z.im),
        }
    }
    fn zero() -> Self {
        Self::new(c64::new(0.0, 0.0))
    }
    fn add(&self, o: &HpC) -> HpC {
        HpC {
            re: &self.re + &o.re,
            im: &self.im + &o.im,
        }
    }
    fn mul(&self, o: &HpC) -> HpC {
        HpC {
            re: &self.re * &o.re - &self.im * &o.im,
            im: &self.re * &o.im + &self.im * &o.re,
        }
    }
    fn div_int(&self, k: u32) -> HpC {
        HpC {
            re: &self.re / k,
            im: &self.im / k,
        }
    }
    fn to_c64(&self) -> c64 {
        c64::new(self.re.to_f64().value(), self.im.to_f64().value())
    }
}

fn hp_matmul(a: &[HpC], b: &[HpC], n: usize) -> Vec<HpC> {
    let mut c = vec![HpC::zero(); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = HpC::zero();
            for k in 0..n {
                s = s.add(&a[i * n + k].mul(&b[k * n + j]));
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// e^A by Taylor series at A/2^s (‖A/2^s‖₁ ≤ 1/4, 40 terms: truncation < 1e-50) and s
/// squarings, all in 256-bit floating point; exact to f64 precision for the small, moderately
/// conditioned matrices of the tests.
pub fn expm_high_precision<S: Scalar>(a: &Matrix<S>) -> Matrix<S> {
    let n = a.nrows();
    use matexp_core::RealScalar;
    let norm = a.norm_one().as_f64();
    let s = if norm > 0.25 {
        (norm / 0.25).log2().ceil() as i32
    } else {
        0
    };
    let scale = 2f64.powi(-s);
    // Row-major high-precision copy of A/2^s (scaling by a power of two is exact).
    let x: Vec<HpC> = (0..n * n)
        .map(|k| HpC::new(a[(k / n, k % n)].to_c64() * scale))
        .collect();
    let mut sum: Vec<HpC> = (0..n * n)
        .map(|k| HpC::new(c64::new(if k / n == k % n { 1.0 } else { 0.0 }, 0.0)))
        .collect();
    let mut term = sum.clone();
    for k in 1..=40u32 {
        term = hp_matmul(&term, &x, n)
            .iter()
            .map(|t| t.div_int(k))
            .collect();
        sum = sum.iter().zip(&term).map(|(a, b)| a.add(b)).collect();
    }
    for _ in 0..s {
        sum = hp_matmul(&sum, &sum, n);
    }
    Matrix::from_fn(n, n, |i, j| S::from_c64(sum[i * n + j].to_c64()))
}

/// 1D Dirichlet Laplacian tridiag(1, −2, 1) of order n, times `scale`.
pub fn laplacian_1d(n: usize, scale: f64) -> Matrix<f64> {
    Matrix::from_fn(n, n, |i, j| {
        if i == j {
            -2.0 * scale
        } else if i.abs_diff(j) == 1 {
            scale
        } else {
            0.0
        }
    })
}

/// Eigenpairs of tridiag(1, −2, 1): λ_k = −4 sin²(kπ/(2(n+1))),
/// v_k(j) = √(2/(n+1)) sin(jkπ/(n+1)), k, j = 1..n.
pub fn laplacian_1d_eigen(n: usize) -> (Vec<f64>, Matrix<f64>) {
    let h = std::f64::consts::PI / (n + 1) as f64;
    let lambda = (1..=n)
        .map(|k| -4.0 * (k as f64 * h / 2.0).sin().powi(2))
        .collect();
    let c = (2.0 / (n + 1) as f64).sqrt();
    let v = Matrix::from_fn(n, n, |j, k| c * (((j + 1) * (k + 1)) as f64 * h).sin());
    (lambda, v)
}

/// V·diag(f(λ))·Wᵀ-style reconstruction: V·diag(d)·W.
pub fn reconstruct<S: Scalar>(v: &Matrix<S>, d: &[S], w: &Matrix<S>) -> Matrix<S> {
    let mut vd = v.clone();
    for (j, &dj) in d.iter().enumerate() {
        vd.col_mut(j).iter_mut().for_each(|x| *x *= dj);
    }
    vd.matmul(w).unwrap()
}
