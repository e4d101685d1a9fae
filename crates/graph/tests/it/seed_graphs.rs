//! The seed's two 10-node graphs (Tables 1 and 2): total communicability, subgraph centrality
//! and the Estrada index by the Lanczos routines, against independent dense references:
//!
//! * mpmath's `expm` at 80 digits (`tests/data/make_references.py`, committed output
//!   `seed002_mpmath.txt`), for β = 1, 0.5, −1 and 3: the code under test must agree to
//!   1e−13 relative;
//! * matexp-dense's Padé `expm` of the assembled adjacency matrix (1e−13);
//! * SciPy's `scipy.linalg.expm` (the sparse crate's fixture), which is itself only accurate
//!   to about 1.3e−13 on the dumbbell's diagonal (measured against mpmath), hence 3e−13.

use matexp_core::CpuBackend;
use matexp_dense::{Matrix, expm};
use matexp_graph::{
    CommunicabilityOptions, DenseCentrality, ProbeOptions, QuadratureOptions,
    estrada_index_hutchpp, subgraph_centrality_quadrature, top_k, total_communicability,
};
use matexp_sparse::{PatternCsr, fixtures};

const TOL: f64 = 1e-13;
/// SciPy's double-precision expm is accurate to ~1.3e−13 on these graphs.
const SCIPY_TOL: f64 = 3e-13;

/// The mpmath reference: (measure, index) ↦ value for a graph and β.
fn mpmath(graph: &str, beta: &str, measure: &str) -> Vec<f64> {
    let text = include_str!("../data/seed002_mpmath.txt");
    let v: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| t[0] == graph && t[1] == beta && t[2] == measure)
        .map(|t| t[4].parse().unwrap())
        .collect();
    assert!(!v.is_empty(), "{graph} {beta} {measure}");
    v
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| rel(*x, *y))
        .fold(0.0, f64::max)
}

/// e^{A} of the graph by matexp-dense's Padé scaling and squaring.
fn pade_exp(g: &PatternCsr<u32>) -> Matrix<f64> {
    let n = g.nrows();
    let mut a = Matrix::<f64>::zeros(n, n);
    for i in 0..n {
        for &j in g.row(i) {
            a[(i, j as usize)] = 1.0;
        }
    }
    expm(&a).unwrap()
}

struct Case {
    name: &'static str,
    key: &'static str,
    graph: PatternCsr<u32>,
    /// SciPy columns: e^A·1, diag(e^A).
    scipy_tc: Vec<f64>,
    scipy_sc: Vec<f64>,
}

fn cases() -> Vec<Case> {
    let r = fixtures::seed002_references().unwrap();
    let col = |c: usize| r.data[10 * c..10 * c + 10].to_vec();
    vec![
        Case {
            name: "table 1",
            key: "table1",
            graph: fixtures::seed002_table1().unwrap(),
            scipy_tc: col(0),
            scipy_sc: col(1),
        },
        Case {
            name: "dumbbell",
            key: "dumbbell",
            graph: fixtures::seed002_dumbbell().unwrap(),
            scipy_tc: col(2),
            scipy_sc: col(3),
        },
    ]
}

fn quad() -> QuadratureOptions {
    QuadratureOptions {
        rtol: 1e-16,
        ..Default::default()
    }
}

#[test]
fn references_agree_with_each_other_and_the_thesis() {
    // The thesis prints four decimals: Estrada indices 28.2238 and 44.1073.
    for (case, ee) in cases().iter().zip([28.2238, 44.1073]) {
        let e = pade_exp(&case.graph);
        let pade_tc = e.matvec(&[1.0; 10]).unwrap();
        let pade_sc: Vec<f64> = (0..10).map(|i| e[(i, i)]).collect();
        let (mp_tc, mp_sc) = (mpmath(case.key, "1", "tc"), mpmath(case.key, "1", "sc"));
        assert!(max_rel(&pade_tc, &mp_tc) < TOL, "{}", case.name);
        assert!(max_rel(&pade_sc, &mp_sc) < TOL, "{}", case.name);
        assert!(max_rel(&case.scipy_tc, &mp_tc) < SCIPY_TOL, "{}", case.name);
        assert!(max_rel(&case.scipy_sc, &mp_sc) < SCIPY_TOL, "{}", case.name);
        let d = DenseCentrality::new(&case.graph, 1.0).unwrap();
        assert!(max_rel(&d.total_communicability, &mp_tc) < TOL);
        assert!(max_rel(&d.subgraph_centrality, &mp_sc) < TOL);
        let mp_ee = mpmath(case.key, "1", "ee")[0];
        assert!(rel(d.estrada_index, mp_ee) < TOL);
        assert!((mp_ee - ee).abs() < 6e-5, "{}: {mp_ee}", case.name);
    }
}

