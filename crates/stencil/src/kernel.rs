//! The CPU kernel: one grid row of `A·x` at a time.
//!
//! A row is the `N` points of fixed (iy, iz). Its product reads the row itself and up to four
//! neighbour rows (iy ± 1, iz ± 1), each contiguous, so the inner loops are unit-stride and
//! vectorize. Rows are handed out to rayon tasks in contiguous runs in z-major order: a task
//! marches along z through a slab of planes, and the planes iz − 1, iz, iz + 1 it reads are
//! the ones it read a moment ago, still in cache (the CPU form of the GPU's 2.5D blocking).
//! Row sources are a closure, so the same kernel serves one domain and a z-partition whose
//! edge planes come from halo buffers.

use crate::grid::{Boundary, Dim, Grid};
use matexp_core::RealScalar;

/// The neighbour index of axis index `i` in direction `forward` on an axis of `n` points:
/// `None` where the neighbour is a Dirichlet boundary value (it contributes nothing to the
/// linear part), the point itself for Neumann (zero face flux), the wrapped index for
/// periodic grids. Frame grids never ask at the edge.
#[inline]
pub(crate) fn neighbour(kind: Boundary, i: usize, n: usize, forward: bool) -> Option<usize> {
    let inside = if forward { i + 1 < n } else { i > 0 };
    if inside {
        return Some(if forward { i + 1 } else { i - 1 });
    }
    match kind {
        Boundary::Dirichlet | Boundary::Frame => None,
        Boundary::Neumann => Some(i),
        Boundary::Periodic => Some(if forward { 0 } else { n - 1 }),
    }
}

/// How the coefficient is stored for the kernel.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CoefView<'a, S> {
    /// `D = 1`.
    Unit,
    /// One table per z-plane, shared by every plane (`D` depends on x and y only).
    Plane(&'a [S]),
    /// A value per grid point.
    Field(&'a [S]),
}

/// Everything the row kernel needs besides the data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a, S> {
    pub grid: Grid,
    pub inv_h2: S,
    pub coef: CoefView<'a, S>,
}

impl<S: RealScalar> Ctx<'_, S> {
    /// Row `(iz, iy)` of `A·x` into `out` (`N` values). `rows(iz, iy)` returns any grid row of
    /// `x` the stencil touches.
    #[inline]
    pub(crate) fn row_ax<'x>(
        &self,
        iz: usize,
        iy: usize,
        rows: &impl Fn(usize, usize) -> &'x [S],
        out: &mut [S],
    ) where
        S: 'x,
    {
        let g = &self.grid;
        let n = g.n();
        let kind = g.boundary();
        let three = g.dim() == Dim::Three;
        if kind == Boundary::Frame && (g.on_frame(iy) || (three && g.on_frame(iz))) {
            out.fill(S::zero());
            return;
        }
        let c = rows(iz, iy);
        let mut nbs: [&[S]; 4] = [c; 4];
        let mut k = 0;
        for forward in [false, true] {
            if let Some(j) = neighbour(kind, iy, n, forward) {
                nbs[k] = rows(iz, j);
                k += 1;
            }
            if three {
                if let Some(j) = neighbour(kind, iz, n, forward) {
                    nbs[k] = rows(j, iy);
                    k += 1;
                }
            }
        }
        let diag = S::from_f64(2.0 * g.dim().axes() as f64);
        laplacian_row(kind, c, &nbs[..k], diag, out);
        if kind == Boundary::Frame {
            out[0] = S::zero();
            out[n - 1] = S::zero();
        }
        match self.coef {
            CoefView::Unit => out.iter_mut().for_each(|v| *v *= self.inv_h2),
            CoefView::Plane(t) => scale_row(out, &t[iy * n..(iy + 1) * n], self.inv_h2),
            CoefView::Field(t) => {
                let o = (iz * n + iy) * n;
                scale_row(out, &t[o..o + n], self.inv_h2)
            }
        }
    }
}

#[inline]
fn scale_row<S: RealScalar>(out: &mut [S], d: &[S], inv_h2: S) {
    for (o, &d) in out.iter_mut().zip(d) {
        *o *= d * inv_h2;
    }
}

/// `out[i] = c[i−1] + c[i+1] + Σ_r nbs[r][i] − diag·c[i]`, with the x-neighbours outside the
/// row resolved by the boundary kind (Dirichlet and frame: 0, Neumann: the point, periodic:
/// wrap): one line of `h²·Δ_h`, the sum in the order every product of the crate uses
/// (`(y− + z−) + (y+ + z+)` for four row neighbours), so that an operator built on lines of
/// another layout (a distributed slab) gives the same bits. A frame line's end points are the
/// caller's to zero.
#[inline]
pub fn laplacian_row<S: RealScalar>(kind: Boundary, c: &[S], nbs: &[&[S]], diag: S, out: &mut [S]) {
    let n = c.len();
    let out = &mut out[..n];
    // Rows with all four (3D) or two (2D) row neighbours, the common case, in one pass.
    match *nbs {
        [a, b, d, e] => {
            let (a, b, d, e) = (&a[..n], &b[..n], &d[..n], &e[..n]);
            for i in 0..n {
                out[i] = (a[i] + b[i]) + (d[i] + e[i]) - diag * c[i];
            }
        }
        [a, b] => {
            let (a, b) = (&a[..n], &b[..n]);
            for i in 0..n {
                out[i] = (a[i] + b[i]) - diag * c[i];
            }
        }
        _ => {
            for (o, &v) in out.iter_mut().zip(c) {
                *o = -diag * v;
            }
            for nb in nbs {
                for (o, &v) in out.iter_mut().zip(&nb[..n]) {
                    *o += v;
                }
            }
        }
    }
    if n > 1 {
        for i in 1..n - 1 {
            out[i] += c[i - 1] + c[i + 1];
        }
        out[0] += c[1];
        out[n - 1] += c[n - 2];
    }
    let (left, right) = match kind {
        Boundary::Dirichlet | Boundary::Frame => (S::zero(), S::zero()),
        Boundary::Neumann => (c[0], c[n - 1]),
        Boundary::Periodic => (c[n - 1], c[0]),
    };
    out[0] += left;
    out[n - 1] += right;
}

/// Rows per rayon task: contiguous runs of about an eighth of a thread's share, so tasks
/// march through whole slabs of planes and still balance.
pub(crate) fn rows_per_task(total_rows: usize) -> usize {
    let tasks = 8 * rayon::current_num_threads();
    total_rows.div_ceil(tasks).max(1)
}

/// Sum of squares in `f64` (`f32` data cannot overflow it; `f64` data above 1e154 can, and
/// the caller then recomputes the norm with the overflow-safe routine).
#[inline]
pub(crate) fn sum_sq<S: RealScalar>(v: &[S]) -> f64 {
    v.iter()
        .map(|&x| {
            let x = x.as_f64();
            x * x
        })
        .sum()
}

/// The 2-norm from a plain sum of squares when that is accurate, else the overflow-safe
/// scaled norm of the whole vector.
pub(crate) fn norm_from_sum_sq<S: RealScalar>(ss: f64, v: &[S]) -> S {
    // Below 1e-280 the squares of tiny entries were flushed; above f64::MAX they overflowed.
    if ss.is_finite() && (ss == 0.0 || ss > 1e-280) {
        if ss == 0.0 && v.iter().any(|x| *x != S::zero()) {
            return matexp_core::norms::nrm2(v);
        }
        S::from_f64(ss.sqrt())
    } else {
        matexp_core::norms::nrm2(v)
    }
}
