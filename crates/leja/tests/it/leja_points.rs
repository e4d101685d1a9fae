//! Properties of Leja points: where they lie, what they maximise, how their products grow,
//! and how they transform under the affine maps.

use crate::common;

use common::{arcsine_distance, direct_product, log_leja_product, log_leja_product_c};
use matexp_core::c64;
use matexp_leja::{
    Axis, Interval, TABLE_LEN, discrete_leja_points, fast_leja_points, leja_ordering, leja_points,
    uniform_grid,
};
use proptest::prelude::*;

const TWO_OVER_SQRT3: f64 = 1.154_700_538_379_251_5; // (2/3)√3

#[test]
fn first_discrete_points_are_the_analytic_leja_points() {
    // On [−2, 2]: 2, −2, 0, then the tie ±(2/3)√3 (maximisers of |z² − 4|·|z|, value
    // (16/9)√3), broken towards +.
    let m = 200_001;
    let h = 4.0 / (m - 1) as f64;
    let z = discrete_leja_points(5, m).unwrap();
    assert_eq!(&z[..3], &[2.0, -2.0, 0.0]);
    assert!((z[3] - TWO_OVER_SQRT3).abs() <= h, "{}", z[3]);
    let p3 = direct_product(z[3], &z[..3]);
    assert!((p3 - 16.0 / 9.0 * 3f64.sqrt()).abs() < 1e-8);
    // z_4 maximises |x(x² − 4)(x − z_3)|; the maximum over [−2, 2] is on (−2, 0), where
    // log|ω| is concave (its second derivative is −Σ 1/(x − z_j)²), so golden-section
    // search finds the continuous maximiser.
    let f = |x: f64| direct_product(x, &z[..4]);
    let (mut lo, mut hi) = (-2.0f64, 0.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if f(x1) < f(x2) { lo = x1 } else { hi = x2 }
    }
    assert!(
        (z[4] - lo).abs() <= h,
        "{} vs continuous maximiser {lo}",
        z[4]
    );
    // ... and that local maximum is the global one on [−2, 2].
    let dense = (0..=40_000)
        .map(|k| f(-2.0 + k as f64 * 1e-4))
        .fold(0.0, f64::max);
    assert!(f(lo) >= dense);
}

#[test]
fn fast_and_discrete_points_agree_where_the_rules_coincide() {
    // Both rules pick 2, −2, 0 exactly; from z_3 on fast Leja points take gap midpoints
    // (z_3 = 1 < (2/3)√3), but both sequences follow the same equilibrium (arcsine)
    // distribution of [−2, 2], at distance O(log n / n).
    let fast = fast_leja_points(600).unwrap();
    let disc = discrete_leja_points(600, 100_001).unwrap();
    assert_eq!(&fast[..3], &disc[..3]);
    assert_eq!(fast[3], 1.0);
    assert!(fast[3] < disc[3] && disc[3] < 1.16);
    assert!(fast[4] < 0.0 && disc[4] < 0.0);
    for n in [100usize, 300, 600] {
        let bound = 2.0 * (n as f64).ln() / n as f64;
        let (df, dd) = (arcsine_distance(&fast[..n]), arcsine_distance(&disc[..n]));
        assert!(
            df < bound && dd < bound,
            "n = {n}: {df}, {dd}, bound {bound}"
        );
    }
}

#[test]
fn shipped_table_is_rederived_bit_for_bit_by_the_generator() {
    let table = leja_points(TABLE_LEN).unwrap();
    assert_eq!(TABLE_LEN, 10_000);
    let regenerated = fast_leja_points(TABLE_LEN).unwrap();
    for (i, (a, b)) in table.iter().zip(&regenerated).enumerate() {
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "point {i}: table {a} vs generator {b}"
        );
    }
}

#[test]
fn table_points_are_distinct_points_of_the_reference_interval() {
    let mut t = leja_points(TABLE_LEN).unwrap().to_vec();
    assert!(t.iter().all(|x| (-2.0..=2.0).contains(x)));
    t.sort_by(f64::total_cmp);
    assert!(t.windows(2).all(|w| w[0] < w[1]));
}

