//! Benchmark suite `divdiff`: divided differences of `exp` at Leja points of `[−2, 2]` by the
//! seed's Newton recurrence (`O(m²)`) and by the stable Taylor/banded-product method
//! (`O((s + T)·n·w)`, `s = ⌈ν/θ⌉`), for a real map (diffusion, `α = −2β`) and an imaginary
//! one (`exp(−iτH)`, `β = −i·span`).
//!
//! The span `|β|` grows with the number of points (`m/5`), as in a Leja interpolation that
//! converges with `m` points. Default sizes finish in well under a minute;
//! `MATEXP_BENCH_FULL=1` adds 2000 points.

use matexp_benches::criterion::Criterion;
use matexp_benches::{Record, Recorder};
use matexp_divdiff::{
    Affine, DdScalar, Function, Method, c64, divided_differences, divided_differences_detailed,
};
use std::hint::black_box;
use std::time::Duration;

const SUITE: &str = "divdiff";

fn full() -> bool {
    std::env::var("MATEXP_BENCH_FULL").is_ok_and(|v| v == "1")
}

/// `max_j |a_j − b_j| / max_j |b_j|`.
fn normwise_difference<T: DdScalar>(a: &[T], b: &[T]) -> f64 {
    let scale = b.iter().map(|x| x.modulus()).fold(0.0, f64::max);
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (*x - *y).modulus())
        .fold(0.0, f64::max);
    diff / scale
}

fn bench_map<T: DdScalar>(
    c: &mut Criterion,
    rec: &mut Recorder,
    kind: &str,
    map: Affine<T>,
    nodes: &[f64],
    span: f64,
) {
    let group_name = format!("divdiff_{kind}");
    let m = nodes.len();
    let stable = divided_differences_detailed(Function::Exp, map, nodes, Method::Stable)
        .expect("stable divided differences");
    let recurrence = divided_differences(Function::Exp, map, nodes, Method::Recurrence)
        .expect("recurrence divided differences");
    let difference = normwise_difference(&recurrence, &stable.values);
    let mut group = c.benchmark_group(&group_name);
    for (method, name) in [
        (Method::Stable, "stable"),
        (Method::Recurrence, "recurrence"),
    ] {
        let id = format!("{name}_m{m}_span{span}");
        group.bench_function(&id, |b| {
            b.iter(|| {
                divided_differences(Function::Exp, black_box(map), black_box(nodes), method)
                    .expect("divided differences")
            })
        });
        let mut record = Record::new(SUITE, &format!("{name}_{kind}"), "cpu", T::NAME)
            .size("points", m)
            .size("span", span)
            .extra("normwise_difference_stable_vs_recurrence", difference);
        if method == Method::Stable {
            record = record
                .extra("substeps", stable.substeps)
                .extra("bandwidth", stable.bandwidth);
        }
        rec.add(&group_name, &id, record, None);
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
    let mut sizes = vec![50usize, 100, 500];
    if full() {
        sizes.push(2000);
    }
    for m in sizes {
        let nodes = matexp_leja::leja_points(m).expect("shipped Leja table");
        let span = m as f64 / 5.0;
        bench_map(
            &mut c,
            &mut rec,
            "real",
            Affine::new(-2.0 * span, span),
            nodes,
            span,
        );
        bench_map(
            &mut c,
            &mut rec,
            "imaginary",
            Affine::new(c64::new(0.0, 0.0), c64::new(0.0, -span)),
            nodes,
            span,
        );
    }
    c.final_summary();
    match rec.finish() {
        Ok(records) => eprintln!("matexp-benches: wrote {} `{SUITE}` records", records.len()),
        Err(e) => {
            eprintln!("matexp-benches: could not write `{SUITE}` records: {e}");
            std::process::exit(1);
        }
    }
}
