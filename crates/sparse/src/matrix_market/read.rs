//! Streaming MatrixMarket reader.

use super::{Field, Format, Header, Symmetry};
use crate::csr::coo_to_csr;
use crate::pattern::canonicalize_in_place;
use crate::{CsrIndex, CsrMatrix, PatternCsr};
use matexp_core::memory;
use matexp_core::{Error, Result, Scalar, c64};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Largest number of entries reserved up front (beyond it, storage grows with the entries
/// actually read): a size line claiming 10¹² entries must fail at the data, not reserve
/// gigabytes or abort the process on an allocation.
const MAX_RESERVE: usize = 1 << 16;

/// Longest line the reader accepts, in bytes (terminator excluded): a data line is a few
/// dozen bytes and a comment rarely a few hundred, while a file without newlines (or
/// `/dev/zero`) would otherwise grow one line buffer until memory runs out.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What [`read_line_bounded`] found.
pub(super) enum Line {
    /// End of input before any byte.
    Eof,
    /// A line (terminator included in the buffer) of this many bytes.
    Read(u64),
    /// A line longer than [`MAX_LINE_BYTES`]; what was read of it is discarded.
    TooLong,
}

/// Reads one line into `buf` (cleared first), keeping at most [`MAX_LINE_BYTES`] bytes plus
/// the terminator: memory O(the limit) whatever the input.
pub(super) fn read_line_bounded<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0u64;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if total == 0 {
                Line::Eof
            } else {
                Line::Read(total)
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let content = buf.len() + take - usize::from(done);
        // A trailing '\r' of a CRLF line is not content either.
        if content > MAX_LINE_BYTES + usize::from(done) {
            return Ok(Line::TooLong);
        }
        buf.extend_from_slice(&chunk[..take]);
        r.consume(take);
        total += take as u64;
        if done {
            return Ok(Line::Read(total));
        }
    }
}

/// The error for a line beyond [`MAX_LINE_BYTES`].
pub(super) fn line_too_long(source: &str, line: usize) -> Error {
    Error::parse(
        source,
        line,
        format!(
            "line is longer than {MAX_LINE_BYTES} bytes (a MatrixMarket line holds one entry or \
             one comment); is this a MatrixMarket file?"
        ),
    )
}

/// A dense matrix read from a MatrixMarket file, column-major (`data[i + j·nrows]`).
#[derive(Debug, Clone, PartialEq)]
pub struct DenseArray<S: Scalar> {
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Entries in column-major order.
    pub data: Vec<S>,
}

impl<S: Scalar> DenseArray<S> {
    /// The columns, each a slice of `nrows` entries (the block of vectors a block solve
    /// takes).
    ///
    /// ```
    /// use matexp_sparse::matrix_market::DenseArray;
    /// let a = DenseArray { nrows: 2, ncols: 3, data: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0] };
    /// let cols: Vec<&[f64]> = a.columns().collect();
    /// assert_eq!(cols, [&[1.0, 2.0][..], &[3.0, 4.0], &[5.0, 6.0]]);
    /// ```
    pub fn columns(&self) -> impl ExactSizeIterator<Item = &[S]> + '_ {
        (0..self.ncols).map(move |j| &self.data[j * self.nrows..(j + 1) * self.nrows])
    }

    /// The columns as owned vectors.
    ///
    /// ```
    /// use matexp_sparse::matrix_market::DenseArray;
    /// let a = DenseArray { nrows: 2, ncols: 2, data: vec![1.0, 2.0, 3.0, 4.0] };
    /// assert_eq!(a.into_columns()?, [vec![1.0, 2.0], vec![3.0, 4.0]]);
    /// // A file may declare 0 rows and 10¹⁸ columns: no entries, but no 10¹⁸ vectors either.
    /// let empty = DenseArray::<f64> { nrows: 0, ncols: 1_000_000_000_000_000_000, data: vec![] };
    /// assert!(empty.into_columns().is_err());
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] when `data` does not hold `nrows·ncols` entries;
    /// [`Error::InvalidArgument`] naming `ncols` for an array of 0 rows with more than
    /// 65 536 columns (as many empty vectors, which no data pays for).
    pub fn into_columns(self) -> Result<Vec<Vec<S>>> {
        let len = self.nrows.checked_mul(self.ncols);
        if len != Some(self.data.len()) {
            return Err(Error::dim(
                format!(
                    "DenseArray::into_columns: entries of a {} × {} array",
                    self.nrows, self.ncols
                ),
                len.unwrap_or(usize::MAX),
                self.data.len(),
            ));
        }
        if self.nrows == 0 && self.ncols > MAX_RESERVE {
            return Err(Error::invalid(
                "ncols",
                self.ncols,
                format!(
                    "an array of 0 rows has no entries; as columns it would be that many empty \
                     vectors (at most {MAX_RESERVE})"
                ),
            ));
        }
        Ok(self.columns().map(<[S]>::to_vec).collect())
    }

    /// The entries as a vector, if the array is one column or one row.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the array has more than one row and more than one column.
    pub fn into_vector(self) -> Result<Vec<S>> {
        if self.ncols == 1 || self.nrows == 1 {
            Ok(self.data)
        } else {
            Err(Error::invalid(
                "array shape",
                format!("{} × {}", self.nrows, self.ncols),
                "a vector needs one column or one row",
            ))
        }
    }
}

