//! φ-functions against 256-bit series, the recurrence A·φ_k(A) = φ_{k−1}(A) − I/(k−1)!, and
//! eigen-decompositions.

use crate::common;

use common::*;
use dashu_float::FBig;
use matexp_core::{Scalar, c64};
use matexp_dense::{Matrix, phi_functions, phi_scalar, phi_vectors};

/// φ_k(z) = Σ_j z^j/(j+k)! summed in 256-bit arithmetic (real and imaginary parts).
fn phi_reference(k: usize, z: c64) -> c64 {
    let p = 256;
    let hp = |x: f64| -> FBig { FBig::try_from(x).unwrap().with_precision(p).value() };
    let (zr, zi) = (hp(z.re), hp(z.im));
    let mut tr = hp(1.0);
    let mut ti = hp(0.0);
    for i in 1..=k {
        tr = &tr / i as u32;
    }
    let (mut sr, mut si) = (tr.clone(), ti.clone());
    for j in 1..400u32 {
        let nr = &tr * &zr - &ti * &zi;
        let ni = &tr * &zi + &ti * &zr;
        tr = nr / (j + k as u32);
        ti = ni / (j + k as u32);
        sr = &sr + &tr;
        si = &si + &ti;
    }
    c64::new(sr.to_f64().value(), si.to_f64().value())
}

#[test]
fn scalar_phi_matches_the_series_in_high_precision() {
    let zs = [
        c64::new(0.0, 0.0),
        c64::new(1e-9, 0.0),
        c64::new(-0.7, 0.0),
        c64::new(0.99, 0.0),
        c64::new(1.0, 0.0),
        c64::new(-3.0, 0.0),
        c64::new(12.0, 0.0),
        c64::new(-45.0, 0.0),
        c64::new(0.0, 2.5),
        c64::new(-1.5, 30.0),
    ];
    for k in 0..=4 {
        for &z in &zs {
            let want = phi_reference(k, z);
            let got = phi_scalar(k, z).unwrap();
            // The upward recurrence loses about k!·u near |z| = 1 (documented).
            let tol = 1e-15 * (1..=k).product::<usize>().max(1) as f64 * 8.0;
            assert!(
                (got - want).norm() <= tol * want.norm(),
                "φ_{k}({z}): {got} vs {want}"
            );
            if z.im == 0.0 {
                let r = phi_scalar(k, z.re).unwrap();
                assert!((r - want.re).abs() <= tol * want.norm());
            }
        }
    }
}

