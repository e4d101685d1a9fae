//! CPU benchmarks of the exponential and Magnus integrators:
//!
//! * seed 003's Table IV on the CPU backend: one exponential-Euler step of the combustion
//!   problem (h = 10⁻⁴, φ-tolerance 10⁻⁴) in f64 and f32, error against the f64 step at 10⁻¹²;
//! * one adaptive exprb32 / exprb43 / epirk4s3 run of the combustion problem to t = 10⁻³ at
//!   tolerance 10⁻⁶ (error against exprb43 at 10⁻¹⁰);
//! * one fourth-order Magnus step (Gauss and CF4:2) of the CNOT model's laboratory-frame
//!   pulse Hamiltonian with 8 bath spins (n = 1024), and the whole gate without a bath
//!   (fidelity as the error);
//! * seed 000's Figure 2 (`spin_bath_fig2_L15_t100`): ⟨S_z⟩ of spin 1 of two spins in a bath,
//!   L = 15 (n = 32 768), at the 1001 times t = 0, 0.1, …, 100 by Leja interpolation at rtol
//!   10⁻⁶, timed once; `error` = max |⟨S_z⟩ − reference| with the reference curve at rtol
//!   10⁻¹² (`extra.reference_s`, `extra.reference_products`). The example `spin_bath_fig2`
//!   draws the same curves.
//!
//! **Peers** (SciPy, `benches/peers/scipy_cpu_peers.py`, backend `scipy`): for
//! `cnot_gate_gauss4` the same pulse sequence without a bath, each segment by `solve_ivp`
//! (DOP853, rtol 10⁻¹⁰, atol 10⁻¹²), `error` = |1 − F| as ours; for
//! `spin_bath_fig2_L15_t100` `expm_multiply(−iH, ψ₀, start = 0, stop = 100, num = 1001)` on
//! the same H and ψ₀, `error` = max |Δ⟨S_z⟩| against our rtol 10⁻¹² curve, timed once. Our
//! records carry `peer_ratio` = SciPy time / ours (for Figure 2 also
//! `extra.peer_ratio_vs_reference` = SciPy time / our rtol 10⁻¹² curve's time); for
//! `table4_exp_euler` (f64) the same step by `expm_multiply` of the augmented matrix
//! h·[[A, g(u)], [0, 0]] on [u; 1] (A: the same Laplacian as CSR), error against our step at
//! 10⁻¹² as ours (`extra.peer_ratio_vs_reference`: SciPy time / that step's time).
//!
//! Sizes: N = 32 points per axis by default, N = 64 with `MATEXP_BENCH_FULL=1`.

#[path = "../../crates/integrators/examples/support/combustion.rs"]
mod combustion;
#[path = "../../crates/integrators/examples/support/nmr.rs"]
mod nmr;
#[path = "common/scipy_peer.rs"]
mod scipy_peer;
#[path = "../../crates/integrators/examples/support/spin_bath.rs"]
mod spin_bath;

use combustion::{Combustion, initial, rel_diff};
use criterion::{Criterion, criterion_group, criterion_main};
use matexp_benches::{Record, Recorder};
use matexp_core::{CpuBackend, RealScalar, c64};
use matexp_expmv::Tolerance;
use matexp_integrators::expint::{ExpIntOptions, ExpIntegrator, PhiMethod, Scheme, Stepping};
use matexp_integrators::magnus::{ExpMethod, Magnus, MagnusOptions, MagnusScheme, MagnusStepping};
use matexp_stencil::{Boundary, Dim, Stencil};
use nmr::{Nmr, Pulse, Segment};

fn size() -> usize {
    if std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1") {
        64
    } else {
        32
    }
}

fn record(case: &str, precision: &str, n: usize) -> Record {
    let mut r = Record::new("expint", case, "cpu", precision).size("n", n);
    r.device = matexp_benches::device_name();
    r
}

fn euler_opts(tol: f64) -> ExpIntOptions {
    ExpIntOptions {
        scheme: Scheme::ExponentialEuler,
        phi: PhiMethod::Leja,
        tol: Tolerance::new(tol, 0.0),
        phi_tol: Some(Tolerance::new(tol, 0.0)),
        stepping: Stepping::Fixed { steps: 1 },
        ..Default::default()
    }
}

