//! GPU benchmarks: CSR SpMV (our kernels and cuSPARSE), the fused Leja step, BLAS-1 and
//! reductions, on one GPU and across all GPUs of the host, against a device-copy bandwidth
//! measured in the same run and against the CPU backend of the same host.
//!
//! Not a criterion benchmark: times come from CUDA events around each run (after warm-up;
//! median of many), which is what a GPU needs. The matrices are generated on the GPU host
//! (rayon) by matexp-sparse's generators: the seed-000 spin bath (L = 18, 21; c64 and c32,
//! stored zeros kept as in the thesis), the 3D Laplacian (N = 256, f64) and a
//! Barabási–Albert graph (n = 10⁶, m = 10, pattern-only) beside an Erdős–Rényi graph of the
//! same n and stored entries (uniform degrees), both with every pattern kernel (the hybrid
//! one for skewed degrees included) and cuSPARSE on explicit ones.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_spmv -- [--out DIR] [--small] [--reps N] [--no-multi]
//!     [--no-e2e] [--only PART,...]
//! ```
//!
//! `--only` runs the parts whose name contains one of the given texts: `blas1`,
//! `spin_bath_L18`, `spin_bath_L21`, `laplace3d_N256`, `barabasi_albert_n1000000_m10`
//! (pattern kernels and the Lanczos centrality run), `erdos_renyi_n1000000_e10000000` and
//! `e2e` (seed 000's Tables 10 and 12 end to end); the copy bandwidth is always measured.
//!
//! Vendor routes (when the cuSPARSE probe passes): beside each fused Leja step, the same step
//! from vendor calls (cusparseSpMV, cuBLAS axpy and nrm2; backend `cusparse`); beside the
//! Lanczos centrality run and each end-to-end Leja run, the same solver over cuSPARSE's SpMV
//! (`common/cusparse_route.rs`, backend `cusparse`, error against the same reference), its
//! time over ours as `vendor_ratio` on our one-GPU record.
//!
//! Records (matexp_benches::Record, one JSON object per line) go to `DIR/<suite>.jsonl`
//! (default `target/bench-records`); `cargo xtask ingest DIR` merges them into
//! `bench-results/<device>/`. A summary table is printed last. Exit status 3 means no GPU.

#[path = "common/cusparse_route.rs"]
mod cusparse_route;

use cusparse_route::CusparseRoute;
use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, floor_ratio, gpu_or_exit, measure_floor,
    median, time_runs, vendor_ratio,
};
use matexp_core::{Backend, LinearOperator, Scalar, ShiftedStep, c32, c64};
use matexp_gpu::{
    GpuBackend, GpuCsr, GpuPattern, MultiGpuBackend, MultiGpuCsr, SpmvKernel, ValueStorage,
};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{
    SpinBath, StoredZeros, barabasi_albert, erdos_renyi_gnm, laplacian_3d,
};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

struct Args {
    common: CommonArgs,
    multi: bool,
    e2e: bool,
    /// `--only A,B,…`: run only the parts whose name contains one of these (`blas1`,
    /// `spin_bath_L18`, `spin_bath_L21`, `laplace3d`, `barabasi_albert`, `erdos_renyi`,
    /// `e2e`); none: every part.
    only: Option<Vec<String>>,
    /// `--cusparse-probe [SCALAR N]`: a cuSPARSE self-check (default f64, n = 4).
    cusparse_probe: Option<(String, usize)>,
}

fn parse_args() -> Args {
    let (mut multi, mut e2e) = (true, true);
    let (mut only, mut cusparse_probe) = (None, None);
    // cargo bench passes --bench; criterion-style filters are not used here.
    let common = CommonArgs::parse(30, |flag, it| match flag {
        "--no-multi" => multi = false,
        "--no-e2e" => e2e = false,
        "--only" => {
            only = it
                .next()
                .map(|v| v.split(',').map(|p| p.trim().to_string()).collect())
        }
        "--cusparse-probe" => {
            let rest: Vec<String> = std::env::args().collect();
            let i = rest
                .iter()
                .position(|x| x == "--cusparse-probe")
                .unwrap_or(0);
            let ty = rest.get(i + 1).filter(|t| !t.starts_with('-')).cloned();
            let n = rest.get(i + 2).and_then(|v| v.parse().ok());
            cusparse_probe = Some((ty.unwrap_or_else(|| "f64".into()), n.unwrap_or(4)));
        }
        _ => {}
    });
    Args {
        common,
        multi,
        e2e,
        only,
        cusparse_probe,
    }
}

impl Args {
    /// Whether the part `name` runs (see `only`).
    fn wants(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|p| name.contains(p.as_str())))
    }
}

/// Deterministic pseudo-random numbers for inputs (testkit's SplitMix64): fresh per case,
/// never zeros.
struct Rand(matexp_testkit::SplitMix64);
impl Rand {
    fn new(seed: u64) -> Self {
        Rand(matexp_testkit::SplitMix64::new(seed))
    }
    fn next(&mut self) -> f64 {
        self.0.next_f64() * 2.0 - 1.0
    }
    fn vec<S: Scalar>(&mut self, n: usize) -> Vec<S> {
        (0..n)
            .map(|_| S::from_c64(c64::new(self.next(), self.next())))
            .collect()
    }
}

struct Ctx {
    gpu: GpuBackend,
    tag: String,
    copy_bw: f64,
    reps: usize,
    cusparse: bool,
    records: Vec<Record>,
    summary: Vec<[String; 8]>,
    rng: Rand,
}

impl Ctx {
    /// Appends the records gathered so far to `dir` (so that a crash later keeps them).
    fn flush(&mut self, dir: &Path) -> Res<()> {
        write_records(dir, &self.records)?;
        self.records.clear();
        Ok(())
    }

    fn record(&mut self, suite: &str, case: &str, backend: &str, precision: &str) -> Record {
        let mut r = Record::new(suite, case, backend, precision);
        r.device = self.tag.clone();
        r
    }

