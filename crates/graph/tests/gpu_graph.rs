//! The centrality measures on the GPU backend (matexp-gpu's pattern operator) against the
//! same routines on the CPU backend: total communicability (one- and two-pass), exact
//! subgraph centralities, the Estrada index by Hutch++ and SLQ, and the probing estimate of
//! the diagonal. Run on a GPU host by the bundle (`cargo xtask bundle`).

use matexp_core::{Backend, CpuBackend};
use matexp_gpu::{GpuBackend, GpuPattern};
use matexp_graph::{
    CommunicabilityOptions, ProbeOptions, QuadratureOptions, estrada_index_hutchpp,
    estrada_index_slq, subgraph_centrality_estimate, subgraph_centrality_quadrature, top_k,
    total_communicability,
};
use matexp_sparse::PatternCsr;
use matexp_sparse::generators::{RoadNetwork, barabasi_albert};
use matexp_testkit::gpu_sizes::pick;

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a GPU (this test runs on GPU hosts only)")
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| ((x - y) / y).abs())
        .fold(0.0, f64::max)
}

fn graphs() -> Vec<(&'static str, PatternCsr<u32>)> {
    let ba = pick(20_000, 2000);
    let (nx, ny) = pick((150, 140), (45, 40));
    vec![
        ("barabasi-albert", barabasi_albert(ba, 5, 3).unwrap()),
        ("road", RoadNetwork::new(nx, ny, 3).build().unwrap()),
    ]
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn total_communicability_on_the_gpu_matches_the_cpu() {
    let g = gpu();
    let cpu = CpuBackend::new();
    for (name, p) in graphs() {
        let op = GpuPattern::from_pattern(&g, &p).unwrap();
        for two_pass in [false, true] {
            for opts in [
                CommunicabilityOptions::fixed_dimension(40),
                CommunicabilityOptions::default(),
            ] {
                let opts = CommunicabilityOptions { two_pass, ..opts };
                let (wg, rg) = total_communicability(&g, &op, 1.0, &opts).unwrap();
                let (wc, rc) = total_communicability(&cpu, &p, 1.0, &opts).unwrap();
                let e = max_rel(&g.to_host(&wg).unwrap(), &wc);
                println!(
                    "{name} two_pass={two_pass} rtol={:e}: {} / {} products, max rel diff {e:.1e}",
                    opts.rtol, rg.matvecs, rc.matvecs
                );
                assert!(e < 1e-11, "{name} two_pass={two_pass}: {e:e}");
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn quadratures_and_estimates_on_the_gpu_match_the_cpu() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let quad = QuadratureOptions {
        rtol: 1e-12,
        ..Default::default()
    };
    let probes = ProbeOptions {
        probes: 12,
        sketch: 6,
        seed: 5,
        ..Default::default()
    };
    for (name, p) in graphs() {
        let op = GpuPattern::from_pattern(&g, &p).unwrap();
        let (tc, _) =
            total_communicability(&cpu, &p, 1.0, &CommunicabilityOptions::default()).unwrap();
        let nodes: Vec<usize> = top_k(&tc, 8)
            .unwrap()
            .iter()
            .map(|x| x.0)
            .chain([0, p.nrows() - 1])
            .collect();
        let sg = subgraph_centrality_quadrature::<_, f64, _>(&g, &op, 1.0, &nodes, &quad, false)
            .unwrap();
        let sc = subgraph_centrality_quadrature::<_, f64, _>(&cpu, &p, 1.0, &nodes, &quad, true)
            .unwrap();
        let a: Vec<f64> = sg.iter().map(|f| f.value()).collect();
        let b: Vec<f64> = sc.iter().map(|f| f.value()).collect();
        let e = max_rel(&a, &b);
        println!(
            "{name}: subgraph centralities of {} nodes, max rel diff {e:.1e}",
            nodes.len()
        );
        assert!(e < 1e-10, "{name}: {e:e}");

        for hutch in [true, false] {
            let run = |gpu_side: bool| {
                match (hutch, gpu_side) {
                    (true, true) => {
                        estrada_index_hutchpp::<_, f64, _>(&g, &op, 1.0, &probes, &quad)
                    }
                    (true, false) => {
                        estrada_index_hutchpp::<_, f64, _>(&cpu, &p, 1.0, &probes, &quad)
                    }
                    (false, true) => estrada_index_slq::<_, f64, _>(&g, &op, 1.0, &probes, &quad),
                    (false, false) => estrada_index_slq::<_, f64, _>(&cpu, &p, 1.0, &probes, &quad),
                }
                .unwrap()
            };
            let (eg, ec) = (run(true), run(false));
            let d = (eg.ln_value() - ec.ln_value()).abs();
            println!(
                "{name} {}: ln EE {:.12} (gpu) vs {:.12} (cpu), interval width {:.1e}",
                ec.method,
                eg.ln_value(),
                ec.ln_value(),
                (ec.interval().1 - ec.interval().0) / ec.value()
            );
            // The same probes on both backends: only rounding differs.
            assert!(d < 1e-9, "{name} {}: {d:e}", ec.method);
        }

        let dg = subgraph_centrality_estimate::<_, f64, _>(&g, &op, 1.0, &probes, &quad).unwrap();
        let dc = subgraph_centrality_estimate::<_, f64, _>(&cpu, &p, 1.0, &probes, &quad).unwrap();
        let e = max_rel(&dg.values(), &dc.values());
        println!("{name}: probing estimate of the diagonal, max rel diff {e:.1e}");
        assert!(e < 1e-8, "{name}: {e:e}");
    }
}
