//! [`DistStencil`]: a `matexp_stencil` operator on z-slabs with halo planes, matrix-free.

use crate::backend::{DistBackend, DistVector};
use crate::comm::Communicator;
use crate::csr::GhostPlan;
use crate::halo::{self, Halo};
use crate::layout::RowLayout;
use matexp_core::{CpuBackend, LinearOperator, RealScalar, Result, SpectralBounds};
use matexp_stencil::{Boundary, Dim, Grid, Stencil};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// The neighbour of axis index `i` in direction `forward` on an axis of `n` points, as the
/// stencil resolves it: `None` for a Dirichlet value or a frame (nothing in the linear
/// part), the point itself for Neumann (zero flux), the wrapped index for periodic grids.
fn neighbour(kind: Boundary, i: usize, n: usize, forward: bool) -> Option<usize> {
    match (forward, kind) {
        (true, _) if i + 1 < n => Some(i + 1),
        (false, _) if i > 0 => Some(i - 1),
        (_, Boundary::Dirichlet | Boundary::Frame) => None,
        (_, Boundary::Neumann) => Some(i),
        (true, Boundary::Periodic) => Some(0),
        (false, Boundary::Periodic) => Some(n - 1),
    }
}

/// A [`Stencil`] (`matexp_stencil`: the 5-point or 7-point `D·Δ_h` with Dirichlet —
/// homogeneous or with its affine term —, Neumann, periodic or frame boundaries) on vectors
/// split in slabs across the ranks of a communicator, as a [`LinearOperator`] on
/// [`DistBackend<CpuBackend>`]. Matrix-free: nothing of `A` is stored beyond the
/// coefficient of the owned points (when `D ≠ 1`) and the affine term's owned part.
///
/// **Layout.** The grid is cut along its slowest axis: z-planes of `N²` points in 3D,
/// y-lines of `N` points in 2D (the "planes" below), split as evenly as whole planes allow
/// (ranks beyond the number of planes own none). Rank `r`'s rows are the points of its
/// planes, in the stencil's order (`ix + N·iy + N²·iz`), so a vector is the single-process
/// vector cut in blocks.
///
/// **One product.** The stencil has radius 1: each rank needs the plane under and over its
/// slab (across the outer boundary only for periodic grids), received from their owners
/// into halo buffers by the non-blocking exchange while the rank computes the lines that
/// read no halo; the lines next to the halos follow. Bytes per product: `N^{d−1}` scalars
/// per halo plane (at most two per rank), against `N^d` read by the local product;
/// [`DistStencil::exchange_volume`] gives the counts. Each line is the same sum, in the
/// same order, as the stencil's CPU kernel, so the product equals `Stencil::apply` **bit
/// for bit**.
///
/// **Spectral information** is the stencil's (exact bounds, Hermitian-ness, norm bound), so
/// the methods take the same paths as on one process.
///
/// **Memory.** The constructor reads the whole [`Stencil`], which every rank holds: small
/// for `D = 1` or the seed's coefficient (a plane table), `N^d` values for a field
/// coefficient or Dirichlet data; the operator keeps only the owned part of those.
#[derive(Debug)]
pub struct DistStencil<S: RealScalar> {
    comm: Arc<dyn Communicator>,
    layout: RowLayout,
    grid: Grid,
    inv_h2: S,
    /// Owned lines (global line `iz·N + iy`; `iy` in 2D).
    lines: Range<usize>,
    /// The plan over lines: ghosts are whole grid lines.
    plan: GhostPlan,
    /// Owned lines that read a halo line.
    boundary: Vec<bool>,
    /// `D` at the owned points (`None` for `D = 1`).
    coef: Option<Vec<S>>,
    /// The affine term `b` at the owned points.
    affine: Option<Vec<S>>,
    bounds: Option<SpectralBounds>,
    hermitian: bool,
    norm: Option<f64>,
    tight: bool,
    halo: Mutex<(Halo, Vec<S>)>,
}

/// Lines of one plane of the slab split: `N` in 3D (a z-plane), 1 in 2D (a y-line).
fn lines_per_plane(grid: &Grid) -> usize {
    match grid.dim() {
        Dim::Two => 1,
        Dim::Three => grid.n(),
    }
}

