//! The broad accuracy suite: every method (Leja, Lanczos, Arnoldi, Taylor) on every problem of
//! `fixtures/accuracy/references.json` at rtol 1e−6 and 1e−10, against references made by
//! `fixtures/accuracy/make_references.py` (mpmath at 40 digits, analytic eigendecompositions),
//! independent of the code under test.
//!
//! Problems: nonnormal matrices with a transient hump, stiff symmetric matrices with ‖A‖ ≈ 1e6
//! (sparse and dense), a Markov generator, a real skew-symmetric and an upwind advection
//! matrix, complex times with τ‖H‖ up to 1e4, several times, several columns, φ₁…φ₄, t = 0,
//! A = 0, n = 1 and a graph whose e^{tA}·1 exceeds 1e200.
//!
//! A method may refuse a problem (a typed error, e.g. Lanczos on a non-Hermitian matrix or a
//! cap of the suite's work budget) or return `converged = false`; those are counted. Wherever
//! it reports convergence, the achieved error must satisfy ‖w − f(tA)v‖₂ ≤ rtol·‖f(tA)v‖₂
//! (atol = 0) for every output, except for the failures listed in [`KNOWN_MISSES`] (each
//! with its cause, to be fixed; a listed case that starts to pass does not fail the test, an
//! unlisted miss does), and the reported estimate must bound the achieved error in at least
//! [`MIN_BOUNDING_SHARE`] of the converged runs.
//!
//! `cargo test -p matexp-expmv --test accuracy_suite -- --ignored` writes the table of
//! error/tol, estimate/error and products to `bench-results/accuracy/` (markdown, and JSON
//! Lines with one run per line).

use matexp_core::{CpuBackend, LinearOperator, Result, Scalar, c64};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Report,
    Taylor, TaylorOptions,
};
use matexp_sparse::CsrMatrix;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

const TOLS: [f64; 2] = [1e-6, 1e-10];
const METHODS: [&str; 4] = ["leja", "lanczos", "arnoldi", "taylor"];

/// Misses of the tolerance by a converged method that the suite found and that are not yet
/// fixed: (method, case, rtol, cause). See the table in `bench-results/accuracy/`.
const KNOWN_MISSES: &[(&str, &str, f64, &str)] = &[];

/// Least share of converged runs whose estimate bounds the achieved error.
const MIN_BOUNDING_SHARE: f64 = 0.95;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load() -> Value {
    let path = root().join("fixtures/accuracy/references.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn pair(v: &Value) -> c64 {
    c64::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn vector<S: Scalar>(v: &Value) -> Vec<S> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| S::from_c64(pair(x)))
        .collect()
}

fn matrix<S: Scalar>(m: &Value) -> CsrMatrix<S, u32> {
    let n = m["n"].as_u64().unwrap() as usize;
    let get = |k: &str| m[k].as_array().unwrap().clone();
    let (rows, cols, re, im) = (get("rows"), get("cols"), get("re"), get("im"));
    let entries: Vec<(usize, usize, S)> = (0..rows.len())
        .map(|i| {
            let z = c64::new(re[i].as_f64().unwrap(), im[i].as_f64().unwrap());
            (
                rows[i].as_u64().unwrap() as usize,
                cols[i].as_u64().unwrap() as usize,
                S::from_c64(z),
            )
        })
        .collect();
    CsrMatrix::from_triplets(n, n, &entries).unwrap()
}

/// ‖x‖₂ without overflow (the graph case's entries are near 1e215).
fn norm2(x: &[c64]) -> f64 {
    let m = x.iter().map(|y| y.norm()).fold(0.0, f64::max);
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * x.iter().map(|y| (y / m).norm_sqr()).sum::<f64>().sqrt()
}

/// One run of one method on one case at one tolerance.
#[derive(Debug, Clone)]
struct Outcome {
    case: String,
    class: String,
    method: &'static str,
    rtol: f64,
    /// Largest over outputs of ‖w − ref‖₂ / (rtol·‖ref‖₂) (NaN when not converged).
    err_over_tol: f64,
    /// Absolute reported estimate / largest absolute error (∞ for an exact result with a
    /// positive estimate, 1 when both are 0).
    est_over_err: f64,
    products: usize,
    /// "converged", "not converged" or the refusal's error.
    status: String,
}

impl Outcome {
    fn converged(&self) -> bool {
        self.status == "converged"
    }
    fn bounds(&self) -> bool {
        self.est_over_err >= 1.0
    }
}

