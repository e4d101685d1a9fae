//! MatrixMarket reading (against SciPy-made fixtures), writing (exact round trips) and
//! malformed input.

use crate::common;

use common::*;
use matexp_core::{Error, RealScalar, Scalar, c32, c64};
use matexp_sparse::matrix_market::{self, Field, Format, MatrixMarketReader, Symmetry};
use matexp_sparse::{CsrIndex, CsrMatrix, PatternCsr};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads `<name>.mtx`, `<name>_x.mtx`, `<name>_ax.mtx` and checks A·x against SciPy's.
fn check_against_scipy<S: Scalar, I: CsrIndex>(name: &str) -> CsrMatrix<S, I> {
    let a: CsrMatrix<S, I> = matrix_market::read_csr_file(fixture(&format!("{name}.mtx"))).unwrap();
    let x = matrix_market::read_dense_file::<S>(fixture(&format!("{name}_x.mtx")))
        .unwrap()
        .into_vector()
        .unwrap();
    let want = matrix_market::read_dense_file::<S>(fixture(&format!("{name}_ax.mtx")))
        .unwrap()
        .into_vector()
        .unwrap();
    let mut y = vec![S::zero(); a.nrows()];
    a.spmv(S::one(), &x, S::zero(), &mut y).unwrap();
    let scale: f64 = want.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
    for (g, w) in y.iter().zip(&want) {
        // SciPy's product is in f64; a c32/f32 read rounds the matrix and x first.
        let eps = <S::Real as RealScalar>::EPS.as_f64().max(1e-15);
        assert!(
            (g.to_c64() - w.to_c64()).norm() <= 64.0 * eps * scale,
            "{name}: {g} vs {w}"
        );
    }
    a
}

#[test]
fn scipy_fixtures_read_and_multiply_like_scipy() {
    let h = check_against_scipy::<c64, u32>("complex_hermitian");
    assert!(h.is_hermitian() && !h.is_symmetric());
    assert_eq!(h.nnz(), 6 + 2 * 7); // 6 diagonal + 7 mirrored off-diagonal entries
    let s = check_against_scipy::<f64, u64>("real_skew");
    assert!(s.is_skew_symmetric());
    assert!(s.diagonal().iter().all(|&d| d == 0.0));
    let i = check_against_scipy::<f64, u32>("integer_symmetric_array");
    assert!(i.is_symmetric());
    assert!(i.values().iter().all(|v| v.fract() == 0.0));
    let p = check_against_scipy::<f64, u32>("pattern_general");
    assert_eq!((p.nrows(), p.ncols()), (5, 7));
    let r = check_against_scipy::<f64, u32>("real_general_repeats");
    assert_eq!(r.get(2, 0), 3.0, "repeated coordinates are summed");
    assert_eq!(r.nnz(), 5);
    // The same files in other precisions.
    check_against_scipy::<c32, u64>("complex_hermitian");
    let pat: PatternCsr<u32> =
        matrix_market::read_pattern_file(fixture("pattern_general.mtx")).unwrap();
    assert_eq!(pat, *p.pattern());
}

#[test]
fn complex_data_is_refused_by_real_types_and_cast_decides() {
    let e = matrix_market::read_csr_file::<f64, u32>(fixture("complex_hermitian.mtx")).unwrap_err();
    match e {
        Error::Parse { line, message, .. } => {
            assert_eq!(line, 1);
            assert!(
                message.contains("complex data cannot be read into the real type f64"),
                "{message}"
            );
        }
        e => panic!("unexpected {e}"),
    }
    let text = "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 1.5 0\n2 1 -2 0.0\n";
    let a: CsrMatrix<c64> = matrix_market::read_csr(text.as_bytes(), "inline").unwrap();
    assert_eq!(
        a.cast::<f64>().unwrap().to_dense().unwrap(),
        vec![1.5, 0.0, -2.0, 0.0]
    );
}

