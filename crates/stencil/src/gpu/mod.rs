//! The stencil on one GPU (feature `gpu`): the same operator as [`Stencil`], with this
//! crate's kernels (`kernels/stencil.cu`, embedded as PTX) loaded through `matexp-gpu`'s
//! kernel API.
//!
//! * [`GpuStencil`] implements [`LinearOperator`] on [`GpuBackend`]: `y ← αAx + βy`, and
//!   the fused step (product, update and norm in one pass over memory, the norm finished
//!   by a one-block kernel and a 24-byte copy).
//! * The Lanczos step in one pass of the streaming kernel: the product with its four sums
//!   ([`FusedOperator::lanczos_product`]: w ← A·q_j − β_j·q_{j−1}, reads 2n, writes n), and
//!   the deferred step's advance ([`FusedOperator::lanczos_advance`]: q_{j+1} formed from
//!   w_prev and q_j where the product gathers it, stored once; reads 2n, writes 2n, against
//!   6n for a product and a separate update pass). The sums stay on the device (per-block
//!   rows, then the GPU crate's `finish_sum`), so a step has no host round trip.
//! * Three kernels ([`StencilKernel`]): seed 003's naive kernel (a thread per point, seven
//!   loads), the optimized one (2.5D blocking: a 32×8 tile marches along z, the column's
//!   three planes in registers, the tile's plane in shared memory), and the streaming one
//!   (the same march without shared memory or barriers, each column's ring of registers
//!   running several planes ahead so that enough bytes are in flight to stream at DRAM
//!   speed; the in-plane neighbours come through L1).
//! * Inhomogeneous Dirichlet data ([`BoundaryEval`]): the seed's two functions evaluated in
//!   the kernel, or the precomputed `b` read at the points next to the boundary only.
//! * [`pointwise`]: the combustion source, full or fast.
//!
//! User pointwise functions on the GPU: the built-ins are chosen by the [`Pointwise`] enum,
//! and any other function is a kernel of the user's crate, loaded and launched through the
//! same public kernel API this module uses (`matexp_gpu::rt::{PtxModule, Kernel}`; see
//! `crates/gpu/README.md`). A closure cannot run on the GPU, and compiling user source at
//! run time (NVRTC) would need `libnvrtc` on every GPU host; an enum of built-ins plus the
//! kernel API covers the seed's needs and leaves every other function one `.cu` file away.

mod params;
mod partition;

pub use partition::GpuPartitionedStencil;

use crate::grid::{Boundary, Dim};
use crate::nonlinear::Pointwise;
use crate::stencil::Stencil;
use crate::terms::{BoundaryFunction, Coefficient};
use matexp_core::FusedOperator;
use matexp_core::{
    Error, LinearOperator, RealScalar, Result, ShiftedStep, SpectralBounds, check_dim,
};
use matexp_gpu::rt::{Device, DeviceBuffer, DeviceElement, Kernel, LaunchConfig, PtxModule};
use matexp_gpu::sys::MxSsqPartial;
use matexp_gpu::{GpuBackend, GpuVector};
use params::*;
use std::sync::{Arc, Mutex};

static STENCIL_PTX: PtxModule = PtxModule::new("stencil", include_str!("../../ptx/stencil.ptx"));

/// Kernel families by boundary variant: Dirichlet (b = 0 or the vector), Dirichlet with the
/// seed's functions in the kernel, Neumann, periodic, frame.
static NAIVE: [Kernel; 5] = [
    Kernel::new(&STENCIL_PTX, "stencil_naive_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_naive_dirichletfn"),
    Kernel::new(&STENCIL_PTX, "stencil_naive_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_naive_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_naive_frame"),
];
pub(crate) static OPT: [Kernel; 5] = [
    Kernel::new(&STENCIL_PTX, "stencil_opt_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_opt_dirichletfn"),
    Kernel::new(&STENCIL_PTX, "stencil_opt_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_opt_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_opt_frame"),
];
pub(crate) static MARCH: [Kernel; 5] = [
    Kernel::new(&STENCIL_PTX, "stencil_march_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_march_dirichletfn"),
    Kernel::new(&STENCIL_PTX, "stencil_march_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_march_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_march_frame"),
];
/// The stacked streaming product (the `(αA + βI)x` product's common case: 3D, a coefficient
/// constant along z, no boundary data), by variant as [`MARCH`]: Dirichlet, Neumann,
/// periodic; `None` for the others. See [`GpuStencil::apply_shifted`].
pub(crate) static MARCH_STACK: [Option<Kernel>; 5] = [
    Some(Kernel::new(&STENCIL_PTX, "stencil_marchstack_dirichlet")),
    None,
    Some(Kernel::new(&STENCIL_PTX, "stencil_marchstack_neumann")),
    Some(Kernel::new(&STENCIL_PTX, "stencil_marchstack_periodic")),
    None,
];
/// The fused step of the streaming kernel, by linear variant (Dirichlet, Neumann, periodic,
/// frame; the step is linear, so no in-kernel boundary functions).
pub(crate) static MARCH_STEP: [Kernel; 4] = [
    Kernel::new(&STENCIL_PTX, "stencil_marchstep_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_marchstep_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_marchstep_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_marchstep_frame"),
];
/// The Lanczos product of the streaming kernel with its sums (w ← A·q_j − β_j·q_{j−1}), by
/// linear variant as [`MARCH_STEP`].
pub(crate) static MARCH_LANCZOS: [Kernel; 4] = [
    Kernel::new(&STENCIL_PTX, "stencil_marchlanczos_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_marchlanczos_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_marchlanczos_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_marchlanczos_frame"),
];
/// The advance of the deferred Lanczos step (q_{j+1} formed where it is gathered, then
/// w ← A·q_{j+1} − β_{j+1}·q_j with its sums), by linear variant as [`MARCH_STEP`].
pub(crate) static MARCH_ADVANCE: [Kernel; 4] = [
    Kernel::new(&STENCIL_PTX, "stencil_marchadvance_dirichlet"),
    Kernel::new(&STENCIL_PTX, "stencil_marchadvance_neumann"),
    Kernel::new(&STENCIL_PTX, "stencil_marchadvance_periodic"),
    Kernel::new(&STENCIL_PTX, "stencil_marchadvance_frame"),
];
/// Column sums of per-block rows into a device array: the GPU crate's reduction finish
/// (`finish_sum` of its `reduce.cu`, one block, fixed order), the finish of its own fused
/// CSR Lanczos product.
static FINISH_SUM: Kernel = Kernel::new(&matexp_gpu::kernels::REDUCE, "finish_sum");
static COMBUSTION: [Kernel; 2] = [
    Kernel::new(&STENCIL_PTX, "combustion_full"),
    Kernel::new(&STENCIL_PTX, "combustion_fast"),
];
pub(crate) static SSQ_FINISH: Kernel = Kernel::new(&STENCIL_PTX, "stencil_ssq_finish");