    /// Stores a timed GPU record with its bandwidth figures and a summary row.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        mut r: Record,
        times: &[f64],
        bytes: usize,
        n: usize,
        nnz: usize,
        vendor: Option<f64>,
        label: &str,
    ) {
        let t = median(times);
        r.time_s = t;
        r.reps = times.len() as u64;
        r = r.size("n", n).size("nnz", nnz);
        let bw = bytes as f64 / t;
        r.floor_ratio = Some(floor_ratio(t, bytes as f64, self.copy_bw));
        r = r
            .extra("bytes", bytes)
            .extra("gbps", bw / 1e9)
            .extra("copy_gbps", self.copy_bw / 1e9)
            .extra("bw_ratio", bw / self.copy_bw)
            .extra("batch", BATCH)
            .extra("min_s", times.first().copied().unwrap_or(t))
            .extra("max_s", times.last().copied().unwrap_or(t));
        if let Some(v) = vendor {
            r.vendor_ratio = Some(vendor_ratio(v, t));
        }
        self.summary.push([
            r.case.clone(),
            label.to_string(),
            r.backend.clone(),
            r.precision.clone(),
            format!("{:.1}", t * 1e6),
            format!("{:.0}", bw / 1e9),
            format!("{:.2}", bw / self.copy_bw),
            vendor.map_or("-".into(), |v| format!("{:.2}", v / t)),
        ]);
        self.records.push(r);
    }
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit("gpu_spmv");
    if let Some((ty, n)) = &args.cusparse_probe {
        let r = match ty.as_str() {
            "f32" => cusparse_probe::<f32>(&gpu, *n),
            "c32" => cusparse_probe::<c32>(&gpu, *n),
            "c64" => cusparse_probe::<c64>(&gpu, *n),
            _ => cusparse_probe::<f64>(&gpu, *n),
        };
        match r {
            Ok(e) => println!("cusparse probe {ty} n={n}: ok (relative error {e:.1e})"),
            Err(e) => {
                eprintln!("cusparse probe {ty} n={n}: FAILED: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    exit_on_failure("gpu_spmv", run(gpu, &args));
}

fn run(gpu: GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    let tag = device_tag(|| info.short_name());
    println!("device: {info}");
    println!(
        "host: {} threads (rayon); driver CUDA {:?}; GPUs: {}",
        rayon::current_num_threads(),
        matexp_gpu::driver_version().map_err(err)?,
        matexp_gpu::device_count().map_err(err)?
    );
    let copy_bw = measure_floor(&gpu, args.common.small)?;
    // cuSPARSE runs first in a child process: if it fails or crashes there, the benchmark
    // goes on without the vendor comparison instead of dying with it.
    let cusparse = match std::env::current_exe().and_then(|exe| {
        std::process::Command::new(exe)
            .args(["--cusparse-probe", "c64", "1000"])
            .status()
    }) {
        Ok(s) if s.success() => true,
        Ok(s) => {
            println!("cuSPARSE unavailable (probe exited with {s}): no vendor comparison");
            false
        }
        Err(e) => {
            println!("cuSPARSE probe could not start ({e}): no vendor comparison");
            false
        }
    };
    let mut ctx = Ctx {
        gpu,
        tag,
        copy_bw,
        reps: args.common.reps,
        cusparse,
        records: Vec::new(),
        summary: Vec::new(),
        // The printed test seed (MATEXP_TEST_SEED replays a run's inputs).
        rng: Rand::new(0x5EED_0000 ^ matexp_testkit::seed()),
    };
    let mut copy = ctx.record("blas1_gpu", "copy", "gpu", "u8");
    copy.time_s = (if args.common.small {
        2.0 * (1u64 << 26) as f64
    } else {
        2.0 * (1u64 << 31) as f64
    }) / copy_bw;
    copy.reps = ctx.reps as u64;
    ctx.records.push(copy.extra("gbps", copy_bw / 1e9));

    if args.wants("blas1") {
        blas1(&mut ctx, if args.common.small { 1 << 20 } else { 1 << 26 })?;
        ctx.flush(&args.common.out)?;
    }

    let (spins, lap_n, ba_n) = if args.common.small {
        (vec![12usize, 14], 32usize, 20_000usize)
    } else {
        (vec![18, 21], 256, 1_000_000)
    };
    for &l in &spins {
        if !args.wants(&format!("spin_bath_L{l}")) {
            continue;
        }
        let model = SpinBath::seed000(l, 1).map_err(err)?;
        let t = Instant::now();
        let h64 = model
            .hamiltonian::<c64, u32>(StoredZeros::Keep)
            .map_err(err)?;
        println!(
            "spin bath L={l}: n={} nnz={} generated in {:.1?}",
            h64.nrows(),
            h64.nnz(),
            t.elapsed()
        );
        spmv_case(
            &mut ctx,
            &format!("spin_bath_L{l}"),
            &h64,
            true,
            ValueStorage::Full,
        )?;
        // The same real matrix on complex vectors with real values stored (12 bytes per
        // entry instead of 20), ours and cuSPARSE's mixed real/complex SpMV.
        let real = format!("spin_bath_L{l}_real");
        spmv_case(&mut ctx, &real, &h64, true, ValueStorage::Auto)?;
        ctx.flush(&args.common.out)?;
        if args.multi && l == *spins.last().unwrap_or(&l) {
            multi_case(&mut ctx, &format!("spin_bath_L{l}"), &h64)?;
            ctx.flush(&args.common.out)?;
        }
        drop(h64);
        let h32 = model
            .hamiltonian::<c32, u32>(StoredZeros::Keep)
            .map_err(err)?;
        spmv_case(
            &mut ctx,
            &format!("spin_bath_L{l}"),
            &h32,
            true,
            ValueStorage::Full,
        )?;
        let real = format!("spin_bath_L{l}_real");
        spmv_case(&mut ctx, &real, &h32, true, ValueStorage::Auto)?;
        ctx.flush(&args.common.out)?;
        if args.multi && l == *spins.last().unwrap_or(&l) {
            multi_case(&mut ctx, &format!("spin_bath_L{l}"), &h32)?;
            ctx.flush(&args.common.out)?;
        }
    }
    if args.wants(&format!("laplace3d_N{lap_n}")) {
        let t = Instant::now();
        let a = laplacian_3d::<f64, u32>(lap_n).map_err(err)?;
        println!(
            "laplace N={lap_n}: n={} nnz={} generated in {:.1?}",
            a.nrows(),
            a.nnz(),
            t.elapsed()
        );
        spmv_case(
            &mut ctx,
            &format!("laplace3d_N{lap_n}"),
            &a,
            true,
            ValueStorage::Auto,
        )?;
        ctx.flush(&args.common.out)?;
        if args.multi {
            multi_case(&mut ctx, &format!("laplace3d_N{lap_n}"), &a)?;
            ctx.flush(&args.common.out)?;
        }
    }
    if args.wants(&format!("barabasi_albert_n{ba_n}_m10")) {
        let t = Instant::now();
        let g = barabasi_albert::<u32>(ba_n, 10, 1).map_err(err)?;
        println!(
            "barabasi-albert n={ba_n} m=10: nnz={} generated in {:.1?}",
            g.nnz(),
            t.elapsed()
        );
        pattern_case(&mut ctx, &format!("barabasi_albert_n{ba_n}_m10"), &g)?;
        ctx.flush(&args.common.out)?;
        lanczos_case(&mut ctx, &format!("tc_barabasi_albert_n{ba_n}_m10_k50"), &g)?;
        ctx.flush(&args.common.out)?;
    }
    if args.wants(&format!("erdos_renyi_n{ba_n}_e{}", 10 * ba_n)) {
        // Uniform degrees with the Barabási–Albert graph's n and stored entries (10 n edges):
        // the hybrid kernel must not lose where the vector kernel already suits.
        let t = Instant::now();
        let g = erdos_renyi_gnm::<u32>(ba_n, 10 * ba_n, 2).map_err(err)?;
        println!(
            "erdos-renyi n={ba_n} edges={}: nnz={} generated in {:.1?}",
            10 * ba_n,
            g.nnz(),
            t.elapsed()
        );
        pattern_case(&mut ctx, &format!("erdos_renyi_n{ba_n}_e{}", 10 * ba_n), &g)?;
        ctx.flush(&args.common.out)?;
    }

    ctx.flush(&args.common.out)?;
    if args.e2e && args.wants("e2e") {
        leja_e2e(&mut ctx, args)?;
        ctx.flush(&args.common.out)?;
    }
    print_summary(&ctx);
    Ok(())
}

/// Repeated SpMVs through cuSPARSE with the n×n matrix tridiag(−1, 2, −1) of type S
/// (alternating vectors and scalars, as a timing loop does) against a CPU computation in
/// c64; returns the largest relative error.
fn cusparse_probe<S: Scalar>(gpu: &GpuBackend, n: usize) -> Res<f64> {
    let mut row_ptr = vec![0u32];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in i.saturating_sub(1)..(i + 2).min(n) {
            col_idx.push(j as u32);
            vals.push(S::from_f64(if i == j { 2.0 } else { -1.0 }));
        }
        row_ptr.push(col_idx.len() as u32);
    }
    let a = GpuCsr::from_parts(gpu, n, n, &row_ptr, &col_idx, &vals).map_err(err)?;
    let mut rng = Rand::new(7);
    let mut u = gpu.upload(&rng.vec::<S>(n)).map_err(err)?;
    let mut v = gpu.upload(&rng.vec::<S>(n)).map_err(err)?;
    let tri = |x: &[c64]| -> Vec<c64> {
        (0..n)
            .map(|i| {
                let mut s = x[i] * 2.0;
                if i > 0 {
                    s -= x[i - 1];
                }
                if i + 1 < n {
                    s -= x[i + 1];
                }
                s
            })
            .collect()
    };
    let mut worst = 0.0f64;
    for k in 0..6 {
        let alpha = S::from_f64(0.5 + k as f64);
        let beta = S::from_f64(if k % 2 == 0 { 0.0 } else { -0.25 });
        let (x, y) = if k % 2 == 0 {
            (&u, &mut v)
        } else {
            (&v, &mut u)
        };
        let xh: Vec<c64> = gpu
            .to_host(x)
            .map_err(err)?
            .iter()
            .map(|v| v.to_c64())
            .collect();
        let yh: Vec<c64> = gpu
            .to_host(y)
            .map_err(err)?
            .iter()
            .map(|v| v.to_c64())
            .collect();
        eprintln!("cusparse probe {} n={n}: SpMV {k}", S::NAME);
        a.apply_with(gpu, SpmvKernel::Cusparse, alpha, x, beta, y)
            .map_err(err)?;
        let got: Vec<c64> = gpu
            .to_host(y)
            .map_err(err)?
            .iter()
            .map(|v| v.to_c64())
            .collect();
        let want: Vec<c64> = tri(&xh)
            .iter()
            .zip(&yh)
            .map(|(ax, y0)| alpha.to_c64() * ax + beta.to_c64() * y0)
            .collect();
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (g, w) in got.iter().zip(&want) {
            num += (g - w).norm_sqr();
            den += w.norm_sqr();
        }
        let e = (num / den.max(1e-300)).sqrt();
        if e.is_nan() || e > 1e-5 {
            return Err(format!("call {k}: relative error {e:e}"));
        }
        worst = worst.max(e);
    }
    Ok(worst)
}

/// Products per timed run: the host queues them back to back, so launch overhead and host
/// bookkeeping overlap the device's work, as in an algorithm's loop; a run's time is divided
/// by this count.
const BATCH: usize = 10;

/// Per-product times (seconds, sorted) of `reps` runs of BATCH calls of `f`, after warm-up.
fn timed(
    dev: &std::sync::Arc<matexp_gpu::Device>,
    reps: usize,
    mut f: impl FnMut() -> matexp_core::Result<()>,
) -> Res<Vec<f64>> {
    let t = time_runs(dev, 2, reps, || {
        for _ in 0..BATCH {
            f()?;
        }
        Ok(())
    })?;
    Ok(t.into_iter().map(|t| t / BATCH as f64).collect())
}

fn blas1(ctx: &mut Ctx, n: usize) -> Res<()> {
    blas1_typed::<f64>(ctx, n)?;
    blas1_typed::<c64>(ctx, n)?;
    blas1_typed::<f32>(ctx, n)?;
    Ok(())
}

fn blas1_typed<S: Scalar>(ctx: &mut Ctx, n: usize) -> Res<()> {
    let g = ctx.gpu.clone();
    let dev = g.device().clone();
    let x = g.upload(&ctx.rng.vec::<S>(n)).map_err(err)?;
    let mut y = g.upload(&ctx.rng.vec::<S>(n)).map_err(err)?;
    let b = std::mem::size_of::<S>();
    let a = S::from_f64(0.999);
    let t = timed(&dev, ctx.reps, || g.axpby(a, &x, a, &mut y)).map_err(err)?;
    let r = ctx.record("blas1_gpu", "axpby", "gpu", S::NAME);
    ctx.push(r, &t, 3 * n * b, n, 0, None, "axpby");
    let mut pend = Vec::new();
    let t = timed(&dev, ctx.reps, || {
        pend.push(g.nrm2_deferred(&x)?);
        Ok(())
    })
    .map_err(err)?;
    drop(pend);
    let r = ctx.record("blas1_gpu", "nrm2", "gpu", S::NAME);
    ctx.push(r, &t, n * b, n, 0, None, "nrm2");
    let mut pend = Vec::new();
    let t = timed(&dev, ctx.reps, || {
        pend.push(g.dot_deferred(&x, &y)?);
        Ok(())
    })
    .map_err(err)?;
    drop(pend);
    let r = ctx.record("blas1_gpu", "dot", "gpu", S::NAME);
    ctx.push(r, &t, 2 * n * b, n, 0, None, "dot");
    // One blocking norm, end to end as an algorithm sees it (launches + one wait).
    let t0 = Instant::now();
    let k = 20;
    for _ in 0..k {
        std::hint::black_box(g.nrm2(&x).map_err(err)?);
    }
    let per = t0.elapsed().as_secs_f64() / k as f64;
    let r = ctx
        .record("blas1_gpu", "nrm2_blocking", "gpu", S::NAME)
        .size("n", n)
        .extra("host_wall", true);
    let mut r = r;
    r.time_s = per;
    r.reps = k as u64;
    ctx.records.push(r);
    Ok(())
}

const KERNELS: [SpmvKernel; 8] = [
    SpmvKernel::Scalar,
    SpmvKernel::Vector { lanes: 2 },
    SpmvKernel::Vector { lanes: 4 },
    SpmvKernel::Vector { lanes: 8 },
    SpmvKernel::Vector { lanes: 16 },
    SpmvKernel::Vector { lanes: 32 },
    SpmvKernel::Vector { lanes: 1 },
    SpmvKernel::Auto,
];

/// ‖got − want‖ / ‖want‖ in f64.
fn rel_err<S: Scalar>(got: &[S], want: &[S]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        num += (g.to_c64() - w.to_c64()).norm_sqr();
        den += w.to_c64().norm_sqr();
    }
    (num / den).sqrt()
}

fn spmv_case<S: Scalar>(
    ctx: &mut Ctx,
    case: &str,
    a: &CsrMatrix<S, u32>,
    hermitian: bool,
    storage: ValueStorage,
) -> Res<()> {
    let g = ctx.gpu.clone();
    let dev = g.device().clone();
    let (n, nnz) = (a.nrows(), a.nnz());
    let t = Instant::now();
    let (rp, ci) = (a.row_ptr(), a.col_idx());
    let op = GpuCsr::from_parts_with(&g, n, a.ncols(), rp, ci, a.values(), storage)
        .map_err(err)?
        .assume_hermitian(hermitian);
    let values = if op.real_values() { "real" } else { S::NAME };
    println!(
        "  {case} {}: uploaded in {:.1?} (auto lanes {}, values {values}, {} bytes a product)",
        S::NAME,
        t.elapsed(),
        op.auto_lanes(),
        op.bytes_per_product(false)
    );
    let xh = ctx.rng.vec::<S>(n);
    let x = g.upload(&xh).map_err(err)?;
    let mut y = g.upload(&ctx.rng.vec::<S>(n)).map_err(err)?;
    let bytes = op.bytes_per_product(false);
    let (one, zero) = (S::one(), S::zero());

    // Correctness against the CPU backend (rayon SpMV of matexp-sparse), and its time.
    eprintln!("  {case} {}: CPU reference", S::NAME);
    let mut want = vec![S::zero(); n];
    let cpu_times: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            a.spmv(one, &xh, zero, &mut want)
                .map(|_| t.elapsed().as_secs_f64())
        })
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let mut cpu_times = cpu_times;
    cpu_times.sort_by(f64::total_cmp);

    eprintln!("  {case} {}: cuSPARSE", S::NAME);
    // A refusal (say of the mixed real/complex form on some cuSPARSE version) is reported
    // and leaves this case without the vendor comparison instead of ending the run.
    let vendor = if ctx.cusparse {
        match timed(&dev, ctx.reps, || {
            op.apply_with(&g, SpmvKernel::Cusparse, one, &x, zero, &mut y)
        }) {
            Ok(t) => Some((t, rel_err(&g.to_host(&y).map_err(err)?, &want))),
            Err(e) => {
                println!(
                    "  {case} {} (values {values}): cuSPARSE failed: {e}",
                    S::NAME
                );
                None
            }
        }
    } else {
        None
    };
    let t_vendor = vendor.as_ref().map(|(t, _)| median(t));
    eprintln!("  {case} {}: our kernels", S::NAME);
    let mut best = (f64::INFINITY, SpmvKernel::Auto);
    for k in KERNELS {
        g.fill(&mut y, S::from_f64(f64::NAN)).map_err(err)?;
        let times = timed(&dev, ctx.reps, || {
            op.apply_with(&g, k, one, &x, zero, &mut y)
        })
        .map_err(err)?;
        let e = rel_err(&g.to_host(&y).map_err(err)?, &want);
        if e.is_nan() || e >= 1e-4 {
            return Err(format!(
                "{case} {} {k}: relative error {e:e} against the CPU",
                S::NAME
            ));
        }
        let m = median(&times);
        if k != SpmvKernel::Auto && m < best.0 {
            best = (m, k);
        }
        let label = if k == SpmvKernel::Auto {
            format!("auto(vector{})", op.auto_lanes())
        } else {
            k.to_string()
        };
        let c = if k == SpmvKernel::Auto {
            case.to_string()
        } else {
            format!("{case}/{k}")
        };
        let r = ctx
            .record("spmv_gpu", &c, "gpu", S::NAME)
            .error(e)
            .extra("kernel", label.clone())
            .extra("values", values)
            .extra("lanes", op.auto_lanes());
        ctx.push(r, &times, bytes, n, nnz, t_vendor, &label);
    }
    if let Some((t_cus, err_cus)) = &vendor {
        let r = ctx
            .record("spmv_gpu", case, "cusparse", S::NAME)
            .error(*err_cus)
            .extra("values", values)
            .extra("kernel", "cusparseSpMV ALG_DEFAULT");
        ctx.push(r, t_cus, bytes, n, nnz, None, "cusparse");
    }
    let mut r = ctx
        .record("spmv_gpu", case, "cpu", S::NAME)
        .size("n", n)
        .size("nnz", nnz)
        .extra("threads", rayon::current_num_threads())
        .extra("gbps", bytes as f64 / median(&cpu_times) / 1e9);
    r.time_s = median(&cpu_times);
    r.reps = cpu_times.len() as u64;
    r.peer_ratio = None;
    ctx.records.push(r);
    println!(
        "  {case} {}: best kernel {} ({:.1} µs), auto {} lanes, cuSPARSE {:.1} µs, CPU {:.1} ms",
        S::NAME,
        best.1,
        best.0 * 1e6,
        op.auto_lanes(),
        t_vendor.unwrap_or(f64::NAN) * 1e6,
        median(&cpu_times) * 1e3
    );

    // The fused Leja step against the same step unfused (copy, SpMV, axpby, norm).
    let step = ShiftedStep {
        alpha: S::from_f64(0.05),
        shift: S::from_f64(0.3),
        coeff: S::from_f64(1e-3),
    };
    let mut yn = g.zeros::<S>(n).map_err(err)?;
    let mut p = g.upload(&ctx.rng.vec::<S>(n)).map_err(err)?;
    let mut pend = Vec::new();
    let t_fused = timed(&dev, ctx.reps, || {
        pend.push(op.leja_step_deferred(&g, &step, &x, &mut yn, &mut p)?);
        Ok(())
    })
    .map_err(err)?;
    drop(pend);
    // The same with each norm's result dropped unread as soon as it is queued: its reduction
    // slot returns to the pool at once, so this isolates what holding hundreds of pending
    // norms costs the host (one slot allocation per step when the pool is empty).
    let t_fused_dropped = timed(&dev, ctx.reps, || {
        op.leja_step_deferred(&g, &step, &x, &mut yn, &mut p)
            .map(drop)
    })
    .map_err(err)?;
    let mut pend = Vec::new();
    let t_unfused = timed(&dev, ctx.reps, || {
        g.copy(&x, &mut yn)?;
        op.apply(&g, step.alpha, &x, step.shift, &mut yn)?;
        g.axpby(step.coeff, &yn, S::one(), &mut p)?;
        pend.push(g.nrm2_deferred(&yn)?);
        Ok(())
    })
    .map_err(err)?;
    drop(pend);
    // The same step from vendor calls: a device copy, cusparseSpMV (y_next ← α·A·y_prev +
    // shift·y_next), cublas?axpy and cublas?nrm2 with the norm left on the device (as the
    // deferred norms above), all on the device's stream.
    let t_vendor = if ctx.cusparse {
        match vendor_leja_step(&g, &op, &step, &x, &mut yn, &mut p, ctx.reps) {
            Ok(t) => Some(t),
            Err(e) => {
                println!(
                    "  {case} {}: Leja step from vendor calls failed: {e}",
                    S::NAME
                );
                None
            }
        }
    } else {
        None
    };
    let fused_bytes = bytes + 2 * n * std::mem::size_of::<S>();
    let r = ctx
        .record("leja_step_gpu", case, "gpu", S::NAME)
        .extra("fused", true)
        .extra("values", values)
        .extra("unfused_s", median(&t_unfused))
        .extra("pending_dropped_s", median(&t_fused_dropped))
        .extra("spmv_s", best.0);
    ctx.push(
        r,
        &t_fused,
        fused_bytes,
        n,
        nnz,
        t_vendor.as_deref().map(median),
        "leja fused",
    );
    if let Some(t) = &t_vendor {
        let r = ctx
            .record("leja_step_gpu", case, "cusparse", S::NAME)
            .extra("fused", false)
            .extra(
                "calls",
                "device copy, cusparseSpMV (CSR, ALG_DEFAULT), cublas axpy, cublas nrm2 (device pointer mode)",
            );
        ctx.push(r, t, fused_bytes, n, nnz, None, "leja vendor calls");
    }
    let r = ctx
        .record("leja_step_gpu", &format!("{case}/unfused"), "gpu", S::NAME)
        .extra("fused", false);
    ctx.push(r, &t_unfused, fused_bytes, n, nnz, None, "leja unfused");
    Ok(())
}

