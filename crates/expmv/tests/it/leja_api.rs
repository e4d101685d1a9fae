//! The conveniences of the Leja solver: several times, blocks of vectors, workspace reuse,
//! reports, the thesis's fixed-substep method, bounds from every source, and e^{−itH}.

use crate::leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, LinearOperator, Result, SpectralBounds, c64};
use matexp_expmv::leja::BoundsSource;
use matexp_expmv::{ExpmvMethod, Leja, LejaMethod, LejaOptions, LejaWorkspace, Tolerance};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_1d, laplacian_2d};

/// An operator that hides its spectral bounds (as a matrix-free operator would).
struct Hidden<'a, S: matexp_core::Scalar>(&'a CsrMatrix<S, u32>);

impl<S: matexp_core::Scalar> LinearOperator<CpuBackend, S> for Hidden<'_, S> {
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(&self, be: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        LinearOperator::<CpuBackend, S>::apply(self.0, be, alpha, x, beta, y)
    }
    fn is_hermitian(&self) -> bool {
        self.0.is_hermitian()
    }
}

#[test]
fn several_times_reuse_the_march_and_match_single_calls() {
    let cpu = CpuBackend::new();
    let a = laplacian_1d::<f64, u32>(64).unwrap();
    let n = 64;
    let dense = a.to_dense().unwrap();
    let v = random_vector::<f64>(n, 5);
    let times = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05];
    let opts = LejaOptions::default().with_rtol(1e-10);
    let mut leja = Leja::new(&cpu, opts).unwrap();
    let mut out = vec![vec![0.0; n]; times.len()];
    let together = leja.expmv_times(&a, &times, &v, &mut out).unwrap();
    let mut separate = 0;
    for (i, &t) in times.iter().enumerate() {
        let exact = dense_expmv(&dense, n, t, &v);
        let err = if t == 0.0 {
            rel_err(&out[i], &v)
        } else {
            rel_err(&out[i], &exact)
        };
        assert!(err <= 1e-9, "t = {t}: error {err:.2e}");
        let mut w = vec![0.0; n];
        separate += leja.expmv(&a, t, &v, &mut w).unwrap().matvecs;
    }
    assert_eq!(out[0], v, "t = 0 returns v itself");
    assert!(
        together.matvecs < separate,
        "marching through the times ({}) must be cheaper than separate calls ({separate})",
        together.matvecs
    );
    // Times in any order come back in the caller's order; negative times run backwards.
    let mut scaled = vec![vec![0.0; n]; 3];
    leja.expmv_times(&a, &[0.05, -0.01, 0.02], &v, &mut scaled)
        .unwrap();
    assert!(rel_err(&scaled[0], &out[5]) <= 1e-9 && rel_err(&scaled[2], &out[2]) <= 1e-9);
    let back = dense_expmv(&dense, n, -0.01, &v);
    assert!(rel_err(&scaled[1], &back) <= 1e-9);
}

#[test]
fn block_of_vectors_matches_one_by_one() {
    let cpu = CpuBackend::new();
    let a = laplacian_2d::<f64, u32>(12).unwrap();
    let n = a.nrows();
    let vs: Vec<Vec<f64>> = (0..3).map(|j| random_vector(n, 60 + j)).collect();
    let mut ws = vec![vec![0.0; n]; 3];
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-8)).unwrap();
    let block = leja.expmv_block(&a, 0.01, &vs, &mut ws).unwrap();
    let mut sum = 0;
    for (v, w) in vs.iter().zip(&ws) {
        let mut single = vec![0.0; n];
        let r = leja.expmv(&a, 0.01, v, &mut single).unwrap();
        sum += r.matvecs - r.estimate_matvecs;
        assert_eq!(&single, w, "identical arithmetic one by one");
    }
    // The block measures the (Gershgorin) box once; the single calls reuse that measurement.
    assert_eq!(block.matvecs - block.estimate_matvecs, sum);
    assert_eq!(block.degrees.len(), block.substeps);
}