#[test]
fn total_communicability_matches_dense_references() {
    let cpu = CpuBackend::new();
    for case in cases() {
        // 1e−15 would lie below Lanczos' f64 rounding floor at k ≈ 12 (u·k ≈ 1.3e−15), which
        // it declines; the references are checked to TOL either way.
        let opts = CommunicabilityOptions {
            rtol: 1e-14,
            ..Default::default()
        };
        for two_pass in [false, true] {
            let (tc, rep) = total_communicability(
                &cpu,
                &case.graph,
                1.0,
                &CommunicabilityOptions { two_pass, ..opts },
            )
            .unwrap();
            let pade = pade_exp(&case.graph).matvec(&[1.0; 10]).unwrap();
            let e0 = max_rel(&tc, &mpmath(case.key, "1", "tc"));
            let e1 = max_rel(&tc, &case.scipy_tc);
            let e2 = max_rel(&tc, &pade);
            assert!(
                e0 < TOL && e1 < SCIPY_TOL && e2 < TOL,
                "{} two_pass={two_pass}: {e0:e} {e1:e} {e2:e}",
                case.name
            );
            // rtol 1e−14 lies below Lanczos' rounding floor: the answer is accurate (above),
            // and `converged` follows the rule of the report.
            assert_eq!(rep.converged, rep.rel_error_estimate <= 1e-14, "{rep:?}");
            // Breakdown (or agreement to roundoff) by dimension 12: at most 12 or 2·12 − 1
            // products.
            assert!(rep.matvecs <= if two_pass { 23 } else { 12 }, "{rep:?}");
        }
    }
}

#[test]
fn subgraph_centrality_matches_dense_references() {
    let cpu = CpuBackend::new();
    let nodes: Vec<usize> = (0..10).collect();
    for case in cases() {
        let e = pade_exp(&case.graph);
        for parallel in [false, true] {
            let sc = subgraph_centrality_quadrature::<_, f64, _>(
                &cpu,
                &case.graph,
                1.0,
                &nodes,
                &quad(),
                parallel,
            )
            .unwrap();
            let v: Vec<f64> = sc.iter().map(|f| f.value()).collect();
            let pade: Vec<f64> = (0..10).map(|i| e[(i, i)]).collect();
            let e0 = max_rel(&v, &mpmath(case.key, "1", "sc"));
            let (e1, e2) = (max_rel(&v, &case.scipy_sc), max_rel(&v, &pade));
            assert!(
                e0 < TOL && e1 < SCIPY_TOL && e2 < TOL,
                "{}: {e0:e} {e1:e} {e2:e}",
                case.name
            );
            // On a 10-node graph the Krylov space of e_i is exhausted after at most 10 steps
            // (breakdown), or the Gauss values stop changing at roundoff before.
            assert!(sc.iter().all(|f| f.converged && f.steps <= 10), "{sc:?}");
            for f in &sc {
                let u = f.ln_upper.unwrap();
                assert!(u >= f.ln_value - 1e-14);
            }
        }
    }
}