/// Which kernel runs the products (and, for `Optimized` and `Marching`, the fused step).
///
/// Cost model: one `(αA + βI)x` on `N³` points reads and writes `N³` scalars each, and all
/// three kernels move about the same DRAM bytes; what differs is how many bytes each SM keeps
/// in flight, which bounds a streaming kernel (Little's law: bytes in flight = bandwidth ×
/// latency).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StencilKernel {
    /// One thread per point, all seven values loaded from global memory (the z neighbours
    /// from L2: three L2 reads per point). The seed's naive kernel.
    Naive,
    /// 2.5D blocking: 32×8 tiles marching along z through shared memory, two barriers and
    /// one load in flight per thread and plane (latency-bound). The seed's optimized kernel.
    Optimized,
    /// Streaming march (the default): a 2D block over (x, y) marches along z with each
    /// column's values in a ring of registers that runs 2 (f64) or 6 (f32) planes ahead per
    /// thread, the in-plane neighbours read through L1, no shared memory and no barriers.
    /// One DRAM read and one write per point, plus the tile rims from L2.
    #[default]
    Marching,
}

/// How the product with Dirichlet data obtains the boundary term `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoundaryEval {
    /// The seed's functions ([`BoundaryFunction::Polynomial`], [`BoundaryFunction::SineExp`])
    /// are evaluated in the kernel at the points next to the boundary; other functions fall
    /// back to [`BoundaryEval::Precomputed`].
    InKernel,
    /// `b` is computed on the host once and read at the points next to the boundary.
    #[default]
    Precomputed,
}

struct Scratch {
    partials: DeviceBuffer<f64>,
    total: DeviceBuffer<f64>,
}

/// A [`Stencil`] on one GPU. See the module documentation.
pub struct GpuStencil<S: DeviceElement> {
    device: Arc<Device>,
    op: Stencil<S>,
    coef: Option<DeviceBuffer<S>>,
    b: Option<DeviceBuffer<S>>,
    kernel: StencilKernel,
    eval: BoundaryEval,
    /// Planes per block, when set by [`GpuStencil::with_zchunk`]; else each kernel's default.
    zchunk: Option<u32>,
    /// Block of the streaming product and fused step (x, y) when set by
    /// [`GpuStencil::with_march_block`]; else [`stream_block`] of the grid.
    march_block: Option<(u32, u32)>,
    /// Block of the streaming Lanczos passes when set by [`GpuStencil::with_lanczos_block`];
    /// else [`stream_block`] of the grid.
    lanczos_block: Option<(u32, u32)>,
    scratch: Mutex<Option<Scratch>>,
    /// Per-block rows of the Lanczos sums (4 doubles per block of the streaming grid).
    lanczos_rows: Mutex<Option<DeviceBuffer<f64>>>,
    /// Planes beyond the streaming kernels' register ring prefetched into L2 (0: none).
    prefetch: u32,
}

impl<S: RealScalar + DeviceElement> std::fmt::Debug for GpuStencil<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuStencil({:?}, {:?}, {:?}, zchunk {:?}, block {:?}, Lanczos block {:?}, gpu:{})",
            self.op.grid(),
            self.kernel,
            self.eval,
            self.zchunk,
            self.march_block,
            self.lanczos_block,
            self.device.ordinal()
        )
    }
}

/// A kernel argument for an absent buffer.
pub(crate) const NULL: u64 = 0;

impl<S: RealScalar + DeviceElement> GpuStencil<S> {
    /// Uploads what the kernels read besides `x`: a coefficient field (the seed's `D` is
    /// evaluated in the kernel instead) and the affine term `b`.
    ///
    /// # Errors
    /// [`Error::Device`] when the upload fails or no GPU is present.
    pub fn new(backend: &GpuBackend, op: &Stencil<S>) -> Result<Self> {
        let device = backend.device().clone();
        let coef = match op.coefficient() {
            Coefficient::Unit | Coefficient::Seed => None,
            _ => {
                let g = op.grid();
                let field: Vec<S> = (0..g.len()).map(|i| op.coefficient_at(i)).collect();
                Some(DeviceBuffer::from_host(&device, &field)?)
            }
        };
        let b = match op.affine_term() {
            Some(b) => Some(DeviceBuffer::from_host(&device, b)?),
            None => None,
        };
        Ok(GpuStencil {
            device,
            op: op.clone(),
            coef,
            b,
            kernel: StencilKernel::default(),
            eval: BoundaryEval::default(),
            zchunk: None,
            march_block: None,
            lanczos_block: None,
            scratch: Mutex::new(None),
            lanczos_rows: Mutex::new(None),
            prefetch: 0,
        })
    }

