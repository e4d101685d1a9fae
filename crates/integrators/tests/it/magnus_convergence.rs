//! Magnus integrators on driven two-level systems with closed-form solutions: measured
//! orders, adaptive steps against the tolerance, and conservation of the norm.
//!
//! H(t) = (ω₀/2)σ_z + (Ω/2)(cos ωt σ_x + sin ωt σ_y) (a spin in a static field along z and
//! a field rotating about z). In the frame rotating with the field, ψ = R(t)φ,
//! R(t) = e^{−iωtσ_z/2}, the Hamiltonian is constant, H_rot = (Δ/2)σ_z + (Ω/2)σ_x with
//! Δ = ω₀ − ω, so ψ(t) = R(t)·e^{−itH_rot}·ψ(0), and
//! e^{−itH_rot} = cos θ·I − i sin θ·(Ωσ_x + Δσ_z)/r, θ = rt/2, r = √(Δ² + Ω²).
//! Two such spins with different parameters form a block-diagonal H of order 4.

use matexp_core::{CpuBackend, Result, SpectralBounds, TimeDependentOperator, c64};
use matexp_expmv::Tolerance;
use matexp_integrators::magnus::{ExpMethod, Magnus, MagnusOptions, MagnusScheme, MagnusStepping};

/// (ω₀, ω, Ω) of each spin.
const SPINS: [(f64, f64, f64); 2] = [(2.0, 1.5, 1.0), (1.0, 3.0, 2.0)];
const T: f64 = 4.0;

struct Driven;

impl Driven {
    fn block(t: f64, (w0, w, om): (f64, f64, f64)) -> [[c64; 2]; 2] {
        let off = c64::from_polar(0.5 * om, -w * t);
        [
            [c64::new(0.5 * w0, 0.0), off],
            [off.conj(), c64::new(-0.5 * w0, 0.0)],
        ]
    }
}

