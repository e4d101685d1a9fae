//! Hostile inputs of the centrality measures: huge weights and β, operators claiming more
//! rows than memory, absurd probe counts. Each is a typed error or the right answer; every
//! result's `converged` flag obeys its stated rule.

use matexp_core::{CpuBackend, Error, LinearOperator, Result};
use matexp_graph::{
    CommunicabilityOptions, MAX_PROBES, ProbeOptions, QuadratureOptions, estrada_index_hutchpp,
    estrada_index_slq, subgraph_centrality_estimate, subgraph_centrality_quadrature,
    total_communicability,
};
use matexp_sparse::{CsrMatrix, PatternCsr};

/// The path 0 – 1 – 2 with both edges of weight w: eigenvalues 0, ±√2·w, and
/// [e^{A}]₀₀ = (cosh(√2 w) + 1)/2, [e^{A}]₁₁ = cosh(√2 w).
fn weighted_path(w: f64) -> CsrMatrix<f64> {
    CsrMatrix::from_dense(3, 3, &[0.0, w, 0.0, w, 0.0, w, 0.0, w, 0.0]).unwrap()
}

#[test]
fn huge_edge_weights_give_the_logarithm_not_one() {
    let cpu = CpuBackend;
    for w in [1e200, 1e300] {
        let g = weighted_path(w);
        let sc = subgraph_centrality_quadrature::<_, f64, _>(
            &cpu,
            &g,
            1.0,
            &[0, 1],
            &QuadratureOptions::default(),
            false,
        )
        .unwrap();
        // ln cosh(x) = x − ln 2 + ln(1 + e^{−2x}) with x = √2·w: relative accuracy of ln.
        let x = std::f64::consts::SQRT_2 * w;
        for (f, want) in sc.iter().zip([x - 2f64.ln() - 2f64.ln(), x - 2f64.ln()]) {
            assert!(
                (f.ln_value - want).abs() <= 1e-14 * want,
                "w = {w:e}: ln SC = {} vs {want}",
                f.ln_value
            );
            assert!(f.converged);
        }
        // Before, the breakdown test squared β = 1e200 and every start was "exact" with
        // value 1.
        assert!(sc.iter().all(|f| f.ln_value > 1e199));
    }
}

#[test]
fn beta_beyond_the_range_is_non_finite_not_nan() {
    let cpu = CpuBackend;
    let g = PatternCsr::<u32>::undirected_graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]).unwrap();
    let quad = QuadratureOptions::default();
    let probes = ProbeOptions::default();
    for beta in [1e308, -1e308, f64::MAX] {
        for parallel in [false, true] {
            let e = subgraph_centrality_quadrature::<_, f64, _>(
                &cpu,
                &g,
                beta,
                &[0, 2],
                &quad,
                parallel,
            )
            .unwrap_err();
            assert!(matches!(e, Error::NonFinite { .. }), "β = {beta:e}: {e}");
        }
        let e = estrada_index_slq::<_, f64, _>(&cpu, &g, beta, &probes, &quad).unwrap_err();
        assert!(
            matches!(e, Error::NonFinite { .. }),
            "slq β = {beta:e}: {e}"
        );
        let e = estrada_index_hutchpp::<_, f64, _>(&cpu, &g, beta, &probes, &quad).unwrap_err();
        assert!(
            matches!(e, Error::NonFinite { .. }),
            "hutch++ β = {beta:e}: {e}"
        );
        let e =
            subgraph_centrality_estimate::<_, f64, _>(&cpu, &g, beta, &probes, &quad).unwrap_err();
        assert!(
            matches!(e, Error::NonFinite { .. }),
            "estimate β = {beta:e}: {e}"
        );
    }
    // β = 300 is far beyond e^{β·2} in f64 and still answered in logarithms: the 4-cycle has
    // eigenvalues 2, 0, 0, −2, so SC_i = (e^{2β} + 2 + e^{−2β})/4 and ln SC ≈ 2β − ln 4.
    let sc =
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 300.0, &[1], &quad, true).unwrap();
    assert!((sc[0].ln_value - (600.0 - 4f64.ln())).abs() < 1e-12 * 600.0);
}

/// An operator that claims 2⁶¹ rows and has no storage behind them.
struct Claims(usize);

