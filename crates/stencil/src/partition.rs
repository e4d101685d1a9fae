//! The domain split along z for several devices, with halo exchange.
//!
//! A 3D grid is cut into `P` slabs of consecutive z-planes ([`ZPartition`]); part `p` owns
//! the planes `z_p..z_{p+1}` of every vector. One product needs, besides the owned planes,
//! the plane just below and just above the slab (the 7-point stencil has radius 1): the
//! halos. [`HaloPlan`] says which part sends which plane to which (periodic grids wrap the
//! first part to the last; Dirichlet, Neumann and frame grids need nothing across the
//! outer boundary). Each part packs what a neighbour needs into one contiguous buffer per
//! neighbour, one copy travels each way, and while it travels the part computes its
//! interior planes (those whose neighbours it owns); the two edge planes follow once the
//! halos have arrived. On the CPU ([`PartitionedStencil`]) "travel" is a buffer copy run
//! concurrently with the interior by `rayon::join`; a device backend replaces it by a
//! peer copy on a second stream, with the same plan.
//!
//! Bytes moved per product: `2·(P − 1)` planes of `N²` values (`2P` when periodic), against
//! `N³` values read by the stencil, a ratio of `2(P − 1)/N`.

use crate::grid::{Boundary, Dim};
use crate::kernel;
use crate::stencil::Stencil;
use matexp_core::{Error, RealScalar, Result, ShiftedStep, check_dim};
use rayon::prelude::*;

/// A split of the z-planes of a 3D grid into contiguous, non-empty slabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZPartition {
    bounds: Vec<usize>,
}

impl ZPartition {
    /// `parts` slabs of as equal a size as possible.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `parts` is 0 or exceeds the number of planes.
    pub fn even(planes: usize, parts: usize) -> Result<Self> {
        if parts == 0 || parts > planes {
            return Err(Error::invalid(
                "parts",
                parts,
                format!("need between 1 and {planes} parts (one plane each at least)"),
            ));
        }
        Ok(ZPartition {
            bounds: (0..=parts).map(|p| p * planes / parts).collect(),
        })
    }

    /// Slab `p` is `bounds[p]..bounds[p+1]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `bounds` starts at 0, increases strictly and has at
    /// least two entries.
    pub fn from_bounds(bounds: Vec<usize>) -> Result<Self> {
        if bounds.len() < 2 || bounds[0] != 0 || bounds.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::invalid(
                "bounds",
                format!("{bounds:?}"),
                "must start at 0 and increase strictly (every slab non-empty)",
            ));
        }
        Ok(ZPartition { bounds })
    }

    /// Number of parts.
    pub fn parts(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Number of planes in all.
    pub fn planes(&self) -> usize {
        *self.bounds.last().unwrap_or(&0)
    }

    /// The planes of part `p`.
    pub fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.bounds[p]..self.bounds[p + 1]
    }

    /// Cuts a grid vector into the parts' vectors.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x` does not have `planes · plane_len` entries.
    pub fn split<S: Copy>(&self, plane_len: usize, x: &[S]) -> Result<Vec<Vec<S>>> {
        check_dim(
            "ZPartition::split: length",
            self.planes() * plane_len,
            x.len(),
        )?;
        Ok((0..self.parts())
            .map(|p| {
                let r = self.range(p);
                x[r.start * plane_len..r.end * plane_len].to_vec()
            })
            .collect())
    }

    /// Joins the parts' vectors into one grid vector.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when a part has the wrong length.
    pub fn gather<S: Copy>(&self, plane_len: usize, parts: &[Vec<S>]) -> Result<Vec<S>> {
        check_dim("ZPartition::gather: parts", self.parts(), parts.len())?;
        let mut out = Vec::with_capacity(self.planes() * plane_len);
        for (p, v) in parts.iter().enumerate() {
            check_dim(
                "ZPartition::gather: part length",
                self.range(p).len() * plane_len,
                v.len(),
            )?;
            out.extend_from_slice(v);
        }
        Ok(out)
    }
}

/// Who sends which halo to whom, for a grid's boundary kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaloPlan {
    /// `below[p]`: the part whose top plane `p` receives as the plane under its slab.
    pub below: Vec<Option<usize>>,
    /// `above[p]`: the part whose bottom plane `p` receives as the plane over its slab.
    pub above: Vec<Option<usize>>,
}

impl HaloPlan {
    /// The plan for `partition` of a grid with boundary kind `kind`: neighbours in z, and
    /// across the outer boundary only for periodic grids.
    pub fn new(partition: &ZPartition, kind: Boundary) -> Self {
        let pn = partition.parts();
        let wrap = kind == Boundary::Periodic;
        HaloPlan {
            below: (0..pn)
                .map(|p| {
                    if p > 0 {
                        Some(p - 1)
                    } else {
                        wrap.then_some(pn - 1)
                    }
                })
                .collect(),
            above: (0..pn)
                .map(|p| {
                    if p + 1 < pn {
                        Some(p + 1)
                    } else {
                        wrap.then_some(0)
                    }
                })
                .collect(),
        }
    }

