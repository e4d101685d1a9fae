//! Total communicability e^{βA}·1 of graphs (seed 002): the two 10-node fixtures against the
//! dense exponential and their published four-decimal values, the overflow-safe range and
//! the typed errors.

use matexp_core::{CpuBackend, DenseMatrixOperator, Error, LinearOperator};
use matexp_dense::{Matrix, expm};
use matexp_graph::{CommunicabilityOptions, total_communicability};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn rel_err(x: &[f64], y: &[f64]) -> f64 {
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    matexp_core::norms::nrm2(&d) / matexp_core::norms::nrm2(y)
}

fn adjacency(n: usize, edges: &[(usize, usize)]) -> Matrix<f64> {
    let mut a = Matrix::<f64>::zeros(n, n);
    for &(i, j) in edges {
        a[(i - 1, j - 1)] = 1.0;
        a[(j - 1, i - 1)] = 1.0;
    }
    a
}

fn operator(a: &Matrix<f64>) -> DenseMatrixOperator<f64> {
    DenseMatrixOperator::new(a.nrows(), a.ncols(), a.to_row_major()).unwrap()
}

fn dense_tc(a: &Matrix<f64>, beta: f64) -> Vec<f64> {
    expm(&a.scaled(beta))
        .unwrap()
        .matvec(&vec![1.0; a.nrows()])
        .unwrap()
}

fn check_fixture(edges: &[(usize, usize)], published: &[f64]) {
    let a = adjacency(10, edges);
    let op = operator(&a);
    assert!(LinearOperator::<CpuBackend, f64>::is_hermitian(&op));
    let cpu = CpuBackend::new();
    let reference = dense_tc(&a, 1.0);
    // rtol 1e-12: the rounding floor of a report, ROUNDING_FACTOR·ε·(1 + products) ≈ 1.6e-13
    // for the ~10 products of a 10-node graph, is above 1e-13, which no report can certify.
    // The entries are still checked to 1e-12 of the dense exponential.
    let rtol = 1e-12;
    for two_pass in [false, true] {
        let opts = CommunicabilityOptions::default()
            .with_rtol(rtol)
            .with_two_pass(two_pass);
        let (tc, report) = total_communicability(&cpu, &op, 1.0, &opts).unwrap();
        assert!(
            report.converged && report.rel_error_estimate <= rtol,
            "{report}"
        );
        for i in 0..10 {
            assert!(
                (tc[i] - reference[i]).abs() <= 1e-12 * reference[i],
                "node {}: {} vs dense {}",
                i + 1,
                tc[i],
                reference[i]
            );
            // The published values are rounded to four decimals.
            assert!(
                (tc[i] - published[i]).abs() <= 0.5e-4 + 1e-12,
                "node {}: {:.6} vs published {:.4}",
                i + 1,
                tc[i],
                published[i]
            );
        }
    }
}

#[test]
fn table_1_graph() {
    check_fixture(
        &[
            (1, 10),
            (2, 5),
            (2, 8),
            (2, 10),
            (3, 6),
            (3, 7),
            (3, 8),
            (4, 5),
            (5, 10),
            (8, 9),
            (9, 10),
        ],
        &[
            7.7820, 18.9721, 11.3401, 6.6374, 16.6738, 5.3637, 5.3637, 16.1898, 13.3347, 20.4108,
        ],
    );
}

#[test]
fn table_2_dumbbell_graph() {
    check_fixture(
        &[
            (1, 4),
            (1, 5),
            (1, 10),
            (2, 3),
            (2, 4),
            (2, 5),
            (3, 4),
            (3, 5),
            (4, 5),
            (6, 8),
            (6, 9),
            (7, 8),
            (7, 9),
            (7, 10),
        ],
        &[
            24.5539, 28.1522, 28.1522, 33.8338, 33.8338, 8.1754, 12.5824, 9.0379, 9.0379, 12.9328,
        ],
    );
}

/// A seeded Erdős–Rényi graph, n nodes, edge probability p.
fn random_graph(n: usize, p: f64, seed: u64) -> Matrix<f64> {
    let mut r = rng(seed);
    let mut edges = Vec::new();
    for i in 1..=n {
        for j in i + 1..=n {
            if r.random_bool(p) {
                edges.push((i, j));
            }
        }
    }
    adjacency(n, &edges)
}

#[test]
fn centralities_near_1e195_are_computed_without_overflow() {
    let a = random_graph(120, 0.08, 9);
    let (lam, _) = matexp_dense::eigh(&a).unwrap();
    let lmax = *lam.last().unwrap();
    // β·λ_max = 449: e^{βA}·1 ≈ 1e195, whose square overflows.
    let beta = 449.0 / lmax;
    let reference = dense_tc(&a, beta);
    let big = reference.iter().cloned().fold(0.0, f64::max);
    assert!(big > 1e190 && big < 1e200, "reference max {big:e}");
    let cpu = CpuBackend::new();
    let op = operator(&a);
    for two_pass in [false, true] {
        let opts = CommunicabilityOptions::default()
            .with_rtol(1e-12)
            .with_two_pass(two_pass);
        let (tc, report) = total_communicability(&cpu, &op, beta, &opts).unwrap();
        let err = rel_err(&tc, &reference);
        assert!(err <= 1e-11, "two_pass = {two_pass}: {err:e}");
        assert!(report.error_estimate.is_finite() && report.error_estimate < 1e-10 * big * 30.0);
    }
    // Beyond the range: a typed error, not ∞ or NaN.
    let beyond = total_communicability(&cpu, &op, 800.0 / lmax, &Default::default());
    assert!(matches!(beyond, Err(Error::NonFinite { .. })), "{beyond:?}");
    // In single precision 1e195 is beyond range as well.
    let a32 = a.map(|x| x as f32);
    let op32 = DenseMatrixOperator::new(120, 120, a32.to_row_major()).unwrap();
    let opts32 = CommunicabilityOptions::default().with_rtol(1e-5);
    let r32 = total_communicability(&cpu, &op32, beta as f32, &opts32);
    assert!(matches!(r32, Err(Error::NonFinite { .. })), "{r32:?}");
    // …but moderate values are fine in f32.
    let (tc32, _) = total_communicability(&cpu, &op32, (40.0 / lmax) as f32, &opts32).unwrap();
    let reference = dense_tc(&a, 40.0 / lmax);
    let tc64: Vec<f64> = tc32.iter().map(|&x| x as f64).collect();
    assert!(rel_err(&tc64, &reference) < 1e-4);
}

#[test]
fn bad_arguments_are_typed_errors_that_name_them() {
    let op = DenseMatrixOperator::new(2, 2, vec![0.0, 1.0, 1.0, 0.0]).unwrap();
    let cpu = CpuBackend::new();
    let e = total_communicability(&cpu, &op, f64::NAN, &Default::default()).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("beta"),
        "{e}"
    );
    // No vector to compare with: the vector of ones cannot be allocated. The core compares
    // its size with the memory budget first (OutOfMemoryBudget, needed > available); an
    // allocator's refusal names the length.
    let op = matexp_testkit::ClaimsOrder(1 << 61);
    match total_communicability(&cpu, &op, 1.0, &Default::default()) {
        Err(Error::OutOfMemoryBudget {
            needed, available, ..
        }) => assert!(
            needed > available && needed >= 1 << 61,
            "{needed} <= {available}"
        ),
        Err(e @ Error::InvalidArgument { .. }) => {
            assert!(e.to_string().contains("2305843009213693952"), "{e}")
        }
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("a result of 2^61 entries"),
    }
}
