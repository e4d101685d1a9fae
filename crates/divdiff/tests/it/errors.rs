//! Every rejected input yields a typed error naming the argument (never a panic, never a
//! silent inf/NaN).

use matexp_core::{Error, c64};
use matexp_divdiff::{
    Affine, Function, MAX_NODES, MAX_PHI_ORDER, Method, divided_differences, newton_eval, phi,
};

const METHODS: [Method; 3] = [Method::Auto, Method::Recurrence, Method::Stable];

fn invalid_name(e: Error) -> &'static str {
    match e {
        Error::InvalidArgument { name, .. } => name,
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn empty_node_set() {
    for m in METHODS {
        let e = divided_differences(Function::Exp, Affine::new(0.0, 1.0), &[], m).unwrap_err();
        assert_eq!(invalid_name(e), "nodes");
    }
}

#[test]
fn too_many_nodes() {
    let nodes: Vec<f64> = (0..=MAX_NODES).map(|i| i as f64 * 1e-4).collect();
    for m in METHODS {
        let e = divided_differences(Function::Exp, Affine::new(0.0, 1.0), &nodes, m).unwrap_err();
        assert!(e.to_string().contains("10000"), "{e}");
        assert_eq!(invalid_name(e), "nodes");
    }
    // The cap itself is accepted (by the stable method: these equispaced, sorted nodes are
    // far from Leja order, and the recurrence's table overflows on them — reported as an
    // error, not returned as inf).
    let d = divided_differences(
        Function::Exp,
        Affine::new(0.0, 1e-3),
        &nodes[..MAX_NODES],
        Method::Stable,
    )
    .unwrap();
    let d1 = (1e-3 * nodes[1]).exp_m1() / nodes[1];
    assert!((d[1] - d1).abs() < 1e-15 * d1);
    let e = divided_differences(
        Function::Exp,
        Affine::new(0.0, 1e-3),
        &nodes[..MAX_NODES],
        Method::Recurrence,
    )
    .unwrap_err();
    assert!(matches!(e, Error::NonFinite { .. }), "{e:?}");
}

#[test]
fn nan_and_infinite_nodes() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for m in METHODS {
            let e = divided_differences(Function::Exp, Affine::new(0.0, 1.0), &[2.0, -2.0, bad], m)
                .unwrap_err();
            match e {
                Error::NonFinite { index, .. } => assert_eq!(index, 2),
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn non_finite_alpha_beta_and_step() {
    let nodes = [2.0, -2.0];
    for m in METHODS {
        let e =
            divided_differences(Function::Exp, Affine::new(f64::NAN, 1.0), &nodes, m).unwrap_err();
        assert_eq!(invalid_name(e), "alpha");
        let e = divided_differences(
            Function::Exp,
            Affine::new(c64::new(0.0, 0.0), c64::new(0.0, f64::INFINITY)),
            &nodes,
            m,
        )
        .unwrap_err();
        assert_eq!(invalid_name(e), "beta");
    }
    assert_eq!(
        invalid_name(Affine::from_step(f64::NAN, 1.0, 1.0).unwrap_err()),
        "h"
    );
    assert_eq!(
        invalid_name(Affine::from_step(1.0, f64::INFINITY, 1.0).unwrap_err()),
        "c"
    );
    assert_eq!(
        invalid_name(Affine::from_step(1.0, 0.0, f64::NAN).unwrap_err()),
        "gamma"
    );
    // Finite factors whose product overflows.
    assert_eq!(
        invalid_name(Affine::from_step(1e300, 1e300, 1.0).unwrap_err()),
        "alpha"
    );
    assert_eq!(
        invalid_name(Affine::from_step(1e300, 1.0, -1e300).unwrap_err()),
        "beta"
    );
}

#[test]
fn phi_order_out_of_range() {
    let k = MAX_PHI_ORDER + 1;
    for m in METHODS {
        let e =
            divided_differences(Function::Phi(k), Affine::new(0.0, 1.0), &[0.0], m).unwrap_err();
        assert_eq!(invalid_name(e), "k");
    }
    assert_eq!(invalid_name(phi(k, 1.0).unwrap_err()), "k");
    assert!(
        divided_differences(
            Function::Phi(MAX_PHI_ORDER),
            Affine::new(0.0, 1.0),
            &[0.0, 1.0],
            Method::Auto
        )
        .is_ok()
    );
}

/// e^α beyond the f64 range: an error naming the coefficient and its magnitude, from both
/// methods and for real and complex maps.
#[test]
fn overflowing_result() {
    let nodes = [2.0, -2.0, 0.0];
    for m in METHODS {
        let e = divided_differences(Function::Exp, Affine::new(800.0, 1.0), &nodes, m).unwrap_err();
        match &e {
            Error::NonFinite { index, .. } => assert_eq!(*index, 0, "{m:?}"),
            other => panic!("{m:?}: {other:?}"),
        }
        assert!(
            e.to_string().contains("overflow") || e.to_string().contains("beyond"),
            "{e}"
        );
        let e = divided_differences(
            Function::Phi(2),
            Affine::new(c64::new(900.0, 1.0), c64::new(0.0, 1.0)),
            &nodes,
            m,
        )
        .unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "{m:?}: {e:?}");
    }
    // The stable method reports the magnitude.
    let e = divided_differences(
        Function::Exp,
        Affine::new(800.0, 1.0),
        &nodes,
        Method::Stable,
    )
    .unwrap_err();
    assert!(e.to_string().contains("1e348"), "{e}");
    assert!(phi(0, 710.0).is_err());
}

#[test]
fn repeated_nodes_rejected_by_the_recurrence_only() {
    let nodes = [2.0, -2.0, 2.0];
    let e = divided_differences(
        Function::Exp,
        Affine::new(0.0, 1.0),
        &nodes,
        Method::Recurrence,
    )
    .unwrap_err();
    assert!(e.to_string().contains("ξ[0] = ξ[2]"), "{e}");
    assert_eq!(invalid_name(e), "nodes");
    assert!(
        divided_differences(Function::Exp, Affine::new(0.0, 1.0), &nodes, Method::Stable).is_ok()
    );
    assert!(
        divided_differences(Function::Exp, Affine::new(0.0, 1.0), &nodes, Method::Auto).is_ok()
    );
}

#[test]
fn stable_spread_caps() {
    let nodes = [2.0, -2.0];
    let e = divided_differences(
        Function::Exp,
        Affine::new(c64::new(0.0, 0.0), c64::new(0.0, 1e7)),
        &nodes,
        Method::Stable,
    )
    .unwrap_err();
    assert_eq!(invalid_name(e), "beta");
    let e = divided_differences(
        Function::Phi(1),
        Affine::new(c64::new(0.0, 1e7), c64::new(0.0, 1.0)),
        &nodes,
        Method::Stable,
    )
    .unwrap_err();
    assert_eq!(invalid_name(e), "alpha");
}

#[test]
fn newton_eval_length_mismatch() {
    let e = newton_eval(&[1.0, 2.0], &[0.0], 0.5).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimensionMismatch {
                expected: 2,
                found: 1,
                ..
            }
        ),
        "{e:?}"
    );
}
