//! `matexp phimv`: φ_0(tA)v, …, φ_k(tA)v.

use crate::error::{CliError, CliResult};
use crate::io::{VectorSource, narrow};
use crate::solve::{Job, report_json, solve_csr};
use crate::{Outcome, Progress, with_scalar};
use matexp::{Scalar, c64};
use std::path::PathBuf;

/// Arguments of `matexp phimv`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The square matrix A (MatrixMarket coordinate file, real or complex).
    pub matrix: PathBuf,
    /// t: a number or a complex number (0-1i, -i*2.5).
    #[arg(short, long, allow_hyphen_values = true, value_parser = parse_one_time)]
    pub t: c64,
    /// The highest φ-function index k (φ_0 = exp, …, φ_k are computed together).
    #[arg(short, long, default_value_t = 1, allow_hyphen_values = true)]
    pub k: usize,
    /// v: `ones`, `random:SEED` or a MatrixMarket array file.
    #[arg(short, long, default_value = "ones")]
    pub v: VectorSource,
    /// Method, tolerances, precision and device.
    #[command(flatten)]
    pub solver: super::SolverArgs,
}

fn parse_one_time(s: &str) -> Result<c64, String> {
    crate::io::parse_complex(s)
        .ok_or_else(|| format!("bad time '{s}': expected a number or a complex number like 0-1i"))
}

/// Runs `matexp phimv`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    let opts = args.solver.options()?;
    let max = matexp::methods::MAX_PHI_ORDER;
    if args.k > max {
        return Err(CliError::usage(format!(
            "-k {}: φ-functions up to k = {max} are offered",
            args.k
        )));
    }
    let (a, v, complex) =
        super::expmv::inputs(&args.matrix, &args.v, args.t.im != 0.0, args.k + 1)?;
    let progress = Progress::start(
        quiet,
        &format!(
            "phimv on {} ({} × {})",
            args.solver.device,
            a.nrows(),
            a.nrows()
        ),
    );
    let result = with_scalar!(args.solver.precision, complex, |S| {
        let am = super::expmv::matrix_as::<S>(&a)?;
        let vs = narrow::<S>(&v, "v")?;
        let t = narrow::<S>(&[args.t], "t")?[0];
        let (ws, report) = solve_csr(&args.solver.device, &am, &vs, &Job::Phi(t, args.k), &opts)?;
        let cols: Vec<Vec<c64>> = ws
            .into_iter()
            .map(|w| w.into_iter().map(Scalar::to_c64).collect())
            .collect();
        Ok::<_, CliError>((cols, report))
    });
    progress.finish();
    let (cols, report) = result?;
    let mut out = Outcome::default();
    for (j, col) in cols.into_iter().enumerate() {
        out.table.push(format!("phi{j}"), col);
    }
    if let serde_json::Value::Object(m) = report_json(&report) {
        out.report = m;
    }
    args.solver.report(&mut out.report);
    let nonzero = v.iter().any(|z| z.re != 0.0 || z.im != 0.0);
    // φ₀ = exp only: φ_j (j ≥ 1) has zeros, so a zero φ_j(tA)v may be the answer.
    crate::solve::flag_underflow(&mut out.report, &out.table, 1, nonzero);
    out.report.insert("n".into(), a.nrows().into());
    out.report
        .insert("t".into(), super::expmv::fmt_time(args.t).into());
    out.report.insert("k".into(), args.k.into());
    Ok(out)
}
