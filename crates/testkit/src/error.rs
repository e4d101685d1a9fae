//! Error measures of test assertions.

use matexp_core::{Scalar, c64, norms};

/// ‖a − b‖₂ / ‖b‖₂ computed in double precision with overflow-safe norms; the absolute
/// error ‖a − b‖₂ when `b` is zero. NaN anywhere gives NaN (so an assertion `< tol` fails).
///
/// # Panics
/// When the lengths differ (a test bug, not an input).
pub fn rel_err<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    assert_eq!(a.len(), b.len(), "rel_err: lengths differ");
    let d: Vec<c64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.to_c64() - y.to_c64())
        .collect();
    let r: Vec<c64> = b.iter().map(|y| y.to_c64()).collect();
    ratio(norms::nrm2(&d), norms::nrm2(&r))
}

/// [`rel_err`] against a double-precision complex reference.
///
/// # Panics
/// When the lengths differ.
pub fn rel_err_c64<S: Scalar>(a: &[S], b: &[c64]) -> f64 {
    assert_eq!(a.len(), b.len(), "rel_err_c64: lengths differ");
    let d: Vec<c64> = a.iter().zip(b).map(|(x, y)| x.to_c64() - y).collect();
    ratio(norms::nrm2(&d), norms::nrm2(b))
}

fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 { num } else { num / den }
}

/// Asserts that `r` is [`matexp_core::Error::InvalidArgument`] naming `name`, with a reason
/// that contains `fragment`.
///
/// # Panics
/// When it is not (the test fails).
pub fn assert_invalid<T: std::fmt::Debug>(r: matexp_core::Result<T>, name: &str, fragment: &str) {
    match r {
        Err(matexp_core::Error::InvalidArgument {
            name: got, reason, ..
        }) => {
            assert_eq!(got, name, "reason: {reason}");
            assert!(reason.contains(fragment), "`{reason}` lacks `{fragment}`");
        }
        other => panic!("expected InvalidArgument({name}), got {other:?}"),
    }
}

/// Asserts that `r` is [`matexp_core::Error::NonFinite`] at `index`, with a context that
/// contains `context`.
///
/// # Panics
/// When it is not (the test fails).
pub fn assert_non_finite<T: std::fmt::Debug>(
    r: matexp_core::Result<T>,
    context: &str,
    index: usize,
) {
    match r {
        Err(matexp_core::Error::NonFinite {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_of_known_vectors() {
        assert_eq!(rel_err(&[3.0f64, 4.0], &[0.0, 0.0]), 5.0);
        assert!((rel_err(&[1.0f64, 1.0], &[1.0, 2.0]) - 1.0 / 5f64.sqrt()).abs() < 1e-15);
        assert!(rel_err(&[f64::NAN], &[1.0]).is_nan());
        let z = [c64::new(0.0, 1.0)];
        assert_eq!(rel_err_c64(&[c64::new(0.0, 1.0)], &z), 0.0);
    }
}
