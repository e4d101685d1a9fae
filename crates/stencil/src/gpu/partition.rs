//! The z-split of [`crate::partition`] on GPUs: one slab per device (or several slabs on one
//! device, as the tests do), halos exchanged by copies that overlap the interior product.
//!
//! Per product, for every part `p` with slab planes `z_p..z_{p+1}` (`m` planes):
//!
//! 1. The halo of a z-split with a radius-1 stencil is one contiguous plane, so it is its
//!    own packed buffer: for each neighbour, one copy (peer copy between devices) of the
//!    neighbour's edge plane into `p`'s receive buffer, on the sender's copy stream, after
//!    the sender's work (`x` ready) and the receiver's previous product (buffer free).
//! 2. The interior planes `1..m−1` on `p`'s work stream, concurrently with the copies
//!    (their neighbours are all in the slab).
//! 3. `p`'s work stream waits for its incoming copies, then the two edge planes.
//!
//! Written for any number of parts and devices ([`HaloPlan`] says who sends what to whom);
//! a part's vectors are [`GpuVector`]s of its slab on its device.

use super::params::{MX_BFUN_NONE, MX_STENCIL_BX, MX_STENCIL_BY};
use super::{NULL, OPT, SSQ_FINISH, default_zchunk, linear_variant, params_for};
use crate::grid::Dim;
use crate::partition::{HaloPlan, ZPartition};
use crate::stencil::Stencil;
use crate::terms::Coefficient;
use matexp_core::{Error, RealScalar, Result, ShiftedStep, check_dim};
use matexp_gpu::cudarc::driver::{CudaStream, result};
use matexp_gpu::rt::{Device, DeviceBuffer, DeviceElement, LaunchConfig};
use matexp_gpu::sys::MxSsqPartial;
use matexp_gpu::{GpuBackend, GpuVector, ssq_add, ssq_norm};
use std::ops::Range;
use std::sync::Arc;

fn dev_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Device(format!("{what}: {e}"))
}

struct Part<S: DeviceElement> {
    device: Arc<Device>,
    /// The stream this part's outgoing halo copies run on.
    copies: Arc<CudaStream>,
    planes: Range<usize>,
    coef: Option<DeviceBuffer<S>>,
    recv_lo: Option<DeviceBuffer<S>>,
    recv_hi: Option<DeviceBuffer<S>>,
    partials: DeviceBuffer<f64>,
    total: DeviceBuffer<f64>,
}

/// A [`Stencil`] split along z over several GPUs (or several slabs of one GPU), with halo
/// exchange overlapping the interior; see the module documentation. Linear part only.
pub struct GpuPartitionedStencil<S: DeviceElement> {
    op: Stencil<S>,
    partition: ZPartition,
    plan: HaloPlan,
    parts: Vec<Part<S>>,
    zchunk: u32,
}

impl<S: RealScalar + DeviceElement> std::fmt::Debug for GpuPartitionedStencil<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuPartitionedStencil({:?}, {} parts on {:?})",
            self.op.grid(),
            self.parts.len(),
            self.parts
                .iter()
                .map(|p| p.device.ordinal())
                .collect::<Vec<_>>()
        )
    }
}

/// One launch of the optimized kernel over local planes `lz0..lz0 + nz` of a part.
struct SlabLaunch {
    lz0: usize,
    nz: usize,
    lo: u64,
    hi: u64,
}

/// What a launch computes.
#[derive(Clone, Copy)]
enum Mode<S: RealScalar> {
    /// `y ← αAx + βy`.
    Apply { alpha: S, beta: S },
    /// `y ← αAx + shift·x`, `acc ← acc + coeff·y`, sums of squares.
    Step { alpha: S, shift: S, coeff: S },
}

