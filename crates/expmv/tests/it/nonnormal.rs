//! Estimates that hold on strongly non-normal matrices: e^{A}v of the lower-triangular
//! Pascal matrix (orders 10–80, the exponential spanning some forty orders of magnitude) and
//! of SciPy's triangular, triangularity-perturbation, Burkardt and Pascal expm test matrices,
//! by every method at rtol 10⁻⁶ and 10⁻¹⁰, against references that do not depend on the
//! solvers (`matexp_testkit::nonnormal`: exact nilpotent sums in 256-bit arithmetic for
//! Pascal, mpmath at 160 digits for SciPy's matrices). Each result must be within its
//! tolerance — ‖w − e^{A}v‖₂ ≤ rtol·‖e^{A}v‖₂ + atol, the norm the reports use — or come
//! with `converged == false`, or be a typed error: never a confident wrong answer.

use matexp_core::{CpuBackend, DenseMatrixOperator, Error};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Report,
    Taylor, TaylorOptions,
};
use matexp_testkit::nonnormal::{pascal_lower, scipy_expm_cases, unipotent_expmv};
use matexp_testkit::rel_err;

/// What a call returned, judged against the reference.
#[derive(Debug)]
enum Outcome {
    /// Converged: the achieved relative error and the report.
    Converged(f64, Report),
    /// Returned with `converged == false`.
    Unconverged(f64, Report),
    /// A typed error.
    Refused(Error),
}

fn run<'a, M: ExpmvMethod<'a, CpuBackend, f64>>(
    cpu: &'a CpuBackend,
    opts: M::Options,
    op: &DenseMatrixOperator<f64>,
    t: f64,
    v: &[f64],
    reference: &[f64],
) -> Outcome {
    let mut m = match M::new(cpu, opts) {
        Ok(m) => m,
        Err(e) => return Outcome::Refused(e),
    };
    let mut w = vec![0.0; v.len()];
    match m.expmv(op, t, &v.to_vec(), &mut w) {
        Ok(r) => {
            let err = rel_err(&w, reference);
            if r.converged {
                Outcome::Converged(err, r)
            } else {
                Outcome::Unconverged(err, r)
            }
        }
        Err(e) => Outcome::Refused(e),
    }
}

/// Products allowed to Taylor (Pascal of order 50 at rtol 10⁻¹⁰ needs 2.5·10⁶ of them on a
/// dense operator, seconds at opt-level 1; the cap makes it a typed refusal instead).
const TAYLOR_CAP: usize = 200_000;

fn capped_taylor(rtol: f64) -> TaylorOptions {
    let mut o = TaylorOptions::default().with_rtol(rtol);
    o.max_products = TAYLOR_CAP;
    o
}

/// Every method on e^{tA}v at `rtol`; the names of the confident wrong answers (and a line
/// per call for the log).
fn check_all(
    name: &str,
    n: usize,
    a: &[f64],
    t: f64,
    v: &[f64],
    reference: &[f64],
    rtol: f64,
) -> Vec<String> {
    let cpu = CpuBackend::new();
    let op = DenseMatrixOperator::new(n, n, a.to_vec()).expect("finite matrix");
    let outcomes = [
        (
            "leja",
            run::<Leja<'_, _, _>>(
                &cpu,
                LejaOptions::default().with_rtol(rtol),
                &op,
                t,
                v,
                reference,
            ),
        ),
        (
            "lanczos",
            run::<Lanczos<'_, _, _>>(
                &cpu,
                LanczosOptions::default().with_rtol(rtol),
                &op,
                t,
                v,
                reference,
            ),
        ),
        (
            "arnoldi",
            run::<Arnoldi<'_, _, _>>(
                &cpu,
                ArnoldiOptions::default().with_rtol(rtol),
                &op,
                t,
                v,
                reference,
            ),
        ),
        (
            "taylor",
            run::<Taylor<'_, _, _>>(&cpu, capped_taylor(rtol), &op, t, v, reference),
        ),
    ];
    let mut bad = Vec::new();
    for (method, o) in outcomes {
        let line = match &o {
            Outcome::Converged(e, r) => format!(
                "err {e:.2e} est {:.2e} conv  {} products",
                r.rel_error_estimate, r.matvecs
            ),
            Outcome::Unconverged(e, r) => format!(
                "err {e:.2e} est {:.2e} NOT   {} products",
                r.rel_error_estimate, r.matvecs
            ),
            Outcome::Refused(e) => format!(
                "refused: {}",
                e.to_string().chars().take(100).collect::<String>()
            ),
        };
        eprintln!("{name:40} rtol {rtol:.0e} {method:8} {line}");
        // A NaN error counts as a miss.
        if let Outcome::Converged(e, _) = o
            && (e.is_nan() || e > rtol)
        {
            bad.push(format!("{name} {method} rtol {rtol:.0e}: {line}"));
        }
    }
    bad
}