#[test]
fn symmetric_expansions() {
    // Upper-triangle storage is accepted and mirrored like lower-triangle storage.
    let lower = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 2 4\n";
    let upper = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n1 3 -1\n2 3 4\n";
    let a: CsrMatrix<f64> = matrix_market::read_csr(lower.as_bytes(), "lower").unwrap();
    let b: CsrMatrix<f64> = matrix_market::read_csr(upper.as_bytes(), "upper").unwrap();
    assert_eq!(
        a.to_dense().unwrap(),
        vec![2.0, 0.0, -1.0, 0.0, 0.0, 4.0, -1.0, 4.0, 0.0]
    );
    assert_eq!(a, b);
    let skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n";
    let s: CsrMatrix<f32> = matrix_market::read_csr(skew.as_bytes(), "skew").unwrap();
    assert_eq!(s.to_dense().unwrap(), vec![0.0, -3.0, 3.0, 0.0]);
    let herm = "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 2 3\n";
    let h: CsrMatrix<c64> = matrix_market::read_csr(herm.as_bytes(), "herm").unwrap();
    assert_eq!(h.get(0, 1), c64::new(2.0, -3.0));
    assert_eq!(h.get(1, 0), c64::new(2.0, 3.0));
    // Array formats store the lower triangle column by column.
    let arr = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n";
    let s: CsrMatrix<f64> = matrix_market::read_csr(arr.as_bytes(), "array skew").unwrap();
    assert_eq!(
        s.to_dense().unwrap(),
        vec![0.0, -1.0, -2.0, 1.0, 0.0, -3.0, 2.0, 3.0, 0.0]
    );
    let d = MatrixMarketReader::new(arr.as_bytes(), "array skew")
        .unwrap()
        .read_dense::<f64>()
        .unwrap();
    assert_eq!(d.data, vec![0.0, 1.0, 2.0, -1.0, 0.0, 3.0, -2.0, -3.0, 0.0]); // column-major
    // Pattern symmetric into a valued matrix: ones.
    let pat = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n";
    let p: CsrMatrix<c32, u64> = matrix_market::read_csr(pat.as_bytes(), "pattern").unwrap();
    assert_eq!(p.values(), &[c32::new(1.0, 0.0); 2]);
    // Valued data read as a pattern keeps stored zeros; repeats are stored once.
    let val = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 0.0\n1 2 5\n2 2 1\n";
    let q: PatternCsr<u32> = matrix_market::read_pattern(val.as_bytes(), "valued").unwrap();
    assert_eq!((q.row(0), q.row(1)), (&[1u32][..], &[1u32][..]));
}

#[test]
fn lenient_where_the_standard_allows() {
    let text = "%%matrixmarket MATRIX Coordinate REAL General\n% comment\n\n2 2 2\n1 1 1.5D+01\n\n% between\n2 2 -2.5e-3\r\n";
    let r = MatrixMarketReader::new(text.as_bytes(), "mixed case").unwrap();
    assert_eq!(
        (r.header().format, r.header().field, r.header().symmetry),
        (Format::Coordinate, Field::Real, Symmetry::General)
    );
    let a = r.read_csr::<f64, u32>().unwrap();
    assert_eq!(a.values(), &[15.0, -2.5e-3]);
    // A file without a final newline.
    let a: CsrMatrix<f64> = matrix_market::read_csr(
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 7".as_bytes(),
        "no newline",
    )
    .unwrap();
    assert_eq!(a.values(), &[7.0]);
}

/// The error of reading `text`, which must be a Parse error at `line` whose message
/// contains `needle`.
fn parse_error_at(text: &str, line: usize, needle: &str) {
    let e = matrix_market::read_csr::<c64, u32, _>(text.as_bytes(), "case").unwrap_err();
    match e {
        Error::Parse {
            source_name,
            line: l,
            message,
        } => {
            assert_eq!(source_name, "case");
            assert_eq!(l, line, "line of: {message}\ninput:\n{text}");
            assert!(
                message.contains(needle),
                "message '{message}' lacks '{needle}'\ninput:\n{text}"
            );
        }
        e => panic!("expected a parse error for\n{text}\ngot {e}"),
    }
}

