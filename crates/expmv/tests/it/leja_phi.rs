//! φ-functions by Leja interpolation of the augmented operator, against the dense φ of
//! `matexp-dense` (exponential of a block matrix).

use crate::leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, c64};
use matexp_dense::{Matrix, phi_vectors};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_1d};

fn dense_phis<S: matexp_core::Scalar>(a: &[S], n: usize, t: S, v: &[S], p: usize) -> Vec<Vec<S>> {
    let m = Matrix::from_row_major(n, n, a).unwrap().scaled(t);
    phi_vectors(&m, v, p).unwrap()
}

#[test]
fn phi_k_of_diffusion_and_advection_match_dense() {
    let cpu = CpuBackend::new();
    let n = 40;
    let problems: Vec<(&str, Vec<f64>)> = vec![
        (
            "laplace",
            laplacian_1d::<f64, u32>(n).unwrap().to_dense().unwrap(),
        ),
        ("advdiff", advection_diffusion_1d(n, 20.0)),
    ];
    for (name, dense) in &problems {
        let a = CsrMatrix::<f64, u32>::from_dense(n, n, dense).unwrap();
        let norm = a.gershgorin().unwrap().re_min.abs();
        let v = random_vector::<f64>(n, 21);
        for &ta in &[1.0, 1e2, 1e4] {
            let t = ta / norm;
            let reference = dense_phis(dense, n, t, &v, 4);
            for &tol in &[1e-6, 1e-10] {
                let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(tol)).unwrap();
                for k in 1..=4 {
                    let mut w = vec![0.0; n];
                    let r = leja.phimv_k(&a, k, t, &v, &mut w).unwrap();
                    let err = rel_err(&w, &reference[k]);
                    assert!(
                        err <= 10.0 * tol,
                        "{name} φ_{k} ‖tA‖ = {ta:e} tol {tol:e}: error {err:.2e} ({} products, {} substeps)",
                        r.matvecs,
                        r.substeps
                    );
                }
            }
        }
    }
}

#[test]
fn phi_combination_over_several_times_matches_dense() {
    // u(t) = e^{tA}b₀ + tφ₁(tA)b₁ + t²φ₂(tA)b₂: the solution of u' = Au + b₁ + t·b₂.
    let cpu = CpuBackend::new();
    let n = 30;
    let a = laplacian_1d::<f64, u32>(n).unwrap();
    let dense = a.to_dense().unwrap();
    let bs: Vec<Vec<f64>> = (0..3).map(|j| random_vector::<f64>(n, 40 + j)).collect();
    let times = [0.0, 1e-3, 0.01, 0.05];
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-9)).unwrap();
    let mut out = vec![vec![0.0; n]; times.len()];
    let refs: Vec<&Vec<f64>> = bs.iter().collect();
    let r = leja
        .phi_combination_times(&a, &times, &refs, &mut out)
        .unwrap();
    assert!(r.converged);
    for (i, &t) in times.iter().enumerate() {
        let phis: Vec<Vec<Vec<f64>>> = (0..3)
            .map(|j| dense_phis(&dense, n, t, &bs[j], 2))
            .collect();
        let exact: Vec<f64> = (0..n)
            .map(|r| phis[0][0][r] + t * phis[1][1][r] + t * t * phis[2][2][r])
            .collect();
        let err = rel_err(&out[i], &exact);
        assert!(err <= 1e-8, "t = {t}: error {err:.2e}");
    }
    // The same combination at one time through `phi_combination`.
    let mut w = vec![0.0; n];
    leja.phi_combination(&a, 0.05, &refs, &mut w).unwrap();
    assert!(rel_err(&w, &out[3]) <= 1e-8);
}

#[test]
fn phi_1_of_the_schrodinger_generator_matches_dense() {
    // φ₁(−isH)v for the spin-bath H, with complex t = −is on the real focal interval of H.
    let cpu = CpuBackend::new();
    let model = SpinBath::seed000(6, 1).unwrap();
    let h = model.hamiltonian::<c64, u32>(StoredZeros::Drop).unwrap();
    let n = h.nrows();
    let dense = h.to_dense().unwrap();
    let v = model.initial_state::<c64>(2).unwrap();
    for &s in &[0.5, 5.0, 20.0] {
        let t = c64::new(0.0, -s);
        let reference = dense_phis(&dense, n, t, &v, 2);
        let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-10)).unwrap();
        for k in 1..=2 {
            let mut w = vec![c64::new(0.0, 0.0); n];
            leja.phimv_k(&h, k, t, &v, &mut w).unwrap();
            let err = rel_err(&w, &reference[k]);
            assert!(err <= 1e-9, "s = {s} φ_{k}: error {err:.2e}");
        }
    }
}

#[test]
fn phi_at_time_zero_and_of_a_scalar() {
    let cpu = CpuBackend::new();
    let op = DenseMatrixOperator::new(1, 1, vec![-3.0]).unwrap();
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-12)).unwrap();
    let mut w = vec![0.0];
    for k in 0..=4usize {
        leja.phimv_k(&op, k, 0.0, &vec![2.0], &mut w).unwrap();
        let kfact: f64 = (1..=k).map(|i| i as f64).product();
        assert_eq!(w[0], 2.0 / kfact);
    }
    // φ₃(−3) = (e^{−3} − 1 + 3 − 9/2)/(−27).
    leja.phimv_k(&op, 3, 1.0, &vec![1.0], &mut w).unwrap();
    let z: f64 = -3.0;
    let exact = (z.exp() - 1.0 - z - z * z / 2.0) / (z * z * z);
    assert!(
        (w[0] - exact).abs() <= 1e-11 * exact.abs(),
        "{} vs {exact}",
        w[0]
    );
}
