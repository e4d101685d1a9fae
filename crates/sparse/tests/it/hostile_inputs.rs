//! Hostile MatrixMarket headers and constructor sizes: every one ends in a typed error (or
//! the right empty result) at once, never in an abort, a panic, a hang or a reservation sized
//! by an impossible header.

use matexp_core::{DenseMatrixOperator, Error, c64};
use matexp_sparse::matrix_market::{MatrixMarketReader, read_csr, read_pattern};
use matexp_sparse::{CsrMatrix, PatternCsr};
use std::time::{Duration, Instant};

/// Asserts a parse error naming `source` and `line`.
fn assert_parse_at(e: &Error, source: &str, line: usize) {
    match e {
        Error::Parse { .. } => {
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("{source}:{line}:")),
                "error does not name {source}, line {line}: {msg}"
            );
        }
        other => panic!("expected a parse error at {source}:{line}, got {other:?}"),
    }
}

/// Asserts a refusal of the memory budget whose message names `source` and the size line.
fn assert_budget_refusal_at(e: &Error, source: &str, line: usize) {
    match e {
        Error::OutOfMemoryBudget {
            what,
            needed,
            available,
            ..
        } => {
            assert!(needed > available, "{e}");
            assert!(
                what.starts_with(&format!("{source}:")) && what.contains(&format!("line {line}")),
                "error does not name {source}, line {line}: {e}"
            );
        }
        other => panic!("expected a memory-budget refusal for {source}, got {other:?}"),
    }
}

/// Runs `f` and checks it returned within a second (a debug build included).
fn quickly<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "{what} took {:?}",
        t.elapsed()
    );
    out
}

#[test]
fn row_count_of_usize_max_is_a_size_line_error() {
    let text = format!(
        "%%MatrixMarket matrix coordinate real general\n{} 1 0\n",
        usize::MAX
    );
    let e = quickly("usize::MAX rows", || {
        read_csr::<f64, u64, _>(text.as_bytes(), "max-rows.mtx").unwrap_err()
    });
    assert_parse_at(&e, "max-rows.mtx", 2);
    let e = read_pattern::<u64, _>(text.as_bytes(), "max-rows.mtx").unwrap_err();
    assert_parse_at(&e, "max-rows.mtx", 2);
}

#[test]
fn row_pointers_beyond_memory_are_a_typed_error() {
    // 2⁶⁰ rows and no entries: a valid header whose row pointers no machine can hold. The
    // memory budget refuses them before any allocation, naming the size line.
    let text = format!(
        "%%MatrixMarket matrix coordinate real general\n{} 1 0\n",
        1usize << 60
    );
    let e = quickly("2^60 rows", || {
        read_csr::<f64, u64, _>(text.as_bytes(), "huge-rows.mtx").unwrap_err()
    });
    assert_budget_refusal_at(&e, "huge-rows.mtx", 2);
    let e = read_pattern::<u64, _>(text.as_bytes(), "huge-rows.mtx").unwrap_err();
    assert_budget_refusal_at(&e, "huge-rows.mtx", 2);
}

#[test]
fn declared_entries_beyond_the_input_length_fail_at_the_data() {
    // 10¹² declared entries (a 4 GiB reservation if trusted) and one present: the storage
    // grows with the entries read, and the error names the end of the data.
    let text = b"%%MatrixMarket matrix coordinate real symmetric\n3 3 1000000000000\n1 1 1\n";
    let e = quickly("10^12 entries", || {
        MatrixMarketReader::from_bytes(text, "nnz.mtx")
            .unwrap()
            .read_csr::<f64, u32>()
            .unwrap_err()
    });
    assert_parse_at(&e, "nnz.mtx", 4);
    assert!(
        e.to_string()
            .contains("line 2 declares 1000000000000 entries, found 1"),
        "{e}"
    );
    let e = quickly("10^12 entries, streamed", || {
        read_csr::<f64, u32, _>(&text[..], "nnz.mtx").unwrap_err()
    });
    assert_parse_at(&e, "nnz.mtx", 4);
    let e = quickly("10^12 entries, pattern", || {
        read_pattern::<u64, _>(&text[..], "nnz.mtx").unwrap_err()
    });
    assert_parse_at(&e, "nnz.mtx", 4);
}