/// A MatrixMarket file whose banner and size line have been read and validated; the data is
/// read by one of the `read_*` methods, which consume the reader.
///
/// ```
/// use matexp_sparse::matrix_market::{Field, MatrixMarketReader};
/// let text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n";
/// let r = MatrixMarketReader::new(text.as_bytes(), "inline")?;
/// assert_eq!(r.header().field, Field::Pattern);
/// let p = r.read_pattern::<u32>()?;
/// assert_eq!(p.nnz(), 2);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct MatrixMarketReader<R: BufRead> {
    reader: R,
    source: String,
    /// Lines consumed so far (the current line's 1-based number after a read).
    line: usize,
    buf: Vec<u8>,
    header: Header,
    size_line: usize,
    /// Length of the whole input in bytes, when known (files, byte slices): declared sizes
    /// are checked against what the input can hold before anything is reserved.
    input_len: Option<u64>,
    /// Bytes consumed so far.
    consumed: u64,
}

impl MatrixMarketReader<BufReader<File>> {
    /// Opens `path` and reads its header ([`Error::Io`] if it cannot be opened).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the file cannot be opened or read, and those of
    /// [`MatrixMarketReader::new`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path.display(), e))?;
        let len = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        Self::with_len(
            BufReader::with_capacity(1 << 20, file),
            path.display().to_string(),
            len,
        )
    }
}

impl<'a> MatrixMarketReader<&'a [u8]> {
    /// Reads the header of an in-memory file; like [`MatrixMarketReader::new`], and the
    /// storage reserved for the entries is bounded by what `bytes` can hold (as
    /// [`MatrixMarketReader::open`] does with the file's length).
    ///
    /// ```
    /// use matexp_sparse::matrix_market::MatrixMarketReader;
    /// // 68 bytes cannot hold 10¹² entries: nothing large is reserved, and the read fails
    /// // at the end of the data, naming the line of the declaration.
    /// let text = b"%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n1 1 1\n";
    /// let r = MatrixMarketReader::from_bytes(text, "inline")?;
    /// let e = r.read_csr::<f64, u32>().unwrap_err();
    /// assert!(e.to_string().starts_with("inline:4: unexpected end of input: line 2 declares"), "{e}");
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`MatrixMarketReader::new`].
    pub fn from_bytes(bytes: &'a [u8], source_name: impl Into<String>) -> Result<Self> {
        Self::with_len(bytes, source_name.into(), Some(bytes.len() as u64))
    }
}

fn parse_real(tok: &str) -> Option<f64> {
    let v = match tok.parse::<f64>() {
        Ok(v) => v,
        // Fortran writers use D exponents (1.0D+00).
        Err(_) if tok.contains(['d', 'D']) => tok.replace(['d', 'D'], "e").parse::<f64>().ok()?,
        Err(_) => return None,
    };
    v.is_finite().then_some(v)
}

