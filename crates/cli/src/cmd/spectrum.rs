//! `matexp spectrum`: Gershgorin bounds and an estimated spectral interval (Lanczos for
//! Hermitian matrices, power iteration otherwise), as used to pick Leja intervals.

use crate::error::{CliError, CliResult};
use crate::io::Matrix;
use crate::{Outcome, Progress};
use matexp::{CpuBackend, CsrMatrix, LinearOperator, Scalar, SpectralBounds, c64};
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
    let n = a.nrows();
    let mut failure = None;
    let (mut xb, mut yb) = (vec![S::zero(); n], vec![S::zero(); n]);
    let apply = |x: &[S], y: &mut [S]| {
        xb.copy_from_slice(x);
        if let Err(e) = a.apply(&cpu, S::one(), &xb, S::zero(), &mut yb) {
            failure.get_or_insert(e);
        }
        y.copy_from_slice(&yb);
    };
    let r = if a.is_hermitian() {
        let o = matexp_leja::LanczosOptions {
            steps,
            ..Default::default()
        };
        matexp_leja::lanczos_bounds(n, apply, &o).map(|e| (e.bounds, "lanczos"))
    } else {
        let o = matexp_leja::PowerOptions {
            steps,
            ..Default::default()
        };
        matexp_leja::power_spectral_radius(n, apply, &o).map(|e| (e.bounds, "power"))
    };
    match failure {
        Some(e) => Err(e),
        None => r,
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