    /// Selects the product kernel. The fused step runs the streaming kernel when it is
    /// selected and the optimized one otherwise (the naive kernel neither accumulates nor
    /// reduces).
    pub fn with_kernel(mut self, kernel: StencilKernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// The selected kernel.
    pub fn kernel(&self) -> StencilKernel {
        self.kernel
    }

    /// The block of the streaming product and fused step, `(x, y)` threads (default
    /// [`stream_block`] of the grid). Wider blocks read longer contiguous runs and fewer rim
    /// lines; taller ones fewer rim rows.
    ///
    /// # Errors
    /// An argument error unless `x·y` is a multiple of 32 (whole warps: the fused step
    /// reduces by warps) and at most 512 (the kernel's register budget is set for 512).
    pub fn with_march_block(mut self, x: u32, y: u32) -> Result<Self> {
        check_march_block("march block", x, y)?;
        self.march_block = Some((x, y));
        Ok(self)
    }

    /// The block of the streaming Lanczos passes ([`FusedOperator::lanczos_product`],
    /// [`FusedOperator::lanczos_advance`]), `(x, y)` threads; default [`stream_block`] of
    /// the grid.
    ///
    /// # Errors
    /// As [`GpuStencil::with_march_block`].
    pub fn with_lanczos_block(mut self, x: u32, y: u32) -> Result<Self> {
        check_march_block("Lanczos block", x, y)?;
        self.lanczos_block = Some((x, y));
        Ok(self)
    }

    /// Makes the streaming kernels (product, fused step, Lanczos passes) prefetch each
    /// column's streamed vectors into L2 `planes` planes beyond their register ring
    /// (`prefetch.global.L2`, no registers held); 0 (the default) prefetches nothing. More
    /// bytes in flight per SM without the registers a deeper ring would take; measured in
    /// the benchmark `gpu_stencil` (records `*_pf<planes>`).
    pub fn with_l2_prefetch(mut self, planes: u32) -> Self {
        self.prefetch = planes;
        self
    }

    /// Selects how Dirichlet data reaches [`GpuStencil::apply_affine`].
    pub fn with_boundary_eval(mut self, eval: BoundaryEval) -> Self {
        self.eval = eval;
        self
    }

    /// Planes one block of the optimized or streaming kernel marches through. Defaults: the
    /// optimized kernel takes about 2048 blocks in all, at least 8 planes each; the streaming
    /// kernel takes as few chunks as fill every SM once ([`march_zchunk`]).
    pub fn with_zchunk(mut self, zchunk: u32) -> Self {
        self.zchunk = Some(zchunk.max(1));
        self
    }

    /// The host operator.
    pub fn host(&self) -> &Stencil<S> {
        &self.op
    }

    /// The device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    fn check(&self, what: &str, v: &GpuVector<S>) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        check_dim(what, self.op.grid().len(), v.len())?;
        if v.device().ordinal() != self.device.ordinal() {
            return Err(Error::invalid(
                "vector",
                format!("{what} on gpu:{}", v.device().ordinal()),
                format!("the operator lives on gpu:{}", self.device.ordinal()),
            ));
        }
        Ok(())
    }

    pub(crate) fn variant(&self, affine: bool) -> (usize, u32) {
        match self.op.grid().boundary() {
            Boundary::Dirichlet if affine => {
                let builtin = match self.op.boundary_function() {
                    BoundaryFunction::Polynomial => Some(MX_BFUN_POLYNOMIAL),
                    BoundaryFunction::SineExp => Some(MX_BFUN_SINE_EXP),
                    _ => None,
                };
                match (self.eval, builtin) {
                    (BoundaryEval::InKernel, Some(code)) => (1, code),
                    _ => (0, MX_BFUN_VECTOR),
                }
            }
            Boundary::Dirichlet => (0, MX_BFUN_NONE),
            Boundary::Neumann => (2, MX_BFUN_NONE),
            Boundary::Periodic => (3, MX_BFUN_NONE),
            Boundary::Frame => (4, MX_BFUN_NONE),
        }
    }

    /// The block of the streaming product and fused step.
    fn march_block(&self) -> (u32, u32) {
        self.march_block
            .unwrap_or_else(|| stream_block(self.op.grid().n()))
    }

    /// Planes per block of `kernel`.
    fn zchunk_for(&self, kernel: StencilKernel) -> u32 {
        let g = self.op.grid();
        self.zchunk.unwrap_or_else(|| match kernel {
            StencilKernel::Marching => march_zchunk(
                g.n(),
                g.planes(),
                self.march_block(),
                self.device.info().multiprocessors,
            ),
            _ => default_zchunk(g.n(), g.planes()),
        })
    }

