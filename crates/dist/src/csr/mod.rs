//! [`DistCsr`]: a CSR matrix in row blocks with a ghost plan and overlapped halo exchange.

mod build;
mod plan;
mod product;
mod props;

pub use plan::GhostPlan;

use crate::backend::DistBackend;
use crate::comm::Communicator;
use crate::layout::RowLayout;
use matexp_core::{CpuBackend, LinearOperator, Result, Scalar, SpectralBounds};
use props::Properties;
use std::sync::{Arc, Mutex};

/// A square sparse matrix split in row blocks across the ranks of a communicator, as a
/// [`LinearOperator`] on [`DistBackend<CpuBackend>`].
///
/// **Layout.** Rank r holds rows `layout.range(r)` — by default blocks of about equal
/// `Σ (nnz(row) + 1)` ([`RowLayout::by_work`]) — with columns renumbered locally (owned
/// columns first, then the ghosts; [`GhostPlan`]). Rows are kept in canonical order
/// (strictly increasing global columns, duplicates summed), which for a canonical input is
/// the input's order: each entry of `A·x` is then the same left-to-right sum, with the same
/// two interleaved accumulators, as `matexp_sparse`'s SpMV, **bit for bit**.
///
/// **One product.** Each rank packs the entries its neighbours need (one buffer per
/// neighbour), starts the non-blocking exchange, computes its *interior* rows (those with no
/// ghost column) while the messages travel, then its *boundary* rows once the ghosts have
/// arrived. Bytes per product: `Σ_r ghosts_r · size_of::<S>()` (f32 widened to f64 on the
/// wire) against `nnz·(size_of::<S>() + 4)` streamed by the SpMV; [`DistCsr::exchange_volume`]
/// gives the counts.
///
/// **Spectral information** is that of the whole matrix, computed once at construction with
/// collective steps: the Gershgorin box (exact: min/max over rows), Hermitian and
/// skew-Hermitian checks (each rank sends the entries of its ghost columns to their owners,
/// who compare them with their transposed entries, missing entries counting as 0 as in
/// `CsrMatrix::is_hermitian`) and the Gershgorin bound on the Hermitian part (column sums
/// returned to their owners along the ghost plan, reversed). The same answers as
/// `CsrMatrix`'s, so the methods take the same paths.
#[derive(Debug)]
pub struct DistCsr<S: Scalar> {
    comm: Arc<dyn Communicator>,
    layout: RowLayout,
    /// Local rows: pointers, local column numbers (owned < nl ≤ ghost), values.
    row_ptr: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<S>,
    /// Rows with at least one ghost column (computed after the halo arrives).
    boundary: Vec<bool>,
    plan: GhostPlan,
    props: Properties,
    scratch: Mutex<(crate::halo::Halo, Vec<S>)>,
}

impl<S: Scalar> DistCsr<S> {
    /// The row layout (pass it to [`DistBackend::new`]).
    pub fn layout(&self) -> &RowLayout {
        &self.layout
    }
    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        &self.comm
    }
    /// The ghost plan of this rank.
    pub fn plan(&self) -> &GhostPlan {
        &self.plan
    }
    /// Stored entries of this rank's rows.
    pub fn local_nnz(&self) -> usize {
        self.vals.len()
    }
    /// Rows of this rank.
    pub fn local_rows(&self) -> usize {
        self.row_ptr.len() - 1
    }
    /// `(received, sent)` entries of x per product on this rank.
    pub fn exchange_volume(&self) -> (usize, usize) {
        self.plan.volume()
    }
    /// Rows of this rank that wait for the halo (the rest overlap the exchange).
    pub fn boundary_rows(&self) -> usize {
        self.boundary.iter().filter(|&&b| b).count()
    }
}

impl<S: Scalar> LinearOperator<DistBackend<CpuBackend>, S> for DistCsr<S> {
    fn nrows(&self) -> usize {
        self.layout.n()
    }
    fn ncols(&self) -> usize {
        self.layout.n()
    }
    fn apply(
        &self,
        backend: &DistBackend<CpuBackend>,
        alpha: S,
        x: &crate::DistVector<Vec<S>>,
        beta: S,
        y: &mut crate::DistVector<Vec<S>>,
    ) -> Result<()> {
        self.product(backend, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.props.bounds
    }
    fn is_hermitian(&self) -> bool {
        self.props.hermitian
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        self.props.hermitian_part
    }
}
