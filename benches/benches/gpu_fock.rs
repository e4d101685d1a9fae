//! GPU benchmarks of the Bose–Hubbard operator (matexp-fock), seed 001's curves for M = 8:
//! time per H·x against N (matrix-free with each lookup and launch variant, the assembled CSR
//! with cuSPARSE and with our CSR kernel where it fits, the CPU backend of the same host),
//! memory of each, and the largest end-to-end run: Cash–Karp RK45 of a state with D ≥ 3·10⁸
//! (M = N = 16).
//!
//! Not a criterion benchmark: CUDA events around each product after warm-up, median of many.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_fock -- [--out DIR] [--small] [--reps N] [--no-e2e]
//!     [--sizes N,N,...] [--no-extras] [--e2e-method rk45|leja] [--e2e-tol TOL]
//! ```
//!
//! `--sizes` replaces the N of the product sweep (`none` for no sweep), `--no-extras` leaves
//! out the RK4 step and the Bogoliubov runs: together they let the largest sizes and the
//! end-to-end run fit one time-limited GPU run.
//!
//! Figures per record: `time_s` (median per product, α = 1, β = 0, fresh random x);
//! `floor_ratio` = time / (bytes that must move / device-to-device copy bandwidth of the same
//! run), the bytes being one read of x, one write of y and the packed table where one is
//! read; `vendor_ratio` (on the matrix-free records) = cuSPARSE time on the assembled CSR /
//! ours; `extra.mem_bytes` = device memory of the operator plus x and y;
//! `extra.cpu_ratio` = CPU-backend time / ours; `error` (matrix-free records) = max |y − y_cpu|
//! / max |y_cpu| of that variant's product. The matrix-free variants: the lookups of
//! `GpuLookup` with the default launch (the automatic block size), plus `DeltaPackedB128`,
//! `DeltaFixedB128` and `DeltaFixedB256` (blocks of 128 or 256 threads) and `DeltaFixedU64`
//! (the fixed-M kernels with 64-bit indices); the fastest is backend `gpu`, the others
//! `gpu/<variant>`; `extra.block` is the requested block size (0: automatic). Exit status 3
//! means no GPU.

use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, floor_ratio, gpu_or_exit, measure_floor,
    median, parse_value, time_runs, vendor_ratio,
};
use matexp_core::{Backend, CpuBackend, LinearOperator, Scalar, c32, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_fock::gpu::{GpuBoseHubbard, GpuLaunch, GpuLookup};
use matexp_fock::{BoseHubbard, Coupling, FockBasis, mean_field_state};
use matexp_gpu::rt::DeviceElement;
use matexp_gpu::{GpuBackend, GpuCsr, GpuVector, SpmvKernel};
use matexp_integrators::rk::{CashKarp, LinearOde, Rk45Options};
use std::time::Instant;

const SUITE: &str = "gpu_fock";

struct Args {
    common: CommonArgs,
    e2e: bool,
    sizes: Option<Vec<u32>>,
    extras: bool,
    e2e_leja: bool,
    e2e_tol: f64,
}

fn parse_args() -> Args {
    let (mut e2e, mut extras, mut e2e_leja, mut e2e_tol) = (true, true, false, 1e-6);
    let mut sizes = None;
    let common = CommonArgs::parse(20, |flag, it| match flag {
        "--no-e2e" => e2e = false,
        "--no-extras" => extras = false,
        "--e2e-method" => match it.next().as_deref() {
            Some("rk45") => e2e_leja = false,
            Some("leja") => e2e_leja = true,
            other => {
                eprintln!("gpu_fock: --e2e-method takes rk45 or leja, not {other:?}");
                std::process::exit(2);
            }
        },
        "--e2e-tol" => e2e_tol = parse_value(it, e2e_tol),
        "--sizes" => {
            let list = it.next().unwrap_or_default();
            let parsed: Result<Vec<u32>, _> = if list == "none" {
                Ok(Vec::new())
            } else {
                list.split(',').map(str::parse).collect()
            };
            match parsed {
                Ok(v) => sizes = Some(v),
                Err(_) => {
                    eprintln!("gpu_fock: --sizes takes N,N,... or none, not `{list}`");
                    std::process::exit(2);
                }
            }
        }
        _ => {}
    });
    Args {
        common,
        e2e,
        sizes,
        extras,
        e2e_leja,
        e2e_tol,
    }
}

/// Fresh pseudo-random complex inputs with parts in [−1, 1] (splitmix64; never zeros).
fn inputs<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut s = seed;
    let mut u = move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..n).map(|_| S::from_c64(c64::new(u(), u()))).collect()
}

