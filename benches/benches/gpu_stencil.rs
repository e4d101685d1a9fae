//! GPU benchmarks of the matrix-free stencils (matexp-stencil): seed 003's Tables I (one
//! (αA+βI)x product with every boundary treatment; naive, optimized and streaming kernels),
//! II (the position-dependent coefficient) and III (the combustion source, full and fast,
//! also on the host CPU), the fused shifted step, against a device-to-device copy measured
//! in the same run.
//!
//! Not a criterion benchmark: CUDA events around each run after warm-up, median of many.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_stencil -- [--out DIR] [--small] [--reps N]
//!     [--no-e2e] [--only SUBSTR,SUBSTR,...] [--no-peers] [--peer-time-limit S]
//!     [--prefetch PLANES]
//! ```
//!
//! Cases `*_march_pf<P>` (Table I's Dirichlet and periodic rows, the fused step) and the
//! seed-000 runs of backend `gpu/pf` (prefetch `--prefetch`, default 4) time the streaming
//! kernels with `GpuStencil::with_l2_prefetch`.
//!
//! `--only` keeps the cases whose name contains one of the substrings (e.g.
//! `--only table1_dirichlet_,fused_step,copy_dtod --no-e2e`: Table I's homogeneous Dirichlet
//! rows, the fused step and the copies that define their floors).
//!
//! Figures per record: `time_s`; `floor_ratio` = time / (bytes that must move / copy
//! bandwidth), the bytes being one read of x and one write of y (plus a coefficient field
//! where there is one, and x, p read and y, p written for the fused step), the bandwidth
//! that of a 2 GiB device-to-device copy of the same run (the issue's floor);
//! `extra.same_size_ratio` = time / (bytes / bandwidth of a device-to-device copy of one
//! n³ vector of the same precision, same run): launch, ramp-up and tail at this size count
//! in that floor, so it is the fairer one for a single product, and both are recorded
//! (`copy_dtod_n<N>` records give the copy itself); `extra.gflops` = 10·n/t as the seed
//! defines it; `extra.seed_ms` = the seed's C2075 figure for the same case. Table I, the
//! fused step and the same-size copies are also timed back to back (ten runs per event pair,
//! as a solver queues its products; an isolated run's time also holds the host's
//! submission of its launch): `extra.back_to_back_s`, `extra.back_to_back_floor_ratio` (to the
//! 2 GiB copy) and `extra.back_to_back_same_size_ratio` (to the same-size copy timed so). Also seed 000's Tables 11 and 12 (the heat equation u' = Δu on the unit cube,
//! u₀ = sin(2πx), e^{tA}u₀ at tol 1e−5) by Leja interpolation (case
//! `<table>_laplace_N<m>_t<t>`) and by Lanczos (case `<table>_laplace_N<m>_t<t>_lanczos`)
//! with the stencil and, in the same binary, the assembled CSR matrix, against the exact
//! separable solution (skip with `--no-e2e`; `--only T12_laplace` runs Table 12 alone,
//! `--only _lanczos` the Lanczos runs alone); records differ in backend (`gpu` for the
//! stencil, `gpu/csr` for the matrix) and case (the method), records being keyed by suite,
//! case, backend, precision and device; `extra.seed_s` is the seed's figure for the
//! operator, `extra.target_s` the issue's target (Table 12 on the stencil). Exit status 3
//! means no GPU.
//!
//! Peers (on by default, each bounded by `--peer-time-limit` seconds, default 120; skipped
//! with `--no-peers`; a peer that cannot run records nothing and says why on stderr):
//! * Table III: g(u) as a torch and a CuPy elementwise expression on the GPU and a NumPy one
//!   on the host CPU, f64 and f32, same input (`benches/peers/pointwise_peers.py`), backends
//!   `torch`, `cupy`, `numpy` in the `table3_combustion_full_<n>` cases (the peers have no
//!   fast-math variant), `error` = max |Δ| / max |ours| against our f64 result,
//!   `peer_ratio` = peer time / ours (GPU peers: ours on the GPU; NumPy: ours on the CPU);
//! * Tables 11 and 12 (f64): SciPy's expm_multiply on the host CPU (backend `scipy`) and its
//!   algorithm over CuPy's CSR on the GPU (backend `cupy`) for the same matrix and vector
//!   (`benches/peers/expm_multiply_peers.py`), both at SciPy's accuracy (2⁻⁵³), `error`
//!   against the exact solution; ours is run once more at tol 1e−12 (case
//!   `<case>_tol1e-12`) so that `peer_ratio` compares equal accuracy (`extra.ratio_tol1e-5`:
//!   against the tol 1e−5 run).

#[path = "common/gpu_peer.rs"]
mod gpu_peer;

use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, floor_ratio, gpu_or_exit, measure_floor,
    median, parse_value, time_batched, time_runs, write_records,
};
use matexp_core::{Backend, OperatorSteps, RealScalar, ShiftedStep};
use matexp_gpu::rt::DeviceElement;
use matexp_gpu::{DeviceBuffer, GpuBackend, GpuVector};
use matexp_stencil::gpu::{BoundaryEval, GpuStencil, StencilKernel, pointwise, queue_pointwise};
use matexp_stencil::{Boundary, BoundaryFunction, Coefficient, Dim, Pointwise, Stencil};
use std::time::Instant;

const SUITE: &str = "gpu_stencil";

struct Args {
    common: CommonArgs,
    e2e: bool,
    only: Vec<String>,
    peers: bool,
    peer_limit: f64,
    prefetch: u32,
}

