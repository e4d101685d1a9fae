//! Strongly non-normal test matrices and references for e^{A}v that do not depend on the
//! solvers under test.
//!
//! * [`pascal_lower`]: the lower-triangular Pascal matrix P, P_ij = C(i, j), whose
//!   exponential spans some forty orders of magnitude at order 80.
//! * [`unipotent_expmv`]: e^{A}v for a lower-triangular A with constant diagonal d,
//!   A = dI + N with N strictly lower triangular, hence nilpotent: e^{A}v = e^d·Σ_{k<n}
//!   N^k v/k! exactly. It is summed in 256-bit binary floating point from the doubles of A
//!   and v (each exact there), so the only rounding is that of the 256-bit arithmetic and
//!   of the final conversion: the reference is the correctly rounded e^{A}v of the matrix
//!   the solvers see, to about 10⁻⁷⁰ relative to ‖e^{A}v‖ (n ≤ 100: n² terms, no
//!   cancellation beyond 2⁻²⁵⁶·Σ|terms| ≤ 2⁻²⁵⁶·e^{‖A‖}‖v‖ ≪ 10⁻⁷⁰‖e^{A}v‖ for the Pascal
//!   matrices, whose terms are all of one sign for v ≥ 0 and of modest ratio otherwise).
//!   Cost O(n³) multiplications at that precision (n = 80: about 2·10⁵, milliseconds).
//! * [`scipy_expm_cases`]: SciPy's non-normal expm test matrices with mpmath references
//!   (`fixtures/nonnormal/scipy_expm.json`, made by `fixtures/nonnormal/generate.py`).

use dashu_float::FBig;
use serde_json::Value;

/// Working precision of [`unipotent_expmv`], in bits.
const PREC: usize = 256;

fn hp(x: f64) -> FBig {
    FBig::try_from(x)
        .expect("finite double")
        .with_precision(PREC)
        .value()
}

/// The lower-triangular Pascal matrix of order `n`, row-major: P_ij = C(i, j) for j ≤ i
/// (unit diagonal), each binomial exact in 128-bit integers and rounded once to the nearest
/// double (exact up to 2⁵³, i.e. for n ≤ 57).
///
/// # Panics
/// For n > 128, where C(n − 1, (n − 1)/2) leaves 128-bit integers.
pub fn pascal_lower(n: usize) -> Vec<f64> {
    assert!(n <= 128, "pascal_lower: order {n} > 128");
    let mut row = vec![0u128; n];
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        // Row i of Pascal's triangle from row i − 1, in place from the right.
        row[i] = 1;
        for j in (1..i).rev() {
            row[j] += row[j - 1];
        }
        row[0] = 1;
        for j in 0..=i {
            a[i * n + j] = row[j] as f64;
        }
    }
    a
}

/// e^{A}v for a lower-triangular row-major `a` of order n with one value d on its diagonal:
/// e^d·Σ_{k<n} N^k v/k!, N = A − dI (nilpotent), in 256-bit arithmetic from the exact
/// doubles (see the module docs), rounded to double at the end.
///
/// # Panics
/// When `a` is not n×n for n = `v.len()`, not lower triangular, or its diagonal is not
/// constant (a test bug, not an input).
pub fn unipotent_expmv(a: &[f64], v: &[f64]) -> Vec<f64> {
    let n = v.len();
    assert_eq!(a.len(), n * n, "unipotent_expmv: a is not {n}×{n}");
    let d = if n > 0 { a[0] } else { 0.0 };
    for i in 0..n {
        assert_eq!(a[i * n + i], d, "unipotent_expmv: diagonal not constant");
        for j in i + 1..n {
            assert_eq!(a[i * n + j], 0.0, "unipotent_expmv: not lower triangular");
        }
    }
    let nmat: Vec<Vec<(usize, FBig)>> = (0..n)
        .map(|i| {
            (0..i)
                .filter(|&j| a[i * n + j] != 0.0)
                .map(|j| (j, hp(a[i * n + j])))
                .collect()
        })
        .collect();
    // term_k = N^k v/k!; the sum stops at the first zero term (N^k = 0 for k ≥ n).
    let mut term: Vec<FBig> = v.iter().map(|&x| hp(x)).collect();
    let mut sum = term.clone();
    for k in 1..n {
        let next: Vec<FBig> = nmat
            .iter()
            .map(|row| {
                let mut acc = hp(0.0);
                for (j, x) in row {
                    acc += x * &term[*j];
                }
                acc / hp(k as f64)
            })
            .collect();
        term = next;
        if term.iter().all(|x| *x == hp(0.0)) {
            break;
        }
        for (s, t) in sum.iter_mut().zip(&term) {
            *s += t;
        }
    }
    let ed = hp(d).exp();
    sum.iter().map(|s| (s * &ed).to_f64().value()).collect()
}

