//! The Bose–Hubbard Hamiltonian on one NVIDIA GPU (feature `gpu`): the kernels of
//! `kernels/fock.cu`, loaded through `matexp-gpu`'s public kernel API.
//!
//! One thread per row in a grid-stride loop. The table `D(r, s)` and the couplings at the
//! product's time (evaluated on the host, uploaded only when they change) are staged in shared
//! memory. The occupations of a row come from one of the [`GpuLookup`]s:
//!
//! | lookup | occupations | hop column | device memory besides x, y |
//! | --- | --- | --- | --- |
//! | [`GpuLookup::DeltaUnrank`] | unranked on the fly (`O(N + M)` shared-memory look-ups) | Δ table, O(1) | `O(N·M)` |
//! | [`GpuLookup::DeltaPacked`] | packed table (4 or 8 bits per site, coalesced) | Δ table, O(1) | `8·D·⌈M·bits/64⌉` bytes |
//! | [`GpuLookup::SearchPacked`] | packed table | binary search of the hopped key, `O(log D)` | `8·D` bytes (`M·bits ≤ 64`) |
//! | [`GpuLookup::DeltaStepped`] | first of 4 rows unranked, the next by successor, in a register key | Δ table, O(1) | `O(N·M)` (`M·bits ≤ 64`) |
//! | [`GpuLookup::DeltaFixed`] | packed table, `M` known at compile time (2 ≤ M ≤ 16) | Δ table, O(1), all gathers in flight at once | as `DeltaPacked` |
//!
//! `SearchPacked` is the Zhang–Dong lookup the seed measures its Δ method against. Bytes floor of a
//! product: `x` read once, `y` written (and read when `β ≠ 0`), plus the packed table where
//! one is used; the neighbours `x[i ± Δ]` are reused from cache when the Δ strides are short.
//!
//! The generic kernels loop over the sites with a run-time trip count and a branch around
//! every hop, so a row waits for its `2(M−1)` gathers of `x` one after the other: they are
//! bound by memory latency, not bandwidth (measurements: `bench-results/notes/tuning.md`).
//! [`GpuLookup::DeltaFixed`] computes every hop column of a row first and then issues all
//! gathers together (one kernel per `M`, 32-bit index arithmetic while `D` allows); its
//! launch is tuned by [`GpuLaunch`].
//!
//! Only `c32` and `c64` are instantiated (the model's state is complex).

use crate::model::{BoseHubbard, Boundary, Coefficients};
use crate::packed::{PackBits, PackedStates};
use matexp_core::{
    Backend, Error, LinearOperator, Result, Scalar, SpectralBounds, TimeDependentOperator, c32,
    c64, check_dim,
};
use matexp_gpu::rt::{Device, DeviceBuffer, Function, Kernel, LaunchConfig, PtxModule};
use matexp_gpu::{GpuBackend, GpuVector};
use std::sync::{Arc, Mutex};

mod mean_field;
pub use mean_field::GpuMeanField;

static FOCK_PTX: PtxModule = PtxModule::new("fock", include_str!("../ptx/fock.ptx"));
static HX_DELTA_PACKED: Kernel = Kernel::new(&FOCK_PTX, "fock_hx_delta_packed");
static HX_DELTA_UNRANK: Kernel = Kernel::new(&FOCK_PTX, "fock_hx_delta_unrank");
static HX_SEARCH_PACKED: Kernel = Kernel::new(&FOCK_PTX, "fock_hx_search_packed");
static HX_DELTA_STEPPED: Kernel = Kernel::new(&FOCK_PTX, "fock_hx_delta_stepped");
/// Consecutive rows per thread of [`GpuLookup::DeltaStepped`] (`STEP_ROWS` in the kernel).
const STEP_ROWS: usize = 4;
static RK_STAGE: Kernel = Kernel::new(&FOCK_PTX, "fock_rk_stage");
static DENSITIES: Kernel = Kernel::new(&FOCK_PTX, "fock_densities");

/// Threads per block of the Fock kernels (the default of [`GpuLaunch::block`]).
const BLOCK: u32 = 256;
/// Site counts with a [`GpuLookup::DeltaFixed`] kernel (`fock_hx_fixed<M>_*`).
pub const FIXED_SITES: std::ops::RangeInclusive<u32> = 2..=16;
/// Dynamic shared memory a launch may use without opting in.
const SHARED_LIMIT: usize = 48 * 1024;

