//! The spectral estimator (`matexp_expmv::spectrum`: Gershgorin, Lanczos, power iteration)
//! against independent references: LAPACK's dense eigensolver (`matexp_dense::eigh` with
//! the `lapack` feature), analytic Laplacian spectra, and matrices with known eigenvalues;
//! and every rejected input.

use matexp_core::{
    CpuBackend, DenseMatrixOperator, Error, LinearOperator, Result, Scalar, SpectralBounds, c64,
};
use matexp_dense::{Matrix, eigh};
use matexp_expmv::spectrum::{
    GershgorinShape, RowEntries, SpectrumOptions, estimate_spectral_bounds, gershgorin_bounds,
    gershgorin_discs, lanczos_bounds, power_bounds,
};
use matexp_testkit::{assert_invalid as invalid_names, assert_non_finite as non_finite};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::f64::consts::PI;
use std::marker::PhantomData;
use std::sync::Mutex;

/// A matrix-free operator on the CPU from a closure `apply(x, y)` writing y = A·x.
struct FnOp<S, F> {
    n: usize,
    apply: Mutex<F>,
    hermitian: bool,
    scalar: PhantomData<fn() -> S>,
}

impl<S: Scalar, F: FnMut(&[S], &mut [S]) + Send> LinearOperator<CpuBackend, S> for FnOp<S, F> {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        let mut ax = vec![S::zero(); self.n];
        (self.apply.lock().unwrap())(x, &mut ax);
        for (yi, a) in y.iter_mut().zip(ax) {
            *yi = if beta == S::zero() {
                alpha * a
            } else {
                alpha * a + beta * *yi
            };
        }
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
}

/// A Hermitian operator of order n from a closure.
fn herm<S: Scalar, F: FnMut(&[S], &mut [S]) + Send>(n: usize, apply: F) -> FnOp<S, F> {
    FnOp {
        n,
        apply: Mutex::new(apply),
        hermitian: true,
        scalar: PhantomData,
    }
}

/// A general operator of order n from a closure.
fn general<S: Scalar, F: FnMut(&[S], &mut [S]) + Send>(n: usize, apply: F) -> FnOp<S, F> {
    FnOp {
        n,
        apply: Mutex::new(apply),
        hermitian: false,
        scalar: PhantomData,
    }
}

/// The power-iteration settings the former estimator took by default (100 steps).
fn power_100() -> SpectrumOptions {
    SpectrumOptions {
        power_steps: 100,
        ..SpectrumOptions::default()
    }
}

/// Eigenvalues (ascending) of a real symmetric matrix (row-major) by the dense
/// eigensolver: an algorithm independent of Lanczos and of the tridiagonal QL.
fn symmetric_eigenvalues(a: &[f64], n: usize) -> Vec<f64> {
    eigh(&Matrix::from_row_major(n, n, a).unwrap()).unwrap().0
}

/// Eigenvalues (ascending) of a Hermitian matrix (row-major).
fn hermitian_eigenvalues(h: &[c64], n: usize) -> Vec<f64> {
    eigh(&Matrix::from_row_major(n, n, h).unwrap()).unwrap().0
}

/// Eigenvalues of tridiag(1, −2, 1) of order n: −4 sin²(kπ/(2(n+1))), k = 1..n.
pub fn laplacian_1d_eigenvalue(k: usize, n: usize) -> f64 {
    let s = (k as f64 * PI / (2.0 * (n as f64 + 1.0))).sin();
    -4.0 * s * s
}

/// y = L x for the 1D Laplacian tridiag(1, −2, 1) (Dirichlet).
pub fn laplacian_1d(x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for i in 0..n {
        let mut v = -2.0 * x[i];
        if i > 0 {
            v += x[i - 1];
        }
        if i + 1 < n {
            v += x[i + 1];
        }
        y[i] = v;
    }
}

/// y = L x for the 2D 5-point Laplacian on an m × m grid (Dirichlet), unscaled.
pub fn laplacian_2d(m: usize, x: &[f64], y: &mut [f64]) {
    for iy in 0..m {
        for ix in 0..m {
            let i = ix + m * iy;
            let mut v = -4.0 * x[i];
            if ix > 0 {
                v += x[i - 1];
            }
            if ix + 1 < m {
                v += x[i + 1];
            }
            if iy > 0 {
                v += x[i - m];
            }
            if iy + 1 < m {
                v += x[i + m];
            }
            y[i] = v;
        }
    }
}

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

