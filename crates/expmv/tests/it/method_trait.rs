//! Every method through the one trait: default options in every precision, times of either
//! sign and in any order, complex time, φ₀…φ_k together, blocks, workspace resizing and the
//! common report, each checked against dense references.

use crate::common;

use common::{Problem, dense_expmv, dense_phimv, laplacian, rel_err, spin_chain, start_vector};
use matexp_core::{CpuBackend, DenseMatrixOperator, Error, Scalar, c32, c64};
use matexp_dense::Matrix;
use matexp_expmv::{
    Arnoldi, ExpmvMethod, Lanczos, Leja, MethodOptions, Taylor, TimeGrid, Tolerance,
};

static CPU: CpuBackend = CpuBackend;

/// Runs `$check::<Method<'_, CpuBackend, S>, S>(args…)` (or, without a scalar, the f64
/// methods) for the four methods.
macro_rules! for_each_method {
    ($check:ident :: <$s:ty> ($($arg:expr),*)) => {
        $check::<Leja<'_, CpuBackend, $s>, $s>($($arg),*);
        $check::<Lanczos<'_, CpuBackend, $s>, $s>($($arg),*);
        $check::<Arnoldi<'_, CpuBackend, $s>, $s>($($arg),*);
        $check::<Taylor<'_, CpuBackend, $s>, $s>($($arg),*);
    };
    ($check:ident ($($arg:expr),*)) => {
        $check::<Leja<'_, CpuBackend, f64>>($($arg),*);
        $check::<Lanczos<'_, CpuBackend, f64>>($($arg),*);
        $check::<Arnoldi<'_, CpuBackend, f64>>($($arg),*);
        $check::<Taylor<'_, CpuBackend, f64>>($($arg),*);
    };
}

/// The problem in scalar type `S` (entries rounded from f64/c64).
fn cast<S: Scalar>(p: &Problem<impl Scalar>) -> DenseMatrixOperator<S> {
    let n = p.n();
    let a = Matrix::<S>::from_fn(n, n, |i, j| S::from_c64(p.a[(i, j)].to_c64()));
    DenseMatrixOperator::new(n, n, a.to_row_major()).unwrap()
}

fn to_c64<S: Scalar>(x: &[S]) -> Vec<c64> {
    x.iter().map(|v| v.to_c64()).collect()
}

fn default_options_reach_the_default_tolerance<'a, M: ExpmvMethod<'a, CpuBackend, S>, S: Scalar>(
    p: &Problem<c64>,
    t: c64,
) {
    let op = cast::<S>(p);
    let v: Vec<S> = start_vector(p.n(), 3);
    let mut m = M::new(&CPU, M::Options::default()).unwrap();
    let mut w = vec![S::zero(); p.n()];
    let report = m.expmv(&op, S::from_c64(t), &v, &mut w).unwrap();
    let exact = dense_expmv(&p.a, t, &to_c64(&v));
    let err = rel_err(&to_c64(&w), &exact);
    let rtol = Tolerance::default_rtol::<S>();
    assert_eq!(report.rtol, rtol);
    // The rounding of the input to S alone is a few units of roundoff times ‖tA‖.
    assert!(
        err <= 20.0 * rtol,
        "{} in {}: error {err:.2e} for the default rtol {rtol:.0e} ({report})",
        M::NAME,
        S::NAME
    );
    assert!(
        report.converged && report.rel_error_estimate.is_finite(),
        "{report}"
    );
    let line = report.to_string();
    assert!(
        line.starts_with(M::NAME) && line.contains("products"),
        "{line}"
    );
}

#[test]
fn default_options_work_in_every_precision_for_every_method() {
    // Hermitian, so that Lanczos applies too; ‖tA‖ ≈ 6.
    let lap = laplacian(10, 2);
    let lap_c = Problem::new(
        "2D Laplacian (complex)",
        Matrix::<c64>::from_fn(lap.n(), lap.n(), |i, j| c64::new(lap.a[(i, j)], 0.0)),
    );
    let t = c64::new(0.7, 0.0);
    for_each_method!(default_options_reach_the_default_tolerance::<f64>(
        &lap_c, t
    ));
    for_each_method!(default_options_reach_the_default_tolerance::<f32>(
        &lap_c, t
    ));
    // Complex: the Schrödinger propagator e^{−iτH}, spelled as the complex time −iτ.
    let h = spin_chain(5, 0.5, 7);
    let t = c64::new(0.0, -1.5);
    for_each_method!(default_options_reach_the_default_tolerance::<c64>(&h, t));
    for_each_method!(default_options_reach_the_default_tolerance::<c32>(&h, t));
}

#[test]
fn a_tolerance_below_single_precision_roundoff_names_the_fix() {
    fn rejects<'a, M: ExpmvMethod<'a, CpuBackend, f32>>() {
        let opts = M::Options::default().resolved::<f64>().unwrap();
        assert_eq!(opts.tolerance().rtol, 1e-8);
        let mut tight = M::Options::default();
        tight.set_tolerance(Tolerance::relative(1e-9));
        let e = M::new(&CPU, tight)
            .err()
            .expect("1e-9 is below f32 roundoff");
        let msg = e.to_string();
        assert!(
            matches!(e, Error::InvalidArgument { name: "rtol", .. }),
            "{msg}"
        );
        assert!(
            // The default of f32 (1e-3, above its rounding floor) and the way out.
            msg.contains("1e-3") && msg.contains("f64"),
            "{}: {msg}",
            M::NAME
        );
    }
    rejects::<Leja<'_, CpuBackend, f32>>();
    rejects::<Lanczos<'_, CpuBackend, f32>>();
    rejects::<Arnoldi<'_, CpuBackend, f32>>();
    rejects::<Taylor<'_, CpuBackend, f32>>();
}