/// How the GPU product finds the occupations of a row and the columns of its hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuLookup {
    /// Unrank every row on the fly, hops by the Δ table: no state table.
    DeltaUnrank,
    /// Occupations from the packed state table, hops by the Δ table (the seed's kernel).
    DeltaPacked,
    /// Occupations from the packed table, hops by binary search of the packed keys.
    SearchPacked,
    /// Each thread unranks the first of 4 consecutive rows into a packed key held in a
    /// register and steps to the next rows by the lexicographic successor; hops by the Δ
    /// table. No state table; needs `M·bits ≤ 64` (M ≤ 8 for N > 15, M ≤ 16 for N ≤ 15).
    DeltaStepped,
    /// [`GpuLookup::DeltaPacked`] with the site count a compile-time constant (kernels for
    /// `M` in [`FIXED_SITES`]): each row is straight-line code that computes all its hop
    /// columns (a hop that does not exist reads the row's own `x`, with weight zero, so no
    /// branch guards a load) and then has all `2(M−1) + 1` gathers of `x` in flight together,
    /// where the generic loop waits for each in turn. 32-bit row indices and a 32-bit Δ table
    /// while `D` plus the grid stride stays below 2³² (64-bit beyond, or when
    /// [`GpuLaunch::wide_index`] asks); the diagonal `Σ_k V_k n_k + U_k/2·n_k(n_k−1)` comes
    /// from a per-site table in shared memory. Same arithmetic, in the same order, as
    /// `DeltaPacked` (the same bits). Registers (sm_90): 96 (c64) and 64 (c32) at M = 8, up
    /// to ~200 at M ≥ 14; the grid is sized to the occupancy the driver reports.
    ///
    /// The registers grow with `M`, and from M ≥ 14 they leave too few warps resident to
    /// hide the gathers' latency: prefer `DeltaPacked` there. Measured times against
    /// `DeltaPacked` and cuSPARSE: `bench-results/notes/tuning.md` and the `gpu_fock` records.
    DeltaFixed,
}

/// Launch options of the products `H·x` (not of the RK stage or the densities): the knobs
/// the benchmark sweeps. The default is the automatic block size and the narrowest indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GpuLaunch {
    /// Threads per block: a multiple of 32 in 32..=256, or 0 (the default) for automatic:
    /// 256 for the generic kernels; for `DeltaFixed`, 128 or 256, whichever keeps more warps
    /// resident (256 on a tie), as the driver computes from the kernel's registers. Smaller
    /// blocks let a kernel with many registers keep more warps resident: at M = 8 the c64
    /// kernel (96 registers) holds 16 warps per SM in blocks of 256 and 20 in blocks of 128
    /// (the faster of the two, `bench-results/notes/tuning.md`); the c32 one (64 registers)
    /// holds 32 either way.
    pub block: u32,
    /// [`GpuLookup::DeltaFixed`] only: use the 64-bit-index kernels even where 32-bit indices
    /// fit (to measure what the narrow indices gain).
    pub wide_index: bool,
}

/// A resolved [`GpuLookup::DeltaFixed`] kernel for one scalar: the function, its grid (one
/// wave: SMs × resident blocks), its dynamic shared memory and index width.
#[derive(Debug, Clone, Copy)]
struct FixedKernel {
    function: Function,
    block: u32,
    grid: u32,
    shared: u32,
    wide: bool,
}

/// The couplings uploaded last, so that a time-independent model uploads once.
#[derive(Debug)]
struct CoeffCache {
    host: Vec<f64>,
    c64: DeviceBuffer<f64>,
    c32: DeviceBuffer<f32>,
}

/// [`BoseHubbard`] on one GPU: a [`TimeDependentOperator`] on [`GpuBackend`] for `c32` and
/// `c64` (the couplings are evaluated by the host at each product's time).
#[derive(Debug)]
pub struct GpuBoseHubbard {
    model: BoseHubbard,
    device: Arc<Device>,
    lookup: GpuLookup,
    launch: GpuLaunch,
    /// The `DeltaFixed` kernels, `[c32, c64]`.
    fixed: Option<[FixedKernel; 2]>,
    table: DeviceBuffer<u64>,
    keys: Option<DeviceBuffer<u64>>,
    words: u32,
    bits: u32,
    coeffs: Mutex<CoeffCache>,
}

