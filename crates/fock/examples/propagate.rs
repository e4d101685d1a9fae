//! Propagates a Fock state under a time-independent Bose–Hubbard Hamiltonian on the CPU
//! backend, `ψ(t) = e^{−iHt}ψ₀`, and writes the final state and the wall time: the "ours"
//! side of the QuSpin peer (`benches/peers/quspin_bose_hubbard.py`).
//!
//! ```text
//! H = −J Σ_k (b†_k b_{k+1} + h.c.) + Σ_k V_k n_k + U/2 Σ_k n_k(n_k − 1),   V_k = tilt · k
//! ```
//!
//! ```sh
//! cargo run --release -p matexp-fock --example propagate -- \
//!     --sites 8 --particles 8 [--j 1] [--u 2] [--tilt 0.25] [--boundary open|periodic] \
//!     [--state 2,2,2,2,0,0,0,0] [--t 2] [--rtol 1e-12] [--method leja|lanczos] \
//!     [--reps 1] [--out target/peer-quspin/m8_n8]
//! ```
//!
//! Writes `<out>.json` (parameters, wall times of each repetition and their median — the
//! propagation alone: the operator is matrix-free, so nothing is built — products, the
//! method's error estimate, norm, energy and site densities of the final state, and the
//! occupation tuples of a few indices so that a reader can check its basis mapping) and
//! `<out>.state.bin`, the final state as little-endian `complex128` in this crate's basis
//! order: occupation tuples `(n_0, …, n_{M−1})` in ascending lexicographic order.
//! The default initial state puts the bosons round-robin on the left half of the chain
//! (`2,2,2,2,0,0,0,0` for M = N = 8), so the state is not mirror-symmetric and a reversed
//! site order would show.

use matexp_core::{CpuBackend, Error, Result, c64};
use matexp_expmv::{LanczosOptions, LejaOptions, Tolerance, lanczos_expmv, leja_schrodinger};
use matexp_fock::{BoseHubbard, Boundary, Coupling, FockBasis, energy, fock_state, site_densities};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

struct Args {
    sites: u32,
    particles: u32,
    j: f64,
    u: f64,
    tilt: f64,
    boundary: Boundary,
    state: Option<Vec<u32>>,
    t: f64,
    rtol: f64,
    method: String,
    reps: usize,
    out: PathBuf,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        sites: 8,
        particles: 8,
        j: 1.0,
        u: 2.0,
        tilt: 0.25,
        boundary: Boundary::Open,
        state: None,
        t: 2.0,
        rtol: 1e-12,
        method: "leja".into(),
        reps: 1,
        out: PathBuf::from("target/peer-quspin/state"),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let bad =
        |what: &str, v: &str| Error::parse("command line", 0, format!("{what}: cannot read `{v}`"));
    for pair in argv.chunks(2) {
        let (flag, val) = (
            pair[0].as_str(),
            pair.get(1).map(String::as_str).unwrap_or(""),
        );
        match flag {
            "--sites" => a.sites = val.parse().map_err(|_| bad(flag, val))?,
            "--particles" => a.particles = val.parse().map_err(|_| bad(flag, val))?,
            "--j" => a.j = val.parse().map_err(|_| bad(flag, val))?,
            "--u" => a.u = val.parse().map_err(|_| bad(flag, val))?,
            "--tilt" => a.tilt = val.parse().map_err(|_| bad(flag, val))?,
            "--boundary" => {
                a.boundary = match val {
                    "open" => Boundary::Open,
                    "periodic" => Boundary::Periodic,
                    _ => return Err(bad(flag, val)),
                }
            }
            "--state" => {
                a.state = Some(
                    val.split(',')
                        .map(|s| s.parse().map_err(|_| bad(flag, s)))
                        .collect::<Result<_>>()?,
                )
            }
            "--t" => a.t = val.parse().map_err(|_| bad(flag, val))?,
            "--rtol" => a.rtol = val.parse().map_err(|_| bad(flag, val))?,
            "--method" if val == "leja" || val == "lanczos" => a.method = val.into(),
            "--reps" => a.reps = val.parse().map_err(|_| bad(flag, val))?,
            "--out" => a.out = PathBuf::from(val),
            _ => return Err(bad("unknown flag or value", &format!("{flag} {val}"))),
        }
    }
    a.reps = a.reps.max(1);
    Ok(a)
}

