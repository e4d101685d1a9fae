//! Spectral information that is right: loose operator boxes (Gershgorin) are narrowed by a
//! short Lanczos or power estimate, real skew-symmetric operators are interpolated on the
//! imaginary axis at conjugate Leja points in real arithmetic, and every report shows the
//! interval used. References are analytic eigendecompositions, independent of the code
//! under test. "Before" is the same operator wrapped in [`Trusted`], which declares its
//! (Gershgorin) box tight, so that it is used as given — what every box was before.

use matexp_core::{CpuBackend, DenseMatrixOperator, LinearOperator, Result, SpectralBounds, c64};
use matexp_expmv::{
    BoundsSource, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Report, Taylor,
    TaylorOptions, Tolerance,
};
use matexp_sparse::CsrMatrix;

/// SplitMix64 values in [−1, 1) (the testkit's generator).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = matexp_testkit::SplitMix64::new(seed);
    (0..n).map(|_| 2.0 * rng.next_f64() - 1.0).collect()
}

fn rel_err(x: &[f64], y: &[f64]) -> f64 {
    let d: f64 = x.iter().zip(y).map(|(a, b)| (a - b).powi(2)).sum();
    let n: f64 = y.iter().map(|b| b * b).sum();
    (d / n).sqrt()
}

/// `Q·diag(λ)·Q` with the Householder reflector `Q = I − 2qqᵀ` (`‖q‖ = 1`), λ log-spaced in
/// `[−1e6, −1e−2]`, and the reference `e^{tA}v = Q·e^{tΛ}·Q·v`.
struct Stiff {
    op: DenseMatrixOperator<f64>,
    q: Vec<f64>,
    lambda: Vec<f64>,
}

impl Stiff {
    fn new(n: usize) -> Stiff {
        let mut q = values(n, 7);
        let nq = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.iter_mut().for_each(|x| *x /= nq);
        let lambda: Vec<f64> = (0..n)
            .map(|i| -(10f64).powf(-2.0 + 8.0 * i as f64 / (n - 1) as f64))
            .collect();
        // A = QΛQ = Λ − 2q(Λq)ᵀ − 2(Λq)qᵀ + 4(qᵀΛq)qqᵀ.
        let lq: Vec<f64> = (0..n).map(|i| lambda[i] * q[i]).collect();
        let qlq: f64 = q.iter().zip(&lq).map(|(a, b)| a * b).sum();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = -2.0 * q[i] * lq[j] - 2.0 * lq[i] * q[j] + 4.0 * qlq * q[i] * q[j];
            }
            a[i * n + i] += lambda[i];
        }
        // Symmetrize exactly (the formula is symmetric up to rounding).
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

    fn reflect(&self, x: &[f64]) -> Vec<f64> {
        let d: f64 = self.q.iter().zip(x).map(|(a, b)| a * b).sum();
        x.iter()
            .zip(&self.q)
            .map(|(xi, qi)| xi - 2.0 * d * qi)
            .collect()
    }

    fn reference(&self, t: f64, v: &[f64]) -> Vec<f64> {
        let y: Vec<f64> = self
            .reflect(v)
            .iter()
            .zip(&self.lambda)
            .map(|(x, l)| x * (t * l).exp())
            .collect();
        self.reflect(&y)
    }
}

/// An operator whose box is declared tight: used as given, never measured.
struct Trusted<'a, O>(&'a O);

