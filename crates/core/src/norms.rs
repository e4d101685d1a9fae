//! Reductions and BLAS-1 on host slices, parallel with rayon for long vectors.
//!
//! The Euclidean norm is overflow-safe: graph centralities reach 10¹⁹⁵, whose square is not
//! representable. The fast path sums squares in `f64`; only when that overflows or underflows
//! does a second pass rescale by max|xᵢ| (the cost of the norm then doubles, never the error).

use crate::scalar::{RealScalar, Scalar};
use rayon::prelude::*;

/// Below this length, loops run on the calling thread: spawning costs more than it saves.
pub const PAR_THRESHOLD: usize = 1 << 15;
const CHUNK: usize = 1 << 13;

fn sum_sq_f64<S: Scalar>(x: &[S]) -> f64 {
    let part = |c: &[S]| -> f64 {
        c.iter()
            .map(|v| {
                let (re, im) = (v.re().as_f64(), v.im().as_f64());
                re * re + im * im
            })
            .sum()
    };
    if x.len() < PAR_THRESHOLD {
        part(x)
    } else {
        x.par_chunks(CHUNK).map(part).sum()
    }
}

/// max over i of max(|re xᵢ|, |im xᵢ|), in `f64`; NaN if any component is NaN.
fn max_component<S: Scalar>(x: &[S]) -> f64 {
    let part = |c: &[S]| -> f64 {
        c.iter().fold(0.0f64, |m, v| {
            let a = v.re().as_f64().abs().max(v.im().as_f64().abs());
            if a.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(a)
            }
        })
    };
    let fold = |a: f64, b: f64| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    };
    if x.len() < PAR_THRESHOLD {
        part(x)
    } else {
        x.par_chunks(CHUNK).map(part).reduce(|| 0.0, fold)
    }
}

/// ‖x‖₂ without overflow or harmful underflow. Returns NaN if `x` holds a NaN and +∞ if it
/// holds an infinity. Accuracy: a few ulps of `f64` before rounding to `S::Real`.
pub fn nrm2<S: Scalar>(x: &[S]) -> S::Real {
    let s = sum_sq_f64(x);
    // 1e-290 keeps every square of a normal f64 that contributes above the rounding level.
    if s.is_finite() && (s > 1e-290 || s == 0.0 && max_component(x) == 0.0) {
        return S::Real::from_f64(s.sqrt());
    }
    if s.is_nan() {
        return S::Real::from_f64(f64::NAN);
    }
    let m = max_component(x);
    if m.is_nan() || m == 0.0 || m.is_infinite() {
        return S::Real::from_f64(m);
    }
    // Divide rather than multiply by 1/m: for m below 1/f64::MAX (deep subnormals) the
    // reciprocal overflows to infinity.
    let part = |c: &[S]| -> f64 {
        c.iter()
            .map(|v| {
                let (re, im) = (v.re().as_f64() / m, v.im().as_f64() / m);
                re * re + im * im
            })
            .sum()
    };
    let t: f64 = if x.len() < PAR_THRESHOLD {
        part(x)
    } else {
        x.par_chunks(CHUNK).map(part).sum()
    };
    S::Real::from_f64(m * t.sqrt())
}

/// max |xᵢ| (modulus); NaN if any entry is NaN.
pub fn amax<S: Scalar>(x: &[S]) -> S::Real {
    let part = |c: &[S]| -> S::Real {
        c.iter().fold(S::Real::zero(), |m, v| {
            let a = v.modulus();
            if a.is_nan() || m.is_nan() {
                S::Real::nan()
            } else {
                m.max(a)
            }
        })
    };
    if x.len() < PAR_THRESHOLD {
        part(x)
    } else {
        x.par_chunks(CHUNK).map(part).reduce(S::Real::zero, |a, b| {
            if a.is_nan() || b.is_nan() {
                S::Real::nan()
            } else {
                a.max(b)
            }
        })
    }
}

/// Σ conj(xᵢ)·yᵢ.
pub fn dot<S: Scalar>(x: &[S], y: &[S]) -> S {
    debug_assert_eq!(x.len(), y.len());
    let part = |(a, b): (&[S], &[S])| -> S { a.iter().zip(b).map(|(u, v)| u.conj() * *v).sum() };
    if x.len() < PAR_THRESHOLD {
        part((x, y))
    } else {
        x.par_chunks(CHUNK).zip(y.par_chunks(CHUNK)).map(part).sum()
    }
}