    /// Grid and block of a marching kernel.
    fn march_config(&self, kernel: StencilKernel) -> LaunchConfig {
        let g = self.op.grid();
        let n = g.n() as u32;
        let block = match kernel {
            StencilKernel::Marching => self.march_block(),
            _ => (MX_STENCIL_BX, MX_STENCIL_BY),
        };
        LaunchConfig {
            grid: (
                n.div_ceil(block.0),
                n.div_ceil(block.1),
                (g.planes() as u32).div_ceil(self.zchunk_for(kernel)),
            ),
            block: (block.0, block.1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The stacked product's kernel, grid and block for variant `v` and boundary data
    /// `bfun`, when it serves this product: the streaming kernel selected, the shifted form
    /// (`(αA + βI)x`), a 3D grid whose side [`MX_STACK_ROWS`] divides, Dirichlet or Neumann
    /// boundaries (periodic in `f32` only), a coefficient constant
    /// along z (unit or the seed's), no boundary data, no L2 prefetch and no block set by
    /// [`GpuStencil::with_march_block`] (which selects `march` with that block). A chunk
    /// length set by [`GpuStencil::with_zchunk`] applies to it too.
    fn stack_launch(
        &self,
        kernel: StencilKernel,
        v: usize,
        bfun: u32,
        shifted: bool,
    ) -> Option<(&'static Kernel, LaunchConfig, u32)> {
        let g = self.op.grid();
        let n = g.n();
        let eligible = kernel == StencilKernel::Marching
            && shifted
            && bfun == MX_BFUN_NONE
            && g.dim() == Dim::Three
            && n % MX_STACK_ROWS as usize == 0
            && self.coef.is_none()
            && self.prefetch == 0
            && self.march_block.is_none();
        // Periodic f64 runs no faster stacked than in `march` (bench-results/notes/tuning.md).
        let periodic_f64 = v == 3 && std::mem::size_of::<S>() == 8;
        let f = MARCH_STACK[v]
            .as_ref()
            .filter(|_| eligible && !periodic_f64)?;
        let block = stack_block(n);
        let zchunk = self.zchunk.unwrap_or_else(|| {
            stack_zchunk(n, g.planes(), block, self.device.info().multiprocessors)
        });
        let n = n as u32;
        let cfg = LaunchConfig {
            grid: (
                n.div_ceil(block.0),
                n.div_ceil(block.1 * MX_STACK_ROWS),
                (g.planes() as u32).div_ceil(zchunk),
            ),
            block: (block.0, block.1, 1),
            shared_mem_bytes: 0,
        };
        Some((f, cfg, zchunk))
    }

    /// Grid, block and planes per block of the streaming Lanczos passes.
    fn lanczos_config(&self) -> (LaunchConfig, u32) {
        let g = self.op.grid();
        let n = g.n() as u32;
        let block = self.lanczos_block.unwrap_or_else(|| stream_block(g.n()));
        let zchunk = self.zchunk.unwrap_or_else(|| {
            march_zchunk(g.n(), g.planes(), block, self.device.info().multiprocessors)
        });
        let cfg = LaunchConfig {
            grid: (
                n.div_ceil(block.0),
                n.div_ceil(block.1),
                (g.planes() as u32).div_ceil(zchunk),
            ),
            block: (block.0, block.1, 1),
            shared_mem_bytes: 0,
        };
        (cfg, zchunk)
    }

    /// The kernel of the fused step.
    fn step_kernel(&self) -> StencilKernel {
        match self.kernel {
            StencilKernel::Marching => StencilKernel::Marching,
            _ => StencilKernel::Optimized,
        }
    }

    /// Queues one product launch: `y ← α(Ax + b) + βy`, or with `shifted`
    /// `y ← α(Ax + b) + βx`; `b` only when `affine`.
    fn launch_product(
        &self,
        kernel: StencilKernel,
        affine: bool,
        shifted: bool,
        alpha: S,
        x: u64,
        beta: S,
        y: u64,
    ) -> Result<()> {
        let (v, bfun) = self.variant(affine);
        let coef = self.coef.as_ref().map_or(NULL, |c| c.device_ptr());
        let b = self.b.as_ref().map_or(NULL, |b| b.device_ptr());
        let n = self.op.grid().n() as u32;
        let stacked = self.stack_launch(kernel, v, bfun, shifted);
        let zchunk = stacked.map_or_else(|| self.zchunk_for(kernel), |(_, _, z)| z);
        let mut p = params_for(&self.op, zchunk, bfun, shifted, alpha, beta, S::zero());
        p.prefetch = self.prefetch;
        // The naive, marching and stacked kernels take the same arguments; the optimized one
        // adds the fused step's accumulator and partials (NULL here).
        let (f, cfg) = match (kernel, stacked) {
            (_, Some((f, cfg, _))) => (f.for_scalar::<S>(&self.device)?, cfg),
            (StencilKernel::Naive, None) => (
                NAIVE[v].for_scalar::<S>(&self.device)?,
                LaunchConfig {
                    grid: (
                        n.div_ceil(32),
                        n.div_ceil(8),
                        self.op.grid().planes() as u32,
                    ),
                    block: (32, 8, 1),
                    shared_mem_bytes: 0,
                },
            ),
            (StencilKernel::Marching, None) => (
                MARCH[v].for_scalar::<S>(&self.device)?,
                self.march_config(kernel),
            ),
            (StencilKernel::Optimized, None) => (
                OPT[v].for_scalar::<S>(&self.device)?,
                self.march_config(kernel),
            ),
        };
        if kernel != StencilKernel::Optimized || stacked.is_some() {
            // SAFETY: stencil_{naive,march,marchstack}_<bc>_<S>(params, x, lo, hi, coef, b, y):
            // x and y hold N^d elements of S (checked by the callers), coef and b N^d or NULL
            // as the params say, no halos (lo = hi = NULL) for a whole grid; the stacked
            // kernel's grid covers whole stacks of MX_STACK_ROWS rows (the side is a
            // multiple, see `stack_launch`).
            return unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&p)
                    .arg(&x)
                    .arg(&NULL)
                    .arg(&NULL)
                    .arg(&coef)
                    .arg(&b)
                    .arg(&y)
                    .launch(cfg)
            };
        }
        // SAFETY: as above; with acc = partials = NULL the optimized kernel writes y only.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&p)
                .arg(&x)
                .arg(&NULL)
                .arg(&NULL)
                .arg(&coef)
                .arg(&b)
                .arg(&y)
                .arg(&NULL)
                .arg(&NULL)
                .launch(cfg)
        }
    }

    /// `y ← α·(A·x + b) + β·y` in one launch (`b` is the affine term of Dirichlet data, 0
    /// otherwise), evaluated as [`BoundaryEval`] says. This is the product of seed 003's
    /// Table I with inhomogeneous boundaries.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for vectors of the wrong length, an argument error for
    /// vectors on another GPU, [`Error::Device`] when the launch fails.
    pub fn apply_affine(
        &self,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        self.check("GpuStencil::apply_affine: x", x)?;
        self.check("GpuStencil::apply_affine: y", y)?;
        let affine = self.op.affine_term().is_some();
        self.launch_product(
            self.kernel,
            affine,
            false,
            alpha,
            x.device_ptr(),
            beta,
            y.device_ptr(),
        )
    }