impl<S: RealScalar + DeviceElement> GpuPartitionedStencil<S> {
    /// `op` split by `partition`, part `p` on `backends[p]` (the same backend may appear
    /// several times).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a 2D grid; [`Error::DimensionMismatch`] when the partition
    /// does not cover the grid or the backends do not match the parts; [`Error::Device`]
    /// for allocation or stream failures.
    pub fn new(op: &Stencil<S>, partition: ZPartition, backends: &[GpuBackend]) -> Result<Self> {
        let g = *op.grid();
        if g.dim() != Dim::Three {
            return Err(Error::Unsupported(
                "the z-partition splits 3D grids; a 2D grid is one plane".into(),
            ));
        }
        check_dim(
            "GpuPartitionedStencil: planes",
            g.planes(),
            partition.planes(),
        )?;
        check_dim(
            "GpuPartitionedStencil: backends (one per part)",
            partition.parts(),
            backends.len(),
        )?;
        let plan = HaloPlan::new(&partition, g.boundary());
        let pl = g.plane_len();
        let zchunk = default_zchunk(g.n(), g.planes() / partition.parts());
        let tiles = g.n().div_ceil(MX_STENCIL_BX as usize) * g.n().div_ceil(MX_STENCIL_BY as usize);
        let mut parts = Vec::with_capacity(partition.parts());
        for (p, be) in backends.iter().enumerate() {
            let device = be.device().clone();
            let planes = partition.range(p);
            let m = planes.len();
            let coef = match op.coefficient() {
                Coefficient::Unit | Coefficient::Seed => None,
                _ => {
                    let slab: Vec<S> = (planes.start * pl..planes.end * pl)
                        .map(|i| op.coefficient_at(i))
                        .collect();
                    Some(DeviceBuffer::from_host(&device, &slab)?)
                }
            };
            let recv = |on: bool| -> Result<Option<DeviceBuffer<S>>> {
                if on {
                    Ok(Some(DeviceBuffer::zeros(&device, pl)?))
                } else {
                    Ok(None)
                }
            };
            for q in [plan.below[p], plan.above[p]].into_iter().flatten() {
                let other = backends[q].device();
                if other.ordinal() != device.ordinal() {
                    device.enable_peer_access(other)?;
                }
            }
            let blocks = tiles * (m.saturating_sub(2).div_ceil(zchunk as usize) + 2);
            parts.push(Part {
                copies: device
                    .stream()
                    .fork()
                    .map_err(|e| dev_err("creating the halo copy stream", e))?,
                planes,
                coef,
                recv_lo: recv(plan.below[p].is_some())?,
                recv_hi: recv(plan.above[p].is_some())?,
                partials: DeviceBuffer::zeros(&device, 3 * blocks)?,
                total: DeviceBuffer::zeros(&device, 3)?,
                device,
            });
        }
        Ok(GpuPartitionedStencil {
            op: op.clone(),
            partition,
            plan,
            parts,
            zchunk,
        })
    }

    /// The partition.
    pub fn partition(&self) -> &ZPartition {
        &self.partition
    }

    /// Uploads a grid vector as the parts' slabs.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a vector of the wrong length; [`Error::Device`].
    pub fn scatter(&self, x: &[S]) -> Result<Vec<GpuVector<S>>> {
        let pl = self.op.grid().plane_len();
        let slabs = self.partition.split(pl, x)?;
        self.parts
            .iter()
            .zip(&slabs)
            .map(|(p, s)| GpuVector::from_host(&p.device, s))
            .collect()
    }

    /// Downloads the parts' slabs into one grid vector.
    ///
    /// # Errors
    /// [`Error::Device`] when a copy fails.
    pub fn gather(&self, xs: &[GpuVector<S>]) -> Result<Vec<S>> {
        let slabs = xs
            .iter()
            .map(|v| {
                let mut h = vec![S::zero(); v.len()];
                v.download(&mut h).map(|_| h)
            })
            .collect::<Result<Vec<_>>>()?;
        self.partition.gather(self.op.grid().plane_len(), &slabs)
    }

    fn check(&self, what: &'static str, v: &[GpuVector<S>]) -> Result<()> {
        check_dim(what, self.parts.len(), v.len())?;
        let pl = self.op.grid().plane_len();
        for (p, (part, x)) in self.parts.iter().zip(v).enumerate() {
            check_dim(what, part.planes.len() * pl, x.len())?;
            if x.device().ordinal() != part.device.ordinal() {
                return Err(Error::invalid(
                    "vector",
                    format!("{what}[{p}] on gpu:{}", x.device().ordinal()),
                    format!("part {p} lives on gpu:{}", part.device.ordinal()),
                ));
            }
        }
        Ok(())
    }

