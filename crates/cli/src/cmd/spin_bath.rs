//! `matexp spin-bath`: seed 000's two central spins in a bath of L − 2 spins,
//! ψ(t) = e^{−itH}ψ₀ with the seed's Hamiltonian and random initial state.

use crate::error::{CliError, CliResult};
use crate::solve::{Job, report_json, solve_csr};
use crate::{Outcome, Progress};
use matexp::sparse::generators::{SpinBath, StoredZeros};
use matexp::{CsrMatrix, Scalar, c64};

/// Arguments of `matexp spin-bath`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of spins L (2 ≤ L ≤ 30; the state has 2^L entries).
    #[arg(short = 'L', long)]
    pub spins: usize,
    /// Time t of ψ(t) = e^{−itH}ψ₀.
    #[arg(short, long, allow_hyphen_values = true)]
    pub t: f64,
    /// Seed of the bath couplings J_i.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seed of the random bath state in ψ₀.
    #[arg(long, default_value_t = 1)]
    pub state_seed: u64,
    /// Method, tolerances, precision and device.
    #[command(flatten)]
    pub solver: super::SolverArgs,
}

/// Runs `matexp spin-bath`.
pub fn run(args: &Args, quiet: bool) -> CliResult<Outcome> {
    if !args.t.is_finite() {
        return Err(CliError::usage(format!("-t {}: must be finite", args.t)));
    }
    let opts = args.solver.options()?;
    let model =
        SpinBath::seed000(args.spins, args.seed).map_err(|e| CliError::usage(e.to_string()))?;
    let progress = Progress::start(
        quiet,
        &format!("spin bath L = {} (n = {})", args.spins, model.dim()),
    );
    let t = c64::new(0.0, -args.t);
    let result = crate::with_scalar!(args.solver.precision, true, |S| {
        let h: CsrMatrix<S> = model
            .hamiltonian::<S, u32>(StoredZeros::Drop)
            .map_err(CliError::compute)?;
        let psi0 = model
            .initial_state::<S>(args.state_seed)
            .map_err(CliError::compute)?;
        let (ws, rep) = solve_csr(
            &args.solver.device,
            &h,
            &psi0,
            &Job::Exp(vec![S::from_c64(t)]),
            &opts,
        )?;
        Ok::<_, CliError>((
            ws[0].iter().map(|z| z.to_c64()).collect::<Vec<_>>(),
            rep,
            h.nnz(),
        ))
    });
    progress.finish();
    let (psi, rep, nnz) = result?;
    let norm = psi.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    let mut out = Outcome::default();
    out.table.push(format!("psi(t={})", args.t), psi);
    if let serde_json::Value::Object(m) = report_json(&rep) {
        out.report = m;
    }
    args.solver.report(&mut out.report);
    let r = &mut out.report;
    r.insert("spins".into(), args.spins.into());
    r.insert("n".into(), model.dim().into());
    r.insert("nnz".into(), nnz.into());
    r.insert("t".into(), args.t.into());
    r.insert("norm".into(), norm.into());
    Ok(out)
}