    /// `y ← (α·A + β·I)·x` in one pass with the configured kernel: the product of seed
    /// 003's Table I (the linear part of `A`).
    ///
    /// With the streaming kernel, on a 3D grid whose side 4 divides, a unit or the seed's
    /// coefficient, Dirichlet or Neumann boundaries (periodic in `f32`: in `f64` it runs no
    /// faster than `march`), no L2 prefetch and no block
    /// set by [`GpuStencil::with_march_block`], the product runs the stacked kernel: each
    /// thread owns four grid rows of one x column, so the y-neighbours inside its stack come
    /// from its own registers. The sums are `march`'s in the same order (the same bits).
    /// Cost: one read of x and one write of y, `2·N³` scalars of traffic, as `march`; the stack
    /// keeps more bytes in flight per thread (measured against the copy bandwidth:
    /// `bench-results/notes/tuning.md`).
    ///
    /// # Errors
    /// As [`GpuStencil::apply_affine`].
    pub fn apply_shifted(
        &self,
        alpha: S,
        beta: S,
        x: &GpuVector<S>,
        y: &mut GpuVector<S>,
    ) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        self.check("GpuStencil::apply_shifted: x", x)?;
        self.check("GpuStencil::apply_shifted: y", y)?;
        self.launch_product(
            self.kernel,
            false,
            true,
            alpha,
            x.device_ptr(),
            beta,
            y.device_ptr(),
        )
    }

    /// `y ← α·(A·x + b) + β·x` in one pass: Table I's product with inhomogeneous boundaries
    /// (`b` from [`BoundaryEval`]; `b = 0` for a linear problem).
    ///
    /// # Errors
    /// As [`GpuStencil::apply_affine`].
    pub fn apply_shifted_affine(
        &self,
        alpha: S,
        beta: S,
        x: &GpuVector<S>,
        y: &mut GpuVector<S>,
    ) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        self.check("GpuStencil::apply_shifted_affine: x", x)?;
        self.check("GpuStencil::apply_shifted_affine: y", y)?;
        let affine = self.op.affine_term().is_some();
        self.launch_product(
            self.kernel,
            affine,
            true,
            alpha,
            x.device_ptr(),
            beta,
            y.device_ptr(),
        )
    }

    /// The step's scratch: one partial sum of squares per block of the step kernel's grid.
    fn scratch(&self) -> Result<std::sync::MutexGuard<'_, Option<Scratch>>> {
        let mut guard = self
            .scratch
            .lock()
            .map_err(|_| Error::Device("stencil scratch poisoned".into()))?;
        if guard.is_none() {
            let (gx, gy, gz) = self.march_config(self.step_kernel()).grid;
            let blocks = (gx * gy * gz) as usize;
            *guard = Some(Scratch {
                partials: DeviceBuffer::zeros(&self.device, 3 * blocks)?,
                total: DeviceBuffer::zeros(&self.device, 3)?,
            });
        }
        Ok(guard)
    }

    /// The fused step (see [`FusedOperator::shifted_step`]) with its norm left on the
    /// device: three doubles (Blue's scaled sums of squares) in the returned guard's
    /// `total`, turned into ‖y_next‖₂ by [`GpuStencil::shifted_step`]. Queued, not waited
    /// for; benchmarks time it without the copy.
    ///
    /// # Errors
    /// As [`GpuStencil::apply_affine`].
    pub fn queue_step(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        self.check("GpuStencil::shifted_step: y_prev", y_prev)?;
        self.check("GpuStencil::shifted_step: y_next", y_next)?;
        self.check("GpuStencil::shifted_step: p", p)?;
        let (v, _) = self.variant(false);
        let kernel = self.step_kernel();
        let zchunk = self.zchunk_for(kernel);
        let mut prm = params_for(
            &self.op,
            zchunk,
            MX_BFUN_NONE,
            true,
            step.alpha,
            step.shift,
            step.coeff,
        );
        prm.prefetch = self.prefetch;
        let coef = self.coef.as_ref().map_or(NULL, |c| c.device_ptr());
        let fin = SSQ_FINISH.get(&self.device)?;
        let guard = self.scratch()?;
        let s = guard
            .as_ref()
            .ok_or_else(|| Error::Device("stencil scratch missing".into()))?;
        let cfg = self.march_config(kernel);
        let (gx, gy, gz) = cfg.grid;
        let blocks = gx * gy * gz;
        let (xp, yp, pp, partials, total) = (
            y_prev.device_ptr(),
            y_next.device_ptr(),
            p.device_ptr(),
            s.partials.device_ptr(),
            s.total.device_ptr(),
        );
        if kernel == StencilKernel::Marching {
            let f = MARCH_STEP[step_variant(v)].for_scalar::<S>(&self.device)?;
            // SAFETY: stencil_marchstep_<bc>_<S>(params, x, lo, hi, coef, y, acc, partials)
            // with vectors of N^d elements (checked), partials of one MxSsqPartial per block
            // of this grid (the scratch is sized by the same grid).
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&prm)
                    .arg(&xp)
                    .arg(&NULL)
                    .arg(&NULL)
                    .arg(&coef)
                    .arg(&yp)
                    .arg(&pp)
                    .arg(&partials)
                    .launch(cfg)?;
            }
        } else {
            let f = OPT[v].for_scalar::<S>(&self.device)?;
            // SAFETY: stencil_opt_<bc>_<S>(params, x, lo, hi, coef, b, y, acc, partials)
            // with vectors of N^d elements (checked), partials of one MxSsqPartial per block.
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&prm)
                    .arg(&xp)
                    .arg(&NULL)
                    .arg(&NULL)
                    .arg(&coef)
                    .arg(&NULL)
                    .arg(&yp)
                    .arg(&pp)
                    .arg(&partials)
                    .launch(cfg)?;
            }
        }
        // SAFETY: stencil_ssq_finish(count, partials, out) over those blocks into 3 doubles.
        unsafe {
            self.device
                .launch_builder(fin)
                .arg(&blocks)
                .arg(&partials)
                .arg(&total)
                .launch(LaunchConfig::linear(1, 256))
        }
    }

    /// Checks the coefficient and sums arrays of a Lanczos call: on this GPU, `c` of at
    /// least `c_len` doubles, `sums` of at least [`matexp_core::LANCZOS_SUMS`].
    fn check_lanczos(&self, c: &GpuVector<f64>, sums: &GpuVector<f64>, c_len: usize) -> Result<()> {
        for (what, v) in [("c", c), ("sums", sums)] {
            if v.device().ordinal() != self.device.ordinal() {
                return Err(Error::invalid(
                    "vector",
                    format!("{what} on gpu:{}", v.device().ordinal()),
                    format!("the operator lives on gpu:{}", self.device.ordinal()),
                ));
            }
        }
        if c.len() < c_len || sums.len() < matexp_core::LANCZOS_SUMS {
            return Err(Error::dim(
                "GpuStencil Lanczos: coefficient and sums arrays",
                c_len.max(matexp_core::LANCZOS_SUMS),
                c.len().min(sums.len()),
            ));
        }
        Ok(())
    }

    /// Queues one Lanczos pass of the streaming kernel and the finish of its sums into
    /// `sums[0..4]`. `advance`: x = w_prev, xq = q_j, q_next written (the deferred step);
    /// otherwise x = q_j, xq = q_{j−1} or 0 (no subtraction), q_next unused. Always the
    /// streaming kernel, whatever [`GpuStencil::with_kernel`] selected: the naive and
    /// optimized kernels have no Lanczos form.
    #[allow(clippy::too_many_arguments)]
    fn queue_lanczos(
        &self,
        advance: bool,
        x: u64,
        xq: u64,
        c: u64,
        j: usize,
        sums: u64,
        q_next: u64,
        w: u64,
    ) -> Result<()>
    where
        S: matexp_core::Scalar,
    {
        let v = step_variant(linear_variant(&self.op));
        let (cfg, zchunk) = self.lanczos_config();
        let mut prm = params_for(
            &self.op,
            zchunk,
            MX_BFUN_NONE,
            false,
            S::one(),
            S::zero(),
            S::zero(),
        );
        prm.prefetch = self.prefetch;
        let (gx, gy, gz) = cfg.grid;
        let blocks = gx * gy * gz;
        let coef = self.coef.as_ref().map_or(NULL, |c| c.device_ptr());
        let fin = FINISH_SUM.get(&self.device)?;
        let mut guard = self
            .lanczos_rows
            .lock()
            .map_err(|_| Error::Device("stencil Lanczos scratch poisoned".into()))?;
        if guard.as_ref().is_none_or(|r| r.len() < 4 * blocks as usize) {
            *guard = Some(DeviceBuffer::zeros(&self.device, 4 * blocks as usize)?);
        }
        let rows = guard.as_ref().map_or(NULL, |r| r.device_ptr());
        let j64 = j as u64;
        if advance {
            let f = MARCH_ADVANCE[v].for_scalar::<S>(&self.device)?;
            // SAFETY: stencil_marchadvance_<bc>_<S>(params, w_prev, q, coef, c, j, sums,
            // q_next, w, partials): w_prev, q, q_next, w hold N^d elements of S (checked by
            // the caller; w overlaps none of the others, q_next neither w_prev nor q), coef
            // N^d or NULL as the params say, c at least 2j + 2 doubles and sums 5 (checked),
            // rows 4 doubles per block of this grid (sized above).
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&prm)
                    .arg(&x)
                    .arg(&xq)
                    .arg(&coef)
                    .arg(&c)
                    .arg(&j64)
                    .arg(&sums)
                    .arg(&q_next)
                    .arg(&w)
                    .arg(&rows)
                    .launch(cfg)?;
            }
        } else {
            let f = MARCH_LANCZOS[v].for_scalar::<S>(&self.device)?;
            // SAFETY: stencil_marchlanczos_<bc>_<S>(params, q, q_prev, coef, c, j, w,
            // partials): q, w and q_prev (unless NULL) hold N^d elements of S, w overlapping
            // neither; c holds 2j + 2 doubles (c[2j − 1] is read only with q_prev, j ≥ 1);
            // rows 4 doubles per block of this grid.
            unsafe {
                self.device
                    .launch_builder(f)
                    .arg(&prm)
                    .arg(&x)
                    .arg(&xq)
                    .arg(&coef)
                    .arg(&c)
                    .arg(&j64)
                    .arg(&w)
                    .arg(&rows)
                    .launch(cfg)?;
            }
        }
        let width = 4u32;
        // SAFETY: finish_sum(nparts, width, partials, out): `blocks` rows of 4 doubles just
        // written, into sums[0..4] (sums holds 5 doubles; sums[4], the settle's flag, is
        // left alone).
        unsafe {
            self.device
                .launch_builder(fin)
                .arg(&blocks)
                .arg(&width)
                .arg(&rows)
                .arg(&sums)
                .launch(LaunchConfig::linear(1, matexp_gpu::sys::MX_REDUCE_THREADS))
        }
    }

    /// The sum of squares left by the last [`GpuStencil::queue_step`], as ‖y_next‖₂ (waits).
    fn step_norm(&self) -> Result<f64> {
        let guard = self.scratch()?;
        let s = guard
            .as_ref()
            .ok_or_else(|| Error::Device("stencil scratch missing".into()))?;
        let mut v = [0.0f64; 3];
        s.total.download(&mut v)?;
        Ok(matexp_gpu::ssq_norm(&MxSsqPartial {
            small: v[0],
            medium: v[1],
            big: v[2],
        }))
    }
}

