//! Cross-check against SciPy (fixtures/scipy, made by its `generate.py`): `expm_multiply`
//! (Al-Mohy & Higham 2011) for the Leja, Lanczos, Arnoldi and Taylor methods, SciPy's dense
//! `expm` for `matexp_dense::expm`, and seed 002's Table 1 graph (e^A·1).

use crate::leja_common;

use leja_common::rel_err;
use matexp_core::{CpuBackend, c64};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Taylor,
    TaylorOptions, Tolerance, lanczos_expmv,
};
use matexp_sparse::CsrMatrix;
use serde_json::Value;
use std::path::PathBuf;

const TOL: f64 = 1e-10;

struct Fixture {
    name: String,
    json: Value,
    n: usize,
    matrix: CsrMatrix<c64, u32>,
}

fn fixture(name: &str) -> Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/scipy")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: Value = serde_json::from_str(&text).unwrap();
    let n = json["n"].as_u64().unwrap() as usize;
    let rows = ints(&json["rows"]);
    let cols = ints(&json["cols"]);
    let vals = complex(&json["values"]);
    let entries: Vec<(usize, usize, c64)> = rows
        .iter()
        .zip(&cols)
        .zip(&vals)
        .map(|((&r, &c), &v)| (r, c, v))
        .collect();
    let matrix = CsrMatrix::from_triplets(n, n, &entries).unwrap();
    Fixture {
        name: name.into(),
        json,
        n,
        matrix,
    }
}

