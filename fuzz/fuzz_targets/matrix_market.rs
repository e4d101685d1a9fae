//! The MatrixMarket reader on arbitrary bytes: every scalar type, both index types, CSR,
//! pattern and dense reads, with the input length known (`from_bytes`) and streamed (`new`).
//! A read either fails with a typed error or returns a structure that passes the CSR
//! validation (dense: `nrows·ncols` finite entries).
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_core::{Scalar, c32, c64};
use matexp_sparse::matrix_market::{Format, MatrixMarketReader};
use matexp_sparse::{CsrIndex, validate_csr};

/// Headers that declare a valid matrix too large for the fuzzer's memory limit (the row
/// pointers of 10⁹ empty rows are a correct, 8 GB answer) are read only as far as the header;
/// the allocation failure path is covered by `crates/sparse/tests/hostile_inputs.rs`.
const MAX_ROWS: usize = 1 << 20;
const MAX_DENSE: usize = 1 << 22;

fn check_csr<S: Scalar, I: CsrIndex>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    if r.header().nrows > MAX_ROWS {
        return;
    }
    if let Ok(a) = r.read_csr::<S, I>() {
        assert!(validate_csr(a.nrows(), a.ncols(), a.row_ptr(), a.col_idx()).unwrap());
        assert_eq!(a.values().len(), a.nnz());
        assert!(a.values().iter().all(|v| v.finite()));
    }
}

fn check_pattern<I: CsrIndex>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    if r.header().nrows > MAX_ROWS {
        return;
    }
    if let Ok(p) = r.read_pattern::<I>() {
        assert!(validate_csr(p.nrows(), p.ncols(), p.row_ptr(), p.col_idx()).unwrap());
    }
}

fn check_dense<S: Scalar>(bytes: &[u8], known_len: bool) {
    let r = if known_len {
        MatrixMarketReader::from_bytes(bytes, "fuzz")
    } else {
        MatrixMarketReader::new(bytes, "fuzz")
    };
    let Ok(r) = r else { return };
    let h = *r.header();
    // An array file's size is bounded by its data; a coordinate file's dense block is not.
    if h.format == Format::Coordinate && h.nrows.saturating_mul(h.ncols) > MAX_DENSE {
        return;
    }
    if let Ok(d) = r.read_dense::<S>() {
        assert_eq!(d.data.len(), d.nrows * d.ncols);
        assert!(d.data.iter().all(|v| v.finite()));
    }
}

fuzz_target!(|data: &[u8]| {
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
