//! The typed error of the library.

use std::fmt;

/// Result alias used throughout matexp.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a matexp routine. Each variant carries enough context
/// (which argument, which dimension, which file and line) to act on without a debugger.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two sizes that must agree do not.
    #[error("dimension mismatch in {context}: expected {expected}, found {found}")]
    DimensionMismatch {
        /// Where the mismatch was detected, e.g. `"expmv: vector length"`.
        context: String,
        /// The size required.
        expected: usize,
        /// The size given.
        found: usize,
    },
    /// An argument is outside its domain (negative tolerance, empty interval, ...).
    #[error("invalid argument `{name}` = {}: {}", compact(value), compact(reason))]
    InvalidArgument {
        /// Name of the argument.
        name: &'static str,
        /// Its value, formatted.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A NaN or infinity in the input, or produced where the result would be meaningless.
    #[error(
        "non-finite value in {} at index {index}: {}",
        compact(context),
        compact(value)
    )]
    NonFinite {
        /// Where the value was found.
        context: String,
        /// Its position.
        index: usize,
        /// The value, formatted.
        value: String,
    },
    /// An iteration did not reach its tolerance within its caps.
    #[error("{method} did not converge: {}", compact(detail))]
    NoConvergence {
        /// The method that gave up.
        method: &'static str,
        /// What was reached (error estimate, iterations, ...).
        detail: String,
    },
    /// Malformed input text (MatrixMarket, fixture, command line).
    #[error("{source_name}:{line}: {message}")]
    Parse {
        /// File name or other description of the input.
        source_name: String,
        /// 1-based line number (0 when not applicable).
        line: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// An I/O failure, with the path involved.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file involved.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A GPU or driver failure, or no GPU present.
    #[error("device error: {0}")]
    Device(String),
    /// A valid request this build or operator does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A dense linear-algebra kernel (LAPACK) reported failure.
    #[error("{routine} failed with info = {info}")]
    Lapack {
        /// The routine name.
        routine: &'static str,
        /// LAPACK's `info`.
        info: i32,
    },
    /// A declared problem needs more memory than the process may use (see
    /// [`crate::memory`]): refused before anything of that size is allocated.
    #[error(
        "not enough memory for {}: needs {needed} bytes ({}), {available} bytes available ({})",
        compact(what),
        human_bytes(*needed),
        compact(limit)
    )]
    OutOfMemoryBudget {
        /// What the memory is for, with the sizes it is computed from.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes available under the binding limit.
        available: u64,
        /// Which limit binds (`MemAvailable`, the address-space limit, the user's limit).
        limit: String,
    },
}

/// `1.5 GiB`-style rendering of a byte count, for messages.
fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

impl Error {
    /// Convenience constructor for [`Error::InvalidArgument`].
    pub fn invalid(
        name: &'static str,
        value: impl fmt::Display,
        reason: impl Into<String>,
    ) -> Self {
        Error::InvalidArgument {
            name,
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// Convenience constructor for [`Error::DimensionMismatch`].
    pub fn dim(context: impl Into<String>, expected: usize, found: usize) -> Self {
        Error::DimensionMismatch {
            context: context.into(),
            expected,
            found,
        }
    }

    /// Convenience constructor for [`Error::Io`].
    pub fn io(path: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_string(),
            source,
        }
    }

    /// Convenience constructor for [`Error::Parse`].
    pub fn parse(source_name: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            source_name: source_name.into(),
            line,
            message: message.into(),
        }
    }
}

/// Longest number `Display` output kept as it is: every `u64` (20 digits) and ordinary
/// decimals fit; a huge or tiny `f64` (1e308 has 309 digits, 1e-300 has 302 characters)
/// does not.
const MAX_PLAIN_LEN: usize = 24;

/// `text` with every number token (`digits[.digits]`) longer than [`MAX_PLAIN_LEN`]
/// characters rewritten in scientific notation (`1000…0` → `1e308`), so that messages stay
/// one readable line. `Display` of an `f64` writes at most 17 significant digits, so the
/// rewrite loses nothing.
fn compact(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let digits = |from: usize| {
        bytes
            .get(from..)
            .map_or(0, |b| b.iter().take_while(|c| c.is_ascii_digit()).count())
    };
    // The end of the number token starting at `i`, if one starts there.
    let token = |i: usize| -> Option<usize> {
        if i > 0 && (bytes[i - 1].is_ascii_digit() || bytes[i - 1] == b'.') {
            return None;
        }
        let int = digits(i);
        if int == 0 {
            return None;
        }
        let frac = if bytes.get(i + int) == Some(&b'.') {
            digits(i + int + 1)
        } else {
            0
        };
        Some(if frac > 0 {
            i + int + 1 + frac
        } else {
            i + int
        })
    };
    let long = |i: usize| token(i).filter(|&end| end - i > MAX_PLAIN_LEN);
    if !(0..bytes.len()).any(|i| long(i).is_some()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = long(i) {
            match text[i..end].parse::<f64>() {
                Ok(x) => out.push_str(&format!("{x:e}")),
                Err(_) => out.push_str(&text[i..end]),
            }
            i = end;
        } else {
            let c = text[i..].chars().next().expect("i is a char boundary");
            out.push(c);
            i += c.len_utf8();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Checks that `found == expected`, naming `context` in the error otherwise.
///
/// # Errors
///
/// [`Error::DimensionMismatch`] with `context`, `expected` and `found` when they differ.
pub fn check_dim(context: &str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::dim(context, expected, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_numbers_print_in_scientific_notation() {
        let e = Error::invalid("t", 1e308, "too large");
        let msg = e.to_string();
        assert_eq!(msg, "invalid argument `t` = 1e308: too large");
        let e = Error::invalid("t", num_complex::Complex::new(-1e300, 2.5e301), "x");
        assert_eq!(e.to_string(), "invalid argument `t` = -1e300+2.5e301i: x");
        let e = Error::NonFinite {
            context: format!("result ≈ e^{:.1}", 1.5e200),
            index: 0,
            value: "inf".into(),
        };
        assert_eq!(
            e.to_string(),
            "non-finite value in result ≈ e^1.5e200 at index 0: inf"
        );
        let e = Error::NoConvergence {
            method: "m",
            detail: format!("reached {}", 4e25),
        };
        assert_eq!(e.to_string(), "m did not converge: reached 4e25");
        let e = Error::invalid("x", 1e-300, "tiny");
        assert_eq!(e.to_string(), "invalid argument `x` = 1e-300: tiny");
    }

    #[test]
    fn ordinary_numbers_are_left_alone() {
        let e = Error::invalid("n", u64::MAX, "ok 1.25 and 3e5 and 0.000001");
        assert_eq!(
            e.to_string(),
            "invalid argument `n` = 18446744073709551615: ok 1.25 and 3e5 and 0.000001"
        );
    }
}
