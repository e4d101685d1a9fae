//! GPU benchmarks of matexp-matpoly: seed 004's Table 1 (Paterson–Stockmeyer polynomials on
//! one GPU through cuBLAS, and on the CPU backend of the same host) and the dense
//! exponential of order 6144 in double precision.
//!
//! Not a criterion benchmark: CUDA events around each evaluation after a warm-up, median of
//! `--reps` runs; the CPU rows use wall-clock time (fewer runs, `--cpu-reps`, default 2: at
//! n = 6144 one CPU polynomial takes seconds). The CPU DGEMM is timed after a warm-up (median);
//! a CPU polynomial's time is the fastest of its runs, because its first run also
//! page-faults the evaluator's freshly allocated powers (hundreds of MB each).
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_matpoly -- [--out DIR] [--small] [--reps N]
//!     [--cpu-reps N] [--no-cpu] [--no-expm]
//! ```
//!
//! Records (suite `gpu_matpoly`):
//! * `table1 d=.. b=..` (backend `cublas`, and `cpu` unless `--no-cpu`): `time_s`, the
//!   polynomial's products `extra.products`, `extra.gflops` (= products·2n³ / time),
//!   `extra.dgemm_gflops` (one `n × n` DGEMM timed in the same run on the same device),
//!   `extra.dgemm_ratio` = gflops / dgemm_gflops (target ≥ 0.9 at n = 6144); GPU rows also
//!   `extra.dgemm_chain_gflops`, the rate of `products` DGEMMs queued back to back (what
//!   the polynomial's products cost without its `O(n²)` work, clocks under sustained load
//!   included), timed in rounds alternating with the polynomial's runs so that both see the
//!   same clocks, and `extra.chain_ratio` = gflops / that rate (the lone DGEMM runs after
//!   an idle gap, at a boost clock a chain of products does not keep). CPU rows carry the host CPU's
//!   device name (`cpu-<model>-<cores>core`, the rule of `cargo xtask bench`),
//!   `extra.blas` / `extra.blas_threads` (the library and threads of the CPU products:
//!   OpenBLAS on every core) and `extra.threads` (rayon's, for the `O(n²)` work),
//!   `floor_ratio` = time / (products × DGEMM time), `vendor_ratio` = its inverse, and the
//!   seed's K20 / i7-3820 figures `extra.seed_time_s`, `extra.seed_gflops`
//!   (`extra.seed_2gpu_time_s` for the two-GPU column).
//! * `stress d=6 simple|ps` (backend `cublas`, f64, n = 11000; `--no-stress` skips it): the
//!   seed's stress test by the simple algorithm (the powers one after another) and by
//!   Paterson–Stockmeyer, with the lone-DGEMM rate of the same n (`extra.dgemm_ratio`).
//! * `expm n=..` (backend `cublas`, f64): time, degree, squarings, products, GFlop/s,
//!   `error` = relative 1-norm error against the analytic exponential of the test matrix
//!   `A = S·D·S⁻¹`, `S = I + u vᵀ` (reference `S·e^D·S⁻¹`, formed in `O(n²)`), and
//!   `extra.cpu_agreement` against the CPU backend when the CPU rows run.
//!
//! The matrix generator is `benches/peers/expm_peers.py`'s too (closed-form `d`, `u`, `v`),
//! so torch and CuPy time the same matrix against the same reference. Exit status 3 means
//! no GPU.

use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;
use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, device_tag, parse_value, upper_median, write_records,
};
use matexp_dense::Matrix;
use matexp_matpoly::{CpuDense, CublasDense, DenseBackend, Evaluator, GpuMatrix, Scheme};
use std::sync::Arc;
use std::time::Instant;

type Res<T> = Result<T, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

const SUITE: &str = "gpu_matpoly";

/// One cell group of seed 004's Table 1 (K20 GPUs, i7-3820 CPU with MKL, 2014).
struct SeedRow {
    d: usize,
    b: usize,
    n: usize,
    cpu_s: f64,
    cpu_gflops: f64,
    gpu_s: f64,
    gpu_gflops: f64,
    gpu2_s: f64,
}

