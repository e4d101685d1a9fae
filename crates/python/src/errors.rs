//! matexp's errors as Python exceptions: each variant of [`matexp::Error`] raises its class
//! of `matexp._errors` (subclasses of `matexp.Error` that are also `ValueError`,
//! `RuntimeError`, `MemoryError` or `OSError`), carrying the library's message.

use pyo3::prelude::*;
use pyo3::types::PyType;

/// The class of `matexp._errors` that `e` raises.
fn class_name(e: &matexp::Error) -> &'static str {
    use matexp::Error as E;
    match e {
        E::DimensionMismatch { .. } => "DimensionMismatchError",
        E::InvalidArgument { .. } => "InvalidArgumentError",
        E::NonFinite { .. } => "NonFiniteError",
        E::NoConvergence { .. } => "NoConvergenceError",
        E::Parse { .. } => "ParseError",
        E::Io { .. } => "FileError",
        E::Device(_) => "DeviceError",
        E::Unsupported(_) => "UnsupportedError",
        E::Lapack { .. } => "LapackError",
        E::OutOfMemoryBudget { .. } => "MemoryBudgetError",
        #[allow(unreachable_patterns)]
        _ => "Error",
    }
}

/// The Python exception for `e` (a `RuntimeError` with the message should the error module
/// itself fail to import, which would be a broken installation).
pub fn to_py(py: Python<'_>, e: matexp::Error) -> PyErr {
    let message = e.to_string();
    by_name(py, class_name(&e), message)
}

/// An exception of class `name` of `matexp._errors` with `message`.
pub fn by_name(py: Python<'_>, name: &str, message: String) -> PyErr {
    match py
        .import("matexp._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|c| Ok(c.cast_into::<PyType>()?))
    {
        Ok(class) => PyErr::from_type(class, message),
        Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}

/// A `matexp.InvalidArgumentError` (a `ValueError`) for a bad argument found here.
pub fn invalid(py: Python<'_>, message: impl Into<String>) -> PyErr {
    by_name(py, "InvalidArgumentError", message.into())
}
