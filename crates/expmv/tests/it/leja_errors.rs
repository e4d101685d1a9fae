//! Every bad input of the Leja methods gives its typed error, never a panic or a NaN.

use matexp_core::{
    CpuBackend, DenseMatrixOperator, Error, LinearOperator, Result, SpectralBounds, c64,
};
use matexp_expmv::{ExpmvMethod, Leja, LejaMethod, LejaOptions, MAX_PHI_ORDER, Tolerance};
use matexp_sparse::generators::laplacian_1d;

fn lap(n: usize) -> matexp_sparse::CsrMatrix<f64, u32> {
    laplacian_1d(n).unwrap()
}

/// An operator whose spectral bounds or output are broken on purpose.
struct Broken {
    n: usize,
    bounds: Option<SpectralBounds>,
    output: f64,
}

impl LinearOperator<CpuBackend, f64> for Broken {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(
        &self,
        _: &CpuBackend,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> Result<()> {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi = alpha * self.output * xi + if beta == 0.0 { 0.0 } else { beta * *yi };
        }
        Ok(())
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.bounds
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

#[test]
fn non_square_operator_and_wrong_lengths() {
    let cpu = CpuBackend::new();
    let rect = DenseMatrixOperator::new(2, 3, vec![1.0; 6]).unwrap();
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    let mut w = vec![0.0; 2];
    assert!(matches!(
        leja.expmv(&rect, 1.0, &vec![1.0; 2], &mut w),
        Err(Error::DimensionMismatch {
            expected: 2,
            found: 3,
            ..
        })
    ));
    let a = lap(4);
    // The workspace follows the operator's order (it met a 2 × 3 one before); v and w
    // lengths must match it.
    let mut w4 = vec![0.0; 4];
    leja.expmv(&a, 1.0, &vec![1.0; 4], &mut w4).unwrap();
    let mut fresh = vec![0.0; 4];
    Leja::new(&cpu, LejaOptions::default())
        .unwrap()
        .expmv(&a, 1.0, &vec![1.0; 4], &mut fresh)
        .unwrap();
    assert_eq!(w4, fresh);
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    let e = leja
        .expmv(&a, 1.0, &vec![1.0; 3], &mut vec![0.0; 4])
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimensionMismatch {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = leja
        .expmv(&a, 1.0, &vec![1.0; 4], &mut vec![0.0; 5])
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimensionMismatch {
                expected: 4,
                found: 5,
                ..
            }
        ),
        "{e}"
    );
    // Times vs outputs, blocks.
    let e = leja
        .expmv_times(&a, &[0.1, 0.2], &vec![1.0; 4], &mut [vec![0.0; 4]])
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimensionMismatch {
                expected: 2,
                found: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = leja
        .expmv_block(&a, 1.0, &[vec![1.0; 4], vec![1.0; 4]], &mut [vec![0.0; 4]])
        .unwrap_err();
    assert!(matches!(e, Error::DimensionMismatch { .. }), "{e}");
}

#[test]
fn nan_in_the_vector_is_located() {
    let cpu = CpuBackend::new();
    let a = lap(5);
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    let v = vec![1.0, 2.0, f64::NAN, 4.0, 5.0];
    match leja.expmv(&a, 1.0, &v, &mut vec![0.0; 5]) {
        Err(Error::NonFinite { index, value, .. }) => {
            assert_eq!(index, 2);
            assert_eq!(value, "NaN");
        }
        other => panic!("expected NonFinite, got {other:?}"),
    }
    let v = vec![1.0, f64::INFINITY, 0.0, 0.0, 0.0];
    assert!(matches!(
        leja.phimv_k(&a, 2, 1.0, &v, &mut vec![0.0; 5]),
        Err(Error::NonFinite { index: 1, .. })
    ));
    let b1 = vec![0.0, 0.0, 0.0, 0.0, f64::NEG_INFINITY];
    let b0 = vec![0.0; 5];
    assert!(matches!(
        leja.phi_combination(&a, 1.0, &[&b0, &b1], &mut vec![0.0; 5]),
        Err(Error::NonFinite { index: 4, .. })
    ));
}

#[test]
fn bad_tolerances_and_options() {
    let cpu = CpuBackend::new();
    for rtol in [0.0, -1e-6, f64::NAN, f64::INFINITY, 1e-20] {
        let opts = LejaOptions::default().with_rtol(rtol);
        assert!(
            matches!(
                Leja::<_, f64>::new(&cpu, opts),
                Err(Error::InvalidArgument { name: "rtol", .. })
            ),
            "rtol = {rtol}"
        );
    }
    // Single precision cannot be asked for 1e-10.
    assert!(matches!(
        Leja::<_, f32>::new(&cpu, LejaOptions::default().with_rtol(1e-10)),
        Err(Error::InvalidArgument { name: "rtol", .. })
    ));
    let opts = LejaOptions {
        tol: Tolerance::new(1e-6, -1.0),
        ..Default::default()
    };
    assert!(matches!(
        Leja::<_, f64>::new(&cpu, opts),
        Err(Error::InvalidArgument { name: "atol", .. })
    ));
    for (opts, name) in [
        (
            LejaOptions {
                max_degree: 1,
                ..Default::default()
            },
            "max_degree",
        ),
        (
            LejaOptions {
                max_degree: 20_000,
                ..Default::default()
            },
            "max_degree",
        ),
        (
            LejaOptions {
                target_fraction: 0.0,
                ..Default::default()
            },
            "target_fraction",
        ),
        (
            LejaOptions {
                max_substeps: 0,
                ..Default::default()
            },
            "max_substeps",
        ),
        (
            LejaOptions {
                method: LejaMethod::SeedFixed { substeps: 0 },
                ..Default::default()
            },
            "substeps",
        ),
    ] {
        match Leja::<_, f64>::new(&cpu, opts) {
            Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    assert!(matches!(
        leja.set_options(LejaOptions::default().with_rtol(-1.0)),
        Err(Error::InvalidArgument { name: "rtol", .. })
    ));
    // φ_k up to MAX_PHI_ORDER = 30 (it was 16): 17…30 are answered, 31 is refused.
    for k in 17..=MAX_PHI_ORDER {
        let mut w = vec![0.0; 3];
        leja.phimv_k(&lap(3), k, 1.0, &vec![1.0; 3], &mut w)
            .unwrap_or_else(|e| panic!("φ_{k}: {e}"));
        assert!(w.iter().all(|x| x.is_finite()), "φ_{k}: {w:?}");
    }
    assert!(matches!(
        leja.phimv_k(
            &lap(3),
            MAX_PHI_ORDER + 1,
            1.0,
            &vec![1.0; 3],
            &mut vec![0.0; 3]
        ),
        Err(Error::InvalidArgument { name: "k", .. })
    ));
}

#[test]
fn non_finite_times() {
    let cpu = CpuBackend::new();
    let a = lap(3);
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    let v = vec![1.0; 3];
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            leja.expmv(&a, t, &v, &mut vec![0.0; 3]),
            Err(Error::InvalidArgument { name: "t", .. })
        ));
        assert!(matches!(
            leja.phimv_k(&a, 1, t, &v, &mut vec![0.0; 3]),
            Err(Error::InvalidArgument { name: "t", .. })
        ));
    }
    // Negative and unordered times are valid (see the features tests); NaN and none are not.
    for times in [&[0.1, f64::NAN][..], &[][..]] {
        let mut out = vec![vec![0.0; 3]; times.len()];
        assert!(matches!(
            leja.expmv_times(&a, times, &v, &mut out),
            Err(Error::InvalidArgument { name: "times", .. })
        ));
    }
    let cpu = CpuBackend::new();
    let h = DenseMatrixOperator::new(1, 1, vec![c64::new(1.0, 0.0)]).unwrap();
    let mut lc = Leja::new(&cpu, LejaOptions::default()).unwrap();
    assert!(matches!(
        lc.schrodinger(
            &h,
            f64::NAN,
            &vec![c64::new(1.0, 0.0)],
            &mut vec![c64::new(0.0, 0.0)]
        ),
        Err(Error::InvalidArgument { name: "t", .. })
    ));
}

#[test]
fn non_finite_interval_estimates() {
    let cpu = CpuBackend::new();
    let v = vec![1.0; 4];
    // Bounds in the options.
    let bad = SpectralBounds {
        re_min: f64::NEG_INFINITY,
        re_max: 0.0,
        im_min: 0.0,
        im_max: 0.0,
    };
    let opts = LejaOptions {
        bounds: Some(bad),
        ..Default::default()
    };
    assert!(matches!(
        Leja::<_, f64>::new(&cpu, opts),
        Err(Error::NonFinite { index: 0, .. })
    ));
    // Bounds reported by the operator.
    let nan_bounds = SpectralBounds {
        re_min: -1.0,
        re_max: f64::NAN,
        im_min: 0.0,
        im_max: 0.0,
    };
    let op = Broken {
        n: 4,
        bounds: Some(nan_bounds),
        output: 1.0,
    };
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    match leja.expmv(&op, 1.0, &v, &mut vec![0.0; 4]) {
        Err(Error::NonFinite { index, context, .. }) => {
            assert_eq!(index, 1);
            assert!(context.contains("spectral_bounds"), "{context}");
        }
        other => panic!("{other:?}"),
    }
    // An estimate that overflows: the operator returns infinities.
    let op = Broken {
        n: 4,
        bounds: None,
        output: f64::INFINITY,
    };
    match leja.expmv(&op, 1.0, &v, &mut vec![0.0; 4]) {
        Err(Error::NonFinite { context, .. }) => assert!(context.contains("estimate"), "{context}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn no_convergence_says_what_was_reached() {
    let cpu = CpuBackend::new();
    let a = lap(50);
    let v = vec![1.0; 50];
    // Bounds far too small (spectrum in [−10 404, 0]): interpolation on [−1, 0] behaves like
    // a Taylor series of e^{tλ} at |tλ| ≈ 10⁴ and no substep converges in 128 points.
    let opts = LejaOptions {
        bounds: Some(SpectralBounds::real(-1.0, 0.0).unwrap()),
        max_halvings: 3,
        ..LejaOptions::default().with_rtol(1e-8)
    };
    let mut leja = Leja::new(&cpu, opts).unwrap();
    match leja.expmv(&a, 1.0, &v, &mut vec![0.0; 50]) {
        Err(Error::NoConvergence {
            method: "leja",
            detail,
        }) => {
            assert!(
                detail.contains("halvings") && detail.contains("products"),
                "{detail}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A cap on the number of substeps.
    let opts = LejaOptions {
        max_substeps: 2,
        ..LejaOptions::default().with_rtol(1e-8)
    };
    let mut leja = Leja::new(&cpu, opts).unwrap();
    match leja.expmv(&a, 10.0, &v, &mut vec![0.0; 50]) {
        Err(Error::NoConvergence { detail, .. }) => {
            assert!(detail.contains("max_substeps"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    // The thesis's method with too few points per substep.
    let opts = LejaOptions {
        max_degree: 10,
        ..LejaOptions::seed_fixed(1, 1e-8)
    };
    let mut leja = Leja::new(&cpu, opts).unwrap();
    match leja.expmv(&a, 0.01, &v, &mut vec![0.0; 50]) {
        Err(Error::NoConvergence {
            method: "leja-seed",
            detail,
        }) => {
            assert!(detail.contains("11 points"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    // … unless unconverged results are allowed, which the report then says.
    let opts = LejaOptions {
        max_degree: 10,
        allow_unconverged: true,
        ..LejaOptions::seed_fixed(1, 1e-8)
    };
    let mut leja = Leja::new(&cpu, opts).unwrap();
    let r = leja.expmv(&a, 0.01, &v, &mut vec![0.0; 50]).unwrap();
    assert!(!r.converged);
}

#[test]
fn unsupported_requests() {
    let cpu = CpuBackend::new();
    let a = lap(3);
    let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
    assert!(matches!(
        leja.schrodinger(&a, 1.0, &vec![1.0; 3], &mut vec![0.0; 3]),
        Err(Error::Unsupported(_))
    ));
    let mut seed = Leja::new(&cpu, LejaOptions::seed_fixed(4, 1e-6)).unwrap();
    assert!(matches!(
        seed.phimv_k(&a, 1, 0.1, &vec![1.0; 3], &mut vec![0.0; 3]),
        Err(Error::Unsupported(_))
    ));
}
