//! Without a CUDA driver (forced by `MATEXP_NO_CUDA=1`) the cuBLAS backend is a typed error,
//! never a panic, and the CPU path is unaffected.

use matexp_core::Error;
use matexp_dense::Matrix;
use matexp_matpoly::{CpuDense, CublasDense, Evaluator, Scheme};

#[test]
fn no_driver_is_a_device_error() {
    // SAFETY: this test binary has a single test; no other thread reads the environment.
    unsafe { std::env::set_var("MATEXP_NO_CUDA", "1") };
    match CublasDense::new(0) {
        Err(Error::Device(msg)) => assert!(!msg.is_empty()),
        other => panic!("expected Error::Device, got {other:?}"),
    }
    let x = Matrix::<f64>::identity(3);
    let p = Evaluator::new(CpuDense::new())
        .polyval(&x, &[1.0, 1.0], Scheme::Horner)
        .unwrap();
    assert_eq!(p, Matrix::identity(3).scaled(2.0));
}
