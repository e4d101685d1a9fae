//! The GPU Bose–Hubbard kernels against the CPU product (run by the GPU bundle).

use matexp_core::{Backend, CpuBackend, TimeDependentOperator, c32, c64};
use matexp_fock::gpu::{FIXED_SITES, GpuBoseHubbard, GpuLaunch, GpuLookup};
use matexp_fock::{BoseHubbard, Boundary, Coupling, FockBasis, mean_field_state, site_densities};
use matexp_gpu::GpuBackend;
use matexp_integrators::rk::{CashKarp, LinearOde, Rk45Options};
use matexp_testkit::gpu_sizes::pick;

const LOOKUPS: [GpuLookup; 5] = [
    GpuLookup::DeltaUnrank,
    GpuLookup::DeltaPacked,
    GpuLookup::SearchPacked,
    GpuLookup::DeltaStepped,
    GpuLookup::DeltaFixed,
];

/// A fixed-seed LCG (reproducible inputs; never zeros).
fn random(d: usize, seed: u64) -> Vec<c64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut u = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    (0..d).map(|_| c64::new(u(), u())).collect()
}

fn model(n: u32, m: u32, periodic: bool) -> BoseHubbard {
    let mut h = BoseHubbard::new(FockBasis::new(n, m).unwrap());
    if periodic {
        h = h.with_boundary(Boundary::Periodic).unwrap();
    }
    h.with_hopping(Coupling::function(|t, k| {
        1.0 + 0.1 * k as f64 + 0.5 * t.sin()
    }))
    .unwrap()
    .with_potential(Coupling::function(|t, k| (k as f64 - 1.5) * (1.0 + t)))
    .unwrap()
    .with_interaction(Coupling::function(|_, k| 0.3 + 0.05 * k as f64))
    .unwrap()
}