/// Seed 004, Table 1.
const SEED_TABLE1: [SeedRow; 9] = [
    SeedRow {
        d: 12,
        b: 3,
        n: 2048,
        cpu_s: 0.99,
        cpu_gflops: 87.0,
        gpu_s: 0.12,
        gpu_gflops: 716.0,
        gpu2_s: 0.08,
    },
    SeedRow {
        d: 12,
        b: 3,
        n: 4096,
        cpu_s: 6.83,
        cpu_gflops: 101.0,
        gpu_s: 0.78,
        gpu_gflops: 881.0,
        gpu2_s: 0.46,
    },
    SeedRow {
        d: 12,
        b: 3,
        n: 6144,
        cpu_s: 25.1,
        cpu_gflops: 92.0,
        gpu_s: 2.49,
        gpu_gflops: 931.0,
        gpu2_s: 1.37,
    },
    SeedRow {
        d: 20,
        b: 4,
        n: 2048,
        cpu_s: 1.55,
        cpu_gflops: 78.0,
        gpu_s: 0.16,
        gpu_gflops: 752.0,
        gpu2_s: 0.10,
    },
    SeedRow {
        d: 20,
        b: 4,
        n: 4096,
        cpu_s: 10.4,
        cpu_gflops: 101.0,
        gpu_s: 1.06,
        gpu_gflops: 881.0,
        gpu2_s: 0.60,
    },
    SeedRow {
        d: 20,
        b: 4,
        n: 6144,
        cpu_s: 35.4,
        cpu_gflops: 92.0,
        gpu_s: 3.42,
        gpu_gflops: 949.0,
        gpu2_s: 1.83,
    },
    SeedRow {
        d: 30,
        b: 5,
        n: 2048,
        cpu_s: 2.59,
        cpu_gflops: 57.0,
        gpu_s: 0.20,
        gpu_gflops: 773.0,
        gpu2_s: 0.12,
    },
    SeedRow {
        d: 30,
        b: 5,
        n: 4096,
        cpu_s: 12.5,
        cpu_gflops: 99.0,
        gpu_s: 1.35,
        gpu_gflops: 916.0,
        gpu2_s: 0.75,
    },
    SeedRow {
        d: 30,
        b: 5,
        n: 6144,
        cpu_s: 45.8,
        cpu_gflops: 91.0,
        gpu_s: 4.37,
        gpu_gflops: 935.0,
        gpu2_s: 2.31,
    },
];

struct Args {
    common: CommonArgs,
    cpu_reps: usize,
    cpu: bool,
    expm: bool,
    stress: bool,
}

fn parse_args() -> Args {
    let (mut cpu_reps, mut cpu, mut expm, mut stress) = (2, true, true, true);
    // cargo bench passes --bench.
    let common = CommonArgs::parse(10, |flag, it| match flag {
        "--no-cpu" => cpu = false,
        "--no-expm" => expm = false,
        "--no-stress" => stress = false,
        "--cpu-reps" => cpu_reps = parse_value(it, cpu_reps),
        _ => {}
    });
    Args {
        common,
        cpu_reps,
        cpu,
        expm,
        stress,
    }
}

/// Closed-form test matrix (also in benches/peers/expm_peers.py): eigenvalues
/// `d_i = −4 + 5i/(n−1)`, `u_i = sin(0.37i + 0.1)`, `v_i = 0.5·cos(0.23i + 0.2)/√n`.
fn generator(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let nn = (n.max(2) - 1) as f64;
    let d = (0..n).map(|i| -4.0 + 5.0 * i as f64 / nn).collect();
    let u = (0..n).map(|i| (0.37 * i as f64 + 0.1).sin()).collect();
    let v = (0..n)
        .map(|i| 0.5 * (0.23 * i as f64 + 0.2).cos() / (n as f64).sqrt())
        .collect();
    (d, u, v)
}

/// `S·diag(f)·S⁻¹` with `S = I + u vᵀ`, `S⁻¹ = I − c·u vᵀ`, `c = 1/(1 + vᵀu)`:
/// entry (i, j) = `f_i δ_ij + u_i v_j f_j − c f_i u_i v_j − c u_i (Σ_k v_k f_k u_k) v_j`.
fn similarity(f: &[f64], u: &[f64], v: &[f64]) -> Matrix<f64> {
    let n = f.len();
    let c = 1.0 / (1.0 + v.iter().zip(u).map(|(a, b)| a * b).sum::<f64>());
    let w: f64 = (0..n).map(|k| v[k] * f[k] * u[k]).sum();
    Matrix::from_fn(n, n, |i, j| {
        let diag = if i == j { f[i] } else { 0.0 };
        diag + u[i] * v[j] * f[j] - c * f[i] * u[i] * v[j] - c * u[i] * w * v[j]
    })
}

