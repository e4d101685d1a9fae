//! GPU benchmarks of the exponential integrators: seed 003's combustion problem
//! (`crates/integrators/examples/support/combustion.rs`: w' = Δw + g(1 + w) on N³ interior
//! points, homogeneous Dirichlet, g(u) = ¼(2 − u)e^{20(1 − 1/u)}) with the matrix-free
//! `GpuStencil` and the source evaluated on the GPU (`matexp_stencil::gpu::pointwise`).
//!
//! * Table IV: one exponential-Euler step, h = 10⁻⁴, φ-tolerance 10⁻⁴, N = 256 (16.8 M
//!   points), f64 and f32, on the GPU and on the host CPU backend (same binary, same step):
//!   time (median of the repetitions after a warm-up), products, relative error against the
//!   f64 step at tolerance 10⁻¹² on the GPU. The seed reports 1.5 s / 1.2 s (f64 / f32) on a
//!   Tesla C1060 and 9.5 s / 5.6 s on two Xeons with 40 products. Peer (with the host CPU
//!   runs, unless `--no-peers`): SciPy's `expm_multiply` of the augmented matrix on the
//!   host, one repetition, beside our host step at 10⁻¹² (equal accuracy).
//! * The adaptive run: exprb32, exprb43 and epirk4s3 at tolerance 10⁻⁶ to t = 0.01 on
//!   N = 128 (f64), Jacobian action by directional differences on the GPU, against exprb43 at
//!   10⁻⁹: time, steps, products, error.
//!
//! * Magnus on the GPU: seed 000's spin bath with spin 1 driven by a rotating field,
//!   H(t) = H_bath + k(S_x1 cos ωt − S_y1 sin ωt) (three CSR products per H(t)·x, on any
//!   backend), Gauss–Magnus 4 and CF4:2 with Lanczos exponentials: the GPU result against the
//!   CPU backend's at L = 12, then time, products and norm drift at L = 20 (n = 2²⁰).
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_expint -- [--out DIR] [--small] [--reps N] [--no-cpu] [--no-peers]
//! ```
//! `--small`: N = 64 and 32. Records (one JSON object per line) go to `DIR/expint.jsonl`
//! (default `target/bench-records`). Exit status 3 means no GPU.

#[path = "../../crates/integrators/examples/support/combustion.rs"]
mod combustion;
#[path = "common/scipy_peer.rs"]
mod scipy_peer;

use combustion::{Combustion, initial, rel_diff};
use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, gpu_or_exit, upper_median, write_records,
};
use matexp_core::{
    Backend, CpuBackend, LinearOperator, RealScalar, Result as MResult, TimeDependentOperator, c64,
};
use matexp_expmv::Tolerance;
use matexp_gpu::rt::DeviceElement;
use matexp_gpu::{GpuBackend, GpuCsr, GpuVector};
use matexp_integrators::expint::{
    ExpIntOptions, ExpIntegrator, Nonlinearity, PhiMethod, Scheme, Stepping,
};
use matexp_integrators::magnus::{ExpMethod, Magnus, MagnusOptions, MagnusScheme, MagnusStepping};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros};
use matexp_stencil::gpu::{GpuStencil, pointwise};
use matexp_stencil::{Boundary, Dim, Pointwise, Stencil};
use std::sync::Mutex;
use std::time::Instant;

/// The records file's name: `DIR/expint.jsonl`.
const SUITE: &str = "expint";

struct Args {
    common: CommonArgs,
    cpu: bool,
    peers: bool,
}

fn parse_args() -> Args {
    let (mut cpu, mut peers) = (true, true);
    let common = CommonArgs::parse(5, |flag, _| match flag {
        "--no-cpu" => cpu = false,
        "--no-peers" => peers = false,
        _ => {}
    });
    Args { common, cpu, peers }
}

/// g(1 + w) on the GPU: 1 + w by an axpby with a vector of ones, then the seed's source kernel.
struct GpuCombustion<S: RealScalar + DeviceElement> {
    ones: GpuVector<S>,
    shifted: Mutex<GpuVector<S>>,
}

