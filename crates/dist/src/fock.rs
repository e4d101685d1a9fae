//! [`DistFock`]: the Bose–Hubbard Hamiltonian of `matexp_fock` in row blocks, matrix-free,
//! with the remote indices of each rank's hops gathered once into a ghost plan.

use crate::backend::{DistBackend, DistVector};
use crate::comm::Communicator;
use crate::csr::GhostPlan;
use crate::halo::{self, Halo};
use crate::layout::RowLayout;
use crate::wire;
use matexp_core::{CpuBackend, Error, LinearOperator, Result, Scalar, SpectralBounds};
use matexp_fock::{BLOCK, BoseHubbard, Boundary, Coefficients, FockBasis};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// The Bose–Hubbard Hamiltonian `H(t₀)` of a [`BoseHubbard`] model (open or periodic chain,
/// site-dependent `J`, `V`, `U`), frozen at one time, on vectors split in row blocks of its
/// Fock basis across the ranks of a communicator: a [`LinearOperator`] on
/// [`DistBackend<CpuBackend>`] for every scalar type.
///
/// **Matrix-free.** Nothing of `H` is stored: each rank walks its states as the CPU product
/// of `matexp_fock` does (blocks of [`BLOCK`] rows, the first state unranked, the rest by
/// `FockBasis::next_state`; hops located by the Δ table, the periodic bond re-ranked). A hop
/// landing in another rank's block reads a ghost.
///
/// **Ghost plan.** At construction each rank walks its rows once, collects the distinct
/// remote indices its hops reach, and one all-to-all tells their owners what to send
/// ([`GhostPlan`]); a product then exchanges exactly those entries (one message per
/// neighbour each way), overlapped with the rows whose hops all stay in the block. The
/// walk's temporary peak is the remote hop targets of the rank before deduplication (at most
/// `2·bonds` indices per row); what stays is the plan (the ghost indices and the indices to
/// send) and one flag per row. Unlike a stencil's, the Fock plan is not local: hops across
/// the left bonds move an index by up to `D(N, M)/2`, so most ranks exchange with most
/// others, and the volume per product is a sizeable part of the vector
/// ([`DistFock::exchange_volume`]).
///
/// **Rounding.** Each row is the same sum in the same order as `matexp_fock`'s product, so
/// the distributed product equals `BoseHubbard::at(t₀)`'s **bit for bit**.
///
/// **Memory.** Every rank holds the model (couplings and the basis' Δ table: `O(N·M)`
/// numbers), its block of each vector, the plan and the ghost buffer.
#[derive(Debug)]
pub struct DistFock {
    comm: Arc<dyn Communicator>,
    layout: RowLayout,
    model: BoseHubbard,
    coeffs: Coefficients,
    rows: Range<usize>,
    plan: GhostPlan,
    /// Rows with a hop into another block.
    boundary: Vec<bool>,
    halo: Mutex<Halo>,
}

/// The hops of one row: `(target, amplitude)` for every nonzero off-diagonal entry, in the
/// order the product sums them, and the diagonal.
struct RowWalk<'a> {
    basis: &'a FockBasis,
    m: usize,
    periodic: bool,
    mj: Vec<f64>,
    v: Vec<f64>,
    hu: Vec<f64>,
    sq: &'a [f64],
}

