//! Every rejected input yields a typed error that names what was wrong.

use matexp_core::{CpuBackend, Error, LinearOperator, Result, SpectralBounds, c64};
use matexp_leja::{
    Axis, Interval, LanczosOptions, PowerOptions, RowEntries, Symmetry, TABLE_LEN,
    discrete_leja_points, estimate_spectral_bounds, fast_leja_points, gershgorin_bounds,
    lanczos_bounds, leja_ordering, leja_points, power_spectral_radius, symmetric_tridiagonal_eigen,
    symmetric_tridiagonal_eigenvalues, uniform_grid,
};

fn invalid_names(r: Result<impl std::fmt::Debug>, name: &str, fragment: &str) {
    match r {
        Err(Error::InvalidArgument {
            name: got, reason, ..
        }) => {
            assert_eq!(got, name, "reason: {reason}");
            assert!(reason.contains(fragment), "`{reason}` lacks `{fragment}`");
        }
        other => panic!("expected InvalidArgument({name}), got {other:?}"),
    }
}

fn non_finite(r: Result<impl std::fmt::Debug>, context: &str, index: usize) {
    match r {
        Err(Error::NonFinite {
            context: got,
            index: i,
            ..
        }) => {
            assert!(got.contains(context), "`{got}` lacks `{context}`");
            assert_eq!(i, index);
        }
        other => panic!("expected NonFinite({context}), got {other:?}"),
    }
}

#[test]
fn empty_degenerate_and_non_finite_intervals() {
    invalid_names(Interval::real(1.0, 0.0), "a", "empty or degenerate");
    invalid_names(Interval::real(2.0, 2.0), "a", "empty or degenerate");
    invalid_names(Interval::imaginary(-1.0, -1.0), "a", "need a < b");
    invalid_names(Interval::real(f64::NAN, 1.0), "a", "finite");
    invalid_names(Interval::real(0.0, f64::INFINITY), "b", "finite");
    invalid_names(Interval::imaginary(f64::NEG_INFINITY, 0.0), "a", "finite");
    invalid_names(Interval::real(0.0, 4.9e-324), "b", "too narrow");
    invalid_names(
        Interval::from_center_capacity(Axis::Real, 0.0, 0.0),
        "gamma",
        "positive",
    );
    invalid_names(
        Interval::from_center_capacity(Axis::Real, 0.0, -1.0),
        "gamma",
        "positive",
    );
    invalid_names(
        Interval::from_center_capacity(Axis::Imaginary, 0.0, f64::NAN),
        "gamma",
        "finite",
    );
    invalid_names(
        Interval::from_center_capacity(Axis::Real, f64::INFINITY, 1.0),
        "center",
        "finite",
    );
    invalid_names(
        Interval::from_center_capacity(Axis::Real, 0.0, f64::MAX),
        "gamma",
        "overflow",
    );
}

#[test]
fn spectral_bounds_that_are_not_an_interval() {
    let point = SpectralBounds::real(3.0, 3.0).unwrap();
    invalid_names(Interval::from_spectral_bounds(&point), "a", "degenerate");
    let boxed = SpectralBounds::new(-1.0, 1.0, -2.0, 2.0).unwrap();
    assert!(matches!(
        Interval::from_spectral_bounds(&boxed),
        Err(Error::Unsupported(m)) if m.contains("neither a real nor an imaginary")
    ));
    let off_axis = SpectralBounds::new(1.0, 1.0, -2.0, 2.0).unwrap();
    assert!(matches!(
        Interval::from_spectral_bounds(&off_axis),
        Err(Error::Unsupported(_))
    ));
}

#[test]
fn leja_step_needs_complex_scalars_on_imaginary_intervals() {
    let k = Interval::imaginary(-1.0, 1.0).unwrap();
    assert!(matches!(
        k.shifted_step::<f64>(0.0, 1.0),
        Err(Error::Unsupported(m)) if m.contains("complex scalar")
    ));
    let s = k.shifted_step::<c64>(2.0, c64::new(1.0, 0.0)).unwrap();
    assert_eq!(s.alpha, c64::new(0.0, -2.0));
    assert_eq!(s.shift, c64::new(-2.0, 0.0));
    invalid_names(
        k.shifted_step::<c64>(f64::NAN, c64::new(1.0, 0.0)),
        "xi_prev",
        "finite",
    );
}

