//! Failure paths of the solvers: non-finite arguments end in typed errors naming them,
//! non-convergence is an error (or a report marked unconverged), never a converged result,
//! and the φ-order cap is the same for every method.

mod common;

use common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, Error, c64};
use matexp_integrators::*;

static CPU: CpuBackend = CpuBackend;

fn norm(v: &[c64]) -> f64 {
    v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// Runs every method's e^{tA}v on `a`.
fn each_method(
    a: &DenseMatrixOperator<f64>,
    t: f64,
    v: &[f64],
) -> Vec<(&'static str, Result<Vec<f64>, Error>)> {
    let v = v.to_vec();
    vec![
        (
            "leja",
            leja_expmv(&CPU, a, t, &v, &LejaOptions::default()).map(|r| r.0),
        ),
        (
            "lanczos",
            lanczos_expmv(&CPU, a, t, &v, &LanczosOptions::default()).map(|r| r.0),
        ),
        (
            "arnoldi",
            arnoldi_expmv(&CPU, a, t, &v, &ArnoldiOptions::default()).map(|r| r.0),
        ),
        (
            "taylor",
            taylor_expmv(&CPU, a, t, &v, &TaylorOptions::default()).map(|r| r.0),
        ),
    ]
}

#[test]
fn non_finite_times_are_invalid_arguments() {
    let p = laplacian(6, 1);
    let v = start_vector::<f64>(p.n(), 1);
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for (name, r) in each_method(&p.op, t, &v) {
            assert!(
                matches!(r, Err(Error::InvalidArgument { name: "t", .. })),
                "{name} at t = {t}: {r:?}"
            );
        }
    }
}

#[test]
fn non_finite_vectors_name_the_entry() {
    let p = laplacian(6, 1);
    for bad in [f64::NAN, f64::INFINITY] {
        let mut v = start_vector::<f64>(p.n(), 1);
        v[3] = bad;
        for (name, r) in each_method(&p.op, 0.5, &v) {
            assert!(
                matches!(r, Err(Error::NonFinite { index: 3, .. })),
                "{name} with v[3] = {bad}: {r:?}"
            );
        }
    }
}

#[test]
fn non_convergence_is_an_error_not_a_converged_result() {
    let p = laplacian(40, 1).with_norm(400.0);
    let v = start_vector::<f64>(p.n(), 2);
    let lanczos = LanczosOptions {
        max_dim: 3,
        ..Default::default()
    };
    let r = lanczos_expmv(&CPU, &p.op, 1.0, &v, &lanczos);
    assert!(
        matches!(
            r,
            Err(Error::NoConvergence {
                method: "lanczos",
                ..
            })
        ),
        "{r:?}"
    );
    // Asked for explicitly, an unconverged result comes back marked as such.
    let (_, report) = lanczos_expmv(
        &CPU,
        &p.op,
        1.0,
        &v,
        &LanczosOptions {
            allow_unconverged: true,
            ..lanczos
        },
    )
    .unwrap();
    assert!(!report.converged, "{report:?}");
    let arnoldi = ArnoldiOptions {
        krylov_dim: 3,
        max_matvecs: 6,
        ..Default::default()
    };
    let r = arnoldi_expmv(&CPU, &p.op, 1.0, &v, &arnoldi);
    assert!(matches!(r, Err(Error::NoConvergence { .. })), "{r:?}");
}

#[test]
fn lanczos_at_a_huge_imaginary_time_is_unitary_or_reports_failure() {
    // e^{-itH} is unitary; at t = 10²⁰ the Krylov approximation may fail, but it must say so.
    let a = random_hermitian(4, 7).op;
    let v = start_vector::<c64>(4, 1);
    for t in [c64::new(0.0, 1e20), c64::new(0.0, -1e20)] {
        match lanczos_expmv(&CPU, &a, t, &v, &LanczosOptions::default()) {
            Ok((w, rep)) => assert!(
                (norm(&w) / norm(&v) - 1.0).abs() < 1e-6 || !rep.converged,
                "t = {t}: ‖w‖/‖v‖ = {} reported as {rep:?}",
                norm(&w) / norm(&v)
            ),
            Err(e) => assert!(matches!(e, Error::NoConvergence { .. }), "{e}"),
        }
    }
}

#[test]
fn every_method_takes_phi_orders_up_to_the_common_cap() {
    let p = laplacian(5, 1);
    let v = start_vector::<f64>(p.n(), 1);
    let k = MAX_PHI_ORDER;
    let (w, r) = leja_phimv(&CPU, &p.op, k, 0.5, &v, &LejaOptions::default()).unwrap();
    assert!(r.converged && w.iter().all(|x| x.is_finite()));
    let (w, r) = arnoldi_phimv(&CPU, &p.op, k, 0.5, &v, &ArnoldiOptions::default()).unwrap();
    assert!(r.converged && w.iter().all(|x| x.is_finite()));
    let (w, r) = lanczos_phimv(&CPU, &p.op, k, 0.5, &v, &LanczosOptions::default()).unwrap();
    assert!(r.converged && w.iter().all(|x| x.is_finite()));
    let over = k + 1;
    assert!(matches!(
        leja_phimv(&CPU, &p.op, over, 0.5, &v, &LejaOptions::default()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        arnoldi_phimv(&CPU, &p.op, over, 0.5, &v, &ArnoldiOptions::default()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        lanczos_phimv(&CPU, &p.op, over, 0.5, &v, &LanczosOptions::default()),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn krylov_and_taylor_return_the_empty_result_for_order_zero() {
    let a = DenseMatrixOperator::<f64>::new(0, 0, vec![]).unwrap();
    let v: Vec<f64> = vec![];
    assert!(
        lanczos_expmv(&CPU, &a, 1.0, &v, &LanczosOptions::default())
            .unwrap()
            .0
            .is_empty()
    );
    assert!(
        arnoldi_expmv(&CPU, &a, 1.0, &v, &ArnoldiOptions::default())
            .unwrap()
            .0
            .is_empty()
    );
    assert!(
        taylor_expmv(&CPU, &a, 1.0, &v, &TaylorOptions::default())
            .unwrap()
            .0
            .is_empty()
    );
}
