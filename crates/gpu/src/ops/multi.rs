//! Several GPUs of one host: row-partitioned vectors and CSR matrices.
//!
//! Device d owns the rows `partition.range(d)` of every vector and of the matrix. Each
//! device keeps a full-length copy of every vector, of which only its own rows are
//! authoritative between products; BLAS-1 operations and reductions touch owned rows only
//! (reductions combine one partial per device on the host: one wait per device). Before a
//! product, the input vector is *gathered*: each device pulls the other devices' rows with
//! peer copies (`cuMemcpyPeerAsync`, direct over NVLink / PCIe when peer access is
//! available), ordered by events between the streams so that no host synchronization is
//! needed. A vector remembers whether it is gathered, so a vector used twice as input is
//! gathered once. Written for any number of devices.

use super::backend::GpuVector;
use super::structure::{
    CsrStructure, GpuIndex, Mapping, SpmvKernel, gershgorin_box, resolve, validate_csr,
};
use crate::kernels::blas1 as blas;
use crate::kernels::reduce::{self, Pending, PendingSlot, SLOT_WIDTH};
use crate::rt::driver::check;
use crate::rt::{Device, DeviceBuffer, Event, scalar};
use cudarc::driver::result;
use matexp_core::FusedOperator;
use matexp_core::{
    Backend, Error, KrylovBackend, LinearOperator, Result, Scalar, ShiftedStep, SpectralBounds,
    check_dim,
};
use rayon::prelude::*;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Contiguous blocks of rows `0..n`, one per device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowPartition {
    bounds: Vec<usize>,
}

impl RowPartition {
    /// `parts` blocks of (almost) equal row counts.
    pub fn even(n: usize, parts: usize) -> Result<Self> {
        if parts == 0 {
            return Err(Error::invalid("parts", parts, "need at least one block"));
        }
        Ok(RowPartition {
            bounds: (0..=parts).map(|k| n * k / parts).collect(),
        })
    }

    /// `parts` blocks of about equal work, counting one unit per stored entry and per row
    /// (the cost model of a memory-bound SpMV), from the CSR row pointers.
    pub fn balanced<I: GpuIndex>(row_ptr: &[I], parts: usize) -> Result<Self> {
        if parts == 0 {
            return Err(Error::invalid("parts", parts, "need at least one block"));
        }
        if row_ptr.is_empty() {
            return Err(Error::invalid("row_ptr", "[]", "needs nrows + 1 entries"));
        }
        let n = row_ptr.len() - 1;
        let work = |i: usize| row_ptr[i].as_usize() + i;
        let total = work(n);
        let mut bounds = vec![0];
        for k in 1..parts {
            let target = total * k / parts;
            // First row boundary whose cumulative work reaches the target.
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if work(mid) < target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            bounds.push(lo.max(*bounds.last().unwrap_or(&0)));
        }
        bounds.push(n);
        Ok(RowPartition { bounds })
    }

    /// Total rows.
    pub fn n(&self) -> usize {
        *self.bounds.last().unwrap_or(&0)
    }

    /// Number of blocks.
    pub fn parts(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Rows of block `d`.
    pub fn range(&self, d: usize) -> Range<usize> {
        self.bounds[d]..self.bounds[d + 1]
    }
}

/// A vector over several GPUs: a full-length copy on each device, of which device d owns
/// the rows of block d.
pub struct MultiVector<S: Scalar> {
    parts: Vec<GpuVector<S>>,
    partition: RowPartition,
    gathered: AtomicBool,
}

impl<S: Scalar> fmt::Debug for MultiVector<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MultiVector<{}>[{}] over {} GPUs (gathered: {})",
            S::NAME,
            self.partition.n(),
            self.parts.len(),
            self.gathered.load(Ordering::Acquire)
        )
    }
}

impl<S: Scalar> MultiVector<S> {
    /// Length.
    pub fn len(&self) -> usize {
        self.partition.n()
    }

    /// Whether the vector is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row partition.
    pub fn partition(&self) -> &RowPartition {
        &self.partition
    }

    /// Whether every device holds every row (true after a gather, upload or fill).
    pub fn is_gathered(&self) -> bool {
        self.gathered.load(Ordering::Acquire)
    }

    /// Device d's full-length copy (only its own rows are current unless gathered).
    pub fn part(&self, d: usize) -> &GpuVector<S> {
        &self.parts[d]
    }

