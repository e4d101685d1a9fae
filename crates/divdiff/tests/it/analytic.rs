//! Closed forms: confluent nodes, single nodes, two nodes, and the method Auto picks.

use matexp_core::c64;
use matexp_divdiff::{
    AUTO_RECURRENCE_MAX_SPREAD, Affine, Function, Method, divided_differences,
    divided_differences_detailed, phi, resolve_method,
};

fn inv_factorial(n: usize) -> f64 {
    (1..=n).fold(1.0, |a, i| a / i as f64)
}

/// All nodes at ξ = 0 with α = 0: g[0, …, 0] (j+1 times) = g^{(j)}(0)/j! = β^j φ_k^{(j)}(0)/j!
/// = β^j/(j+k)!. Only the stable method handles repeated nodes.
#[test]
fn confluent_nodes_give_taylor_coefficients() {
    let nodes = [0.0; 30];
    for k in 0..=4 {
        for beta in [0.5, -3.0, 7.0] {
            let d = divided_differences(
                Function::Phi(k),
                Affine::new(0.0, beta),
                &nodes,
                Method::Stable,
            )
            .unwrap();
            for (j, &dj) in d.iter().enumerate() {
                let exact = beta.powi(j as i32) * inv_factorial(j + k);
                assert!(
                    (dj - exact).abs() <= 1e-13 * exact.abs(),
                    "k={k} β={beta} j={j}: {dj:e} vs {exact:e}"
                );
            }
        }
    }
}

/// exp at a repeated complex node z: g[ξ, …, ξ] = β^j e^{α+βξ}/j!.
#[test]
fn confluent_complex_exp() {
    let (alpha, beta) = (c64::new(0.3, -1.0), c64::new(0.0, 4.0));
    let nodes = [1.25; 25];
    let d = divided_differences(
        Function::Exp,
        Affine::new(alpha, beta),
        &nodes,
        Method::Auto,
    )
    .unwrap();
    let g = (alpha + beta * 1.25).exp();
    for (j, dj) in d.iter().enumerate() {
        let exact = beta.powi(j as i32) * g * inv_factorial(j);
        assert!((dj - exact).norm() <= 1e-13 * exact.norm(), "j={j}");
    }
}

#[test]
fn one_and_two_nodes() {
    for method in [Method::Recurrence, Method::Stable] {
        for k in 0..=3 {
            let map = Affine::new(-0.7, 2.5);
            let d = divided_differences(Function::Phi(k), map, &[0.4, -1.1], method).unwrap();
            let g0 = phi(k, map.at(0.4)).unwrap();
            let g1 = phi(k, map.at(-1.1)).unwrap();
            assert!((d[0] - g0).abs() <= 1e-15 * g0.abs(), "{method:?} k={k}");
            let slope = (g1 - g0) / (-1.1 - 0.4);
            assert!(
                (d[1] - slope).abs() <= 1e-14 * slope.abs(),
                "{method:?} k={k}"
            );
        }
    }
}

#[test]
fn auto_picks_recurrence_only_for_small_spread_and_distinct_nodes() {
    let nodes = [2.0, -2.0, 0.0];
    let small = Affine::new(0.0, AUTO_RECURRENCE_MAX_SPREAD / 4.0);
    let large = Affine::new(0.0, AUTO_RECURRENCE_MAX_SPREAD);
    assert_eq!(
        resolve_method(Method::Auto, small, &nodes).unwrap(),
        Method::Recurrence
    );
    assert_eq!(
        resolve_method(Method::Auto, large, &nodes).unwrap(),
        Method::Stable
    );
    assert_eq!(
        resolve_method(Method::Auto, small, &[1.0, 1.0]).unwrap(),
        Method::Stable
    );
    // Distinct but not in Leja order (sorted): the recurrence would amplify rounding errors.
    let sorted = [-2.0, -1.0, 0.0, 1.0, 2.0];
    assert_eq!(
        resolve_method(Method::Auto, small, &sorted).unwrap(),
        Method::Stable
    );
    assert_eq!(
        resolve_method(Method::Auto, small, &[2.0, -2.0, 0.0, 1.0, -1.0]).unwrap(),
        Method::Recurrence
    );
    assert_eq!(
        resolve_method(Method::Recurrence, large, &nodes).unwrap(),
        Method::Recurrence
    );
    let out = divided_differences_detailed(Function::Exp, large, &nodes, Method::Auto).unwrap();
    assert_eq!(out.method, Method::Stable);
    assert!(out.substeps >= 1 && out.bandwidth >= 1);
    assert_eq!(out.spread, 4.0 * AUTO_RECURRENCE_MAX_SPREAD);
}

/// `Affine::from_step` is the Leja map ξ ↦ h(c + γξ).
#[test]
fn from_step_builds_h_c_gamma() {
    let m = Affine::from_step(0.1, -20.0, 10.0).unwrap();
    assert_eq!((m.alpha, m.beta), (-2.0, 1.0));
    let m = Affine::from_step(0.5, c64::new(0.0, -2.0), c64::new(0.0, -4.0)).unwrap();
    assert_eq!(
        (m.alpha, m.beta),
        (c64::new(0.0, -1.0), c64::new(0.0, -2.0))
    );
}