impl TimeDependentOperator<CpuBackend, c64> for Driven {
    fn nrows(&self) -> usize {
        4
    }
    fn ncols(&self) -> usize {
        4
    }
    fn apply_at(
        &self,
        _: &CpuBackend,
        t: f64,
        a: c64,
        x: &Vec<c64>,
        b: c64,
        y: &mut Vec<c64>,
    ) -> Result<()> {
        for (k, spin) in SPINS.iter().enumerate() {
            let m = Driven::block(t, *spin);
            for i in 0..2 {
                let hx = m[i][0] * x[2 * k] + m[i][1] * x[2 * k + 1];
                let yi = &mut y[2 * k + i];
                *yi = a * hx + if b == c64::new(0.0, 0.0) { b } else { b * *yi };
            }
        }
        Ok(())
    }
    fn spectral_bounds_at(&self, _t: f64) -> Option<SpectralBounds> {
        // Eigenvalues ±½√(ω₀² + Ω²) of each block.
        let r = SPINS
            .iter()
            .map(|(w0, _, om)| 0.5 * (w0 * w0 + om * om).sqrt())
            .fold(0.0, f64::max);
        SpectralBounds::real(-r, r).ok()
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn psi0() -> Vec<c64> {
    let s = 0.5f64.sqrt();
    vec![
        c64::new(1.0, 0.0),
        c64::new(0.0, 0.0),
        c64::new(s, 0.0),
        c64::new(0.0, s),
    ]
}

fn exact(t: f64) -> Vec<c64> {
    let p0 = psi0();
    let mut out = vec![c64::new(0.0, 0.0); 4];
    let i = c64::new(0.0, 1.0);
    for (k, &(w0, w, om)) in SPINS.iter().enumerate() {
        let d = w0 - w;
        let r = (d * d + om * om).sqrt();
        let (s, c) = (0.5 * r * t).sin_cos();
        let u = [
            [c - i * s * d / r, -i * s * om / r],
            [-i * s * om / r, c + i * s * d / r],
        ];
        let phi = [
            u[0][0] * p0[2 * k] + u[0][1] * p0[2 * k + 1],
            u[1][0] * p0[2 * k] + u[1][1] * p0[2 * k + 1],
        ];
        out[2 * k] = c64::from_polar(1.0, -0.5 * w * t) * phi[0];
        out[2 * k + 1] = c64::from_polar(1.0, 0.5 * w * t) * phi[1];
    }
    out
}

fn dist(a: &[c64], b: &[c64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm_sqr())
        .sum::<f64>()
        .sqrt()
}

fn norm(a: &[c64]) -> f64 {
    a.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
}

fn run(
    scheme: MagnusScheme,
    method: ExpMethod,
    stepping: MagnusStepping,
) -> (Vec<c64>, matexp_integrators::magnus::MagnusReport) {
    let cpu = CpuBackend::new();
    let opts = MagnusOptions {
        scheme,
        method,
        exp_tol: Tolerance::new(1e-13, 0.0),
        stepping,
        ..Default::default()
    };
    let mut m = Magnus::new(&cpu, 4, opts).unwrap();
    let mut psi = psi0();
    let rep = m.integrate(&Driven, 0.0, T, &mut psi).unwrap();
    (psi, rep)
}

fn slope(steps: &[usize], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = steps.iter().map(|&s| (1.0 / s as f64).ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let m = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / m, ys.iter().sum::<f64>() / m);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

fn check_order(scheme: MagnusScheme, method: ExpMethod, steps: &[usize]) {
    let ex = exact(T);
    let errs: Vec<f64> = steps
        .iter()
        .map(|&s| {
            dist(
                &run(scheme, method, MagnusStepping::Fixed { steps: s }).0,
                &ex,
            )
        })
        .collect();
    let p = slope(steps, &errs);
    println!("{scheme:?} {method:?}: errors {errs:?}, slope {p:.3}");
    let want = f64::from(scheme.order());
    assert!(
        (p - want).abs() <= 0.2,
        "{scheme:?} with {method:?}: order {p:.3}, expected {want} (errors {errs:?})"
    );
}

#[test]
fn exact_solution_solves_the_equation() {
    // Guards the reference: (ψ(t+δ) − ψ(t−δ))/2δ = −iH(t)ψ(t) to O(δ²).
    let cpu = CpuBackend::new();
    let (t, d) = (1.3, 1e-5);
    let (p, m) = (exact(t + d), exact(t - d));
    let mut hpsi = vec![c64::new(0.0, 0.0); 4];
    Driven
        .apply_at(
            &cpu,
            t,
            c64::new(0.0, -1.0),
            &exact(t),
            c64::new(0.0, 0.0),
            &mut hpsi,
        )
        .unwrap();
    for k in 0..4 {
        assert!(((p[k] - m[k]) / (2.0 * d) - hpsi[k]).norm() < 1e-8);
    }
}

#[test]
fn midpoint_has_order_two() {
    check_order(
        MagnusScheme::Midpoint,
        ExpMethod::Lanczos,
        &[20, 40, 80, 160],
    );
}

#[test]
fn gauss_magnus_has_order_four() {
    check_order(MagnusScheme::Gauss4, ExpMethod::Lanczos, &[10, 20, 40, 80]);
}

#[test]
fn commutator_free_has_order_four() {
    check_order(
        MagnusScheme::CommutatorFree4,
        ExpMethod::Lanczos,
        &[10, 20, 40, 80],
    );
}

#[test]
fn every_exponential_solver_gives_the_order() {
    check_order(MagnusScheme::Gauss4, ExpMethod::Leja, &[10, 20, 40, 80]);
    check_order(
        MagnusScheme::CommutatorFree4,
        ExpMethod::Krylov,
        &[10, 20, 40, 80],
    );
}

#[test]
fn adaptive_steps_meet_the_tolerance_and_keep_the_norm() {
    let ex = exact(T);
    for scheme in [
        MagnusScheme::Midpoint,
        MagnusScheme::Gauss4,
        MagnusScheme::CommutatorFree4,
    ] {
        let mut prev_steps = 0;
        for rtol in [1e-5, 1e-7, 1e-9] {
            let (psi, rep) = run(
                scheme,
                ExpMethod::Lanczos,
                MagnusStepping::Adaptive {
                    tol: Tolerance::new(rtol, 0.0),
                    h0: None,
                    h_min: 1e-8,
                    h_max: 1.0,
                },
            );
            let e = dist(&psi, &ex);
            println!("{scheme:?} rtol {rtol:e}: error {e:.3e}, {rep:?}");
            // The local tolerance summed over the steps bounds the global error (×10 margin
            // for the estimate's own error).
            assert!(
                e < 10.0 * rtol * rep.steps as f64,
                "{scheme:?} rtol {rtol:e}: error {e:.3e} after {} steps",
                rep.steps
            );
            assert!(rep.steps >= prev_steps);
            prev_steps = rep.steps;
            // Unitary steps: the norm drifts by no more than the exponentials' tolerance per
            // step (3 exponentials of each step doubling).
            let drift = (norm(&psi) - norm(&psi0())).abs();
            assert!(
                drift < 1e-12 * 3.0 * (rep.steps + rep.rejected) as f64 + 1e-14,
                "{scheme:?}: norm drift {drift:.3e}"
            );
        }
    }
}

#[test]
fn norm_is_preserved_over_long_fixed_runs() {
    // The discrete error is large at 25 steps, yet every step stays unitary.
    for scheme in [
        MagnusScheme::Midpoint,
        MagnusScheme::Gauss4,
        MagnusScheme::CommutatorFree4,
    ] {
        let (psi, rep) = run(
            scheme,
            ExpMethod::Lanczos,
            MagnusStepping::Fixed { steps: 25 },
        );
        let drift = (norm(&psi) - norm(&psi0())).abs();
        assert!(
            drift < 1e-12,
            "{scheme:?}: norm drift {drift:.3e} ({rep:?})"
        );
        assert!(
            dist(&psi, &exact(T)) > 1e-8,
            "the test must not be trivially exact"
        );
    }
}

#[test]
fn real_scalars_and_bad_options_are_rejected() {
    let cpu = CpuBackend::new();
    assert!(Magnus::<CpuBackend, f64>::new(&cpu, 4, MagnusOptions::default()).is_err());
    let bad = MagnusOptions {
        stepping: MagnusStepping::Fixed { steps: 0 },
        ..Default::default()
    };
    assert!(Magnus::<CpuBackend, c64>::new(&cpu, 4, bad).is_err());
    let mut m = Magnus::<CpuBackend, c64>::new(&cpu, 4, MagnusOptions::default()).unwrap();
    let mut short = vec![c64::new(1.0, 0.0); 3];
    assert!(m.integrate(&Driven, 0.0, 1.0, &mut short).is_err());
    let mut nan = psi0();
    nan[1] = c64::new(f64::NAN, 0.0);
    assert!(m.integrate(&Driven, 0.0, 1.0, &mut nan).is_err());
}