/// The seed's benchmark model: constant J, V, U on an open chain of M sites.
fn model(n: u32, m: u32) -> Res<BoseHubbard> {
    BoseHubbard::new(FockBasis::new(n, m).map_err(err)?)
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| {
            h.with_potential(Coupling::PerSite(
                (0..m).map(|k| 0.1 * f64::from(k)).collect(),
            ))
        })
        .and_then(|h| h.with_interaction(Coupling::Uniform(0.5)))
        .map_err(err)
}

struct Ctx {
    gpu: GpuBackend,
    tag: String,
    copy_bw: f64,
    reps: usize,
    records: Vec<Record>,
    summary: Vec<String>,
}

impl Ctx {
    fn record(
        &self,
        case: &str,
        backend: &str,
        precision: &str,
        h: &BoseHubbard,
        times: &[f64],
    ) -> Record {
        let t = median(times);
        let mut r = Record::new(SUITE, case, backend, precision);
        r.device = self.tag.clone();
        r.time_s = t;
        r.reps = times.len() as u64;
        r.matvecs = Some(1);
        r.size("n", h.basis().dim())
            .size("particles", h.basis().particles())
            .size("sites", h.basis().sites())
            .extra("min_s", times.first().copied().unwrap_or(t))
            .extra("copy_gbps", self.copy_bw / 1e9)
    }

    fn line(&mut self, r: &Record, what: &str) {
        self.summary.push(format!(
            "{:<18} {:<10} {:<4} {:>12} {:>10.3} {:>7} {:>7} {:>8}",
            r.case,
            what,
            r.precision,
            r.size.get("n").map_or(String::new(), |v| v.to_string()),
            r.time_s * 1e3,
            r.floor_ratio.map_or("-".into(), |f| format!("{f:.2}")),
            r.vendor_ratio.map_or("-".into(), |f| format!("{f:.2}")),
            r.extra
                .get("mem_bytes")
                .and_then(|v| v.as_f64())
                .map_or("-".into(), |b| format!("{:.2}", b / 1e9)),
        ));
    }
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit("gpu_fock");
    exit_on_failure("gpu_fock", run(gpu, &args));
}

fn run(gpu: GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    let tag = device_tag(|| info.short_name());
    println!("device: {info}");
    let copy_bw = measure_floor(&gpu, args.common.small)?;
    let mut ctx = Ctx {
        gpu,
        tag,
        copy_bw,
        reps: args.common.reps,
        records: Vec::new(),
        summary: Vec::new(),
    };
    let default: &[u32] = if args.common.small {
        &[10, 15, 20]
    } else {
        &[30, 35, 40, 45, 50]
    };
    for &n in args.sizes.as_deref().unwrap_or(default) {
        products::<c64>(&mut ctx, n)?;
        products::<c32>(&mut ctx, n)?;
        // Write as we go: a later size may not fit.
        write_records(&args.common.out, &std::mem::take(&mut ctx.records))?;
    }
    if args.extras {
        rk4_steps(&mut ctx, if args.common.small { 15 } else { 40 })?;
        write_records(&args.common.out, &std::mem::take(&mut ctx.records))?;
        for n in if args.common.small {
            vec![19]
        } else {
            vec![19, 190]
        } {
            bogoliubov(&mut ctx, n, &args.common.out)?;
            write_records(&args.common.out, &std::mem::take(&mut ctx.records))?;
        }
    }
    if args.e2e {
        let (n, m) = if args.common.small { (8, 8) } else { (16, 16) };
        end_to_end(&mut ctx, n, m, args.e2e_tol, args.e2e_leja)?;
        write_records(&args.common.out, &std::mem::take(&mut ctx.records))?;
    }
    println!(
        "\n{:<18} {:<10} {:<4} {:>12} {:>10} {:>7} {:>7} {:>8}",
        "case", "backend", "prec", "D", "ms", "floor×", "cusp/us", "mem GB"
    );
    for l in &ctx.summary {
        println!("{l}");
    }
    Ok(())
}

