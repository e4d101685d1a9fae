//! A CNOT gate on two NMR qubits coupled to a spin bath (seed 000, §3.1.2), propagated by the
//! Magnus integrators.
//!
//! **Hamiltonian** (the seed's eq. (7) with the field phase written as ϑ): qubits 1 and 2 with
//! Larmor frequencies h₁ = 1, h₂ = γh₁ (γ = ¼), scalar coupling J = −0.43·10⁻⁶ (the value the
//! seed's Table 1 implies; its text says −0.431·10⁻⁶), and a circularly polarised RF field of
//! amplitude k, carrier ω and phase ϑ on one qubit i:
//!
//! H(t) = −J S_z1 S_z2 − h₁S_z1 − h₂S_z2 − k(S_xi cos(ωt + ϑ) − S_yi sin(ωt + ϑ)) + H_bath,
//!
//! with ϑ = 0 the seed's k_y field and ϑ = −π/2 its k_x field. The bath is L_b spins coupled
//! to both qubits, H_bath = λ Σ_b u_b S_zb (S_z1 + S_z2), u_b uniform in [0, 0.4] as the seed's
//! bath couplings: the secular (Ising) form of the seed's Heisenberg coupling, which is what
//! remains of it when the bath spins' Larmor frequencies differ from the qubits' by much more
//! than λ (a heteronuclear bath). λ is the coupling strength of the fidelity curve.
//!
//! **Design.** The gate is CNOT = (I ⊗ Had)·CZ·(I ⊗ Had) with Had = R_x(π)R_y(π/2) up to a
//! phase and CZ = R_z1(−π/2)R_z2(−π/2)·e^{−i(π/|J|)(−J S_z1S_z2)} up to a phase, each
//! R_z(α) = R_y(−π/2)R_x(α)R_y(π/2) — the seed's sequence, evaluated in the frame rotating
//! with each qubit's Larmor frequency (the NMR convention: the free Zeeman precession is a
//! clock, not part of the gate). The seed's Table 1 drives both qubits with every pulse
//! (homonuclear, field ratio γ) and chooses durations where the other qubit makes whole
//! turns; that condition (its eq. (10)) holds only approximately (its Theorem 47: error
//! O(1/(KM²(M − N))), about 10⁻² for γ = ¼, K = 1), far from a fidelity of 1 − 10⁻⁸. Here each
//! pulse drives its own qubit only (the heteronuclear limit of the same Hamiltonian), on
//! resonance (ω = h_i) with the phase referred to the global clock, so that in the rotating
//! frame it is exactly the rotation R_n(φ) about n = (cos ϑ, −sin ϑ, 0) with k = −φ/T_p; the
//! coupling J acts during the pulses and costs O((J T_p)²) of fidelity, ≈ 10⁻¹².
//!
//! **Propagation.** Pulses are integrated in the laboratory frame by the Magnus integrator
//! (fields rotating at the Larmor frequency); the free evolution (no field, T = π/|J| ≈
//! 7.3·10⁶) in the rotating frame, where H is the J and bath coupling only, so that its cost
//! does not grow with T·h₁; the frame change e^{±i(h₁S_z1 + h₂S_z2)t} between them is
//! diagonal and exact.
//!
//! **Fidelity.** With the bath in a random pure state χ, the four runs from e_j ⊗ χ give
//! every input by linearity; the reported fidelity is the mean over the 16 product inputs
//! {|0⟩, |1⟩, |+⟩, |+i⟩}^⊗2 of ⟨d|ρ|d⟩, ρ the qubits' reduced state and d = CNOT·c the ideal
//! output (insensitive to the global phase, sensitive to relative ones).

#![allow(dead_code)]

use matexp_core::{CpuBackend, Result, TimeDependentOperator, c64};
use matexp_expmv::Tolerance;
use matexp_integrators::magnus::{ExpMethod, Magnus, MagnusOptions, MagnusScheme, MagnusStepping};
use std::f64::consts::PI;

/// Parameters of the NMR model.
#[derive(Debug, Clone)]
pub struct Nmr {
    pub h1: f64,
    pub h2: f64,
    pub j: f64,
    /// λ·u_b of each bath spin.
    pub bath: Vec<f64>,
    /// RF amplitude of the pulses (|k|).
    pub k: f64,
}

