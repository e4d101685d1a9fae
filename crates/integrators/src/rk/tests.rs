//! Accuracy of the Runge–Kutta integrators against analytic solutions.

use super::{CashKarp, LinearOde, Rk4, Rk45Options};
use matexp_core::{
    Backend, CpuBackend, Error, Result, Scalar, TimeDependentOperator, c32, c64, check_dim,
};

/// `H(t) = ω(t)·σx` with `ω(t) = a + b·t`: `H(t)` commutes with itself at all times, so
/// `ψ(t) = e^{−iΘ(t)σx}ψ(0)` with `Θ(t) = a·t + b·t²/2`, i.e.
/// `ψ(t) = (cos Θ·ψ₀ − i sin Θ·ψ₁, cos Θ·ψ₁ − i sin Θ·ψ₀)`.
struct Ramp {
    a: f64,
    b: f64,
}

impl Ramp {
    fn theta(&self, t: f64) -> f64 {
        self.a * t + 0.5 * self.b * t * t
    }
    fn exact(&self, t: f64, psi0: [c64; 2]) -> [c64; 2] {
        let (c, s) = (self.theta(t).cos(), self.theta(t).sin());
        let mi = c64::new(0.0, -s);
        [psi0[0] * c + mi * psi0[1], psi0[1] * c + mi * psi0[0]]
    }
}

impl<S: Scalar> TimeDependentOperator<CpuBackend, S> for Ramp {
    fn nrows(&self) -> usize {
        2
    }
    fn ncols(&self) -> usize {
        2
    }
    fn apply_at(
        &self,
        _: &CpuBackend,
        t: f64,
        alpha: S,
        x: &Vec<S>,
        beta: S,
        y: &mut Vec<S>,
    ) -> Result<()> {
        check_dim("Ramp: x", 2, x.len())?;
        let w = S::from_f64(self.a + self.b * t);
        let (y0, y1) = (alpha * w * x[1], alpha * w * x[0]);
        if beta == S::zero() {
            y[0] = y0;
            y[1] = y1;
        } else {
            y[0] = y0 + beta * y[0];
            y[1] = y1 + beta * y[1];
        }
        Ok(())
    }
    fn norm_bound_at(&self, t: f64) -> Option<f64> {
        Some((self.a + self.b * t).abs())
    }
}

fn err(psi: &[c64], want: [c64; 2]) -> f64 {
    ((psi[0] - want[0]).norm_sqr() + (psi[1] - want[1]).norm_sqr()).sqrt()
}

#[test]
fn rk4_converges_with_order_four() {
    let op = Ramp { a: 0.4, b: 0.3 };
    let ode = LinearOde::schrodinger(&op).unwrap();
    let cpu = CpuBackend;
    let psi0 = [c64::new(1.0, 0.0), c64::new(0.0, 0.0)];
    let mut rk = Rk4::new(&cpu, 2).unwrap();
    let mut errors = Vec::new();
    for steps in [50, 100, 200] {
        let mut psi = psi0.to_vec();
        let rep = rk.integrate(&ode, 0.0, 5.0, steps, &mut psi).unwrap();
        assert_eq!(rep.products, 4 * steps);
        errors.push(err(&psi, op.exact(5.0, psi0)));
    }
    for w in errors.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (12.0..20.0).contains(&ratio),
            "error ratio {ratio} (errors {errors:?})"
        );
    }
}

#[test]
fn cash_karp_meets_its_budget_on_a_time_dependent_problem() {
    let op = Ramp { a: 0.4, b: 0.3 };
    let ode = LinearOde::schrodinger(&op).unwrap();
    let cpu = CpuBackend;
    let psi0 = [c64::new(0.6, 0.0), c64::new(0.0, 0.8)];
    for tol in [1e-6, 1e-8, 1e-10] {
        let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(tol)).unwrap();
        let mut psi = psi0.to_vec();
        let mut seen = Vec::new();
        let times = [0.0, 1.0, 2.5, 6.0];
        let rep = rk
            .integrate_observed(&ode, &times, &mut psi, |t, y| {
                seen.push((t, y.clone()));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen.len(), times.len());
        for (t, y) in &seen {
            let e = err(y, op.exact(*t, psi0));
            assert!(e <= tol, "tol {tol}: error {e} at t = {t}");
        }
        assert!(rep.accumulated_error <= 2.0 * tol, "{rep:?}");
        assert_eq!(rep.products, 6 * (rep.steps + rep.rejected));
        // The norm is conserved to the tolerance.
        let nrm = cpu.nrm2(&psi).unwrap();
        assert!((nrm - 1.0).abs() <= tol);
    }
}

#[test]
fn single_precision_and_real_systems() {
    let op = Ramp { a: 1.0, b: 0.0 };
    let cpu = CpuBackend;
    let ode = LinearOde::<_, c32>::schrodinger(&op).unwrap();
    let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-5)).unwrap();
    let mut psi = vec![c32::new(1.0, 0.0), c32::new(0.0, 0.0)];
    rk.integrate(&ode, 0.0, 2.0, &mut psi).unwrap();
    let want = op.exact(2.0, [c64::new(1.0, 0.0), c64::new(0.0, 0.0)]);
    let got: Vec<c64> = psi.iter().map(|z| z.to_c64()).collect();
    assert!(err(&got, want) < 1e-4);
    // f32 cannot reach 1e-8: the options are rejected, not silently weakened.
    assert!(matches!(
        CashKarp::<_, c32>::new(&cpu, 2, Rk45Options::new(1e-8)),
        Err(Error::InvalidArgument { .. })
    ));
    // A real scalar cannot carry the Schrödinger equation.
    assert!(LinearOde::<_, f64>::schrodinger(&op).is_err());
    // y' = σx·y (real): y(t) = (cosh t, sinh t) from (1, 0).
    let ode = LinearOde::new(&op, 1.0f64);
    let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10)).unwrap();
    let mut y = vec![1.0, 0.0];
    rk.integrate(&ode, 0.0, 1.5, &mut y).unwrap();
    assert!((y[0] - 1.5f64.cosh()).abs() < 1e-9 && (y[1] - 1.5f64.sinh()).abs() < 1e-9);
}

