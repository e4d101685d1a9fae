//! `matexp heat`: the heat equation u' = Δu on the unit cube, u(t) = e^{tΔ}u₀, with the
//! matrix-free 7-point stencil of matexp-stencil and a homogeneous boundary condition.

use crate::error::{CliError, CliResult, Kind};
use crate::io::{TimeSpec, VectorSource, read_vector};
use crate::solve::{DeviceSpec, Job, report_json, run_on};
use crate::{Outcome, Progress};
use matexp::{CpuBackend, c64};
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
    #[arg(short = 'N', long)]
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
    if args.solver.precision != super::Precision::F64 {
        return Err(CliError::usage(
            "heat computes in f64 only; use --precision f64",
        ));
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
    let result = run_on(&CpuBackend::new(), &a, &u0, &Job::Exp(times.clone()), &opts)
        .map_err(CliError::compute);
    progress.finish();
    let (ws, rep) = result?;
    let mut out = Outcome::default();
    for (t, w) in times.iter().zip(ws) {
        out.table.push(
            format!("t={t}"),
            w.into_iter().map(|x| c64::new(x, 0.0)).collect(),
        );
    }
    if let serde_json::Value::Object(m) = report_json(&rep) {
        out.report = m;
    }
    args.solver.report(&mut out.report);
    let r = &mut out.report;
    r.insert("n_per_axis".into(), args.n.into());
    r.insert("n".into(), len.into());
    r.insert(
        "boundary".into(),
        format!("{:?}", args.boundary).to_lowercase().into(),
    );
    Ok(out)
}