fn parse_args() -> Args {
    let (mut e2e, mut peers, mut peer_limit, mut prefetch) = (true, true, 120.0, 4);
    let mut only = Vec::new();
    let common = CommonArgs::parse(30, |flag, it| match flag {
        "--no-e2e" => e2e = false,
        "--prefetch" => prefetch = parse_value(it, prefetch),
        "--no-peers" => peers = false,
        "--peer-time-limit" => peer_limit = parse_value(it, peer_limit),
        "--only" => only.extend(
            it.next()
                .unwrap_or_default()
                .split(',')
                .filter(|f| !f.is_empty())
                .map(String::from),
        ),
        _ => {}
    });
    Args {
        common,
        e2e,
        only,
        peers,
        peer_limit,
        prefetch,
    }
}

/// Fresh pseudo-random inputs in [0.05, 1.95] (never zeros; inside the source's range).
fn inputs<S: RealScalar>(n: usize, seed: u64) -> Vec<S> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            S::from_f64(1.0 + 0.95 * ((z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0))
        })
        .collect()
}

struct Ctx {
    gpu: GpuBackend,
    tag: String,
    copy_bw: f64,
    /// Bandwidth of a device-to-device copy of one n³ vector of the precision being timed
    /// (bytes read + written per second), 0 until measured.
    same_bw: f64,
    /// The same copy's bandwidth timed back to back ([`BATCH`] copies per event pair).
    same_bw_b2b: f64,
    reps: usize,
    only: Vec<String>,
    peers: bool,
    peer_limit: f64,
    /// L2 prefetch distance of the seed-000 runs' `gpu/pf` variant.
    prefetch: u32,
    records: Vec<Record>,
    summary: Vec<String>,
}

impl Ctx {
    /// Whether `--only` keeps `case`.
    fn wants(&self, case: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|f| case.contains(f.as_str()))
    }

    /// Stores a timed record with the seed's figures and ratios.
    fn push(
        &mut self,
        case: &str,
        backend: &str,
        precision: &str,
        points: usize,
        times: &[f64],
        bytes: f64,
        seed_ms: Option<f64>,
        extra: &[(&str, String)],
    ) {
        let t = median(times);
        let mut r = Record::new(SUITE, case, backend, precision);
        r.device = self.tag.clone();
        r.time_s = t;
        r.reps = times.len() as u64;
        r = r
            .size("n", points)
            .size("axis", (points as f64).cbrt().round() as u64);
        let same = (backend == "gpu" && self.same_bw > 0.0 && bytes > 0.0)
            .then(|| floor_ratio(t, bytes, self.same_bw));
        if backend == "gpu" {
            r.floor_ratio = Some(floor_ratio(t, bytes, self.copy_bw));
        }
        if let Some(q) = same {
            r = r
                .extra("same_size_ratio", q)
                .extra("same_size_copy_gbps", self.same_bw / 1e9);
        }
        r = r
            .extra("bytes", bytes)
            .extra("gbps", bytes / t / 1e9)
            .extra("copy_gbps", self.copy_bw / 1e9)
            .extra("gflops", 10.0 * points as f64 / t / 1e9)
            .extra("min_s", times.first().copied().unwrap_or(t));
        if let Some(s) = seed_ms {
            r = r.extra("seed_ms", s).extra("seed_device", "C2075");
        }
        for (k, v) in extra {
            r = r.extra(k, v.clone());
        }
        self.summary.push(format!(
            "{:<44} {:<7} {:<4} {:>10.3} {:>8.1} {:>7} {:>7} {:>8}",
            case,
            backend,
            precision,
            t * 1e3,
            10.0 * points as f64 / t / 1e9,
            r.floor_ratio.map_or("-".into(), |f| format!("{f:.2}")),
            same.map_or("-".into(), |f| format!("{f:.2}")),
            seed_ms.map_or("-".into(), |s| format!("{s}")),
        ));
        self.records.push(r);
    }

    /// Adds to the last record the time per run of [`BATCH`] runs queued back to back
    /// (`extra.back_to_back_s`; see `time_batched`) and its ratios to the 2 GiB copy's floor
    /// and to the same-size copy timed the same way.
    fn back_to_back(&mut self, bytes: f64, batched: &[f64]) {
        let Some(r) = self.records.pop() else {
            return;
        };
        let t = median(batched);
        let mut r = r.extra("back_to_back_s", t).extra(
            "back_to_back_floor_ratio",
            floor_ratio(t, bytes, self.copy_bw),
        );
        if self.same_bw_b2b > 0.0 {
            r = r.extra(
                "back_to_back_same_size_ratio",
                floor_ratio(t, bytes, self.same_bw_b2b),
            );
        }
        if let Some(line) = self.summary.last_mut() {
            line.push_str(&format!(
                "  b2b {:.3} ms ({:.2}×)",
                t * 1e3,
                floor_ratio(t, bytes, self.copy_bw)
            ));
        }
        self.records.push(r);
    }
}