fn call<'a, M, S>(
    m: &mut M,
    op: &CsrMatrix<S, u32>,
    case: &Value,
    outs: &mut [Vec<S>],
) -> Result<Report>
where
    M: ExpmvMethod<'a, CpuBackend, S>,
    S: Scalar,
    CsrMatrix<S, u32>: LinearOperator<CpuBackend, S>,
{
    let times: Vec<S> = case["times"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| S::from_c64(pair(t)))
        .collect();
    let vs: Vec<Vec<S>> = case["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(vector)
        .collect();
    match case["call"].as_str().unwrap() {
        "expmv" => m.expmv(op, times[0], &vs[0], &mut outs[0]),
        "times" => m.expmv_times(op, &times, &vs[0], outs),
        "block" => m.expmv_block(op, times[0], &vs, outs),
        "phi" => {
            let k = case["k"].as_u64().unwrap() as usize;
            m.phimv_k(op, k, times[0], &vs[0], &mut outs[0])
        }
        other => panic!("unknown call {other}"),
    }
}

fn run_method<'a, M, S>(
    cpu: &'a CpuBackend,
    opts: M::Options,
    op: &CsrMatrix<S, u32>,
    case: &Value,
    class: &str,
    rtol: f64,
) -> Outcome
where
    M: ExpmvMethod<'a, CpuBackend, S>,
    S: Scalar,
    CsrMatrix<S, u32>: LinearOperator<CpuBackend, S>,
{
    let refs: Vec<Vec<c64>> = case["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(vector::<c64>)
        .collect();
    let n = refs[0].len();
    let mut outs: Vec<Vec<S>> = vec![vec![S::zero(); n]; refs.len()];
    let mut out = Outcome {
        case: case["name"].as_str().unwrap().to_string(),
        class: class.to_string(),
        method: M::NAME,
        rtol,
        err_over_tol: f64::NAN,
        est_over_err: f64::NAN,
        products: 0,
        status: String::new(),
    };
    let result = M::new(cpu, opts).and_then(|mut m| call(&mut m, op, case, &mut outs));
    match result {
        Err(e) => out.status = format!("refused: {e}"),
        Ok(report) => {
            out.products = report.matvecs;
            let mut worst = 0.0f64;
            let mut err_abs = 0.0f64;
            for (w, r) in outs.iter().zip(&refs) {
                let d: Vec<c64> = w.iter().zip(r).map(|(a, b)| a.to_c64() - b).collect();
                let e = norm2(&d);
                let nr = norm2(r);
                err_abs = err_abs.max(e);
                let ratio = if nr == 0.0 { e } else { e / (rtol * nr) };
                worst = worst.max(if ratio.is_nan() { f64::INFINITY } else { ratio });
            }
            out.err_over_tol = worst;
            out.est_over_err = if err_abs == 0.0 {
                if report.error_estimate == 0.0 {
                    1.0
                } else {
                    f64::INFINITY
                }
            } else {
                report.error_estimate / err_abs
            };
            out.status = if report.converged {
                "converged".into()
            } else {
                "not converged".into()
            };
        }
    }
    out
}

fn run_scalar<S: Scalar>(cpu: &CpuBackend, case: &Value, mat: &Value, out: &mut Vec<Outcome>)
where
    CsrMatrix<S, u32>: LinearOperator<CpuBackend, S>,
{
    let op = matrix::<S>(mat);
    let class = mat["class"].as_str().unwrap();
    for &rtol in &TOLS {
        // The suite's work budget: about 2e5 products per run.
        let leja = LejaOptions {
            max_substeps: 2_000,
            ..LejaOptions::default()
        }
        .with_rtol(rtol)
        .with_atol(0.0);
        let lanczos = LanczosOptions::default().with_rtol(rtol).with_atol(0.0);
        let arnoldi = ArnoldiOptions {
            max_matvecs: 200_000,
            ..ArnoldiOptions::default()
        }
        .with_rtol(rtol)
        .with_atol(0.0);
        let taylor = TaylorOptions {
            max_matvecs: 200_000,
            ..TaylorOptions::default()
        }
        .with_rtol(rtol)
        .with_atol(0.0);
        out.push(run_method::<Leja<'_, _, _>, S>(
            cpu, leja, &op, case, class, rtol,
        ));
        out.push(run_method::<Lanczos<'_, _, _>, S>(
            cpu, lanczos, &op, case, class, rtol,
        ));
        out.push(run_method::<Arnoldi<'_, _, _>, S>(
            cpu, arnoldi, &op, case, class, rtol,
        ));
        out.push(run_method::<Taylor<'_, _, _>, S>(
            cpu, taylor, &op, case, class, rtol,
        ));
    }
}

fn run_all() -> Vec<Outcome> {
    let doc = load();
    let cpu = CpuBackend::new();
    let mut out = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let mat = &doc["matrices"][case["matrix"].as_str().unwrap()];
        let complex = mat["complex"].as_bool().unwrap()
            || case["times"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t[1].as_f64().unwrap() != 0.0);
        if complex {
            run_scalar::<c64>(&cpu, case, mat, &mut out);
        } else {
            run_scalar::<f64>(&cpu, case, mat, &mut out);
        }
    }
    out
}

fn misses(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes
        .iter()
        .filter(|o| o.converged() && missed(o.err_over_tol))
        .collect()
}

/// err/tol above 1, or not a number.
fn missed(err_over_tol: f64) -> bool {
    err_over_tol.is_nan() || err_over_tol > 1.0
}