impl GpuBoseHubbard {
    /// Uploads `model`'s tables (and the packed states for the packed lookups) to the GPU of
    /// `backend`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the tables exceed the shared memory of a block (48 KiB:
    /// `(N+1)(M+1)` 8-byte entries plus the couplings; for `DeltaFixed` also the diagonal
    /// table, `M(N+1)` reals), the search lookup needs more than one word per state, or
    /// `DeltaFixed` has no kernel for `M`; errors of the packed table ([`PackedStates::new`])
    /// and of the device (`DeltaFixed` loads its kernels here).
    pub fn new(backend: &GpuBackend, model: &BoseHubbard, lookup: GpuLookup) -> Result<Self> {
        let device = backend.device().clone();
        let basis = model.basis();
        let shared = shared_bytes::<f64>(model);
        if shared > SHARED_LIMIT {
            return Err(Error::Unsupported(format!(
                "the GPU product stages {shared} bytes of tables in shared memory, more than \
                 {SHARED_LIMIT}: N = {} and M = {} are too large",
                basis.particles(),
                basis.sites()
            )));
        }
        let (keys, words, bits) = match lookup {
            GpuLookup::DeltaUnrank => (None, 0, 0),
            GpuLookup::DeltaStepped => {
                let b = PackBits::for_particles(basis.particles())?.bits();
                if basis.sites() * b > 64 {
                    return Err(Error::Unsupported(format!(
                        "the stepped lookup keeps a state in one 64-bit word: M = {} sites of \
                         {b} bits do not fit",
                        basis.sites()
                    )));
                }
                (None, 1, b)
            }
            GpuLookup::DeltaPacked | GpuLookup::SearchPacked | GpuLookup::DeltaFixed => {
                if lookup == GpuLookup::DeltaFixed && !FIXED_SITES.contains(&basis.sites()) {
                    return Err(Error::Unsupported(format!(
                        "the fixed-M lookup has kernels for M in {}..={}, not M = {}",
                        FIXED_SITES.start(),
                        FIXED_SITES.end(),
                        basis.sites()
                    )));
                }
                let p = PackedStates::new(basis)?;
                if lookup == GpuLookup::SearchPacked && p.words_per_state() != 1 {
                    return Err(Error::Unsupported(format!(
                        "the search lookup needs M·bits ≤ 64 (M = {}, {} bits per site)",
                        basis.sites(),
                        p.bits().bits()
                    )));
                }
                let w = p.words_per_state() as u32;
                let b = p.bits().bits();
                (Some(DeviceBuffer::from_host(&device, p.words())?), w, b)
            }
        };
        let ncoef = model.bonds() + 2 * basis.sites() as usize + basis.particles() as usize + 2;
        let mut op = GpuBoseHubbard {
            model: model.clone(),
            table: DeviceBuffer::from_host(&device, basis.table())?,
            keys,
            words,
            bits,
            lookup,
            launch: GpuLaunch::default(),
            fixed: None,
            coeffs: Mutex::new(CoeffCache {
                host: Vec::new(),
                c64: DeviceBuffer::zeros(&device, ncoef)?,
                c32: DeviceBuffer::zeros(&device, ncoef)?,
            }),
            device,
        };
        op.resolve_fixed()?;
        Ok(op)
    }

    /// The operator with launch options `launch` (block size, index width).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a block size that is neither 0 (automatic) nor a
    /// multiple of 32 in 32..=256; for `DeltaFixed`, errors of the device while sizing the
    /// grid.
    pub fn with_launch(mut self, launch: GpuLaunch) -> Result<Self> {
        if launch.block > 256 || launch.block % 32 != 0 {
            return Err(Error::invalid(
                "block",
                launch.block,
                "threads per block must be 0 (automatic) or a multiple of 32 in 32..=256",
            ));
        }
        self.launch = launch;
        self.resolve_fixed()?;
        Ok(self)
    }

    /// The launch options in use.
    pub fn launch(&self) -> GpuLaunch {
        self.launch
    }