impl LinearOperator<CpuBackend, f64> for Claims {
    fn nrows(&self) -> usize {
        self.0
    }
    fn ncols(&self) -> usize {
        self.0
    }
    fn apply(&self, _: &CpuBackend, _: f64, _: &Vec<f64>, _: f64, _: &mut Vec<f64>) -> Result<()> {
        panic!("never applied: the workspace cannot exist")
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

#[test]
fn an_operator_claiming_2_61_rows_is_refused_before_allocating() {
    let cpu = CpuBackend;
    let op = Claims(1 << 61);
    let quad = QuadratureOptions::default();
    for parallel in [true, false] {
        let e =
            subgraph_centrality_quadrature::<_, f64, _>(&cpu, &op, 1.0, &[0, 5], &quad, parallel)
                .unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidArgument { .. } | Error::OutOfMemoryBudget { .. }
            ),
            "{e}"
        );
    }
    let probes = ProbeOptions::default();
    assert!(estrada_index_slq::<_, f64, _>(&cpu, &op, 1.0, &probes, &quad).is_err());
    assert!(estrada_index_hutchpp::<_, f64, _>(&cpu, &op, 1.0, &probes, &quad).is_err());
    assert!(subgraph_centrality_estimate::<_, f64, _>(&cpu, &op, 1.0, &probes, &quad).is_err());
    let opts = CommunicabilityOptions {
        assume_symmetric: true,
        ..Default::default()
    };
    assert!(total_communicability(&cpu, &op, 1.0, &opts).is_err());
}

#[test]
fn probe_counts_beyond_the_cap_are_refused() {
    let cpu = CpuBackend;
    let g = PatternCsr::<u32>::undirected_graph(3, &[(0, 1), (1, 2)]).unwrap();
    let quad = QuadratureOptions::default();
    for (probes, sketch) in [(1usize << 40, 10), (usize::MAX, 10), (30, 1 << 40)] {
        let p = ProbeOptions {
            probes,
            sketch,
            ..Default::default()
        };
        let name = |e: Error| match e {
            Error::InvalidArgument { name, .. } => name,
            e => panic!("{e}"),
        };
        let want = if probes > MAX_PROBES {
            "probes"
        } else {
            "sketch"
        };
        assert_eq!(
            name(estrada_index_slq::<_, f64, _>(&cpu, &g, 1.0, &p, &quad).unwrap_err()),
            want
        );
        assert_eq!(
            name(estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &p, &quad).unwrap_err()),
            want
        );
        assert_eq!(
            name(subgraph_centrality_estimate::<_, f64, _>(&cpu, &g, 1.0, &p, &quad).unwrap_err()),
            want
        );
    }
}

/// converged ⇔ estimate ≤ tolerance, for every measure, at tolerances that are met and at
/// step caps that stop them early.
#[test]
fn converged_flags_obey_their_rules() {
    let cpu = CpuBackend;
    let g = matexp_sparse::generators::grid_graph_2d::<u32>(12, 12).unwrap();
    for (rtol, max_steps) in [(1e-12, 500), (1e-12, 4), (1e-6, 3), (1e-10, 8)] {
        let quad = QuadratureOptions {
            rtol,
            max_steps,
            allow_unconverged: true,
            ..Default::default()
        };
        let sc =
            subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 2.0, &[0, 17, 70], &quad, true)
                .unwrap();
        for f in &sc {
            assert_eq!(
                f.converged,
                f.relative_error() <= rtol,
                "rtol {rtol}, {max_steps} steps: {f:?}"
            );
        }
        let probes = ProbeOptions {
            probes: 4,
            sketch: 3,
            ..Default::default()
        };
        for est in [
            estrada_index_slq::<_, f64, _>(&cpu, &g, 2.0, &probes, &quad).unwrap(),
            estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 2.0, &probes, &quad).unwrap(),
        ] {
            assert_eq!(
                est.converged,
                est.quadrature_error <= est.quadrature_tolerance,
                "{est:?}"
            );
            if max_steps >= 500 {
                assert!(est.converged, "{est:?}");
            }
        }
        let d = subgraph_centrality_estimate::<_, f64, _>(&cpu, &g, 2.0, &probes, &quad).unwrap();
        assert_eq!(d.converged, d.rel_error_estimate <= d.rtol, "{d:?}");
        let opts = CommunicabilityOptions {
            rtol,
            max_dim: max_steps,
            allow_unconverged: true,
            ..Default::default()
        };
        let (_, rep) = total_communicability(&cpu, &g, 2.0, &opts).unwrap();
        assert_eq!(rep.converged, rep.rel_error_estimate <= rtol, "{rep:?}");
    }
}

/// A step cap of usize::MAX is valid (no cap in practice): the products' Krylov dimension is
/// bounded by the graph's order, not asked of the solver as usize::MAX.
#[test]
fn step_caps_up_to_usize_max_are_accepted() {
    let cpu = CpuBackend;
    let g = PatternCsr::<u32>::undirected_graph(4, &[(0, 1), (1, 2), (2, 3)]).unwrap();
    let quad = QuadratureOptions {
        max_steps: usize::MAX,
        ..Default::default()
    };
    let probes = ProbeOptions {
        probes: 3,
        sketch: 2,
        ..Default::default()
    };
    let d = subgraph_centrality_estimate::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad).unwrap();
    assert!(d.mean.iter().all(|m| m.is_finite()));
    let e = estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad).unwrap();
    assert!(e.mean.is_finite());
}
