//! The shared input and output layer: matrices, vectors and time specifications in;
//! MatrixMarket, CSV or JSON results out, written atomically (temporary file, then rename).

use crate::error::{CliError, CliResult, Kind};
use matexp::{CsrMatrix, Scalar, c64};
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Vectors of length n that every method keeps besides its input and outputs (a Krylov basis
/// of two, a product, a correction): the lower bound of the workspace that the tool and the
/// C ABI compare with the memory budget before reading or copying the data. The methods'
/// workspaces grow beyond it (a Krylov basis up to its dimension), each allocation fallible.
pub const MIN_WORKSPACE_VECTORS: usize = 4;

/// A matrix read from a MatrixMarket file: real when every entry is real.
#[derive(Debug)]
pub enum Matrix {
    /// A real matrix.
    Real(CsrMatrix<f64>),
    /// A complex matrix (a `complex` file with a nonzero imaginary part).
    Complex(CsrMatrix<c64>),
}

impl Matrix {
    /// Rows.
    pub fn nrows(&self) -> usize {
        match self {
            Matrix::Real(a) => a.nrows(),
            Matrix::Complex(a) => a.nrows(),
        }
    }

    /// The matrix with complex entries.
    pub fn to_complex(&self) -> CliResult<CsrMatrix<c64>> {
        match self {
            Matrix::Real(a) => a.cast().map_err(CliError::input),
            Matrix::Complex(a) => Ok(a.clone()),
        }
    }
}

/// Compares what solving with the matrix in `path` needs (its row pointers, twice as read and
/// cast, and complex vectors of its order: v, its narrowed copy, two per output and
/// [`MIN_WORKSPACE_VECTORS`]) with the memory budget, from the header alone:
/// a 70-byte file declaring 10⁹ rows is refused in microseconds, before any data is read.
pub fn check_problem_memory(path: &Path, outputs: usize) -> CliResult<()> {
    let r =
        matexp::sparse::matrix_market::MatrixMarketReader::open(path).map_err(CliError::input)?;
    let h = *r.header();
    let n = h.nrows.max(h.ncols) as u64;
    let vectors = 2 + 2 * outputs as u64 + MIN_WORKSPACE_VECTORS as u64;
    let needed = (n + 1)
        .saturating_mul(16)
        .saturating_add(n.saturating_mul(16).saturating_mul(vectors));
    matexp_core::memory::check(
        format!(
            "{}: the {h} with {vectors} complex vectors of its order ({outputs} result(s))",
            path.display()
        ),
        needed,
    )
    .map_err(CliError::input)
}

/// Reads a square MatrixMarket coordinate file. Errors name the file (and the line for a
/// malformed entry, from the reader) and both sizes of a non-square matrix.
pub fn read_square_matrix(path: &Path) -> CliResult<Matrix> {
    let a: CsrMatrix<c64> = matexp::read_matrix_market(path).map_err(CliError::input)?;
    if a.nrows() != a.ncols() {
        return Err(CliError::new(
            Kind::Input,
            format!(
                "{}: the matrix is {} × {}, but a square matrix is needed",
                path.display(),
                a.nrows(),
                a.ncols()
            ),
        ));
    }
    if a.nrows() == 0 {
        return Err(CliError::new(
            Kind::Input,
            format!("{}: the matrix is empty (0 × 0)", path.display()),
        ));
    }
    Ok(match a.cast::<f64>() {
        Ok(real) => Matrix::Real(real),
        Err(_) => Matrix::Complex(a),
    })
}

/// Where the vector `v` comes from: `ones`, `random:SEED` or a MatrixMarket array file.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorSource {
    /// All ones.
    Ones,
    /// Independent uniform entries in [−1, 1) from ChaCha8 seeded with the number.
    Random(u64),
    /// A MatrixMarket `array` file with one column (or one row).
    File(PathBuf),
}

