//! GPU benchmark suite `gpu_graph`: the Lanczos-centrality thesis's timing table, on
//! synthetic stand-ins of its graphs with the same n, edge count and shape
//! (`common/graph_catalog.rs`), on one GPU and on the CPU backend of the same host, with the
//! thesis's figures (RTX 2080 Super vs one i5-3570K core) as record fields.
//!
//! Per graph:
//! * `spmv_pattern/<graph>`: y ← A·x with matexp's pattern kernel (no values; `Auto` lanes)
//!   and cuSPARSE on the same structure with explicit ones (`vendor_ratio` = cuSPARSE time /
//!   ours), CUDA events, median of `--reps`;
//! * `tc/<graph>_k50`: total communicability e^{A}·1 by Lanczos with the thesis's Krylov
//!   dimension k = 50 (europe_osm: k = 20 in two-pass mode, the basis recomputed instead of
//!   stored), host wall time (with synchronisation) on the GPU and on the CPU backend; the
//!   GPU result's relative 2-norm difference from the CPU's, and the largest entry (the
//!   overflow the thesis met); beside it (when the cuSPARSE probe passes) the vendor route,
//!   the same Lanczos over cuSPARSE's SpMV on explicit ones (`common/cusparse_route.rs`,
//!   backend `cusparse`, error against the same CPU result, `vendor_ratio` on ours), and the
//!   thesis's single-precision run (Fig. 30, 31; `--no-f32` skips it): the same case in f32
//!   on the GPU, ours and the vendor route, error against the f64 CPU result; where e^A·1
//!   leaves the f32 range the run fails as the thesis's did (NaN there), recorded with
//!   `extra.failed` and no error;
//! * on the Barabási–Albert graph: the measures the thesis did not compute — the Estrada
//!   index by Hutch++ with its 95 % interval, and the exact subgraph centralities of the ten
//!   most communicable nodes — on the GPU and the CPU backend.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_graph -- [--out DIR] [--small] [--reps N]
//!     [--only NAME,...] [--no-peers] [--peer-time-limit S] [--no-f32]
//! ```
//!
//! `--only` takes graph names of the catalog (`barabasi`, `adaptive`, `california`,
//! `channel-500`, `com-LiveJournal`, `coPapersDBLP`, `hugetrace-00020`, `road_central`,
//! `europe_osm`; `_` may stand for `-`).
//!
//! Peers of `tc/<graph>_k50` (on by default, each bounded by `--peer-time-limit` seconds,
//! default 120; `--no-peers` skips them; a peer that cannot run records nothing and says why
//! on stderr): SciPy's expm_multiply(A, 1) on the host CPU (backend `scipy`) and its
//! algorithm over CuPy's CSR on the GPU (backend `cupy`), `benches/peers/expm_multiply_peers.py`,
//! at SciPy's accuracy (2⁻⁵³); `error` = their relative 2-norm difference from our CPU
//! backend's result, `peer_ratio` = their time / ours on the GPU (SciPy: / ours on the CPU
//! backend of the same host).
//!
//! `--small` scales every graph by 1/100. Records go to `DIR/gpu_graph.jsonl` (default
//! `target/bench-records`); graphs with at most 2·10⁶ edges are written as MatrixMarket files
//! with this run's values to `DIR/graphs/` for `benches/peers/networkx_centrality.py`.
//! Exit status 3 means no GPU.

#[path = "common/cusparse_route.rs"]
mod cusparse_route;
#[path = "common/gpu_peer.rs"]
mod gpu_peer;
#[path = "common/graph_catalog.rs"]
mod graph_catalog;

use cusparse_route::CusparseRoute;
use graph_catalog::{SEED_GRAPHS, SeedGraph};
use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, gpu_or_exit, median, parse_value,
    time_median, time_wall_last, write_records,
};
use matexp_core::{Backend, CpuBackend, LinearOperator, RealScalar};
use matexp_gpu::{GpuBackend, GpuCsr, GpuPattern, SpmvKernel};
use matexp_graph::{
    CommunicabilityOptions, ProbeOptions, QuadratureOptions, estrada_index_hutchpp,
    subgraph_centrality_quadrature, top_k, total_communicability,
};
use matexp_sparse::matrix_market::{Symmetry, write_pattern_file};
use matexp_sparse::{CsrMatrix, PatternCsr};
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// The suite's name in its records and its records file: `DIR/gpu_graph.jsonl`.
const SUITE: &str = "gpu_graph";

