//! The "ours" side of the networkx peer (`benches/peers/networkx_centrality.py`): matexp-graph
//! on one graph, timed in this process, with the values the peer compares against.
//!
//! ```sh
//! cargo run --release -p matexp-benches --example centrality_peer -- --list
//! cargo run --release -p matexp-benches --example centrality_peer -- \
//!     --graph coPapersDBLP_x0.01 [--dir target/graph-bench] [--reps 3] [--all-nodes 6000]
//! ```
//!
//! Graphs: the stand-ins of the `graph` suite at its default sizes (the seed graphs scaled by
//! 1/100, California at full size, seed 2021; labels as that suite writes them) and two
//! Barabási–Albert graphs of the size networkx's dense code handles, `ba700_m3` (the suite's
//! `new_measures` graph, seed 2026) and `ba2000_m3` (seed 2021). `--graph` writes
//! `<dir>/<label>.mtx` when it is not there yet, then the same files as the suite's
//! `write_peer_inputs` — `<label>.tc.txt` (e^{A}·1, automatic Krylov dimension, rtol 1e−12)
//! and `<label>.matexp.json` (Estrada index by Hutch++ with its 95 % interval, the subgraph
//! centralities of the ten most communicable nodes, wall times) — and, for graphs of at most
//! `--all-nodes` nodes, the exact subgraph centrality of every node (`<label>.sc.txt`, its time
//! as `sc_all_time_s`, their sum as the exact Estrada index `estrada_exact`), which is what
//! networkx computes. Every measure is run once untimed and then `--reps` times (all nodes:
//! `--reps` timed runs up to 2000 nodes, one above); the JSON holds the median and every time. The graph is read from the `.mtx` file, so ours and the
//! peer work on the same file.

#[path = "../benches/common/graph_catalog.rs"]
mod graph_catalog;

use graph_catalog::SEED_GRAPHS;
use matexp_core::{CpuBackend, Error, Result};
use matexp_graph::{
    CommunicabilityOptions, ProbeOptions, QuadratureOptions, estrada_index_hutchpp,
    subgraph_centrality_quadrature, top_k, total_communicability,
};
use matexp_sparse::PatternCsr;
use matexp_sparse::generators::barabasi_albert;
use matexp_sparse::matrix_market::{Symmetry, read_pattern_file, write_pattern_file};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Builds one graph.
type Generator = Box<dyn Fn() -> Result<PatternCsr<u32>>>;

/// (label, generator) of every graph this example knows.
fn catalog() -> Vec<(String, Generator)> {
    let mut all: Vec<(String, Generator)> = vec![
        (
            "ba700_m3".into(),
            Box::new(|| barabasi_albert(700, 3, 2026)),
        ),
        (
            "ba2000_m3".into(),
            Box::new(|| barabasi_albert(2000, 3, 2021)),
        ),
    ];
    for s in &SEED_GRAPHS {
        // The `graph` suite's default sizes: California in full, the others at 1/100.
        let scale = if s.n < 100_000 { 1.0 } else { 0.01 };
        all.push((s.label(scale), Box::new(move || s.generate(scale, 2021))));
    }
    all
}