impl<S: RealScalar> DistStencil<S> {
    /// This rank's slab of `op`, planes split evenly. Collective: every rank passes the
    /// same stencil.
    ///
    /// # Errors
    /// The communicator's errors.
    pub fn new(comm: Arc<dyn Communicator>, op: &Stencil<S>) -> Result<Self> {
        let grid = *op.grid();
        let n = grid.n();
        let lpp = lines_per_plane(&grid);
        let planes = RowLayout::even(n, comm.size())?;
        let line_layout =
            RowLayout::from_offsets(planes.offsets().iter().map(|&p| p * lpp).collect())?;
        let layout =
            RowLayout::from_offsets(line_layout.offsets().iter().map(|&l| l * n).collect())?;
        let lines = line_layout.range(comm.rank());
        let mut needed = Vec::new();
        let boundary: Vec<bool> = lines
            .clone()
            .map(|l| {
                let mut reads_halo = false;
                for nb in neighbour_lines(&grid, l).into_iter().flatten().flatten() {
                    if !lines.contains(&nb) {
                        needed.push(nb);
                        reads_halo = true;
                    }
                }
                reads_halo
            })
            .collect();
        let plan = GhostPlan::build(comm.as_ref(), &line_layout, &needed)?;
        let points = layout.range(comm.rank());
        let coef = (!op.coefficient().is_unit())
            .then(|| points.clone().map(|i| op.coefficient_at(i)).collect());
        let affine = op.affine_term().map(|b| b[points.clone()].to_vec());
        // Every rank computed the same answers from the same stencil; agreeing on them
        // catches ranks that were handed different operators.
        let cpu = <Stencil<S> as LinearOperator<CpuBackend, S>>::spectral_bounds(op);
        let same = comm
            .allgather(&[grid.n() as f64, cpu.map_or(0.0, |b| b.re_min)])?
            .windows(2)
            .all(|w| w[0] == w[1]);
        if !same {
            return Err(matexp_core::Error::invalid(
                "op",
                format!("{n} points per axis"),
                "every rank must pass the same stencil",
            ));
        }
        Ok(DistStencil {
            comm,
            layout,
            grid,
            inv_h2: S::from_f64(grid.inv_h2()),
            lines,
            plan,
            boundary,
            coef,
            affine,
            bounds: cpu,
            hermitian: <Stencil<S> as LinearOperator<CpuBackend, S>>::is_hermitian(op),
            norm: <Stencil<S> as LinearOperator<CpuBackend, S>>::norm_bound(op),
            tight: <Stencil<S> as LinearOperator<CpuBackend, S>>::spectral_bounds_are_tight(op),
            halo: Mutex::new((Halo::default(), Vec::new())),
        })
    }

