//! The facade's side of honest reports: `Method::Auto` answers where its first choice
//! refuses, the rule `converged ⇔ rel_error_estimate ≤ rtol` holds for every entry point,
//! and arguments that size outputs are checked before anything is allocated.

use matexp::methods::MAX_PHI_ORDER;
use matexp::{
    CpuBackend, DenseMatrixOperator, Error, Method, Options, Report, expmv, expmv_columns,
    expmv_times, phi_combination, phimv,
};
use matexp_dense::{Matrix, expm};

static CPU: CpuBackend = CpuBackend;

fn rel_err(w: &[f64], x: &[f64]) -> f64 {
    let d: f64 = w
        .iter()
        .zip(x)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    d / x.iter().map(|b| b * b).sum::<f64>().sqrt()
}

fn rule(r: &Report) {
    assert_eq!(r.converged, r.rel_error_estimate <= r.rtol, "{r}");
}

/// A = [[−1, b], [0, −2]] with b = 2·10¹⁰: ‖A‖ ≈ 2·10¹⁰ but A² is no larger than ‖A‖·2,
/// and e^{A} = [[e^{−1}, b(e^{−1} − e^{−2})], [0, e^{−2}]].
#[test]
fn auto_answers_where_its_first_choice_refuses() {
    let b = 2e10;
    let a = DenseMatrixOperator::new(2, 2, vec![-1.0, b, 0.0, -2.0]).unwrap();
    let v = vec![0.0, 1.0];
    let (e1, e2) = ((-1f64).exp(), (-2f64).exp());
    let exact = [b * (e1 - e2), e2];
    let opts = Options::default().with_rtol(1e-10);
    // The first choice for a non-Hermitian operator refuses.
    let first = expmv(
        &CPU,
        &a,
        1.0,
        &v,
        &opts.clone().with_method(Method::Arnoldi),
    );
    assert!(
        matches!(first, Err(Error::NoConvergence { .. })),
        "arnoldi: {first:?}"
    );
    let (w, r) = expmv(&CPU, &a, 1.0, &v, &opts).unwrap();
    assert_eq!(r.method, "taylor", "{r}");
    assert_eq!(r.declined, vec!["arnoldi"], "{r}");
    assert!(r.to_string().contains("after arnoldi declined"), "{r}");
    rule(&r);
    assert!(rel_err(&w, &exact) <= 1e-10, "{w:?} vs {exact:?}; {r}");
    // A named method does not fall back.
    let named = expmv(&CPU, &a, 1.0, &v, &opts.with_method(Method::Arnoldi));
    assert!(named.is_err());
}

#[test]
fn phimv_checks_k_before_allocating_the_outputs() {
    let a = DenseMatrixOperator::new(2, 2, vec![-1.0, 0.0, 0.0, -2.0]).unwrap();
    let v = vec![1.0, 1.0];
    for k in [MAX_PHI_ORDER + 1, 1 << 40, usize::MAX] {
        match phimv(&CPU, &a, 1.0, &v, k, &Options::default()) {
            Err(Error::InvalidArgument {
                name: "k", reason, ..
            }) => {
                assert!(reason.contains("phimv (lanczos)"), "{reason}")
            }
            other => panic!("k = {k}: {other:?}"),
        }
    }
    let (phis, r) = phimv(&CPU, &a, 1.0, &v, MAX_PHI_ORDER.min(4), &Options::default()).unwrap();
    assert_eq!(phis.len(), MAX_PHI_ORDER.min(4) + 1);
    rule(&r);
}

#[test]
fn other_sizing_arguments_are_checked_first() {
    let a = DenseMatrixOperator::new(2, 2, vec![-1.0, 0.5, 0.5, -2.0]).unwrap();
    let v = vec![1.0, 1.0];
    let o = Options::default();
    assert!(matches!(
        expmv_times(&CPU, &a, &[], &v, &o),
        Err(Error::InvalidArgument { name: "times", .. })
    ));
    assert!(matches!(
        expmv_times(&CPU, &a, &[1.0, f64::NAN], &v, &o),
        Err(Error::InvalidArgument { name: "times", .. })
    ));
    let many: Vec<&Vec<f64>> = vec![&v; MAX_PHI_ORDER + 2];
    assert!(matches!(
        phi_combination(&CPU, &a, 1.0, &many, &o),
        Err(Error::InvalidArgument { name: "bs", .. })
    ));
    assert!(matches!(
        phi_combination(&CPU, &a, 1.0, &[], &o),
        Err(Error::InvalidArgument { name: "bs", .. })
    ));
    let short = vec![1.0];
    assert!(matches!(
        phi_combination(&CPU, &a, 1.0, &[&v, &short], &o),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        expmv_columns(&CPU, &a, 1.0, &[], &o),
        Err(Error::InvalidArgument {
            name: "columns",
            ..
        })
    ));
}

/// Every entry point, Hermitian and not, against the dense exponential: the rule holds,
/// and where converged the error is within 10·rtol.
#[test]
fn every_entry_point_keeps_the_rule() {
    let n = 5;
    for hermitian in [true, false] {
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            m[i * n + i] = -2.0 - i as f64;
            if i + 1 < n {
                m[i * n + i + 1] = 1.0;
                m[(i + 1) * n + i] = if hermitian { 1.0 } else { 0.3 };
            }
        }
        let a = DenseMatrixOperator::new(n, n, m.clone()).unwrap();
        let dense = Matrix::from_row_major(n, n, &m).unwrap();
        let reference = |t: f64, v: &[f64]| expm(&dense.scaled(t)).unwrap().matvec(v).unwrap();
        let v: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        for rtol in [1e-6, 1e-10] {
            let o = Options::default().with_rtol(rtol);
            let (w, r) = expmv(&CPU, &a, 0.7, &v, &o).unwrap();
            rule(&r);
            assert!(
                !r.converged || rel_err(&w, &reference(0.7, &v)) <= 10.0 * rtol,
                "{r}"
            );
            let times: Vec<f64> = (0..11).map(|i| -0.5 + 0.15 * i as f64).collect();
            let (ws, r) = expmv_times(&CPU, &a, &times, &v, &o).unwrap();
            rule(&r);
            assert_eq!(r.output_estimates.len(), times.len(), "{r}");
            for (w, &t) in ws.iter().zip(&times) {
                assert!(
                    !r.converged || rel_err(w, &reference(t, &v)) <= 10.0 * rtol,
                    "{r}"
                );
            }
            let (_, r) = phimv(&CPU, &a, 0.7, &v, 3, &o).unwrap();
            rule(&r);
            assert_eq!(r.output_estimates.len(), 4, "{r}");
            let (_, r) = phi_combination(&CPU, &a, 0.7, &[&v, &v], &o).unwrap();
            rule(&r);
            let block: Vec<f64> = v.iter().chain(v.iter().rev()).copied().collect();
            let (_, r) = expmv_columns(&CPU, &a, 0.7, &block, &o).unwrap();
            rule(&r);
            assert_eq!(r.output_estimates.len(), 2, "{r}");
        }
    }
}