fn times_of_either_sign_in_any_order<'a, M: ExpmvMethod<'a, CpuBackend, f64>>(p: &Problem<f64>) {
    let v: Vec<f64> = start_vector(p.n(), 11);
    let mut m = M::new(&CPU, M::Options::default()).unwrap();
    let mut opts = m.options().clone();
    opts.set_tolerance(Tolerance::relative(1e-10));
    m.set_options(opts).unwrap();
    // SciPy's grid from a start ≠ 0 through 0 to positive times, then an unordered list.
    let grid = TimeGrid::linspace(-0.3, 0.6, 4);
    let list = TimeGrid::list(vec![0.45, -0.05, 0.0, 0.15]);
    for times in [&grid, &list] {
        let mut out = vec![vec![0.0; p.n()]; times.len()];
        let report = m.expmv_times(&p.op, times, &v, &mut out).unwrap();
        for (w, &t) in out.iter().zip(times.iter()) {
            let exact = dense_expmv(&p.a, t, &v);
            let err = rel_err(w, &exact);
            assert!(err <= 1e-8, "{} at t = {t}: {err:.2e} ({report})", M::NAME);
        }
    }
}

#[test]
fn several_times_of_either_sign_for_every_method() {
    let p = laplacian(12, 1).with_norm(8.0);
    for_each_method!(times_of_either_sign_in_any_order(&p));
}

fn phi_functions_together<'a, M: ExpmvMethod<'a, CpuBackend, f64>>(p: &Problem<f64>, t: f64) {
    let v: Vec<f64> = start_vector(p.n(), 5);
    let opts = {
        let mut o = M::Options::default();
        o.set_tolerance(Tolerance::relative(1e-10));
        o
    };
    let mut m = M::new(&CPU, opts).unwrap();
    let mut out = vec![vec![0.0; p.n()]; 4];
    let report = m.phimv(&p.op, t, &v, &mut out).unwrap();
    for (k, w) in out.iter().enumerate() {
        let exact = dense_phimv(&p.a, k, t, &v);
        let err = rel_err(w, &exact);
        assert!(err <= 1e-8, "{} φ_{k}: {err:.2e} ({report})", M::NAME);
    }
    // φ_k alone agrees with the k-th of the set.
    let mut w = vec![0.0; p.n()];
    m.phimv_k(&p.op, 2, t, &v, &mut w).unwrap();
    assert!(rel_err(&w, &out[2]) <= 1e-8, "{}", M::NAME);
}

#[test]
fn phi_functions_together_for_every_method() {
    let p = laplacian(8, 2);
    for_each_method!(phi_functions_together(&p, 0.4));
}

fn block_and_resizing<'a, M: ExpmvMethod<'a, CpuBackend, f64>>() {
    let mut m = M::new(&CPU, M::Options::default()).unwrap();
    // One workspace serves operators of different orders, one after another.
    for (size, t) in [(20, 0.3), (7, 0.5), (20, 0.1)] {
        let p = laplacian(size, 1);
        let vs: Vec<Vec<f64>> = (0..3).map(|j| start_vector(size, 20 + j)).collect();
        let mut ws = vec![vec![0.0; size]; 3];
        let report = m.expmv_block(&p.op, t, &vs, &mut ws).unwrap();
        for (v, w) in vs.iter().zip(&ws) {
            let err = rel_err(w, &dense_expmv(&p.a, t, v));
            assert!(err <= 1e-6, "{} n = {size}: {err:.2e} ({report})", M::NAME);
        }
        // Taylor's estimate is the size of the last series terms, which need not fall
        // below rtol when the degree is fixed by the backward-error bound.
        if M::NAME != "taylor" {
            assert!(report.rel_error_estimate <= 10.0 * report.rtol, "{report}");
        }
        assert!(report.rel_error_estimate.is_finite(), "{report}");
    }
}

#[test]
fn blocks_and_workspaces_of_changing_order_for_every_method() {
    for_each_method!(block_and_resizing());
}

#[test]
fn leja_estimates_the_spectrum_once_for_all_phi_functions() {
    // An operator that knows neither its bounds nor that it is Hermitian.
    let p = laplacian(10, 1);
    let op = common::Opaque(&p.op);
    let v: Vec<f64> = start_vector(p.n(), 9);
    let mut leja = Leja::new(&CPU, matexp_expmv::LejaOptions::default()).unwrap();
    let mut w = vec![0.0; p.n()];
    let single = leja.expmv(&op, 0.3, &v, &mut w).unwrap();
    assert!(single.estimate_matvecs > 0, "{single}");
    let mut out = vec![vec![0.0; p.n()]; 3];
    let report = leja.phimv(&op, 0.3, &v, &mut out).unwrap();
    assert_eq!(report.estimate_matvecs, single.estimate_matvecs, "{report}");
    for (k, w) in out.iter().enumerate() {
        let err = rel_err(w, &dense_phimv(&p.a, k, 0.3, &v));
        assert!(err <= 1e-6, "φ_{k}: {err:.2e} ({report})");
    }
    // The options' bounds are restored: the next call estimates again.
    assert!(leja.options().bounds.is_none());
}
