//! Accuracy of Leja interpolation against analytic solutions and dense references, for
//! tolerances 1e−4 … 1e−12 and ‖tA‖ from 1 to 10⁴.
//!
//! The bound asserted is `10·tol + 100·ε·κ` with `κ = ‖e^{tA}‖·‖v‖/‖e^{tA}v‖` the condition
//! number of the product: a perturbation of `v` by one rounding (which every method, the
//! reference included, commits) changes `e^{tA}v` by up to `ε·κ` relatively. It matters only
//! where damping leaves `e^{tA}v` many orders below `‖e^{tA}‖·‖v‖` (an eigenvector of a
//! fast mode next to slower ones).

use crate::leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{
    SpinBath, StoredZeros, laplacian_1d, laplacian_2d, laplacian_3d, laplacian_eigenvalue,
};

const TOLS: [f64; 5] = [1e-4, 1e-6, 1e-8, 1e-10, 1e-12];

/// The grid function ⊗_a sin(π k_a x) of the Dirichlet Laplacian with N points per axis.
fn sine_mode(n: usize, k: &[usize]) -> Vec<f64> {
    let h = 1.0 / (n + 1) as f64;
    let total = n.pow(k.len() as u32);
    (0..total)
        .map(|mut idx| {
            let mut v = 1.0;
            for &ka in k {
                let i = idx % n + 1;
                idx /= n;
                v *= (std::f64::consts::PI * ka as f64 * i as f64 * h).sin();
            }
            v
        })
        .collect()
}

#[test]
fn laplacians_on_eigenvectors_match_the_analytic_decay() {
    let cpu = CpuBackend::new();
    // (matrix, N, mode, largest ‖tA‖): the slowest mode at every ‖tA‖ (κ = 1), a faster one
    // where damping leaves κ moderate.
    type Case = (CsrMatrix<f64, u32>, usize, Vec<usize>, f64);
    let cases: Vec<Case> = vec![
        (laplacian_1d(100).unwrap(), 100, vec![1], 1e4),
        (laplacian_1d(100).unwrap(), 100, vec![3], 1e3),
        (laplacian_2d(30).unwrap(), 30, vec![1, 1], 1e4),
        (laplacian_2d(30).unwrap(), 30, vec![2, 5], 1e2),
        (laplacian_3d(12).unwrap(), 12, vec![1, 1, 1], 1e4),
        (laplacian_3d(12).unwrap(), 12, vec![2, 1, 3], 1e2),
    ];
    for (a, n, k, ta_max) in &cases {
        let norm = a.gershgorin().unwrap().re_min.abs();
        let u0 = sine_mode(*n, k);
        let lambda = laplacian_eigenvalue(*n, k);
        let lambda_max = laplacian_eigenvalue(*n, &vec![1; k.len()]);
        for &ta in [1.0, 1e2, 1e4].iter().filter(|&&x| x <= *ta_max) {
            let t = ta / norm;
            let exact: Vec<f64> = u0.iter().map(|x| (t * lambda).exp() * x).collect();
            let kappa = (t * (lambda_max - lambda)).exp();
            assert!(
                kappa < 1e6,
                "case chosen so that the bound below is meaningful"
            );
            for &tol in &TOLS {
                let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
                let mut w = vec![0.0; u0.len()];
                let r = leja.expmv(a, t, &u0, &mut w).unwrap();
                let err = rel_err(&w, &exact);
                assert!(
                    err <= 10.0 * tol + 100.0 * f64::EPSILON * kappa,
                    "mode {k:?} ‖tA‖ = {ta:e} tol {tol:e}: error {err:.2e}, κ = {kappa:.1e} ({} products, degrees {:?})",
                    r.matvecs,
                    r.degrees
                );
            }
        }
    }
}

#[test]
fn laplacian_random_vectors_match_dense_expm() {
    let cpu = CpuBackend::new();
    for (a, label, lambda_max) in [
        (
            laplacian_1d::<f64, u32>(80).unwrap(),
            "1d",
            laplacian_eigenvalue(80, &[1]),
        ),
        (
            laplacian_2d::<f64, u32>(9).unwrap(),
            "2d",
            laplacian_eigenvalue(9, &[1, 1]),
        ),
        (
            laplacian_3d::<f64, u32>(7).unwrap(),
            "3d",
            laplacian_eigenvalue(7, &[1, 1, 1]),
        ),
    ] {
        let n = a.nrows();
        let dense = a.to_dense().unwrap();
        let norm = a.gershgorin().unwrap().re_min.abs();
        let v = random_vector::<f64>(n, 7);
        for &ta in &[1.0, 10.0, 1e2, 1e3, 1e4] {
            let t = ta / norm;
            let exact = dense_expmv(&dense, n, t, &v);
            let kappa = (t * lambda_max).exp() * norm2(&v) / norm2(&exact);
            assert!(kappa < 1e6);
            for &tol in &TOLS {
                let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
                let mut w = vec![0.0; n];
                let r = leja.expmv(&a, t, &v, &mut w).unwrap();
                let err = rel_err(&w, &exact);
                assert!(
                    err <= 10.0 * tol + 100.0 * f64::EPSILON * kappa,
                    "{label} ‖tA‖ = {ta:e} tol {tol:e}: error {err:.2e}, κ = {kappa:.1e} ({} products, {} substeps)",
                    r.matvecs,
                    r.substeps
                );
            }
        }
    }
}

