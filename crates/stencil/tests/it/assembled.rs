//! The matrix-free operator against its assembled CSR matrix: every boundary kind and
//! coefficient, 2D and 3D, f32 and f64, random sizes and coefficients.

use crate::common;
use matexp_core::OperatorSteps;

use common::{KINDS, coefficient, dim, random_vec, rel_err};
use matexp_core::{CpuBackend, LinearOperator, RealScalar, Shifted, ShiftedStep};
use matexp_stencil::Stencil;
use proptest::prelude::*;

/// Checks apply, apply_shifted, the fused step and `Shifted` against the CSR matrix.
fn check<S: RealScalar>(three: bool, n: usize, kind: usize, coef: usize, seed: u64, tol: f64) {
    let len = if three { n * n * n } else { n * n };
    let op = Stencil::<S>::builder(dim(three), n)
        .boundary(KINDS[kind])
        .coefficient(coefficient(coef, len, seed))
        .build()
        .unwrap();
    let m = op.to_csr().unwrap();
    let cpu = CpuBackend;
    let x = random_vec::<S>(len, seed ^ 1);
    let y0 = random_vec::<S>(len, seed ^ 2);
    let (alpha, beta) = (S::from_f64(0.75), S::from_f64(-1.25));
    // Scale of the terms: ‖A‖·‖x‖ dominates every output.
    let floor = op.norm_bound().unwrap();
    let ctx = format!("{} n={n} {:?} coef={coef}", S::NAME, op.grid().boundary());

    let mut y = y0.clone();
    let mut y_ref = y0.clone();
    op.apply(&cpu, alpha, &x, beta, &mut y).unwrap();
    m.apply(&cpu, alpha, &x, beta, &mut y_ref).unwrap();
    assert!(
        rel_err(&y, &y_ref, floor) < tol,
        "apply {ctx}: {}",
        rel_err(&y, &y_ref, floor)
    );

    let mut z = vec![S::zero(); len];
    op.apply_shifted(alpha, beta, &x, &mut z).unwrap();
    let mut z_ref = x.clone();
    m.apply(&cpu, alpha, &x, beta, &mut z_ref).unwrap();
    assert!(rel_err(&z, &z_ref, floor) < tol, "apply_shifted {ctx}");

    // Shifted wraps the stencil and folds σ into its fused step.
    let shifted = Shifted::new(op.clone(), 3.0);
    let step = ShiftedStep {
        alpha,
        shift: beta,
        coeff: S::from_f64(0.5),
    };
    let (mut y_next, mut p) = (y0.clone(), random_vec::<S>(len, seed ^ 3));
    let p0 = p.clone();
    let norm = shifted
        .shifted_step(&cpu, &step, &x, &mut y_next, &mut p)
        .unwrap();
    let mut w_ref = x.clone();
    m.apply(&cpu, alpha, &x, beta + alpha * S::from_f64(3.0), &mut w_ref)
        .unwrap();
    assert!(rel_err(&y_next, &w_ref, floor) < tol, "shifted_step {ctx}");
    let p_ref: Vec<S> = p0
        .iter()
        .zip(&w_ref)
        .map(|(a, b)| *a + step.coeff * *b)
        .collect();
    assert!(
        rel_err(&p, &p_ref, floor) < tol,
        "shifted_step accumulation {ctx}"
    );
    let norm_ref = w_ref.iter().map(|v| v.as_f64().powi(2)).sum::<f64>().sqrt();
    assert!(
        (norm.as_f64() - norm_ref).abs() <= tol * floor.max(norm_ref) * (len as f64).sqrt(),
        "shifted_step norm {ctx}: {norm} vs {norm_ref}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn operator_equals_assembled_matrix_3d(n in 1usize..9, kind in 0usize..4, coef in 0usize..3, seed in any::<u64>()) {
        check::<f64>(true, n, kind, coef, seed, 1e-13);
        check::<f32>(true, n, kind, coef, seed, 5e-6);
    }

    #[test]
    fn operator_equals_assembled_matrix_2d(n in 1usize..24, kind in 0usize..4, coef in 0usize..3, seed in any::<u64>()) {
        check::<f64>(false, n, kind, coef, seed, 1e-13);
        check::<f32>(false, n, kind, coef, seed, 5e-6);
    }
}

#[test]
fn every_kind_and_coefficient_at_a_fixed_size() {
    for kind in 0..4 {
        for coef in 0..3 {
            for three in [false, true] {
                check::<f64>(three, 7, kind, coef, 42, 1e-13);
                check::<f32>(three, 7, kind, coef, 42, 5e-6);
            }
        }
    }
}

#[test]
fn symmetric_kinds_assemble_symmetric_matrices() {
    for kind in 0..3 {
        for three in [false, true] {
            let op = Stencil::<f64>::laplacian(dim(three), 5, KINDS[kind]).unwrap();
            let m = op.to_csr().unwrap();
            assert!(LinearOperator::<CpuBackend, f64>::is_hermitian(&op));
            assert!(m.is_symmetric(), "{:?}", KINDS[kind]);
        }
    }
    let frame = Stencil::<f64>::laplacian(common::dim(true), 5, KINDS[3]).unwrap();
    assert!(!LinearOperator::<CpuBackend, f64>::is_hermitian(&frame));
    assert!(!frame.to_csr().unwrap().is_symmetric());
}

#[test]
fn dimension_errors_are_typed() {
    let op = Stencil::<f64>::laplacian(dim(true), 4, KINDS[0]).unwrap();
    let mut y = vec![0.0; 63];
    let e = op.apply(&CpuBackend, 1.0, &vec![0.0; 64], 0.0, &mut y);
    assert!(matches!(
        e,
        Err(matexp_core::Error::DimensionMismatch { .. })
    ));
}

#[test]
fn dirichlet_assembly_equals_the_sparse_generators() {
    for n in [1, 2, 5, 9] {
        let a3 = Stencil::<f64>::laplacian(dim(true), n, KINDS[0])
            .unwrap()
            .to_csr()
            .unwrap();
        let g3 = matexp_sparse::generators::laplacian_3d::<f64, u32>(n).unwrap();
        assert_eq!(a3.to_dense().unwrap(), g3.to_dense().unwrap(), "3D n = {n}");
        let a2 = Stencil::<f64>::laplacian(dim(false), n, KINDS[0])
            .unwrap()
            .to_csr()
            .unwrap();
        let g2 = matexp_sparse::generators::laplacian_2d::<f64, u32>(n).unwrap();
        assert_eq!(a2.to_dense().unwrap(), g2.to_dense().unwrap(), "2D n = {n}");
    }
}
