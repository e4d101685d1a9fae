//! Benchmark suite `spmv`: CPU sparse matrix–vector products y ← A·x (β = 0) on the seed
//! problems, against the memory-bandwidth floor measured in the same run.
//!
//! Cases (default / with `MATEXP_BENCH_FULL=1`):
//! * `spinbath_L{16 | 17,18}`: seed 000's spin-bath Hamiltonian, `c64`, stored zeros kept as
//!   in the seed ((2L − 2)·2^L entries);
//! * `laplace3d_N{64 | 128}`: the 7-point Dirichlet Laplacian, `f64` and `f32`;
//! * `ba_n{1e5 | 1e6}_m10`: a Barabási–Albert graph as a pattern (no values), `f64` vectors;
//! * `leja_laplace3d_N{64 | 128}`: one fused Newton–Leja step on the Laplacian, `f64`.
//!
//! **Bytes model** (the floor): every stored value and column index once, the row pointers
//! once, `x` read once (perfect reuse of `x` in cache — a lower bound that power-law graphs
//! miss) and `y` written once (no read-for-ownership counted). The fused Leja step adds the
//! reads of `p` and writes of `p` and `y_next`. The bandwidth is that of a parallel copy of
//! 256 MiB (`matexp_benches::copy_bandwidth`), so `floor_ratio` = time / (bytes / copy
//! bandwidth) ≥ 1 and `extra.gbps` is the achieved rate under the model.
//!
//! **Peer** (the Laplacian cases): SciPy's `A @ x` on the same CSR (written here as raw
//! arrays, `benches/peers/scipy_cpu_peers.py spmv`), timed right after ours in the same
//! process run, as backend `scipy` with `error` = its largest deviation from our `y` and
//! `extra.mem_bytes` = data + indices + indptr as SciPy holds them; ours carries
//! `peer_ratio` = SciPy time / ours. SciPy's product is single-threaded.

#[path = "common/scipy_peer.rs"]
mod scipy_peer;

use criterion::Criterion;
use matexp_benches::{Floor, Record, Recorder, copy_bandwidth};
use matexp_core::{Scalar, ShiftedStep, c64};
use matexp_sparse::generators::{SpinBath, StoredZeros, barabasi_albert, laplacian_3d};
use matexp_sparse::{CsrIndex, CsrMatrix, PatternCsr};
use std::hint::black_box;
use std::time::Duration;

const GROUP: &str = "spmv";

/// Bytes of one y ← A·x under the model above.
fn spmv_bytes(
    n: usize,
    nnz: usize,
    value_bytes: usize,
    index_bytes: usize,
    vector_bytes: usize,
) -> f64 {
    (nnz * (value_bytes + index_bytes) + (n + 1) * index_bytes + 2 * n * vector_bytes) as f64
}

fn record<S: Scalar>(case: &str, n: usize, nnz: usize, index: &str, bytes: f64) -> Record {
    Record::new("spmv", case, "cpu", S::NAME)
        .size("n", n)
        .size("nnz", nnz)
        .matvecs(1)
        .extra("index", index)
        .extra("bytes", bytes)
}

fn bench_csr<S: Scalar, I: CsrIndex>(
    c: &mut Criterion,
    rec: &mut Recorder,
    bandwidth: f64,
    case: &str,
    a: &CsrMatrix<S, I>,
    scipy: bool,
) {
    let n = a.nrows();
    let x: Vec<S> = (0..n)
        .map(|i| S::from_f64(1.0 + (i % 7) as f64 * 0.125))
        .collect();
    let mut y = vec![S::zero(); n];
    let bytes = spmv_bytes(n, a.nnz(), size_of::<S>(), I::BYTES, size_of::<S>());
    c.benchmark_group(GROUP).bench_function(case, |b| {
        b.iter(|| {
            a.spmv(S::one(), black_box(&x), S::zero(), black_box(&mut y))
                .unwrap()
        })
    });
    let mut ours = record::<S>(case, n, a.nnz(), I::NAME, bytes);
    if scipy {
        if let Some(peer) = scipy_spmv(&ours, a, &x, &y) {
            ours.peer_ratio = scipy_peer::criterion_median(GROUP, case).map(|t| peer.time_s / t);
            rec.add_timed(peer);
        }
    }
    rec.add(GROUP, case, ours, Some(Floor { bytes, bandwidth }));
}

/// SciPy's `A @ x` on the same matrix and vector (`y`: our product, to check it against).
fn scipy_spmv<S: Scalar, I: CsrIndex>(
    ours: &Record,
    a: &CsrMatrix<S, I>,
    x: &[S],
    y: &[S],
) -> Option<Record> {
    let dir = scipy_peer::scratch("spmv");
    scipy_peer::write_csr(&dir, "A", a);
    scipy_peer::write_vec(&dir.join("x"), x);
    scipy_peer::write_vec(&dir.join("y"), y);
    let args = ["--dtype", S::NAME, "--reps", "50", "--max-s", "5"].map(String::from);
    let v = scipy_peer::run("spmv", &dir, &args);
    let _ = std::fs::remove_dir_all(&dir);
    let v = v?;
    let r = scipy_peer::peer_record(ours, &v)?;
    Some(
        r.extra("mem_bytes", v["bytes"].as_f64()?)
            .extra("index", v["index_dtype"].as_str().unwrap_or("?"))
            .extra("threads", 1)
            .extra("call", "A @ x (scipy.sparse.csr_array)"),
    )
}