#[test]
fn advection_diffusion_matches_dense_expm() {
    let cpu = CpuBackend::new();
    let n = 60;
    // Pe = 100 damps by e^{−t(π² + Pe²/4)}: e^{tA}v would underflow at ‖tA‖ = 10⁴.
    for (peclet, ta_max) in [(10.0, 1e4), (100.0, 1e3)] {
        let dense = advection_diffusion_1d(n, peclet);
        let a = CsrMatrix::<f64, u32>::from_dense(n, n, &dense).unwrap();
        let norm = a.gershgorin().unwrap().re_min.abs();
        let v = random_vector::<f64>(n, 11);
        for &ta in [1.0, 1e2, 1e3, 1e4].iter().filter(|&&x| x <= ta_max) {
            let t = ta / norm;
            let exact = dense_expmv(&dense, n, t, &v);
            for &tol in &TOLS {
                let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
                let mut w = vec![0.0; n];
                let r = leja.expmv(&a, t, &v, &mut w).unwrap();
                let err = rel_err(&w, &exact);
                assert!(
                    err <= 10.0 * tol,
                    "Pe {peclet} ‖tA‖ = {ta:e} tol {tol:e}: error {err:.2e} ({} products)",
                    r.matvecs
                );
            }
        }
    }
}

#[test]
fn spin_bath_schrodinger_matches_the_eigendecomposition() {
    let cpu = CpuBackend::new();
    for spins in [8usize, 10] {
        let model = SpinBath::seed000(spins, 3).unwrap();
        let h = model.hamiltonian::<c64, u32>(StoredZeros::Drop).unwrap();
        let hr = model.hamiltonian::<f64, u32>(StoredZeros::Drop).unwrap();
        let n = h.nrows();
        let propagator = HermitianPropagator::new(&hr.to_dense().unwrap(), n);
        let psi = model.initial_state::<c64>(5).unwrap();
        let b = hr.gershgorin().unwrap();
        let norm = b.re_min.abs().max(b.re_max.abs());
        for &ta in &[1.0, 1e2, 1e3, 1e4] {
            let t = ta / norm;
            let exact = propagator.apply(t, &psi);
            for &tol in &TOLS {
                let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
                let mut w = vec![c64::new(0.0, 0.0); n];
                let r = leja.schrodinger(&h, t, &psi, &mut w).unwrap();
                let err = rel_err(&w, &exact);
                assert!(
                    err <= 10.0 * tol,
                    "L = {spins} ‖tH‖ = {ta:e} tol {tol:e}: error {err:.2e} ({} products, degrees {:?})",
                    r.matvecs,
                    r.degrees
                );
            }
        }
    }
}

#[test]
fn skew_hermitian_generator_matches_dense_expm() {
    // G = −iH for a random sparse Hermitian H, given as the operator itself: its Gershgorin
    // box is imaginary-dominant and the focal interval imaginary.
    let cpu = CpuBackend::new();
    let n = 50;
    let r = random_vector::<c64>(n * n, 99);
    let mut h = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..=i {
            let z = r[i * n + j];
            if z.norm() > 0.9 || i == j {
                let v = if i == j { c64::new(z.re, 0.0) } else { z };
                h[i * n + j] = v;
                h[j * n + i] = v.conj();
            }
        }
    }
    let g: Vec<c64> = h.iter().map(|z| z * c64::new(0.0, -1.0)).collect();
    let op = DenseMatrixOperator::new(n, n, g.clone()).unwrap();
    let v = random_vector::<c64>(n, 3);
    for &t in &[0.5, 5.0, 50.0] {
        let exact = dense_expmv(&g, n, c64::new(t, 0.0), &v);
        for &tol in &TOLS {
            let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
            let mut w = vec![c64::new(0.0, 0.0); n];
            let rep = leja.expmv(&op, c64::new(t, 0.0), &v, &mut w).unwrap();
            let err = rel_err(&w, &exact);
            assert!(
                err <= 10.0 * tol,
                "t = {t} tol {tol:e}: error {err:.2e} ({} products)",
                rep.matvecs
            );
        }
    }
}