impl<O: LinearOperator<CpuBackend, f64>> LinearOperator<CpuBackend, f64> for Trusted<'_, O> {
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(
        &self,
        be: &CpuBackend,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> Result<()> {
        self.0.apply(be, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.0.spectral_bounds()
    }
    fn is_hermitian(&self) -> bool {
        self.0.is_hermitian()
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        true
    }
}

fn show(label: &str, r: &Report, err: f64) {
    eprintln!("{label}: error {err:.2e}; {r}");
}

fn leja(rtol: f64) -> LejaOptions {
    LejaOptions::default().with_rtol(rtol)
}

fn width(b: &SpectralBounds) -> f64 {
    (b.re_max - b.re_min).max(b.im_max - b.im_min)
}

#[test]
fn stiff_dense_symmetric_matrix_with_a_loose_gershgorin_box() {
    let n = 120;
    let s = Stiff::new(n);
    let g = LinearOperator::<CpuBackend, f64>::spectral_bounds(&s.op).unwrap();
    // The premise: Gershgorin is far wider than the spectrum [−1e6, −1e−2].
    assert!(g.re_min < -2e6 && g.re_max > 1e6, "{g:?}");
    let cpu = CpuBackend::new();
    let v = values(n, 11);
    let t = 1e-3;
    let want = s.reference(t, &v);
    let mut w = vec![0.0; n];
    for rtol in [1e-6, 1e-10] {
        let r = Leja::new(&cpu, leja(rtol))
            .unwrap()
            .expmv(&s.op, t, &v, &mut w)
            .unwrap();
        let err = rel_err(&w, &want);
        show("leja", &r, err);
        assert!(err <= rtol, "Leja error {err:.2e} at rtol {rtol:e}");
        let (b, src) = r.bounds.unwrap();
        assert_eq!(src, BoundsSource::Tightened);
        assert!(
            b.re_min <= -1e6 && b.re_max >= -1e-2,
            "{b:?} must hold the spectrum"
        );
        assert!(width(&b) < 0.5 * width(&g), "{b:?}");
        assert!(r.estimate_matvecs > 0 && r.estimate_matvecs <= 40, "{r}");

        let lz = Lanczos::new(
            &cpu,
            LanczosOptions {
                tol: Tolerance::relative(rtol),
                ..Default::default()
            },
        )
        .unwrap()
        .expmv(&s.op, t, &v, &mut w)
        .unwrap();
        show("lanczos", &lz, rel_err(&w, &want));
        // Of Lanczos' order of magnitude (measured: 242 vs 63, 337 vs 67).
        assert!(r.matvecs <= 10 * lz.matvecs, "leja {r} vs lanczos {lz}");

        // Before: the Gershgorin box as given (measured: 4 110 and 5 694 products).
        let old = Leja::new(&cpu, leja(rtol))
            .unwrap()
            .expmv(&Trusted(&s.op), t, &v, &mut w)
            .unwrap();
        show("leja, Gershgorin box", &old, rel_err(&w, &want));
        assert_eq!(old.estimate_matvecs, 0);
        assert_eq!(old.bounds.unwrap(), (g, BoundsSource::Operator));
        assert!(10 * r.matvecs < old.matvecs, "{r} vs {old}");

        // Taylor takes the narrowed interval as ‖A − μI‖ (measured: 3 381 → 1 557 and
        // 4 590 → 2 014 products).
        let topts = TaylorOptions {
            tol: Tolerance::relative(rtol),
            ..Default::default()
        };
        let rt = Taylor::new(&cpu, topts.clone())
            .unwrap()
            .expmv(&s.op, t, &v, &mut w)
            .unwrap();
        let err = rel_err(&w, &want);
        show("taylor", &rt, err);
        assert!(err <= rtol, "Taylor error {err:.2e} at rtol {rtol:e}");
        assert_eq!(rt.bounds.unwrap().1, BoundsSource::Tightened);
        let old = Taylor::new(&cpu, topts)
            .unwrap()
            .expmv(&Trusted(&s.op), t, &v, &mut w)
            .unwrap();
        show("taylor, Gershgorin box", &old, rel_err(&w, &want));
        assert!(2 * rt.matvecs < old.matvecs, "{rt} vs {old}");
    }
}

/// Adjacency matrix of the star graph with `n − 1` leaves (hub 0): eigenvalues `±√(n−1)`
/// and 0; Gershgorin interval `[−(n−1), n−1]`.
fn star(n: usize) -> CsrMatrix<f64, u32> {
    let mut e = Vec::new();
    for i in 1..n {
        e.push((0, i, 1.0));
        e.push((i, 0, 1.0));
    }
    CsrMatrix::from_triplets(n, n, &e).unwrap()
}

/// `e^{tA}v` for the star graph: with `s = 1_leaves/√(n−1)` and `μ = √(n−1)`, A acts on
/// span{e₀, s} as `μ·[[0, 1], [1, 0]]` and is zero on its complement.
fn star_reference(n: usize, t: f64, v: &[f64]) -> Vec<f64> {
    let mu = ((n - 1) as f64).sqrt();
    let v0 = v[0];
    let vs: f64 = v[1..].iter().sum::<f64>() / mu;
    let (c, sh) = ((t * mu).cosh(), (t * mu).sinh());
    let (a0, as_) = (c * v0 + sh * vs, sh * v0 + c * vs);
    let mut w = v.to_vec();
    w[0] = a0;
    for x in &mut w[1..] {
        *x += (as_ - vs) / mu;
    }
    w
}

#[test]
fn star_graph_adjacency_is_measured_once_and_costs_less() {
    let n = 65;
    let a = star(n);
    let g = LinearOperator::<CpuBackend, f64>::spectral_bounds(&a).unwrap();
    assert_eq!((g.re_min, g.re_max), (-64.0, 64.0));
    let cpu = CpuBackend::new();
    let v = values(n, 3);
    for t in [0.5, 2.0] {
        let want = star_reference(n, t, &v);
        let mut w = vec![0.0; n];
        for rtol in [1e-6, 1e-10] {
            let mut solver = Leja::new(&cpu, leja(rtol)).unwrap();
            let r = solver.expmv(&a, t, &v, &mut w).unwrap();
            let err = rel_err(&w, &want);
            show(&format!("star t = {t}, rtol {rtol:e}"), &r, err);
            assert!(err <= rtol, "error {err:.2e}");
            let (b, src) = r.bounds.unwrap();
            assert_eq!(src, BoundsSource::Tightened);
            assert!(
                b.re_min <= -8.0 && b.re_max >= 8.0 && width(&b) < 18.0,
                "{b:?}"
            );
            // Time stepping with the same operator measures once.
            let again = solver.expmv(&a, t, &v, &mut w).unwrap();
            assert_eq!(again.estimate_matvecs, 0);
            assert_eq!(again.bounds, r.bounds);
            assert_eq!(again.matvecs + r.estimate_matvecs, r.matvecs);
            // Before (measured: 125, 168, 534, 624 products; after: 17, 22, 28, 34).
            let old = Leja::new(&cpu, leja(rtol))
                .unwrap()
                .expmv(&Trusted(&a), t, &v, &mut w)
                .unwrap();
            show("   Gershgorin box", &old, rel_err(&w, &want));
            assert!(3 * r.matvecs < old.matvecs, "{r} vs {old}");
        }
    }
}

/// Central-difference advection `A = tridiag(−a, 0, a)`, `a = (n+1)/2` (zero Dirichlet
/// values): real skew-symmetric, eigenvalues `2ia·cos(kπ/(n+1))`, eigenvectors
/// `x_k(j) = i^j·sin(jkπ/(n+1))` (orthogonal, `‖x_k‖² = (n+1)/2`).
fn advection(n: usize) -> (CsrMatrix<f64, u32>, f64) {
    let a = (n + 1) as f64 / 2.0;
    let mut e = Vec::new();
    for i in 0..n - 1 {
        e.push((i, i + 1, a));
        e.push((i + 1, i, -a));
    }
    (CsrMatrix::from_triplets(n, n, &e).unwrap(), a)
}

fn advection_reference(n: usize, a: f64, t: f64, v: &[f64]) -> Vec<f64> {
    let pi = std::f64::consts::PI;
    let h = pi / (n + 1) as f64;
    let ipow = |j: usize| match j % 4 {
        0 => c64::new(1.0, 0.0),
        1 => c64::new(0.0, 1.0),
        2 => c64::new(-1.0, 0.0),
        _ => c64::new(0.0, -1.0),
    };
    let mut w = vec![c64::new(0.0, 0.0); n];
    for k in 1..=n {
        let x: Vec<c64> = (1..=n)
            .map(|j| ipow(j) * (j as f64 * k as f64 * h).sin())
            .collect();
        let coef: c64 =
            x.iter().zip(v).map(|(xj, vj)| xj.conj() * *vj).sum::<c64>() / ((n + 1) as f64 / 2.0);
        let lam = c64::new(0.0, 2.0 * a * (k as f64 * h).cos());
        let f = (lam * t).exp() * coef;
        for (wj, xj) in w.iter_mut().zip(&x) {
            *wj += f * *xj;
        }
    }
    assert!(w.iter().all(|z| z.im.abs() < 1e-9 * (1.0 + z.re.abs())));
    w.iter().map(|z| z.re).collect()
}

#[test]
fn real_skew_symmetric_on_the_imaginary_axis() {
    let n = 100;
    let (a, coef) = advection(n);
    let g = LinearOperator::<CpuBackend, f64>::spectral_bounds(&a).unwrap();
    // The CSR matrix finds itself skew-symmetric: an imaginary Gershgorin segment.
    assert_eq!(
        g,
        SpectralBounds::new(0.0, 0.0, -2.0 * coef, 2.0 * coef).unwrap()
    );
    let square = SpectralBounds::new(-2.0 * coef, 2.0 * coef, -2.0 * coef, 2.0 * coef).unwrap();
    let ac = a.cast::<c64>().unwrap();
    let cpu = CpuBackend::new();
    let v = values(n, 5);
    let vc: Vec<c64> = v.iter().map(|&x| c64::new(x, 0.0)).collect();
    for t in [0.1, 1.0] {
        let want = advection_reference(n, coef, t, &v);
        let mut w = vec![0.0; n];
        for rtol in [1e-6, 1e-10] {
            let r = Leja::new(&cpu, leja(rtol))
                .unwrap()
                .expmv(&a, t, &v, &mut w)
                .unwrap();
            let err = rel_err(&w, &want);
            show(&format!("skew t = {t}, rtol {rtol:e}"), &r, err);
            assert!(err <= rtol, "error {err:.2e}");
            assert_eq!(r.bounds.unwrap().0, g);
            // Before: the real axis, inside the ellipse through the square box's corners
            // (measured: 50, 134, 606, 895 products; now 27, 33, 153, 173).
            let old = Leja::new(
                &cpu,
                LejaOptions {
                    bounds: Some(square),
                    ..leja(rtol)
                },
            )
            .unwrap()
            .expmv(&a, t, &v, &mut w)
            .unwrap();
            show("   real axis", &old, rel_err(&w, &want));
            assert!(rel_err(&w, &want) <= rtol);
            if t >= 1.0 {
                assert!(3 * r.matvecs < old.matvecs, "{r} vs {old}");
            } else {
                assert!(r.matvecs < old.matvecs, "{r} vs {old}");
            }
            // Complex arithmetic on the same imaginary segment: the same number of products
            // within a few (the same interpolant up to the node order).
            let mut wc = vec![c64::new(0.0, 0.0); n];
            let rc = Leja::new(&cpu, leja(rtol))
                .unwrap()
                .expmv(&ac, c64::new(t, 0.0), &vc, &mut wc)
                .unwrap();
            let wr: Vec<f64> = wc.iter().map(|z| z.re).collect();
            show("   complex", &rc, rel_err(&wr, &want));
            assert!(r.matvecs <= rc.matvecs + rc.matvecs / 10, "{r} vs {rc}");
        }
    }
}

#[test]
fn shifted_skew_symmetric_with_a_real_center() {
    // A − 3I with A skew-symmetric, the box given as options: the imaginary segment
    // −3 + i[−2a, 2a] has a real center, e^{t(A − 3I)}v = e^{−3t}·e^{tA}v.
    let n = 60;
    let (a, coef) = advection(n);
    let mut e = Vec::new();
    for i in 0..n {
        e.push((i, i, -3.0));
        if i + 1 < n {
            e.push((i, i + 1, coef));
            e.push((i + 1, i, -coef));
        }
    }
    let shifted = CsrMatrix::<f64, u32>::from_triplets(n, n, &e).unwrap();
    drop(a);
    let bounds = SpectralBounds::new(-3.0, -3.0, -2.0 * coef, 2.0 * coef).unwrap();
    let cpu = CpuBackend::new();
    let v = values(n, 9);
    for (t, rtol) in [(0.3, 1e-7), (2.0, 1e-10)] {
        let want: Vec<f64> = advection_reference(n, coef, t, &v)
            .iter()
            .map(|x| x * (-3.0 * t).exp())
            .collect();
        let mut w = vec![0.0; n];
        let r = Leja::new(
            &cpu,
            LejaOptions {
                bounds: Some(bounds),
                ..leja(rtol)
            },
        )
        .unwrap()
        .expmv(&shifted, t, &v, &mut w)
        .unwrap();
        let err = rel_err(&w, &want);
        show(&format!("shifted skew t = {t}"), &r, err);
        assert!(err <= rtol, "error {err:.2e} at rtol {rtol:e}");
        assert_eq!(r.bounds.unwrap(), (bounds, BoundsSource::Options));
    }
}

#[test]
fn tight_boxes_are_not_measured_and_trivial_calls_cost_nothing() {
    let cpu = CpuBackend::new();
    let a = star(17);
    let v = values(17, 1);
    let mut w = vec![0.0; 17];
    let r = Leja::new(&cpu, leja(1e-8))
        .unwrap()
        .expmv(&Trusted(&a), 0.3, &v, &mut w)
        .unwrap();
    assert_eq!(r.estimate_matvecs, 0);
    assert_eq!(r.bounds.unwrap().1, BoundsSource::Operator);
    // t = 0: nothing to march, nothing to measure.
    let r = Leja::new(&cpu, leja(1e-8))
        .unwrap()
        .expmv(&a, 0.0, &v, &mut w)
        .unwrap();
    assert_eq!((r.matvecs, r.estimate_matvecs), (0, 0));
    assert_eq!(w, v);
}

/// The Krylov methods show what they saw: Arnoldi's report holds the Gershgorin box of its
/// Hessenberg matrices, which contains its Ritz values and here the spectrum's part that
/// matters (the advection matrix, eigenvalues 2a·i·cos(kπ/(n+1)), inside i·[−2a, 2a]).
#[test]
fn arnoldi_reports_the_box_of_its_ritz_values() {
    use matexp_expmv::{Arnoldi, ArnoldiOptions};
    let n = 60;
    let (a, coef) = advection(n);
    let v = values(n, 9);
    let mut w = vec![0.0; n];
    let r = Arnoldi::new(
        &CpuBackend::new(),
        ArnoldiOptions::default().with_rtol(1e-10),
    )
    .unwrap()
    .expmv(&a, 1.0, &v, &mut w)
    .unwrap();
    let err = rel_err(&w, &advection_reference(n, coef, 1.0, &v));
    show("arnoldi advection", &r, err);
    assert!(err <= 1e-10, "{err:e}");
    let (b, source) = r.bounds.expect("Arnoldi reports its box");
    assert_eq!(source, BoundsSource::Ritz);
    // Skew-symmetric A gives a (nearly) skew-symmetric H: a thin box around the imaginary
    // axis, reaching at least the largest Ritz values (≥ half the spectral radius here) and
    // within the Gershgorin bound of H (‖H‖ ≤ ‖A‖ ≤ 2a).
    assert!(b.re_min <= 0.0 && b.re_max >= 0.0, "{b:?}");
    assert!(
        b.im_max >= coef && b.im_max <= 2.0 * 2.0 * coef + 1e-9,
        "{b:?}"
    );
    assert!(format!("{r}").contains("Ritz"), "{r}");
}