/// Deterministic pseudo-random entries in [−1, 1] (SplitMix64), scaled by 1/n so that
/// ‖X‖₁ ≈ 0.5 and the powers neither overflow nor vanish.
fn random_matrix(n: usize, seed: u64) -> Matrix<f64> {
    let mut s = seed;
    let scale = 1.0 / n as f64;
    Matrix::from_fn(n, n, |_, _| {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
    })
}

fn rel_err(a: &Matrix<f64>, b: &Matrix<f64>) -> f64 {
    let mut d = a.clone();
    if d.add_scaled(-1.0, b).is_err() {
        return f64::NAN;
    }
    d.norm_one() / b.norm_one()
}

fn median(mut t: Vec<f64>) -> f64 {
    upper_median(&mut t)
}

/// Median over `reps` runs of `f`, timed by CUDA events on `stream` (the backend's), after
/// one warm-up run.
fn time_gpu(stream: &Arc<CudaStream>, reps: usize, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    f()?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(err)?;
        f()?;
        let end = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(err)?;
        end.synchronize().map_err(err)?;
        times.push(start.elapsed_ms(&end).map_err(err)? as f64 * 1e-3);
    }
    Ok(median(times))
}

/// Medians over `reps` rounds of `f(true)` and `f(false)`, alternated (true first) and
/// each timed by CUDA events on `stream`, after one warm-up of each: the two see the same
/// clocks and temperature.
fn time_gpu_pair(
    stream: &Arc<CudaStream>,
    reps: usize,
    mut f: impl FnMut(bool) -> Res<()>,
) -> Res<(f64, f64)> {
    f(true)?;
    f(false)?;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..reps.max(1) {
        for which in [true, false] {
            let start = stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(err)?;
            f(which)?;
            let end = stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(err)?;
            end.synchronize().map_err(err)?;
            let t = start.elapsed_ms(&end).map_err(err)? as f64 * 1e-3;
            if which { a.push(t) } else { b.push(t) }
        }
    }
    Ok((median(a), median(b)))
}

/// Wall-clock times of `reps` runs of `f` (no warm-up).
fn time_cpu(reps: usize, mut f: impl FnMut() -> Res<()>) -> Res<Vec<f64>> {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(times)
}

struct Out {
    /// Device name of the GPU rows.
    device: String,
    /// Device name of the CPU rows: the GPU host's processor ([`host_cpu_name`]).
    cpu_device: String,
    records: Vec<Record>,
    summary: Vec<String>,
}

impl Out {
    fn record(&self, case: &str, backend: &str) -> Record {
        let mut r = Record::new(SUITE, case, backend, "f64");
        r.device = if backend == "cpu" {
            self.cpu_device.clone()
        } else {
            self.device.clone()
        };
        r
    }
}

/// `cpu-<model>-<cores>core` from `/proc/cpuinfo`, the name `cargo xtask bench` gives a CPU
/// host (`xtask/src/bench.rs`, `cpu_device_name`): the first `model name` without
/// trademarks, clock, socket core count and filler words, lower-cased, `-` between words;
/// a model name without digits gets `f<family>m<model>`; no model name: `cpu-<cores>core`.
fn host_cpu_name() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let Some(model) = field("model name").filter(|m| !m.is_empty()) else {
        return format!("cpu-{cores}core");
    };
    const FILLER: [&str; 5] = ["cpu", "processor", "with", "radeon", "graphics"];
    let cleaned = model
        .replace("(R)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ");
    let mut words: Vec<String> = Vec::new();
    for word in cleaned.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        if lower == "@" || lower.ends_with("ghz") {
            break;
        }
        if FILLER.contains(&lower.as_str()) || lower.ends_with("-core") {
            continue;
        }
        let slug: String = lower
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let slug = slug.trim_matches('-').to_string();
        if !slug.is_empty() {
            words.push(slug);
        }
    }
    if !words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit())) {
        if let (Some(family), Some(m)) = (field("cpu family"), field("model")) {
            words.push(format!("f{family}m{m}"));
        }
    }
    if words.is_empty() {
        return format!("cpu-{cores}core");
    }
    format!("cpu-{}-{cores}core", words.join("-"))
}