impl<S: RealScalar + DeviceElement> GpuCombustion<S> {
    fn new(gpu: &GpuBackend, n: usize) -> MResult<Self> {
        Ok(GpuCombustion {
            ones: gpu.upload(&vec![S::one(); n])?,
            shifted: Mutex::new(gpu.zeros(n)?),
        })
    }
}

impl<S: RealScalar + DeviceElement> Nonlinearity<GpuBackend, S> for GpuCombustion<S> {
    fn eval(
        &self,
        gpu: &GpuBackend,
        _t: f64,
        w: &GpuVector<S>,
        out: &mut GpuVector<S>,
    ) -> MResult<()> {
        let mut u = self
            .shifted
            .lock()
            .map_err(|_| matexp_core::Error::Device("lock poisoned".into()))?;
        gpu.copy(&self.ones, &mut u)?;
        gpu.axpby(S::one(), w, S::one(), &mut u)?;
        pointwise(gpu, Pointwise::Combustion, &u, out)
    }
    fn is_autonomous(&self) -> bool {
        true
    }
    fn jacobian_is_hermitian(&self) -> bool {
        true
    }
}

/// H(t) = H_bath + k(S_x1 cos ωt − S_y1 sin ωt) from three operators of one backend.
struct Driven<O> {
    h0: O,
    sx: O,
    sy: O,
    k: f64,
    omega: f64,
}

