//! The rule every `Report` keeps: `converged` ⇔ `rel_error_estimate` ≤ `rtol`, with
//! `rel_error_estimate` the worst over the outputs of e_i/‖w_i‖₂ (atol = 0) — checked on
//! random operators (Hermitian or not, real or complex), times (negative and complex
//! included), tolerances, every method and every output kind, against dense references.

use matexp_core::{CpuBackend, DenseMatrixOperator, LinearOperator, RealScalar, Scalar, c64};
use matexp_dense::{Matrix, expm, phi_vectors};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions,
    MethodOptions, Report, Taylor, TaylorOptions, Tolerance,
};
use proptest::prelude::*;

static CPU: CpuBackend = CpuBackend;

/// A seeded random matrix with entries in [−scale, scale] (imaginary parts for complex
/// scalars), Hermitian on request.
fn random_matrix(n: usize, seed: u64, scale: f64, hermitian: bool, complex: bool) -> Vec<c64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut a: Vec<c64> = (0..n * n)
        .map(|_| {
            let im = if complex { next() } else { 0.0 };
            c64::new(next(), im) * scale
        })
        .collect();
    if hermitian {
        for i in 0..n {
            for j in 0..i {
                a[j * n + i] = a[i * n + j].conj();
            }
            a[i * n + i] = c64::new(a[i * n + i].re, 0.0);
        }
    }
    a
}

fn vector(n: usize, seed: u64) -> Vec<c64> {
    (0..n)
        .map(|i| c64::new(1.0 + ((i as u64 * 7 + seed) % 5) as f64 * 0.25, 0.0))
        .collect()
}

fn cast<S: Scalar>(x: &[c64]) -> Vec<S> {
    x.iter().map(|&z| S::from_c64(z)).collect()
}

