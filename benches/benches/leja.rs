//! Benchmark suite `leja`: generating Leja points (discrete on a uniform grid, fast Leja),
//! looking them up in the shipped table and mapping them onto an interval, and estimating a
//! spectral interval by Lanczos (`matexp_expmv::spectrum`).
//!
//! Default sizes finish in a few seconds on a laptop; `MATEXP_BENCH_FULL=1` adds the sizes
//! a long interpolation needs (10⁴ points, 10⁶-point grids).

use matexp_benches::criterion::Criterion;
use matexp_benches::{Record, Recorder};
use matexp_core::{CpuBackend, LinearOperator};
use matexp_expmv::spectrum::{SpectrumOptions, lanczos_bounds};
use matexp_leja::{Interval, discrete_leja_points, fast_leja_points, leja_points};
use std::hint::black_box;
use std::time::Duration;

const SUITE: &str = "leja";

fn full() -> bool {
    std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1")
}

fn record(case: &str) -> Record {
    Record::new(SUITE, case, "cpu", "f64")
}

fn discrete(c: &mut Criterion, rec: &mut Recorder) {
    let group_name = "leja_discrete";
    let mut sizes = vec![(100usize, 10_001usize), (500, 100_001)];
    if full() {
        sizes.push((1000, 1_000_001));
    }
    let mut group = c.benchmark_group(group_name);
    for (n, grid) in sizes {
        let id = format!("n{n}_grid{grid}");
        group.bench_function(&id, |b| {
            b.iter(|| discrete_leja_points(black_box(n), black_box(grid)).unwrap())
        });
        rec.add(
            group_name,
            &id,
            record("discrete_leja")
                .size("n", n)
                .size("grid", grid)
                .extra("products_updated", (n * grid) as u64),
            None,
        );
    }
    group.finish();
}

fn fast(c: &mut Criterion, rec: &mut Recorder) {
    let group_name = "leja_fast";
    let mut sizes = vec![1000usize, 5000];
    if full() {
        sizes.extend([10_000, 20_000]);
    }
    let mut group = c.benchmark_group(group_name);
    for n in sizes {
        let id = format!("n{n}");
        group.bench_function(&id, |b| b.iter(|| fast_leja_points(black_box(n)).unwrap()));
        rec.add(group_name, &id, record("fast_leja").size("n", n), None);
    }
    group.finish();
}

fn table(c: &mut Criterion, rec: &mut Recorder) {
    let group_name = "leja_table";
    let k = Interval::real(-1.2e4, 0.0).expect("valid interval");
    let mut group = c.benchmark_group(group_name);
    for n in [500usize, 10_000] {
        let id = format!("lookup_n{n}");
        group.bench_function(&id, |b| b.iter(|| leja_points(black_box(n)).unwrap()));
        rec.add(group_name, &id, record("table_lookup").size("n", n), None);
        let id = format!("map_n{n}");
        group.bench_function(&id, |b| {
            b.iter(|| black_box(&k).leja_coordinates(black_box(n)).unwrap())
        });
        rec.add(
            group_name,
            &id,
            record("table_map_to_interval").size("n", n),
            None,
        );
    }
    group.finish();
}

/// y = L x for tridiag(1, −2, 1).
fn laplacian_1d(x: &[f64], y: &mut [f64]) {
    let n = x.len();
    y[0] = -2.0 * x[0] + if n > 1 { x[1] } else { 0.0 };
    for i in 1..n.saturating_sub(1) {
        y[i] = x[i - 1] - 2.0 * x[i] + x[i + 1];
    }
    if n > 1 {
        y[n - 1] = x[n - 2] - 2.0 * x[n - 1];
    }
}

/// tridiag(1, −2, 1) of order n as an operator ([`laplacian_1d`]).
struct Laplacian1d(usize);

impl LinearOperator<CpuBackend, f64> for Laplacian1d {
    fn nrows(&self) -> usize {
        self.0
    }
    fn ncols(&self) -> usize {
        self.0
    }
    fn apply(
        &self,
        _: &CpuBackend,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> matexp_core::Result<()> {
        let mut lx = vec![0.0; self.0];
        laplacian_1d(x, &mut lx);
        for (yi, l) in y.iter_mut().zip(lx) {
            *yi = if beta == 0.0 {
                alpha * l
            } else {
                alpha * l + beta * *yi
            };
        }
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn lanczos(c: &mut Criterion, rec: &mut Recorder) {
    let group_name = "leja_lanczos";
    let opts = SpectrumOptions::default();
    let mut sizes = vec![100_000usize];
    if full() {
        sizes.push(2_097_152);
    }
    let mut group = c.benchmark_group(group_name);
    for n in sizes {
        let id = format!("laplace1d_n{n}");
        group.bench_function(&id, |b| {
            b.iter(|| lanczos_bounds(&CpuBackend, &Laplacian1d(black_box(n)), &opts).unwrap())
        });
        // Error of the widened interval against the analytic extreme eigenvalue −4cos²(π/(2(n+1))).
        let est = lanczos_bounds(&CpuBackend, &Laplacian1d(n), &opts).expect("Lanczos estimate");
        let s = (n as f64 * std::f64::consts::PI / (2.0 * (n as f64 + 1.0))).sin();
        let lmin = -4.0 * s * s;
        rec.add(
            group_name,
            &id,
            record("lanczos_bounds")
                .size("n", n)
                .matvecs(est.steps as u64)
                .error((est.bounds.re_min - lmin).abs())
                .extra("rel_margin", opts.lanczos_margin),
            None,
        );
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    let mut rec = Recorder::new(SUITE);
    discrete(&mut c, &mut rec);
    fast(&mut c, &mut rec);
    table(&mut c, &mut rec);
    lanczos(&mut c, &mut rec);
    c.final_summary();
    match rec.finish() {
        Ok(records) => eprintln!("matexp-benches: wrote {} `{SUITE}` records", records.len()),
        Err(e) => {
            eprintln!("matexp-benches: could not write `{SUITE}` records: {e}");
            std::process::exit(1);
        }
    }
}