    /// Looks up the `DeltaFixed` kernels for this `M`, index width and block size, checks
    /// their shared memory and sizes their grid to one wave of resident blocks (every block
    /// then has the same number of rows: no partial last wave).
    fn resolve_fixed(&mut self) -> Result<()> {
        if self.lookup != GpuLookup::DeltaFixed {
            return Ok(());
        }
        let basis = self.model.basis();
        let (n, m) = (basis.particles() as usize, basis.sites() as usize);
        let sms = self.device.info().multiprocessors;
        let resolve = |scalar: &str, real: usize| -> Result<FixedKernel> {
            // Rows fit 32-bit arithmetic when i + stride never wraps: D + grid·block ≤ 2³²
            // (blocks of at most 256 threads, at most 64 of them per SM, bound the stride).
            let stride_max = u64::from(sms) * 64 * 256;
            let wide = self.launch.wide_index || basis.dim() + stride_max > 1u64 << 32;
            let index = if wide { 8 } else { 4 };
            let shared = fixed_shared_bytes(n, m, real, index);
            if shared > SHARED_LIMIT {
                return Err(Error::Unsupported(format!(
                    "the fixed-M product stages {shared} bytes in shared memory, more than \
                     {SHARED_LIMIT}: N = {n} and M = {m} are too large"
                )));
            }
            let name = format!(
                "fock_hx_fixed{m}_{}_{scalar}",
                if wide { "u64" } else { "u32" }
            );
            let function = FOCK_PTX.function(&self.device, &name)?;
            let (block, per_sm) = if self.launch.block == 0 {
                let b256 = resident_blocks(&self.device, function, 256, shared)?;
                let b128 = resident_blocks(&self.device, function, 128, shared)?;
                if b128 > 2 * b256 {
                    (128, b128)
                } else {
                    (256, b256)
                }
            } else {
                let b = self.launch.block;
                (b, resident_blocks(&self.device, function, b, shared)?)
            };
            let want = basis.dim().div_ceil(u64::from(block)).max(1);
            let grid = (u64::from(sms) * u64::from(per_sm)).min(want) as u32;
            Ok(FixedKernel {
                function,
                block,
                grid,
                shared: shared as u32,
                wide,
            })
        };
        self.fixed = Some([resolve("c32", 4)?, resolve("c64", 8)?]);
        Ok(())
    }

    /// The model.
    pub fn model(&self) -> &BoseHubbard {
        &self.model
    }

    /// The lookup in use.
    pub fn lookup(&self) -> GpuLookup {
        self.lookup
    }

    /// Device memory held by the operator (tables and packed states), in bytes.
    pub fn bytes(&self) -> usize {
        self.table.bytes() + self.keys.as_ref().map_or(0, DeviceBuffer::bytes)
    }

    /// Bytes a product moves at least: `x` read, `y` written (and read when `β ≠ 0`), the
    /// packed table where one is used. The floor of the time per product is this over the
    /// copy bandwidth.
    pub fn bytes_floor<S: Scalar>(&self, beta_nonzero: bool) -> usize {
        let d = self.model.basis().dim() as usize;
        let vecs = if beta_nonzero { 3 } else { 2 };
        d * vecs * std::mem::size_of::<S>() + self.keys.as_ref().map_or(0, DeviceBuffer::bytes)
    }

    /// Packs the couplings as the kernels read them: `[−J (bonds), V (M), U/2 (M), √k (N+2)]`,
    /// and uploads them if they changed. Returns the device address of the `R` copy.
    fn coefficients<S: Scalar>(&self, c: &Coefficients) -> Result<u64> {
        let mut host: Vec<f64> = c.hopping.iter().map(|j| -j).collect();
        host.extend_from_slice(&c.potential);
        host.extend(c.interaction.iter().map(|u| 0.5 * u));
        host.extend_from_slice(self.model.sqrt_table());
        let mut cache = self
            .coeffs
            .lock()
            .map_err(|_| Error::Device("Fock coefficient cache poisoned".into()))?;
        if cache.host != host {
            cache.c64.upload(&host)?;
            let single: Vec<f32> = host.iter().map(|&v| v as f32).collect();
            cache.c32.upload(&single)?;
            cache.host = host;
        }
        Ok(if S::NAME == "c32" {
            cache.c32.device_ptr()
        } else {
            cache.c64.device_ptr()
        })
    }