fn known(o: &Outcome) -> bool {
    KNOWN_MISSES
        .iter()
        .any(|&(m, c, t, _)| m == o.method && c == o.case && t == o.rtol)
}

#[test]
fn tolerance_met_wherever_convergence_is_reported() {
    let outcomes = run_all();
    assert_eq!(
        outcomes.len(),
        load()["cases"].as_array().unwrap().len() * TOLS.len() * METHODS.len()
    );
    let converged = outcomes.iter().filter(|o| o.converged()).count();
    // The suite must exercise the methods, not just collect refusals.
    assert!(
        converged * 2 > outcomes.len(),
        "only {converged} of {} runs converged",
        outcomes.len()
    );
    let bounding = outcomes
        .iter()
        .filter(|o| o.converged() && o.bounds())
        .count();
    assert!(
        bounding as f64 >= MIN_BOUNDING_SHARE * converged as f64,
        "estimates bound the error in only {bounding} of {converged} converged runs"
    );
    let unexpected: Vec<String> = misses(&outcomes)
        .into_iter()
        .filter(|o| !known(o))
        .map(|o| {
            format!(
                "{} on {} at rtol {:.0e}: error/tol {:.3}",
                o.method, o.case, o.rtol, o.err_over_tol
            )
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "tolerance missed:\n{}",
        unexpected.join("\n")
    );
}

fn fmt_ratio(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else {
        format!("{x:.2e}")
    }
}

/// Runs, converged, estimate bounds, tolerance missed, refused or not converged.
type Tally = (usize, usize, usize, usize, usize);

/// Writes `bench-results/accuracy/accuracy.{md,jsonl}`.
#[test]
#[ignore = "writes the accuracy table to bench-results/accuracy/"]
fn write_accuracy_table() {
    let outcomes = run_all();
    let dir = root().join("bench-results/accuracy");
    std::fs::create_dir_all(&dir).unwrap();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Accuracy suite of f(tA)v\n\nGenerated by `cargo test -p matexp-expmv --test \
         accuracy_suite -- --ignored` from `fixtures/accuracy/references.json` \
         (`make_references.py`: mpmath at 40 digits). err/tol = ‖w − f(tA)v‖₂ / (rtol·‖f(tA)v‖₂) \
         (worst output), est/err = reported absolute estimate / achieved error (≥ 1: the \
         estimate bounds), products = operator applications. atol = 0.\n"
    );
    let mut summary: BTreeMap<(&str, String), Tally> = BTreeMap::new();
    for o in &outcomes {
        let s = summary
            .entry((o.method, format!("{:.0e}", o.rtol)))
            .or_default();
        s.0 += 1;
        if o.converged() {
            s.1 += 1;
            if o.bounds() {
                s.2 += 1;
            }
            if missed(o.err_over_tol) {
                s.3 += 1;
            }
        } else {
            s.4 += 1;
        }
    }
    let _ = writeln!(
        md,
        "## Summary\n\n| method | rtol | runs | converged | estimate bounds | tolerance missed | refused or not converged |\n| --- | --- | --- | --- | --- | --- | --- |"
    );
    let (mut all_conv, mut all_bound) = (0, 0);
    for ((m, t), s) in &summary {
        all_conv += s.1;
        all_bound += s.2;
        let _ = writeln!(
            md,
            "| {m} | {t} | {} | {} | {} ({:.0} %) | {} | {} |",
            s.0,
            s.1,
            s.2,
            100.0 * s.2 as f64 / s.1.max(1) as f64,
            s.3,
            s.4
        );
    }
    let _ = writeln!(
        md,
        "\nEstimates that bound the achieved error: {all_bound} of {all_conv} converged runs ({:.0} %).\n",
        100.0 * all_bound as f64 / all_conv.max(1) as f64
    );
    let _ = writeln!(
        md,
        "## Runs\n\n| case | class | rtol | method | status | err/tol | est/err | products |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for o in &outcomes {
        let status = o.status.replace('|', "/").replace('\n', " ");
        let status: String = status.chars().take(90).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {:.0e} | {} | {} | {} | {} | {} |",
            o.case,
            o.class,
            o.rtol,
            o.method,
            status,
            fmt_ratio(o.err_over_tol),
            fmt_ratio(o.est_over_err),
            o.products
        );
    }
    let rows: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "case": o.case, "class": o.class, "method": o.method, "rtol": o.rtol,
                "status": o.status,
                "err_over_tol": if o.err_over_tol.is_finite() { json!(o.err_over_tol) } else { json!(null) },
                "est_over_err": if o.est_over_err.is_finite() { json!(o.est_over_err) } else { json!(null) },
                "products": o.products,
            })
        })
        .collect();
    std::fs::write(dir.join("accuracy.md"), md).unwrap();
    // JSON Lines (one run per line): `bench-results/<folder>/*.json` are benchmark records
    // for `cargo xtask report`, which this table is not.
    let lines: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    std::fs::write(dir.join("accuracy.jsonl"), lines.join("\n") + "\n").unwrap();
}
