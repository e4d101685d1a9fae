//! Lanczos where plain Lanczos fails: a stiff operator that loses orthogonality
//! ([`Reorthogonalize::Auto`]) and a large τ‖H‖ that needs a Krylov dimension above `max_dim`
//! (substeps). References are independent of Lanczos: the eigendecomposition the test builds
//! the matrix from, the analytic eigenvectors of the tight-binding chain, or a dense `eigh`.
//!
//! Each case prints its figures (`--nocapture`).

use crate::common;

use common::{laplacian, rel_err, spin_chain, start_vector};
use matexp_core::{CpuBackend, DenseMatrixOperator, Error, LinearOperator, Result, c64};
use matexp_dense::{Matrix, eigh};
use matexp_expmv::{
    ExpmvMethod, Lanczos, LanczosOptions, Progress, ProgressFn, Reorthogonalize, Report,
    lanczos_expmv, lanczos_phimv,
};
use matexp_sparse::CsrMatrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;

const CPU: CpuBackend = CpuBackend;

fn never() -> LanczosOptions {
    LanczosOptions {
        reorthogonalization: Reorthogonalize::Never,
        max_substeps: 1,
        ..Default::default()
    }
}

/// A = Q·diag(λ)·Qᵀ with a random orthogonal Q (eigenvectors of a random symmetric matrix),
/// n = 200, λ from −1e6 to −1e−2, log-spaced: its e^{A}v is Q·e^{λ}·Qᵀv.
struct Stiff {
    op: DenseMatrixOperator<f64>,
    q: Matrix<f64>,
    lambda: Vec<f64>,
}

fn stiff() -> Stiff {
    let n = 200;
    let mut r = ChaCha8Rng::seed_from_u64(7);
    let g = Matrix::<f64>::from_fn(n, n, |_, _| r.random_range(-1.0..1.0));
    let s = Matrix::<f64>::from_fn(n, n, |i, j| g[(i, j)] + g[(j, i)]);
    let (_, q) = eigh(&s).unwrap();
    let lambda: Vec<f64> = (0..n)
        .map(|i| -(10f64).powf(-2.0 + 8.0 * i as f64 / (n - 1) as f64))
        .collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| q[(i, k)] * lambda[k] * q[(j, k)]).sum();
        }
    }
    // Exactly symmetric (the sums above round differently for (i, j) and (j, i)).
    for i in 0..n {
        for j in 0..i {
            let m = 0.5 * (a[i * n + j] + a[j * n + i]);
            a[i * n + j] = m;
            a[j * n + i] = m;
        }
    }
    Stiff {
        op: DenseMatrixOperator::new(n, n, a).unwrap(),
        q,
        lambda,
    }
}

impl Stiff {
    fn exact(&self, t: f64, v: &[f64]) -> Vec<f64> {
        let n = v.len();
        let c: Vec<f64> = (0..n)
            .map(|k| {
                (t * self.lambda[k]).exp() * (0..n).map(|i| self.q[(i, k)] * v[i]).sum::<f64>()
            })
            .collect();
        (0..n)
            .map(|i| (0..n).map(|k| self.q[(i, k)] * c[k]).sum())
            .collect()
    }
}

