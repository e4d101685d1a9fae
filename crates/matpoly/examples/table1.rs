//! Seed 004's Table 1 on this machine: Paterson–Stockmeyer polynomials of degree
//! `(d, b) ∈ {(12, 3), (20, 4), (30, 5)}` on the CPU backend (and on GPU 0 with `--gpu`),
//! with the DGEMM rate of the same run, and one dense exponential.
//!
//! ```text
//! cargo run --release -p matexp-matpoly --example table1 -- [N ...] [--gpu]
//! ```
//!
//! Default `N = 512`. The benchmark suites `matpoly` and `gpu_matpoly` of `matexp-benches`
//! measure the same with records; this is the quick look.

use matexp_core::Result;
use matexp_dense::Matrix;
use matexp_matpoly::{CpuDense, CublasDense, DenseBackend, Evaluator, Scheme};
use std::time::Instant;

fn test_matrix(n: usize) -> Matrix<f64> {
    Matrix::from_fn(n, n, |i, j| {
        let h = (i as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((j as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9));
        let z = (h ^ (h >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB) >> 11;
        (z as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) / n as f64
    })
}

/// Median wall-clock time of 3 runs after a warm-up; `sync` waits for queued work.
fn time(mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut t = Vec::new();
    for _ in 0..3 {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    t.sort_by(|a, b| a.total_cmp(b));
    Ok(t[1])
}

fn table<B: DenseBackend<f64>>(label: &str, be: B, n: usize) -> Result<()> {
    let mut ev = Evaluator::new(be);
    let x = test_matrix(n);
    let xd = ev.backend_mut().upload(&x)?;
    let mut c = ev.backend_mut().zeros(n, n)?;
    let flops = 2.0 * (n as f64).powi(3);
    let t_gemm = time(|| {
        let be = ev.backend_mut();
        be.gemm(1.0, &xd, &xd, 0.0, &mut c)?;
        be.synchronize()
    })?;
    println!(
        "{label:>6} n = {n}: DGEMM {:.2} ms, {:.1} GFlop/s",
        t_gemm * 1e3,
        flops / t_gemm / 1e9
    );
    for (d, b) in [(12usize, 3usize), (20, 4), (30, 5)] {
        let alpha: Vec<f64> = (0..=d).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let scheme = Scheme::PatersonStockmeyer { block: b };
        let t = time(|| {
            ev.evaluate_into(&xd, &alpha, scheme, &mut c)?;
            ev.backend_mut().synchronize()
        })?;
        let p = scheme.products(d);
        let gf = p as f64 * flops / t;
        println!(
            "{label:>6} d = {d:2}, b = {b}: {p} products, {:8.2} ms, {gf_g:7.1} GFlop/s, {:.2} of DGEMM",
            t * 1e3,
            gf / (flops / t_gemm),
            gf_g = gf / 1e9
        );
    }
    let a = x.scaled(50.0 * n as f64 / (n as f64).sqrt());
    let ad = ev.backend_mut().upload(&a)?;
    let mut rep = None;
    let t = time(|| {
        rep = Some(ev.expm_into(&ad, &mut c)?);
        ev.backend_mut().synchronize()
    })?;
    if let Some(r) = rep {
        println!(
            "{label:>6} expm: ‖A‖₁ = {:.1}, degree {}, {} squarings, {} products, {:.2} ms",
            r.norm1,
            r.degree,
            r.squarings,
            r.products,
            t * 1e3
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gpu = args.iter().any(|a| a == "--gpu");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes.push(512);
    }
    for &n in &sizes {
        table("cpu", CpuDense::new(), n)?;
        if gpu {
            table("cublas", CublasDense::new(0)?, n)?;
        }
    }
    Ok(())
}
