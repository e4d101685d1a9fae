//! Benchmark suite `fock`: the Bose–Hubbard model on the CPU backend (seed 001).
//!
//! Cases (default / with `MATEXP_BENCH_FULL=1`):
//! * `hx_m8_n{N}`, N ∈ {10, 15, 20 | 25, 30}: one y ← H·x (β = 0, `c64`), matrix-free against
//!   the assembled CSR (`extra.kernel`), the seed's constant J, V, U on an open chain of 8
//!   sites. Bytes floor: x read and y written once (matrix-free), plus the CSR values,
//!   indices and row pointers (CSR); bandwidth of a parallel copy in the same run.
//! * `double_well_rk45`: M = 2, N = 1, J = 0.4 to t = 10 with Cash–Karp at tolerance 1e−10;
//!   `error` = max deviation of ⟨n_0⟩ from cos²(Jt) at t = 10.
//! * `decaying_tunnelling_rk45`: the same double well with J(t) = e^{−0.3t} to t = 80 at
//!   tolerance 1e−10; `error` = max deviation of ⟨n_0⟩ from cos²((e^{−at} − 1)/a) at the
//!   observed times, `extra.limit_error` = |⟨n_0⟩(80) − cos²(1/0.3)|.
//! * `bogoliubov_n19_rk45`: the seed's four-site model (N = 19, D = 1540) to t = 5 from the
//!   mean-field state, tolerance 1e−8; `error` = ‖ψ − e^{−iHt}ψ₀‖ against the Leja propagator
//!   at tolerance 1e−12; `extra.rk45_over_leja` = RK45 time / Leja time (both ours, so not a
//!   `peer_ratio`).
//!
//! **Peers** (SciPy, `benches/peers/scipy_cpu_peers.py`, backend `scipy`, on the same
//! matrices and states written here as raw arrays): for `hx_m8_n{N}` SciPy's CSR of the same
//! H (`A @ x`, single-threaded, `extra.mem_bytes` = data + indices + indptr, `error` its
//! largest deviation from our product); for the three validation cases `solve_ivp` (DOP853)
//! of the same H(t) from the same state at the tolerance ours ran at (atol 10⁻² of it),
//! scored exactly as ours. Our records carry `peer_ratio` = SciPy time / ours.

#[path = "common/scipy_peer.rs"]
mod scipy_peer;

use criterion::Criterion;
use matexp_benches::{Floor, Record, Recorder, copy_bandwidth};
use matexp_core::{CpuBackend, LinearOperator, c64};
use matexp_expmv::{LejaOptions, Tolerance, leja_schrodinger};
use matexp_fock::{BoseHubbard, Coupling, FockBasis, fock_state, mean_field_state, site_densities};
use matexp_integrators::rk::{CashKarp, LinearOde, Rk45Options};
use std::hint::black_box;
use std::time::{Duration, Instant};

const GROUP: &str = "fock";

fn model(n: u32, m: u32) -> BoseHubbard {
    BoseHubbard::new(FockBasis::new(n, m).expect("basis"))
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| {
            h.with_potential(Coupling::PerSite(
                (0..m).map(|k| 0.1 * f64::from(k)).collect(),
            ))
        })
        .and_then(|h| h.with_interaction(Coupling::Uniform(0.5)))
        .expect("model")
}

fn inputs(d: usize) -> Vec<c64> {
    (0..d)
        .map(|i| c64::new(1.0 + (i % 7) as f64 * 0.125, 0.5 - (i % 5) as f64 * 0.1))
        .collect()
}