fn dense_apply<S: Scalar>(a: &[S], n: usize) -> impl FnMut(&[S], &mut [S]) + Send + '_ {
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
fn dense_reference_reproduces_the_analytic_laplacian() {
    let n = 12;
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i * n + i] = -2.0;
        if i + 1 < n {
            a[i * n + i + 1] = 1.0;
            a[(i + 1) * n + i] = 1.0;
        }
    }
    let got = symmetric_eigenvalues(&a, n);
    for (k, g) in got.iter().rev().enumerate() {
        assert!((g - laplacian_1d_eigenvalue(k + 1, n)).abs() < 1e-12);
    }
}

#[test]
fn gershgorin_of_the_laplacian_encloses_its_analytic_spectrum() {
    for n in [1usize, 2, 10, 1000] {
        let b = gershgorin_bounds(&Laplacian1d(n), GershgorinShape::Hermitian).unwrap();
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
    let b = gershgorin_bounds(&a, GershgorinShape::General).unwrap();
    for i in 0..n {
        let l = t[i * n + i];
        assert!(b.re_min <= l.re && l.re <= b.re_max && b.im_min <= l.im && l.im <= b.im_max);
    }
    // A real rotation generator has eigenvalues ±i: off the real axis, inside the box.
    let r = DenseMatrixOperator::new(2, 2, vec![0.0, -1.0, 1.0, 0.0]).unwrap();
    let b = gershgorin_bounds(&r, GershgorinShape::General).unwrap();
    assert!(b.im_min <= -1.0 && b.im_max >= 1.0);
    let discs = gershgorin_discs(&r).unwrap();
    assert_eq!(discs[0].radius, 1.0);
}

#[test]
fn lanczos_encloses_the_1d_laplacian_spectrum() {
    for n in [5usize, 50, 500, 5000] {
        let est = lanczos_bounds(
            &CpuBackend,
            &herm(n, laplacian_1d),
            &SpectrumOptions::default(),
        )
        .unwrap();
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
        let op = herm::<f64, _>(m * m, |x, y| laplacian_2d(m, x, y));
        let est = lanczos_bounds(&CpuBackend, &op, &SpectrumOptions::default()).unwrap();
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
    let op = herm::<f32, _>(n, |x, y| {
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let mut yd = vec![0.0; n];
        laplacian_1d(&xd, &mut yd);
        y.iter_mut().zip(&yd).for_each(|(a, b)| *a = *b as f32);
    });
    let est = lanczos_bounds(&CpuBackend, &op, &SpectrumOptions::default()).unwrap();
    assert!(est.bounds.re_min <= laplacian_1d_eigenvalue(n, n));
    assert!(est.bounds.re_max >= laplacian_1d_eigenvalue(1, n));
}

#[test]
fn lanczos_detects_an_invariant_subspace_and_is_then_exact() {
    // diag with three distinct eigenvalues: the Krylov space has dimension 3.
    let n = 90;
    let d = |i: usize| [-3.0, 0.5, 7.0][i % 3];
    let op = herm::<f64, _>(n, |x, y| {
        for i in 0..n {
            y[i] = d(i) * x[i];
        }
    });
    let no_margin = SpectrumOptions {
        lanczos_margin: 0.0,
        ..SpectrumOptions::default()
    };
    let est = lanczos_bounds(&CpuBackend, &op, &no_margin).unwrap();
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
    let est = power_bounds(&CpuBackend, &general(n, laplacian_1d), &power_100()).unwrap();
    let rho = -laplacian_1d_eigenvalue(n, n);
    assert!(
        est.radius >= rho && est.radius <= 1.1 * rho,
        "{est:?} vs {rho}"
    );
    assert_eq!(est.bounds.re_max, est.radius);

    let m = 50;
    let op = general::<f64, _>(2 * m, |x, y| {
        for b in 0..m {
            // Block b: s·[[3, −4], [4, 3]] with s = 1 for b = 0 and s < 1 otherwise.
            let s = 1.0 - b as f64 / (2.0 * m as f64);
            let (u, v) = (x[2 * b], x[2 * b + 1]);
            y[2 * b] = s * (3.0 * u - 4.0 * v);
            y[2 * b + 1] = s * (4.0 * u + 3.0 * v);
        }
    });
    let est = power_bounds(&CpuBackend, &op, &power_100()).unwrap();
    assert!(est.radius >= 5.0 && est.radius <= 5.5, "{est:?}");
}

#[test]
fn power_iteration_of_the_zero_operator_is_zero() {
    let op = general::<c64, _>(10, |_, y| {
        y.iter_mut().for_each(|v| *v = c64::new(0.0, 0.0))
    });
    let est = power_bounds(&CpuBackend, &op, &SpectrumOptions::default()).unwrap();
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
    let options = power_100();
    let op = Opaque {
        a: a.clone(),
        n,
        hermitian: true,
    };
    let b = estimate_spectral_bounds(&CpuBackend, &op, &options).unwrap();
    assert!(b.is_real() && encloses(&b, &ev, 0.0), "{b:?} vs {ev:?}");
    let op = Opaque {
        a,
        n,
        hermitian: false,
    };
    let b = estimate_spectral_bounds(&CpuBackend, &op, &options).unwrap();
    let rho = ev.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    assert!(!b.is_real() && b.re_max >= rho && b.im_max >= rho && b.re_min <= -rho);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn gershgorin_encloses_random_symmetric_spectra(n in 1usize..12, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let a = random_symmetric(n, &mut rng);
        let ev = symmetric_eigenvalues(&a, n);
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let b = gershgorin_bounds(&op, GershgorinShape::Hermitian).unwrap();
        prop_assert!(encloses(&b, &ev, 1e-12), "{:?} vs {:?}", b, ev);
    }

    #[test]
    fn gershgorin_encloses_random_hermitian_spectra(n in 1usize..10, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let h = random_hermitian(n, &mut rng);
        let ev = hermitian_eigenvalues(&h, n);
        let op = DenseMatrixOperator::new(n, n, h).unwrap();
        let b = gershgorin_bounds(&op, GershgorinShape::Hermitian).unwrap();
        prop_assert!(encloses(&b, &ev, 1e-12), "{:?} vs {:?}", b, ev);
        let boxed = gershgorin_bounds(&op, GershgorinShape::General).unwrap();
        prop_assert!(boxed.re_min <= b.re_min && boxed.re_max >= b.re_max);
    }

    #[test]
    fn lanczos_encloses_random_hermitian_spectra(n in 2usize..40, seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let h = random_hermitian(n, &mut rng);
        let ev = hermitian_eigenvalues(&h, n);
        let op = herm::<c64, _>(n, dense_apply(&h, n));
        let est = lanczos_bounds(&CpuBackend, &op, &SpectrumOptions::default().with_seed(seed)).unwrap();
        prop_assert!(encloses(&est.bounds, &ev, 0.0), "{:?} vs {:?}", est, ev);
    }

    #[test]
    fn lanczos_encloses_the_laplacian_for_any_seed(seed in any::<u64>(), n in 100usize..2000) {
        let op = herm(n, laplacian_1d);
        let est = lanczos_bounds(&CpuBackend, &op, &SpectrumOptions::default().with_seed(seed)).unwrap();
        prop_assert!(est.bounds.re_min <= laplacian_1d_eigenvalue(n, n));
        prop_assert!(est.bounds.re_max >= laplacian_1d_eigenvalue(1, n));
    }
}

struct Rows {
    n: usize,
    m: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl RowEntries<f64> for Rows {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.m
    }
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, row: usize, mut f: F) {
        for &(i, j, v) in &self.entries {
            if i == row {
                f(j, v);
            }
        }
    }
}

#[test]
fn bad_matrices_for_gershgorin() {
    let empty = Rows {
        n: 0,
        m: 0,
        entries: vec![],
    };
    invalid_names(
        gershgorin_bounds(&empty, GershgorinShape::Hermitian),
        "matrix",
        "zero-dimension",
    );
    let rect = Rows {
        n: 2,
        m: 3,
        entries: vec![(0, 0, 1.0)],
    };
    assert!(matches!(
        gershgorin_bounds(&rect, GershgorinShape::General),
        Err(Error::DimensionMismatch {
            expected: 2,
            found: 3,
            ..
        })
    ));
    let out_of_range = Rows {
        n: 2,
        m: 2,
        entries: vec![(1, 5, 1.0)],
    };
    assert!(matches!(
        gershgorin_bounds(&out_of_range, GershgorinShape::General),
        Err(Error::DimensionMismatch { found: 5, .. })
    ));
    let nan = Rows {
        n: 3,
        m: 3,
        entries: vec![(0, 0, 1.0), (2, 1, f64::NAN)],
    };
    non_finite(
        gershgorin_bounds(&nan, GershgorinShape::Hermitian),
        "matrix entry (2, 1)",
        2,
    );
    let overflow = Rows {
        n: 2,
        m: 2,
        entries: vec![(0, 1, f64::MAX), (0, 0, 0.0), (0, 1, f64::MAX)],
    };
    non_finite(
        gershgorin_bounds(&overflow, GershgorinShape::Hermitian),
        "Gershgorin disc of row 0",
        0,
    );
}

#[test]
fn zero_dimension_operators() {
    let id = |x: &[f64], y: &mut [f64]| y.copy_from_slice(x);
    let o = SpectrumOptions::default();
    invalid_names(
        lanczos_bounds(&CpuBackend, &herm(0, id), &o),
        "n",
        "zero-dimension",
    );
    invalid_names(
        power_bounds(&CpuBackend, &general(0, id), &o),
        "n",
        "zero-dimension",
    );
}

#[test]
fn non_finite_operator_output() {
    let nan_at_3 = |x: &[f64], y: &mut [f64]| {
        y.copy_from_slice(x);
        y[3] = f64::NAN;
    };
    let o = SpectrumOptions::default();
    non_finite(
        lanczos_bounds(&CpuBackend, &herm(10, nan_at_3), &o),
        "Lanczos spectral estimate, step 0",
        3,
    );
    // Overflow after a few steps: A = 1e100·I applied to unit vectors stays finite, so use
    // an operator that blows up on its third call.
    let mut calls = 0;
    let blow_up = |x: &[f64], y: &mut [f64]| {
        calls += 1;
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi = if calls == 3 { f64::INFINITY } else { 2.0 * xi };
        }
    };
    non_finite(
        power_bounds(&CpuBackend, &general(4, blow_up), &o),
        "power-iteration spectral estimate, step 2",
        0,
    );
    let c_nan = |_: &[c64], y: &mut [c64]| y.fill(c64::new(0.0, f64::NAN));
    non_finite(
        power_bounds(&CpuBackend, &general(2, c_nan), &o),
        "power-iteration",
        0,
    );
}

