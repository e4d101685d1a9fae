//! The C ABI's memory limit (one test per process: the limit is process-wide).

use matexp_cli::capi::*;
use std::ffi::CStr;
use std::ptr;

#[test]
fn sizes_beyond_the_memory_limit_are_refused_before_reading() {
    assert_eq!(matexp_set_memory_limit(1 << 20), MatexpStatus::Ok);
    // n = 10⁸ rows declared with a row-pointer array of one entry: the 400 MB copy exceeds
    // the limit, so nothing past that entry is read.
    let one = [0i64];
    let mut a = ptr::null_mut();
    let s = unsafe {
        matexp_csr_new(
            100_000_000,
            0,
            one.as_ptr(),
            ptr::null(),
            ptr::null(),
            &mut a,
        )
    };
    let msg = unsafe { CStr::from_ptr(matexp_last_error()) }
        .to_string_lossy()
        .into_owned();
    assert_eq!(s, MatexpStatus::OutOfMemory, "{msg}");
    assert!(
        msg.contains("400000004") && msg.contains("available"),
        "{msg}"
    );
    assert!(a.is_null());
    // A MatrixMarket header of 10⁹ rows under the same limit.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.mtx");
    std::fs::write(
        &p,
        "%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 0\n",
    )
    .unwrap();
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let s = unsafe { matexp_csr_read(c.as_ptr(), &mut a) };
    assert_eq!(s, MatexpStatus::OutOfMemory);
    // Without the limit, small matrices are built as before.
    assert_eq!(matexp_set_memory_limit(0), MatexpStatus::Ok);
    let (rp, ci, va) = ([0i64, 1], [0i64], [2.0]);
    let s = unsafe { matexp_csr_new(1, 1, rp.as_ptr(), ci.as_ptr(), va.as_ptr(), &mut a) };
    assert_eq!(s, MatexpStatus::Ok);
    unsafe { matexp_csr_free(a) };
}
