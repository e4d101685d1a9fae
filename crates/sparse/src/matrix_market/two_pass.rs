//! Reading large pattern files in two passes, in the memory of the result.

use super::read::{Line, line_too_long, read_line_bounded};
use super::{Field, Format, MatrixMarketReader, Symmetry};
use crate::pattern::canonicalize_in_place;
use crate::{CsrIndex, PatternCsr};
use matexp_core::{Error, Result, memory};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Reads the structure of a coordinate MatrixMarket file in two passes over it, never holding
/// the coordinate list: the first pass counts the entries of every row (mirrored triangles
/// included), the second writes each column index straight into its row's slot; rows are
/// then sorted and repeated entries dropped in place.
///
/// **Memory.** The result, `(n + 1 + nnz)·size_of::<I>()`, plus one cursor per row
/// (`n·size_of::<I>()`) and one line of text: for a SuiteSparse graph with 10⁸ stored entries
/// and u32 indices about 0.4 GB plus 8 bytes per node, where
/// [`MatrixMarketReader::read_pattern`] holds the triplets besides (about twice that).
///
/// **Time.** Two parses of the text, O(lines) each, and a parallel row sort,
/// O(nnz log(nnz / n)) (one parse's rate: `bench-results/notes/tuning.md`).
///
/// The result equals [`MatrixMarketReader::read_pattern`]'s: canonical rows, symmetric kinds
/// mirrored (one triangle per file, as there), values checked to be finite numbers and dropped.
///
/// # Errors
///
/// [`Error::Io`], and [`Error::Parse`] with the line for a bad banner or size line,
/// an array file, a wrong field count, an index out of range, entries in both triangles of a
/// symmetric file, a truncated file or trailing data, or a file that changed between the
/// passes; [`Error::InvalidArgument`] when the result does not fit `I`.
///
/// ```
/// use matexp_sparse::matrix_market::{read_pattern, read_pattern_two_pass_with};
/// let text = "%%MatrixMarket matrix coordinate pattern symmetric\n% graph\n4 4 3\n2 1\n3 2\n4 1\n";
/// let g = read_pattern_two_pass_with::<u32, _, _>(|| Ok(text.as_bytes()), "inline")?;
/// assert_eq!(g, read_pattern::<u32, _>(text.as_bytes(), "inline")?);
/// assert_eq!(g.row(0), &[1, 3]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn read_pattern_two_pass<I: CsrIndex>(path: impl AsRef<Path>) -> Result<PatternCsr<I>> {
    let path = path.as_ref();
    let open = || {
        File::open(path)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|e| Error::io(path.display(), e))
    };
    read_pattern_two_pass_with(open, &path.display().to_string())
}

/// [`read_pattern_two_pass`] over any source that can be reopened: `open` is called three
/// times (header, counting pass, filling pass) and must return the same text each time.
///
/// # Errors
///
/// Those of [`read_pattern_two_pass`], with the errors `open` returns.
pub fn read_pattern_two_pass_with<I, R, F>(mut open: F, source_name: &str) -> Result<PatternCsr<I>>
where
    I: CsrIndex,
    R: BufRead,
    F: FnMut() -> Result<R>,
{
    let header = *MatrixMarketReader::new(open()?, source_name)?.header();
    if header.format == Format::Array {
        return Err(Error::parse(
            source_name,
            1,
            "an array (dense) file cannot be read as a pattern; expected coordinate format",
        ));
    }
    let (nrows, ncols) = (header.nrows, header.ncols);
    I::narrow_checked(nrows, "nrows")?;
    I::narrow_checked(ncols, "ncols")?;
    let values = match header.field {
        Field::Pattern => 0,
        Field::Complex => 2,
        Field::Real | Field::Integer => 1,
    };
    let mirror = header.symmetry != Symmetry::General;
    let skew = header.symmetry == Symmetry::SkewSymmetric;
    let spec = Spec {
        source: source_name,
        nrows,
        ncols,
        entries: header.entries,
        values,
        mirror,
        skew,
    };

    // Pass 1: row counts, kept in the row-pointer array shifted by one.
    let what = format!("{source_name}: row pointers of the {header}");
    let mut row_ptr = memory::try_filled(nrows.saturating_add(1), I::narrow(0), &what)?;
    let mut total = 0usize;
    spec.for_each(open()?, |i, j| {
        for r in spec.targets(i, j) {
            total += 1;
            if total > I::MAX_USIZE {
                return Err(format!(
                    "more than {} stored entries: they do not fit the {} index type; use u64",
                    I::MAX_USIZE,
                    I::NAME
                ));
            }
            row_ptr[r.0 + 1] = I::narrow(row_ptr[r.0 + 1].as_usize() + 1);
        }
        Ok(())
    })?;
    for r in 0..nrows {
        row_ptr[r + 1] = I::narrow(row_ptr[r + 1].as_usize() + row_ptr[r].as_usize());
    }

    // Pass 2: fill.
    let what = format!("{source_name}: {total} stored entries of the {header}");
    memory::check(&what, memory::bytes_of::<I>(nrows.saturating_add(total)))?;
    let mut cursor = memory::try_with_capacity::<I>(nrows, &what)?;
    cursor.extend_from_slice(&row_ptr[..nrows]);
    let mut cols = memory::try_filled(total, I::narrow(0), &what)?;
    spec.for_each(open()?, |i, j| {
        for (r, c) in spec.targets(i, j) {
            let k = cursor[r].as_usize();
            if k >= row_ptr[r + 1].as_usize() {
                return Err(format!(
                    "row {} has more entries than in the first pass: the file changed between passes",
                    r + 1
                ));
            }
            cols[k] = I::narrow(c);
            cursor[r] = I::narrow(k + 1);
        }
        Ok(())
    })?;
    if let Some(r) = (0..nrows).find(|&r| cursor[r] != row_ptr[r + 1]) {
        return Err(Error::parse(
            source_name,
            0,
            format!(
                "row {} has fewer entries than in the first pass: the file changed between passes",
                r + 1
            ),
        ));
    }
    drop(cursor);
    let mut units = vec![(); total];
    canonicalize_in_place(&mut row_ptr, &mut cols, &mut units, |a, _| a);
    Ok(PatternCsr::from_parts_trusted(
        nrows, ncols, row_ptr, cols, true,
    ))
}