#[test]
fn time_stepping_reuses_workspace_and_coefficients() {
    let cpu = CpuBackend::new();
    let a = laplacian_1d::<f64, u32>(50).unwrap();
    let n = 50;
    let v = random_vector::<f64>(n, 9);
    let h = 2e-3;
    let mut leja = Leja::with_workspace(
        &cpu,
        LejaWorkspace::new(),
        LejaOptions::default().with_rtol(1e-10),
    )
    .unwrap();
    let (mut u, mut next) = (v.clone(), vec![0.0; n]);
    for _ in 0..20 {
        let r = leja.expmv(&a, h, &u, &mut next).unwrap();
        assert!(r.converged);
        std::mem::swap(&mut u, &mut next);
    }
    assert_eq!(leja.workspace().cached_coefficient_sets(), 1);
    let exact = dense_expmv(&a.to_dense().unwrap(), n, 20.0 * h, &v);
    assert!(rel_err(&u, &exact) <= 2e-9);
    // The workspace moves to another solver with other options and keeps its cache.
    let ws = leja.into_workspace();
    let leja2 = Leja::with_workspace(&cpu, ws, LejaOptions::default().with_rtol(1e-6)).unwrap();
    assert_eq!(leja2.workspace().order(), n);
    assert_eq!(leja2.workspace().cached_coefficient_sets(), 1);
}

#[test]
fn report_is_consistent() {
    let cpu = CpuBackend::new();
    let a = laplacian_1d::<f64, u32>(100).unwrap();
    let v = random_vector::<f64>(100, 1);
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-8)).unwrap();
    let mut w = vec![0.0; 100];
    let r = leja.expmv(&a, 1.0, &v, &mut w).unwrap();
    assert_eq!(r.method, "leja");
    assert!(r.converged && r.substeps > 1);
    assert_eq!(r.degrees.len(), r.substeps);
    assert_eq!(r.max_degree, *r.degrees.iter().max().unwrap());
    assert!(r.matvecs >= r.degrees.iter().sum::<usize>());
    // Estimates are summed over substeps, each relative to the state it started from.
    assert!(r.error_estimate > 0.0 && r.error_estimate < 1e-8 * norm2(&v) * r.substeps as f64);
    let exact = dense_expmv(&a.to_dense().unwrap(), 100, 1.0, &v);
    assert!(rel_err(&w, &exact) <= 1e-7);
    let (b, src) = r.bounds.unwrap();
    assert_eq!(src, BoundsSource::Operator);
    assert_eq!((b.re_min, b.re_max), (-4.0 * 101.0 * 101.0, 0.0));
    let s = r.summary();
    assert_eq!(
        (s.matvecs, s.max_degree, s.method),
        (r.matvecs, r.max_degree, "leja")
    );
}

#[test]
fn bounds_from_options_estimates_and_operators_agree() {
    let cpu = CpuBackend::new();
    let a = laplacian_1d::<f64, u32>(60).unwrap();
    let n = 60;
    let v = random_vector::<f64>(n, 3);
    let exact = dense_expmv(&a.to_dense().unwrap(), n, 0.02, &v);
    // Lanczos estimate (Hermitian, no bounds from the operator).
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-9)).unwrap();
    let mut w = vec![0.0; n];
    let r = leja.expmv(&Hidden(&a), 0.02, &v, &mut w).unwrap();
    assert_eq!(r.bounds.unwrap().1, BoundsSource::Lanczos);
    assert!(r.estimate_matvecs > 0 && r.estimate_matvecs <= 40);
    assert!(rel_err(&w, &exact) <= 1e-8);
    // Exact analytic bounds given in the options.
    let lo = -4.0 * 61.0f64.powi(2) * (60.0 * std::f64::consts::PI / 122.0).sin().powi(2);
    let hi = -4.0 * 61.0f64.powi(2) * (std::f64::consts::PI / 122.0).sin().powi(2);
    let opts = LejaOptions {
        bounds: Some(SpectralBounds::real(lo, hi).unwrap()),
        ..LejaOptions::default().with_rtol(1e-9)
    };
    let mut leja = Leja::new(&cpu, opts).unwrap();
    let r2 = leja.expmv(&Hidden(&a), 0.02, &v, &mut w).unwrap();
    assert_eq!(r2.bounds.unwrap().1, BoundsSource::Options);
    assert_eq!(r2.estimate_matvecs, 0);
    assert!(rel_err(&w, &exact) <= 1e-8);
    // A non-symmetric operator without bounds: power-iteration box.
    let ad = advection_diffusion_1d(n, 5.0);
    let adm = CsrMatrix::<f64, u32>::from_dense(n, n, &ad).unwrap();
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-9)).unwrap();
    let r3 = leja.expmv(&Hidden(&adm), 1e-3, &v, &mut w).unwrap();
    assert_eq!(r3.bounds.unwrap().1, BoundsSource::Power);
    assert!(rel_err(&w, &dense_expmv(&ad, n, 1e-3, &v)) <= 1e-8);
}

