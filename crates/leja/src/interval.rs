//! Real and imaginary intervals, their logarithmic capacity, Green's function, and the affine
//! maps to and from the reference interval [−2, 2].
//!
//! An interval is stored by its center `c` and its logarithmic capacity `γ`:
//! a real interval is `[c − 2γ, c + 2γ] ⊂ ℝ`, an imaginary one is `i·[c − 2γ, c + 2γ] ⊂ iℝ`
//! (the spectrum of `−iH` for Hermitian `H`, i.e. of the generator of `e^{−itH}`).
//! The affine map `ξ ↦ z = center + scale·ξ` with `center = c`, `scale = γ` (real) or
//! `center = i·c`, `scale = i·γ` (imaginary) takes [−2, 2], the interval of capacity one,
//! onto the interval; since `c(rK + a) = |r|·c(K)` and `c([−2, 2]) = 1`, the image has
//! capacity `|scale| = γ = (b − a)/4`.

use crate::table;
use matexp_core::{Error, Result, Scalar, ShiftedStep, SpectralBounds, c64};

/// The line of the complex plane an [`Interval`] lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// A segment `[a, b]` of the real axis (spectra of symmetric / Hermitian operators).
    Real,
    /// A segment `i·[a, b]` of the imaginary axis (spectra of skew-Hermitian operators such
    /// as `−iH`).
    Imaginary,
}

/// A real interval `[a, b]` or an imaginary interval `i·[a, b]`, with `a < b` finite.
///
/// `a` and `b` are called the *coordinates* of the endpoints: the points themselves are `a`,
/// `b` on the real axis and `i·a`, `i·b` on the imaginary axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    axis: Axis,
    lo: f64,
    hi: f64,
    center: f64,
    gamma: f64,
}

impl Interval {
    /// The reference interval [−2, 2] of capacity one, on which Leja points are computed.
    pub const REFERENCE: Interval = Interval {
        axis: Axis::Real,
        lo: -2.0,
        hi: 2.0,
        center: 0.0,
        gamma: 1.0,
    };

    /// The real interval `[a, b]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if an endpoint is NaN or infinite, if `a ≥ b` (empty or
    /// degenerate: a point has capacity zero and cannot be mapped onto [−2, 2]), or if the
    /// width is so small that `γ = (b − a)/4` underflows to zero.
    ///
    /// ```
    /// use matexp_leja::Interval;
    /// let k = Interval::real(-8.0, 0.0)?;
    /// assert_eq!((k.center(), k.capacity()), (-4.0, 2.0));
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    pub fn real(a: f64, b: f64) -> Result<Interval> {
        Interval::new(Axis::Real, a, b)
    }

    /// The imaginary interval `i·[a, b]` (coordinates `a < b` along the imaginary axis).
    ///
    /// # Errors
    /// As [`Interval::real`].
    pub fn imaginary(a: f64, b: f64) -> Result<Interval> {
        Interval::new(Axis::Imaginary, a, b)
    }

    /// The interval with endpoint coordinates `a < b` on `axis`.
    ///
    /// # Errors
    /// As [`Interval::real`].
    pub fn new(axis: Axis, a: f64, b: f64) -> Result<Interval> {
        for (name, v) in [("a", a), ("b", b)] {
            if !v.is_finite() {
                return Err(Error::invalid(
                    name,
                    v,
                    "interval endpoints must be finite numbers",
                ));
            }
        }
        if a >= b {
            return Err(Error::invalid(
                "a",
                a,
                format!(
                    "interval [{a}, {b}] is empty or degenerate: need a < b (a single point has \
                     capacity zero and cannot be mapped onto [-2, 2])"
                ),
            ));
        }
        // Quarter each endpoint first: (b − a)/4 would overflow for |a|, |b| near f64::MAX.
        let gamma = b / 4.0 - a / 4.0;
        if gamma <= 0.0 {
            return Err(Error::invalid(
                "b",
                b,
                format!("interval [{a}, {b}] is too narrow: its capacity (b - a)/4 underflows"),
            ));
        }
        Ok(Interval {
            axis,
            lo: a,
            hi: b,
            center: a / 2.0 + b / 2.0,
            gamma,
        })
    }

