//! The halo exchange shared by the distributed operators: pack what the neighbours need,
//! exchange while a closure runs, unpack the ghosts.

use crate::backend::{DistBackend, DistVector};
use crate::comm::{Communicator, Incoming, Outgoing};
use crate::csr::GhostPlan;
use crate::layout::RowLayout;
use crate::wire;
use matexp_core::{CpuBackend, Error, Result, Scalar, check_dim, norms};

/// Wire buffers reused by every product of one operator.
#[derive(Debug, Default)]
pub(crate) struct Halo {
    send: Vec<Vec<f64>>,
    recv: Vec<f64>,
}

impl Halo {
    /// Sends the entries of `x` that the plan's neighbours need — `unit` consecutive
    /// scalars per planned index (1 for single entries, `N` for a grid line) — receives the
    /// ghosts, runs `overlap` while the messages travel, then decodes the ghosts into
    /// `ghosts` (in the plan's order, `unit` scalars per ghost).
    ///
    /// # Errors
    /// The communicator's errors.
    pub fn exchange<S: Scalar>(
        &mut self,
        comm: &dyn Communicator,
        plan: &GhostPlan,
        unit: usize,
        x: &[S],
        ghosts: &mut Vec<S>,
        overlap: &mut dyn FnMut(),
    ) -> Result<()> {
        let w = wire::width::<S>();
        self.send.resize_with(plan.send.len(), Vec::new);
        for (buf, (_, idx)) in self.send.iter_mut().zip(&plan.send) {
            buf.clear();
            wire::encode(
                idx.iter()
                    .flat_map(|&k| x[k * unit..(k + 1) * unit].iter().copied()),
                buf,
            );
        }
        self.recv.resize(plan.ghosts.len() * unit * w, 0.0);
        let sends: Vec<Outgoing<'_>> = self
            .send
            .iter()
            .zip(&plan.send)
            .map(|(data, &(to, _))| Outgoing { to, tag: 1, data })
            .collect();
        let mut recvs = Vec::with_capacity(plan.recv.len());
        let mut rest = &mut self.recv[..];
        for (from, r) in &plan.recv {
            let (head, tail) = rest.split_at_mut(r.len() * unit * w);
            recvs.push(Incoming {
                from: *from,
                tag: 1,
                buf: head,
            });
            rest = tail;
        }
        comm.exchange(&sends, &mut recvs, overlap)?;
        drop(recvs);
        ghosts.clear();
        ghosts.extend(wire::decode::<S>(&self.recv));
        Ok(())
    }
}

/// The checks every distributed product makes (global lengths, the operator's layout,
/// a distributed `x`) and the BLAS convention for α = 0 (A and x untouched, `y ← β·y`,
/// every rank taking the branch together). Returns the local blocks when the product
/// must run, `None` when it is done.
///
/// # Errors
/// [`Error::DimensionMismatch`] for wrong lengths; [`Error::InvalidArgument`] when the
/// backend's layout is not the operator's or `x` is replicated.
pub(crate) fn local_blocks<'a, S: Scalar>(
    what: &str,
    layout: &RowLayout,
    backend: &DistBackend<CpuBackend>,
    alpha: S,
    x: &'a DistVector<Vec<S>>,
    beta: S,
    y: &'a mut DistVector<Vec<S>>,
) -> Result<Option<(&'a [S], &'a mut [S])>> {
    use matexp_core::Backend;
    check_dim(&format!("{what}: x length"), layout.n(), backend.len(x))?;
    check_dim(&format!("{what}: y length"), layout.n(), backend.len(y))?;
    if backend.layout() != layout || x.is_replicated() {
        return Err(Error::invalid(
            "backend",
            backend.name(),
            "the backend's row layout must be the operator's (DistBackend::new(.., op.layout().clone()))",
        ));
    }
    let (x, y) = (x.local(), y.local_mut());
    if alpha == S::zero() {
        if beta == S::zero() {
            y.fill(S::zero())
        } else {
            norms::scal(beta, y)
        }
        return Ok(None);
    }
    Ok(Some((x, y)))
}