#[test]
fn a_file_exactly_full_is_accepted_by_the_length_check() {
    // The shortest lines the bound allows, the last without a newline.
    let text = b"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2";
    let p = MatrixMarketReader::from_bytes(text, "tight.mtx")
        .unwrap()
        .read_pattern::<u32>()
        .unwrap();
    assert_eq!(p.nnz(), 2);
    let text = b"%%MatrixMarket matrix array real general\n2 1\n1\n2";
    let d = MatrixMarketReader::from_bytes(text, "tight.mtx")
        .unwrap()
        .read_dense::<f64>()
        .unwrap();
    assert_eq!(d.data, [1.0, 2.0]);
}

#[test]
fn large_array_header_reads_nothing_up_front() {
    // 10⁵ × 10⁵ (80 GB of f64) with one value: truncated, found at the data.
    for sym in ["general", "symmetric"] {
        let text = format!("%%MatrixMarket matrix array real {sym}\n100000 100000\n1.5\n");
        let e = quickly("array 1e5 x 1e5 dense", || {
            MatrixMarketReader::new(text.as_bytes(), "big-array.mtx")
                .unwrap()
                .read_dense::<f64>()
                .unwrap_err()
        });
        assert_parse_at(&e, "big-array.mtx", 4);
        let e = quickly("array 1e5 x 1e5 csr", || {
            read_csr::<f64, u32, _>(text.as_bytes(), "big-array.mtx").unwrap_err()
        });
        assert_parse_at(&e, "big-array.mtx", 4);
        let e = quickly("array 1e5 x 1e5 dense, length known", || {
            MatrixMarketReader::from_bytes(text.as_bytes(), "big-array.mtx")
                .unwrap()
                .read_dense::<f64>()
                .unwrap_err()
        });
        assert_parse_at(&e, "big-array.mtx", 4);
    }
}

#[test]
fn array_products_that_overflow_are_size_line_errors() {
    for (sym, m, n) in [
        ("general", 10_000_000_000usize, 10_000_000_000usize),
        ("symmetric", usize::MAX, usize::MAX),
        ("skew-symmetric", usize::MAX / 2, usize::MAX / 2),
    ] {
        let text = format!("%%MatrixMarket matrix array real {sym}\n{m} {n}\n1\n");
        let e = quickly("overflowing array", || {
            read_csr::<f64, u64, _>(text.as_bytes(), "overflow.mtx").unwrap_err()
        });
        assert_parse_at(&e, "overflow.mtx", 2);
    }
    let text = "%%MatrixMarket matrix array complex hermitian\n18446744073709551615 18446744073709551615\n";
    let e = read_csr::<c64, u64, _>(text.as_bytes(), "overflow.mtx").unwrap_err();
    assert_parse_at(&e, "overflow.mtx", 2);
}

