//! Eigensolvers against analytic spectra, and every typed error of the crate.

use crate::common;

use common::*;
use matexp_core::{Error, c64};
use matexp_dense::{Matrix, eigh, eigh_tridiagonal, expm, phi_functions, phi_vectors, solve};

#[test]
fn tridiagonal_laplacian_has_its_analytic_spectrum() {
    let n = 120;
    let (lambda, z) = eigh_tridiagonal(&vec![-2.0; n], &vec![1.0; n - 1]).unwrap();
    let (mut exact, v) = laplacian_1d_eigen(n);
    exact.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for (l, e) in lambda.iter().zip(&exact) {
        assert!((l - e).abs() < 1e-14 * 4.0, "{l} vs {e}");
    }
    // Ascending order ↔ analytic index k = n, n−1, …, 1 (λ_k decreasing in k).
    for j in 0..n {
        let k = n - 1 - j;
        let dot: f64 = (0..n).map(|i| z[(i, j)] * v[(i, k)]).sum();
        assert!(
            (dot.abs() - 1.0).abs() < 1e-10,
            "eigenvector {j}: |⟨z, v⟩| = {}",
            dot.abs()
        );
    }
}

#[test]
fn hermitian_eigendecomposition_has_small_residual_and_orthonormal_vectors() {
    let n = 50;
    let r = random_matrix::<c64>(n, 4);
    let h = Matrix::<c64>::from_fn(n, n, |i, j| (r[(i, j)] + r[(j, i)].conj()) * 0.5);
    let (w, v) = eigh(&h).unwrap();
    assert!(w.windows(2).all(|p| p[0] <= p[1]));
    let hv = h.matmul(&v).unwrap();
    let vl = reconstruct(
        &v,
        &w.iter().map(|&x| c64::new(x, 0.0)).collect::<Vec<_>>(),
        &Matrix::identity(n),
    );
    assert!(rel_err(&hv, &vl) < 1e-13);
    let vhv = v.adjoint().matmul(&v).unwrap();
    assert!(rel_err(&vhv, &Matrix::identity(n)) < 1e-13);
    // Trace is preserved.
    let tr: f64 = w.iter().sum();
    assert!((tr - h.trace().re).abs() < 1e-12 * n as f64);
}

#[test]
fn non_square_input_is_a_dimension_mismatch() {
    let a = Matrix::<f64>::zeros(2, 3);
    for r in [
        expm(&a).map(|_| ()),
        phi_functions(&a, 1).map(|_| ()),
        phi_vectors(&a, &[0.0; 2], 1).map(|_| ()),
        eigh(&a).map(|_| ()),
        solve(&a, &Matrix::zeros(2, 1)).map(|_| ()),
    ] {
        match r {
            Err(Error::DimensionMismatch {
                expected: 2,
                found: 3,
                ..
            }) => {}
            other => panic!("expected DimensionMismatch, got {other:?}"),
        }
    }
    let sq = Matrix::<f64>::identity(3);
    assert!(matches!(
        phi_vectors(&sq, &[0.0; 2], 1),
        Err(Error::DimensionMismatch {
            expected: 3,
            found: 2,
            ..
        })
    ));
    assert!(matches!(
        solve(&sq, &Matrix::zeros(2, 1)),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        eigh_tridiagonal(&[1.0; 3], &[1.0; 3]),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn non_finite_input_is_reported_with_its_position() {
    let mut a = Matrix::<c64>::identity(3);
    a[(1, 2)] = c64::new(0.0, f64::NAN);
    for r in [
        expm(&a).map(|_| ()),
        phi_functions(&a, 2).map(|_| ()),
        eigh(&a).map(|_| ()),
    ] {
        match r {
            Err(Error::NonFinite { index, context, .. }) => {
                assert_eq!(index, 5, "row-major index of (1, 2)");
                assert!(context.contains("(1, 2)"), "{context}");
            }
            other => panic!("expected NonFinite, got {other:?}"),
        }
    }
    let id = Matrix::<f64>::identity(2);
    assert!(matches!(
        phi_vectors(&id, &[1.0, f64::INFINITY], 1),
        Err(Error::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        solve(&id, &Matrix::from_diagonal(&[f64::NAN, 1.0])),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn singular_matrices_carry_routine_and_info() {
    // LAPACK's convention on both kernels: info = the first zero pivot, 1-based.
    let want = if cfg!(feature = "lapack") {
        "LAPACKE_zgetrf2"
    } else {
        "zgetrf (matexp-dense, pure Rust)"
    };
    let a = Matrix::<c64>::zeros(3, 3);
    match solve(&a, &Matrix::identity(3)) {
        Err(Error::Lapack { routine, info: 1 }) if routine == want => {}
        other => panic!("expected a zgetrf failure, got {other:?}"),
    }
    let mut b = Matrix::<f64>::identity(3);
    b[(2, 2)] = 0.0;
    match solve(&b, &Matrix::identity(3)) {
        Err(Error::Lapack { info: 3, .. }) => {}
        other => panic!("expected info = 3, got {other:?}"),
    }
}

/// OpenBLAS's threaded `dgetrf` overflows a default 2 MiB thread stack for n ≈ 100; the
/// kernels used here must work in such threads (rayon workers, test threads).
#[test]
fn dense_kernels_run_in_threads_with_small_stacks() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            for n in [100usize, 250] {
                let a = laplacian_1d(n, 10.0);
                let x = expm(&a).unwrap();
                assert!(x.norm_one() > 0.0);
                let b = Matrix::<f64>::identity(n);
                let mut shifted = a.clone();
                shifted.add_identity(-1.0).unwrap();
                let s = solve(&shifted, &b).unwrap();
                assert!(s.norm_one().is_finite());
                let (w, _) = eigh(&a).unwrap();
                assert_eq!(w.len(), n);
                let z = random_matrix::<c64>(n, 3);
                assert!(expm(&z).unwrap().norm_one().is_finite());
            }
        })
        .unwrap();
    handle.join().expect("no crash in a 2 MiB thread");
}