struct Args {
    common: CommonArgs,
    only: Option<Vec<String>>,
    f32: bool,
    probe: bool,
    peers: bool,
    peer_limit: f64,
}

fn parse_args() -> Args {
    let mut only = None;
    let (mut f32, mut probe, mut peers, mut peer_limit) = (true, false, true, 120.0);
    let common = CommonArgs::parse(20, |flag, it| match flag {
        "--only" => {
            only = it
                .next()
                .map(|v| v.split(',').map(|p| p.trim().to_string()).collect())
        }
        "--no-f32" => f32 = false,
        "--cusparse-probe" => probe = true,
        "--no-peers" => peers = false,
        "--peer-time-limit" => peer_limit = parse_value(it, peer_limit),
        _ => {} // cargo bench passes --bench
    });
    Args {
        common,
        only,
        f32,
        probe,
        peers,
        peer_limit,
    }
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit(SUITE);
    if args.probe {
        let probe = cusparse_probe(&gpu);
        if probe.is_ok() {
            println!("cusparse probe: ok");
        }
        exit_on_failure("cusparse probe", probe);
        return;
    }
    exit_on_failure(SUITE, run(&gpu, &args));
}

/// cuSPARSE on a small pattern with explicit ones against the CPU (run in a child process
/// first, so that a cuSPARSE failure costs the vendor column only).
fn cusparse_probe(gpu: &GpuBackend) -> Res<()> {
    let p = matexp_sparse::generators::barabasi_albert::<u32>(1000, 3, 1).map_err(err)?;
    let ones: CsrMatrix<f64, u32> = p.with_values(1.0);
    let a = GpuCsr::from_csr(gpu, &ones).map_err(err)?;
    let xh: Vec<f64> = (0..1000).map(|i| 1.0 + (i % 7) as f64).collect();
    let x = gpu.upload(&xh).map_err(err)?;
    let mut y = gpu.zeros::<f64>(1000).map_err(err)?;
    a.apply_with(gpu, SpmvKernel::Cusparse, 1.0, &x, 0.0, &mut y)
        .map_err(err)?;
    let mut want = vec![0.0; 1000];
    ones.spmv(1.0, &xh, 0.0, &mut want).map_err(err)?;
    let got = gpu.to_host(&y).map_err(err)?;
    let e = rel_diff(&got, &want);
    if e < 1e-14 {
        Ok(())
    } else {
        Err(format!("relative error {e:e}"))
    }
}

fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    matexp_core::norms::nrm2(&d) / matexp_core::norms::nrm2(b)
}

struct Ctx<'a> {
    gpu: &'a GpuBackend,
    tag: String,
    reps: usize,
    cusparse: bool,
    records: Vec<Record>,
    summary: Vec<String>,
}

impl Ctx<'_> {
    fn record(&self, case: &str, backend: &str, s: &SeedGraph, p: &PatternCsr<u32>) -> Record {
        let mut r = Record::new(SUITE, case, backend, "f64")
            .size("n", p.nrows())
            .size("nnz", p.nnz())
            .size("seed_n", s.n)
            .size("seed_edges", s.edges)
            .extra("standin", format!("{:?}", s.shape))
            .extra("seed_serial_s", s.seed_serial_s)
            .extra("seed_cuda_s", s.seed_cuda_s)
            .extra(
                "seed_device",
                "RTX 2080 Super vs one i5-3570K core, k as in the thesis",
            );
        r = match s.seed_rel_diff {
            Some(d) => r.extra("seed_rel_diff", d),
            None => r.extra("seed_rel_diff", "norm overflow"),
        };
        r.device = self.tag.clone();
        r
    }
}