/// One exponential-Euler step: (result, products).
fn euler<S: RealScalar>(n: usize, tol: f64) -> (Vec<S>, usize) {
    let cpu = CpuBackend::new();
    let a = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let mut integ = ExpIntegrator::new(&cpu, n * n * n, euler_opts(tol)).unwrap();
    let mut w = initial::<S>(n);
    let rep = integ.integrate(&a, &Combustion, 0.0, 1e-4, &mut w).unwrap();
    (w, rep.matvecs)
}

fn bench_table4<S: RealScalar>(c: &mut Criterion, rec: &mut Recorder, n: usize, reference: &[f64]) {
    let cpu = CpuBackend::new();
    let a = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let mut integ = ExpIntegrator::new(&cpu, n * n * n, euler_opts(1e-4)).unwrap();
    let w0 = initial::<S>(n);
    let (w, products) = euler::<S>(n, 1e-4);
    let id = format!("table4_exp_euler_{}", S::NAME);
    let mut g = c.benchmark_group("expint");
    g.sample_size(10);
    g.bench_function(&id, |b| {
        b.iter(|| {
            let mut w = w0.clone();
            integ.integrate(&a, &Combustion, 0.0, 1e-4, &mut w).unwrap();
            w
        })
    });
    g.finish();
    let r = record("table4_exp_euler", S::NAME, n * n * n)
        .size("points_per_axis", n)
        .matvecs(products as u64)
        .tol(1e-4)
        .error(rel_diff(&w, reference));
    rec.add("expint", &id, r, None);
}

/// SciPy's exponential-Euler step (f64) beside ours: the same Laplacian (as CSR), u and g(u).
fn scipy_euler(rec: &mut Recorder, n: usize, reference: &[f64], reference_s: f64) {
    use matexp_core::LinearOperator;
    let cpu = CpuBackend::new();
    let a = matexp_sparse::generators::laplacian_3d::<f64, u32>(n).unwrap();
    let st = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let u = initial::<f64>(n);
    let (mut y1, mut y2) = (vec![0.0; u.len()], vec![0.0; u.len()]);
    a.apply(&cpu, 1.0, &u, 0.0, &mut y1).unwrap();
    st.apply(&cpu, 1.0, &u, 0.0, &mut y2).unwrap();
    let same = rel_diff(&y1, &y2);
    if same > 1e-12 {
        eprintln!("expint: the CSR Laplacian differs from the stencil ({same:.1e}); no SciPy step");
        return;
    }
    let mut g = vec![0.0; u.len()];
    matexp_integrators::expint::Nonlinearity::eval(&Combustion, &cpu, 0.0, &u, &mut g).unwrap();
    let dir = scipy_peer::scratch("euler");
    scipy_peer::write_csr(&dir, "A", &a);
    scipy_peer::write_f64(&dir.join("u"), &u);
    scipy_peer::write_f64(&dir.join("g"), &g);
    scipy_peer::write_f64(&dir.join("ref"), reference);
    let args = ["--h", "1e-4", "--reps", "5", "--max-s", "20"].map(String::from);
    let v = scipy_peer::run("exp_euler", &dir, &args);
    let _ = std::fs::remove_dir_all(&dir);
    let base = record("table4_exp_euler", "f64", n * n * n).size("points_per_axis", n);
    if let Some(peer) = v.as_ref().and_then(|v| scipy_peer::peer_record(&base, v)) {
        let ratio = peer.time_s / reference_s;
        rec.add_timed(
            peer.extra("call", "expm_multiply(h*[[A, g], [0, 0]], [u; 1])")
                .extra("tolerance", "fixed 2^-53 (expm_multiply takes none)")
                .extra("peer_ratio_vs_reference", ratio)
                .extra("reference_s", reference_s),
        );
    }
}

