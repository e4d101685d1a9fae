//! Time evolution of the Bose–Hubbard model against analytic solutions (the seed's
//! validation cases) and against the f(tA)v propagator for a time-independent model.

use matexp_core::{Backend, CpuBackend, c64};
use matexp_expmv::{LejaOptions, Tolerance, leja_schrodinger};
use matexp_fock::{
    BoseHubbard, Coupling, FockBasis, energy, fock_state, mean_field_state, site_densities,
};
use matexp_integrators::rk::{CashKarp, LinearOde, Rk4, Rk45Options};

fn double_well(j: Coupling) -> BoseHubbard {
    BoseHubbard::new(FockBasis::new(1, 2).unwrap())
        .with_hopping(j)
        .unwrap()
}

/// M = 2, N = 1, J = 0.4, from |1,0⟩: ⟨n_0⟩ = cos²(Jt).
#[test]
fn double_well_oscillation() {
    let h = double_well(Coupling::Uniform(0.4));
    let cpu = CpuBackend;
    let ode = LinearOde::schrodinger(&h).unwrap();
    let mut psi: Vec<c64> = fock_state(h.basis(), &[1, 0]).unwrap();
    let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10)).unwrap();
    let times: Vec<f64> = (0..=10).map(f64::from).collect();
    let mut worst = 0.0f64;
    let rep = rk
        .integrate_observed(&ode, &times, &mut psi, |t, y| {
            let n = site_densities(h.basis(), y)?;
            worst = worst.max((n[0] - (0.4 * t).cos().powi(2)).abs());
            worst = worst.max((n[1] - (0.4 * t).sin().powi(2)).abs());
            Ok(())
        })
        .unwrap();
    eprintln!("double well: worst |⟨n_k⟩ − exact| = {worst:e}, {rep:?}");
    assert!(worst < 1e-9, "worst density error {worst:e} ({rep:?})");
    assert!(rep.accumulated_error <= 1e-10 * 1.5, "{rep:?}");
    // RK4 with fixed steps reaches the same curve.
    let mut psi4: Vec<c64> = fock_state(h.basis(), &[1, 0]).unwrap();
    Rk4::new(&cpu, 2)
        .unwrap()
        .integrate(&ode, 0.0, 10.0, 2000, &mut psi4)
        .unwrap();
    let n = site_densities(h.basis(), &psi4).unwrap();
    assert!((n[0] - 4.0f64.cos().powi(2)).abs() < 1e-9);
}

/// J(t) = e^{−0.3t}: ⟨n_0⟩ = cos²((e^{−at} − 1)/a) → cos²(1/a).
#[test]
fn decaying_hopping_freezes_the_state() {
    let a = 0.3;
    let h = double_well(Coupling::uniform_in_time(move |t| (-a * t).exp()));
    let cpu = CpuBackend;
    let ode = LinearOde::schrodinger(&h).unwrap();
    let mut psi: Vec<c64> = fock_state(h.basis(), &[1, 0]).unwrap();
    let mut rk = CashKarp::new(&cpu, 2, Rk45Options::new(1e-10)).unwrap();
    let times = [0.0, 2.0, 5.0, 10.0, 80.0];
    let mut worst = 0.0f64;
    rk.integrate_observed(&ode, &times, &mut psi, |t, y| {
        let n = site_densities(h.basis(), y)?;
        worst = worst.max((n[0] - (((-a * t).exp() - 1.0) / a).cos().powi(2)).abs());
        Ok(())
    })
    .unwrap();
    assert!(worst < 1e-9, "worst density error {worst:e}");
    let n = site_densities(h.basis(), &psi).unwrap();
    let limit = (1.0f64 / a).cos().powi(2);
    eprintln!(
        "decaying hopping: worst error {worst:e}, |⟨n_0⟩(80) − cos²(1/a)| = {:e}",
        (n[0] - limit).abs()
    );
    assert!(
        (n[0] - limit).abs() < 1e-8,
        "⟨n_0⟩(80) = {} vs {limit}",
        n[0]
    );
}

/// The seed's Bogoliubov case at N = 19 (D = 1540): RK45 agrees with the Leja propagator
/// e^{−iHt}ψ₀ of the (time-independent) model, and both keep norm and energy.
#[test]
fn rk45_agrees_with_the_leja_propagator_on_the_four_site_model() {
    let n = 19u32;
    let h = BoseHubbard::new(FockBasis::new(n, 4).unwrap())
        .with_hopping(Coupling::Uniform(1.0))
        .unwrap()
        .with_interaction(Coupling::Uniform(1.0 / f64::from(n - 1)))
        .unwrap();
    let cpu = CpuBackend;
    let c: Vec<c64> = [130.0f64, 7.0, 3.0, 50.0]
        .iter()
        .map(|&x| c64::new((x / 190.0).sqrt(), 0.0))
        .collect();
    let psi0: Vec<c64> = mean_field_state(h.basis(), &c).unwrap();
    assert!((cpu.nrm2(&psi0).unwrap() - 1.0).abs() < 1e-13);
    let frozen = h.at(0.0).unwrap();
    let mut scratch = cpu.zeros::<c64>(psi0.len()).unwrap();
    let e0 = energy(&cpu, &frozen, &psi0, &mut scratch).unwrap();

    let t = 5.0;
    let mut psi = psi0.clone();
    let ode = LinearOde::schrodinger(&h).unwrap();
    CashKarp::new(&cpu, psi.len(), Rk45Options::new(1e-10))
        .unwrap()
        .integrate(&ode, 0.0, t, &mut psi)
        .unwrap();
    let opts = LejaOptions {
        tol: Tolerance::relative(1e-12),
        ..Default::default()
    };
    let (w, _) = leja_schrodinger(&cpu, &frozen, t, &psi0, &opts).unwrap();
    let diff: f64 = psi
        .iter()
        .zip(&w)
        .map(|(a, b)| (a - b).norm_sqr())
        .sum::<f64>()
        .sqrt();
    eprintln!("four-site N = 19: ‖ψ_RK45 − ψ_Leja‖ = {diff:e}");
    assert!(diff < 1e-8, "‖ψ_RK45 − ψ_Leja‖ = {diff:e}");
    let (nr, nl) = (
        site_densities(h.basis(), &psi).unwrap(),
        site_densities(h.basis(), &w).unwrap(),
    );
    for k in 0..4 {
        assert!((nr[k] - nl[k]).abs() < 1e-7);
    }
    assert!((nr.iter().sum::<f64>() - f64::from(n)).abs() < 1e-8);
    assert!((cpu.nrm2(&psi).unwrap() - 1.0).abs() < 1e-9);
    let e = energy(&cpu, &frozen, &psi, &mut scratch).unwrap();
    assert!(
        (e - e0).abs() < 1e-8 * e0.abs().max(1.0),
        "energy drift {}",
        e - e0
    );
}