impl std::str::FromStr for VectorSource {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s == "ones" {
            Ok(VectorSource::Ones)
        } else if let Some(seed) = s.strip_prefix("random:") {
            seed.parse()
                .map(VectorSource::Random)
                .map_err(|_| format!("bad seed in '{s}': expected random:N with N a whole number"))
        } else if s == "random" {
            Ok(VectorSource::Random(0))
        } else {
            Ok(VectorSource::File(PathBuf::from(s)))
        }
    }
}

/// The vector of length `n` as complex numbers (the callers narrow it to their scalar).
pub fn read_vector(src: &VectorSource, n: usize) -> CliResult<Vec<c64>> {
    match src {
        VectorSource::Ones => Ok(vec![c64::new(1.0, 0.0); n]),
        VectorSource::Random(seed) => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(*seed);
            Ok((0..n)
                .map(|_| c64::new(rng.random_range(-1.0..1.0), 0.0))
                .collect())
        }
        VectorSource::File(path) => {
            let arr = matexp::read_dense_file::<c64>(path).map_err(CliError::input)?;
            let v = arr
                .into_vector()
                .map_err(|e| CliError::new(Kind::Input, format!("{}: {}", path.display(), e)))?;
            if v.len() != n {
                return Err(CliError::new(
                    Kind::Input,
                    format!(
                        "{}: the vector has length {}, but the matrix has {} rows",
                        path.display(),
                        v.len(),
                        n
                    ),
                ));
            }
            Ok(v)
        }
    }
}

/// Narrows complex values to the scalar `S`; a real `S` needs every imaginary part zero.
pub fn narrow<S: Scalar>(v: &[c64], what: &str) -> CliResult<Vec<S>> {
    if !S::IS_COMPLEX {
        if let Some(k) = v.iter().position(|z| z.im != 0.0) {
            return Err(CliError::new(
                Kind::Input,
                format!(
                    "{what}: entry {k} is complex ({}), but the computation is real",
                    v[k]
                ),
            ));
        }
    }
    Ok(v.iter().map(|&z| S::from_c64(z)).collect())
}

/// Most times of a grid `start:stop:num` (each result is a column held in memory).
pub const MAX_TIMES: usize = 100_000;

/// The times asked for: one (possibly complex) time or a grid `start:stop:num`.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeSpec {
    /// One time.
    One(c64),
    /// `num` equally spaced real times from `start` to `stop`, both included.
    Grid {
        /// First time.
        start: f64,
        /// Last time.
        stop: f64,
        /// Number of times (at least 1).
        num: usize,
    },
}

impl TimeSpec {
    /// The times, in order.
    pub fn times(&self) -> Vec<c64> {
        match *self {
            TimeSpec::One(t) => vec![t],
            TimeSpec::Grid { start, stop, num } => (0..num)
                .map(|k| {
                    if k + 1 == num && num > 1 {
                        // Exactly the stop given, not a rounding of it.
                        return c64::new(stop, 0.0);
                    }
                    let s = k as f64 / (num - 1).max(1) as f64;
                    c64::new(start + (stop - start) * s, 0.0)
                })
                .collect(),
        }
    }

    /// Whether some time has a nonzero imaginary part.
    pub fn is_complex(&self) -> bool {
        self.times().iter().any(|t| t.im != 0.0)
    }
}

impl std::str::FromStr for TimeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() == 3 {
            let num_err = |p: &str| format!("bad time grid '{s}': '{p}' is not a finite number");
            let start = parse_real(parts[0]).ok_or_else(|| num_err(parts[0]))?;
            let stop = parse_real(parts[1]).ok_or_else(|| num_err(parts[1]))?;
            let num: usize = parts[2]
                .trim()
                .parse()
                .ok()
                .filter(|&n| (1..=MAX_TIMES).contains(&n))
                .ok_or_else(|| {
                    format!(
                        "bad time grid '{s}': the count '{}' must be a whole number from 1 to {MAX_TIMES}",
                        parts[2]
                    )
                })?;
            let grid = TimeSpec::Grid { start, stop, num };
            // Both ends finite, but stop − start may not be (−1e308:1e308): the times between
            // would be ∞ or NaN.
            if !(stop - start).is_finite() || grid.times().iter().any(|t| !t.re.is_finite()) {
                return Err(format!(
                    "bad time grid '{s}': stop − start = {:e} is beyond the f64 range, so the \
                     times between would not be finite",
                    stop - start
                ));
            }
            return Ok(grid);
        }
        if parts.len() != 1 {
            return Err(format!(
                "bad time '{s}': expected a number, a complex number like 0-1i, or start:stop:num"
            ));
        }
        parse_complex(s)
            .map(TimeSpec::One)
            .ok_or_else(|| format!("bad time '{s}': expected a number (1.5), a complex number (0-1i, -i*2.5, 1+2i) or a grid start:stop:num"))
    }
}

