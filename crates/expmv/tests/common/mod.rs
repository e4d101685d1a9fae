//! Test problems (assembled as dense matrices, applied through `DenseMatrixOperator`) and
//! dense references.
#![allow(dead_code)]

use matexp_core::{
    CpuBackend, DenseMatrixOperator, LinearOperator, Result, Scalar, SpectralBounds, c64,
};
use matexp_dense::{Matrix, expm, phi_vectors};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A dense test problem: the matrix (column-major) and its operator.
pub struct Problem<S: Scalar> {
    pub name: String,
    pub a: Matrix<S>,
    pub op: DenseMatrixOperator<S>,
}

impl<S: Scalar> Problem<S> {
    pub fn new(name: impl Into<String>, a: Matrix<S>) -> Self {
        let op = DenseMatrixOperator::new(a.nrows(), a.ncols(), a.to_row_major()).unwrap();
        Problem {
            name: name.into(),
            a,
            op,
        }
    }
    pub fn n(&self) -> usize {
        self.a.nrows()
    }
    /// ‖A‖₁.
    pub fn norm1(&self) -> f64 {
        use matexp_core::RealScalar;
        self.a.norm_one().as_f64()
    }
    /// The same problem scaled so that ‖A‖₁ = `norm`.
    pub fn with_norm(&self, norm: f64) -> Self {
        let s = norm / self.norm1();
        Problem::new(
            format!("{} (‖A‖₁ = {norm:e})", self.name),
            self.a.scaled(S::from_f64(s)),
        )
    }
}

/// Laplacian with Dirichlet boundary on a `dims`-dimensional grid of `m` points per axis
/// (2d+1-point stencil, unscaled: diagonal −2d, neighbours 1).
pub fn laplacian(m: usize, dims: usize) -> Problem<f64> {
    let n = m.pow(dims as u32);
    let mut a = Matrix::<f64>::zeros(n, n);
    for i in 0..n {
        a[(i, i)] = -2.0 * dims as f64;
        let mut stride = 1;
        for _ in 0..dims {
            let coord = (i / stride) % m;
            if coord > 0 {
                a[(i, i - stride)] = 1.0;
            }
            if coord + 1 < m {
                a[(i, i + stride)] = 1.0;
            }
            stride *= m;
        }
    }
    Problem::new(format!("{dims}D Laplacian, n = {n}"), a)
}

/// 1D advection–diffusion u_t = u_xx − c·u_x, central differences, Dirichlet, h = 1/(n+1):
/// A = (1/h²)·tridiag(1 + ch/2, −2, 1 − ch/2) (nonsymmetric; Péclet number ch/2).
pub fn advection_diffusion(n: usize, c: f64) -> Problem<f64> {
    let h = 1.0 / (n + 1) as f64;
    let a = Matrix::<f64>::from_fn(n, n, |i, j| {
        if i == j {
            -2.0 / (h * h)
        } else if j + 1 == i {
            (1.0 + c * h / 2.0) / (h * h)
        } else if i + 1 == j {
            (1.0 - c * h / 2.0) / (h * h)
        } else {
            0.0
        }
    });
    Problem::new(format!("1D advection–diffusion, n = {n}, c = {c}"), a)
}

/// Random complex Hermitian matrix (entries uniform in the unit square, symmetrized).
pub fn random_hermitian(n: usize, seed: u64) -> Problem<c64> {
    let mut r = rng(seed);
    let z = Matrix::<c64>::from_fn(n, n, |_, _| {
        c64::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
    });
    let h = Matrix::<c64>::from_fn(n, n, |i, j| (z[(i, j)] + z[(j, i)].conj()) * 0.5);
    Problem::new(format!("random Hermitian, n = {n}"), h)
}