/// Runs per event pair of the back-to-back timings.
const BATCH: usize = 10;

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit("gpu_stencil");
    exit_on_failure("gpu_stencil", run(gpu, &args));
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
        same_bw: 0.0,
        same_bw_b2b: 0.0,
        reps: args.common.reps,
        only: args.only.clone(),
        peers: args.peers,
        peer_limit: args.peer_limit,
        prefetch: args.prefetch,
        records: Vec::new(),
        summary: Vec::new(),
    };
    let (n, n_big) = if args.common.small {
        (64, 96)
    } else {
        (256, 512)
    };
    same_size_copy::<f64>(&mut ctx, n)?;
    table_1::<f64>(&mut ctx, n)?;
    table_2::<f64>(&mut ctx, n)?;
    fused_step::<f64>(&mut ctx, n)?;
    same_size_copy::<f32>(&mut ctx, n)?;
    table_1::<f32>(&mut ctx, n)?;
    table_2::<f32>(&mut ctx, n)?;
    fused_step::<f32>(&mut ctx, n)?;
    for m in [n, n_big] {
        same_size_copy::<f64>(&mut ctx, m)?;
        table_3::<f64>(&mut ctx, m)?;
        same_size_copy::<f32>(&mut ctx, m)?;
        table_3::<f32>(&mut ctx, m)?;
        if ctx.peers {
            table_3_peers(&mut ctx, m)?;
        }
    }
    ctx.same_bw = 0.0;
    write_records(&args.common.out, SUITE, &ctx.records)?;
    ctx.records.clear();
    if args.e2e {
        let cases: [(usize, f64, &str); 2] = if args.common.small {
            [(32, 0.1, "T11"), (48, 0.01, "T12")]
        } else {
            [(128, 0.1, "T11"), (256, 0.01, "T12")]
        };
        for (m, t, table) in cases {
            // Cases `<table>_laplace_N<m>_t<t>` (Leja) and `…_lanczos`: a table nobody asked
            // for is not set up (N = 256 builds a 117 M-entry matrix).
            if !ctx.wants(&format!("{table}_laplace_N{m}_t{t}_lanczos")) {
                continue;
            }
            seed000::<f64>(&mut ctx, m, t, table)?;
            seed000::<f32>(&mut ctx, m, t, table)?;
            write_records(&args.common.out, SUITE, &ctx.records)?;
            ctx.records.clear();
        }
    }
    println!(
        "\n{:<44} {:<7} {:<4} {:>10} {:>8} {:>7} {:>7} {:>8}",
        "case", "bk", "prec", "ms", "GFlop/s", "floor×", "same×", "seed ms"
    );
    println!(
        "floor×: to the 2 GiB copy's bandwidth ({:.0} GB/s, the issue's floor); same×: to a copy \
         of one vector of the row's size and precision, same run",
        ctx.copy_bw / 1e9
    );
    for l in &ctx.summary {
        println!("{l}");
    }
    Ok(())
}

/// Device-to-device copy (cuMemcpyDtoD) of one n³ vector of `S`, timed as the kernels are:
/// sets the same-size floor of the records that follow and records the copy itself (its
/// `floor_ratio` is its time over the 2 GiB copy's).
fn same_size_copy<S: RealScalar + DeviceElement>(ctx: &mut Ctx, n: usize) -> Res<()> {
    let points = n * n * n;
    let bytes = points * std::mem::size_of::<S>();
    let dev = ctx.gpu.device();
    let src = DeviceBuffer::<u8>::zeros(dev, bytes).map_err(err)?;
    let mut dst = DeviceBuffer::<u8>::zeros(dev, bytes).map_err(err)?;
    let mut copy = || dst.copy_from(&src);
    let times = time_runs(dev, 3, ctx.reps, &mut copy)?;
    let batched = time_batched(dev, 1, ctx.reps, BATCH, &mut copy)?;
    let moved = 2.0 * bytes as f64;
    let case = format!("copy_dtod_n{n}");
    ctx.same_bw = 0.0;
    ctx.same_bw_b2b = 0.0;
    if ctx.wants(&case) {
        ctx.push(
            &case,
            "gpu",
            S::NAME,
            points,
            &times,
            moved,
            None,
            &[("what", "cuMemcpyDtoD of one vector".into())],
        );
        ctx.back_to_back(moved, &batched);
    }
    ctx.same_bw = moved / median(&times);
    ctx.same_bw_b2b = moved / median(&batched);
    Ok(())
}

/// Kernels timed in Tables I and II, with their record names.
/// Prefetch distances (planes beyond the register ring) measured beside the default (none).
const PREFETCH_PLANES: [u32; 3] = [2, 4, 8];

/// The variants timed for one case: each of `kernels` (suffix its name, no prefetch) and,
/// with `prefetch`, the streaming kernel with each distance of [`PREFETCH_PLANES`] (suffix
/// `march_pf<P>`).
fn kernel_variants(
    kernels: &[(StencilKernel, &str)],
    prefetch: bool,
) -> Vec<(StencilKernel, String, u32)> {
    let mut v: Vec<_> = kernels
        .iter()
        .map(|&(k, name)| (k, name.to_string(), 0))
        .collect();
    if prefetch {
        v.extend(
            PREFETCH_PLANES
                .iter()
                .map(|&pf| (StencilKernel::Marching, format!("march_pf{pf}"), pf)),
        );
    }
    v
}

/// A variant's record extras: its kernel (`march` for the prefetch variants), the prefetch
/// distance where there is one, then `rest`.
fn variant_extra(
    kname: &str,
    pf: u32,
    rest: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let kernel = if pf > 0 { "march" } else { kname };
    let mut v = vec![("kernel", kernel.to_string())];
    if pf > 0 {
        v.push(("l2_prefetch_planes", pf.to_string()));
    }
    v.extend(rest.iter().cloned());
    v
}

const KERNELS: [(StencilKernel, &str); 3] = [
    (StencilKernel::Naive, "naive"),
    (StencilKernel::Optimized, "opt"),
    (StencilKernel::Marching, "march"),
];

/// Seed 003 Table I, C2075 column (ms): (naive, optimized) for double and single.
fn seed_table_1(case: &str, naive: bool, double: bool) -> Option<f64> {
    let (d, s) = match (case, naive) {
        ("none", true) => (5.5, 3.1),
        ("none", false) => (4.3, 2.9),
        ("dirichlet", true) => (6.0, 3.5),
        ("dirichlet", false) => (5.0, 3.9),
        ("polynomial", true) => (12.3, 6.9),
        ("polynomial", false) => (7.0, 6.0),
        ("sine_exp", true) => (14.3, 13.8),
        ("sine_exp", false) => (9.7, 6.8),
        _ => return None,
    };
    Some(if double { d } else { s })
}

