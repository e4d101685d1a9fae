//! Long runs announce themselves: Leja's up-front cost estimate, the progress callback and
//! the cost cap `max_products` (a typed error, before the first product when the estimate
//! is far beyond the cap).

use matexp_core::{CpuBackend, Error, SpectralBounds};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions, Progress, ProgressFn};
use matexp_sparse::CsrMatrix;
use std::sync::Mutex;

/// 1D Laplacian tridiag(1, −2, 1)·(n+1)² with its exact spectral interval.
fn laplace(n: usize) -> (CsrMatrix<f64, u32>, SpectralBounds) {
    let h2 = ((n + 1) * (n + 1)) as f64;
    let mut e = Vec::new();
    for i in 0..n {
        e.push((i, i, -2.0 * h2));
        if i + 1 < n {
            e.push((i, i + 1, h2));
            e.push((i + 1, i, h2));
        }
    }
    let pi = std::f64::consts::PI;
    let s = |j: f64| -4.0 * h2 * (j * pi / (2.0 * (n + 1) as f64)).sin().powi(2);
    let bounds = SpectralBounds::real(s(n as f64), s(1.0)).unwrap();
    (CsrMatrix::from_triplets(n, n, &e).unwrap(), bounds)
}

fn opts(bounds: SpectralBounds) -> LejaOptions {
    LejaOptions {
        bounds: Some(bounds),
        ..LejaOptions::default().with_rtol(1e-8)
    }
}

#[test]
fn cost_estimate_is_made_up_front_and_matches_the_work() {
    let cpu = CpuBackend::new();
    let (a, b) = laplace(100);
    let v = vec![1.0; 100];
    let mut w = vec![0.0; 100];
    for t in [1e-4, 1e-2, 0.1] {
        let mut leja = Leja::new(&cpu, opts(b)).unwrap();
        let r = leja.expmv(&a, t, &v, &mut w).unwrap();
        assert!(r.cost_estimate > 0, "{r}");
        let ratio = r.matvecs as f64 / r.cost_estimate as f64;
        assert!(
            (0.25..=2.0).contains(&ratio),
            "t = {t}: {} products vs {} estimated",
            r.matvecs,
            r.cost_estimate
        );
    }
}

#[test]
fn cost_cap_refuses_up_front_and_stops_on_the_way() {
    let cpu = CpuBackend::new();
    let (a, b) = laplace(100);
    let v = vec![1.0; 100];
    let mut w = vec![0.0; 100];
    let mut leja = Leja::new(&cpu, opts(b)).unwrap();
    let full = leja.expmv(&a, 1.0, &v, &mut w).unwrap();
    assert!(full.substeps > 2, "{full}");
    // Far below the estimate: refused before any product.
    let cap = full.cost_estimate / 10;
    let mut capped = Leja::new(
        &cpu,
        LejaOptions {
            max_products: cap,
            ..opts(b)
        },
    )
    .unwrap();
    match capped.expmv(&a, 1.0, &v, &mut w) {
        Err(Error::NoConvergence { detail, .. }) => {
            assert!(
                detail.contains("max_products") && detail.contains("before the first product"),
                "{detail}"
            );
        }
        other => panic!("expected the cost cap, got {other:?}"),
    }
    // Within a factor 2 of the estimate but below the work: stops after the substep that
    // reaches the cap.
    let cap = (full.matvecs * 3 / 4).max(full.cost_estimate / 2 + 1);
    assert!(cap < full.matvecs, "cap {cap} vs {full}");
    let mut capped = Leja::new(
        &cpu,
        LejaOptions {
            max_products: cap,
            ..opts(b)
        },
    )
    .unwrap();
    match capped.expmv(&a, 1.0, &v, &mut w) {
        Err(Error::NoConvergence { detail, .. }) => {
            assert!(
                detail.contains("max_products") && detail.contains("reached at t"),
                "{detail}"
            );
        }
        other => panic!("expected the cost cap, got {other:?}"),
    }
    // A cap above the work changes nothing.
    let mut roomy = Leja::new(
        &cpu,
        LejaOptions {
            max_products: full.matvecs + 1,
            ..opts(b)
        },
    )
    .unwrap();
    let mut w2 = vec![0.0; 100];
    let r = roomy.expmv(&a, 1.0, &v, &mut w2).unwrap();
    assert_eq!(r.matvecs, full.matvecs);
    assert_eq!(w, w2);
}

static SEEN: Mutex<Vec<Progress>> = Mutex::new(Vec::new());

fn record(p: &Progress) {
    SEEN.lock().unwrap().push(*p);
}

