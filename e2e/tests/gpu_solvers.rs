//! The matrix-function solvers of `matexp-integrators`, written once over `Backend`, run on
//! the GPU backend and compared with the same solvers on the CPU backend. Every test needs a
//! CUDA GPU (the GPU bundle runs them).

use matexp_core::{Backend, CpuBackend, Scalar, c32, c64, norms};
use matexp_gpu::{GpuBackend, GpuCsr};
use matexp_integrators::{
    ArnoldiOptions, LanczosOptions, LejaOptions, TaylorOptions, Tolerance, arnoldi_expmv,
    arnoldi_phimv, lanczos_expmv, leja_expmv, leja_phimv, leja_schrodinger, taylor_expmv,
};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d};

fn gpu() -> GpuBackend {
    let g = GpuBackend::new(0).expect("a CUDA device");
    eprintln!("device: {}", g.device().info());
    g
}

/// ‖a − b‖ / ‖b‖ in double precision.
fn rel_diff<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    let d: Vec<c64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.to_c64() - y.to_c64())
        .collect();
    let r: Vec<c64> = b.iter().map(|y| y.to_c64()).collect();
    norms::nrm2(&d) / norms::nrm2(&r)
}

fn smooth_plus_noise<S: Scalar>(n: usize) -> Vec<S> {
    // Deterministic but not an eigenvector: every part of the spectrum is excited.
    (0..n)
        .map(|i| {
            let x = i as f64 / n as f64;
            S::from_c64(c64::new(
                (7.0 * x).sin() + 0.3 * ((i * 7919) % 97) as f64 / 97.0,
                0.0,
            ))
        })
        .collect()
}

/// Runs `solve` on both backends and checks that the GPU result matches the CPU one within
/// `bound`; both solves must also report the same kind of work (products within 10 %).
fn same_on_both<S: Scalar>(
    name: &str,
    bound: f64,
    gpu_run: impl FnOnce() -> (Vec<S>, usize),
    cpu_run: impl FnOnce() -> (Vec<S>, usize),
) {
    let (wg, mg) = gpu_run();
    let (wc, mc) = cpu_run();
    let e = rel_diff(&wg, &wc);
    eprintln!(
        "{name} [{}]: GPU vs CPU {e:.2e} ({mg} vs {mc} products)",
        S::NAME
    );
    assert!(
        wg.iter().all(|v| v.finite()),
        "{name}: non-finite GPU result"
    );
    assert!(
        e <= bound,
        "{name}: GPU differs from CPU by {e:e} (bound {bound:e})"
    );
    let (lo, hi) = (mc.min(mg) as f64, mc.max(mg) as f64);
    assert!(
        hi <= 1.1 * lo + 2.0,
        "{name}: {mg} GPU products vs {mc} on the CPU"
    );
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn real_solvers_agree_with_the_cpu_backend_on_the_3d_laplacian() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64, u32> = laplacian_3d(20).unwrap();
    let n = a.nrows();
    let ag = GpuCsr::from_csr(&g, &a).unwrap();
    let v = smooth_plus_noise::<f64>(n);
    let vg = g.upload(&v).unwrap();
    let tol = 1e-8;
    // ‖tA‖ ≈ 12·21²·t: 53 for t = 1e-2.
    let t = 1e-2;
    // Both backends do the same arithmetic in a different order: agreement to well inside tol.
    let bound = 10.0 * tol;

    let lo = LejaOptions::default().with_rtol(tol);
    same_on_both(
        "leja expmv",
        bound,
        || {
            let (w, r) = leja_expmv(&g, &ag, t, &vg, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_expmv(&cpu, &a, t, &v, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    same_on_both(
        "leja phi_1",
        bound,
        || {
            let (w, r) = leja_phimv(&g, &ag, 1, t, &vg, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_phimv(&cpu, &a, 1, t, &v, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    for two_pass in [false, true] {
        let opts = LanczosOptions {
            tol: Tolerance::relative(tol),
            two_pass,
            ..Default::default()
        };
        same_on_both(
            if two_pass {
                "lanczos (two-pass)"
            } else {
                "lanczos"
            },
            bound,
            || {
                let (w, r) = lanczos_expmv(&g, &ag, t, &vg, &opts).unwrap();
                (g.to_host(&w).unwrap(), r.matvecs)
            },
            || {
                let (w, r) = lanczos_expmv(&cpu, &a, t, &v, &opts).unwrap();
                (w, r.matvecs)
            },
        );
    }
    let ao = ArnoldiOptions {
        tol: Tolerance::relative(tol),
        ..Default::default()
    };
    same_on_both(
        "arnoldi",
        bound,
        || {
            let (w, r) = arnoldi_expmv(&g, &ag, t, &vg, &ao).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = arnoldi_expmv(&cpu, &a, t, &v, &ao).unwrap();
            (w, r.matvecs)
        },
    );
    same_on_both(
        "arnoldi phi_2",
        bound,
        || {
            let (w, r) = arnoldi_phimv(&g, &ag, 2, t, &vg, &ao).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = arnoldi_phimv(&cpu, &a, 2, t, &v, &ao).unwrap();
            (w, r.matvecs)
        },
    );
    let to = TaylorOptions {
        tol: Tolerance::relative(tol),
        ..Default::default()
    };
    same_on_both(
        "taylor",
        bound,
        || {
            let (w, r) = taylor_expmv(&g, &ag, t, &vg, &to).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = taylor_expmv(&cpu, &a, t, &v, &to).unwrap();
            (w, r.matvecs)
        },
    );
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn imaginary_leja_agrees_with_the_cpu_backend_on_the_spin_bath() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let bath = SpinBath::seed000(12, 7).unwrap();
    let h: CsrMatrix<c64, u32> = bath.hamiltonian(StoredZeros::Keep).unwrap();
    let psi: Vec<c64> = bath.initial_state(3).unwrap();
    let hg = GpuCsr::from_csr(&g, &h).unwrap();
    let psig = g.upload(&psi).unwrap();
    let tol = 1e-8;
    let lo = LejaOptions::default().with_rtol(tol);
    same_on_both(
        "leja e^{-itH}, t = 5",
        10.0 * tol,
        || {
            let (w, r) = leja_schrodinger(&g, &hg, 5.0, &psig, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_schrodinger(&cpu, &h, 5.0, &psi, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    // Single precision on the GPU against the double-precision CPU solve: f32 accuracy.
    let h32: CsrMatrix<c32, u32> = h.cast().unwrap();
    let h32g = GpuCsr::from_csr(&g, &h32).unwrap();
    let psi32: Vec<c32> = psi.iter().map(|z| c32::from_c64(*z)).collect();
    let (w32, r32) = leja_schrodinger(
        &g,
        &h32g,
        5.0,
        &g.upload(&psi32).unwrap(),
        &LejaOptions::default().with_rtol(1e-5),
    )
    .unwrap();
    let (w64, _) = leja_schrodinger(&cpu, &h, 5.0, &psi, &lo).unwrap();
    let w32: Vec<c64> = g
        .to_host(&w32)
        .unwrap()
        .iter()
        .map(|z| z.to_c64())
        .collect();
    let e = rel_diff(&w32, &w64);
    eprintln!(
        "leja e^{{-itH}} c32 on the GPU vs c64 on the CPU: {e:.2e} ({} products)",
        r32.matvecs
    );
    assert!(e <= 1e-4, "c32 GPU solve off by {e:e}");
    // Unitary evolution keeps the norm.
    assert!((norms::nrm2(&w64) - norms::nrm2(&psi)).abs() < 1e-7);
}
