//! The tolerance-driven front door (`estrada_index`, `subgraph_centrality`): the value meets
//! the requested tolerance against the dense reference (LAPACK's eigendecomposition), its
//! interval contains the reference, and the method it reports is the one its cost model
//! picks (an estimator on a large graph at a loose tolerance, quadrature otherwise).

use matexp_core::{CpuBackend, Error};
use matexp_expmv::Tolerance;
use matexp_graph::{
    CentralityMethod, CentralityOptions, DenseCentrality, estrada_index, subgraph_centrality,
};
use matexp_sparse::generators::{barabasi_albert, grid_graph_2d};

#[test]
fn estrada_index_meets_the_tolerance_by_the_method_it_names() {
    // 1500 nodes: quadrature costs ~1500 Lanczos runs, Hutch++ 51 at the default options.
    let g = barabasi_albert::<u32>(1500, 3, 7).unwrap();
    let cpu = CpuBackend::new();
    let exact = DenseCentrality::new(&g, 1.0).unwrap().estrada_index;
    for (rtol, method) in [
        (1e-2, CentralityMethod::HutchPlusPlus),
        (1e-9, CentralityMethod::Quadrature),
    ] {
        let opts = CentralityOptions::default().with_tolerance(Tolerance::relative(rtol));
        let ee = estrada_index(&cpu, &g, 1.0, &opts).unwrap();
        assert_eq!(ee.method, method, "rtol {rtol}");
        assert!(ee.met, "rtol {rtol}: {ee:?}");
        assert!(ee.contains(exact), "rtol {rtol}: {ee:?} vs {exact}");
        assert!(
            (ee.value / exact - 1.0).abs() <= rtol,
            "rtol {rtol}: {} vs {exact}",
            ee.value
        );
        assert!((ee.ln_value - exact.ln()).abs() <= 2.0 * rtol);
        assert!(ee.matvecs > 0);
    }
}

#[test]
fn subgraph_centrality_meets_the_tolerance_on_few_and_on_all_nodes() {
    let g = barabasi_albert::<u32>(400, 2, 3).unwrap();
    let cpu = CpuBackend::new();
    let dense = DenseCentrality::new(&g, 0.5).unwrap();
    // Few nodes: quadrature at once; all nodes at a tolerance probing cannot meet: probing
    // first, then quadrature.
    let all: Vec<usize> = (0..400).collect();
    for nodes in [vec![0usize, 1, 399], all] {
        let opts = CentralityOptions::default().with_rtol(1e-7);
        let sc = subgraph_centrality(&cpu, &g, 0.5, &nodes, &opts).unwrap();
        assert_eq!(sc.len(), nodes.len());
        for (c, &i) in sc.iter().zip(&nodes) {
            let want = dense.subgraph_centrality[i];
            assert_eq!(c.method, CentralityMethod::Quadrature);
            assert!(c.met && c.contains(want), "node {i}: {c:?} vs {want}");
            assert!((c.value / want - 1.0).abs() <= 1e-7, "node {i}");
        }
    }
    // A tolerance probing meets on every node: half the value, on a 20 × 20 grid at β = 0.2
    // (e^{βA} close to the identity, so the probes' spread is small); 400 nodes are more
    // than 4·31, so probing runs first.
    let g = grid_graph_2d::<u32>(20, 20).unwrap();
    let dense = DenseCentrality::new(&g, 0.2).unwrap();
    let loose = CentralityOptions::default().with_rtol(0.5);
    let nodes: Vec<usize> = (0..400).collect();
    let sc = subgraph_centrality(&cpu, &g, 0.2, &nodes, &loose).unwrap();
    let worst = sc
        .iter()
        .map(|c| (c.upper - c.lower) / (2.0 * c.value))
        .fold(0.0f64, f64::max);
    assert!(
        sc.iter()
            .all(|c| c.met && c.method == CentralityMethod::Probing),
        "{:?}, worst relative half-width {worst}",
        sc[0].method
    );
    // A 95 % interval per node: most contain the reference.
    let covered = sc
        .iter()
        .zip(&dense.subgraph_centrality)
        .filter(|(c, w)| c.contains(**w))
        .count();
    assert!(
        covered >= 320,
        "{covered} of 400 intervals cover the reference"
    );
}

#[test]
fn a_tolerance_outside_the_unit_interval_is_refused() {
    let g = barabasi_albert::<u32>(50, 2, 1).unwrap();
    for rtol in [0.0, 1.0, f64::NAN] {
        let opts = CentralityOptions::default().with_rtol(rtol);
        assert!(matches!(
            estrada_index(&CpuBackend, &g, 1.0, &opts),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