#[test]
fn estrada_index_matches_dense_references() {
    // Hutch++ with a sketch of rank n spans the whole space: the deflated trace is exact and
    // the residual probes are zero, so the estimate is deterministic.
    let cpu = CpuBackend::new();
    for case in cases() {
        let probes = ProbeOptions {
            sketch: 10,
            probes: 4,
            ..Default::default()
        };
        let est =
            estrada_index_hutchpp::<_, f64, _>(&cpu, &case.graph, 1.0, &probes, &quad()).unwrap();
        let e = pade_exp(&case.graph);
        let pade_ee: f64 = (0..10).map(|i| e[(i, i)]).sum();
        let mp_ee = mpmath(case.key, "1", "ee")[0];
        let scipy_ee: f64 = case.scipy_sc.iter().sum();
        let e0 = rel(est.value(), mp_ee);
        let (e1, e2) = (rel(est.value(), scipy_ee), rel(est.value(), pade_ee));
        assert!(
            e0 < TOL && e1 < SCIPY_TOL && e2 < TOL,
            "{}: {e0:e} {e1:e} {e2:e}",
            case.name
        );
        let (lo, hi) = est.interval();
        // A deterministic estimate: the interval is the point up to the quadrature allowance.
        assert!(hi - lo < 1e-12 * mp_ee, "{}: [{lo}, {hi}]", case.name);
        // The trace from the exact per-node quadratures agrees as well.
        let sc = subgraph_centrality_quadrature::<_, f64, _>(
            &cpu,
            &case.graph,
            1.0,
            &(0..10).collect::<Vec<_>>(),
            &quad(),
            false,
        )
        .unwrap();
        let sum: f64 = sc.iter().map(|f| f.value()).sum();
        assert!(rel(sum, mp_ee) < TOL);
    }
}

#[test]
fn rankings_follow_the_references() {
    let cpu = CpuBackend::new();
    let case = &cases()[0];
    let (tc, _) =
        total_communicability(&cpu, &case.graph, 1.0, &CommunicabilityOptions::default()).unwrap();
    let got: Vec<usize> = top_k(&tc, 3).unwrap().iter().map(|p| p.0).collect();
    let want: Vec<usize> = top_k(&case.scipy_tc, 3)
        .unwrap()
        .iter()
        .map(|p| p.0)
        .collect();
    // Table 1: nodes 10, 2, 5 (1-based) lead by total communicability.
    assert_eq!(got, want);
    assert_eq!(got, vec![9, 1, 4]);
}

#[test]
fn beta_scales_the_walks() {
    // e^{βA} at β = 0.5 and β = −1 against the dense reference (β < 0 swaps the Radau end).
    let cpu = CpuBackend::new();
    let case = &cases()[1];
    for (beta, key) in [(0.5, "0.5"), (-1.0, "-1"), (3.0, "3")] {
        let d = DenseCentrality::new(&case.graph, beta).unwrap();
        let (mp_tc, mp_sc) = (mpmath(case.key, key, "tc"), mpmath(case.key, key, "sc"));
        assert!(max_rel(&d.total_communicability, &mp_tc) < TOL, "β={beta}");
        assert!(max_rel(&d.subgraph_centrality, &mp_sc) < TOL, "β={beta}");
        let (tc, _) = total_communicability(
            &cpu,
            &case.graph,
            beta,
            &CommunicabilityOptions {
                rtol: 1e-14,
                ..Default::default()
            },
        )
        .unwrap();
        let e = max_rel(&tc, &mp_tc);
        assert!(e < TOL, "β={beta}: {e:e}");
        let sc = subgraph_centrality_quadrature::<_, f64, _>(
            &cpu,
            &case.graph,
            beta,
            &(0..10).collect::<Vec<_>>(),
            &quad(),
            false,
        )
        .unwrap();
        let v: Vec<f64> = sc.iter().map(|f| f.value()).collect();
        let e = max_rel(&v, &mp_sc);
        assert!(e < TOL, "β={beta}: {e:e}");
        let ee = estrada_index_hutchpp::<_, f64, _>(
            &cpu,
            &case.graph,
            beta,
            &ProbeOptions {
                sketch: 10,
                probes: 3,
                ..Default::default()
            },
            &quad(),
        )
        .unwrap();
        let e = rel(ee.value(), mpmath(case.key, key, "ee")[0]);
        assert!(e < TOL, "β={beta}: {e:e}");
    }
}
