//! Behaviour beyond the small examples: overflow-safe measures on a graph whose exponential
//! leaves the f64 range, two-pass Lanczos against one-pass, and the probing estimate of
//! subgraph centralities against exact quadrature.

use matexp_core::{CpuBackend, Error};
use matexp_graph::{
    CommunicabilityOptions, ProbeOptions, QuadratureOptions, estrada_index_hutchpp,
    estrada_index_slq, subgraph_centrality_estimate, subgraph_centrality_quadrature,
    total_communicability,
};
use matexp_sparse::PatternCsr;
use matexp_sparse::generators::{RoadNetwork, barabasi_albert};

/// The complete graph K_n: spectrum {n − 1, −1 (n − 1 times)}, so
/// e^{βA}·1 = e^{β(n−1)}·1, [e^{βA}]_ii = (e^{β(n−1)} + (n − 1)e^{−β})/n and
/// tr e^{βA} = e^{β(n−1)} + (n − 1)e^{−β}.
fn complete(n: usize) -> PatternCsr<u32> {
    let edges: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    PatternCsr::undirected_graph(n, &edges).unwrap()
}

#[test]
fn measures_survive_exponentials_beyond_the_f64_range() {
    let n = 400;
    let g = complete(n);
    let cpu = CpuBackend::new();
    let lam = (n - 1) as f64;
    // β = 1.75: e^{βλ} = e^{698.25} ≈ 1e303, still finite: total communicability is returned.
    let beta = 1.75;
    let (tc, _) =
        total_communicability(&cpu, &g, beta, &CommunicabilityOptions::default()).unwrap();
    let want = (beta * lam).exp();
    assert!(want.is_finite() && want > 1e300);
    // e^{x} has condition number |x| ≈ 700: a rounding of α = qᵀAq costs ~700u relative.
    let e = tc
        .iter()
        .map(|&x| ((x - want) / want).abs())
        .fold(0.0, f64::max);
    assert!(e < 1e-11, "{e:e}: {} vs {want}", tc[0]);
    // β = 3: e^{1197}; the vector cannot be represented, which is an error, not a NaN ...
    let beta = 3.0;
    let r = total_communicability(&cpu, &g, beta, &CommunicabilityOptions::default());
    assert!(matches!(r, Err(Error::NonFinite { .. })), "{r:?}");
    // ... while the quadratures and the trace estimates are carried in logarithms.
    let ln_sc = beta * lam + (1.0 + lam * (-beta * n as f64).exp()).ln() - (n as f64).ln();
    let quad = QuadratureOptions::default();
    let sc =
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, beta, &[0, 7], &quad, false).unwrap();
    for f in &sc {
        assert!(f.value().is_infinite());
        assert!(
            (f.ln_value - ln_sc).abs() < 1e-12 * ln_sc,
            "{} vs {ln_sc}",
            f.ln_value
        );
    }
    let ln_ee = beta * lam + (1.0 + lam * (-beta * n as f64).exp()).ln();
    let probes = ProbeOptions {
        probes: 4,
        sketch: 2,
        ..Default::default()
    };
    // Hutch++ deflates the dominant eigenvector: accurate to rounding. Plain SLQ samples
    // e^{βλ}(1ᵀz)²/n, a wide spread, but its interval still holds the value.
    let hpp = estrada_index_hutchpp::<_, f64, _>(&cpu, &g, beta, &probes, &quad).unwrap();
    assert!((hpp.ln_value() - ln_ee).abs() < 1e-11 * ln_ee, "{hpp:?}");
    assert!(hpp.contains_ln(ln_ee), "{hpp:?}");
    let slq = estrada_index_slq::<_, f64, _>(&cpu, &g, beta, &probes, &quad).unwrap();
    assert!(
        slq.ln_value().is_finite() && slq.contains_ln(ln_ee),
        "{slq:?}"
    );
}

