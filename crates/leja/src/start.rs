//! Deterministic starting vectors for the Krylov estimates, and the checks shared by them.

use matexp_core::{Error, Result, Scalar, c64};

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator whose output for a seed is fixed
/// forever, so estimates are reproducible without a dependency.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [−1, 1).
fn uniform(state: &mut u64) -> f64 {
    (splitmix64(state) >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

/// A vector of length `n` with independent uniform entries (real and imaginary parts for
/// complex scalars), normalised to unit 2-norm. A random vector has a nonzero component
/// along every eigenvector with probability one, which the Krylov methods need.
pub(crate) fn random_unit_vector<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut state = seed;
    let mut v: Vec<S> = (0..n)
        .map(|_| {
            let re = uniform(&mut state);
            let im = if S::IS_COMPLEX {
                uniform(&mut state)
            } else {
                0.0
            };
            S::from_c64(c64::new(re, im))
        })
        .collect();
    let norm = matexp_core::norms::nrm2(&v);
    let inv = <S::Real as Scalar>::from_f64(1.0) / norm;
    v.iter_mut().for_each(|x| *x = x.scale(inv));
    v
}

pub(crate) fn check_dimension(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            n,
            "zero-dimension operator has no spectrum to estimate",
        ));
    }
    Ok(())
}

pub(crate) fn check_output<S: Scalar>(method: &str, step: usize, y: &[S]) -> Result<()> {
    match matexp_core::norms::first_non_finite(y) {
        None => Ok(()),
        Some((i, v)) => Err(Error::NonFinite {
            context: format!("operator output in {method} step {step}"),
            index: i,
            value: v.to_string(),
        }),
    }
}

pub(crate) fn check_margin(rel_margin: f64) -> Result<()> {
    if !(rel_margin.is_finite() && rel_margin >= 0.0) {
        return Err(Error::invalid(
            "rel_margin",
            rel_margin,
            "the safety margin must be finite and non-negative",
        ));
    }
    Ok(())
}

pub(crate) fn check_steps(steps: usize) -> Result<()> {
    if steps == 0 {
        return Err(Error::invalid(
            "steps",
            steps,
            "at least one operator application is needed",
        ));
    }
    Ok(())
}