#[test]
fn bad_input_is_rejected() {
    let op = Ramp { a: 1.0, b: 0.0 };
    let cpu = CpuBackend;
    let ode = LinearOde::<_, c64>::schrodinger(&op).unwrap();
    for bad in [0.0, -1.0, f64::NAN] {
        assert!(CashKarp::<_, c64>::new(&cpu, 2, Rk45Options::new(bad)).is_err());
    }
    let mut o = Rk45Options::new(1e-8);
    o.safety = 1.5;
    assert!(CashKarp::<_, c64>::new(&cpu, 2, o).is_err());
    let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-8)).unwrap();
    let mut short = vec![c64::new(1.0, 0.0)];
    assert!(rk.integrate(&ode, 0.0, 1.0, &mut short).is_err());
    let mut psi = vec![c64::new(1.0, 0.0), c64::new(0.0, 0.0)];
    assert!(rk.integrate(&ode, 1.0, 0.0, &mut psi).is_err());
    assert!(rk.integrate(&ode, 0.0, f64::INFINITY, &mut psi).is_err());
    let mut capped = CashKarp::new(
        &cpu,
        2,
        Rk45Options {
            max_steps: 3,
            ..Rk45Options::new(1e-10)
        },
    )
    .unwrap();
    assert!(matches!(
        capped.integrate(&ode, 0.0, 100.0, &mut psi),
        Err(Error::NoConvergence { .. })
    ));
    let mut rk4 = Rk4::new(&cpu, 2).unwrap();
    assert!(rk4.integrate(&ode, 0.0, 1.0, 0, &mut psi).is_err());
    // A blow-up (NaN in the state) is reported, not propagated silently.
    let mut nan = vec![c64::new(f64::NAN, 0.0), c64::new(0.0, 0.0)];
    assert!(matches!(
        rk.integrate(&ode, 0.0, 1.0, &mut nan),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn the_lean_pair_is_the_standard_pair_in_powers_of_ha() {
    use super::CashKarpLean;
    use super::cash_karp::stability_polynomials;
    use matexp_core::{Autonomous, DenseMatrixOperator};
    use matexp_expmv::plan::Method;
    // R₅ is e^z through z⁵ (order 5): r_j = 1/j!; the error polynomial starts at z⁵.
    let (r5, e) = stability_polynomials();
    let mut fact = 1.0;
    for (j, r) in r5.iter().enumerate().take(6) {
        if j > 0 {
            fact *= j as f64;
        }
        assert!((r - 1.0 / fact).abs() < 1e-15, "r_{j} = {r}");
    }
    assert!(e[5].abs() > 1e-6 && e[6].abs() > 1e-8);
    // A 12-level chain H (tridiagonal, symmetric, random diagonal): lean and standard modes
    // take the same steps and agree to rounding.
    let n = 12;
    let mut r = matexp_core::rng::SplitMix64::new(0x1ea);
    let mut a = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        a[i * n + i] = c64::new(4.0 * r.next_f64() - 2.0, 0.0);
        if i + 1 < n {
            a[i * n + i + 1] = c64::new(1.0, 0.0);
            a[(i + 1) * n + i] = c64::new(1.0, 0.0);
        }
    }
    let h = DenseMatrixOperator::new(n, n, a).unwrap();
    let psi0: Vec<c64> = (0..n)
        .map(|i| c64::new(1.0 / (1.0 + i as f64), 0.0))
        .collect();
    let cpu = CpuBackend;
    let opts = Rk45Options::new(1e-9);
    let mut lean = CashKarpLean::new(&cpu, n, opts).unwrap();
    let mut u = psi0.clone();
    let rl = lean
        .integrate(&h, c64::new(0.0, -1.0), 0.0, 4.0, &mut u)
        .unwrap();
    let auto = Autonomous(&h);
    let ode = LinearOde::schrodinger(&auto).unwrap();
    let mut std_rk = CashKarp::new(&cpu, n, opts).unwrap();
    let mut v = psi0.clone();
    let rs = std_rk.integrate(&ode, 0.0, 4.0, &mut v).unwrap();
    assert_eq!(
        (rl.steps, rl.rejected, rl.products),
        (rs.steps, rs.rejected, rs.products)
    );
    let diff = u
        .iter()
        .zip(&v)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(diff < 1e-13, "lean vs standard {diff:e}");
    assert!((rl.accumulated_error - rs.accumulated_error).abs() < 1e-6 * rs.accumulated_error);
    // Their vector counts are the planner's (the state besides the workspace).
    assert_eq!(
        lean.workspace_vectors() + 1,
        Method::Rk45 { lean: true }.full_vectors() as usize
    );
    assert_eq!(
        std_rk.workspace_vectors() + 1,
        Method::Rk45 { lean: false }.full_vectors() as usize
    );
}
