//! φ-functions by the truncated Taylor method on the augmented operator, against references
//! made independently of the code under test: the mpmath cases of
//! `fixtures/accuracy/references.json` (φ₁…φ₄ of a nonnormal, a stiff symmetric, an
//! advection and a zero matrix, and n = 1), and closed forms for diagonal operators
//! (φ_k(tλ) per entry: its series for small |tλ|, the recurrence
//! φ_k(z) = (φ_{k−1}(z) − 1/(k−1)!)/z, which is stable for |z| > k, otherwise).

use matexp_core::{CpuBackend, Error, LinearOperator, Result, Scalar, SpectralBounds, c64};
use matexp_expmv::{
    ExpmvMethod, MAX_PHI_ORDER, NormBound, Shift, Taylor, TaylorOptions, Tolerance,
};
use matexp_sparse::CsrMatrix;
use serde_json::Value;
use std::path::PathBuf;

// ---------------------------------------------------------------- references

/// φ_k(z) for complex z in double precision (independent of the library's φ).
fn phi_scalar(k: usize, z: c64) -> c64 {
    let fact = |m: usize| (1..=m).map(|i| i as f64).product::<f64>();
    if z.norm() <= 2.0 * (k as f64 + 1.0) {
        // Σ_i z^i/(i + k)!: the terms fall once i + k > |z|; 200 terms reach 1e−30 relative
        // for |z| ≤ 2(k + 1) ≤ 34.
        let mut term = c64::new(1.0 / fact(k), 0.0);
        let mut sum = term;
        for i in 1..400 {
            term *= z / (i + k) as f64;
            sum += term;
            if term.norm() <= 1e-30 * sum.norm() {
                break;
            }
        }
        sum
    } else {
        // Each step of the recurrence multiplies the relative error by about j/|z| < 1.
        let mut phi = z.exp();
        for j in 1..=k {
            phi = (phi - 1.0 / fact(j - 1)) / z;
        }
        phi
    }
}

fn norm2(x: &[c64]) -> f64 {
    x.iter().map(|y| y.norm_sqr()).sum::<f64>().sqrt()
}

fn err_rel<S: Scalar>(w: &[S], reference: &[c64]) -> (f64, f64) {
    let d: Vec<c64> = w
        .iter()
        .zip(reference)
        .map(|(a, b)| a.to_c64() - b)
        .collect();
    let e = norm2(&d);
    (e, e / norm2(reference))
}

/// A diagonal operator, optionally declared Hermitian with its spectral interval, or with
/// a norm bound.
struct Diag<S: Scalar> {
    d: Vec<S>,
    hermitian: bool,
    norm: Option<f64>,
}

impl<S: Scalar> LinearOperator<CpuBackend, S> for Diag<S> {
    fn nrows(&self) -> usize {
        self.d.len()
    }
    fn ncols(&self) -> usize {
        self.d.len()
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        for ((yi, xi), di) in y.iter_mut().zip(x).zip(&self.d) {
            let ax = alpha * *di * *xi;
            *yi = if beta == S::zero() {
                ax
            } else {
                ax + beta * *yi
            };
        }
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if !self.hermitian {
            return None;
        }
        let re = self.d.iter().map(|x| x.to_c64().re);
        let lo = re.clone().fold(f64::INFINITY, f64::min);
        let hi = re.fold(f64::NEG_INFINITY, f64::max);
        SpectralBounds::real(lo, hi).ok()
    }
    fn norm_bound(&self) -> Option<f64> {
        self.norm
    }
}

/// Σ_j t^j·φ_j(tλᵢ)·b_j,ᵢ for a diagonal A = diag(λ).
fn diag_combination<S: Scalar>(d: &[S], t: c64, bs: &[Vec<S>]) -> Vec<c64> {
    (0..d.len())
        .map(|i| {
            let z = t * d[i].to_c64();
            bs.iter()
                .enumerate()
                .map(|(j, b)| t.powi(j as i32) * phi_scalar(j, z) * b[i].to_c64())
                .sum()
        })
        .collect()
}

fn vector<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..n)
        .map(|_| {
            let re = next();
            let im = next();
            S::from_c64(c64::new(re, if S::IS_COMPLEX { im } else { 0.0 }))
        })
        .collect()
}

