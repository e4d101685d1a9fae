//! Output times: SciPy-style grids, and their split into rays from 0 that the methods march
//! along.

use matexp_core::{Error, RealScalar, Result, Scalar};
use std::ops::Deref;

/// A list of output times for [`crate::ExpmvMethod::expmv_times`]: a SciPy-style
/// `linspace(start, stop, num)` grid or any list. Times may be negative, start anywhere and
/// come in any order; complex times must lie on one line through 0 (tⱼ = rⱼ·d with real rⱼ,
/// e.g. tⱼ = −i·τⱼ for e^{−iτⱼH}v). A grid dereferences to `&[S]`, so it is passed where a
/// slice of times is taken.
///
/// ```
/// use matexp_expmv::TimeGrid;
/// let g = TimeGrid::linspace(-1.0, 1.0, 5);
/// assert_eq!(&g[..], &[-1.0, -0.5, 0.0, 0.5, 1.0]);
/// assert_eq!(&TimeGrid::linspace(2.0, 3.0, 1)[..], &[2.0]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TimeGrid<S: Scalar> {
    times: Vec<S>,
}

impl<S: Scalar> TimeGrid<S> {
    /// `num` equally spaced times from `start` to `stop`, both included (SciPy's
    /// `expm_multiply(..., start, stop, num, endpoint=True)`); `num = 1` gives `[start]`,
    /// `num = 0` an empty grid.
    pub fn linspace(start: S, stop: S, num: usize) -> Self {
        let times = match num {
            0 => Vec::new(),
            1 => vec![start],
            _ => (0..num)
                .map(|i| {
                    if i + 1 == num {
                        stop
                    } else {
                        start + (stop - start) * S::from_f64(i as f64 / (num - 1) as f64)
                    }
                })
                .collect(),
        };
        TimeGrid { times }
    }

    /// The given times, in the given order.
    pub fn list(times: impl Into<Vec<S>>) -> Self {
        TimeGrid {
            times: times.into(),
        }
    }

    /// The times as a slice.
    pub fn as_slice(&self) -> &[S] {
        &self.times
    }
}

impl<S: Scalar> Deref for TimeGrid<S> {
    type Target = [S];
    fn deref(&self) -> &[S] {
        &self.times
    }
}

impl<S: Scalar> From<Vec<S>> for TimeGrid<S> {
    fn from(times: Vec<S>) -> Self {
        TimeGrid { times }
    }
}

/// Times split into at most two rays from 0: tⱼ = ±d·rⱼ with rⱼ ≥ 0 sorted ascending, and the
/// permutation back to the caller's order.
#[derive(Debug)]
pub(crate) struct Rays<S> {
    /// (scale, sorted |r|, the caller's indices of these times).
    rays: Vec<(S, Vec<f64>, Vec<usize>)>,
}

/// Splits `times` into rays; see [`TimeGrid`].
pub(crate) fn split_rays<S: Scalar>(times: &[S]) -> Result<Rays<S>> {
    if times.is_empty() {
        return Err(Error::invalid("times", "[]", "at least one time is needed"));
    }
    for (i, t) in times.iter().enumerate() {
        if !t.finite() {
            return Err(Error::invalid(
                "times",
                format!("times[{i}] = {t}"),
                "times must be finite",
            ));
        }
    }
    let far = times
        .iter()
        .map(|t| t.modulus().as_f64())
        .fold(0.0, f64::max);
    // The direction d of the line (unit modulus); any d when every time is 0.
    let d = times
        .iter()
        .find(|t| t.modulus().as_f64() == far && far > 0.0)
        .map(|t| t.to_c64() / far)
        .unwrap_or(matexp_core::c64::new(1.0, 0.0));
    let slack = 16.0 * S::Real::EPS.as_f64() * far;
    let mut pos: Vec<(f64, usize)> = Vec::new();
    let mut neg: Vec<(f64, usize)> = Vec::new();
    for (i, t) in times.iter().enumerate() {
        let r = t.to_c64() / d;
        if r.im.abs() > slack {
            return Err(Error::invalid(
                "times",
                format!("times[{i}] = {t}"),
                format!(
                    "complex times must lie on one line through 0 (tⱼ = rⱼ·d with real rⱼ; \
                     here d = {d}); call expmv once per time otherwise"
                ),
            ));
        }
        if r.re >= 0.0 {
            pos.push((r.re, i));
        } else {
            neg.push((-r.re, i));
        }
    }
    let mut rays = Vec::new();
    for (sign, mut list) in [(1.0, pos), (-1.0, neg)] {
        if list.is_empty() {
            continue;
        }
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        let scale = S::from_c64(d * sign);
        rays.push((
            scale,
            list.iter().map(|x| x.0).collect(),
            list.iter().map(|x| x.1).collect(),
        ));
    }
    Ok(Rays { rays })
}

