//! `expm` against analytic exponentials, a 256-bit Taylor reference and eigen-decompositions.

use crate::common;

use common::*;
use matexp_core::{RealScalar, Scalar, c32, c64};
use matexp_dense::{Matrix, eigh, expm, expm_with_info};
use proptest::prelude::*;

const U: f64 = f64::EPSILON / 2.0;

/// A = V·D·V⁻¹ with V = H·(I + N): H a Householder reflector (H⁻¹ = H), N strictly upper
/// triangular (so (I + N)⁻¹ = Σ (−N)^k is a finite sum). e^A = V·e^D·V⁻¹.
fn diagonalizable<S: Scalar>(d: &[S], seed: u64) -> (Matrix<S>, Matrix<S>) {
    let n = d.len();
    let u = random_matrix::<S>(n, seed).col(0).to_vec();
    let uu: f64 = u.iter().map(|x| x.modulus_sqr().as_f64()).sum();
    let h = Matrix::<S>::from_fn(n, n, |i, j| {
        let delta = if i == j { S::one() } else { S::zero() };
        delta - u[i] * u[j].conj() * S::from_f64(2.0 / uu)
    });
    let nmat = {
        let r = random_matrix::<S>(n, seed + 1);
        Matrix::<S>::from_fn(n, n, |i, j| {
            if j > i {
                r[(i, j)].scale(S::Real::from_f64(0.3))
            } else {
                S::zero()
            }
        })
    };
    let mut inv_ipn = Matrix::<S>::identity(n);
    let mut pow = Matrix::<S>::identity(n);
    for k in 1..n {
        pow = pow.matmul(&nmat).unwrap();
        inv_ipn
            .add_scaled(S::from_f64(if k % 2 == 1 { -1.0 } else { 1.0 }), &pow)
            .unwrap();
    }
    let mut ipn = nmat.clone();
    ipn.add_identity(S::one()).unwrap();
    let v = h.matmul(&ipn).unwrap();
    let vinv = inv_ipn.matmul(&h).unwrap();
    let a = reconstruct(&v, d, &vinv);
    let ed: Vec<S> = d.iter().map(|x| S::from_c64(x.to_c64().exp())).collect();
    (a, reconstruct(&v, &ed, &vinv))
}

#[test]
fn diagonalizable_real_and_complex() {
    let dr: Vec<f64> = (0..7).map(|k| -3.0 + 0.8 * k as f64).collect();
    let (a, r) = diagonalizable(&dr, 11);
    let e = rel_err(&expm(&a).unwrap(), &r);
    assert!(e < 1e-13, "real: {e:e}");
    let dc: Vec<c64> = (0..6)
        .map(|k| c64::new(-1.0 + 0.5 * k as f64, 2.0 - k as f64))
        .collect();
    let (a, r) = diagonalizable(&dc, 12);
    let e = rel_err(&expm(&a).unwrap(), &r);
    assert!(e < 1e-13, "complex: {e:e}");
}

#[test]
fn jordan_blocks_are_exact_entrywise() {
    // J = λI + cN: e^J_ij = e^λ c^{j−i}/(j−i)! for j ≥ i.
    for &(n, lambda, c) in &[
        (6usize, 0.0f64, 1.0f64),
        (10, -2.5, 10.0),
        (8, 1.0, 0.01),
        (12, -40.0, 3.0),
    ] {
        let j = Matrix::<f64>::from_fn(n, n, |i, k| {
            if i == k {
                lambda
            } else if k == i + 1 {
                c
            } else {
                0.0
            }
        });
        let x = expm(&j).unwrap();
        let mut fact = 1.0;
        for d in 0..n {
            if d > 0 {
                fact *= d as f64;
            }
            let want = lambda.exp() * c.powi(d as i32) / fact;
            for i in 0..n - d {
                let got = x[(i, i + d)];
                assert!(
                    (got - want).abs() <= 1e-13 * want.abs(),
                    "n={n} λ={lambda} c={c} d={d}: {got:e} vs {want:e}"
                );
            }
            for i in d.max(1)..n {
                if d > 0 {
                    assert_eq!(x[(i, i - d)], 0.0);
                }
            }
        }
    }
}

#[test]
fn rotation_generators_give_cos_and_sin_for_norms_up_to_1e4() {
    for &th in &[1e-8, 0.5, 3.0, 37.0, 1e3, 1e4] {
        let g = Matrix::<f64>::from_row_major(2, 2, &[0.0, -th, th, 0.0]).unwrap();
        let r = expm(&g).unwrap();
        let want = [th.cos(), -th.sin(), th.sin(), th.cos()];
        let got = r.to_row_major();
        let err = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        // Forward error of a well-conditioned normal problem: O(u·‖A‖).
        assert!(err <= 10.0 * U * th.max(1.0), "θ={th}: {err:e}");
        // The same generator as a complex skew-Hermitian matrix iθσ_y… e^{iθ} on the diagonal.
        let z = Matrix::<c64>::from_diagonal(&[c64::new(0.0, th), c64::new(0.0, -th)]);
        let ez = expm(&z).unwrap();
        assert!((ez[(0, 0)] - c64::new(0.0, th).exp()).norm() <= 10.0 * U * th.max(1.0));
    }
}

