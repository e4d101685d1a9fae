//! The MatrixMarket reader on arbitrary bytes: every scalar type, both index types, CSR,
//! pattern and dense reads, with the input length known (`from_bytes`) and streamed (`new`).
//! A read either fails with a typed error or returns a structure that passes the CSR
//! validation (dense: `nrows·ncols` finite entries). Huge headers (10⁹ rows, 10¹⁵ entries)
//! are read like any other: the reader's memory budget, set here to 1 GiB, refuses them
//! with `OutOfMemoryBudget` before anything of their size is allocated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_core::{Error, Scalar, c32, c64, memory};
use matexp_sparse::matrix_market::MatrixMarketReader;
use matexp_sparse::{CsrIndex, validate_csr};

/// The memory the reads may use (resident memory included): below libFuzzer's RSS limit
/// (2 GiB by default).
const BUDGET: u64 = 1 << 30;

/// A failed read must be a typed error of the reader, never a panic or an abort.
fn typed(e: &Error) {
    assert!(
        matches!(
            e,
            Error::Parse { .. }
                | Error::InvalidArgument { .. }
                | Error::DimensionMismatch { .. }
                | Error::NonFinite { .. }
                | Error::OutOfMemoryBudget { .. }
        ),
        "{e:?}"
    );
}

fn check_csr<S: Scalar, I: CsrIndex>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    match r.read_csr::<S, I>() {
        Ok(a) => {
            assert!(validate_csr(a.nrows(), a.ncols(), a.row_ptr(), a.col_idx()).unwrap());
            assert_eq!(a.values().len(), a.nnz());
            assert!(a.values().iter().all(|v| v.finite()));
        }
        Err(e) => typed(&e),
    }
}

fn check_pattern<I: CsrIndex>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    match r.read_pattern::<I>() {
        Ok(p) => assert!(validate_csr(p.nrows(), p.ncols(), p.row_ptr(), p.col_idx()).unwrap()),
        Err(e) => typed(&e),
    }
}

fn check_dense<S: Scalar>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    match r.read_dense::<S>() {
        Ok(d) => {
            assert_eq!(d.data.len(), d.nrows * d.ncols);
            assert!(d.data.iter().all(|v| v.finite()));
        }
        Err(e) => typed(&e),
    }
}

fuzz_target!(|data: &[u8]| {
    memory::set_limit(Some(BUDGET));
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let known = mode & 1 == 1;
    match (mode >> 1) % 11 {
        0 => check_csr::<f64, u32>(bytes, known),
        1 => check_csr::<f32, u32>(bytes, known),
        2 => check_csr::<c64, u32>(bytes, known),
        3 => check_csr::<c32, u32>(bytes, known),
        4 => check_csr::<f64, u64>(bytes, known),
        5 => check_pattern::<u32>(bytes, known),
        6 => check_pattern::<u64>(bytes, known),
        7 => check_dense::<f64>(bytes, known),
        8 => check_dense::<f32>(bytes, known),
        9 => check_dense::<c64>(bytes, known),
        _ => check_dense::<c32>(bytes, known),
    }
});
