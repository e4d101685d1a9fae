//! Long runs announce themselves for Lanczos, Arnoldi and Taylor as for Leja: an up-front
//! cost estimate in the report, the progress callback, and the cost cap `max_products` (a
//! typed error, never a partial result).

use matexp_core::{Backend, CpuBackend, Error, LinearOperator, Result, Scalar, SpectralBounds};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Progress, ProgressFn, Report,
    Taylor, TaylorOptions,
};
use matexp_sparse::CsrMatrix;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An operator that counts its products, with or without the inner operator's spectral
/// information.
struct Counting<O> {
    inner: O,
    products: AtomicUsize,
    informed: bool,
}

impl<O> Counting<O> {
    fn new(inner: O) -> Self {
        Counting {
            inner,
            products: AtomicUsize::new(0),
            informed: true,
        }
    }
    fn uninformed(inner: O) -> Self {
        Counting {
            informed: false,
            ..Counting::new(inner)
        }
    }
    fn take(&self) -> usize {
        self.products.swap(0, Ordering::SeqCst)
    }
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S>> LinearOperator<B, S> for Counting<O> {
    fn nrows(&self) -> usize {
        self.inner.nrows()
    }
    fn ncols(&self) -> usize {
        self.inner.ncols()
    }
    fn apply(
        &self,
        be: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.products.fetch_add(1, Ordering::SeqCst);
        self.inner.apply(be, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.informed
            .then(|| self.inner.spectral_bounds())
            .flatten()
    }
    fn is_hermitian(&self) -> bool {
        self.inner.is_hermitian()
    }
    fn norm_bound(&self) -> Option<f64> {
        self.informed.then(|| self.inner.norm_bound()).flatten()
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        self.informed
            .then(|| self.inner.hermitian_part_bounds())
            .flatten()
    }
}

/// 1D Laplacian tridiag(1, −2, 1)·(n+1)², ‖A‖ ≈ 4(n+1)².
fn laplace(n: usize) -> CsrMatrix<f64, u32> {
    let h2 = ((n + 1) * (n + 1)) as f64;
    let mut e = Vec::new();
    for i in 0..n {
        e.push((i, i, -2.0 * h2));
        if i + 1 < n {
            e.push((i, i + 1, h2));
            e.push((i + 1, i, h2));
        }
    }
    CsrMatrix::from_triplets(n, n, &e).unwrap()
}

/// Upwind advection–diffusion: ν·tridiag(1, −2, 1)·(n+1)² − c·(n+1)·(I − shift), nonnormal.
fn advection(n: usize) -> CsrMatrix<f64, u32> {
    let h = (n + 1) as f64;
    let (nu, c) = (0.01, 1.0);
    let mut e = Vec::new();
    for i in 0..n {
        e.push((i, i, -2.0 * nu * h * h - c * h));
        if i + 1 < n {
            e.push((i, i + 1, nu * h * h));
            e.push((i + 1, i, nu * h * h + c * h));
        }
    }
    CsrMatrix::from_triplets(n, n, &e).unwrap()
}

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| 1.0 + ((i * 7) % 11) as f64 / 11.0).collect()
}

fn lanczos(rtol: f64, cap: usize, progress: Option<ProgressFn>) -> LanczosOptions {
    LanczosOptions {
        max_dim: 3000,
        max_products: cap,
        progress,
        ..LanczosOptions::default().with_rtol(rtol)
    }
}

fn arnoldi(rtol: f64, cap: usize, progress: Option<ProgressFn>) -> ArnoldiOptions {
    ArnoldiOptions {
        max_products: cap,
        progress,
        ..ArnoldiOptions::default().with_rtol(rtol)
    }
}

fn taylor(rtol: f64, cap: usize, progress: Option<ProgressFn>) -> TaylorOptions {
    TaylorOptions {
        max_products: cap,
        progress,
        ..TaylorOptions::default().with_rtol(rtol)
    }
}