#[test]
fn laplacian_1d_through_its_eigenvectors_for_norms_1_to_1e4() {
    let n = 40;
    let (lambda, v) = laplacian_1d_eigen(n);
    for &norm in &[1.0, 10.0, 100.0, 1e3, 1e4] {
        // ‖tL‖₁ = 4t for the unscaled Laplacian.
        let t = norm / 4.0;
        let a = laplacian_1d(n, t);
        let el: Vec<f64> = lambda.iter().map(|l| (t * l).exp()).collect();
        let r = reconstruct(&v, &el, &v.transpose());
        let (x, info) = expm_with_info(&a).unwrap();
        let e = rel_err(&x, &r);
        // expm: O(u·‖A‖); the reference itself sums n rank-one terms (≈ n·u).
        let tol = 20.0 * U * norm.max(1.0) + 4.0 * n as f64 * U;
        assert!(e <= tol, "‖A‖₁={norm}: {e:e} > {tol:e} ({info:?})");
    }
}

#[test]
fn random_matrices_against_a_256_bit_taylor_reference() {
    let mut worst = 0.0f64;
    for (k, &scale) in [0.01, 0.3, 1.0, 3.0, 10.0].iter().enumerate() {
        for n in [3usize, 6] {
            let a = random_matrix::<f64>(n, 100 + k as u64 * 10 + n as u64).scaled(scale);
            let r = expm_high_precision(&a);
            let e = rel_err(&expm(&a).unwrap(), &r);
            worst = worst.max(e);
            assert!(
                e < 1e-13 * scale.max(1.0),
                "real n={n} scale={scale}: {e:e}"
            );
            let z = random_matrix::<c64>(n, 200 + k as u64 * 10 + n as u64)
                .scaled(c64::new(scale, 0.0));
            let r = expm_high_precision(&z);
            let e = rel_err(&expm(&z).unwrap(), &r);
            assert!(
                e < 1e-13 * scale.max(1.0),
                "complex n={n} scale={scale}: {e:e}"
            );
        }
    }
    assert!(
        worst > 0.0,
        "a reference that agrees to the last bit everywhere is suspicious"
    );
}

#[test]
fn symmetric_and_hermitian_against_eigendecomposition() {
    for (n, scale) in [(5usize, 1.0), (30, 20.0), (60, 100.0)] {
        let r = random_matrix::<f64>(n, n as u64);
        let a = Matrix::<f64>::from_fn(n, n, |i, j| scale * (r[(i, j)] + r[(j, i)]) / 2.0);
        let (w, v) = eigh(&a).unwrap();
        let ew: Vec<f64> = w.iter().map(|l| l.exp()).collect();
        let reference = reconstruct(&v, &ew, &v.transpose());
        let e = rel_err(&expm(&a).unwrap(), &reference);
        assert!(e < 20.0 * U * a.norm_one().max(1.0), "sym n={n}: {e:e}");

        let z = random_matrix::<c64>(n, 50 + n as u64);
        let h = Matrix::<c64>::from_fn(n, n, |i, j| {
            (z[(i, j)] + z[(j, i)].conj()).scale(scale / 2.0)
        });
        let (w, v) = eigh(&h).unwrap();
        // e^{−iH}: unitary, the Schrödinger propagator.
        let ew: Vec<c64> = w.iter().map(|l| c64::new(0.0, -l).exp()).collect();
        let reference = reconstruct(&v, &ew, &v.adjoint());
        let mih = h.scaled(c64::new(0.0, -1.0));
        let e = rel_err(&expm(&mih).unwrap(), &reference);
        assert!(e < 20.0 * U * h.norm_one().max(1.0), "herm n={n}: {e:e}");
    }
}

#[test]
fn single_precision_is_promoted() {
    let a = random_matrix::<f64>(5, 7).scaled(2.0);
    let r = expm(&a).unwrap();
    let a32 = a.map(|x| x as f32);
    let x32 = expm(&a32).unwrap();
    let e = rel_err(&x32.map(|x| x as f64), &r);
    // Rounding A to f32 perturbs the result by ~κ·u₃₂; the computation itself is in f64.
    assert!(e < 50.0 * f32::EPSILON as f64, "f32: {e:e}");
    let z = random_matrix::<c64>(4, 8);
    let rz = expm(&z).unwrap();
    let z32 = z.map(|x| c32::new(x.re as f32, x.im as f32));
    let e = rel_err(&expm(&z32).unwrap().map(|x| x.to_c64()), &rz);
    assert!(e < 50.0 * f32::EPSILON as f64, "c32: {e:e}");
}

#[test]
fn overflow_is_an_error_not_infinity() {
    let a = Matrix::<f64>::from_diagonal(&[800.0, 1.0]);
    assert!(matches!(
        expm(&a),
        Err(matexp_core::Error::NonFinite { .. })
    ));
    // Huge norm with a representable exponential: e^{−1e40·I}·… underflows to 0 cleanly.
    let b = Matrix::<f64>::from_diagonal(&[-1e40, -1.0]);
    let x = expm(&b).unwrap();
    assert_eq!(x[(0, 0)], 0.0);
    assert!((x[(1, 1)] - (-1f64).exp()).abs() < 1e-15);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// e^{(s+t)A} = e^{sA}·e^{tA} and e^{A}·e^{−A} = I for random A.
    #[test]
    fn semigroup_property(seed in 0u64..1000, s in 0.1f64..2.0, t in 0.1f64..2.0, n in 2usize..8) {
        let a = random_matrix::<f64>(n, seed);
        let lhs = expm(&a.scaled(s + t)).unwrap();
        let rhs = expm(&a.scaled(s)).unwrap().matmul(&expm(&a.scaled(t)).unwrap()).unwrap();
        let e = rel_err(&rhs, &lhs);
        prop_assert!(e < 1e-12, "{e:e}");
        let id = expm(&a).unwrap().matmul(&expm(&a.scaled(-1.0)).unwrap()).unwrap();
        prop_assert!(rel_err(&id, &Matrix::identity(n)) < 1e-12 * a.norm_one().exp());
    }
}