fn run(gpu: &GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    let tag = device_tag(|| info.short_name());
    println!(
        "device: {info}; host: {} rayon threads",
        rayon::current_num_threads()
    );
    let cusparse = std::env::current_exe()
        .and_then(|exe| {
            std::process::Command::new(exe)
                .arg("--cusparse-probe")
                .status()
        })
        .map(|s| s.success())
        .unwrap_or(false);
    if !cusparse {
        println!("cuSPARSE unavailable: no vendor comparison");
    }
    let mut ctx = Ctx {
        gpu,
        tag,
        reps: args.common.reps,
        cusparse,
        records: Vec::new(),
        summary: Vec::new(),
    };
    let scale = if args.common.small { 0.01 } else { 1.0 };
    for s in &SEED_GRAPHS {
        if args.only.as_ref().is_some_and(|o| {
            !o.iter()
                .any(|n| n.replace('-', "_") == s.name.replace('-', "_"))
        }) {
            continue;
        }
        let sc = if s.n < 100_000 { 1.0 } else { scale };
        let t = Instant::now();
        let p = s.generate(sc, 2021).map_err(err)?;
        println!(
            "{}: stand-in n = {}, nnz = {} (thesis: n = {}, {} edges), generated in {:.1?}",
            s.name,
            p.nrows(),
            p.nnz(),
            s.n,
            s.edges,
            t.elapsed()
        );
        let label = s.label(sc);
        spmv_case(&mut ctx, s, &label, &p)?;
        let tc = tc_case(&mut ctx, s, &label, &p, args.f32)?;
        if args.peers {
            tc_peers(&mut ctx, s, &label, &p, &tc, args.peer_limit)?;
        }
        if matches!(s.shape, graph_catalog::Shape::PowerLaw { m: 10 }) {
            new_measures(&mut ctx, s, &label, &p)?;
        }
        if p.nnz() <= 4_000_000 {
            write_peer_inputs(&args.common.out, &label, &p, &tc)?;
        }
        write_records(&args.common.out, SUITE, &ctx.records)?;
        ctx.records.clear();
    }
    println!("\nsummary ({}):", ctx.tag);
    for line in &ctx.summary {
        println!("{line}");
    }
    Ok(())
}

fn spmv_case(ctx: &mut Ctx<'_>, s: &SeedGraph, label: &str, p: &PatternCsr<u32>) -> Res<()> {
    let g = ctx.gpu;
    let dev = g.device().clone();
    let n = p.nrows();
    let op = GpuPattern::from_pattern(g, p).map_err(err)?;
    let xh: Vec<f64> = (0..n)
        .map(|i| 1.0 + ((i * 7919) % 13) as f64 * 0.1)
        .collect();
    let x = g.upload(&xh).map_err(err)?;
    let mut y = g.zeros::<f64>(n).map_err(err)?;
    let mut want = vec![0.0; n];
    p.spmv(1.0, &xh, 0.0, &mut want).map_err(err)?;
    let t = time_median(&dev, 3, ctx.reps, || {
        op.apply_with(g, SpmvKernel::Auto, 1.0, &x, 0.0, &mut y)
    })?;
    let e = rel_diff(&g.to_host(&y).map_err(err)?, &want);
    let vendor = if ctx.cusparse {
        let ones: CsrMatrix<f64, u32> = p.with_values(1.0);
        let a = GpuCsr::from_csr(g, &ones).map_err(err)?;
        let tv = time_median(&dev, 3, ctx.reps, || {
            a.apply_with(g, SpmvKernel::Cusparse, 1.0, &x, 0.0, &mut y)
        })?;
        let mut r = ctx
            .record(&format!("spmv_pattern/{label}"), "cusparse", s, p)
            .extra("kernel", "cusparseSpMV on explicit ones")
            .extra("bytes", a.bytes_per_product(false));
        r.time_s = tv;
        r.reps = ctx.reps as u64;
        ctx.records.push(r);
        Some(tv)
    } else {
        None
    };
    let bytes = op.bytes_per_product::<f64>(false);
    let mut r = ctx
        .record(&format!("spmv_pattern/{label}"), "gpu", s, p)
        .error(e)
        .extra("kernel", format!("auto(vector{})", op.auto_lanes()))
        .extra("bytes", bytes)
        .extra("gbps", bytes as f64 / t / 1e9)
        .extra("max_degree", p.max_degree());
    r.time_s = t;
    r.reps = ctx.reps as u64;
    r.vendor_ratio = vendor.map(|v| v / t);
    ctx.records.push(r);
    ctx.summary.push(format!(
        "  {label:<22} spmv {:>9.1} µs ({:.0} GB/s), cuSPARSE/ours {}",
        t * 1e6,
        bytes as f64 / t / 1e9,
        vendor.map_or("-".into(), |v| format!("{:.2}", v / t))
    ));
    Ok(())
}