/// `y_i ← g(x_i)` on the GPU for a built-in pointwise function ([`Pointwise`]), then a check
/// that every value is finite (one 8-byte copy and a wait).
///
/// ```no_run
/// use matexp_core::Backend;
/// use matexp_gpu::GpuBackend;
/// use matexp_stencil::{Pointwise, gpu::pointwise};
/// let gpu = GpuBackend::new(0)?;
/// let x = gpu.upload(&[0.5f64, 1.0, 1.5])?;
/// let mut y = gpu.zeros::<f64>(3)?;
/// pointwise(&gpu, Pointwise::Combustion, &x, &mut y)?;
/// assert_eq!(gpu.to_host(&y)?[1], 0.25);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::NonFinite`] naming the least index whose value is not finite;
/// [`Error::DimensionMismatch`] for vectors of different lengths; an argument error for
/// vectors on another GPU; [`Error::Device`] when the launch fails.
pub fn pointwise<S: RealScalar + DeviceElement>(
    backend: &GpuBackend,
    f: Pointwise,
    x: &GpuVector<S>,
    y: &mut GpuVector<S>,
) -> Result<()> {
    let mut flag = DeviceBuffer::<u64>::from_host(backend.device(), &[u64::MAX])?;
    queue_pointwise(backend, f, x, y, &mut flag)?;
    let mut bad = [0u64];
    flag.download(&mut bad)?;
    if bad[0] == u64::MAX {
        return Ok(());
    }
    let i = bad[0] as usize;
    let (mut u, mut g) = ([S::zero()], [S::zero()]);
    x.download_range(i, &mut u)?;
    y.download_range(i, &mut g)?;
    Err(Error::NonFinite {
        context: format!("pointwise function {f:?} on the GPU at u = {}", u[0]),
        index: i,
        value: format!("{}", g[0]),
    })
}

/// Queues `y_i ← g(x_i)`; `flag` (one `u64`, set to `u64::MAX` beforehand) receives the
/// least index of a non-finite value. For timing; [`pointwise`] checks.
///
/// # Errors
/// As [`pointwise`], without the finiteness check.
pub fn queue_pointwise<S: RealScalar + DeviceElement>(
    backend: &GpuBackend,
    f: Pointwise,
    x: &GpuVector<S>,
    y: &mut GpuVector<S>,
    flag: &mut DeviceBuffer<u64>,
) -> Result<()> {
    let device = backend.device();
    check_dim("pointwise: y length", x.len(), y.len())?;
    for (what, o) in [
        ("x", x.device().ordinal()),
        ("y", y.device().ordinal()),
        ("flag", flag.device().ordinal()),
    ] {
        if o != device.ordinal() {
            return Err(Error::invalid(
                "vector",
                format!("{what} on gpu:{o}"),
                format!("the backend runs on gpu:{}", device.ordinal()),
            ));
        }
    }
    check_dim("pointwise: flag length", 1, flag.len())?;
    let k = COMBUSTION[f.code() as usize].for_scalar::<S>(device)?;
    let n = x.len() as u64;
    let (xp, yp) = (x.device_ptr(), y.device_ptr());
    // SAFETY: combustion_<v>_<S>(n, x, y, first_bad) over n elements of x and y (same
    // length, checked), and one u64 at first_bad.
    unsafe {
        device
            .launch_builder(k)
            .arg(&n)
            .arg(&xp)
            .arg(&yp)
            .arg(flag)
            .launch(LaunchConfig::grid_stride(device, x.len(), 256))
    }
}