impl Nmr {
    /// The seed's two qubits (h₁ = 1, γ = ¼, J = −0.43·10⁻⁶) and `bath_spins` bath spins
    /// with couplings λ·u_b (u_b from a fixed SplitMix64 stream, uniform in [0, 0.4]).
    pub fn seed000(bath_spins: usize, lambda: f64) -> Self {
        let mut s = 0x05EE_D000_u64;
        let bath = (0..bath_spins)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                lambda * 0.4 * ((z >> 11) as f64 / (1u64 << 53) as f64)
            })
            .collect();
        Nmr {
            h1: 1.0,
            h2: 0.25,
            j: -0.43e-6,
            bath,
            k: 0.5,
        }
    }

    pub fn bath_spins(&self) -> usize {
        self.bath.len()
    }

    pub fn dim(&self) -> usize {
        4 << self.bath.len()
    }

    /// S_z of qubit q (1 or 2) in basis state `idx` (bit clear = up = +½).
    fn sz(&self, idx: usize, q: usize) -> f64 {
        let bit = self.bath.len() + 2 - q;
        if idx >> bit & 1 == 0 { 0.5 } else { -0.5 }
    }

    /// The diagonal of H: J and bath terms, plus the Zeeman terms in the laboratory frame.
    fn diagonal(&self, idx: usize, lab: bool) -> f64 {
        let (s1, s2) = (self.sz(idx, 1), self.sz(idx, 2));
        let mut d = -self.j * s1 * s2;
        if lab {
            d -= self.h1 * s1 + self.h2 * s2;
        }
        for (b, &c) in self.bath.iter().enumerate() {
            let sb = if idx >> b & 1 == 0 { 0.5 } else { -0.5 };
            d += c * sb * (s1 + s2);
        }
        d
    }
}

/// One pulse: rotation R_n(φ) of qubit `qubit`, n = x (ϑ = 0) or y (ϑ = −π/2).
#[derive(Debug, Clone, Copy)]
pub struct Pulse {
    pub qubit: usize,
    pub axis: char,
    pub angle: f64,
}

/// The Hamiltonian during a pulse (laboratory frame) or the free evolution (rotating frame).
pub struct Segment<'a> {
    pub model: &'a Nmr,
    pub pulse: Option<(Pulse, f64)>, // (pulse, amplitude k with sign)
}

impl TimeDependentOperator<CpuBackend, c64> for Segment<'_> {
    fn nrows(&self) -> usize {
        self.model.dim()
    }
    fn ncols(&self) -> usize {
        self.model.dim()
    }
    fn apply_at(
        &self,
        _: &CpuBackend,
        t: f64,
        alpha: c64,
        x: &Vec<c64>,
        beta: c64,
        y: &mut Vec<c64>,
    ) -> Result<()> {
        let m = self.model;
        let lab = self.pulse.is_some();
        let field = self.pulse.map(|(p, k)| {
            let (omega, bit) = if p.qubit == 1 {
                (m.h1, m.bath.len() + 1)
            } else {
                (m.h2, m.bath.len())
            };
            let theta = if p.axis == 'x' { 0.0 } else { -PI / 2.0 };
            // −k(S_x cos a − S_y sin a): |↑⟩ → −(k/2)e^{−ia}|↓⟩, |↓⟩ → −(k/2)e^{ia}|↑⟩.
            (bit, c64::from_polar(-0.5 * k, -(omega * t + theta)))
        });
        let zero = c64::new(0.0, 0.0);
        for (i, yi) in y.iter_mut().enumerate() {
            let mut hx = x[i] * m.diagonal(i, lab);
            if let Some((bit, w)) = field {
                let from = x[i ^ (1 << bit)];
                // Row i gets the amplitude of the flipped state: a down row (bit set) receives
                // from up with w, an up row from down with conj(w).
                hx += if i >> bit & 1 == 1 {
                    w * from
                } else {
                    w.conj() * from
                };
            }
            *yi = alpha * hx + if beta == zero { zero } else { beta * *yi };
        }
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

/// The pulse sequence of the CNOT (time order) with the free evolution marked by `None`.
pub fn sequence() -> Vec<Option<Pulse>> {
    let p = |qubit, axis, angle| Some(Pulse { qubit, axis, angle });
    let rz = |q: usize, a: f64| [p(q, 'y', PI / 2.0), p(q, 'x', a), p(q, 'y', -PI / 2.0)];
    let mut s = vec![p(2, 'y', PI / 2.0), p(2, 'x', PI), None];
    s.extend(rz(1, -PI / 2.0));
    s.extend(rz(2, -PI / 2.0));
    s.extend([p(2, 'y', PI / 2.0), p(2, 'x', PI)]);
    s
}

/// e^{±i(h₁S_z1 + h₂S_z2)t}: from the rotating to the laboratory frame (`to_lab`) or back.
fn frame(m: &Nmr, psi: &mut [c64], t: f64, to_lab: bool) {
    let sign = if to_lab { 1.0 } else { -1.0 };
    for (i, v) in psi.iter_mut().enumerate() {
        let e = m.h1 * m.sz(i, 1) + m.h2 * m.sz(i, 2);
        *v *= c64::from_polar(1.0, sign * e * t);
    }
}

/// What one gate run costs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cost {
    pub steps: usize,
    pub matvecs: usize,
}