/// `times` sorted ascending, for [`median`].
fn sorted(mut times: Vec<f64>) -> Vec<f64> {
    times.sort_by(f64::total_cmp);
    times
}

/// One timed GPU run of `total_communicability` in precision S: median wall time of `runs`
/// runs after an untimed one, their count, the last result in f64 and its products.
fn tc_gpu<S: RealScalar, O: LinearOperator<GpuBackend, S>>(
    g: &GpuBackend,
    op: &O,
    opts: &CommunicabilityOptions,
    runs: usize,
) -> Res<(f64, usize, Vec<f64>, usize)> {
    let (times, (w, rep)) = time_wall_last(1, runs, || {
        let r = total_communicability(g, op, S::from_f64(1.0), opts).map_err(err)?;
        g.synchronize().map_err(err)?;
        Ok(r)
    })?;
    let times = sorted(times);
    let w: Vec<f64> = g
        .to_host(&w)
        .map_err(err)?
        .iter()
        .map(|x| x.to_c64().re)
        .collect();
    Ok((median(&times), times.len(), w, rep.matvecs))
}

fn tc_case(
    ctx: &mut Ctx<'_>,
    s: &SeedGraph,
    label: &str,
    p: &PatternCsr<u32>,
    f32_runs: bool,
) -> Res<Vec<f64>> {
    let g = ctx.gpu;
    let op = GpuPattern::from_pattern(g, p).map_err(err)?;
    let two_pass = s.k == 20;
    let opts = CommunicabilityOptions {
        two_pass,
        ..CommunicabilityOptions::fixed_dimension(s.k)
    };
    // First GPU run (kernel loading and allocations) not timed.
    let (tg, (w, rep)) = time_wall_last(1, 3, || {
        let r = total_communicability(g, &op, 1.0, &opts).map_err(err)?;
        g.synchronize().map_err(err)?;
        Ok(r)
    })?;
    let tg = sorted(tg);
    let wg = g.to_host(&w).map_err(err)?;
    let cpu = CpuBackend::new();
    let (tc_cpu, (wc, repc)) = time_wall_last(0, 2, || {
        total_communicability(&cpu, p, 1.0, &opts).map_err(err)
    })?;
    let tc_cpu = sorted(tc_cpu);
    let diff = rel_diff(&wg, &wc);
    let max = wc.iter().copied().fold(0.0, f64::max);
    let (tgm, tcm) = (median(&tg), median(&tc_cpu));
    let case = format!("tc/{label}_k{}", s.k);
    // The explicit ones cuSPARSE needs (f64 and, for the f32 runs, f32), built once.
    let ones = ctx.cusparse.then(|| p.with_values(1.0f64));
    let vendor = match &ones {
        Some(ones) => {
            let a = GpuCsr::from_csr(g, ones)
                .map_err(err)?
                .assume_hermitian(true);
            vendor_tc::<f64>(ctx, &case, &a, &opts, &wc)
        }
        None => None,
    };
    for (backend, t, times, r) in [("gpu", tgm, &tg, &rep), ("cpu", tcm, &tc_cpu, &repc)] {
        let mut rec = ctx
            .record(&case, backend, s, p)
            .matvecs(r.matvecs as u64)
            .extra("krylov_dim", s.k)
            .extra("two_pass", two_pass)
            .extra("max_entry", max)
            .extra("host_wall", true);
        rec.time_s = t;
        rec.reps = times.len() as u64;
        if backend == "gpu" {
            rec = rec
                .error(diff)
                .extra("error_vs", "cpu backend, same host")
                .extra("cpu_over_gpu", tcm / tgm)
                .extra("seed_speedup", s.seed_serial_s / s.seed_cuda_s);
            rec.vendor_ratio = vendor.as_ref().map(|v| v.0 / tgm);
        } else {
            rec = rec.extra("threads", rayon::current_num_threads());
        }
        ctx.records.push(rec);
    }
    if let Some((tv, reps, e, matvecs)) = vendor {
        let mut rec = ctx
            .record(&case, "cusparse", s, p)
            .matvecs(matvecs as u64)
            .error(e)
            .extra("krylov_dim", s.k)
            .extra("two_pass", two_pass)
            .extra("route", cusparse_route::ROUTE)
            .extra("error_vs", "cpu backend, same host")
            .extra("host_wall", true);
        rec.time_s = tv;
        rec.reps = reps as u64;
        ctx.records.push(rec);
        ctx.summary.push(format!(
            "  {label:<22} e^A·1 k={} over cuSPARSE's SpMV: {tv:.3} s ({:.2}× ours), rel. diff {e:.1e}",
            s.k,
            tv / tgm
        ));
    }
    if f32_runs {
        tc_f32(ctx, s, label, p, &op, ones.as_ref(), &opts, &wc, tcm)?;
    }
    ctx.summary.push(format!(
        "  {label:<22} e^A·1 k={}{}: GPU {tgm:.3} s, CPU {tcm:.3} s ({:.1}×), rel. diff {diff:.1e}, max {max:.2e}; thesis {:.3} s / {:.3} s",
        s.k,
        if two_pass { " two-pass" } else { "" },
        tcm / tgm,
        s.seed_cuda_s,
        s.seed_serial_s
    ));
    Ok(wc)
}