#[test]
fn bad_estimator_options() {
    let id = |x: &[f64], y: &mut [f64]| y.copy_from_slice(x);
    let zero_steps = SpectrumOptions {
        lanczos_steps: 0,
        ..SpectrumOptions::default()
    };
    invalid_names(
        lanczos_bounds(&CpuBackend, &herm(5, id), &zero_steps),
        "steps",
        "at least one",
    );
    let bad_margin = SpectrumOptions {
        power_margin: -0.1,
        ..SpectrumOptions::default()
    };
    invalid_names(
        power_bounds(&CpuBackend, &general(5, id), &bad_margin),
        "rel_margin",
        "non-negative",
    );
    let nan_margin = SpectrumOptions {
        lanczos_margin: f64::NAN,
        ..SpectrumOptions::default()
    };
    invalid_names(
        lanczos_bounds(&CpuBackend, &herm(5, id), &nan_margin),
        "rel_margin",
        "finite",
    );
}

/// An operator whose apply fails, and which is not square.
struct Failing {
    rows: usize,
    cols: usize,
}

impl LinearOperator<CpuBackend, f64> for Failing {
    fn nrows(&self) -> usize {
        self.rows
    }
    fn ncols(&self) -> usize {
        self.cols
    }
    fn apply(&self, _: &CpuBackend, _: f64, _: &Vec<f64>, _: f64, _: &mut Vec<f64>) -> Result<()> {
        Err(Error::Device("lost".into()))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

#[test]
fn operator_errors_propagate() {
    let o = SpectrumOptions::default();
    assert!(matches!(
        estimate_spectral_bounds(&CpuBackend, &Failing { rows: 3, cols: 4 }, &o),
        Err(Error::DimensionMismatch {
            expected: 3,
            found: 4,
            ..
        })
    ));
    assert!(matches!(
        estimate_spectral_bounds(&CpuBackend, &Failing { rows: 3, cols: 3 }, &o),
        Err(Error::Device(m)) if m == "lost"
    ));
    invalid_names(
        estimate_spectral_bounds(&CpuBackend, &Failing { rows: 0, cols: 0 }, &o),
        "n",
        "zero-dimension",
    );
}
