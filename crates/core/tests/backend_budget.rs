//! Backend vectors are checked against the memory budget before they are allocated, so a
//! solver's workspace sized by its input (a Krylov basis of m vectors of the operator's order)
//! is refused with a typed error instead of exhausting the machine. A test of its own binary:
//! the user limit is process-wide.

use matexp_core::{Backend, CpuBackend, Error, memory};

#[test]
fn cpu_vectors_beyond_the_user_limit_are_refused_with_both_numbers() {
    memory::set_limit(Some(256 << 20));
    let cpu = CpuBackend::new();
    // 10⁸ f64 are 800 MB, over the 256 MiB limit.
    let e = cpu.zeros::<f64>(100_000_000).unwrap_err();
    match &e {
        Error::OutOfMemoryBudget {
            needed, available, ..
        } => {
            assert_eq!(*needed, 800_000_000);
            assert!(*available <= 256 << 20, "{e}");
        }
        other => panic!("expected OutOfMemoryBudget, got {other}"),
    }
    // What fits is allocated as before, and holds zeros.
    let v = cpu
        .zeros::<f64>(1 << 20)
        .expect("8 MiB fits a 256 MiB limit");
    assert!(v.iter().all(|&x| x == 0.0));
    memory::set_limit(None);
}