/// Table I: one (αA+βI)x product at n³ for every boundary treatment and both kernels.
fn table_1<S: RealScalar + DeviceElement>(ctx: &mut Ctx, n: usize) -> Res<()> {
    let points = n * n * n;
    let x: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 1)).map_err(err)?;
    let mut y: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 2)).map_err(err)?;
    let bytes = 2.0 * (points * std::mem::size_of::<S>()) as f64;
    let cases: [(&str, Boundary, BoundaryFunction, BoundaryEval); 8] = [
        (
            "none",
            Boundary::Frame,
            BoundaryFunction::Zero,
            BoundaryEval::Precomputed,
        ),
        (
            "dirichlet",
            Boundary::Dirichlet,
            BoundaryFunction::Zero,
            BoundaryEval::Precomputed,
        ),
        (
            "neumann",
            Boundary::Neumann,
            BoundaryFunction::Zero,
            BoundaryEval::Precomputed,
        ),
        (
            "periodic",
            Boundary::Periodic,
            BoundaryFunction::Zero,
            BoundaryEval::Precomputed,
        ),
        (
            "polynomial",
            Boundary::Dirichlet,
            BoundaryFunction::Polynomial,
            BoundaryEval::InKernel,
        ),
        (
            "sine_exp",
            Boundary::Dirichlet,
            BoundaryFunction::SineExp,
            BoundaryEval::InKernel,
        ),
        (
            "polynomial_b",
            Boundary::Dirichlet,
            BoundaryFunction::Polynomial,
            BoundaryEval::Precomputed,
        ),
        (
            "sine_exp_b",
            Boundary::Dirichlet,
            BoundaryFunction::SineExp,
            BoundaryEval::Precomputed,
        ),
    ];
    for (name, bc, f, eval) in cases {
        // The streaming kernel's L2 prefetch is timed for the boundaries without in-kernel
        // functions.
        let variants = kernel_variants(&KERNELS, matches!(name, "dirichlet" | "periodic"));
        if !variants
            .iter()
            .any(|(_, k, _)| ctx.wants(&format!("table1_{name}_{k}")))
        {
            continue;
        }
        let op = Stencil::<S>::builder(Dim::Three, n)
            .boundary(bc)
            .boundary_values(f)
            .build()
            .map_err(err)?;
        for (kernel, kname, pf) in variants {
            let case = format!("table1_{name}_{kname}");
            if !ctx.wants(&case) {
                continue;
            }
            let dev = GpuStencil::new(&ctx.gpu, &op)
                .map_err(err)?
                .with_kernel(kernel)
                .with_boundary_eval(eval)
                .with_l2_prefetch(pf);
            let mut product = || dev.apply_shifted_affine(S::from_f64(1e-6), S::one(), &x, &mut y);
            let times = time_runs(ctx.gpu.device(), 3, ctx.reps, &mut product)?;
            let batched = time_batched(ctx.gpu.device(), 1, ctx.reps, BATCH, &mut product)?;
            let seed = (pf == 0)
                .then(|| seed_table_1(name, kernel == StencilKernel::Naive, S::NAME == "f64"))
                .flatten();
            ctx.push(
                &case,
                "gpu",
                S::NAME,
                points,
                &times,
                bytes,
                seed,
                &variant_extra(&kname, pf, &[("boundary", name.into())]),
            );
            ctx.back_to_back(bytes, &batched);
        }
    }
    Ok(())
}

/// Table II: D·Δu with the seed's D = 1/√(1+x²+y²) evaluated in the kernel, and with D
/// read from a field (one more stream of n values).
fn table_2<S: RealScalar + DeviceElement>(ctx: &mut Ctx, n: usize) -> Res<()> {
    if !ctx.wants("table2_") {
        return Ok(());
    }
    let points = n * n * n;
    let x: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 3)).map_err(err)?;
    let mut y: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 4)).map_err(err)?;
    let size = (points * std::mem::size_of::<S>()) as f64;
    let seed = Stencil::<S>::builder(Dim::Three, n)
        .coefficient(Coefficient::Seed)
        .build()
        .map_err(err)?;
    let field = Stencil::<S>::builder(Dim::Three, n)
        .coefficient(Coefficient::function(Coefficient::<f64>::seed))
        .build()
        .map_err(err)?;
    let seed_ms = |naive: bool| match (naive, S::NAME == "f64") {
        (true, true) => 10.7,
        (true, false) => 10.2,
        (false, true) => 10.5,
        (false, false) => 10.3,
    };
    for (name, op, bytes) in [
        ("seed_d", &seed, 2.0 * size),
        ("field_d", &field, 3.0 * size),
    ] {
        for (kernel, kname) in KERNELS {
            if !ctx.wants(&format!("table2_{name}_{kname}")) {
                continue;
            }
            let dev = GpuStencil::new(&ctx.gpu, op)
                .map_err(err)?
                .with_kernel(kernel);
            let times = time_runs(ctx.gpu.device(), 3, ctx.reps, || {
                dev.apply_shifted(S::from_f64(1e-6), S::one(), &x, &mut y)
            })?;
            let naive = kernel == StencilKernel::Naive;
            ctx.push(
                &format!("table2_{name}_{kname}"),
                "gpu",
                S::NAME,
                points,
                &times,
                bytes,
                (name == "seed_d").then(|| seed_ms(naive)),
                &[("kernel", kname.into())],
            );
        }
    }
    Ok(())
}

