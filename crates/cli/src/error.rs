//! Errors of the command-line tool and their exit statuses.

use std::fmt;

/// What went wrong, which fixes the process exit status (documented in the crate README and
/// in `matexp --help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A command line that cannot be obeyed (unknown option value, bad time spec): status 2.
    Usage,
    /// An input file that cannot be read or is malformed, or data of the wrong shape: status 3.
    Input,
    /// A computation that failed (no convergence, overflow to a non-finite value): status 4.
    Numerical,
    /// The requested device cannot be used (no GPU, no driver): status 5.
    Device,
    /// The output or report file cannot be written: status 6.
    Output,
    /// The problem needs more memory than the process may use (available memory, the
    /// address-space limit, `--memory-limit` or `MATEXP_MEMORY_LIMIT`): status 7.
    Memory,
}

impl Kind {
    /// The process exit status of this kind.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Usage => 2,
            Kind::Input => 3,
            Kind::Numerical => 4,
            Kind::Device => 5,
            Kind::Output => 6,
            Kind::Memory => 7,
        }
    }
}

/// An error of the tool: its kind and a one-line message with the context (file, line, sizes).
#[derive(Debug)]
pub struct CliError {
    /// Fixes the exit status.
    pub kind: Kind,
    /// One line, printed after `matexp: error: `.
    pub message: String,
}

impl CliError {
    /// An error of `kind` with `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        CliError {
            kind,
            message: message.into(),
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Kind::Usage, message)
    }

    /// A library error met while reading inputs: [`Kind::Input`]
    /// (or [`Kind::Memory`] for a refusal of the memory budget).
    pub fn input(e: matexp::Error) -> Self {
        let kind = match &e {
            matexp::Error::OutOfMemoryBudget { .. } => Kind::Memory,
            _ => Kind::Input,
        };
        Self::new(kind, one_line(&e.to_string()))
    }

    /// A library error met while computing, classified by its variant.
    pub fn compute(e: matexp::Error) -> Self {
        use matexp::Error as E;
        let kind = match &e {
            E::Device(_) => Kind::Device,
            E::DimensionMismatch { .. } | E::Parse { .. } | E::Io { .. } => Kind::Input,
            E::InvalidArgument { .. } | E::Unsupported(_) => Kind::Usage,
            E::OutOfMemoryBudget { .. } => Kind::Memory,
            _ => Kind::Numerical,
        };
        Self::new(kind, one_line(&e.to_string()))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Result of the tool's functions.
pub type CliResult<T> = Result<T, CliError>;

/// Joins the lines of a message so that every error is one line on stderr.
pub fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
