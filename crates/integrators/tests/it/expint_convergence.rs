//! Exponential integrators on a stiff semilinear problem with a manufactured solution:
//! u' = A u + u² + s(t), A the 1D Dirichlet Laplacian on n interior points (‖A‖ ≈ 4(n+1)²),
//! s chosen so that U(t)_i = cos t·sin(πx_i) + (1 + ½ sin 2t)·x_i(1 − x_i) solves the
//! semi-discrete system exactly. Measured orders (log–log slopes), embedded estimates
//! against true local errors, and adaptive runs against the exact solution.

use matexp_core::{CpuBackend, LinearOperator, Result, SpectralBounds};
use matexp_expmv::Tolerance;
use matexp_integrators::expint::{
    ExpIntOptions, ExpIntegrator, Nonlinearity, PhiMethod, Scheme, Stepping,
};

const N: usize = 40;

struct Laplacian {
    n: usize,
}

impl Laplacian {
    fn mul(&self, x: &[f64]) -> Vec<f64> {
        let h2 = ((self.n + 1) * (self.n + 1)) as f64;
        (0..self.n)
            .map(|i| {
                let l = if i > 0 { x[i - 1] } else { 0.0 };
                let r = if i + 1 < self.n { x[i + 1] } else { 0.0 };
                h2 * (l - 2.0 * x[i] + r)
            })
            .collect()
    }
}