fn expect_cap(r: Result<Report>, when: &str) {
    match r {
        Err(Error::NoConvergence { detail, .. }) => {
            assert!(
                detail.contains("max_products") && detail.contains(when),
                "{detail}"
            );
        }
        other => panic!("expected the cost cap, got {other:?}"),
    }
}

/// The documented ranges of products/estimate: Lanczos 0.5…3 (Hochbruck–Lubich dimension,
/// checks every ~10 %), Taylor 0.3…1 (s·m* is an upper bound; 0.2…1 on the nonnormal
/// advection at tight tolerances, where the rounding guard's extra steps end their series
/// early), Arnoldi on a nonnormal
/// operator 0.3…2; on a dissipative Hermitian one its estimate only errs high (≥ 1/2).
#[test]
fn cost_estimates_are_within_their_documented_factors() {
    let cpu = CpuBackend::new();
    let lap = Counting::new(laplace(2000));
    let adv = Counting::new(advection(400));
    let (vl, va) = (start(2000), start(400));
    let (mut wl, mut wa) = (vec![0.0; 2000], vec![0.0; 400]);
    let ratio = |r: &Report, counted: usize| {
        assert_eq!(r.matvecs, counted, "{r}");
        assert!(r.cost_estimate > 0, "{r}");
        let q = r.matvecs as f64 / r.cost_estimate as f64;
        println!(
            "{}: {} products, estimated {}: {q:.2}",
            r.method, r.matvecs, r.cost_estimate
        );
        q
    };
    for rtol in [1e-6, 1e-10] {
        for t in [1e-6, 1e-5, 1e-4, 1e-3] {
            let mut lz = Lanczos::new(&cpu, lanczos(rtol, usize::MAX, None)).unwrap();
            let r = lz.expmv(&lap, t, &vl, &mut wl).unwrap();
            let q = ratio(&r, lap.take());
            assert!(
                (0.5..=3.0).contains(&q),
                "lanczos t = {t}, rtol {rtol}: {q}"
            );
            let mut tay = Taylor::new(&cpu, taylor(rtol, usize::MAX, None)).unwrap();
            let r = tay.expmv(&lap, t, &vl, &mut wl).unwrap();
            let q = ratio(&r, lap.take());
            assert!((0.3..=1.0).contains(&q), "taylor t = {t}, rtol {rtol}: {q}");
            let mut arn = Arnoldi::new(&cpu, arnoldi(rtol, usize::MAX, None)).unwrap();
            let r = arn.expmv(&lap, t, &vl, &mut wl).unwrap();
            let q = ratio(&r, lap.take());
            assert!(q <= 2.0, "arnoldi (Hermitian) t = {t}, rtol {rtol}: {q}");
        }
        for t in [1e-4, 1e-3, 1e-2, 0.1, 1.0] {
            let mut arn = Arnoldi::new(&cpu, arnoldi(rtol, usize::MAX, None)).unwrap();
            let r = arn.expmv(&adv, t, &va, &mut wa).unwrap();
            let q = ratio(&r, adv.take());
            assert!(
                (0.2..=2.0).contains(&q),
                "arnoldi t = {t}, rtol {rtol}: {q}"
            );
            let mut tay = Taylor::new(&cpu, taylor(rtol, usize::MAX, None)).unwrap();
            let r = tay.expmv(&adv, t, &va, &mut wa).unwrap();
            let q = ratio(&r, adv.take());
            assert!((0.2..=1.0).contains(&q), "taylor t = {t}, rtol {rtol}: {q}");
        }
    }
}