    /// Forgets that the vector is gathered, so that the next product (or
    /// [`MultiGpuBackend::gather`]) copies the other devices' blocks again. Every write
    /// through this crate does this itself; it is public for timing a gather on its own.
    pub fn mark_scattered(&self) {
        self.gathered.store(false, Ordering::Release);
    }
}

/// Several GPUs of one host as one [`Backend`].
#[derive(Debug)]
pub struct MultiGpuBackend {
    devices: Vec<Arc<Device>>,
    partition: Option<RowPartition>,
    /// Events of the gather barrier, per device (ready before the copies, done after).
    events: Mutex<Vec<(Event, Event)>>,
    peer: Vec<Vec<bool>>,
}

impl MultiGpuBackend {
    /// The GPUs with these ordinals (at least one, no repeats), with peer access enabled
    /// between every pair that supports it.
    pub fn new(ordinals: &[usize]) -> Result<Self> {
        if ordinals.is_empty() {
            return Err(Error::invalid("ordinals", "[]", "need at least one GPU"));
        }
        for (i, a) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(a) {
                return Err(Error::invalid("ordinals", a, "listed twice"));
            }
        }
        let devices = ordinals
            .iter()
            .map(|&o| Device::open(o))
            .collect::<Result<Vec<_>>>()?;
        let mut peer = vec![vec![false; devices.len()]; devices.len()];
        for (i, a) in devices.iter().enumerate() {
            for (j, b) in devices.iter().enumerate() {
                if i != j {
                    peer[i][j] = a.enable_peer_access(b)?;
                }
            }
        }
        let events = devices
            .iter()
            .map(|d| Ok((Event::sync_only(d)?, Event::sync_only(d)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(MultiGpuBackend {
            devices,
            partition: None,
            events: Mutex::new(events),
            peer,
        })
    }

    /// Every GPU of the machine.
    pub fn all() -> Result<Self> {
        let n = crate::device_count()?;
        Self::new(&(0..n).collect::<Vec<_>>())
    }

    /// Uses `partition` for vectors of length `partition.n()` (other lengths split evenly).
    pub fn with_partition(mut self, partition: RowPartition) -> Result<Self> {
        check_dim(
            "MultiGpuBackend::with_partition: blocks (devices)",
            self.devices.len(),
            partition.parts(),
        )?;
        self.partition = Some(partition);
        Ok(self)
    }

    /// Partitions vectors of length `row_ptr.len() - 1` by [`RowPartition::balanced`].
    pub fn with_balanced_partition<I: GpuIndex>(self, row_ptr: &[I]) -> Result<Self> {
        let p = RowPartition::balanced(row_ptr, self.devices.len())?;
        self.with_partition(p)
    }

    /// The devices, in block order.
    pub fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    /// Whether device i reads device j's memory directly.
    pub fn peer_access(&self, i: usize, j: usize) -> bool {
        self.peer[i][j]
    }

    /// The partition of vectors of length n.
    pub fn partition_for(&self, n: usize) -> RowPartition {
        match &self.partition {
            Some(p) if p.n() == n => p.clone(),
            _ => RowPartition {
                bounds: (0..=self.devices.len())
                    .map(|k| n * k / self.devices.len())
                    .collect(),
            },
        }
    }

    fn check<S: Scalar>(&self, what: &str, x: &MultiVector<S>) -> Result<()> {
        let same = x.parts.len() == self.devices.len()
            && x.parts
                .iter()
                .zip(&self.devices)
                .all(|(p, d)| p.device().ordinal() == d.ordinal());
        if same {
            Ok(())
        } else {
            Err(Error::invalid(
                "vector",
                what,
                "belongs to another set of GPUs",
            ))
        }
    }

    fn check_pair<S: Scalar>(&self, a: &MultiVector<S>, b: &MultiVector<S>) -> Result<()> {
        self.check("x", a)?;
        self.check("y", b)?;
        check_dim("multi-GPU vectors: length", a.len(), b.len())?;
        if a.partition != b.partition {
            return Err(Error::invalid(
                "vectors",
                "partitions differ",
                "both operands must use the same row partition",
            ));
        }
        Ok(())
    }

    /// Makes every device hold every row of `x` (peer copies of the other devices' blocks,
    /// ordered by events; no host wait). A no-op when `x` is already gathered.
    pub fn gather<S: Scalar>(&self, x: &MultiVector<S>) -> Result<()> {
        self.check("x", x)?;
        if x.is_gathered() || self.devices.len() == 1 {
            x.gathered.store(true, Ordering::Release);
            return Ok(());
        }
        let events = self
            .events
            .lock()
            .map_err(|_| Error::Device("gather events poisoned".into()))?;
        for (d, (ready, _)) in events.iter().enumerate() {
            debug_assert_eq!(ready.device().ordinal(), self.devices[d].ordinal());
            ready.record()?;
        }
        let b = std::mem::size_of::<S>();
        for (e, dst) in self.devices.iter().enumerate() {
            for (d, src) in self.devices.iter().enumerate() {
                let r = x.partition.range(d);
                if d == e || r.is_empty() {
                    continue;
                }
                events[d].0.make_wait(dst)?;
                dst.bind()?;
                // SAFETY: both ranges lie inside full-length buffers of x; the destination
                // stream waits for the source's writes (event above) and the source stream
                // waits for this copy before its next write (events below).
                check(
                    &format!(
                        "gather: cuMemcpyPeerAsync gpu:{} -> gpu:{}",
                        src.ordinal(),
                        dst.ordinal()
                    ),
                    unsafe {
                        result::memcpy_peer_async(
                            dst.cu_context(),
                            x.parts[e].ptr_at(r.start),
                            src.cu_context(),
                            x.parts[d].ptr_at(r.start),
                            r.len() * b,
                            dst.cu_stream(),
                        )
                    },
                )?;
            }
        }
        for (_, done) in events.iter() {
            done.record()?;
        }
        for (e, (_, done)) in events.iter().enumerate() {
            for (d, dev) in self.devices.iter().enumerate() {
                if d != e {
                    done.make_wait(dev)?;
                }
            }
        }
        x.gathered.store(true, Ordering::Release);
        Ok(())
    }

    /// Makes the first device's stream wait for all work queued on the others (no host
    /// wait), so that events on the first device time a whole multi-GPU operation.
    pub fn join_on_first(&self) -> Result<()> {
        let events = self
            .events
            .lock()
            .map_err(|_| Error::Device("gather events poisoned".into()))?;
        for (d, (ready, _)) in events.iter().enumerate().skip(1) {
            ready.record()?;
            let _ = d;
            ready.make_wait(&self.devices[0])?;
        }
        Ok(())
    }

    fn reduce_pending<S: Scalar, T>(
        &self,
        x: &MultiVector<S>,
        mut slot: impl FnMut(&Arc<Device>, Range<usize>, usize) -> Result<PendingSlot>,
        combine: fn(&[[f64; SLOT_WIDTH]]) -> T,
    ) -> Result<Pending<T>> {
        let slots = self
            .devices
            .iter()
            .enumerate()
            .map(|(d, dev)| slot(dev, x.partition.range(d), d))
            .collect::<Result<Vec<_>>>()?;
        Ok(Pending::new(slots, combine))
    }

    /// Σ conj(xᵢ)·yᵢ, one partial per device, combined on the host when waited for.
    pub fn dot_deferred<S: Scalar>(
        &self,
        x: &MultiVector<S>,
        y: &MultiVector<S>,
    ) -> Result<Pending<S>> {
        self.check_pair(x, y)?;
        self.reduce_pending(
            x,
            |dev, r, d| {
                reduce::dot_slot::<S>(
                    dev,
                    r.len(),
                    x.parts[d].ptr_at(r.start),
                    y.parts[d].ptr_at(r.start),
                )
            },
            reduce::combine_dot::<S>,
        )
    }

    /// ‖x‖₂ (overflow-safe), the devices' sums of squares combined on the host.
    pub fn nrm2_deferred<S: Scalar>(&self, x: &MultiVector<S>) -> Result<Pending<S::Real>> {
        self.check("x", x)?;
        self.reduce_pending(
            x,
            |dev, r, d| reduce::nrm2_slot::<S>(dev, r.len(), x.parts[d].ptr_at(r.start)),
            reduce::combine_norm::<S::Real>,
        )
    }

    /// max |xᵢ| over all devices.
    pub fn amax_deferred<S: Scalar>(&self, x: &MultiVector<S>) -> Result<Pending<S::Real>> {
        self.check("x", x)?;
        self.reduce_pending(
            x,
            |dev, r, d| reduce::amax_slot::<S>(dev, r.len(), x.parts[d].ptr_at(r.start)),
            reduce::combine_max::<S::Real>,
        )
    }
}

impl Backend for MultiGpuBackend {
    type Vector<S: Scalar> = MultiVector<S>;

    fn name(&self) -> String {
        let ids: Vec<String> = self
            .devices
            .iter()
            .map(|d| d.ordinal().to_string())
            .collect();
        format!("gpu:{}", ids.join(","))
    }

    fn zeros<S: Scalar>(&self, n: usize) -> Result<MultiVector<S>> {
        Ok(MultiVector {
            parts: self
                .devices
                .iter()
                .map(|d| GpuVector::zeros(d, n))
                .collect::<Result<_>>()?,
            partition: self.partition_for(n),
            gathered: AtomicBool::new(true),
        })
    }

    fn upload<S: Scalar>(&self, host: &[S]) -> Result<MultiVector<S>> {
        Ok(MultiVector {
            parts: self
                .devices
                .iter()
                .map(|d| GpuVector::from_host(d, host))
                .collect::<Result<_>>()?,
            partition: self.partition_for(host.len()),
            gathered: AtomicBool::new(true),
        })
    }

    fn download<S: Scalar>(&self, x: &MultiVector<S>, host: &mut [S]) -> Result<()> {
        self.check("x", x)?;
        check_dim("download: host length", x.len(), host.len())?;
        for (d, part) in x.parts.iter().enumerate() {
            let r = x.partition.range(d);
            part.download_range(r.start, &mut host[r])?;
        }
        Ok(())
    }

    fn len<S: Scalar>(&self, x: &MultiVector<S>) -> usize {
        x.len()
    }

    fn copy<S: Scalar>(&self, src: &MultiVector<S>, dst: &mut MultiVector<S>) -> Result<()> {
        self.check_pair(src, dst)?;
        for (d, part) in dst.parts.iter_mut().enumerate() {
            let r = src.partition.range(d);
            part.copy_range_from(&src.parts[d], r.start, r.len())?;
        }
        dst.mark_scattered();
        Ok(())
    }

    fn fill<S: Scalar>(&self, x: &mut MultiVector<S>, value: S) -> Result<()> {
        self.check("x", x)?;
        // Every row on every device: the vector is gathered afterwards.
        for (part, dev) in x.parts.iter().zip(&self.devices) {
            blas::fill(dev, part.len(), part.device_ptr(), value)?;
        }
        x.gathered.store(true, Ordering::Release);
        Ok(())
    }

    fn scale<S: Scalar>(&self, alpha: S, x: &mut MultiVector<S>) -> Result<()> {
        self.check("x", x)?;
        for (d, (part, dev)) in x.parts.iter().zip(&self.devices).enumerate() {
            let r = x.partition.range(d);
            blas::scale(dev, r.len(), alpha, part.ptr_at(r.start))?;
        }
        x.mark_scattered();
        Ok(())
    }

    fn axpby<S: Scalar>(
        &self,
        alpha: S,
        x: &MultiVector<S>,
        beta: S,
        y: &mut MultiVector<S>,
    ) -> Result<()> {
        self.check_pair(x, y)?;
        for (d, dev) in self.devices.iter().enumerate() {
            let r = x.partition.range(d);
            blas::axpby(
                dev,
                r.len(),
                alpha,
                x.parts[d].ptr_at(r.start),
                beta,
                y.parts[d].ptr_at(r.start),
            )?;
        }
        y.mark_scattered();
        Ok(())
    }

    fn dot<S: Scalar>(&self, x: &MultiVector<S>, y: &MultiVector<S>) -> Result<S> {
        self.dot_deferred(x, y)?.wait()
    }

    fn nrm2<S: Scalar>(&self, x: &MultiVector<S>) -> Result<S::Real> {
        self.nrm2_deferred(x)?.wait()
    }

    fn amax<S: Scalar>(&self, x: &MultiVector<S>) -> Result<S::Real> {
        self.amax_deferred(x)?.wait()
    }

    fn synchronize(&self) -> Result<()> {
        for d in &self.devices {
            d.synchronize()?;
        }
        Ok(())
    }

    /// Every part's kernels are queued on its device's stream.
    fn is_asynchronous(&self) -> bool {
        true
    }
}

/// The BLAS-1 defaults of every Krylov hook, each reduction across the devices' parts.
impl KrylovBackend for MultiGpuBackend {}

/// One device's rows of a [`MultiGpuCsr`].
#[derive(Debug)]
struct Block {
    st: CsrStructure,
    values: DeviceBuffer<u8>,
}

/// A CSR matrix split by rows over the GPUs of a [`MultiGpuBackend`]; each device holds its
/// rows (with global column indices) and multiplies them by its gathered copy of x.
pub struct MultiGpuCsr<S: Scalar> {
    blocks: Vec<Block>,
    partition: RowPartition,
    nrows: usize,
    ncols: usize,
    nnz: usize,
    kernel: SpmvKernel,
    auto_lanes: u32,
    disc_box: (f64, f64, f64, f64),
    hermitian: bool,
    _s: std::marker::PhantomData<S>,
}

impl<S: Scalar> fmt::Debug for MultiGpuCsr<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MultiGpuCsr<{}>({}x{}, nnz {}, {} blocks {:?})",
            S::NAME,
            self.nrows,
            self.ncols,
            self.nnz,
            self.blocks.len(),
            self.partition.bounds
        )
    }
}

