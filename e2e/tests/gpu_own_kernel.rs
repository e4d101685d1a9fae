//! The must-show of the public kernel API: this crate's own kernel (`kernels/sin_x.cu`),
//! loaded and launched through `matexp-gpu`, its output reduced on the device (host-bound
//! and device-resident results), and everything checked against the CPU in double precision.
//! Inputs come from the seeded test stream (`MATEXP_TEST_SEED` replays a run).

use matexp_core::RealScalar;
use matexp_gpu::kernels::reduce::{self, DeviceReduction, PartialRows};
use matexp_gpu::rt::{Kernel, LaunchConfig};
use matexp_gpu::sys::{MX_REDUCE_THREADS, MxSsqPartial};
use matexp_gpu::{Device, DeviceBuffer, DeviceElement, ssq_norm};
use rand::Rng;

fn device() -> std::sync::Arc<Device> {
    let d = Device::open(0).expect("a CUDA device");
    eprintln!("device: {}", d.info());
    d
}

/// Checks one precision: elementwise against the CPU, then Σ y, ‖y‖₂, max |y| and ⟨x, y⟩
/// reduced on the device against the same sums of the CPU values in double precision.
fn check<T: RealScalar + DeviceElement + Default>(n: usize, elem_tol: f64, sum_tol: f64) {
    let dev = device();
    let mut r = matexp_testkit::rng(&format!("own kernel {} {n}", T::NAME));
    let x_host: Vec<T> = (0..n)
        .map(|_| T::from_f64(r.random_range(-20.0..20.0)))
        .collect();
    let x = DeviceBuffer::from_host(&dev, &x_host).unwrap();
    let mut y = DeviceBuffer::<T>::zeros(&dev, n).unwrap();
    matexp_e2e::sin_times_x(&x, &mut y).unwrap();

    // The CPU reference of each element, from the same (rounded) inputs, in f64.
    let want: Vec<f64> = x_host
        .iter()
        .map(|v| {
            let v = v.as_f64();
            v.sin() * v
        })
        .collect();
    let got = y.to_vec().unwrap();
    let worst = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g.as_f64() - w).abs() / w.abs().max(1.0))
        .fold(0.0f64, f64::max);
    eprintln!("{} n={n}: worst elementwise error {worst:.2e}", T::NAME);
    assert!(worst <= elem_tol, "elementwise error {worst:e}");

    // Reductions of the kernel's output (the GPU's own values, so only summation differs).
    let yv: Vec<f64> = got.iter().map(|v| v.as_f64()).collect();
    let xv: Vec<f64> = x_host.iter().map(|v| v.as_f64()).collect();
    let sum: f64 = yv.iter().sum();
    let abs_sum: f64 = yv.iter().map(|v| v.abs()).sum();
    let norm = yv.iter().map(|v| v * v).sum::<f64>().sqrt();
    let max = yv.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let dot: f64 = xv.iter().zip(&yv).map(|(a, b)| a * b).sum();
    let abs_dot: f64 = xv.iter().zip(&yv).map(|(a, b)| (a * b).abs()).sum();

    let ys = y.as_slice();
    let g_sum = reduce::sum(&ys).unwrap().wait().unwrap().as_f64();
    let g_norm = reduce::nrm2(&ys).unwrap().wait().unwrap().as_f64();
    let g_max = reduce::amax(&ys).unwrap().wait().unwrap().as_f64();
    let g_dot = reduce::dot(&x.as_slice(), &ys)
        .unwrap()
        .wait()
        .unwrap()
        .as_f64();
    eprintln!(
        "{} n={n}: sum {g_sum:.6e} (cpu {sum:.6e}), norm {g_norm:.6e} (cpu {norm:.6e}), max {g_max:.6e}, dot {g_dot:.6e} (cpu {dot:.6e})",
        T::NAME
    );
    // The device accumulates in f64 in another order: the difference is bounded by the
    // sum of magnitudes times a few ulps of f64, plus the rounding of the result to T.
    assert!((g_sum - sum).abs() <= sum_tol * abs_sum.max(1.0), "sum");
    assert!((g_norm - norm).abs() <= sum_tol * norm.max(1.0), "norm");
    assert_eq!(g_max, max, "max |y| is exact");
    assert!((g_dot - dot).abs() <= sum_tol * abs_dot.max(1.0), "dot");

    // Results kept on the device: written into a buffer a later kernel could read, with no
    // host round trip until we download them here to check.
    let out = DeviceBuffer::<f64>::zeros(&dev, 8).unwrap();
    reduce::reduce_on_device(DeviceReduction::Sum, &ys, None, &out.slice(0..2).unwrap()).unwrap();
    reduce::reduce_on_device(
        DeviceReduction::SumOfSquares,
        &ys,
        None,
        &out.slice(2..5).unwrap(),
    )
    .unwrap();
    reduce::reduce_on_device(DeviceReduction::MaxAbs, &ys, None, &out.at(5).unwrap()).unwrap();
    let o = out.to_vec().unwrap();
    assert!(
        (o[0] - sum).abs() <= 1e-13 * abs_sum.max(1.0),
        "device-resident sum"
    );
    assert_eq!(o[1], 0.0, "imaginary part of a real sum");
    let n2 = ssq_norm(&MxSsqPartial {
        small: o[2],
        medium: o[3],
        big: o[4],
    });
    assert!(
        (n2 - norm).abs() <= 1e-13 * norm.max(1.0),
        "device-resident norm"
    );
    assert_eq!(o[5], max, "device-resident max");

    // A partial pass launched by this crate (here matexp's own `sum_partial`, reached through
    // its public module, as a fused kernel of another crate would be), finished by the runtime.
    static SUM_PARTIAL: Kernel = Kernel::new(&matexp_gpu::kernels::REDUCE, "sum_partial");
    let f = SUM_PARTIAL.for_scalar::<T>(&dev).unwrap();
    let rows = reduce::reduce_partials(&dev, PartialRows::Sum { width: 2 }, |partials, max| {
        let grid = dev.grid_for(n, MX_REDUCE_THREADS, max);
        let n = n as u64;
        // SAFETY: sum_partial_T(n, x, partials) reads n elements of y and writes `grid` rows
        // of two doubles into the workspace, which holds `max` >= grid rows.
        unsafe {
            dev.launch_builder(f)
                .arg(&n)
                .arg(&y)
                .arg(&partials)
                .launch(LaunchConfig::linear(grid, MX_REDUCE_THREADS))?
        };
        Ok(grid)
    })
    .unwrap()
    .wait()
    .unwrap();
    assert!(
        (rows[0] - sum).abs() <= 1e-13 * abs_sum.max(1.0),
        "custom partial sum"
    );
    assert_eq!(rows[1], 0.0, "imaginary part of a real sum");
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn own_kernel_f64_matches_the_cpu() {
    for n in [1, 1000, 1 << 20] {
        check::<f64>(n, 1e-15, 1e-13);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn own_kernel_f32_matches_the_cpu() {
    for n in [7, 1 << 18] {
        // sinf is accurate to 2 ulp; the product adds half an ulp.
        check::<f32>(n, 1e-6, 1e-6);
    }
}

/// Without a GPU the same calls fail with a typed error, never a panic.
#[test]
fn without_a_device_the_api_reports_an_error() {
    if Device::open(0).is_ok() {
        return;
    }
    let e = Device::open(0).unwrap_err();
    assert!(matches!(e, matexp_core::Error::Device(_)), "{e}");
}
