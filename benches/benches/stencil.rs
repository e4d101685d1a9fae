//! CPU benchmarks of the matrix-free stencils (matexp-stencil) against the assembled CSR
//! matrix and the host's copy bandwidth: one (αA+βI)x product for each boundary kind, the
//! seed's coefficient, the fused shifted step, the z-split over 4 parts, and the combustion
//! source (seed 003's Tables I–III on the CPU backend).
//!
//! Sizes: N = 64 by default, N = 128 with `MATEXP_BENCH_FULL=1` (`cargo xtask bench --full`).
//! Floor: one read of x and one write of y (the fused step: x, p read; y, p written),
//! divided by a parallel copy's bandwidth measured in the same run.

use criterion::{Criterion, criterion_group, criterion_main};
use matexp_benches::{Floor, Record, Recorder, copy_bandwidth};
use matexp_core::{CpuBackend, LinearOperator, OperatorSteps, ShiftedStep};
use matexp_stencil::partition::{PartitionedStencil, ZPartition};
use matexp_stencil::{Boundary, Coefficient, Dim, Pointwise, Stencil};
use std::hint::black_box;

fn size() -> usize {
    if std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1") {
        128
    } else {
        64
    }
}

fn input(len: usize) -> Vec<f64> {
    (0..len)
        .map(|i| 1.0 + 0.9 * ((i as f64) * 0.618).sin())
        .collect()
}

fn record(case: &str, n: usize) -> Record {
    let mut r = Record::new("stencil", case, "cpu", "f64")
        .size("n", n * n * n)
        .size("axis", n);
    r.device = matexp_benches::device_name();
    r
}

fn bench(c: &mut Criterion) {
    let n = size();
    let len = n * n * n;
    let bw = copy_bandwidth(len * 8 * 2, 10);
    let mut rec = Recorder::new("stencil");
    let x = input(len);
    let mut y = vec![0.0; len];
    let two = Floor {
        bytes: 2.0 * (len * 8) as f64,
        bandwidth: bw,
    };
    let mut g = c.benchmark_group("stencil");
    g.sample_size(20);
    for (name, bc) in [
        ("dirichlet", Boundary::Dirichlet),
        ("neumann", Boundary::Neumann),
        ("periodic", Boundary::Periodic),
        ("none", Boundary::Frame),
    ] {
        let op = Stencil::<f64>::laplacian(Dim::Three, n, bc).unwrap();
        let id = format!("shifted_{name}");
        g.bench_function(&id, |b| {
            b.iter(|| op.apply_shifted(1e-6, 1.0, black_box(&x), &mut y).unwrap())
        });
        rec.add("stencil", &id, record(&id, n), Some(two));
    }
    let seed_d = Stencil::<f64>::builder(Dim::Three, n)
        .coefficient(Coefficient::Seed)
        .build()
        .unwrap();
    g.bench_function("shifted_seed_d", |b| {
        b.iter(|| {
            seed_d
                .apply_shifted(1e-6, 1.0, black_box(&x), &mut y)
                .unwrap()
        })
    });
    rec.add(
        "stencil",
        "shifted_seed_d",
        record("shifted_seed_d", n),
        Some(two),
    );

    // The same product through the assembled matrix (y ← αAx + βy: reads y too).
    let op = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let csr = op.to_csr().unwrap();
    g.bench_function("csr_dirichlet", |b| {
        b.iter(|| {
            csr.apply(&CpuBackend, 1e-6, black_box(&x), 1.0, &mut y)
                .unwrap()
        })
    });
    rec.add(
        "stencil",
        "csr_dirichlet",
        record("csr_dirichlet", n).size("nnz", csr.nnz()),
        Some(Floor {
            bytes: (csr.nnz() * 12 + (len + 1) * 4 + 3 * len * 8) as f64,
            bandwidth: bw,
        }),
    );

    let step = ShiftedStep {
        alpha: 1e-6,
        shift: 0.5,
        coeff: 1e-3,
    };
    let mut p = input(len);
    g.bench_function("fused_step_dirichlet", |b| {
        b.iter(|| {
            op.shifted_step(&CpuBackend, &step, black_box(&x), &mut y, &mut p)
                .unwrap()
        })
    });
    rec.add(
        "stencil",
        "fused_step_dirichlet",
        record("fused_step_dirichlet", n),
        Some(Floor {
            bytes: 4.0 * (len * 8) as f64,
            bandwidth: bw,
        }),
    );

    let split = PartitionedStencil::new(&op, ZPartition::even(n, 4).unwrap()).unwrap();
    let xs = split.partition().split(n * n, &x).unwrap();
    let mut ys = split.partition().split(n * n, &y).unwrap();
    g.bench_function("partitioned4_dirichlet", |b| {
        b.iter(|| split.apply(1e-6, black_box(&xs), 0.0, &mut ys).unwrap())
    });
    rec.add(
        "stencil",
        "partitioned4_dirichlet",
        record("partitioned4_dirichlet", n).extra("parts", 4),
        Some(two),
    );

    for (name, f) in [
        ("full", Pointwise::Combustion),
        ("fast", Pointwise::CombustionFast),
    ] {
        let id = format!("combustion_{name}");
        g.bench_function(&id, |b| b.iter(|| f.apply(black_box(&x), &mut y).unwrap()));
        rec.add("stencil", &id, record(&id, n), Some(two));
    }
    g.finish();
    rec.finish().unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
