//! Spin sectors: the matrix-free XXZ product against a dense Hamiltonian built independently
//! from the spin-basis definition (the sector by filtering all 2^L words by popcount, a
//! HashMap from word to position, the matrix elements from S^z and S^± on bits), for every
//! sector of every chain with L ≤ 12, both boundaries; rank ∘ unrank = id by proptest.

use matexp_core::{CpuBackend, LinearOperator, c32, c64};
use matexp_fock::{
    Boundary, Coupling, SpinBasis, XxzChain, basis_state, neel_word, product_state, random_state,
    sz_correlations, sz_profile,
};
use matexp_testkit::SplitMix64;
use proptest::prelude::*;
use std::collections::HashMap;

/// The sector's words in ascending order, by brute force.
fn sector(l: u32, k: u32) -> Vec<u64> {
    (0..1u64 << l).filter(|s| s.count_ones() == k).collect()
}

struct Couplings {
    jxy: Vec<f64>,
    jz: Vec<f64>,
    h: Vec<f64>,
}

fn bonds(l: u32, periodic: bool) -> Vec<(u32, u32)> {
    let mut b: Vec<(u32, u32)> = (0..l.saturating_sub(1)).map(|k| (k, k + 1)).collect();
    if periodic {
        b.push((l - 1, 0));
    }
    b
}

/// Dense H from the definitions: S^z|s⟩ = ±½|s⟩, S⁺_i S⁻_j|s⟩ = |s with i up, j down⟩ where
/// i is down and j up, and 0 otherwise.
fn dense(l: u32, k: u32, periodic: bool, c: &Couplings) -> (Vec<f64>, usize) {
    let words = sector(l, k);
    let index: HashMap<u64, usize> = words.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let d = words.len();
    let mut h = vec![0.0; d * d];
    let sz = |s: u64, q: u32| if (s >> q) & 1 == 1 { 0.5 } else { -0.5 };
    for (col, &s) in words.iter().enumerate() {
        for (b, &(i, j)) in bonds(l, periodic).iter().enumerate() {
            h[col * d + col] += c.jz[b] * sz(s, i) * sz(s, j);
            for (up, down) in [(i, j), (j, i)] {
                // S⁺_up S⁻_down needs `up` down and `down` up.
                if (s >> up) & 1 == 0 && (s >> down) & 1 == 1 {
                    let t = s | (1 << up);
                    let t = t & !(1 << down);
                    h[index[&t] * d + col] += 0.5 * c.jxy[b];
                }
            }
        }
        for q in 0..l {
            h[col * d + col] += c.h[q as usize] * sz(s, q);
        }
    }
    (h, d)
}

fn couplings(r: &mut SplitMix64, l: u32, periodic: bool) -> Couplings {
    let nb = bonds(l, periodic).len();
    let mut draw = |n: usize| (0..n).map(|_| 2.0 * r.next_f64() - 1.0).collect::<Vec<_>>();
    Couplings {
        jxy: draw(nb),
        jz: draw(nb),
        h: draw(l as usize),
    }
}

fn chain(l: u32, k: u32, periodic: bool, c: &Couplings) -> XxzChain {
    let boundary = if periodic {
        Boundary::Periodic
    } else {
        Boundary::Open
    };
    XxzChain::new(SpinBasis::new(l, k).unwrap(), boundary)
        .unwrap()
        .with_jxy(Coupling::PerSite(c.jxy.clone()))
        .unwrap()
        .with_jz(Coupling::PerSite(c.jz.clone()))
        .unwrap()
        .with_field(Coupling::PerSite(c.h.clone()))
        .unwrap()
}

