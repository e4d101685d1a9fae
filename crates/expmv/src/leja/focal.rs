//! The focal interval: the segment whose Leja points interpolate, chosen from a box that
//! holds the spectrum.
//!
//! For a real box (Hermitian operators) the focal interval is the box itself. For a box
//! with both extents (non-normal operators, Gershgorin boxes) it is the segment along the
//! longer side, and the spectrum is assumed inside the ellipse with the segment's endpoints
//! as foci that passes through the box corners (the *real Leja point method* of Caliari,
//! Vianello & Bergamaschi 2004). Interpolation at the segment's Leja points converges on that
//! ellipse, at the rate of a segment whose capacity is the ellipse's, `(A + B)/2` for
//! semi-axes `A ≥ B`; substeps are sized with that capacity.
//!
//! **Real scalars, imaginary segment.** A real operator whose box is taller than wide (a
//! real skew-symmetric matrix: `re_min = re_max = 0`) gets the imaginary segment
//! `c + iγ·[−2, 2]` with `c` real, interpolated at *conjugate* Leja points
//! ([`symmetric_leja_points`]: `0, ±η₁, ±η₂, …` on [−2, 2]) in real arithmetic (Caliari,
//! Kandolf, Ostermann & Rainer, SIAM J. Sci. Comput. 38(3), 2016): see
//! `newton::substep_conjugate`. Only where that path is allowed (the adaptive method without
//! φ-columns); otherwise a real operator keeps the real axis, with the box enclosed in
//! `|Im z| ≤ max(|im_min|, |im_max|)`.

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
    /// An imaginary segment with a real center for real scalars: conjugate Leja points and
    /// the real-arithmetic Newton recurrence.
    pub conjugate: bool,
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
    /// arithmetic; with real arithmetic, `conjugate` allows an imaginary segment (interpolated
    /// at conjugate Leja points).
    pub(crate) fn new(
        bounds: &SpectralBounds,
        include_zero: bool,
        complex: bool,
        conjugate: bool,
    ) -> Result<Focal> {
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
        let conjugate = !complex && conjugate && wim > wre;
        let axis = if (complex || conjugate) && wim > wre {
            Axis::Imaginary
        } else {
            Axis::Real
        };
        let (mut lo, mut hi, mut across_mid, mut across) = match axis {
            Axis::Real => (re_min, re_max, im_min / 2.0 + im_max / 2.0, wim / 2.0),
            Axis::Imaginary => (im_min, im_max, re_min / 2.0 + re_max / 2.0, wre / 2.0),
        };
        if conjugate {
            // A real operator's spectrum is symmetric about the real axis: the segment is
            // symmetric too, so that its Leja points come in conjugate pairs.
            hi = im_min.abs().max(im_max.abs());
            lo = -hi;
        } else if !complex {
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
            conjugate,
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

/// The first `n` *conjugate* (symmetric) Leja points of [−2, 2]: `ξ₀ = 0`, then pairs
/// `ξ_{2m−1} = η_m`, `ξ_{2m} = −η_m` with `η_m ∈ (0, 2]` maximizing
/// `∏_{j<2m−1}|η − ξ_j|` (`η₁ = 2`). Mapped by `ξ ↦ c + iγξ`, the node set of every even
/// degree is closed under conjugation, so the interpolant of `e^{τz}` at it is a real
/// polynomial. Computed by maximizing the log-product on a grid of 2¹³ cells of [0, 2]
/// followed by a golden-section search around the best cell; cached for the process.
pub(crate) fn symmetric_leja_points(n: usize) -> Result<std::sync::Arc<Vec<f64>>> {
    use std::sync::{Arc, Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<Arc<Vec<f64>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Arc::new(Vec::new())));
    let mut guard = cache
        .lock()
        .map_err(|_| Error::Unsupported("conjugate Leja point cache poisoned".into()))?;
    if guard.len() < n {
        *guard = Arc::new(compute_symmetric_leja(n.max(2 * guard.len())));
    }
    if guard.len() == n {
        return Ok(Arc::clone(&guard));
    }
    Ok(Arc::new(guard[..n].to_vec()))
}

fn compute_symmetric_leja(n: usize) -> Vec<f64> {
    const GRID: usize = 1 << 13;
    let mut pts = vec![0.0f64];
    let xs: Vec<f64> = (0..=GRID).map(|g| 2.0 * g as f64 / GRID as f64).collect();
    // log ∏_j |x − ξ_j| on the grid, for the points so far.
    let mut logp: Vec<f64> = xs.iter().map(|&x| x.abs().ln()).collect();
    let log_at = |pts: &[f64], x: f64| pts.iter().map(|&p| (x - p).abs().ln()).sum::<f64>();
    while pts.len() < n {
        let (g, _) = logp
            .iter()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &v)| {
                if v > bv { (i, v) } else { (bi, bv) }
            });
        // Golden-section search in the neighbouring cells (the log-product is smooth and
        // unimodal between consecutive nodes).
        let (mut a, mut b) = (xs[g.saturating_sub(1)], xs[(g + 1).min(GRID)]);
        let r = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..40 {
            let (c, d) = (b - r * (b - a), a + r * (b - a));
            if log_at(&pts, c) >= log_at(&pts, d) {
                b = d;
            } else {
                a = c;
            }
        }
        let mut eta = 0.5 * (a + b);
        let at = log_at(&pts, eta);
        if at.is_nan() || at < logp[g] {
            eta = xs[g];
        }
        for (lp, &x) in logp.iter_mut().zip(&xs) {
            *lp += (x - eta).abs().ln() + (x + eta).abs().ln();
        }
        pts.push(eta);
        pts.push(-eta);
    }
    pts.truncate(n);
    pts
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
        let f = Focal::new(
            &SpectralBounds::real(-8.0, 0.0).unwrap(),
            false,
            false,
            false,
        )
        .unwrap();
        assert_eq!(f.center, c64::new(-4.0, 0.0));
        assert_eq!(f.scale, c64::new(2.0, 0.0));
        assert_eq!(f.capacity, 2.0);
        let s = f.step::<f64>(2.0, 1.0);
        assert_eq!((s.alpha, s.shift), (0.5, 0.0));
    }

    #[test]
    fn imaginary_box_gives_an_imaginary_segment_for_complex_scalars() {
        let b = SpectralBounds::new(0.0, 0.0, -3.0, 5.0).unwrap();
        let f = Focal::new(&b, false, true, false).unwrap();
        assert_eq!(f.center, c64::new(0.0, 1.0));
        assert_eq!(f.scale, c64::new(0.0, 2.0));
        // Same step as Interval::shifted_step on the imaginary axis.
        let k = Interval::imaginary(-3.0, 5.0).unwrap();
        let want = k.shifted_step::<c64>(0.5, c64::new(1.0, 0.0)).unwrap();
        let got = f.step::<c64>(0.5, c64::new(1.0, 0.0));
        assert!((want.alpha - got.alpha).norm() < 1e-15);
        assert!((want.shift - got.shift).norm() < 1e-15);
        // Real scalars keep a real segment around the imaginary spectrum.
        let r = Focal::new(&b, false, false, false).unwrap();
        assert_eq!(r.scale.im, 0.0);
        assert!(r.capacity >= 2.5);
    }

    #[test]
    fn conjugate_points_and_the_imaginary_segment_for_real_scalars() {
        let x = symmetric_leja_points(9).unwrap();
        assert_eq!(&x[..3], &[0.0, 2.0, -2.0]);
        // After 0, ±2: the maximum of x·(4 − x²) on [0, 2], at 2/√3.
        // (to the √ε of a search on a flat maximum)
        assert!((x[3] - 2.0 / 3f64.sqrt()).abs() < 1e-8, "{x:?}");
        for m in 0..4 {
            assert_eq!(x[2 * m + 1], -x[2 * m + 2]);
        }
        let b = SpectralBounds::new(-1.0, -1.0, -3.0, 5.0).unwrap();
        let f = Focal::new(&b, false, false, true).unwrap();
        assert!(f.conjugate);
        // Symmetric about the real axis, centered at the real part −1.
        assert_eq!(f.center, c64::new(-1.0, 0.0));
        assert_eq!(f.scale, c64::new(0.0, 2.5));
        // Not allowed (φ, the thesis's method): the real axis as before.
        let r = Focal::new(&b, false, false, false).unwrap();
        assert!(!r.conjugate && r.scale.im == 0.0);
        // A box wider than tall stays on the real axis.
        let w = SpectralBounds::new(-4.0, 4.0, -1.0, 1.0).unwrap();
        assert!(!Focal::new(&w, false, false, true).unwrap().conjugate);
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
        let f = Focal::new(&SpectralBounds::real(2.0, 4.0).unwrap(), true, false, false).unwrap();
        assert_eq!(f.interval.endpoints(), (0.0, 4.0));
        let p = Focal::new(
            &SpectralBounds::real(3.0, 3.0).unwrap(),
            false,
            false,
            false,
        )
        .unwrap();
        assert!(p.interval.capacity() > 0.0 && (p.center.re - 3.0).abs() < 1e-12);
    }
}
