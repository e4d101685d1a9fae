//! Invariants (proptest, few cases): semigroup, linearity, the φ recurrence, f32 vs f64.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator};
use matexp_dense::Matrix;
use matexp_expmv::*;
use proptest::prelude::*;
use rand::Rng;

static CPU: CpuBackend = CpuBackend;

/// Random n×n operator with ‖A‖₁ = norm; symmetric when asked.
fn random_problem(n: usize, norm: f64, symmetric: bool, seed: u64) -> Problem<f64> {
    let mut r = rng(seed);
    let m = Matrix::<f64>::from_fn(n, n, |_, _| r.random_range(-1.0..1.0));
    let a = if symmetric {
        Matrix::from_fn(n, n, |i, j| m[(i, j)] + m[(j, i)])
    } else {
        m
    };
    Problem::new("random", a).with_norm(norm)
}

fn tol() -> Tolerance {
    Tolerance::relative(1e-11)
}

#[derive(Debug, Clone, Copy)]
enum M {
    Lanczos,
    Arnoldi,
    Taylor,
}

fn expmv(m: M, op: &DenseMatrixOperator<f64>, t: f64, v: &[f64]) -> Vec<f64> {
    let v = v.to_vec();
    match m {
        M::Lanczos => lanczos_expmv(
            &CPU,
            op,
            t,
            &v,
            &LanczosOptions {
                tol: tol(),
                ..Default::default()
            },
        ),
        M::Arnoldi => arnoldi_expmv(
            &CPU,
            op,
            t,
            &v,
            &ArnoldiOptions {
                tol: tol(),
                ..Default::default()
            },
        ),
        M::Taylor => taylor_expmv(
            &CPU,
            op,
            t,
            &v,
            &TaylorOptions {
                tol: tol(),
                ..Default::default()
            },
        ),
    }
    .unwrap()
    .0
}

fn methods() -> impl Strategy<Value = (M, bool)> {
    prop_oneof![
        Just((M::Lanczos, true)),
        Just((M::Arnoldi, false)),
        Just((M::Taylor, false)),
        Just((M::Taylor, true))
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// e^{(s+t)A}v = e^{sA}(e^{tA}v).
    #[test]
    fn semigroup((m, sym) in methods(), seed in 0u64..1000, s in 0.05f64..1.0, t in 0.05f64..1.0, norm in 1.0f64..50.0) {
        let q = random_problem(24, norm, sym, seed);
        let v = start_vector::<f64>(24, seed);
        let both = expmv(m, &q.op, s + t, &v);
        let inner = expmv(m, &q.op, t, &v);
        let outer = expmv(m, &q.op, s, &inner);
        let e = rel_err(&outer, &both);
        prop_assert!(e < 1e-9, "{m:?}: {e:e}");
    }

    /// e^{tA}(αu + βv) = α·e^{tA}u + β·e^{tA}v.
    #[test]
    fn linearity((m, sym) in methods(), seed in 0u64..1000, alpha in -3.0f64..3.0, beta in -3.0f64..3.0) {
        let q = random_problem(20, 10.0, sym, seed);
        let u = start_vector::<f64>(20, seed);
        let v = start_vector::<f64>(20, seed + 1);
        let comb: Vec<f64> = u.iter().zip(&v).map(|(a, b)| alpha * a + beta * b).collect();
        let lhs = expmv(m, &q.op, 1.0, &comb);
        let (eu, ev) = (expmv(m, &q.op, 1.0, &u), expmv(m, &q.op, 1.0, &v));
        let rhs: Vec<f64> = eu.iter().zip(&ev).map(|(a, b)| alpha * a + beta * b).collect();
        let scale = alpha.abs() * matexp_core::norms::nrm2(&eu) + beta.abs() * matexp_core::norms::nrm2(&ev);
        let d: Vec<f64> = lhs.iter().zip(&rhs).map(|(a, b)| a - b).collect();
        prop_assert!(matexp_core::norms::nrm2(&d) <= 1e-9 * scale.max(1e-300));
    }

    /// tA·φ_{k+1}(tA)v = φ_k(tA)v − v/k!.
    #[test]
    fn phi_recurrence(seed in 0u64..1000, k in 0usize..3, t in 0.1f64..3.0, sym in any::<bool>()) {
        let q = random_problem(20, 8.0, sym, seed);
        let v = start_vector::<f64>(20, seed);
        let kfact: f64 = (1..=k).map(|i| i as f64).product();
        let phi = |order: usize| -> Vec<f64> {
            if sym {
                lanczos_phimv(&CPU, &q.op, t, &v, order, &LanczosOptions { tol: tol(), ..Default::default() }).unwrap().0
            } else {
                arnoldi_phimv(&CPU, &q.op, t, &v, order, &ArnoldiOptions { tol: tol(), ..Default::default() }).unwrap().0
            }
        };
        let (pk, pk1) = (phi(k), phi(k + 1));
        let lhs: Vec<f64> = q.a.matvec(&pk1).unwrap().iter().map(|x| t * x).collect();
        let rhs: Vec<f64> = pk.iter().zip(&v).map(|(a, b)| a - b / kfact).collect();
        let d: Vec<f64> = lhs.iter().zip(&rhs).map(|(a, b)| a - b).collect();
        let scale = matexp_core::norms::nrm2(&pk) + matexp_core::norms::nrm2(&v);
        prop_assert!(matexp_core::norms::nrm2(&d) <= 1e-8 * scale, "k={k}: {:e}", matexp_core::norms::nrm2(&d) / scale);
    }

    /// Single precision agrees with double to single-precision accuracy.
    #[test]
    fn f32_within_f32_tolerance_of_f64((m, sym) in methods(), seed in 0u64..1000, norm in 1.0f64..30.0) {
        let q = random_problem(16, norm, sym, seed);
        let v = start_vector::<f64>(16, seed);
        let w64 = expmv(m, &q.op, 1.0, &v);
        let op32 = DenseMatrixOperator::new(16, 16, q.a.map(|x| x as f32).to_row_major()).unwrap();
        let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let t32 = Tolerance::relative(1e-5);
        let w32 = match m {
            M::Lanczos => lanczos_expmv(&CPU, &op32, 1.0f32, &v32, &LanczosOptions { tol: t32, ..Default::default() }),
            M::Arnoldi => arnoldi_expmv(&CPU, &op32, 1.0f32, &v32, &ArnoldiOptions { tol: t32, ..Default::default() }),
            M::Taylor => taylor_expmv(&CPU, &op32, 1.0f32, &v32, &TaylorOptions { tol: t32, ..Default::default() }),
        }.unwrap().0;
        let w: Vec<f64> = w32.iter().map(|&x| x as f64).collect();
        let e = rel_err(&w, &w64);
        // Requested 1e−5, plus rounding of A and v to f32 amplified by κ_exp ≈ ‖A‖.
        prop_assert!(e <= 1e-4 + 10.0 * norm * f32::EPSILON as f64, "{m:?}: {e:e}");
    }
}
