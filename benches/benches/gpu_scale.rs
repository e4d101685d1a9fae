//! The largest problems one GPU holds: Bose–Hubbard at D = 1.17·10⁹ and spin-½ chains in
//! S^z sectors at D = 2.3·10⁹, with observables at output times and no state on the host.
//!
//! * (a) `bh`: Bose–Hubbard M = N = 17 (D = 1 166 803 110), J = U = 1, open chain, from the
//!   mean-field state built on the device, e^{−iHt}ψ₀ at tol 1e−8 to t = 1 by Leja and by
//!   the lean Cash–Karp RK45 (4 vectors; the standard one needs 9 and does not fit). At each
//!   output time: densities ⟨n_k⟩, norm, overlap with ψ₀ (one pass, ψ₀ not stored); energy
//!   before and after. RK45 stops at the first output time past `--rk-budget` seconds and
//!   records how far it came.
//! * (b) `heis`: the Heisenberg ring N = 34, S^z = 0 (D = 2 333 606 220), real f64 vectors:
//!   H·x time and rows/s (CUDA events, median), then e^{−τH}ψ of the seeded random state at
//!   tol 1e−8 by Leja (6 vectors) and by two-pass Lanczos (5): energy and ⟨S^z_0 S^z_r⟩ after.
//! * (c) `neel`: the Heisenberg ring N = 32 (D = 601 080 390), e^{−iHt} of the Néel state to
//!   t = 5 by Leja, ⟨S^z_k⟩, ⟨S^z_0 S^z_r⟩, energy, norm and the return amplitude ⟨Néel|ψ(t)⟩
//!   at every output time.
//!
//! Before each run the planner (`matexp_expmv::plan`) predicts the peak device memory from
//! the basis, the operator and the method and checks it against the free memory the GPU
//! reports (a typed error naming the sizes when it does not fit); the record carries the
//! prediction beside the measured use. Observables stream to `DIR/gpu_scale_<case>.csv` (one
//! line per output time, flushed) with a progress line per output time.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_scale -- [--out DIR] [--small] [--reps N]
//!     [--only bh,heis,neel] [--no-rk45] [--rk-budget S] [--bh-t T] [--neel-t T] [--tau T]
//!     [--outputs K]
//! ```
//! `--small`: M = N = 10, N = 20 and N = 16 (seconds in all). Records go to
//! `DIR/gpu_scale.jsonl`. Exit status 3 means no GPU.

use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, gpu_or_exit, median, parse_value, time_runs,
    write_records,
};
use matexp_core::{Backend, LinearOperator, c64};
use matexp_expmv::plan::{Method, Plan, ScalarKind};
use matexp_expmv::{ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions};
use matexp_fock::gpu::{GpuBoseHubbard, GpuLookup};
use matexp_fock::spin::gpu::{GpuXxzChain, neel_amplitudes};
use matexp_fock::{BoseHubbard, Boundary, Coupling, FockBasis, SpinBasis, XxzChain};
use matexp_gpu::{GpuBackend, GpuVector};
use matexp_integrators::rk::{CashKarpLean, Rk45Options};
use std::io::Write as _;
use std::time::Instant;

const SUITE: &str = "gpu_scale";
const TOL: f64 = 1e-8;

struct Args {
    common: CommonArgs,
    only: Vec<String>,
    rk45: bool,
    rk_budget: f64,
    bh_t: f64,
    neel_t: f64,
    tau: f64,
    outputs: usize,
}

fn parse_args() -> Args {
    let mut a = Args {
        common: CommonArgs::parse(5, |_, _| {}),
        only: vec!["bh".into(), "heis".into(), "neel".into()],
        rk45: true,
        rk_budget: 100.0,
        bh_t: 1.0,
        neel_t: 5.0,
        tau: 1.0,
        outputs: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--only" => {
                if let Some(v) = it.next() {
                    a.only = v.split(',').map(str::to_string).collect();
                }
            }
            "--no-rk45" => a.rk45 = false,
            "--rk-budget" => a.rk_budget = parse_value(&mut it, a.rk_budget),
            "--bh-t" => a.bh_t = parse_value(&mut it, a.bh_t),
            "--neel-t" => a.neel_t = parse_value(&mut it, a.neel_t),
            "--tau" => a.tau = parse_value(&mut it, a.tau),
            "--outputs" => a.outputs = parse_value(&mut it, a.outputs),
            _ => {}
        }
    }
    a
}