#[test]
fn malformed_fixture_files_name_the_line() {
    let cases = [
        ("bad_banner.mtx", 1, "unknown symmetry 'generale'"),
        ("bad_size_line.mtx", 3, "three non-negative integers"),
        ("bad_number.mtx", 5, "bad number '1.0.5'"),
        (
            "index_out_of_range.mtx",
            5,
            "column index 3 out of range 1..=2",
        ),
        ("truncated.mtx", 6, "declares 3 entries, found 2"),
        ("too_many_entries.mtx", 6, "too many entries"),
        ("mixed_triangles.mtx", 5, "one triangle only"),
        (
            "wrong_field_count.mtx",
            4,
            "expected 'row column value' (3 fields), found 2 fields",
        ),
    ];
    for (file, line, needle) in cases {
        let path = fixture(file);
        let e = matrix_market::read_csr_file::<c64, u32>(&path).unwrap_err();
        match e {
            Error::Parse {
                source_name,
                line: l,
                message,
            } => {
                assert!(source_name.ends_with(file), "{source_name}");
                assert_eq!(l, line, "{file}: {message}");
                assert!(
                    message.contains(needle),
                    "{file}: '{message}' lacks '{needle}'"
                );
                // The file's own comment states the line the error must name.
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    text.contains(&format!("line {line}")),
                    "{file}'s comment disagrees"
                );
            }
            e => panic!("{file}: expected a parse error, got {e}"),
        }
        // The pattern reader is just as strict where structure is concerned.
        if !matches!(file, "bad_number.mtx") {
            assert!(
                matrix_market::read_pattern_file::<u32>(&path).is_err(),
                "{file} read as pattern"
            );
        }
    }
    assert!(matches!(
        matrix_market::read_csr_file::<f64, u32>(fixture("missing.mtx")),
        Err(Error::Io { .. })
    ));
}

