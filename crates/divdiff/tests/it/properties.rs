//! Invariants of divided differences, on random maps ξ ↦ α + βξ at Leja points.

use crate::common;

use common::leja_points;
use matexp_core::c64;
use matexp_divdiff::{Affine, Function, Method, divided_differences, newton_eval, phi};
use proptest::prelude::*;
use std::sync::OnceLock;

fn leja40() -> &'static [f64] {
    static P: OnceLock<Vec<f64>> = OnceLock::new();
    P.get_or_init(|| leja_points(40, 4001))
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::Auto),
        Just(Method::Stable),
        Just(Method::Recurrence)
    ]
}

/// A complex map with |α| ≤ 3, |β| ≤ max_beta and a random direction (real, imaginary or
/// in between).
fn complex_map(max_beta: f64) -> impl Strategy<Value = Affine<c64>> {
    (
        -3.0..3.0f64,
        -3.0..3.0f64,
        0.0..max_beta,
        0.0..std::f64::consts::TAU,
    )
        .prop_map(|(ar, ai, r, t)| Affine::new(c64::new(ar, ai), c64::from_polar(r, t)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The Newton polynomial Σ d_j ∏_{l<j}(ξ − ξ_l) interpolates g at every node
    /// (relative to max|g|; moderate spreads, where interpolation is well conditioned).
    #[test]
    fn newton_form_interpolates_at_the_nodes(
        m in 1usize..40, map in complex_map(6.0), k in 0usize..4, method in method()
    ) {
        let nodes = &leja40()[..m];
        let d = divided_differences(Function::Phi(k), map, nodes, method).unwrap();
        let g: Vec<c64> = nodes.iter().map(|&x| phi(k, map.at(x)).unwrap()).collect();
        let gmax = g.iter().map(|z| z.norm()).fold(0.0, f64::max);
        for (i, &x) in nodes.iter().enumerate() {
            let p = newton_eval(&d, nodes, x).unwrap();
            prop_assert!((p - g[i]).norm() <= 1e-12 * gmax, "node {i}: {p} vs {}", g[i]);
        }
    }

    /// Real maps give the real part of the complex computation (and real results).
    #[test]
    fn real_map_agrees_with_complex_embedding(
        m in 1usize..40, a in -4.0..4.0f64, b in -30.0..30.0f64, k in 0usize..3
    ) {
        let nodes = &leja40()[..m];
        let dr = divided_differences(Function::Phi(k), Affine::new(a, b), nodes, Method::Stable).unwrap();
        let dc = divided_differences(
            Function::Phi(k), Affine::new(c64::new(a, 0.0), c64::new(b, 0.0)), nodes, Method::Stable,
        ).unwrap();
        let max = dc.iter().map(|z| z.norm()).fold(0.0, f64::max);
        for (x, z) in dr.iter().zip(&dc) {
            prop_assert!((x - z.re).abs() <= 1e-13 * max && z.im.abs() <= 1e-13 * max);
        }
    }

    /// φ_k(z) = z φ_{k+1}(z) + 1/k! lifted to divided differences (Leibniz rule with
    /// (z·f)[z_0..z_j] = z_j f[z_0..z_j] + f[z_0..z_{j−1}]), in ξ-coordinates where
    /// D^k_j = β^j φ_k[z_0..z_j]:  D^k_0 = z_0 D^{k+1}_0 + 1/k!,
    /// D^k_j = z_j D^{k+1}_j + β D^{k+1}_{j−1}  (j ≥ 1).
    #[test]
    fn phi_recurrence_between_orders(
        m in 1usize..40, map in complex_map(25.0), k in 0usize..4
    ) {
        let nodes = &leja40()[..m];
        let lo = divided_differences(Function::Phi(k), map, nodes, Method::Stable).unwrap();
        let hi = divided_differences(Function::Phi(k + 1), map, nodes, Method::Stable).unwrap();
        let scale = lo.iter().map(|z| z.norm()).fold(0.0, f64::max);
        let fact = (1..=k).fold(1.0, |a, i| a / i as f64);
        for j in 0..m {
            let z = map.at(nodes[j]);
            let rhs = if j == 0 {
                z * hi[0] + fact
            } else {
                z * hi[j] + map.beta * hi[j - 1]
            };
            let terms = lo[j].norm() + (z * hi[j]).norm()
                + if j > 0 { (map.beta * hi[j - 1]).norm() } else { fact };
            prop_assert!(
                (lo[j] - rhs).norm() <= 1e-12 * terms + 1e-13 * scale,
                "j={j}: {} vs {rhs}", lo[j]
            );
        }
    }

    /// exp[α+βξ_0, …] = e^α · exp[βξ_0, …] (divided differences with respect to ξ).
    #[test]
    fn exp_shift_factorises(
        m in 1usize..40, map in complex_map(40.0), method in method()
    ) {
        let nodes = &leja40()[..m];
        let shifted = divided_differences(Function::Exp, map, nodes, method).unwrap();
        let plain = divided_differences(
            Function::Exp, Affine::new(c64::new(0.0, 0.0), map.beta), nodes, method,
        ).unwrap();
        let ea = map.alpha.exp();
        let scale = shifted.iter().map(|z| z.norm()).fold(0.0, f64::max);
        for (s, p) in shifted.iter().zip(&plain) {
            prop_assert!((s - ea * p).norm() <= 2e-13 * scale);
        }
    }

    /// Stable and recurrence agree normwise at Leja points (see the crate docs).
    #[test]
    fn stable_and_recurrence_agree_normwise(
        m in 1usize..40, map in complex_map(20.0), k in 0usize..3
    ) {
        let nodes = &leja40()[..m];
        let s = divided_differences(Function::Phi(k), map, nodes, Method::Stable).unwrap();
        let r = divided_differences(Function::Phi(k), map, nodes, Method::Recurrence).unwrap();
        let scale = s.iter().map(|z| z.norm()).fold(0.0, f64::max);
        for (a, b) in s.iter().zip(&r) {
            prop_assert!((a - b).norm() <= 1e-13 * scale);
        }
    }
}
