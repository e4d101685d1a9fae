//! Two spins in a spin bath (seed 000 §3.1.1, Figure 2): ⟨S_z⟩ of spin 1 under
//! ψ(t) = e^{−itH}ψ₀, H from `matexp_sparse::generators::SpinBath` (J₀ = 8, J_i ~ U[0, 0.4]),
//! ψ₀ = spin 1 up, spin 2 down, bath random and normalised.

#![allow(dead_code)]

use matexp_core::{CpuBackend, Result, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions, Tolerance};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros};

/// The Hamiltonian and initial state of the seed's model with `spins` spins.
pub fn model(spins: usize) -> Result<(CsrMatrix<c64, u32>, Vec<c64>)> {
    let m = SpinBath::seed000(spins, 2011)?;
    let h = m.hamiltonian::<c64, u32>(StoredZeros::Drop)?;
    let psi0 = m.initial_state::<c64>(7)?;
    Ok((h, psi0))
}

/// ⟨S_z⟩ of spin 1 (the most significant bit; a clear bit is spin up, +½).
pub fn sz_spin1(psi: &[c64], spins: usize) -> f64 {
    let bit = spins - 1;
    psi.iter()
        .enumerate()
        .map(|(i, z)| if i >> bit & 1 == 0 { 0.5 } else { -0.5 } * z.norm_sqr())
        .sum()
}

/// ⟨S_z⟩ of spin 1 at t = k·dt, k = 0..=steps, by Leja interpolation on the imaginary focal
/// interval at tolerance `rtol`, marching in chunks of output times (each output costs only
/// the substeps from the previous one). Returns the curve and the products spent.
pub fn curve(
    h: &CsrMatrix<c64, u32>,
    psi0: &[c64],
    spins: usize,
    dt: f64,
    steps: usize,
    rtol: f64,
) -> Result<(Vec<f64>, usize)> {
    let cpu = CpuBackend::new();
    let mut leja = Leja::new(
        &cpu,
        LejaOptions {
            tol: Tolerance::new(rtol, 0.0),
            ..Default::default()
        },
    )?;
    let n = psi0.len();
    let chunk = 50;
    let mut psi = psi0.to_vec();
    let mut out = vec![sz_spin1(&psi, spins)];
    let mut products = 0;
    let mut done = 0;
    while done < steps {
        let m = chunk.min(steps - done);
        let times: Vec<c64> = (1..=m).map(|k| c64::new(0.0, -(k as f64) * dt)).collect();
        let mut outs = vec![vec![c64::new(0.0, 0.0); n]; m];
        products += leja.expmv_times(h, &times, &psi, &mut outs)?.matvecs;
        out.extend(outs.iter().map(|p| sz_spin1(p, spins)));
        psi = outs.pop().expect("m ≥ 1");
        done += m;
    }
    Ok((out, products))
}