impl<B: Backend, O: LinearOperator<B, c64>> TimeDependentOperator<B, c64> for Driven<O> {
    fn nrows(&self) -> usize {
        self.h0.nrows()
    }
    fn ncols(&self) -> usize {
        self.h0.ncols()
    }
    fn apply_at(
        &self,
        backend: &B,
        t: f64,
        alpha: c64,
        x: &B::Vector<c64>,
        beta: c64,
        y: &mut B::Vector<c64>,
    ) -> MResult<()> {
        let one = c64::new(1.0, 0.0);
        self.h0.apply(backend, alpha, x, beta, y)?;
        let (s, c) = (self.omega * t).sin_cos();
        self.sx.apply(backend, alpha * (self.k * c), x, one, y)?;
        self.sy.apply(backend, alpha * (-self.k * s), x, one, y)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

/// S_x and S_y of spin 1 (the most significant bit; a clear bit is spin up) as CSR.
fn spin1_ops(spins: usize) -> MResult<(CsrMatrix<c64, u32>, CsrMatrix<c64, u32>)> {
    let n = 1usize << spins;
    let bit = 1usize << (spins - 1);
    let row_ptr: Vec<u32> = (0..=n as u32).collect();
    let col: Vec<u32> = (0..n).map(|r| (r ^ bit) as u32).collect();
    let sx = vec![c64::new(0.5, 0.0); n];
    // ⟨↑|S_y|↓⟩ = −i/2, ⟨↓|S_y|↑⟩ = i/2.
    let sy = (0..n)
        .map(|r| c64::new(0.0, if r & bit == 0 { -0.5 } else { 0.5 }))
        .collect();
    Ok((
        CsrMatrix::try_new(n, n, row_ptr.clone(), col.clone(), sx)?,
        CsrMatrix::try_new(n, n, row_ptr, col, sy)?,
    ))
}

type HostDriven = Driven<CsrMatrix<c64, u32>>;

fn driven_host(spins: usize) -> Res<(HostDriven, Vec<c64>)> {
    let model = SpinBath::seed000(spins, 2011).map_err(err)?;
    let h0 = model
        .hamiltonian::<c64, u32>(StoredZeros::Drop)
        .map_err(err)?;
    let (sx, sy) = spin1_ops(spins).map_err(err)?;
    let psi0 = model.initial_state::<c64>(7).map_err(err)?;
    Ok((
        Driven {
            h0,
            sx,
            sy,
            k: 2.0,
            omega: 8.0,
        },
        psi0,
    ))
}

fn to_gpu(gpu: &GpuBackend, d: &HostDriven) -> Res<Driven<GpuCsr<c64>>> {
    Ok(Driven {
        h0: GpuCsr::from_csr(gpu, &d.h0).map_err(err)?,
        sx: GpuCsr::from_csr(gpu, &d.sx).map_err(err)?,
        sy: GpuCsr::from_csr(gpu, &d.sy).map_err(err)?,
        k: d.k,
        omega: d.omega,
    })
}

fn magnus_opts(scheme: MagnusScheme, steps: usize) -> MagnusOptions {
    MagnusOptions {
        scheme,
        method: ExpMethod::Lanczos,
        exp_tol: Tolerance::new(1e-10, 0.0),
        stepping: MagnusStepping::Fixed { steps },
        ..Default::default()
    }
}

fn options(scheme: Scheme, stepping: Stepping, tol: f64, phi_tol: f64) -> ExpIntOptions {
    ExpIntOptions {
        scheme,
        phi: PhiMethod::Leja,
        tol: Tolerance::new(tol, 0.0),
        phi_tol: Some(Tolerance::new(phi_tol, 0.0)),
        stepping,
        ..Default::default()
    }
}

/// Median seconds of `reps` runs of one exponential-Euler step (after one warm-up), the
/// products of one and its result, on the GPU.
fn euler_gpu<S: RealScalar + DeviceElement>(
    gpu: &GpuBackend,
    n: usize,
    tol: f64,
    reps: usize,
) -> Res<(f64, usize, Vec<S>)> {
    let host = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet).map_err(err)?;
    let a = GpuStencil::new(gpu, &host).map_err(err)?;
    let len = n * n * n;
    let g = GpuCombustion::<S>::new(gpu, len).map_err(err)?;
    let opts = options(
        Scheme::ExponentialEuler,
        Stepping::Fixed { steps: 1 },
        tol,
        tol,
    );
    let mut integ = ExpIntegrator::new(gpu, len, opts).map_err(err)?;
    let w0 = gpu.upload(&initial::<S>(n)).map_err(err)?;
    let mut w = gpu.zeros::<S>(len).map_err(err)?;
    let mut times = Vec::new();
    let mut products = 0;
    for _ in 0..reps + 1 {
        gpu.copy(&w0, &mut w).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        let clock = Instant::now();
        let rep = integ.integrate(&a, &g, 0.0, 1e-4, &mut w).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        times.push(clock.elapsed().as_secs_f64());
        products = rep.matvecs;
    }
    times.remove(0);
    Ok((
        upper_median(&mut times),
        products,
        gpu.to_host(&w).map_err(err)?,
    ))
}

fn euler_cpu<S: RealScalar>(n: usize, tol: f64, reps: usize) -> Res<(f64, usize, Vec<S>)> {
    let cpu = CpuBackend::new();
    let a = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet).map_err(err)?;
    let opts = options(
        Scheme::ExponentialEuler,
        Stepping::Fixed { steps: 1 },
        tol,
        tol,
    );
    let mut integ = ExpIntegrator::new(&cpu, n * n * n, opts).map_err(err)?;
    let mut times = Vec::new();
    let mut products = 0;
    let mut w = initial::<S>(n);
    for _ in 0..reps + 1 {
        w = initial::<S>(n);
        let clock = Instant::now();
        let rep = integ
            .integrate(&a, &Combustion, 0.0, 1e-4, &mut w)
            .map_err(err)?;
        times.push(clock.elapsed().as_secs_f64());
        products = rep.matvecs;
    }
    times.remove(0);
    Ok((upper_median(&mut times), products, w))
}