fn bench_pattern<I: CsrIndex>(
    c: &mut Criterion,
    rec: &mut Recorder,
    bandwidth: f64,
    case: &str,
    g: &PatternCsr<I>,
) {
    let n = g.nrows();
    let x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 5) as f64 * 0.25).collect();
    let mut y = vec![0.0f64; n];
    let bytes = spmv_bytes(n, g.nnz(), 0, I::BYTES, 8);
    c.benchmark_group(GROUP).bench_function(case, |b| {
        b.iter(|| g.spmv(1.0, black_box(&x), 0.0, black_box(&mut y)).unwrap())
    });
    let r = record::<f64>(case, n, g.nnz(), I::NAME, bytes)
        .extra("pattern", true)
        .extra("max_degree", g.max_degree());
    rec.add(GROUP, case, r, Some(Floor { bytes, bandwidth }));
}

fn bench_leja(
    c: &mut Criterion,
    rec: &mut Recorder,
    bandwidth: f64,
    case: &str,
    a: &CsrMatrix<f64, u32>,
) {
    let n = a.nrows();
    let y_prev: Vec<f64> = (0..n).map(|i| ((i % 11) as f64 - 5.0) * 1e-3).collect();
    let mut y_next = vec![0.0; n];
    let mut p = vec![0.0; n];
    let step = ShiftedStep {
        alpha: 1.0 / 3.0e4,
        shift: 0.5,
        coeff: 1e-3,
    };
    // SpMV bytes plus p read + p write (y_next write is the SpMV's y write).
    let bytes = spmv_bytes(n, a.nnz(), 8, 4, 8) + 2.0 * (n * 8) as f64;
    c.benchmark_group(GROUP).bench_function(case, |b| {
        b.iter(|| {
            a.leja_step_fused(
                &step,
                black_box(&y_prev),
                black_box(&mut y_next),
                black_box(&mut p),
            )
            .unwrap()
        })
    });
    rec.add(
        GROUP,
        case,
        record::<f64>(case, n, a.nnz(), "u32", bytes).extra("fused_leja_step", true),
        Some(Floor { bytes, bandwidth }),
    );
}

fn main() {
    let full = std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1");
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10);
    let mut rec = Recorder::new("spmv");
    let bandwidth = copy_bandwidth(256 << 20, 5);
    eprintln!("spmv: parallel copy bandwidth {:.1} GB/s", bandwidth / 1e9);

    let spins: &[usize] = if full { &[17, 18] } else { &[16] };
    for &l in spins {
        let h = SpinBath::seed000(l, 2011)
            .and_then(|m| m.hamiltonian::<c64, u32>(StoredZeros::Keep))
            .expect("spin-bath Hamiltonian");
        bench_csr(
            &mut c,
            &mut rec,
            bandwidth,
            &format!("spinbath_L{l}"),
            &h,
            false,
        );
    }

    let laplace_n: &[usize] = if full { &[128] } else { &[64] };
    let scipy = scipy_peer::available(GROUP);
    for &n in laplace_n {
        let a = laplacian_3d::<f64, u32>(n).expect("Laplacian");
        bench_csr(
            &mut c,
            &mut rec,
            bandwidth,
            &format!("laplace3d_N{n}"),
            &a,
            scipy,
        );
        let a32 = a.cast::<f32>().expect("f32 Laplacian");
        bench_csr(
            &mut c,
            &mut rec,
            bandwidth,
            &format!("laplace3d_N{n}_f32"),
            &a32,
            scipy,
        );
        bench_leja(
            &mut c,
            &mut rec,
            bandwidth,
            &format!("leja_laplace3d_N{n}"),
            &a,
        );
    }

    let (ba_n, ba_label) = if full {
        (1_000_000, "1e6")
    } else {
        (100_000, "1e5")
    };
    let g = barabasi_albert::<u32>(ba_n, 10, 2021).expect("Barabási–Albert graph");
    bench_pattern(
        &mut c,
        &mut rec,
        bandwidth,
        &format!("ba_n{ba_label}_m10"),
        &g,
    );

    c.final_summary();
    match rec.finish() {
        Ok(records) => {
            for r in &records {
                eprintln!(
                    "{:<24} {:>10.3} ms  {:>6.1} GB/s  floor ratio {:.2}",
                    r.case,
                    r.time_s * 1e3,
                    r.extra
                        .get("gbps")
                        .and_then(|v| v.as_f64())
                        .unwrap_or(f64::NAN),
                    r.floor_ratio.unwrap_or(f64::NAN)
                );
            }
        }
        Err(e) => eprintln!("spmv: could not write benchmark records: {e}"),
    }
}
