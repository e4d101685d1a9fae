//! MatrixMarket writer with exact (shortest round-trip) number formatting.

use super::{Field, Format, Symmetry};
use crate::{CsrIndex, CsrMatrix, PatternCsr};
use matexp_core::{Error, RealScalar, Result, Scalar};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes a real number so that parsing it back gives the same bits: Rust's `Display` and
/// `LowerExp` print the shortest decimal that rounds to the value. Plain notation is used in
/// a middle range for readability, exponent notation outside it (where `Display` would print
/// hundreds of digits).
fn write_real<R: RealScalar, W: Write>(w: &mut W, x: R) -> std::io::Result<()> {
    let a = x.as_f64().abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        write!(w, "{x}")
    } else {
        write!(w, "{x:e}")
    }
}

fn write_value<S: Scalar, W: Write>(w: &mut W, v: S) -> std::io::Result<()> {
    write_real(w, v.re())?;
    if S::IS_COMPLEX {
        w.write_all(b" ")?;
        write_real(w, v.im())?;
    }
    Ok(())
}

fn write_banner<W: Write>(
    w: &mut W,
    format: Format,
    field: Field,
    symmetry: Symmetry,
    comments: &[&str],
) -> std::io::Result<()> {
    writeln!(
        w,
        "%%MatrixMarket matrix {} {} {}",
        format.keyword(),
        field.keyword(),
        symmetry.keyword()
    )?;
    for c in comments {
        for line in c.lines() {
            writeln!(w, "% {line}")?;
        }
    }
    Ok(())
}

/// Whether entry (i, j) belongs to the stored triangle (the lower one, as the standard says).
fn keep(symmetry: Symmetry, i: usize, j: usize) -> bool {
    match symmetry {
        Symmetry::General => true,
        Symmetry::Symmetric | Symmetry::Hermitian => i >= j,
        Symmetry::SkewSymmetric => i > j,
    }
}

/// Writes `a` as a coordinate file: all entries (`General`), or the lower triangle of a
/// matrix that has the declared symmetry — checked exactly, [`Error::InvalidArgument`] if
/// not (and for `Hermitian` with a real scalar: write real symmetric matrices as
/// `Symmetric`). The field is `real` for real scalars and `complex` for complex ones; stored
/// zeros are written; repeated coordinates are summed first. Each `comments` line becomes a
/// `%` line after the banner.
///
/// # Errors
///
/// [`Error::InvalidArgument`] when the matrix lacks the declared symmetry, [`Error::Io`] on
/// write failure.
pub fn write_csr<S: Scalar, I: CsrIndex, W: Write>(
    writer: W,
    a: &CsrMatrix<S, I>,
    symmetry: Symmetry,
    comments: &[&str],
) -> Result<()> {
    let ok = match symmetry {
        Symmetry::General => true,
        Symmetry::Symmetric => a.is_symmetric(),
        Symmetry::SkewSymmetric => a.is_skew_symmetric(),
        Symmetry::Hermitian => {
            if !S::IS_COMPLEX {
                return Err(Error::invalid(
                    "symmetry",
                    "hermitian",
                    format!(
                        "needs a complex scalar, found {}; write real matrices as symmetric",
                        S::NAME
                    ),
                ));
            }
            a.is_hermitian()
        }
    };
    if !ok {
        return Err(Error::invalid(
            "symmetry",
            symmetry.keyword(),
            "the matrix does not have this symmetry (checked exactly)",
        ));
    }
    let canon = a.canonicalize();
    let count = (0..canon.nrows())
        .map(|i| {
            canon
                .row(i)
                .0
                .iter()
                .filter(|j| keep(symmetry, i, j.as_usize()))
                .count()
        })
        .sum::<usize>();
    let field = if S::IS_COMPLEX {
        Field::Complex
    } else {
        Field::Real
    };
    let io = |e| Error::io("MatrixMarket output", e);
    let mut w = BufWriter::with_capacity(1 << 20, writer);
    write_banner(&mut w, Format::Coordinate, field, symmetry, comments).map_err(io)?;
    writeln!(w, "{} {} {}", canon.nrows(), canon.ncols(), count).map_err(io)?;
    for i in 0..canon.nrows() {
        let (cols, vals) = canon.row(i);
        for (j, v) in cols.iter().zip(vals) {
            let j = j.as_usize();
            if keep(symmetry, i, j) {
                write!(w, "{} {} ", i + 1, j + 1).map_err(io)?;
                write_value(&mut w, *v).map_err(io)?;
                w.write_all(b"\n").map_err(io)?;
            }
        }
    }
    w.flush().map_err(io)
}

