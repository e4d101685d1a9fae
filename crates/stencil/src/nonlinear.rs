//! Pointwise nonlinearities `g(u)` of semilinear problems `u' = Au + g(u)`.
//!
//! The model is seed 003's combustion source (Hundsdorfer–Verwer, p. 439),
//! `g(u) = ¼(2 − u)·e^{20(1 − 1/u)}`, in full precision and in a fast variant; any other
//! pointwise function is a closure on the CPU ([`map_pointwise`]). Each evaluation reads
//! one value and writes one, with a division and an exponential in between, so on a GPU it
//! is compute bound where the stencil is memory bound (the seed's Table III).
//!
//! Non-finite results (the source overflows for `u < 0`, where `1/u` is large and negative)
//! are reported as [`Error::NonFinite`] with the first offending index, never passed on.

use matexp_core::{Error, RealScalar, Result, check_dim};
use rayon::prelude::*;

/// A built-in pointwise function, selectable at run time and available on every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pointwise {
    /// `g(u) = ¼(2 − u)e^{20(1 − 1/u)}` with the library's `exp` and a true division:
    /// correctly rounded to within an ulp or two of the precision.
    Combustion,
    /// The same source with a fast exponential: [`fast_exp`] (relative error below 2·10⁻⁷)
    /// on the CPU and for `f64` on the GPU, `__expf` and `__fdividef` for `f32` on the GPU.
    /// For `f32` this is as accurate as the data; for `f64` it trades accuracy for speed,
    /// like the seed's fast-math rows. On the CPU it is not faster than the full variant
    /// (glibc's `exp` is table-driven; `bench-results/notes/tuning.md`): it is there so that
    /// both backends offer the same two functions.
    CombustionFast,
}

impl Pointwise {
    /// `g(u)`.
    #[inline]
    pub fn eval<S: RealScalar>(self, u: S) -> S {
        match self {
            Pointwise::Combustion => combustion(u),
            Pointwise::CombustionFast => combustion_fast(u),
        }
    }

    /// The code of the function in GPU kernels (0 full, 1 fast).
    pub fn code(self) -> u32 {
        match self {
            Pointwise::Combustion => 0,
            Pointwise::CombustionFast => 1,
        }
    }

    /// `y_i ← g(x_i)` on the CPU (rayon).
    ///
    /// # Errors
    /// As [`map_pointwise`].
    pub fn apply<S: RealScalar>(self, x: &[S], y: &mut [S]) -> Result<()> {
        map_pointwise(|u| self.eval(u), x, y)
    }
}

/// Seed 003's combustion source `¼(2 − u)·e^{20(1 − 1/u)}` (0 at `u = +0`, its limit).
///
/// ```
/// use matexp_stencil::nonlinear::combustion;
/// assert_eq!(combustion(1.0f64), 0.25);
/// assert_eq!(combustion(2.0f64), 0.0);
/// ```
#[inline]
pub fn combustion<S: RealScalar>(u: S) -> S {
    let quarter = S::from_f64(0.25);
    let two = S::from_f64(2.0);
    let twenty = S::from_f64(20.0);
    quarter * (two - u) * (twenty * (S::one() - S::one() / u)).exp()
}

/// The combustion source with [`fast_exp`] (relative error below 2·10⁻⁷).
#[inline]
pub fn combustion_fast<S: RealScalar>(u: S) -> S {
    let z = 20.0 * (1.0 - 1.0 / u.as_f64());
    S::from_f64(0.25 * (2.0 - u.as_f64()) * fast_exp(z))
}

/// `e^z` as `2^k·e^r` with `k = round(z/ln 2)`, `|r| ≤ ln2/2`, and `e^r` by its degree-6
/// Taylor polynomial: relative error below 2·10⁻⁷, no table, no library call (the rounding
/// to an integer is the `1.5·2⁵²` shifter, which stays in vector registers); `+∞` above the
/// overflow threshold, 0 below the normal range, NaN for NaN.
#[inline]
pub fn fast_exp(z: f64) -> f64 {
    // Adding 1.5·2^52 rounds to an integer (ties to even); its low bits hold k.
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    // Clamped, not branched, so that loops over it vectorize; NaN passes through.
    let zc = z.clamp(-708.0, 709.0);
    let shifted = zc * std::f64::consts::LOG2_E + SHIFTER;
    let k = shifted - SHIFTER;
    let r = (zc - k * LN2_HI) - k * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r / 720.0)))));
    let ki = shifted.to_bits() as i32 as i64;
    let e = p * f64::from_bits(((ki + 1023) as u64) << 52);
    if z > 709.0 {
        f64::INFINITY
    } else if z < -708.0 {
        0.0
    } else {
        e
    }
}

