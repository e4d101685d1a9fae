//! Centrality of a power-law graph: total communicability with its top nodes, their exact
//! subgraph centralities, and the Estrada index by Hutch++ and by stochastic Lanczos
//! quadrature with 95 % intervals, against the dense eigendecomposition when n is small.
//!
//! ```text
//! cargo run --release -p matexp-graph --example centrality -- [n] [m]
//! ```

use matexp_core::CpuBackend;
use matexp_graph::{
    CommunicabilityOptions, DenseCentrality, MAX_DENSE_NODES, ProbeOptions, QuadratureOptions,
    estrada_index_hutchpp, estrada_index_slq, subgraph_centrality_quadrature, top_k,
    total_communicability,
};
use matexp_sparse::generators::barabasi_albert;
use std::time::Instant;

fn main() -> matexp_core::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let m: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let g = barabasi_albert::<u32>(n, m, 2026)?;
    println!(
        "Barabási–Albert graph: n = {n}, m = {m}, {} stored entries",
        g.nnz()
    );
    let cpu = CpuBackend::new();

    let t = Instant::now();
    let (tc, rep) = total_communicability(&cpu, &g, 1.0, &CommunicabilityOptions::default())?;
    println!(
        "total communicability: {} products, estimate {:.1e}, {:.3?}",
        rep.matvecs,
        rep.rel_error_estimate,
        t.elapsed()
    );
    let top = top_k(&tc, 5)?;
    let nodes: Vec<usize> = top.iter().map(|p| p.0).collect();
    let quad = QuadratureOptions::default();
    let t = Instant::now();
    let sc = subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, &nodes, &quad, true)?;
    println!(
        "top nodes by e^A·1, with their subgraph centralities ({:.3?}):",
        t.elapsed()
    );
    for ((i, v), f) in top.iter().zip(&sc) {
        println!(
            "  node {i:>7}: TC = {v:.6e}  SC = {:.6e}  ({} steps)",
            f.value(),
            f.steps
        );
    }

    let probes = ProbeOptions::default();
    let t = Instant::now();
    let hpp = estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad)?;
    let t_hpp = t.elapsed();
    let t = Instant::now();
    let slq = estrada_index_slq::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad)?;
    let t_slq = t.elapsed();
    for (e, dt) in [(hpp, t_hpp), (slq, t_slq)] {
        let (lo, hi) = e.interval();
        println!(
            "Estrada index by {:<8}: {:.8e}, 95 % interval [{lo:.8e}, {hi:.8e}], {} products, {dt:.3?}",
            e.method,
            e.value(),
            e.matvecs
        );
    }
    if n <= MAX_DENSE_NODES {
        let t = Instant::now();
        let d = DenseCentrality::new(&g, 1.0)?;
        println!(
            "dense (eigendecomposition, {:.3?}): Estrada index {:.8e}; TC max relative error {:.1e}",
            t.elapsed(),
            d.estrada_index,
            tc.iter()
                .zip(&d.total_communicability)
                .map(|(a, b)| ((a - b) / b).abs())
                .fold(0.0, f64::max)
        );
    }
    Ok(())
}