    /// Planes sent per product (each of `N²` values).
    pub fn messages(&self) -> usize {
        self.below.iter().chain(&self.above).flatten().count()
    }
}

/// A [`Stencil`] applied to vectors split by a [`ZPartition`], part by part as separate
/// devices would, with halo exchange (see the module documentation). 3D grids only.
///
/// ```
/// use matexp_core::{CpuBackend, LinearOperator};
/// use matexp_stencil::{Boundary, Dim, Stencil, partition::{PartitionedStencil, ZPartition}};
/// let a = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Periodic)?;
/// let x: Vec<f64> = (0..216).map(|i| (i as f64).sin()).collect();
/// let mut y = vec![0.0; 216];
/// a.apply(&CpuBackend, 1.0, &x, 0.0, &mut y)?;
/// let split = PartitionedStencil::new(&a, ZPartition::even(6, 4)?)?;
/// let xs = split.partition().split(36, &x)?;
/// let mut ys = split.partition().split(36, &vec![0.0; 216])?;
/// split.apply(1.0, &xs, 0.0, &mut ys)?;
/// assert_eq!(split.partition().gather(36, &ys)?, y);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PartitionedStencil<'a, S> {
    op: &'a Stencil<S>,
    partition: ZPartition,
    plan: HaloPlan,
}

/// The rows of `x` one part can see: its own planes and the halos it received.
struct Rows<'x, S> {
    local: &'x [S],
    z0: usize,
    z1: usize,
    below_z: usize,
    below: &'x [S],
    above: &'x [S],
    n: usize,
}

impl<'x, S> Rows<'x, S> {
    /// Row `iy` of global plane `iz`; the plan guarantees that a plane outside the slab is
    /// one of the two halos.
    fn get(&self, iz: usize, iy: usize) -> &'x [S] {
        let (n, pl) = (self.n, self.n * self.n);
        let plane: &'x [S] = if (self.z0..self.z1).contains(&iz) {
            &self.local[(iz - self.z0) * pl..(iz - self.z0 + 1) * pl]
        } else if iz == self.below_z && !self.below.is_empty() {
            self.below
        } else {
            debug_assert!(iz == self.z1 % n && !self.above.is_empty());
            self.above
        };
        &plane[iy * n..(iy + 1) * n]
    }
}

/// Halo planes received by one part: the plane under its slab and the one over it.
struct Halos<S> {
    below: Option<Vec<S>>,
    above: Option<Vec<S>>,
}

impl<'a, S: RealScalar> PartitionedStencil<'a, S> {
    /// The operator `op` split by `partition`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a 2D grid; [`Error::DimensionMismatch`] when the partition
    /// does not cover the grid's planes.
    pub fn new(op: &'a Stencil<S>, partition: ZPartition) -> Result<Self> {
        if op.grid().dim() != Dim::Three {
            return Err(Error::Unsupported(
                "the z-partition splits 3D grids; a 2D grid is one plane".into(),
            ));
        }
        check_dim(
            "PartitionedStencil: planes",
            op.grid().planes(),
            partition.planes(),
        )?;
        let plan = HaloPlan::new(&partition, op.grid().boundary());
        Ok(PartitionedStencil {
            op,
            partition,
            plan,
        })
    }

    /// The partition.
    pub fn partition(&self) -> &ZPartition {
        &self.partition
    }

    /// The halo plan.
    pub fn plan(&self) -> &HaloPlan {
        &self.plan
    }

    fn check_parts(&self, what: &'static str, v: &[Vec<S>]) -> Result<()> {
        check_dim(what, self.partition.parts(), v.len())?;
        let pl = self.op.grid().plane_len();
        for (p, part) in v.iter().enumerate() {
            check_dim(what, self.partition.range(p).len() * pl, part.len())?;
        }
        Ok(())
    }

    /// Packs and exchanges the halos of `x`: one buffer per neighbour, one copy each way.
    fn exchange(&self, x: &[Vec<S>]) -> Vec<Halos<S>> {
        let pl = self.op.grid().plane_len();
        // Packing: the bottom plane goes down, the top plane goes up (radius-1 stencil).
        let bottom = |q: usize| x[q][..pl].to_vec();
        let top = |q: usize| x[q][x[q].len() - pl..].to_vec();
        (0..self.partition.parts())
            .into_par_iter()
            .map(|p| Halos {
                below: self.plan.below[p].map(top),
                above: self.plan.above[p].map(bottom),
            })
            .collect()
    }