fn median(times: &[f64]) -> f64 {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Runs `f` once untimed (with `warm_up`), then `reps` ≥ 1 times; returns the last result
/// and the times.
fn timed<T>(reps: usize, warm_up: bool, mut f: impl FnMut() -> Result<T>) -> Result<(T, Vec<f64>)> {
    let mut out = None;
    if warm_up {
        out = Some(f()?);
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        out = Some(f()?);
        times.push(t.elapsed().as_secs_f64());
    }
    Ok((out.expect("at least one run"), times))
}

fn main() -> Result<()> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/graph-bench");
    if let Ok(d) = std::env::var("MATEXP_GRAPH_DIR") {
        dir = PathBuf::from(d);
    }
    let (mut graph, mut reps, mut all_nodes, mut list) = (None, 3usize, 6000usize, false);
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let val = argv.get(i + 1).cloned().unwrap_or_default();
        let bad = || {
            Error::parse(
                "command line",
                0,
                format!("cannot read `{} {val}`", argv[i]),
            )
        };
        match argv[i].as_str() {
            "--list" => {
                list = true;
                i += 1;
                continue;
            }
            "--graph" => graph = Some(val.clone()),
            "--dir" => dir = PathBuf::from(&val),
            "--reps" => reps = val.parse().map_err(|_| bad())?,
            "--all-nodes" => all_nodes = val.parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        }
        i += 2;
    }
    let cat = catalog();
    if list {
        for (label, _) in &cat {
            println!("{label}");
        }
        return Ok(());
    }
    let label = graph.ok_or_else(|| Error::parse("command line", 0, "--graph LABEL is needed"))?;
    let io = |e| Error::io(dir.display(), e);
    std::fs::create_dir_all(&dir).map_err(io)?;
    let mtx = dir.join(format!("{label}.mtx"));
    if !mtx.exists() {
        let (_, generate) = cat.iter().find(|(l, _)| *l == label).ok_or_else(|| {
            Error::parse(
                "command line",
                0,
                format!("unknown graph `{label}` (see --list)"),
            )
        })?;
        write_pattern_file(&mtx, &generate()?, Symmetry::Symmetric, &[&label])?;
    }
    let g: PatternCsr<u32> = read_pattern_file(&mtx)?;
    let cpu = CpuBackend::new();
    let reps = reps.max(1);

    let tc_opts = CommunicabilityOptions::default();
    let ((tc, tc_rep), tc_times) = timed(reps, true, || {
        total_communicability(&cpu, &g, 1.0, &tc_opts)
    })?;
    eprintln!(
        "  e^A·1: {:.4} s, {} products",
        median(&tc_times),
        tc_rep.matvecs
    );
    let quad = QuadratureOptions::default();
    let probes = ProbeOptions::default();
    let (ee, ee_times) = timed(reps, true, || {
        estrada_index_hutchpp::<_, f64, _>(&cpu, &g, 1.0, &probes, &quad)
    })?;
    eprintln!(
        "  Estrada (Hutch++): {:.4} s, {} products",
        median(&ee_times),
        ee.matvecs
    );
    let top: Vec<usize> = top_k(&tc, 10)?.iter().map(|p| p.0).collect();
    let (sc, sc_times) = timed(reps, true, || {
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, &top, &quad, true)
    })?;
    eprintln!(
        "  SC top-10: {:.4} s, {} products",
        median(&sc_times),
        sc.iter().map(|f| f.steps).sum::<usize>()
    );
    let mut json = serde_json::json!({
        "label": label,
        "n": g.nrows(),
        "nnz": g.nnz(),
        "tc_time_s": median(&tc_times),
        "tc_times_s": tc_times,
        "tc_matvecs": tc_rep.matvecs,
        "estrada": {"value": ee.value(), "ln_value": ee.ln_value(), "lo": ee.interval().0,
                    "hi": ee.interval().1, "method": ee.method, "time_s": median(&ee_times),
                    "times_s": ee_times, "matvecs": ee.matvecs},
        "sc_top": top.iter().zip(&sc).map(|(i, f)| (i, f.value())).collect::<Vec<_>>(),
        "sc_time_s": median(&sc_times),
        "sc_times_s": sc_times,
        "threads": rayon::current_num_threads(),
        "reps": reps,
    });
    let mut f = std::fs::File::create(dir.join(format!("{label}.tc.txt"))).map_err(io)?;
    for v in &tc {
        writeln!(f, "{v:e}").map_err(io)?;
    }
    if g.nrows() <= all_nodes {
        let nodes: Vec<usize> = (0..g.nrows()).collect();
        // All nodes: the process is warm by now (the same quadrature ran for the top ten),
        // so no untimed run; one timed run above 2000 nodes, where a run takes seconds.
        let all_reps = if g.nrows() > 2000 { 1 } else { reps };
        // O(n·k·nnz): one Lanczos quadrature per node. Run in blocks with a progress line
        // (products so far, the projected total time) so that a long run is visible.
        let block = 512;
        let mut products = 0usize;
        let (all, all_times) = timed(all_reps, false, || {
            let start = Instant::now();
            let mut out = Vec::with_capacity(nodes.len());
            products = 0;
            for chunk in nodes.chunks(block) {
                let part =
                    subgraph_centrality_quadrature::<_, f64, _>(&cpu, &g, 1.0, chunk, &quad, true)?;
                products += part.iter().map(|f| f.steps).sum::<usize>();
                out.extend(part);
                let done = out.len();
                let t = start.elapsed().as_secs_f64();
                if done < nodes.len() {
                    eprintln!(
                        "  SC all nodes: {done}/{} nodes, {products} products ({:.1} per node), \
                         {t:.1} s, about {:.0} s to go",
                        nodes.len(),
                        products as f64 / done as f64,
                        t * (nodes.len() - done) as f64 / done as f64
                    );
                }
            }
            Ok(out)
        })?;
        eprintln!(
            "  SC all nodes: {:.3} s, {products} products ({:.1} per node)",
            median(&all_times),
            products as f64 / nodes.len().max(1) as f64
        );
        let mut f = std::fs::File::create(dir.join(format!("{label}.sc.txt"))).map_err(io)?;
        let mut sum = 0.0;
        for v in &all {
            writeln!(f, "{:e}", v.value()).map_err(io)?;
            sum += v.value();
        }
        json["sc_all_time_s"] = median(&all_times).into();
        json["sc_all_times_s"] = all_times.into();
        json["estrada_exact"] = sum.into();
    }
    std::fs::write(dir.join(format!("{label}.matexp.json")), json.to_string()).map_err(io)?;
    eprintln!(
        "centrality_peer {label}: n = {}, nnz = {}, e^A·1 {:.4} s, Estrada (Hutch++) {:.4} s, SC top-10 {:.4} s{}",
        g.nrows(),
        g.nnz(),
        median(&tc_times),
        json["estrada"]["time_s"].as_f64().unwrap_or(f64::NAN),
        median(&sc_times),
        json.get("sc_all_time_s")
            .and_then(|v| v.as_f64())
            .map(|t| format!(", SC all nodes {t:.3} s"))
            .unwrap_or_default()
    );
    Ok(())
}