#[test]
fn stiff_dense_matrix_converges_with_auto_reorthogonalization() {
    let p = stiff();
    let v = vec![1.0; 200];
    let t = 1.0;
    let exact = p.exact(t, &v);
    let rtol = 1e-8;
    // The old default (no reorthogonalization, no substeps) stalls at max_dim = 500.
    let old = lanczos_expmv(&CPU, &p.op, t, &v, &never().with_rtol(rtol));
    match old {
        Err(Error::NoConvergence { detail, .. }) => {
            assert!(detail.contains("reorthogonaliz"), "{detail}");
            eprintln!("stiff n = 200, Never: {detail}");
        }
        other => panic!("plain Lanczos was expected to stall, got {other:?}"),
    }
    let always = LanczosOptions {
        reorthogonalization: Reorthogonalize::Always,
        ..LanczosOptions::default().with_rtol(rtol)
    };
    let (wa, ra) = lanczos_expmv(&CPU, &p.op, t, &v, &always).unwrap();
    let (w, r) = lanczos_expmv(
        &CPU,
        &p.op,
        t,
        &v,
        &LanczosOptions::default().with_rtol(rtol),
    )
    .unwrap();
    let (ea, e) = (rel_err(&wa, &exact), rel_err(&w, &exact));
    eprintln!(
        "stiff n = 200, Always: {} products, k = {}, error {ea:.2e}; Auto: {} products, \
         k = {}, error {e:.2e}, reorthogonalized from step {:?}",
        ra.matvecs, ra.max_degree, r.matvecs, r.max_degree, r.reorthogonalized_from
    );
    assert!(ea <= rtol && e <= rtol, "errors {ea:e}, {e:e}");
    assert!(r.reorthogonalized_from.is_some_and(|i| i > 0));
    // Auto reaches the dimension of full reorthogonalization (plus the steps redone).
    assert!(
        r.max_degree <= ra.max_degree + 8,
        "{} vs {}",
        r.max_degree,
        ra.max_degree
    );
    assert!(
        r.matvecs <= ra.matvecs + 80,
        "{} vs {}",
        r.matvecs,
        ra.matvecs
    );
}

#[test]
fn auto_costs_nothing_where_orthogonality_holds() {
    // 3D Laplacian (Table 12's operator) at t‖A‖ = 2000 and an XXZ chain at t = −20i: Auto
    // takes exactly the products and the result of plain Lanczos.
    let lap = laplacian(12, 3);
    let v = start_vector::<f64>(lap.n(), 3);
    let t = 2000.0 / lap.norm1();
    let (w0, r0) = lanczos_expmv(&CPU, &lap.op, t, &v, &never()).unwrap();
    let (w1, r1) = lanczos_expmv(&CPU, &lap.op, t, &v, &LanczosOptions::default()).unwrap();
    eprintln!(
        "3D Laplacian n = 1728: {} products (Never), {} (Auto)",
        r0.matvecs, r1.matvecs
    );
    assert_eq!((r0.matvecs, r1.reorthogonalized_from), (r1.matvecs, None));
    assert_eq!(w0, w1);
    let chain = spin_chain(10, 0.5, 2);
    let psi = start_vector::<c64>(chain.n(), 4);
    let t = c64::new(0.0, -20.0);
    let (w0, r0) = lanczos_expmv(&CPU, &chain.op, t, &psi, &never()).unwrap();
    let (w1, r1) = lanczos_expmv(&CPU, &chain.op, t, &psi, &LanczosOptions::default()).unwrap();
    eprintln!(
        "XXZ chain L = 10: {} products (Never), {} (Auto)",
        r0.matvecs, r1.matvecs
    );
    assert_eq!((r0.matvecs, r1.reorthogonalized_from), (r1.matvecs, None));
    assert_eq!(w0, w1);
}

#[test]
fn two_pass_with_auto_keeps_the_plain_iteration() {
    let lap = laplacian(30, 1).with_norm(4e3);
    let v = start_vector::<f64>(lap.n(), 5);
    let two = LanczosOptions {
        two_pass: true,
        ..Default::default()
    };
    let (_, r) = lanczos_expmv(&CPU, &lap.op, 1.0, &v, &two).unwrap();
    assert_eq!(r.reorthogonalized_from, None);
    let bad = LanczosOptions {
        reorthogonalization: Reorthogonalize::Always,
        ..two
    };
    assert!(matches!(
        Lanczos::<CpuBackend, f64>::new(&CPU, bad),
        Err(Error::InvalidArgument { .. })
    ));
}

/// Tight-binding chain H = tridiag(1, 0, 1) of order n (‖H‖ < 2), with its eigenvectors
/// u_k(j) = √(2/(n+1))·sin(jkπ/(n+1)) and eigenvalues 2cos(kπ/(n+1)).
fn chain(n: usize) -> CsrMatrix<c64, u32> {
    let one = c64::new(1.0, 0.0);
    let mut e = Vec::new();
    for i in 0..n - 1 {
        e.push((i, i + 1, one));
        e.push((i + 1, i, one));
    }
    CsrMatrix::from_triplets(n, n, &e).unwrap()
}