fn rel_err(a: &[c64], b: &[c64]) -> f64 {
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y).norm_sqr()).sum();
    let den: f64 = b.iter().map(|y| y.norm_sqr()).sum();
    (num / den).sqrt()
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn gpu_product_equals_cpu_product() {
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    // 4 bits (N ≤ 15) and 8 bits per site; two words per state at M = 20; the ring; one
    // word filled to its last bit (M·bits = 64). Small: the same layouts at D ≤ 1820 (the
    // exact fill at 4 bits, M = 16, instead of 8 bits, M = 8, whose D is at least 245 157).
    let cases = pick::<&[(u32, u32, bool)]>(
        &[
            (6, 5, false),
            (12, 8, false),
            (20, 8, true),
            (3, 20, false),
            (7, 6, true),
        ],
        &[
            (6, 5, false),
            (12, 5, false),
            (16, 4, true),
            (2, 16, true),
            (3, 20, false),
            (7, 6, true),
        ],
    );
    for &(n, m, periodic) in cases {
        let h = model(n, m, periodic);
        let d = h.basis().dim() as usize;
        let x = random(d, u64::from(n * 100 + m));
        let y0 = random(d, 7);
        let (alpha, beta) = (c64::new(0.7, -0.2), c64::new(-0.3, 0.5));
        let t = 0.8;
        let mut want = y0.clone();
        h.apply_at(&cpu, t, alpha, &x, beta, &mut want).unwrap();
        for lookup in LOOKUPS {
            let op = match GpuBoseHubbard::new(&gpu, &h, lookup) {
                Ok(op) => op,
                // The search and stepped lookups need one word per state (M·bits ≤ 64); the
                // fixed-M lookup has kernels for 2 ≤ M ≤ 16.
                Err(matexp_core::Error::Unsupported(_))
                    if matches!(
                        lookup,
                        GpuLookup::SearchPacked | GpuLookup::DeltaStepped | GpuLookup::DeltaFixed
                    ) =>
                {
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let xg = gpu.upload(&x).unwrap();
            let mut yg = gpu.upload(&y0).unwrap();
            op.apply_at(&gpu, t, alpha, &xg, beta, &mut yg).unwrap();
            let got = gpu.to_host(&yg).unwrap();
            let e = rel_err(&got, &want);
            assert!(
                e < 1e-14,
                "(N, M) = ({n}, {m}) periodic {periodic} {lookup:?}: c64 error {e:e}"
            );
            // β = 0 must not read y (NaN there).
            let mut yn = gpu.upload(&vec![c64::new(f64::NAN, 0.0); d]).unwrap();
            op.apply_at(
                &gpu,
                t,
                c64::new(1.0, 0.0),
                &xg,
                c64::new(0.0, 0.0),
                &mut yn,
            )
            .unwrap();
            let mut w1 = vec![c64::new(0.0, 0.0); d];
            h.apply_at(&cpu, t, c64::new(1.0, 0.0), &x, c64::new(0.0, 0.0), &mut w1)
                .unwrap();
            assert!(rel_err(&gpu.to_host(&yn).unwrap(), &w1) < 1e-14);
            // Single precision.
            let xs: Vec<c32> = x
                .iter()
                .map(|z| c32::new(z.re as f32, z.im as f32))
                .collect();
            let ys0: Vec<c32> = y0
                .iter()
                .map(|z| c32::new(z.re as f32, z.im as f32))
                .collect();
            let xg = gpu.upload(&xs).unwrap();
            let mut yg = gpu.upload(&ys0).unwrap();
            let (a32, b32) = (c32::new(0.7, -0.2), c32::new(-0.3, 0.5));
            op.apply_at(&gpu, t, a32, &xg, b32, &mut yg).unwrap();
            let got: Vec<c64> = gpu
                .to_host(&yg)
                .unwrap()
                .iter()
                .map(|z| c64::new(f64::from(z.re), f64::from(z.im)))
                .collect();
            let e = rel_err(&got, &want);
            assert!(e < 1e-5, "(N, M) = ({n}, {m}) {lookup:?}: c32 error {e:e}");
        }
    }
}

/// `y ← α·H·x + β·y` with `op` on the GPU, in c64 and c32, against the CPU product `want`
/// (and `β = 0` against a NaN-filled `y`, which must not be read); `what` names the case.
fn check_against_cpu(gpu: &GpuBackend, op: &GpuBoseHubbard, h: &BoseHubbard, what: &str) {
    let cpu = CpuBackend;
    let d = h.basis().dim() as usize;
    let x = random(
        d,
        u64::from(h.basis().particles() * 100 + h.basis().sites()),
    );
    let y0 = random(d, 7);
    let (alpha, beta, t) = (c64::new(0.7, -0.2), c64::new(-0.3, 0.5), 0.8);
    let mut want = y0.clone();
    h.apply_at(&cpu, t, alpha, &x, beta, &mut want).unwrap();
    let xg = gpu.upload(&x).unwrap();
    let mut yg = gpu.upload(&y0).unwrap();
    op.apply_at(gpu, t, alpha, &xg, beta, &mut yg).unwrap();
    let e = rel_err(&gpu.to_host(&yg).unwrap(), &want);
    assert!(e < 1e-14, "{what}: c64 error {e:e}");
    let mut yn = gpu.upload(&vec![c64::new(f64::NAN, 0.0); d]).unwrap();
    let (one, zero) = (c64::new(1.0, 0.0), c64::new(0.0, 0.0));
    op.apply_at(gpu, t, one, &xg, zero, &mut yn).unwrap();
    let mut w1 = vec![zero; d];
    h.apply_at(&cpu, t, one, &x, zero, &mut w1).unwrap();
    let e = rel_err(&gpu.to_host(&yn).unwrap(), &w1);
    assert!(e < 1e-14, "{what}: c64 β = 0 error {e:e}");
    let narrow = |v: &[c64]| -> Vec<c32> {
        v.iter()
            .map(|z| c32::new(z.re as f32, z.im as f32))
            .collect()
    };
    let xg = gpu.upload(&narrow(&x)).unwrap();
    let mut yg = gpu.upload(&narrow(&y0)).unwrap();
    let (a32, b32) = (c32::new(0.7, -0.2), c32::new(-0.3, 0.5));
    op.apply_at(gpu, t, a32, &xg, b32, &mut yg).unwrap();
    let got: Vec<c64> = gpu
        .to_host(&yg)
        .unwrap()
        .iter()
        .map(|z| c64::new(f64::from(z.re), f64::from(z.im)))
        .collect();
    let e = rel_err(&got, &want);
    assert!(e < 1e-5, "{what}: c32 error {e:e}");
    let mut yn = gpu.upload(&vec![c32::new(f32::NAN, 0.0); d]).unwrap();
    op.apply_at(gpu, t, c32::new(1.0, 0.0), &xg, c32::new(0.0, 0.0), &mut yn)
        .unwrap();
    let got: Vec<c64> = gpu
        .to_host(&yn)
        .unwrap()
        .iter()
        .map(|z| c64::new(f64::from(z.re), f64::from(z.im)))
        .collect();
    let e = rel_err(&got, &w1);
    assert!(e < 1e-5, "{what}: c32 β = 0 error {e:e}");
}

/// Every fixed-M kernel (2 ≤ M ≤ 16) equals the CPU product, with 32- and 64-bit indices and
/// the automatic block size, blocks of 128 and of 64 threads: 4-bit occupations for every M (at M = 16, N = 4 the word is
/// full), 8-bit ones for M ≤ 9 (one full word at M = 8, two words at M = 9), the ring on every
/// other case, D never a multiple of the block, and D = 245 157 and 735 471 large enough that
/// threads of the one-wave grid take several rows (those and the other cases of D > 20 349 are
/// left out under the small test scale).
#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn fixed_sites_kernels_equal_the_cpu_product() {
    let gpu = GpuBackend::new(0).unwrap();
    let cases: &[(u32, u32, bool)] = &[
        // (N, M, periodic), 4 bits per site
        (15, 2, false),
        (15, 3, true),
        (14, 4, false),
        (15, 5, true),
        (13, 6, false),
        (12, 7, true),
        (10, 8, false),
        (8, 9, true),
        (7, 10, false),
        (6, 11, true),
        (6, 12, false),
        (5, 13, true),
        (5, 14, false),
        (4, 15, true),
        (5, 16, false),
        (4, 16, true),
        // 8 bits per site
        (40, 2, false),
        (30, 3, true),
        (20, 4, false),
        (16, 5, true),
        (17, 6, false),
        (16, 7, true),
        (16, 8, false),
        (16, 9, true),
    ];
    // Small: the cases of D ≤ 20 349 (every M, both packings, one word; no two-word state).
    let small: Vec<(u32, u32, bool)> = cases
        .iter()
        .copied()
        .filter(|&(n, m, _)| FockBasis::new(n, m).unwrap().dim() <= 20_349)
        .collect();
    let mut covered = Vec::new();
    for &(n, m, periodic) in pick(cases, &small[..]) {
        let h = model(n, m, periodic);
        covered.push(m);
        for launch in [
            GpuLaunch::default(),
            GpuLaunch {
                block: 128,
                ..GpuLaunch::default()
            },
            GpuLaunch {
                block: 64,
                ..GpuLaunch::default()
            },
            GpuLaunch {
                wide_index: true,
                ..GpuLaunch::default()
            },
        ] {
            let op = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaFixed)
                .and_then(|o| o.with_launch(launch))
                .unwrap();
            let what = format!("(N, M) = ({n}, {m}) periodic {periodic} {launch:?}");
            check_against_cpu(&gpu, &op, &h, &what);
        }
    }
    assert!(FIXED_SITES.clone().all(|m| covered.contains(&m)));
    // M = 17 has no kernel: a typed error, not a launch.
    let h = model(2, 17, false);
    assert!(matches!(
        GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaFixed),
        Err(matexp_core::Error::Unsupported(_))
    ));
    // Blocks the kernels were not built for are refused.
    for block in [16, 48, 512] {
        let r = GpuBoseHubbard::new(&gpu, &model(6, 5, false), GpuLookup::DeltaFixed)
            .unwrap()
            .with_launch(GpuLaunch {
                block,
                ..GpuLaunch::default()
            });
        assert!(
            matches!(r, Err(matexp_core::Error::InvalidArgument { .. })),
            "block {block} must be refused"
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn fused_rk_stage_and_densities_equal_the_cpu() {
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let h = model(10, 6, false);
    let d = h.basis().dim() as usize;
    let op = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaUnrank).unwrap();
    let (x, base, acc0) = (random(d, 1), random(d, 2), random(d, 3));
    let (t, gamma, w, c) = (0.4, c64::new(0.0, -0.05), 1.0 / 3.0, 0.5);
    // CPU: s = γ·H(t)·x; acc + w·s; base + c·s.
    let mut s = vec![c64::new(0.0, 0.0); d];
    h.apply_at(&cpu, t, gamma, &x, c64::new(0.0, 0.0), &mut s)
        .unwrap();
    let acc_want: Vec<c64> = acc0.iter().zip(&s).map(|(a, s)| a + s * w).collect();
    let next_want: Vec<c64> = base.iter().zip(&s).map(|(b, s)| b + s * c).collect();
    let xg = gpu.upload(&x).unwrap();
    let bg = gpu.upload(&base).unwrap();
    let mut ag = gpu.upload(&acc0).unwrap();
    let mut ng = gpu.zeros::<c64>(d).unwrap();
    op.rk_stage(t, gamma, &xg, w, &mut ag, c, Some((&bg, &mut ng)))
        .unwrap();
    assert!(rel_err(&gpu.to_host(&ag).unwrap(), &acc_want) < 1e-14);
    assert!(rel_err(&gpu.to_host(&ng).unwrap(), &next_want) < 1e-14);
    // Densities of a mean-field state.
    let amps = [
        c64::new(0.6, 0.0),
        c64::new(0.3, 0.1),
        c64::new(0.1, 0.0),
        c64::new(0.5, -0.2),
        c64::new(0.2, 0.0),
        c64::new(0.4, 0.0),
    ];
    let psi: Vec<c64> = mean_field_state(h.basis(), &amps).unwrap();
    let want = site_densities(h.basis(), &psi).unwrap();
    let got = op.site_densities(&gpu.upload(&psi).unwrap()).unwrap();
    for k in 0..6 {
        assert!(
            (got[k] - want[k]).abs() < 1e-12,
            "site {k}: {} vs {}",
            got[k],
            want[k]
        );
    }
}

/// RK45 on the GPU backend follows the CPU run of the four-site model (N = 19): the same
/// step sequence up to a rounding-level decision, and states that agree within the
/// integration error (both are within ~1e−9 of the exact solution).
#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn gpu_rk45_follows_the_cpu_run() {
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let n = 19u32;
    let h = BoseHubbard::new(FockBasis::new(n, 4).unwrap())
        .with_hopping(Coupling::Uniform(1.0))
        .unwrap()
        .with_interaction(Coupling::Uniform(1.0 / f64::from(n - 1)))
        .unwrap();
    let amps: Vec<c64> = [130.0f64, 7.0, 3.0, 50.0]
        .iter()
        .map(|&x| c64::new((x / 190.0).sqrt(), 0.0))
        .collect();
    let psi0: Vec<c64> = mean_field_state(h.basis(), &amps).unwrap();
    let d = psi0.len();
    let mut psi = psi0.clone();
    // Small: a shorter span, fewer steps (six stages of launches each).
    let t_end = pick(2.0, 0.5);
    let rc = CashKarp::new(&cpu, d, Rk45Options::new(1e-9))
        .unwrap()
        .integrate(&LinearOde::schrodinger(&h).unwrap(), 0.0, t_end, &mut psi)
        .unwrap();
    let op = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaUnrank).unwrap();
    let mut pg = gpu.upload(&psi0).unwrap();
    let rg = CashKarp::new(&gpu, d, Rk45Options::new(1e-9))
        .unwrap()
        .integrate(&LinearOde::schrodinger(&op).unwrap(), 0.0, t_end, &mut pg)
        .unwrap();
    assert!(
        (rc.steps as i64 - rg.steps as i64).abs() <= 1,
        "{rc:?} vs {rg:?}"
    );
    let e = rel_err(&gpu.to_host(&pg).unwrap(), &psi);
    assert!(e < 1e-10, "GPU vs CPU state after RK45: {e:e}");
    let dens = op.site_densities(&pg).unwrap();
    assert!((dens.iter().sum::<f64>() - f64::from(n)).abs() < 1e-8);
}

