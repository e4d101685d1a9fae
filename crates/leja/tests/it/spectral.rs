//! Spectral interval estimation against independent references: a Jacobi eigenvalue solver
//! written here, analytic Laplacian spectra, and matrices with known eigenvalues.

use crate::common;

use common::{
    hermitian_eigenvalues, jacobi_eigenvalues, laplacian_1d, laplacian_1d_eigenvalue, laplacian_2d,
};
use matexp_core::{
    CpuBackend, DenseMatrixOperator, LinearOperator, Result, Scalar, SpectralBounds, c64,
};
use matexp_leja::{
    LanczosOptions, PowerOptions, RowEntries, Symmetry, estimate_spectral_bounds,
    gershgorin_bounds, gershgorin_discs, lanczos_bounds, power_spectral_radius,
    symmetric_tridiagonal_eigen, symmetric_tridiagonal_eigenvalues,
    symmetric_tridiagonal_rotations,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::f64::consts::PI;

/// tridiag(1, −2, 1) of order n as row entries, never stored.
struct Laplacian1d(usize);

impl RowEntries<f64> for Laplacian1d {
    fn nrows(&self) -> usize {
        self.0
    }
    fn ncols(&self) -> usize {
        self.0
    }
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
        if i > 0 {
            f(i - 1, 1.0);
        }
        f(i, -2.0);
        if i + 1 < self.0 {
            f(i + 1, 1.0);
        }
    }
}

fn encloses(b: &SpectralBounds, eigenvalues: &[f64], tol: f64) -> bool {
    eigenvalues
        .iter()
        .all(|&l| b.re_min - tol <= l && l <= b.re_max + tol)
}

fn random_symmetric(n: usize, rng: &mut StdRng) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in i..n {
            let v = rng.random_range(-5.0..5.0);
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    a
}

fn random_hermitian(n: usize, rng: &mut StdRng) -> Vec<c64> {
    let mut h = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        h[i * n + i] = c64::new(rng.random_range(-5.0..5.0), 0.0);
        for j in i + 1..n {
            let v = c64::new(rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0));
            h[i * n + j] = v;
            h[j * n + i] = v.conj();
        }
    }
    h
}

fn dense_apply<S: Scalar>(a: &[S], n: usize) -> impl FnMut(&[S], &mut [S]) + '_ {
    move |x: &[S], y: &mut [S]| {
        for i in 0..n {
            y[i] = a[i * n..(i + 1) * n]
                .iter()
                .zip(x)
                .map(|(aij, xj)| *aij * *xj)
                .sum();
        }
    }
}

#[test]
fn jacobi_reference_reproduces_the_analytic_laplacian() {
    let n = 12;
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i * n + i] = -2.0;
        if i + 1 < n {
            a[i * n + i + 1] = 1.0;
            a[(i + 1) * n + i] = 1.0;
        }
    }
    let got = jacobi_eigenvalues(&a, n);
    for (k, g) in got.iter().rev().enumerate() {
        assert!((g - laplacian_1d_eigenvalue(k + 1, n)).abs() < 1e-12);
    }
}

#[test]
fn gershgorin_of_the_laplacian_encloses_its_analytic_spectrum() {
    for n in [1usize, 2, 10, 1000] {
        let b = gershgorin_bounds(&Laplacian1d(n), Symmetry::Hermitian).unwrap();
        assert!(b.is_real());
        let ev: Vec<f64> = (1..=n).map(|k| laplacian_1d_eigenvalue(k, n)).collect();
        assert!(encloses(&b, &ev, 1e-15), "n = {n}: {b:?}");
        // Interior rows have both neighbours: disc centre −2, radius 2.
        if n > 2 {
            assert_eq!((b.re_min, b.re_max), (-4.0, 0.0));
        }
    }
}

#[test]
fn gershgorin_box_encloses_eigenvalues_of_triangular_and_rotation_matrices() {
    // Triangular: the eigenvalues are the diagonal entries.
    let mut rng = StdRng::seed_from_u64(7);
    let n = 8;
    let mut t = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in i..n {
            t[i * n + j] = c64::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0));
        }
    }
    let a = DenseMatrixOperator::new(n, n, t.clone()).unwrap();
    let b = gershgorin_bounds(&a, Symmetry::General).unwrap();
    for i in 0..n {
        let l = t[i * n + i];
        assert!(b.re_min <= l.re && l.re <= b.re_max && b.im_min <= l.im && l.im <= b.im_max);
    }
    // A real rotation generator has eigenvalues ±i: off the real axis, inside the box.
    let r = DenseMatrixOperator::new(2, 2, vec![0.0, -1.0, 1.0, 0.0]).unwrap();
    let b = gershgorin_bounds(&r, Symmetry::General).unwrap();
    assert!(b.im_min <= -1.0 && b.im_max >= 1.0);
    let discs = gershgorin_discs(&r).unwrap();
    assert_eq!(discs[0].radius, 1.0);
}