/// t‖A‖ ≈ 1.6e7 (Lanczos, Taylor) and 1.7e5 (Arnoldi, nonnormal) under a cap of 50
/// products: refused before the work, with products counted by the operator.
#[test]
fn a_small_cap_refuses_a_large_problem_before_the_work() {
    let cpu = CpuBackend::new();
    let lap = Counting::new(laplace(2000));
    let adv = Counting::new(advection(400));
    let (vl, va) = (start(2000), start(400));
    let (mut wl, mut wa) = (vec![0.0; 2000], vec![0.0; 400]);
    let mut lz = Lanczos::new(&cpu, lanczos(1e-8, 50, None)).unwrap();
    expect_cap(lz.expmv(&lap, 1.0, &vl, &mut wl), "refused");
    assert_eq!(
        lap.take(),
        0,
        "lanczos knows the spectrum before the first product"
    );
    let mut tay = Taylor::new(&cpu, taylor(1e-8, 50, None)).unwrap();
    expect_cap(
        tay.expmv(&lap, 1.0, &vl, &mut wl),
        "refused before the first product",
    );
    // Before the first series product: only the few products that find the (Gershgorin)
    // interval of the CSR matrix nearly tight (a Lanczos estimate, stopped once its Ritz
    // interval covers half of it).
    assert!(lap.take() <= 3);
    let mut arn = Arnoldi::new(&cpu, arnoldi(1e-8, 50, None)).unwrap();
    expect_cap(
        arn.expmv(&adv, 1000.0, &va, &mut wa),
        "refused after the first Krylov basis",
    );
    assert!(
        adv.take() <= 31,
        "one basis of dimension 30 and its extra product"
    );
    // Without spectral information, Lanczos refuses at its first check.
    let blind = Counting::uninformed(laplace(2000));
    let mut lz = Lanczos::new(&cpu, lanczos(1e-8, 50, None)).unwrap();
    expect_cap(lz.expmv(&blind, 1.0, &vl, &mut wl), "refused");
    assert!(blind.take() <= 4);
}

/// A cap between the estimate's half and the work stops the call where it reaches the cap,
/// with no more products than the cap; a cap above the work changes nothing.
#[test]
fn a_cap_reached_on_the_way_stops_with_the_typed_error() {
    let cpu = CpuBackend::new();
    let lap = Counting::new(laplace(2000));
    let v = start(2000);
    let (mut w, mut w2) = (vec![0.0; 2000], vec![0.0; 2000]);
    let t = 1e-4;
    // Arnoldi on a dissipative Hermitian operator: no refusal, the cap acts on the way.
    let mut arn = Arnoldi::new(&cpu, arnoldi(1e-8, usize::MAX, None)).unwrap();
    let full = arn.expmv(&lap, t, &v, &mut w).unwrap();
    lap.take();
    let cap = full.matvecs / 2;
    let mut capped = Arnoldi::new(&cpu, arnoldi(1e-8, cap, None)).unwrap();
    expect_cap(capped.expmv(&lap, t, &v, &mut w2), "reached");
    assert!(lap.take() <= cap);
    let mut roomy = Arnoldi::new(&cpu, arnoldi(1e-8, full.matvecs, None)).unwrap();
    assert_eq!(
        roomy.expmv(&lap, t, &v, &mut w2).unwrap().matvecs,
        full.matvecs
    );
    assert_eq!(w, w2);
    lap.take();
    // Lanczos: the estimate is within 2× of the work here, so a cap of 3/4 of the work
    // passes the up-front check and stops at the cap.
    let mut lz = Lanczos::new(&cpu, lanczos(1e-8, usize::MAX, None)).unwrap();
    let full = lz.expmv(&lap, t, &v, &mut w).unwrap();
    lap.take();
    let cap = full.matvecs * 3 / 4;
    assert!(full.cost_estimate / 2 <= cap, "{full}");
    let mut capped = Lanczos::new(&cpu, lanczos(1e-8, cap, None)).unwrap();
    expect_cap(capped.expmv(&lap, t, &v, &mut w2), "reached");
    assert!(lap.take() <= cap);
    let mut roomy = Lanczos::new(&cpu, lanczos(1e-8, full.matvecs, None)).unwrap();
    assert_eq!(
        roomy.expmv(&lap, t, &v, &mut w2).unwrap().matvecs,
        full.matvecs
    );
    assert_eq!(w, w2);
    lap.take();
    // Taylor: its estimate bounds the work from above.
    let mut tay = Taylor::new(&cpu, taylor(1e-8, usize::MAX, None)).unwrap();
    let full = tay.expmv(&lap, t, &v, &mut w).unwrap();
    lap.take();
    let cap = full.matvecs * 3 / 4;
    assert!(full.cost_estimate / 2 <= cap, "{full}");
    let mut capped = Taylor::new(&cpu, taylor(1e-8, cap, None)).unwrap();
    expect_cap(capped.expmv(&lap, t, &v, &mut w2), "reached");
    assert!(
        lap.take() <= cap + 55,
        "at most one step of degree ≤ 55 past the cap"
    );
    let mut roomy = Taylor::new(&cpu, taylor(1e-8, full.matvecs, None)).unwrap();
    assert_eq!(
        roomy.expmv(&lap, t, &v, &mut w2).unwrap().matvecs,
        full.matvecs
    );
    assert_eq!(w, w2);
}