/// SciPy's exponential-Euler step (f64) on the host CPU beside ours: `expm_multiply` of the
/// augmented matrix h·[[A, g(u)], [0, 0]] on [u; 1] with A the same Laplacian as CSR, error
/// against the GPU step at 10⁻¹². SciPy takes no tolerance (it works to 2⁻⁵³), so the record
/// also carries `extra.peer_ratio_vs_reference`: SciPy's time over our host CPU step at
/// 10⁻¹², the comparison at equal accuracy.
fn scipy_euler(n: usize, reference: &[f64], tag: &str) -> Res<(Record, String)> {
    let cpu = CpuBackend::new();
    let a = matexp_sparse::generators::laplacian_3d::<f64, u32>(n).map_err(err)?;
    let st = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).map_err(err)?;
    let u = initial::<f64>(n);
    let (mut y1, mut y2) = (vec![0.0; u.len()], vec![0.0; u.len()]);
    a.apply(&cpu, 1.0, &u, 0.0, &mut y1).map_err(err)?;
    st.apply(&cpu, 1.0, &u, 0.0, &mut y2).map_err(err)?;
    // Summation order differs, and the product of a smooth u cancels (‖Au‖ ≪ 12(N+1)²‖u‖):
    // at N = 256 the two agree to 1.5e−12 (measured on the GPU host), not to ε.
    let same = rel_diff(&y1, &y2);
    if same > 1e-10 {
        return Err(format!(
            "the CSR Laplacian differs from the stencil ({same:.1e})"
        ));
    }
    let mut g = vec![0.0; u.len()];
    Combustion.eval(&cpu, 0.0, &u, &mut g).map_err(err)?;
    let (tight_s, tight_products, _) = euler_cpu::<f64>(n, 1e-12, 1)?;
    let dir = scipy_peer::scratch("euler256");
    scipy_peer::write_csr(&dir, "A", &a);
    drop(a);
    scipy_peer::write_f64(&dir.join("u"), &u);
    scipy_peer::write_f64(&dir.join("g"), &g);
    scipy_peer::write_f64(&dir.join("ref"), reference);
    println!("SciPy expm_multiply at N = {n} on the host (one repetition; about a minute)");
    let args = ["--h", "1e-4", "--reps", "1", "--max-s", "1"].map(String::from);
    let v = scipy_peer::run("exp_euler", &dir, &args);
    let _ = std::fs::remove_dir_all(&dir);
    let v = v.ok_or("the SciPy script failed (stderr above)")?;
    let mut base = Record::new("expint", "table4_exp_euler", "scipy", "f64")
        .size("n", n * n * n)
        .size("points_per_axis", n);
    base.device = format!("{tag}-host");
    let mut peer = scipy_peer::peer_record(&base, &v).ok_or("unreadable SciPy output")?;
    peer.device = base.device.clone();
    let ratio = peer.time_s / tight_s;
    peer.extra.insert(
        "call".into(),
        "expm_multiply(h*[[A, g], [0, 0]], [u; 1])".into(),
    );
    peer.extra.insert(
        "tolerance".into(),
        "fixed 2^-53 (expm_multiply takes none)".into(),
    );
    peer.extra
        .insert("peer_ratio_vs_reference".into(), ratio.into());
    peer.extra.insert("reference_s".into(), tight_s.into());
    peer.extra
        .insert("reference_products".into(), tight_products.into());
    let line = format!(
        "Table IV N={n} SciPy (host): {:.2} s, error {:.1e}; {ratio:.1}x our host step at tol 1e-12 ({tight_s:.2} s)",
        peer.time_s,
        peer.error.unwrap_or(f64::NAN)
    );
    Ok((peer, line))
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit("gpu_expint");
    exit_on_failure("gpu_expint", run(&gpu, &args));
}

