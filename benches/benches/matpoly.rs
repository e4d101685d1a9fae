//! Benchmark suite `matpoly` (CPU): seed 004's Table 1 — Paterson–Stockmeyer evaluation of
//! degree-`d` polynomials with block `b`, `(d, b) ∈ {(12, 3), (20, 4), (30, 5)}` — on the CPU
//! backend (OpenBLAS on every core through the `lapack` feature; `extra.blas`,
//! `extra.blas_threads` say which library and how many threads ran), beside Horner's
//! `d − 1` products and the DGEMM rate measured in the same run; and the dense exponential
//! against a closed-form reference.
//!
//! Default `n ∈ {256, 512}` (seconds on two cores); `MATEXP_BENCH_FULL=1`: the seed's
//! `n ∈ {2048, 4096, 6144}`. Times are wall-clock medians of `reps` runs after a warm-up
//! (each run is a whole polynomial, milliseconds to seconds, so criterion's sampling adds
//! nothing); records go through [`Recorder::add_timed`].
//!
//! Record fields: `extra.products`, `extra.gflops` (products·2n³ / time), `extra.dgemm_gflops`
//! and `extra.dgemm_ratio` (= gflops / DGEMM rate of the same run), `floor_ratio` = time /
//! (products × DGEMM time), the seed's i7-3820 (MKL) figures `extra.seed_time_s` /
//! `extra.seed_gflops` where the size matches; for `expm`: degree, squarings and `error`
//! against `S·e^D·S⁻¹` (the generator of `gpu_matpoly` and `benches/peers/expm_peers.py`).

use matexp_benches::{Record, Recorder};
use matexp_dense::Matrix;
use matexp_matpoly::{CpuDense, Evaluator, Scheme, gemm};
use std::time::Instant;

const SUITE: &str = "matpoly";

/// Seed 004, Table 1, CPU rows: (d, b, n, seconds, GFlop/s) on a quad-core i7-3820 with MKL.
const SEED_CPU: [(usize, usize, usize, f64, f64); 9] = [
    (12, 3, 2048, 0.99, 87.0),
    (12, 3, 4096, 6.83, 101.0),
    (12, 3, 6144, 25.1, 92.0),
    (20, 4, 2048, 1.55, 78.0),
    (20, 4, 4096, 10.4, 101.0),
    (20, 4, 6144, 35.4, 92.0),
    (30, 5, 2048, 2.59, 57.0),
    (30, 5, 4096, 12.5, 99.0),
    (30, 5, 6144, 45.8, 91.0),
];

fn full() -> bool {
    std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1")
}

fn median_time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[t.len() / 2]
}

