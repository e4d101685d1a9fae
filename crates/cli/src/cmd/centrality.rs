//! `matexp centrality`: total communicability e^{βA}·1, subgraph centrality diag(e^{βA}) and
//! the Estrada index tr(e^{βA}) of an undirected graph (matexp-graph), with top-k rankings.

use crate::error::{CliError, CliResult};
use crate::solve::finite_or_null;
use crate::{Outcome, Progress};
use matexp::{CpuBackend, c64};
use matexp_graph::{Centrality, CentralityMethod, CentralityOptions, CommunicabilityOptions};
use std::path::PathBuf;

/// Centrality measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    /// Total communicability e^{βA}·1 (Lanczos).
    Tc,
    /// Subgraph centrality diag(e^{βA}) to `--rtol` (Gauss quadrature per node, or probing
    /// where its intervals meet the tolerance).
    Sc,
    /// The Estrada index tr(e^{βA}) to `--rtol`, with its interval (quadrature over all
    /// nodes, or a Hutch++ estimate where its interval meets the tolerance).
    Estrada,
}

/// Arguments of `matexp centrality`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The graph: a MatrixMarket coordinate file (pattern or valued; the pattern is used), symmetric.
    pub graph: PathBuf,
    /// The measure.
    #[arg(short, long, value_enum, default_value = "tc")]
    pub measure: Measure,
    /// The inverse temperature β > 0.
    #[arg(short, long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub beta: f64,
    /// Only the K most central nodes, in decreasing order (nodes numbered from 1, as in the file).
    #[arg(long, allow_hyphen_values = true)]
    pub top: Option<usize>,
    /// Relative tolerance of subgraph centralities and the Estrada index, in (0, 1).
    #[arg(long, default_value_t = 1e-10)]
    pub rtol: f64,
}

fn method_name(c: &Centrality) -> &'static str {
    match c.method {
        CentralityMethod::Quadrature => "lanczos_quadrature",
        CentralityMethod::Probing => "probing",
        CentralityMethod::HutchPlusPlus => "hutch++",
    }
}

/// Runs `matexp centrality`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    let g = matexp::read_pattern_file::<u32>(&args.graph).map_err(CliError::input)?;
    if g.nrows() != g.ncols() {
        return Err(CliError::new(
            crate::error::Kind::Input,
            format!(
                "{}: the adjacency matrix is {} × {}, but a square matrix is needed",
                args.graph.display(),
                g.nrows(),
                g.ncols()
            ),
        ));
    }
    if !(args.beta.is_finite() && args.beta > 0.0) {
        return Err(CliError::usage(format!(
            "--beta {}: must be a finite number > 0",
            args.beta
        )));
    }
    if !(args.rtol > 0.0 && args.rtol < 1.0) {
        return Err(CliError::usage(format!(
            "--rtol {}: must be in (0, 1)",
            args.rtol
        )));
    }
    let opts = CentralityOptions::default().with_rtol(args.rtol);
    let cpu = CpuBackend::new();
    let n = g.nrows();
    let mut out = Outcome::default();
    let r = &mut out.report;
    r.insert("device".into(), "cpu".into());
    r.insert("n".into(), n.into());
    r.insert("edges_stored".into(), g.nnz().into());
    r.insert("beta".into(), args.beta.into());
    let progress = Progress::start(quiet, &format!("centrality of a graph with {n} nodes"));
    let scores: CliResult<Vec<f64>> = (|| match args.measure {
        Measure::Tc => {
            let opts = CommunicabilityOptions::default();
            let (tc, rep) = matexp_graph::total_communicability(&cpu, &g, args.beta, &opts)
                .map_err(CliError::compute)?;
            r.insert("measure".into(), "total_communicability".into());
            r.insert("method".into(), "lanczos".into());
            r.insert("products".into(), rep.matvecs.into());
            r.insert(
                "rel_error_estimate".into(),
                finite_or_null(rep.rel_error_estimate),
            );
            r.insert("converged".into(), rep.converged.into());
            Ok(tc)
        }
        Measure::Sc => {
            let nodes: Vec<usize> = (0..n).collect();
            let sc = matexp_graph::subgraph_centrality(&cpu, &g, args.beta, &nodes, &opts)
                .map_err(CliError::compute)?;
            let worst = sc
                .iter()
                .map(|c| (c.upper - c.lower) / (2.0 * c.value))
                .fold(0.0f64, f64::max);
            r.insert("measure".into(), "subgraph_centrality".into());
            r.insert(
                "method".into(),
                sc.first().map_or("lanczos_quadrature", method_name).into(),
            );
            r.insert(
                "products".into(),
                sc.first().map_or(0, |c| c.matvecs).into(),
            );
            r.insert("rel_error_estimate".into(), finite_or_null(worst));
            r.insert("converged".into(), sc.iter().all(|c| c.met).into());
            Ok(sc.iter().map(|c| c.value).collect())
        }
        Measure::Estrada => {
            let ee = matexp_graph::estrada_index(&cpu, &g, args.beta, &opts)
                .map_err(CliError::compute)?;
            r.insert("measure".into(), "estrada_index".into());
            r.insert("method".into(), method_name(&ee).into());
            r.insert("products".into(), ee.matvecs.into());
            r.insert("estrada_index".into(), finite_or_null(ee.value));
            r.insert("ln_estrada_index".into(), finite_or_null(ee.ln_value));
            r.insert("converged".into(), ee.met.into());
            r.insert(
                "interval".into(),
                serde_json::json!([finite_or_null(ee.lower), finite_or_null(ee.upper)]),
            );
            Ok(vec![ee.value])
        }
    })();
    progress.finish();
    let scores = scores?;
    if args.measure == Measure::Estrada {
        out.table
            .push("estrada_index", vec![c64::new(scores[0], 0.0)]);
        return Ok(out);
    }
    let ranked: Vec<(usize, f64)> = match args.top {
        Some(k) => matexp_graph::top_k(&scores, k.min(n)).map_err(CliError::compute)?,
        None => scores.iter().copied().enumerate().collect(),
    };
    out.table.push(
        "node",
        ranked
            .iter()
            .map(|&(i, _)| c64::new((i + 1) as f64, 0.0))
            .collect(),
    );
    out.table.push(
        "score",
        ranked.iter().map(|&(_, s)| c64::new(s, 0.0)).collect(),
    );
    Ok(out)
}