struct Ctx {
    gpu: GpuBackend,
    tag: String,
    small: bool,
    reps: usize,
    out: std::path::PathBuf,
    records: Vec<Record>,
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit(SUITE);
    exit_on_failure(SUITE, run(gpu, &args));
}

fn run(gpu: GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    println!("device: {info}");
    let mut ctx = Ctx {
        tag: device_tag(|| info.short_name()),
        gpu,
        small: args.common.small,
        reps: args.common.reps,
        out: args.common.out.clone(),
        records: Vec::new(),
    };
    let wants = |c: &str| args.only.iter().any(|o| o == c);
    let result = (|| {
        if wants("heis") {
            heisenberg(&mut ctx, args)?;
        }
        if wants("neel") {
            neel(&mut ctx, args)?;
        }
        if wants("bh") {
            bose_hubbard(&mut ctx, args)?;
        }
        Ok(())
    })();
    // Records of the runs that finished are kept even when a later one fails.
    write_records(&ctx.out, SUITE, &ctx.records)?;
    result
}

/// Returns the memory the device's default pool keeps from freed buffers to the driver, so
/// that the free memory the driver reports is what a new run can have (matexp-gpu keeps
/// freed memory pooled).
fn trim_pool(gpu: &GpuBackend) -> Res<()> {
    use matexp_gpu::cudarc::driver::sys;
    gpu.synchronize().map_err(err)?;
    let dev = gpu.device();
    dev.bind().map_err(err)?;
    let mut pool = std::ptr::null_mut();
    // SAFETY: writes one pool handle of a valid device; trimming releases only memory that
    // no allocation uses.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, dev.cu_device())
            .result()
            .map_err(err)?;
        sys::cuMemPoolTrimTo(pool, 0).result().map_err(err)
    }
}

/// Predicts the peak, checks it against the device's free memory plus `held` bytes of the
/// run's vectors already allocated, and prints both.
fn plan(
    ctx: &Ctx,
    what: &str,
    method: Method,
    scalar: ScalarKind,
    (d, op, held): (u64, u64, u64),
) -> Res<Plan> {
    let p = Plan::new(method, scalar, d, op).map_err(err)?;
    trim_pool(&ctx.gpu)?;
    let (free, total) = ctx.gpu.device().memory_info().map_err(err)?;
    let free = free + held as usize;
    println!(
        "{what}: plan {p} → peak {:.2} GB; device free {:.2} of {:.2} GB",
        p.peak_bytes() as f64 / 1e9,
        free as f64 / 1e9,
        total as f64 / 1e9
    );
    p.check(free as u64, "device free memory").map_err(err)?;
    Ok(p)
}

/// Device memory in use now (total − free).
fn used(gpu: &GpuBackend) -> Res<u64> {
    let (free, total) = gpu.device().memory_info().map_err(err)?;
    Ok((total - free) as u64)
}

/// One CSV line per output time, flushed as it is written.
struct Stream {
    file: std::io::BufWriter<std::fs::File>,
    path: std::path::PathBuf,
}

impl Stream {
    fn new(dir: &std::path::Path, case: &str, header: &str) -> Res<Self> {
        std::fs::create_dir_all(dir).map_err(err)?;
        let path = dir.join(format!("{SUITE}_{case}.csv"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).map_err(err)?);
        writeln!(file, "{header}").map_err(err)?;
        Ok(Stream { file, path })
    }

    fn line(&mut self, fields: &[f64]) -> Res<()> {
        let text: Vec<String> = fields.iter().map(|v| format!("{v:.12e}")).collect();
        writeln!(self.file, "{}", text.join(",")).map_err(err)?;
        self.file.flush().map_err(err)
    }
}