/// One H·x at M = 8 and N particles: every matrix-free variant (lookup and launch options),
/// the CSR (cuSPARSE and our kernel) where the matrix fits on the host and the device, and
/// the CPU backend.
fn products<S: Scalar + DeviceElement>(ctx: &mut Ctx, n: u32) -> Res<()>
where
    GpuBoseHubbard: matexp_core::TimeDependentOperator<GpuBackend, S>,
    for<'a> matexp_fock::FrozenBoseHubbard<'a>: LinearOperator<CpuBackend, S>,
    GpuCsr<S>: LinearOperator<GpuBackend, S>,
{
    let m = 8;
    let h = model(n, m)?;
    let d = h.basis().len().map_err(err)?;
    let vec_bytes = d * std::mem::size_of::<S>();
    let (free, _) = ctx.gpu.device().memory_info().map_err(err)?;
    if 2 * vec_bytes + d * 8 > free * 9 / 10 {
        println!(
            "N = {n}: D = {d} does not fit ({} GB free), skipped",
            free / (1 << 30)
        );
        return Ok(());
    }
    let case = format!("hx_m{m}_n{n}");
    let host_x: Vec<S> = inputs(d, u64::from(n));
    let x: GpuVector<S> = ctx.gpu.upload(&host_x).map_err(err)?;
    let mut y: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(d, 77)).map_err(err)?;
    let (one, zero) = (S::one(), S::zero());

    // The CPU backend on the same host (rayon, all cores): its time, and the reference every
    // GPU variant is checked against.
    let cpu = CpuBackend;
    let frozen = h.at(0.0).map_err(err)?;
    let mut yc: Vec<S> = vec![S::zero(); d];
    let cpu_reps = if d > 50_000_000 { 3 } else { 5 };
    let mut ct = Vec::with_capacity(cpu_reps);
    frozen
        .apply(&cpu, one, &host_x, zero, &mut yc)
        .map_err(err)?;
    for _ in 0..cpu_reps {
        let t = Instant::now();
        frozen
            .apply(&cpu, one, &host_x, zero, &mut yc)
            .map_err(err)?;
        ct.push(t.elapsed().as_secs_f64());
    }
    ct.sort_by(|a, b| a.total_cmp(b));
    let cpu_t = median(&ct);
    let scale = yc
        .iter()
        .map(|b| b.to_c64().norm())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);

    // Every matrix-free variant: the lookups, and the launch options of the packed ones
    // (blocks of 128 threads; 64-bit indices for the fixed-M kernels), each checked against
    // the CPU product on this input (`error`: max |Δ| / max |y|).
    let b128 = GpuLaunch {
        block: 128,
        ..GpuLaunch::default()
    };
    let b256 = GpuLaunch {
        block: 256,
        ..GpuLaunch::default()
    };
    let wide = GpuLaunch {
        wide_index: true,
        ..GpuLaunch::default()
    };
    let variants = [
        (GpuLookup::DeltaUnrank, GpuLaunch::default(), "DeltaUnrank"),
        (
            GpuLookup::DeltaStepped,
            GpuLaunch::default(),
            "DeltaStepped",
        ),
        (GpuLookup::DeltaPacked, GpuLaunch::default(), "DeltaPacked"),
        (GpuLookup::DeltaPacked, b128, "DeltaPackedB128"),
        (
            GpuLookup::SearchPacked,
            GpuLaunch::default(),
            "SearchPacked",
        ),
        (GpuLookup::DeltaFixed, GpuLaunch::default(), "DeltaFixed"),
        (GpuLookup::DeltaFixed, b128, "DeltaFixedB128"),
        (GpuLookup::DeltaFixed, b256, "DeltaFixedB256"),
        (GpuLookup::DeltaFixed, wide, "DeltaFixedU64"),
    ];
    let mut mf = Vec::new();
    let mut worst = 0.0f64;
    for (lookup, launch, name) in variants {
        let op = match GpuBoseHubbard::new(&ctx.gpu, &h, lookup).and_then(|o| o.with_launch(launch))
        {
            Ok(op) => op,
            Err(e) => {
                println!("N = {n} {name}: {e}");
                continue;
            }
        };
        let frozen = op.at(0.0).map_err(err)?;
        let times = time_runs(ctx.gpu.device(), 3, ctx.reps, || {
            frozen.apply(&ctx.gpu, one, &x, zero, &mut y)
        })?;
        let got = ctx.gpu.to_host(&y).map_err(err)?;
        let diff = got
            .iter()
            .zip(&yc)
            .map(|(a, b)| (*a - *b).to_c64().norm())
            .fold(0.0, f64::max)
            / scale;
        worst = worst.max(diff);
        let floor = op.bytes_floor::<S>(false) as f64;
        let mut r = ctx.record(&case, "gpu", S::NAME, &h, &times);
        r.floor_ratio = Some(floor_ratio(r.time_s, floor, ctx.copy_bw));
        r = r
            .error(diff)
            .extra("lookup", name)
            .extra("block", u64::from(launch.block))
            .extra("bytes_floor", floor)
            .extra("mem_bytes", (op.bytes() + 2 * vec_bytes) as f64)
            .extra("rows_per_s", d as f64 / median(&times));
        mf.push(r);
    }

    // The assembled CSR, where host (assembly) and device memory allow: about 1 + 2·7·(fill)
    // entries per row; u32 indices while nnz < 2³².
    let est_nnz = d * 14;
    let host_bytes = est_nnz * (std::mem::size_of::<S>() + 8 + 4 + 16);
    let dev_bytes = est_nnz * (std::mem::size_of::<S>() + 4) + 2 * vec_bytes;
    let mut cusparse_t = None;
    if host_bytes < 48 << 30 && dev_bytes < free * 8 / 10 && est_nnz < u32::MAX as usize {
        let t0 = Instant::now();
        let a = h.to_csr::<S, u32>(0.0).map_err(err)?;
        let assembly = t0.elapsed().as_secs_f64();
        let nnz = a.nnz();
        let g = GpuCsr::from_csr(&ctx.gpu, &a).map_err(err)?;
        drop(a);
        for (kernel, label) in [
            (SpmvKernel::Cusparse, "cusparse"),
            (SpmvKernel::Auto, "gpu-csr"),
        ] {
            let times = time_runs(ctx.gpu.device(), 3, ctx.reps, || {
                g.apply_with(&ctx.gpu, kernel, one, &x, zero, &mut y)
            })?;
            let floor = g.bytes_per_product(false) as f64;
            let mut r = ctx.record(&case, label, S::NAME, &h, &times);
            r.floor_ratio = Some(floor_ratio(r.time_s, floor, ctx.copy_bw));
            r = r
                .size("nnz", nnz)
                .extra("bytes_floor", floor)
                .extra(
                    "mem_bytes",
                    (nnz * (std::mem::size_of::<S>() + 4) + (d + 1) * 4 + 2 * vec_bytes) as f64,
                )
                .extra("assembly_s", assembly);
            if kernel == SpmvKernel::Cusparse {
                cusparse_t = Some(r.time_s);
            }
            ctx.line(&r, label);
            ctx.records.push(r);
        }
    } else {
        println!("N = {n}: the assembled CSR (≈{est_nnz} entries) does not fit, skipped");
    }

    // The CPU record's `error` is the largest of the matrix-free variants' (GPU ≡ CPU).
    let mut rc = ctx.record(&case, "cpu", S::NAME, &h, &ct);
    rc = rc
        .extra("threads", rayon::current_num_threads() as u64)
        .error(worst);
    ctx.line(&rc, "cpu");
    ctx.records.push(rc);

    // The lookup is the user's choice, so the fastest variant is "ours" (backend `gpu`, its
    // name in `extra.lookup`); the others stay as `gpu/<variant>` rows beside it. One backend
    // name for all of them made them one measurement in bench-results/, where the last one
    // written replaced the rest.
    let fastest = mf
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.time_s.total_cmp(&b.1.time_s))
        .map(|(i, _)| i);
    for (i, mut r) in mf.into_iter().enumerate() {
        if Some(i) != fastest {
            let lookup = r.extra.get("lookup").and_then(|v| v.as_str()).unwrap_or("");
            r.backend = format!("gpu/{lookup}");
        }
        r.vendor_ratio = cusparse_t.map(|c| vendor_ratio(c, r.time_s));
        let ratio = cpu_t / r.time_s;
        r = r.extra("cpu_ratio", ratio);
        let what = r
            .extra
            .get("lookup")
            .and_then(|v| v.as_str())
            .unwrap_or("gpu")
            .to_string();
        ctx.line(&r, &what);
        ctx.records.push(r);
    }
    Ok(())
}