fn chain_exact(n: usize, tau: c64, v: &[c64]) -> Vec<c64> {
    let h = PI / (n + 1) as f64;
    let norm = (2.0 / (n + 1) as f64).sqrt();
    let mut out = vec![c64::new(0.0, 0.0); n];
    for k in 1..=n {
        let u: Vec<f64> = (1..=n)
            .map(|j| norm * (j as f64 * k as f64 * h).sin())
            .collect();
        let c: c64 = u.iter().zip(v).map(|(a, b)| *b * *a).sum();
        let c = c * (tau * (2.0 * (k as f64 * h).cos())).exp();
        for (o, a) in out.iter_mut().zip(&u) {
            *o += c * *a;
        }
    }
    out
}

/// A Hermitian operator that reports neither bounds nor a norm (the width of the spectrum
/// is learned from T_k, after the first run has reached `max_dim`).
struct Hidden<'a>(&'a CsrMatrix<c64, u32>);

impl LinearOperator<CpuBackend, c64> for Hidden<'_> {
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(&self, b: &CpuBackend, a: c64, x: &Vec<c64>, z: c64, y: &mut Vec<c64>) -> Result<()> {
        LinearOperator::<CpuBackend, c64>::apply(self.0, b, a, x, z, y)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn run(
    op: &dyn LinearOperator<CpuBackend, c64>,
    tau: c64,
    v: &[c64],
    o: LanczosOptions,
) -> (Vec<c64>, Report) {
    let mut lz = Lanczos::new(&CPU, o).unwrap();
    let mut w = vec![c64::new(0.0, 0.0); v.len()];
    let r = lz.expmv(op, tau, &v.to_vec(), &mut w).unwrap();
    (w, r)
}

fn chain_case(t_norm: f64, hidden: bool) {
    let n = 2000;
    let h = chain(n);
    // ‖H‖₂ = 2cos(π/(n+1)) ≈ 2.
    let tau = c64::new(0.0, -t_norm / 2.0);
    let v = start_vector::<c64>(n, 11);
    let exact = chain_exact(n, tau, &v);
    let rtol = 1e-8;
    let opts = LanczosOptions::default().with_rtol(rtol);
    let (w, r) = if hidden {
        run(&Hidden(&h), tau, &v, opts)
    } else {
        run(&h, tau, &v, opts)
    };
    let err = rel_err(&w, &exact);
    eprintln!(
        "chain n = {n}, τ‖H‖ = {t_norm:.0}{}: {} products ({} estimated), {} substeps, \
         k ≤ {}, error {err:.2e}, estimate {:.2e}",
        if hidden { " (no bounds)" } else { "" },
        r.matvecs,
        r.cost_estimate,
        r.substeps,
        r.max_degree,
        r.rel_error_estimate
    );
    assert!(r.converged && r.substeps > 1 && r.max_degree <= 500);
    assert!(err <= rtol, "error {err:e} above rtol {rtol:e}");
    assert!(r.rel_error_estimate >= err && r.rel_error_estimate <= rtol);
    // Substeps cost little over the ~τ‖H‖ products one basis of that dimension would take.
    assert!(
        (r.matvecs as f64) < 1.3 * t_norm + 200.0,
        "{} products",
        r.matvecs
    );
    if t_norm <= 2500.0 {
        // The old behaviour fails at max_dim.
        let old = lanczos_expmv(&CPU, &h, tau, &v, &never().with_rtol(rtol));
        assert!(matches!(old, Err(Error::NoConvergence { .. })));
    }
}

#[test]
fn chain_at_t_norm_2500_takes_substeps() {
    chain_case(2500.0, false);
}

#[test]
fn chain_at_t_norm_2500_without_bounds_takes_substeps() {
    chain_case(2500.0, true);
}

#[test]
fn chain_at_t_norm_1e4_takes_substeps() {
    chain_case(1e4, false);
}

#[test]
fn random_sparse_symmetric_at_t_norm_2500() {
    // e^{−iτH}v for a real symmetric H, n = 800, about 8 entries per row at random
    // positions; reference from the dense eigendecomposition (real `eigh`).
    let n = 800;
    let mut r = ChaCha8Rng::seed_from_u64(21);
    let mut e = Vec::new();
    for i in 0..n {
        e.push((i, i, r.random_range(-1.0..1.0)));
        for _ in 0..4 {
            let j = r.random_range(0..n);
            if j != i {
                let z: f64 = r.random_range(-1.0..1.0);
                e.push((i, j, z));
                e.push((j, i, z));
            }
        }
    }
    let real: CsrMatrix<f64, u32> = CsrMatrix::from_triplets(n, n, &e).unwrap();
    let complex: Vec<(usize, usize, c64)> = e
        .iter()
        .map(|&(i, j, z)| (i, j, c64::new(z, 0.0)))
        .collect();
    let h: CsrMatrix<c64, u32> = CsrMatrix::from_triplets(n, n, &complex).unwrap();
    let dense = Matrix::<f64>::from_fn(n, n, |i, j| real.get(i, j));
    let (lambda, u) = eigh(&dense).unwrap();
    let norm = lambda.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    let tau = c64::new(0.0, -2500.0 / norm);
    let v = start_vector::<c64>(n, 12);
    let c: Vec<c64> = (0..n)
        .map(|k| {
            let p: c64 = (0..n).map(|i| v[i] * u[(i, k)]).sum();
            p * (tau * lambda[k]).exp()
        })
        .collect();
    let exact: Vec<c64> = (0..n)
        .map(|i| (0..n).map(|k| c[k] * u[(i, k)]).sum())
        .collect();
    let rtol = 1e-8;
    let (w, rep) = run(&h, tau, &v, LanczosOptions::default().with_rtol(rtol));
    let err = rel_err(&w, &exact);
    eprintln!(
        "random sparse symmetric n = {n}, τ‖H‖ = 2500: {} products, {} substeps, k ≤ {}, \
         error {err:.2e}, estimate {:.2e}",
        rep.matvecs, rep.substeps, rep.max_degree, rep.rel_error_estimate
    );
    assert!(
        rep.converged && rep.substeps > 1 && err <= rtol,
        "error {err:e}"
    );
    assert!(rep.rel_error_estimate >= err && rep.rel_error_estimate <= rtol);
}

#[test]
fn substeps_meet_a_decaying_real_time() {
    // e^{tA}v for the 1D Laplacian with t‖A‖ = 4e5 and max_dim = 40 < the ~110 needed: the
    // substeps' shares add up for real time as well.
    let lap = laplacian(300, 1).with_norm(4e5);
    let v = start_vector::<f64>(lap.n(), 6);
    let exact = common::dense_expmv(&lap.a, 1.0, &v);
    let opts = LanczosOptions {
        max_dim: 40,
        ..LanczosOptions::default().with_rtol(1e-8)
    };
    let (w, r) = lanczos_expmv(&CPU, &lap.op, 1.0, &v, &opts).unwrap();
    let err = rel_err(&w, &exact);
    eprintln!(
        "1D Laplacian n = 300, t‖A‖ = 4e5, max_dim 40: {} products, {} substeps, error \
         {err:.2e}, estimate {:.2e}",
        r.matvecs, r.substeps, r.rel_error_estimate
    );
    assert!(r.substeps > 1 && err <= 1e-8, "error {err:e}");
    assert!(r.rel_error_estimate >= err && r.rel_error_estimate <= 1e-8);
}

#[test]
fn no_convergence_messages_say_what_to_try() {
    let n = 2000;
    let h = chain(n);
    let v = start_vector::<c64>(n, 1);
    let tau = c64::new(0.0, -600.0);
    let small = LanczosOptions {
        max_dim: 100,
        ..Default::default()
    };
    let detail = |r: std::result::Result<(Vec<c64>, Report), Error>| match r {
        Err(Error::NoConvergence { detail, .. }) => detail,
        other => panic!("expected NoConvergence, got {:?}", other.map(|x| x.1)),
    };
    // φ: no substeps; the message says so.
    let d = detail(lanczos_phimv(&CPU, &h, tau, &v, 1, &small));
    assert!(
        d.contains("max_dim") && d.contains("single output time of exp"),
        "{d}"
    );
    // Substeps off: max_substeps is named, and reorthogonalization for plain Lanczos.
    let off = LanczosOptions {
        max_dim: 100,
        ..never()
    };
    let d = detail(lanczos_expmv(&CPU, &h, tau, &v, &off));
    assert!(
        d.contains("max_substeps") && d.contains("set reorthogonalize"),
        "{d}"
    );
    // Too few substeps.
    let few = LanczosOptions {
        max_substeps: 2,
        ..small
    };
    let d = detail(lanczos_expmv(&CPU, &h, tau, &v, &few));
    assert!(d.contains("max_substeps = 2"), "{d}");
}

static FRACTIONS: std::sync::Mutex<Vec<f64>> = std::sync::Mutex::new(Vec::new());

fn record(p: &Progress) {
    FRACTIONS.lock().unwrap().push(p.fraction);
}

#[test]
fn progress_reports_the_fraction_of_time_per_substep() {
    let n = 600;
    let h = chain(n);
    let v = start_vector::<c64>(n, 3);
    let opts = LanczosOptions {
        max_dim: 60,
        progress: Some(ProgressFn(record)),
        ..Default::default()
    };
    let (_, r) = lanczos_expmv(&CPU, &h, c64::new(0.0, -200.0), &v, &opts).unwrap();
    let f = FRACTIONS.lock().unwrap().clone();
    // One call per substep but the last, then 1 at the end; increasing.
    assert_eq!(f.len(), r.substeps, "{f:?}");
    assert!(f.windows(2).all(|w| w[0] < w[1]) && f[0] > 0.0, "{f:?}");
    assert_eq!(*f.last().unwrap(), 1.0);
}

#[test]
fn decaying_runs_that_fit_in_max_dim_are_not_split() {
    // The Hochbruck–Lubich decay bound predicts ~880 steps for the 3D Laplacian at
    // t‖A‖ = 3e4 (rtol 1e−8); the run needs far fewer and must stay one run under max_dim 300.
    let lap = laplacian(12, 3);
    let v = start_vector::<f64>(lap.n(), 8);
    let t = 3e4 / lap.norm1();
    let opts = LanczosOptions {
        max_dim: 300,
        ..Default::default()
    };
    let (w, r) = lanczos_expmv(&CPU, &lap.op, t, &v, &opts).unwrap();
    let (w1, r1) = lanczos_expmv(
        &CPU,
        &lap.op,
        t,
        &v,
        &LanczosOptions {
            max_substeps: 1,
            ..opts
        },
    )
    .unwrap();
    eprintln!(
        "3D Laplacian t‖A‖ = 3e4: {} products, {} substeps",
        r.matvecs, r.substeps
    );
    assert_eq!((r.substeps, r.matvecs), (1, r1.matvecs));
    assert_eq!(w, w1);
}

#[test]
fn allow_unconverged_keeps_the_fixed_dimension() {
    // The graph crate's fixed Krylov dimension: the result at max_dim, no substeps.
    let h = chain(1000);
    let v = start_vector::<c64>(1000, 9);
    let opts = LanczosOptions {
        max_dim: 50,
        allow_unconverged: true,
        ..Default::default()
    };
    let (_, r) = lanczos_expmv(&CPU, &h, c64::new(0.0, -300.0), &v, &opts).unwrap();
    assert_eq!((r.substeps, r.matvecs, r.converged), (1, 50, false));
}

#[test]
fn substeps_respect_the_cost_cap() {
    let n = 2000;
    let h = chain(n);
    let v = start_vector::<c64>(n, 10);
    let tau = c64::new(0.0, -1250.0);
    let detail = |max_products: usize| match lanczos_expmv(
        &CPU,
        &h,
        tau,
        &v,
        &LanczosOptions {
            max_products,
            ..Default::default()
        },
    ) {
        Err(Error::NoConvergence { detail, .. }) => detail,
        other => panic!("expected NoConvergence, got {:?}", other.map(|x| x.1)),
    };
    // Refused up front: about 4000 products are planned.
    let d = detail(1000);
    assert!(
        d.contains("max_products = 1000") && d.contains("refused"),
        "{d}"
    );
    // Planned within twice the cap, then stopped on the way at the cap.
    let d = detail(2100);
    assert!(d.contains("max_products = 2100"), "{d}");
}
