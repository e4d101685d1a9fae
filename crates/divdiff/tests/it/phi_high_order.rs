//! φ_k for k = 17…30 (ExponentialUtilities' range) against 512-bit arithmetic: pointwise
//! values on both sides of the regime split, and divided differences at Leja points by both
//! methods.

use crate::common;

use common::{leja_points, normwise_error, reference};
use matexp_core::c64;
use matexp_divdiff::{Affine, Function, MAX_PHI_ORDER, Method, divided_differences, phi};

/// φ_k(z) in 512-bit arithmetic: the one-node divided difference of φ_k at α = z.
fn big(k: usize, z: c64) -> c64 {
    reference(k, z, c64::new(0.0, 0.0), &[0.0])[0]
}

#[test]
fn pointwise_phi_17_to_30_against_512_bits() {
    const { assert!(MAX_PHI_ORDER >= 30) };
    let reals = [
        0.0, 1e-8, 0.4, -0.9, 2.5, -6.0, 15.0, -21.0, 33.0, -34.5, -47.0, 59.5, -59.9, -60.5, 61.0,
        -75.0, 120.0, -300.0,
    ];
    let complexes = [
        c64::new(0.3, -0.2),
        c64::new(0.0, 9.0),
        c64::new(-4.0, 17.0),
        c64::new(20.0, -30.0),
        c64::new(-35.0, 35.0),
        c64::new(0.0, -58.0),
        c64::new(-50.0, 50.0),
        c64::new(2.0, 80.0),
    ];
    let mut worst = (0.0f64, String::new());
    for k in 17..=30 {
        for &x in &reals {
            let want = big(k, c64::new(x, 0.0)).re;
            let got = phi(k, x).unwrap();
            let err = (got - want).abs() / want.abs();
            if err > worst.0 {
                worst = (err, format!("φ_{k}({x})"));
            }
            assert!(err <= 1e-13, "φ_{k}({x}) = {got}, want {want}: {err:.2e}");
        }
        for &z in &complexes {
            let want = big(k, z);
            let got = phi(k, z).unwrap();
            let err = (got - want).norm() / want.norm();
            if err > worst.0 {
                worst = (err, format!("φ_{k}({z})"));
            }
            assert!(err <= 1e-13, "φ_{k}({z}) = {got}, want {want}: {err:.2e}");
        }
    }
    eprintln!("largest relative error {:.2e} at {}", worst.0, worst.1);
    assert!(phi(MAX_PHI_ORDER + 1, 1.0).is_err());
}

#[test]
fn divided_differences_of_phi_17_to_30_against_512_bits() {
    let nodes = leja_points(40, 4001);
    let mut failures = Vec::new();
    for k in [17, 22, 30] {
        // Diffusion (α = −2β, β > 0) and Schrödinger (α = −1.5i, β = −i·span) maps.
        for span in [1.5, 25.0] {
            let maps = [
                (c64::new(-2.0 * span, 0.0), c64::new(span, 0.0)),
                (c64::new(0.0, -1.5), c64::new(0.0, -span)),
            ];
            for (alpha, beta) in maps {
                let r = reference(k, alpha, beta, &nodes);
                for method in [Method::Stable, Method::Auto] {
                    let d: Vec<c64> = if alpha.im == 0.0 && beta.im == 0.0 {
                        divided_differences(
                            Function::Phi(k),
                            Affine::new(alpha.re, beta.re),
                            &nodes,
                            method,
                        )
                        .unwrap()
                        .into_iter()
                        .map(|x| c64::new(x, 0.0))
                        .collect()
                    } else {
                        divided_differences(
                            Function::Phi(k),
                            Affine::new(alpha, beta),
                            &nodes,
                            method,
                        )
                        .unwrap()
                    };
                    let e = normwise_error(&d, &r);
                    if e > 1e-13 {
                        failures.push(format!("φ_{k} α={alpha} β={beta} {method:?}: {e:.2e}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