fn main() {
    let args = parse_args();
    let gpu = match CublasDense::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gpu_matpoly: no CUDA device: {e}");
            std::process::exit(3);
        }
    };
    let name = gpu.device_name();
    println!("device: gpu {name}");
    let mut out = Out {
        device: device_tag(|| gpu.device_info().short_name()),
        cpu_device: host_cpu_name(),
        records: Vec::new(),
        summary: Vec::new(),
    };
    if args.cpu {
        let (blas, threads) = matexp_matpoly::gemm_threads::<f64>();
        println!(
            "device: cpu {} ({blas}, {threads} threads; rayon {})",
            out.cpu_device,
            rayon::current_num_threads()
        );
    }
    let result = run(gpu, &args, &mut out);
    if let Err(e) = write_records(&args.common.out, SUITE, &out.records) {
        eprintln!("gpu_matpoly: {e}");
    }
    println!(
        "\n{:<22} {:<7} {:>6} {:>10} {:>9} {:>8} {:>10}",
        "case", "backend", "n", "time", "GFlop/s", "of DGEMM", "seed"
    );
    for line in &out.summary {
        println!("{line}");
    }
    if let Err(e) = result {
        eprintln!("gpu_matpoly: FAILED: {e}");
        std::process::exit(1);
    }
}

type Gpu = Evaluator<f64, CublasDense>;

fn run(gpu: CublasDense, args: &Args, out: &mut Out) -> Res<()> {
    let mut ev = Evaluator::new(gpu);
    let sizes: Vec<usize> = if args.common.small {
        vec![512, 1024]
    } else {
        vec![2048, 4096, 6144]
    };
    for &n in &sizes {
        table1_at(&mut ev, args, out, n)?;
    }
    if args.stress {
        stress_at(
            &mut ev,
            args,
            out,
            if args.common.small { 1024 } else { 11000 },
        )?;
    }
    if args.expm {
        let n = if args.common.small { 1024 } else { 6144 };
        expm_at(&mut ev, args, out, n)?;
    }
    Ok(())
}

/// Seed 004's stress test: degree 6 at n = 11000 (13.5 s on one K20, 8.43 s on two), by
/// the simple algorithm (Alg. 1, the powers one after another: d − 1 products) and by
/// Paterson–Stockmeyer with the optimal block, beside one lone DGEMM of the same n.
fn stress_at(ev: &mut Gpu, args: &Args, out: &mut Out, n: usize) -> Res<()> {
    let stream = ev.backend().stream().clone();
    let x = random_matrix(n, 0x5EED_0006 + n as u64);
    let flops1 = 2.0 * (n as f64).powi(3);
    let xd: GpuMatrix<f64> = ev.backend_mut().upload(&x).map_err(err)?;
    let mut c: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
    let reps = args.common.reps.min(5);
    let t_gemm = time_gpu(&stream, reps, || {
        ev.backend_mut()
            .gemm(1.0, &xd, &xd, 0.0, &mut c)
            .map_err(err)
    })?;
    drop(c);
    let dgemm = flops1 / t_gemm;
    let d = 6;
    // Small coefficients keep X^6 of a matrix with entries in [−1, 1] finite at n = 11000.
    let alpha: Vec<f64> = (0..=d).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let mut p: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
    for (name, scheme) in [
        ("simple", Scheme::Powers),
        ("ps", Scheme::paterson_stockmeyer(d)),
    ] {
        let products = scheme.products(d);
        let flops = products as f64 * flops1;
        let t = time_gpu(&stream, reps, || {
            ev.evaluate_into(&xd, &alpha, scheme, &mut p).map_err(err)
        })?;
        let gf = flops / t;
        let case = format!("stress d={d} {name}");
        let mut r = out
            .record(&case, "cublas")
            .size("n", n)
            .size("d", d)
            .extra("products", products)
            .extra("gflops", gf / 1e9)
            .extra("dgemm_gflops", dgemm / 1e9)
            .extra("dgemm_ratio", gf / dgemm)
            .extra("seed_time_s", 13.5)
            .extra("seed_2gpu_time_s", 8.43)
            .extra("seed_device", "NVIDIA K20 (2014)");
        if let Scheme::PatersonStockmeyer { block } = scheme {
            r = r.size("b", block);
        }
        r.time_s = t;
        r.reps = reps as u64;
        r.floor_ratio = Some(t / (products as f64 * t_gemm));
        r.vendor_ratio = Some(products as f64 * t_gemm / t);
        out.summary.push(format!(
            "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8.2} {:>9.2}s",
            case,
            "cublas",
            n,
            t * 1e3,
            gf / 1e9,
            gf / dgemm,
            13.5
        ));
        out.records.push(r);
    }
    Ok(())
}

