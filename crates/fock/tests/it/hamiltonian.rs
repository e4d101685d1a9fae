//! The matrix-free product against a dense Hamiltonian built independently: occupation
//! vectors by direct enumeration (nested recursion, no ranking) and a HashMap from occupation
//! vector to index, the matrix elements from the definitions of b†b and n.

use matexp_core::{Backend, CpuBackend, LinearOperator, TimeDependentOperator, c32, c64};
use matexp_fock::{BoseHubbard, Boundary, Coupling, FockBasis};
use std::collections::HashMap;

/// All states of `n` bosons on `m` sites, in lexicographic order (the recursion puts the
/// smaller first occupation first).
fn enumerate(n: u32, m: usize) -> Vec<Vec<u32>> {
    if m == 1 {
        return vec![vec![n]];
    }
    let mut out = Vec::new();
    for first in 0..=n {
        for mut tail in enumerate(n - first, m - 1) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

struct Params {
    j: Vec<f64>,
    v: Vec<f64>,
    u: Vec<f64>,
}

/// Dense H (row-major), built from `b†_to b_from |n⟩ = √((n_to+1) n_from) |…n_from−1…n_to+1…⟩`.
fn dense_h(n: u32, m: usize, p: &Params, periodic: bool) -> (Vec<Vec<u32>>, Vec<f64>) {
    let states = enumerate(n, m);
    let index: HashMap<Vec<u32>, usize> = states
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), i))
        .collect();
    let d = states.len();
    let mut h = vec![0.0; d * d];
    let bonds: Vec<(usize, usize)> = (0..m - 1)
        .map(|k| (k, k + 1))
        .chain(periodic.then_some((m - 1, 0)))
        .collect();
    for (col, s) in states.iter().enumerate() {
        let mut diag = 0.0;
        for k in 0..m {
            let nk = s[k] as f64;
            diag += p.v[k] * nk + p.u[k] / 2.0 * nk * (nk - 1.0);
        }
        h[col * d + col] += diag;
        for (bond, &(a, b)) in bonds.iter().enumerate() {
            for (from, to) in [(a, b), (b, a)] {
                if s[from] == 0 {
                    continue;
                }
                let amp = ((s[to] as f64 + 1.0) * s[from] as f64).sqrt();
                let mut t = s.clone();
                t[from] -= 1;
                t[to] += 1;
                let row = index[&t];
                h[row * d + col] += -p.j[bond] * amp;
            }
        }
    }
    (states, h)
}

fn params(m: usize, bonds: usize, seed: u64) -> Params {
    // A small deterministic generator: the couplings only need to be distinct per site.
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    Params {
        j: (0..bonds).map(|_| next()).collect(),
        v: (0..m).map(|_| next()).collect(),
        u: (0..m).map(|_| next()).collect(),
    }
}

fn random_vector(d: usize, seed: u64) -> Vec<c64> {
    let mut x = seed;
    (0..d)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            c64::new(a, b)
        })
        .collect()
}

fn model(n: u32, m: usize, p: &Params, periodic: bool) -> BoseHubbard {
    let mut h = BoseHubbard::new(FockBasis::new(n, m as u32).unwrap());
    if periodic {
        h = h.with_boundary(Boundary::Periodic).unwrap();
    }
    h.with_hopping(Coupling::PerSite(p.j.clone()))
        .unwrap()
        .with_potential(Coupling::PerSite(p.v.clone()))
        .unwrap()
        .with_interaction(Coupling::PerSite(p.u.clone()))
        .unwrap()
}

const CASES: [(u32, usize); 5] = [(2, 3), (3, 3), (5, 4), (4, 6), (6, 5)];