/// Per-step times (as [`timed`]) of one Leja step built from vendor calls: `y_next ← y_prev`
/// (device copy), cusparseSpMV `y_next ← α·A·y_prev + shift·y_next`, cuBLAS
/// `p ← p + coeff·y_next` and `‖y_next‖₂` into device memory (pointer mode device, so no
/// step waits for the host, as our deferred norms).
fn vendor_leja_step<S: Scalar>(
    g: &GpuBackend,
    op: &GpuCsr<S>,
    step: &ShiftedStep<S>,
    x: &matexp_gpu::GpuVector<S>,
    yn: &mut matexp_gpu::GpuVector<S>,
    p: &mut matexp_gpu::GpuVector<S>,
    reps: usize,
) -> Res<Vec<f64>> {
    use matexp_gpu::cudarc::cublas::{CudaBlas, sys as cb};
    let dev = g.device().clone();
    let blas = std::panic::catch_unwind(|| CudaBlas::new(dev.stream().clone()))
        .map_err(|_| "cuBLAS could not be loaded".to_string())?
        .map_err(|e| format!("cuBLAS handle: {e:?}"))?;
    let h = *blas.handle();
    // SAFETY: a valid handle of this device.
    let s = unsafe {
        cb::cublasSetPointerMode_v2(h, cb::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
    };
    if s != cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Err(format!("cublasSetPointerMode: {s:?}"));
    }
    let n = std::ffi::c_int::try_from(x.len()).map_err(err)?;
    let coeff = g.upload(&[step.coeff]).map_err(err)?;
    let norm = g.zeros::<S>(1).map_err(err)?;
    let (a, yp, pp, r) = (
        coeff.device_ptr(),
        yn.device_ptr(),
        p.device_ptr(),
        norm.device_ptr(),
    );
    let ok = |s: cb::cublasStatus_t, what: &str| -> matexp_core::Result<()> {
        if s == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(matexp_core::Error::Device(format!("{what}: {s:?}")))
        }
    };
    let blas_calls = || -> matexp_core::Result<()> {
        // SAFETY: device arrays of n scalars of type S (one for the coefficient and the
        // norm, whose real part takes the result) on the handle's device and stream.
        unsafe {
            match S::NAME {
                "f64" => {
                    ok(
                        cb::cublasDaxpy_v2(h, n, a as _, yp as _, 1, pp as _, 1),
                        "axpy",
                    )?;
                    ok(cb::cublasDnrm2_v2(h, n, yp as _, 1, r as _), "nrm2")
                }
                "f32" => {
                    ok(
                        cb::cublasSaxpy_v2(h, n, a as _, yp as _, 1, pp as _, 1),
                        "axpy",
                    )?;
                    ok(cb::cublasSnrm2_v2(h, n, yp as _, 1, r as _), "nrm2")
                }
                "c64" => {
                    ok(
                        cb::cublasZaxpy_v2(h, n, a as _, yp as _, 1, pp as _, 1),
                        "axpy",
                    )?;
                    ok(cb::cublasDznrm2_v2(h, n, yp as _, 1, r as _), "nrm2")
                }
                "c32" => {
                    ok(
                        cb::cublasCaxpy_v2(h, n, a as _, yp as _, 1, pp as _, 1),
                        "axpy",
                    )?;
                    ok(cb::cublasScnrm2_v2(h, n, yp as _, 1, r as _), "nrm2")
                }
                other => Err(matexp_core::Error::Device(format!(
                    "no cuBLAS calls for {other}"
                ))),
            }
        }
    };
    let t = timed(&dev, reps, || {
        g.copy(x, yn)?;
        op.apply_with(g, SpmvKernel::Cusparse, step.alpha, x, step.shift, yn)?;
        blas_calls()
    })
    .map_err(err)?;
    // The vendor step's norm against ours of the same y_next (one check, not timed).
    g.copy(x, yn).map_err(err)?;
    op.apply_with(g, SpmvKernel::Cusparse, step.alpha, x, step.shift, yn)
        .map_err(err)?;
    blas_calls().map_err(err)?;
    // The real result sits in the first bytes of the slot: its real part (the imaginary
    // part of a complex slot stays zero).
    let got = g.to_host(&norm).map_err(err)?[0].to_c64().re;
    let want = matexp_core::RealScalar::as_f64(g.nrm2(yn).map_err(err)?);
    if !(got - want).abs().le(&(1e-3 * want.abs())) {
        return Err(format!("cuBLAS nrm2 {got:e} against ours {want:e}"));
    }
    drop(blas);
    Ok(t)
}