/// One classic RK4 step at M = 8 (c64): the generic method of `matexp_integrators::rk` on the
/// GPU backend (4 products and 11 vector updates) against `FusedRk4` (4 fused stage kernels
/// and a copy, the seed's listing A.5), and the difference of their states after the step.
fn rk4_steps(ctx: &mut Ctx, n: u32) -> Res<()> {
    use matexp_fock::gpu::FusedRk4;
    use matexp_integrators::rk::Rk4;
    let h = model(n, 8)?;
    let d = h.basis().len().map_err(err)?;
    let op = GpuBoseHubbard::new(&ctx.gpu, &h, GpuLookup::DeltaUnrank).map_err(err)?;
    let psi0: Vec<c64> = inputs(d, 5);
    let ode = LinearOde::schrodinger(&op).map_err(err)?;
    let step = 1e-3;
    let mut generic = Rk4::new(&ctx.gpu, d).map_err(err)?;
    let mut a = ctx.gpu.upload(&psi0).map_err(err)?;
    let tg = time_runs(ctx.gpu.device(), 2, ctx.reps.min(10), || {
        generic.step(&ode, 0.0, step, &mut a)
    })?;
    drop(generic);
    let mut fused = FusedRk4::new(&op).map_err(err)?;
    let mut b = ctx.gpu.upload(&psi0).map_err(err)?;
    let tf = time_runs(ctx.gpu.device(), 2, ctx.reps.min(10), || {
        fused.step(0.0, step, &mut b)
    })?;
    // Same number of steps on both: compare the states.
    let (ha, hb) = (
        ctx.gpu.to_host(&a).map_err(err)?,
        ctx.gpu.to_host(&b).map_err(err)?,
    );
    let diff = ha
        .iter()
        .zip(&hb)
        .map(|(x, y)| (x - y).norm_sqr())
        .sum::<f64>()
        .sqrt()
        / hb.iter().map(|y| y.norm_sqr()).sum::<f64>().sqrt();
    let case = format!("rk4_step_m8_n{n}");
    let vec_bytes = (d * 16) as f64;
    for (label, times, bytes) in [
        // generic: 4 products (x read, y written) + 11 updates (≈ 2.5 vectors each)
        ("generic", &tg, vec_bytes * (4.0 * 2.0 + 11.0 * 2.5)),
        // fused: 4 stages reading x, acc, base and writing acc, next (≈ 5 vectors) + a copy
        ("fused", &tf, vec_bytes * (4.0 * 5.0 + 2.0)),
    ] {
        // One case per variant: records sharing suite, case, backend, precision and size are
        // one measurement in bench-results/.
        let mut r = ctx.record(&format!("{case}/{label}"), "gpu", "c64", &h, times);
        r.matvecs = Some(4);
        r.floor_ratio = Some(floor_ratio(r.time_s, bytes, ctx.copy_bw));
        r = r
            .extra("kernel", label)
            .extra("bytes_floor", bytes)
            .error(diff);
        ctx.line(&r, label);
        ctx.records.push(r);
    }
    Ok(())
}