    /// Queues the halo copies of `xs` (step 1 of the module documentation).
    fn exchange(&self, xs: &[GpuVector<S>]) -> Result<()> {
        let pl = self.op.grid().plane_len();
        let bytes = pl * std::mem::size_of::<S>();
        for (p, part) in self.parts.iter().enumerate() {
            let incoming = [
                (self.plan.below[p], &part.recv_lo, true),
                (self.plan.above[p], &part.recv_hi, false),
            ];
            for (q, recv, from_top) in incoming {
                let (Some(q), Some(recv)) = (q, recv) else {
                    continue;
                };
                let src_part = &self.parts[q];
                let m = src_part.planes.len();
                let src = xs[q].ptr_at(if from_top { (m - 1) * pl } else { 0 });
                let stream = &src_part.copies;
                stream
                    .join(src_part.device.stream())
                    .and_then(|_| stream.join(part.device.stream()))
                    .map_err(|e| dev_err("ordering a halo copy", e))?;
                src_part.device.bind()?;
                // SAFETY: `src` is a plane inside the sender's slab vector and `recv` a plane
                // buffer on the receiver; the copy stream waits for the sender's writes and
                // the receiver's last reads (joins above).
                let r = unsafe {
                    if src_part.device.ordinal() == part.device.ordinal() {
                        result::memcpy_dtod_async(recv.device_ptr(), src, bytes, stream.cu_stream())
                    } else {
                        result::memcpy_peer_async(
                            part.device.cu_context(),
                            recv.device_ptr(),
                            src_part.device.cu_context(),
                            src,
                            bytes,
                            stream.cu_stream(),
                        )
                    }
                };
                r.map_err(|e| dev_err("halo copy", e))?;
            }
        }
        Ok(())
    }

    /// Queues one slab launch of part `p`; returns the blocks it used.
    fn launch(
        &self,
        p: usize,
        mode: Mode<S>,
        s: SlabLaunch,
        x: &GpuVector<S>,
        y: &GpuVector<S>,
        acc: Option<&GpuVector<S>>,
        partial_offset: usize,
    ) -> Result<u32> {
        if s.nz == 0 {
            return Ok(0);
        }
        let part = &self.parts[p];
        let g = self.op.grid();
        let pl = g.plane_len();
        let (alpha, beta, coeff, step) = match mode {
            Mode::Apply { alpha, beta } => (alpha, beta, S::zero(), false),
            Mode::Step {
                alpha,
                shift,
                coeff,
            } => (alpha, shift, coeff, true),
        };
        let mut prm = params_for(
            &self.op,
            self.zchunk,
            MX_BFUN_NONE,
            step,
            alpha,
            beta,
            coeff,
        );
        prm.z0 = (part.planes.start + s.lz0) as u32;
        prm.nz = s.nz as u32;
        let off = s.lz0 * pl;
        let coef = part.coef.as_ref().map_or(NULL, |c| {
            c.device_ptr() + (off * std::mem::size_of::<S>()) as u64
        });
        let (xp, yp) = (x.ptr_at(off), y.ptr_at(off));
        let (ap, pp) = match acc {
            Some(a) => (
                a.ptr_at(off),
                part.partials.device_ptr() + (partial_offset * 3 * 8) as u64,
            ),
            None => (NULL, NULL),
        };
        let n = g.n() as u32;
        let grid = (
            n.div_ceil(MX_STENCIL_BX),
            n.div_ceil(MX_STENCIL_BY),
            (s.nz as u32).div_ceil(self.zchunk),
        );
        let f = OPT[linear_variant(&self.op)].for_scalar::<S>(&part.device)?;
        // SAFETY: stencil_opt_<bc>_<S>(params, x, lo, hi, coef, b, y, acc, partials): x, y
        // (and acc) point at local plane lz0 of slab vectors holding the part's planes
        // (checked), the params cover planes lz0..lz0+nz of the slab, lo/hi are whole planes
        // (halo buffers or planes of x) or NULL, partials has room for the grid's blocks
        // at partial_offset (sized in `new`).
        unsafe {
            part.device
                .launch_builder(f)
                .arg(&prm)
                .arg(&xp)
                .arg(&s.lo)
                .arg(&s.hi)
                .arg(&coef)
                .arg(&NULL)
                .arg(&yp)
                .arg(&ap)
                .arg(&pp)
                .launch(LaunchConfig {
                    grid,
                    block: (MX_STENCIL_BX, MX_STENCIL_BY, 1),
                    shared_mem_bytes: 0,
                })?;
        }
        Ok(grid.0 * grid.1 * grid.2)
    }