#[test]
fn two_pass_agrees_with_one_pass_on_a_road_network() {
    let g = RoadNetwork::new(120, 100, 3).build::<u32>().unwrap();
    let cpu = CpuBackend::new();
    let one = CommunicabilityOptions::fixed_dimension(30);
    let two = CommunicabilityOptions {
        two_pass: true,
        ..one
    };
    let (a, ra) = total_communicability(&cpu, &g, 1f64, &one).unwrap();
    let (b, rb) = total_communicability(&cpu, &g, 1.0, &two).unwrap();
    assert_eq!(rb.matvecs, 2 * ra.matvecs - 1);
    let d = a
        .iter()
        .zip(&b)
        .map(|(x, y)| ((x - y) / x).abs())
        .fold(0.0, f64::max);
    assert!(d < 1e-13, "{d:e}");
    // And the automatic dimension reaches the same vector.
    let (c, rc) = total_communicability(&cpu, &g, 1.0, &CommunicabilityOptions::default()).unwrap();
    let d = a
        .iter()
        .zip(&c)
        .map(|(x, y)| ((x - y) / x).abs())
        .fold(0.0, f64::max);
    assert!(d < 1e-10 && rc.converged, "{d:e} {rc:?}");
}

#[test]
fn probing_estimate_brackets_exact_subgraph_centralities() {
    let g = barabasi_albert::<u32>(600, 2, 5).unwrap();
    let cpu = CpuBackend::new();
    let quad = QuadratureOptions {
        rtol: 1e-10,
        ..Default::default()
    };
    let nodes: Vec<usize> = (0..g.nrows()).collect();
    let exact: Vec<f64> =
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, &nodes, &quad, true)
            .unwrap()
            .iter()
            .map(|f| f.value())
            .collect();
    let est = subgraph_centrality_estimate::<_, f64, _>(
        &cpu,
        &g,
        1.0,
        &ProbeOptions {
            probes: 40,
            seed: 11,
            ..Default::default()
        },
        &quad,
    )
    .unwrap();
    let covered = (0..g.nrows())
        .filter(|&i| {
            let (lo, hi) = est.interval(i);
            lo <= exact[i] && exact[i] <= hi
        })
        .count();
    // Per-node 95 % intervals: most must hold (the per-node samples are not all normal).
    assert!(covered * 100 >= 85 * g.nrows(), "{covered}/{}", g.nrows());
    // The estimate is unbiased: its total is close to the trace.
    let tr: f64 = exact.iter().sum();
    let tr_est: f64 = est.values().iter().sum();
    let se: f64 = est.std_error.iter().map(|s| s * s).sum::<f64>().sqrt() * est.ln_scale.exp();
    assert!(
        (tr_est - tr).abs() < 4.0 * se.max(1e-12 * tr),
        "{tr_est} vs {tr} (se {se})"
    );
}

#[test]
fn bad_arguments_are_typed_errors() {
    let g = barabasi_albert::<u32>(50, 2, 1).unwrap();
    let cpu = CpuBackend::new();
    let quad = QuadratureOptions::default();
    assert!(
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, &[50], &quad, false).is_err()
    );
    assert!(
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, f64::NAN, &[0], &quad, false)
            .is_err()
    );
    let one = ProbeOptions {
        probes: 1,
        ..Default::default()
    };
    assert!(estrada_index_slq::<_, f64, _>(&cpu, &g, 1.0, &one, &quad).is_err());
    let no_sketch = ProbeOptions {
        sketch: 0,
        ..Default::default()
    };
    assert!(estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &no_sketch, &quad).is_err());
    let bad = QuadratureOptions {
        rtol: 0.0,
        ..Default::default()
    };
    assert!(estrada_index_slq::<_, f64, _>(&cpu, &g, 1.0, &ProbeOptions::default(), &bad).is_err());
    // A directed pattern is refused unless the caller vouches for symmetry.
    let d = PatternCsr::<u32>::from_coordinates(3, 3, &[(0, 1), (1, 2)]).unwrap();
    assert!(
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &d, 1.0, &[0], &quad, false).is_err()
    );
    assert!(total_communicability(&cpu, &d, 1.0, &Default::default()).is_err());
}