/// The seed's Bogoliubov comparison on the GPU: M = 4, J = 1, U = 1/(N−1), from the in-phase
/// mean-field state with C² = (130, 7, 3, 50)/190, RK45 at tolerance 1e−6 to t = 30; the
/// densities ⟨n_k⟩/N every 0.1 go to `<out>/bogoliubov/densities_n<N>.csv` (plot them with
/// `cargo run -p matexp-fock --example bogoliubov -- --from <out>/bogoliubov --n 19,190`).
fn bogoliubov(ctx: &mut Ctx, n: u32, out: &std::path::Path) -> Res<()> {
    let h = BoseHubbard::new(FockBasis::new(n, 4).map_err(err)?)
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| h.with_interaction(Coupling::Uniform(1.0 / f64::from(n - 1))))
        .map_err(err)?;
    let amps: Vec<c64> = [130.0f64, 7.0, 3.0, 50.0]
        .iter()
        .map(|&x| c64::new((x / 190.0).sqrt(), 0.0))
        .collect();
    let psi0: Vec<c64> = mean_field_state(h.basis(), &amps).map_err(err)?;
    let d = psi0.len();
    let op = GpuBoseHubbard::new(&ctx.gpu, &h, GpuLookup::DeltaUnrank).map_err(err)?;
    let mut psi = ctx.gpu.upload(&psi0).map_err(err)?;
    // 1e−6 keeps N = 190 (spectral spread ≈ 400, some 4·10⁴ steps) to about a minute.
    let (tol, t_end) = (1e-6, 30.0);
    let times: Vec<f64> = (0..=300).map(|k| f64::from(k) * t_end / 300.0).collect();
    let mut rk = CashKarp::new(&ctx.gpu, d, Rk45Options::new(tol)).map_err(err)?;
    let mut csv = String::from("t,n1,n2,n3,n4\n");
    let t = Instant::now();
    let rep = rk
        .integrate_observed(
            &LinearOde::schrodinger(&op).map_err(err)?,
            &times,
            &mut psi,
            |t, y| {
                let dens = op.site_densities(y)?;
                let nf = f64::from(n);
                csv.push_str(&format!(
                    "{t},{},{},{},{}\n",
                    dens[0] / nf,
                    dens[1] / nf,
                    dens[2] / nf,
                    dens[3] / nf
                ));
                Ok(())
            },
        )
        .map_err(err)?;
    let wall = t.elapsed().as_secs_f64();
    let dir = out.join("bogoliubov");
    std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let path = dir.join(format!("densities_n{n}.csv"));
    std::fs::write(&path, csv).map_err(|e| format!("write {}: {e}", path.display()))?;
    let norm = ctx.gpu.nrm2(&psi).map_err(err)?;
    let mut r = Record::new(SUITE, &format!("bogoliubov_n{n}_rk45"), "gpu", "c64");
    r.device = ctx.tag.clone();
    r.time_s = wall;
    r.reps = 1;
    r.matvecs = Some(rep.products as u64);
    r = r
        .size("n", d)
        .size("particles", n)
        .size("sites", 4)
        .tol(tol)
        .error((norm - 1.0).abs())
        .extra("t_end", t_end)
        .extra("steps", rep.steps as u64)
        .extra("rejected", rep.rejected as u64)
        .extra("accumulated_error", rep.accumulated_error)
        .extra("densities_csv", path.display().to_string());
    println!(
        "Bogoliubov N = {n}: D = {d}, {} steps, {wall:.1} s, |‖ψ‖ − 1| = {:.2e}, densities in {}",
        rep.steps,
        (norm - 1.0).abs(),
        path.display()
    );
    ctx.records.push(r);
    Ok(())
}