#[test]
fn zero_points() {
    invalid_names(leja_points(0), "n", "zero points");
    invalid_names(fast_leja_points(0), "n", "zero points");
    invalid_names(discrete_leja_points(0, 100), "n", "zero points");
    invalid_names(leja_ordering(&[1.0, 2.0], 0), "n", "zero points");
    invalid_names(Interval::REFERENCE.leja_points(0), "n", "zero points");
}

#[test]
fn too_many_points() {
    let n = TABLE_LEN + 1;
    let err = leja_points(n).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("too many points requested"), "{text}");
    assert!(
        text.contains(&n.to_string()) && text.contains(&TABLE_LEN.to_string()),
        "{text}"
    );
    invalid_names(
        Interval::real(0.0, 1.0).unwrap().leja_coordinates(n),
        "n",
        "too many points",
    );
    assert_eq!(leja_points(TABLE_LEN).unwrap().len(), TABLE_LEN);
}

#[test]
fn grid_too_small() {
    invalid_names(
        discrete_leja_points(10, 9),
        "grid",
        "too small for the number of points",
    );
    invalid_names(discrete_leja_points(1, 1), "grid", "two endpoints");
    invalid_names(uniform_grid(0), "grid", "two endpoints");
    invalid_names(
        leja_ordering(&[0.0, 1.0], 3),
        "candidates",
        "too few candidates",
    );
    assert_eq!(discrete_leja_points(9, 9).unwrap().len(), 9);
}

#[test]
fn bad_candidates() {
    invalid_names(
        leja_ordering(&[0.5, 1.0, 0.5], 2),
        "candidates",
        "duplicate",
    );
    invalid_names(
        leja_ordering(&[0.0, 1.0, -0.0], 2),
        "candidates",
        "duplicate",
    );
    non_finite(leja_ordering(&[0.0, f64::NAN, 1.0], 2), "candidates", 1);
    non_finite(leja_ordering(&[f64::INFINITY, 1.0], 1), "candidates", 0);
}

struct Rows {
    n: usize,
    m: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl RowEntries<f64> for Rows {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.m
    }
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, row: usize, mut f: F) {
        for &(i, j, v) in &self.entries {
            if i == row {
                f(j, v);
            }
        }
    }
}

#[test]
fn bad_matrices_for_gershgorin() {
    let empty = Rows {
        n: 0,
        m: 0,
        entries: vec![],
    };
    invalid_names(
        gershgorin_bounds(&empty, Symmetry::Hermitian),
        "matrix",
        "zero-dimension",
    );
    let rect = Rows {
        n: 2,
        m: 3,
        entries: vec![(0, 0, 1.0)],
    };
    assert!(matches!(
        gershgorin_bounds(&rect, Symmetry::General),
        Err(Error::DimensionMismatch {
            expected: 2,
            found: 3,
            ..
        })
    ));
    let out_of_range = Rows {
        n: 2,
        m: 2,
        entries: vec![(1, 5, 1.0)],
    };
    assert!(matches!(
        gershgorin_bounds(&out_of_range, Symmetry::General),
        Err(Error::DimensionMismatch { found: 5, .. })
    ));
    let nan = Rows {
        n: 3,
        m: 3,
        entries: vec![(0, 0, 1.0), (2, 1, f64::NAN)],
    };
    non_finite(
        gershgorin_bounds(&nan, Symmetry::Hermitian),
        "matrix entry (2, 1)",
        2,
    );
    let overflow = Rows {
        n: 2,
        m: 2,
        entries: vec![(0, 1, f64::MAX), (0, 0, 0.0), (0, 1, f64::MAX)],
    };
    non_finite(
        gershgorin_bounds(&overflow, Symmetry::Hermitian),
        "Gershgorin disc of row 0",
        0,
    );
}

