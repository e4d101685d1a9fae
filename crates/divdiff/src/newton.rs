//! Evaluation of a Newton-form polynomial.

use crate::DdScalar;
use matexp_core::{Result, check_dim};

/// `p(x) = Σ_j d_j ∏_{l<j} (x − ξ_l)` by Horner's scheme for the Newton form
/// (`m` multiplications for `m + 1` coefficients).
///
/// `nodes` are the interpolation nodes the coefficients belong to (the last node is not
/// used by the formula but its presence is checked, so that a coefficient vector is never
/// paired with the wrong node list).
///
/// # Errors
///
/// [`matexp_core::Error::DimensionMismatch`] when the lengths differ.
///
/// ```
/// use matexp_divdiff::newton_eval;
/// // p(x) = 1 + 2(x − 0) + 3(x − 0)(x − 1) interpolates 1, 3, 11 at 0, 1, 2.
/// assert_eq!(newton_eval(&[1.0, 2.0, 3.0], &[0.0, 1.0, 2.0], 2.0)?, 11.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn newton_eval<T: DdScalar>(coeffs: &[T], nodes: &[f64], x: f64) -> Result<T> {
    check_dim(
        "newton_eval: nodes per coefficient",
        coeffs.len(),
        nodes.len(),
    )?;
    let mut p = T::zero();
    for j in (0..coeffs.len()).rev() {
        p = p.scale(x - nodes[j]) + coeffs[j];
    }
    Ok(p)
}
