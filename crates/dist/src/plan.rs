//! The per-rank memory planner: each rank's peak host memory for an operator and a method,
//! predicted before the method allocates, agreed by every rank.
//!
//! A rank's peak is `matexp_expmv::plan`'s sum on its block of rows:
//!
//! ```text
//! peak_r = vectors · rows_r · size_of(S) + operator_bytes_r + workspace_bytes
//! ```
//!
//! with the vector count of the method ([`Method::full_vectors`]: Leja 6, Taylor 5, Lanczos
//! k + 3, …; the replicated coefficient arrays are in `workspace_bytes`), and
//! `operator_bytes_r` what the operator holds on the rank ([`LocalStorage`]): its rows or
//! owned coefficients, the ghost plan, and the halo buffers of one product (the packed sends
//! and the received ghosts on the wire, then decoded).

use crate::comm::Communicator;
use crate::{DistCsr, DistFock, DistStencil};
use matexp_core::{Error, RealScalar, Result, Scalar};
use matexp_expmv::plan::{Method, Plan, ScalarKind};

/// What a distributed operator holds on this rank, for [`plan`].
pub trait LocalStorage {
    /// The communicator the operator's rows are split over.
    fn communicator(&self) -> &dyn Communicator;
    /// This rank's rows (the length of its vector blocks).
    fn rows(&self) -> usize;
    /// Bytes the operator holds on this rank for products on vectors of `scalar`: stored
    /// rows or coefficients, the ghost plan and one product's halo buffers.
    fn operator_bytes(&self, scalar: ScalarKind) -> u64;
}

/// Bytes of the plan (ghost indices and indices sent, 8 each) and of one product's halo
/// buffers: the packed sends and the received ghosts on the wire (`f64`, two per complex
/// scalar) and the ghosts decoded, `unit` scalars per planned index.
fn halo_bytes(plan: &crate::csr::GhostPlan, unit: u64, scalar: ScalarKind) -> u64 {
    let (ghosts, sent) = plan.volume();
    let (g, s) = (ghosts as u64, sent as u64);
    let wire = if matches!(scalar, ScalarKind::C32 | ScalarKind::C64) {
        16
    } else {
        8
    };
    8 * (g + s) + unit * (wire * (g + s) + scalar.bytes() * g)
}

impl<S: Scalar> LocalStorage for DistCsr<S> {
    fn communicator(&self) -> &dyn Communicator {
        self.comm().as_ref()
    }
    fn rows(&self) -> usize {
        self.local_rows()
    }
    /// Row pointers (8 per row), local columns (4 per entry), values, one flag per row, and
    /// the halo. The values are of the matrix's scalar type `S`.
    fn operator_bytes(&self, scalar: ScalarKind) -> u64 {
        let (rows, nnz) = (self.local_rows() as u64, self.local_nnz() as u64);
        let value = std::mem::size_of::<S>() as u64;
        8 * (rows + 1) + (4 + value) * nnz + rows + halo_bytes(self.plan(), 1, scalar)
    }
}

impl<S: RealScalar> LocalStorage for DistStencil<S> {
    fn communicator(&self) -> &dyn Communicator {
        self.comm().as_ref()
    }
    fn rows(&self) -> usize {
        self.layout().range(self.comm().rank()).len()
    }
    /// The owned coefficient and affine term (one `S` each per point, when present), one flag
    /// per grid line, and the halo (whole lines of `N` points).
    fn operator_bytes(&self, scalar: ScalarKind) -> u64 {
        let rows = LocalStorage::rows(self) as u64;
        let n = self.grid().n() as u64;
        let per_point = std::mem::size_of::<S>() as u64 * self.stored_fields();
        per_point * rows + rows / n.max(1) + halo_bytes(self.plan(), n, scalar)
    }
}

impl LocalStorage for DistFock {
    fn communicator(&self) -> &dyn Communicator {
        self.comm().as_ref()
    }
    fn rows(&self) -> usize {
        self.layout().range(self.comm().rank()).len()
    }
    /// The Δ table and couplings (`O(N·M)`), one flag per row, and the halo.
    fn operator_bytes(&self, scalar: ScalarKind) -> u64 {
        let rows = LocalStorage::rows(self) as u64;
        let table = 8 * self.model().basis().table().len() as u64;
        let c = self.coefficients();
        let couplings = 8 * (c.hopping.len() + c.potential.len() + c.interaction.len()) as u64;
        table + couplings + rows + halo_bytes(self.plan(), 1, scalar)
    }
}

/// Each rank's predicted peak host memory for `method` on `op` with vectors of `S`, checked
/// against `available` bytes per rank. Collective: every rank calls it, and every rank
/// receives the same verdict.
///
/// # Errors
/// [`Error::OutOfMemoryBudget`] on every rank when the plan of any rank exceeds
/// `available` (naming that rank's method, vector count and size, operator bytes and peak,
/// the rank in `limit`); the errors of [`Plan::new`] and [`ScalarKind::of`]; the
/// communicator's.
pub fn plan<S: Scalar>(op: &impl LocalStorage, method: Method, available: u64) -> Result<Plan> {
    let comm = op.communicator();
    let kind = ScalarKind::of::<S>()?;
    let mine = Plan::new(method, kind, op.rows() as u64, op.operator_bytes(kind))?;
    let peaks = comm.allgather(&[mine.peak_bytes() as f64])?;
    let worst = peaks
        .iter()
        .enumerate()
        .max_by(|a, b| a.1[0].total_cmp(&b.1[0]))
        .map(|(r, p)| (r, p[0]))
        .unwrap_or((0, 0.0));
    if worst.1 <= available as f64 {
        return Ok(mine);
    }
    // The rank with the largest plan names its sizes; the others report its peak.
    let what = if comm.rank() == worst.0 {
        mine.to_string()
    } else {
        format!("{} on rank {}", method.name(), worst.0)
    };
    Err(Error::OutOfMemoryBudget {
        what,
        needed: worst.1 as u64,
        available,
        limit: format!("host memory per rank (rank {} of {})", worst.0, comm.size()),
    })
}