fn keyword(found: &str, choices: &[&'static str]) -> Option<&'static str> {
    choices
        .iter()
        .copied()
        .find(|c| c.eq_ignore_ascii_case(found))
}

impl<R: BufRead> MatrixMarketReader<R> {
    /// Reads and validates the banner and the size line from `reader`; `source_name` (a file
    /// name or description) appears in error messages.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] with the line for a missing or malformed banner, an unknown format,
    /// field or symmetry, or a bad size line; [`Error::Io`] on a read failure.
    pub fn new(reader: R, source_name: impl Into<String>) -> Result<Self> {
        Self::with_len(reader, source_name.into(), None)
    }

    fn with_len(reader: R, source: String, input_len: Option<u64>) -> Result<Self> {
        let mut r = MatrixMarketReader {
            reader,
            source,
            line: 0,
            buf: Vec::with_capacity(256),
            header: Header {
                format: Format::Coordinate,
                field: Field::Real,
                symmetry: Symmetry::General,
                nrows: 0,
                ncols: 0,
                entries: 0,
            },
            size_line: 0,
            input_len,
            consumed: 0,
        };
        r.read_banner()?;
        r.read_size_line()?;
        Ok(r)
    }

    /// Fewest bytes one data line takes: its fields of at least one character each, separated
    /// by one space and ended by a newline (the last line's newline may be absent).
    fn min_line_bytes(&self) -> u64 {
        let fields = self.values_per_entry() as u64
            + if self.header.format == Format::Coordinate {
                2
            } else {
                0
            };
        2 * fields.max(1)
    }

    /// How many entries to reserve up front: the declared count, bounded by what the rest of
    /// the input can hold when its length is known (an exact reservation for a real file)
    /// and by [`MAX_RESERVE`] otherwise; beyond it, storage grows with the entries actually
    /// read, so an impossible header fails at the data without reserving anything large.
    fn reserve_bound(&self) -> usize {
        let entries = self.header.entries;
        match self.input_len {
            Some(len) => {
                let remaining = len.saturating_sub(self.consumed);
                let most = (remaining + 1) / self.min_line_bytes();
                entries.min(usize::try_from(most).unwrap_or(usize::MAX))
            }
            None => entries.min(MAX_RESERVE),
        }
    }

    /// The validated header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    fn err(&self, line: usize, message: impl Into<String>) -> Error {
        Error::parse(self.source.clone(), line, message)
    }

    /// Reads the next physical line into `buf` (without the line terminator); false at EOF.
    fn next_line(&mut self) -> Result<bool> {
        let n = match read_line_bounded(&mut self.reader, &mut self.buf)
            .map_err(|e| Error::io(&self.source, e))?
        {
            Line::Eof => return Ok(false),
            Line::TooLong => return Err(line_too_long(&self.source, self.line + 1)),
            Line::Read(n) => n,
        };
        self.consumed += n;
        self.line += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        Ok(true)
    }

    /// Reads up to the next line that is neither blank nor a `%` comment; false at EOF.
    fn next_content_line(&mut self) -> Result<bool> {
        while self.next_line()? {
            let t = self.buf.trim_ascii_start();
            if !t.is_empty() && t[0] != b'%' {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn text(&self) -> Result<&str> {
        std::str::from_utf8(&self.buf)
            .map_err(|_| self.err(self.line, "line is not valid UTF-8 text"))
    }

    fn read_banner(&mut self) -> Result<()> {
        if !self.next_line()? {
            return Err(self.err(1, "empty input; expected the banner '%%MatrixMarket matrix <format> <field> <symmetry>'"));
        }
        let text = self.text()?;
        let toks: Vec<&str> = text.split_ascii_whitespace().collect();
        let expected = "expected '%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern> <general|symmetric|skew-symmetric|hermitian>'";
        if !toks
            .first()
            .is_some_and(|t| t.eq_ignore_ascii_case("%%MatrixMarket"))
        {
            return Err(self.err(
                1,
                format!(
                    "not a MatrixMarket banner: {expected}, found '{}'",
                    shorten(text)
                ),
            ));
        }
        if toks.len() != 5 {
            return Err(self.err(1, format!("banner has {} words; {expected}", toks.len())));
        }
        if !toks[1].eq_ignore_ascii_case("matrix") {
            return Err(self.err(
                1,
                format!("object '{}' is not supported; expected 'matrix'", toks[1]),
            ));
        }
        let format = match keyword(toks[2], &["coordinate", "array"]) {
            Some("coordinate") => Format::Coordinate,
            Some(_) => Format::Array,
            None => {
                return Err(self.err(
                    1,
                    format!(
                        "unknown format '{}'; expected 'coordinate' or 'array'",
                        toks[2]
                    ),
                ));
            }
        };
        let field = match keyword(toks[3], &["real", "integer", "complex", "pattern"]) {
            Some("real") => Field::Real,
            Some("integer") => Field::Integer,
            Some("complex") => Field::Complex,
            Some(_) => Field::Pattern,
            None => {
                return Err(self.err(
                    1,
                    format!(
                        "unknown field '{}'; expected 'real', 'integer', 'complex' or 'pattern'",
                        toks[3]
                    ),
                ));
            }
        };
        let symmetry = match keyword(
            toks[4],
            &["general", "symmetric", "skew-symmetric", "hermitian"],
        ) {
            Some("general") => Symmetry::General,
            Some("symmetric") => Symmetry::Symmetric,
            Some("skew-symmetric") => Symmetry::SkewSymmetric,
            Some(_) => Symmetry::Hermitian,
            None => {
                return Err(self.err(
                    1,
                    format!(
                        "unknown symmetry '{}'; expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian'",
                        toks[4]
                    ),
                ));
            }
        };
        if field == Field::Pattern && format == Format::Array {
            return Err(self.err(
                1,
                "'array pattern' is not a valid combination: pattern needs coordinate format",
            ));
        }
        if symmetry == Symmetry::Hermitian && field != Field::Complex {
            return Err(self.err(
                1,
                format!(
                    "'hermitian' needs the complex field, found '{}' (use 'symmetric')",
                    field.keyword()
                ),
            ));
        }
        if symmetry == Symmetry::SkewSymmetric && field == Field::Pattern {
            return Err(self.err(1, "'pattern skew-symmetric' is not a valid combination"));
        }
        self.header.format = format;
        self.header.field = field;
        self.header.symmetry = symmetry;
        Ok(())
    }

    fn read_size_line(&mut self) -> Result<()> {
        let coordinate = self.header.format == Format::Coordinate;
        let what = if coordinate {
            "the size line 'rows columns entries' (three non-negative integers)"
        } else {
            "the size line 'rows columns' (two non-negative integers)"
        };
        if !self.next_content_line()? {
            return Err(self.err(
                self.line + 1,
                format!("unexpected end of input; expected {what}"),
            ));
        }
        self.size_line = self.line;
        let text = self.text()?;
        let toks: Vec<&str> = text.split_ascii_whitespace().collect();
        let want = if coordinate { 3 } else { 2 };
        let nums: Option<Vec<usize>> = toks.iter().map(|t| t.parse::<usize>().ok()).collect();
        let nums = match nums {
            Some(n) if toks.len() == want => n,
            _ => {
                return Err(self.err(
                    self.line,
                    format!("expected {what}, found '{}'", shorten(text)),
                ));
            }
        };
        let (m, n) = (nums[0], nums[1]);
        // Row pointers take `rows + 1` entries: refuse a count where that wraps.
        if m.checked_add(1).is_none() || n.checked_add(1).is_none() {
            return Err(self.err(
                self.line,
                format!("size {m} × {n} is too large: rows + 1 and columns + 1 must fit usize"),
            ));
        }
        if self.header.symmetry != Symmetry::General && m != n {
            return Err(self.err(
                self.line,
                format!(
                    "a {} matrix must be square, found {m} × {n}",
                    self.header.symmetry.keyword()
                ),
            ));
        }
        let entries = if coordinate {
            nums[2]
        } else {
            let cells = match self.header.symmetry {
                Symmetry::General => m.checked_mul(n),
                Symmetry::Symmetric | Symmetry::Hermitian => n.checked_mul(n + 1).map(|x| x / 2),
                Symmetry::SkewSymmetric => n.checked_mul(n.saturating_sub(1)).map(|x| x / 2),
            };
            cells.ok_or_else(|| self.err(self.line, format!("array size {m} × {n} overflows")))?
        };
        self.header.nrows = m;
        self.header.ncols = n;
        self.header.entries = entries;
        Ok(())
    }

    fn index(&self, tok: &str, what: &str, bound: usize) -> Result<usize> {
        match tok.parse::<u64>() {
            Ok(v) if v >= 1 && (v as u128) <= bound as u128 => Ok(v as usize - 1),
            Ok(v) => Err(self.err(
                self.line,
                format!("{what} index {v} out of range 1..={bound}"),
            )),
            Err(_) => Err(self.err(
                self.line,
                format!("bad {what} index '{tok}': expected a positive integer"),
            )),
        }
    }

    fn value(&self, toks: &[&str]) -> Result<c64> {
        let real = |t: &str| -> Result<f64> {
            match self.header.field {
                Field::Integer => t.parse::<i64>().map(|v| v as f64).map_err(|_| {
                    self.err(
                        self.line,
                        format!("bad integer '{t}': the file declares the integer field"),
                    )
                }),
                _ => parse_real(t).ok_or_else(|| {
                    self.err(
                        self.line,
                        format!("bad number '{t}': expected a finite real number"),
                    )
                }),
            }
        };
        Ok(match self.header.field {
            Field::Pattern => c64::new(1.0, 0.0),
            Field::Complex => c64::new(real(toks[0])?, real(toks[1])?),
            Field::Real | Field::Integer => c64::new(real(toks[0])?, 0.0),
        })
    }

    fn values_per_entry(&self) -> usize {
        match self.header.field {
            Field::Pattern => 0,
            Field::Real | Field::Integer => 1,
            Field::Complex => 2,
        }
    }

    fn field_description(&self) -> &'static str {
        match self.header.field {
            Field::Pattern => "",
            Field::Real => " value",
            Field::Integer => " integer",
            Field::Complex => " re im",
        }
    }

    /// Calls `f(i, j, v)` (0-based) for every entry of the full matrix the file describes
    /// (mirrored triangles included), after validating each data line; then checks that no
    /// data follows. `f` returns an error message to attach to the current line.
    fn for_each_entry(
        &mut self,
        mut f: impl FnMut(usize, usize, c64) -> std::result::Result<(), String>,
    ) -> Result<()> {
        let h = self.header;
        let nv = self.values_per_entry();
        // Coordinate files of a symmetric kind may store either triangle, but one only.
        let mut triangle: Option<(bool, usize)> = None;
        let mut emit = |this: &Self, i: usize, j: usize, v: c64| -> Result<()> {
            let e = |m: String| this.err(this.line, m);
            match h.symmetry {
                Symmetry::General => f(i, j, v).map_err(e)?,
                sym => {
                    if i == j {
                        if sym == Symmetry::SkewSymmetric {
                            return Err(e(format!(
                                "diagonal entry ({}, {}) in a skew-symmetric file (its diagonal is zero and not stored)",
                                i + 1,
                                j + 1
                            )));
                        }
                        if sym == Symmetry::Hermitian && v.im != 0.0 {
                            return Err(e(format!(
                                "diagonal entry ({}, {}) of a Hermitian matrix has imaginary part {}",
                                i + 1,
                                j + 1,
                                v.im
                            )));
                        }
                        f(i, i, v).map_err(e)?;
                    } else {
                        let lower = i > j;
                        match triangle {
                            None => triangle = Some((lower, this.line)),
                            Some((t, first)) if t != lower => {
                                return Err(e(format!(
                                    "entry ({}, {}) is in the {} triangle, but line {first} put an entry in the {} triangle; a {} file stores one triangle only",
                                    i + 1,
                                    j + 1,
                                    if lower { "lower" } else { "upper" },
                                    if t { "lower" } else { "upper" },
                                    sym.keyword()
                                )));
                            }
                            _ => {}
                        }
                        let w = match sym {
                            Symmetry::Symmetric => v,
                            Symmetry::SkewSymmetric => -v,
                            _ => v.conj(),
                        };
                        f(i, j, v).map_err(e)?;
                        f(j, i, w).map_err(e)?;
                    }
                }
            }
            Ok(())
        };
        match h.format {
            Format::Coordinate => {
                for k in 0..h.entries {
                    if !self.next_content_line()? {
                        return Err(self.truncated(k));
                    }
                    let text = self.text()?;
                    let mut toks = [""; 4];
                    let mut count = 0;
                    for t in text.split_ascii_whitespace() {
                        if count < 4 {
                            toks[count] = t;
                        }
                        count += 1;
                    }
                    if count != 2 + nv {
                        return Err(self.err(
                            self.line,
                            format!(
                                "expected 'row column{}' ({} fields), found {count} fields: '{}'",
                                self.field_description(),
                                2 + nv,
                                shorten(text)
                            ),
                        ));
                    }
                    let i = self.index(toks[0], "row", h.nrows)?;
                    let j = self.index(toks[1], "column", h.ncols)?;
                    let v = self.value(&toks[2..2 + nv])?;
                    emit(self, i, j, v)?;
                }
            }
            // An empty array (0 rows or 0 columns) has no data whatever its other size: a
            // header of 0 rows and 10¹⁸ columns must not loop over the columns.
            Format::Array if h.entries == 0 => {}
            Format::Array => {
                let mut k = 0;
                for j in 0..h.ncols {
                    let first = match h.symmetry {
                        Symmetry::General => 0,
                        Symmetry::Symmetric | Symmetry::Hermitian => j,
                        Symmetry::SkewSymmetric => j + 1,
                    };
                    for i in first..h.nrows {
                        if !self.next_content_line()? {
                            return Err(self.truncated(k));
                        }
                        let text = self.text()?;
                        let toks: Vec<&str> = text.split_ascii_whitespace().collect();
                        if toks.len() != nv {
                            return Err(self.err(
                                self.line,
                                format!(
                                    "expected one{} value per line in array format, found {} fields: '{}'",
                                    if nv == 2 { " complex (re im)" } else { "" },
                                    toks.len(),
                                    shorten(text)
                                ),
                            ));
                        }
                        let v = self.value(&toks)?;
                        emit(self, i, j, v)?;
                        k += 1;
                    }
                }
            }
        }
        if self.next_content_line()? {
            return Err(self.err(
                self.line,
                format!(
                    "too many entries: line {} declares {}, and data continues here",
                    self.size_line, h.entries
                ),
            ));
        }
        Ok(())
    }

    /// A size-driven failure (an allocation of the declared size refused) as a parse error
    /// at the size line.
    fn size_error(&self, e: Error) -> Error {
        if matches!(e, Error::OutOfMemoryBudget { .. }) {
            return e;
        }
        let h = self.header;
        self.err(
            self.size_line,
            format!(
                "the declared size {} × {} cannot be stored: {e}",
                h.nrows, h.ncols
            ),
        )
    }

    /// Compares `bytes`, what reading the data will allocate for `what`, with the memory
    /// budget ([`memory::check`]) before any of it is allocated.
    fn check_budget(&self, what: &str, bytes: u64) -> Result<()> {
        memory::check(
            format!(
                "{}: {what} of the {} declared at line {}",
                self.source, self.header, self.size_line
            ),
            bytes,
        )
    }

    fn truncated(&self, found: usize) -> Error {
        self.err(
            self.line + 1,
            format!(
                "unexpected end of input: line {} declares {} entries, found {found}",
                self.size_line, self.header.entries
            ),
        )
    }

    fn reject_complex_into_real<S: Scalar>(&self) -> Result<()> {
        if self.header.field == Field::Complex && !S::IS_COMPLEX {
            return Err(self.err(
                1,
                format!(
                    "complex data cannot be read into the real type {}; read into c64 or c32 (CsrMatrix::cast then checks that every imaginary part is zero)",
                    S::NAME
                ),
            ));
        }
        Ok(())
    }

    /// Reads the data into a canonical CSR matrix with scalar `S` and index `I`: triangles
    /// mirrored, repeated coordinates summed, array zeros not stored, pattern entries equal
    /// to 1. Errors: see the module documentation; [`Error::InvalidArgument`] if the result
    /// does not fit index type `I`. O(entries · log(row length)) time, memory of the
    /// triplets plus the result.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] with the line for a malformed entry (see the module documentation),
    /// [`Error::Parse`] (line 1) when a complex file is read into a real `S`,
    /// [`Error::InvalidArgument`] if the result does not fit the index type `I`, [`Error::Io`] on a read failure.
    pub fn read_csr<S: Scalar, I: CsrIndex>(mut self) -> Result<CsrMatrix<S, I>> {
        self.reject_complex_into_real::<S>()?;
        let h = self.header;
        I::narrow_checked(h.nrows, "nrows")?;
        I::narrow_checked(h.ncols, "ncols")?;
        let mirror = if h.symmetry == Symmetry::General {
            1
        } else {
            2
        };
        let cap = self.reserve_bound().saturating_mul(mirror);
        // Row pointers (and the counting pass's usize copy), the triplets and the CSR arrays.
        let (si, ss) = (size_of::<I>() as u64, size_of::<S>() as u64);
        let ptr_bytes = (h.nrows as u64).saturating_add(1).saturating_mul(8 + si);
        let entry_bytes = (cap as u64).saturating_mul(3 * si + 2 * ss);
        self.check_budget(
            "row pointers and entries",
            ptr_bytes.saturating_add(entry_bytes),
        )?;
        let what = "MatrixMarket entries";
        let (mut rows, mut cols, mut vals) = (
            memory::try_with_capacity::<I>(cap, what)?,
            memory::try_with_capacity::<I>(cap, what)?,
            memory::try_with_capacity::<S>(cap, what)?,
        );
        let array = h.format == Format::Array;
        let mut failure = None;
        self.for_each_entry(|i, j, v| {
            if array && v == c64::new(0.0, 0.0) {
                return Ok(());
            }
            let s = S::from_c64(v);
            if !s.finite() {
                return Err(format!("value {v} overflows {}", S::NAME));
            }
            if rows.len() == rows.capacity() {
                grow(&mut rows, what)
                    .and_then(|()| grow(&mut cols, what))
                    .and_then(|()| grow(&mut vals, what))
                    .map_err(|e| keep(&mut failure, e))?;
            }
            rows.push(I::narrow(i));
            cols.push(I::narrow(j));
            vals.push(s);
            Ok(())
        })
        .map_err(|e| failure.take().unwrap_or(e))?;
        I::narrow_checked(rows.len(), "number of stored entries")?;
        let (mut p, mut c, mut v) =
            coo_to_csr(h.nrows, &rows, &cols, &vals).map_err(|e| self.size_error(e))?;
        drop((rows, cols, vals));
        canonicalize_in_place(&mut p, &mut c, &mut v, |a, b| a + b);
        // Summing repeated entries can overflow; the matrix must stay finite.
        CsrMatrix::from_pattern(
            PatternCsr::from_parts_trusted(h.nrows, h.ncols, p, c, true),
            v,
        )
    }

    /// Reads the structure into a canonical pattern (values, if any, are validated and
    /// dropped; repeated coordinates are stored once; triangles mirrored). Array files are
    /// rejected: a dense file has no pattern to speak of.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] with the line for a malformed entry or an array file,
    /// [`Error::InvalidArgument`] if the result does not fit `I`, [`Error::Io`] on a read
    /// failure.
    pub fn read_pattern<I: CsrIndex>(mut self) -> Result<PatternCsr<I>> {
        let h = self.header;
        if h.format == Format::Array {
            return Err(self.err(
                1,
                "an array (dense) file cannot be read as a pattern; expected coordinate format",
            ));
        }
        I::narrow_checked(h.nrows, "nrows")?;
        I::narrow_checked(h.ncols, "ncols")?;
        let mirror = if h.symmetry == Symmetry::General {
            1
        } else {
            2
        };
        let cap = self.reserve_bound().saturating_mul(mirror);
        let si = size_of::<I>() as u64;
        let ptr_bytes = (h.nrows as u64).saturating_add(1).saturating_mul(8 + si);
        self.check_budget(
            "row pointers and entries",
            ptr_bytes.saturating_add((cap as u64).saturating_mul(3 * si)),
        )?;
        let what = "MatrixMarket entries";
        let (mut rows, mut cols) = (
            memory::try_with_capacity::<I>(cap, what)?,
            memory::try_with_capacity::<I>(cap, what)?,
        );
        let mut failure = None;
        self.for_each_entry(|i, j, _| {
            if rows.len() == rows.capacity() {
                grow(&mut rows, what)
                    .and_then(|()| grow(&mut cols, what))
                    .map_err(|e| keep(&mut failure, e))?;
            }
            rows.push(I::narrow(i));
            cols.push(I::narrow(j));
            Ok(())
        })
        .map_err(|e| failure.take().unwrap_or(e))?;
        I::narrow_checked(rows.len(), "number of stored entries")?;
        let units = vec![(); rows.len()];
        let (mut p, mut c, mut u) =
            coo_to_csr(h.nrows, &rows, &cols, &units).map_err(|e| self.size_error(e))?;
        drop((rows, cols));
        canonicalize_in_place(&mut p, &mut c, &mut u, |a, _| a);
        Ok(PatternCsr::from_parts_trusted(h.nrows, h.ncols, p, c, true))
    }

    /// Reads the data into a dense column-major array (coordinate files included: repeated
    /// coordinates summed, absent entries zero). Memory `nrows·ncols` scalars.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] with the line for a malformed entry, or (line 1) for a complex file
    /// read into a real `S`; [`Error::InvalidArgument`] if `nrows·ncols` overflows;
    /// [`Error::Io`] on a read failure.
    pub fn read_dense<S: Scalar>(mut self) -> Result<DenseArray<S>> {
        self.reject_complex_into_real::<S>()?;
        let h = self.header;
        let len = h.nrows.checked_mul(h.ncols).ok_or_else(|| {
            self.err(
                self.size_line,
                format!("dense size {} × {} overflows", h.nrows, h.ncols),
            )
        })?;
        let nrows = h.nrows;
        let cap = self.reserve_bound();
        // What the data can hold up front; the dense block is checked (and allocated) after
        // the data is read, so a truncated file is reported as such.
        self.check_budget(
            "entries",
            if h.format == Format::Array && h.symmetry == Symmetry::General {
                memory::bytes_of::<S>(cap)
            } else {
                memory::bytes_of::<(usize, usize, S)>(cap)
            },
        )?;
        let what = "MatrixMarket entries";
        let mut failure = None;
        let data = if h.format == Format::Array && h.symmetry == Symmetry::General {
            // Entries arrive in column-major order: grow with the entries actually read.
            let mut data = memory::try_with_capacity::<S>(cap, what)?;
            self.for_each_entry(|_, _, v| {
                let s = S::from_c64(v);
                if !s.finite() {
                    return Err(format!("value {v} overflows {}", S::NAME));
                }
                if data.len() == data.capacity() {
                    grow(&mut data, what).map_err(|e| keep(&mut failure, e))?;
                }
                data.push(s);
                Ok(())
            })
            .map_err(|e| failure.take().unwrap_or(e))?;
            data
        } else {
            // Triplets first (bounded by the entries read), the dense block after: a header
            // alone never reserves nrows·ncols.
            let mut entries = memory::try_with_capacity::<(usize, usize, S)>(cap, what)?;
            self.for_each_entry(|i, j, v| {
                let s = S::from_c64(v);
                if !s.finite() {
                    return Err(format!("value {v} overflows {}", S::NAME));
                }
                if entries.len() == entries.capacity() {
                    grow(&mut entries, what).map_err(|e| keep(&mut failure, e))?;
                }
                entries.push((i, j, s));
                Ok(())
            })
            .map_err(|e| failure.take().unwrap_or(e))?;
            let what = format!(
                "{}: nrows·ncols of the dense {} declared at line {}",
                self.source, h, self.size_line
            );
            let mut data =
                memory::try_filled(len, S::zero(), &what).map_err(|e| self.size_error(e))?;
            for (i, j, s) in entries {
                data[i + j * nrows] += s;
            }
            data
        };
        if let Some(k) = data.iter().position(|v| !v.finite()) {
            return Err(Error::NonFinite {
                context: format!("{}: sum of repeated entries", self.source),
                index: k,
                value: format!("{}", data[k]),
            });
        }
        Ok(DenseArray {
            nrows: h.nrows,
            ncols: h.ncols,
            data,
        })
    }
}

/// Doubles the capacity of a full `v` (at least 1024 entries), checked against the memory
/// budget and allocated fallibly: storage grows with the entries actually read.
fn grow<T>(v: &mut Vec<T>, what: &str) -> Result<()> {
    let more = v.len().max(1024);
    memory::check(what, memory::bytes_of::<T>(more))?;
    v.try_reserve_exact(more)
        .map_err(|e| Error::OutOfMemoryBudget {
            what: what.to_string(),
            needed: memory::bytes_of::<T>(more),
            available: 0,
            limit: format!("the allocator refused: {e}"),
        })
}

/// Stores a typed error met inside an entry callback (whose error channel is a message for
/// the current line) so that the caller returns it unchanged.
fn keep(slot: &mut Option<Error>, e: Error) -> String {
    let msg = e.to_string();
    *slot = Some(e);
    msg
}

fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let t: String = s.chars().take(MAX).collect();
        format!("{t}…")
    }
}

/// Reads a MatrixMarket matrix from `reader` into a canonical CSR matrix (see
/// [`MatrixMarketReader::read_csr`]).
///
/// # Errors
///
/// Those of [`MatrixMarketReader::new`] and [`MatrixMarketReader::read_csr`].
pub fn read_csr<S: Scalar, I: CsrIndex, R: BufRead>(
    reader: R,
    source_name: &str,
) -> Result<CsrMatrix<S, I>> {
    MatrixMarketReader::new(reader, source_name)?.read_csr()
}

/// Reads a MatrixMarket file into a canonical CSR matrix.
///
/// # Errors
///
/// [`Error::Io`] naming the path, and those of [`MatrixMarketReader::read_csr`].
pub fn read_csr_file<S: Scalar, I: CsrIndex>(path: impl AsRef<Path>) -> Result<CsrMatrix<S, I>> {
    MatrixMarketReader::open(path)?.read_csr()
}

/// Reads a MatrixMarket file into a canonical CSR matrix with `u32` indices, the index type
/// to use below 2³² − 1 stored entries (for more, [`read_csr_file`] with `u64`); only the
/// scalar type is chosen, often by the binding's type:
///
/// ```no_run
/// use matexp_sparse::{CsrMatrix, matrix_market::read_matrix_market};
/// let a: CsrMatrix<f64> = read_matrix_market("matrix.mtx")?;
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// `Io` when the file cannot be read, `Parse` for malformed contents, `InvalidArgument` when
/// the entries do not fit `u32` indices.
pub fn read_matrix_market<S: Scalar>(path: impl AsRef<Path>) -> Result<CsrMatrix<S>> {
    read_csr_file::<S, u32>(path)
}

/// Reads the structure of a MatrixMarket matrix from `reader` (see
/// [`MatrixMarketReader::read_pattern`]).
///
/// # Errors
///
/// Those of [`MatrixMarketReader::new`] and [`MatrixMarketReader::read_pattern`].
pub fn read_pattern<I: CsrIndex, R: BufRead>(
    reader: R,
    source_name: &str,
) -> Result<PatternCsr<I>> {
    MatrixMarketReader::new(reader, source_name)?.read_pattern()
}

/// Reads the structure of a MatrixMarket file (e.g. a SuiteSparse graph) into a pattern.
///
/// # Errors
///
/// [`Error::Io`] naming the path, and those of [`MatrixMarketReader::read_pattern`].
pub fn read_pattern_file<I: CsrIndex>(path: impl AsRef<Path>) -> Result<PatternCsr<I>> {
    MatrixMarketReader::open(path)?.read_pattern()
}

/// Reads a MatrixMarket file (array or coordinate) into a dense column-major array.
///
/// # Errors
///
/// [`Error::Io`] naming the path, and those of [`MatrixMarketReader::read_dense`].
pub fn read_dense_file<S: Scalar>(path: impl AsRef<Path>) -> Result<DenseArray<S>> {
    MatrixMarketReader::open(path)?.read_dense()
}