/// The vendor route of `case` in precision S: our Lanczos over cuSPARSE's SpMV on `a`
/// (explicit ones): median time, runs, error against `wc` (f64 CPU result), products; `None`
/// (said on stdout) if it fails.
fn vendor_tc<S: RealScalar>(
    ctx: &Ctx<'_>,
    case: &str,
    a: &GpuCsr<S>,
    opts: &CommunicabilityOptions,
    wc: &[f64],
) -> Option<(f64, usize, f64, usize)> {
    match tc_gpu::<S, _>(ctx.gpu, &CusparseRoute(a), opts, 3) {
        Ok((t, reps, w, matvecs)) => Some((t, reps, rel_diff(&w, wc), matvecs)),
        Err(e) => {
            println!("  {case} {}: Lanczos over cuSPARSE failed: {e}", S::NAME);
            None
        }
    }
}

/// The thesis's single-precision run (Fig. 30, 31): `tc/<graph>_k<k>` in f32 on the GPU, ours
/// and (when ours stays finite) the vendor route, errors against the f64 CPU result `wc`.
#[allow(clippy::too_many_arguments)]
fn tc_f32(
    ctx: &mut Ctx<'_>,
    s: &SeedGraph,
    label: &str,
    p: &PatternCsr<u32>,
    op: &GpuPattern,
    ones: Option<&CsrMatrix<f64, u32>>,
    opts: &CommunicabilityOptions,
    wc: &[f64],
    t_cpu: f64,
) -> Res<()> {
    let case = format!("tc/{label}_k{}", s.k);
    let base = |ctx: &Ctx<'_>, backend: &str| {
        let mut r = ctx
            .record(&case, backend, s, p)
            .extra("krylov_dim", s.k)
            .extra("two_pass", opts.two_pass)
            .extra("error_vs", "ours, CPU backend in f64, same host")
            .extra("host_wall", true);
        r.precision = "f32".into();
        r
    };
    // The seed's fixed k with the tolerance at f32's roundoff (f64's is below what f32 can
    // be asked for).
    let opts = &CommunicabilityOptions {
        rtol: f64::from(f32::EPSILON),
        ..*opts
    };
    let start = Instant::now();
    let ours = match tc_gpu::<f32, _>(ctx.gpu, op, opts, 3) {
        Ok(v) => v,
        Err(e) => {
            // e^A·1 beyond the f32 range (the thesis's NaN): the failure is the result.
            println!("  {label:<22} e^A·1 k={} f32: failed: {e}", s.k);
            let mut r = base(ctx, "gpu").extra("failed", e);
            r.time_s = start.elapsed().as_secs_f64();
            r.reps = 1;
            ctx.records.push(r);
            return Ok(());
        }
    };
    let (t, reps, w, matvecs) = ours;
    let e = rel_diff(&w, wc);
    let vendor = match ones {
        Some(ones) => {
            let vals: Vec<f32> = ones.values().iter().map(|&v| v as f32).collect();
            let a = GpuCsr::from_parts(
                ctx.gpu,
                ones.nrows(),
                ones.ncols(),
                ones.row_ptr(),
                ones.col_idx(),
                &vals,
            )
            .map_err(err)?
            .assume_hermitian(true);
            vendor_tc::<f32>(ctx, &case, &a, opts, wc)
        }
        None => None,
    };
    let mut r = base(ctx, "gpu")
        .matvecs(matvecs as u64)
        .error(e)
        .extra("cpu_f64_over_gpu_f32", t_cpu / t);
    r.time_s = t;
    r.reps = reps as u64;
    r.vendor_ratio = vendor.as_ref().map(|v| v.0 / t);
    ctx.records.push(r);
    if let Some((tv, reps, ev, matvecs)) = vendor {
        let mut r = base(ctx, "cusparse")
            .matvecs(matvecs as u64)
            .error(ev)
            .extra("route", cusparse_route::ROUTE);
        r.time_s = tv;
        r.reps = reps as u64;
        ctx.records.push(r);
    }
    ctx.summary.push(format!(
        "  {label:<22} e^A·1 k={} f32: GPU {t:.3} s ({:.1}× the f64 CPU run), rel. diff to f64 {e:.1e}{}",
        s.k,
        t_cpu / t,
        vendor.map_or(String::new(), |v| format!(", cuSPARSE route {:.3} s", v.0))
    ));
    Ok(())
}