/// Writes a pattern as a `pattern` coordinate file: all entries (`General`) or the lower
/// triangle of a symmetric pattern (`Symmetric`; other symmetries are rejected, as the
/// standard does not define them for patterns).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a symmetry other than `General` or `Symmetric`, or a
/// `Symmetric` pattern that is not symmetric; [`Error::Io`] on write failure.
pub fn write_pattern<I: CsrIndex, W: Write>(
    writer: W,
    p: &PatternCsr<I>,
    symmetry: Symmetry,
    comments: &[&str],
) -> Result<()> {
    match symmetry {
        Symmetry::General => {}
        Symmetry::Symmetric if p.is_symmetric() => {}
        Symmetry::Symmetric => {
            return Err(Error::invalid(
                "symmetry",
                "symmetric",
                "the pattern is not symmetric",
            ));
        }
        s => {
            return Err(Error::invalid(
                "symmetry",
                s.keyword(),
                "pattern files are general or symmetric",
            ));
        }
    }
    let canon = p.canonicalize();
    let count = (0..canon.nrows())
        .map(|i| {
            canon
                .row(i)
                .iter()
                .filter(|j| keep(symmetry, i, j.as_usize()))
                .count()
        })
        .sum::<usize>();
    let io = |e| Error::io("MatrixMarket output", e);
    let mut w = BufWriter::with_capacity(1 << 20, writer);
    write_banner(
        &mut w,
        Format::Coordinate,
        Field::Pattern,
        symmetry,
        comments,
    )
    .map_err(io)?;
    writeln!(w, "{} {} {}", canon.nrows(), canon.ncols(), count).map_err(io)?;
    for i in 0..canon.nrows() {
        for j in canon.row(i) {
            let j = j.as_usize();
            if keep(symmetry, i, j) {
                writeln!(w, "{} {}", i + 1, j + 1).map_err(io)?;
            }
        }
    }
    w.flush().map_err(io)
}

/// Writes a dense column-major array (`data[i + j·nrows]`) as a general `array` file, e.g. a
/// vector with `ncols = 1`.
///
/// # Errors
///
/// [`Error::DimensionMismatch`] if `data.len() != nrows·ncols`, [`Error::NonFinite`] for a
/// NaN or infinite entry, [`Error::Io`] on write failure.
pub fn write_dense<S: Scalar, W: Write>(
    writer: W,
    nrows: usize,
    ncols: usize,
    data: &[S],
    comments: &[&str],
) -> Result<()> {
    matexp_core::check_dim(
        "write_dense: data length (nrows·ncols)",
        nrows * ncols,
        data.len(),
    )?;
    if let Some((k, v)) = matexp_core::norms::first_non_finite(data) {
        return Err(Error::NonFinite {
            context: "write_dense".into(),
            index: k,
            value: format!("{v}"),
        });
    }
    let field = if S::IS_COMPLEX {
        Field::Complex
    } else {
        Field::Real
    };
    let io = |e| Error::io("MatrixMarket output", e);
    let mut w = BufWriter::with_capacity(1 << 20, writer);
    write_banner(&mut w, Format::Array, field, Symmetry::General, comments).map_err(io)?;
    writeln!(w, "{nrows} {ncols}").map_err(io)?;
    for v in data {
        write_value(&mut w, *v).map_err(io)?;
        w.write_all(b"\n").map_err(io)?;
    }
    w.flush().map_err(io)
}

fn create(path: &Path) -> Result<File> {
    File::create(path).map_err(|e| Error::io(path.display(), e))
}

fn with_path(path: &Path, r: Result<()>) -> Result<()> {
    r.map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path.display(), source),
        e => e,
    })
}

/// [`write_csr`] to a file (created or truncated).
///
/// # Errors
///
/// Those of [`write_csr`], and [`Error::Io`] naming the path when the file cannot be created
/// or written.
pub fn write_csr_file<S: Scalar, I: CsrIndex>(
    path: impl AsRef<Path>,
    a: &CsrMatrix<S, I>,
    symmetry: Symmetry,
    comments: &[&str],
) -> Result<()> {
    let path = path.as_ref();
    with_path(path, write_csr(create(path)?, a, symmetry, comments))
}

/// [`write_pattern`] to a file (created or truncated).
///
/// # Errors
///
/// Those of [`write_pattern`], and [`Error::Io`] naming the path when the file cannot be created
/// or written.
pub fn write_pattern_file<I: CsrIndex>(
    path: impl AsRef<Path>,
    p: &PatternCsr<I>,
    symmetry: Symmetry,
    comments: &[&str],
) -> Result<()> {
    let path = path.as_ref();
    with_path(path, write_pattern(create(path)?, p, symmetry, comments))
}

/// [`write_dense`] to a file (created or truncated).
///
/// # Errors
///
/// Those of [`write_dense`], and [`Error::Io`] naming the path when the file cannot be created
/// or written.
pub fn write_dense_file<S: Scalar>(
    path: impl AsRef<Path>,
    nrows: usize,
    ncols: usize,
    data: &[S],
    comments: &[&str],
) -> Result<()> {
    let path = path.as_ref();
    with_path(
        path,
        write_dense(create(path)?, nrows, ncols, data, comments),
    )
}
