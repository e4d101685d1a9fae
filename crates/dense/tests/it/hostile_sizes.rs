//! Sizes a hostile caller can pass: every one is a typed error (or a documented panic of an
//! infallible constructor), never a matrix whose storage is smaller than its shape.

use matexp_core::{Error, c64};
use matexp_dense::{Matrix, phi_functions, phi_scalar, phi_vectors};

const BIG: usize = 1 << 32;

/// The refusal of a size that overflows or exceeds the memory budget.
fn beyond_memory(e: &Error) -> bool {
    matches!(
        e,
        Error::InvalidArgument { .. } | Error::OutOfMemoryBudget { .. }
    )
}

#[test]
fn shapes_whose_entries_overflow_are_refused() {
    // 2³²·2³² wraps to 0 in usize: before, such a matrix had no storage at all.
    let e = Matrix::<f64>::from_col_major(BIG, BIG, Vec::new()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let e = Matrix::<c64>::from_row_major(BIG, BIG, &[]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let e = Matrix::<f64>::try_zeros(BIG, BIG).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // A shape that fits usize but not memory is refused too, not an abort.
    let e = Matrix::<f64>::try_zeros(1 << 31, 1 << 31).unwrap_err();
    assert!(beyond_memory(&e), "{e}");
    assert_eq!(
        Matrix::<f64>::try_zeros(3, 2).unwrap(),
        Matrix::<f64>::zeros(3, 2)
    );
    // The infallible constructor panics (as `vec!` on a capacity overflow) instead.
    assert!(std::panic::catch_unwind(|| Matrix::<f64>::zeros(BIG, BIG)).is_err());
    assert!(std::panic::catch_unwind(|| Matrix::<f64>::from_fn(BIG, BIG, |_, _| 0.0)).is_err());
}

#[test]
fn empty_factors_of_a_huge_product_are_refused() {
    // 2⁴⁰×0 times 0×2⁴⁰: both factors are empty, the product has 2⁸⁰ entries.
    let a = Matrix::<f64>::zeros(1 << 40, 0);
    let b = Matrix::<f64>::zeros(0, 1 << 40);
    assert!(beyond_memory(&a.matmul(&b).unwrap_err()));
    // The empty product that does fit is the zero matrix.
    let a = Matrix::<f64>::zeros(2, 0);
    let b = Matrix::<f64>::zeros(0, 3);
    assert_eq!(a.matmul(&b).unwrap(), Matrix::zeros(2, 3));
}

#[test]
fn submatrix_ends_beyond_usize_are_out_of_range() {
    let a = Matrix::<f64>::identity(3);
    for (r0, c0, nr, nc) in [
        (usize::MAX, 0, 2, 1),
        (0, usize::MAX, 1, 2),
        (1, 0, usize::MAX, 1),
    ] {
        let e = a.submatrix(r0, c0, nr, nc).unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { .. }), "{e}");
    }
    assert_eq!(a.submatrix(1, 1, 2, 2).unwrap(), Matrix::identity(2));
}

#[test]
fn phi_orders_beyond_any_storage_are_typed_errors() {
    let a = Matrix::<f64>::from_row_major(2, 2, &[-1.0, 0.5, 0.0, -2.0]).unwrap();
    for p in [usize::MAX, usize::MAX / 2, 1 << 40] {
        let e = phi_functions(&a, p).unwrap_err();
        assert!(beyond_memory(&e), "p = {p}: {e}");
        let e = phi_vectors(&a, &[1.0, 1.0], p).unwrap_err();
        assert!(beyond_memory(&e), "p = {p}: {e}");
    }
    for k in [31, 1 << 40, usize::MAX] {
        let e = phi_scalar(k, 0.5f64).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { name: "k", .. }), "{e}");
    }
    assert!(matches!(
        phi_scalar(1, f64::NAN).unwrap_err(),
        Error::InvalidArgument { name: "z", .. }
    ));
    assert!(matches!(
        phi_scalar(0, 1000.0f64).unwrap_err(),
        Error::NonFinite { .. }
    ));
}

/// Empty matrices of 2⁶¹ rows or columns are valid; nothing loops over (or allocates for)
/// their empty dimension: `transpose` of a 2⁶¹×0 matrix ran 2⁶¹ empty column loops.
#[test]
fn empty_matrices_with_a_huge_dimension_cost_nothing() {
    let start = std::time::Instant::now();
    for (r, c) in [
        (1usize << 61, 0usize),
        (0, 1 << 61),
        (usize::MAX, 0),
        (0, usize::MAX),
    ] {
        let a = Matrix::<f64>::from_col_major(r, c, Vec::new()).unwrap();
        let t = a.transpose();
        assert_eq!((t.nrows(), t.ncols()), (c, r));
        assert!(a.adjoint().as_slice().is_empty());
        assert!(a.to_row_major().is_empty());
        assert_eq!((a.norm_one(), a.norm_inf(), a.norm_max()), (0.0, 0.0, 0.0));
        assert!(a.is_upper_triangular());
        assert!(a.submatrix(0, 0, r, c).unwrap().as_slice().is_empty());
        if c == 0 {
            // A·x of an empty x has 2⁶¹ zero rows: beyond memory, refused.
            assert!(beyond_memory(&a.matvec(&[]).unwrap_err()));
        }
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}