/// y ← α·x + β·y. When β = 0, y is overwritten without being read (so NaN in y is not
/// propagated, the BLAS convention).
pub fn axpby<S: Scalar>(alpha: S, x: &[S], beta: S, y: &mut [S]) {
    debug_assert_eq!(x.len(), y.len());
    let f = |(yc, xc): (&mut [S], &[S])| {
        if beta == S::zero() {
            for (yi, xi) in yc.iter_mut().zip(xc) {
                *yi = alpha * *xi;
            }
        } else if beta == S::one() {
            for (yi, xi) in yc.iter_mut().zip(xc) {
                *yi += alpha * *xi;
            }
        } else {
            for (yi, xi) in yc.iter_mut().zip(xc) {
                *yi = alpha * *xi + beta * *yi;
            }
        }
    };
    if x.len() < PAR_THRESHOLD {
        f((y, x))
    } else {
        y.par_chunks_mut(CHUNK).zip(x.par_chunks(CHUNK)).for_each(f)
    }
}

/// y ← Σⱼ cⱼ·xⱼ (y not read), chunk by chunk so that each xⱼ is read once and y written
/// once; the terms are added in order j = 0, 1, … as repeated [`axpby`] would.
pub fn combine<S: Scalar>(coeffs: &[S], xs: &[&[S]], y: &mut [S]) {
    debug_assert_eq!(coeffs.len(), xs.len());
    let f = |(start, yc): (usize, &mut [S])| {
        yc.iter_mut().for_each(|v| *v = S::zero());
        let end = start + yc.len();
        for (&c, x) in coeffs.iter().zip(xs) {
            for (yi, xi) in yc.iter_mut().zip(&x[start..end]) {
                *yi += c * *xi;
            }
        }
    };
    if y.len() < PAR_THRESHOLD {
        f((0, y))
    } else {
        y.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(i, yc)| f((i * CHUNK, yc)))
    }
}

/// x ← α·x.
pub fn scal<S: Scalar>(alpha: S, x: &mut [S]) {
    let f = |c: &mut [S]| c.iter_mut().for_each(|v| *v *= alpha);
    if x.len() < PAR_THRESHOLD {
        f(x)
    } else {
        x.par_chunks_mut(CHUNK).for_each(f)
    }
}

/// Index and value of the first non-finite entry, if any.
pub fn first_non_finite<S: Scalar>(x: &[S]) -> Option<(usize, S)> {
    x.iter().position(|v| !v.finite()).map(|i| (i, x[i]))
}

use num_traits::{Float, Zero};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{c32, c64};
    use proptest::prelude::*;

    fn naive(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    proptest! {
        #[test]
        fn nrm2_matches_naive_in_range(v in proptest::collection::vec(-1e3f64..1e3, 0..200)) {
            let a = nrm2(&v);
            let b = naive(&v);
            prop_assert!((a - b).abs() <= 1e-14 * b.max(1e-300));
        }

        #[test]
        fn nrm2_is_scale_invariant_across_the_range(
            v in proptest::collection::vec(0.1f64..10.0, 1..100), e in -300i32..300
        ) {
            let s = 10f64.powi(e);
            let scaled: Vec<f64> = v.iter().map(|x| x * s).collect();
            let r = nrm2(&scaled) / (nrm2(&v) * s);
            prop_assert!((r - 1.0).abs() < 1e-13, "ratio {r} at 1e{e}");
        }
    }

    #[test]
    fn nrm2_handles_huge_tiny_nan_inf_and_long_vectors() {
        assert!((nrm2(&[3e200f64, 4e200]) / 5e200 - 1.0).abs() < 1e-15);
        assert!((nrm2(&[3e-200f64, 4e-200]) / 5e-200 - 1.0).abs() < 1e-15);
        let sub = [3e-310f64, -4e-310];
        assert!((nrm2(&sub) / 5e-310 - 1.0).abs() < 1e-4, "{}", nrm2(&sub));
        assert_eq!(nrm2(&[f64::from_bits(1)]), f64::from_bits(1));
        assert!(nrm2(&[1.0, f64::NAN]).is_nan());
        assert_eq!(nrm2(&[1.0, f64::INFINITY]), f64::INFINITY);
        assert_eq!(nrm2::<f64>(&[]), 0.0);
        assert_eq!(nrm2(&[0.0f64; 5]), 0.0);
        let long = vec![c64::new(1e195, -1e195); 100_000];
        let n = nrm2(&long);
        assert!((n / (1e195 * 2f64.sqrt() * 100_000f64.sqrt()) - 1.0).abs() < 1e-13);
        let long32 = vec![c32::new(3e35, 4e35); 40_000];
        assert!((nrm2(&long32) / (5e35 * 200.0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn dot_conjugates_the_first_argument() {
        let x = vec![c64::new(0.0, 1.0); 50_000];
        let y = vec![c64::new(0.0, 1.0); 50_000];
        assert_eq!(dot(&x, &y), c64::new(50_000.0, 0.0));
    }

    #[test]
    fn axpby_with_zero_beta_ignores_nan_in_y() {
        let x = vec![1.0f64; 10];
        let mut y = vec![f64::NAN; 10];
        axpby(2.0, &x, 0.0, &mut y);
        assert!(y.iter().all(|&v| v == 2.0));
        axpby(1.0, &x, 3.0, &mut y);
        assert!(y.iter().all(|&v| v == 7.0));
    }
}