static SEEN_LANCZOS: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
static SEEN_ARNOLDI: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
static SEEN_TAYLOR: Mutex<Vec<Progress>> = Mutex::new(Vec::new());

fn record_lanczos(p: &Progress) {
    SEEN_LANCZOS.lock().unwrap().push(*p);
}
fn record_arnoldi(p: &Progress) {
    SEEN_ARNOLDI.lock().unwrap().push(*p);
}
fn record_taylor(p: &Progress) {
    SEEN_TAYLOR.lock().unwrap().push(*p);
}

fn check_progress(seen: &[Progress], r: &Report, strictly_in_time: bool) {
    assert!(seen.len() >= 2, "{} calls for {r}", seen.len());
    for pair in seen.windows(2) {
        assert!(pair[0].products < pair[1].products, "{pair:?}");
        assert!(pair[0].fraction <= pair[1].fraction, "{pair:?}");
        if strictly_in_time {
            assert!(pair[0].fraction < pair[1].fraction, "{pair:?}");
        }
    }
    let last = seen.last().unwrap();
    assert_eq!(last.fraction, 1.0);
    assert_eq!(last.products, r.matvecs);
    assert!(seen.iter().all(|p| p.estimated_products == r.cost_estimate));
}

#[test]
fn progress_sees_monotone_products_and_times_reaching_t() {
    let cpu = CpuBackend::new();
    let a = laplace(500);
    let v = start(500);
    let mut w = vec![0.0; 500];
    let t = 1e-3;
    let mut lz = Lanczos::new(
        &cpu,
        lanczos(1e-8, usize::MAX, Some(ProgressFn(record_lanczos))),
    )
    .unwrap();
    let r = lz.expmv(&a, t, &v, &mut w).unwrap();
    check_progress(&SEEN_LANCZOS.lock().unwrap(), &r, false);
    let mut arn = Arnoldi::new(
        &cpu,
        arnoldi(1e-8, usize::MAX, Some(ProgressFn(record_arnoldi))),
    )
    .unwrap();
    let r = arn.expmv(&a, t, &v, &mut w).unwrap();
    let seen = SEEN_ARNOLDI.lock().unwrap().clone();
    assert_eq!(seen.len(), r.substeps);
    check_progress(&seen, &r, true);
    let mut tay = Taylor::new(
        &cpu,
        taylor(1e-8, usize::MAX, Some(ProgressFn(record_taylor))),
    )
    .unwrap();
    let r = tay.expmv(&a, t, &v, &mut w).unwrap();
    let seen = SEEN_TAYLOR.lock().unwrap().clone();
    assert_eq!(seen.len(), r.substeps);
    check_progress(&seen, &r, true);
}