impl RowWalk<'_> {
    /// Calls `hop(j, amplitude)` for each hop of row `i` with occupations `occ`, in the
    /// product's order; returns the diagonal. Couplings in `R`, as the product forms them.
    #[inline(always)]
    fn walk<R: Scalar<Real = R>>(
        &self,
        i: usize,
        occ: &[u32],
        hopped: &mut [u32],
        mut hop: impl FnMut(usize, R),
    ) -> R {
        let real = R::from_f64;
        let m = self.m;
        let mut diag = R::zero();
        let mut r = self.basis.particles();
        for k in 0..m {
            let nk = occ[k];
            let nkr = real(f64::from(nk));
            diag += real(self.v[k]) * nkr + real(self.hu[k]) * nkr * (nkr - R::one());
            r -= nk;
            if k + 1 < m {
                let nn = occ[k + 1];
                let s = m - k;
                if nk != 0 {
                    let j = i - self.basis.delta(r, s) as usize;
                    hop(
                        j,
                        real(self.mj[k])
                            * (real(self.sq[nn as usize + 1]) * real(self.sq[nk as usize])),
                    );
                }
                if nn != 0 {
                    let j = i + self.basis.delta(r - 1, s) as usize;
                    hop(
                        j,
                        real(self.mj[k])
                            * (real(self.sq[nk as usize + 1]) * real(self.sq[nn as usize])),
                    );
                }
            }
        }
        if self.periodic {
            let (first, last) = (0, m - 1);
            for (from, to) in [(last, first), (first, last)] {
                if occ[from] != 0 {
                    hopped.copy_from_slice(occ);
                    hopped[from] -= 1;
                    hopped[to] += 1;
                    let j = self.basis.rank_unchecked(hopped) as usize;
                    hop(
                        j,
                        real(self.mj[m - 1])
                            * (real(self.sq[occ[to] as usize + 1])
                                * real(self.sq[occ[from] as usize])),
                    );
                }
            }
        }
        diag
    }
}

