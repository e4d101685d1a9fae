//! The focal interval: the segment whose Leja points interpolate, chosen from a box that
//! holds the spectrum.
//!
//! For a real box (Hermitian operators) the focal interval is the box itself. For a box
//! with both extents (non-normal operators, Gershgorin boxes) it is the segment along the
//! longer side (always the real axis for real scalars, where an imaginary focal interval
//! would need complex arithmetic), and the spectrum is assumed inside the ellipse with the
//! segment's endpoints as foci that passes through the box corners (the *real Leja point
//! method* of Caliari, Vianello & Bergamaschi 2004). Interpolation at the segment's Leja
//! points converges on that ellipse, at the rate of a segment whose capacity is the
//! ellipse's, `(A + B)/2` for semi-axes `A ≥ B`; substeps are sized with that capacity.

use matexp_core::{Error, Result, Scalar, ShiftedStep, SpectralBounds, c64};
use matexp_leja::{Axis, Interval};

/// The focal segment `center + scale·[−2, 2]` and the ellipse around the spectrum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Focal {
    /// The segment along its axis (coordinates, center, capacity γ).
    pub interval: Interval,
    /// Center point: the interval's center plus the box's offset across the axis.
    pub center: c64,
    /// `γ` (real axis) or `i·γ` (imaginary axis).
    pub scale: c64,
    /// Half-extent of the box across the axis (0 for a segment).
    pub across: f64,
    /// Capacity `(A + B)/2` of the ellipse with foci at the endpoints through the corners
    /// (`γ` for a segment).
    pub capacity: f64,
}

/// `(re_min, re_max, im_min, im_max)` checked finite, or [`Error::NonFinite`] naming the
/// first bad bound.
pub(crate) fn check_bounds(b: &SpectralBounds, origin: &str) -> Result<()> {
    for (i, v) in [b.re_min, b.re_max, b.im_min, b.im_max]
        .into_iter()
        .enumerate()
    {
        if !v.is_finite() {
            return Err(Error::NonFinite {
                context: format!(
                    "spectral interval from {origin} (index 0..3 = re_min, re_max, im_min, im_max)"
                ),
                index: i,
                value: format!("{v}"),
            });
        }
    }
    if b.re_min > b.re_max || b.im_min > b.im_max {
        return Err(Error::invalid(
            "bounds",
            format!(
                "[{}, {}] x i[{}, {}]",
                b.re_min, b.re_max, b.im_min, b.im_max
            ),
            format!("spectral bounds from {origin} are inverted"),
        ));
    }
    Ok(())
}

impl Focal {
    /// The focal interval of `bounds` (widened to hold 0 when `include_zero`, as the
    /// augmented operator of the φ-functions needs), for complex (`complex = true`) or real
    /// arithmetic.
    pub(crate) fn new(bounds: &SpectralBounds, include_zero: bool, complex: bool) -> Result<Focal> {
        check_bounds(bounds, "the operator")?;
        let SpectralBounds {
            mut re_min,
            mut re_max,
            mut im_min,
            mut im_max,
        } = *bounds;
        if include_zero {
            re_min = re_min.min(0.0);
            re_max = re_max.max(0.0);
            im_min = im_min.min(0.0);
            im_max = im_max.max(0.0);
        }
        let (wre, wim) = (re_max - re_min, im_max - im_min);
        let axis = if complex && wim > wre {
            Axis::Imaginary
        } else {
            Axis::Real
        };
        let (lo, hi, mut across_mid, mut across) = match axis {
            Axis::Real => (re_min, re_max, im_min / 2.0 + im_max / 2.0, wim / 2.0),
            Axis::Imaginary => (im_min, im_max, re_min / 2.0 + re_max / 2.0, wre / 2.0),
        };
        if !complex {
            // Real arithmetic: the segment stays on the real axis; a real operator's spectrum
            // is symmetric about it, so the box is enclosed in |Im z| ≤ max(|im_min|, |im_max|).
            across_mid = 0.0;
            across = im_min.abs().max(im_max.abs());
        }
        let mid = lo / 2.0 + hi / 2.0;
        // A segment much shorter than the box would scale the Newton basis by a huge 1/γ, and
        // a single point has capacity zero: keep the half-length at least the half-extent
        // across and a tiny fraction of the magnitude.
        let floor = 1e-8 * mid.abs().max(across_mid.abs()).max(1.0);
        let half = (hi / 2.0 - lo / 2.0).max(across).max(floor);
        let interval = Interval::new(axis, mid - half, mid + half)?;
        let half = 2.0 * interval.capacity();
        let along_box = (hi / 2.0 - lo / 2.0).min(half);
        let capacity = ellipse_capacity(half, along_box, across);
        let offset = match axis {
            Axis::Real => c64::new(0.0, across_mid),
            Axis::Imaginary => c64::new(across_mid, 0.0),
        };
        Ok(Focal {
            interval,
            center: interval.center_point() + offset,
            scale: interval.scale(),
            across,
            capacity,
        })
    }