fn table1_at(ev: &mut Gpu, args: &Args, out: &mut Out, n: usize) -> Res<()> {
    let stream = ev.backend().stream().clone();
    let x = random_matrix(n, 0x5EED_0004 + n as u64);
    let flops1 = 2.0 * (n as f64).powi(3);
    // The DGEMM rate of this device in this run: one n × n product.
    let xd: GpuMatrix<f64> = ev.backend_mut().upload(&x).map_err(err)?;
    let mut c: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
    let t_gemm = time_gpu(&stream, args.common.reps, || {
        ev.backend_mut()
            .gemm(1.0, &xd, &xd, 0.0, &mut c)
            .map_err(err)
    })?;
    drop(c);
    let dgemm = flops1 / t_gemm;
    let cpu_gemm = if args.cpu {
        let mut cc = Matrix::zeros(n, n);
        // Warm-up: OpenBLAS starts its threads, C is faulted in.
        matexp_matpoly::gemm(1.0, &x, &x, 0.0, &mut cc).map_err(err)?;
        let t = median(time_cpu(args.cpu_reps, || {
            matexp_matpoly::gemm(1.0, &x, &x, 0.0, &mut cc).map_err(err)
        })?);
        out.summary.push(format!(
            "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8} {:>10}",
            "dgemm",
            "cpu",
            n,
            t * 1e3,
            flops1 / t / 1e9,
            "1.00",
            "-"
        ));
        Some(flops1 / t)
    } else {
        None
    };
    // One CPU evaluator for the three rows: the powers of a row are reused by the next.
    let mut cev = Evaluator::new(CpuDense::new());
    let mut cp = Matrix::zeros(n, n);
    let (blas, blas_threads) = matexp_matpoly::gemm_threads::<f64>();
    out.summary.push(format!(
        "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8} {:>10}",
        "dgemm",
        "cublas",
        n,
        t_gemm * 1e3,
        dgemm / 1e9,
        "1.00",
        "-"
    ));
    let mut p: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
    // All GPU rows of this size first, then the CPU rows: seconds of CPU work between GPU
    // rows would let the GPU cool down and flatter its polynomials against the DGEMM above.
    let mut gpu_times: Vec<(usize, f64)> = Vec::new();
    for cpu_pass in [false, true] {
        for row in SEED_TABLE1.iter() {
            let (d, b, sn) = (row.d, row.b, row.n);
            let (cpu_s, cpu_gf, gpu_s, gpu_gf, gpu2_s) = (
                row.cpu_s,
                row.cpu_gflops,
                row.gpu_s,
                row.gpu_gflops,
                row.gpu2_s,
            );
            if sn != n && !args.common.small {
                continue;
            }
            if args.common.small && sn != 2048 {
                continue;
            }
            let alpha: Vec<f64> = (0..=d).map(|i| 1.0 / (1.0 + i as f64)).collect();
            let scheme = Scheme::PatersonStockmeyer { block: b };
            let products = scheme.products(d);
            let flops = products as f64 * flops1;
            let case = format!("table1 d={d} b={b}");
            // The seed's figures only where the size is the seed's (not with --small).
            let seed = sn == n;
            if cpu_pass {
                let Some(cpu_rate) = cpu_gemm else { break };
                let t_gpu = gpu_times
                    .iter()
                    .find(|&&(dd, _)| dd == d)
                    .map_or(f64::NAN, |&(_, t)| t);
                let times = time_cpu(args.cpu_reps, || {
                    cev.evaluate_into(&x, &alpha, scheme, &mut cp).map_err(err)
                })?;
                // The fastest run: the first also faults in this row's new powers (docs above).
                let t = times.iter().copied().fold(f64::INFINITY, f64::min);
                let gf = flops / t;
                let mut r = out
                    .record(&case, "cpu")
                    .size("n", n)
                    .size("d", d)
                    .size("b", b)
                    .extra("products", products)
                    .extra("gflops", gf / 1e9)
                    .extra("dgemm_gflops", cpu_rate / 1e9)
                    .extra("dgemm_ratio", gf / cpu_rate)
                    .extra("gpu_speedup", t / t_gpu)
                    .extra("blas", blas)
                    .extra("blas_threads", blas_threads)
                    .extra("threads", rayon::current_num_threads())
                    .extra("time_stat", "min")
                    .extra("times_s", times.clone());
                if seed {
                    r = r
                        .extra("seed_time_s", cpu_s)
                        .extra("seed_gflops", cpu_gf)
                        .extra("seed_device", "Intel i7-3820, MKL (2014)");
                }
                r.time_s = t;
                r.reps = args.cpu_reps as u64;
                r.floor_ratio = Some(t / (flops / cpu_rate));
                out.summary.push(format!(
                    "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8.2} {:>9.2}s",
                    case,
                    "cpu",
                    n,
                    t * 1e3,
                    gf / 1e9,
                    gf / cpu_rate,
                    cpu_s
                ));
                out.records.push(r);
                continue;
            }
            // The polynomial and the same number of DGEMMs back to back (its products
            // without the O(n²) work), alternated run by run so that both see the same
            // clocks: a lone DGEMM runs after an idle gap, at a boost the chain cannot hold.
            let mut c2: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
            let (t, t_chain) = time_gpu_pair(&stream, args.common.reps, |poly| {
                if poly {
                    return ev.evaluate_into(&xd, &alpha, scheme, &mut p).map_err(err);
                }
                for _ in 0..products {
                    ev.backend_mut()
                        .gemm(1.0, &xd, &xd, 0.0, &mut c2)
                        .map_err(err)?;
                }
                Ok(())
            })?;
            drop(c2);
            let t_gpu = t;
            let chain = flops / t_chain;
            let gf = flops / t;
            let mut r = out
                .record(&case, "cublas")
                .size("n", n)
                .size("d", d)
                .size("b", b)
                .extra("products", products)
                .extra("gflops", gf / 1e9)
                .extra("dgemm_gflops", dgemm / 1e9)
                .extra("dgemm_ratio", gf / dgemm)
                .extra("dgemm_chain_gflops", chain / 1e9)
                .extra("chain_ratio", gf / chain);
            if seed {
                r = r
                    .extra("seed_time_s", gpu_s)
                    .extra("seed_gflops", gpu_gf)
                    .extra("seed_2gpu_time_s", gpu2_s)
                    .extra("seed_device", "NVIDIA K20 (2014)");
            }
            r.time_s = t;
            r.reps = args.common.reps as u64;
            r.floor_ratio = Some(t / (products as f64 * t_gemm));
            r.vendor_ratio = Some(products as f64 * t_gemm / t);
            out.summary.push(format!(
                "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8.2} {:>9.2}s",
                case,
                "cublas",
                n,
                t * 1e3,
                gf / 1e9,
                gf / dgemm,
                gpu_s
            ));
            out.records.push(r);
            gpu_times.push((d, t_gpu));
        }
    }
    Ok(())
}

