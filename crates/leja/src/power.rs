//! Spectral radius of general matrix-free operators by power iteration.
//!
//! From a seeded random unit vector, `x_{j+1} = A x_j / ‖A x_j‖`. Each ratio
//! `‖A x_j‖/‖x_j‖` lies in `[0, ‖A‖₂]` and, for an operator with a dominant eigenvalue, tends
//! to the spectral radius `ρ(A)`. The estimate is the largest ratio seen, widened by a
//! relative margin `δ` (default 5%):
//!
//! `ρ̂ = (1 + δ)·max_j ‖A x_j‖`.
//!
//! Taking the maximum errs on the safe side: early ratios overshoot `ρ` for non-normal
//! operators (they are bounded by `‖A‖₂`, and for non-normal operators the pseudospectrum
//! up to that size is what polynomial interpolation feels anyway). Convergence to `ρ` is
//! linear with ratio `|λ₂/λ₁|`: slow when the largest eigenvalues are clustered or several
//! share the largest modulus (e.g. a complex-conjugate pair of a real operator, where the
//! ratios oscillate). The margin covers moderate shortfalls; it is an estimate, not a bound.
//! The spectrum is then enclosed in the box `[−ρ̂, ρ̂] × [−ρ̂, ρ̂]`.
//!
//! Cost: `steps` operator applications, two vectors of memory.

use crate::lanczos::DEFAULT_SEED;
use crate::start::{check_dimension, check_margin, check_output, check_steps, random_unit_vector};
use matexp_core::norms::nrm2;
use matexp_core::{RealScalar, Result, Scalar, SpectralBounds};

/// Options of [`power_spectral_radius`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerOptions {
    /// Number of operator applications; default 100.
    pub steps: usize,
    /// Relative widening `δ` of the estimated radius; default 0.05.
    pub rel_margin: f64,
    /// Seed of the random starting vector.
    pub seed: u64,
}

impl Default for PowerOptions {
    fn default() -> Self {
        PowerOptions {
            steps: 100,
            rel_margin: 0.05,
            seed: DEFAULT_SEED,
        }
    }
}

/// Result of [`power_spectral_radius`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerEstimate {
    /// `ρ̂ = (1 + δ)·raw_radius`.
    pub radius: f64,
    /// Largest ratio `‖A x_j‖/‖x_j‖` observed.
    pub raw_radius: f64,
    /// The ratio of the last step (the classical power-method estimate).
    pub last_ratio: f64,
    /// Operator applications performed (fewer than requested if `A x_j = 0`).
    pub steps: usize,
    /// The box `[−ρ̂, ρ̂] × [−ρ̂, ρ̂]`.
    pub bounds: SpectralBounds,
}

/// Estimates the spectral radius of the operator `x ↦ A x` of dimension `n`, given as
/// `apply(x, y)` writing `y = A x`, and a box enclosing its spectrum.
///
/// # Errors
/// [`matexp_core::Error::InvalidArgument`] if `n = 0`, `steps = 0` or `rel_margin` is
/// negative or not finite; [`matexp_core::Error::NonFinite`] if the operator returns a NaN
/// or infinity.
///
/// ```
/// use matexp_leja::{power_spectral_radius, PowerOptions};
/// use matexp_core::c64;
/// // diag(i, 2i, 3i): spectral radius 3.
/// let est = power_spectral_radius::<c64, _>(3, |x, y| {
///     for (i, (yi, xi)) in y.iter_mut().zip(x).enumerate() {
///         *yi = c64::new(0.0, (i + 1) as f64) * xi;
///     }
/// }, &PowerOptions::default())?;
/// assert!(est.radius >= 3.0 && est.radius < 3.3);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn power_spectral_radius<S: Scalar, F: FnMut(&[S], &mut [S])>(
    n: usize,
    mut apply: F,
    options: &PowerOptions,
) -> Result<PowerEstimate> {
    power_fallible(
        n,
        |x, y| {
            apply(x, y);
            Ok(())
        },
        options,
    )
}

pub(crate) fn power_fallible<S: Scalar, F: FnMut(&[S], &mut [S]) -> Result<()>>(
    n: usize,
    mut apply: F,
    options: &PowerOptions,
) -> Result<PowerEstimate> {
    check_dimension(n)?;
    check_steps(options.steps)?;
    check_margin(options.rel_margin)?;
    let mut x = random_unit_vector::<S>(n, options.seed);
    let mut y = vec![S::zero(); n];
    let (mut raw, mut last) = (0.0f64, 0.0f64);
    let mut steps = 0;
    for j in 0..options.steps {
        apply(&x, &mut y)?;
        check_output("power iteration", j, &y)?;
        steps += 1;
        let r = nrm2(&y);
        last = r.as_f64();
        raw = raw.max(last);
        if last == 0.0 {
            break;
        }
        let inv = <S::Real as Scalar>::from_f64(1.0) / r;
        if !inv.as_f64().is_finite() {
            // ‖A x‖ below 1/f64::MAX in this precision: as good as zero.
            break;
        }
        for (xi, yi) in x.iter_mut().zip(&y) {
            *xi = yi.scale(inv);
        }
    }
    let radius = raw * (1.0 + options.rel_margin);
    let bounds = SpectralBounds::new(-radius, radius, -radius, radius)?;
    Ok(PowerEstimate {
        radius,
        raw_radius: raw,
        last_ratio: last,
        steps,
        bounds,
    })
}