/// Progress: `[case] t = 0.25/1 (25%), 120 products, 14.2 s, eta 42 s`.
fn progress(case: &str, t: f64, t_end: f64, products: usize, start: Instant) {
    let el = start.elapsed().as_secs_f64();
    let frac = (t / t_end).clamp(1e-9, 1.0);
    println!(
        "[{case}] t = {t:.3}/{t_end} ({:.0}%), {products} products, {el:.1} s, eta {:.0} s",
        100.0 * frac,
        el / frac - el
    );
}

fn output_times(t_end: f64, k: usize) -> Vec<f64> {
    (1..=k).map(|i| t_end * i as f64 / k as f64).collect()
}

fn spin_model(l: u32) -> Res<XxzChain> {
    XxzChain::heisenberg(
        SpinBasis::new(l, l / 2).map_err(err)?,
        Boundary::Periodic,
        1.0,
    )
    .map_err(err)
}

/// (b): H·x time and rows/s; imaginary-time e^{−τH}ψ (real vectors) by Leja.
fn heisenberg(ctx: &mut Ctx, args: &Args) -> Res<()> {
    let l = if ctx.small { 20 } else { 34 };
    let h = spin_model(l)?;
    let d = h.basis().dim();
    let n = d as usize;
    let g = GpuXxzChain::new(&ctx.gpu, &h).map_err(err)?;
    let case = format!("heisenberg_l{l}");
    plan(
        ctx,
        &case,
        Method::Product,
        ScalarKind::F64,
        (d, g.bytes() as u64, 0),
    )?;
    let x = g.random_state::<f64>(&ctx.gpu, 1).map_err(err)?;
    let mut y = ctx.gpu.alloc::<f64>(n).map_err(err)?;
    let times = time_runs(ctx.gpu.device(), 1, ctx.reps, || {
        g.apply(&ctx.gpu, 1.0, &x, 0.0, &mut y)
    })?;
    let t = median(&times);
    let rows = d as f64 / t;
    println!(
        "{case}: H·x {:.1} ms median of {}, {:.3e} rows/s",
        t * 1e3,
        times.len(),
        rows
    );
    let mut r = Record::new(SUITE, &format!("{case}_hx"), "gpu", "f64");
    r.device = ctx.tag.clone();
    r.time_s = t;
    r.reps = times.len() as u64;
    r = r
        .size("n", d)
        .size("sites", l)
        .extra("rows_per_s", rows)
        .extra("bytes_floor", g.bytes_floor::<f64>(false) as f64)
        .extra("device_mem_bytes", used(&ctx.gpu)? as f64);
    ctx.records.push(r);
    drop(y);
    imaginary_time(ctx, &h, &g, &x, args.tau, &case, false)?;
    imaginary_time(ctx, &h, &g, &x, args.tau, &case, true)
}