#[test]
fn zero_dimension_operators() {
    let id = |x: &[f64], y: &mut [f64]| y.copy_from_slice(x);
    invalid_names(
        lanczos_bounds(0, id, &LanczosOptions::default()),
        "n",
        "zero-dimension",
    );
    invalid_names(
        power_spectral_radius(0, id, &PowerOptions::default()),
        "n",
        "zero-dimension",
    );
    invalid_names(
        symmetric_tridiagonal_eigenvalues(&[], &[]),
        "diag",
        "dimension zero",
    );
}

#[test]
fn non_finite_operator_output() {
    let nan_at_3 = |x: &[f64], y: &mut [f64]| {
        y.copy_from_slice(x);
        y[3] = f64::NAN;
    };
    non_finite(
        lanczos_bounds(10, nan_at_3, &LanczosOptions::default()),
        "Lanczos step 0",
        3,
    );
    // Overflow after a few steps: A = 1e100·I applied to unit vectors stays finite, so use
    // an operator that blows up on its third call.
    let mut calls = 0;
    let blow_up = |x: &[f64], y: &mut [f64]| {
        calls += 1;
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi = if calls == 3 { f64::INFINITY } else { 2.0 * xi };
        }
    };
    non_finite(
        power_spectral_radius(4, blow_up, &PowerOptions::default()),
        "power iteration step 2",
        0,
    );
    let c_nan = |_: &[c64], y: &mut [c64]| y.fill(c64::new(0.0, f64::NAN));
    non_finite(
        power_spectral_radius(2, c_nan, &PowerOptions::default()),
        "power iteration",
        0,
    );
}

#[test]
fn bad_estimator_options() {
    let id = |x: &[f64], y: &mut [f64]| y.copy_from_slice(x);
    let zero_steps = LanczosOptions {
        steps: 0,
        ..LanczosOptions::default()
    };
    invalid_names(lanczos_bounds(5, id, &zero_steps), "steps", "at least one");
    let bad_margin = PowerOptions {
        rel_margin: -0.1,
        ..PowerOptions::default()
    };
    invalid_names(
        power_spectral_radius(5, id, &bad_margin),
        "rel_margin",
        "non-negative",
    );
    let nan_margin = LanczosOptions {
        rel_margin: f64::NAN,
        ..LanczosOptions::default()
    };
    invalid_names(lanczos_bounds(5, id, &nan_margin), "rel_margin", "finite");
}

#[test]
fn bad_tridiagonals() {
    assert!(matches!(
        symmetric_tridiagonal_eigen(&[1.0, 2.0, 3.0], &[1.0]),
        Err(Error::DimensionMismatch {
            expected: 2,
            found: 1,
            ..
        })
    ));
    non_finite(
        symmetric_tridiagonal_eigenvalues(&[1.0, 2.0], &[f64::INFINITY]),
        "off-diagonal",
        0,
    );
    non_finite(
        symmetric_tridiagonal_eigenvalues(&[1.0, f64::NAN], &[0.0]),
        "diagonal",
        1,
    );
}

/// An operator whose apply fails, and which is not square.
struct Failing {
    rows: usize,
    cols: usize,
}

impl LinearOperator<CpuBackend, f64> for Failing {
    fn nrows(&self) -> usize {
        self.rows
    }
    fn ncols(&self) -> usize {
        self.cols
    }
    fn apply(&self, _: &CpuBackend, _: f64, _: &Vec<f64>, _: f64, _: &mut Vec<f64>) -> Result<()> {
        Err(Error::Device("lost".into()))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

#[test]
fn operator_errors_propagate() {
    let (l, p) = (LanczosOptions::default(), PowerOptions::default());
    assert!(matches!(
        estimate_spectral_bounds(&Failing { rows: 3, cols: 4 }, &l, &p),
        Err(Error::DimensionMismatch {
            expected: 3,
            found: 4,
            ..
        })
    ));
    assert!(matches!(
        estimate_spectral_bounds(&Failing { rows: 3, cols: 3 }, &l, &p),
        Err(Error::Device(m)) if m == "lost"
    ));
    invalid_names(
        estimate_spectral_bounds(&Failing { rows: 0, cols: 0 }, &l, &p),
        "n",
        "zero-dimension",
    );
}