/// The fused step (product + update + norm) of the f(tA)v solvers, homogeneous Dirichlet:
/// x and p read, y and p written, with the optimized and the streaming kernel; with and
/// without waiting for the norm (the default kernel).
fn fused_step<S: RealScalar + DeviceElement>(ctx: &mut Ctx, n: usize) -> Res<()> {
    if !ctx.wants("fused_step_dirichlet") {
        return Ok(());
    }
    let points = n * n * n;
    let op = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet).map_err(err)?;
    let x: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 5)).map_err(err)?;
    let mut y: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 6)).map_err(err)?;
    let mut p: GpuVector<S> = ctx.gpu.upload(&inputs::<S>(points, 7)).map_err(err)?;
    let step = ShiftedStep {
        alpha: S::from_f64(1e-6),
        shift: S::from_f64(0.5),
        coeff: S::from_f64(1e-3),
    };
    let bytes = 4.0 * (points * std::mem::size_of::<S>()) as f64;
    let kernels = [
        (StencilKernel::Optimized, "opt"),
        (StencilKernel::Marching, "march"),
    ];
    for (kernel, kname, pf) in kernel_variants(&kernels, true) {
        let case = format!("fused_step_dirichlet_{kname}");
        if !ctx.wants(&case) {
            continue;
        }
        let dev = GpuStencil::new(&ctx.gpu, &op)
            .map_err(err)?
            .with_kernel(kernel)
            .with_l2_prefetch(pf);
        let mut fused = || dev.queue_step(&step, &x, &mut y, &mut p);
        let times = time_runs(ctx.gpu.device(), 3, ctx.reps, &mut fused)?;
        let batched = time_batched(ctx.gpu.device(), 1, ctx.reps, BATCH, &mut fused)?;
        ctx.push(
            &case,
            "gpu",
            S::NAME,
            points,
            &times,
            bytes,
            None,
            &variant_extra(&kname, pf, &[("norm", "left on the device".into())]),
        );
        ctx.back_to_back(bytes, &batched);
    }
    if !ctx.wants("fused_step_dirichlet_norm_read") {
        return Ok(());
    }
    let dev = GpuStencil::new(&ctx.gpu, &op).map_err(err)?;
    let times = time_runs(ctx.gpu.device(), 3, ctx.reps, || {
        dev.shifted_step(&ctx.gpu, &step, &x, &mut y, &mut p)
            .map(|_| ())
    })?;
    ctx.push(
        "fused_step_dirichlet_norm_read",
        "gpu",
        S::NAME,
        points,
        &times,
        bytes,
        None,
        &[
            ("norm", "copied to the host".into()),
            ("kernel", format!("{:?}", dev.kernel())),
        ],
    );
    Ok(())
}

/// Table III: the combustion source at n³, full and fast, on the GPU and on the host CPU.
fn table_3<S: RealScalar + DeviceElement>(ctx: &mut Ctx, n: usize) -> Res<()> {
    if !ctx.wants(&format!("table3_combustion_full_{n}"))
        && !ctx.wants(&format!("table3_combustion_fast_{n}"))
    {
        return Ok(());
    }
    let points = n * n * n;
    let host = inputs::<S>(points, 8);
    let x: GpuVector<S> = ctx.gpu.upload(&host).map_err(err)?;
    let mut y: GpuVector<S> = ctx.gpu.zeros::<S>(points).map_err(err)?;
    let bytes = 2.0 * (points * std::mem::size_of::<S>()) as f64;
    let big = n > 300;
    let double = S::NAME == "f64";
    // Seed Table III, C2075 (ms): full 4.2/33 (double), 2.6/34 (single); fast 2.4/20, 1.6/19.
    let seed_ms = |fast: bool| match (fast, double, big) {
        (false, true, false) => 4.2,
        (false, true, true) => 33.0,
        (false, false, false) => 2.6,
        (false, false, true) => 34.0,
        (true, true, false) => 2.4,
        (true, true, true) => 20.0,
        (true, false, false) => 1.6,
        (true, false, true) => 19.0,
    };
    for f in [Pointwise::Combustion, Pointwise::CombustionFast] {
        let fast = f == Pointwise::CombustionFast;
        let name = if fast { "fast" } else { "full" };
        if !ctx.wants(&format!("table3_combustion_{name}_{n}")) {
            continue;
        }
        let mut flag =
            DeviceBuffer::<u64>::from_host(ctx.gpu.device(), &[u64::MAX]).map_err(err)?;
        // Checked once, timed without the check's copy.
        pointwise(&ctx.gpu, f, &x, &mut y).map_err(err)?;
        let times = time_runs(ctx.gpu.device(), 3, ctx.reps, || {
            queue_pointwise(&ctx.gpu, f, &x, &mut y, &mut flag)
        })?;
        ctx.push(
            &format!("table3_combustion_{name}_{n}"),
            "gpu",
            S::NAME,
            points,
            &times,
            bytes,
            Some(seed_ms(fast)),
            &[],
        );
        // The host CPU (rayon over every core), as the seed's 2×Xeon row.
        let mut out = vec![S::zero(); points];
        let mut cpu_times: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                f.apply(&host, &mut out).map(|_| t.elapsed().as_secs_f64())
            })
            .collect::<Result<_, _>>()
            .map_err(err)?;
        cpu_times.sort_by(|a, b| a.total_cmp(b));
        ctx.push(
            &format!("table3_combustion_{name}_{n}"),
            "cpu",
            S::NAME,
            points,
            &cpu_times,
            bytes,
            None,
            &[("threads", rayon::current_num_threads().to_string())],
        );
    }
    Ok(())
}