/// e^{−τH}ψ with real vectors by Leja (6 vectors) or by two-pass Lanczos (5; 7 if it
/// substeps), whose plan counts the substep's two vectors to be safe.
fn imaginary_time(
    ctx: &mut Ctx,
    h: &XxzChain,
    g: &GpuXxzChain,
    psi: &GpuVector<f64>,
    tau: f64,
    case: &str,
    lanczos: bool,
) -> Res<()> {
    let d = h.basis().dim();
    let method = if lanczos {
        Method::LanczosTwoPass { substeps: true }
    } else {
        Method::Leja { conjugate: false }
    };
    let p = plan(
        ctx,
        case,
        method,
        ScalarKind::F64,
        (d, g.bytes() as u64, 8 * d),
    )?;
    let (e0, _) = g.energy_norm(psi).map_err(err)?;
    let base = used(&ctx.gpu)?;
    let mut w = ctx.gpu.alloc::<f64>(d as usize).map_err(err)?;
    ctx.gpu.synchronize().map_err(err)?;
    let start = Instant::now();
    let (matvecs, estimate) = if lanczos {
        let opts = LanczosOptions {
            two_pass: true,
            ..LanczosOptions::default()
        }
        .with_rtol(TOL);
        let mut lz = Lanczos::new(&ctx.gpu, opts).map_err(err)?;
        let rep = lz.expmv(g, -tau, psi, &mut w).map_err(err)?;
        (rep.matvecs, rep.rel_error_estimate)
    } else {
        let mut leja = Leja::new(&ctx.gpu, LejaOptions::default().with_rtol(TOL)).map_err(err)?;
        let rep = leja.expmv(g, -tau, psi, &mut w).map_err(err)?;
        (rep.matvecs, rep.rel_error_estimate)
    };
    ctx.gpu.synchronize().map_err(err)?;
    let wall = start.elapsed().as_secs_f64();
    // The solver is dropped by now; its pooled memory still counts as used.
    let peak = used(&ctx.gpu)?;
    let (e, n2) = g.energy_norm(&w).map_err(err)?;
    let (_, corr, _) = g.sz_observables(&w).map_err(err)?;
    println!(
        "{case}: e^(−{tau}H)ψ by {}, {matvecs} products, {wall:.2} s; ⟨H⟩ {e0:.6} → {:.6}; plan {:.2} GB, used {:.2} GB",
        method.name(),
        e / n2,
        p.peak_bytes() as f64 / 1e9,
        peak as f64 / 1e9
    );
    let mut r = Record::new(
        SUITE,
        &format!("{case}_imag_{}", method.name()),
        "gpu",
        "f64",
    );
    r.device = ctx.tag.clone();
    r.time_s = wall;
    r.reps = 1;
    r.matvecs = Some(matvecs as u64);
    r = r
        .size("n", d)
        .size("sites", h.basis().sites())
        .tol(TOL)
        .extra("tau", tau)
        .extra("error_estimate", estimate)
        .extra("energy_start", e0)
        .extra("energy_end", e / n2)
        .extra("norm_end", n2.sqrt())
        .extra("correlations", serde_json::json!(corr))
        .extra("planned_peak_bytes", p.peak_bytes() as f64)
        .extra("device_mem_bytes", peak as f64)
        .extra("device_mem_before_bytes", base as f64);
    ctx.records.push(r);
    Ok(())
}

/// (c): the Néel state under e^{−iHt}, observables at every output time.
fn neel(ctx: &mut Ctx, args: &Args) -> Res<()> {
    let l = if ctx.small { 16 } else { 32 };
    let h = spin_model(l)?;
    let d = h.basis().dim();
    let g = GpuXxzChain::new(&ctx.gpu, &h).map_err(err)?;
    let case = format!("neel_l{l}");
    let p = plan(
        ctx,
        &case,
        Method::Leja { conjugate: false },
        ScalarKind::C64,
        (d, g.bytes() as u64, 0),
    )?;
    let amps = neel_amplitudes(h.basis()).map_err(err)?;
    let mut psi = g.neel_state::<c64>(&ctx.gpu).map_err(err)?;
    let mut w = ctx.gpu.alloc::<c64>(d as usize).map_err(err)?;
    let mut leja = Leja::new(&ctx.gpu, LejaOptions::default().with_rtol(TOL)).map_err(err)?;
    let k = if args.outputs > 0 { args.outputs } else { 20 };
    let times = output_times(args.neel_t, k);
    let header =
        std::iter::once("t,products,elapsed_s,norm,energy,return_re,return_im".to_string())
            .chain((0..l).map(|q| format!("sz_{q}")))
            .chain((0..l).map(|q| format!("c_0_{q}")))
            .collect::<Vec<_>>()
            .join(",");
    let mut stream = Stream::new(&ctx.out, &case, &header)?;
    let (e0, _) = g.energy_norm(&psi).map_err(err)?;
    let (mut products, mut prev, mut peak) = (0usize, 0.0, 0u64);
    let mut est = 0.0f64;
    let start = Instant::now();
    let obs = |t: f64, psi: &GpuVector<c64>, products: usize, stream: &mut Stream| -> Res<f64> {
        let (e, n2) = g.energy_norm(psi).map_err(err)?;
        let (sz, corr, _) = g.sz_observables(psi).map_err(err)?;
        let ret = g.overlap_with_product(&amps, psi).map_err(err)?;
        let mut row = vec![
            t,
            products as f64,
            start.elapsed().as_secs_f64(),
            n2.sqrt(),
            e / n2,
            ret.re,
            ret.im,
        ];
        row.extend(&sz);
        row.extend(&corr);
        stream.line(&row)?;
        Ok(n2.sqrt())
    };
    obs(0.0, &psi, 0, &mut stream)?;
    let mut norm = 1.0;
    for &t in &times {
        let rep = leja.schrodinger(&g, t - prev, &psi, &mut w).map_err(err)?;
        peak = peak.max(used(&ctx.gpu)?);
        std::mem::swap(&mut psi, &mut w);
        products += rep.matvecs;
        est += rep.rel_error_estimate;
        prev = t;
        norm = obs(t, &psi, products, &mut stream)?;
        progress(&case, t, args.neel_t, products, start);
    }
    let wall = start.elapsed().as_secs_f64();
    let (e1, n2) = g.energy_norm(&psi).map_err(err)?;
    println!(
        "{case}: {products} products, {wall:.1} s, series in {}",
        stream.path.display()
    );
    let mut r = Record::new(SUITE, &format!("{case}_leja"), "gpu", "c64");
    r.device = ctx.tag.clone();
    r.time_s = wall;
    r.reps = 1;
    r.matvecs = Some(products as u64);
    r = r
        .size("n", d)
        .size("sites", l)
        .tol(TOL)
        .error((norm - 1.0).abs())
        .extra("t_end", args.neel_t)
        .extra("outputs", k as u64)
        .extra("error_estimate_sum", est)
        .extra("energy_start", e0)
        .extra("energy_drift", (e1 / n2 - e0).abs() / e0.abs().max(1.0))
        .extra("series", stream.path.display().to_string())
        .extra("planned_peak_bytes", p.peak_bytes() as f64)
        .extra("device_mem_bytes", peak as f64);
    ctx.records.push(r);
    Ok(())
}

