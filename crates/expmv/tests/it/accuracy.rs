//! Each method against the dense exponential, across problem classes, norms ‖tA‖₁ from 1 to
//! 10⁴ and tolerances 10⁻⁴ … 10⁻¹²: the error must be ≤ 10·tol.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, LinearOperator, RealScalar, Scalar, c64};
use matexp_expmv::*;

const TOLS: [f64; 3] = [1e-4, 1e-8, 1e-12];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Method {
    Lanczos,
    Arnoldi,
    Taylor,
    /// Taylor with the caller's bound ‖A‖₁ instead of the automatic norm information.
    TaylorBound,
}

fn run<S: Scalar, O: LinearOperator<CpuBackend, S> + ?Sized>(
    method: Method,
    op: &O,
    norm1: f64,
    t: S,
    v: &[S],
    tol: f64,
) -> (Vec<S>, Report) {
    let cpu = CpuBackend::new();
    let v = v.to_vec();
    let tol = Tolerance::relative(tol);
    let r = match method {
        Method::Lanczos => lanczos_expmv(
            &cpu,
            op,
            t,
            &v,
            &LanczosOptions {
                tol,
                ..Default::default()
            },
        ),
        Method::Arnoldi => arnoldi_expmv(
            &cpu,
            op,
            t,
            &v,
            &ArnoldiOptions {
                tol,
                ..Default::default()
            },
        ),
        Method::Taylor => taylor_expmv(
            &cpu,
            op,
            t,
            &v,
            &TaylorOptions {
                tol,
                ..Default::default()
            },
        ),
        Method::TaylorBound => taylor_expmv(
            &cpu,
            op,
            t,
            &v,
            &TaylorOptions {
                tol,
                norm: NormBound::Upper(norm1),
                ..Default::default()
            },
        ),
    };
    r.unwrap_or_else(|e| panic!("{method:?} failed: {e}"))
}

/// Runs `methods` on `problem` scaled to each norm (with time t = `time_factor`, |t| = 1),
/// collecting every violation of err ≤ 10·tol.
fn sweep<S: Scalar>(
    problem: &Problem<S>,
    norms: &[f64],
    time_factor: S,
    methods: &[Method],
    failures: &mut Vec<String>,
) {
    for &norm in norms {
        let q = problem.with_norm(norm);
        let v = start_vector::<S>(q.n(), 7);
        let reference = dense_expmv(&q.a, time_factor, &v);
        for &method in methods {
            for &tol in &TOLS {
                let (w, rep) = run(method, &q.op, q.norm1(), time_factor, &v, tol);
                let err = rel_err(&w, &reference);
                if err.is_nan() || err > 10.0 * tol {
                    failures.push(format!(
                        "{} with t = {time_factor}: {method:?} tol {tol:.0e}: error {err:.2e} ({} products)",
                        q.name, rep.matvecs
                    ));
                }
            }
        }
    }
}