/// Table III's peers (torch, CuPy, NumPy; `benches/peers/pointwise_peers.py`) on the input
/// of `table_3`, both precisions, against our f64 full-precision result; recorded in the
/// `table3_combustion_full_<n>` case beside ours.
fn table_3_peers(ctx: &mut Ctx, n: usize) -> Res<()> {
    let case = format!("table3_combustion_full_{n}");
    if !ctx.wants(&case) {
        return Ok(());
    }
    let points = n * n * n;
    let host = inputs::<f64>(points, 8);
    let x: GpuVector<f64> = ctx.gpu.upload(&host).map_err(err)?;
    let mut y: GpuVector<f64> = ctx.gpu.zeros::<f64>(points).map_err(err)?;
    pointwise(&ctx.gpu, Pointwise::Combustion, &x, &mut y).map_err(err)?;
    let ours = ctx.gpu.to_host(&y).map_err(err)?;
    drop((x, y));
    let scratch = gpu_peer::Scratch::new("table3")?;
    let (u_path, g_path) = (scratch.path("u.bin"), scratch.path("g.bin"));
    gpu_peer::write_f64(&u_path, &host)?;
    gpu_peer::write_f64(&g_path, &ours)?;
    drop((host, ours));
    let limit = ctx.peer_limit.min(60.0);
    let args = vec![
        "--u".into(),
        u_path.display().to_string(),
        "--ours".into(),
        g_path.display().to_string(),
        "--reps".into(),
        ctx.reps.to_string(),
        "--time-limit".into(),
        format!("{limit}"),
    ];
    // Three peers in two precisions, each bounded by `limit`, plus loading the input.
    let Some(answer) = gpu_peer::run_or_report(
        SUITE,
        "Table III",
        &case,
        &scratch,
        gpu_peer::POINTWISE,
        &args,
        std::time::Duration::from_secs_f64(6.0 * limit + 120.0),
    ) else {
        return Ok(());
    };
    let bytes = 2.0 * points as f64;
    for r in answer["results"].as_array().into_iter().flatten() {
        let (Some(backend), Some(precision), Some(t)) = (
            r["backend"].as_str(),
            r["precision"].as_str(),
            r["time_s"].as_f64(),
        ) else {
            continue;
        };
        let size = if precision == "f64" { 8.0 } else { 4.0 };
        let ours_backend = if backend == "numpy" { "cpu" } else { "gpu" };
        let ours_t = ctx
            .records
            .iter()
            .find(|o| o.case == case && o.backend == ours_backend && o.precision == precision)
            .map(|o| o.time_s);
        let mut rec = Record::new(SUITE, &case, backend, precision)
            .size("n", points)
            .size("axis", n as u64)
            .extra("bytes", bytes * size)
            .extra("gbps", bytes * size / t / 1e9)
            .extra(
                "error_vs",
                "ours, f64 full precision on the GPU (max |Δ| / max |ours|)",
            );
        rec.device = ctx.tag.clone();
        rec.time_s = t;
        rec.reps = r["reps"].as_u64().unwrap_or(1);
        rec.error = r["error"].as_f64();
        rec.peer_ratio = ours_t.map(|o| t / o);
        for key in [
            "library",
            "gpu",
            "what",
            "fused",
            "unfused_time_s",
            "threads",
        ] {
            if !r[key].is_null() {
                rec = rec.extra(key, r[key].clone());
            }
        }
        if ours_t.is_some() {
            rec = rec.extra("peer_ratio_vs", format!("ours ({ours_backend}), same run"));
        }
        ctx.summary.push(format!(
            "{:<44} {:<7} {:<4} {:>10.3} {:>8.1} {:>7} {:>7} {:>8}   peer/ours {}, err {:.1e}",
            case,
            backend,
            precision,
            t * 1e3,
            10.0 * points as f64 / t / 1e9,
            "-",
            "-",
            "-",
            rec.peer_ratio.map_or("-".into(), |q| format!("{q:.2}")),
            rec.error.unwrap_or(f64::NAN),
        ));
        ctx.records.push(rec);
    }
    Ok(())
}

/// e^{tA₁}w for the 1D Dirichlet second difference A₁ on `w.len()` interior points
/// (scaled by (N+1)²), exactly through its sine eigenbasis: O(N²).
fn expm_1d(t: f64, w: &[f64]) -> Vec<f64> {
    use std::f64::consts::PI;
    let n = w.len();
    let h1 = (n + 1) as f64;
    let q = |i: usize, k: usize| (2.0 / h1).sqrt() * (PI * ((i + 1) * (k + 1)) as f64 / h1).sin();
    let lam = |k: usize| -4.0 * h1 * h1 * (PI * (k + 1) as f64 / (2.0 * h1)).sin().powi(2);
    let c: Vec<f64> = (0..n)
        .map(|k| (0..n).map(|i| q(i, k) * w[i]).sum::<f64>() * (t * lam(k)).exp())
        .collect();
    (0..n)
        .map(|i| (0..n).map(|k| q(i, k) * c[k]).sum())
        .collect()
}

