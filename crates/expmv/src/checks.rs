//! Validation of user input shared by the methods, and by the integrators built on them
//! (`matexp-integrators`): the same checks give the same error messages. Each function
//! prefixes its message with the caller's context (`"magnus: ψ"`).

use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, check_dim};

/// The order n of a square operator; `DimensionMismatch` (naming `method`) when it is not
/// square.
pub fn square_order<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    method: &str,
    op: &O,
) -> Result<usize> {
    check_dim(
        &format!("{method}: operator must be square (columns vs rows)"),
        op.nrows(),
        op.ncols(),
    )?;
    Ok(op.nrows())
}

/// A zero output vector for `op` applied to `v`, allocated only after the operator is found
/// square and `v` of its order: an operator claiming more rows than memory holds is a
/// `DimensionMismatch` (or the backend's allocation error), never an abort.
pub(crate) fn output_like<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    method: &str,
    op: &O,
    v: &B::Vector<S>,
) -> Result<B::Vector<S>> {
    let n = square_order(method, op)?;
    check_dim(&format!("{method}: v: length"), n, backend.len(v))?;
    backend.zeros(n)
}

/// Checks length and finiteness of `x`; returns ‖x‖₂. A NaN or ∞ is located on the host
/// (only on this error path) and reported with its index and value.
pub fn vector<B: Backend, S: Scalar>(
    backend: &B,
    name: &str,
    x: &B::Vector<S>,
    n: usize,
) -> Result<f64> {
    check_dim(&format!("{name}: length"), n, backend.len(x))?;
    let nrm = backend.nrm2(x)?.as_f64();
    if nrm.is_finite() {
        return Ok(nrm);
    }
    let host = backend.to_host(x)?;
    match matexp_core::norms::first_non_finite(&host) {
        Some((index, value)) => Err(Error::NonFinite {
            context: name.to_string(),
            index,
            value: format!("{value}"),
        }),
        None => Err(Error::invalid(
            "v",
            format!("vector with ‖{name}‖₂ beyond the {} range", S::NAME),
            "rescale the vector",
        )),
    }
}

/// Checks an output vector's length: `DimensionMismatch` unless it is `n`.
pub fn output<B: Backend, S: Scalar>(
    backend: &B,
    name: &str,
    x: &B::Vector<S>,
    n: usize,
) -> Result<()> {
    check_dim(&format!("{name}: length"), n, backend.len(x))
}

/// Checks that a time (or time scale) is finite.
pub(crate) fn time<S: Scalar>(name: &'static str, t: S) -> Result<()> {
    if t.finite() {
        Ok(())
    } else {
        Err(Error::invalid(name, t, "must be finite"))
    }
}

/// Checks a list of output times: finite, ≥ 0, non-decreasing, not empty.
pub(crate) fn times(times: &[f64]) -> Result<()> {
    if times.is_empty() {
        return Err(Error::invalid("times", "[]", "at least one time is needed"));
    }
    for (i, &t) in times.iter().enumerate() {
        if !t.is_finite() || t < 0.0 {
            return Err(Error::invalid(
                "times",
                format!("times[{i}] = {t}"),
                "times must be finite and ≥ 0",
            ));
        }
        if i > 0 && t < times[i - 1] {
            return Err(Error::invalid(
                "times",
                format!("times[{i}] = {t} < times[{}] = {}", i - 1, times[i - 1]),
                "times must be non-decreasing",
            ));
        }
    }
    Ok(())
}

/// Checks that a count (outputs, an operator's order) matches the expected one:
/// `DimensionMismatch` otherwise.
pub fn count(context: &str, expected: usize, found: usize) -> Result<()> {
    check_dim(context, expected, found)
}

/// The nearest power of two to x > 0 (exact scaling factors).
pub(crate) fn pow2_near(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() {
        2f64.powi(x.log2().round().clamp(-1000.0, 1000.0) as i32)
    } else {
        1.0
    }
}