#[test]
fn matrix_free_product_equals_the_dense_hamiltonian() {
    for periodic in [false, true] {
        for (case, &(n, m)) in CASES.iter().enumerate() {
            let bonds = if periodic { m } else { m - 1 };
            let p = params(m, bonds, 17 + case as u64);
            let (states, hd) = dense_h(n, m, &p, periodic);
            let d = states.len();
            let h = model(n, m, &p, periodic);
            assert_eq!(h.basis().dim() as usize, d);
            // The dense enumeration order is the basis order.
            for (i, s) in states.iter().enumerate() {
                assert_eq!(h.basis().rank(s).unwrap() as usize, i);
            }
            let x = random_vector(d, 99 + case as u64);
            let y0 = random_vector(d, 7 + case as u64);
            let (alpha, beta) = (c64::new(0.7, -0.2), c64::new(-0.3, 0.5));
            let mut y = y0.clone();
            h.at(0.0)
                .unwrap()
                .apply(&CpuBackend, alpha, &x, beta, &mut y)
                .unwrap();
            let scale = hd.iter().map(|a| a.abs()).fold(0.0, f64::max);
            for i in 0..d {
                let hx: c64 = (0..d).map(|j| x[j] * hd[i * d + j]).sum();
                let want = alpha * hx + beta * y0[i];
                assert!(
                    (y[i] - want).norm() <= 1e-14 * scale.max(1.0),
                    "(N, M) = ({n}, {m}), periodic {periodic}, row {i}: {} vs {}",
                    y[i],
                    want
                );
            }
        }
    }
}

#[test]
fn assembled_csr_equals_the_dense_hamiltonian() {
    for periodic in [false, true] {
        for (case, &(n, m)) in CASES.iter().enumerate() {
            let bonds = if periodic { m } else { m - 1 };
            let p = params(m, bonds, 31 + case as u64);
            let (states, hd) = dense_h(n, m, &p, periodic);
            let d = states.len();
            let a = model(n, m, &p, periodic).to_csr::<f64, u32>(0.0).unwrap();
            assert!(a.is_symmetric());
            assert!(a.nnz() <= d * (1 + 2 * bonds));
            let dense = a.to_dense().unwrap();
            for k in 0..d * d {
                assert!((dense[k] - hd[k]).abs() <= 1e-15, "entry {k}");
            }
        }
    }
}

/// With time-dependent couplings the product at t uses J(t), V(t), U(t); c32 agrees with c64
/// to single precision; β = 0 ignores NaN in y.
#[test]
fn time_dependent_couplings_and_single_precision() {
    let (n, m) = (6u32, 5usize);
    let h = BoseHubbard::new(FockBasis::new(n, m as u32).unwrap())
        .with_hopping(Coupling::function(|t, k| {
            (1.0 + k as f64) * (-0.3 * t).exp()
        }))
        .unwrap()
        .with_potential(Coupling::function(|t, k| (t + k as f64).sin()))
        .unwrap()
        .with_interaction(Coupling::uniform_in_time(|t| 1.0 + t * t))
        .unwrap();
    let t: f64 = 1.7;
    let p = Params {
        j: (0..m - 1)
            .map(|k| (1.0 + k as f64) * (-0.3 * t).exp())
            .collect(),
        v: (0..m).map(|k| (t + k as f64).sin()).collect(),
        u: vec![1.0 + t * t; m],
    };
    let (states, hd) = dense_h(n, m, &p, false);
    let d = states.len();
    let x = random_vector(d, 5);
    let mut y = vec![c64::new(f64::NAN, 0.0); d];
    h.apply_at(
        &CpuBackend,
        t,
        c64::new(1.0, 0.0),
        &x,
        c64::new(0.0, 0.0),
        &mut y,
    )
    .unwrap();
    let xs: Vec<c32> = x
        .iter()
        .map(|z| c32::new(z.re as f32, z.im as f32))
        .collect();
    let mut ys = vec![c32::new(0.0, 0.0); d];
    h.apply_at(
        &CpuBackend,
        t,
        c32::new(1.0, 0.0),
        &xs,
        c32::new(0.0, 0.0),
        &mut ys,
    )
    .unwrap();
    let scale = hd.iter().map(|a| a.abs()).fold(0.0, f64::max);
    for i in 0..d {
        let want: c64 = (0..d).map(|j| x[j] * hd[i * d + j]).sum();
        assert!((y[i] - want).norm() <= 1e-14 * scale, "row {i}");
        let ys64 = c64::new(ys[i].re as f64, ys[i].im as f64);
        assert!((ys64 - want).norm() <= 2e-6 * scale, "row {i} (c32)");
    }
    // Hermitian: ⟨x, Hz⟩ = ⟨Hx, z⟩.
    let z = random_vector(d, 6);
    let mut hz = vec![c64::new(0.0, 0.0); d];
    h.apply_at(
        &CpuBackend,
        t,
        c64::new(1.0, 0.0),
        &z,
        c64::new(0.0, 0.0),
        &mut hz,
    )
    .unwrap();
    let cpu = CpuBackend;
    let lhs = cpu.dot(&x, &hz).unwrap();
    let rhs = cpu.dot(&y, &z).unwrap();
    assert!((lhs - rhs).norm() < 1e-12 * lhs.norm().max(1.0));
}