    /// The interval `[c − 2γ, c + 2γ]` on `axis` (times `i` for [`Axis::Imaginary`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `center` or `gamma` is not finite, if `gamma ≤ 0`, or if
    /// an endpoint overflows.
    pub fn from_center_capacity(axis: Axis, center: f64, gamma: f64) -> Result<Interval> {
        if !center.is_finite() {
            return Err(Error::invalid("center", center, "must be finite"));
        }
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(Error::invalid(
                "gamma",
                gamma,
                "the capacity must be finite and positive (zero width is a degenerate interval)",
            ));
        }
        let (lo, hi) = (center - 2.0 * gamma, center + 2.0 * gamma);
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(Error::invalid(
                "gamma",
                gamma,
                format!("endpoints center ± 2·gamma overflow (center = {center})"),
            ));
        }
        Ok(Interval {
            axis,
            lo,
            hi,
            center,
            gamma,
        })
    }

    /// The interval that spectral bounds describe: `[re_min, re_max]` when the box has zero
    /// imaginary extent at 0 (a real spectrum), `i·[im_min, im_max]` when it has zero real
    /// extent at 0 (a purely imaginary spectrum).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a degenerate interval (a single point: widen the bounds
    /// first), [`Error::Unsupported`] for a box with both extents, or a segment off the axes:
    /// those need a complex focal interval, which this type does not represent.
    pub fn from_spectral_bounds(bounds: &SpectralBounds) -> Result<Interval> {
        let SpectralBounds {
            re_min,
            re_max,
            im_min,
            im_max,
        } = *bounds;
        if im_min == 0.0 && im_max == 0.0 {
            Interval::real(re_min, re_max)
        } else if re_min == 0.0 && re_max == 0.0 {
            Interval::imaginary(im_min, im_max)
        } else {
            Err(Error::Unsupported(format!(
                "spectral bounds [{re_min}, {re_max}] x i[{im_min}, {im_max}] are neither a real \
                 nor an imaginary interval"
            )))
        }
    }

    /// The axis the interval lies on.
    pub fn axis(&self) -> Axis {
        self.axis
    }

    /// Coordinates `(a, b)` of the endpoints along the axis.
    pub fn endpoints(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// Coordinate `c = (a + b)/2` of the center along the axis.
    pub fn center(&self) -> f64 {
        self.center
    }

    /// Logarithmic capacity `γ = (b − a)/4`; the interval is `[c − 2γ, c + 2γ]` along its
    /// axis.
    pub fn capacity(&self) -> f64 {
        self.gamma
    }

    /// The center as a point of the complex plane (`c` or `i·c`).
    pub fn center_point(&self) -> c64 {
        self.along_axis(self.center)
    }

    /// The complex scale of the affine map from [−2, 2] (`γ` or `i·γ`); `|scale| = γ`.
    pub fn scale(&self) -> c64 {
        self.along_axis(self.gamma)
    }

    /// The spectral-bounds box of the interval (zero extent across its axis).
    pub fn to_spectral_bounds(&self) -> SpectralBounds {
        let (re_min, re_max, im_min, im_max) = match self.axis {
            Axis::Real => (self.lo, self.hi, 0.0, 0.0),
            Axis::Imaginary => (0.0, 0.0, self.lo, self.hi),
        };
        SpectralBounds {
            re_min,
            re_max,
            im_min,
            im_max,
        }
    }

    /// Coordinate `c + γ·ξ` of the image of `ξ`.
    ///
    /// For `ξ ∈ [−2, 2]` it is evaluated as the convex combination
    /// `a·(2 − ξ)/4 + b·(2 + ξ)/4` and clamped to `[a, b]`: `ξ = ±2` map to the endpoints
    /// exactly, no image leaves the interval by rounding, and nothing overflows even for
    /// endpoints near `±f64::MAX`. Outside [−2, 2] the map is the plain affine one.
    pub fn coordinate_from_reference(&self, xi: f64) -> f64 {
        if (-2.0..=2.0).contains(&xi) {
            let t = self.lo * ((2.0 - xi) / 4.0) + self.hi * ((2.0 + xi) / 4.0);
            t.clamp(self.lo, self.hi)
        } else {
            self.center + self.gamma * xi
        }
    }

    /// The point `center + scale·ξ` of the complex plane (see
    /// [`Interval::coordinate_from_reference`] for the rounding guarantee).
    pub fn from_reference(&self, xi: f64) -> c64 {
        self.along_axis(self.coordinate_from_reference(xi))
    }

    /// `(t − c)/γ`: the reference coordinate of the point with coordinate `t` on the axis.
    pub fn coordinate_to_reference(&self, t: f64) -> f64 {
        (t - self.center) / self.gamma
    }

    /// `(z − center)/scale` for any complex `z`: the inverse affine map, onto the plane in
    /// which the interval is [−2, 2].
    pub fn to_reference(&self, z: c64) -> c64 {
        let w = (z - self.center_point()) / self.gamma;
        match self.axis {
            Axis::Real => w,
            // Dividing by i is a rotation by −π/2.
            Axis::Imaginary => c64::new(w.im, -w.re),
        }
    }

    /// The images of reference points `ξ_j ∈ [−2, 2]`.
    pub fn map_points(&self, xi: &[f64]) -> Vec<c64> {
        xi.iter().map(|&x| self.from_reference(x)).collect()
    }

    /// The first `n` Leja points of this interval: the images of the shipped table
    /// ([`crate::leja_points`]) under the affine map. Because the Leja product scales by
    /// `γⁿ` and keeps its maximisers under affine maps, these are Leja points of the
    /// interval (starting from the image of ξ = 2, i.e. the right or upper endpoint).
    ///
    /// # Errors
    /// As [`crate::leja_points`].
    pub fn leja_points(&self, n: usize) -> Result<Vec<c64>> {
        Ok(self.map_points(table::leja_points(n)?))
    }

    /// Coordinates along the axis of the first `n` Leja points of this interval.
    ///
    /// # Errors
    /// As [`crate::leja_points`].
    pub fn leja_coordinates(&self, n: usize) -> Result<Vec<f64>> {
        Ok(table::leja_points(n)?
            .iter()
            .map(|&x| self.coordinate_from_reference(x))
            .collect())
    }

    /// Green's function of the complement of the interval with pole at infinity:
    /// `G(z) = log|φ(ξ)|` with `ξ = (z − center)/scale` and `φ(ξ) = ξ/2 + √(ξ/2 − 1)·√(ξ/2 + 1)`
    /// the exterior conformal map of [−2, 2] onto `|w| > 1` (inverse of the Joukowski map
    /// `w ↦ w + 1/w`). `G = 0` on the interval, `G(z) = log|z| − log γ + o(1)` as `z → ∞`,
    /// and its level sets `G = log R` are the ellipses with foci at the endpoints and
    /// semi-axes `γ(R + 1/R)`, `γ(R − 1/R)`. Leja interpolation of a function analytic
    /// inside the level set `G = log R` converges like `R^{−n}` (maximal convergence).
    pub fn green(&self, z: c64) -> f64 {
        let w = self.to_reference(z) / 2.0;
        let one = c64::new(1.0, 0.0);
        // The product of principal square roots has its cut on [−1, 1] and behaves like w at
        // infinity, so φ(w) = w + √(w−1)√(w+1) is the branch with |φ| ≥ 1, free of
        // cancellation for large |w|.
        let phi = w + (w - one).sqrt() * (w + one).sqrt();
        phi.norm().ln().max(0.0)
    }

    /// Coefficients of one Newton–Leja step `y_m = ((A − center)/scale − ξ_{m−1}) y_{m−1}`
    /// for [`matexp_core::FusedOperator::shifted_step`]: `inv_gamma = 1/scale` and
    /// `shift = −center/scale − ξ_{m−1}` (`1/γ` and `−c/γ − ξ` for a real interval,
    /// `−i/γ` and `−c/γ − ξ` for an imaginary one).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for an imaginary interval with a real scalar type (the scaled
    /// operator is complex); [`Error::InvalidArgument`] if `xi_prev` is not finite.
    pub fn shifted_step<S: Scalar>(&self, xi_prev: f64, coeff: S) -> Result<ShiftedStep<S>> {
        if !xi_prev.is_finite() {
            return Err(Error::invalid("xi_prev", xi_prev, "must be finite"));
        }
        let shift = -self.center / self.gamma - xi_prev;
        let inv_gamma = match self.axis {
            Axis::Real => S::from_f64(1.0 / self.gamma),
            Axis::Imaginary if S::IS_COMPLEX => S::from_c64(c64::new(0.0, -1.0 / self.gamma)),
            Axis::Imaginary => {
                return Err(Error::Unsupported(format!(
                    "a Leja step on the imaginary interval i[{}, {}] needs a complex scalar, \
                     not {}",
                    self.lo,
                    self.hi,
                    S::NAME
                )));
            }
        };
        Ok(ShiftedStep {
            alpha: inv_gamma,
            shift: S::from_f64(shift),
            coeff,
        })
    }

    fn along_axis(&self, t: f64) -> c64 {
        match self.axis {
            Axis::Real => c64::new(t, 0.0),
            Axis::Imaginary => c64::new(0.0, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_and_center_of_endpoints() {
        let k = Interval::real(1.0, 9.0).unwrap();
        assert_eq!(k.center(), 5.0);
        assert_eq!(k.capacity(), 2.0);
        assert_eq!(k.endpoints(), (1.0, 9.0));
        let h = Interval::imaginary(-3.0, 1.0).unwrap();
        assert_eq!(h.center_point(), c64::new(0.0, -1.0));
        assert_eq!(h.scale(), c64::new(0.0, 1.0));
        let big = Interval::real(-f64::MAX, f64::MAX).unwrap();
        assert_eq!(big.capacity(), f64::MAX / 2.0);
        assert_eq!(big.center(), 0.0);
    }

    #[test]
    fn maps_are_inverse_and_hit_endpoints_exactly() {
        for k in [
            Interval::real(0.1, 0.3).unwrap(),
            Interval::imaginary(-7.5, 2.25).unwrap(),
            Interval::from_center_capacity(Axis::Real, 3.0, 0.125).unwrap(),
        ] {
            let (a, b) = k.endpoints();
            assert_eq!(k.coordinate_from_reference(-2.0), a);
            assert_eq!(k.coordinate_from_reference(2.0), b);
            for xi in [-2.0, -1.3, 0.0, 0.7, 2.0] {
                let z = k.from_reference(xi);
                let back = k.to_reference(z);
                assert!((back.re - xi).abs() < 1e-14 && back.im.abs() < 1e-14);
                let t = k.coordinate_from_reference(xi);
                assert!((k.coordinate_to_reference(t) - xi).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn spectral_bounds_round_trip() {
        let k = Interval::imaginary(-2.0, 6.0).unwrap();
        assert_eq!(
            Interval::from_spectral_bounds(&k.to_spectral_bounds()).unwrap(),
            k
        );
        let r = Interval::real(-4.0, -1.0).unwrap();
        assert_eq!(
            Interval::from_spectral_bounds(&r.to_spectral_bounds()).unwrap(),
            r
        );
    }
}