#[test]
fn malformed_inline_inputs() {
    let h = "%%MatrixMarket matrix coordinate real general\n";
    parse_error_at("", 1, "empty input");
    parse_error_at(
        "%MatrixMarket matrix coordinate real general\n1 1 0\n",
        1,
        "not a MatrixMarket banner",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate real\n1 1 0\n",
        1,
        "banner has 4 words",
    );
    parse_error_at(
        "%%MatrixMarket vector coordinate real general\n1 1 0\n",
        1,
        "object 'vector'",
    );
    parse_error_at(
        "%%MatrixMarket matrix sparse real general\n",
        1,
        "unknown format 'sparse'",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate double general\n",
        1,
        "unknown field 'double'",
    );
    parse_error_at(
        "%%MatrixMarket matrix array pattern general\n",
        1,
        "pattern needs coordinate",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate real hermitian\n",
        1,
        "needs the complex field",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate pattern skew-symmetric\n",
        1,
        "not a valid combination",
    );
    parse_error_at(h, 2, "unexpected end of input; expected the size line");
    parse_error_at(
        &format!("{h}% only comments\n"),
        3,
        "expected the size line",
    );
    parse_error_at(&format!("{h}2 -2 1\n"), 2, "three non-negative integers");
    parse_error_at(&format!("{h}2 2 1 5\n"), 2, "found '2 2 1 5'");
    parse_error_at(
        "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n",
        2,
        "must be square",
    );
    parse_error_at(
        &format!("{h}2 2 1\n0 1 1.0\n"),
        3,
        "row index 0 out of range 1..=2",
    );
    parse_error_at(&format!("{h}2 2 1\n-1 1 1.0\n"), 3, "bad row index '-1'");
    parse_error_at(&format!("{h}2 2 1\n1 x 1.0\n"), 3, "bad column index 'x'");
    parse_error_at(&format!("{h}2 2 1\n1 1 nan\n"), 3, "bad number 'nan'");
    parse_error_at(&format!("{h}2 2 1\n1 1 inf\n"), 3, "bad number 'inf'");
    parse_error_at(&format!("{h}2 2 1\n1 1 1.0 2.0\n"), 3, "found 4 fields");
    parse_error_at(
        &format!("{h}2 2 2\n1 1 1.0\n"),
        4,
        "declares 2 entries, found 1",
    );
    parse_error_at(
        &format!("{h}2 2 1\n1 1 1.0\n2 2 1.0\n"),
        4,
        "too many entries: line 2 declares 1",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n",
        3,
        "bad integer '1.5'",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.5\n",
        3,
        "found 3 fields",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
        3,
        "skew-symmetric file",
    );
    parse_error_at(
        "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 1 1\n",
        3,
        "imaginary part 1",
    );
    parse_error_at(
        "%%MatrixMarket matrix array real general\n2 1\n1\n",
        4,
        "declares 2 entries, found 1",
    );
    parse_error_at(
        "%%MatrixMarket matrix array real general\n1 1\n1 2\n",
        3,
        "one value per line",
    );
    parse_error_at(
        "%%MatrixMarket matrix array real general\n1 1\n1\n2\n",
        4,
        "too many entries",
    );
    parse_error_at(&format!("{h}1 1 1\n1 1 \u{ff}\n"), 3, "bad number");
    // Invalid UTF-8.
    let mut bytes = format!("{h}1 1 1\n1 1 ").into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    match matrix_market::read_csr::<f64, u32, _>(&bytes[..], "bytes") {
        Err(Error::Parse {
            line: 3, message, ..
        }) => assert!(message.contains("UTF-8")),
        r => panic!("{r:?}"),
    }
    // Overflow of the requested precision.
    match matrix_market::read_csr::<f32, u32, _>(format!("{h}1 1 1\n1 1 1e300\n").as_bytes(), "f32")
    {
        Err(Error::Parse {
            line: 3, message, ..
        }) => assert!(message.contains("overflows f32"), "{message}"),
        r => panic!("{r:?}"),
    }
    // A size line claiming 10¹⁵ entries fails at the data, without allocating for them.
    parse_error_at(&format!("{h}2 2 1000000000000000\n1 1 1\n"), 4, "found 1");
    // Arrays cannot be read as patterns.
    assert!(
        matrix_market::read_pattern::<u32, _>(
            "%%MatrixMarket matrix array real general\n1 1\n1\n".as_bytes(),
            "a"
        )
        .is_err()
    );
}

fn round_trip<S: Scalar, I: CsrIndex>(a: &CsrMatrix<S, I>, sym: Symmetry) -> CsrMatrix<S, I> {
    let mut out = Vec::new();
    matrix_market::write_csr(&mut out, a, sym, &["round trip", "second line"]).unwrap();
    matrix_market::read_csr(&out[..], "written").unwrap()
}

