//! Two-pass Lanczos, several times per call, blocks, workspace reuse, breakdown, φ-functions,
//! the θ_m table and the Taylor shift.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, c64};
use matexp_dense::Matrix;
use matexp_expmv::ExpmvMethod;
use matexp_expmv::*;

static CPU: CpuBackend = CpuBackend;

#[test]
fn two_pass_lanczos_matches_one_pass_to_rounding() {
    let q = laplacian(90, 1).with_norm(500.0);
    let v = start_vector::<f64>(q.n(), 3);
    let tol = Tolerance::relative(1e-11);
    let one = LanczosOptions {
        tol,
        ..Default::default()
    };
    let two = LanczosOptions {
        tol,
        two_pass: true,
        ..Default::default()
    };
    let (w1, r1) = lanczos_expmv(&CPU, &q.op, 1.0, &v, &one).unwrap();
    let (w2, r2) = lanczos_expmv(&CPU, &q.op, 1.0, &v, &two).unwrap();
    assert_eq!(r1.max_degree, r2.max_degree);
    assert_eq!(
        r2.matvecs,
        2 * r1.matvecs - 1,
        "second pass regenerates k − 1 vectors"
    );
    assert!(rel_err(&w2, &w1) <= 1e-15, "{:e}", rel_err(&w2, &w1));
    let (p1, _) = lanczos_phimv(&CPU, &q.op, 1.0, &v, 2, &one).unwrap();
    let (p2, _) = lanczos_phimv(&CPU, &q.op, 1.0, &v, 2, &two).unwrap();
    assert!(rel_err(&p2, &p1) <= 1e-15);
}

#[test]
fn reorthogonalization_gives_the_same_answer() {
    let q = laplacian(80, 1).with_norm(2e3);
    let v = start_vector::<f64>(q.n(), 4);
    let tol = Tolerance::relative(1e-10);
    let reference = dense_expmv(&q.a, 1.0, &v);
    let opts = LanczosOptions {
        tol,
        reorthogonalize: true,
        ..Default::default()
    };
    let (w, _) = lanczos_expmv(&CPU, &q.op, 1.0, &v, &opts).unwrap();
    assert!(rel_err(&w, &reference) <= 1e-9);
}

