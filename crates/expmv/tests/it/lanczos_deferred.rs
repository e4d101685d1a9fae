//! The deferred form of the Lanczos step ([`FusedOperator::lanczos_advance`]): an operator
//! that says `lanczos_advance_fused` gets q_{j+1} formed inside its next product instead of
//! in an update pass. Here CPU operators are wrapped so that they say so (keeping the
//! default `lanczos_advance`, i.e. `lanczos_form` + `lanczos_product`): the deferred run must
//! give the classical run's result (the same operations; agreement to rounding), spend the
//! same products, and meet the tolerance against independent dense references — on a
//! Laplacian, a complex spin chain, φ-functions, a breakdown (an eigenvector), a restart by
//! `Reorthogonalize::Auto` on a stiff matrix, and substeps.

use crate::common;
use matexp_core::{FusedOperator, OperatorSteps};

use common::{dense_expmv, dense_phimv, laplacian, rel_err, spin_chain, start_vector};
use matexp_core::{
    CpuBackend, DenseMatrixOperator, KrylovBackend, LinearOperator, Result, Scalar, SpectralBounds,
    c64,
};
use matexp_dense::{Matrix, eigh};
use matexp_expmv::{LanczosOptions, Report, lanczos_expmv, lanczos_phimv};
use rand::Rng;

const CPU: CpuBackend = CpuBackend;

/// An operator that asks for the deferred step (default `lanczos_advance`).
struct Deferred<'a, O>(&'a O);