/// SciPy's expm_multiply(A, 1) on the host CPU and its algorithm over CuPy on the GPU, at
/// SciPy's accuracy, beside `tc/<graph>_k<k>` (`wc`: our CPU backend's result).
fn tc_peers(
    ctx: &mut Ctx<'_>,
    s: &SeedGraph,
    label: &str,
    p: &PatternCsr<u32>,
    wc: &[f64],
    limit: f64,
) -> Res<()> {
    let case = format!("tc/{label}_k{}", s.k);
    let scratch = gpu_peer::Scratch::new("graph")?;
    gpu_peer::write_u32(&scratch.path("a.indptr"), p.row_ptr().iter().copied())?;
    gpu_peer::write_u32(&scratch.path("a.indices"), p.col_idx().iter().copied())?;
    gpu_peer::write_f64(&scratch.path("v.bin"), &vec![1.0; p.nrows()])?;
    let args = vec![
        scratch.0.display().to_string(),
        "--t=1".into(),
        "--pattern".into(),
        "--reps".into(),
        "3".into(),
        "--time-limit".into(),
        format!("{limit}"),
    ];
    let Some(answer) = gpu_peer::run_or_report(
        SUITE,
        "expm_multiply",
        &case,
        &scratch,
        gpu_peer::EXPM_MULTIPLY,
        &args,
        std::time::Duration::from_secs_f64(2.0 * limit + 300.0),
    ) else {
        return Ok(());
    };
    for r in answer["results"].as_array().into_iter().flatten() {
        let (Some(backend), Some(pt)) = (r["backend"].as_str(), r["time_s"].as_f64()) else {
            continue;
        };
        let w = match gpu_peer::read_f64(&scratch.path(&format!("w_{backend}.bin"))) {
            Ok(w) if w.len() == wc.len() => w,
            Ok(w) => {
                eprintln!(
                    "{SUITE}: peer {backend} of {case} returned {} values, not {}; not recorded",
                    w.len(),
                    wc.len()
                );
                continue;
            }
            Err(e) => {
                eprintln!("{SUITE}: peer {backend} of {case} not recorded: {e}");
                continue;
            }
        };
        let ours_backend = if backend == "scipy" { "cpu" } else { "gpu" };
        let ours_t = ctx
            .records
            .iter()
            .find(|o| o.case == case && o.backend == ours_backend)
            .map(|o| o.time_s);
        let mut rec = ctx
            .record(&case, backend, s, p)
            .error(rel_diff(&w, wc))
            .extra("error_vs", "ours, CPU backend (Lanczos k as in the thesis)")
            .extra(
                "peer_accuracy",
                "SciPy's unit roundoff 2^-53 (no tolerance to set)",
            )
            .extra("host_wall", true);
        rec.time_s = pt;
        rec.reps = r["reps"].as_u64().unwrap_or(1);
        rec.matvecs = r["products"].as_u64();
        rec.peer_ratio = ours_t.map(|o| pt / o);
        if ours_t.is_some() {
            rec = rec.extra("peer_ratio_vs", format!("ours ({ours_backend}), same run"));
        }
        for key in [
            "library",
            "what",
            "one_product_s",
            "host_cores",
            "m_star",
            "s",
            "norm_estimate_products",
        ] {
            if !r[key].is_null() {
                rec = rec.extra(key, r[key].clone());
            }
        }
        ctx.summary.push(format!(
            "  {label:<22} e^A·1 peer {backend}: {pt:.3} s, rel. diff {:.1e}, peer/ours({ours_backend}) {}",
            rec.error.unwrap_or(f64::NAN),
            rec.peer_ratio.map_or("-".into(), |q| format!("{q:.2}"))
        ));
        ctx.records.push(rec);
    }
    Ok(())
}