/// The launch parameters of `op` over its whole grid (z0 = 0, nz = planes).
pub(crate) fn params_for<S: RealScalar>(
    op: &Stencil<S>,
    zchunk: u32,
    bfun: u32,
    step: bool,
    alpha: S,
    beta: S,
    coeff: S,
) -> MxStencilParams {
    let g = op.grid();
    MxStencilParams {
        n: g.n() as u32,
        nz: g.planes() as u32,
        z0: 0,
        dim: g.dim().axes() as u32,
        bfun,
        coef: match op.coefficient() {
            Coefficient::Unit => MX_COEF_UNIT,
            Coefficient::Seed => MX_COEF_SEED,
            _ => MX_COEF_FIELD,
        },
        zchunk,
        step: step as u32,
        prefetch: 0,
        reserved: 0,
        h: g.h(),
        inv_h2: g.inv_h2(),
        alpha: alpha.as_f64(),
        beta: beta.as_f64(),
        coeff: coeff.as_f64(),
    }
}

/// The kernel family of `op`'s linear part (no affine term).
pub(crate) fn linear_variant<S: RealScalar>(op: &Stencil<S>) -> usize {
    match op.grid().boundary() {
        Boundary::Dirichlet => 0,
        Boundary::Neumann => 2,
        Boundary::Periodic => 3,
        Boundary::Frame => 4,
    }
}

/// Index into [`MARCH_STEP`] of a linear variant of [`linear_variant`] (0, 2, 3, 4).
pub(crate) fn step_variant(v: usize) -> usize {
    v.saturating_sub(1)
}

/// Planes per block of the streaming kernel with `block` threads on `sms` SMs: the fewest
/// z-chunks whose blocks still fit on the device at once (1024 threads per SM, the kernel's
/// register budget), so the grid runs in one wave. One wave matters twice: no tail of a
/// partial wave, and every block's neighbours march beside it, so the tile rims it reads
/// are still in L2 (a later wave would re-read them from DRAM). Long chunks also amortize
/// the two extra planes and the ring's start of each chunk. Grids with more tiles than the
/// device holds take whole columns (several waves, the last nearly full at large N).
///
/// 256³ with 256×2 blocks ([`stream_block`]) on 132 SMs: 128 tiles, 264 resident blocks, 2
/// chunks of 128 planes.
pub fn march_zchunk(n: usize, planes: usize, block: (u32, u32), sms: u32) -> u32 {
    let threads = (block.0 * block.1).max(32) as usize;
    let per_sm = (MX_MARCH_MAX_THREADS * MX_MARCH_MIN_BLOCKS) as usize;
    let resident = sms.max(1) as usize * (per_sm / threads).max(1);
    let tiles = n.div_ceil(block.0.max(1) as usize) * n.div_ceil(block.1.max(1) as usize);
    let chunks = (resident / tiles.max(1)).clamp(1, planes.max(1));
    planes.div_ceil(chunks).max(1) as u32
}

/// The block of the streaming kernels (product, fused step, Lanczos passes) on a grid of `n`
/// points per axis: rows as wide as the grid up to 256 threads (a multiple of 32), 512
/// threads in all (256×2 at N = 256, 128×4 at 128, 32×16 below 33). Wide rows leave fewer
/// in-plane neighbours outside the block, which come from L2 instead of L1 (the block sweep
/// behind the shape: `bench-results/notes/tuning.md`).
pub fn stream_block(n: usize) -> (u32, u32) {
    let x = (n.clamp(1, 256).div_ceil(32) * 32) as u32;
    (x, MX_MARCH_MAX_THREADS / x)
}

/// The block of the stacked product on a grid of `n` points per axis: rows as wide as the
/// grid up to 256 threads (a multiple of 32), [`MX_STACK_THREADS`] threads in all (256×1 at
/// N = 256, 128×2 at 128); each thread owns [`MX_STACK_ROWS`] grid rows.
pub(crate) fn stack_block(n: usize) -> (u32, u32) {
    let x = (n.clamp(1, 256).div_ceil(32) * 32) as u32;
    (x, (MX_STACK_THREADS / x).max(1))
}

/// Planes per block of the stacked product: as few chunks as fill every SM once with
/// [`MX_STACK_MIN_BLOCKS`] blocks (as [`march_zchunk`] for `march`).
pub(crate) fn stack_zchunk(n: usize, planes: usize, block: (u32, u32), sms: u32) -> u32 {
    let resident = sms.max(1) as usize * MX_STACK_MIN_BLOCKS as usize;
    let tiles =
        n.div_ceil(block.0.max(1) as usize) * n.div_ceil((block.1.max(1) * MX_STACK_ROWS) as usize);
    let chunks = (resident / tiles.max(1)).clamp(1, planes.max(1));
    planes.div_ceil(chunks).max(1) as u32
}

/// Checks a block of the streaming kernel: whole warps (the sums reduce by warps), at most
/// [`MX_MARCH_MAX_THREADS`] threads (the kernel's register budget).
fn check_march_block(what: &'static str, x: u32, y: u32) -> Result<()> {
    let threads = x as u64 * y as u64;
    if x == 0 || y == 0 || threads % 32 != 0 || threads > MX_MARCH_MAX_THREADS as u64 {
        return Err(Error::invalid(
            what,
            format!("{x}×{y}"),
            format!("x·y a multiple of 32, at most {MX_MARCH_MAX_THREADS}"),
        ));
    }
    Ok(())
}

/// Planes per block of the optimized kernel: about 2048 blocks in all, at least 8 planes.
pub(crate) fn default_zchunk(n: usize, planes: usize) -> u32 {
    let tiles = n.div_ceil(MX_STENCIL_BX as usize) * n.div_ceil(MX_STENCIL_BY as usize);
    let chunks = 2048usize.div_ceil(tiles).clamp(1, planes.max(1));
    planes.div_ceil(chunks).max(8.min(planes)).max(1) as u32
}