fn parse_real(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Parses `a`, `bi`, `a+bi`, `a-bi`, `i`, `-i`, `i*b`, `-i*b`, `b*i` (also with `j`).
pub fn parse_complex(s: &str) -> Option<c64> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if s.is_empty() {
        return None;
    }
    if let Some(x) = parse_real(&s) {
        return Some(c64::new(x, 0.0));
    }
    // Split at the last sign that is not at the start and not after an exponent marker.
    let bytes = s.as_bytes();
    let mut split = None;
    for k in (1..bytes.len()).rev() {
        if (bytes[k] == b'+' || bytes[k] == b'-') && !matches!(bytes[k - 1], b'e' | b'E') {
            split = Some(k);
            break;
        }
    }
    let (re, im) = match split {
        Some(k) => (parse_real(&s[..k])?, parse_imag(&s[k..])?),
        None => (0.0, parse_imag(&s)?),
    };
    Some(c64::new(re, im))
}

fn parse_imag(s: &str) -> Option<f64> {
    let (sign, body) = match s.as_bytes().first()? {
        b'-' => (-1.0, &s[1..]),
        b'+' => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    let mag = if body == "i" || body == "j" {
        1.0
    } else if let Some(b) = body.strip_prefix("i*").or_else(|| body.strip_prefix("j*")) {
        parse_real(b)?
    } else if let Some(b) = body.strip_suffix("*i").or_else(|| body.strip_suffix("*j")) {
        parse_real(b)?
    } else if let Some(b) = body.strip_suffix('i').or_else(|| body.strip_suffix('j')) {
        parse_real(b)?
    } else {
        return None;
    };
    if b_has_sign(body) {
        return None;
    }
    Some(sign * mag)
}

fn b_has_sign(body: &str) -> bool {
    body.starts_with('+') || body.starts_with('-')
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// MatrixMarket dense `array` (one column per result).
    Mtx,
    /// Comma-separated values with a header row (complex values as `re` and `im` columns).
    Csv,
    /// A JSON object `{"columns": [...], "data": [[...], ...]}` (complex values as `[re, im]`).
    Json,
}

impl Format {
    /// The format of `path` from `explicit` or the file's extension (`.mtx`, `.csv`, `.json`).
    pub fn resolve(explicit: Option<Format>, path: &Path) -> CliResult<Format> {
        if let Some(f) = explicit {
            return Ok(f);
        }
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("mtx") => Ok(Format::Mtx),
            Some("csv") => Ok(Format::Csv),
            Some("json") => Ok(Format::Json),
            _ => Err(CliError::usage(format!(
                "cannot tell the output format of '{}' from its extension; name it .mtx, .csv or .json, or pass --format",
                path.display()
            ))),
        }
    }
}

/// Named result columns of equal length.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column names.
    pub names: Vec<String>,
    /// Columns.
    pub columns: Vec<Vec<c64>>,
}

impl Table {
    /// Adds a column.
    pub fn push(&mut self, name: impl Into<String>, col: Vec<c64>) {
        self.names.push(name.into());
        self.columns.push(col);
    }

    fn is_complex(&self) -> bool {
        self.columns.iter().flatten().any(|z| z.im != 0.0)
    }

    fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Rejects non-finite results (a NaN is never written silently).
    pub fn check_finite(&self) -> CliResult<()> {
        for (name, col) in self.names.iter().zip(&self.columns) {
            if let Some(k) = col
                .iter()
                .position(|z| !z.re.is_finite() || !z.im.is_finite())
            {
                return Err(CliError::new(
                    Kind::Numerical,
                    format!(
                        "the result '{name}' has a non-finite entry at index {k} ({})",
                        col[k]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Serialises the table in `format`.
    pub fn render(&self, format: Format) -> String {
        let cplx = self.is_complex();
        let n = self.rows();
        let mut out = String::new();
        match format {
            Format::Mtx => {
                let field = if cplx { "complex" } else { "real" };
                out += &format!("%%MatrixMarket matrix array {field} general\n");
                out += &format!("% columns: {}\n", self.names.join(" "));
                out += &format!("{} {}\n", n, self.columns.len());
                for col in &self.columns {
                    for z in col {
                        if cplx {
                            out += &format!("{} {}\n", fmt_num(z.re), fmt_num(z.im));
                        } else {
                            out += &format!("{}\n", fmt_num(z.re));
                        }
                    }
                }
            }
            Format::Csv => {
                let header: Vec<String> = self
                    .names
                    .iter()
                    .flat_map(|c| {
                        if cplx {
                            vec![format!("{c}_re"), format!("{c}_im")]
                        } else {
                            vec![c.clone()]
                        }
                    })
                    .collect();
                out += &header.join(",");
                out.push('\n');
                for i in 0..n {
                    let row: Vec<String> = self
                        .columns
                        .iter()
                        .flat_map(|c| {
                            if cplx {
                                vec![fmt_num(c[i].re), fmt_num(c[i].im)]
                            } else {
                                vec![fmt_num(c[i].re)]
                            }
                        })
                        .collect();
                    out += &row.join(",");
                    out.push('\n');
                }
            }
            Format::Json => {
                let data: Vec<serde_json::Value> = self
                    .columns
                    .iter()
                    .map(|c| {
                        c.iter()
                            .map(|z| {
                                if cplx {
                                    serde_json::json!([z.re, z.im])
                                } else {
                                    serde_json::json!(z.re)
                                }
                            })
                            .collect()
                    })
                    .collect();
                let v = serde_json::json!({ "columns": self.names, "data": data });
                out = serde_json::to_string_pretty(&v).unwrap_or_default();
                out.push('\n');
            }
        }
        out
    }
}

/// Writes `contents` to `path` through a temporary file in the same folder and a rename, so
/// that a failure leaves no partial file. The file is created as any new file is (mode 0666
/// less the user's umask), not with a temporary file's private mode.
pub fn write_atomic(path: &Path, contents: &[u8]) -> CliResult<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let err = |e: std::io::Error| {
        CliError::new(
            Kind::Output,
            format!("cannot write {}: {e}", path.display()),
        )
    };
    use std::sync::atomic::{AtomicU64, Ordering};
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let (tmp_path, mut file) = loop {
        let name = format!(
            ".matexp-{}-{}.tmp",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        );
        let p = dir.join(name);
        // `create_new` never follows or reuses an existing name.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => break (p, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(err(e)),
        }
    };
    let written = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            std::fs::rename(&tmp_path, path)
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp_path);
        return Err(err(e));
    }
    Ok(())
}

/// A number in the shortest form that reads back exactly: plain decimals for moderate
/// magnitudes (`3`, `0.36787944117144233`), scientific notation otherwise (`1.5e-12`).
pub fn fmt_num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-4..1e15).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_times_parse_in_every_spelling() {
        let c = |re, im| Some(c64::new(re, im));
        assert_eq!(parse_complex("2.5"), c(2.5, 0.0));
        assert_eq!(parse_complex("-1e-3"), c(-1e-3, 0.0));
        assert_eq!(parse_complex("0-1i"), c(0.0, -1.0));
        assert_eq!(parse_complex("-i*2.5"), c(0.0, -2.5));
        assert_eq!(parse_complex("2.5*i"), c(0.0, 2.5));
        assert_eq!(parse_complex("1+2i"), c(1.0, 2.0));
        assert_eq!(parse_complex("1e-2-3e+1j"), c(0.01, -30.0));
        assert_eq!(parse_complex("i"), c(0.0, 1.0));
        assert_eq!(parse_complex("-i"), c(0.0, -1.0));
        for bad in ["", "x", "1+", "1+-2i", "nan", "inf", "1+nani", "i*", "--1i"] {
            assert_eq!(parse_complex(bad), None, "{bad}");
        }
    }

