//! The symmetric tridiagonal eigensolver (implicit QL) against the crate's dense Jacobi
//! eigensolver, its rotations against its full eigenvectors and the equation T·Z = Z·Λ, and
//! its typed errors. (The hard cases — glued, graded, split and huge matrices — are the unit
//! tests of `src/tridiagonal.rs`.)

use matexp_core::{Error, c64};
use matexp_dense::{
    Matrix, eigh, symmetric_tridiagonal_eigen, symmetric_tridiagonal_eigenvalues,
    symmetric_tridiagonal_rotations,
};
use matexp_testkit::{assert_invalid, assert_non_finite as non_finite};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn bad_tridiagonals() {
    assert_invalid(
        symmetric_tridiagonal_eigenvalues(&[], &[]),
        "diag",
        "dimension zero",
    );
    assert!(matches!(
        symmetric_tridiagonal_eigen(&[1.0, 2.0, 3.0], &[1.0]),
        Err(Error::DimensionMismatch {
            expected: 2,
            found: 1,
            ..
        })
    ));
    non_finite(
        symmetric_tridiagonal_eigenvalues(&[1.0, 2.0], &[f64::INFINITY]),
        "off-diagonal",
        0,
    );
    non_finite(
        symmetric_tridiagonal_eigenvalues(&[1.0, f64::NAN], &[0.0]),
        "diagonal",
        1,
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]


    #[test]
    fn tridiagonal_solver_matches_the_dense_jacobi_solver(
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
        let want = eigh(&Matrix::from_row_major(n, n, &a).unwrap()).unwrap().0;
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