#[test]
fn every_sector_up_to_twelve_sites_matches_the_dense_hamiltonian() {
    let mut r = SplitMix64::new(matexp_testkit::seed() ^ 0x5b1);
    let mut checked = 0;
    for l in 1..=12u32 {
        for periodic in [false, true] {
            if periodic && l < 3 {
                continue;
            }
            let c = couplings(&mut r, l, periodic);
            for k in 0..=l {
                let h = chain(l, k, periodic, &c);
                let (a, d) = dense(l, k, periodic, &c);
                assert_eq!(h.basis().dim() as usize, d);
                let x: Vec<f64> = (0..d).map(|_| 2.0 * r.next_f64() - 1.0).collect();
                let y0: Vec<f64> = (0..d).map(|_| 2.0 * r.next_f64() - 1.0).collect();
                // y ← 0.7·H·x − 0.3·y against the dense product.
                let mut y = y0.clone();
                h.apply(&CpuBackend, 0.7, &x, -0.3, &mut y).unwrap();
                let mut worst = 0.0f64;
                for i in 0..d {
                    let hx: f64 = (0..d).map(|j| a[i * d + j] * x[j]).sum();
                    let want = 0.7 * hx - 0.3 * y0[i];
                    worst = worst.max((y[i] - want).abs());
                }
                assert!(
                    worst <= 1e-14,
                    "L = {l}, K = {k}, ring {periodic}: {worst:e}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, (1..=12).map(|l| l + 1).sum::<u32>() * 2 - 3 - 2);
}

#[test]
fn complex_and_single_precision_products_agree_with_the_real_one() {
    let mut r = SplitMix64::new(matexp_testkit::seed() ^ 0x5b2);
    let c = couplings(&mut r, 10, true);
    let h = chain(10, 4, true, &c);
    let d = h.basis().dim() as usize;
    let (xr, xi): (Vec<f64>, Vec<f64>) = (0..d).map(|_| (r.next_f64(), r.next_f64())).unzip();
    let (mut yr, mut yi) = (vec![0.0; d], vec![0.0; d]);
    h.apply(&CpuBackend, 1.0, &xr, 0.0, &mut yr).unwrap();
    h.apply(&CpuBackend, 1.0, &xi, 0.0, &mut yi).unwrap();
    let z: Vec<c64> = xr.iter().zip(&xi).map(|(&a, &b)| c64::new(a, b)).collect();
    let mut w = vec![c64::new(0.0, 0.0); d];
    h.apply(
        &CpuBackend,
        c64::new(1.0, 0.0),
        &z,
        c64::new(0.0, 0.0),
        &mut w,
    )
    .unwrap();
    for i in 0..d {
        assert!((w[i].re - yr[i]).abs() <= 1e-14 && (w[i].im - yi[i]).abs() <= 1e-14);
    }
    let x32: Vec<f32> = xr.iter().map(|&v| v as f32).collect();
    let mut y32 = vec![0f32; d];
    h.apply(&CpuBackend, 1.0f32, &x32, 0.0, &mut y32).unwrap();
    let z32: Vec<c32> = z
        .iter()
        .map(|v| c32::new(v.re as f32, v.im as f32))
        .collect();
    let mut w32 = vec![c32::new(0.0, 0.0); d];
    h.apply(
        &CpuBackend,
        c32::new(1.0, 0.0),
        &z32,
        c32::new(0.0, 0.0),
        &mut w32,
    )
    .unwrap();
    for i in 0..d {
        assert!((f64::from(y32[i]) - yr[i]).abs() <= 1e-5, "f32 row {i}");
        assert!((f64::from(w32[i].im) - yi[i]).abs() <= 1e-5, "c32 row {i}");
    }
}

#[test]
fn heisenberg_ring_energies_and_the_neel_state() {
    // The Heisenberg ring of 4 sites: the ground state (singlet, S^z = 0) has E = −2J; the
    // ferromagnet |↑↑↑↑⟩ has E = +J (4 bonds of J/4).
    let h = XxzChain::heisenberg(SpinBasis::new(4, 2).unwrap(), Boundary::Periodic, 1.0).unwrap();
    let d = h.basis().dim() as usize;
    // The ground state by power iteration on 2 − H (spectrum of H in the sector in [−2, 1]).
    let mut v = vec![1.0; d];
    v[0] = 0.3;
    for _ in 0..400 {
        let mut w = vec![0.0; d];
        h.apply(&CpuBackend, -1.0, &v, 0.0, &mut w).unwrap();
        for i in 0..d {
            w[i] += 2.0 * v[i];
        }
        let n = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        v = w.iter().map(|x| x / n).collect();
    }
    let mut hv = vec![0.0; d];
    h.apply(&CpuBackend, 1.0, &v, 0.0, &mut hv).unwrap();
    let e: f64 = v.iter().zip(&hv).map(|(a, b)| a * b).sum();
    assert!((e + 2.0).abs() < 1e-10, "E0 = {e}");
    let up = XxzChain::heisenberg(SpinBasis::new(4, 4).unwrap(), Boundary::Periodic, 1.0).unwrap();
    let mut y = vec![0.0];
    up.apply(&CpuBackend, 1.0, &vec![1.0], 0.0, &mut y).unwrap();
    assert_eq!(y[0], 1.0);
    // Néel: ⟨S^z_k⟩ = ±½ alternating, ⟨S^z_0 S^z_r⟩ = (−1)^r/4.
    let b = SpinBasis::new(8, 4).unwrap();
    let neel: Vec<f64> = basis_state(&b, neel_word(&b).unwrap()).unwrap();
    let sz = sz_profile(&b, &neel).unwrap();
    let cr = sz_correlations(&b, &neel).unwrap();
    for k in 0..8 {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        assert_eq!(sz[k], 0.5 * sign);
        assert_eq!(cr[k], 0.25 * sign);
    }
    assert!(neel_word(&SpinBasis::new(8, 3).unwrap()).is_err());
}

#[test]
fn product_and_random_states_against_their_definitions() {
    let b = SpinBasis::new(6, 3).unwrap();
    let amps: Vec<[c64; 2]> = (0..6)
        .map(|k| {
            let t = 0.3 + 0.2 * k as f64;
            [
                c64::new(t.cos(), 0.0),
                c64::from_polar(t.sin(), 0.1 * k as f64),
            ]
        })
        .collect();
    let psi: Vec<c64> = product_state(&b, &amps).unwrap();
    let words = sector(6, 3);
    let raw: Vec<c64> = words
        .iter()
        .map(|&s| (0..6).map(|k| amps[k][((s >> k) & 1) as usize]).product())
        .collect();
    let n = raw.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    for (p, r) in psi.iter().zip(&raw) {
        assert!((p - r / n).norm() < 1e-15);
    }
    assert!(product_state::<f64>(&b, &amps).is_err());
    let zero = vec![[c64::new(1.0, 0.0), c64::new(0.0, 0.0)]; 6];
    assert!(product_state::<f64>(&b, &zero).is_err());
    let r1: Vec<c64> = random_state(&b, 42).unwrap();
    let r2: Vec<c64> = random_state(&b, 43).unwrap();
    let norm = |v: &[c64]| v.iter().map(|z| z.norm_sqr()).sum::<f64>();
    assert!((norm(&r1) - 1.0).abs() < 1e-14);
    assert!(r1.iter().zip(&r2).all(|(a, b)| a != b));
    let sz = sz_profile(&b, &r1).unwrap();
    assert!((sz.iter().sum::<f64>()).abs() < 1e-14, "S^z = K − L/2 = 0");
}

proptest! {
    #[test]
    fn rank_inverts_unrank(l in 1u32..=64, kf in 0.0f64..=1.0, xf in 0.0f64..1.0) {
        let k = ((f64::from(l) * kf).round() as u32).min(l);
        let b = SpinBasis::new(l, k).unwrap();
        let i = ((b.dim() as f64) * xf) as u64 % b.dim();
        let s = b.unrank(i).unwrap();
        prop_assert_eq!(s.count_ones(), k);
        prop_assert!(l == 64 || s >> l == 0);
        prop_assert_eq!(b.rank(s).unwrap(), i);
        if i + 1 < b.dim() {
            prop_assert_eq!(b.rank(SpinBasis::next_state(s)).unwrap(), i + 1);
        }
        // The flip-flop shift equals the re-ranked column on every bond.
        for j in 0..l.saturating_sub(1) {
            if let Some(d) = b.flip_shift(s, j) {
                let t = s ^ (0b11u64 << j);
                prop_assert_eq!(i128::from(b.rank(t).unwrap()), i128::from(i) + d);
            }
        }
    }
}

#[test]
fn the_random_entries_follow_the_documented_formula() {
    // The GPU kernel (spin_random) and the QuSpin peer script compute
    // u(n) = 2·(F(seed + (n+1)·γ) >> 11)·2⁻⁵³ − 1 with F the SplitMix64 finaliser.
    let f = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let gamma = 0x9E37_79B9_7F4A_7C15u64;
    for (seed, n) in [(0u64, 0u64), (1, 7), (99, 12_345), (u64::MAX, 3)] {
        let z = f(seed.wrapping_add((n + 1).wrapping_mul(gamma)));
        let want = 2.0 * ((z >> 11) as f64 / (1u64 << 53) as f64) - 1.0;
        assert_eq!(matexp_fock::random_unit(seed, n), want);
    }
}