    /// Runs `body(row source, global plane, output plane)` over the edge planes (`edges`)
    /// or the interior planes of every part, in parallel; sums what `body` returns.
    fn sweep<F>(
        &self,
        x: &[Vec<S>],
        halos: Option<&[Halos<S>]>,
        edges: bool,
        out: &mut [Vec<S>],
        body: &F,
    ) -> f64
    where
        F: Fn(&Rows<'_, S>, usize, &mut [S]) -> f64 + Sync,
    {
        let g = *self.op.grid();
        let (n, pl) = (g.n(), g.plane_len());
        out.par_iter_mut()
            .enumerate()
            .map(|(p, yp)| {
                let r = self.partition.range(p);
                let m = r.len();
                let (z0, z1) = (r.start, r.end);
                let empty: &[S] = &[];
                let (hb, ha) = match halos {
                    Some(h) => (
                        h[p].below.as_deref().unwrap_or(empty),
                        h[p].above.as_deref().unwrap_or(empty),
                    ),
                    None => (empty, empty),
                };
                let rows = Rows {
                    local: &x[p],
                    z0,
                    z1,
                    below_z: (z0 + n - 1) % n,
                    below: hb,
                    above: ha,
                    n,
                };
                yp.par_chunks_mut(pl)
                    .enumerate()
                    .filter(|(lz, _)| {
                        let edge = *lz == 0 || *lz + 1 == m;
                        edge == edges
                    })
                    .map(|(lz, plane)| body(&rows, z0 + lz, plane))
                    .sum::<f64>()
            })
            .sum()
    }

    /// `y ← α·A·x + β·y` on split vectors.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when the parts do not match the partition.
    pub fn apply(&self, alpha: S, x: &[Vec<S>], beta: S, y: &mut [Vec<S>]) -> Result<()> {
        self.check_parts("PartitionedStencil::apply: x parts", x)?;
        self.check_parts("PartitionedStencil::apply: y parts", y)?;
        let step = ShiftedStep {
            alpha,
            shift: S::zero(),
            coeff: beta,
        };
        self.run(&step, x, y, true).map(|_| ())
    }

    /// The fused step on split vectors: `y_next ← α·A·y_prev + shift·y_prev`,
    /// `p ← p + coeff·y_next`; returns ‖y_next‖₂ over all parts.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when the parts do not match the partition.
    pub fn shifted_step(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &[Vec<S>],
        y_next: &mut [Vec<S>],
        p: &mut [Vec<S>],
    ) -> Result<S> {
        self.check_parts("PartitionedStencil::shifted_step: y_prev parts", y_prev)?;
        self.check_parts("PartitionedStencil::shifted_step: y_next parts", y_next)?;
        self.check_parts("PartitionedStencil::shifted_step: p parts", p)?;
        let ss = self.run(step, y_prev, y_next, false)?;
        for (pp, yp) in p.iter_mut().zip(y_next.iter()) {
            matexp_core::norms::axpby(step.coeff, yp, S::one(), pp);
        }
        let flat: Vec<S> = y_next.iter().flatten().copied().collect();
        Ok(kernel::norm_from_sum_sq(ss, &flat))
    }

    /// Interior planes while the halos travel, then the edge planes. With `axpby`, the
    /// output is `α·Ax + coeff·y` (a product); otherwise `α·Ax + shift·x` (a step).
    fn run(
        &self,
        step: &ShiftedStep<S>,
        x: &[Vec<S>],
        y: &mut [Vec<S>],
        axpby: bool,
    ) -> Result<f64> {
        let ctx = self.op.ctx();
        let n = self.op.grid().n();
        let body = |rows: &Rows<'_, S>, iz: usize, yplane: &mut [S]| {
            let mut ax = vec![S::zero(); n];
            let mut ss = 0.0;
            for (iy, yrow) in yplane.chunks_mut(n).enumerate() {
                ctx.row_ax(iz, iy, &|a, b| rows.get(a, b), &mut ax);
                if axpby {
                    let beta = step.coeff;
                    for (yi, &a) in yrow.iter_mut().zip(&ax) {
                        *yi = if beta == S::zero() {
                            step.alpha * a
                        } else {
                            step.alpha * a + beta * *yi
                        };
                    }
                } else {
                    let xr = rows.get(iz, iy);
                    for ((yi, &a), &xi) in yrow.iter_mut().zip(&ax).zip(xr) {
                        *yi = step.alpha * a + step.shift * xi;
                    }
                    ss += kernel::sum_sq(yrow);
                }
            }
            ss
        };
        let (halos, interior) =
            rayon::join(|| self.exchange(x), || self.sweep(x, None, false, y, &body));
        let edges = self.sweep(x, Some(&halos), true, y, &body);
        Ok(interior + edges)
    }
}