fn new_measures(ctx: &mut Ctx<'_>, s: &SeedGraph, label: &str, p: &PatternCsr<u32>) -> Res<()> {
    let g = ctx.gpu;
    let op = GpuPattern::from_pattern(g, p).map_err(err)?;
    let cpu = CpuBackend::new();
    let quad = QuadratureOptions {
        rtol: 1e-10,
        ..Default::default()
    };
    let probes = ProbeOptions::default();
    let (tg, eg) = time_wall_last(0, 1, || {
        estrada_index_hutchpp::<_, f64, _>(g, &op, 1.0, &probes, &quad).map_err(err)
    })?;
    let (tc, ec) = time_wall_last(0, 1, || {
        estrada_index_hutchpp::<_, f64, _>(&cpu, p, 1.0, &probes, &quad).map_err(err)
    })?;
    for (backend, t, e) in [("gpu", tg[0], eg), ("cpu", tc[0], ec)] {
        let (lo, hi) = e.interval();
        let mut r = ctx
            .record(&format!("estrada_hutchpp/{label}"), backend, s, p)
            .matvecs(e.matvecs as u64)
            .extra("ln_value", e.ln_value())
            .extra("interval_rel_width", (hi - lo) / e.value())
            .extra("probes", probes.probes)
            .extra("sketch", probes.sketch);
        r.time_s = t;
        r.reps = 1;
        ctx.records.push(r);
    }
    ctx.summary.push(format!(
        "  {label:<22} Estrada (Hutch++): GPU {:.3} s, CPU {:.3} s, ln EE {:.6} vs {:.6}",
        tg[0],
        tc[0],
        eg.ln_value(),
        ec.ln_value()
    ));
    let (wc, _) =
        total_communicability(&cpu, p, 1.0, &CommunicabilityOptions::default()).map_err(err)?;
    let top: Vec<usize> = top_k(&wc, 10).map_err(err)?.iter().map(|x| x.0).collect();
    let (tg, sg) = time_wall_last(0, 1, || {
        subgraph_centrality_quadrature::<_, f64, _>(g, &op, 1.0, &top, &quad, false).map_err(err)
    })?;
    let (tc, scc) = time_wall_last(0, 1, || {
        subgraph_centrality_quadrature::<_, f64, _>(&cpu, p, 1.0, &top, &quad, true).map_err(err)
    })?;
    let a: Vec<f64> = sg.iter().map(|f| f.value()).collect();
    let b: Vec<f64> = scc.iter().map(|f| f.value()).collect();
    for (backend, t) in [("gpu", tg[0]), ("cpu", tc[0])] {
        let mut r = ctx
            .record(&format!("sc_exact_top10/{label}"), backend, s, p)
            .matvecs(sg.iter().map(|f| f.steps as u64).sum());
        if backend == "gpu" {
            r = r.error(rel_diff(&a, &b)).extra("error_vs", "cpu backend");
        }
        r.time_s = t;
        r.reps = 1;
        ctx.records.push(r);
    }
    Ok(())
}

/// The graph as MatrixMarket and this run's e^{A}·1 (one value per line) for the networkx
/// peer.
fn write_peer_inputs(out: &Path, label: &str, p: &PatternCsr<u32>, tc: &[f64]) -> Res<()> {
    let dir = out.join("graphs");
    std::fs::create_dir_all(&dir).map_err(err)?;
    write_pattern_file(
        dir.join(format!("{label}.mtx")),
        p,
        Symmetry::Symmetric,
        &[label],
    )
    .map_err(err)?;
    let mut f = std::fs::File::create(dir.join(format!("{label}.tc.txt"))).map_err(err)?;
    for v in tc {
        writeln!(f, "{v:e}").map_err(err)?;
    }
    Ok(())
}
