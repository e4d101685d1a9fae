//! Accuracy against 512-bit arithmetic at discrete Leja points of [−2, 2].

use crate::common;

use common::{componentwise_error, leja_points, normwise_error, reference};
use matexp_core::c64;
use matexp_divdiff::{Affine, Function, Method, divided_differences};

/// The argument maps of the test: real (diffusion-like and growing, β of both signs),
/// imaginary (Schrödinger, `exp(−iτH)`), and a general complex one.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// α = −2β, β = span > 0: g(ξ) = e^{β(ξ−2)} ∈ [e^{−4β}, 1] (exp(hA), A ≤ 0).
    Diffusion,
    /// α = 0.25, β = −span.
    RealNegativeBeta,
    /// α = −1.5i, β = −i·span.
    Imaginary,
    /// α = −0.5 + 3i, β = span·(0.28 − 0.96i).
    Complex,
}

impl Kind {
    fn map(self, span: f64) -> (c64, c64) {
        match self {
            Kind::Diffusion => (c64::new(-2.0 * span, 0.0), c64::new(span, 0.0)),
            Kind::RealNegativeBeta => (c64::new(0.25, 0.0), c64::new(-span, 0.0)),
            Kind::Imaginary => (c64::new(0.0, -1.5), c64::new(0.0, -span)),
            Kind::Complex => (c64::new(-0.5, 3.0), c64::new(0.28 * span, -0.96 * span)),
        }
    }
    fn is_real(self) -> bool {
        matches!(self, Kind::Diffusion | Kind::RealNegativeBeta)
    }
}

fn compute(
    kind: Kind,
    f: Function,
    alpha: c64,
    beta: c64,
    nodes: &[f64],
    method: Method,
) -> Vec<c64> {
    if kind.is_real() {
        divided_differences(f, Affine::new(alpha.re, beta.re), nodes, method)
            .unwrap()
            .into_iter()
            .map(|x| c64::new(x, 0.0))
            .collect()
    } else {
        divided_differences(f, Affine::new(alpha, beta), nodes, method).unwrap()
    }
}

struct Row {
    label: String,
    stable: f64,
    auto: f64,
    recurrence: f64,
    stable_cw: f64,
    recurrence_cw: f64,
    tail: f64,
}

fn measure(kind: Kind, k: usize, span: f64, nodes: &[f64]) -> Row {
    let (alpha, beta) = kind.map(span);
    let f = Function::Phi(k);
    let r = reference(k, alpha, beta, nodes);
    let st = compute(kind, f, alpha, beta, nodes, Method::Stable);
    let au = compute(kind, f, alpha, beta, nodes, Method::Auto);
    let re = compute(kind, f, alpha, beta, nodes, Method::Recurrence);
    let max = r.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let min = r.iter().map(|z| z.norm()).fold(f64::INFINITY, f64::min);
    // Coefficients down to 1e−80 of the largest: the 512-bit reference is exact there.
    const FLOOR: f64 = 1e-80;
    Row {
        label: format!("{kind:?} φ_{k} |β|={span}"),
        stable: normwise_error(&st, &r),
        auto: normwise_error(&au, &r),
        recurrence: normwise_error(&re, &r),
        stable_cw: componentwise_error(&st, &r, FLOOR),
        recurrence_cw: componentwise_error(&re, &r, FLOOR),
        tail: (min / max).max(FLOOR),
    }
}

fn report<'a>(rows: impl Iterator<Item = &'a Row>) {
    eprintln!(
        "{:<34} {:>9} {:>9} {:>9} | {:>9} {:>9} | {:>8}",
        "case", "stable", "auto", "recur.", "stable_cw", "recur_cw", "min/max"
    );
    for r in rows {
        eprintln!(
            "{:<34} {:>9.2e} {:>9.2e} {:>9.2e} | {:>9.2e} {:>9.2e} | {:>8.1e}",
            r.label, r.stable, r.auto, r.recurrence, r.stable_cw, r.recurrence_cw, r.tail
        );
    }
}