/// What the data lines look like.
struct Spec<'a> {
    source: &'a str,
    nrows: usize,
    ncols: usize,
    entries: usize,
    values: usize,
    mirror: bool,
    skew: bool,
}

impl Spec<'_> {
    /// The stored (row, column) pairs of file entry (i, j), 0-based.
    fn targets(&self, i: usize, j: usize) -> impl Iterator<Item = (usize, usize)> {
        let second = (self.mirror && i != j).then_some((j, i));
        std::iter::once((i, j)).chain(second)
    }

    /// Calls `f(i, j)` (0-based) for every data line of `reader` after its banner, comments
    /// and size line, validating field counts, ranges and the one-triangle rule; then checks
    /// that no data follows. `f`'s error message is attached to the current line.
    fn for_each<R: BufRead>(
        &self,
        mut reader: R,
        mut f: impl FnMut(usize, usize) -> std::result::Result<(), String>,
    ) -> Result<()> {
        let mut buf = Vec::with_capacity(256);
        let mut line = 0usize;
        let err = |line: usize, m: String| Error::parse(self.source, line, m);
        let mut next = |buf: &mut Vec<u8>, line: &mut usize| -> Result<bool> {
            loop {
                match read_line_bounded(&mut reader, buf).map_err(|e| Error::io(self.source, e))? {
                    Line::Eof => return Ok(false),
                    Line::TooLong => return Err(line_too_long(self.source, *line + 1)),
                    Line::Read(_) => {}
                }
                *line += 1;
                if *line == 1 {
                    continue; // the banner, validated by MatrixMarketReader
                }
                let t = buf.trim_ascii();
                if t.is_empty() || t[0] == b'%' {
                    continue;
                }
                return Ok(true);
            }
        };
        if !next(&mut buf, &mut line)? {
            return Err(err(line, "missing size line".into()));
        }
        // Lower (true) or upper triangle of the first off-diagonal entry, and its line.
        let mut triangle: Option<(bool, usize)> = None;
        let want = 2 + self.values;
        for k in 0..self.entries {
            if !next(&mut buf, &mut line)? {
                return Err(err(
                    line + 1,
                    format!(
                        "unexpected end of input: {} entries declared, found {k}",
                        self.entries
                    ),
                ));
            }
            let mut toks = buf
                .trim_ascii()
                .split(|b| b.is_ascii_whitespace())
                .filter(|t| !t.is_empty());
            let i = toks.next().and_then(parse_index);
            let j = toks.next().and_then(parse_index);
            let mut count = 2;
            for t in toks {
                count += 1;
                if count <= want && !is_finite_number(t) {
                    return Err(err(
                        line,
                        format!(
                            "bad number '{}': expected a finite real number",
                            String::from_utf8_lossy(t)
                        ),
                    ));
                }
            }
            if count != want {
                return Err(err(
                    line,
                    format!("expected {want} fields per entry, found {count}"),
                ));
            }
            let (i, j) = match (i, j) {
                (Some(i), Some(j))
                    if (1..=self.nrows).contains(&i) && (1..=self.ncols).contains(&j) =>
                {
                    (i - 1, j - 1)
                }
                _ => {
                    return Err(err(
                        line,
                        format!(
                            "indices must be integers in 1..={} × 1..={}: '{}'",
                            self.nrows,
                            self.ncols,
                            String::from_utf8_lossy(buf.trim_ascii())
                        ),
                    ));
                }
            };
            if self.mirror && i != j {
                let lower = i > j;
                match triangle {
                    None => triangle = Some((lower, line)),
                    Some((t, first)) if t != lower => {
                        return Err(err(
                            line,
                            format!(
                                "entry ({}, {}) is in the other triangle than line {first}'s; a symmetric file stores one triangle only",
                                i + 1,
                                j + 1
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            if self.skew && i == j {
                return Err(err(
                    line,
                    format!(
                        "diagonal entry ({}, {}) in a skew-symmetric file",
                        i + 1,
                        j + 1
                    ),
                ));
            }
            f(i, j).map_err(|m| err(line, m))?;
        }
        if next(&mut buf, &mut line)? {
            return Err(err(
                line,
                format!(
                    "too many entries: {} declared, and data continues here",
                    self.entries
                ),
            ));
        }
        Ok(())
    }
}

/// Whether `t` is a finite real number as the one-pass reader accepts it (Rust's float
/// syntax, or a Fortran `D` exponent).
fn is_finite_number(t: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(t) else {
        return false;
    };
    match s.parse::<f64>() {
        Ok(v) => v.is_finite(),
        Err(_) if s.contains(['d', 'D']) => s
            .replace(['d', 'D'], "e")
            .parse::<f64>()
            .is_ok_and(f64::is_finite),
        Err(_) => false,
    }
}

/// A positive decimal integer (no sign, no exponent), or `None`.
fn parse_index(t: &[u8]) -> Option<usize> {
    if t.is_empty() || t.len() > 19 {
        return None;
    }
    let mut v = 0usize;
    for &b in t {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (b - b'0') as usize;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix_market::{read_pattern, write_pattern};
    use proptest::prelude::*;

    fn both(text: &str) -> (Result<PatternCsr<u32>>, Result<PatternCsr<u32>>) {
        (
            read_pattern_two_pass_with::<u32, _, _>(|| Ok(text.as_bytes()), "t"),
            read_pattern::<u32, _>(text.as_bytes(), "t"),
        )
    }

    #[test]
    fn agrees_with_the_one_pass_reader_on_the_test_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_none_or(|e| e != "mtx") {
                continue;
            }
            let two = read_pattern_two_pass::<u32>(&p);
            let one = crate::matrix_market::read_pattern_file::<u32>(&p);
            match (two, one) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", p.display()),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{}: two-pass {a:?} vs one-pass {b:?}", p.display()),
            }
            seen += 1;
        }
        assert!(seen >= 10, "{seen} test files in {}", dir.display());
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases = [
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n",
                "end of input",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n2 2\n",
                "too many",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n",
                "indices",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 x\n",
                "indices",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
                "fields",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n1 3\n",
                "triangle",
            ),
        ];
        for (text, what) in cases {
            let (two, one) = both(text);
            let e = two.unwrap_err().to_string();
            assert!(e.contains(what), "{text:?}: {e}");
            assert!(one.is_err());
        }
    }

    #[test]
    fn a_file_that_changes_between_passes_is_an_error() {
        let texts = [
            "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
            "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n1 1\n",
        ];
        let mut k = 0;
        let r = read_pattern_two_pass_with::<u32, _, _>(
            || {
                k += 1;
                Ok(texts[usize::from(k >= 3)].as_bytes())
            },
            "changing",
        );
        assert!(r.unwrap_err().to_string().contains("changed"));
    }

    proptest! {
        #[test]
        fn round_trips_random_graphs(n in 1usize..40, edges in proptest::collection::vec((0usize..40, 0usize..40), 0..120)) {
            let edges: Vec<(usize, usize)> = edges.into_iter().map(|(a, b)| (a % n, b % n)).collect();
            let g = PatternCsr::<u32>::undirected_graph(n, &edges).unwrap();
            for sym in [Symmetry::General, Symmetry::Symmetric] {
                let mut text = Vec::new();
                write_pattern(&mut text, &g, sym, &[]).unwrap();
                let back = read_pattern_two_pass_with::<u64, _, _>(|| Ok(&text[..]), "rt").unwrap();
                prop_assert_eq!(back.with_index::<u32>().unwrap(), g.clone());
            }
        }
    }
}