fn ints(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn complex(v: &Value) -> Vec<c64> {
    floats(&v["re"])
        .into_iter()
        .zip(floats(&v["im"]))
        .map(|(re, im)| c64::new(re, im))
        .collect()
}

impl Fixture {
    fn real_matrix(&self) -> CsrMatrix<f64, u32> {
        self.matrix.cast::<f64>().unwrap()
    }
    fn v(&self) -> Vec<c64> {
        complex(&self.json["v"])
    }
    fn real_v(&self) -> Vec<f64> {
        self.v().iter().map(|z| z.re).collect()
    }
    fn t(&self) -> f64 {
        self.json["t"].as_f64().unwrap()
    }
    fn result(&self) -> Vec<c64> {
        complex(&self.json["result"])
    }
    fn results(&self) -> Vec<Vec<c64>> {
        complex(&self.json["results"])
            .chunks(self.n)
            .map(<[c64]>::to_vec)
            .collect()
    }
}

fn check(name: &str, method: &str, got: &[c64], want: &[c64], bound: f64) {
    let err = rel_err(got, want);
    assert!(
        err <= bound,
        "{name} / {method}: relative error {err:.2e} > {bound:.1e}"
    );
}

fn to_c(v: &[f64]) -> Vec<c64> {
    v.iter().map(|&x| c64::new(x, 0.0)).collect()
}

/// e^{tA}v of a real fixture by all four methods (Lanczos only for symmetric A).
fn real_case(name: &str, symmetric: bool) {
    let cpu = CpuBackend::new();
    let f = fixture(name);
    let (a, v, t, want) = (f.real_matrix(), f.real_v(), f.t(), f.result());
    let n = f.n;
    let tol = Tolerance::relative(TOL);
    let mut w = vec![0.0; n];
    Leja::new(&cpu, LejaOptions::default().with_rtol(TOL))
        .unwrap()
        .expmv(&a, t, &v, &mut w)
        .unwrap();
    check(&f.name, "leja", &to_c(&w), &want, 10.0 * TOL);
    Arnoldi::new(
        &cpu,
        ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap()
    .expmv(&a, t, &v, &mut w)
    .unwrap();
    check(&f.name, "arnoldi", &to_c(&w), &want, 10.0 * TOL);
    Taylor::new(
        &cpu,
        TaylorOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap()
    .expmv(&a, t, &v, &mut w)
    .unwrap();
    check(&f.name, "taylor", &to_c(&w), &want, 10.0 * TOL);
    if symmetric {
        Lanczos::new(
            &cpu,
            LanczosOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap()
        .expmv(&a, t, &v, &mut w)
        .unwrap();
        check(&f.name, "lanczos", &to_c(&w), &want, 10.0 * TOL);
    }
}

#[test]
fn laplace_1d_single_times() {
    for name in [
        "laplace1d_n64_t0.001",
        "laplace1d_n64_t0.01",
        "laplace1d_n64_t0.1",
    ] {
        real_case(name, true);
    }
}

#[test]
fn advection_diffusion_single_times() {
    for name in ["advdiff1d_n80_t0.001", "advdiff1d_n80_t0.01"] {
        real_case(name, false);
    }
}

#[test]
fn laplace_1d_several_times() {
    let cpu = CpuBackend::new();
    let f = fixture("laplace1d_n64_times");
    let (a, v, n) = (f.real_matrix(), f.real_v(), f.n);
    let times = floats(&f.json["times"]);
    let want = f.results();
    let tol = Tolerance::relative(TOL);
    let mut out = vec![vec![0.0; n]; times.len()];
    let checks = |method: &str, out: &[Vec<f64>]| {
        for (i, (o, w)) in out.iter().zip(&want).enumerate() {
            check(
                &format!("{} t[{i}]", f.name),
                method,
                &to_c(o),
                w,
                10.0 * TOL,
            );
        }
    };
    Leja::new(&cpu, LejaOptions::default().with_rtol(TOL))
        .unwrap()
        .expmv_times(&a, &times, &v, &mut out)
        .unwrap();
    checks("leja", &out);
    Lanczos::new(
        &cpu,
        LanczosOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap()
    .expmv_times(&a, &times, &v, &mut out)
    .unwrap();
    checks("lanczos", &out);
    Arnoldi::new(
        &cpu,
        ArnoldiOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap()
    .expmv_times(&a, &times, &v, &mut out)
    .unwrap();
    checks("arnoldi", &out);
    Taylor::new(
        &cpu,
        TaylorOptions {
            tol,
            ..Default::default()
        },
    )
    .unwrap()
    .expmv_times(&a, &times, &v, &mut out)
    .unwrap();
    checks("taylor", &out);
}

#[test]
fn hermitian_schrodinger() {
    // The fixtures apply exp(−i t H) with H the stored (Hermitian) matrix.
    let cpu = CpuBackend::new();
    for name in ["hermitian_n48_t0.5", "hermitian_n48_t5"] {
        let f = fixture(name);
        assert_eq!(f.json["function"].as_str(), Some("exp(-i t H)"));
        let (h, v, t, want, n) = (&f.matrix, f.v(), f.t(), f.result(), f.n);
        assert!(h.is_hermitian());
        let tol = Tolerance::relative(TOL);
        let mi = c64::new(0.0, -t);
        let mut w = vec![c64::new(0.0, 0.0); n];
        Leja::new(&cpu, LejaOptions::default().with_rtol(TOL))
            .unwrap()
            .schrodinger(h, t, &v, &mut w)
            .unwrap();
        check(
            name,
            "leja (imaginary focal interval)",
            &w,
            &want,
            10.0 * TOL,
        );
        Lanczos::new(
            &cpu,
            LanczosOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap()
        .expmv(h, mi, &v, &mut w)
        .unwrap();
        check(name, "lanczos", &w, &want, 10.0 * TOL);
        Arnoldi::new(
            &cpu,
            ArnoldiOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap()
        .expmv(h, mi, &v, &mut w)
        .unwrap();
        check(name, "arnoldi", &w, &want, 10.0 * TOL);
        Taylor::new(
            &cpu,
            TaylorOptions {
                tol,
                ..Default::default()
            },
        )
        .unwrap()
        .expmv(h, mi, &v, &mut w)
        .unwrap();
        check(name, "taylor", &w, &want, 10.0 * TOL);
    }
}

#[test]
fn dense_expm_against_scipy() {
    for k in 0..4 {
        let f = fixture(&format!("dense_expm_{k}"));
        assert_eq!(f.json["dense"].as_bool(), Some(true));
        let n = f.n;
        let a = f.real_matrix().to_dense().unwrap();
        let want: Vec<f64> = complex(&f.json["expm"]).iter().map(|z| z.re).collect();
        let e =
            matexp_dense::expm(&matexp_dense::Matrix::from_row_major(n, n, &a).unwrap()).unwrap();
        let got = e.to_row_major();
        // Both are backward stable: forward differences of a few ε·‖A‖₁·cond.
        let norm1 = f.json["norm1"].as_f64().unwrap();
        let bound = 1e-13 * (1.0 + norm1);
        check(
            &f.name,
            "matexp_dense::expm",
            &to_c(&got),
            &to_c(&want),
            bound,
        );
    }
}

#[test]
fn graph_table1_total_communicability() {
    let cpu = CpuBackend::new();
    let f = fixture("graph_table1_tc");
    let (a, n) = (f.real_matrix(), f.n);
    let want = f.result();
    let ones = vec![1.0; n];
    // e^A·1 by Lanczos from the vector of ones (`matexp_graph::total_communicability`).
    let (tc, report) = lanczos_expmv(
        &cpu,
        &a,
        1.0,
        &ones,
        &LanczosOptions {
            tol: Tolerance::relative(1e-12),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(report.converged);
    check(&f.name, "lanczos", &to_c(&tc), &want, 1e-11);
    let mut w = vec![0.0; n];
    Leja::new(&cpu, LejaOptions::default().with_rtol(1e-12))
        .unwrap()
        .expmv(&a, 1.0, &ones, &mut w)
        .unwrap();
    check(&f.name, "leja", &to_c(&w), &want, 1e-11);
    // The four-decimal values of the seed's table.
    let table = [
        7.7820, 18.9721, 11.3401, 6.6374, 16.6738, 5.3637, 5.3637, 16.1898, 13.3347, 20.4108,
    ];
    for (x, y) in w.iter().zip(table) {
        assert!((x - y).abs() <= 5e-5, "{x} vs table {y}");
    }
}
