//! One distributed product: pack, exchange while the interior rows run, boundary rows.

use super::DistCsr;
use crate::backend::{DistBackend, DistVector};
use crate::comm::{Incoming, Outgoing};
use crate::wire;
use matexp_core::{CpuBackend, Error, Result, Scalar, check_dim, norms};
use rayon::prelude::*;

/// Rows per parallel task of the local product.
const CHUNK: usize = 2048;

/// Buffers reused by every product of one operator.
#[derive(Debug, Default)]
pub(crate) struct Scratch<S> {
    send: Vec<Vec<f64>>,
    recv: Vec<f64>,
    ghosts: Vec<S>,
}

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
        use matexp_core::Backend;
        check_dim("DistCsr::apply: x length", self.layout.n(), backend.len(x))?;
        check_dim("DistCsr::apply: y length", self.layout.n(), backend.len(y))?;
        if backend.layout() != &self.layout || x.is_replicated() {
            return Err(Error::invalid(
                "backend",
                backend.name(),
                "the backend's row layout must be the operator's (DistBackend::new(.., op.layout().clone()))",
            ));
        }
        let (x, y) = (x.local(), y.local_mut());
        if alpha == S::zero() {
            // As the BLAS: A and x are not touched; every rank takes this branch together.
            if beta == S::zero() {
                y.fill(S::zero())
            } else {
                norms::scal(beta, y)
            }
            return Ok(());
        }
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let sc = &mut *guard;
        let w = wire::width::<S>();
        sc.send.resize_with(self.plan.send.len(), Vec::new);
        for (buf, (_, idx)) in sc.send.iter_mut().zip(&self.plan.send) {
            buf.clear();
            wire::encode(idx.iter().map(|&k| x[k]), buf);
        }
        sc.recv.resize(self.plan.ghosts.len() * w, 0.0);
        let sends: Vec<Outgoing<'_>> = sc
            .send
            .iter()
            .zip(&self.plan.send)
            .map(|(data, &(to, _))| Outgoing { to, tag: 1, data })
            .collect();
        let mut recvs = split_recv(&mut sc.recv, &self.plan.recv, w);
        let mut overlap = || self.rows_pass(false, alpha, x, &[], beta, y);
        self.comm.exchange(&sends, &mut recvs, &mut overlap)?;
        drop(recvs);
        sc.ghosts.clear();
        sc.ghosts.extend(wire::decode::<S>(&sc.recv));
        self.rows_pass(true, alpha, x, &sc.ghosts, beta, y);
        Ok(())
    }
}

/// The receive buffers of a plan's neighbours, cut from one contiguous buffer.
fn split_recv<'a>(
    buf: &'a mut [f64],
    recv: &[(usize, std::ops::Range<usize>)],
    w: usize,
) -> Vec<Incoming<'a>> {
    let mut out = Vec::with_capacity(recv.len());
    let mut rest = buf;
    for (from, r) in recv {
        let (head, tail) = rest.split_at_mut(r.len() * w);
        out.push(Incoming {
            from: *from,
            tag: 1,
            buf: head,
        });
        rest = tail;
    }
    out
}