#[test]
fn schrodinger_is_expmv_at_minus_i_t_and_unitary() {
    let cpu = CpuBackend::new();
    let model = SpinBath::seed000(8, 4).unwrap();
    let h = model.hamiltonian::<c64, u32>(StoredZeros::Drop).unwrap();
    let n = h.nrows();
    let psi = model.initial_state::<c64>(1).unwrap();
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-11)).unwrap();
    let (mut a, mut b, mut back) = (
        vec![c64::new(0.0, 0.0); n],
        vec![c64::new(0.0, 0.0); n],
        vec![c64::new(0.0, 0.0); n],
    );
    let ra = leja.schrodinger(&h, 3.0, &psi, &mut a).unwrap();
    leja.expmv(&h, c64::new(0.0, -3.0), &psi, &mut b).unwrap();
    assert_eq!(a, b);
    assert!(
        (norm2(&a) - 1.0).abs() <= 1e-10,
        "unitary: ‖ψ(t)‖ = {}",
        norm2(&a)
    );
    // Backward evolution undoes it.
    leja.schrodinger(&h, -3.0, &a, &mut back).unwrap();
    assert!(rel_err(&back, &psi) <= 1e-10);
    // The focal interval is H's real Gershgorin interval.
    let (bd, src) = ra.bounds.unwrap();
    assert_eq!(src, BoundsSource::Operator);
    assert!(bd.is_real());
    // Several times: ψ at t = 1, 2, 3 from one march.
    let mut out = vec![vec![c64::new(0.0, 0.0); n]; 3];
    leja.schrodinger_times(&h, &[1.0, 2.0, 3.0], &psi, &mut out)
        .unwrap();
    assert!(rel_err(&out[2], &a) <= 1e-10);
}

#[test]
fn seed_fixed_method_reproduces_algorithm_10() {
    // Small substeps (|h|γ ≈ 0.5 per substep), where the plain recurrence is accurate: the
    // thesis's method then meets its absolute test |d_m|·‖y_m‖ < tol for unit v.
    let cpu = CpuBackend::new();
    let a = laplacian_1d::<f64, u32>(30).unwrap();
    let n = 30;
    let mut v = random_vector::<f64>(n, 8);
    let nv = norm2(&v);
    v.iter_mut().for_each(|x| *x /= nv);
    let t = 0.01;
    let exact = dense_expmv(&a.to_dense().unwrap(), n, t, &v);
    let gamma = 4.0 * 31.0 * 31.0 / 4.0;
    let substeps = (t * gamma / 0.5).ceil() as usize;
    let opts = LejaOptions::seed_fixed(substeps, 1e-10);
    assert_eq!(opts.method, LejaMethod::SeedFixed { substeps });
    let mut leja = Leja::new(&cpu, opts).unwrap();
    let mut w = vec![0.0; n];
    let r = leja.expmv(&a, t, &v, &mut w).unwrap();
    assert_eq!(r.method, "leja-seed");
    assert_eq!(r.substeps, substeps);
    // A reproduction: it never claims the tolerance (see `LejaMethod::SeedFixed`).
    assert!(!r.converged);
    let abs_err = rel_err(&w, &exact) * norm2(&exact);
    assert!(
        abs_err <= 10.0 * 1e-10 * substeps as f64,
        "absolute error {abs_err:.2e}"
    );
}

