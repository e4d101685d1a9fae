//! Arguments at the edge of the f64 range: the scaled exponential of the stable method must
//! saturate, never wrap its binary exponent into a finite wrong value.

use matexp_core::{Error, c64};
use matexp_divdiff::{Affine, Function, Method, divided_differences};

#[test]
fn shifts_near_the_f64_limit_overflow_or_underflow_honestly() {
    let nodes = [2.0, -2.0, 0.0];
    for alpha in [1e308, f64::MAX, 7.1e5 * 1e300] {
        let e = divided_differences(
            Function::Exp,
            Affine::new(alpha, 1.0),
            &nodes,
            Method::Stable,
        )
        .unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "α = {alpha:e}: {e}");
        let e = divided_differences(
            Function::Exp,
            Affine::new(c64::new(alpha, 3.0), c64::new(0.0, 1.0)),
            &nodes,
            Method::Stable,
        )
        .unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "α = {alpha:e}: {e}");
    }
    // e^{−1e308} is far below the range: zeros, as documented, not garbage.
    for alpha in [-1e308, -f64::MAX] {
        let d = divided_differences(
            Function::Exp,
            Affine::new(alpha, 1.0),
            &nodes,
            Method::Stable,
        )
        .unwrap();
        assert!(d.iter().all(|&x| x == 0.0), "α = {alpha:e}: {d:?}");
    }
}
