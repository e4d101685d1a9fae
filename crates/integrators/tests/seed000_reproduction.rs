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

mod leja_common;

use leja_common::*;
use matexp_core::{CpuBackend, LinearOperator, c64};
use matexp_integrators::{ExpmvMethod, Leja, LejaOptions};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d, laplacian_eigenvalue};
use std::f64::consts::PI;

const TOL: f64 = 1e-5;

/// J_0(x), …, J_K(x) by Miller's backward recurrence, normalised by J₀ + 2ΣJ_{2k} = 1.
fn bessel_j(x: f64, kmax: usize) -> Vec<f64> {
    let start = kmax + 40 + (x.sqrt() as usize) * 4;
    let mut j = vec![0.0f64; start + 2];
    j[start] = 1e-300;
    for k in (1..=start).rev() {
        j[k - 1] = 2.0 * k as f64 / x * j[k] - j[k + 1];
        if j[k - 1].abs() > 1e250 {
            j.iter_mut().for_each(|v| *v *= 1e-250);
        }
    }
    let norm = j[0] + 2.0 * j.iter().skip(2).step_by(2).sum::<f64>();
    j.truncate(kmax + 1);
    j.iter().map(|v| v / norm).collect()
}

/// e^{−itH}ψ by the Chebyshev expansion on the Gershgorin interval [a, b] of H.
fn chebyshev_propagate(h: &CsrMatrix<c64, u32>, t: f64, psi: &[c64]) -> Vec<c64> {
    let b = h.gershgorin().unwrap();
    let (c, r) = ((b.re_min + b.re_max) / 2.0, (b.re_max - b.re_min) / 2.0);
    let x = t * r;
    let kmax = (x + 30.0 * x.cbrt() + 60.0) as usize;
    let jk = bessel_j(x, kmax);
    let cpu = CpuBackend::new();
    let n = psi.len();
    let scaled = |v: &Vec<c64>, out: &mut Vec<c64>| {
        // out ← (H − c)/r · v
        out.iter_mut().zip(v).for_each(|(o, x)| *o = -x * (c / r));
        h.apply(&cpu, c64::new(1.0 / r, 0.0), v, c64::new(1.0, 0.0), out)
            .unwrap();
    };
    let mut t_prev = psi.to_vec();
    let mut t_cur = vec![c64::new(0.0, 0.0); n];
    scaled(&t_prev, &mut t_cur);
    let mi = c64::new(0.0, -1.0);
    let mut sum: Vec<c64> = t_prev.iter().map(|v| v * jk[0]).collect();
    let mut phase = mi;
    for k in 1..=kmax {
        let coef = phase * (2.0 * jk[k]);
        sum.iter_mut().zip(&t_cur).for_each(|(s, v)| *s += coef * v);
        let mut t_next = vec![c64::new(0.0, 0.0); n];
        scaled(&t_cur, &mut t_next);
        t_next
            .iter_mut()
            .zip(&t_prev)
            .for_each(|(a, p)| *a = 2.0 * *a - p);
        t_prev = std::mem::replace(&mut t_cur, t_next);
        phase *= mi;
    }
    let rot = c64::new(0.0, -t * c).exp();
    sum.iter().map(|s| s * rot).collect()
}

/// u₀ = sin(2πx) on the N³ interior grid (index i_x + N·i_y + N²·i_z).
fn laplace_initial(n: usize) -> Vec<f64> {
    let h = 1.0 / (n + 1) as f64;
    (0..n * n * n)
        .map(|i| (2.0 * PI * ((i % n) + 1) as f64 * h).sin())
        .collect()
}

/// e^{hA}u₀ for the 3D Dirichlet Laplacian, from the separable form (see module docs).
fn laplace_reference(n: usize, h: f64) -> Vec<f64> {
    let dx = 1.0 / (n + 1) as f64;
    let s: Vec<f64> = (1..=n).map(|i| (2.0 * PI * i as f64 * dx).sin()).collect();
    let decay2 = (h * laplacian_eigenvalue(n, &[2])).exp();
    // e^{hA₁}·1 = Σ_k c_k e^{hλ_k} sin(kπx), c_k = (2/(N+1)) Σ_i sin(kπx_i).
    let mut g = vec![0.0; n];
    for k in 1..=n {
        let mode: Vec<f64> = (1..=n).map(|i| (PI * (k * i) as f64 * dx).sin()).collect();
        let ck = 2.0 * dx * mode.iter().sum::<f64>();
        let w = ck * (h * laplacian_eigenvalue(n, &[k])).exp();
        g.iter_mut().zip(&mode).for_each(|(gi, m)| *gi += w * m);
    }
    (0..n * n * n)
        .map(|i| decay2 * s[i % n] * g[(i / n) % n] * g[i / (n * n)])
        .collect()
}

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
