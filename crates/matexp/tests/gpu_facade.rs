#![cfg(feature = "gpu")]
//! The README's GPU example end to end, every method through the facade on the GPU backend,
//! and the run-time choice of device, each against the same call on the CPU. Run by the GPU
//! bundle: `cargo test -p matexp --features gpu --test gpu_facade -- --ignored`.

use matexp::sparse::generators::laplacian_3d;
use matexp::sparse::matrix_market::{Symmetry, write_csr_file};
use matexp::{
    AnyBackend, Backend, CpuBackend, CsrMatrix, GpuBackend, GpuCsr, Method, Options, Target, expmv,
    read_matrix_market,
};

fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    let r: f64 = b.iter().map(|y| y * y).sum();
    (d / r).sqrt()
}

fn mtx_file() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("matexp-gpu-facade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("matrix.mtx");
    let a: CsrMatrix<f64> = laplacian_3d(16).unwrap();
    write_csr_file(&path, &a, Symmetry::Symmetric, &["3D Laplacian, N = 16"]).unwrap();
    path
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn readme_gpu_example_matches_the_cpu() {
    // The README's two examples, verbatim. They read `data/heat.mtx` relative to the working
    // folder: the crate's folder under `cargo test`, anywhere on a GPU host running the
    // bundle, so the matrix travels inside the binary and is written where the example looks.
    if !std::path::Path::new("data/heat.mtx").exists() {
        let dir = std::env::temp_dir().join(format!("matexp-gpu-facade-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/heat.mtx"), include_str!("../data/heat.mtx")).unwrap();
        std::env::set_current_dir(&dir).unwrap();
    }
    let run = || -> matexp::Result<(f64, f64, String, String)> {
        let a: CsrMatrix<f64> = read_matrix_market("data/heat.mtx")?;
        let v = vec![1.0; a.nrows()];
        let (w, report) = expmv(&CpuBackend::new(), &a, 0.01, &v, &Options::default())?;
        println!("w[0] = {:.6e}; {report}", w[0]);
        let (w_cpu, r_cpu) = (w[0], report.to_string());

        let a: CsrMatrix<f64> = read_matrix_market("data/heat.mtx")?;
        let gpu = GpuBackend::new(0)?;
        let (ag, v) = (
            GpuCsr::from_csr(&gpu, &a)?,
            gpu.upload(&vec![1.0; a.nrows()])?,
        );
        let (w, report) = expmv(&gpu, &ag, 0.01, &v, &Options::default())?;
        println!("w[0] = {:.6e}; {report}", gpu.to_host(&w)?[0]);
        Ok((w_cpu, gpu.to_host(&w)?[0], r_cpu, report.to_string()))
    };
    let (w_cpu, w_gpu, r_cpu, r_gpu) = run().unwrap();
    eprintln!("cpu: {r_cpu}\ngpu: {r_gpu}");
    assert!(
        (w_gpu - w_cpu).abs() <= 1e-7 * w_cpu.abs(),
        "{w_gpu} vs {w_cpu}"
    );
    assert_eq!(r_cpu.split(':').next(), r_gpu.split(':').next());
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn every_method_runs_on_the_gpu_through_the_facade() {
    let a: CsrMatrix<f64> = laplacian_3d(20).unwrap();
    let v: Vec<f64> = (0..a.nrows())
        .map(|i| ((i * 7919) % 97) as f64 / 97.0)
        .collect();
    let gpu = GpuBackend::new(0).unwrap();
    let ag = GpuCsr::from_csr(&gpu, &a).unwrap();
    let vg = gpu.upload(&v).unwrap();
    for method in [
        Method::Auto,
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
    ] {
        let opts = Options::default().with_method(method).with_rtol(1e-8);
        let (wc, rc) = expmv(&CpuBackend::new(), &a, 1e-2, &v, &opts).unwrap();
        let (wg, rg) = expmv(&gpu, &ag, 1e-2, &vg, &opts).unwrap();
        let e = rel_diff(&gpu.to_host(&wg).unwrap(), &wc);
        eprintln!("{method}: GPU vs CPU {e:.2e}; gpu {rg}; cpu {rc}");
        assert!(e <= 1e-7, "{method}: GPU vs CPU {e:.2e}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn any_backend_chooses_the_gpu_when_present_and_agrees_with_the_cpu() {
    let path = mtx_file();
    let a: CsrMatrix<f64> = read_matrix_market(&path).unwrap();
    let v = vec![1.0; a.nrows()];
    assert_eq!(Target::best_available(), Target::Gpu(0));
    let gpu = AnyBackend::new(Target::Gpu(0)).unwrap();
    let cpu = AnyBackend::new(Target::Cpu).unwrap();
    assert_eq!(gpu.target(), Target::Gpu(0));
    let opts = Options::default();
    let (wg, _) = gpu.expmv(&a, 1e-3, &v, &opts).unwrap();
    let (wc, _) = cpu.expmv(&a, 1e-3, &v, &opts).unwrap();
    assert!(rel_diff(&wg, &wc) <= 1e-7);
    let (tg, _) = gpu.expmv_times(&a, &[0.0, 5e-4, 1e-3], &v, &opts).unwrap();
    assert!(rel_diff(&tg[2], &wc) <= 1e-7);
    // An ordinal beyond the machine's GPUs: a clear error, and the fallback works.
    let e = AnyBackend::new(Target::Gpu(1000)).unwrap_err();
    assert!(e.to_string().contains("gpu:1000"), "{e}");
    assert_eq!(AnyBackend::gpu_or_cpu(1000).target(), Target::Cpu);
}