fn pattern_case(ctx: &mut Ctx, case: &str, p: &matexp_sparse::PatternCsr<u32>) -> Res<()> {
    let g = ctx.gpu.clone();
    let dev = g.device().clone();
    let n = p.nrows();
    let op = GpuPattern::from_parts(&g, n, p.ncols(), p.row_ptr(), p.col_idx())
        .map_err(err)?
        .assume_symmetric(true);
    let with_ones: CsrMatrix<f64, u32> = p.with_values(1.0);
    let vals =
        GpuCsr::from_parts(&g, n, n, p.row_ptr(), p.col_idx(), with_ones.values()).map_err(err)?;
    let xh = ctx.rng.vec::<f64>(n);
    let x = g.upload(&xh).map_err(err)?;
    let mut y = g.zeros::<f64>(n).map_err(err)?;
    let mut want = vec![0.0; n];
    with_ones.spmv(1.0, &xh, 0.0, &mut want).map_err(err)?;
    let t_cus = if ctx.cusparse {
        Some(
            timed(&dev, ctx.reps, || {
                vals.apply_with(&g, SpmvKernel::Cusparse, 1.0, &x, 0.0, &mut y)
            })
            .map_err(err)?,
        )
    } else {
        None
    };
    let vendor = t_cus.as_deref().map(median);
    let bytes = op.bytes_per_product::<f64>(false);
    println!(
        "{case}: auto = {}, hybrid tiers {:?}",
        op.auto_kernel(),
        op.hybrid_tiers()
    );
    // Every kernel of the valued matrices (the old auto choice among them) and the hybrid
    // one, which Auto takes for skewed degrees.
    for k in KERNELS.into_iter().chain([SpmvKernel::Hybrid]) {
        let times = timed(&dev, ctx.reps, || {
            op.apply_with(&g, k, 1.0, &x, 0.0, &mut y)
        })
        .map_err(err)?;
        let e = rel_err(&g.to_host(&y).map_err(err)?, &want);
        if e.is_nan() || e >= 1e-12 {
            return Err(format!("{case} pattern {k}: relative error {e:e}"));
        }
        let label = if k == SpmvKernel::Auto {
            format!("auto({})", op.auto_kernel())
        } else {
            k.to_string()
        };
        let c = if k == SpmvKernel::Auto {
            case.to_string()
        } else {
            format!("{case}/{k}")
        };
        let r = ctx
            .record("spmv_pattern_gpu", &c, "gpu", "f64")
            .error(e)
            .extra("kernel", label.clone());
        ctx.push(
            r,
            &times,
            bytes,
            n,
            op.nnz(),
            vendor,
            &format!("pattern {label}"),
        );
    }
    if let Some(t_cus) = &t_cus {
        let r = ctx
            .record("spmv_pattern_gpu", case, "cusparse", "f64")
            .extra("kernel", "cusparseSpMV on explicit ones");
        let b = vals.bytes_per_product(false);
        ctx.push(r, t_cus, b, n, op.nnz(), None, "cusparse (ones)");
    }
    Ok(())
}