/// (a): Bose–Hubbard M = N = 17 from the mean-field state, by Leja and by the lean RK45.
fn bose_hubbard(ctx: &mut Ctx, args: &Args) -> Res<()> {
    let n = if ctx.small { 10 } else { 17 };
    let h = BoseHubbard::new(FockBasis::new(n, n).map_err(err)?)
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| h.with_interaction(Coupling::Uniform(1.0)))
        .map_err(err)?;
    let op = GpuBoseHubbard::new(&ctx.gpu, &h, GpuLookup::DeltaUnrank).map_err(err)?;
    let amps: Vec<c64> = (0..n)
        .map(|k| c64::new(1.0 + 0.5 * (f64::from(k) * 0.7).sin(), 0.0))
        .collect();
    bh_run(ctx, args, &h, &op, &amps, false)?;
    if args.rk45 {
        bh_run(ctx, args, &h, &op, &amps, true)?;
    }
    Ok(())
}

fn bh_run(
    ctx: &mut Ctx,
    args: &Args,
    h: &BoseHubbard,
    op: &GpuBoseHubbard,
    amps: &[c64],
    rk: bool,
) -> Res<()> {
    let (n, d) = (h.basis().particles(), h.basis().dim());
    let method = if rk {
        Method::Rk45 { lean: true }
    } else {
        Method::Leja { conjugate: false }
    };
    let case = format!("bh_m{n}_n{n}_{}", method.name());
    let p = plan(
        ctx,
        &case,
        method,
        ScalarKind::C64,
        (d, op.bytes() as u64, 0),
    )?;
    let t_build = Instant::now();
    let (mut psi, tables) = op.mean_field_state::<c64>(&ctx.gpu, amps).map_err(err)?;
    ctx.gpu.synchronize().map_err(err)?;
    let build_s = t_build.elapsed().as_secs_f64();
    let frozen = op.at(0.0).map_err(err)?;
    let t_e = Instant::now();
    let e0 = bh_energy(&ctx.gpu, &frozen, &psi, d)?;
    let product_s = t_e.elapsed().as_secs_f64();
    estimate(&case, &frozen, args.bh_t, product_s, rk, args.rk_budget);
    // RK45 reports more often, so that its budget stops it close to the limit.
    let k = match (args.outputs, rk) {
        (0, true) => 10,
        (0, false) => 4,
        (k, _) => k,
    };
    let times = output_times(args.bh_t, k);
    let header = std::iter::once("t,products,elapsed_s,norm,overlap_re,overlap_im".to_string())
        .chain((0..n).map(|q| format!("n_{q}")))
        .collect::<Vec<_>>()
        .join(",");
    let mut stream = Stream::new(&ctx.out, &case, &header)?;
    let obs =
        |t: f64, psi: &GpuVector<c64>, products: usize, el: f64, s: &mut Stream| -> Res<f64> {
            let norm = ctx.gpu.nrm2(psi).map_err(err)?;
            let ov = op.overlap_with_mean_field(&tables, psi).map_err(err)?;
            let mut row = vec![t, products as f64, el, norm, ov.re, ov.im];
            row.extend(op.site_densities(psi).map_err(err)?);
            s.line(&row)?;
            Ok(norm)
        };
    obs(0.0, &psi, 0, 0.0, &mut stream)?;
    let start = Instant::now();
    let (products, reached, estimate, peak) = if rk {
        bh_rk45(
            ctx,
            args,
            op,
            &mut psi,
            &times,
            start,
            &case,
            &obs,
            &mut stream,
        )?
    } else {
        bh_leja(
            ctx,
            args,
            &frozen,
            &mut psi,
            &times,
            start,
            &case,
            &obs,
            &mut stream,
        )?
    };
    let wall = start.elapsed().as_secs_f64();
    let norm = ctx.gpu.nrm2(&psi).map_err(err)?;
    let dens = op.site_densities(&psi).map_err(err)?;
    let e1 = bh_energy(&ctx.gpu, &frozen, &psi, d)?;
    println!(
        "{case}: to t = {reached} in {wall:.1} s, {products} products ({:.1} ms each), |‖ψ‖ − 1| = {:.2e}, \
         planned {:.2} GB, used {:.2} GB",
        1e3 * wall / products.max(1) as f64,
        (norm - 1.0).abs(),
        p.peak_bytes() as f64 / 1e9,
        peak as f64 / 1e9
    );
    let mut r = Record::new(SUITE, &case, "gpu", "c64");
    r.device = ctx.tag.clone();
    r.time_s = wall;
    r.reps = 1;
    r.matvecs = Some(products as u64);
    r = r
        .size("n", d)
        .size("particles", n)
        .size("sites", n)
        .tol(TOL)
        .error((norm - 1.0).abs())
        .extra("t_end", args.bh_t)
        .extra("t_reached", reached)
        .extra("error_estimate", estimate)
        .extra("norm_drift", (norm - 1.0).abs())
        .extra("energy", e0)
        .extra("energy_drift", (e1 - e0).abs() / e0.abs().max(1.0))
        .extra("densities", serde_json::json!(dens))
        .extra("density_sum", dens.iter().sum::<f64>())
        .extra("state_build_s", build_s)
        .extra("series", stream.path.display().to_string())
        .extra("planned_peak_bytes", p.peak_bytes() as f64)
        .extra("device_mem_bytes", peak as f64)
        .extra("s_per_product", wall / products.max(1) as f64);
    ctx.records.push(r);
    Ok(())
}