    fn check_scalar<S: Scalar>() -> Result<()> {
        if S::NAME == "c32" || S::NAME == "c64" {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "the GPU Bose–Hubbard product is instantiated for c32 and c64, not {}",
                S::NAME
            )))
        }
    }

    fn config<S: Scalar>(&self, with_coeffs: bool, block: u32) -> LaunchConfig {
        let d = self.model.basis().dim() as usize;
        let mut cfg = LaunchConfig::grid_stride(&self.device, d, block);
        cfg.shared_mem_bytes = if with_coeffs {
            if S::NAME == "c32" {
                shared_bytes::<f32>(&self.model)
            } else {
                shared_bytes::<f64>(&self.model)
            }
        } else {
            table_bytes(&self.model) + 8 * self.model.basis().sites() as usize
        } as u32;
        cfg
    }

    /// `y ← α·H(t)·x + β·y` with the couplings `c`.
    fn product<S: Scalar>(
        &self,
        c: &Coefficients,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        Self::check_scalar::<S>()?;
        let basis = self.model.basis();
        let d = basis.len()?;
        check_dim("GPU Bose–Hubbard product: x length", d, x.len())?;
        check_dim("GPU Bose–Hubbard product: y length", d, y.len())?;
        let coeffs = self.coefficients::<S>(c)?;
        if let Some(fixed) = &self.fixed {
            let k = fixed[usize::from(S::NAME == "c64")];
            return self.product_fixed(k, coeffs, alpha, x, beta, y);
        }
        let kernel = match self.lookup {
            GpuLookup::DeltaPacked => &HX_DELTA_PACKED,
            GpuLookup::DeltaUnrank => &HX_DELTA_UNRANK,
            GpuLookup::SearchPacked => &HX_SEARCH_PACKED,
            GpuLookup::DeltaStepped => &HX_DELTA_STEPPED,
            GpuLookup::DeltaFixed => {
                return Err(Error::Device(
                    "the fixed-M kernels were not resolved".into(),
                ));
            }
        };
        let f = kernel.for_scalar::<S>(&self.device)?;
        let (dim, n, m) = (basis.dim(), basis.particles(), basis.sites());
        let periodic = u32::from(self.model.boundary() == Boundary::Periodic);
        let table = self.table.device_ptr();
        let keys = self.keys.as_ref().map_or(0u64, DeviceBuffer::device_ptr);
        let (xp, yp) = (x.device_ptr(), y.device_ptr());
        let block = if self.launch.block == 0 {
            BLOCK
        } else {
            self.launch.block
        };
        let mut cfg = self.config::<S>(true, block);
        if self.lookup == GpuLookup::DeltaStepped {
            let groups = d.div_ceil(STEP_ROWS);
            cfg.grid = LaunchConfig::grid_stride(&self.device, groups, block).grid;
        }
        let (a, b) = (alpha.to_c64(), beta.to_c64());
        let (a32, b32) = (narrow(a), narrow(b));
        let single = S::NAME == "c32";
        // SAFETY: the signature is fock_hx_<variant>_<S>(u64 dim, u32 n, u32 m, u32 periodic,
        // const u64 *table, const R *coeffs, const u64 *keys, u32 wps, u32 bits, C alpha,
        // const C *x, C beta, C *y); the table holds (N+1)(M+1) entries, the coefficients
        // bonds + 2M + N + 2, the keys D·wps words (unused by the unranking variant), x and y
        // D elements of the scalar the kernel is instantiated for (c32 or c64 checked above;
        // `Complex<R>` has the layout of float2/double2).
        unsafe {
            let mut l = self.device.launch_builder(f);
            l.arg(&dim)
                .arg(&n)
                .arg(&m)
                .arg(&periodic)
                .arg(&table)
                .arg(&coeffs)
                .arg(&keys)
                .arg(&self.words)
                .arg(&self.bits);
            if single {
                l.arg(&a32).arg(&xp).arg(&b32).arg(&yp);
            } else {
                l.arg(&a).arg(&xp).arg(&b).arg(&yp);
            }
            l.launch(cfg)
        }
    }

    /// The `DeltaFixed` product with the resolved kernel `k` and the couplings at `coeffs`.
    fn product_fixed<S: Scalar>(
        &self,
        k: FixedKernel,
        coeffs: u64,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        let basis = self.model.basis();
        let (dim, n) = (basis.dim(), basis.particles());
        // `resolve_fixed` chose 32-bit indices only where D + stride < 2³².
        let dim32 = dim as u32;
        let periodic = u32::from(self.model.boundary() == Boundary::Periodic);
        let table = self.table.device_ptr();
        let keys = self.keys.as_ref().map_or(0u64, DeviceBuffer::device_ptr);
        let (xp, yp) = (x.device_ptr(), y.device_ptr());
        let mut cfg = LaunchConfig::linear(k.grid, k.block);
        cfg.shared_mem_bytes = k.shared;
        let (a, b) = (alpha.to_c64(), beta.to_c64());
        let (a32, b32) = (narrow(a), narrow(b));
        // SAFETY: fock_hx_fixed<M>_<I>_<S>(I dim, u32 n, u32 periodic, const u64 *table,
        // const R *coeffs, const u64 *keys, u32 wps, u32 bits, C alpha, const C *x, C beta,
        // C *y) with I = u32 or u64 as `k.wide` says and M the model's site count (the name
        // was built from both); the table holds (N+1)(M+1) entries, the coefficients
        // bonds + 2M + N + 2, the keys D·wps words, x and y D elements of S (c32 or c64,
        // checked by the caller); the dynamic shared memory is `fixed_shared_bytes`.
        unsafe {
            let mut l = self.device.launch_builder(k.function);
            if k.wide {
                l.arg(&dim);
            } else {
                l.arg(&dim32);
            }
            l.arg(&n)
                .arg(&periodic)
                .arg(&table)
                .arg(&coeffs)
                .arg(&keys)
                .arg(&self.words)
                .arg(&self.bits);
            if S::NAME == "c32" {
                l.arg(&a32).arg(&xp).arg(&b32).arg(&yp);
            } else {
                l.arg(&a).arg(&xp).arg(&b).arg(&yp);
            }
            l.launch(cfg)
        }
    }

    /// One fused Runge–Kutta stage (the seed's listing A.5) at time `t`: with
    /// `s = γ·H(t)·x`, `acc ← acc + w·s` (skipped when `w = 0`) and, when `next` is given,
    /// `next ← base + c·s`. One pass over memory instead of a product and two `axpby`.
    ///
    /// # Errors
    /// As the product; [`Error::DimensionMismatch`] for wrong lengths.
    #[allow(clippy::too_many_arguments)]
    pub fn rk_stage<S: Scalar>(
        &self,
        t: f64,
        gamma: S,
        x: &GpuVector<S>,
        w: f64,
        acc: &mut GpuVector<S>,
        c: f64,
        base_next: Option<(&GpuVector<S>, &mut GpuVector<S>)>,
    ) -> Result<()> {
        Self::check_scalar::<S>()?;
        let coeffs = self.model.coefficients_at(t)?;
        let basis = self.model.basis();
        let d = basis.len()?;
        check_dim("Fock RK stage: x length", d, x.len())?;
        check_dim("Fock RK stage: acc length", d, acc.len())?;
        let (base, next) = match base_next {
            Some((b, n)) => {
                check_dim("Fock RK stage: base length", d, b.len())?;
                check_dim("Fock RK stage: next length", d, n.len())?;
                (b.device_ptr(), n.device_ptr())
            }
            None => (0, 0),
        };
        let cp = self.coefficients::<S>(&coeffs)?;
        let f = RK_STAGE.for_scalar::<S>(&self.device)?;
        let (dim, n, m) = (basis.dim(), basis.particles(), basis.sites());
        let periodic = u32::from(self.model.boundary() == Boundary::Periodic);
        let table = self.table.device_ptr();
        let (xp, ap) = (x.device_ptr(), acc.device_ptr());
        let cfg = self.config::<S>(true, BLOCK);
        let single = S::NAME == "c32";
        let (w32, c_32) = (w as f32, c as f32);
        let g = gamma.to_c64();
        let g32 = narrow(g);
        // SAFETY: fock_rk_stage_<S>(u64 dim, u32 n, u32 m, u32 periodic, const u64 *table,
        // const R *coeffs, C gamma, const C *x, R w, C *acc, R c, const C *base, C *next);
        // lengths checked above; `next` null skips the second output; R is f32 for c32.
        unsafe {
            let mut l = self.device.launch_builder(f);
            l.arg(&dim)
                .arg(&n)
                .arg(&m)
                .arg(&periodic)
                .arg(&table)
                .arg(&cp);
            if single {
                l.arg(&g32);
            } else {
                l.arg(&g);
            }
            l.arg(&xp);
            if single {
                l.arg(&w32);
            } else {
                l.arg(&w);
            }
            l.arg(&ap);
            if single {
                l.arg(&c_32);
            } else {
                l.arg(&c);
            }
            l.arg(&base).arg(&next).launch(cfg)
        }
    }

    /// Site densities `⟨n_k⟩ = Σ_i |ψ_i|² n_k(i)` on the GPU (unranking each row; double
    /// precision partial sums per block, finished on the host).
    ///
    /// # Errors
    /// As the product.
    pub fn site_densities<S: Scalar>(&self, psi: &GpuVector<S>) -> Result<Vec<f64>> {
        Self::check_scalar::<S>()?;
        let basis = self.model.basis();
        check_dim("GPU site densities: state length", basis.len()?, psi.len())?;
        let cfg = self.config::<S>(false, BLOCK);
        let m = basis.sites() as usize;
        let partial = DeviceBuffer::<f64>::zeros(&self.device, cfg.grid.0 as usize * m)?;
        let f = DENSITIES.for_scalar::<S>(&self.device)?;
        let (dim, n, mm) = (basis.dim(), basis.particles(), basis.sites());
        let (table, pp, out) = (
            self.table.device_ptr(),
            psi.device_ptr(),
            partial.device_ptr(),
        );
        // SAFETY: fock_densities_<S>(u64 dim, u32 n, u32 m, const u64 *table, const C *psi,
        // double *partial) writes grid·m partial sums.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&n)
                .arg(&mm)
                .arg(&table)
                .arg(&pp)
                .arg(&out)
                .launch(cfg)?;
        }
        let host = partial.to_vec()?;
        let mut sums = vec![0.0; m];
        for block in host.chunks(m) {
            for k in 0..m {
                sums[k] += block[k];
            }
        }
        Ok(sums)
    }
}

