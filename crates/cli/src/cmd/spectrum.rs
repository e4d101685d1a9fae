//! `matexp spectrum`: Gershgorin bounds and an estimated spectral interval (Lanczos for
//! Hermitian matrices, power iteration otherwise: `matexp_expmv::spectrum`, the estimator
//! the Leja and Taylor methods use).

use crate::error::{CliError, CliResult};
use crate::io::Matrix;
use crate::{Outcome, Progress};
use matexp::methods::spectrum::{SpectrumOptions, lanczos_bounds, power_bounds};
use matexp::{CpuBackend, CsrMatrix, Scalar, SpectralBounds, c64};
use std::path::PathBuf;

/// Arguments of `matexp spectrum`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The square matrix A (MatrixMarket coordinate file).
    pub matrix: PathBuf,
    /// Lanczos or power-iteration steps of the estimate.
    #[arg(long, default_value_t = 40)]
    pub steps: usize,
}

fn estimate<S: Scalar>(
    a: &CsrMatrix<S>,
    steps: usize,
) -> matexp::Result<(SpectralBounds, &'static str)> {
    let cpu = CpuBackend::new();
    let o = SpectrumOptions::default().with_steps(steps);
    if a.is_hermitian() {
        lanczos_bounds(&cpu, a, &o).map(|e| (e.bounds, "lanczos"))
    } else {
        power_bounds(&cpu, a, &o).map(|e| (e.bounds, "power"))
    }
}

fn bounds_json(b: &SpectralBounds) -> serde_json::Value {
    serde_json::json!({ "re_min": b.re_min, "re_max": b.re_max, "im_min": b.im_min, "im_max": b.im_max })
}

/// Runs `matexp spectrum`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    if args.steps == 0 {
        return Err(CliError::usage("--steps 0: at least one step is needed"));
    }
    let a = crate::io::read_square_matrix(&args.matrix)?;
    let progress = Progress::start(quiet, "spectral bounds");
    let (gersh, est, hermitian) = match &a {
        Matrix::Real(a) => (a.gershgorin(), estimate(a, args.steps), a.is_hermitian()),
        Matrix::Complex(a) => (a.gershgorin(), estimate(a, args.steps), a.is_hermitian()),
    };
    progress.finish();
    let (est, how) = est.map_err(CliError::compute)?;
    let gersh = gersh.ok_or_else(|| {
        CliError::new(
            crate::error::Kind::Numerical,
            "the Gershgorin sums overflow",
        )
    })?;
    let mut out = Outcome::default();
    let row = |b: &SpectralBounds| {
        vec![b.re_min, b.re_max, b.im_min, b.im_max]
            .into_iter()
            .map(|x| c64::new(x, 0.0))
            .collect::<Vec<_>>()
    };
    out.table.push("gershgorin", row(&gersh));
    out.table.push(format!("estimate_{how}"), row(&est));
    let r = &mut out.report;
    r.insert("device".into(), "cpu".into());
    r.insert("n".into(), a.nrows().into());
    r.insert("hermitian".into(), hermitian.into());
    r.insert(
        "rows".into(),
        serde_json::json!(["re_min", "re_max", "im_min", "im_max"]),
    );
    r.insert("gershgorin".into(), bounds_json(&gersh));
    r.insert("estimate".into(), bounds_json(&est));
    r.insert("method".into(), how.into());
    Ok(out)
}