impl<S: Scalar, O: LinearOperator<CpuBackend, S>> LinearOperator<CpuBackend, S>
    for Deferred<'_, O>
{
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(&self, b: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.0.apply(b, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.0.spectral_bounds()
    }
    fn is_hermitian(&self) -> bool {
        self.0.is_hermitian()
    }
    fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar, O: LinearOperator<CpuBackend, S>> FusedOperator<CpuBackend, S> for Deferred<'_, O> {
    fn lanczos_advance_fused(&self) -> bool {
        true
    }
}

/// Both forms of one expmv: (result, report) classical, then deferred.
fn both<S: Scalar>(
    op: &DenseMatrixOperator<S>,
    t: S,
    v: &[S],
    opts: &LanczosOptions,
) -> [(Vec<S>, Report); 2] {
    let v = v.to_vec();
    let classical = lanczos_expmv(&CPU, op, t, &v, opts).unwrap();
    let deferred = lanczos_expmv(&CPU, &Deferred(op), t, &v, opts).unwrap();
    [classical, deferred]
}

fn check<S: Scalar>(
    name: &str,
    [(wc, rc), (wd, rd)]: [(Vec<S>, Report); 2],
    exact: &[S],
    rtol: f64,
) {
    let (ec, ed, agree) = (rel_err(&wc, exact), rel_err(&wd, exact), rel_err(&wd, &wc));
    eprintln!(
        "{name}: classical {} products, error {ec:.2e}; deferred {} products, error {ed:.2e}; \
         forms differ by {agree:.1e}",
        rc.matvecs, rd.matvecs
    );
    assert!(rd.converged, "{name}: deferred run did not converge");
    assert!(ed <= rtol, "{name}: deferred error {ed:e} > {rtol:e}");
    assert_eq!(rc.matvecs, rd.matvecs, "{name}: products differ");
    assert_eq!(rc.max_degree, rd.max_degree, "{name}: dimensions differ");
    assert_eq!(
        rc.reorthogonalized_from, rd.reorthogonalized_from,
        "{name}: restarts differ"
    );
    assert!(agree <= 1e-12, "{name}: the forms differ by {agree:e}");
}

#[test]
fn laplacian_and_spin_chain_match_the_classical_form() {
    let p = laplacian(9, 3);
    let v = start_vector::<f64>(p.n(), 1);
    for (t, rtol) in [(0.05, 1e-6), (0.3, 1e-10)] {
        let opts = LanczosOptions::default().with_rtol(rtol);
        let exact = dense_expmv(&p.a, t, &v);
        check(
            &format!("{}, t = {t}", p.name),
            both(&p.op, t, &v, &opts),
            &exact,
            rtol,
        );
    }
    let h = spin_chain(8, 0.7, 3);
    let v = start_vector::<c64>(h.n(), 2);
    let t = c64::new(0.0, -4.0);
    let opts = LanczosOptions::default().with_rtol(1e-9);
    let exact = dense_expmv(&h.a, t, &v);
    check(&h.name, both(&h.op, t, &v, &opts), &exact, 1e-9);
}

#[test]
fn phi_functions_match_the_classical_form() {
    let p = laplacian(12, 2);
    let v = start_vector::<f64>(p.n(), 5);
    let t = 0.2;
    for k in 1..=3 {
        let opts = LanczosOptions::default().with_rtol(1e-9);
        let exact = dense_phimv(&p.a, k, t, &v);
        let (wc, rc) = lanczos_phimv(&CPU, &p.op, t, &v, k, &opts).unwrap();
        let (wd, rd) = lanczos_phimv(&CPU, &Deferred(&p.op), t, &v, k, &opts).unwrap();
        check(&format!("φ_{k}"), [(wc, rc), (wd, rd)], &exact, 1e-9);
    }
}

#[test]
fn breakdown_on_an_eigenvector_is_exact() {
    // v = sin(πx) on the 1D Laplacian is an eigenvector: β₁ = 0 at the first step.
    let p = laplacian(40, 1);
    let n = p.n();
    let v: Vec<f64> = (0..n)
        .map(|i| (std::f64::consts::PI * (i + 1) as f64 / (n + 1) as f64).sin())
        .collect();
    let exact = dense_expmv(&p.a, 3.0, &v);
    let opts = LanczosOptions::default().with_rtol(1e-12);
    check("eigenvector", both(&p.op, 3.0, &v, &opts), &exact, 1e-12);
}

#[test]
fn auto_restart_and_substeps_match_the_classical_form() {
    // Stiff: A = Q·diag(λ)·Qᵀ, λ log-spaced in [−1e6, −1e−2]; Auto restarts with full
    // reorthogonalization (the case of lanczos_robust.rs).
    let n = 200;
    let mut r = common::rng(7);
    let g = Matrix::<f64>::from_fn(n, n, |_, _| r.random_range(-1.0..1.0));
    let (_, q) = eigh(&Matrix::<f64>::from_fn(n, n, |i, j| g[(i, j)] + g[(j, i)])).unwrap();
    let lambda: Vec<f64> = (0..n)
        .map(|i| -(10f64).powf(-2.0 + 8.0 * i as f64 / (n - 1) as f64))
        .collect();
    let a = Matrix::<f64>::from_fn(n, n, |i, j| {
        let (i, j) = (i.max(j), i.min(j));
        (0..n).map(|k| q[(i, k)] * lambda[k] * q[(j, k)]).sum()
    });
    let p = common::Problem::new("stiff n = 200", a);
    let v = vec![1.0; n];
    let opts = LanczosOptions::default().with_rtol(1e-8);
    let exact = dense_expmv(&p.a, 1.0, &v);
    let runs = both(&p.op, 1.0, &v, &opts);
    assert!(
        runs[1].1.reorthogonalized_from.is_some(),
        "expected a restart"
    );
    check(&p.name, runs, &exact, 1e-8);
    // τ‖H‖ large enough for substeps under a small max_dim.
    let h = spin_chain(7, 1.0, 4);
    let v = start_vector::<c64>(h.n(), 3);
    let t = c64::new(0.0, -60.0);
    let opts = LanczosOptions {
        max_dim: 40,
        ..LanczosOptions::default().with_rtol(1e-8)
    };
    let exact = dense_expmv(&h.a, t, &v);
    let runs = both(&h.op, t, &v, &opts);
    assert!(runs[1].1.substeps > 1, "expected substeps");
    check("spin chain with substeps", runs, &exact, 1e-8);
}

/// The deferred step through the backend's defaults, checked against the classical step
/// one vector at a time: q_{j+1} and (α_j, β_{j+1}) agree.
#[test]
fn settle_and_form_reproduce_the_update() {
    let p = laplacian(6, 3);
    let n = p.n();
    let q0: Vec<f64> = {
        let v = start_vector::<f64>(n, 11);
        let s = 1.0 / matexp_core::norms::nrm2(&v);
        v.iter().map(|x| x * s).collect()
    };
    let (mut c1, mut c2) = (vec![0.0; 8], vec![0.0; 8]);
    let (mut s1, mut s2) = (vec![0.0; 5], vec![0.0; 5]);
    // Classical: product + update leaves q1 in w.
    let mut w = vec![0.0; n];
    OperatorSteps::lanczos_product(&p.op, &CPU, 0, None, &q0, &mut w, &c1, &mut s1).unwrap();
    CPU.lanczos_update(0, &q0, &mut w, &mut c1, &mut s1)
        .unwrap();
    // Deferred: product, settle, form.
    let mut wd = vec![0.0; n];
    let mut q1 = vec![0.0; n];
    OperatorSteps::lanczos_product(&p.op, &CPU, 0, None, &q0, &mut wd, &c2, &mut s2).unwrap();
    CPU.lanczos_settle(0, &q0, &mut wd, &mut c2, &mut s2)
        .unwrap();
    CPU.lanczos_form(0, &q0, &wd, &c2, &s2, &mut q1).unwrap();
    assert_eq!(s2[4], 0.0, "the Pythagorean β is trusted here");
    assert_eq!(&c1[..2], &c2[..2]);
    assert!(rel_err(&q1, &w) <= 1e-15, "{}", rel_err(&q1, &w));
    // Cancellation: A = I + 1e-9·L makes w ≈ α q, so β is taken by the exact norm and the
    // settled w is q1 itself.
    let shifted = DenseMatrixOperator::new(
        n,
        n,
        (0..n * n)
            .map(|i| {
                let (r, col) = (i / n, i % n);
                f64::from(u8::from(r == col)) + 1e-9 * p.a[(r, col)]
            })
            .collect(),
    )
    .unwrap();
    let (mut c1, mut c2) = (vec![0.0; 8], vec![0.0; 8]);
    let (mut s1, mut s2) = (vec![0.0; 5], vec![0.0; 5]);
    let mut w = vec![0.0; n];
    OperatorSteps::lanczos_product(&shifted, &CPU, 0, None, &q0, &mut w, &c1, &mut s1).unwrap();
    CPU.lanczos_update(0, &q0, &mut w, &mut c1, &mut s1)
        .unwrap();
    let mut wd = vec![0.0; n];
    OperatorSteps::lanczos_product(&shifted, &CPU, 0, None, &q0, &mut wd, &c2, &mut s2).unwrap();
    CPU.lanczos_settle(0, &q0, &mut wd, &mut c2, &mut s2)
        .unwrap();
    CPU.lanczos_form(0, &q0, &wd, &c2, &s2, &mut q1).unwrap();
    assert_eq!(s2[4], 1.0, "cancellation must take the exact norm");
    assert_eq!(&c1[..2], &c2[..2]);
    assert_eq!(q1, w);
}