fn products(c: &mut Criterion, rec: &mut Recorder, bandwidth: f64, n: u32, scipy: bool) {
    let h = model(n, 8);
    let d = h.basis().dim() as usize;
    let case = format!("hx_m8_n{n}");
    let x = inputs(d);
    let mut y = vec![c64::new(0.0, 0.0); d];
    let cpu = CpuBackend;
    let (one, zero) = (c64::new(1.0, 0.0), c64::new(0.0, 0.0));
    let frozen = h.at(0.0).expect("coefficients");
    let id = format!("{case}_matrix_free");
    c.benchmark_group(GROUP).bench_function(&id, |b| {
        b.iter(|| {
            frozen
                .apply(&cpu, one, black_box(&x), zero, &mut y)
                .expect("product")
        })
    });
    let bytes = (2 * d * 16) as f64;
    let mut mf_rec = Record::new(GROUP, &case, "cpu", "c64")
        .size("n", d)
        .size("particles", n)
        .size("sites", 8)
        .matvecs(1)
        .extra("kernel", "matrix-free")
        .extra("mem_bytes", (h.basis().table().len() * 8) as f64);
    let mf_floor = Floor { bytes, bandwidth };
    let a = h.to_csr::<c64, u32>(0.0).expect("CSR");
    let id = format!("{case}_csr");
    c.benchmark_group(GROUP).bench_function(&id, |b| {
        b.iter(|| {
            a.apply(&cpu, one, black_box(&x), zero, &mut y)
                .expect("product")
        })
    });
    let nnz = a.nnz();
    let bytes = (nnz * 20 + (d + 1) * 4 + 2 * d * 16) as f64;
    let mut csr_rec = Record::new(GROUP, &case, "cpu", "c64")
        .size("n", d)
        .size("nnz", nnz)
        .size("particles", n)
        .size("sites", 8)
        .matvecs(1)
        .extra("kernel", "csr")
        .extra("mem_bytes", (nnz * 20 + (d + 1) * 4) as f64);
    if scipy {
        // SciPy's A @ x on the same CSR, timed right after ours; checked against our y.
        a.apply(&cpu, one, &x, zero, &mut y).expect("product");
        let dir = scipy_peer::scratch("fock");
        scipy_peer::write_csr(&dir, "A", &a);
        scipy_peer::write_vec(&dir.join("x"), &x);
        scipy_peer::write_vec(&dir.join("y"), &y);
        let args = ["--dtype", "c64", "--reps", "30", "--max-s", "5"].map(String::from);
        let v = scipy_peer::run("spmv", &dir, &args);
        let _ = std::fs::remove_dir_all(&dir);
        if let Some(v) = v {
            if let Some(peer) = scipy_peer::peer_record(&csr_rec, &v) {
                let peer = peer
                    .extra("kernel", "SciPy CSR (A @ x, 1 thread)")
                    .extra("mem_bytes", v["bytes"].as_f64().unwrap_or(f64::NAN))
                    .extra("index", v["index_dtype"].as_str().unwrap_or("?"));
                csr_rec.peer_ratio =
                    scipy_peer::criterion_median(GROUP, &id).map(|t| peer.time_s / t);
                mf_rec.peer_ratio =
                    scipy_peer::criterion_median(GROUP, &format!("{case}_matrix_free"))
                        .map(|t| peer.time_s / t);
                rec.add_timed(peer);
            }
        }
    }
    rec.add(
        GROUP,
        &format!("{case}_matrix_free"),
        mf_rec,
        Some(mf_floor),
    );
    rec.add(GROUP, &id, csr_rec, Some(Floor { bytes, bandwidth }));
}

/// SciPy's `solve_ivp` (DOP853, rtol `tol`, atol `tol`·10⁻²) of i ψ' = f(t)·H ψ from `psi0`
/// with f(t) = e^{−decay·t}: its JSON line and the states at `times`.
fn scipy_ode(
    h: &BoseHubbard,
    psi0: &[c64],
    times: &[f64],
    decay: f64,
    tol: f64,
) -> Option<(serde_json::Value, Vec<Vec<c64>>)> {
    let a = h.to_csr::<c64, u32>(0.0).ok()?;
    let dir = scipy_peer::scratch("fock-ode");
    scipy_peer::write_csr(&dir, "H", &a);
    scipy_peer::write_vec(&dir.join("psi0"), psi0);
    let times_arg = times
        .iter()
        .map(|t| format!("{t}"))
        .collect::<Vec<_>>()
        .join(",");
    let args = [
        "--times".to_string(),
        times_arg,
        "--decay".into(),
        format!("{decay}"),
        "--rtol".into(),
        format!("{tol:e}"),
        "--atol".into(),
        format!("{:e}", tol * 1e-2),
        "--reps".into(),
        "5".into(),
        "--max-s".into(),
        "10".into(),
    ];
    let v = scipy_peer::run("ode", &dir, &args);
    let out = scipy_peer::read_c64(&dir.join("out"));
    let _ = std::fs::remove_dir_all(&dir);
    let (v, out) = (v?, out?);
    let states = out.chunks(psi0.len()).map(<[c64]>::to_vec).collect();
    Some((v, states))
}