impl LinearOperator<CpuBackend, f64> for Laplacian {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(&self, _: &CpuBackend, a: f64, x: &Vec<f64>, b: f64, y: &mut Vec<f64>) -> Result<()> {
        let ax = self.mul(x);
        for (yi, axi) in y.iter_mut().zip(ax) {
            *yi = a * axi + if b == 0.0 { 0.0 } else { b * *yi };
        }
        Ok(())
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let h2 = ((self.n + 1) * (self.n + 1)) as f64;
        SpectralBounds::real(-4.0 * h2, 0.0).ok()
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn grid() -> Vec<f64> {
    (1..=N).map(|i| i as f64 / (N + 1) as f64).collect()
}

/// U, U', U'' at time t.
fn exact(t: f64) -> [Vec<f64>; 3] {
    let x = grid();
    let s = |x: f64| (std::f64::consts::PI * x).sin();
    let p = |x: f64| x * (1.0 - x);
    [
        x.iter()
            .map(|&x| t.cos() * s(x) + (1.0 + 0.5 * (2.0 * t).sin()) * p(x))
            .collect(),
        x.iter()
            .map(|&x| -t.sin() * s(x) + (2.0 * t).cos() * p(x))
            .collect(),
        x.iter()
            .map(|&x| -t.cos() * s(x) - 2.0 * (2.0 * t).sin() * p(x))
            .collect(),
    ]
}

/// g(t, u) = u² + s(t), s = U' − AU − U²; the Jacobian 2u and ∂g/∂t = s' exactly, or left
/// to the integrator's differences.
struct Manufactured {
    exact_derivatives: bool,
}

impl Nonlinearity<CpuBackend, f64> for Manufactured {
    fn eval(&self, _: &CpuBackend, t: f64, u: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
        let [uu, du, _] = exact(t);
        let au = Laplacian { n: N }.mul(&uu);
        for i in 0..N {
            out[i] = u[i] * u[i] + du[i] - au[i] - uu[i] * uu[i];
        }
        Ok(())
    }
    fn has_jacobian(&self) -> bool {
        self.exact_derivatives
    }
    fn jacobian_apply(
        &self,
        _: &CpuBackend,
        _t: f64,
        u: &Vec<f64>,
        a: f64,
        v: &Vec<f64>,
        b: f64,
        y: &mut Vec<f64>,
    ) -> Result<()> {
        for i in 0..N {
            y[i] = a * 2.0 * u[i] * v[i] + if b == 0.0 { 0.0 } else { b * y[i] };
        }
        Ok(())
    }
    fn time_derivative(
        &self,
        _: &CpuBackend,
        t: f64,
        _u: &Vec<f64>,
        out: &mut Vec<f64>,
    ) -> Result<bool> {
        if !self.exact_derivatives {
            return Ok(false);
        }
        let [uu, du, ddu] = exact(t);
        let adu = Laplacian { n: N }.mul(&du);
        for i in 0..N {
            out[i] = ddu[i] - adu[i] - 2.0 * uu[i] * du[i];
        }
        Ok(true)
    }
    fn jacobian_is_hermitian(&self) -> bool {
        true
    }
    fn jacobian_bounds(
        &self,
        _: &CpuBackend,
        _t: f64,
        u: &Vec<f64>,
    ) -> Result<Option<SpectralBounds>> {
        // ∂g/∂u = diag(2u); left to the Leja estimate when the derivatives are differences.
        if !self.exact_derivatives {
            return Ok(None);
        }
        let lo = u.iter().fold(f64::INFINITY, |a, &x| a.min(2.0 * x));
        let hi = u.iter().fold(f64::NEG_INFINITY, |a, &x| a.max(2.0 * x));
        Ok(SpectralBounds::real(lo, hi).ok())
    }
}

fn max_err(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn fixed(scheme: Scheme, phi: PhiMethod, steps: usize) -> ExpIntOptions {
    ExpIntOptions {
        scheme,
        phi,
        tol: Tolerance::new(1e-12, 0.0),
        phi_tol: Some(Tolerance::new(1e-13, 1e-14)),
        stepping: Stepping::Fixed { steps },
        ..Default::default()
    }
}

/// Final-time errors at T = 1 for the given step counts.
fn errors(scheme: Scheme, phi: PhiMethod, exact_derivatives: bool, steps: &[usize]) -> Vec<f64> {
    let cpu = CpuBackend::new();
    let a = Laplacian { n: N };
    let g = Manufactured { exact_derivatives };
    steps
        .iter()
        .map(|&s| {
            let mut integ = ExpIntegrator::new(&cpu, N, fixed(scheme, phi, s)).unwrap();
            let mut u = exact(0.0)[0].clone();
            integ.integrate(&a, &g, 0.0, 1.0, &mut u).unwrap();
            max_err(&u, &exact(1.0)[0])
        })
        .collect()
}

/// Least-squares slope of log(err) against log(h).
fn slope(steps: &[usize], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = steps.iter().map(|&s| (1.0 / s as f64).ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let m = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / m, ys.iter().sum::<f64>() / m);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

fn check_order(scheme: Scheme, phi: PhiMethod, exact_derivatives: bool, steps: &[usize]) {
    let errs = errors(scheme, phi, exact_derivatives, steps);
    let p = slope(steps, &errs);
    let want = f64::from(scheme.order());
    println!(
        "{scheme:?} {phi:?} exact derivatives {exact_derivatives}: errors {errs:?}, slope {p:.3}"
    );
    // The order may read a little high before the asymptotic regime (the φ-vectors are
    // computed to a tolerance, so the coarsest step's error carries their share too); it must
    // never read low.
    assert!(
        p >= want - 0.2 && p <= want + 0.4,
        "{scheme:?}: measured order {p:.3}, expected {want} (errors {errs:?})"
    );
}

#[test]
fn exponential_euler_has_order_one() {
    check_order(
        Scheme::ExponentialEuler,
        PhiMethod::Leja,
        true,
        &[16, 32, 64, 128],
    );
}

#[test]
fn rosenbrock_euler_has_order_two() {
    check_order(
        Scheme::RosenbrockEuler,
        PhiMethod::Leja,
        true,
        &[8, 16, 32, 64],
    );
}

#[test]
fn exprb32_has_order_three() {
    check_order(Scheme::Exprb32, PhiMethod::Leja, true, &[32, 64, 128, 256]);
}

#[test]
fn exprb43_has_order_four() {
    check_order(Scheme::Exprb43, PhiMethod::Leja, true, &[8, 16, 32, 64]);
}

#[test]
fn epirk4s3_has_order_four() {
    check_order(Scheme::Epirk4s3, PhiMethod::Leja, true, &[8, 16, 32, 64]);
}

#[test]
fn krylov_phi_and_difference_derivatives_keep_the_order() {
    check_order(
        Scheme::Exprb32,
        PhiMethod::Krylov,
        false,
        &[32, 64, 128, 256],
    );
    check_order(Scheme::Epirk4s3, PhiMethod::Krylov, false, &[8, 16, 32, 64]);
}

/// The embedded estimate of one step from the exact U(t): it exceeds the true local error
/// of the propagated (higher-order) solution, so the controller is conservative, and it
/// shrinks like h^{q+1}, the local order of the embedded solution it measures.
#[test]
fn embedded_estimates_track_the_local_error() {
    let cpu = CpuBackend::new();
    let a = Laplacian { n: N };
    let g = Manufactured {
        exact_derivatives: true,
    };
    for scheme in [Scheme::Exprb32, Scheme::Exprb43, Scheme::Epirk4s3] {
        let q = scheme.embedded_order().unwrap();
        let t = 0.3;
        let u0 = exact(t)[0].clone();
        let mut ests = Vec::new();
        let hs = [0.1, 0.05, 0.025];
        for &h in &hs {
            let mut integ = ExpIntegrator::new(&cpu, N, fixed(scheme, PhiMethod::Leja, 1)).unwrap();
            let mut u1 = vec![0.0; N];
            let o = integ.step(&a, &g, t, h, &u0, &mut u1, true).unwrap();
            let exact1 = exact(t + h)[0].clone();
            let high: f64 = u1
                .iter()
                .zip(&exact1)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            // True error of the embedded solution, ‖û − U‖ with ‖u_{n+1} − û‖ = est: at least
            // |est − high| and at most est + high.
            let ratio = o.error_norm / high.max(1e-300);
            println!(
                "{scheme:?} h = {h}: estimate {:.3e}, high-order local error {high:.3e}",
                o.error_norm
            );
            assert!(
                ratio > 2.0,
                "{scheme:?}: the estimate ({:.3e}) must dominate the high-order error ({high:.3e})",
                o.error_norm
            );
            ests.push(o.error_norm);
        }
        let s = slope(&[10, 20, 40], &ests);
        assert!(
            (s - f64::from(q + 1)).abs() < 0.5,
            "{scheme:?}: estimate slope {s:.2}, expected about {}",
            q + 1
        );
    }
}

/// For exprb32 the embedded solution is the exponential Rosenbrock–Euler step, so the
/// estimate can be compared with its true local error: they agree within 5% once h is in
/// the asymptotic range (the estimate is that error minus the much smaller order-3 one).
#[test]
fn exprb32_estimate_is_the_rosenbrock_euler_error() {
    let cpu = CpuBackend::new();
    let a = Laplacian { n: N };
    let g = Manufactured {
        exact_derivatives: true,
    };
    let t = 0.3;
    let u0 = exact(t)[0].clone();
    for h in [0.05, 0.02, 0.01] {
        let exact1 = exact(t + h)[0].clone();
        let mut u1 = vec![0.0; N];
        let mut e32 =
            ExpIntegrator::new(&cpu, N, fixed(Scheme::Exprb32, PhiMethod::Leja, 1)).unwrap();
        let est = e32
            .step(&a, &g, t, h, &u0, &mut u1, true)
            .unwrap()
            .error_norm;
        let mut re =
            ExpIntegrator::new(&cpu, N, fixed(Scheme::RosenbrockEuler, PhiMethod::Leja, 1))
                .unwrap();
        re.step(&a, &g, t, h, &u0, &mut u1, false).unwrap();
        let low: f64 = u1
            .iter()
            .zip(&exact1)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        println!("h = {h}: estimate {est:.4e}, Rosenbrock–Euler local error {low:.4e}");
        assert!(
            (est / low - 1.0).abs() < 0.05,
            "h = {h}: estimate {est:.3e} vs true {low:.3e}"
        );
    }
}

/// Adaptive runs meet the tolerance: the global error at T = 1 falls with the tolerance and
/// stays within a modest factor of it; tighter tolerances take more steps.
#[test]
fn adaptive_steps_meet_the_tolerance() {
    let cpu = CpuBackend::new();
    let a = Laplacian { n: N };
    let g = Manufactured {
        exact_derivatives: false,
    };
    let unorm: f64 = exact(1.0)[0].iter().map(|x| x * x).sum::<f64>().sqrt();
    for scheme in [Scheme::Exprb32, Scheme::Exprb43, Scheme::Epirk4s3] {
        let mut prev_steps = 0;
        for rtol in [1e-4, 1e-6, 1e-8] {
            let opts = ExpIntOptions {
                scheme,
                tol: Tolerance::new(rtol, 0.0),
                stepping: Stepping::Adaptive {
                    h0: Some(1e-3),
                    h_min: 1e-10,
                    h_max: 1.0,
                },
                ..Default::default()
            };
            let mut integ = ExpIntegrator::new(&cpu, N, opts).unwrap();
            let mut u = exact(0.0)[0].clone();
            let rep = integ.integrate(&a, &g, 0.0, 1.0, &mut u).unwrap();
            let e: f64 = u
                .iter()
                .zip(&exact(1.0)[0])
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            println!(
                "{scheme:?} rtol {rtol:e}: error {:.3e} (relative {:.3e}), {rep:?}",
                e,
                e / unorm
            );
            assert!(
                e / unorm < 20.0 * rtol,
                "{scheme:?} rtol {rtol:e}: relative error {:.3e}",
                e / unorm
            );
            assert!(rep.max_error_ratio <= 1.0);
            assert!(rep.steps >= prev_steps);
            prev_steps = rep.steps;
        }
    }
}