    #[test]
    fn time_grids_include_both_ends() {
        let g: TimeSpec = "1:2:5".parse().unwrap();
        let t: Vec<f64> = g.times().iter().map(|z| z.re).collect();
        assert_eq!(t, [1.0, 1.25, 1.5, 1.75, 2.0]);
        assert_eq!(
            "3:4:1".parse::<TimeSpec>().unwrap().times(),
            [c64::new(3.0, 0.0)]
        );
        assert!("0:1:0".parse::<TimeSpec>().is_err());
        assert!("0:1:1000000000".parse::<TimeSpec>().is_err());
        for wide in ["-1e308:1e308:3", "1.7e308:-1.7e308:2"] {
            let e = wide.parse::<TimeSpec>().unwrap_err();
            assert!(e.contains(wide) && e.contains("not be finite"), "{e}");
        }
        let edge: TimeSpec = "-1e308:0:3".parse().unwrap();
        assert!(edge.times().iter().all(|t| t.re.is_finite()));
        assert_eq!(edge.times()[2], c64::new(0.0, 0.0));
        assert!("0:x:3".parse::<TimeSpec>().is_err());
        assert!("0:1".parse::<TimeSpec>().is_err());
        assert!("0-1i".parse::<TimeSpec>().unwrap().is_complex());
    }

    #[test]
    fn vector_sources_and_formats() {
        assert_eq!("ones".parse::<VectorSource>(), Ok(VectorSource::Ones));
        assert_eq!(
            "random:7".parse::<VectorSource>(),
            Ok(VectorSource::Random(7))
        );
        assert!("random:x".parse::<VectorSource>().is_err());
        let r = read_vector(&VectorSource::Random(7), 50).unwrap();
        assert_eq!(
            r,
            read_vector(&VectorSource::Random(7), 50).unwrap(),
            "seeded"
        );
        assert!(r.iter().all(|z| (-1.0..1.0).contains(&z.re) && z.im == 0.0));
        assert_ne!(r, read_vector(&VectorSource::Random(8), 50).unwrap());
        assert_eq!(
            Format::resolve(None, Path::new("a/b.JSON")).unwrap(),
            Format::Json
        );
        assert_eq!(
            Format::resolve(Some(Format::Csv), Path::new("x.mtx")).unwrap(),
            Format::Csv
        );
        assert_eq!(
            Format::resolve(None, Path::new("x.txt")).unwrap_err().kind,
            Kind::Usage
        );
    }

    #[test]
    fn tables_render_and_reject_non_finite_values() {
        let mut t = Table::default();
        t.push("a", vec![c64::new(1.0, 0.0), c64::new(0.25, 0.0)]);
        assert_eq!(t.render(Format::Csv), "a\n1\n0.25\n");
        assert_eq!(
            t.render(Format::Mtx),
            "%%MatrixMarket matrix array real general\n% columns: a\n2 1\n1\n0.25\n"
        );
        t.push("b", vec![c64::new(0.0, 1e-20), c64::new(f64::NAN, 0.0)]);
        assert!(
            t.render(Format::Csv)
                .starts_with("a_re,a_im,b_re,b_im\n1,0,0,1e-20\n")
        );
        let e = t.check_finite().unwrap_err();
        assert_eq!(e.kind, Kind::Numerical);
        assert!(
            e.message.contains("'b'") && e.message.contains("index 1"),
            "{}",
            e.message
        );
    }

    #[test]
    fn atomic_writes_replace_whole_files_and_leave_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("no/such/folder/out.csv");
        assert_eq!(write_atomic(&missing, b"x").unwrap_err().kind, Kind::Output);
    }
}