fn taylor<S: Scalar>(cpu: &CpuBackend, rtol: f64) -> Taylor<'_, CpuBackend, S> {
    let opts = TaylorOptions::default().with_tolerance(Tolerance::relative(rtol).with_atol(0.0));
    Taylor::new(cpu, opts).unwrap()
}

// ---------------------------------------------------------------- mpmath fixtures

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pair(v: &Value) -> c64 {
    c64::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn cvec(v: &Value) -> Vec<c64> {
    v.as_array().unwrap().iter().map(pair).collect()
}

fn csr(m: &Value) -> CsrMatrix<f64, u32> {
    let n = m["n"].as_u64().unwrap() as usize;
    let get = |k: &str| m[k].as_array().unwrap().clone();
    let (rows, cols, re) = (get("rows"), get("cols"), get("re"));
    let entries: Vec<(usize, usize, f64)> = (0..rows.len())
        .map(|i| {
            (
                rows[i].as_u64().unwrap() as usize,
                cols[i].as_u64().unwrap() as usize,
                re[i].as_f64().unwrap(),
            )
        })
        .collect();
    CsrMatrix::from_triplets(n, n, &entries).unwrap()
}

/// Every φ case of the accuracy fixtures at rtol 1e−6 and 1e−10: the error of φ_k(tA)v is
/// within rtol·‖φ_k(tA)v‖, and the reported estimate (of φ_k(tA)v, not of t^kφ_k(tA)v)
/// bounds it.
#[test]
fn fixture_phi_cases_meet_the_tolerance_with_a_bounding_estimate() {
    let path = root().join("fixtures/accuracy/references.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cpu = CpuBackend::new();
    let mut seen = 0;
    for case in doc["cases"].as_array().unwrap() {
        if case["call"].as_str().unwrap() != "phi" {
            continue;
        }
        let mat = &doc["matrices"][case["matrix"].as_str().unwrap()];
        assert!(!mat["complex"].as_bool().unwrap());
        let a = csr(mat);
        let k = case["k"].as_u64().unwrap() as usize;
        let t = pair(&case["times"][0]).re;
        let v: Vec<f64> = cvec(&case["vectors"][0]).iter().map(|z| z.re).collect();
        let reference = cvec(&case["refs"][0]);
        for rtol in [1e-6, 1e-10] {
            let mut m = taylor::<f64>(&cpu, rtol);
            let mut w = vec![0.0; v.len()];
            let r = m.phimv_k(&a, k, t, &v, &mut w).unwrap();
            let (abs, rel) = err_rel(&w, &reference);
            let name = case["name"].as_str().unwrap();
            eprintln!(
                "{name} rtol {rtol:.0e}: err/tol {:.2e}, est/err {:.2e}, {} products \
                 (m* = {}, {} steps)",
                rel / rtol,
                r.error_estimate / abs,
                r.matvecs,
                r.max_degree,
                r.substeps
            );
            assert!(
                rel <= rtol,
                "{name} at rtol {rtol:e}: error {rel:.3e} ({r})"
            );
            assert!(r.converged, "{r}");
            assert!(
                r.error_estimate >= abs,
                "{name} at rtol {rtol:e}: estimate {:.3e} below the error {abs:.3e} ({r})",
                r.error_estimate
            );
            // The relative estimate refers to the returned vector.
            let nw = norm2(&w.iter().map(|x| c64::new(*x, 0.0)).collect::<Vec<_>>());
            assert!(
                (r.rel_error_estimate - r.error_estimate / nw).abs()
                    <= 1e-12 * r.rel_error_estimate,
                "{r}"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 2 * 11, "the fixtures' φ cases");
}

// ---------------------------------------------------------------- closed forms

/// Stiff, mildly positive and tiny eigenvalues (|tλ| from 0 to 10³), real t, φ₀ … φ₄ at two
/// tolerances, with each kind of norm information.
#[test]
fn phi_k_of_diagonal_operators_match_the_closed_form() {
    let cpu = CpuBackend::new();
    let n = 40;
    let d: Vec<f64> = (0..n)
        .map(|i| match i {
            0 => 0.0,
            1 => 1e-9,
            2 => 0.7,
            _ => -1000.0 * ((i - 3) as f64 / (n - 4) as f64).powi(2),
        })
        .collect();
    let v: Vec<f64> = vector(n, 3);
    for hermitian in [true, false] {
        let norm = (!hermitian).then_some(1000.0);
        let op = Diag {
            d: d.clone(),
            hermitian,
            norm,
        };
        for t in [1e-3, 0.05, 1.0] {
            for rtol in [1e-6, 1e-10] {
                let mut m = taylor::<f64>(&cpu, rtol);
                let mut out = vec![vec![0.0; n]; 5];
                let r = m.phimv(&op, t, &v, &mut out).unwrap();
                for (k, w) in out.iter().enumerate() {
                    let mut bs = vec![vec![0.0; n]; k + 1];
                    bs[k] = v.clone();
                    let mut reference = diag_combination(&d, c64::new(t, 0.0), &bs);
                    let tk = t.powi(k as i32);
                    reference.iter_mut().for_each(|x| *x /= tk);
                    let (_, rel) = err_rel(w, &reference);
                    assert!(
                        rel <= rtol,
                        "hermitian {hermitian}, t = {t}, φ_{k}: {rel:.3e} > {rtol:e} ({r})"
                    );
                }
            }
        }
    }
}

/// Orders up to MAX_PHI_ORDER, one at a time, with the estimate bounding the error.
#[test]
fn high_orders_up_to_the_limit() {
    let cpu = CpuBackend::new();
    let d: Vec<f64> = (0..12).map(|i| -(i as f64) * 2.5 + 1.0).collect();
    let op = Diag {
        d: d.clone(),
        hermitian: true,
        norm: None,
    };
    let v: Vec<f64> = vector(d.len(), 5);
    let t = 1.5;
    let mut m = taylor::<f64>(&cpu, 1e-10);
    for k in 0..=MAX_PHI_ORDER {
        let mut w = vec![0.0; d.len()];
        let r = m.phimv_k(&op, k, t, &v, &mut w).unwrap();
        let reference: Vec<c64> = d
            .iter()
            .zip(&v)
            .map(|(l, x)| phi_scalar(k, c64::new(t * l, 0.0)) * x)
            .collect();
        let (abs, rel) = err_rel(&w, &reference);
        // Orders up to 10 are certified; for higher ones Taylor's
        // estimate (the terms fed by the tail, relative to a top block that starts at zero)
        // is pessimistic: it may decline a result, never claim what it did not reach.
        assert!(r.converged || k > 10, "φ_{k}: {r}");
        if r.converged {
            assert!(rel <= 1e-10, "φ_{k}: {rel:.3e} ({r})");
            assert!(r.error_estimate >= abs, "φ_{k}: {abs:.3e} vs {r}");
        }
    }
    let mut w = vec![0.0; d.len()];
    assert!(matches!(
        m.phimv_k(&op, MAX_PHI_ORDER + 1, t, &v, &mut w),
        Err(Error::InvalidArgument { .. })
    ));
}

/// Complex time: e^{−iτH}-type φ's of a Hermitian operator (τ‖H‖ up to 10³), and a complex
/// diagonal operator at a complex t.
#[test]
fn complex_times_and_complex_operators() {
    let cpu = CpuBackend::new();
    let n = 30;
    let h: Vec<c64> = (0..n)
        .map(|i| c64::new(-1.0 + 2.0 * i as f64 / (n - 1) as f64, 0.0))
        .collect();
    let op = Diag {
        d: h.clone(),
        hermitian: true,
        norm: None,
    };
    let v: Vec<c64> = vector(n, 7);
    for tau in [0.5, 40.0, 1000.0] {
        let t = c64::new(0.0, -tau);
        for rtol in [1e-6, 1e-10] {
            let mut m = taylor::<c64>(&cpu, rtol);
            for k in 1..=4 {
                let mut w = vec![c64::new(0.0, 0.0); n];
                let r = m.phimv_k(&op, k, t, &v, &mut w).unwrap();
                let reference: Vec<c64> = h
                    .iter()
                    .zip(&v)
                    .map(|(l, x)| phi_scalar(k, t * l) * x)
                    .collect();
                let (abs, rel) = err_rel(&w, &reference);
                assert!(rel <= rtol, "τ = {tau}, φ_{k}: {rel:.3e} > {rtol:e} ({r})");
                assert!(
                    r.error_estimate >= abs,
                    "τ = {tau}, φ_{k}: {abs:.3e} vs {r}"
                );
            }
        }
    }
    // A non-Hermitian complex diagonal, complex t, the norm estimated from products.
    let d: Vec<c64> = (0..n)
        .map(|i| c64::new(-(i as f64) * 0.8, 3.0 * ((i % 5) as f64 - 2.0)))
        .collect();
    let op = Diag {
        d: d.clone(),
        hermitian: false,
        norm: None,
    };
    let t = c64::new(0.7, -0.4);
    let mut m = taylor::<c64>(&cpu, 1e-10);
    let mut out = vec![vec![c64::new(0.0, 0.0); n]; 4];
    let r = m.phimv(&op, t, &v, &mut out).unwrap();
    for (k, w) in out.iter().enumerate() {
        let reference: Vec<c64> = d
            .iter()
            .zip(&v)
            .map(|(l, x)| phi_scalar(k, t * l) * x)
            .collect();
        let (_, rel) = err_rel(w, &reference);
        assert!(rel <= 1e-10, "φ_{k}: {rel:.3e} ({r})");
    }
}

/// Σ_j t^jφ_j(tA)b_j with several nonzero columns (and a zero one), at several times of
/// either sign, against the closed form.
#[test]
fn phi_combinations_with_several_columns_and_times() {
    let cpu = CpuBackend::new();
    let n = 25;
    let d: Vec<f64> = (0..n).map(|i| -(i as f64).powi(2) / 2.0 + 0.5).collect();
    let op = Diag {
        d: d.clone(),
        hermitian: true,
        norm: None,
    };
    let mut bs: Vec<Vec<f64>> = (0..5).map(|j| vector(n, 11 + j)).collect();
    bs[2] = vec![0.0; n];
    // Columns of very different sizes: the balancing η must not matter.
    bs[3].iter_mut().for_each(|x| *x *= 1e6);
    bs[4].iter_mut().for_each(|x| *x *= 1e-5);
    let refs: Vec<&Vec<f64>> = bs.iter().collect();
    for rtol in [1e-6, 1e-10] {
        let mut m = taylor::<f64>(&cpu, rtol);
        let t = 0.8;
        let mut w = vec![0.0; n];
        let r = m.phi_combination(&op, t, &refs, &mut w).unwrap();
        let reference = diag_combination(&d, c64::new(t, 0.0), &bs);
        let (abs, rel) = err_rel(&w, &reference);
        assert!(rel <= rtol, "{rel:.3e} ({r})");
        assert!(r.error_estimate >= abs, "{abs:.3e} vs {r}");

        let times = [0.3, -0.2, 0.0, 2.0, 0.05];
        let mut outs = vec![vec![0.0; n]; times.len()];
        let r = m
            .phi_combination_times(&op, &times, &refs, &mut outs)
            .unwrap();
        for (ti, w) in times.iter().zip(&outs) {
            let reference = diag_combination(&d, c64::new(*ti, 0.0), &bs);
            let (_, rel) = err_rel(w, &reference);
            assert!(rel <= rtol, "t = {ti}: {rel:.3e} ({r})");
        }
    }
}

/// t = 0, A = 0 and n = 1.
#[test]
fn zero_time_zero_operator_and_order_one() {
    let cpu = CpuBackend::new();
    let mut m = taylor::<f64>(&cpu, 1e-10);
    let n = 6;
    let v: Vec<f64> = vector(n, 2);
    let fact = [1.0, 1.0, 2.0, 6.0, 24.0];
    let zero = Diag {
        d: vec![0.0; n],
        hermitian: true,
        norm: None,
    };
    // A = 0: φ_k(0)v = v/k! at any t.
    for t in [0.0, 1.0, -3.0, 1e4] {
        let mut out = vec![vec![0.0; n]; 5];
        let r = m.phimv(&zero, t, &v, &mut out).unwrap();
        for (k, w) in out.iter().enumerate() {
            let reference: Vec<c64> = v.iter().map(|x| c64::new(x / fact[k], 0.0)).collect();
            let (_, rel) = err_rel(w, &reference);
            assert!(rel <= 1e-13, "A = 0, t = {t}, φ_{k}: {rel:.3e} ({r})");
        }
    }
    // t = 0 for a nonzero A: φ_k(0)v = v/k!, and the combination is b₀.
    let a = Diag {
        d: (0..n).map(|i| -(i as f64)).collect(),
        hermitian: false,
        norm: None,
    };
    let mut out = vec![vec![0.0; n]; 5];
    m.phimv(&a, 0.0, &v, &mut out).unwrap();
    for (k, w) in out.iter().enumerate() {
        let exact = v
            .iter()
            .map(|x| c64::new(x / fact[k], 0.0))
            .collect::<Vec<_>>();
        assert!(err_rel(w, &exact).1 <= 1e-15, "φ_{k}(0)");
    }
    let b1: Vec<f64> = vector(n, 9);
    let mut w = vec![1.0; n];
    m.phi_combination(&a, 0.0, &[&v, &b1, &b1], &mut w).unwrap();
    assert_eq!(w, v);
    // Zero b_j: the φ-terms vanish and the combination is e^{tA}b₀.
    let mut w2 = vec![0.0; n];
    let zeros = vec![0.0; n];
    m.phi_combination(&a, 0.5, &[&v, &zeros, &zeros], &mut w)
        .unwrap();
    m.expmv(&a, 0.5, &v, &mut w2).unwrap();
    assert_eq!(w, w2);
    // n = 1: φ_k(tλ) for λ = −3, t = 2 (|tλ| = 6, the recurrence's side).
    let one = Diag {
        d: vec![-3.0],
        hermitian: true,
        norm: None,
    };
    let mut out = vec![vec![0.0; 1]; 5];
    m.phimv(&one, 2.0, &vec![1.5], &mut out).unwrap();
    for (k, w) in out.iter().enumerate() {
        let exact = 1.5 * phi_scalar(k, c64::new(-6.0, 0.0)).re;
        assert!(
            (w[0] - exact).abs() <= 1e-10 * exact.abs(),
            "n = 1, φ_{k}: {} vs {exact}",
            w[0]
        );
    }
}

/// The estimate is of the value returned: φ_k(tA)v and t^kφ_k(tA)v (the same combination
/// without the t^{−k}) report the same relative estimate, absolute ones |t|^k apart.
#[test]
fn estimates_refer_to_the_returned_value() {
    let cpu = CpuBackend::new();
    let n = 20;
    let d: Vec<f64> = (0..n).map(|i| -(i as f64) * 4.0).collect();
    let op = Diag {
        d,
        hermitian: false,
        norm: Some(80.0),
    };
    let v: Vec<f64> = vector(n, 4);
    let zeros = vec![0.0; n];
    for (k, t) in [(1usize, 10.0f64), (3, 7.0), (4, 0.01)] {
        let mut m = taylor::<f64>(&cpu, 1e-8);
        let mut phi = vec![0.0; n];
        let r_phi = m.phimv_k(&op, k, t, &v, &mut phi).unwrap();
        let mut bs: Vec<&Vec<f64>> = vec![&zeros; k + 1];
        bs[k] = &v;
        let mut comb = vec![0.0; n];
        let r_comb = m.phi_combination(&op, t, &bs, &mut comb).unwrap();
        let tk = t.powi(k as i32);
        for (a, b) in phi.iter().zip(&comb) {
            assert!((a * tk - b).abs() <= 1e-13 * b.abs().max(1e-300), "k = {k}");
        }
        let ratio = r_comb.error_estimate / (r_phi.error_estimate * tk);
        assert!(
            (ratio - 1.0).abs() < 1e-10,
            "k = {k}, t = {t}: {r_phi} vs {r_comb}"
        );
        assert!(
            (r_comb.rel_error_estimate / r_phi.rel_error_estimate - 1.0).abs() < 1e-10,
            "k = {k}, t = {t}: {r_phi} vs {r_comb}"
        );
    }
}

/// The augmented series costs about what e^{tA}v costs: one product with A per term (the
/// coupling and the shift block are O(p·n) vector work), the degree and steps chosen for Ã
/// whose norm exceeds ‖A − μI‖ by at most 1 + 1/|t| per unit of |t|.
#[test]
fn phi_costs_about_as_many_products_as_the_exponential() {
    let cpu = CpuBackend::new();
    let n = 50;
    let d: Vec<f64> = (0..n).map(|i| -4e4 * (i as f64 / n as f64)).collect();
    let v: Vec<f64> = vector(n, 8);
    for (hermitian, norm) in [(true, None), (false, Some(4e4))] {
        let op = Diag {
            d: d.clone(),
            hermitian,
            norm,
        };
        for rtol in [1e-6, 1e-10] {
            let mut m = taylor::<f64>(&cpu, rtol);
            let mut w = vec![0.0; n];
            let e = m.expmv(&op, 0.01, &v, &mut w).unwrap();
            for k in 1..=4 {
                let r = m.phimv_k(&op, k, 0.01, &v, &mut w).unwrap();
                eprintln!(
                    "hermitian {hermitian}, rtol {rtol:e}: exp {} products, φ_{k} {} ({} planned)",
                    e.matvecs, r.matvecs, r.cost_estimate
                );
                assert!(
                    r.matvecs as f64 <= 1.15 * e.cost_estimate as f64 + 10.0,
                    "φ_{k}: {r} vs exp {e}"
                );
            }
        }
    }
}

/// A bound that the series' terms prove too small is refused for φ as for e^{tA}.
#[test]
fn a_wrong_norm_bound_is_refused() {
    let cpu = CpuBackend::new();
    let n = 10;
    let op = Diag {
        d: (0..n).map(|i| -(i as f64) * 100.0).collect(),
        hermitian: false,
        norm: None,
    };
    let opts = TaylorOptions {
        norm: NormBound::Upper(1.0),
        shift: Shift::None,
        ..TaylorOptions::default()
    };
    let mut m = Taylor::new(&cpu, opts).unwrap();
    let v: Vec<f64> = vector(n, 1);
    let mut w = vec![0.0; n];
    let r = m.phimv_k(&op, 2, 1.0, &v, &mut w);
    assert!(
        matches!(&r, Err(Error::InvalidArgument { name, .. }) if *name == "norm"),
        "{r:?}"
    );
}

/// Single precision: the tail, η and the coupling coefficients in f32, and c32 for an
/// imaginary time (e^{−iτH} and φ₂ with τ‖H − μ‖ = 45, where rounding needs more steps).
#[test]
fn single_precision() {
    use matexp_core::c32;
    let cpu = CpuBackend::new();
    let n = 16;
    let d: Vec<f32> = (0..n).map(|i| -(i as f32) * 3.0).collect();
    let op = Diag {
        d: d.clone(),
        hermitian: true,
        norm: None,
    };
    let v: Vec<f32> = vector(n, 6);
    let mut m = taylor::<f32>(&cpu, 1e-5);
    for k in 1..=4 {
        let mut w = vec![0.0f32; n];
        let r = m.phimv_k(&op, k, 0.7f32, &v, &mut w).unwrap();
        let reference: Vec<c64> = d
            .iter()
            .zip(&v)
            .map(|(l, x)| phi_scalar(k, c64::new(0.7 * *l as f64, 0.0)) * *x as f64)
            .collect();
        let (abs, rel) = err_rel(&w, &reference);
        assert!(rel <= 1e-5, "f32 φ_{k}: {rel:.3e} ({r})");
        assert!(r.error_estimate >= abs, "f32 φ_{k}: {abs:.3e} vs {r}");
    }
    let dc: Vec<c32> = d.iter().map(|x| c32::new(*x, 0.0)).collect();
    let op = Diag {
        d: dc.clone(),
        hermitian: true,
        norm: None,
    };
    let vc: Vec<c32> = vector(n, 6);
    let t = c32::new(0.0, -2.0);
    let mut m = taylor::<c32>(&cpu, 1e-5);
    let mut w = vec![c32::new(0.0, 0.0); n];
    let r0 = m.expmv(&op, t, &vc, &mut w).unwrap();
    let reference: Vec<c64> = dc
        .iter()
        .zip(&vc)
        .map(|(l, x)| phi_scalar(0, t.to_c64() * l.to_c64()) * x.to_c64())
        .collect();
    let (_, rel) = err_rel(&w, &reference);
    // The rounding guard works with the unit roundoff of f32 (with f64's, 6.5e−4 here).
    assert!(rel <= 1e-5, "c32 exp: {rel:.3e} ({r0})");
    let r = m.phimv_k(&op, 2, t, &vc, &mut w).unwrap();
    let reference: Vec<c64> = dc
        .iter()
        .zip(&vc)
        .map(|(l, x)| phi_scalar(2, t.to_c64() * l.to_c64()) * x.to_c64())
        .collect();
    let (_, rel) = err_rel(&w, &reference);
    assert!(rel <= 1e-5, "c32 φ_2: {rel:.3e} ({r})");
}
