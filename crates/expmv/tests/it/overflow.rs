//! Results at the edge of the floating-point range: every method (Leja, Lanczos, Arnoldi,
//! Taylor) and every scalar type returns either the right finite answer (checked against an
//! analytic eigen-expansion) or `Error::NonFinite` — never a vector of zeros marked converged
//! for a result that overflows, never a finite number where the result is beyond the range.

use matexp_core::{CpuBackend, Error, RealScalar, Scalar, c32, c64};
use matexp_expmv::{Arnoldi, ExpmvMethod, Lanczos, Leja, Report, Taylor};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_2d;
use num_traits::Float;
use std::f64::consts::{PI, SQRT_2};

/// ln of the largest finite value of `S`'s real type.
fn ln_max<S: Scalar>() -> f64 {
    <S::Real as Float>::max_value().as_f64().ln()
}

/// e^{tA}v by one method with its default options (the tolerance of the precision).
macro_rules! solve {
    ($method:ident, $a:expr, $t:expr, $v:expr) => {{
        let cpu = CpuBackend::new();
        let mut m = $method::new(&cpu, Default::default()).unwrap();
        let mut w = vec![S::from_f64(0.0); $v.len()];
        m.expmv($a, S::from_f64($t), $v, &mut w).map(|r| (w, r))
    }};
}

type Answer<S> = matexp_core::Result<(Vec<S>, Report)>;

const ALL: &[&str] = &["leja", "lanczos", "arnoldi", "taylor"];