/// `N` bosons round-robin on the first `⌈M/2⌉` sites.
fn default_state(sites: u32, particles: u32) -> Vec<u32> {
    let half = sites.div_ceil(2).max(1);
    let mut occ = vec![0u32; sites as usize];
    for p in 0..particles {
        occ[(p % half) as usize] += 1;
    }
    occ
}

fn main() -> Result<()> {
    let a = parse()?;
    let basis = FockBasis::new(a.particles, a.sites)?;
    let m = a.sites as usize;
    let h = BoseHubbard::new(basis)
        .with_boundary(a.boundary)?
        .with_hopping(Coupling::Uniform(a.j))?
        .with_potential(Coupling::PerSite(
            (0..m).map(|k| a.tilt * k as f64).collect(),
        ))?
        .with_interaction(Coupling::Uniform(a.u))?;
    let occ0 = a
        .state
        .clone()
        .unwrap_or_else(|| default_state(a.sites, a.particles));
    let psi0: Vec<c64> = fock_state(h.basis(), &occ0)?;
    let frozen = h.at(0.0)?;
    let cpu = CpuBackend;
    let mut times = Vec::with_capacity(a.reps);
    let mut result = None;
    for _ in 0..a.reps {
        let start = Instant::now();
        let (w, rep) = match a.method.as_str() {
            "leja" => {
                let opts = LejaOptions {
                    tol: Tolerance::relative(a.rtol),
                    ..Default::default()
                };
                leja_schrodinger(&cpu, &frozen, a.t, &psi0, &opts)?
            }
            _ => {
                let opts = LanczosOptions {
                    tol: Tolerance::relative(a.rtol),
                    ..Default::default()
                };
                lanczos_expmv(&cpu, &frozen, c64::new(0.0, -a.t), &psi0, &opts)?
            }
        };
        times.push(start.elapsed().as_secs_f64());
        result = Some((w, rep));
    }
    let (psi, rep) = result.expect("at least one repetition");
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];

    let norm = psi.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    let mut scratch = vec![c64::new(0.0, 0.0); psi.len()];
    let e = energy(&cpu, &frozen, &psi, &mut scratch)?;
    let e0 = energy(&cpu, &frozen, &psi0, &mut scratch)?;
    let densities = site_densities(h.basis(), &psi)?;
    let d = h.basis().dim();
    let mut samples = Vec::new();
    for idx in [0, 1, d / 3, d / 2, d - 2, d - 1, h.basis().rank(&occ0)?] {
        let mut occ = vec![0u32; m];
        h.basis().unrank(idx.min(d - 1), &mut occ)?;
        samples.push(serde_json::json!([idx.min(d - 1), occ]));
    }

    let io = |e| Error::io(a.out.display(), e);
    if let Some(dir) = a.out.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut bytes = Vec::with_capacity(psi.len() * 16);
    for z in &psi {
        bytes.extend_from_slice(&z.re.to_le_bytes());
        bytes.extend_from_slice(&z.im.to_le_bytes());
    }
    let bin = a.out.with_extension("state.bin");
    std::fs::write(&bin, bytes).map_err(io)?;
    let json = serde_json::json!({
        "sites": a.sites,
        "particles": a.particles,
        "dim": d,
        "hopping": a.j,
        "interaction": a.u,
        "potential": (0..m).map(|k| a.tilt * k as f64).collect::<Vec<_>>(),
        "boundary": format!("{:?}", a.boundary).to_lowercase(),
        "initial_occupations": occ0,
        "t": a.t,
        "method": a.method,
        "rtol": a.rtol,
        "reps": a.reps,
        "times_s": times,
        "time_s": median,
        "matvecs": rep.matvecs,
        "estimate_matvecs": rep.estimate_matvecs,
        "substeps": rep.substeps,
        "rel_error_estimate": rep.rel_error_estimate,
        "converged": rep.converged,
        "norm": norm,
        "energy": e,
        "energy_initial": e0,
        "densities": densities,
        "basis_samples": samples,
        "threads": rayon::current_num_threads(),
        "state_file": bin.file_name().map(|s| s.to_string_lossy().into_owned()),
    });
    let path = a.out.with_extension("json");
    let mut f = std::fs::File::create(&path).map_err(io)?;
    writeln!(f, "{json}").map_err(io)?;
    eprintln!(
        "propagate: M = {}, N = {}, D = {d}, {} to t = {}: {:.4} s (median of {}), {} products, norm − 1 = {:.1e}, energy drift {:.1e}",
        a.sites,
        a.particles,
        a.method,
        a.t,
        median,
        a.reps,
        rep.matvecs,
        norm - 1.0,
        e - e0
    );
    Ok(())
}