    /// Coefficients of the Newton step `y_m = ((A − center)/scale − ξ_{m−1}) y_{m−1}`,
    /// `p += coeff·y_m`: `inv_gamma = 1/scale`, `shift = −center/scale − ξ_{m−1}` (what
    /// [`Interval::shifted_step`] gives on the axes, with the off-axis center included).
    pub(crate) fn step<S: Scalar>(&self, xi_prev: f64, coeff: S) -> ShiftedStep<S> {
        let inv = c64::new(1.0, 0.0) / self.scale;
        ShiftedStep {
            alpha: S::from_c64(inv),
            shift: S::from_c64(-self.center * inv - xi_prev),
            coeff,
        }
    }
}

/// Capacity `(A + B)/2` of the ellipse with foci `±f` (on the axis) through the corner
/// `(a, b)` of the box (`a ≤ f` along, `b` across): `A² − B² = f²`, `a²/A² + b²/B² = 1`.
fn ellipse_capacity(f: f64, a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return f / 2.0;
    }
    // u = B² solves u² + (f² − a² − b²)u − b²f² = 0; scale by f to keep squares in range.
    let (a, b) = (a / f, b / f);
    let c = 1.0 - a * a - b * b;
    let u = (-c + (c * c + 4.0 * b * b).sqrt()) / 2.0;
    let big_b = u.sqrt();
    let big_a = (u + 1.0).sqrt();
    f * (big_a + big_b) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_box_is_its_own_focal_interval() {
        let f = Focal::new(&SpectralBounds::real(-8.0, 0.0).unwrap(), false, false).unwrap();
        assert_eq!(f.center, c64::new(-4.0, 0.0));
        assert_eq!(f.scale, c64::new(2.0, 0.0));
        assert_eq!(f.capacity, 2.0);
        let s = f.step::<f64>(2.0, 1.0);
        assert_eq!((s.alpha, s.shift), (0.5, 0.0));
    }

    #[test]
    fn imaginary_box_gives_an_imaginary_segment_for_complex_scalars() {
        let b = SpectralBounds::new(0.0, 0.0, -3.0, 5.0).unwrap();
        let f = Focal::new(&b, false, true).unwrap();
        assert_eq!(f.center, c64::new(0.0, 1.0));
        assert_eq!(f.scale, c64::new(0.0, 2.0));
        // Same step as Interval::shifted_step on the imaginary axis.
        let k = Interval::imaginary(-3.0, 5.0).unwrap();
        let want = k.shifted_step::<c64>(0.5, c64::new(1.0, 0.0)).unwrap();
        let got = f.step::<c64>(0.5, c64::new(1.0, 0.0));
        assert!((want.alpha - got.alpha).norm() < 1e-15);
        assert!((want.shift - got.shift).norm() < 1e-15);
        // Real scalars keep a real segment around the imaginary spectrum.
        let r = Focal::new(&b, false, false).unwrap();
        assert_eq!(r.scale.im, 0.0);
        assert!(r.capacity >= 2.5);
    }

    #[test]
    fn ellipse_through_the_corners() {
        // Square box [−1, 1]²: foci ±1, B² = (1 + √5)/2 (golden ratio).
        let phi = (1.0 + 5f64.sqrt()) / 2.0;
        let cap = ellipse_capacity(1.0, 1.0, 1.0);
        assert!((cap - (phi.sqrt() + (phi + 1.0).sqrt()) / 2.0).abs() < 1e-14);
        assert_eq!(ellipse_capacity(3.0, 3.0, 0.0), 1.5);
    }

    #[test]
    fn zero_is_included_on_request_and_points_are_widened() {
        let f = Focal::new(&SpectralBounds::real(2.0, 4.0).unwrap(), true, false).unwrap();
        assert_eq!(f.interval.endpoints(), (0.0, 4.0));
        let p = Focal::new(&SpectralBounds::real(3.0, 3.0).unwrap(), false, false).unwrap();
        assert!(p.interval.capacity() > 0.0 && (p.center.re - 3.0).abs() < 1e-12);
    }
}