#[test]
fn bounds_hold_and_bad_input_is_rejected() {
    for &(n, m) in &CASES {
        let p = params(m, m - 1, 3);
        let (_, hd) = dense_h(n, m, &p, false);
        let h = model(n, m, &p, false);
        let d = h.basis().dim() as usize;
        let frozen = h.at(0.0).unwrap();
        let b = LinearOperator::<CpuBackend, c64>::spectral_bounds(&frozen).unwrap();
        let nb = LinearOperator::<CpuBackend, c64>::norm_bound(&frozen).unwrap();
        // Rayleigh quotients of random vectors lie in the spectrum's hull.
        for seed in 0..20 {
            let x = random_vector(d, seed);
            let xr: Vec<f64> = x.iter().map(|z| z.re).collect();
            let nx: f64 = xr.iter().map(|v| v * v).sum();
            let q: f64 = (0..d)
                .map(|i| xr[i] * (0..d).map(|j| hd[i * d + j] * xr[j]).sum::<f64>())
                .sum::<f64>()
                / nx;
            assert!(q >= b.re_min - 1e-12 && q <= b.re_max + 1e-12);
            assert!(q.abs() <= nb + 1e-12);
        }
        // Row sums (the ∞-norm, ≥ the spectral radius) stay under the bound.
        let inf = (0..d)
            .map(|i| (0..d).map(|j| hd[i * d + j].abs()).sum::<f64>())
            .fold(0.0, f64::max);
        assert!(inf <= nb + 1e-12);
    }
    let h = BoseHubbard::new(FockBasis::new(2, 3).unwrap());
    assert!(
        h.clone()
            .with_hopping(Coupling::PerSite(vec![1.0]))
            .is_err()
    );
    assert!(
        h.clone()
            .with_potential(Coupling::PerSite(vec![1.0; 2]))
            .is_err()
    );
    assert!(
        BoseHubbard::new(FockBasis::new(2, 2).unwrap())
            .with_boundary(Boundary::Periodic)
            .is_err()
    );
    let bad = h
        .clone()
        .with_hopping(Coupling::uniform_in_time(|t| 1.0 / t))
        .unwrap();
    let x = vec![c64::new(1.0, 0.0); 6];
    let mut y = x.clone();
    assert!(
        bad.apply_at(
            &CpuBackend,
            0.0,
            c64::new(1.0, 0.0),
            &x,
            c64::new(0.0, 0.0),
            &mut y
        )
        .is_err()
    );
    assert!(
        h.at(0.0)
            .unwrap()
            .apply(
                &CpuBackend,
                c64::new(1.0, 0.0),
                &vec![c64::new(0.0, 0.0); 5],
                c64::new(0.0, 0.0),
                &mut y
            )
            .is_err()
    );
}
