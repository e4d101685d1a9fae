//! The front door at the edge of the range: `Method::Auto` (Lanczos for Hermitian
//! operators) reports an overflowing e^{tA}v as `NonFinite`, never as a vector of zeros
//! marked converged (the reported cases: `heat.mtx` at t = −10²⁰, a 2D Laplacian at
//! t = −10¹⁴ … −10³⁰⁰, total communicability at β = 10³⁰⁰).

use matexp::sparse::generators::laplacian_2d;
use matexp::{
    CpuBackend, CsrMatrix, Error, Method, Options, PatternCsr, expmv, read_matrix_market,
    total_communicability,
};

fn expect_non_finite<T>(what: &str, got: matexp::Result<(Vec<f64>, T)>)
where
    T: std::fmt::Display,
{
    match got {
        Err(Error::NonFinite { .. }) => {}
        Err(e) => panic!("{what}: expected NonFinite, got {e}"),
        Ok((w, r)) => panic!(
            "{what}: the result overflows, got max |w| = {:e}; {r}",
            w.iter().fold(0.0f64, |m, x| m.max(x.abs()))
        ),
    }
}

#[test]
fn heat_file_at_a_huge_negative_time_is_non_finite() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/heat.mtx");
    let a: CsrMatrix<f64> = read_matrix_market(path).unwrap();
    let v = vec![1.0; a.nrows()];
    let cpu = CpuBackend::new();
    for t in [-1e14, -1e20, -1e300] {
        for method in [Method::Auto, Method::Lanczos, Method::Leja] {
            let opts = Options::default().with_method(method);
            expect_non_finite(
                &format!("heat.mtx, {method}, t = {t:e}"),
                expmv(&cpu, &a, t, &v, &opts),
            );
        }
    }
}

#[test]
fn laplacian_at_huge_negative_times_is_non_finite() {
    let a: CsrMatrix<f64> = laplacian_2d(60).unwrap();
    let v = vec![1.0; a.nrows()];
    let cpu = CpuBackend::new();
    for t in [-1e14, -1e50, -1e300] {
        expect_non_finite(
            &format!("lap2d(60), Auto, t = {t:e}"),
            expmv(&cpu, &a, t, &v, &Options::default()),
        );
    }
}

/// A cycle of 12 vertices (every row sums to 2): e^{βA}·1 = e^{2β}·1, beyond the range
/// from β ≈ 355 on; at β = 300 it is e^{600}·1, returned.
#[test]
fn total_communicability_beyond_the_range_is_non_finite() {
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
    let cpu = CpuBackend::new();
    for beta in [400.0, 1e20, 1e300] {
        expect_non_finite(
            &format!("cycle, β = {beta:e}"),
            total_communicability(&cpu, &g, beta, &Default::default()),
        );
    }
    let (tc, r) = total_communicability(&cpu, &g, 300.0, &Default::default()).unwrap();
    let want = 600f64.exp();
    for x in &tc {
        assert!((x - want).abs() <= 1e-7 * want, "{x:e} vs {want:e}; {r}");
    }
}