fn run(gpu: &GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    let tag = device_tag(|| info.short_name());
    println!("device: {info}");
    let mut records = Vec::new();
    let mut summary = Vec::new();
    let (n, n_adaptive) = if args.common.small {
        (64, 32)
    } else {
        (256, 128)
    };
    let record = |case: &str,
                  backend: &str,
                  precision: &str,
                  n: usize,
                  secs: f64,
                  reps: usize,
                  products: usize,
                  tol: f64,
                  error: f64| {
        let mut r = Record::new("expint", case, backend, precision)
            .size("n", n * n * n)
            .size("points_per_axis", n)
            .matvecs(products as u64)
            .tol(tol)
            .error(error);
        r.device = if backend == "cpu" {
            format!("{tag}-host")
        } else {
            tag.clone()
        };
        r.time_s = secs;
        r.reps = reps as u64;
        r
    };

    // Table IV.
    let (_, ref_products, reference) = euler_gpu::<f64>(gpu, n, 1e-12, 1)?;
    println!("Table IV reference (f64, tol 1e-12): {ref_products} products");
    let (t64, p64, w64) = euler_gpu::<f64>(gpu, n, 1e-4, args.common.reps)?;
    let (t32, p32, w32) = euler_gpu::<f32>(gpu, n, 1e-4, args.common.reps)?;
    let (e64, e32) = (rel_diff(&w64, &reference), rel_diff(&w32, &reference));
    let mut r = record(
        "table4_exp_euler",
        "gpu",
        "f64",
        n,
        t64,
        args.common.reps,
        p64,
        1e-4,
        e64,
    );
    // The seed's Table IV: one Tesla C1060, 40 products, at N = 256.
    r.extra.insert("seed_c1060_time_s".into(), 1.5.into());
    r.extra.insert("seed_products".into(), 40.into());
    records.push(r);
    let mut r = record(
        "table4_exp_euler",
        "gpu",
        "f32",
        n,
        t32,
        args.common.reps,
        p32,
        1e-4,
        e32,
    );
    // The seed's Table IV: one Tesla C1060, 40 products, at N = 256.
    r.extra.insert("seed_c1060_time_s".into(), 1.2.into());
    r.extra.insert("seed_products".into(), 40.into());
    records.push(r);
    summary.push(format!(
        "Table IV N={n} gpu f64: {t64:.4} s, {p64} products, error {e64:.2e}"
    ));
    summary.push(format!(
        "Table IV N={n} gpu f32: {t32:.4} s, {p32} products, error {e32:.2e}"
    ));
    if args.cpu {
        let (c64t, c64p, c64w) = euler_cpu::<f64>(n, 1e-4, 1)?;
        let (c32t, c32p, c32w) = euler_cpu::<f32>(n, 1e-4, 1)?;
        let (ec64, ec32) = (rel_diff(&c64w, &reference), rel_diff(&c32w, &reference));
        let mut r = record(
            "table4_exp_euler",
            "cpu",
            "f64",
            n,
            c64t,
            1,
            c64p,
            1e-4,
            ec64,
        );
        r.extra.insert("gpu_speedup".into(), (c64t / t64).into());
        records.push(r);
        let mut r = record(
            "table4_exp_euler",
            "cpu",
            "f32",
            n,
            c32t,
            1,
            c32p,
            1e-4,
            ec32,
        );
        r.extra.insert("gpu_speedup".into(), (c32t / t32).into());
        records.push(r);
        summary.push(format!(
            "Table IV N={n} cpu f64: {c64t:.3} s ({:.1}x gpu), f32: {c32t:.3} s ({:.1}x gpu)",
            c64t / t64,
            c32t / t32
        ));
    }
    if args.cpu && args.peers && scipy_peer::available("gpu_expint") {
        match scipy_euler(n, &reference, &tag) {
            Ok((peer, line)) => {
                records.push(peer);
                summary.push(line);
            }
            Err(e) => eprintln!("gpu_expint: no SciPy Table IV row: {e}"),
        }
    }
    write_records(&args.common.out, SUITE, &records)?;
    records.clear();

    // The adaptive run to t = 0.01.
    let m = n_adaptive;
    let host = Stencil::<f64>::laplacian(Dim::Three, m, Boundary::Dirichlet).map_err(err)?;
    let a = GpuStencil::new(gpu, &host).map_err(err)?;
    let len = m * m * m;
    let g = GpuCombustion::<f64>::new(gpu, len).map_err(err)?;
    let adaptive = Stepping::Adaptive {
        h0: Some(1e-4),
        h_min: 1e-12,
        h_max: 1.0,
    };
    let t_end = 0.01;
    let run_one = |scheme: Scheme,
                   tol: f64|
     -> Res<(f64, Vec<f64>, matexp_integrators::expint::ExpIntReport)> {
        let mut integ = ExpIntegrator::new(gpu, len, options(scheme, adaptive, tol, tol / 10.0))
            .map_err(err)?;
        let mut w = gpu.upload(&initial::<f64>(m)).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        let clock = Instant::now();
        let rep = integ.integrate(&a, &g, 0.0, t_end, &mut w).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        Ok((
            clock.elapsed().as_secs_f64(),
            gpu.to_host(&w).map_err(err)?,
            rep,
        ))
    };
    let (_, wref, rref) = run_one(Scheme::Exprb43, 1e-9)?;
    println!(
        "adaptive reference exprb43 tol 1e-9: {} steps, {} products",
        rref.steps, rref.matvecs
    );
    for scheme in [Scheme::Exprb32, Scheme::Exprb43, Scheme::Epirk4s3] {
        let (secs, w, rep) = run_one(scheme, 1e-6)?;
        let e = rel_diff(&w, &wref);
        let mut r = record(
            &format!("combustion_adaptive_{}", scheme.name()),
            "gpu",
            "f64",
            m,
            secs,
            1,
            rep.matvecs,
            1e-6,
            e,
        );
        r.extra.insert("t_end".into(), t_end.into());
        r.extra.insert("steps".into(), rep.steps.into());
        r.extra.insert("rejected".into(), rep.rejected.into());
        r.extra.insert("phi_calls".into(), rep.phi_calls.into());
        r.extra.insert("g_evals".into(), rep.g_evals.into());
        records.push(r);
        summary.push(format!(
            "adaptive N={m} {}: {secs:.3} s, {} steps, {} products, error {e:.2e}",
            scheme.name(),
            rep.steps,
            rep.matvecs
        ));
    }
    write_records(&args.common.out, SUITE, &records)?;
    records.clear();

    // Magnus on the GPU: agreement with the CPU backend, then the timed run.
    let (check_spins, big_spins) = if args.common.small {
        (10, 14)
    } else {
        (12, 20)
    };
    let (host, psi0) = driven_host(check_spins)?;
    let dev = to_gpu(gpu, &host)?;
    let cpu = CpuBackend::new();
    for scheme in [MagnusScheme::Gauss4, MagnusScheme::CommutatorFree4] {
        let mut mc = Magnus::new(&cpu, psi0.len(), magnus_opts(scheme, 100)).map_err(err)?;
        let mut pc = psi0.clone();
        mc.integrate(&host, 0.0, 1.0, &mut pc).map_err(err)?;
        let mut mg = Magnus::new(gpu, psi0.len(), magnus_opts(scheme, 100)).map_err(err)?;
        let mut pg = gpu.upload(&psi0).map_err(err)?;
        mg.integrate(&dev, 0.0, 1.0, &mut pg).map_err(err)?;
        let pg = gpu.to_host(&pg).map_err(err)?;
        let diff = pg
            .iter()
            .zip(&pc)
            .map(|(a, b)| (a - b).norm_sqr())
            .sum::<f64>()
            .sqrt();
        println!("Magnus {scheme:?} L = {check_spins}: ‖ψ_gpu − ψ_cpu‖ = {diff:.2e}");
        summary.push(format!(
            "Magnus {scheme:?} L={check_spins}: GPU vs CPU {diff:.2e}"
        ));
        if diff.is_nan() || diff >= 1e-8 {
            return Err(format!(
                "Magnus {scheme:?}: GPU and CPU differ by {diff:.2e}"
            ));
        }
    }
    let (host, psi0) = driven_host(big_spins)?;
    let dev = to_gpu(gpu, &host)?;
    drop(host);
    for scheme in [MagnusScheme::Gauss4, MagnusScheme::CommutatorFree4] {
        let steps = 100;
        let mut m = Magnus::new(gpu, psi0.len(), magnus_opts(scheme, steps)).map_err(err)?;
        let mut psi = gpu.upload(&psi0).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        let clock = Instant::now();
        let rep = m.integrate(&dev, 0.0, 1.0, &mut psi).map_err(err)?;
        gpu.synchronize().map_err(err)?;
        let secs = clock.elapsed().as_secs_f64();
        let drift = (gpu.nrm2(&psi).map_err(err)? - 1.0).abs();
        let mut r = Record::new(
            "expint",
            &format!("magnus_driven_spin_bath_{scheme:?}"),
            "gpu",
            "c64",
        )
        .size("n", psi0.len())
        .size("spins", big_spins)
        .matvecs(rep.matvecs as u64)
        .tol(1e-10)
        .error(drift);
        r.device = tag.clone();
        r.time_s = secs;
        r.reps = 1;
        r.extra.insert("steps".into(), steps.into());
        r.extra
            .insert("exponentials".into(), rep.exponentials.into());
        r.extra.insert("error_is".into(), "norm drift".into());
        records.push(r);
        summary.push(format!(
            "Magnus {scheme:?} L={big_spins}: {secs:.3} s, {steps} steps, {} products, norm drift {drift:.1e}",
            rep.matvecs
        ));
    }
    write_records(&args.common.out, SUITE, &records)?;
    println!("\nsummary ({tag}):");
    for s in summary {
        println!("  {s}");
    }
    Ok(())
}