#[test]
fn progress_reports_every_substep_in_order() {
    let cpu = CpuBackend::new();
    let (a, b) = laplace(100);
    let v = vec![1.0; 100];
    let mut w = vec![0.0; 100];
    let mut leja = Leja::new(
        &cpu,
        LejaOptions {
            progress: Some(ProgressFn(record)),
            ..opts(b)
        },
    )
    .unwrap();
    let r = leja.expmv(&a, 1.0, &v, &mut w).unwrap();
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(seen.len(), r.substeps);
    for pair in seen.windows(2) {
        assert!(pair[0].products < pair[1].products && pair[0].fraction < pair[1].fraction);
    }
    let last = seen.last().unwrap();
    assert_eq!(last.fraction, 1.0);
    assert_eq!(last.products, r.matvecs);
    assert_eq!(last.estimated_products, r.cost_estimate);
}

/// The up-front estimate computes no divided differences of its own: it takes the model
/// degree from the first substep's coefficient set, made through the workspace cache with
/// the very `τ` the march uses, so a call whose substeps share one `τ` leaves exactly one set
/// (a plan forming `τ` as `(t·1)/s` instead of `t·(1/s)` would leave two where they differ).
#[test]
fn the_estimate_shares_the_coefficients_of_the_march() {
    let cpu = CpuBackend::new();
    let (a, b) = laplace(100);
    let v = vec![1.0; 100];
    let mut w = vec![0.0; 100];
    let mut rounding_differs = 0;
    for t in [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.13, 0.3, 0.7] {
        let mut leja = Leja::new(&cpu, opts(b)).unwrap();
        let r = leja.expmv(&a, t, &v, &mut w).unwrap();
        assert_eq!(r.rejected, 0, "t = {t}: {r}");
        assert!(r.cost_estimate > 0, "t = {t}: {r}");
        assert_eq!(
            leja.workspace().cached_coefficient_sets(),
            1,
            "t = {t}: {r}"
        );
        let s = r.substeps as f64;
        if t * (1.0 / s) != t / s {
            rounding_differs += 1;
        }
    }
    assert!(
        rounding_differs > 0,
        "no case tells the two forms of τ apart"
    );
}

/// Diffusion needs `O(√ρ)` Leja points for a substep of radius `ρ`, so fewer, longer
/// substeps cost fewer products: at `|t|·capacity ≈ 2000` (seed 000's Table 12 radius) on a
/// large 1D Laplacian the default plan (`diffusion_max_degree` 512) takes one long substep
/// where the 128-point cap alone takes about a dozen, at well under half the products, and
/// both meet the tolerance against the exact sine-mode solution.
#[test]
fn long_substeps_for_diffusion_cost_fewer_products() {
    let cpu = CpuBackend::new();
    let n = 1usize << 17;
    let (a, b) = laplace(n);
    let pi = std::f64::consts::PI;
    let h = 1.0 / (n + 1) as f64;
    let mode = |k: usize, i: usize| (k as f64 * pi * (i + 1) as f64 * h).sin();
    let lambda =
        |k: usize| -4.0 * ((n + 1) * (n + 1)) as f64 * (k as f64 * pi * h / 2.0).sin().powi(2);
    let modes = [1usize, 3, 40];
    let t = 2000.0 * 4.0 / (b.re_max - b.re_min);
    let v: Vec<f64> = (0..n)
        .map(|i| modes.iter().map(|&k| mode(k, i)).sum())
        .collect();
    let exact: Vec<f64> = (0..n)
        .map(|i| {
            modes
                .iter()
                .map(|&k| (t * lambda(k)).exp() * mode(k, i))
                .sum()
        })
        .collect();
    let enorm = exact.iter().map(|x| x * x).sum::<f64>().sqrt();
    let rtol = 1e-6;
    let run = |diffusion_max_degree: usize| {
        let o = LejaOptions {
            bounds: Some(b),
            diffusion_max_degree,
            ..LejaOptions::default().with_rtol(rtol)
        };
        let mut w = vec![0.0; n];
        let r = Leja::new(&cpu, o)
            .unwrap()
            .expmv(&a, t, &v, &mut w)
            .unwrap();
        let err = w
            .iter()
            .zip(&exact)
            .map(|(x, y)| (x - y) * (x - y))
            .sum::<f64>()
            .sqrt()
            / enorm;
        assert!(
            r.converged && err <= rtol,
            "cap {diffusion_max_degree}: error {err:.2e}, {r}"
        );
        (r, w)
    };
    let (long, w1) = run(512);
    // A fresh solver takes the long coefficient set from the process-wide cache: the same bits.
    let (again, w2) = run(512);
    assert_eq!(again.matvecs, long.matvecs);
    assert!(w1 == w2, "a cached coefficient set changed the result");
    let (short, _) = run(128);
    assert!(long.max_degree > 128, "no long substep: {long}");
    assert!(
        2 * long.matvecs < short.matvecs,
        "long substeps {} products against {} with 128 points",
        long.matvecs,
        short.matvecs
    );
}