/// Stable (and Auto) within 1e−13 of max|d_j| for exp and φ_1, 100 Leja points,
/// |β| up to 100, real and imaginary; and, measured in the same runs: the plain recurrence is
/// just as accurate *normwise* at Leja points but loses every digit of the coefficients that
/// are small compared with max|d_j| (more than 6 digits lost wherever such coefficients
/// exist), while the stable method keeps them.
#[test]
fn exp_and_phi1_at_100_leja_points_against_512_bit_reference() {
    let nodes = leja_points(100, 10_001);
    let mut rows = Vec::new();
    for k in [0, 1] {
        for kind in [
            Kind::Diffusion,
            Kind::RealNegativeBeta,
            Kind::Imaginary,
            Kind::Complex,
        ] {
            for span in [0.2, 2.0, 10.0, 30.0, 60.0, 100.0] {
                rows.push((kind, measure(kind, k, span, &nodes)));
            }
        }
    }
    report(rows.iter().map(|(_, r)| r));
    let mut failures = Vec::new();
    for (kind, r) in &rows {
        if r.stable > 1e-13 || r.auto > 1e-13 {
            failures.push(format!(
                "{}: stable {:.2e} auto {:.2e} > 1e-13",
                r.label, r.stable, r.auto
            ));
        }
        if r.recurrence > 1e-13 {
            failures.push(format!(
                "{}: recurrence normwise {:.2e}",
                r.label, r.recurrence
            ));
        }
        let cw_bound = if kind.is_real() { 1e-12 } else { 1e-11 };
        if r.stable_cw > cw_bound {
            failures.push(format!(
                "{}: stable componentwise {:.2e}",
                r.label, r.stable_cw
            ));
        }
        // Wherever coefficients fall below 1e−20·max (and above the floor), the recurrence
        // has lost more than 6 digits on them.
        if r.tail < 1e-20 && r.recurrence_cw <= 1e-6 {
            failures.push(format!(
                "{}: expected the recurrence to lose > 6 digits on small coefficients, got {:.2e}",
                r.label, r.recurrence_cw
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// φ_2 … φ_4 through the augmented-matrix identity φ_k[z_0..z_j] = exp[0,…,0, z_0..z_j].
#[test]
fn phi2_to_phi4_against_512_bit_reference() {
    let nodes = leja_points(60, 10_001);
    let mut failures = Vec::new();
    for k in 2..=4 {
        for kind in [Kind::Diffusion, Kind::Imaginary, Kind::Complex] {
            for span in [1.5, 25.0, 100.0] {
                let r = measure(kind, k, span, &nodes);
                if r.stable > 1e-13 || r.auto > 1e-13 {
                    failures.push(format!(
                        "{}: stable {:.2e} auto {:.2e}",
                        r.label, r.stable, r.auto
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// e^α beyond the f64 range is carried with a separate exponent: α = 720 (e^720
/// overflows), β = 30, nodes in [−2, −1.5], so that α + βξ ∈ [660, 675] and every d_j is
/// representable.
#[test]
fn shift_beyond_f64_range_is_carried_exactly() {
    let nodes: Vec<f64> = leja_points(40, 10_001)
        .into_iter()
        .map(|x| -1.75 + x / 8.0)
        .collect();
    let (alpha, beta) = (720.0, 30.0);
    let r = reference(0, c64::new(alpha, 0.0), c64::new(beta, 0.0), &nodes);
    let d: Vec<c64> = divided_differences(
        Function::Exp,
        Affine::new(alpha, beta),
        &nodes,
        Method::Stable,
    )
    .unwrap()
    .into_iter()
    .map(|x| c64::new(x, 0.0))
    .collect();
    let err = normwise_error(&d, &r);
    assert!(err < 1e-13, "{err:e}");
    assert!(componentwise_error(&d, &r, 1e-80) < 1e-12);
}

/// Away from Leja order the recurrence is not even normwise stable: the same 100 points
/// sorted ascending make it lose more than 6 digits of max|d_j| (at every spread, including
/// the small ones where Auto would pick it for Leja-ordered nodes), while the stable method
/// keeps 1e−13, and Auto detects the ordering and uses it.
#[test]
fn sorted_nodes_break_the_recurrence_but_not_the_stable_method() {
    let mut nodes = leja_points(100, 10_001);
    nodes.sort_by(f64::total_cmp);
    let mut rows = Vec::new();
    for kind in [Kind::Diffusion, Kind::RealNegativeBeta, Kind::Imaginary] {
        for span in [0.2, 2.0, 10.0, 30.0] {
            rows.push(measure(kind, 0, span, &nodes));
        }
    }
    report(rows.iter());
    for r in &rows {
        assert!(
            r.recurrence > 1e-6,
            "{}: recurrence {:.2e}",
            r.label,
            r.recurrence
        );
    }
    for r in &rows {
        assert!(
            r.stable <= 1e-13 && r.auto <= 1e-13,
            "{}: stable {:.2e} auto {:.2e}",
            r.label,
            r.stable,
            r.auto
        );
    }
}

/// The long diffusion substeps of the Leja solver (hundreds of points, |β| in the hundreds:
/// scaling target θ = 16 for real data, a few hundred banded products): stable normwise
/// within 1e−13 and componentwise within 1e−12 down to 1e−80·max|d_j| against the 512-bit
/// reference, exp and φ_1.
#[test]
fn long_real_substeps_against_512_bit_reference() {
    let nodes = leja_points(240, 10_001);
    let mut failures = Vec::new();
    for k in [0, 1] {
        // β > 0 and β < 0 (the sign pattern of the scaled problem), both with g ≤ 1.
        for sign in [1.0, -1.0] {
            for span in [150.0, 400.0] {
                let (alpha, beta) = (c64::new(-2.0 * span, 0.0), c64::new(sign * span, 0.0));
                let r = reference(k, alpha, beta, &nodes);
                let f = if k == 0 {
                    Function::Exp
                } else {
                    Function::Phi(k)
                };
                let d = compute(Kind::Diffusion, f, alpha, beta, &nodes, Method::Stable);
                let kind = if sign > 0.0 { "β > 0" } else { "β < 0" };
                let (nw, cw) = (normwise_error(&d, &r), componentwise_error(&d, &r, 1e-80));
                if nw > 1e-13 || cw > 1e-12 {
                    failures.push(format!("{kind} φ_{k} |β|={span}: {nw:.2e} / {cw:.2e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