/// Seed 002's total communicability e^A·1 of a graph by Lanczos with Krylov dimension 50
/// (tolerance 1e-14 so that all 50 steps run unless it converges first), on the GPU and on
/// the CPU backend of the same host; the GPU result is compared with the CPU's.
fn lanczos_case(ctx: &mut Ctx, case: &str, p: &matexp_sparse::PatternCsr<u32>) -> Res<()> {
    use matexp_graph::{CommunicabilityOptions, total_communicability};
    let g = ctx.gpu.clone();
    let n = p.nrows();
    let op = GpuPattern::from_parts(&g, n, n, p.row_ptr(), p.col_idx())
        .map_err(err)?
        .assume_symmetric(true);
    let opts = CommunicabilityOptions {
        rtol: 1e-14,
        max_dim: 50,
        allow_unconverged: true,
        assume_symmetric: true,
        ..Default::default()
    };
    eprintln!("  {case}: Lanczos on the GPU");
    let mut gpu_times = Vec::new();
    let mut result = None;
    for _ in 0..4 {
        let t = Instant::now();
        let (w, rep) = total_communicability(&g, &op, 1.0, &opts).map_err(err)?;
        g.synchronize().map_err(err)?;
        gpu_times.push(t.elapsed().as_secs_f64());
        result = Some((w, rep));
    }
    gpu_times.remove(0); // first run: JIT of the kernels, allocations
    gpu_times.sort_by(f64::total_cmp);
    let (w, rep) = result.ok_or("no Lanczos result")?;
    let wh = g.to_host(&w).map_err(err)?;
    eprintln!("  {case}: Lanczos on the CPU");
    let cpu = matexp_core::CpuBackend::new();
    let mut cpu_times = Vec::new();
    let mut cpu_result = None;
    for _ in 0..2 {
        let t = Instant::now();
        let r = total_communicability(&cpu, p, 1.0, &opts).map_err(err)?;
        cpu_times.push(t.elapsed().as_secs_f64());
        cpu_result = Some(r);
    }
    cpu_times.sort_by(f64::total_cmp);
    let (wc, repc) = cpu_result.ok_or("no CPU Lanczos result")?;
    let diff: Vec<f64> = wh.iter().zip(&wc).map(|(a, b)| a - b).collect();
    let rel = matexp_core::norms::nrm2(&diff) / matexp_core::norms::nrm2(&wc);
    let max = matexp_core::norms::amax(&wc);
    let (tg, tc) = (median(&gpu_times), median(&cpu_times));
    // The vendor route: the same Lanczos over cuSPARSE's SpMV on the pattern with explicit
    // ones, the same options, error against the same CPU result.
    let vendor = if ctx.cusparse {
        eprintln!("  {case}: Lanczos over cuSPARSE's SpMV");
        let ones: CsrMatrix<f64, u32> = p.with_values(1.0);
        let a = GpuCsr::from_csr(&g, &ones)
            .map_err(err)?
            .assume_hermitian(true);
        drop(ones);
        let route = CusparseRoute(&a);
        let mut times = Vec::new();
        let mut last = None;
        let mut failed = None;
        for _ in 0..4 {
            let t = Instant::now();
            match total_communicability(&g, &route, 1.0, &opts)
                .and_then(|r| g.synchronize().map(|_| r))
            {
                Ok(r) => {
                    times.push(t.elapsed().as_secs_f64());
                    last = Some(r);
                }
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            }
        }
        match (failed, last) {
            (None, Some((w, r))) => {
                times.remove(0);
                times.sort_by(f64::total_cmp);
                let wv = g.to_host(&w).map_err(err)?;
                let d: Vec<f64> = wv.iter().zip(&wc).map(|(a, b)| a - b).collect();
                let e = matexp_core::norms::nrm2(&d) / matexp_core::norms::nrm2(&wc);
                Some((median(&times), times.len(), e, r))
            }
            (failed, _) => {
                println!(
                    "  {case}: Lanczos over cuSPARSE failed: {}",
                    failed.unwrap_or_else(|| "no run".into())
                );
                None
            }
        }
    } else {
        None
    };
    if let Some((tv, reps, e, r)) = &vendor {
        println!(
            "  {case}: Lanczos over cuSPARSE {tv:.3} s ({:.2}× ours), {} matvecs, rel. diff {e:.1e}",
            tv / tg,
            r.matvecs
        );
        let mut rec = ctx
            .record("lanczos_gpu", case, "cusparse", "f64")
            .size("n", n)
            .size("nnz", p.nnz())
            .matvecs(r.matvecs as u64)
            // The seed's fixed k = 50: rtol 1e−14 only keeps every step, no tolerance is
            // claimed (the error is the agreement with the CPU backend).
            .extra("krylov_dim_fixed", 50)
            .error(*e)
            .extra("krylov_dim", r.max_degree)
            .extra("route", cusparse_route::ROUTE)
            .extra("error_vs", "cpu backend, same host")
            .extra("host_wall", true);
        rec.time_s = *tv;
        rec.reps = *reps as u64;
        ctx.records.push(rec);
    }
    println!(
        "  {case}: GPU {tg:.3} s, CPU {tc:.3} s ({} threads), speedup {:.1}, {} / {} matvecs, rel. diff {rel:.1e}, max entry {max:.3e}",
        rayon::current_num_threads(),
        tc / tg,
        rep.matvecs,
        repc.matvecs
    );
    for (backend, t, times, r) in [
        ("gpu", tg, &gpu_times, &rep),
        ("cpu", tc, &cpu_times, &repc),
    ] {
        let mut rec = ctx
            .record("lanczos_gpu", case, backend, "f64")
            .size("n", n)
            .size("nnz", p.nnz())
            .matvecs(r.matvecs as u64)
            // The seed's fixed k = 50: rtol 1e−14 only keeps every step, no tolerance is
            // claimed (the error is the agreement with the CPU backend).
            .extra("krylov_dim_fixed", 50)
            .extra("krylov_dim", r.max_degree)
            .extra("error_estimate", r.error_estimate)
            .extra("max_entry", max)
            .extra("host_wall", true);
        rec.time_s = t;
        rec.reps = times.len() as u64;
        if backend == "gpu" {
            rec.error = Some(rel);
            rec = rec.extra("cpu_over_gpu", tc / tg);
            rec = rec.extra("error_vs", "cpu backend, same host");
            rec.vendor_ratio = vendor.as_ref().map(|v| vendor_ratio(v.0, tg));
        } else {
            rec = rec.extra("threads", rayon::current_num_threads());
        }
        ctx.records.push(rec);
    }
    ctx.summary.push([
        case.to_string(),
        "lanczos k=50".into(),
        "gpu".into(),
        "f64".into(),
        format!("{:.0}", tg * 1e6),
        "-".into(),
        "-".into(),
        format!("CPU/GPU {:.1}", tc / tg),
    ]);
    Ok(())
}