/// The peer's record beside `ours` with `error`, and ours' `peer_ratio`.
fn ode_peer(rec: &mut Recorder, ours: &mut Record, v: &serde_json::Value, error: f64) {
    if let Some(mut peer) = scipy_peer::peer_record(ours, v) {
        peer.error = Some(error);
        peer = peer
            .tol(v["rtol"].as_f64().unwrap_or(f64::NAN))
            .extra("method", "solve_ivp DOP853")
            .extra("atol", v["atol"].as_f64().unwrap_or(f64::NAN));
        ours.peer_ratio = Some(peer.time_s / ours.time_s);
        rec.add_timed(peer);
    }
}

fn double_well(rec: &mut Recorder, scipy: bool) {
    let h = BoseHubbard::new(FockBasis::new(1, 2).expect("basis"))
        .with_hopping(Coupling::Uniform(0.4))
        .expect("model");
    let cpu = CpuBackend;
    let mut psi: Vec<c64> = fock_state(h.basis(), &[1, 0]).expect("state");
    let psi0 = psi.clone();
    let ode = LinearOde::schrodinger(&h).expect("ode");
    let t = Instant::now();
    let rep = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10))
        .and_then(|mut rk| rk.integrate(&ode, 0.0, 10.0, &mut psi))
        .expect("RK45");
    let time = t.elapsed().as_secs_f64();
    let n = site_densities(h.basis(), &psi).expect("densities");
    let mut r = Record::new(GROUP, "double_well_rk45", "cpu", "c64")
        .size("n", 2)
        .matvecs(rep.products as u64)
        .tol(1e-10)
        .error((n[0] - 4.0f64.cos().powi(2)).abs())
        .extra("steps", rep.steps as u64)
        .extra("accumulated_error", rep.accumulated_error);
    r.time_s = time;
    r.reps = 1;
    if scipy {
        if let Some((v, states)) = scipy_ode(&h, &psi0, &[10.0], 0.0, 1e-10) {
            let n = site_densities(h.basis(), &states[0]).expect("densities");
            ode_peer(rec, &mut r, &v, (n[0] - 4.0f64.cos().powi(2)).abs());
        }
    }
    rec.add_timed(r);
}

/// The seed's second validation case: J(t) = e^{−at}, a = 0.3, from |1,0⟩, where
/// ⟨n_0⟩ = cos²((e^{−at} − 1)/a) freezes at cos²(1/a) ≈ 0.9637.
fn decaying_tunnelling(rec: &mut Recorder, scipy: bool) {
    let a = 0.3;
    let h = BoseHubbard::new(FockBasis::new(1, 2).expect("basis"))
        .with_hopping(Coupling::uniform_in_time(move |t| (-a * t).exp()))
        .expect("model");
    let cpu = CpuBackend;
    let mut psi: Vec<c64> = fock_state(h.basis(), &[1, 0]).expect("state");
    let psi0 = psi.clone();
    let ode = LinearOde::schrodinger(&h).expect("ode");
    let times = [0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0];
    let mut worst = 0.0f64;
    let t = Instant::now();
    let rep = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10))
        .and_then(|mut rk| {
            rk.integrate_observed(&ode, &times, &mut psi, |t, y| {
                let n = site_densities(h.basis(), y)?;
                worst = worst.max((n[0] - (((-a * t).exp() - 1.0) / a).cos().powi(2)).abs());
                Ok(())
            })
        })
        .expect("RK45");
    let time = t.elapsed().as_secs_f64();
    let n = site_densities(h.basis(), &psi).expect("densities");
    let mut r = Record::new(GROUP, "decaying_tunnelling_rk45", "cpu", "c64")
        .size("n", 2)
        .matvecs(rep.products as u64)
        .tol(1e-10)
        .error(worst)
        .extra("limit_error", (n[0] - (1.0 / a).cos().powi(2)).abs())
        .extra("steps", rep.steps as u64)
        .extra("accumulated_error", rep.accumulated_error)
        .extra("t_end", 80.0);
    r.time_s = time;
    r.reps = 1;
    if scipy {
        if let Some((v, states)) = scipy_ode(&h, &psi0, &times, a, 1e-10) {
            let mut worst = 0.0f64;
            for (t, y) in times.iter().zip(&states) {
                let n = site_densities(h.basis(), y).expect("densities");
                worst = worst.max((n[0] - (((-a * t).exp() - 1.0) / a).cos().powi(2)).abs());
            }
            ode_peer(rec, &mut r, &v, worst);
        }
    }
    rec.add_timed(r);
}