/// Cash–Karp RK45 of a mean-field state at M = N = 16 (D = 300 540 195) on one GPU: time,
/// device memory, steps, and the drift of norm and energy.
fn end_to_end(ctx: &mut Ctx, n: u32, m: u32, tol: f64, leja: bool) -> Res<()> {
    let h = BoseHubbard::new(FockBasis::new(n, m).map_err(err)?)
        .with_hopping(Coupling::Uniform(1.0))
        .and_then(|h| h.with_interaction(Coupling::Uniform(1.0)))
        .map_err(err)?;
    let d = h.basis().len().map_err(err)?;
    let amps: Vec<c64> = (0..m)
        .map(|k| c64::new(1.0 + 0.5 * (f64::from(k) * 0.7).sin(), 0.0))
        .collect();
    let t_host = Instant::now();
    let psi0: Vec<c64> = mean_field_state(h.basis(), &amps).map_err(err)?;
    let prep_s = t_host.elapsed().as_secs_f64();
    let (free0, total) = ctx.gpu.device().memory_info().map_err(err)?;
    let op = GpuBoseHubbard::new(&ctx.gpu, &h, GpuLookup::DeltaUnrank).map_err(err)?;
    let mut psi = ctx.gpu.upload(&psi0).map_err(err)?;
    drop(psi0);
    let t_end = 0.1;
    let frozen = op.at(0.0).map_err(err)?;
    let mut scratch = ctx.gpu.zeros::<c64>(d).map_err(err)?;
    let e0 = matexp_fock::energy(&ctx.gpu, &frozen, &psi, &mut scratch).map_err(err)?;
    let n0 = ctx.gpu.nrm2(&psi).map_err(err)?;
    drop(scratch);
    ctx.gpu.synchronize().map_err(err)?;
    let t = Instant::now();
    // (products, steps, rejected, the method's own error estimate, solver memory)
    let (products, steps, rejected, estimate, free1) = if leja {
        // e^{−itH}ψ by Leja interpolation: its estimate bounds the error of the propagator,
        // so the norm is kept to the tolerance.
        let opts = LejaOptions::default().with_rtol(tol);
        let mut solver = Leja::new(&ctx.gpu, opts).map_err(err)?;
        let mut out = ctx.gpu.zeros::<c64>(d).map_err(err)?;
        let rep = solver
            .schrodinger(&frozen, t_end, &psi, &mut out)
            .map_err(err)?;
        let (free1, _) = ctx.gpu.device().memory_info().map_err(err)?;
        psi = out;
        (
            rep.matvecs,
            rep.substeps,
            rep.rejected,
            rep.rel_error_estimate,
            free1,
        )
    } else {
        let mut rk = CashKarp::new(&ctx.gpu, d, Rk45Options::new(tol)).map_err(err)?;
        let (free1, _) = ctx.gpu.device().memory_info().map_err(err)?;
        let rep = rk
            .integrate(
                &LinearOde::schrodinger(&op).map_err(err)?,
                0.0,
                t_end,
                &mut psi,
            )
            .map_err(err)?;
        (
            rep.products,
            rep.steps,
            rep.rejected,
            rep.accumulated_error,
            free1,
        )
    };
    ctx.gpu.synchronize().map_err(err)?;
    let wall = t.elapsed().as_secs_f64();
    let n1 = ctx.gpu.nrm2(&psi).map_err(err)?;
    let mut scratch = ctx.gpu.zeros::<c64>(d).map_err(err)?;
    let e1 = matexp_fock::energy(&ctx.gpu, &frozen, &psi, &mut scratch).map_err(err)?;
    let dens = op.site_densities(&psi).map_err(err)?;
    let method = if leja { "leja" } else { "rk45" };
    let mut r = Record::new(SUITE, &format!("{method}_m{m}_n{n}"), "gpu", "c64");
    r.device = ctx.tag.clone();
    r.time_s = wall;
    r.reps = 1;
    r.matvecs = Some(products as u64);
    r = r
        .size("n", d)
        .size("particles", n)
        .size("sites", m)
        .tol(tol)
        .error((n1 - 1.0).abs())
        .extra("t_end", t_end)
        .extra("steps", steps as u64)
        .extra("rejected", rejected as u64)
        .extra("error_estimate", estimate)
        .extra("norm_drift", (n1 - n0).abs())
        .extra("energy", e0)
        .extra("energy_drift", (e1 - e0).abs() / e0.abs().max(1.0))
        .extra("density_sum", dens.iter().sum::<f64>())
        .extra("device_mem_bytes", (total - free1) as f64)
        .extra("solver_mem_bytes", (free0 - free1) as f64)
        .extra("host_prep_s", prep_s)
        .extra("s_per_step", wall / steps.max(1) as f64);
    println!(
        "{method} M = N = {n}: D = {d}, {steps} steps ({rejected} rejected), {products} products, \
         {wall:.1} s, |‖ψ‖ − 1| = {:.2e} (estimate {estimate:.2e}, tol {tol:.0e}), energy drift \
         {:.2e}, device memory {:.1} GB",
        (n1 - 1.0).abs(),
        (e1 - e0).abs() / e0.abs().max(1.0),
        (total - free1) as f64 / 1e9
    );
    ctx.summary.push(format!(
        "{:<18} {:<10} {:<4} {:>12} {:>10.1} (whole run, {} steps)",
        r.case,
        method,
        "c64",
        d,
        wall * 1e3,
        steps
    ));
    ctx.records.push(r);
    Ok(())
}

/// Appends the records to `DIR/gpu_fock.jsonl`; no file for none.
fn write_records(dir: &std::path::Path, records: &[Record]) -> Res<()> {
    if records.is_empty() {
        return Ok(());
    }
    matexp_benches::gpu_harness::write_records(dir, SUITE, records)
}