#[test]
fn lanczos_encloses_the_1d_laplacian_spectrum() {
    for n in [5usize, 50, 500, 5000] {
        let est = lanczos_bounds::<f64, _>(n, laplacian_1d, &LanczosOptions::default()).unwrap();
        let (lmin, lmax) = (laplacian_1d_eigenvalue(n, n), laplacian_1d_eigenvalue(1, n));
        let b = est.bounds;
        assert!(
            b.re_min <= lmin && b.re_max >= lmax,
            "n = {n}: {b:?} vs [{lmin}, {lmax}]"
        );
        // Ritz values lie inside the spectrum.
        assert!(est.ritz_min >= lmin - 1e-12 && est.ritz_max <= lmax + 1e-12);
        // ... and the enclosure is not grossly wide (5% of the spectral width 4).
        assert!(
            b.re_min >= lmin - 0.2 && b.re_max <= lmax + 0.2,
            "n = {n}: {b:?}"
        );
    }
}

#[test]
fn lanczos_encloses_the_2d_laplacian_spectrum() {
    for m in [4usize, 30, 100] {
        let lambda = |k: usize| {
            let s = (k as f64 * PI / (2.0 * (m as f64 + 1.0))).sin();
            -4.0 * s * s
        };
        let (lmin, lmax) = (2.0 * lambda(m), 2.0 * lambda(1));
        let est = lanczos_bounds::<f64, _>(
            m * m,
            |x, y| laplacian_2d(m, x, y),
            &LanczosOptions::default(),
        )
        .unwrap();
        let b = est.bounds;
        assert!(
            b.re_min <= lmin && b.re_max >= lmax,
            "m = {m}: {b:?} vs [{lmin}, {lmax}]"
        );
        assert!(
            b.re_min >= lmin - 0.4 && b.re_max <= lmax + 0.4,
            "m = {m}: {b:?}"
        );
    }
}

#[test]
fn lanczos_in_single_precision_encloses_the_laplacian_spectrum() {
    let n = 300;
    let est = lanczos_bounds::<f32, _>(
        n,
        |x, y| {
            let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let mut yd = vec![0.0; n];
            laplacian_1d(&xd, &mut yd);
            y.iter_mut().zip(&yd).for_each(|(a, b)| *a = *b as f32);
        },
        &LanczosOptions::default(),
    )
    .unwrap();
    assert!(est.bounds.re_min <= laplacian_1d_eigenvalue(n, n));
    assert!(est.bounds.re_max >= laplacian_1d_eigenvalue(1, n));
}

#[test]
fn lanczos_detects_an_invariant_subspace_and_is_then_exact() {
    // diag with three distinct eigenvalues: the Krylov space has dimension 3.
    let n = 90;
    let d = |i: usize| [-3.0, 0.5, 7.0][i % 3];
    let est = lanczos_bounds::<f64, _>(
        n,
        |x, y| {
            for i in 0..n {
                y[i] = d(i) * x[i];
            }
        },
        &LanczosOptions {
            rel_margin: 0.0,
            ..LanczosOptions::default()
        },
    )
    .unwrap();
    assert!(est.invariant);
    assert_eq!(est.steps, 3);
    assert!((est.ritz_min + 3.0).abs() < 1e-13 && (est.ritz_max - 7.0).abs() < 1e-13);
    assert!(est.bounds.re_min <= -3.0 && est.bounds.re_max >= 7.0);
    assert!(est.bounds.re_min > -3.0 - 1e-12 && est.bounds.re_max < 7.0 + 1e-12);
}

#[test]
fn power_iteration_bounds_the_spectral_radius() {
    // Normal operators with known radius: symmetric Laplacian, and a real block-diagonal
    // operator with the complex-conjugate dominant pair 3 ± 4i (|λ| = 5).
    let n = 400;
    let est = power_spectral_radius::<f64, _>(n, laplacian_1d, &PowerOptions::default()).unwrap();
    let rho = -laplacian_1d_eigenvalue(n, n);
    assert!(
        est.radius >= rho && est.radius <= 1.1 * rho,
        "{est:?} vs {rho}"
    );
    assert_eq!(est.bounds.re_max, est.radius);

    let m = 50;
    let est = power_spectral_radius::<f64, _>(
        2 * m,
        |x, y| {
            for b in 0..m {
                // Block b: s·[[3, −4], [4, 3]] with s = 1 for b = 0 and s < 1 otherwise.
                let s = 1.0 - b as f64 / (2.0 * m as f64);
                let (u, v) = (x[2 * b], x[2 * b + 1]);
                y[2 * b] = s * (3.0 * u - 4.0 * v);
                y[2 * b + 1] = s * (4.0 * u + 3.0 * v);
            }
        },
        &PowerOptions::default(),
    )
    .unwrap();
    assert!(est.radius >= 5.0 && est.radius <= 5.5, "{est:?}");
}

