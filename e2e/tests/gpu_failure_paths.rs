//! GPU failure paths: asking for more memory than the device has is a typed error and leaves
//! the device usable (a solve afterwards matches the CPU, and nothing leaks); sizes whose
//! byte count overflows are refused before the driver is asked.

use matexp_core::{Backend, CpuBackend, Error, norms};
use matexp_expmv::{LejaOptions, leja_expmv};
use matexp_gpu::{GpuBackend, GpuCsr};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_3d;

fn gpu() -> GpuBackend {
    let g = GpuBackend::new(0).expect("a CUDA device");
    eprintln!("device: {}", g.device().info());
    g
}

/// A small solve on `g` checked against the CPU: the device still works.
fn solve_matches_cpu(g: &GpuBackend) {
    let a: CsrMatrix<f64> = laplacian_3d(12).unwrap();
    let v: Vec<f64> = (0..a.nrows()).map(|i| 1.0 + (i % 7) as f64).collect();
    let opts = LejaOptions::default();
    let (wc, _) = leja_expmv(&CpuBackend::new(), &a, 0.01, &v, &opts).unwrap();
    let ag = GpuCsr::from_csr(g, &a).unwrap();
    let vg = g.upload(&v).unwrap();
    let (wg, _) = leja_expmv(g, &ag, 0.01, &vg, &opts).unwrap();
    let wg = g.to_host(&wg).unwrap();
    let d: Vec<f64> = wg.iter().zip(&wc).map(|(a, b)| a - b).collect();
    let e = norms::nrm2(&d) / norms::nrm2(&wc);
    assert!(
        e < 1e-10,
        "GPU differs from CPU by {e:e} after the failed allocation"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn out_of_memory_is_a_typed_error_and_the_device_stays_usable() {
    let g = gpu();
    let (free0, total) = g.device().memory_info().unwrap();
    eprintln!("memory: {free0} free of {total} bytes");
    // Twice the device's memory in f64 entries: the driver must refuse it.
    let n = total / 8 * 2;
    let e = g
        .zeros::<f64>(n)
        .expect_err("an allocation of twice the device memory succeeded");
    eprintln!("error: {e}");
    assert!(matches!(e, Error::Device(_)), "{e:?}");
    assert!(
        e.to_string().contains("cuMem") || e.to_string().contains("memory"),
        "the error does not say what failed: {e}"
    );
    // Asking again gives the same error (no sticky context error), then real work runs.
    assert!(g.zeros::<f64>(n).is_err());
    g.device().synchronize().unwrap();
    solve_matches_cpu(&g);
    // Nothing of the failed requests stays allocated (the pool may keep a few MiB).
    g.device().synchronize().unwrap();
    let (free1, _) = g.device().memory_info().unwrap();
    assert!(
        free1 + (256 << 20) >= free0,
        "free memory fell from {free0} to {free1} bytes"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn byte_counts_that_overflow_are_refused_before_the_driver() {
    let g = gpu();
    for n in [usize::MAX, usize::MAX / 8 + 1, usize::MAX / 16 + 1] {
        let e = g
            .zeros::<f64>(n)
            .expect_err("an allocation whose byte count overflows succeeded");
        eprintln!("{n} entries: {e}");
    }
    let e = g
        .zeros::<matexp_core::c64>(usize::MAX / 16 + 1)
        .expect_err("c64 overflow");
    eprintln!("c64: {e}");
    solve_matches_cpu(&g);
}