#[test]
fn imaginary_focal_interval_of_h_beats_the_generators_box() {
    // e^{−itH}ψ three ways: the imaginary focal interval −it·[λ_min, λ_max] from H's real
    // Gershgorin interval; expmv of the generator G = −iH itself, which the CSR matrix finds
    // skew-Hermitian (its Gershgorin box is then the imaginary segment); and G with its full
    // Gershgorin box (real half-width = the off-diagonal row sums) given as options, which
    // makes the focal segment an ellipse's. Same results; the last needs far more products
    // (measured ≈ 2.6× at L = 10).
    let cpu = CpuBackend::new();
    let model = SpinBath::seed000(9, 2011).unwrap();
    let h = model.hamiltonian::<c64, u32>(StoredZeros::Keep).unwrap();
    let g = h.map_values(|z| z * c64::new(0.0, -1.0)).unwrap();
    let n = h.nrows();
    let psi = model.initial_state::<c64>(1).unwrap();
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-8)).unwrap();
    let (mut a, mut b) = (vec![c64::new(0.0, 0.0); n], vec![c64::new(0.0, 0.0); n]);
    let ri = leja.schrodinger(&h, 20.0, &psi, &mut a).unwrap();
    let rg = leja.expmv(&g, c64::new(20.0, 0.0), &psi, &mut b).unwrap();
    assert!(rel_err(&a, &b) <= 1e-7);
    let gb = LinearOperator::<CpuBackend, c64>::spectral_bounds(&g).unwrap();
    assert_eq!((gb.re_min, gb.re_max), (0.0, 0.0), "{gb:?}");
    assert!(
        rg.matvecs <= ri.matvecs + ri.matvecs / 10,
        "imaginary interval {} products, skew-Hermitian generator {}",
        ri.matvecs,
        rg.matvecs
    );
    let hb = LinearOperator::<CpuBackend, c64>::spectral_bounds(&h).unwrap();
    let r = (0..n)
        .map(|i| {
            let (cols, vals) = h.row(i);
            cols.iter()
                .zip(vals)
                .filter(|(j, _)| **j as usize != i)
                .map(|(_, v)| v.norm())
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    let boxed = SpectralBounds::new(-r, r, -hb.re_max, -hb.re_min).unwrap();
    let mut old = Leja::new(
        &cpu,
        LejaOptions {
            bounds: Some(boxed),
            ..LejaOptions::default().with_rtol(1e-8)
        },
    )
    .unwrap();
    let mut c = vec![c64::new(0.0, 0.0); n];
    let rb = old.expmv(&g, c64::new(20.0, 0.0), &psi, &mut c).unwrap();
    assert!(rel_err(&a, &c) <= 1e-7);
    assert!(
        2 * ri.matvecs < rb.matvecs,
        "imaginary interval {} products, generator's Gershgorin box {}",
        ri.matvecs,
        rb.matvecs
    );
}

#[test]
fn single_precision_complex_schrodinger_follows_double() {
    let cpu = CpuBackend::new();
    let model = SpinBath::seed000(8, 5).unwrap();
    let h64 = model.hamiltonian::<c64, u32>(StoredZeros::Drop).unwrap();
    let h32 = model
        .hamiltonian::<matexp_core::c32, u32>(StoredZeros::Drop)
        .unwrap();
    let n = h64.nrows();
    let psi64 = model.initial_state::<c64>(3).unwrap();
    let psi32: Vec<matexp_core::c32> = psi64
        .iter()
        .map(|z| matexp_core::c32::new(z.re as f32, z.im as f32))
        .collect();
    let mut w64 = vec![c64::new(0.0, 0.0); n];
    let mut w32 = vec![matexp_core::c32::new(0.0, 0.0); n];
    Leja::new(&cpu, LejaOptions::default().with_rtol(1e-12))
        .unwrap()
        .schrodinger(&h64, 10.0, &psi64, &mut w64)
        .unwrap();
    // The default rtol of c32, 1e-3: a report is never below its rounding floor
    // ROUNDING_FACTOR·ε·(1 + products) ≈ 7.6e-6·(1 + products) in single precision, so 1e-5
    // could not be certified after a single product.
    let rtol = Tolerance::default_rtol::<matexp_core::c32>();
    assert_eq!(rtol, 1e-3);
    let r = Leja::new(&cpu, LejaOptions::default())
        .unwrap()
        .schrodinger(&h32, 10.0, &psi32, &mut w32)
        .unwrap();
    assert!(r.converged && r.rel_error_estimate <= rtol, "{r}");
    let widened: Vec<c64> = w32
        .iter()
        .map(|z| c64::new(z.re as f64, z.im as f64))
        .collect();
    let err = rel_err(&widened, &w64);
    // Within the tolerance it certified (κ = 1: unitary, the rounding does not grow).
    assert!(
        err <= rtol,
        "c32 vs c64: {err:.2e} ({} products)",
        r.matvecs
    );
}
