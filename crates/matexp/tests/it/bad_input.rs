//! NaN and ∞ in A, v or t at the facade's entry points (`expmv`, `phimv`, `expmv_times`),
//! with every method: a typed error naming the argument, never a NaN result. And a GPU that
//! is not there: a typed error, with the CPU path unaffected.

use matexp::sparse::generators::laplacian_1d;
use matexp::{
    AnyBackend, CpuBackend, CsrMatrix, Error, LinearOperator, Method, Options, Target, expmv,
    expmv_times, phimv,
};

const METHODS: [Method; 5] = [
    Method::Auto,
    Method::Leja,
    Method::Lanczos,
    Method::Arnoldi,
    Method::Taylor,
];

fn problem() -> (CsrMatrix<f64>, Vec<f64>) {
    let a: CsrMatrix<f64> = laplacian_1d(12).unwrap();
    let v: Vec<f64> = (0..12).map(|i| 1.0 + 0.1 * i as f64).collect();
    (a, v)
}

/// Every entry point with every method on `op`, `t`, `v`.
fn each_entry_point<O: LinearOperator<CpuBackend, f64>>(
    op: &O,
    t: f64,
    v: &[f64],
) -> Vec<(String, Result<Vec<f64>, Error>)> {
    let cpu = CpuBackend::new();
    let v = v.to_vec();
    let mut out = Vec::new();
    for m in METHODS {
        let opts = Options::default().with_method(m);
        out.push((
            format!("expmv {m:?}"),
            expmv(&cpu, op, t, &v, &opts).map(|r| r.0),
        ));
        out.push((
            format!("phimv {m:?}"),
            phimv(&cpu, op, t, &v, 1, &opts).map(|r| r.0.concat()),
        ));
        out.push((
            format!("expmv_times {m:?}"),
            expmv_times(&cpu, op, &[0.0, t], &v, &opts).map(|r| r.0.concat()),
        ));
    }
    out
}

#[test]
fn non_finite_times_are_refused() {
    let (a, v) = problem();
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for (call, r) in each_entry_point(&a, t, &v) {
            assert!(
                matches!(r, Err(Error::InvalidArgument { .. })),
                "{call} at t = {t}: {r:?}"
            );
        }
    }
}

#[test]
fn non_finite_vectors_are_refused_with_the_index() {
    let (a, mut v) = problem();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        v[5] = bad;
        for (call, r) in each_entry_point(&a, 0.1, &v) {
            assert!(
                matches!(r, Err(Error::NonFinite { index: 5, .. })),
                "{call} with v[5] = {bad}: {r:?}"
            );
        }
    }
}

#[test]
fn non_finite_matrices_are_refused_at_construction() {
    for bad in [f64::NAN, f64::INFINITY] {
        let r = CsrMatrix::<f64>::try_new(2, 2, vec![0, 1, 2], vec![0, 1], vec![1.0, bad]);
        assert!(matches!(r, Err(Error::NonFinite { index: 1, .. })), "{r:?}");
        let r = CsrMatrix::<f64>::from_dense(2, 2, &[1.0, 0.0, 0.0, bad]);
        assert!(matches!(r, Err(Error::NonFinite { .. })), "{r:?}");
    }
}

/// A matrix-free operator whose product yields NaN (a coefficient gone bad): the methods
/// must report it, never return NaN as a result.
struct PoisonedOperator(CsrMatrix<f64>);

impl LinearOperator<CpuBackend, f64> for PoisonedOperator {
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(
        &self,
        backend: &CpuBackend,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> matexp::Result<()> {
        self.0.apply(backend, alpha, x, beta, y)?;
        y[3] = f64::NAN;
        Ok(())
    }
}

#[test]
fn an_operator_producing_nan_gives_an_error_not_a_nan_result() {
    let (a, v) = problem();
    let op = PoisonedOperator(a);
    for (call, r) in each_entry_point(&op, 0.1, &v) {
        match r {
            Err(_) => {}
            Ok(w) => panic!("{call} returned a result from a NaN-producing operator: {w:?}"),
        }
    }
}

#[test]
fn a_missing_gpu_is_a_typed_error_and_the_cpu_path_is_unaffected() {
    // No machine has GPU number 1000; on a host without a CUDA driver GPU 0 is missing too.
    let e = AnyBackend::new(Target::Gpu(1000)).expect_err("gpu:1000 exists?");
    assert!(matches!(e, Error::Device(_)), "{e:?}");
    assert!(e.to_string().contains("gpu:1000"), "{e}");
    if matexp::gpu::device_count().map_or(true, |n| n == 0) {
        let e = AnyBackend::new(Target::Gpu(0)).expect_err("gpu:0 without a GPU");
        assert!(matches!(e, Error::Device(_)), "{e:?}");
    }
    let fallback = AnyBackend::gpu_or_cpu(1000);
    assert_eq!(fallback.target(), Target::Cpu);
    let (a, v) = problem();
    let opts = Options::default();
    let (w, report) = fallback.expmv(&a, 0.1, &v, &opts).unwrap();
    let (w_cpu, _) = expmv(&CpuBackend::new(), &a, 0.1, &v, &opts).unwrap();
    assert_eq!(w, w_cpu);
    assert!(report.converged);
}

#[test]
fn an_operator_larger_than_memory_is_a_typed_error_at_every_entry_point() {
    let op = matexp_testkit::ClaimsOrder(1 << 61);
    let v = vec![1.0; 12];
    for (call, r) in each_entry_point(&op, 0.1, &v) {
        assert!(
            matches!(r, Err(Error::DimensionMismatch { .. })),
            "{call}: {r:?}"
        );
    }
    let cpu = CpuBackend::new();
    let opts = Options::default();
    let r = matexp::phi_combination(&cpu, &op, 0.1, &[&v, &v], &opts);
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
    let r = matexp::expmv_columns(&cpu, &op, 0.1, &v, &opts);
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
    // No vector to compare with: the vector of ones cannot be allocated.
    // The core compares its size with the memory budget first (OutOfMemoryBudget); an
    // allocator's refusal names the length.
    match matexp::total_communicability(&cpu, &op, 1.0, &Default::default()) {
        Err(Error::OutOfMemoryBudget {
            needed, available, ..
        }) => assert!(
            needed > available && needed >= 1 << 61,
            "{needed} <= {available}"
        ),
        Err(e @ Error::InvalidArgument { .. }) => {
            assert!(e.to_string().contains("2305843009213693952"), "{e}")
        }
        other => panic!("{:?}", other.map(|r| r.1)),
    }
}