fn report(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

use Method::*;

#[test]
fn symmetric_negative_definite_laplacians() {
    let mut f = Vec::new();
    sweep(
        &laplacian(100, 1),
        &[1.0, 10.0, 1e2, 1e3, 1e4],
        1.0,
        &[Lanczos, Arnoldi, Taylor],
        &mut f,
    );
    sweep(
        &laplacian(12, 2),
        &[1.0, 1e2, 1e4],
        1.0,
        &[Lanczos, Arnoldi, Taylor, TaylorBound],
        &mut f,
    );
    sweep(
        &laplacian(5, 3),
        &[3.0, 1e3],
        1.0,
        &[Lanczos, Arnoldi, Taylor],
        &mut f,
    );
    report(f);
}

#[test]
fn nonsymmetric_advection_diffusion() {
    let mut f = Vec::new();
    // Péclet numbers ch/2 = 0.1 and 0.25. The similarity that symmetrizes A has condition
    // ((1 + Pe)/(1 − Pe))^{(n−1)/2} ≈ 2e4 for both: beyond that (Pe → 1, long domains) the
    // transient growth of e^{tA} makes every method, and the dense reference, lose digits.
    sweep(
        &advection_diffusion(100, 20.0),
        &[1.0, 1e2, 1e4],
        1.0,
        &[Arnoldi, Taylor, TaylorBound],
        &mut f,
    );
    sweep(
        &advection_diffusion(40, 20.5),
        &[1.0, 1e2, 1e3],
        1.0,
        &[Arnoldi, Taylor, TaylorBound],
        &mut f,
    );
    report(f);
}

#[test]
fn complex_hermitian_with_minus_i() {
    let mut f = Vec::new();
    let mi = c64::new(0.0, -1.0);
    sweep(
        &random_hermitian(60, 3),
        &[1.0, 1e2, 1e3, 1e4],
        mi,
        &[Lanczos, Arnoldi, Taylor],
        &mut f,
    );
    sweep(
        &spin_chain(7, 0.5, 4),
        &[1.0, 30.0, 300.0],
        mi,
        &[Lanczos, Arnoldi, Taylor],
        &mut f,
    );
    report(f);
}

#[test]
fn skew_hermitian() {
    let mut f = Vec::new();
    // i·H as an operator in its own right (not Hermitian): Arnoldi and Taylor.
    let h = random_hermitian(50, 5);
    let ih = Problem::new("i·H (skew-Hermitian)", h.a.scaled(c64::new(0.0, 1.0)));
    sweep(
        &ih,
        &[1.0, 1e2, 1e3, 1e4],
        c64::new(1.0, 0.0),
        &[Arnoldi, Taylor],
        &mut f,
    );
    // Real skew-symmetric: pure central-difference advection.
    let n = 80;
    let adv = Problem::new(
        "central advection (skew-symmetric)",
        matexp_dense::Matrix::<f64>::from_fn(n, n, |i, j| {
            if j == i + 1 {
                -1.0
            } else if i == j + 1 {
                1.0
            } else {
                0.0
            }
        }),
    );
    sweep(&adv, &[1.0, 1e2, 1e3, 1e4], 1.0, &[Arnoldi, Taylor], &mut f);
    report(f);
}

#[test]
fn taylor_with_estimated_norms_on_an_opaque_operator() {
    // No is_hermitian, no bounds: Taylor estimates ‖(A − μI)^p‖^{1/p} from probes.
    let mut f = Vec::new();
    for (p, norms) in [
        (laplacian(80, 1), vec![1.0, 1e2, 1e4]),
        (advection_diffusion(80, 100.0), vec![10.0, 1e3]),
    ] {
        for norm in norms {
            let q = p.with_norm(norm);
            let v = start_vector::<f64>(q.n(), 2);
            let reference = dense_expmv(&q.a, 1.0, &v);
            for &tol in &TOLS {
                let (w, _) = run(Taylor, &Opaque(&q.op), norm, 1.0, &v, tol);
                let err = rel_err(&w, &reference);
                if err.is_nan() || err > 10.0 * tol {
                    f.push(format!(
                        "{}: opaque Taylor tol {tol:.0e}: {err:.2e}",
                        q.name
                    ));
                }
            }
        }
    }
    report(f);
}

#[test]
fn single_precision_is_within_single_precision_tolerance_of_double() {
    let cpu = CpuBackend::new();
    let q = laplacian(60, 1).with_norm(100.0);
    let v64 = start_vector::<f64>(q.n(), 1);
    let v32: Vec<f32> = v64.iter().map(|&x| x as f32).collect();
    let a32 = q.a.map(|x| x as f32);
    let op32 = matexp_core::DenseMatrixOperator::new(q.n(), q.n(), a32.to_row_major()).unwrap();
    let reference = dense_expmv(&q.a, 1.0, &v64);
    let tol = Tolerance::relative(1e-5);
    let outs: Vec<(&str, Vec<f32>)> = vec![
        (
            "lanczos",
            lanczos_expmv(
                &cpu,
                &op32,
                1.0f32,
                &v32,
                &LanczosOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap()
            .0,
        ),
        (
            "arnoldi",
            arnoldi_expmv(
                &cpu,
                &op32,
                1.0f32,
                &v32,
                &ArnoldiOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap()
            .0,
        ),
        (
            "taylor",
            taylor_expmv(
                &cpu,
                &op32,
                1.0f32,
                &v32,
                &TaylorOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap()
            .0,
        ),
    ];
    for (name, w) in outs {
        let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
        let err = rel_err(&w64, &reference);
        // The requested 1e−5 plus f32 rounding of data and arithmetic (≈ 100·u₃₂ at ‖A‖ = 100).
        assert!(
            err <= 10.0 * 1e-5 + 100.0 * f32::EPS.as_f64(),
            "{name}: {err:e}"
        );
    }
}
