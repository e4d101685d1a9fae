//! `matexp expmv`: e^{tA}v for one (possibly complex) time or a grid of times.

use crate::error::{CliError, CliResult};
use crate::io::{Matrix, TimeSpec, VectorSource, narrow, read_square_matrix, read_vector};
use crate::solve::{Job, report_json, solve_csr};
use crate::{Outcome, Progress, with_scalar};
use matexp::{CsrMatrix, Scalar, c64};
use std::path::PathBuf;

/// Arguments of `matexp expmv`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The square matrix A (MatrixMarket coordinate file, real or complex).
    pub matrix: PathBuf,
    /// t: a number, a complex number (0-1i, -i*2.5) or a grid start:stop:num.
    #[arg(short, long, allow_hyphen_values = true)]
    pub t: TimeSpec,
    /// v: `ones`, `random:SEED` or a MatrixMarket array file.
    #[arg(short, long, default_value = "ones")]
    pub v: VectorSource,
    /// Method, tolerances, precision and device.
    #[command(flatten)]
    pub solver: super::SolverArgs,
}

/// Reads A and v and decides whether the computation is complex.
pub(crate) fn inputs(
    matrix: &std::path::Path,
    v: &VectorSource,
    t_complex: bool,
    outputs: usize,
) -> CliResult<(Matrix, Vec<c64>, bool)> {
    crate::io::check_problem_memory(matrix, outputs)?;
    let a = read_square_matrix(matrix)?;
    let v = read_vector(v, a.nrows())?;
    let complex = t_complex || matches!(a, Matrix::Complex(_)) || v.iter().any(|z| z.im != 0.0);
    Ok((a, v, complex))
}

/// A in scalar `S`.
pub(crate) fn matrix_as<S: Scalar>(a: &Matrix) -> CliResult<CsrMatrix<S>> {
    match a {
        Matrix::Real(a) => a.cast::<S>().map_err(CliError::input),
        Matrix::Complex(a) => a.cast::<S>().map_err(CliError::input),
    }
}

/// Runs `matexp expmv`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    let opts = args.solver.options()?;
    let times = args.t.times();
    let (a, v, complex) = inputs(&args.matrix, &args.v, args.t.is_complex(), times.len())?;
    let progress = Progress::start(
        quiet,
        &format!(
            "expmv on {} ({} × {})",
            args.solver.device,
            a.nrows(),
            a.nrows()
        ),
    );
    let result = with_scalar!(args.solver.precision, complex, |S| {
        let am = matrix_as::<S>(&a)?;
        let vs = narrow::<S>(&v, "v")?;
        let ts = narrow::<S>(&times, "t")?;
        let (ws, report) = solve_csr(&args.solver.device, &am, &vs, &Job::Exp(ts), &opts)?;
        let cols: Vec<Vec<c64>> = ws
            .into_iter()
            .map(|w| w.into_iter().map(Scalar::to_c64).collect())
            .collect();
        Ok::<_, CliError>((cols, report))
    });
    progress.finish();
    let (cols, report) = result?;
    let mut out = Outcome::default();
    for (t, col) in times.iter().zip(cols) {
        out.table.push(format!("t={}", fmt_time(*t)), col);
    }
    if let serde_json::Value::Object(m) = report_json(&report) {
        out.report = m;
    }
    args.solver.report(&mut out.report);
    let nonzero = v.iter().any(|z| z.re != 0.0 || z.im != 0.0);
    crate::solve::flag_underflow(&mut out.report, &out.table, times.len(), nonzero);
    out.report.insert("n".into(), a.nrows().into());
    out.report.insert(
        "times".into(),
        times
            .iter()
            .map(|t| fmt_time(*t))
            .collect::<Vec<_>>()
            .into(),
    );
    Ok(out)
}

/// `1.5`, `0-1i`, `2+0.5i`.
pub fn fmt_time(t: c64) -> String {
    if t.im == 0.0 {
        format!("{}", t.re)
    } else if t.im < 0.0 {
        format!("{}-{}i", t.re, -t.im)
    } else {
        format!("{}+{}i", t.re, t.im)
    }
}
