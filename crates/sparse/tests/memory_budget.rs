//! The reader against the memory budget and unbounded lines: a header declaring more than
//! the machine holds is refused before anything of that size is allocated (in well under a
//! second, naming what is needed and what is available), and a line without end is a parse
//! error after at most `MAX_LINE_BYTES`, never a buffer that grows with the input.

use matexp_core::{Error, memory};
use matexp_sparse::CsrMatrix;
use matexp_sparse::matrix_market::{
    MAX_LINE_BYTES, MatrixMarketReader, read_csr, read_csr_file, read_pattern,
    read_pattern_two_pass_with,
};
use std::time::{Duration, Instant};

/// MemTotal of the machine in bytes.
fn mem_total() -> u64 {
    let m = std::fs::read_to_string("/proc/meminfo").expect("/proc/meminfo");
    let kb: u64 = m
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse().ok())
        .expect("MemTotal");
    kb * 1024
}

fn assert_refused(e: &Error, at_least: u64) {
    match e {
        Error::OutOfMemoryBudget {
            needed, available, ..
        } => {
            assert!(*needed >= at_least, "needed {needed} < {at_least}: {e}");
            assert!(available < needed, "{e}");
            let msg = e.to_string();
            assert!(
                msg.contains(&needed.to_string()) && msg.contains(&available.to_string()),
                "{msg}"
            );
        }
        other => panic!("expected OutOfMemoryBudget, got {other:?}"),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn rows_beyond_the_machine_are_refused_before_allocating() {
    // Row pointers (u64, with the counting pass: 16 bytes per row) of eight times the
    // machine's memory: refused from the header, before the allocator is asked.
    let rows = mem_total() / 2;
    let text = format!("%%MatrixMarket matrix coordinate real general\n{rows} {rows} 0\n");
    let t = Instant::now();
    let e = read_csr::<f64, u64, _>(text.as_bytes(), "rows.mtx").unwrap_err();
    assert_refused(&e, 4 * rows);
    let e = read_pattern::<u64, _>(text.as_bytes(), "rows.mtx").unwrap_err();
    assert_refused(&e, 4 * rows);
    let e =
        read_pattern_two_pass_with::<u64, _, _>(|| Ok(text.as_bytes()), "rows.mtx").unwrap_err();
    assert_refused(&e, 4 * rows);
    // A dense block of as many bytes, from a coordinate header read as dense (the block is
    // allocated after the data, of which there is none).
    let side = ((mem_total() / 4) as f64).sqrt() as u64 + 1;
    let dense = format!("%%MatrixMarket matrix coordinate real general\n{side} {side} 0\n");
    let e = MatrixMarketReader::new(dense.as_bytes(), "dense.mtx")
        .unwrap()
        .read_dense::<f64>()
        .unwrap_err();
    assert_refused(&e, side * side * 8);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
}

#[test]
fn a_user_limit_refuses_the_billion_row_header() {
    // The 70-byte file of the report: 10⁹ × 10⁹ and no entries. At 12 bytes per row (u32
    // pointers and the counting pass) it needs 12 GB; under a 1 GiB limit it is refused.
    let path = std::env::temp_dir().join(format!("billion-{}.mtx", std::process::id()));
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 0\n",
    )
    .unwrap();
    memory::set_limit(Some(1 << 30));
    let t = Instant::now();
    let r = read_csr_file::<f64, u32>(&path);
    memory::set_limit(None);
    std::fs::remove_file(&path).ok();
    let e = r.unwrap_err();
    assert_refused(&e, 12_000_000_000);
    assert!(e.to_string().contains("billion-"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
}

#[test]
fn a_huge_declared_entry_count_in_a_short_stream_reserves_little() {
    // 10¹⁵ entries declared, one present, length unknown (a stream): a parse error at the
    // end of the data, with nothing large reserved on the way.
    let text = "%%MatrixMarket matrix coordinate real general\n3 3 1000000000000000\n1 1 1\n";
    let e = MatrixMarketReader::new(std::io::BufReader::new(text.as_bytes()), "stream")
        .unwrap()
        .read_csr::<f64, u32>()
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("stream:4: unexpected end of input: line 2 declares"),
        "{e}"
    );
}

#[test]
fn a_comment_longer_than_the_line_limit_is_a_parse_error_at_its_line() {
    let mut text = b"%%MatrixMarket matrix coordinate real general\n%".to_vec();
    text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
    text.extend_from_slice(b"\n1 1 1\n1 1 2.5\n");
    let e = read_csr::<f64, u32, _>(&text[..], "long.mtx").unwrap_err();
    assert!(
        matches!(e, Error::Parse { line: 2, .. }) && e.to_string().contains("longer than"),
        "{e}"
    );
    // At the limit the line is accepted (CRLF terminator included).
    let mut ok = b"%%MatrixMarket matrix coordinate real general\n%".to_vec();
    ok.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 1));
    ok.extend_from_slice(b"\r\n1 1 1\n1 1 2.5\n");
    let a: CsrMatrix<f64> = read_csr(&ok[..], "limit.mtx").unwrap();
    assert_eq!(a.values(), [2.5]);
}

#[test]
fn a_data_line_without_newline_stops_at_the_limit() {
    let mut text = b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 ".to_vec();
    text.extend(std::iter::repeat_n(b' ', 3 * MAX_LINE_BYTES));
    let e = read_pattern::<u32, _>(&text[..], "spaces.mtx").unwrap_err();
    assert!(matches!(e, Error::Parse { line: 3, .. }), "{e}");
    let e = read_pattern_two_pass_with::<u32, _, _>(|| Ok(&text[..]), "spaces.mtx").unwrap_err();
    assert!(matches!(e, Error::Parse { line: 3, .. }), "{e}");
}

#[cfg(target_os = "linux")]
#[test]
fn dev_zero_is_a_parse_error_not_an_abort() {
    let t = Instant::now();
    let e = read_csr_file::<f64, u32>("/dev/zero").unwrap_err();
    assert!(matches!(e, Error::Parse { line: 1, .. }), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}