#[test]
fn phi_functions_of_a_diagonalizable_matrix() {
    // A = V·D·V⁻¹ with V = [[1, 1, 0], [0, 1, 1], [0, 0, 1]], V⁻¹ known exactly.
    let v = Matrix::<f64>::from_row_major(3, 3, &[1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
        .unwrap();
    let vinv =
        Matrix::<f64>::from_row_major(3, 3, &[1.0, -1.0, 1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0])
            .unwrap();
    let d = [-20.0, -1e-3, 2.0];
    let a = reconstruct(&v, &d, &vinv);
    let phis = phi_functions(&a, 4).unwrap();
    for (k, phik) in phis.iter().enumerate() {
        let fd: Vec<f64> = d
            .iter()
            .map(|&x| phi_reference(k, c64::new(x, 0.0)).re)
            .collect();
        let want = reconstruct(&v, &fd, &vinv);
        let e = rel_err(phik, &want);
        assert!(e < 1e-14, "φ_{k}: {e:e}");
    }
}

#[test]
fn recurrence_a_phi_k_equals_phi_km1_minus_identity_over_factorial() {
    for (seed, scale) in [(1u64, 0.1), (2, 3.0), (3, 40.0)] {
        let a = random_matrix::<c64>(6, seed).scaled(c64::new(scale, 0.0));
        let phis = phi_functions(&a, 3).unwrap();
        let mut fact = 1.0;
        for k in 1..=3 {
            let lhs = a.matmul(&phis[k]).unwrap();
            let mut rhs = phis[k - 1].clone();
            rhs.add_identity(c64::new(-1.0 / fact, 0.0)).unwrap();
            fact *= k as f64;
            let e = rel_err(&lhs, &rhs);
            // Relative to ‖φ_{k−1}(A)‖, the identity holds to O(u·‖A‖).
            assert!(
                e < 1e-14 * scale.max(1.0) * 10.0,
                "seed {seed}, k={k}: {e:e}"
            );
        }
    }
}

#[test]
fn phi_vectors_agree_with_phi_functions_and_scale_with_b() {
    let a = random_matrix::<f64>(7, 9).scaled(5.0);
    let phis = phi_functions(&a, 3).unwrap();
    for bscale in [1e-12, 1.0, 1e12] {
        let b: Vec<f64> = (0..7).map(|i| bscale * (i as f64 - 2.5)).collect();
        let w = phi_vectors(&a, &b, 3).unwrap();
        assert_eq!(w.len(), 4);
        for k in 0..=3 {
            let want = phis[k].matvec(&b).unwrap();
            let nrm = want.iter().map(|x| x * x).sum::<f64>().sqrt();
            let err = w[k]
                .iter()
                .zip(&want)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                err <= 1e-13 * nrm,
                "k={k}, ‖b‖ scale {bscale}: {err:e} vs {nrm:e}"
            );
        }
    }
    // p = 0 is e^A b.
    let w0 = phi_vectors(&a, &[1.0; 7], 0).unwrap();
    assert_eq!(w0.len(), 1);
}

#[test]
fn scalar_phi_is_generic() {
    let z = phi_scalar(1, c64::new(0.0, 1.0).scale(0.5)).unwrap();
    let want = (c64::new(0.0, 0.5).exp() - 1.0) / c64::new(0.0, 0.5);
    assert!((z - want).norm() < 1e-15);
    assert!((phi_scalar(1, 2.0f32).unwrap() - (2f32.exp() - 1.0) / 2.0).abs() < 1e-6);
    assert_eq!(c64::NAME, "c64");
}

/// φ_k for k = 17…30 (beyond the former limit of 16): scalars on both sides of every regime
/// split, real and complex, and φ_k(A) of a small non-normal matrix through the augmented
/// exponential, against 256-bit series.
#[test]
fn phi_orders_17_to_30_match_the_series_in_high_precision() {
    let zs = [
        c64::new(0.0, 0.0),
        c64::new(0.3, 0.0),
        c64::new(-1.0, 0.0),
        c64::new(-7.5, 0.0),
        c64::new(-33.0, 0.0),
        c64::new(-59.0, 0.0),
        c64::new(25.0, 0.0),
        c64::new(58.0, 0.0),
        c64::new(0.0, 20.0),
        c64::new(-10.0, 40.0),
        c64::new(3.0, -1.0),
    ];
    for k in 17..=30 {
        for &z in &zs {
            let want = phi_reference(k, z);
            let got = phi_scalar(k, z).unwrap();
            let tol = if z.im == 0.0 { 1e-13 } else { 1e-12 };
            assert!(
                (got - want).norm() <= tol * want.norm(),
                "φ_{k}({z}): {got} vs {want} (rel {:.1e})",
                (got - want).norm() / want.norm()
            );
            if z.im == 0.0 {
                let r = phi_scalar(k, z.re).unwrap();
                assert!(
                    (r - want.re).abs() <= 1e-13 * want.re.abs(),
                    "φ_{k}({})",
                    z.re
                );
            }
        }
    }
    // Upper triangular A (non-normal): φ_k(A) has the divided differences of φ_k at the
    // diagonal in its corner; compared entry-wise with φ_k(A) from the 256-bit power series
    // Σ_j A^j/(j+k)!, which the triangular entries make exact in that precision.
    let a = Matrix::<f64>::from_row_major(3, 3, &[-2.0, 1.5, 0.25, 0.0, -0.5, 2.0, 0.0, 0.0, 1.0])
        .unwrap();
    let phis = phi_functions(&a, 30).unwrap();
    for k in [17, 23, 30] {
        let want = phi_matrix_reference(&a, k);
        let err = rel_err(&phis[k], &want);
        assert!(err <= 1e-13, "φ_{k}(A): relative error {err:e}");
    }
    let b = [1.0, -2.0, 0.5];
    let w = phi_vectors(&a, &b, 30).unwrap();
    let want = phi_matrix_reference(&a, 30).matvec(&b).unwrap();
    let err: f64 = w[30]
        .iter()
        .zip(&want)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(err <= 1e-13 * scale, "φ_30(A)b: {err:e} of {scale:e}");
}

/// Σ_j A^j/(j+k)! for a small real A, in 256-bit arithmetic (‖A‖ ≤ 4: 200 terms suffice).
fn phi_matrix_reference(a: &Matrix<f64>, k: usize) -> Matrix<f64> {
    let n = a.nrows();
    let p = 256;
    let hp = |x: f64| -> FBig { FBig::try_from(x).unwrap().with_precision(p).value() };
    let ah: Vec<Vec<FBig>> = (0..n)
        .map(|i| (0..n).map(|j| hp(a[(i, j)])).collect())
        .collect();
    // term = A^j/(j+k)!, starting at I/k!.
    let mut term: Vec<Vec<FBig>> = (0..n)
        .map(|i| (0..n).map(|j| hp(if i == j { 1.0 } else { 0.0 })).collect())
        .collect();
    for i in 1..=k {
        for row in term.iter_mut() {
            for x in row.iter_mut() {
                *x = &*x / i as u32;
            }
        }
    }
    let mut sum = term.clone();
    for j in 1..200u32 {
        let next: Vec<Vec<FBig>> = (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| {
                        let mut acc = hp(0.0);
                        for l in 0..n {
                            acc += &ah[r][l] * &term[l][c];
                        }
                        acc / (j + k as u32)
                    })
                    .collect()
            })
            .collect();
        term = next;
        for r in 0..n {
            for c in 0..n {
                sum[r][c] = &sum[r][c] + &term[r][c];
            }
        }
    }
    Matrix::from_fn(n, n, |i, j| sum[i][j].to_f64().value())
}
