//! The front door against dense references: every method reachable through `Method`,
//! default options in every precision, `Auto`'s choice, several times, φ-functions, blocks,
//! graphs, and a MatrixMarket file from disk to a result.

use matexp::sparse::generators::{laplacian_1d, laplacian_2d};
use matexp::sparse::matrix_market::{Symmetry, write_csr_file};
use matexp::{
    CommunicabilityOptions, CpuBackend, CsrMatrix, Error, Method, Options, PatternCsr, Scalar,
    TimeGrid, c32, c64, expmv, expmv_columns, expmv_times, phi_combination, phimv, phimv_k,
    read_matrix_market, total_communicability,
};
use matexp_dense::{Matrix, expm, phi_vectors};

fn dense<S: Scalar>(a: &CsrMatrix<S>) -> Matrix<c64> {
    let n = a.nrows();
    let d = a.to_dense().unwrap();
    Matrix::from_fn(n, n, |i, j| d[i * n + j].to_c64())
}

fn reference<S: Scalar>(a: &CsrMatrix<S>, t: c64, v: &[S]) -> Vec<c64> {
    let v: Vec<c64> = v.iter().map(|x| x.to_c64()).collect();
    expm(&dense(a).scaled(t)).unwrap().matvec(&v).unwrap()
}

fn rel_err<S: Scalar>(x: &[S], y: &[c64]) -> f64 {
    let d: f64 = x
        .iter()
        .zip(y)
        .map(|(a, b)| (a.to_c64() - b).norm_sqr())
        .sum();
    let r: f64 = y.iter().map(|b| b.norm_sqr()).sum();
    (d / r).sqrt()
}

fn start<S: Scalar>(n: usize) -> Vec<S> {
    (0..n)
        .map(|i| {
            let x = (i as f64 + 0.5) / n as f64;
            S::from_c64(c64::new(
                (3.0 * x).sin() + 0.2 * x,
                if S::IS_COMPLEX { x } else { 0.0 },
            ))
        })
        .collect()
}

/// 1D convection–diffusion, central differences: nonsymmetric (Péclet number 2 per cell).
fn convection_diffusion(n: usize) -> CsrMatrix<f64> {
    let (mut rp, mut ci, mut vals) = (vec![0u32], Vec::new(), Vec::new());
    for i in 0..n {
        for (j, v) in [(i.wrapping_sub(1), 2.0), (i, -2.0), (i + 1, 0.0)] {
            if j < n {
                ci.push(j as u32);
                vals.push(v);
            }
        }
        rp.push(ci.len() as u32);
    }
    CsrMatrix::try_new(n, n, rp, ci, vals).unwrap()
}

#[test]
fn every_method_is_reachable_and_auto_chooses_by_the_documented_rule() {
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64> = laplacian_2d(8).unwrap();
    let v = start::<f64>(a.nrows());
    let t = 2e-3;
    let exact = reference(&a, c64::new(t, 0.0), &v);
    for method in [
        Method::Auto,
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
    ] {
        let opts = Options::default().with_method(method).with_rtol(1e-10);
        let (w, report) = expmv(&cpu, &a, t, &v, &opts).unwrap();
        let err = rel_err(&w, &exact);
        assert!(err <= 1e-8, "{method}: {err:.2e} ({report})");
        let expected = if method == Method::Auto {
            "lanczos"
        } else {
            method.name()
        };
        assert_eq!(report.method, expected);
        assert_eq!(report.rtol, 1e-10);
    }
    // Not Hermitian: Auto takes Arnoldi, and Lanczos refuses with a suggestion.
    let c = convection_diffusion(30);
    let v = start::<f64>(30);
    let (w, report) = expmv(&cpu, &c, 0.5, &v, &Options::default()).unwrap();
    assert_eq!(report.method, "arnoldi");
    assert!(
        rel_err(&w, &reference(&c, c64::new(0.5, 0.0), &v)) <= 1e-7,
        "{report}"
    );
    let e = expmv(
        &cpu,
        &c,
        0.5,
        &v,
        &Options::default().with_method(Method::Lanczos),
    )
    .unwrap_err();
    assert!(e.to_string().contains("Arnoldi"), "{e}");
}

#[test]
fn default_options_work_in_single_precision() {
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f32> = laplacian_1d(40).unwrap();
    let v = start::<f32>(40);
    let (w, report) = expmv(&cpu, &a, 1e-3, &v, &Options::default()).unwrap();
    let err = rel_err(&w, &reference(&a, c64::new(1e-3, 0.0), &v));
    // The f32 default, 1e-3, is above the rounding floor of a report (1e-5 was not).
    assert_eq!(report.rtol, 1e-3, "{report}");
    assert!(
        report.converged && err <= report.rtol,
        "{err:.2e} ({report})"
    );
    // c32, e^{−iτH} through a complex time, non-default method too.
    let h: CsrMatrix<c32> = laplacian_1d(40).unwrap();
    let psi = start::<c32>(40);
    let tau = c32::new(0.0, -1e-3);
    for method in [Method::Auto, Method::Leja, Method::Arnoldi, Method::Taylor] {
        let opts = Options::default().with_method(method);
        let (w, report) = expmv(&cpu, &h, tau, &psi, &opts).unwrap();
        let err = rel_err(&w, &reference(&h, c64::new(0.0, -1e-3), &psi));
        assert!(
            report.converged && err <= report.rtol,
            "{method}: {err:.2e} ({report})"
        );
    }
    // Too tight for f32: the message names the fix.
    let e = expmv(&cpu, &a, 1e-3, &v, &Options::default().with_rtol(1e-9)).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { name: "rtol", .. }) && e.to_string().contains("f64"),
        "{e}"
    );
}

