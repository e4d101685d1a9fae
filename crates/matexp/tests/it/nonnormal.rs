//! The front door on strongly non-normal matrices: `Method::Auto` (Arnoldi for these
//! non-Hermitian operators, then Taylor where Arnoldi declines) on e^{A}v of the
//! lower-triangular Pascal matrix (orders 10–80) and of SciPy's triangular,
//! triangularity-perturbation, Burkardt and Pascal expm test matrices, at rtol 10⁻⁶ and
//! 10⁻¹⁰, against references independent of the solvers (`matexp_testkit::nonnormal`: exact
//! nilpotent sums in 256-bit arithmetic, mpmath at 160 digits). Each answer — the first
//! choice's or, where it declined (`Report::declined`), the fallback's — must be within its
//! tolerance, ‖w − e^{A}v‖₂ ≤ rtol·‖e^{A}v‖₂ (+ atol), or come with `converged == false`,
//! or be a typed error: never a confident wrong answer.

use matexp::{CpuBackend, DenseMatrixOperator, Method, Options, TaylorOptions, expmv};
use matexp_testkit::nonnormal::{pascal_lower, scipy_expm_cases, unipotent_expmv};
use matexp_testkit::rel_err;

/// Products allowed to the Taylor fallback, so that a call it cannot afford is a typed
/// refusal and the test stays fast (Pascal of order 50 at rtol 10⁻¹⁰ would need millions).
const TAYLOR_CAP: usize = 200_000;

/// `Method::Auto` on e^{tA}v at `rtol`: a description of the answer if it is a confident
/// wrong one, and a line for the log either way.
fn check_auto(
    name: &str,
    n: usize,
    a: &[f64],
    t: f64,
    v: &[f64],
    reference: &[f64],
    rtol: f64,
) -> Option<String> {
    let cpu = CpuBackend::new();
    let op = DenseMatrixOperator::new(n, n, a.to_vec()).expect("finite matrix");
    let taylor = TaylorOptions {
        max_products: TAYLOR_CAP,
        ..Default::default()
    };
    let opts = Options::default()
        .with_method(Method::Auto)
        .with_rtol(rtol)
        .with_taylor(taylor);
    let (line, bad) = match expmv(&cpu, &op, t, &v.to_vec(), &opts) {
        Ok((w, r)) => {
            // The rule of every report, here on the answer the fallback may have given.
            let certified = r.rel_error_estimate <= r.rtol;
            assert_eq!(
                r.converged, certified,
                "{name} rtol {rtol:.0e}: converged must mean estimate ≤ rtol; {r}"
            );
            assert!(
                !r.declined.contains(&r.method),
                "{name}: the answering method is not among those that declined; {r}"
            );
            let err = rel_err(&w, reference);
            let line = format!(
                "{}{} err {err:.2e} est {:.2e} {} {} products",
                r.method,
                if r.declined.is_empty() {
                    String::new()
                } else {
                    format!(" (after {})", r.declined.join(", "))
                },
                r.rel_error_estimate,
                if r.converged { "conv" } else { "NOT " },
                r.matvecs
            );
            // A NaN error counts as a miss.
            let bad = r.converged && (err.is_nan() || err > rtol);
            (line, bad)
        }
        Err(e) => (
            format!(
                "refused: {}",
                e.to_string().chars().take(100).collect::<String>()
            ),
            false,
        ),
    };
    eprintln!("{name:40} rtol {rtol:.0e} {line}");
    bad.then(|| format!("{name} rtol {rtol:.0e}: {line}"))
}

#[test]
fn auto_on_pascal_matrices_meets_the_tolerance_or_says_not() {
    let mut bad = Vec::new();
    for n in (10..=80).step_by(10) {
        let a = pascal_lower(n);
        let ones = vec![1.0; n];
        let reference = unipotent_expmv(&a, &ones);
        for rtol in [1e-6, 1e-10] {
            bad.extend(check_auto(
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
fn auto_on_scipy_expm_matrices_meets_the_tolerance_or_says_not() {
    let mut bad = Vec::new();
    for c in scipy_expm_cases() {
        for rtol in [1e-6, 1e-10] {
            bad.extend(check_auto(&c.name, c.n, &c.a, c.t, &c.v, &c.expmv, rtol));
        }
    }
    assert!(
        bad.is_empty(),
        "confident wrong answers:\n{}",
        bad.join("\n")
    );
}