fn norm(x: &[c64]) -> f64 {
    x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

fn dense(a: &[c64], n: usize) -> Matrix<c64> {
    Matrix::from_row_major(n, n, a).unwrap()
}

/// e^{tA}v by the dense exponential.
fn exp_ref(a: &Matrix<c64>, t: c64, v: &[c64]) -> Vec<c64> {
    expm(&a.scaled(t)).unwrap().matvec(v).unwrap()
}

/// [φ₀(tA)v, …, φ_k(tA)v] densely.
fn phi_ref(a: &Matrix<c64>, t: c64, v: &[c64], k: usize) -> Vec<Vec<c64>> {
    phi_vectors(&a.scaled(t), v, k).unwrap()
}

/// The rule, recomputed from the report's own per-output estimates and the outputs.
fn check_rule<S: Scalar>(r: &Report, outs: &[Vec<S>]) -> std::result::Result<(), TestCaseError> {
    prop_assert_eq!(
        r.converged,
        r.rel_error_estimate <= r.rtol,
        "converged must be rel ≤ rtol: {}",
        r
    );
    prop_assert_eq!(
        r.output_estimates.len(),
        outs.len(),
        "one estimate per output: {}",
        r
    );
    let mut rel = 0.0f64;
    let mut worst = 0.0f64;
    for (e, w) in r.output_estimates.iter().zip(outs) {
        let nw = norm(&w.iter().map(|x| x.to_c64()).collect::<Vec<_>>());
        worst = worst.max(*e);
        rel = rel.max(if *e == 0.0 { 0.0 } else { e / nw });
    }
    prop_assert_eq!(r.error_estimate, worst, "{}", r);
    if r.converged {
        // With the forced value of a method whose own test failed excluded (it is not
        // converged), the relative estimate is the worst per-output one.
        // The norms here are taken in f64, the report's in the precision of S.
        let slack = 64.0 * S::Real::EPS.as_f64();
        prop_assert!(
            (r.rel_error_estimate - rel).abs() <= slack * rel,
            "{} vs recomputed {rel:e}",
            r
        );
    }
    Ok(())
}

/// Where converged, every output is within 10·rtol of its reference (relative to the
/// reference, plus the precision's rounding of the reference itself).
fn check_accuracy<S: Scalar>(
    r: &Report,
    outs: &[Vec<S>],
    refs: &[Vec<c64>],
) -> std::result::Result<(), TestCaseError> {
    if !r.converged {
        return Ok(());
    }
    for (i, (w, x)) in outs.iter().zip(refs).enumerate() {
        let d: Vec<c64> = w.iter().zip(x).map(|(a, b)| a.to_c64() - b).collect();
        let (err, nx) = (norm(&d), norm(x));
        prop_assert!(
            err <= 10.0 * r.rtol * nx + 1e-14 * nx,
            "output {i}: error {:.3e} > 10·rtol·‖ref‖ = {:.3e}; {}",
            err,
            10.0 * r.rtol * nx,
            r
        );
    }
    Ok(())
}

/// Every output kind of method `M` on one problem: each `Ok` report keeps the rule and,
/// where converged, the accuracy; errors are typed and allowed.
fn every_kind<'a, M, S>(
    opts: M::Options,
    a: &[c64],
    n: usize,
    t: c64,
) -> std::result::Result<(), TestCaseError>
where
    M: ExpmvMethod<'a, CpuBackend, S>,
    S: Scalar,
{
    let op = DenseMatrixOperator::new(n, n, cast::<S>(a)).unwrap();
    if M::NAME == "lanczos" && !LinearOperator::<CpuBackend, S>::is_hermitian(&op) {
        return Ok(());
    }
    let ad = dense(a, n);
    let v = vector(n, 3);
    let b1 = vector(n, 8);
    let vs: Vec<S> = cast(&v);
    let mut m = match M::new(&CPU, opts) {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    let ts = S::from_c64(t);
    let t = ts.to_c64();

    // expmv
    let mut w = vec![vec![S::zero(); n]];
    if let Ok(r) = m.expmv(&op, ts, &vs, &mut w[0]) {
        check_rule(&r, &w)?;
        check_accuracy(&r, &w, &[exp_ref(&ad, t, &v)])?;
    }
    // expmv_times: both signs, 0, in no order
    let times: Vec<S> = [0.5, -0.25, 0.0, 1.0]
        .iter()
        .map(|&x| S::from_c64(t * x))
        .collect();
    let mut outs = vec![vec![S::zero(); n]; times.len()];
    if let Ok(r) = m.expmv_times(&op, &times, &vs, &mut outs) {
        check_rule(&r, &outs)?;
        let refs: Vec<Vec<c64>> = times
            .iter()
            .map(|&ti| exp_ref(&ad, ti.to_c64(), &v))
            .collect();
        check_accuracy(&r, &outs, &refs)?;
    }
    // phimv, φ₀ … φ₂
    let mut phis = vec![vec![S::zero(); n]; 3];
    if let Ok(r) = m.phimv(&op, ts, &vs, &mut phis) {
        check_rule(&r, &phis)?;
        check_accuracy(&r, &phis, &phi_ref(&ad, t, &v, 2))?;
    }
    // phi_combination: φ₀(tA)v + t·φ₁(tA)b₁
    let b1s: Vec<S> = cast(&b1);
    let mut w = vec![vec![S::zero(); n]];
    if let Ok(r) = m.phi_combination(&op, ts, &[&vs, &b1s], &mut w[0]) {
        check_rule(&r, &w)?;
        let e = exp_ref(&ad, t, &v);
        let p1 = &phi_ref(&ad, t, &b1, 1)[1];
        let reference: Vec<c64> = e.iter().zip(p1).map(|(x, y)| x + t * y).collect();
        check_accuracy(&r, &w, &[reference])?;
    }
    // expmv_block: the columns' reports merged
    let cols = vec![vs.clone(), b1s.clone()];
    let mut ws = vec![vec![S::zero(); n]; 2];
    if let Ok(r) = m.expmv_block(&op, ts, &cols, &mut ws) {
        check_rule(&r, &ws)?;
        check_accuracy(&r, &ws, &[exp_ref(&ad, t, &v), exp_ref(&ad, t, &b1)])?;
    }
    Ok(())
}

fn all_methods<S: Scalar>(
    tol: Tolerance,
    a: &[c64],
    n: usize,
    t: c64,
) -> std::result::Result<(), TestCaseError> {
    every_kind::<Leja<'_, _, S>, S>(LejaOptions::default().with_tolerance(tol), a, n, t)?;
    every_kind::<Lanczos<'_, _, S>, S>(LanczosOptions::default().with_tolerance(tol), a, n, t)?;
    every_kind::<Arnoldi<'_, _, S>, S>(ArnoldiOptions::default().with_tolerance(tol), a, n, t)?;
    let mut taylor = TaylorOptions::default();
    taylor.set_tolerance(tol);
    every_kind::<Taylor<'_, _, S>, S>(taylor, a, n, t)?;
    Ok(())
}

const RTOLS: [f64; 3] = [1e-5, 1e-8, 1e-11];

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn real_operators_keep_the_rule(
        seed in 0u64..1_000_000,
        n in 2usize..6,
        hermitian in any::<bool>(),
        scale in prop::sample::select(vec![0.3, 1.0, 3.0]),
        t in prop::sample::select(vec![1.0, -1.0, 0.4, -2.0]),
        rtol in prop::sample::select(RTOLS.to_vec()),
    ) {
        let a = random_matrix(n, seed, scale, hermitian, false);
        all_methods::<f64>(Tolerance::relative(rtol), &a, n, c64::new(t, 0.0))?;
    }

    #[test]
    fn complex_operators_and_times_keep_the_rule(
        seed in 0u64..1_000_000,
        n in 2usize..5,
        hermitian in any::<bool>(),
        scale in prop::sample::select(vec![0.3, 1.0, 3.0]),
        t in prop::sample::select(vec![
            c64::new(0.0, -1.0), c64::new(0.5, 0.5), c64::new(-1.0, 0.0), c64::new(0.0, 2.0),
        ]),
        rtol in prop::sample::select(RTOLS.to_vec()),
    ) {
        let a = random_matrix(n, seed, scale, hermitian, true);
        all_methods::<c64>(Tolerance::relative(rtol), &a, n, t)?;
    }

    #[test]
    fn single_precision_with_the_default_tolerance_keeps_the_rule(
        seed in 0u64..1_000_000,
        n in 2usize..5,
        hermitian in any::<bool>(),
    ) {
        let a = random_matrix(n, seed, 1.0, hermitian, false);
        all_methods::<f32>(Tolerance::default(), &a, n, c64::new(1.0, 0.0))?;
    }
}