#[test]
fn array_with_zero_rows_and_huge_column_count_returns_at_once() {
    let text = "%%MatrixMarket matrix array real general\n0 1000000000000000000\n";
    let a = quickly("0 x 1e18 csr", || {
        read_csr::<f64, u64, _>(text.as_bytes(), "empty.mtx").unwrap()
    });
    assert_eq!(
        (a.nrows(), a.ncols(), a.nnz()),
        (0, 1_000_000_000_000_000_000, 0)
    );
    let d = quickly("0 x 1e18 dense", || {
        MatrixMarketReader::from_bytes(text.as_bytes(), "empty.mtx")
            .unwrap()
            .read_dense::<f64>()
            .unwrap()
    });
    assert_eq!((d.nrows, d.data.len()), (0, 0));
    // As columns: 10¹⁸ empty vectors are refused at once, not collected (an abort on the
    // capacity, or a hang).
    let e = quickly("0 x 1e18 into_columns", || {
        d.clone().into_columns().unwrap_err()
    });
    assert!(
        matches!(e, Error::InvalidArgument { name: "ncols", .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("1000000000000000000"), "{e}");
    let few = matexp_sparse::matrix_market::DenseArray::<f64> {
        nrows: 0,
        ncols: 3,
        data: vec![],
    };
    assert_eq!(few.into_columns().unwrap(), vec![Vec::<f64>::new(); 3]);
    let short = matexp_sparse::matrix_market::DenseArray::<f64> {
        nrows: 2,
        ncols: 2,
        data: vec![1.0; 3],
    };
    assert!(matches!(
        short.into_columns(),
        Err(Error::DimensionMismatch { .. })
    ));
    // Data after an empty array is still refused.
    let text = "%%MatrixMarket matrix array real general\n0 1000000000000000000\n1\n";
    let e = read_csr::<f64, u64, _>(text.as_bytes(), "empty.mtx").unwrap_err();
    assert_parse_at(&e, "empty.mtx", 3);
}

#[test]
fn coordinate_into_dense_allocates_after_the_data() {
    // A sparse header of 4·10⁹ × 4·10⁹ read as dense: the entries are read first, and the
    // n² block (beyond any address space) is refused by the memory budget, not an abort.
    let text = "%%MatrixMarket matrix coordinate real general\n4000000000 4000000000 1\n1 1 2.0\n";
    let e = quickly("coordinate 4e9 x 4e9 dense", || {
        MatrixMarketReader::new(text.as_bytes(), "sparse.mtx")
            .unwrap()
            .read_dense::<f64>()
            .unwrap_err()
    });
    assert_budget_refusal_at(&e, "sparse.mtx", 2);
}

#[test]
fn csr_constructors_refuse_usize_max_rows() {
    let e = CsrMatrix::<f64, u64>::try_new(usize::MAX, 1, vec![0], vec![], vec![]).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { name: "nrows", .. }),
        "{e:?}"
    );
    let e = PatternCsr::<u64>::try_new(usize::MAX, 1, vec![0], vec![]).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { name: "nrows", .. }),
        "{e:?}"
    );
    // u32 refuses the size before anything else.
    assert!(PatternCsr::<u32>::try_new(usize::MAX, 1, vec![0], vec![]).is_err());
}

#[test]
fn dense_constructors_refuse_overflowing_sizes() {
    let big = 1usize << 33;
    let e = CsrMatrix::<f64, u64>::from_dense(big, big, &[]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                name: "nrows·ncols",
                ..
            }
        ),
        "{e:?}"
    );
    // 2³² · 2³² wraps to 0: with empty data the product must not pass as a match.
    let e = DenseMatrixOperator::<f64>::new(1 << 32, 1 << 32, vec![]).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { name: "n·m", .. }),
        "{e:?}"
    );
}

/// Found by the `csr_raw` fuzz target: transposing an unsorted row without repeats gave a
/// canonical structure labelled non-canonical, tripping the trusted constructor's check.
#[test]
fn transpose_of_an_unsorted_pattern_is_canonical() {
    let p = PatternCsr::<u32>::try_new(2, 2, vec![0, 0, 2], vec![1, 0]).unwrap();
    assert!(!p.is_canonical());
    let t = p.transpose();
    assert!(t.is_canonical());
    assert_eq!(
        (t.row_ptr(), t.col_idx()),
        (&[0u32, 1, 2][..], &[1u32, 1][..])
    );
    let a =
        CsrMatrix::<f64, u32>::try_new(2, 2, vec![0, 0, 2], vec![1, 0], vec![3.0, 4.0]).unwrap();
    let at = a.transpose();
    assert!(at.is_canonical());
    assert_eq!(at.values(), [4.0, 3.0]);
    // Repeats stay non-canonical after transposition.
    let d = PatternCsr::<u32>::try_new(1, 2, vec![0, 2], vec![1, 1]).unwrap();
    assert!(!d.transpose().is_canonical());
}