fn bench(c: &mut Criterion) {
    let n = size();
    let mut rec = Recorder::new("expint");
    let clock = std::time::Instant::now();
    let (reference, _) = euler::<f64>(n, 1e-12);
    let reference_s = clock.elapsed().as_secs_f64();
    bench_table4::<f64>(c, &mut rec, n, &reference);
    if scipy_peer::available("expint") {
        scipy_euler(&mut rec, n, &reference, reference_s);
    }
    bench_table4::<f32>(c, &mut rec, n, &reference);

    // Adaptive runs to t = 1e-3.
    let cpu = CpuBackend::new();
    let a = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let len = n * n * n;
    let t_end = 1e-3;
    let run = |scheme: Scheme, tol: f64| {
        let opts = ExpIntOptions {
            scheme,
            tol: Tolerance::new(tol, 0.0),
            stepping: Stepping::Adaptive {
                h0: Some(1e-4),
                h_min: 1e-12,
                h_max: 1.0,
            },
            ..Default::default()
        };
        let mut integ = ExpIntegrator::new(&cpu, len, opts).unwrap();
        let mut w = initial::<f64>(n);
        let rep = integ
            .integrate(&a, &Combustion, 0.0, t_end, &mut w)
            .unwrap();
        (w, rep)
    };
    let (wref, _) = run(Scheme::Exprb43, 1e-10);
    let mut g = c.benchmark_group("expint");
    g.sample_size(10);
    for scheme in [Scheme::Exprb32, Scheme::Exprb43, Scheme::Epirk4s3] {
        let (w, rep) = run(scheme, 1e-6);
        let id = format!("combustion_adaptive_{}", scheme.name());
        g.bench_function(&id, |b| b.iter(|| run(scheme, 1e-6)));
        let mut r = record(&id, "f64", len)
            .size("points_per_axis", n)
            .matvecs(rep.matvecs as u64)
            .tol(1e-6)
            .error(rel_diff(&w, &wref));
        r.extra.insert("steps".into(), rep.steps.into());
        r.extra.insert("phi_calls".into(), rep.phi_calls.into());
        r.extra.insert("t_end".into(), t_end.into());
        rec.add("expint", &id, r, None);
    }

    // Magnus steps of the CNOT model's pulse Hamiltonian with 8 bath spins.
    let model = Nmr::seed000(8, 1e-6);
    let dim = model.dim();
    let pulse = Segment {
        model: &model,
        pulse: Some((
            Pulse {
                qubit: 1,
                axis: 'x',
                angle: std::f64::consts::PI,
            },
            -0.5,
        )),
    };
    // A spread, non-uniform state of norm 1.
    let raw: Vec<c64> = (0..dim)
        .map(|i| c64::from_polar(1.0 + 0.5 * (i as f64).sin(), 0.7 * i as f64))
        .collect();
    let norm = raw.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    let psi0: Vec<c64> = raw.iter().map(|z| z / norm).collect();
    for scheme in [MagnusScheme::Gauss4, MagnusScheme::CommutatorFree4] {
        let opts = MagnusOptions {
            scheme,
            method: ExpMethod::Lanczos,
            exp_tol: Tolerance::new(1e-10, 0.0),
            stepping: MagnusStepping::Fixed { steps: 1 },
            ..Default::default()
        };
        let mut m = Magnus::new(&cpu, dim, opts).unwrap();
        let mut psi = psi0.clone();
        let (_, products) = m.step(&pulse, 0.0, 0.05, &mut psi).unwrap();
        let id = format!("magnus_step_{scheme:?}");
        g.bench_function(&id, |b| {
            b.iter(|| {
                let mut psi = psi0.clone();
                m.step(&pulse, 0.0, 0.05, &mut psi).unwrap()
            })
        });
        rec.add(
            "expint",
            &id,
            record(&id, "c64", dim).matvecs(products as u64).tol(1e-10),
            None,
        );
    }
    let no_bath = Nmr::seed000(0, 0.0);
    let (f, f_min, cost) = nmr::gate_fidelity(&no_bath, MagnusScheme::Gauss4, 1e-10).unwrap();
    g.bench_function("cnot_gate_gauss4", |b| {
        b.iter(|| nmr::gate_fidelity(&no_bath, MagnusScheme::Gauss4, 1e-10).unwrap())
    });
    g.finish();
    let mut cnot = record("cnot_gate_gauss4", "c64", 4)
        .matvecs(cost.matvecs as u64)
        .tol(1e-10)
        // A fidelity above 1 (a propagator that gained norm) is as far from the gate as
        // one below it.
        .error((1.0 - f).abs())
        .extra("worst_infidelity", 1.0 - f_min);
    let scipy = scipy_peer::available("expint");
    if scipy {
        let args = [
            "--rtol", "1e-10", "--atol", "1e-12", "--reps", "5", "--max-s", "20",
        ]
        .map(String::from);
        let dir = scipy_peer::scratch("cnot");
        let v = scipy_peer::run("cnot", &dir, &args);
        let _ = std::fs::remove_dir_all(&dir);
        if let Some(peer) = v.as_ref().and_then(|v| scipy_peer::peer_record(&cnot, v)) {
            let v = v.as_ref().unwrap();
            let peer = peer
                .tol(1e-10)
                .extra("method", "solve_ivp DOP853 per segment")
                .extra("atol", 1e-12)
                .extra(
                    "worst_infidelity",
                    v["worst_infidelity"].as_f64().unwrap_or(f64::NAN),
                );
            cnot.peer_ratio =
                scipy_peer::criterion_median("expint", "cnot_gate_gauss4").map(|t| peer.time_s / t);
            rec.add_timed(peer);
        }
    }
    rec.add("expint", "cnot_gate_gauss4", cnot, None);
    spin_bath_fig2(&mut rec, scipy);
    rec.finish().unwrap();
}