impl<S: Scalar> MultiGpuCsr<S> {
    /// Splits a CSR matrix by the backend's partition of `nrows` and uploads each block to
    /// its device (validated first, as [`crate::GpuCsr::from_parts`]).
    pub fn from_parts<I: GpuIndex>(
        backend: &MultiGpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[S],
    ) -> Result<Self> {
        scalar::check::<S>()?;
        let max_row = validate_csr(nrows, ncols, row_ptr, col_idx)?;
        let lanes = super::structure::auto_lanes(nrows, col_idx.len(), max_row);
        check_dim("CSR values length (nnz)", col_idx.len(), values.len())?;
        if let Some(k) = values.par_iter().position_first(|v| !v.finite()) {
            return Err(Error::NonFinite {
                context: "MultiGpuCsr values".into(),
                index: k,
                value: format!("{}", values[k]),
            });
        }
        let partition = backend.partition_for(nrows);
        let mut blocks = Vec::with_capacity(backend.devices.len());
        for (d, dev) in backend.devices.iter().enumerate() {
            let r = partition.range(d);
            let (a, b) = (row_ptr[r.start].as_usize(), row_ptr[r.end].as_usize());
            let local: Vec<I> = row_ptr[r.clone()]
                .iter()
                .chain(std::iter::once(&row_ptr[r.end]))
                .map(|p| I::try_narrow(p.as_usize() - a).unwrap_or(*p))
                .collect();
            let st = CsrStructure::upload(dev, r.len(), ncols, &local, &col_idx[a..b], lanes)?;
            let mut vals = DeviceBuffer::uninit(dev, (b - a) * std::mem::size_of::<S>())?;
            vals.upload(scalar::as_bytes(&values[a..b]))?;
            blocks.push(Block { st, values: vals });
        }
        Ok(MultiGpuCsr {
            blocks,
            partition,
            nrows,
            ncols,
            nnz: col_idx.len(),
            kernel: SpmvKernel::Auto,
            auto_lanes: lanes,
            disc_box: gershgorin_box(nrows, row_ptr, col_idx, Some(values)),
            hermitian: false,
            _s: std::marker::PhantomData,
        })
    }