#[test]
fn power_iteration_of_the_zero_operator_is_zero() {
    let est = power_spectral_radius::<c64, _>(
        10,
        |_, y| y.iter_mut().for_each(|v| *v = c64::new(0.0, 0.0)),
        &PowerOptions::default(),
    )
    .unwrap();
    assert_eq!((est.radius, est.steps), (0.0, 1));
}

/// A Hermitian operator that does not know its spectrum: estimate_spectral_bounds must run
/// Lanczos on it.
struct Opaque {
    a: Vec<c64>,
    n: usize,
    hermitian: bool,
}

impl LinearOperator<CpuBackend, c64> for Opaque {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(
        &self,
        _: &CpuBackend,
        alpha: c64,
        x: &Vec<c64>,
        beta: c64,
        y: &mut Vec<c64>,
    ) -> Result<()> {
        let n = self.n;
        for i in 0..n {
            let ax: c64 = (0..n).map(|j| self.a[i * n + j] * x[j]).sum();
            y[i] = if beta == c64::new(0.0, 0.0) {
                alpha * ax
            } else {
                alpha * ax + beta * y[i]
            };
        }
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
}

#[test]
fn operator_bounds_use_lanczos_or_power_iteration() {
    let n = 25;
    let mut rng = StdRng::seed_from_u64(11);
    let a = random_hermitian(n, &mut rng);
    let ev = hermitian_eigenvalues(&a, n);
    let lanczos = LanczosOptions::default();
    let power = PowerOptions::default();
    let op = Opaque {
        a: a.clone(),
        n,
        hermitian: true,
    };
    let b = estimate_spectral_bounds(&op, &lanczos, &power).unwrap();
    assert!(b.is_real() && encloses(&b, &ev, 0.0), "{b:?} vs {ev:?}");
    let op = Opaque {
        a,
        n,
        hermitian: false,
    };
    let b = estimate_spectral_bounds(&op, &lanczos, &power).unwrap();
    let rho = ev.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    assert!(!b.is_real() && b.re_max >= rho && b.im_max >= rho && b.re_min <= -rho);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn gershgorin_encloses_random_symmetric_spectra(n in 1usize..12, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_symmetric(n, &mut rng);
        let ev = jacobi_eigenvalues(&a, n);
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let b = gershgorin_bounds(&op, Symmetry::Hermitian).unwrap();
        prop_assert!(encloses(&b, &ev, 1e-12), "{:?} vs {:?}", b, ev);
    }

    #[test]
    fn gershgorin_encloses_random_hermitian_spectra(n in 1usize..10, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let h = random_hermitian(n, &mut rng);
        let ev = hermitian_eigenvalues(&h, n);
        let op = DenseMatrixOperator::new(n, n, h).unwrap();
        let b = gershgorin_bounds(&op, Symmetry::Hermitian).unwrap();
        prop_assert!(encloses(&b, &ev, 1e-12), "{:?} vs {:?}", b, ev);
        let boxed = gershgorin_bounds(&op, Symmetry::General).unwrap();
        prop_assert!(boxed.re_min <= b.re_min && boxed.re_max >= b.re_max);
    }

    #[test]
    fn lanczos_encloses_random_hermitian_spectra(n in 2usize..40, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let h = random_hermitian(n, &mut rng);
        let ev = hermitian_eigenvalues(&h, n);
        let est = lanczos_bounds::<c64, _>(n, dense_apply(&h, n), &LanczosOptions {
            seed,
            ..LanczosOptions::default()
        }).unwrap();
        prop_assert!(encloses(&est.bounds, &ev, 0.0), "{:?} vs {:?}", est, ev);
    }

    #[test]
    fn lanczos_encloses_the_laplacian_for_any_seed(seed in any::<u64>(), n in 100usize..2000) {
        let est = lanczos_bounds::<f64, _>(n, laplacian_1d, &LanczosOptions {
            seed,
            ..LanczosOptions::default()
        }).unwrap();
        prop_assert!(est.bounds.re_min <= laplacian_1d_eigenvalue(n, n));
        prop_assert!(est.bounds.re_max >= laplacian_1d_eigenvalue(1, n));
    }

    #[test]
    fn tridiagonal_solver_matches_jacobi(
        d in proptest::collection::vec(-10.0f64..10.0, 1..25),
        seed in any::<u64>(),
    ) {
        let n = d.len();
        let mut rng = StdRng::seed_from_u64(seed);
        let e: Vec<f64> = (1..n).map(|_| rng.random_range(-5.0..5.0)).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = d[i];
            if i + 1 < n {
                a[i * n + i + 1] = e[i];
                a[(i + 1) * n + i] = e[i];
            }
        }
        let want = jacobi_eigenvalues(&a, n);
        let got = symmetric_tridiagonal_eigenvalues(&d, &e).unwrap();
        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() <= 1e-12 * scale, "{} vs {}", g, w);
        }
        let full = symmetric_tridiagonal_eigen(&d, &e).unwrap();
        prop_assert_eq!(full.values, got);
    }

    /// The eigenvectors as rotations: the eigenvalues and rows of the full decomposition bit
    /// for bit, and f(T)·b = Z·(f(λ) ∘ Zᵀb) against the full matrix Z and against the
    /// equation T·Z = Z·Λ, on random, clustered (glued blocks coupled at 1e−13) and graded
    /// tridiagonals.
    #[test]
    fn rotations_match_the_full_eigenvectors(
        kind in 0u8..3,
        n in 1usize..60,
        seed in any::<u64>(),
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (d, e): (Vec<f64>, Vec<f64>) = match kind {
            0 => (
                (0..n).map(|_| rng.random_range(-10.0..10.0)).collect(),
                (1..n).map(|_| rng.random_range(-5.0..5.0)).collect(),
            ),
            1 => (
                (0..n).map(|i| (i % 6) as f64).collect(),
                (1..n)
                    .map(|i| if i % 6 == 0 { 1e-13 * rng.random_range(-1.0..1.0) } else { 1.0 })
                    .collect(),
            ),
            _ => (
                (0..n).map(|i| 0.5f64.powi(i as i32) * rng.random_range(-1.0..1.0)).collect(),
                (1..n).map(|i| 0.5f64.powi(i as i32)).collect(),
            ),
        };
        let full = symmetric_tridiagonal_eigen(&d, &e).unwrap();
        let rot = symmetric_tridiagonal_rotations(&d, &e).unwrap();
        prop_assert_eq!(&rot.values, &full.values);
        let row0 = rot.row(0);
        for (j, z) in row0.iter().enumerate() {
            prop_assert_eq!(z.to_bits(), full.vector(j)[0].to_bits());
        }
        let norm_t = d.iter().chain(&e).fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
        // f(λ) = e^{−iλ/‖T‖·20}: a complex vector, phases over ±60 rad.
        let b: Vec<c64> = (0..n).map(|_| c64::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))).collect();
        let mut x = b.clone();
        rot.mul_transpose(&mut x);
        for (xj, &l) in x.iter_mut().zip(&rot.values) {
            *xj *= c64::new(0.0, -20.0 * l / norm_t).exp();
        }
        let mut y = x.clone();
        rot.mul(&mut y);
        let mut want = vec![c64::new(0.0, 0.0); n];
        for j in 0..n {
            let z = full.vector(j);
            let g: c64 = z.iter().zip(&b).map(|(zi, bi)| bi * *zi).sum::<c64>()
                * c64::new(0.0, -20.0 * full.values[j] / norm_t).exp();
            for (w, &zi) in want.iter_mut().zip(z) {
                *w += g * zi;
            }
        }
        let nb = b.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        let tol = 1e-14 * n as f64 * nb;
        for (a, w) in y.iter().zip(&want) {
            prop_assert!((a - w).norm() <= tol, "{} vs {}", a, w);
        }
        // T·(Z·x) = Z·(λ ∘ x), independently of the full matrix.
        let mut zx = x.clone();
        rot.mul(&mut zx);
        let mut lx: Vec<c64> = x.iter().zip(&rot.values).map(|(xj, &l)| xj * l).collect();
        rot.mul(&mut lx);
        for i in 0..n {
            let mut tz = zx[i] * d[i];
            if i > 0 {
                tz += zx[i - 1] * e[i - 1];
            }
            if i + 1 < n {
                tz += zx[i + 1] * e[i];
            }
            prop_assert!((tz - lx[i]).norm() <= 1e-13 * n as f64 * norm_t * nb);
        }
    }
}
