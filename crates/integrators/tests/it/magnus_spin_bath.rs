//! Seed 000 Figure 2 at a small size: ⟨S_z⟩ of spin 1 for L = 8 spins up to t = 10, by the
//! Leja march of the example and by the Magnus integrators on the constant Hamiltonian,
//! against a dense eigendecomposition reference.

#[path = "../../examples/support/spin_bath.rs"]
mod spin_bath;

use matexp_core::{Autonomous, CpuBackend, LinearOperator, c64};
use matexp_dense::{Matrix, eigh};
use matexp_expmv::Tolerance;
use matexp_integrators::magnus::{ExpMethod, Magnus, MagnusOptions, MagnusScheme, MagnusStepping};
use spin_bath::{curve, model, sz_spin1};

const L: usize = 8;
const DT: f64 = 0.5;
const STEPS: usize = 20;

/// ⟨S_z⟩(k·DT) from ψ(t) = V e^{−itΛ} V* ψ₀.
fn reference() -> Vec<f64> {
    let cpu = CpuBackend::new();
    let (h, psi0) = model(L).unwrap();
    let n = psi0.len();
    let mut dense = Matrix::<c64>::zeros(n, n);
    let mut e = vec![c64::new(0.0, 0.0); n];
    let mut col = vec![c64::new(0.0, 0.0); n];
    for j in 0..n {
        e.iter_mut().for_each(|x| *x = c64::new(0.0, 0.0));
        e[j] = c64::new(1.0, 0.0);
        h.apply(&cpu, c64::new(1.0, 0.0), &e, c64::new(0.0, 0.0), &mut col)
            .unwrap();
        dense.col_mut(j).copy_from_slice(&col);
    }
    let (lambda, v) = eigh(&dense).unwrap();
    // c = V* ψ₀
    let c: Vec<c64> = (0..n)
        .map(|k| v.col(k).iter().zip(&psi0).map(|(a, b)| a.conj() * b).sum())
        .collect();
    (0..=STEPS)
        .map(|s| {
            let t = s as f64 * DT;
            let mut psi = vec![c64::new(0.0, 0.0); n];
            for k in 0..n {
                let w = c[k] * c64::from_polar(1.0, -t * lambda[k]);
                for (p, vk) in psi.iter_mut().zip(v.col(k)) {
                    *p += w * vk;
                }
            }
            sz_spin1(&psi, L)
        })
        .collect()
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// One test: the dense reference calls LAPACK's Hermitian eigensolver, which must not run
/// beside another LAPACK call in the same process (OpenBLAS builds without locking crash).
#[test]
fn figure_2_at_small_size_matches_the_dense_reference() {
    let r = reference();
    leja_march_matches_the_dense_reference(&r);
    magnus_on_the_constant_hamiltonian_matches_the_reference(&r);
}

fn leja_march_matches_the_dense_reference(r: &[f64]) {
    let (h, psi0) = model(L).unwrap();
    for (rtol, bound) in [(1e-6, 1e-5), (1e-10, 1e-8)] {
        let (c, products) = curve(&h, &psi0, L, DT, STEPS, rtol).unwrap();
        let e = max_diff(&c, r);
        println!("rtol {rtol:e}: max |Δ⟨S_z⟩| = {e:.3e}, {products} products");
        assert!(e < bound, "rtol {rtol:e}: error {e:.3e}");
    }
    // Not a trivial curve: spin 1 starts up and exchanges with spin 2.
    assert!((r[0] - 0.5).abs() < 1e-12 && r.iter().any(|&s| s < 0.3));
}

fn magnus_on_the_constant_hamiltonian_matches_the_reference(r: &[f64]) {
    let (h, psi0) = model(L).unwrap();
    let cpu = CpuBackend::new();
    let hop = Autonomous(h);
    for scheme in [
        MagnusScheme::Midpoint,
        MagnusScheme::Gauss4,
        MagnusScheme::CommutatorFree4,
    ] {
        let opts = MagnusOptions {
            scheme,
            method: ExpMethod::Lanczos,
            exp_tol: Tolerance::new(1e-11, 0.0),
            stepping: MagnusStepping::Fixed { steps: 5 },
            ..Default::default()
        };
        let mut m = Magnus::new(&cpu, psi0.len(), opts).unwrap();
        let mut psi = psi0.clone();
        let mut c = vec![sz_spin1(&psi, L)];
        for s in 0..STEPS {
            m.integrate(&hop, s as f64 * DT, (s + 1) as f64 * DT, &mut psi)
                .unwrap();
            c.push(sz_spin1(&psi, L));
        }
        let e = max_diff(&c, r);
        println!("{scheme:?}: max |Δ⟨S_z⟩| = {e:.3e}");
        // For constant H every scheme is the exact exponential (CF4:2's weights sum to 1).
        assert!(e < 1e-8, "{scheme:?}: error {e:.3e}");
    }
}
