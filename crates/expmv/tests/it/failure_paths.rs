//! Failure paths of the solvers: non-finite arguments end in typed errors naming them,
//! non-convergence is an error (or a report marked unconverged), never a converged result,
//! and the φ-order cap is the same for every method.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, DenseMatrixOperator, Error, LinearOperator, c64};
use matexp_expmv::*;

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
    // Substeps off (with them Lanczos meets the tolerance at any max_dim).
    let lanczos = LanczosOptions {
        max_dim: 3,
        max_substeps: 1,
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
            // Lanczos refuses with NonFinite where the rounding of the exponents t·λ passes
            // ln 2: no digit of the result is determined.
            Err(e) => assert!(
                matches!(e, Error::NoConvergence { .. } | Error::NonFinite { .. }),
                "{e}"
            ),
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
    // Arnoldi's augmented matrix stops at its own, documented cap, with a typed refusal.
    assert!(matches!(
        arnoldi_phimv(&CPU, &p.op, 0.5, &v, k, &ArnoldiOptions::default()),
        Err(Error::Unsupported(_))
    ));
    let ka = matexp_expmv::MAX_AUGMENTED_COLUMNS;
    let (w, r) = arnoldi_phimv(&CPU, &p.op, 0.5, &v, ka, &ArnoldiOptions::default()).unwrap();
    assert!(r.converged && w.iter().all(|x| x.is_finite()));
    let (w, r) = lanczos_phimv(&CPU, &p.op, 0.5, &v, k, &LanczosOptions::default()).unwrap();
    assert!(r.converged && w.iter().all(|x| x.is_finite()));
    let over = k + 1;
    assert!(matches!(
        leja_phimv(&CPU, &p.op, over, 0.5, &v, &LejaOptions::default()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        arnoldi_phimv(&CPU, &p.op, 0.5, &v, over, &ArnoldiOptions::default()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        lanczos_phimv(&CPU, &p.op, 0.5, &v, over, &LanczosOptions::default()),
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

/// Whether `msg` holds a number token of more than 24 characters (a huge `f64` printed by
/// `Display`, 1e308 as 309 digits).
fn has_long_number(msg: &str) -> bool {
    msg.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .any(|tok| tok.len() > 24)
}

#[test]
fn arnoldi_on_an_invariant_space_at_a_huge_imaginary_time_is_unitary_or_fails() {
    // n = 4: the Krylov space is invariant after 4 steps (a breakdown), and the whole time
    // goes into the small exponential, which returns 0 for ‖τH‖ ≳ 1e20.
    let a = random_hermitian(4, 7);
    let v = start_vector::<c64>(4, 1);
    for t in [1e100, -1e100, 1e20, 1e12] {
        let t = c64::new(0.0, t);
        match arnoldi_expmv(&CPU, &a.op, t, &v, &ArnoldiOptions::default()) {
            Ok((w, rep)) => assert!(
                (norm(&w) / norm(&v) - 1.0).abs() < 1e-6,
                "t = {t}: ‖w‖/‖v‖ = {} reported as {rep}",
                norm(&w) / norm(&v)
            ),
            Err(e) => {
                assert!(matches!(e, Error::NoConvergence { .. }), "t = {t}: {e}");
                assert!(!has_long_number(&e.to_string()), "{e}");
            }
        }
    }
    // Where the precision suffices the breakdown path still answers, to the tolerance.
    for t in [c64::new(0.0, 30.0), c64::new(0.0, -1e4)] {
        let (w, rep) = arnoldi_expmv(&CPU, &a.op, t, &v, &ArnoldiOptions::default()).unwrap();
        let err = rel_err(&w, &dense_expmv(&a.a, t, &v));
        assert!(err < 1e-7 && rep.converged, "t = {t}: error {err:e}, {rep}");
    }
    // A dissipative invariant space decays to 0 in one substep, however long the time.
    let p = laplacian(4, 1);
    let vr = start_vector::<f64>(4, 2);
    let (w, rep) = arnoldi_expmv(&CPU, &p.op, 1e12, &vr, &ArnoldiOptions::default()).unwrap();
    assert!(w.iter().all(|&x| x == 0.0) && rep.converged, "{w:?} {rep}");
}

/// Counts the products of a wrapped operator.
struct Counted<'a> {
    op: &'a DenseMatrixOperator<f64>,
    products: std::sync::atomic::AtomicUsize,
}

impl LinearOperator<CpuBackend, f64> for Counted<'_> {
    fn nrows(&self) -> usize {
        LinearOperator::<CpuBackend, f64>::nrows(self.op)
    }
    fn ncols(&self) -> usize {
        LinearOperator::<CpuBackend, f64>::ncols(self.op)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
    fn apply(
        &self,
        b: &CpuBackend,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> matexp_core::Result<()> {
        self.products
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.op.apply(b, alpha, x, beta, y)
    }
}

#[test]
fn lanczos_at_the_edge_of_the_range_fails_at_once() {
    // −1e308·A with A's eigenvalues in (−4, 0): t·λ overflows. The error must come at the
    // first check, not after max_dim = 500 products with an estimate of 0.
    let p = laplacian(10, 1);
    let v = start_vector::<f64>(p.n(), 1);
    let op = Counted {
        op: &p.op,
        products: 0.into(),
    };
    for t in [-1e308, -f64::MAX] {
        let r = lanczos_expmv(&CPU, &op, t, &v, &LanczosOptions::default());
        let e = r.expect_err("e^{tA}v is beyond the f64 range");
        assert!(matches!(e, Error::NonFinite { .. }), "t = {t}: {e}");
        let msg = e.to_string();
        assert!(!has_long_number(&msg) && msg.contains("e308"), "{msg}");
    }
    let spent = op.products.into_inner();
    assert!(spent <= 2 * 30, "{spent} products for two hopeless calls");
    // +1e308: every mode decays; the answer is 0 (or, where t·λ leaves the range, an error).
    match lanczos_expmv(&CPU, &p.op, 1e308, &v, &LanczosOptions::default()) {
        Ok((w, rep)) => assert!(w.iter().all(|&x| x == 0.0) && rep.converged, "{rep}"),
        Err(e) => assert!(matches!(e, Error::NonFinite { .. }), "{e}"),
    }
}

#[test]
fn errors_at_the_edge_of_the_range_print_numbers_briefly_and_name_no_internals() {
    let p = laplacian(10, 1);
    let v = start_vector::<f64>(p.n(), 1);
    for t in [1e308, -1e308, 1e200] {
        for (name, r) in each_method(&p.op, t, &v) {
            if let Err(e) = r {
                let msg = e.to_string();
                assert!(!has_long_number(&msg), "{name} at t = {t:e}: {msg}");
                assert!(!msg.contains("`beta`"), "{name} at t = {t:e}: {msg}");
            }
        }
    }
    // Leja refuses such a time before any divided difference, as non-convergence at its
    // substep cap.
    let r = leja_expmv(&CPU, &p.op, 1e308, &v, &LejaOptions::default());
    assert!(
        matches!(r, Err(Error::NoConvergence { method: "leja", .. })),
        "{r:?}"
    );
}

#[test]
fn taylor_refuses_a_norm_bound_its_terms_disprove() {
    // ‖A‖₁ = 4 and ‖A‖₂ ≈ 3.92: bounds of 0.1 … 1 are wrong (errors of 0.1 % to 10⁶ without
    // the check).
    let p = laplacian(10, 1);
    let v = start_vector::<f64>(p.n(), 1);
    for (bound, t) in [(0.1, 1.0), (1.0, 1.0), (1.0, 10.0), (0.5, 5.0)] {
        let opts = TaylorOptions {
            norm: NormBound::Upper(bound),
            ..Default::default()
        };
        let r = taylor_expmv(&CPU, &p.op, t, &v, &opts);
        assert!(
            matches!(r, Err(Error::InvalidArgument { name: "norm", .. })),
            "bound {bound} at t = {t}: {r:?}"
        );
    }
    let h = random_hermitian(6, 3);
    let vc = start_vector::<c64>(6, 4);
    let opts = TaylorOptions {
        norm: NormBound::Upper(0.5),
        ..Default::default()
    };
    let r = taylor_expmv(&CPU, &h.op, c64::new(0.0, 5.0), &vc, &opts);
    assert!(
        matches!(r, Err(Error::InvalidArgument { name: "norm", .. })),
        "{r:?}"
    );
    // True bounds, tight or loose, pass and give the answer.
    for bound in [p.norm1(), 100.0] {
        let opts = TaylorOptions {
            norm: NormBound::Upper(bound),
            ..Default::default()
        };
        let (w, _) = taylor_expmv(&CPU, &p.op, 10.0, &v, &opts).unwrap();
        let err = rel_err(&w, &dense_expmv(&p.a, 10.0, &v));
        assert!(err < 1e-7, "bound {bound}: error {err:e}");
    }
    let opts = TaylorOptions {
        norm: NormBound::Upper(h.norm1()),
        ..Default::default()
    };
    let t = c64::new(0.0, 5.0);
    let (w, _) = taylor_expmv(&CPU, &h.op, t, &vc, &opts).unwrap();
    assert!(rel_err(&w, &dense_expmv(&h.a, t, &vc)) < 1e-7);
}

#[test]
fn norm_estimate_probes_are_bounded() {
    let with = |probes| TaylorOptions {
        norm: NormBound::Estimate { probes },
        ..Default::default()
    };
    let r = Taylor::<CpuBackend, f64>::new(&CPU, with(1 << 40));
    match r {
        Err(e @ Error::InvalidArgument { name: "probes", .. }) => {
            assert!(e.to_string().contains("1099511627776"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert!(Taylor::<CpuBackend, f64>::new(&CPU, with(MAX_NORM_PROBES + 1)).is_err());
    let p = laplacian(6, 1);
    let v = start_vector::<f64>(p.n(), 1);
    let (w, _) = taylor_expmv(&CPU, &p.op, 1.0, &v, &with(MAX_NORM_PROBES)).unwrap();
    assert!(rel_err(&w, &dense_expmv(&p.a, 1.0, &v)) < 1e-7);
}

#[test]
fn free_functions_refuse_an_operator_larger_than_memory() {
    let op = matexp_testkit::ClaimsOrder(1 << 61);
    let v = vec![1.0f64; 4];
    let dim = |r: Result<(Vec<f64>, Report), Error>, call: &str| {
        assert!(
            matches!(r, Err(Error::DimensionMismatch { .. })),
            "{call}: {:?}",
            r.map(|x| x.1.to_string())
        )
    };
    dim(
        leja_expmv(&CPU, &op, 1.0, &v, &LejaOptions::default()),
        "leja",
    );
    dim(
        leja_phimv(&CPU, &op, 1, 1.0, &v, &LejaOptions::default()),
        "leja_phimv",
    );
    dim(
        lanczos_expmv(&CPU, &op, 1.0, &v, &LanczosOptions::default()),
        "lanczos",
    );
    dim(
        lanczos_phimv(&CPU, &op, 1.0, &v, 1, &LanczosOptions::default()),
        "lanczos_phimv",
    );
    dim(
        arnoldi_expmv(&CPU, &op, 1.0, &v, &ArnoldiOptions::default()),
        "arnoldi",
    );
    dim(
        arnoldi_phimv(&CPU, &op, 1.0, &v, 1, &ArnoldiOptions::default()),
        "arnoldi_phimv",
    );
    dim(
        taylor_expmv(&CPU, &op, 1.0, &v, &TaylorOptions::default()),
        "taylor",
    );
    let vc = vec![c64::new(1.0, 0.0); 4];
    let r = leja_schrodinger(&CPU, &op, 1.0, &vc, &LejaOptions::default());
    assert!(
        matches!(r, Err(Error::DimensionMismatch { .. })),
        "schrodinger"
    );
}

#[test]
fn leja_returns_the_empty_result_for_order_zero() {
    let a = DenseMatrixOperator::<f64>::new(0, 0, vec![]).unwrap();
    let v: Vec<f64> = vec![];
    let (w, r) = leja_expmv(&CPU, &a, 1.0, &v, &LejaOptions::default()).unwrap();
    assert!(w.is_empty() && r.converged && r.matvecs == 0, "{r}");
    let (w, _) = leja_phimv(&CPU, &a, 2, 1.0, &v, &LejaOptions::default()).unwrap();
    assert!(w.is_empty());
    let mut leja = Leja::new(&CPU, LejaOptions::default()).unwrap();
    let mut out = vec![vec![]; 3];
    leja.phimv(&a, 0.5, &v, &mut out).unwrap();
    leja.expmv_block(&a, 0.5, &[vec![], vec![]], &mut out[..2])
        .unwrap();
}
