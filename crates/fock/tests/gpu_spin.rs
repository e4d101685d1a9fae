//! The GPU spin-chain kernels against the CPU (run by the GPU bundle): the XXZ product for
//! f32, f64, c32, c64; the states built on the device; the observables reduced there; the
//! Bose–Hubbard mean-field state and its overlap; Leja and the lean RK45 on the GPU operator.

use matexp_core::{Backend, CpuBackend, LinearOperator, Scalar, c32, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_fock::gpu::GpuBoseHubbard;
use matexp_fock::gpu::GpuLookup;
use matexp_fock::spin::gpu::{GpuXxzChain, neel_amplitudes};
use matexp_fock::{
    BoseHubbard, Boundary, Coupling, FockBasis, SpinBasis, XxzChain, basis_state, mean_field_state,
    neel_word, product_state, random_state, sz_correlations, sz_profile,
};
use matexp_gpu::GpuBackend;
use matexp_integrators::rk::{CashKarpLean, Rk45Options};
use matexp_testkit::gpu_sizes::pick;

fn chain(l: u32, k: u32, periodic: bool) -> XxzChain {
    let boundary = if periodic {
        Boundary::Periodic
    } else {
        Boundary::Open
    };
    let nb = if periodic { l } else { l - 1 } as usize;
    XxzChain::new(SpinBasis::new(l, k).unwrap(), boundary)
        .unwrap()
        .with_jxy(Coupling::PerSite(
            (0..nb).map(|b| 1.0 + 0.1 * b as f64).collect(),
        ))
        .unwrap()
        .with_jz(Coupling::PerSite(
            (0..nb).map(|b| 0.7 - 0.05 * b as f64).collect(),
        ))
        .unwrap()
        .with_field(Coupling::PerSite(
            (0..l).map(|q| 0.3 * (q as f64).sin()).collect(),
        ))
        .unwrap()
}

fn max_diff<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x.to_c64() - y.to_c64()).norm())
        .fold(0.0, f64::max)
}

