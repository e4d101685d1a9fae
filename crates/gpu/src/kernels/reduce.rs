//! Reductions on the device: dot products, overflow-safe Euclidean norms, max-abs.
//!
//! Each reduction is two launches (a grid-stride partial pass writing one row per block,
//! and a one-block finish pass) followed by an asynchronous copy of a few doubles to pinned
//! host memory: the host waits once, when it asks for the value. Accumulation is in double
//! precision for every scalar type, and the summation order depends only on the device's
//! SM count, so results are reproducible.
//!
//! The norm follows Blue's algorithm (LAPACK `dnrm2`, 2017): squares are accumulated in
//! three power-of-two-scaled bins (tiny, mid-range, huge) so that neither overflow (values
//! of 10¹⁹⁵ and beyond) nor underflow of the squares loses accuracy, in a single pass; the
//! bins are combined on the host by [`ssq_norm`]. The error is a few ulps of `f64` before
//! rounding to the vector's precision.

use crate::device::{Device, Finish, PendingSlot, SLOT_WIDTH, arg};
use matexp_core::{RealScalar, Result, Scalar, c64};
use matexp_cuda_sys::{
    MX_MAX_PARTIALS, MX_REDUCE_THREADS, MX_SSQ_SBIG_EXP2, MX_SSQ_SSML_EXP2, MxSsqPartial,
};
use std::fmt;
use std::sync::Arc;

/// Combines Blue's three scaled sums of squares into √(Σ aᵢ²), as LAPACK's `dnrm2` does:
/// when huge components exist the mid-range sum is folded into them (smaller terms cannot
/// matter), when only tiny and mid-range exist both are unscaled and added as
/// `ymax·√(1 + (ymin/ymax)²)`. NaN propagates; an infinite component gives +∞.
pub fn ssq_norm(s: &MxSsqPartial) -> f64 {
    let sbig = 2f64.powi(MX_SSQ_SBIG_EXP2);
    let ssml = 2f64.powi(MX_SSQ_SSML_EXP2 as i32);
    let (mut abig, amed, asml) = (s.big, s.medium, s.small);
    if abig > 0.0 {
        if amed > 0.0 || amed.is_nan() {
            abig += (amed * sbig) * sbig;
        }
        abig.sqrt() / sbig
    } else if asml > 0.0 {
        if amed > 0.0 || amed.is_nan() {
            let amed = amed.sqrt();
            let asml = asml.sqrt() / ssml;
            let (ymin, ymax) = if asml > amed {
                (amed, asml)
            } else {
                (asml, amed)
            };
            ymax * (1.0 + (ymin / ymax) * (ymin / ymax)).sqrt()
        } else {
            asml.sqrt() / ssml
        }
    } else {
        amed.sqrt()
    }
}

/// Adds two partial sums of squares (they are sums, so partials of blocks or devices add).
pub fn ssq_add(a: MxSsqPartial, b: MxSsqPartial) -> MxSsqPartial {
    MxSsqPartial {
        small: a.small + b.small,
        medium: a.medium + b.medium,
        big: a.big + b.big,
    }
}

/// A reduction result still on its way from one or more devices. [`Pending::wait`] blocks
/// until it has arrived (one host synchronization per device involved); until then the host
/// is free to queue more work, which is how hot loops avoid a round trip per iteration.
pub struct Pending<T> {
    slots: Vec<PendingSlot>,
    combine: fn(&[[f64; SLOT_WIDTH]]) -> T,
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pending({} device(s))", self.slots.len())
    }
}

impl<T> Pending<T> {
    pub(crate) fn new(slots: Vec<PendingSlot>, combine: fn(&[[f64; SLOT_WIDTH]]) -> T) -> Self {
        Pending { slots, combine }
    }

    /// Whether every device has delivered its part (never blocks).
    pub fn is_ready(&self) -> bool {
        self.slots.iter().all(PendingSlot::is_ready)
    }

    /// Waits for the result. Asynchronous kernel faults of the work before it surface here.
    pub fn wait(self) -> Result<T> {
        let parts = self
            .slots
            .iter()
            .map(PendingSlot::wait)
            .collect::<Result<Vec<_>>>()?;
        Ok((self.combine)(&parts))
    }
}

pub(crate) fn combine_norm<R: RealScalar>(parts: &[[f64; SLOT_WIDTH]]) -> R {
    let total = parts.iter().fold(MxSsqPartial::default(), |acc, p| {
        ssq_add(
            acc,
            MxSsqPartial {
                small: p[0],
                medium: p[1],
                big: p[2],
            },
        )
    });
    R::from_f64(ssq_norm(&total))
}

pub(crate) fn combine_dot<S: Scalar>(parts: &[[f64; SLOT_WIDTH]]) -> S {
    let (re, im) = parts
        .iter()
        .fold((0.0, 0.0), |(r, i), p| (r + p[0], i + p[1]));
    S::from_c64(c64::new(re, im))
}

pub(crate) fn combine_max<R: RealScalar>(parts: &[[f64; SLOT_WIDTH]]) -> R {
    let m = parts.iter().fold(0.0f64, |m, p| {
        if m.is_nan() || p[0].is_nan() {
            f64::NAN
        } else {
            m.max(p[0])
        }
    });
    R::from_f64(m)
}