impl<S: Scalar> Rays<S> {
    /// The caller's index of each time, in the order `run` computes them (ray by ray, each
    /// in order of |t|).
    pub(crate) fn order(&self) -> Vec<usize> {
        self.rays.iter().flat_map(|r| r.2.iter().copied()).collect()
    }

    /// Runs `f(scale, sorted times, outputs)` per ray on `out` rearranged into ray order, and
    /// puts the outputs back in the caller's order (swaps only: no copies of vectors).
    pub(crate) fn run<V>(
        &self,
        out: &mut [V],
        mut f: impl FnMut(S, &[f64], &mut [V]) -> Result<()>,
    ) -> Result<()> {
        let order = self.order();
        permute(out, &order);
        let mut start = 0;
        let mut result = Ok(());
        for (scale, rs, _) in &self.rays {
            let end = start + rs.len();
            result = f(*scale, rs, &mut out[start..end]);
            if result.is_err() {
                break;
            }
            start = end;
        }
        let mut inverse = vec![0; order.len()];
        for (i, &o) in order.iter().enumerate() {
            inverse[o] = i;
        }
        permute(out, &inverse);
        result
    }
}

/// Rearranges `xs` so that the new `xs[i]` is the old `xs[p[i]]` (p a permutation), by
/// swaps along the cycles of p.
fn permute<T>(xs: &mut [T], p: &[usize]) {
    let mut done = vec![false; xs.len()];
    for start in 0..xs.len() {
        if done[start] {
            continue;
        }
        let mut i = start;
        loop {
            done[i] = true;
            let j = p[i];
            if j == start {
                break;
            }
            xs.swap(i, j);
            i = j;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::c64;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn permutation_and_its_inverse_restore_the_order(seed in 0u64..1000, n in 1usize..12) {
            // A permutation from a seeded shuffle (Fisher–Yates with a small LCG).
            let mut p: Vec<usize> = (0..n).collect();
            let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for i in (1..n).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p.swap(i, (s >> 33) as usize % (i + 1));
            }
            let orig: Vec<usize> = (100..100 + n).collect();
            let mut xs = orig.clone();
            permute(&mut xs, &p);
            for i in 0..n {
                prop_assert_eq!(xs[i], orig[p[i]]);
            }
            let mut inv = vec![0; n];
            for (i, &o) in p.iter().enumerate() {
                inv[o] = i;
            }
            permute(&mut xs, &inv);
            prop_assert_eq!(xs, orig);
        }
    }

    #[test]
    fn real_times_split_by_sign_and_sort_by_magnitude() {
        let rays = split_rays(&[0.5, -2.0, 0.0, -1.0, 3.0]).unwrap();
        assert_eq!(rays.rays.len(), 2);
        assert_eq!(rays.rays[0].0, 1.0);
        assert_eq!(rays.rays[0].1, vec![0.0, 0.5, 3.0]);
        assert_eq!(rays.rays[0].2, vec![2, 0, 4]);
        assert_eq!(rays.rays[1].0, -1.0);
        assert_eq!(rays.rays[1].1, vec![1.0, 2.0]);
        assert_eq!(rays.rays[1].2, vec![3, 1]);
    }

    #[test]
    fn complex_times_on_a_line_are_accepted_and_others_rejected() {
        let mi = c64::new(0.0, -1.0);
        let rays = split_rays(&[mi * 2.0, mi * 0.5, -mi]).unwrap();
        assert_eq!(rays.rays[0].0, mi);
        assert_eq!(rays.rays[0].1, vec![0.5, 2.0]);
        assert_eq!(rays.rays[1].0, -mi);
        assert!(split_rays(&[c64::new(1.0, 0.0), c64::new(0.0, 1.0)]).is_err());
        assert!(split_rays::<f64>(&[]).is_err());
        assert!(split_rays(&[f64::NAN]).is_err());
    }
}