#[test]
fn times_from_a_scipy_grid_and_a_list_match_single_calls() {
    let cpu = CpuBackend::new();
    let c = convection_diffusion(25);
    let v = start::<f64>(25);
    let opts = Options::default().with_rtol(1e-10);
    for method in [Method::Leja, Method::Arnoldi, Method::Taylor] {
        let opts = opts.clone().with_method(method);
        let grid = TimeGrid::linspace(-0.2, 0.4, 4);
        let (ws, report) = expmv_times(&cpu, &c, &grid, &v, &opts).unwrap();
        for (w, &t) in ws.iter().zip(grid.iter()) {
            let err = rel_err(w, &reference(&c, c64::new(t, 0.0), &v));
            assert!(err <= 1e-8, "{method} t = {t}: {err:.2e} ({report})");
        }
        let (ws, _) = expmv_times(&cpu, &c, &[0.3, 0.1], &v, &opts).unwrap();
        assert!(rel_err(&ws[0], &reference(&c, c64::new(0.3, 0.0), &v)) <= 1e-8);
    }
}

#[test]
fn phi_functions_and_combinations() {
    let cpu = CpuBackend::new();
    let c = convection_diffusion(20);
    let v = start::<f64>(20);
    let t = 0.3;
    let vc: Vec<c64> = v.iter().map(|x| c64::new(*x, 0.0)).collect();
    let exact = phi_vectors(&dense(&c).scaled(c64::new(t, 0.0)), &vc, 3).unwrap();
    for method in [Method::Auto, Method::Leja, Method::Arnoldi] {
        let opts = Options::default().with_method(method).with_rtol(1e-10);
        let (phis, report) = phimv(&cpu, &c, t, &v, 3, &opts).unwrap();
        for (k, (p, e)) in phis.iter().zip(&exact).enumerate() {
            let err = rel_err(p, e);
            assert!(err <= 1e-8, "{method} φ_{k}: {err:.2e} ({report})");
        }
    }
    // Exponential Euler's combination e^{tA}u + t·φ₁(tA)g.
    let g = start::<f64>(20).iter().map(|x| 1.0 - x).collect::<Vec<_>>();
    let (w, _) =
        phi_combination(&cpu, &c, t, &[&v, &g], &Options::default().with_rtol(1e-10)).unwrap();
    let gc: Vec<c64> = g.iter().map(|x| c64::new(*x, 0.0)).collect();
    let phi1g = phi_vectors(&dense(&c).scaled(c64::new(t, 0.0)), &gc, 1).unwrap();
    let want: Vec<c64> = exact[0]
        .iter()
        .zip(&phi1g[1])
        .map(|(a, b)| a + b * t)
        .collect();
    assert!(rel_err(&w, &want) <= 1e-8);
}

#[test]
fn a_column_major_block_matches_column_by_column() {
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64> = laplacian_1d(15).unwrap();
    let mut block = start::<f64>(15);
    block.extend(start::<f64>(15).iter().map(|x| x * x));
    let opts = Options::default();
    let (w, report) = expmv_columns(&cpu, &a, 1e-3, &block, &opts).unwrap();
    for j in 0..2 {
        let col = &block[15 * j..15 * (j + 1)];
        let err = rel_err(&w[j], &reference(&a, c64::new(1e-3, 0.0), col));
        assert!(err <= 1e-7, "column {j}: {err:.2e} ({report})");
    }
    assert_eq!(w.len(), 2);
    assert!(matches!(
        expmv_columns(&cpu, &a, 1e-3, &block[..20], &opts),
        Err(Error::DimensionMismatch { .. })
    ));
}

