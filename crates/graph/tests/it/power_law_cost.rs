//! Work bounds on a power-law graph with a large, well-separated spectral radius (a
//! Barabási–Albert graph with m = 28, like the coPapersDBLP stand-in): every measure must
//! stop after a number of products set by its accuracy, not by `max_steps`.
//!
//! On such graphs e^{A} is dominated by e^{λ₁}v₁v₁ᵀ. Hutch++ deflates v₁, and the residual
//! forms pᵀe^{A}p are e^{−(λ₁−λ₂)} ≈ 1e−20 of the trace; resolved to 1e−12 of themselves they
//! ran for 100–500 Lanczos steps each (6871 products on the 5405-node stand-in, with a dense
//! eigensolve at every step), resolved to 1e−12 of the trace they take a few.

use matexp_core::CpuBackend;
use matexp_graph::{
    CommunicabilityOptions, DenseCentrality, ProbeOptions, QuadratureOptions,
    estrada_index_hutchpp, subgraph_centrality_quadrature, top_k, total_communicability,
};
use matexp_sparse::PatternCsr;
use matexp_sparse::generators::barabasi_albert;

fn graph() -> PatternCsr<u32> {
    barabasi_albert::<u32>(1200, 28, 2021).unwrap()
}

#[test]
fn measures_on_a_dense_power_law_graph_stop_early_and_stay_accurate() {
    let g = graph();
    let cpu = CpuBackend::new();
    let dense = DenseCentrality::new(&g, 1.0).unwrap();
    let quad = QuadratureOptions::default();

    let (tc, rep) =
        total_communicability(&cpu, &g, 1.0, &CommunicabilityOptions::default()).unwrap();
    assert!(rep.matvecs <= 40, "e^A·1: {} products", rep.matvecs);

    // Hutch++: 1 + sketch·(≈16) + deflated + probes·(a few) products.
    let probes = ProbeOptions::default();
    let ee = estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad).unwrap();
    let ln_exact = dense.ln_estrada_index;
    println!(
        "λ₁ ≈ {:.2}; Hutch++ {} products, ln EE {} vs {ln_exact}",
        ee.ln_scale,
        ee.matvecs,
        ee.ln_value()
    );
    assert!(ee.matvecs <= 400, "Hutch++: {} products", ee.matvecs);
    assert!(ee.contains_ln(ln_exact), "{ee:?} vs e^{ln_exact}");
    assert!((ee.ln_value() - ln_exact).abs() < 1e-10);

    // Exact subgraph centralities: a dozen products per node, for hubs and leaves alike.
    let top: Vec<usize> = top_k(&tc, 5).unwrap().iter().map(|p| p.0).collect();
    let nodes: Vec<usize> = top
        .iter()
        .copied()
        .chain((0..g.nrows()).step_by(97))
        .collect();
    let sc =
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, &nodes, &quad, true).unwrap();
    for (&i, f) in nodes.iter().zip(&sc) {
        assert!(f.steps <= 25, "node {i}: {} steps", f.steps);
        let want = dense.subgraph_centrality[i];
        assert!(
            (f.value() / want - 1.0).abs() < 1e-11,
            "node {i}: {} vs {want}",
            f.value()
        );
    }
}