fn bogoliubov(rec: &mut Recorder, scipy: bool) {
    let n = 19u32;
    let h = BoseHubbard::new(FockBasis::new(n, 4).expect("basis"))
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| h.with_interaction(Coupling::Uniform(1.0 / f64::from(n - 1))))
        .expect("model");
    let amps: Vec<c64> = [130.0f64, 7.0, 3.0, 50.0]
        .iter()
        .map(|&x| c64::new((x / 190.0).sqrt(), 0.0))
        .collect();
    let psi0: Vec<c64> = mean_field_state(h.basis(), &amps).expect("state");
    let cpu = CpuBackend;
    let t_end = 5.0;
    let mut psi = psi0.clone();
    let ode = LinearOde::schrodinger(&h).expect("ode");
    let t = Instant::now();
    let rep = CashKarp::new(&cpu, psi.len(), Rk45Options::new(1e-8))
        .and_then(|mut rk| rk.integrate(&ode, 0.0, t_end, &mut psi))
        .expect("RK45");
    let rk_time = t.elapsed().as_secs_f64();
    let frozen = h.at(0.0).expect("coefficients");
    let opts = LejaOptions {
        tol: Tolerance::relative(1e-12),
        ..Default::default()
    };
    let t = Instant::now();
    let (w, lr) = leja_schrodinger(&cpu, &frozen, t_end, &psi0, &opts).expect("Leja");
    let leja_time = t.elapsed().as_secs_f64();
    let err = psi
        .iter()
        .zip(&w)
        .map(|(a, b)| (a - b).norm_sqr())
        .sum::<f64>()
        .sqrt();
    let mut r = Record::new(GROUP, "bogoliubov_n19_rk45", "cpu", "c64")
        .size("n", psi.len())
        .matvecs(rep.products as u64)
        .tol(1e-8)
        .error(err)
        .extra("steps", rep.steps as u64)
        .extra("leja_s", leja_time)
        .extra("leja_matvecs", lr.matvecs as u64)
        .extra("rk45_over_leja", rk_time / leja_time);
    r.time_s = rk_time;
    r.reps = 1;
    if scipy {
        if let Some((v, states)) = scipy_ode(&h, &psi0, &[t_end], 0.0, 1e-8) {
            let err = states[0]
                .iter()
                .zip(&w)
                .map(|(a, b)| (a - b).norm_sqr())
                .sum::<f64>()
                .sqrt();
            ode_peer(rec, &mut r, &v, err);
        }
    }
    rec.add_timed(r);
}

fn main() {
    let full = std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1");
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10);
    let mut rec = Recorder::new(GROUP);
    let bandwidth = copy_bandwidth(256 << 20, 5);
    eprintln!("fock: parallel copy bandwidth {:.1} GB/s", bandwidth / 1e9);
    let ns: &[u32] = if full { &[25, 30] } else { &[10, 15, 20] };
    let scipy = scipy_peer::available(GROUP);
    for &n in ns {
        products(&mut c, &mut rec, bandwidth, n, scipy);
    }
    double_well(&mut rec, scipy);
    decaying_tunnelling(&mut rec, scipy);
    bogoliubov(&mut rec, scipy);
    c.final_summary();
    match rec.finish() {
        Ok(records) => eprintln!("fock: {} records", records.len()),
        Err(e) => eprintln!("fock: could not write records: {e}"),
    }
}
