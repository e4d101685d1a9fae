//! Opening a GPU either works or fails with `Error::Device` naming the reason; it never
//! panics, whatever the machine (no driver, driver without GPU, GPU).

use matexp_core::Error;
use matexp_gpu::{GpuBackend, device_count};

#[test]
fn opening_a_gpu_never_panics() {
    match device_count() {
        Ok(n) => {
            assert!(n > 0, "a driver that reports no device must be an error");
            let g = GpuBackend::new(0).expect("device 0 exists");
            assert!(!g.device().info().name.is_empty());
            assert!(matches!(
                GpuBackend::new(n),
                Err(Error::InvalidArgument { .. })
            ));
        }
        Err(e) => {
            assert!(matches!(e, Error::Device(_)), "{e}");
            let e2 = GpuBackend::new(0).unwrap_err();
            assert!(matches!(e2, Error::Device(_)), "{e2}");
            eprintln!("no GPU here: {e2}");
        }
    }
}