/// Leja product growth. Theory (Reichel 1990; the thesis' Thm 36): for Leja points on a set
/// of capacity 1, `∏_{j<n}|z_n − z_j| ≥ 1`, and in fact ≥ 2 for n ≥ 1 on [−2, 2] because a
/// monic polynomial has sup norm ≥ 2 there (Chebyshev); and `(∏)^{1/n} → 1`. Its growth is
/// subexponential, polynomial in n in all known bounds. We assert, for every n:
/// * `(∏)^{1/n} ∈ [0.5, 2]` for n ≥ 8 (no exponential drift at all), and
/// * `0 ≤ log ∏ ≤ 2 + ln n` (subexponential: a capacity error of 1% alone would give
///   `log ∏ ≈ 0.01·n = 100` at n = 10⁴, fifteen times over the bound).
fn assert_leja_product_growth(z: &[f64], what: &str) {
    for n in 1..z.len() {
        let l = log_leja_product(z, n);
        let per_point = (l / n as f64).exp();
        // For n < 8 the factors themselves reach 4 (z_1 − z_0 = −4).
        assert!(
            n < 8 || (0.5..=2.0).contains(&per_point),
            "{what}: n = {n}: (prod)^(1/n) = {per_point}"
        );
        assert!(
            l >= 0.0 && l <= 2.0 + (n as f64).ln(),
            "{what}: n = {n}: log prod = {l}"
        );
    }
}

#[test]
fn leja_products_of_the_table_grow_subexponentially() {
    assert_leja_product_growth(leja_points(TABLE_LEN).unwrap(), "fast Leja table");
}

#[test]
fn leja_products_of_discrete_points_grow_subexponentially() {
    assert_leja_product_growth(
        &discrete_leja_points(2000, 200_001).unwrap(),
        "discrete Leja points",
    );
}

#[test]
fn leja_products_scale_with_capacity() {
    // On an interval of capacity γ the Leja product is γⁿ times that of [−2, 2]: a
    // capacity-one set keeps it O(1), others drift exponentially (why we map to [−2, 2]).
    let xi = leja_points(400).unwrap();
    for (a, b) in [(0.0, 8.0), (-1.0, -0.6), (3.0, 3.0 + 4.0 * 1.5)] {
        let k = Interval::real(a, b).unwrap();
        let gamma = k.capacity();
        assert_eq!(gamma, (b - a) / 4.0);
        let z = k.leja_points(400).unwrap();
        for n in [1usize, 10, 100, 399] {
            let lhs = log_leja_product_c(&z, n);
            let rhs = n as f64 * gamma.ln() + log_leja_product(xi, n);
            assert!(
                (lhs - rhs).abs() < 1e-9 * (1.0 + rhs.abs()),
                "{lhs} vs {rhs}"
            );
        }
    }
}

#[test]
fn green_function_is_analytic() {
    let k = Interval::real(-3.0, 5.0).unwrap();
    let (c, gamma) = (k.center(), k.capacity());
    // Zero on the interval.
    for t in [-3.0, -1.0, 0.5, 5.0] {
        assert!(k.green(c64::new(t, 0.0)).abs() < 1e-7);
    }
    // On the ellipse z = c + γ(R e^{iθ} + e^{−iθ}/R): G = log R.
    for r in [1.1f64, 2.0, 10.0] {
        for th in [0.3f64, 1.7, 2.9, 4.4] {
            let w = c64::from_polar(r, th);
            let z = c64::new(c, 0.0) + (w + 1.0 / w) * gamma;
            assert!((k.green(z) - r.ln()).abs() < 1e-12, "R = {r}, θ = {th}");
        }
    }
    // G(z) − log|z| → −log γ at infinity.
    let far = c64::new(3e7, 4e7);
    assert!((k.green(far) - far.norm().ln() + gamma.ln()).abs() < 1e-6);
    // The imaginary interval i·[−3, 5] is the rotation of the real one.
    let h = Interval::imaginary(-3.0, 5.0).unwrap();
    let z = c64::new(0.7, 2.0);
    assert!((h.green(z * c64::new(0.0, 1.0)) - k.green(z)).abs() < 1e-14);
}