impl DistFock {
    /// This rank's rows of `model` frozen at time `t`, in blocks of equal length (every row
    /// costs about the same). Collective: every rank passes the same model.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the basis does not fit this platform's indices, when
    /// the couplings at `t` are not finite, or when the ranks were handed different models;
    /// the communicator's errors.
    pub fn new(comm: Arc<dyn Communicator>, model: &BoseHubbard, t: f64) -> Result<Self> {
        let dim = model.basis().len()?;
        wire::check_index_range(dim)?;
        let coeffs = model.coefficients_at(t)?;
        let mut fingerprint = vec![dim as f64, model.basis().sites() as f64, t];
        fingerprint.extend(&coeffs.hopping);
        fingerprint.extend(&coeffs.potential);
        fingerprint.extend(&coeffs.interaction);
        let same = comm
            .allgather(&fingerprint)?
            .windows(2)
            .all(|w| w[0] == w[1]);
        if !same {
            return Err(Error::invalid(
                "model",
                format!("D = {dim}"),
                "every rank must pass the same model and time",
            ));
        }
        let layout = RowLayout::even(dim, comm.size())?;
        let rows = layout.range(comm.rank());
        let mut op = DistFock {
            comm,
            layout,
            model: model.clone(),
            coeffs,
            rows: rows.clone(),
            plan: GhostPlan::default(),
            boundary: Vec::new(),
            halo: Mutex::new(Halo::default()),
        };
        let walk = op.walker();
        let per_block: Vec<(Vec<usize>, Vec<bool>)> = (0..rows.len().div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let start = rows.start + b * BLOCK;
                let end = (start + BLOCK).min(rows.end);
                let mut remote = Vec::new();
                let mut flags = Vec::with_capacity(end - start);
                op.for_rows(start..end, |i, occ, hopped| {
                    let mut far = false;
                    walk.walk::<f64>(i, occ, hopped, |j, _| {
                        if !rows.contains(&j) {
                            remote.push(j);
                            far = true;
                        }
                    });
                    flags.push(far);
                });
                remote.sort_unstable();
                remote.dedup();
                (remote, flags)
            })
            .collect();
        let mut remote = Vec::new();
        for (r, f) in per_block {
            remote.extend(r);
            op.boundary.extend(f);
        }
        op.plan = GhostPlan::build(op.comm.as_ref(), &op.layout, &remote)?;
        Ok(op)
    }

    fn walker(&self) -> RowWalk<'_> {
        let basis = self.model.basis();
        RowWalk {
            basis,
            m: basis.sites() as usize,
            periodic: self.model.boundary() == Boundary::Periodic,
            mj: self.coeffs.hopping.iter().map(|&j| -j).collect(),
            v: self.coeffs.potential.clone(),
            hu: self.coeffs.interaction.iter().map(|&u| 0.5 * u).collect(),
            sq: self.model.sqrt_table(),
        }
    }

    /// Calls `f(i, occupations, scratch)` for the global rows `range` in order.
    fn for_rows(&self, range: Range<usize>, mut f: impl FnMut(usize, &[u32], &mut [u32])) {
        let basis = self.model.basis();
        let m = basis.sites() as usize;
        let mut occ = vec![0u32; m];
        let mut hopped = vec![0u32; m];
        basis.unrank_unchecked(range.start as u64, &mut occ);
        for i in range.clone() {
            if i > range.start {
                FockBasis::next_state(&mut occ);
            }
            f(i, &occ, &mut hopped);
        }
    }

    /// The row layout (pass it to [`DistBackend::new`]).
    pub fn layout(&self) -> &RowLayout {
        &self.layout
    }
    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        &self.comm
    }
    /// The model.
    pub fn model(&self) -> &BoseHubbard {
        &self.model
    }
    /// The couplings the operator was frozen with.
    pub fn coefficients(&self) -> &Coefficients {
        &self.coeffs
    }
    /// The ghost plan of this rank.
    pub fn plan(&self) -> &GhostPlan {
        &self.plan
    }
    /// `(received, sent)` entries of x per product on this rank.
    pub fn exchange_volume(&self) -> (usize, usize) {
        self.plan.volume()
    }
    /// Rows of this rank that wait for the halo (the rest overlap the exchange).
    pub fn boundary_rows(&self) -> usize {
        self.boundary.iter().filter(|&&b| b).count()
    }

    /// y ← α·H·x + β·y over the rows with (`edges`) or without remote hops.
    #[allow(clippy::too_many_arguments)]
    fn rows_pass<S: Scalar>(
        &self,
        walk: &RowWalk<'_>,
        edges: bool,
        alpha: S,
        x: &[S],
        ghosts: &[S],
        beta: S,
        y: &mut [S],
    ) {
        let r0 = self.rows.start;
        let at = |j: usize| -> S {
            if self.rows.contains(&j) {
                x[j - r0]
            } else {
                let g = self
                    .plan
                    .ghosts
                    .binary_search(&j)
                    .expect("the plan holds every remote hop");
                ghosts[g]
            }
        };
        let beta_zero = beta == S::zero();
        y.par_chunks_mut(BLOCK).enumerate().for_each(|(b, ychunk)| {
            let start = r0 + b * BLOCK;
            let range = start..start + ychunk.len();
            if !self.boundary[range.start - r0..range.end - r0].contains(&edges) {
                return;
            }
            self.for_rows(range, |i, occ, hopped| {
                if self.boundary[i - r0] != edges {
                    return;
                }
                let mut acc = S::zero();
                let diag = walk.walk::<S::Real>(i, occ, hopped, |j, amp| acc += at(j).scale(amp));
                acc += x[i - r0].scale(diag);
                let yi = &mut ychunk[i - start];
                *yi = if beta_zero {
                    alpha * acc
                } else {
                    alpha * acc + beta * *yi
                };
            });
        });
    }
}

impl<S: Scalar> LinearOperator<DistBackend<CpuBackend>, S> for DistFock {
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
        x: &DistVector<Vec<S>>,
        beta: S,
        y: &mut DistVector<Vec<S>>,
    ) -> Result<()> {
        let Some((x, y)) =
            halo::local_blocks("DistFock::apply", &self.layout, backend, alpha, x, beta, y)?
        else {
            return Ok(());
        };
        let walk = self.walker();
        let mut halo = self.halo.lock().unwrap_or_else(|e| e.into_inner());
        let mut ghosts: Vec<S> = Vec::new();
        let mut overlap = || self.rows_pass(&walk, false, alpha, x, &[], beta, y);
        halo.exchange(
            self.comm.as_ref(),
            &self.plan,
            1,
            x,
            &mut ghosts,
            &mut overlap,
        )?;
        drop(halo);
        self.rows_pass(&walk, true, alpha, x, &ghosts, beta, y);
        Ok(())
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.model.spectral_bounds_with(&self.coeffs)
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.model.norm_bound_with(&self.coeffs))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}