fn expm_at(ev: &mut Gpu, args: &Args, out: &mut Out, n: usize) -> Res<()> {
    let stream = ev.backend().stream().clone();
    let (d, u, v) = generator(n);
    let a = similarity(&d, &u, &v);
    let e_ref = similarity(&d.iter().map(|x| x.exp()).collect::<Vec<_>>(), &u, &v);
    let ad = ev.backend_mut().upload(&a).map_err(err)?;
    let mut ed: GpuMatrix<f64> = ev.backend_mut().zeros(n, n).map_err(err)?;
    let rep = ev.expm_into(&ad, &mut ed).map_err(err)?;
    let t = time_gpu(&stream, args.common.reps, || {
        ev.expm_into(&ad, &mut ed).map(|_| ()).map_err(err)
    })?;
    let e = ev.backend_mut().download(&ed).map_err(err)?;
    let error = rel_err(&e, &e_ref);
    let flops = rep.products as f64 * 2.0 * (n as f64).powi(3);
    let mut r = out
        .record(&format!("expm n={n}"), "cublas")
        .size("n", n)
        .error(error)
        .extra("degree", rep.degree)
        .extra("squarings", rep.squarings)
        .extra("products", rep.products)
        .extra("gflops", flops / t / 1e9)
        .extra("norm1", rep.norm1)
        .extra("reference", "S·e^D·S⁻¹, S = I + u vᵀ (closed form)");
    if args.cpu {
        let t0 = Instant::now();
        let (ec, _) = Evaluator::new(CpuDense::new()).expm(&a).map_err(err)?;
        let tc = t0.elapsed().as_secs_f64();
        r = r
            .extra("cpu_agreement", rel_err(&e, &ec))
            .extra("cpu_error", rel_err(&ec, &e_ref))
            .extra("cpu_time_s", tc);
    }
    r.time_s = t;
    r.reps = args.common.reps as u64;
    out.summary.push(format!(
        "{:<22} {:<7} {:>6} {:>9.2}ms {:>9.0} {:>8} {:>10}",
        format!("expm (err {error:.1e})"),
        "cublas",
        n,
        t * 1e3,
        flops / t / 1e9,
        format!("m{} s{}", rep.degree, rep.squarings),
        "-"
    ));
    out.records.push(r);
    Ok(())
}