fn narrow(z: c64) -> c32 {
    c32::new(z.re as f32, z.im as f32)
}

fn table_bytes(model: &BoseHubbard) -> usize {
    model.basis().table().len() * 8
}

/// Dynamic shared memory of a `DeltaFixed` kernel (`hx_fixed` in the kernel): the reals
/// `−J (M)`, `√k (N+2)` and the diagonal table `M(N+1)`, rounded up to 8 bytes, then the Δ
/// table of `(M+1)(N+3)` indices of `index` bytes.
fn fixed_shared_bytes(n: usize, m: usize, real: usize, index: usize) -> usize {
    let reals = m + (n + 2) + m * (n + 1);
    (reals * real).div_ceil(8) * 8 + (m + 1) * (n + 3) * index
}

/// Blocks of `block` threads with `shared` bytes of dynamic shared memory that one SM holds
/// at once, as the driver computes it from the kernel's registers.
fn resident_blocks(device: &Device, f: Function, block: u32, shared: usize) -> Result<u32> {
    use matexp_gpu::cudarc::driver::sys;
    device.bind()?;
    let mut blocks: std::ffi::c_int = 0;
    // SAFETY: writes one int; the function handle belongs to the bound device's context.
    let r = unsafe {
        sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            f.cu_function(),
            block as std::ffi::c_int,
            shared,
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(Error::Device(format!(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor: {r:?}"
        )));
    }
    if blocks < 1 {
        return Err(Error::Device(format!(
            "a block of {block} threads with {shared} bytes of shared memory does not fit an SM"
        )));
    }
    Ok(blocks as u32)
}

