//! Without a usable driver every GPU entry point returns `Error::Device` — no panic — and the
//! CPU backend keeps working. `MATEXP_NO_CUDA=1` makes a GPU machine behave like one without
//! a driver; on machines without one the probe takes the same path for real.

use matexp_core::{Backend, CpuBackend, Error};
use matexp_gpu::{Device, GpuBackend, MultiGpuBackend, device_count};

#[test]
fn without_a_driver_gpu_calls_fail_cleanly_and_the_cpu_works() {
    // SAFETY: this test binary runs this single test, before any other thread reads the
    // environment.
    unsafe { std::env::set_var("MATEXP_NO_CUDA", "1") };
    let e = GpuBackend::new(0).unwrap_err();
    assert!(matches!(e, Error::Device(_)), "{e}");
    assert!(e.to_string().contains("MATEXP_NO_CUDA"), "{e}");
    assert!(matches!(device_count(), Err(Error::Device(_))));
    assert!(matches!(Device::all(), Err(Error::Device(_))));
    assert!(matches!(MultiGpuBackend::all(), Err(Error::Device(_))));
    assert!(matches!(
        MultiGpuBackend::new(&[0, 1]),
        Err(Error::Device(_))
    ));
    let cpu = CpuBackend::new();
    let x = cpu.upload(&[3.0f64, 4.0]).unwrap();
    assert_eq!(cpu.nrm2(&x).unwrap(), 5.0);
}