#[test]
fn several_times_in_one_call() {
    let times = [0.0, 0.1, 0.1, 0.35, 1.0];
    let tol = Tolerance::relative(1e-10);
    // Hermitian (all three methods) and nonsymmetric (Arnoldi, Taylor).
    let sym = laplacian(60, 1).with_norm(400.0);
    let adv = advection_diffusion(50, 20.0).with_norm(300.0);
    for (q, hermitian) in [(&sym, true), (&adv, false)] {
        let v = start_vector::<f64>(q.n(), 5);
        let mut outs: Vec<Vec<f64>> = vec![vec![0.0; q.n()]; times.len()];
        let check = |name: &str, outs: &[Vec<f64>]| {
            for (k, &t) in times.iter().enumerate() {
                let reference = dense_expmv(&q.a, t, &v);
                let err = rel_err(&outs[k], &reference);
                assert!(
                    err <= 10.0 * tol.rtol,
                    "{name} on {}, t = {t}: {err:e}",
                    q.name
                );
            }
        };
        if hermitian {
            let mut lz = Lanczos::new(
                &CPU,
                LanczosOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap();
            lz.expmv_times(&q.op, &times, &v, &mut outs).unwrap();
            check("lanczos", &outs);
        }
        let mut arn = Arnoldi::new(
            &CPU,
            ArnoldiOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap();
        arn.expmv_times(&q.op, &times, &v, &mut outs).unwrap();
        check("arnoldi", &outs);
        let mut tay = Taylor::new(
            &CPU,
            TaylorOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap();
        tay.expmv_times(&q.op, &times, &v, &mut outs).unwrap();
        check("taylor", &outs);
    }
}

#[test]
fn complex_times_give_the_schrodinger_propagator_at_several_times() {
    let q = spin_chain(6, 1.0, 2);
    let v = start_vector::<c64>(q.n(), 6);
    let times = [0.5, 1.0, 4.0];
    let tol = Tolerance::relative(1e-10);
    let mut outs = vec![vec![c64::new(0.0, 0.0); q.n()]; 3];
    let mut lz = Lanczos::new(
        &CPU,
        LanczosOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    // Complex times −i·t: the same spelling as for one time.
    let ctimes: Vec<c64> = times.iter().map(|&t| c64::new(0.0, -t)).collect();
    lz.expmv_times(&q.op, &ctimes, &v, &mut outs).unwrap();
    let nv = matexp_core::norms::nrm2(&v);
    for (k, &t) in times.iter().enumerate() {
        let reference = dense_expmv(&q.a, c64::new(0.0, -t), &v);
        assert!(rel_err(&outs[k], &reference) <= 1e-9);
        // Unitary evolution preserves the norm.
        assert!((matexp_core::norms::nrm2(&outs[k]) / nv - 1.0).abs() < 1e-9);
    }
}

#[test]
fn blocks_and_repeated_calls_reuse_the_workspace() {
    let q = advection_diffusion(40, 10.0).with_norm(200.0);
    let tol = Tolerance::relative(1e-10);
    let vs: Vec<Vec<f64>> = (0..3).map(|s| start_vector::<f64>(q.n(), 10 + s)).collect();
    let mut ws = vec![vec![0.0; q.n()]; 3];
    let mut arn = Arnoldi::new(
        &CPU,
        ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    let rep = arn.expmv_block(&q.op, 0.5, &vs, &mut ws).unwrap();
    let mut single_matvecs = 0;
    for (v, w) in vs.iter().zip(&ws) {
        let (w1, r1) = arnoldi_expmv(
            &CPU,
            &q.op,
            0.5,
            v,
            &ArnoldiOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap();
        single_matvecs += r1.matvecs;
        assert!(rel_err(w, &w1) <= 1e-15);
    }
    assert_eq!(rep.matvecs, single_matvecs);
    let mut tay = Taylor::new(
        &CPU,
        TaylorOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    tay.expmv_block(&q.op, 0.5, &vs, &mut ws).unwrap();
    for (v, w) in vs.iter().zip(&ws) {
        assert!(rel_err(w, &dense_expmv(&q.a, 0.5, v)) <= 1e-9);
    }
    let sym = laplacian(40, 1).with_norm(100.0);
    let mut lz = Lanczos::new(
        &CPU,
        LanczosOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    lz.expmv_block(&sym.op, 0.5, &vs, &mut ws).unwrap();
    for (v, w) in vs.iter().zip(&ws) {
        assert!(rel_err(w, &dense_expmv(&sym.a, 0.5, v)) <= 1e-9);
    }

    // Time stepping u_{k+1} = e^{hA}u_k through one workspace equals e^{10hA}u_0.
    let h = 0.05;
    let mut u = vs[0].clone();
    let mut next = vec![0.0; q.n()];
    for _ in 0..10 {
        arn.expmv(&q.op, h, &u, &mut next).unwrap();
        std::mem::swap(&mut u, &mut next);
    }
    assert!(rel_err(&u, &dense_expmv(&q.a, 10.0 * h, &vs[0])) <= 1e-8);
}

#[test]
fn invariant_subspaces_end_the_iteration_with_the_exact_result() {
    // Block diagonal A = diag(10⁻³·L₃, L₄₇) (two disconnected chains) and v supported on the
    // first block: the Krylov space is that 3-dimensional block, exactly.
    let n = 50;
    let small = laplacian(3, 1).a.scaled(1e-3);
    let big = laplacian(n - 3, 1).a;
    let a = Matrix::<f64>::from_fn(n, n, |i, j| match (i < 3, j < 3) {
        (true, true) => small[(i, j)],
        (false, false) => big[(i - 3, j - 3)],
        _ => 0.0,
    });
    let q = Problem::new("two chains", a);
    let mut v = vec![0.0; n];
    v[..3].copy_from_slice(&[1.0, -0.5, 2.0]);
    let t = 1e4; // ‖tA‖₁ = 4e4, but the subspace is invariant
    let block = dense_expmv(&small, t, &v[..3]);
    let mut exact = vec![0.0; n];
    exact[..3].copy_from_slice(&block);
    let tol = Tolerance::relative(1e-12);
    let (w, rep) = lanczos_expmv(
        &CPU,
        &q.op,
        t,
        &v,
        &LanczosOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    // The truncation error is 0 after the breakdown; the estimate is the rounding floor
    // (never exactly 0), small and above the achieved error.
    assert!(
        rep.max_degree == 3
            && rep.converged
            && rep.error_estimate > 0.0
            // (with the rounding the propagation carries: ‖v‖/‖w‖ ≈ 70 here)
            && rep.rel_error_estimate <= 1e-12,
        "{rep:?}"
    );
    assert!(rel_err(&w, &exact) <= 1e-13, "{:e}", rel_err(&w, &exact));
    assert!(
        rel_err(&w, &exact) <= rep.rel_error_estimate,
        "{:e} vs {rep:?}",
        rel_err(&w, &exact)
    );
    let (w, rep) = arnoldi_expmv(
        &CPU,
        &q.op,
        t,
        &v,
        &ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        rep.max_degree == 3 && rep.substeps == 1 && rep.matvecs == 3,
        "{rep:?}"
    );
    assert!(rel_err(&w, &exact) <= 1e-13, "{:e}", rel_err(&w, &exact));
}

#[test]
fn phi_functions_against_the_dense_augmented_exponential() {
    let tol = Tolerance::relative(1e-10);
    let sym = laplacian(60, 1);
    let adv = advection_diffusion(50, 15.0);
    for norm in [1.0, 1e2, 1e3] {
        let s = sym.with_norm(norm);
        let a = adv.with_norm(norm);
        let v = start_vector::<f64>(s.n(), 8);
        let va = start_vector::<f64>(a.n(), 9);
        for k in 1..=3 {
            let reference = dense_phimv(&s.a, k, 1.0, &v);
            let (w, _) = lanczos_phimv(
                &CPU,
                &s.op,
                1.0,
                &v,
                k,
                &LanczosOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                rel_err(&w, &reference) <= 1e-9,
                "lanczos φ_{k}, ‖A‖ = {norm}: {:e}",
                rel_err(&w, &reference)
            );
            let (w, _) = arnoldi_phimv(
                &CPU,
                &s.op,
                1.0,
                &v,
                k,
                &ArnoldiOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                rel_err(&w, &reference) <= 1e-9,
                "arnoldi φ_{k} sym, ‖A‖ = {norm}: {:e}",
                rel_err(&w, &reference)
            );
            let reference = dense_phimv(&a.a, k, 1.0, &va);
            let (w, _) = arnoldi_phimv(
                &CPU,
                &a.op,
                1.0,
                &va,
                k,
                &ArnoldiOptions {
                    tol,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                rel_err(&w, &reference) <= 1e-9,
                "arnoldi φ_{k} adv, ‖A‖ = {norm}: {:e}",
                rel_err(&w, &reference)
            );
        }
    }
    // Complex: φ₁(−iτH)v.
    let hq = random_hermitian(40, 1).with_norm(50.0);
    let v = start_vector::<c64>(hq.n(), 2);
    let t = c64::new(0.0, -1.0);
    let reference = dense_phimv(&hq.a, 1, t, &v);
    let (w, _) = arnoldi_phimv(
        &CPU,
        &hq.op,
        t,
        &v,
        1,
        &ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(rel_err(&w, &reference) <= 1e-9);
    let (w, _) = lanczos_phimv(
        &CPU,
        &hq.op,
        t,
        &v,
        1,
        &LanczosOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(rel_err(&w, &reference) <= 1e-9);
}

#[test]
fn phi_combinations_at_several_times() {
    // u(t) = e^{tA}b₀ + tφ₁(tA)b₁ + t²φ₂(tA)b₂ solves u' = Au + b₁ + t·b₂.
    let q = advection_diffusion(40, 10.0).with_norm(500.0);
    let n = q.n();
    let b: Vec<Vec<f64>> = (0..3).map(|s| start_vector::<f64>(n, 20 + s)).collect();
    let times = [0.0, 0.01, 0.3, 1.0];
    let tol = Tolerance::relative(1e-10);
    let mut arn = Arnoldi::new(
        &CPU,
        ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap();
    let mut outs = vec![vec![0.0; n]; times.len()];
    let refs: Vec<&Vec<f64>> = b.iter().collect();
    arn.phi_combination_times(&q.op, &times, &refs, &mut outs)
        .unwrap();
    for (i, &t) in times.iter().enumerate() {
        let mut want = dense_expmv(&q.a, t, &b[0]);
        for k in 1..=2 {
            let p = dense_phimv(&q.a, k, t, &b[k]);
            for (wv, pv) in want.iter_mut().zip(&p) {
                *wv += t.powi(k as i32) * pv;
            }
        }
        assert!(
            rel_err(&outs[i], &want) <= 1e-9,
            "t = {t}: {:e}",
            rel_err(&outs[i], &want)
        );
    }
    // Exponential Euler step u₁ = φ₀(hA)u₀ + hφ₁(hA)g through the single-time entry point.
    let mut w = vec![0.0; n];
    arn.phi_combination(&q.op, 0.3, &[&b[0], &b[1]], &mut w)
        .unwrap();
    let mut want = dense_expmv(&q.a, 0.3, &b[0]);
    for (wv, pv) in want.iter_mut().zip(dense_phimv(&q.a, 1, 0.3, &b[1])) {
        *wv += 0.3 * pv;
    }
    assert!(rel_err(&w, &want) <= 1e-9);
}

#[test]
fn theta_table_matches_al_mohy_higham() {
    // Al-Mohy & Higham (2011), Table 3.1 (and Higham, Functions of Matrices, Table A.3).
    let double = [
        (5, 2.40e-3),
        (10, 1.44e-1),
        (15, 6.41e-1),
        (20, 1.44),
        (25, 2.43),
        (30, 3.54),
        (35, 4.7),
        (40, 6.0),
        (45, 7.2),
        (50, 8.5),
        (55, 9.9),
    ];
    for (m, want) in double {
        let got = taylor_theta(m, 2f64.powi(-53));
        assert!(
            (got / want - 1.0).abs() < 0.01,
            "θ_{m}(2⁻⁵³) = {got} vs {want}"
        );
    }
    let single = [
        (5, 1.3e-1),
        (10, 1.0),
        (15, 2.2),
        (20, 3.6),
        (25, 4.9),
        (30, 6.3),
        (35, 7.7),
        (40, 9.1),
        (45, 10.5),
        (50, 11.9),
        (55, 13.3),
    ];
    for (m, want) in single {
        let got = taylor_theta(m, 2f64.powi(-24));
        assert!(
            (got / want - 1.0).abs() < 0.03,
            "θ_{m}(2⁻²⁴) = {got} vs {want}"
        );
    }
}

#[test]
fn taylor_shift_options_agree() {
    let q = laplacian(50, 1).with_norm(300.0);
    let v = start_vector::<f64>(q.n(), 1);
    let reference = dense_expmv(&q.a, 1.0, &v);
    let tol = Tolerance::relative(1e-10);
    let mu = q.a.trace() / q.n() as f64;
    let mut products = Vec::new();
    for shift in [Shift::Auto, Shift::None, Shift::Value(mu, 0.0)] {
        for norm in [NormBound::Auto, NormBound::Estimate { probes: 3 }] {
            let opts = TaylorOptions {
                tol,
                shift,
                norm: norm.clone(),
                ..Default::default()
            };
            let (w, rep) = taylor_expmv(&CPU, &q.op, 1.0, &v, &opts).unwrap();
            assert!(
                rel_err(&w, &reference) <= 1e-9,
                "{shift:?}, {norm:?}: {:e}",
                rel_err(&w, &reference)
            );
            products.push((shift, norm, rep.matvecs));
        }
    }
    // The midpoint shift halves ‖A − μI‖ for the Laplacian, so it needs fewer products.
    assert!(products[0].2 < products[2].2, "{products:?}");
}

#[test]
fn reports_describe_the_work() {
    let q = laplacian(40, 1).with_norm(100.0);
    let v = start_vector::<f64>(q.n(), 1);
    let (_, r) = lanczos_expmv(&CPU, &q.op, 1.0, &v, &LanczosOptions::default()).unwrap();
    assert_eq!((r.method, r.substeps, r.rejected), ("lanczos", 1, 0));
    assert_eq!(r.matvecs, r.max_degree);
    assert!(r.converged && r.error_estimate > 0.0 && r.error_estimate.is_finite());
    let (_, r) = arnoldi_expmv(
        &CPU,
        &q.op,
        1.0,
        &v,
        &ArnoldiOptions {
            krylov_dim: 10,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.method, "arnoldi");
    assert_eq!(r.matvecs, r.substeps * 11, "m + 1 products per substep");
    assert_eq!(r.max_degree, 10);
    let (_, r) = taylor_expmv(&CPU, &q.op, 1.0, &v, &TaylorOptions::default()).unwrap();
    assert_eq!(r.method, "taylor");
    assert!(r.matvecs <= r.substeps * r.max_degree && r.substeps >= 1);
    let zero = vec![0.0; q.n()];
    let (w, r) = lanczos_expmv(&CPU, &q.op, 1.0, &zero, &LanczosOptions::default()).unwrap();
    assert!(w.iter().all(|&x| x == 0.0) && r.matvecs == 0);
}

#[test]
fn phi_at_time_zero_is_v_over_k_factorial() {
    let q = advection_diffusion(20, 5.0);
    let v = start_vector::<f64>(q.n(), 1);
    let (w, r) = arnoldi_phimv(&CPU, &q.op, 0.0, &v, 3, &ArnoldiOptions::default()).unwrap();
    assert_eq!(r.matvecs, 0);
    for (a, b) in w.iter().zip(&v) {
        assert!((a - b / 6.0).abs() <= 1e-16 * b.abs().max(1.0));
    }
}