/// One φ_k by `phimv_k` equals the k-th output of `phimv`, by every method, and costs at
/// most the products of computing φ₀ … φ_k (for the augmented methods, about one of them).
#[test]
fn a_single_phi_k_matches_phimv_and_costs_less() {
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64> = laplacian_1d(40).unwrap();
    let v = start::<f64>(40);
    let k = 4;
    for method in [
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
    ] {
        let opts = Options::default().with_method(method).with_rtol(1e-10);
        let (all, r_all) = phimv(&cpu, &a, 1e-2, &v, k, &opts).unwrap();
        let (one, r_one) = phimv_k(&cpu, &a, 1e-2, &v, k, &opts).unwrap();
        let reference: Vec<c64> = all[k].iter().map(|&x| c64::new(x, 0.0)).collect();
        let err = rel_err(&one, &reference);
        assert!(
            err <= 1e-8,
            "{method:?}: φ_{k} differs by {err:.2e} ({r_one})"
        );
        assert!(r_one.converged, "{method:?}: {r_one}");
        assert!(
            r_one.matvecs <= r_all.matvecs,
            "{method:?}: φ_{k} alone took {} products, φ₀…φ_{k} {}",
            r_one.matvecs,
            r_all.matvecs
        );
    }
    let e = phimv_k(&cpu, &a, 1e-2, &v, 10_000, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("phimv_k"), "{e}");
}

#[test]
fn total_communicability_of_a_pattern_needs_no_type() {
    let cpu = CpuBackend::new();
    // A cycle of 12 vertices: every row sums to 2, so e^{βA}·1 = e^{2β}·1.
    let n = 12u32;
    let mut rp = vec![0u32];
    let mut ci = Vec::new();
    for i in 0..n {
        let mut nb = [(i + n - 1) % n, (i + 1) % n];
        nb.sort();
        ci.extend(nb);
        rp.push(ci.len() as u32);
    }
    let g = PatternCsr::try_new(n as usize, n as usize, rp, ci).unwrap();
    for two_pass in [false, true] {
        let opts = CommunicabilityOptions::default().with_two_pass(two_pass);
        let (tc, report) = total_communicability(&cpu, &g, 0.5, &opts).unwrap();
        for x in &tc {
            assert!(
                (x - 1f64.exp()).abs() <= 1e-11 * 1f64.exp(),
                "two_pass = {two_pass}: {x} ({report})"
            );
        }
    }
    // The graph crate's call, through the front door.
    let (tc, _) = matexp::graph::total_communicability(&cpu, &g, 0.5, &Default::default()).unwrap();
    assert!((tc[0] - 1f64.exp()).abs() <= 1e-11 * 1f64.exp());
    let e =
        total_communicability(&cpu, &g, f64::NAN, &CommunicabilityOptions::default()).unwrap_err();
    assert!(e.to_string().contains("beta"), "{e}");
}

#[test]
fn from_a_matrix_market_file_to_a_result() {
    let dir = std::env::temp_dir().join(format!("matexp-facade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("laplacian.mtx");
    let a: CsrMatrix<f64> = laplacian_2d(6).unwrap();
    write_csr_file(&path, &a, Symmetry::Symmetric, &["a test matrix"]).unwrap();
    let b: CsrMatrix<f64> = read_matrix_market(&path).unwrap();
    let v = vec![1.0; b.nrows()];
    let (w, report) = expmv(&CpuBackend::new(), &b, 1e-2, &v, &Options::default()).unwrap();
    assert!(
        rel_err(&w, &reference(&a, c64::new(1e-2, 0.0), &v)) <= 1e-7,
        "{report}"
    );
    let missing = read_matrix_market::<f64>(dir.join("missing.mtx")).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn methods_parse_and_print() {
    for m in Method::ALL {
        assert_eq!(m.name().parse::<Method>().unwrap(), m);
        assert_eq!(m.to_string(), m.name());
    }
    assert!("expokit".parse::<Method>().is_err());
}

#[test]
fn the_device_is_chosen_at_run_time_with_a_cpu_fallback() {
    use matexp::{AnyBackend, Target};
    let gpus = matexp::gpu::device_count().unwrap_or(0);
    let a: CsrMatrix<f64> = laplacian_1d(30).unwrap();
    let v = start::<f64>(30);
    let any = AnyBackend::gpu_or_cpu(0);
    if gpus == 0 {
        // No GPU: asking for one is an error that says so and names the fallback.
        let e = AnyBackend::new(Target::Gpu(0)).unwrap_err();
        assert!(matches!(e, Error::Device(_)), "{e}");
        assert!(
            e.to_string().contains("gpu:0") && e.to_string().contains("Cpu"),
            "{e}"
        );
        assert_eq!(any.target(), Target::Cpu);
        assert_eq!(Target::best_available(), Target::Cpu);
    } else {
        assert_eq!(any.target(), Target::Gpu(0));
    }
    // Either way the answer is e^{tA}v.
    let (w, report) = any.expmv(&a, 1e-3, &v, &Options::default()).unwrap();
    assert!(
        rel_err(&w, &reference(&a, c64::new(1e-3, 0.0), &v)) <= 1e-7,
        "{report}"
    );
    let (ws, _) = any
        .expmv_times(&a, &[0.0, 1e-3], &v, &Options::default())
        .unwrap();
    assert!(rel_err(&ws[1], &reference(&a, c64::new(1e-3, 0.0), &v)) <= 1e-7);
    let (phis, _) = any.phimv(&a, 1e-3, &v, 1, &Options::default()).unwrap();
    assert!(rel_err(&phis[0], &reference(&a, c64::new(1e-3, 0.0), &v)) <= 1e-7);
}
