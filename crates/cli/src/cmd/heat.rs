//! `matexp heat`: the heat equation u' = Δu on the unit cube, u(t) = e^{tΔ}u₀, with the
//! matrix-free 7-point stencil of matexp-stencil and a homogeneous boundary condition.

use crate::error::{CliError, CliResult, Kind};
use crate::io::{TimeSpec, VectorSource, read_vector};
use crate::solve::{DeviceSpec, Job, report_json, run_on};
use crate::{Outcome, Progress};
use matexp::{CpuBackend, RealScalar, Report, Scalar, c64};
use matexp_stencil::{Boundary, Dim, Stencil};

/// Most grid points N³ (16 GiB per f64 vector beyond this).
const MAX_POINTS: usize = 1 << 31;

/// Boundary conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BoundaryArg {
    /// u = 0 on the boundary (N interior points per axis, h = 1/(N+1)).
    Dirichlet,
    /// Zero flux (cell-centred, mass-conserving).
    Neumann,
    /// Periodic in every axis.
    Periodic,
}

/// Arguments of `matexp heat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Grid points per axis N (the state has N³ entries).
    #[arg(short = 'N', long, allow_hyphen_values = true)]
    pub n: usize,
    /// t: a number or a grid start:stop:num.
    #[arg(short, long, allow_hyphen_values = true)]
    pub t: TimeSpec,
    /// The boundary condition.
    #[arg(long, value_enum, default_value = "dirichlet")]
    pub boundary: BoundaryArg,
    /// u₀: `sine` (sin πx sin πy sin πz at the grid points), `ones`, `random:SEED` or a
    /// MatrixMarket array file of length N³.
    #[arg(short, long, default_value = "sine")]
    pub u0: String,
    /// Method, tolerances, precision and device.
    #[command(flatten)]
    pub solver: super::SolverArgs,
}

/// e^{tΔ}u₀ for each time with the stencil in scalar `S` (u₀ and the results in f64).
fn solve<S: RealScalar>(
    n: usize,
    boundary: Boundary,
    u0: &[f64],
    times: &[f64],
    opts: &matexp::Options,
) -> CliResult<(Vec<Vec<c64>>, Report)> {
    let a = Stencil::<S>::laplacian(Dim::Three, n, boundary)
        .map_err(|e| CliError::usage(e.to_string()))?;
    let narrow = |x: f64| S::from_c64(c64::new(x, 0.0));
    let u: Vec<S> = u0.iter().map(|&x| narrow(x)).collect();
    let ts: Vec<S> = times.iter().map(|&t| narrow(t)).collect();
    let (ws, rep) =
        run_on(&CpuBackend::new(), &a, &u, &Job::Exp(ts), opts).map_err(CliError::compute)?;
    let cols = ws
        .into_iter()
        .map(|w| w.into_iter().map(Scalar::to_c64).collect())
        .collect();
    Ok((cols, rep))
}

fn u0_norm_nonzero(u0: &[f64]) -> bool {
    u0.iter().any(|&x| x != 0.0)
}

/// Runs `matexp heat`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    if args.solver.device != DeviceSpec::Cpu {
        return Err(CliError::new(
            Kind::Device,
            format!(
                "heat runs the matrix-free stencil on the CPU only in this tool; run with --device cpu (asked for {})",
                args.solver.device
            ),
        ));
    }
    if args.t.is_complex() {
        return Err(CliError::usage("heat takes real times"));
    }
    let opts = args.solver.options()?;
    let boundary = match args.boundary {
        BoundaryArg::Dirichlet => Boundary::Dirichlet,
        BoundaryArg::Neumann => Boundary::Neumann,
        BoundaryArg::Periodic => Boundary::Periodic,
    };
    if args.n.checked_pow(3).is_none_or(|len| len > MAX_POINTS) {
        return Err(CliError::usage(format!(
            "-N {}: at most {} points per axis (N³ ≤ 2^31)",
            args.n, 1290
        )));
    }
    let a = Stencil::<f64>::laplacian(Dim::Three, args.n, boundary)
        .map_err(|e| CliError::usage(e.to_string()))?;
    let grid = *a.grid();
    drop(a);
    let len = grid.len();
    let u0: Vec<f64> = if args.u0 == "sine" {
        (0..len)
            .map(|i| {
                let p = grid.point(i);
                p.iter().map(|x| (std::f64::consts::PI * x).sin()).product()
            })
            .collect()
    } else {
        let src: VectorSource = args.u0.parse().map_err(CliError::usage)?;
        crate::io::narrow::<f64>(&read_vector(&src, len)?, "u0")?
    };
    let times: Vec<f64> = args.t.times().iter().map(|t| t.re).collect();
    let progress = Progress::start(
        quiet,
        &format!("heat equation N = {} ({len} unknowns)", args.n),
    );
    let result = match args.solver.precision {
        super::Precision::F64 => solve::<f64>(args.n, boundary, &u0, &times, &opts),
        super::Precision::F32 => solve::<f32>(args.n, boundary, &u0, &times, &opts),
    };
    progress.finish();
    let (ws, rep) = result?;
    let mut out = Outcome::default();
    for (t, w) in times.iter().zip(ws) {
        out.table.push(format!("t={t}"), w);
    }
    if let serde_json::Value::Object(m) = report_json(&rep) {
        out.report = m;
    }
    args.solver.report(&mut out.report);
    crate::solve::flag_underflow(
        &mut out.report,
        &out.table,
        out.table.columns.len(),
        u0_norm_nonzero(&u0),
    );
    let r = &mut out.report;
    r.insert("n_per_axis".into(), args.n.into());
    r.insert("n".into(), len.into());
    r.insert(
        "boundary".into(),
        format!("{:?}", args.boundary).to_lowercase().into(),
    );
    Ok(out)
}
