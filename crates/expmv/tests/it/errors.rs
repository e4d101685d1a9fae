//! Every typed error of the methods, with its context.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, Error, c64};
use matexp_expmv::*;

static CPU: CpuBackend = CpuBackend;

fn rect() -> DenseMatrixOperator<f64> {
    DenseMatrixOperator::new(3, 4, vec![1.0; 12]).unwrap()
}

fn sym(n: usize) -> Problem<f64> {
    laplacian(n, 1)
}

#[test]
fn non_square_operators() {
    let op = rect();
    let v = vec![1.0; 4];
    let is_dim = |r: Result<(Vec<f64>, Report), Error>| {
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 3,
                found: 4,
                ..
            })
        )
    };
    assert!(is_dim(lanczos_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &LanczosOptions {
            assume_hermitian: true,
            ..Default::default()
        }
    )));
    assert!(is_dim(arnoldi_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &ArnoldiOptions::default()
    )));
    assert!(is_dim(taylor_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &TaylorOptions::default()
    )));
}

#[test]
fn wrong_lengths_and_workspace_orders() {
    let q = sym(5);
    let short = vec![1.0; 4];
    let r = arnoldi_expmv(&CPU, &q.op, 1.0, &short, &ArnoldiOptions::default());
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 5,
                found: 4,
                ..
            })
        ),
        "{r:?}"
    );
    let r = lanczos_expmv(&CPU, &q.op, 1.0, &short, &LanczosOptions::default());
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 5,
                found: 4,
                ..
            })
        ),
        "{r:?}"
    );
    // A workspace takes its order from the operator and follows it when it changes.
    let mut lz = Lanczos::new(&CPU, LanczosOptions::default()).unwrap();
    for q in [sym(6), sym(5), sym(6)] {
        let n = q.n();
        let mut w = vec![0.0; n];
        lz.expmv(&q.op, 1.0, &vec![1.0; n], &mut w).unwrap();
        let (fresh, _) =
            lanczos_expmv(&CPU, &q.op, 1.0, &vec![1.0; n], &LanczosOptions::default()).unwrap();
        assert_eq!(w, fresh, "n = {n}");
    }
    // The output must have the operator's length.
    let mut w = vec![0.0; 6];
    let r = lz.expmv(&q.op, 1.0, &vec![1.0; 5], &mut w);
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 5,
                found: 6,
                ..
            })
        ),
        "{r:?}"
    );
    let mut tay = Taylor::new(&CPU, TaylorOptions::default()).unwrap();
    let mut w4 = vec![0.0; 4];
    let r = tay.expmv(&q.op, 1.0, &vec![1.0; 5], &mut w4);
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 5,
                found: 4,
                ..
            })
        ),
        "{r:?}"
    );
    let mut arn = Arnoldi::new(&CPU, ArnoldiOptions::default()).unwrap();
    let mut outs = vec![vec![0.0; 5]; 2];
    let r = arn.expmv_times(&q.op, &[0.5, 1.0, 2.0], &vec![1.0; 5], &mut outs);
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 3,
                found: 2,
                ..
            })
        ),
        "{r:?}"
    );
    let r = arn.expmv_block(&q.op, 1.0, &[vec![1.0; 5]], &mut outs);
    assert!(
        matches!(
            r,
            Err(Error::DimensionMismatch {
                expected: 1,
                found: 2,
                ..
            })
        ),
        "{r:?}"
    );
}

