//! The C ABI against hostile callers, called from Rust as C calls it: out-of-range
//! enumerations, bad tolerances, inconsistent CSR arrays, null pointers and sizes get their
//! documented status and a message, never a crash, an internal error or a silent success.

use matexp_cli::capi::*;
use std::ffi::CStr;
use std::ptr;

fn last_error() -> String {
    unsafe { CStr::from_ptr(matexp_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// A = [[0, 1], [-1, 0]] (e^{tA} a rotation), from i64 arrays.
fn rotation() -> *mut MatexpMatrix {
    let (rp, ci, va) = ([0i64, 1, 2], [1i64, 0], [1.0, -1.0]);
    let mut a = ptr::null_mut();
    let s = unsafe { matexp_csr_new(2, 2, rp.as_ptr(), ci.as_ptr(), va.as_ptr(), &mut a) };
    assert_eq!(s, MatexpStatus::Ok, "{}", last_error());
    a
}

#[test]
fn out_of_range_methods_are_invalid_arguments_and_keep_the_method() {
    let a = rotation();
    let o = matexp_options_new();
    // Lanczos refuses this non-symmetric matrix: a way to see which method is set.
    assert_eq!(unsafe { matexp_options_set_method(o, 2) }, MatexpStatus::Ok);
    for bad in [5, -1, 9, 1000, i32::MIN, i32::MAX] {
        let s = unsafe { matexp_options_set_method(o, bad) };
        assert_eq!(s, MatexpStatus::InvalidArgument, "method {bad}");
        assert!(
            last_error().contains(&format!("method = {bad}")),
            "{}",
            last_error()
        );
    }
    let (v, mut w) = ([1.0, 2.0], [0.0; 2]);
    let s = unsafe { matexp_expmv(a, 0.5, v.as_ptr(), w.as_mut_ptr(), 2, o, ptr::null_mut()) };
    assert_eq!(
        s,
        MatexpStatus::InvalidArgument,
        "still Lanczos: {}",
        last_error()
    );
    for m in [0, 1, 3, 4] {
        assert_eq!(unsafe { matexp_options_set_method(o, m) }, MatexpStatus::Ok);
        let s = unsafe { matexp_expmv(a, 0.5, v.as_ptr(), w.as_mut_ptr(), 2, o, ptr::null_mut()) };
        assert_eq!(s, MatexpStatus::Ok, "method {m}: {}", last_error());
        let (c, sn) = (0.5f64.cos(), 0.5f64.sin());
        assert!((w[0] - (c + 2.0 * sn)).abs() < 1e-7 && (w[1] - (2.0 * c - sn)).abs() < 1e-7);
    }
    assert_eq!(
        unsafe { matexp_options_set_method(ptr::null_mut(), 0) },
        MatexpStatus::NullPointer
    );
    unsafe { matexp_options_free(o) };
    unsafe { matexp_csr_free(a) };
}

#[test]
fn bad_tolerances_are_invalid_arguments_and_change_nothing() {
    let a = rotation();
    let o = matexp_options_new();
    assert_eq!(
        unsafe { matexp_options_set_tolerance(o, 1e-12, 0.0) },
        MatexpStatus::Ok
    );
    for (r, t) in [
        (-1e-8, 0.0),
        (1e-8, -1.0),
        (f64::NAN, 0.0),
        (1e-8, f64::INFINITY),
        (f64::NEG_INFINITY, 0.0),
    ] {
        let s = unsafe { matexp_options_set_tolerance(o, r, t) };
        assert_eq!(s, MatexpStatus::InvalidArgument, "({r}, {t})");
        assert!(
            last_error().contains("tolerances must be finite and ≥ 0"),
            "{}",
            last_error()
        );
    }
    // rtol 1e-12 was kept: the report meets it, with the renamed field.
    let (v, mut w) = ([1.0, 2.0], [0.0; 2]);
    let mut rep = MatexpReport::default();
    let s = unsafe { matexp_expmv(a, 0.7, v.as_ptr(), w.as_mut_ptr(), 2, o, &mut rep) };
    assert_eq!(s, MatexpStatus::Ok);
    assert_eq!(rep.converged, 1);
    assert!(
        rep.rel_error_estimate <= 1e-12,
        "{}",
        rep.rel_error_estimate
    );
    let exact = [
        0.7f64.cos() + 2.0 * 0.7f64.sin(),
        2.0 * 0.7f64.cos() - 0.7f64.sin(),
    ];
    assert!((w[0] - exact[0]).abs() < 1e-11 && (w[1] - exact[1]).abs() < 1e-11);
    unsafe { matexp_options_free(o) };
    unsafe { matexp_csr_free(a) };
}

/// `matexp_csr_new` and `_i32` on the same arrays: the same status and message.
fn both_widths(n: usize, nnz: usize, rp: &[i64], ci: &[i64], va: &[f64]) -> (MatexpStatus, String) {
    let mut a = ptr::null_mut();
    let s64 = unsafe { matexp_csr_new(n, nnz, rp.as_ptr(), ci.as_ptr(), va.as_ptr(), &mut a) };
    let m64 = last_error();
    unsafe { matexp_csr_free(a) };
    let (rp32, ci32): (Vec<i32>, Vec<i32>) = (
        rp.iter().map(|&x| x as i32).collect(),
        ci.iter().map(|&x| x as i32).collect(),
    );
    let mut b = ptr::null_mut();
    let s32 =
        unsafe { matexp_csr_new_i32(n, nnz, rp32.as_ptr(), ci32.as_ptr(), va.as_ptr(), &mut b) };
    assert_eq!(s64, s32, "{m64} / {}", last_error());
    assert_eq!(m64, last_error());
    if s64 != MatexpStatus::Ok {
        assert!(a.is_null() && b.is_null(), "no handle on failure");
    }
    unsafe { matexp_csr_free(b) };
    (s64, m64)
}

#[test]
fn inconsistent_csr_arrays_are_input_errors_in_both_index_widths() {
    let va = [1.0, 2.0, 3.0];
    let cases: [(&[i64], &[i64], usize, &str); 6] = [
        (&[1, 2, 3], &[0, 1, 2], 3, "row_ptr[0] = 1"),
        (&[0, 2, 1, 3], &[0, 1, 2], 3, "row_ptr decreases at row 1"),
        (
            &[0, 1, 2, 3],
            &[0, 1, 2],
            2,
            "row_ptr[n] = row_ptr[3] = 3 but nnz = 2",
        ),
        (
            &[0, 1, 2, 3],
            &[0, 3, 2],
            3,
            "col_idx[1] = 3 is outside 0..3",
        ),
        (
            &[0, 1, 2, 3],
            &[0, -1, 2],
            3,
            "col_idx[1] = -1 is outside 0..3",
        ),
        (&[0, -1, 2, 3], &[0, 1, 2], 3, "row_ptr decreases at row 0"),
    ];
    for (rp, ci, nnz, needle) in cases {
        let (s, m) = both_widths(3, nnz, rp, ci, &va[..nnz.min(3)]);
        assert_eq!(s, MatexpStatus::Input, "{needle}: {m}");
        assert!(m.contains(needle), "{needle}: {m}");
    }
    // Consistent arrays give the same matrix from both widths.
    let (s, _) = both_widths(3, 3, &[0, 1, 2, 3], &[2, 0, 1], &va);
    assert_eq!(s, MatexpStatus::Ok);
    // Sizes the CSR index type cannot hold are refused before anything is read.
    let one = [0i64];
    let mut a = ptr::null_mut();
    let s = unsafe {
        matexp_csr_new(
            usize::MAX,
            0,
            one.as_ptr(),
            ptr::null(),
            ptr::null(),
            &mut a,
        )
    };
    assert_eq!(s, MatexpStatus::InvalidArgument, "{}", last_error());
    let s = unsafe { matexp_csr_new(1 << 40, 0, one.as_ptr(), ptr::null(), ptr::null(), &mut a) };
    assert_eq!(s, MatexpStatus::InvalidArgument, "{}", last_error());
    assert!(a.is_null());
}

#[test]
fn null_pointers_are_reported_by_name() {
    let (rp, ci, va) = ([0i64, 1], [0i64], [1.0]);
    let mut a = ptr::null_mut();
    let calls: [(MatexpStatus, &str); 4] = unsafe {
        [
            (
                matexp_csr_new(1, 1, ptr::null(), ci.as_ptr(), va.as_ptr(), &mut a),
                "row_ptr",
            ),
            (
                matexp_csr_new(1, 1, rp.as_ptr(), ptr::null(), va.as_ptr(), &mut a),
                "col_idx",
            ),
            (
                matexp_csr_new(1, 1, rp.as_ptr(), ci.as_ptr(), ptr::null(), &mut a),
                "values",
            ),
            (
                matexp_csr_new(1, 1, rp.as_ptr(), ci.as_ptr(), va.as_ptr(), ptr::null_mut()),
                "out",
            ),
        ]
    };
    for (s, name) in calls {
        assert_eq!(s, MatexpStatus::NullPointer, "{name}");
    }
    assert!(a.is_null());
    // An empty matrix needs no column or value arrays.
    let zero = [0i64, 0];
    let s = unsafe { matexp_csr_new(1, 0, zero.as_ptr(), ptr::null(), ptr::null(), &mut a) };
    assert_eq!(s, MatexpStatus::Ok, "{}", last_error());
    unsafe { matexp_csr_free(a) };
}

#[test]
fn phimv_orders_beyond_the_offered_are_invalid_arguments() {
    let a = rotation();
    let o = matexp_options_new();
    let v = [1.0, 0.0];
    let mut out = [0.0; 4];
    for k in [usize::MAX, 1 << 40, matexp::methods::MAX_PHI_ORDER + 1] {
        let s = unsafe {
            matexp_phimv(
                a,
                1.0,
                v.as_ptr(),
                k,
                out.as_mut_ptr(),
                2,
                o,
                ptr::null_mut(),
            )
        };
        assert_eq!(
            s,
            MatexpStatus::InvalidArgument,
            "k = {k}: {}",
            last_error()
        );
        assert!(
            last_error().contains(&format!("k = {k}")),
            "{}",
            last_error()
        );
    }
    unsafe { matexp_options_free(o) };
    unsafe { matexp_csr_free(a) };
}