/// Random values spanning many decades, to exercise both number notations.
fn wide<S: Scalar>(r: &mut rand_chacha::ChaCha8Rng, t: &mut [(usize, usize, S)]) {
    use rand::Rng;
    for e in t.iter_mut() {
        let k: i32 = r.random_range(-30..30);
        e.2 *= S::from_f64(10f64.powi(k));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn write_then_read_is_exact(seed in any::<u64>(), n in 0usize..10, m in 0usize..10) {
        let mut r = rng(seed);
        let mut t = triplets::<f64>(&mut r, n, m, 0.4);
        wide(&mut r, &mut t);
        let a = CsrMatrix::<f64, u32>::from_triplets(n, m, &t).unwrap();
        prop_assert_eq!(&round_trip(&a, Symmetry::General), &a);
        let mut tc = triplets::<c32>(&mut r, n, m, 0.4);
        wide(&mut r, &mut tc);
        let c = CsrMatrix::<c32, u64>::from_triplets(n, m, &tc).unwrap();
        prop_assert_eq!(&round_trip(&c, Symmetry::General), &c);
        let p = a.pattern().clone();
        let mut out = Vec::new();
        matrix_market::write_pattern(&mut out, &p, Symmetry::General, &[]).unwrap();
        prop_assert_eq!(matrix_market::read_pattern::<u32, _>(&out[..], "p").unwrap(), p);
    }

    #[test]
    fn symmetric_writes_store_one_triangle_and_read_back_exactly(seed in any::<u64>(), n in 1usize..10) {
        let mut r = rng(seed);
        let t = triplets::<c64>(&mut r, n, n, 0.4);
        let a = CsrMatrix::<c64, u32>::from_triplets(n, n, &t).unwrap();
        let (ah, at) = (a.conj_transpose(), a.transpose());
        let d = a.to_dense().unwrap();
        let dh = ah.to_dense().unwrap();
        let dt = at.to_dense().unwrap();
        let herm: Vec<c64> = (0..n * n).map(|k| d[k] + dh[k]).collect();
        let sym: Vec<c64> = (0..n * n).map(|k| d[k] + dt[k]).collect();
        let skew: Vec<f64> = (0..n * n).map(|k| d[k].re - dt[k].re).collect();
        let h = CsrMatrix::<c64, u32>::from_dense(n, n, &herm).unwrap();
        let s = CsrMatrix::<c64, u32>::from_dense(n, n, &sym).unwrap();
        let k = CsrMatrix::<f64, u32>::from_dense(n, n, &skew).unwrap();
        prop_assert_eq!(&round_trip(&h, Symmetry::Hermitian), &h);
        prop_assert_eq!(&round_trip(&s, Symmetry::Symmetric), &s);
        prop_assert_eq!(&round_trip(&k, Symmetry::SkewSymmetric), &k);
        // Declaring a symmetry the matrix lacks is refused.
        if !a.is_hermitian() {
            prop_assert!(matrix_market::write_csr(Vec::new(), &a, Symmetry::Hermitian, &[]).is_err());
        }
        // The symmetric file holds the lower triangle only.
        let mut out = Vec::new();
        matrix_market::write_csr(&mut out, &h, Symmetry::Hermitian, &[]).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines().skip(2) {
            let mut it = line.split_whitespace();
            let (i, j): (usize, usize) = (it.next().unwrap().parse().unwrap(), it.next().unwrap().parse().unwrap());
            prop_assert!(i >= j);
        }
    }
}

#[test]
fn dense_write_round_trip_and_write_errors() {
    let x = vec![
        c64::new(1e-300, -0.1),
        c64::new(3.0, 1e17),
        c64::new(f64::MIN_POSITIVE, 0.0),
    ];
    let mut out = Vec::new();
    matrix_market::write_dense(&mut out, 3, 1, &x, &["a vector"]).unwrap();
    let back = MatrixMarketReader::new(&out[..], "v")
        .unwrap()
        .read_dense::<c64>()
        .unwrap();
    assert_eq!(back.into_vector().unwrap(), x);
    assert!(matrix_market::write_dense(Vec::new(), 2, 2, &x, &[]).is_err());
    assert!(matrix_market::write_dense(Vec::new(), 1, 1, &[f64::NAN], &[]).is_err());
    let real_sym = CsrMatrix::<f64, u32>::identity(2).unwrap();
    assert!(matches!(
        matrix_market::write_csr(Vec::new(), &real_sym, Symmetry::Hermitian, &[]),
        Err(Error::InvalidArgument { .. })
    ));
    let dir = std::env::temp_dir().join(format!("matexp-sparse-mm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("eye.mtx");
    matrix_market::write_csr_file(&path, &real_sym, Symmetry::Symmetric, &["identity"]).unwrap();
    assert_eq!(
        matrix_market::read_csr_file::<f64, u32>(&path).unwrap(),
        real_sym
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("%%MatrixMarket matrix coordinate real symmetric\n% identity\n2 2 2\n"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(
        matrix_market::write_csr_file(
            dir.join("no/such/dir.mtx"),
            &real_sym,
            Symmetry::General,
            &[]
        ),
        Err(Error::Io { .. })
    ));
}