#[test]
fn nan_in_the_vector_is_reported_with_index_and_value() {
    let q = sym(6);
    let mut v = vec![1.0; 6];
    v[4] = f64::NAN;
    let check = |r: Result<(Vec<f64>, Report), Error>| match r {
        Err(Error::NonFinite { index, value, .. }) => {
            assert_eq!(index, 4);
            assert_eq!(value, "NaN");
        }
        other => panic!("expected NonFinite, got {other:?}"),
    };
    check(lanczos_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &LanczosOptions::default(),
    ));
    check(arnoldi_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &ArnoldiOptions::default(),
    ));
    check(taylor_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &TaylorOptions::default(),
    ));
    check(arnoldi_phimv(
        &CPU,
        &q.op,
        1.0,
        &v,
        1,
        &ArnoldiOptions::default(),
    ));
    let mut inf = vec![1.0; 6];
    inf[0] = f64::NEG_INFINITY;
    assert!(matches!(
        lanczos_phimv(&CPU, &q.op, 1.0, &inf, 2, &LanczosOptions::default()),
        Err(Error::NonFinite { index: 0, .. })
    ));
    let mut arn = Arnoldi::new(&CPU, ArnoldiOptions::default()).unwrap();
    let mut w = vec![0.0; 6];
    let good = vec![1.0; 6];
    let r = arn.phi_combination(&q.op, 1.0, &[&good, &v], &mut w);
    match r {
        Err(Error::NonFinite {
            context, index: 4, ..
        }) => assert!(context.contains("b_1"), "{context}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_tolerances() {
    let q = sym(4);
    let v = vec![1.0; 4];
    for (rtol, atol) in [
        (0.0, 0.0),
        (-1e-8, 0.0),
        (f64::NAN, 0.0),
        (f64::INFINITY, 0.0),
        (1e-20, 0.0),
        (1e-8, -1.0),
        (1e-8, f64::NAN),
    ] {
        let tol = Tolerance::new(rtol, atol);
        let inv =
            |r: Result<(Vec<f64>, Report), Error>| matches!(r, Err(Error::InvalidArgument { .. }));
        assert!(
            inv(lanczos_expmv(
                &CPU,
                &q.op,
                1.0,
                &v,
                &LanczosOptions {
                    tol,
                    ..Default::default()
                }
            )),
            "{tol:?}"
        );
        assert!(
            inv(arnoldi_expmv(
                &CPU,
                &q.op,
                1.0,
                &v,
                &ArnoldiOptions {
                    tol,
                    ..Default::default()
                }
            )),
            "{tol:?}"
        );
        assert!(
            inv(taylor_expmv(
                &CPU,
                &q.op,
                1.0,
                &v,
                &TaylorOptions {
                    tol,
                    ..Default::default()
                }
            )),
            "{tol:?}"
        );
    }
    // Below the unit roundoff of f32, though fine for f64.
    let op32 = DenseMatrixOperator::new(2, 2, vec![-1.0f32, 0.0, 0.0, -1.0]).unwrap();
    let r = arnoldi_expmv(
        &CPU,
        &op32,
        1.0f32,
        &vec![1.0f32; 2],
        &ArnoldiOptions {
            tol: Tolerance::relative(1e-10),
            ..Default::default()
        },
    );
    match r {
        Err(Error::InvalidArgument {
            name: "rtol",
            reason,
            ..
        }) => assert!(reason.contains("f32"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn non_finite_times() {
    let q = sym(4);
    let v = vec![1.0; 4];
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let inv = |r: Result<(Vec<f64>, Report), Error>| {
            matches!(r, Err(Error::InvalidArgument { name: "t", .. }))
        };
        assert!(inv(lanczos_expmv(
            &CPU,
            &q.op,
            t,
            &v,
            &LanczosOptions::default()
        )));
        assert!(inv(arnoldi_expmv(
            &CPU,
            &q.op,
            t,
            &v,
            &ArnoldiOptions::default()
        )));
        assert!(inv(taylor_expmv(
            &CPU,
            &q.op,
            t,
            &v,
            &TaylorOptions::default()
        )));
        assert!(inv(arnoldi_phimv(
            &CPU,
            &q.op,
            t,
            &v,
            2,
            &ArnoldiOptions::default()
        )));
    }
    let zc = DenseMatrixOperator::new(1, 1, vec![c64::new(0.0, 1.0)]).unwrap();
    let r = arnoldi_expmv(
        &CPU,
        &zc,
        c64::new(0.0, f64::NAN),
        &vec![c64::new(1.0, 0.0)],
        &ArnoldiOptions::default(),
    );
    assert!(matches!(r, Err(Error::InvalidArgument { name: "t", .. })));
    let mut outs = vec![vec![0.0; 4]; 2];
    let mut lz = Lanczos::new(&CPU, LanczosOptions::default()).unwrap();
    for times in [[0.0, f64::NAN], [f64::INFINITY, 1.0]] {
        let r = lz.expmv_times(&q.op, &times, &v, &mut outs);
        assert!(
            matches!(r, Err(Error::InvalidArgument { name: "times", .. })),
            "{times:?}: {r:?}"
        );
    }
    // Decreasing and negative times are valid: each output is e^{tᵢA}v.
    for times in [[1.0, 0.5], [-1.0, 1.0]] {
        lz.expmv_times(&q.op, &times, &v, &mut outs).unwrap();
        for (o, &t) in outs.iter().zip(&times) {
            let mut w = vec![0.0; 4];
            lz.expmv(&q.op, t, &v, &mut w).unwrap();
            assert!(rel_err(o, &w) <= 1e-12, "{times:?}");
        }
    }
    let r = lz.expmv_times(&q.op, &[], &v, &mut []);
    assert!(matches!(
        r,
        Err(Error::InvalidArgument { name: "times", .. })
    ));
}

#[test]
fn caps_give_no_convergence_with_what_was_reached() {
    let q = laplacian(100, 1).with_norm(1e4);
    let v = start_vector::<f64>(100, 1);
    let tol = Tolerance::relative(1e-10);
    match lanczos_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &LanczosOptions {
            tol,
            max_dim: 10,
            max_substeps: 1,
            ..Default::default()
        },
    ) {
        Err(Error::NoConvergence {
            method: "lanczos",
            detail,
        }) => {
            assert!(
                detail.contains("dimension 10") && detail.contains("estimated error"),
                "{detail}"
            )
        }
        other => panic!("{other:?}"),
    }
    // With allow_unconverged the best result comes back, flagged.
    let (_, rep) = lanczos_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &LanczosOptions {
            tol,
            max_dim: 10,
            max_substeps: 1,
            allow_unconverged: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(!rep.converged && rep.max_degree == 10 && rep.error_estimate > 0.0);
    match arnoldi_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &ArnoldiOptions {
            tol,
            max_matvecs: 100,
            ..Default::default()
        },
    ) {
        Err(Error::NoConvergence {
            method: "arnoldi",
            detail,
        }) => {
            assert!(
                detail.contains("max_matvecs") && detail.contains("reached t ="),
                "{detail}"
            )
        }
        other => panic!("{other:?}"),
    }
    match arnoldi_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &ArnoldiOptions {
            tol,
            max_substeps: 2,
            ..Default::default()
        },
    ) {
        Err(Error::NoConvergence {
            method: "arnoldi",
            detail,
        }) => assert!(detail.contains("max_substeps"), "{detail}"),
        other => panic!("{other:?}"),
    }
    match taylor_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &TaylorOptions {
            tol,
            max_matvecs: 1000,
            ..Default::default()
        },
    ) {
        Err(Error::NoConvergence {
            method: "taylor",
            detail,
        }) => assert!(detail.contains("max_matvecs"), "{detail}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn lanczos_refuses_non_hermitian_operators() {
    let q = advection_diffusion(10, 5.0);
    let v = vec![1.0; 10];
    match lanczos_expmv(&CPU, &q.op, 1.0, &v, &LanczosOptions::default()) {
        Err(Error::InvalidArgument { name: "op", .. }) => {}
        other => panic!("{other:?}"),
    }
    // An operator that does not know it is symmetric is accepted on the caller's word.
    let s = sym(10);
    let opaque = Opaque(&s.op);
    assert!(lanczos_expmv(&CPU, &opaque, 1.0, &v, &LanczosOptions::default()).is_err());
    assert!(
        lanczos_expmv(
            &CPU,
            &opaque,
            1.0,
            &v,
            &LanczosOptions {
                assume_hermitian: true,
                ..Default::default()
            }
        )
        .is_ok()
    );
}

#[test]
fn invalid_options() {
    let inv = |r: Result<(), Error>, name: &str| match r {
        Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, name),
        other => panic!("expected InvalidArgument({name}), got {other:?}"),
    };
    let l = |o: LanczosOptions| Lanczos::<CpuBackend, f64>::new(&CPU, o).map(|_| ());
    inv(
        l(LanczosOptions {
            max_dim: 0,
            ..Default::default()
        }),
        "max_dim",
    );
    inv(
        l(LanczosOptions {
            check_every: 0,
            ..Default::default()
        }),
        "check_every",
    );
    inv(
        l(LanczosOptions {
            two_pass: true,
            reorthogonalize: true,
            ..Default::default()
        }),
        "reorthogonalize",
    );
    let a = |o: ArnoldiOptions| Arnoldi::<CpuBackend, f64>::new(&CPU, o).map(|_| ());
    inv(
        a(ArnoldiOptions {
            krylov_dim: 1,
            ..Default::default()
        }),
        "krylov_dim",
    );
    inv(
        a(ArnoldiOptions {
            max_substeps: 0,
            ..Default::default()
        }),
        "max_substeps",
    );
    inv(
        a(ArnoldiOptions {
            max_matvecs: 0,
            ..Default::default()
        }),
        "max_matvecs",
    );
    let t = |o: TaylorOptions| Taylor::<CpuBackend, f64>::new(&CPU, o).map(|_| ());
    inv(
        t(TaylorOptions {
            m_max: 0,
            ..Default::default()
        }),
        "m_max",
    );
    inv(
        t(TaylorOptions {
            m_max: 61,
            ..Default::default()
        }),
        "m_max",
    );
    inv(
        t(TaylorOptions {
            p_max: 1,
            ..Default::default()
        }),
        "p_max",
    );
    inv(
        t(TaylorOptions {
            p_max: 9,
            ..Default::default()
        }),
        "p_max",
    );
    inv(
        t(TaylorOptions {
            norm: NormBound::Upper(f64::NAN),
            ..Default::default()
        }),
        "norm",
    );
    inv(
        t(TaylorOptions {
            norm: NormBound::Upper(-1.0),
            ..Default::default()
        }),
        "norm",
    );
    inv(
        t(TaylorOptions {
            norm: NormBound::Estimate { probes: 0 },
            ..Default::default()
        }),
        "probes",
    );
    inv(
        t(TaylorOptions {
            shift: Shift::Value(f64::INFINITY, 0.0),
            ..Default::default()
        }),
        "shift",
    );
    let q = sym(3);
    let v = vec![1.0; 3];
    // φ_k is offered up to MAX_PHI_ORDER = 30 (it was 16): 17…30 pass the argument check (an
    // answer, or a refusal of the computation, never InvalidArgument for k), 31 is refused.
    // Whether they are answered to the tolerance is every_method_takes_phi_orders_up_to_
    // the_common_cap's business (failure_paths.rs).
    assert_eq!(MAX_PHI_ORDER, 30);
    let accepted = |what: &str, k: usize, r: Result<(Vec<f64>, Report), Error>| match r {
        Ok((w, _)) => assert!(w.iter().all(|x| x.is_finite()), "{what} φ_{k}: {w:?}"),
        Err(Error::InvalidArgument { name: "k", .. }) => panic!("{what}: k = {k} refused"),
        Err(_) => {}
    };
    for k in 17..=MAX_PHI_ORDER {
        accepted(
            "arnoldi",
            k,
            arnoldi_phimv(&CPU, &q.op, 1.0, &v, k, &ArnoldiOptions::default()),
        );
        accepted(
            "lanczos",
            k,
            lanczos_phimv(&CPU, &q.op, 1.0, &v, k, &LanczosOptions::default()),
        );
    }
    let over = MAX_PHI_ORDER + 1;
    inv(
        arnoldi_phimv(&CPU, &q.op, 1.0, &v, over, &ArnoldiOptions::default()).map(|_| ()),
        "k",
    );
    inv(
        lanczos_phimv(&CPU, &q.op, 1.0, &v, over, &LanczosOptions::default()).map(|_| ()),
        "k",
    );
    let mut arn = Arnoldi::new(&CPU, ArnoldiOptions::default()).unwrap();
    let mut w = vec![0.0; 3];
    inv(
        arn.phi_combination(&q.op, 1.0, &[], &mut w).map(|_| ()),
        "bs",
    );
}

#[test]
fn overflowing_results_are_errors() {
    // e^{800}: beyond f64 for every method.
    let op = DenseMatrixOperator::new(2, 2, vec![400.0, 400.0, 400.0, 400.0]).unwrap();
    let v = vec![1.0, 1.0];
    let nf = |r: Result<(Vec<f64>, Report), Error>| matches!(r, Err(Error::NonFinite { .. }));
    assert!(nf(lanczos_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &LanczosOptions::default()
    )));
    assert!(nf(arnoldi_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &ArnoldiOptions::default()
    )));
    assert!(nf(taylor_expmv(
        &CPU,
        &op,
        1.0,
        &v,
        &TaylorOptions::default()
    )));
}

#[test]
fn lanczos_at_max_dim_points_to_reorthogonalization() {
    let q = sym(60).with_norm(1e4);
    let v = vec![1.0; q.n()];
    for (reorth, hint) in [(false, true), (true, false)] {
        // Substeps off: with them the call would meet the tolerance (see lanczos_robust.rs).
        let r = lanczos_expmv(
            &CPU,
            &q.op,
            1.0,
            &v,
            &LanczosOptions {
                max_dim: 5,
                reorthogonalize: reorth,
                reorthogonalization: matexp_expmv::Reorthogonalize::Never,
                max_substeps: 1,
                ..Default::default()
            },
        );
        match r {
            Err(Error::NoConvergence { method, detail }) => {
                assert_eq!(method, "lanczos");
                assert!(detail.contains("max_dim"), "{detail}");
                assert_eq!(detail.contains("set reorthogonalize"), hint, "{detail}");
            }
            other => panic!("expected NoConvergence, got {other:?}"),
        }
    }
}