/// Runs the gate on `psi` (rotating frame in and out), the pulses by `scheme` at local
/// tolerance `tol`.
pub fn run_gate(m: &Nmr, psi: &mut Vec<c64>, scheme: MagnusScheme, tol: f64) -> Result<Cost> {
    let cpu = CpuBackend::new();
    let n = m.dim();
    let mut cost = Cost::default();
    let mut t = 0.0;
    let pulse_opts = MagnusOptions {
        scheme,
        method: ExpMethod::Lanczos,
        exp_tol: Tolerance::new((tol * 1e-2).max(1e-14), 0.0),
        stepping: MagnusStepping::Adaptive {
            tol: Tolerance::new(tol, 0.0),
            h0: Some(0.05),
            h_min: 1e-9,
            h_max: 0.5,
        },
        ..Default::default()
    };
    let mut pulses = Magnus::new(&cpu, n, pulse_opts)?;
    for seg in sequence() {
        match seg {
            Some(p) => {
                let duration = p.angle.abs() / m.k;
                let k = -p.angle / duration;
                frame(m, psi, t, true);
                let op = Segment {
                    model: m,
                    pulse: Some((p, k)),
                };
                let r = pulses.integrate(&op, t, t + duration, psi)?;
                t += duration;
                frame(m, psi, t, false);
                cost.steps += r.steps;
                cost.matvecs += r.matvecs;
            }
            None => {
                // Constant H in the rotating frame: one exponential per slice of ‖τH‖ ≲ 20.
                let duration = PI / m.j.abs();
                let norm = m.j.abs() / 4.0 + m.bath.iter().map(|c| c.abs() * 0.5).sum::<f64>();
                let slices = ((duration * norm / 20.0).ceil() as usize).max(1);
                let opts = MagnusOptions {
                    scheme: MagnusScheme::Midpoint,
                    method: ExpMethod::Lanczos,
                    exp_tol: Tolerance::new((tol * 1e-2).max(1e-14), 0.0),
                    stepping: MagnusStepping::Fixed { steps: slices },
                    ..Default::default()
                };
                let mut free = Magnus::new(&cpu, n, opts)?;
                let op = Segment {
                    model: m,
                    pulse: None,
                };
                let r = free.integrate(&op, t, t + duration, psi)?;
                t += duration;
                cost.steps += r.steps;
                cost.matvecs += r.matvecs;
            }
        }
    }
    Ok(cost)
}

/// The ideal CNOT (qubit 1 controls, basis |q₁q₂⟩ with |0⟩ = up).
pub fn cnot(c: [c64; 4]) -> [c64; 4] {
    [c[0], c[1], c[3], c[2]]
}

/// The 16 product inputs {|0⟩, |1⟩, |+⟩, |+i⟩}^⊗2.
pub fn inputs() -> Vec<[c64; 4]> {
    let s = 0.5f64.sqrt();
    let one = [
        [c64::new(1.0, 0.0), c64::new(0.0, 0.0)],
        [c64::new(0.0, 0.0), c64::new(1.0, 0.0)],
        [c64::new(s, 0.0), c64::new(s, 0.0)],
        [c64::new(s, 0.0), c64::new(0.0, s)],
    ];
    let mut v = Vec::new();
    for a in one {
        for b in one {
            v.push([a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]);
        }
    }
    v
}

/// Mean and smallest fidelity over [`inputs`] from the four propagated columns W_j (each
/// the state from e_j ⊗ χ).
pub fn fidelity(m: &Nmr, cols: &[Vec<c64>; 4]) -> (f64, f64) {
    let nb = 1usize << m.bath_spins();
    let (mut sum, mut min) = (0.0, f64::INFINITY);
    let ins = inputs();
    for c in &ins {
        let d = cnot(*c);
        let mut f = 0.0;
        for b in 0..nb {
            // ⟨d| ⊗ ⟨b| applied to Σ_j c_j W_j.
            let mut amp = c64::new(0.0, 0.0);
            for q in 0..4 {
                let mut out = c64::new(0.0, 0.0);
                for (j, w) in cols.iter().enumerate() {
                    out += c[j] * w[(q * nb) | b];
                }
                amp += d[q].conj() * out;
            }
            f += amp.norm_sqr();
        }
        sum += f;
        min = f64::min(min, f);
    }
    (sum / ins.len() as f64, min)
}

/// A random normalised bath state (SplitMix64 with `seed`).
pub fn bath_state(spins: usize, seed: u64) -> Vec<c64> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut v: Vec<c64> = (0..1usize << spins)
        .map(|_| c64::new(next(), next()))
        .collect();
    let norm = v.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// The gate's mean and smallest fidelity and its cost, for the bath in a random state.
pub fn gate_fidelity(m: &Nmr, scheme: MagnusScheme, tol: f64) -> Result<(f64, f64, Cost)> {
    let chi = bath_state(m.bath_spins(), 11);
    let nb = chi.len();
    let mut cost = Cost::default();
    let mut cols: [Vec<c64>; 4] = Default::default();
    for (j, col) in cols.iter_mut().enumerate() {
        let mut psi = vec![c64::new(0.0, 0.0); m.dim()];
        psi[j * nb..(j + 1) * nb].copy_from_slice(&chi);
        let c = run_gate(m, &mut psi, scheme, tol)?;
        cost.steps += c.steps;
        cost.matvecs += c.matvecs;
        *col = psi;
    }
    let (mean, min) = fidelity(m, &cols);
    Ok((mean, min, cost))
}