/// Deterministic entries in [−1/n, 1/n] (‖X‖₁ ≈ 0.5).
fn test_matrix(n: usize) -> Matrix<f64> {
    Matrix::from_fn(n, n, |i, j| {
        let h = (i as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((j as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9));
        let z = (h ^ (h >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB) >> 11;
        (z as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) / n as f64
    })
}

/// `S·diag(f)·S⁻¹`, `S = I + u vᵀ` (see benches/benches/gpu_matpoly.rs).
fn similarity(f: &[f64], u: &[f64], v: &[f64]) -> Matrix<f64> {
    let n = f.len();
    let c = 1.0 / (1.0 + v.iter().zip(u).map(|(a, b)| a * b).sum::<f64>());
    let w: f64 = (0..n).map(|k| v[k] * f[k] * u[k]).sum();
    Matrix::from_fn(n, n, |i, j| {
        let diag = if i == j { f[i] } else { 0.0 };
        diag + u[i] * v[j] * f[j] - c * f[i] * u[i] * v[j] - c * u[i] * w * v[j]
    })
}

fn main() {
    let sizes: Vec<usize> = if full() {
        vec![2048, 4096, 6144]
    } else {
        vec![256, 512]
    };
    let reps = if full() { 2 } else { 5 };
    let mut rec = Recorder::new(SUITE);
    println!(
        "{:<22} {:>6} {:>10} {:>9} {:>8} {:>8}",
        "case", "n", "time", "GFlop/s", "of DGEMM", "seed"
    );
    for &n in &sizes {
        let x = test_matrix(n);
        let flops1 = 2.0 * (n as f64).powi(3);
        let mut c = Matrix::zeros(n, n);
        let t_gemm = median_time(reps, || gemm(1.0, &x, &x, 0.0, &mut c).expect("gemm"));
        let dgemm = flops1 / t_gemm;
        println!(
            "{:<22} {:>6} {:>8.2}ms {:>9.1} {:>8} {:>8}",
            "dgemm",
            n,
            t_gemm * 1e3,
            dgemm / 1e9,
            "1.00",
            "-"
        );
        let mut ev = Evaluator::new(CpuDense::new());
        let mut p = Matrix::zeros(n, n);
        for (d, b) in [(12usize, 3usize), (20, 4), (30, 5)] {
            let alpha: Vec<f64> = (0..=d).map(|i| 1.0 / (1.0 + i as f64)).collect();
            for scheme in [Scheme::PatersonStockmeyer { block: b }, Scheme::Horner] {
                let products = scheme.products(d);
                let t = median_time(reps, || {
                    ev.evaluate_into(&x, &alpha, scheme, &mut p)
                        .expect("evaluation")
                });
                let gf = products as f64 * flops1 / t;
                let seed = SEED_CPU
                    .iter()
                    .find(|s| (s.0, s.1, s.2) == (d, b, n))
                    .filter(|_| matches!(scheme, Scheme::PatersonStockmeyer { .. }));
                let case = format!("table1 d={d} b={b} {}", scheme.name());
                let mut r = Record::new(SUITE, &case, "cpu", "f64")
                    .size("n", n)
                    .size("d", d)
                    .size("b", b)
                    .extra("products", products)
                    .extra("gflops", gf / 1e9)
                    .extra("dgemm_gflops", dgemm / 1e9)
                    .extra("dgemm_ratio", gf / dgemm)
                    .extra("blas", matexp_matpoly::gemm_threads::<f64>().0)
                    .extra("blas_threads", matexp_matpoly::gemm_threads::<f64>().1);
                if let Some(s) = seed {
                    r = r
                        .extra("seed_time_s", s.3)
                        .extra("seed_gflops", s.4)
                        .extra("seed_device", "Intel i7-3820, MKL (2014)");
                }
                r.time_s = t;
                r.reps = reps as u64;
                r.floor_ratio = Some(t / (products as f64 * t_gemm));
                println!(
                    "{:<22} {:>6} {:>8.2}ms {:>9.1} {:>8.2} {:>8}",
                    case,
                    n,
                    t * 1e3,
                    gf / 1e9,
                    gf / dgemm,
                    seed.map_or("-".to_string(), |s| format!("{:.2}s", s.3))
                );
                rec.add_timed(r);
            }
        }
        // The exponential of A = S·D·S⁻¹ against S·e^D·S⁻¹.
        let nn = (n - 1) as f64;
        let dvals: Vec<f64> = (0..n).map(|i| -4.0 + 5.0 * i as f64 / nn).collect();
        let u: Vec<f64> = (0..n).map(|i| (0.37 * i as f64 + 0.1).sin()).collect();
        let v: Vec<f64> = (0..n)
            .map(|i| 0.5 * (0.23 * i as f64 + 0.2).cos() / (n as f64).sqrt())
            .collect();
        let a = similarity(&dvals, &u, &v);
        let e_ref = similarity(&dvals.iter().map(|x| x.exp()).collect::<Vec<_>>(), &u, &v);
        let mut e = Matrix::zeros(n, n);
        let mut report = None;
        let t = median_time(reps, || {
            report = Some(ev.expm_into(&a, &mut e).expect("expm"));
        });
        let rep = report.expect("one run");
        let mut diff = e.clone();
        diff.add_scaled(-1.0, &e_ref).expect("same shape");
        let error = diff.norm_one() / e_ref.norm_one();
        let gf = rep.products as f64 * flops1 / t;
        let mut r = Record::new(SUITE, &format!("expm n={n}"), "cpu", "f64")
            .size("n", n)
            .error(error)
            .extra("degree", rep.degree)
            .extra("squarings", rep.squarings)
            .extra("products", rep.products)
            .extra("gflops", gf / 1e9)
            .extra("dgemm_ratio", gf / dgemm);
        r.time_s = t;
        r.reps = reps as u64;
        println!(
            "{:<22} {:>6} {:>8.2}ms {:>9.1} {:>8.2} m{} s{} err {error:.1e}",
            "expm",
            n,
            t * 1e3,
            gf / 1e9,
            gf / dgemm,
            rep.degree,
            rep.squarings
        );
        rec.add_timed(r);
    }
    match rec.finish() {
        Ok(records) => eprintln!("matexp-benches: wrote {} `{SUITE}` records", records.len()),
        Err(e) => {
            eprintln!("matexp-benches: could not write `{SUITE}` records: {e}");
            std::process::exit(1);
        }
    }
}