fn product_case<S: Scalar>(gpu: &GpuBackend, h: &XxzChain, g: &GpuXxzChain, tol: f64) {
    let cpu = CpuBackend;
    let d = h.basis().dim() as usize;
    let x: Vec<S> = random_state(h.basis(), 7).unwrap();
    let y0: Vec<S> = random_state(h.basis(), 8).unwrap();
    let (alpha, beta) = (S::from_f64(0.7), S::from_f64(-0.3));
    let mut want = y0.clone();
    h.apply(&cpu, alpha, &x, beta, &mut want).unwrap();
    let xg = gpu.upload(&x).unwrap();
    let mut yg = gpu.upload(&y0).unwrap();
    g.apply(gpu, alpha, &xg, beta, &mut yg).unwrap();
    let mut got = vec![S::zero(); d];
    gpu.download(&yg, &mut got).unwrap();
    let scale = want.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
    let e = max_diff(&got, &want) / scale;
    assert!(
        e <= tol,
        "{} L = {} K = {}: {e:e}",
        S::NAME,
        h.basis().sites(),
        h.basis().ups()
    );
    // β = 0 must not read y (NaN there would show).
    let mut yn = gpu.upload(&vec![S::from_f64(f64::NAN); d]).unwrap();
    g.apply(gpu, S::one(), &xg, S::zero(), &mut yn).unwrap();
    gpu.download(&yn, &mut got).unwrap();
    assert!(got.iter().all(|v| v.to_c64().norm().is_finite()));
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn gpu_xxz_product_equals_cpu_product() {
    let gpu = GpuBackend::new(0).unwrap();
    let cases = pick::<&[(u32, u32, bool)]>(
        &[
            (12, 6, false),
            (13, 5, true),
            (20, 10, true),
            (24, 3, false),
            (40, 2, true),
        ],
        &[(12, 6, false), (13, 5, true)],
    );
    for &(l, k, periodic) in cases {
        let h = chain(l, k, periodic);
        let g = GpuXxzChain::new(&gpu, &h).unwrap();
        product_case::<f64>(&gpu, &h, &g, 1e-14);
        product_case::<c64>(&gpu, &h, &g, 1e-14);
        product_case::<f32>(&gpu, &h, &g, 1e-5);
        product_case::<c32>(&gpu, &h, &g, 1e-5);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn device_states_and_observables_equal_the_host_ones() {
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let h = chain(pick(18, 12), pick(9, 6), true);
    let b = h.basis().clone();
    let g = GpuXxzChain::new(&gpu, &h).unwrap();
    let d = b.dim() as usize;
    let down = |v: &<GpuBackend as Backend>::Vector<c64>| {
        let mut out = vec![c64::new(0.0, 0.0); d];
        gpu.download(v, &mut out).unwrap();
        out
    };
    // Néel: the basis vector of the Néel word.
    let neel = down(&g.neel_state::<c64>(&gpu).unwrap());
    let want: Vec<c64> = basis_state(&b, neel_word(&b).unwrap()).unwrap();
    assert_eq!(neel, want);
    // A complex product state and the seeded random state.
    let amps: Vec<[c64; 2]> = (0..b.sites())
        .map(|k| {
            let t = 0.2 + 0.1 * f64::from(k);
            [
                c64::new(t.cos(), 0.0),
                c64::from_polar(t.sin(), 0.3 * f64::from(k)),
            ]
        })
        .collect();
    let ps = g.product_state::<c64>(&gpu, &amps).unwrap();
    let want: Vec<c64> = product_state(&b, &amps).unwrap();
    assert!(max_diff(&down(&ps), &want) < 1e-14);
    let rg = g.random_state::<c64>(&gpu, 99).unwrap();
    let rh: Vec<c64> = random_state(&b, 99).unwrap();
    assert!(max_diff(&down(&rg), &rh) < 1e-15);
    let rgr = g.random_state::<f64>(&gpu, 99).unwrap();
    let mut rr = vec![0.0; d];
    gpu.download(&rgr, &mut rr).unwrap();
    let rhr: Vec<f64> = random_state(&b, 99).unwrap();
    assert!(max_diff(&rr, &rhr) < 1e-15);
    // Observables: energy and norm in one pass, ⟨S^z_k⟩, ⟨S^z_0 S^z_r⟩, the overlap.
    let (e, n2) = g.energy_norm(&rg).unwrap();
    let mut hx = vec![c64::new(0.0, 0.0); d];
    h.apply(&cpu, c64::new(1.0, 0.0), &rh, c64::new(0.0, 0.0), &mut hx)
        .unwrap();
    let e_cpu: f64 = rh.iter().zip(&hx).map(|(a, b)| (a.conj() * b).re).sum();
    assert!(
        (e - e_cpu).abs() < 1e-12 * e_cpu.abs().max(1.0),
        "{e} vs {e_cpu}"
    );
    assert!((n2 - 1.0).abs() < 1e-13);
    let (sz, cr, w) = g.sz_observables(&ps).unwrap();
    assert!((w - 1.0).abs() < 1e-13);
    let (sz_h, cr_h) = (
        sz_profile(&b, &want).unwrap(),
        sz_correlations(&b, &want).unwrap(),
    );
    assert!(max_diff(&sz, &sz_h) < 1e-13 && max_diff(&cr, &cr_h) < 1e-13);
    let ov = g.overlap_with_product(&amps, &rg).unwrap();
    let ov_h: c64 = want.iter().zip(&rh).map(|(p, x)| p.conj() * x).sum();
    assert!((ov - ov_h).norm() < 1e-13);
    let self_ov = g
        .overlap_with_product(&neel_amplitudes(&b).unwrap(), &down_upload(&gpu, &neel))
        .unwrap();
    assert!((self_ov - c64::new(1.0, 0.0)).norm() < 1e-15);
}

fn down_upload(gpu: &GpuBackend, v: &[c64]) -> <GpuBackend as Backend>::Vector<c64> {
    gpu.upload(v).unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn device_mean_field_state_equals_the_host_one() {
    let gpu = GpuBackend::new(0).unwrap();
    let (n, m) = pick((9, 8), (5, 5));
    let h = BoseHubbard::new(FockBasis::new(n, m).unwrap())
        .with_hopping(Coupling::Uniform(1.0))
        .unwrap();
    let g = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaUnrank).unwrap();
    let amps: Vec<c64> = (0..m)
        .map(|k| c64::from_polar(1.0 + 0.2 * f64::from(k), 0.4 * f64::from(k)))
        .collect();
    let (psi, tables) = g.mean_field_state::<c64>(&gpu, &amps).unwrap();
    let want: Vec<c64> = mean_field_state(h.basis(), &amps).unwrap();
    let mut got = vec![c64::new(0.0, 0.0); want.len()];
    gpu.download(&psi, &mut got).unwrap();
    assert!(max_diff(&got, &want) < 1e-14);
    let ov = g.overlap_with_mean_field(&tables, &psi).unwrap();
    assert!((ov - c64::new(1.0, 0.0)).norm() < 1e-13, "{ov}");
    let (p32, t32) = g.mean_field_state::<c32>(&gpu, &amps).unwrap();
    let ov32 = g.overlap_with_mean_field(&t32, &p32).unwrap();
    assert!((ov32 - c64::new(1.0, 0.0)).norm() < 1e-5);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn leja_and_lean_rk45_on_the_gpu_chain_follow_the_cpu() {
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let h = XxzChain::heisenberg(
        SpinBasis::new(pick(16, 10), pick(8, 5)).unwrap(),
        Boundary::Periodic,
        1.0,
    )
    .unwrap();
    let g = GpuXxzChain::new(&gpu, &h).unwrap();
    let d = h.basis().dim() as usize;
    // Imaginary time, real vectors: e^{−τH}ψ by Leja.
    let psi: Vec<f64> = random_state(h.basis(), 3).unwrap();
    let opts = LejaOptions::default().with_rtol(1e-10);
    let mut w_cpu = vec![0.0; d];
    Leja::new(&cpu, opts)
        .unwrap()
        .expmv(&h, -1.0, &psi, &mut w_cpu)
        .unwrap();
    let pg = gpu.upload(&psi).unwrap();
    let mut wg = gpu.zeros::<f64>(d).unwrap();
    Leja::new(&gpu, opts)
        .unwrap()
        .expmv(&g, -1.0, &pg, &mut wg)
        .unwrap();
    let mut w = vec![0.0; d];
    gpu.download(&wg, &mut w).unwrap();
    let nrm = w_cpu.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!(max_diff(&w, &w_cpu) / nrm < 1e-9);
    // Real time by the lean RK45.
    let z: Vec<c64> = random_state(h.basis(), 4).unwrap();
    let mut zc = z.clone();
    let mi = c64::new(0.0, -1.0);
    let rk_opts = Rk45Options::new(1e-9);
    let rc = CashKarpLean::new(&cpu, d, rk_opts)
        .unwrap()
        .integrate(&h, mi, 0.0, 0.5, &mut zc)
        .unwrap();
    let mut zg = gpu.upload(&z).unwrap();
    let rg = CashKarpLean::new(&gpu, d, rk_opts)
        .unwrap()
        .integrate(&g, mi, 0.0, 0.5, &mut zg)
        .unwrap();
    // The step sizes follow the error estimates, which round differently on the two backends:
    // at most one step apart, the states within the tolerance.
    assert!(
        rc.steps.abs_diff(rg.steps) <= 1,
        "{} vs {} steps",
        rc.steps,
        rg.steps
    );
    let mut zh = vec![c64::new(0.0, 0.0); d];
    gpu.download(&zg, &mut zh).unwrap();
    assert!(max_diff(&zh, &zc) < 1e-8);
}