#[test]
fn pascal_every_method_meets_the_tolerance_or_says_not() {
    let mut bad = Vec::new();
    for n in (10..=80).step_by(10) {
        let a = pascal_lower(n);
        let ones = vec![1.0; n];
        let reference = unipotent_expmv(&a, &ones);
        for rtol in [1e-6, 1e-10] {
            bad.extend(check_all(
                &format!("pascal n={n}"),
                n,
                &a,
                1.0,
                &ones,
                &reference,
                rtol,
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "confident wrong answers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn scipy_expm_matrices_every_method_meets_the_tolerance_or_says_not() {
    let mut bad = Vec::new();
    for c in scipy_expm_cases() {
        for rtol in [1e-6, 1e-10] {
            bad.extend(check_all(&c.name, c.n, &c.a, c.t, &c.v, &c.expmv, rtol));
        }
    }
    assert!(
        bad.is_empty(),
        "confident wrong answers:\n{}",
        bad.join("\n")
    );
}

/// Taylor on A = c·I: the shifted operator A − μI is zero (μ = c, the midpoint of the exact
/// spectral interval), the series has no term beyond F and the result e^{c}v is exact. The
/// estimate was the size of the zeroth term, i.e. 1.0; it must be the rounding floor.
#[test]
fn taylor_estimate_is_the_rounding_floor_for_a_multiple_of_the_identity() {
    let cpu = CpuBackend::new();
    let (n, c) = (6, -0.7f64);
    let mut a = vec![0.0; n * n];
    (0..n).for_each(|i| a[i * n + i] = c);
    let op = DenseMatrixOperator::new(n, n, a).unwrap();
    let v: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
    let exact: Vec<f64> = v.iter().map(|x| x * c.exp()).collect();
    for rtol in [1e-6, 1e-12] {
        let mut tay = Taylor::new(&cpu, TaylorOptions::default().with_rtol(rtol)).unwrap();
        let mut w = vec![0.0; n];
        let r = tay.expmv(&op, 1.0, &v, &mut w).unwrap();
        assert!(rel_err(&w, &exact) <= 4.0 * f64::EPSILON, "{r}");
        assert!(r.rel_error_estimate <= 1e-13 && r.converged, "{r}");
    }
}

/// A nilpotent operator (SciPy's burkardt_5, 6 on the superdiagonal of a 4 × 4): its series
/// ends with a zero term, so Taylor's estimate is the rounding floor and the result exact.
#[test]
fn taylor_series_of_a_nilpotent_operator_ends_exactly() {
    let c = scipy_expm_cases()
        .into_iter()
        .find(|c| c.name == "burkardt_5/ones")
        .unwrap();
    let cpu = CpuBackend::new();
    let op = DenseMatrixOperator::new(c.n, c.n, c.a.clone()).unwrap();
    let mut tay = Taylor::new(&cpu, TaylorOptions::default().with_rtol(1e-6)).unwrap();
    let mut w = vec![0.0; c.n];
    let r = tay.expmv(&op, 1.0, &c.v, &mut w).unwrap();
    assert!(rel_err(&w, &c.expmv) <= 1e-14, "{r}");
    // The floor includes the rounding as e^{A} propagates it (entries up to 36 here).
    assert!(r.converged && r.rel_error_estimate <= 1e-11, "{r}");
}
