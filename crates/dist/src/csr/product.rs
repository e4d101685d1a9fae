//! One distributed product: pack, exchange while the interior rows run, boundary rows.

use super::DistCsr;
use crate::backend::{DistBackend, DistVector};
use crate::halo;
use matexp_core::{CpuBackend, Result, Scalar};
use rayon::prelude::*;

/// Rows per parallel task of the local product.
const CHUNK: usize = 2048;

/// Σ_k vals[k]·x(cols[k]) with two interleaved accumulators, exactly as `matexp_sparse`'s
/// row kernel (so that the distributed product rounds alike).
#[inline(always)]
fn row_dot<S: Scalar>(cols: &[u32], vals: &[S], x: impl Fn(usize) -> S) -> S {
    let mut a0 = S::zero();
    let mut a1 = S::zero();
    let mut ci = cols.chunks_exact(2);
    let mut vi = vals.chunks_exact(2);
    for (c, v) in (&mut ci).zip(&mut vi) {
        a0 += v[0] * x(c[0] as usize);
        a1 += v[1] * x(c[1] as usize);
    }
    if let (Some(c), Some(v)) = (ci.remainder().first(), vi.remainder().first()) {
        a0 += *v * x(*c as usize);
    }
    a0 + a1
}

impl<S: Scalar> DistCsr<S> {
    /// y ← α·(rows of `pass`)·x + β·y over this rank's rows: `boundary = false` the rows
    /// with owned columns only, `true` the others (reading ghosts).
    fn rows_pass(&self, boundary: bool, alpha: S, x: &[S], ghosts: &[S], beta: S, y: &mut [S]) {
        let nl = x.len();
        let at = |c: usize| if c < nl { x[c] } else { ghosts[c - nl] };
        y.par_chunks_mut(CHUNK).enumerate().for_each(|(b, yc)| {
            for (off, yi) in yc.iter_mut().enumerate() {
                let i = b * CHUNK + off;
                if self.boundary[i] != boundary {
                    continue;
                }
                let (s, e) = (self.row_ptr[i], self.row_ptr[i + 1]);
                let r = if boundary {
                    row_dot(&self.cols[s..e], &self.vals[s..e], at)
                } else {
                    row_dot(&self.cols[s..e], &self.vals[s..e], |c| x[c])
                };
                *yi = if beta == S::zero() {
                    alpha * r
                } else if beta == S::one() {
                    *yi + alpha * r
                } else {
                    alpha * r + beta * *yi
                };
            }
        });
    }

    pub(super) fn product(
        &self,
        backend: &DistBackend<CpuBackend>,
        alpha: S,
        x: &DistVector<Vec<S>>,
        beta: S,
        y: &mut DistVector<Vec<S>>,
    ) -> Result<()> {
        let Some((x, y)) =
            halo::local_blocks("DistCsr::apply", &self.layout, backend, alpha, x, beta, y)?
        else {
            return Ok(());
        };
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let (halo, ghosts) = &mut *guard;
        let mut overlap = || self.rows_pass(false, alpha, x, &[], beta, y);
        halo.exchange(self.comm.as_ref(), &self.plan, 1, x, ghosts, &mut overlap)?;
        self.rows_pass(true, alpha, x, ghosts, beta, y);
        Ok(())
    }
}