/// The fused RK4 on the GPU gives the generic RK4's states (CPU backend) to rounding.
#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn fused_rk4_equals_the_generic_rk4() {
    use matexp_fock::gpu::FusedRk4;
    use matexp_integrators::rk::Rk4;
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let h = model(8, 5, true);
    let d = h.basis().dim() as usize;
    let psi0 = random(d, 11);
    let mut psi = psi0.clone();
    Rk4::new(&cpu, d)
        .unwrap()
        .integrate(&LinearOde::schrodinger(&h).unwrap(), 0.0, 0.5, 50, &mut psi)
        .unwrap();
    let op = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaUnrank).unwrap();
    let mut pg = gpu.upload(&psi0).unwrap();
    FusedRk4::new(&op)
        .unwrap()
        .integrate(0.0, 0.5, 50, &mut pg)
        .unwrap();
    let e = rel_err(&gpu.to_host(&pg).unwrap(), &psi);
    assert!(e < 1e-13, "fused vs generic RK4: {e:e}");
}

/// The Leja propagator e^{−iHt}ψ₀ with the frozen GPU operator equals the CPU one.
#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn leja_propagator_on_the_gpu_operator() {
    use matexp_expmv::{LejaOptions, Tolerance, leja_schrodinger};
    let gpu = GpuBackend::new(0).unwrap();
    let cpu = CpuBackend;
    let h = model(12, 6, false);
    let psi0 = random(h.basis().dim() as usize, 5);
    let nrm = cpu.nrm2(&psi0).unwrap();
    let psi0: Vec<c64> = psi0.iter().map(|z| z / nrm).collect();
    let opts = LejaOptions {
        tol: Tolerance::relative(1e-10),
        ..Default::default()
    };
    let (want, _) = leja_schrodinger(&cpu, &h.at(0.3).unwrap(), 2.0, &psi0, &opts).unwrap();
    let op = GpuBoseHubbard::new(&gpu, &h, GpuLookup::DeltaPacked).unwrap();
    let (got, _) = leja_schrodinger(
        &gpu,
        &op.at(0.3).unwrap(),
        2.0,
        &gpu.upload(&psi0).unwrap(),
        &opts,
    )
    .unwrap();
    let e = rel_err(&gpu.to_host(&got).unwrap(), &want);
    assert!(e < 1e-9, "GPU vs CPU Leja propagator: {e:e}");
}