/// Prints the run's estimate before it starts: products × the time of one product (the energy
/// evaluation just timed, its scratch allocation included). Leja: about `1.1·ρ·t` products
/// plus the spectral estimate, with `ρ` the half-width of the operator's (Gershgorin) bounds,
/// an upper estimate since Leja narrows them; RK45: its wall-clock budget.
fn estimate<O: LinearOperator<GpuBackend, c64>>(
    case: &str,
    op: &O,
    t: f64,
    product_s: f64,
    rk: bool,
    budget: f64,
) {
    if rk {
        println!(
            "{case}: estimate: one product {:.0} ms; stops at the first output past {budget} s",
            product_s * 1e3
        );
        return;
    }
    let rho = op
        .spectral_bounds()
        .map_or(f64::NAN, |b| 0.5 * (b.re_max - b.re_min));
    let products = 1.1 * rho * t + 40.0;
    println!(
        "{case}: estimate: one product {:.0} ms × ≤ {products:.0} products (ρ = {rho:.0}) ≈ ≤ {:.0} s",
        product_s * 1e3,
        products * product_s
    );
}

/// ⟨ψ|H|ψ⟩ with a scratch vector allocated for the call and freed after it (the solvers'
/// workspaces are not alive then).
fn bh_energy<O: LinearOperator<GpuBackend, c64>>(
    gpu: &GpuBackend,
    op: &O,
    psi: &GpuVector<c64>,
    d: u64,
) -> Res<f64> {
    let mut scratch = gpu.alloc::<c64>(d as usize).map_err(err)?;
    matexp_fock::energy(gpu, op, psi, &mut scratch).map_err(err)
}