/// The answers of the named methods for one problem.
fn methods<S: Scalar>(
    names: &[&'static str],
    a: &CsrMatrix<S>,
    t: f64,
    v: &Vec<S>,
) -> Vec<(&'static str, Answer<S>)> {
    names
        .iter()
        .map(|&name| {
            let got = match name {
                "leja" => solve!(Leja, a, t, v),
                "lanczos" => solve!(Lanczos, a, t, v),
                "arnoldi" => solve!(Arnoldi, a, t, v),
                _ => solve!(Taylor, a, t, v),
            };
            (name, got)
        })
        .collect()
}

/// ‖w − want‖₂/‖want‖₂, both scaled by max|want| first (the entries are near the range).
fn rel_err<S: Scalar>(w: &[S], want: &[f64]) -> f64 {
    let s = want.iter().fold(0.0f64, |m, y| m.max(y.abs()));
    let d: f64 = w
        .iter()
        .zip(want)
        .map(|(x, y)| (x.to_c64() / s - c64::new(y / s, 0.0)).norm_sqr())
        .sum();
    let r: f64 = want.iter().map(|y| (y / s) * (y / s)).sum();
    (d / r).sqrt()
}

/// A finite answer must be the right one: within 10·rtol where it claims convergence, and
/// within 10⁻³ (f32: the default rtol 10⁻⁵ is not always met, but a wrong scale never
/// passes) where it does not.
fn check_finite<S: Scalar>(name: &str, what: &str, w: &[S], r: &Report, want: &[f64]) {
    let err = rel_err(w, want);
    let bound = if r.converged { 10.0 * r.rtol } else { 1e-3 };
    assert!(
        err <= bound,
        "{name} {what} ({}): error {err:.2e} > {bound:.1e}; {r}",
        S::NAME
    );
}

/// A result in range refused: no method may give up on these (the right answer is
/// finite, and a refusal would hide it as a cost or a rounding problem).
fn refused_in_range(name: &str, what: &str, e: &Error) {
    panic!("{name} {what}: in range, got {e}");
}

fn expect_non_finite<S: Scalar>(name: &str, what: &str, got: &Answer<S>) {
    match got {
        Err(Error::NonFinite { .. }) => {}
        Err(e) => panic!("{name} {what} ({}): expected NonFinite, got {e}", S::NAME),
        Ok((w, r)) => panic!(
            "{name} {what} ({}): the result overflows, but got max |w| = {:e}; {r}",
            S::NAME,
            w.iter().map(|x| x.to_c64().norm()).fold(0.0, f64::max)
        ),
    }
}

/// e^{tA}v for the 2D Dirichlet Laplacian of `laplacian_2d(m)` (the matrix of
/// `crates/matexp/data/heat.mtx` at m = 12) from its eigen-expansion: eigenvalues
/// −4(m+1)²(sin²(jπ/(2(m+1))) + sin²(kπ/(2(m+1)))), eigenvectors sin(jπx)·sin(kπy) on the
/// grid. The sum is scaled by e^{−c} (c the largest exponent) and e^{c} applied per entry
/// last; `None` where an entry leaves the f64 range.
fn heat_reference(m: usize, t: f64, v: &[f64]) -> Option<Vec<f64>> {
    let h = (m + 1) as f64;
    let s = |j: usize, i: usize| ((j * (i + 1)) as f64 * PI / h).sin();
    let lam = |j: usize| -4.0 * h * h * ((j as f64 * PI / (2.0 * h)).sin()).powi(2);
    let modes: Vec<(f64, usize, usize)> = (1..=m)
        .flat_map(|j| (1..=m).map(move |k| (t * (lam(j) + lam(k)), j, k)))
        .collect();
    let c = modes.iter().map(|x| x.0).fold(f64::NEG_INFINITY, f64::max);
    let norm2 = 2.0 / h; // Σ_i sin²(jπ(i+1)/h) = h/2
    let mut w = vec![0.0; m * m];
    for &(e, j, k) in &modes {
        let proj: f64 = (0..m * m).map(|i| v[i] * s(j, i % m) * s(k, i / m)).sum();
        let coef = proj * norm2 * norm2 * (e - c).exp();
        for iy in 0..m {
            for ix in 0..m {
                w[ix + m * iy] += coef * s(j, ix) * s(k, iy);
            }
        }
    }
    // x·e^{c} as sign(x)·e^{ln|x| + c}: e^{c} alone may overflow where the entry does not.
    let w: Vec<f64> = w
        .iter()
        .map(|x| x.signum() * (x.abs().ln() + c).exp())
        .collect();
    w.iter().all(|x| x.is_finite()).then_some(w)
}

fn heat_case<S: Scalar>() {
    let m = 12;
    let a = laplacian_2d::<S, u32>(m).unwrap();
    let v = vec![S::one(); m * m];
    // Beyond the range by far (the reported all-zero results: t = −10¹⁴ … −10³⁰⁰).
    let huge: &[f64] = if S::Real::EPS.as_f64() < 1e-10 {
        &[-1e14, -1e20, -1e300]
    } else {
        &[-1e14, -1e20, -1e30]
    };
    for &t in huge {
        for (name, got) in methods(ALL, &a, t, &v) {
            expect_non_finite(name, &format!("heat t = {t:e}"), &got);
        }
    }
    // Near the top of the range: the largest exponent −t·λ_min ≈ 1342·|t| lands a few units
    // below and above ln max (the eigenvector's entries and ‖v‖ add a few more). Not from
    // v = 1: it has no component along the top mode (j = k = 12, odd about the centre),
    // which rounding then puts there, e^{37|t|}·ε of the result at the relative gap 37 to
    // the top mode that 1 has; a generic v has a well-conditioned e^{tA}v.
    let v64: Vec<f64> = (0..m * m).map(|i| 1.0 + 0.1 * (i % 7) as f64).collect();
    let v: Vec<S> = v64.iter().map(|&x| S::from_f64(x)).collect();
    let lmin = 8.0 * 169.0 * (12.0 * PI / 26.0).sin().powi(2);
    for shift in [-6.0, -2.0, 4.0, 8.0] {
        let t = -(ln_max::<S>() + shift) / lmin;
        let want = heat_reference(m, t, &v64).filter(|w| {
            w.iter()
                .all(|x| x.abs() < <S::Real as Float>::max_value().as_f64())
        });
        for (name, got) in methods(ALL, &a, t, &v) {
            let what = format!("heat t = {t:.6}");
            match (&want, &got) {
                (Some(want), Ok((w, r))) => check_finite(name, &what, w, r, want),
                (Some(_), Err(e)) => refused_in_range(name, &what, e),
                (None, _) => expect_non_finite(name, &what, &got),
            }
        }
    }
}

#[test]
fn heat_beyond_and_near_the_range_f64() {
    heat_case::<f64>();
}

#[test]
fn heat_beyond_and_near_the_range_f32() {
    heat_case::<f32>();
}

#[test]
fn heat_beyond_and_near_the_range_c64() {
    heat_case::<c64>();
}

#[test]
fn heat_beyond_and_near_the_range_c32() {
    heat_case::<c32>();
}

/// The 3600-row 2D Laplacian of the report at t = −10¹⁴ … −10³⁰⁰: every method reports the
/// overflow, at once (Arnoldi from its first basis, Taylor before its first series product).
#[test]
fn large_laplacian_overflow_is_non_finite() {
    type S = f64;
    let a = laplacian_2d::<f64, u32>(60).unwrap();
    let v = vec![1.0; a.nrows()];
    for t in [-1e14, -1e16, -1e20, -1e100, -1e300] {
        let what = format!("lap2d(60) t = {t:e}");
        expect_non_finite::<S>("lanczos", &what, &solve!(Lanczos, &a, t, &v));
        expect_non_finite::<S>("leja", &what, &solve!(Leja, &a, t, &v));
        let start = std::time::Instant::now();
        expect_non_finite::<S>("arnoldi", &what, &solve!(Arnoldi, &a, t, &v));
        expect_non_finite::<S>("taylor", &what, &solve!(Taylor, &a, t, &v));
        // Generous for a debug build on a loaded machine; the refusals cost one Krylov
        // basis and one product.
        assert!(
            start.elapsed().as_secs_f64() < 5.0,
            "{what}: {:?}",
            start.elapsed()
        );
    }
}

/// e^{tA}·1 for the 3-point path graph's adjacency (eigenvalues 0, ±√2):
/// (2+√2)/2·e^{√2t}·(1, √2, 1)/2 + (2−√2)/2·e^{−√2t}·(1, −√2, 1)/2.
fn path3_reference(t: f64) -> Vec<f64> {
    let (p, m) = ((2.0 + SQRT_2) / 2.0, (2.0 - SQRT_2) / 2.0);
    let (ep, em) = ((SQRT_2 * t).exp(), (-SQRT_2 * t).exp());
    vec![
        (p * ep + m * em) / 2.0,
        SQRT_2 * (p * ep - m * em) / 2.0,
        (p * ep + m * em) / 2.0,
    ]
}

fn path3_case<S: Scalar>() {
    let a = CsrMatrix::<S, u32>::from_dense(
        3,
        3,
        &[0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0].map(S::from_f64),
    )
    .unwrap();
    let v = vec![S::one(); 3];
    let max = <S::Real as Float>::max_value().as_f64();
    // The largest entry is 1.207·e^{√2t}: t from a few units below ln max (t = 500 in f64,
    // ≈ 1.5·10³⁰⁷) to beyond it (t = 600).
    for shift in [-8.0, -3.0, -2.0, 1.0, 4.0, 90.0] {
        let t = (ln_max::<S>() + shift) / SQRT_2;
        let want = path3_reference(t);
        let finite = want.iter().all(|x| x.abs() < max);
        for (name, got) in methods(ALL, &a, t, &v) {
            let what = format!("path3 t = {t:.3}");
            match (finite, &got) {
                (true, Ok((w, r))) => check_finite(name, &what, w, r, &want),
                (true, Err(e)) => refused_in_range(name, &what, e),
                (false, _) => expect_non_finite(name, &what, &got),
            }
        }
    }
    if S::Real::EPS.as_f64() < 1e-10 {
        // The reported times themselves.
        for (t, finite) in [(500.0, true), (600.0, false)] {
            let got = solve!(Leja, &a, t, &v);
            if finite {
                let (w, r) = got.unwrap();
                check_finite("leja", "path3 t = 500", &w, &r, &path3_reference(t));
            } else {
                expect_non_finite("leja", "path3 t = 600", &got);
            }
        }
    }
}

#[test]
fn path_graph_near_the_range_f64() {
    path3_case::<f64>();
}

#[test]
fn path_graph_near_the_range_f32() {
    path3_case::<f32>();
}

#[test]
fn path_graph_near_the_range_c64() {
    path3_case::<c64>();
}

#[test]
fn path_graph_near_the_range_c32() {
    path3_case::<c32>();
}

/// A finite result whose exponents f64 cannot resolve: A = diag(−10¹⁸, −1) in the basis
/// rotated by 45°, v = (1, 0), t = 1. Lanczos spans the whole space in two steps, and the
/// eigenvalue −1 of its T₂ is known only to ε·10¹⁸ ≈ 220, so e^{−1} would be off by up to
/// e^{±900}: NonFinite naming the rounding, not a number. (Leja, whose products are exact
/// to ε here, answers: e^{tA}v = e^{−1}·(1, 1)/2 + e^{−10¹⁸}·(1, −1)/2.)
#[test]
fn unresolvable_exponents_are_not_a_number() {
    type S = f64;
    let (big, small) = (-1e18, -1.0);
    let (d, o) = ((big + small) / 2.0, (small - big) / 2.0);
    let a = CsrMatrix::<f64, u32>::from_dense(2, 2, &[d, o, o, d]).unwrap();
    let v = vec![1.0, 0.0];
    match solve!(Lanczos, &a, 1.0, &v) {
        Err(Error::NonFinite { context, .. }) => {
            assert!(context.contains("rounding"), "{context}")
        }
        Err(e) => panic!("lanczos: expected NonFinite, got {e}"),
        Ok((w, r)) => {
            let want = [0.5 * (-1f64).exp(), 0.5 * (-1f64).exp()];
            check_finite("lanczos", "diag(−1e18, −1)", &w, &r, &want);
        }
    }
}