/// What one end-to-end Leja run computes.
#[derive(Clone, Copy)]
enum Problem {
    /// e^{−itH}v (spin bath, seed 000 Table 10).
    Schrodinger(f64),
    /// e^{tA}v (heat equation, seed 000 Table 12).
    Expmv(f64),
}

/// Seed 000's end-to-end runs, on one GPU, on all GPUs and on the CPU backend of the host:
/// Table 10 (spin bath L = 21, ψ(10) = e^{−10iH}ψ₀, tol 1e−5, c64 and c32) and Table 12
/// (3D Laplacian N = 256, e^{0.01A}u₀ with u₀ = sin(2πx), tol 1e−5, f64 and f32). Errors
/// are measured against the same problem solved on the GPU with tolerance 1e−10 in double
/// precision.
fn leja_e2e(ctx: &mut Ctx, args: &Args) -> Res<()> {
    let (l, lap_n) = if args.common.small {
        (12, 24)
    } else {
        (21, 256)
    };
    let model = SpinBath::seed000(l, 1).map_err(err)?;
    let case = format!("T10_spin_bath_L{l}_t10");
    let h64 = model
        .hamiltonian::<c64, u32>(StoredZeros::Keep)
        .map_err(err)?;
    let bounds = h64.gershgorin();
    let psi = model.initial_state::<c64>(1).map_err(err)?;
    let reference = leja_run(
        ctx,
        &case,
        &h64,
        Problem::Schrodinger(10.0),
        &psi,
        bounds,
        None,
        args.multi,
    )?;
    drop(h64);
    let h32 = model
        .hamiltonian::<c32, u32>(StoredZeros::Keep)
        .map_err(err)?;
    let psi = model.initial_state::<c32>(1).map_err(err)?;
    leja_run(
        ctx,
        &case,
        &h32,
        Problem::Schrodinger(10.0),
        &psi,
        bounds,
        Some(&reference),
        args.multi,
    )?;
    drop(h32);
    ctx.flush(&args.common.out)?;

    let case = format!("T12_laplace3d_N{lap_n}_t0.01");
    let a64 = laplacian_3d::<f64, u32>(lap_n).map_err(err)?;
    let bounds = a64.gershgorin();
    let h = 1.0 / (lap_n + 1) as f64;
    let u0: Vec<f64> = (0..a64.nrows())
        .map(|i| (2.0 * std::f64::consts::PI * ((i % lap_n) + 1) as f64 * h).sin())
        .collect();
    let reference = leja_run(
        ctx,
        &case,
        &a64,
        Problem::Expmv(0.01),
        &u0,
        bounds,
        None,
        false,
    )?;
    drop(a64);
    let a32 = laplacian_3d::<f32, u32>(lap_n).map_err(err)?;
    let u0: Vec<f32> = u0.iter().map(|&v| v as f32).collect();
    leja_run(
        ctx,
        &case,
        &a32,
        Problem::Expmv(0.01),
        &u0,
        bounds,
        Some(&reference),
        false,
    )?;
    Ok(())
}

