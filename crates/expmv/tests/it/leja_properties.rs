//! Invariants of the Leja methods on random operators (proptest, few cases).

use crate::leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, LinearOperator, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use proptest::prelude::*;

/// A random symmetric n×n matrix with entries in [−scale, scale] (row-major).
fn symmetric(n: usize, scale: f64, seed: u64) -> Vec<f64> {
    let r = random_vector::<f64>(n * n, seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let x = scale * r[i * n + j];
            a[i * n + j] = x;
            a[j * n + i] = x;
        }
    }
    a
}

fn expmv(op: &DenseMatrixOperator<f64>, t: f64, v: &[f64], rtol: f64) -> Vec<f64> {
    let cpu = CpuBackend::new();
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(rtol)).unwrap();
    let mut w = vec![0.0; v.len()];
    leja.expmv(op, t, &v.to_vec(), &mut w).unwrap();
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn semigroup(n in 3usize..16, scale in 0.1f64..4.0, s in 0.0f64..2.0, t in 0.0f64..2.0, seed in 0u64..1000) {
        let op = DenseMatrixOperator::new(n, n, symmetric(n, scale, seed)).unwrap();
        let v = random_vector::<f64>(n, seed + 1);
        let direct = expmv(&op, s + t, &v, 1e-12);
        let composed = expmv(&op, s, &expmv(&op, t, &v, 1e-12), 1e-12);
        prop_assert!(rel_err(&composed, &direct) <= 1e-10, "{:.2e}", rel_err(&composed, &direct));
    }

    #[test]
    fn schrodinger_semigroup(n in 3usize..12, s in 0.0f64..5.0, t in 0.0f64..5.0, seed in 0u64..1000) {
        let re = symmetric(n, 1.0, seed);
        let im = symmetric(n, 1.0, seed + 7);
        // H = S + iK with K antisymmetric is Hermitian.
        let h: Vec<c64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                let anti = if i < j { im[k] } else if i > j { -im[k] } else { 0.0 };
                c64::new(re[k], anti)
            })
            .collect();
        let op = DenseMatrixOperator::new(n, n, h).unwrap();
        let cpu = CpuBackend::new();
        let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-12)).unwrap();
        let v = random_vector::<c64>(n, seed + 3);
        let (mut a, mut b, mut c) = (vec![c64::new(0.0, 0.0); n], vec![c64::new(0.0, 0.0); n], vec![c64::new(0.0, 0.0); n]);
        leja.schrodinger(&op, s + t, &v, &mut a).unwrap();
        leja.schrodinger(&op, t, &v, &mut b).unwrap();
        leja.schrodinger(&op, s, &b, &mut c).unwrap();
        prop_assert!(rel_err(&c, &a) <= 1e-10, "{:.2e}", rel_err(&c, &a));
        prop_assert!((norm2(&a) - norm2(&v)).abs() <= 1e-10 * norm2(&v));
    }

    #[test]
    fn phi_recurrence(n in 3usize..14, scale in 0.1f64..3.0, t in 0.01f64..3.0, k in 0usize..4, seed in 0u64..1000) {
        // φ_k(tA)v = tA·φ_{k+1}(tA)v + v/k!
        let a = symmetric(n, scale, seed);
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let v = random_vector::<f64>(n, seed + 5);
        let cpu = CpuBackend::new();
        let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-12)).unwrap();
        let (mut pk, mut pk1) = (vec![0.0; n], vec![0.0; n]);
        leja.phimv_k(&op, k, t, &v, &mut pk).unwrap();
        leja.phimv_k(&op, k + 1, t, &v, &mut pk1).unwrap();
        let kfact: f64 = (1..=k).map(|i| i as f64).product();
        let mut rhs: Vec<f64> = v.iter().map(|x| x / kfact).collect();
        op.apply(&cpu, t, &pk1, 1.0, &mut rhs).unwrap();
        // The right side cancels by up to ‖tA‖·‖φ_{k+1}‖/‖φ_k‖.
        let scale_rhs = 1.0 + t * scale * n as f64 * norm2(&pk1) / norm2(&pk);
        prop_assert!(rel_err(&rhs, &pk) <= 1e-10 * scale_rhs, "{:.2e}", rel_err(&rhs, &pk));
    }

    #[test]
    fn linearity_in_v(n in 3usize..16, t in 0.0f64..2.0, alpha in -3.0f64..3.0, beta in -3.0f64..3.0, seed in 0u64..1000) {
        let op = DenseMatrixOperator::new(n, n, symmetric(n, 2.0, seed)).unwrap();
        let v = random_vector::<f64>(n, seed + 11);
        let w = random_vector::<f64>(n, seed + 12);
        let comb: Vec<f64> = v.iter().zip(&w).map(|(x, y)| alpha * x + beta * y).collect();
        let lhs = expmv(&op, t, &comb, 1e-12);
        let (ev, ew) = (expmv(&op, t, &v, 1e-12), expmv(&op, t, &w, 1e-12));
        let rhs: Vec<f64> = ev.iter().zip(&ew).map(|(x, y)| alpha * x + beta * y).collect();
        let size = alpha.abs() * norm2(&ev) + beta.abs() * norm2(&ew);
        let diff: Vec<f64> = lhs.iter().zip(&rhs).map(|(x, y)| x - y).collect();
        prop_assert!(norm2(&diff) <= 1e-10 * size, "{:.2e}", norm2(&diff) / size);
    }

    #[test]
    fn single_precision_follows_double(n in 3usize..16, scale in 0.1f64..3.0, t in 0.0f64..2.0, seed in 0u64..1000) {
        let a = symmetric(n, scale, seed);
        let v = random_vector::<f64>(n, seed + 13);
        let op64 = DenseMatrixOperator::new(n, n, a.clone()).unwrap();
        let op32 = DenseMatrixOperator::new(n, n, a.iter().map(|&x| x as f32).collect()).unwrap();
        let w64 = expmv(&op64, t, &v, 1e-12);
        let cpu = CpuBackend::new();
        let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-5)).unwrap();
        let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let mut w32 = vec![0.0f32; n];
        leja.expmv(&op32, t as f32, &v32, &mut w32).unwrap();
        let w32w: Vec<f64> = w32.iter().map(|&x| x as f64).collect();
        // Tolerance plus the f32 rounding of A, v and the arithmetic, amplified by the
        // condition number κ = ‖e^{tA}‖·‖v‖/‖e^{tA}v‖ (Frobenius norm as the bound).
        let e = matexp_dense::expm(&matexp_dense::Matrix::from_row_major(n, n, &a).unwrap().scaled(t)).unwrap();
        let kappa = e.norm_fro() * norm2(&v) / norm2(&w64);
        let bound = 10.0 * 1e-5 + 100.0 * f32::EPSILON as f64 * kappa;
        prop_assert!(rel_err(&w32w, &w64) <= bound, "{:.2e} > {bound:.2e}", rel_err(&w32w, &w64));
    }
}