/// One case of SciPy's expm tests: e^{t·A}v for a dense row-major A of order n.
#[derive(Debug, Clone)]
pub struct ExpmCase {
    /// The test's matrix and the vector, e.g. `"triangular_logm/ones"`.
    pub name: String,
    /// The order.
    pub n: usize,
    /// A, row-major.
    pub a: Vec<f64>,
    /// v.
    pub v: Vec<f64>,
    /// t.
    pub t: f64,
    /// e^{t·A}v, mpmath at 160 digits rounded to double.
    pub expmv: Vec<f64>,
}

/// The cases of `fixtures/nonnormal/scipy_expm.json`: the triangular, triangularity-
/// perturbation, Burkardt and Pascal matrices of SciPy's `TestExpM`, each with v = 1 and
/// v_i = (−1)^i(1 + i/n), and their mpmath references.
///
/// # Panics
/// When the fixture is missing or malformed.
pub fn scipy_expm_cases() -> Vec<ExpmCase> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/nonnormal/scipy_expm.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array()
            .expect("an array")
            .iter()
            .map(|x| x.as_f64().expect("a number"))
            .collect()
    };
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let case = ExpmCase {
                name: c["name"].as_str().expect("name").to_string(),
                n: c["n"].as_u64().expect("n") as usize,
                a: floats(&c["a"]),
                v: floats(&c["v"]),
                t: c["t"].as_f64().expect("t"),
                expmv: floats(&c["expmv"]),
            };
            assert_eq!(case.a.len(), case.n * case.n, "{}", case.name);
            assert_eq!(case.v.len(), case.n, "{}", case.name);
            assert_eq!(case.expmv.len(), case.n, "{}", case.name);
            case
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_rows_are_binomials() {
        let p = pascal_lower(6);
        assert_eq!(&p[5 * 6..], &[1.0, 5.0, 10.0, 10.0, 5.0, 1.0]);
        let big = pascal_lower(80);
        // C(79, 39) = 53 753 604 366 668 088 230 810, rounded once.
        assert_eq!(big[79 * 80 + 39], 53_753_604_366_668_088_230_810u128 as f64);
    }

    #[test]
    fn unipotent_expmv_matches_closed_forms() {
        // e^{[[1, 0], [x, 1]]} = e·[[1, 0], [x, 1]].
        let w = unipotent_expmv(&[1.0, 0.0, 3.0, 1.0], &[1.0, 2.0]);
        let e = std::f64::consts::E;
        assert!((w[0] - e).abs() <= 1e-15 * e && (w[1] - 5.0 * e).abs() <= 5e-15 * e);
        // e^{P}·e₀ for Pascal P: column 0 of e^{N} is Σ_k N^k e₀/k!, whose entry i is the
        // Bell number B_i (N^k e₀/k! holds the Stirling numbers S(i, k)).
        let n = 10;
        let mut e0 = vec![0.0; n];
        e0[0] = 1.0;
        let w = unipotent_expmv(&pascal_lower(n), &e0);
        let bell = [
            1.0, 1.0, 2.0, 5.0, 15.0, 52.0, 203.0, 877.0, 4140.0, 21147.0,
        ];
        for (x, b) in w.iter().zip(bell) {
            assert!((x / e - b).abs() <= 1e-13 * b, "{x} vs e·{b}");
        }
    }

    #[test]
    fn scipy_fixture_loads() {
        let cases = scipy_expm_cases();
        assert!(cases.len() >= 30);
        // burkardt_5 (strictly upper triangular, 6 on the superdiagonal): e^A·1 is the row
        // sums of SciPy's closed form [[1, 6, 18, 36], [0, 1, 6, 18], [0, 0, 1, 6], [0, 0, 0, 1]].
        let b5 = cases.iter().find(|c| c.name == "burkardt_5/ones").unwrap();
        assert_eq!(b5.expmv, vec![61.0, 25.0, 7.0, 1.0]);
    }
}