    /// The row layout (pass it to [`DistBackend::new`]).
    pub fn layout(&self) -> &RowLayout {
        &self.layout
    }
    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        &self.comm
    }
    /// Per-point fields kept for the owned points: the coefficient (when `D ≠ 1`) and the
    /// affine term (when present), 0 to 2.
    pub(crate) fn stored_fields(&self) -> u64 {
        u64::from(self.coef.is_some()) + u64::from(self.affine.is_some())
    }
    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    /// The halo plan of this rank, over grid lines (line `iz·N + iy`).
    pub fn plan(&self) -> &GhostPlan {
        &self.plan
    }
    /// `(received, sent)` scalars of x per product on this rank.
    pub fn exchange_volume(&self) -> (usize, usize) {
        let (r, s) = self.plan.volume();
        (r * self.grid.n(), s * self.grid.n())
    }
    /// This rank's part of the affine term `b` (inhomogeneous Dirichlet data), if any.
    pub fn affine_term_local(&self) -> Option<&[S]> {
        self.affine.as_deref()
    }

    /// `y ← α·(A·x + b) + β·y`, the affine right-hand side of an inhomogeneous Dirichlet
    /// problem (as `Stencil::apply_affine`; `b = 0` for a linear problem). Collective.
    ///
    /// # Errors
    /// As [`LinearOperator::apply`].
    pub fn apply_affine(
        &self,
        backend: &DistBackend<CpuBackend>,
        alpha: S,
        x: &DistVector<Vec<S>>,
        beta: S,
        y: &mut DistVector<Vec<S>>,
    ) -> Result<()> {
        self.product(backend, alpha, x, beta, y, self.affine.as_deref())
    }

    fn product(
        &self,
        backend: &DistBackend<CpuBackend>,
        alpha: S,
        x: &DistVector<Vec<S>>,
        beta: S,
        y: &mut DistVector<Vec<S>>,
        b: Option<&[S]>,
    ) -> Result<()> {
        let what = "DistStencil::apply";
        let Some((x, y)) = halo::local_blocks(what, &self.layout, backend, alpha, x, beta, y)?
        else {
            return Ok(());
        };
        let mut guard = self.halo.lock().unwrap_or_else(|e| e.into_inner());
        let (halo, ghosts) = &mut *guard;
        let n = self.grid.n();
        let mut overlap = || self.lines_pass(false, alpha, x, &[], beta, y, b);
        halo.exchange(self.comm.as_ref(), &self.plan, n, x, ghosts, &mut overlap)?;
        self.lines_pass(true, alpha, x, ghosts, beta, y, b);
        Ok(())
    }

    /// `y ← α·(A·x + b) + β·y` on the owned lines that read a halo (`edges`) or those that
    /// do not.
    #[allow(clippy::too_many_arguments)]
    fn lines_pass(
        &self,
        edges: bool,
        alpha: S,
        x: &[S],
        ghosts: &[S],
        beta: S,
        y: &mut [S],
        b: Option<&[S]>,
    ) {
        let n = self.grid.n();
        let l0 = self.lines.start;
        let line = |l: usize| -> &[S] {
            if self.lines.contains(&l) {
                &x[(l - l0) * n..(l - l0 + 1) * n]
            } else {
                let g = self
                    .plan
                    .ghosts
                    .binary_search(&l)
                    .expect("the plan holds every halo line");
                &ghosts[g * n..(g + 1) * n]
            }
        };
        y.par_chunks_mut(n).enumerate().for_each_init(
            || vec![S::zero(); n],
            |ax, (k, yrow)| {
                if self.boundary[k] != edges {
                    return;
                }
                self.line_ax(l0 + k, &line, ax);
                if let Some(d) = &self.coef {
                    for (o, &d) in ax.iter_mut().zip(&d[k * n..(k + 1) * n]) {
                        *o *= d * self.inv_h2;
                    }
                } else {
                    ax.iter_mut().for_each(|v| *v *= self.inv_h2);
                }
                if let Some(b) = b {
                    for (a, &bi) in ax.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                        *a += bi;
                    }
                }
                for (yi, &a) in yrow.iter_mut().zip(ax.iter()) {
                    *yi = if beta == S::zero() {
                        alpha * a
                    } else {
                        alpha * a + beta * *yi
                    };
                }
            },
        );
    }

    /// `Δ_h`'s line `l` without the factor `h⁻²` into `out`, the stencil kernel's sum:
    /// `(y− + z−) + (y+ + z+) − 2d·c`, then the x-neighbours (resolved by the boundary).
    fn line_ax<'x>(&self, l: usize, line: &impl Fn(usize) -> &'x [S], out: &mut [S])
    where
        S: 'x,
    {
        let g = &self.grid;
        let n = g.n();
        let kind = g.boundary();
        let nbs = neighbour_lines(g, l);
        if kind == Boundary::Frame && nbs.is_none() {
            out.fill(S::zero());
            return;
        }
        let c = line(l);
        // The neighbour lines on the stack: this runs once per line of every product.
        let mut rows: [&[S]; 4] = [c; 4];
        let mut k = 0;
        for j in nbs.into_iter().flatten().flatten() {
            rows[k] = line(j);
            k += 1;
        }
        let diag = S::from_f64(2.0 * g.dim().axes() as f64);
        matexp_stencil::laplacian_row(kind, c, &rows[..k], diag, &mut out[..n]);
        if kind == Boundary::Frame {
            out[0] = S::zero();
            out[n - 1] = S::zero();
        }
    }
}

/// The lines a line's stencil reads besides itself, in the kernel's order (y−, z−, y+, z+;
/// `None` where the boundary supplies nothing); `None` for a frame line, which reads none.
fn neighbour_lines(g: &Grid, l: usize) -> Option<[Option<usize>; 4]> {
    let n = g.n();
    let three = g.dim() == Dim::Three;
    let (iz, iy) = (l / n, l % n);
    let on_frame = |i: usize| i == 0 || i + 1 == n;
    if g.boundary() == Boundary::Frame && (on_frame(iy) || (three && on_frame(iz))) {
        return None;
    }
    let mut out = [None; 4];
    for (k, forward) in [false, true].into_iter().enumerate() {
        out[2 * k] = neighbour(g.boundary(), iy, n, forward).map(|j| iz * n + j);
        if three {
            out[2 * k + 1] = neighbour(g.boundary(), iz, n, forward).map(|j| j * n + iy);
        }
    }
    Some(out)
}

impl<S: RealScalar> LinearOperator<DistBackend<CpuBackend>, S> for DistStencil<S> {
    fn nrows(&self) -> usize {
        self.layout.n()
    }
    fn ncols(&self) -> usize {
        self.layout.n()
    }
    /// `y ← α·A·x + β·y` with the linear part of `A` (the affine term is left out, as in
    /// `Stencil::apply`; see [`DistStencil::apply_affine`]).
    fn apply(
        &self,
        backend: &DistBackend<CpuBackend>,
        alpha: S,
        x: &DistVector<Vec<S>>,
        beta: S,
        y: &mut DistVector<Vec<S>>,
    ) -> Result<()> {
        self.product(backend, alpha, x, beta, y, None)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.bounds
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn norm_bound(&self) -> Option<f64> {
        self.norm
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        self.tight
    }
}