fn shared_bytes<R>(model: &BoseHubbard) -> usize {
    let b = model.basis();
    let ncoef = model.bonds() + 2 * b.sites() as usize + b.particles() as usize + 2;
    table_bytes(model) + ncoef * std::mem::size_of::<R>()
}

impl<S: Scalar> TimeDependentOperator<GpuBackend, S> for GpuBoseHubbard {
    fn nrows(&self) -> usize {
        self.model.basis().dim() as usize
    }
    fn ncols(&self) -> usize {
        self.model.basis().dim() as usize
    }
    fn apply_at(
        &self,
        _: &GpuBackend,
        t: f64,
        alpha: S,
        x: &<GpuBackend as Backend>::Vector<S>,
        beta: S,
        y: &mut <GpuBackend as Backend>::Vector<S>,
    ) -> Result<()> {
        let c = self.model.coefficients_at(t)?;
        self.product(&c, alpha, x, beta, y)
    }
    fn spectral_bounds_at(&self, t: f64) -> Option<SpectralBounds> {
        self.model
            .spectral_bounds_with(&self.model.coefficients_at(t).ok()?)
    }
    fn norm_bound_at(&self, t: f64) -> Option<f64> {
        Some(
            self.model
                .norm_bound_with(&self.model.coefficients_at(t).ok()?),
        )
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

/// [`GpuBoseHubbard`] frozen at one time: a [`LinearOperator`] on the GPU (for the `f(tA)v`
/// solvers).
#[derive(Debug)]
pub struct FrozenGpuBoseHubbard<'a> {
    op: &'a GpuBoseHubbard,
    coeffs: Coefficients,
}

impl GpuBoseHubbard {
    /// The operator frozen at time `t`.
    ///
    /// # Errors
    /// Non-finite couplings at `t`.
    pub fn at(&self, t: f64) -> Result<FrozenGpuBoseHubbard<'_>> {
        Ok(FrozenGpuBoseHubbard {
            op: self,
            coeffs: self.model.coefficients_at(t)?,
        })
    }
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for FrozenGpuBoseHubbard<'_> {
    fn nrows(&self) -> usize {
        self.op.model.basis().dim() as usize
    }
    fn ncols(&self) -> usize {
        self.op.model.basis().dim() as usize
    }
    fn apply(
        &self,
        _: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.op.product(&self.coeffs, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.op.model.spectral_bounds_with(&self.coeffs)
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.op.model.norm_bound_with(&self.coeffs))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

/// Classic RK4 for `ψ' = −i·H(t)·ψ` on the GPU with every stage fused into one kernel (the
/// seed's listing A.5): a step is 4 passes plus one copy, instead of 4 products and 11
/// vector updates of the generic RK4 of `matexp_integrators::rk`. Workspace: 3 vectors.
///
/// The arithmetic is that of the generic method, so both give the same states to rounding.
#[derive(Debug)]
pub struct FusedRk4<'a> {
    op: &'a GpuBoseHubbard,
    acc: GpuVector<c64>,
    stage: [GpuVector<c64>; 2],
}

impl<'a> FusedRk4<'a> {
    /// A workspace for `op` (complex double precision).
    ///
    /// # Errors
    /// Allocation failures.
    pub fn new(op: &'a GpuBoseHubbard) -> Result<Self> {
        let d = op.model.basis().len()?;
        Ok(FusedRk4 {
            op,
            acc: GpuVector::zeros(&op.device, d)?,
            stage: [
                GpuVector::zeros(&op.device, d)?,
                GpuVector::zeros(&op.device, d)?,
            ],
        })
    }