/// `y_i ← f(x_i)` for a user function, in parallel; the results are checked for finiteness
/// in the same pass.
///
/// ```
/// use matexp_stencil::nonlinear::map_pointwise;
/// let x = [1.0f64, 2.0, 3.0];
/// let mut y = [0.0; 3];
/// map_pointwise(|u| u * u - u, &x, &mut y)?;
/// assert_eq!(y, [0.0, 2.0, 6.0]);
/// assert!(map_pointwise(|u: f64| 1.0 / (u - 2.0), &x, &mut y).is_err());
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::DimensionMismatch`] when the lengths differ; [`Error::NonFinite`] naming the
/// first point whose value is not finite (`y` is then written but must not be used).
pub fn map_pointwise<S: RealScalar>(f: impl Fn(S) -> S + Sync, x: &[S], y: &mut [S]) -> Result<()> {
    check_dim("map_pointwise: y length", x.len(), y.len())?;
    const CHUNK: usize = 1 << 14;
    let bad = y
        .par_chunks_mut(CHUNK)
        .zip(x.par_chunks(CHUNK))
        .enumerate()
        .filter_map(|(c, (yc, xc))| {
            for (yi, &xi) in yc.iter_mut().zip(xc) {
                *yi = f(xi);
            }
            // A second sweep over the chunk, still in cache, finds the first bad value.
            yc.iter()
                .position(|v| !v.is_finite())
                .map(|k| c * CHUNK + k)
        })
        .min();
    match bad {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            context: format!("pointwise function at u = {}", x[i]),
            index: i,
            value: format!("{}", y[i]),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_is_accurate_over_the_range() {
        let mut worst = 0.0f64;
        let mut z = -700.0;
        while z < 700.0 {
            let rel = (fast_exp(z) - z.exp()).abs() / z.exp();
            worst = worst.max(rel);
            z += 0.0137;
        }
        assert!(worst < 2e-7, "worst relative error {worst}");
        assert_eq!(fast_exp(800.0), f64::INFINITY);
        assert_eq!(fast_exp(-800.0), 0.0);
        assert!(fast_exp(f64::NAN).is_nan());
    }

    #[test]
    fn combustion_variants_agree_and_match_closed_form() {
        for &u in &[0.1f64, 0.5, 0.9, 1.0, 1.3, 1.99] {
            let exact = 0.25 * (2.0 - u) * (20.0 * (1.0 - 1.0 / u)).exp();
            assert!((combustion(u) - exact).abs() <= 1e-15 * exact.abs());
            assert!((combustion_fast(u) - exact).abs() <= 2e-7 * exact.abs());
            // f32: exact at the rounded input; the exponent 20(1 − 1/u) amplifies the rounding
            // of 1/u and of the exponent by up to 20/u ulps.
            let u32 = u as f32 as f64;
            let exact32 = 0.25 * (2.0 - u32) * (20.0 * (1.0 - 1.0 / u32)).exp();
            let single = combustion(u as f32) as f64;
            let cond = 4.0 * (1.0 + 20.0 / u) * f32::EPSILON as f64;
            if exact32 < f32::MIN_POSITIVE as f64 {
                // e^{−180} at u = 0.1 underflows f32.
                assert!(single < f32::MIN_POSITIVE as f64, "u = {u}");
            } else {
                assert!((single - exact32).abs() <= cond * exact32.abs(), "u = {u}");
            }
        }
        assert_eq!(combustion(0.0f64), 0.0);
    }

    #[test]
    fn non_finite_source_is_an_error_naming_the_point() {
        let x = [1.0f64, 0.5, -1e-3, 1.0];
        let mut y = [0.0; 4];
        match Pointwise::Combustion.apply(&x, &mut y) {
            Err(Error::NonFinite { index, .. }) => assert_eq!(index, 2),
            other => panic!("expected NonFinite, got {other:?}"),
        }
    }
}