    /// Declares the matrix Hermitian (the caller vouches for it).
    pub fn assume_hermitian(mut self, hermitian: bool) -> Self {
        self.hermitian = hermitian;
        self
    }

    /// Selects our SpMV kernel (cuSPARSE is not offered across devices).
    pub fn with_kernel(mut self, kernel: SpmvKernel) -> Result<Self> {
        if kernel == SpmvKernel::Cusparse {
            return Err(Error::Unsupported(
                "the multi-GPU operator uses the matexp kernels".into(),
            ));
        }
        resolve(kernel, self.auto_lanes)?;
        self.kernel = kernel;
        Ok(self)
    }

    /// The row partition.
    pub fn partition(&self) -> &RowPartition {
        &self.partition
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    fn mapping(&self) -> Result<Mapping> {
        resolve(self.kernel, self.auto_lanes)
    }

    fn check_rows(&self, backend: &MultiGpuBackend, what: &str, v: &MultiVector<S>) -> Result<()> {
        backend.check(what, v)?;
        check_dim("multi-GPU SpMV: vector length", self.nrows, v.len())?;
        if v.partition != self.partition {
            return Err(Error::invalid(
                "vector",
                what,
                "its row partition differs from the matrix's (build both with one backend)",
            ));
        }
        Ok(())
    }

    /// The fused Leja step on every device (after gathering y_prev), the norm left on its
    /// way: one partial per device, combined on the host when waited for.
    pub fn leja_step_deferred(
        &self,
        backend: &MultiGpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &MultiVector<S>,
        y_next: &mut MultiVector<S>,
        p: &mut MultiVector<S>,
    ) -> Result<Pending<S::Real>> {
        if self.nrows != self.ncols {
            return Err(Error::invalid(
                "operator",
                format!("{}x{}", self.nrows, self.ncols),
                "a Leja step needs a square matrix",
            ));
        }
        self.check_rows(backend, "y_prev", y_prev)?;
        self.check_rows(backend, "y_next", y_next)?;
        self.check_rows(backend, "p", p)?;
        backend.gather(y_prev)?;
        let log2 = match self.mapping()? {
            Mapping::Vector(l) => l,
            _ => 0,
        };
        let mut slots = Vec::with_capacity(self.blocks.len());
        for (d, blk) in self.blocks.iter().enumerate() {
            let r0 = self.partition.range(d).start;
            slots.push(blk.st.leja_slot(
                Some(blk.values.device_ptr()),
                log2,
                step,
                y_prev.parts[d].device_ptr(),
                y_prev.parts[d].ptr_at(r0),
                y_next.parts[d].ptr_at(r0),
                p.parts[d].ptr_at(r0),
            )?);
        }
        y_next.mark_scattered();
        p.mark_scattered();
        Ok(Pending::new(slots, reduce::combine_norm::<S::Real>))
    }
}

impl<S: Scalar> LinearOperator<MultiGpuBackend, S> for MultiGpuCsr<S> {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
    fn apply(
        &self,
        backend: &MultiGpuBackend,
        alpha: S,
        x: &MultiVector<S>,
        beta: S,
        y: &mut MultiVector<S>,
    ) -> Result<()> {
        backend.check("x", x)?;
        check_dim("multi-GPU SpMV: x length (ncols)", self.ncols, x.len())?;
        self.check_rows(backend, "y", y)?;
        let mapping = self.mapping()?;
        backend.gather(x)?;
        for (d, blk) in self.blocks.iter().enumerate() {
            let r0 = self.partition.range(d).start;
            blk.st.spmv(
                Some(blk.values.device_ptr()),
                mapping,
                alpha,
                x.parts[d].device_ptr(),
                beta,
                y.parts[d].ptr_at(r0),
            )?;
        }
        y.mark_scattered();
        Ok(())
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.nrows != self.ncols {
            return None;
        }
        let b = self.disc_box;
        if self.hermitian {
            SpectralBounds::real(b.0, b.1).ok()
        } else {
            SpectralBounds::new(b.0, b.1, b.2, b.3).ok()
        }
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn fused(&self) -> Option<&dyn FusedOperator<MultiGpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar> FusedOperator<MultiGpuBackend, S> for MultiGpuCsr<S> {
    fn shifted_step(
        &self,
        backend: &MultiGpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &MultiVector<S>,
        y_next: &mut MultiVector<S>,
        p: &mut MultiVector<S>,
    ) -> Result<S::Real> {
        self.leja_step_deferred(backend, step, y_prev, y_next, p)?
            .wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_partition_covers_all_rows_once() {
        let p = RowPartition::even(10, 3).unwrap();
        assert_eq!(p.parts(), 3);
        assert_eq!(p.n(), 10);
        let lens: Vec<usize> = (0..3).map(|d| p.range(d).len()).collect();
        assert_eq!(lens.iter().sum::<usize>(), 10);
        assert!(lens.iter().all(|&l| l == 3 || l == 4));
        assert!(RowPartition::even(5, 0).is_err());
    }

    #[test]
    fn balanced_partition_splits_work_not_rows() {
        // Row 0 holds 90 entries, rows 1..=10 one each: two blocks should separate row 0.
        let mut rp = vec![0u32, 90];
        for k in 1..=10 {
            rp.push(90 + k);
        }
        let p = RowPartition::balanced(&rp, 2).unwrap();
        assert_eq!(p.range(0), 0..1);
        assert_eq!(p.range(1), 1..11);
        // Uniform rows: blocks of equal size.
        let uniform: Vec<u64> = (0..=100).map(|i| 7 * i).collect();
        let q = RowPartition::balanced(&uniform, 4).unwrap();
        assert!((0..4).all(|d| q.range(d).len() == 25), "{q:?}");
        // More blocks than rows: empty blocks, still a partition.
        let r = RowPartition::balanced(&[0u32, 1], 3).unwrap();
        assert_eq!(r.n(), 1);
        assert_eq!((0..3).map(|d| r.range(d).len()).sum::<usize>(), 1);
    }
}
