//! Every rejected input yields a typed error that names what was wrong.

use matexp_core::{Error, SpectralBounds, c64};
use matexp_leja::{
    Axis, Interval, TABLE_LEN, discrete_leja_points, fast_leja_points, leja_ordering, leja_points,
    uniform_grid,
};
use matexp_testkit::{assert_invalid as invalid_names, assert_non_finite as non_finite};

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