/// A decaying solution sampled at 11 times by one Lanczos basis: each time's estimate is
/// relative to its own result, not the first time's absolute estimate over the last
/// time's norm.
#[test]
fn a_time_grid_reports_its_worst_relative_estimate() {
    let n = 40;
    let h2 = ((n + 1) * (n + 1)) as f64;
    let mut a = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        a[i * n + i] = c64::new(-2.0 * h2, 0.0);
        if i + 1 < n {
            a[i * n + i + 1] = c64::new(h2, 0.0);
            a[(i + 1) * n + i] = c64::new(h2, 0.0);
        }
    }
    let op = DenseMatrixOperator::new(n, n, cast::<f64>(&a)).unwrap();
    let v: Vec<c64> = (0..n)
        .map(|i| c64::new(1.0 + (i % 3) as f64, 0.0))
        .collect();
    // ‖w‖ falls by e^{−2λ₁} ≈ 10⁻⁹ over the grid.
    let times: Vec<f64> = (0..11).map(|i| 0.2 * i as f64).collect();
    let mut lz = Lanczos::new(&CPU, LanczosOptions::default().with_rtol(1e-8)).unwrap();
    let mut outs = vec![vec![0.0; n]; times.len()];
    let r = lz.expmv_times(&op, &times, &cast(&v), &mut outs).unwrap();
    let ad = dense(&a, n);
    let mut worst = 0.0f64;
    for (w, &t) in outs.iter().zip(&times) {
        let x = exp_ref(&ad, c64::new(t, 0.0), &v);
        let d: Vec<c64> = w
            .iter()
            .zip(&x)
            .map(|(a, b)| c64::new(*a, 0.0) - b)
            .collect();
        worst = worst.max(norm(&d) / norm(&x));
    }
    assert!(worst <= 1e-8, "true error {worst:.3e}");
    assert!(
        r.converged && r.rel_error_estimate <= r.rtol,
        "true error {worst:.3e}; {r}"
    );
    assert_eq!(r.output_estimates.len(), times.len());
}

/// At a tolerance below the rounding floor the report says not converged, and says why in
/// numbers: the estimate above the tolerance.
#[test]
fn a_tolerance_below_the_rounding_floor_is_not_claimed() {
    let n = 6;
    let a = random_matrix(n, 11, 2.0, false, false);
    let op = DenseMatrixOperator::new(n, n, cast::<f64>(&a)).unwrap();
    let v: Vec<f64> = cast(&vector(n, 1));
    let mut arn = Arnoldi::new(&CPU, ArnoldiOptions::default().with_rtol(2e-16)).unwrap();
    let mut out = vec![vec![0.0; n]; 5];
    if let Ok(r) = arn.phimv(&op, 1.0, &v, &mut out) {
        assert!(!r.converged && r.rel_error_estimate > r.rtol, "{r}");
    }
}

/// A = c·I: Taylor's series of A − cI is empty, so the result is exact and so is its
/// estimate (up to the rounding floor of no product).
#[test]
fn taylor_on_a_multiple_of_the_identity_is_exact_and_says_so() {
    let n = 4;
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        a[i * n + i] = -0.5;
    }
    let op = DenseMatrixOperator::new(n, n, a).unwrap();
    let v = vec![1.0, 2.0, 3.0, 4.0];
    let mut w = vec![0.0; n];
    let mut tay = Taylor::new(&CPU, TaylorOptions::default().with_rtol(1e-12)).unwrap();
    let r = tay.expmv(&op, 2.0, &v, &mut w).unwrap();
    for (wi, vi) in w.iter().zip(&v) {
        assert!((wi - (-1f64).exp() * vi).abs() <= 1e-15 * vi);
    }
    assert!(r.converged && r.rel_error_estimate <= 1e-13, "{r}");
}