fn solve<B: matexp_core::Backend, S: Scalar, O: LinearOperator<B, S>>(
    b: &B,
    op: &O,
    problem: Problem,
    v: &B::Vector<S>,
    opts: &matexp_expmv::LejaOptions,
) -> Res<(B::Vector<S>, matexp_expmv::LejaReport)> {
    match problem {
        Problem::Schrodinger(t) => matexp_expmv::leja_schrodinger(b, op, t, v, opts),
        Problem::Expmv(t) => matexp_expmv::leja_expmv(b, op, S::from_f64(t), v, opts),
    }
    .map_err(err)
}

fn up<S: Scalar>(x: &[S]) -> Vec<c64> {
    x.iter().map(|v| v.to_c64()).collect()
}

fn rel_to(x: &[c64], reference: &[c64]) -> f64 {
    let d: Vec<c64> = x.iter().zip(reference).map(|(a, b)| a - b).collect();
    matexp_core::norms::nrm2(&d) / matexp_core::norms::nrm2(reference)
}

/// One problem at tolerance 1e−5 on one GPU, all GPUs (`multi`) and the CPU backend.
/// Without `reference`, first solves it on the GPU at 1e−10 (S must then be double
/// precision) and returns that as the reference for this and later precisions.
#[allow(clippy::too_many_arguments)]
fn leja_run<S: Scalar>(
    ctx: &mut Ctx,
    case: &str,
    a: &CsrMatrix<S, u32>,
    problem: Problem,
    v: &[S],
    bounds: Option<matexp_core::SpectralBounds>,
    reference: Option<&Vec<c64>>,
    multi: bool,
) -> Res<Vec<c64>> {
    use matexp_expmv::{LejaOptions, Tolerance};
    let g = ctx.gpu.clone();
    let n = a.nrows();
    let tol = 1e-5;
    let opts = LejaOptions {
        tol: Tolerance::relative(tol),
        bounds,
        ..Default::default()
    };
    let op = GpuCsr::from_parts(&g, n, n, a.row_ptr(), a.col_idx(), a.values())
        .map_err(err)?
        .assume_hermitian(true);
    let gv = g.upload(v).map_err(err)?;
    let reference = match reference {
        Some(r) => r.clone(),
        None => {
            eprintln!("  {case} {}: reference at 1e-10 on the GPU", S::NAME);
            let o = LejaOptions {
                tol: Tolerance::relative(1e-10),
                ..opts
            };
            let (w, _) = solve(&g, &op, problem, &gv, &o)?;
            up(&g.to_host(&w).map_err(err)?)
        }
    };
    let mut results: Vec<(String, f64, usize, f64, matexp_expmv::LejaReport)> = Vec::new();
    // One GPU: one untimed run (JIT, allocations, coefficient model), then timed runs.
    eprintln!("  {case} {}: Leja on one GPU", S::NAME);
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let r = solve(&g, &op, problem, &gv, &opts)?;
        g.synchronize().map_err(err)?;
        times.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    times.remove(0);
    let (w, rep) = last.ok_or("no result")?;
    let e = rel_to(&up(&g.to_host(&w).map_err(err)?), &reference);
    results.push(("gpu".into(), median_of(&mut times), times.len(), e, rep));
    drop(w);
    // The vendor route of the same run: our Leja over cuSPARSE's SpMV (each term the trait's
    // default step: copy, cusparseSpMV, axpby, norm), the same options, runs and reference.
    let mut vendor_t = None;
    if ctx.cusparse {
        eprintln!("  {case} {}: Leja over cuSPARSE's SpMV", S::NAME);
        let route = CusparseRoute(&op);
        let mut times = Vec::new();
        let mut last = None;
        let mut failed = None;
        for _ in 0..3 {
            let t = Instant::now();
            match solve(&g, &route, problem, &gv, &opts)
                .and_then(|r| g.synchronize().map(|_| r).map_err(err))
            {
                Ok(r) => {
                    times.push(t.elapsed().as_secs_f64());
                    last = Some(r);
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match (failed, last) {
            (None, Some((w, rep))) => {
                times.remove(0);
                let e = rel_to(&up(&g.to_host(&w).map_err(err)?), &reference);
                let t = median_of(&mut times);
                vendor_t = Some(t);
                results.push(("cusparse".into(), t, times.len(), e, rep));
            }
            (failed, _) => {
                let e = failed.unwrap_or_else(|| "no run".into());
                println!("  {case} {}: Leja over cuSPARSE failed: {e}", S::NAME);
            }
        }
    }
    drop((op, gv));
    if multi && matexp_gpu::device_count().map_err(err)? >= 2 {
        eprintln!("  {case} {}: Leja on all GPUs", S::NAME);
        let m = MultiGpuBackend::all()
            .map_err(err)?
            .with_balanced_partition(a.row_ptr())
            .map_err(err)?;
        let k = m.devices().len();
        let mop = MultiGpuCsr::from_parts(&m, n, n, a.row_ptr(), a.col_idx(), a.values())
            .map_err(err)?
            .assume_hermitian(true);
        let mv = m.upload(v).map_err(err)?;
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..3 {
            let t = Instant::now();
            let r = solve(&m, &mop, problem, &mv, &opts)?;
            m.synchronize().map_err(err)?;
            times.push(t.elapsed().as_secs_f64());
            last = Some(r);
        }
        times.remove(0);
        let (w, rep) = last.ok_or("no result")?;
        let e = rel_to(&up(&m.to_host(&w).map_err(err)?), &reference);
        results.push((
            format!("gpu×{k}"),
            median_of(&mut times),
            times.len(),
            e,
            rep,
        ));
    }
    eprintln!("  {case} {}: Leja on the CPU backend", S::NAME);
    let cpu = matexp_core::CpuBackend::new();
    let cv = v.to_vec();
    let t = Instant::now();
    let (w, rep) = solve(&cpu, a, problem, &cv, &opts)?;
    let tc = t.elapsed().as_secs_f64();
    let e = rel_to(&up(&w), &reference);
    results.push(("cpu".into(), tc, 1, e, rep));
    for (backend, t, reps, e, rep) in &results {
        println!(
            "  {case} {} {backend}: {t:.3} s, {} matvecs, {} substeps, max degree {}, error {e:.1e} (estimate {:.1e}), CPU/this {:.1}",
            S::NAME,
            rep.matvecs,
            rep.substeps,
            rep.max_degree,
            rep.error_estimate,
            tc / t
        );
        let mut r = ctx
            .record("leja_e2e_gpu", case, backend, S::NAME)
            .size("n", n)
            .size("nnz", a.nnz())
            .matvecs(rep.matvecs as u64)
            .tol(tol)
            .error(*e)
            .extra("substeps", rep.substeps)
            .extra("max_degree", rep.max_degree)
            .extra("error_estimate", rep.error_estimate)
            .extra("converged", rep.converged)
            .extra("cpu_over_this", tc / t)
            .extra("error_vs", "GPU solve at rtol 1e-10 in double precision")
            .extra("host_wall", true);
        if *backend == "cpu" {
            r = r.extra("threads", rayon::current_num_threads());
        }
        if *backend == "cusparse" {
            r = r.extra("route", cusparse_route::ROUTE);
        }
        if *backend == "gpu" {
            r.vendor_ratio = vendor_t.map(|v| vendor_ratio(v, *t));
        }
        r.time_s = *t;
        r.reps = *reps as u64;
        ctx.records.push(r);
        ctx.summary.push([
            case.to_string(),
            format!("leja {} mv, err {e:.0e}", rep.matvecs),
            backend.clone(),
            S::NAME.into(),
            format!("{:.0}", t * 1e6),
            "-".into(),
            "-".into(),
            format!("CPU/this {:.1}", tc / t),
        ]);
    }
    Ok(reference)
}

fn median_of(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    median(v)
}

fn multi_case<S: Scalar>(ctx: &mut Ctx, case: &str, a: &CsrMatrix<S, u32>) -> Res<()> {
    let count = matexp_gpu::device_count().map_err(err)?;
    if count < 2 {
        println!("  {case}: one GPU only, multi-GPU case skipped");
        return Ok(());
    }
    let m = MultiGpuBackend::all()
        .map_err(err)?
        .with_balanced_partition(a.row_ptr())
        .map_err(err)?;
    let n = a.nrows();
    let op = MultiGpuCsr::from_parts(&m, n, n, a.row_ptr(), a.col_idx(), a.values())
        .map_err(err)?
        .assume_hermitian(true);
    let dev0 = m.devices()[0].clone();
    let xh = ctx.rng.vec::<S>(n);
    let mut x = m.upload(&xh).map_err(err)?;
    let mut y = m.zeros::<S>(n).map_err(err)?;
    // Scaled so that repeated products stay bounded; each product's input is the previous
    // output, so every product includes its gather, as in a Leja or Krylov loop.
    let bound = op
        .spectral_bounds()
        .map(|b| b.re_min.abs().max(b.re_max.abs()))
        .unwrap_or(1.0)
        .max(1e-300);
    let alpha = S::from_f64(1.0 / bound);
    let mut flip = false;
    let times = timed(&dev0, ctx.reps, || {
        if flip {
            op.apply(&m, alpha, &y, S::zero(), &mut x)?;
        } else {
            op.apply(&m, alpha, &x, S::zero(), &mut y)?;
        }
        flip = !flip;
        m.join_on_first()
    })
    .map_err(err)?;
    // Check one product against the CPU.
    let xh2 = m.to_host(&x).map_err(err)?;
    op.apply(&m, S::one(), &x, S::zero(), &mut y).map_err(err)?;
    let mut want = vec![S::zero(); n];
    a.spmv(S::one(), &xh2, S::zero(), &mut want).map_err(err)?;
    let e = rel_err(&m.to_host(&y).map_err(err)?, &want);
    if e.is_nan() || e >= 1e-4 {
        return Err(format!(
            "{case} {} multi-GPU: relative error {e:e}",
            S::NAME
        ));
    }
    let b = std::mem::size_of::<S>();
    let bytes = a.nnz() * (4 + b) + (n + 1) * 4 + 2 * n * b;
    // Where the time goes: the local products alone (x stays gathered, so no copies) and
    // the gather alone (x marked scattered before each, so every call copies).
    op.apply(&m, alpha, &x, S::zero(), &mut y).map_err(err)?;
    let t_local = timed(&dev0, ctx.reps, || {
        op.apply(&m, alpha, &x, S::zero(), &mut y)?;
        m.join_on_first()
    })
    .map_err(err)?;
    let t_gather = timed(&dev0, ctx.reps, || {
        x.mark_scattered();
        m.gather(&x)?;
        m.join_on_first()
    })
    .map_err(err)?;
    let gather_bytes = (n - n / count) * b;
    let label = format!("{count} GPUs, gather incl.");
    let r = ctx
        .record("spmv_gpu", case, &format!("gpu×{count}"), S::NAME)
        .error(e)
        .extra("devices", count)
        .extra("gather_bytes_per_device", gather_bytes)
        .extra("local_spmv_s", median(&t_local))
        .extra("gather_s", median(&t_gather));
    ctx.push(r, &times, bytes, n, a.nnz(), None, &label);
    println!(
        "  {case} {} on {count} GPUs: product {:.1} µs = local SpMV alone {:.1} µs, gather alone {:.1} µs ({:.0} GB/s per device)",
        S::NAME,
        median(&times) * 1e6,
        median(&t_local) * 1e6,
        median(&t_gather) * 1e6,
        gather_bytes as f64 / median(&t_gather) / 1e9
    );

    // The fused Leja step on all GPUs (gather of y_prev included).
    let step = ShiftedStep {
        alpha: S::from_f64(0.5 / bound),
        shift: S::from_f64(0.3),
        coeff: S::from_f64(1e-3),
    };
    let mut p = m.upload(&ctx.rng.vec::<S>(n)).map_err(err)?;
    let mut pend = Vec::new();
    let mut flip = false;
    let times = timed(&dev0, ctx.reps, || {
        if flip {
            pend.push(op.leja_step_deferred(&m, &step, &y, &mut x, &mut p)?);
        } else {
            pend.push(op.leja_step_deferred(&m, &step, &x, &mut y, &mut p)?);
        }
        flip = !flip;
        m.join_on_first()
    })
    .map_err(err)?;
    drop(pend);
    let t_dropped = timed(&dev0, ctx.reps, || {
        if flip {
            drop(op.leja_step_deferred(&m, &step, &y, &mut x, &mut p)?);
        } else {
            drop(op.leja_step_deferred(&m, &step, &x, &mut y, &mut p)?);
        }
        flip = !flip;
        m.join_on_first()
    })
    .map_err(err)?;
    let r = ctx
        .record("leja_step_gpu", case, &format!("gpu×{count}"), S::NAME)
        .extra("fused", true)
        .extra("devices", count)
        .extra("pending_dropped_s", median(&t_dropped));
    ctx.push(
        r,
        &times,
        bytes + 2 * n * b,
        n,
        a.nnz(),
        None,
        &format!("leja fused, {count} GPUs"),
    );
    Ok(())
}

/// Appends the records to `DIR/<suite>.jsonl`, one file per suite among them.
fn write_records(dir: &Path, records: &[Record]) -> Res<()> {
    std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let mut by_suite: std::collections::BTreeMap<&str, Vec<Record>> = Default::default();
    for r in records {
        by_suite
            .entry(r.suite.as_str())
            .or_default()
            .push(r.clone());
    }
    for (suite, records) in by_suite {
        matexp_benches::gpu_harness::write_records(dir, suite, &records)?;
    }
    Ok(())
}

fn print_summary(ctx: &Ctx) {
    let head = [
        "case",
        "kernel",
        "backend",
        "prec",
        "time µs",
        "GB/s",
        "/copy",
        "cuSPARSE/ours",
    ];
    let mut w = [0usize; 8];
    for row in std::iter::once(&head.map(String::from)).chain(ctx.summary.iter()) {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nsummary on {} (copy {:.0} GB/s; /copy = effective bandwidth over copy bandwidth, target >= 0.7; cuSPARSE/ours target >= 1.0)",
        ctx.tag,
        ctx.copy_bw / 1e9
    );
    for row in std::iter::once(&head.map(String::from)).chain(ctx.summary.iter()) {
        let mut line = String::new();
        for (i, c) in row.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i >= 4 {
                let _ = write!(line, "{}{c}  ", " ".repeat(pad));
            } else {
                let _ = write!(line, "{c}{}  ", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    print!("{out}");
}