    /// One step from `t` to `t + h`, in place.
    ///
    /// # Errors
    /// Those of the stage kernel; [`Error::DimensionMismatch`] for a wrong state length.
    pub fn step(&mut self, t: f64, h: f64, psi: &mut GpuVector<c64>) -> Result<()> {
        let mi = c64::new(0.0, -1.0);
        let [s1, s2] = &mut self.stage;
        self.acc.copy_range_from(psi, 0, psi.len())?;
        self.op
            .rk_stage(t, mi, psi, h / 6.0, &mut self.acc, 0.5 * h, Some((psi, s1)))?;
        self.op.rk_stage(
            t + 0.5 * h,
            mi,
            s1,
            h / 3.0,
            &mut self.acc,
            0.5 * h,
            Some((psi, s2)),
        )?;
        self.op.rk_stage(
            t + 0.5 * h,
            mi,
            s2,
            h / 3.0,
            &mut self.acc,
            h,
            Some((psi, s1)),
        )?;
        self.op
            .rk_stage(t + h, mi, s1, h / 6.0, &mut self.acc, 0.0, None)?;
        std::mem::swap(psi, &mut self.acc);
        Ok(())
    }

    /// `steps` equal steps from `t0` to `t1`.
    ///
    /// # Errors
    /// As [`FusedRk4::step`]; [`Error::InvalidArgument`] for a bad interval.
    pub fn integrate(
        &mut self,
        t0: f64,
        t1: f64,
        steps: usize,
        psi: &mut GpuVector<c64>,
    ) -> Result<()> {
        if !(t0.is_finite() && t1.is_finite() && t1 >= t0) || (steps == 0 && t1 > t0) {
            return Err(Error::invalid(
                "t1",
                t1,
                format!("needs finite t0 = {t0} ≤ t1 and at least one step"),
            ));
        }
        let h = if steps == 0 {
            0.0
        } else {
            (t1 - t0) / steps as f64
        };
        for k in 0..steps {
            self.step(t0 + k as f64 * h, h, psi)?;
        }
        Ok(())
    }
}