/// Queues the partial and finish passes of Σ conj(xᵢ)·yᵢ over `n` elements at `x`, `y`.
pub(crate) fn dot_slot<S: Scalar>(
    device: &Arc<Device>,
    n: usize,
    x: u64,
    y: u64,
) -> Result<PendingSlot> {
    let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
    device.reduce(Finish::Sum(2), |mut partials| {
        let (mut n, mut x, mut y) = (n as u64, x, y);
        // SAFETY: x and y hold n elements of S; partials holds grid rows of 2 doubles.
        unsafe {
            device.launch(
                &format!("dot_partial_{}", S::NAME),
                grid,
                MX_REDUCE_THREADS,
                &mut [arg(&mut n), arg(&mut x), arg(&mut y), arg(&mut partials)],
            )?
        };
        Ok(grid)
    })
}

/// Queues Blue's partial sums of squares of `n` elements at `x`, and their finish.
pub(crate) fn nrm2_slot<S: Scalar>(device: &Arc<Device>, n: usize, x: u64) -> Result<PendingSlot> {
    let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
    device.reduce(Finish::Sum(3), |mut partials| {
        let (mut n, mut x) = (n as u64, x);
        // SAFETY: x holds n elements of S; partials holds grid rows of 3 doubles.
        unsafe {
            device.launch(
                &format!("nrm2_partial_{}", S::NAME),
                grid,
                MX_REDUCE_THREADS,
                &mut [arg(&mut n), arg(&mut x), arg(&mut partials)],
            )?
        };
        Ok(grid)
    })
}

/// Queues max |xᵢ| over `n` elements at `x`.
pub(crate) fn amax_slot<S: Scalar>(device: &Arc<Device>, n: usize, x: u64) -> Result<PendingSlot> {
    let grid = device.grid_for(n, MX_REDUCE_THREADS, MX_MAX_PARTIALS);
    device.reduce(Finish::Max, |mut partials| {
        let (mut n, mut x) = (n as u64, x);
        // SAFETY: x holds n elements of S; partials holds grid doubles.
        unsafe {
            device.launch(
                &format!("amax_partial_{}", S::NAME),
                grid,
                MX_REDUCE_THREADS,
                &mut [arg(&mut n), arg(&mut x), arg(&mut partials)],
            )?
        };
        Ok(grid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::norms;
    use proptest::prelude::*;

    /// Blue's binning done on the host, as the kernels do it.
    fn bin(x: &[f64]) -> MxSsqPartial {
        let tbig = 2f64.powi(matexp_cuda_sys::MX_SSQ_TBIG_EXP2 as i32);
        let tsml = 2f64.powi(matexp_cuda_sys::MX_SSQ_TSML_EXP2);
        let sbig = 2f64.powi(MX_SSQ_SBIG_EXP2);
        let ssml = 2f64.powi(MX_SSQ_SSML_EXP2 as i32);
        let mut s = MxSsqPartial::default();
        for &a in x {
            if a.abs() > tbig {
                s.big += (a * sbig) * (a * sbig);
            } else if a.abs() < tsml {
                s.small += (a * ssml) * (a * ssml);
            } else {
                s.medium += a * a;
            }
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Against the CPU backend's norm (an independent two-pass rescaling), across the
        /// whole exponent range, split into several partials as blocks and devices are.
        #[test]
        fn binned_norm_matches_the_cpu_norm(
            mant in proptest::collection::vec(-1.0f64..1.0, 1..200),
            exps in proptest::collection::vec(-320i32..300, 1..200),
            split in 1usize..5,
        ) {
            let x: Vec<f64> = mant.iter().zip(exps.iter().cycle())
                .map(|(m, e)| m * 10f64.powi(*e)).collect();
            let chunk = x.len().div_ceil(split);
            let total = x.chunks(chunk).map(bin).fold(MxSsqPartial::default(), ssq_add);
            let got = ssq_norm(&total);
            let want = norms::nrm2(&x);
            if want == 0.0 {
                prop_assert_eq!(got, 0.0);
            } else {
                prop_assert!(((got - want) / want).abs() < 1e-14, "got {got:e} want {want:e}");
            }
        }
    }

    #[test]
    fn norms_of_graph_centralities_do_not_overflow() {
        // e^A·1 on LiveJournal reached 1.89e195; its square is not a double.
        let x = vec![1.89e195, 3.0e194, 1.0, 1e-200];
        let got = ssq_norm(&bin(&x));
        let want = 1.89e195 * (1.0 + (3.0e194f64 / 1.89e195).powi(2)).sqrt();
        assert!(((got - want) / want).abs() < 1e-15, "{got:e}");
        let tiny = vec![3e-200, 4e-200];
        assert!((ssq_norm(&bin(&tiny)) / 5e-200 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn nan_and_infinity_propagate() {
        assert!(ssq_norm(&bin(&[1.0, f64::NAN, 1e300])).is_nan());
        assert!(ssq_norm(&bin(&[f64::NAN, 1e-300])).is_nan());
        assert_eq!(ssq_norm(&bin(&[1.0, f64::INFINITY])), f64::INFINITY);
        assert_eq!(ssq_norm(&MxSsqPartial::default()), 0.0);
    }

    #[test]
    fn device_partials_combine_like_one_sum() {
        let parts = [[1.0, 9.0, 0.0, 0.0], [0.0, 16.0, 0.0, 0.0]];
        assert_eq!(combine_norm::<f64>(&parts), 5.0);
        let d: c64 = combine_dot(&[[1.0, 2.0, 0.0, 0.0], [0.5, -1.0, 0.0, 0.0]]);
        assert_eq!(d, c64::new(1.5, 1.0));
        assert_eq!(combine_dot::<f64>(&[[1.0, 2.0, 0.0, 0.0]]), 1.0);
        assert!(combine_max::<f32>(&[[1.0; 4], [f64::NAN; 4], [3.0; 4]]).is_nan());
        assert_eq!(combine_max::<f64>(&[[1.0; 4], [3.0; 4]]), 3.0);
    }
}