impl<S: RealScalar + DeviceElement> LinearOperator<GpuBackend, S> for GpuStencil<S> {
    fn nrows(&self) -> usize {
        self.op.grid().len()
    }
    fn ncols(&self) -> usize {
        self.op.grid().len()
    }

    /// `y ← α·A·x + β·y` (the linear part; the affine term is [`GpuStencil::apply_affine`]).
    fn apply(
        &self,
        _: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.check("GpuStencil::apply: x", x)?;
        self.check("GpuStencil::apply: y", y)?;
        self.launch_product(
            self.kernel,
            false,
            false,
            alpha,
            x.device_ptr(),
            beta,
            y.device_ptr(),
        )
    }

    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        LinearOperator::<matexp_core::CpuBackend, S>::spectral_bounds(&self.op)
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        LinearOperator::<matexp_core::CpuBackend, S>::spectral_bounds_are_tight(&self.op)
    }
    fn is_hermitian(&self) -> bool {
        LinearOperator::<matexp_core::CpuBackend, S>::is_hermitian(&self.op)
    }
    fn norm_bound(&self) -> Option<f64> {
        LinearOperator::<matexp_core::CpuBackend, S>::norm_bound(&self.op)
    }

    fn fused(&self) -> Option<&dyn FusedOperator<GpuBackend, S>> {
        Some(self)
    }
}

impl<S: RealScalar + DeviceElement> FusedOperator<GpuBackend, S> for GpuStencil<S> {
    /// One pass of the optimized kernel plus a one-block finish and a 24-byte copy.
    fn shifted_step(
        &self,
        _: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<S> {
        self.queue_step(step, y_prev, y_next, p)?;
        Ok(S::from_f64(self.step_norm()?))
    }
    /// One pass of the streaming kernel (`stencil_marchlanczos`): w ← A·q_j − β_j·q_{j−1}
    /// with (⟨q_j, w⟩, 0, ‖w‖², ‖q_j‖²) summed in the same pass, per block, then finished on
    /// the device into `sums[0..4]` (the GPU crate's `finish_sum`). Nothing waits.
    ///
    /// **Cost.** Reads q_j and q_{j−1}, writes w: 3n scalars (2n at j = 0), against 3n for
    /// the product plus 3n (4n with the subtraction) for the default's separate sums pass.
    ///
    /// **Accuracy.** w is the product of [`LinearOperator::apply`] with β_j·q_{j−1}
    /// subtracted by one fused multiply-add; the sums are accumulated in `f64` per thread,
    /// then per block and over blocks in a fixed order (rounding ~ε·‖w‖²·√(points per
    /// thread), reproducible run to run).
    fn lanczos_product(
        &self,
        _: &GpuBackend,
        j: usize,
        q_prev: Option<&GpuVector<S>>,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.check("GpuStencil::lanczos_product: q", q)?;
        self.check("GpuStencil::lanczos_product: w", w)?;
        self.check_lanczos(c, sums, 2 * j + 2)?;
        let prev = match q_prev.filter(|_| j > 0) {
            Some(p) => {
                self.check("GpuStencil::lanczos_product: q_prev", p)?;
                p.device_ptr()
            }
            None => NULL,
        };
        self.queue_lanczos(
            false,
            q.device_ptr(),
            prev,
            c.device_ptr(),
            j,
            sums.device_ptr(),
            NULL,
            w.device_ptr(),
        )
    }
    /// `true`: [`lanczos_advance`](FusedOperator::lanczos_advance) is one pass.
    fn lanczos_advance_fused(&self) -> bool {
        true
    }
    /// One pass of the streaming kernel (`stencil_marchadvance`): every value of q_{j+1}
    /// the product gathers is formed on the fly, q_{j+1} = (w_prev − α_j·q_j)·(1/β_{j+1})
    /// (α_j = `c[2j]`, β_{j+1} = `c[2j + 1]`) where the settle left `sums[4] = 0`, else
    /// w_prev itself; the point's own value goes to `q_next` (the same bits as those
    /// gathered: one device function, the operations of the GPU crate's Pythagorean update),
    /// and w ← A·q_{j+1} − β_{j+1}·q_j with the sums of step j + 1, finished on the device.
    ///
    /// **Cost.** Reads w_prev and q_j, writes q_{j+1} and w: 4n scalars, against 6n for the
    /// default's [`Backend::lanczos_form`](matexp_core::Backend::lanczos_form) (3n) and
    /// product (3n). The neighbours' w_prev and q_j come through L1 as the product's do.
    ///
    /// **Accuracy.** As [`lanczos_product`](FusedOperator::lanczos_product) taken of
    /// q_{j+1}: the same vector, the sums in another order.
    fn lanczos_advance(
        &self,
        _: &GpuBackend,
        j: usize,
        q: &GpuVector<S>,
        w_prev: &GpuVector<S>,
        q_next: &mut GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.check("GpuStencil::lanczos_advance: q", q)?;
        self.check("GpuStencil::lanczos_advance: w_prev", w_prev)?;
        self.check("GpuStencil::lanczos_advance: q_next", q_next)?;
        self.check("GpuStencil::lanczos_advance: w", w)?;
        self.check_lanczos(c, sums, 2 * j + 4)?;
        self.queue_lanczos(
            true,
            w_prev.device_ptr(),
            q.device_ptr(),
            c.device_ptr(),
            j,
            sums.device_ptr(),
            q_next.device_ptr(),
            w.device_ptr(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanczos_blocks_are_whole_warps_within_the_register_budget() {
        for n in 1..=600 {
            let (x, y) = stream_block(n);
            assert!(
                check_march_block("Lanczos block", x, y).is_ok(),
                "n = {n}: {x}×{y}"
            );
            assert_eq!(x % 32, 0, "n = {n}");
            // As wide as the grid (up to 256), so no row of a block is mostly idle.
            assert!(
                x as usize >= n.min(256) && (x as usize) < n.min(256) + 32,
                "n = {n}"
            );
        }
        assert_eq!(stream_block(256), (256, 2));
        assert_eq!(stream_block(128), (128, 4));
        assert_eq!(stream_block(20), (32, 16));
        assert!(check_march_block("b", 16, 1).is_err());
        assert!(check_march_block("b", 33, 32).is_err());
    }
}