/// Heisenberg XXZ chain of `l` spins ½ with open ends in a field:
/// H = Σ_i (S^x_i S^x_{i+1} + S^y_i S^y_{i+1} + Δ S^z_i S^z_{i+1}) + Σ_i h_i S^z_i,
/// assembled in the 2^l product basis (bit i = spin i up).
pub fn spin_chain(l: usize, delta: f64, seed: u64) -> Problem<c64> {
    let n = 1usize << l;
    let mut r = rng(seed);
    let fields: Vec<f64> = (0..l).map(|_| r.random_range(-1.0..1.0)).collect();
    let mut h = Matrix::<c64>::zeros(n, n);
    for s in 0..n {
        let sz = |i: usize| if s >> i & 1 == 1 { 0.5 } else { -0.5 };
        let mut diag = 0.0;
        for i in 0..l {
            diag += fields[i] * sz(i);
            if i + 1 < l {
                diag += delta * sz(i) * sz(i + 1);
                // S^x S^x + S^y S^y = (S^+S^- + S^-S^+)/2 flips antiparallel neighbours.
                if (s >> i & 1) != (s >> (i + 1) & 1) {
                    let t = s ^ (1 << i) ^ (1 << (i + 1));
                    h[(t, s)] += c64::new(0.5, 0.0);
                }
            }
        }
        h[(s, s)] += c64::new(diag, 0.0);
    }
    Problem::new(format!("XXZ chain, l = {l}"), h)
}

/// e^{tA}v from the dense exponential.
pub fn dense_expmv<S: Scalar>(a: &Matrix<S>, t: S, v: &[S]) -> Vec<S> {
    expm(&a.scaled(t)).unwrap().matvec(v).unwrap()
}

/// φ_k(tA)v from the dense augmented exponential.
pub fn dense_phimv<S: Scalar>(a: &Matrix<S>, k: usize, t: S, v: &[S]) -> Vec<S> {
    phi_vectors(&a.scaled(t), v, k).unwrap().pop().unwrap()
}

/// ‖x − y‖₂/‖y‖₂.
pub fn rel_err<S: Scalar>(x: &[S], y: &[S]) -> f64 {
    let d: Vec<S> = x.iter().zip(y).map(|(a, b)| *a - *b).collect();
    use matexp_core::RealScalar;
    matexp_core::norms::nrm2(&d).as_f64() / matexp_core::norms::nrm2(y).as_f64()
}

/// A smooth-plus-noise start vector (all modes present).
pub fn start_vector<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut r = rng(seed);
    (0..n)
        .map(|i| {
            let x = (i as f64 + 1.0) / (n as f64 + 1.0);
            S::from_c64(c64::new(
                (std::f64::consts::PI * x).sin() + 0.3 * r.random_range(-1.0..1.0),
                if S::IS_COMPLEX {
                    0.3 * r.random_range(-1.0..1.0)
                } else {
                    0.0
                },
            ))
        })
        .collect()
}

/// An operator wrapper that hides `is_hermitian` and spectral bounds (a "matrix-free"
/// operator that knows nothing about itself).
pub struct Opaque<'a, S: Scalar>(pub &'a DenseMatrixOperator<S>);

impl<S: Scalar> LinearOperator<CpuBackend, S> for Opaque<'_, S> {
    fn nrows(&self) -> usize {
        LinearOperator::<CpuBackend, S>::nrows(self.0)
    }
    fn ncols(&self) -> usize {
        LinearOperator::<CpuBackend, S>::ncols(self.0)
    }
    fn apply(&self, b: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.0.apply(b, alpha, x, beta, y)
    }
}

/// A Hermitian operator that reports given spectral bounds.
pub struct WithBounds<'a, S: Scalar>(pub &'a DenseMatrixOperator<S>, pub SpectralBounds);

impl<S: Scalar> LinearOperator<CpuBackend, S> for WithBounds<'_, S> {
    fn nrows(&self) -> usize {
        LinearOperator::<CpuBackend, S>::nrows(self.0)
    }
    fn ncols(&self) -> usize {
        LinearOperator::<CpuBackend, S>::ncols(self.0)
    }
    fn apply(&self, b: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.0.apply(b, alpha, x, beta, y)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        Some(self.1)
    }
}
