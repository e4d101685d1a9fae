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
    #[error("invalid argument `{name}` = {value}: {reason}")]
    InvalidArgument {
        /// Name of the argument.
        name: &'static str,
        /// Its value, formatted.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A NaN or infinity in the input, or produced where the result would be meaningless.
    #[error("non-finite value in {context} at index {index}: {value}")]
    NonFinite {
        /// Where the value was found.
        context: String,
        /// Its position.
        index: usize,
        /// The value, formatted.
        value: String,
    },
    /// An iteration did not reach its tolerance within its caps.
    #[error("{method} did not converge: {detail}")]
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