/// Seed 000 Table 11/12: e^{tA}u₀ with u₀ = sin(2πx) at tol 1e−5 on one GPU, stencil and
/// CSR, against e^{tA}u₀ = (e^{tA₁}sin 2πx) ⊗ (e^{tA₁}1) ⊗ (e^{tA₁}1) (A is a Kronecker sum).
fn seed000<S: RealScalar + DeviceElement>(ctx: &mut Ctx, m: usize, t: f64, table: &str) -> Res<()> {
    use matexp_core::LinearOperator;
    use matexp_expmv::{LanczosOptions, LejaOptions, Tolerance, lanczos_expmv, leja_expmv};
    let prefetch = ctx.prefetch;
    let h = 1.0 / (m + 1) as f64;
    let u0_1d: Vec<f64> = (0..m)
        .map(|i| (2.0 * std::f64::consts::PI * (i + 1) as f64 * h).sin())
        .collect();
    let (ex, ey) = (expm_1d(t, &u0_1d), expm_1d(t, &vec![1.0; m]));
    let points = m * m * m;
    let exact = |i: usize| ex[i % m] * ey[(i / m) % m] * ey[i / (m * m)];
    let exact_norm = (0..points).map(|i| exact(i).powi(2)).sum::<f64>().sqrt();
    let u0: Vec<S> = (0..points).map(|i| S::from_f64(u0_1d[i % m])).collect();
    let g = ctx.gpu.clone();
    let v = g.upload(&u0).map_err(err)?;
    let stencil = Stencil::<S>::laplacian(Dim::Three, m, Boundary::Dirichlet).map_err(err)?;
    let bounds = LinearOperator::<matexp_core::CpuBackend, S>::spectral_bounds(&stencil);
    let opts = LejaOptions {
        tol: Tolerance::relative(1e-5),
        bounds,
        ..Default::default()
    };
    // The seed's 1-GPU times (s): fast matrix-free kernel and cuSPARSE CSR, single / double.
    let seed_s = |csr: bool| match (table, csr, S::NAME == "f64") {
        ("T11", false, _) => 2.4,
        ("T11", true, false) => 3.5,
        ("T11", true, true) => 5.4,
        ("T12", false, _) => 12.0,
        ("T12", true, false) => 27.0,
        _ => 31.0,
    };
    // Lanczos at the same tolerance: its Krylov dimension (~280 products for Table 12) is
    // about a third of Leja's, each a fused product (the stencil's streaming Lanczos kernels,
    // or the CSR matrix's) whose step forms q_{j+1} where it gathers it where the operator
    // says `lanczos_advance_fused`.
    let lanczos_opts = LanczosOptions::default().with_rtol(1e-5);
    let base_case = format!("{table}_laplace_N{m}_t{t}");
    // SciPy's accuracy is fixed (2⁻⁵³): its peers run in f64 only, beside the Leja case.
    let peers = ctx.peers && S::NAME == "f64" && ctx.wants(&base_case);
    // `lanczos`: the method, and the record's case (`<case>_lanczos`; Leja keeps the plain
    // case of earlier records).
    let mut run = |name: &str, lanczos: bool, op: &dyn LinearOperator<GpuBackend, S>| -> Res<()> {
        let case = if lanczos {
            format!("{base_case}_lanczos")
        } else {
            base_case.clone()
        };
        // `--only` filters by case, so one table or one method can run alone.
        if !ctx.wants(&case) {
            return Ok(());
        }
        let method = if lanczos { "lanczos" } else { "leja" };
        let mut times = Vec::new();
        let mut last = None;
        let backend = match name {
            "csr" => "gpu/csr",
            "stencil_pf" => "gpu/pf",
            _ => "gpu",
        };
        for _ in 0..3 {
            let start = Instant::now();
            let r = match if lanczos {
                lanczos_expmv(&g, op, S::from_f64(t), &v, &lanczos_opts)
            } else {
                leja_expmv(&g, op, S::from_f64(t), &v, &opts)
            } {
                Ok(r) => r,
                // A tolerance the method does not claim in this precision (Lanczos in f32
                // below its rounding floor): the refusal is the result.
                Err(e @ matexp_core::Error::NoConvergence { .. }) => {
                    let secs = start.elapsed().as_secs_f64();
                    println!("{case} {} {name} {method}: refused: {e}", S::NAME);
                    let extra = [
                        ("operator", name.to_string()),
                        ("method", method.to_string()),
                        ("failed", e.to_string()),
                    ];
                    ctx.push(&case, backend, S::NAME, points, &[secs], 0.0, None, &extra);
                    if let Some(r) = ctx.records.last_mut() {
                        r.floor_ratio = None;
                        r.tol = Some(1e-5);
                    }
                    return Ok(());
                }
                Err(e) => return Err(err(e)),
            };
            g.synchronize().map_err(err)?;
            times.push(start.elapsed().as_secs_f64());
            last = Some(r);
        }
        // The warm-up call, recorded as `first_call_s`: for the first Leja call of a radius
        // in the process it includes the host's model search and divided differences, which
        // later calls take from the process-wide caches.
        let first = times.remove(0);
        times.sort_by(|a, b| a.total_cmp(b));
        let (w, rep) = last.ok_or("no result")?;
        let w = g.to_host(&w).map_err(err)?;
        let diff = w
            .iter()
            .enumerate()
            .map(|(i, x)| (x.as_f64() - exact(i)).powi(2))
            .sum::<f64>()
            .sqrt();
        let error = diff / exact_norm;
        // The backend tells the two operators apart, the case the two methods: records
        // merge by suite, case, backend, precision and device, and `extra` does not count.
        let mut extra = vec![
            ("operator", name.to_string()),
            ("method", method.to_string()),
            ("seed_s", seed_s(name == "csr").to_string()),
            ("first_call_s", format!("{first:.4}")),
        ];
        if lanczos {
            extra.push((
                "lanczos_step",
                if op.lanczos_advance_fused() {
                    "deferred: q_{j+1} formed in the next product (lanczos_advance)"
                } else {
                    "fused product + update pass"
                }
                .to_string(),
            ));
            if table == "T12" && name == "stencil" {
                // The issue's target for Table 12 on the stencil (one H200).
                extra.push(("target_s", "0.06".to_string()));
            }
        }
        ctx.push(&case, backend, S::NAME, points, &times, 0.0, None, &extra);
        if let Some(r) = ctx.records.last_mut() {
            r.floor_ratio = None;
            r.matvecs = Some(rep.matvecs as u64);
            r.tol = Some(1e-5);
            r.error = Some(error);
        }
        println!(
            "{case} {} {name} {method}: {:.3} s, {} matvecs, error {error:.1e} (seed {} s)",
            S::NAME,
            median(&times),
            rep.matvecs,
            seed_s(name == "csr")
        );
        Ok(())
    };
    let dev = GpuStencil::new(&g, &stencil).map_err(err)?;
    run("stencil", false, &dev)?;
    run("stencil", true, &dev)?;
    drop(dev);
    // The same with the streaming kernels' L2 prefetch (backend `gpu/pf`).
    let dev = GpuStencil::new(&g, &stencil)
        .map_err(err)?
        .with_l2_prefetch(prefetch);
    run("stencil_pf", false, &dev)?;
    run("stencil_pf", true, &dev)?;
    drop(dev);
    // The same matrix as `stencil.to_csr()`, from the parallel generator (N = 256 has 117 M
    // entries).
    let a = matexp_sparse::generators::laplacian_3d::<S, u32>(m).map_err(err)?;
    // The peers' inputs: this matrix and u₀.
    let scratch = if peers {
        let s = gpu_peer::Scratch::new(table)?;
        gpu_peer::write_u32(&s.path("a.indptr"), a.row_ptr().iter().copied())?;
        gpu_peer::write_u32(&s.path("a.indices"), a.col_idx().iter().copied())?;
        let vals: Vec<f64> = a.values().iter().map(|x| x.as_f64()).collect();
        gpu_peer::write_f64(&s.path("a.data"), &vals)?;
        drop(vals);
        let u: Vec<f64> = u0.iter().map(|x| x.as_f64()).collect();
        gpu_peer::write_f64(&s.path("v.bin"), &u)?;
        Some(s)
    } else {
        None
    };
    let csr = matexp_gpu::GpuCsr::from_csr(&g, &a)
        .map_err(err)?
        .assume_hermitian(true);
    drop(a);
    run("csr", false, &csr)?;
    run("csr", true, &csr)?;
    drop(csr);
    let Some(scratch) = scratch else {
        return Ok(());
    };
    let case = base_case;
    let ours_loose = ctx
        .records
        .iter()
        .find(|r| r.case == case && r.backend == "gpu" && r.precision == S::NAME)
        .map(|r| r.time_s);
    // Ours at the peers' accuracy: the stencil at tol 1e−12 (one untimed run, two timed).
    let tight_tol = 1e-12;
    let tight_opts = LejaOptions {
        tol: Tolerance::relative(tight_tol),
        ..opts
    };
    let dev = GpuStencil::new(&g, &stencil).map_err(err)?;
    let mut tight = None;
    let mut tight_times = Vec::new();
    for i in 0..3 {
        let start = Instant::now();
        match leja_expmv(&g, &dev, S::from_f64(t), &v, &tight_opts)
            .and_then(|r| g.synchronize().map(|_| r))
        {
            Ok(r) => {
                if i > 0 {
                    tight_times.push(start.elapsed().as_secs_f64());
                }
                tight = Some(r);
            }
            Err(e) => {
                eprintln!("{SUITE}: ours at tol {tight_tol:e} on {case} failed: {e}");
                tight = None;
                break;
            }
        }
    }
    drop(dev);
    let error_of = |w: &[f64]| {
        let d = w
            .iter()
            .enumerate()
            .map(|(i, x)| (x - exact(i)).powi(2))
            .sum::<f64>()
            .sqrt();
        d / exact_norm
    };
    let tight = match tight {
        Some((w, rep)) => {
            let w: Vec<f64> = g
                .to_host(&w)
                .map_err(err)?
                .iter()
                .map(|x| x.as_f64())
                .collect();
            tight_times.sort_by(|a, b| a.total_cmp(b));
            let e = error_of(&w);
            let tight_case = format!("{case}_tol1e-12");
            ctx.push(
                &tight_case,
                "gpu",
                S::NAME,
                points,
                &tight_times,
                0.0,
                None,
                &[
                    ("operator", "stencil".into()),
                    (
                        "why",
                        "ours at the SciPy peers' accuracy, for their peer_ratio".into(),
                    ),
                ],
            );
            if let Some(r) = ctx.records.last_mut() {
                r.floor_ratio = None;
                r.matvecs = Some(rep.matvecs as u64);
                r.tol = Some(tight_tol);
                r.error = Some(e);
            }
            println!(
                "{tight_case} {}: {:.3} s, {} matvecs, error {e:.1e}",
                S::NAME,
                median(&tight_times),
                rep.matvecs
            );
            Some((median(&tight_times), e, rep.matvecs))
        }
        None => None,
    };
    let args = vec![
        scratch.0.display().to_string(),
        format!("--t={t}"),
        "--reps".into(),
        "3".into(),
        "--time-limit".into(),
        format!("{}", ctx.peer_limit),
    ];
    let Some(answer) = gpu_peer::run_or_report(
        SUITE,
        "expm_multiply",
        &case,
        &scratch,
        gpu_peer::EXPM_MULTIPLY,
        &args,
        std::time::Duration::from_secs_f64(2.0 * ctx.peer_limit + 300.0),
    ) else {
        return Ok(());
    };
    for r in answer["results"].as_array().into_iter().flatten() {
        let (Some(backend), Some(pt)) = (r["backend"].as_str(), r["time_s"].as_f64()) else {
            continue;
        };
        let w = match gpu_peer::read_f64(&scratch.path(&format!("w_{backend}.bin"))) {
            Ok(w) if w.len() == points => w,
            Ok(w) => {
                eprintln!(
                    "{SUITE}: peer {backend} of {case} returned {} values, not {points}; not recorded",
                    w.len()
                );
                continue;
            }
            Err(e) => {
                eprintln!("{SUITE}: peer {backend} of {case} not recorded: {e}");
                continue;
            }
        };
        let e = error_of(&w);
        let mut rec = Record::new(SUITE, &case, backend, "f64")
            .size("n", points)
            .size("axis", m as u64)
            .extra("error_vs", "exact separable solution")
            .extra(
                "peer_accuracy",
                "SciPy's unit roundoff 2^-53 (no tolerance to set)",
            );
        rec.device = ctx.tag.clone();
        rec.time_s = pt;
        rec.reps = r["reps"].as_u64().unwrap_or(1);
        rec.error = Some(e);
        rec.matvecs = r["products"].as_u64();
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
        if let Some((tt, te, tm)) = tight {
            rec.peer_ratio = Some(pt / tt);
            rec = rec
                .extra(
                    "peer_ratio_vs",
                    format!("ours at tol {tight_tol:e} on one GPU (stencil), same run"),
                )
                .extra("ours_tight_time_s", tt)
                .extra("ours_tight_error", te)
                .extra("ours_tight_matvecs", tm as u64);
        }
        if let Some(o) = ours_loose {
            rec = rec.extra("ratio_tol1e-5", pt / o);
        }
        println!(
            "{case} peer {backend}: {pt:.3} s, error {e:.1e}, peer/ours(tol 1e-12) {}",
            rec.peer_ratio.map_or("-".into(), |q| format!("{q:.2}"))
        );
        ctx.records.push(rec);
    }
    Ok(())
}