fn brute_force_check(candidates: &[f64], z: &[f64]) {
    // z_0 has the largest modulus; every later z_n maximises the product over the
    // candidates (to rounding), is a candidate, and is new.
    let max_abs = candidates.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert_eq!(z[0].abs(), max_abs);
    for n in 1..z.len() {
        assert!(candidates.contains(&z[n]));
        assert!(!z[..n].contains(&z[n]), "z_{n} = {} repeated", z[n]);
        let best = candidates
            .iter()
            .map(|&x| direct_product(x, &z[..n]))
            .fold(0.0f64, f64::max);
        let got = direct_product(z[n], &z[..n]);
        assert!(
            got >= best * (1.0 - 1e-12),
            "z_{n} = {}: product {got} < grid maximum {best}",
            z[n]
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn each_discrete_point_maximises_the_product_over_the_grid(
        n in 1usize..14,
        extra in 0usize..300,
    ) {
        let m = n.max(2) + extra;
        let z = discrete_leja_points(n, m).unwrap();
        prop_assert_eq!(z.len(), n);
        prop_assert_eq!(z[0], 2.0);
        brute_force_check(&uniform_grid(m).unwrap(), &z);
    }

    #[test]
    fn leja_ordering_maximises_over_arbitrary_candidates(
        raw in proptest::collection::btree_set(-10_000i32..10_000, 2..60),
        frac in 0.1f64..1.0,
    ) {
        let candidates: Vec<f64> = raw.iter().map(|&k| k as f64 * 1e-3).collect();
        let n = ((candidates.len() as f64 * frac) as usize).max(1);
        let z = leja_ordering(&candidates, n).unwrap();
        brute_force_check(&candidates, &z);
    }

    #[test]
    fn leja_points_lie_in_real_and_imaginary_intervals(
        a in -1e6f64..1e6,
        width in 1e-9f64..1e6,
        imaginary in any::<bool>(),
        n in 1usize..2000,
    ) {
        let b = a + width;
        let axis = if imaginary { Axis::Imaginary } else { Axis::Real };
        let k = Interval::new(axis, a, b).unwrap();
        let (lo, hi) = k.endpoints();
        for z in k.leja_points(n).unwrap() {
            let (along, across) = if imaginary { (z.im, z.re) } else { (z.re, z.im) };
            prop_assert_eq!(across, 0.0);
            prop_assert!(lo <= along && along <= hi, "{} outside [{}, {}]", along, lo, hi);
        }
        // The first two points are the endpoints, upper one first.
        let t = k.leja_coordinates(2.min(n)).unwrap();
        prop_assert_eq!(t[0], hi);
        if n > 1 {
            prop_assert_eq!(t[1], lo);
        }
    }

    #[test]
    fn discrete_leja_points_are_affine_invariant(
        a in -100.0f64..100.0,
        width in 1e-3f64..100.0,
        imaginary in any::<bool>(),
        n in 2usize..12,
        m in 30usize..200,
    ) {
        // The images of the discrete Leja points of the [−2, 2] grid are discrete Leja
        // points of the image grid, and their products scale by γⁿ.
        let k = Interval::new(if imaginary { Axis::Imaginary } else { Axis::Real }, a, a + width)
            .unwrap();
        let xi = discrete_leja_points(n, m.max(n)).unwrap();
        let grid: Vec<c64> = k.map_points(&uniform_grid(m.max(n)).unwrap());
        let w = k.map_points(&xi);
        let gamma = k.capacity();
        for j in 1..n {
            let prod = |x: c64| w[..j].iter().map(|&y| (x - y).norm()).product::<f64>();
            let best = grid.iter().map(|&x| prod(x)).fold(0.0f64, f64::max);
            let got = prod(w[j]);
            prop_assert!(got >= best * (1.0 - 1e-9), "point {}: {} < {}", j, got, best);
            let reference = direct_product(xi[j], &xi[..j]);
            let scaled = reference * gamma.powi(j as i32);
            prop_assert!((got - scaled).abs() <= 1e-9 * scaled, "{} vs γ^n·{}", got, reference);
        }
    }
}