    /// Exchange, interior, wait, edges (module documentation); the blocks used per part.
    fn run(
        &self,
        mode: Mode<S>,
        x: &[GpuVector<S>],
        y: &[GpuVector<S>],
        acc: Option<&[GpuVector<S>]>,
    ) -> Result<Vec<u32>> {
        let pl = self.op.grid().plane_len();
        self.exchange(x)?;
        let mut blocks = vec![0u32; self.parts.len()];
        for (p, part) in self.parts.iter().enumerate() {
            let m = part.planes.len();
            if m > 2 {
                let s = SlabLaunch {
                    lz0: 1,
                    nz: m - 2,
                    lo: x[p].ptr_at(0),
                    hi: x[p].ptr_at((m - 1) * pl),
                };
                blocks[p] += self.launch(p, mode, s, &x[p], &y[p], acc.map(|a| &a[p]), 0)?;
            }
        }
        for (p, part) in self.parts.iter().enumerate() {
            for q in [self.plan.below[p], self.plan.above[p]]
                .into_iter()
                .flatten()
            {
                part.device
                    .stream()
                    .join(&self.parts[q].copies)
                    .map_err(|e| dev_err("waiting for halos", e))?;
            }
            let m = part.planes.len();
            let lo = part.recv_lo.as_ref().map_or(NULL, |b| b.device_ptr());
            let hi = part.recv_hi.as_ref().map_or(NULL, |b| b.device_ptr());
            let bottom = SlabLaunch {
                lz0: 0,
                nz: 1,
                lo,
                hi: if m > 1 { x[p].ptr_at(pl) } else { hi },
            };
            let b0 = blocks[p] as usize;
            blocks[p] += self.launch(p, mode, bottom, &x[p], &y[p], acc.map(|a| &a[p]), b0)?;
            if m > 1 {
                let top = SlabLaunch {
                    lz0: m - 1,
                    nz: 1,
                    lo: x[p].ptr_at((m - 2) * pl),
                    hi,
                };
                let b1 = blocks[p] as usize;
                blocks[p] += self.launch(p, mode, top, &x[p], &y[p], acc.map(|a| &a[p]), b1)?;
            }
        }
        // A sender's later work (which may overwrite the planes it sent) waits for its
        // outgoing copies.
        for part in &self.parts {
            part.device
                .stream()
                .join(&part.copies)
                .map_err(|e| dev_err("ordering after the halo copies", e))?;
        }
        Ok(blocks)
    }

    /// `y ← α·A·x + β·y` on slab vectors.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] or an argument error for slabs that do not match the
    /// parts; [`Error::Device`] when a launch or copy fails.
    pub fn apply(
        &self,
        alpha: S,
        x: &[GpuVector<S>],
        beta: S,
        y: &mut [GpuVector<S>],
    ) -> Result<()> {
        self.check("GpuPartitionedStencil::apply: x", x)?;
        self.check("GpuPartitionedStencil::apply: y", y)?;
        self.run(Mode::Apply { alpha, beta }, x, y, None)
            .map(|_| ())
    }

    /// The fused step on slab vectors; returns ‖y_next‖₂ over all parts (waits).
    ///
    /// # Errors
    /// As [`GpuPartitionedStencil::apply`].
    pub fn shifted_step(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &[GpuVector<S>],
        y_next: &mut [GpuVector<S>],
        p: &mut [GpuVector<S>],
    ) -> Result<S> {
        self.check("GpuPartitionedStencil::shifted_step: y_prev", y_prev)?;
        self.check("GpuPartitionedStencil::shifted_step: y_next", y_next)?;
        self.check("GpuPartitionedStencil::shifted_step: p", p)?;
        let blocks = self.run(
            Mode::Step {
                alpha: step.alpha,
                shift: step.shift,
                coeff: step.coeff,
            },
            y_prev,
            y_next,
            Some(p),
        )?;
        let mut total = MxSsqPartial::default();
        for (part, &count) in self.parts.iter().zip(&blocks) {
            let fin = SSQ_FINISH.get(&part.device)?;
            let (partials, out) = (part.partials.device_ptr(), part.total.device_ptr());
            // SAFETY: stencil_ssq_finish(count, partials, out): `count` partial rows were
            // written by this step's launches; out holds 3 doubles.
            unsafe {
                part.device
                    .launch_builder(fin)
                    .arg(&count)
                    .arg(&partials)
                    .arg(&out)
                    .launch(LaunchConfig::linear(1, 256))?;
            }
        }
        for part in &self.parts {
            let mut v = [0.0f64; 3];
            part.total.download(&mut v)?;
            total = ssq_add(
                total,
                MxSsqPartial {
                    small: v[0],
                    medium: v[1],
                    big: v[2],
                },
            );
        }
        Ok(S::from_f64(ssq_norm(&total)))
    }
}