type Obs<'a> = dyn Fn(f64, &GpuVector<c64>, usize, f64, &mut Stream) -> Res<f64> + 'a;

#[allow(clippy::too_many_arguments)]
fn bh_leja<O: LinearOperator<GpuBackend, c64>>(
    ctx: &Ctx,
    args: &Args,
    op: &O,
    psi: &mut GpuVector<c64>,
    times: &[f64],
    start: Instant,
    case: &str,
    obs: &Obs<'_>,
    stream: &mut Stream,
) -> Res<(usize, f64, f64, u64)> {
    let mut w = ctx.gpu.alloc::<c64>(ctx.gpu.len(psi)).map_err(err)?;
    let mut leja = Leja::new(&ctx.gpu, LejaOptions::default().with_rtol(TOL)).map_err(err)?;
    let (mut products, mut prev, mut est, mut peak) = (0usize, 0.0, 0.0f64, 0u64);
    for &t in times {
        let rep = leja.schrodinger(op, t - prev, psi, &mut w).map_err(err)?;
        peak = peak.max(used(&ctx.gpu)?);
        std::mem::swap(psi, &mut w);
        products += rep.matvecs;
        est += rep.rel_error_estimate;
        prev = t;
        obs(t, psi, products, start.elapsed().as_secs_f64(), stream)?;
        progress(case, t, args.bh_t, products, start);
    }
    Ok((products, prev, est, peak))
}

#[allow(clippy::too_many_arguments)]
fn bh_rk45(
    ctx: &Ctx,
    args: &Args,
    op: &GpuBoseHubbard,
    psi: &mut GpuVector<c64>,
    times: &[f64],
    start: Instant,
    case: &str,
    obs: &Obs<'_>,
    stream: &mut Stream,
) -> Res<(usize, f64, f64, u64)> {
    let frozen = op.at(0.0).map_err(err)?;
    let d = ctx.gpu.len(psi);
    let mut rk = CashKarpLean::new(&ctx.gpu, d, Rk45Options::new(TOL)).map_err(err)?;
    let peak = used(&ctx.gpu)?;
    let mi = c64::new(0.0, -1.0);
    // One integration through every output time (one step control, one error budget); the
    // observer streams and stops the run at the first output time past the budget.
    let mut all = vec![0.0];
    all.extend_from_slice(times);
    let mut reached = 0.0;
    let rep = rk
        .integrate_until(&frozen, mi, &all, psi, |t, psi, rep| {
            if t == 0.0 {
                return Ok(true);
            }
            reached = t;
            let el = start.elapsed().as_secs_f64();
            obs(t, psi, rep.products, el, stream).map_err(matexp_core::Error::Device)?;
            progress(case, t, args.bh_t, rep.products, start);
            if el > args.rk_budget && t < args.bh_t {
                println!(
                    "{case}: stopped at t = {t} after the budget of {} s",
                    args.rk_budget
                );
                return Ok(false);
            }
            Ok(true)
        })
        .map_err(err)?;
    let (products, prev, acc) = (rep.products, reached, rep.accumulated_error);
    Ok((products, prev, acc, peak))
}
