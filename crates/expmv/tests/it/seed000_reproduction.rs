//! Reproduction, at the smallest sizes, of the runs of the 2011 GPU thesis (seed 000):
//! two spins in a spin bath, e^{−itH}ψ₀ to t = 20 (Table 9's setting at L = 12 instead of
//! 18), and the 3D heat equation e^{hA}u₀ with u₀ = sin(2πx) for h = 0.1 and 0.01 (Tables 11
//! and 12's setting at N = 32 instead of 128/256), tolerance 1e−5.
//!
//! Final times. The thesis's spin-bath program marches to t = 20 with fixed steps h = 0.1
//! (its Algorithm 7 passes 0.1 to `MatrixFunction::init`), so T = 20 in 200 substeps. Its
//! Laplace example computes one matrix function, e^{−hA}u₀ with A the positive definite
//! discrete Laplacian — in our sign convention e^{hA}u₀, i.e. T = h, one step. Our adaptive
//! method picks its own substeps for the same T.
//!
//! References, independent of the code under test: the Laplace solution is separable,
//! e^{hA}(s ⊗ 1 ⊗ 1) = (e^{hλ₂}s) ⊗ (e^{hA₁}1) ⊗ (e^{hA₁}1) with s the second sine mode and
//! e^{hA₁}1 summed over the sine basis of the 1D Laplacian A₁ (exact); the spin bath is
//! checked against a Chebyshev expansion with Bessel coefficients (Tal-Ezer & Kosloff) to
//! 1e−13. The benchmark suite `expmv` records the same runs at all sizes with timings.

use crate::leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d};
use matexp_testkit::reference::{
    bessel_j, chebyshev_propagate, laplace_initial, laplace_reference,
};

const TOL: f64 = 1e-5;

#[test]
fn bessel_normalisation_is_right() {
    // J_0(1) and J_5(10) (Abramowitz & Stegun, Table 9.1).
    let j = bessel_j(1.0, 3);
    assert!((j[0] - 0.765_197_686_557_966_6).abs() < 1e-15);
    let j = bessel_j(10.0, 6);
    assert!((j[5] - (-0.234_061_528_186_793_7)).abs() < 1e-14);
}

#[test]
fn laplace_reference_solves_the_heat_equation() {
    // The separable reference must match a direct Leja run at tight tolerance on a small grid.
    let n = 6;
    let a = laplacian_3d::<f64, u32>(n).unwrap();
    let exact = dense_expmv(&a.to_dense().unwrap(), n * n * n, 0.01, &laplace_initial(n));
    assert!(rel_err(&laplace_reference(n, 0.01), &exact) < 1e-12);
}

#[test]
fn spin_bath_l12_to_t20() {
    let cpu = CpuBackend::new();
    let model = SpinBath::seed000(12, 2011).unwrap();
    let h = model.hamiltonian::<c64, u32>(StoredZeros::Keep).unwrap();
    let n = h.nrows();
    let psi0 = model.initial_state::<c64>(1).unwrap();
    let t = 20.0;
    let reference = chebyshev_propagate(&h, t, &psi0);
    assert!((norm2(&reference) - 1.0).abs() < 1e-12);

    // The adaptive method on the imaginary focal interval.
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(TOL)).unwrap();
    let mut w = vec![c64::new(0.0, 0.0); n];
    let r = leja.schrodinger(&h, t, &psi0, &mut w).unwrap();
    let err = rel_err(&w, &reference);
    assert!(
        err <= 10.0 * TOL,
        "adaptive: error {err:.2e} ({} products)",
        r.matvecs
    );

    // The thesis's Algorithm 10: 200 steps of h = 0.1, plain recurrence, ≤ 500 points.
    let mut seed = Leja::new(&cpu, LejaOptions::seed_fixed(200, TOL)).unwrap();
    let rs = seed.schrodinger(&h, t, &psi0, &mut w).unwrap();
    let err_seed = rel_err(&w, &reference);
    assert_eq!(rs.substeps, 200);
    assert!(
        err_seed <= 10.0 * TOL,
        "thesis method: error {err_seed:.2e} ({} products)",
        rs.matvecs
    );
    println!(
        "spin bath L = 12, t = 20: adaptive {} products (error {err:.1e}), thesis {} products (error {err_seed:.1e})",
        r.matvecs, rs.matvecs
    );
}

#[test]
fn laplace_3d_n32_for_both_steps() {
    let cpu = CpuBackend::new();
    let n = 32;
    let a = laplacian_3d::<f64, u32>(n).unwrap();
    let u0 = laplace_initial(n);
    for h in [0.1, 0.01] {
        let reference = laplace_reference(n, h);
        let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(TOL)).unwrap();
        let mut w = vec![0.0; a.nrows()];
        let r = leja.expmv(&a, h, &u0, &mut w).unwrap();
        let err = rel_err(&w, &reference);
        assert!(
            err <= 10.0 * TOL,
            "h = {h}: error {err:.2e} ({} products)",
            r.matvecs
        );
        println!(
            "Laplace N = 32, h = {h}: {} products, {} substeps, error {err:.1e}",
            r.matvecs, r.substeps
        );
    }
}