/// Seed 000 Figure 2: the ⟨S_z⟩ curve of spin 1 at L = 15 to t = 100, timed once at the
/// working tolerance, its error against the same curve at rtol 10⁻¹².
fn spin_bath_fig2(rec: &mut Recorder, scipy: bool) {
    let (spins, t_end, dt, rtol): (usize, f64, f64, f64) = (15, 100.0, 0.1, 1e-6);
    let steps = (t_end / dt).round() as usize;
    let (h, psi0) = spin_bath::model(spins).unwrap();
    let clock = std::time::Instant::now();
    let (sz, products) = spin_bath::curve(&h, &psi0, spins, dt, steps, rtol).unwrap();
    let time = clock.elapsed().as_secs_f64();
    let clock = std::time::Instant::now();
    let (sz_ref, products_ref) = spin_bath::curve(&h, &psi0, spins, dt, steps, 1e-12).unwrap();
    let time_ref = clock.elapsed().as_secs_f64();
    let err = sz
        .iter()
        .zip(&sz_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "spin_bath_fig2: {time:.2} s, {products} products, max |Δ⟨S_z⟩| = {err:.2e} \
         (reference {time_ref:.2} s, {products_ref} products)"
    );
    let mut r = record("spin_bath_fig2_L15_t100", "c64", psi0.len())
        .size("spins", spins)
        .size("nnz", h.nnz())
        .matvecs(products as u64)
        .tol(rtol)
        .error(err)
        .extra("t_end", t_end)
        .extra("outputs", (steps + 1) as u64)
        .extra("reference_tol", 1e-12)
        .extra("reference_s", time_ref)
        .extra("reference_products", products_ref as u64);
    r.time_s = time;
    r.reps = 1;
    if scipy {
        let dir = scipy_peer::scratch("fig2");
        scipy_peer::write_csr(&dir, "H", &h);
        scipy_peer::write_vec(&dir.join("psi0"), &psi0);
        scipy_peer::write_f64(&dir.join("ref"), &sz_ref);
        let args = [
            "--spins".to_string(),
            spins.to_string(),
            "--start".into(),
            "0".into(),
            "--stop".into(),
            format!("{t_end}"),
            "--num".into(),
            (steps + 1).to_string(),
        ];
        let v = scipy_peer::run("expm_times", &dir, &args);
        let _ = std::fs::remove_dir_all(&dir);
        if let Some(peer) = v.as_ref().and_then(|v| scipy_peer::peer_record(&r, v)) {
            let peer = peer
                .extra("outputs", (steps + 1) as u64)
                .extra(
                    "call",
                    "expm_multiply(-1j*H, psi0, start=0, stop=100, num=1001)",
                )
                .extra("tolerance", "fixed 2^-53 (expm_multiply takes none)");
            r.peer_ratio = Some(peer.time_s / time);
            r = r.extra("peer_ratio_vs_reference", peer.time_s / time_ref);
            rec.add_timed(peer);
        }
    }
    rec.add_timed(r);
}

criterion_group!(benches, bench);
criterion_main!(benches);
