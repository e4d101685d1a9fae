//! CSR matrices on one GPU: [`GpuCsr`] (with values) and [`GpuPattern`] (pattern only, every
//! stored entry 1: graphs), as [`LinearOperator`]s of [`GpuBackend`].
//!
//! SpMV kernels (see `cuda-sys/kernels/spmv.cu`):
//! * [`SpmvKernel::Scalar`]: one thread per row;
//! * [`SpmvKernel::Vector`]: a group of 2–32 consecutive lanes per row, reduced with warp
//!   shuffles (coalesced loads of values and column indices);
//! * [`SpmvKernel::Cusparse`]: `cusparseSpMV`, as a reference;
//! * [`SpmvKernel::Auto`] (default): the vector kernel with the lane count [`auto_lanes`]
//!   picks from the mean row length; for patterns with skewed row lengths (power-law graphs,
//!   [`is_skewed`]) the hybrid kernel;
//! * [`SpmvKernel::Hybrid`] (patterns only): rows binned by length at upload, light rows
//!   with lanes, medium rows a warp each, long rows a block each, in one launch (see
//!   [`super::pattern`]).
//!
//! The Newton–Leja step is fused into one kernel (SpMV, shift, accumulation into p and the
//! partial sums of squares of the new vector) plus a one-block finish; its norm reaches the
//! host through one wait, which [`GpuCsr::leja_step_deferred`] lets the caller postpone.
//!
//! Bytes moved per product (the floor [`GpuCsr::bytes_per_product`] reports): row pointers,
//! column indices and values once, x at least once, y written (and read when β ≠ 0).

use super::backend::{GpuBackend, GpuVector};
use super::pattern::{HybridPlan, HybridTiers, is_skewed};
use super::structure::{
    CsrStructure, GpuIndex, Mapping, SpmvKernel, auto_lanes, bounds_from_box, gershgorin_box,
    resolve, validate_csr,
};
use crate::kernels::reduce::{self, Pending};
use crate::rt::{Device, DeviceBuffer, scalar};
use crate::vendor::cusparse;
use matexp_core::FusedOperator;
use matexp_core::{Error, LinearOperator, Result, Scalar, ShiftedStep, SpectralBounds, check_dim};
use rayon::prelude::*;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// `$body` with `$r`, `$c` the index arrays of type `$i` seen as `u32` or `u64` (the widths
/// the kernels have); an [`Error::Unsupported`] for any other width.
macro_rules! with_gpu_index {
    ($i:ty, $rp:expr, $ci:expr, |$r:ident, $c:ident| $body:expr) => {{
        let (rp, ci) = ($rp, $ci);
        if let (Some($r), Some($c)) = (
            scalar::cast_slice::<$i, u32>(rp),
            scalar::cast_slice::<$i, u32>(ci),
        ) {
            $body
        } else if let (Some($r), Some($c)) = (
            scalar::cast_slice::<$i, u64>(rp),
            scalar::cast_slice::<$i, u64>(ci),
        ) {
            $body
        } else {
            Err(Error::Unsupported(format!(
                "index type {}",
                <$i as matexp_sparse::CsrIndex>::NAME
            )))
        }
    }};
}

/// Lanes per row of the fused Leja kernel for a mapping (scalar = 1 lane).
fn leja_log2(mapping: Mapping, auto: u32) -> u32 {
    match mapping {
        Mapping::Vector(l) => l,
        Mapping::Scalar => 0,
        Mapping::Cusparse | Mapping::Hybrid => auto.trailing_zeros(),
    }
}

fn check_vectors<S: Scalar>(
    backend: &GpuBackend,
    device: &Arc<Device>,
    nrows: usize,
    ncols: usize,
    x: &GpuVector<S>,
    y: &GpuVector<S>,
) -> Result<()> {
    if backend.device().ordinal() != device.ordinal() {
        return Err(Error::invalid(
            "backend",
            backend.device().ordinal(),
            format!("the matrix lives on gpu:{}", device.ordinal()),
        ));
    }
    backend.own("x", x)?;
    backend.own("y", y)?;
    check_dim("SpMV: x length (ncols)", ncols, x.len())?;
    check_dim("SpMV: y length (nrows)", nrows, y.len())
}

/// A CSR matrix with values of type `S` on one GPU.
///
/// ```no_run
/// use matexp_core::{Backend, LinearOperator};
/// use matexp_gpu::{GpuBackend, GpuCsr};
/// let gpu = GpuBackend::new(0)?;
/// // [[2, 1], [0, 3]]
/// let a = GpuCsr::from_parts(&gpu, 2, 2, &[0u32, 2, 3], &[0u32, 1, 1], &[2.0f64, 1.0, 3.0])?;
/// let x = gpu.upload(&[1.0, 1.0])?;
/// let mut y = gpu.zeros(2)?;
/// a.apply(&gpu, 1.0, &x, 0.0, &mut y)?;
/// assert_eq!(gpu.to_host(&y)?, vec![3.0, 3.0]);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub struct GpuCsr<S: Scalar> {
    st: CsrStructure,
    values: DeviceBuffer<u8>,
    kernel: SpmvKernel,
    disc_box: (f64, f64, f64, f64),
    /// Gershgorin bounds on the Hermitian part ([`matexp_sparse::hermitian_part_bounds`]).
    hermitian_part: Option<(f64, f64)>,
    hermitian: bool,
    /// A = −Aᴴ: the spectrum is imaginary and the bounds are the disc box's imaginary side.
    skew_hermitian: bool,
    /// Lanczos runs the deferred step form on this matrix (`with_deferred_lanczos`).
    deferred_lanczos: bool,
    cusparse: Mutex<Option<cusparse::SpMatrix>>,
    _s: PhantomData<S>,
}

impl<S: Scalar> fmt::Debug for GpuCsr<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GpuCsr<{}, {}>({}x{}, nnz {}, kernel {}, gpu:{})",
            S::NAME,
            self.st.indices.name(),
            self.st.nrows,
            self.st.ncols,
            self.st.nnz,
            self.kernel,
            self.st.device.ordinal()
        )
    }
}

/// How [`GpuCsr`] stores the values of a matrix of complex type `S` on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueStorage {
    /// Of `S`'s real type when every imaginary part is zero (the spin bath, the Laplacian
    /// in Schrödinger form): the real-by-complex kernels, 12 bytes per stored entry of a
    /// c64 matrix with `u32` indices instead of 20, and half the value memory; else `S`.
    #[default]
    Auto,
    /// Always of type `S` (the comparison of the two forms).
    Full,
}

impl<S: Scalar> GpuCsr<S> {
    /// Uploads a CSR matrix given by its arrays (validated first: structure, finiteness).
    /// Gershgorin bounds are computed on the host on the way (one pass). A complex matrix
    /// whose values are all real is stored as real ([`ValueStorage::Auto`]).
    pub fn from_parts<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[S],
    ) -> Result<Self> {
        Self::from_parts_with(
            backend,
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
            ValueStorage::Auto,
        )
    }

    /// As [`GpuCsr::from_parts`] with the value storage chosen.
    pub fn from_parts_with<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[S],
        storage: ValueStorage,
    ) -> Result<Self> {
        scalar::check::<S>()?;
        check_dim("CSR values length (nnz)", col_idx.len(), values.len())?;
        // `Default` of a real scalar is 0 (and 0 == −0).
        let zero = S::Real::default();
        if S::IS_COMPLEX
            && storage == ValueStorage::Auto
            && values.par_iter().all(|v| v.im() == zero)
        {
            let re: Vec<S::Real> = values.par_iter().map(|v| v.re()).collect();
            return Self::upload(backend, nrows, ncols, row_ptr, col_idx, &re, true);
        }
        Self::upload(backend, nrows, ncols, row_ptr, col_idx, values, false)
    }

    /// A real matrix for vectors of `S` (complex `S`: the real-by-complex kernels; real
    /// `S`: the same as [`GpuCsr::from_parts`]), validated as there.
    pub fn from_real_parts<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[S::Real],
    ) -> Result<Self> {
        scalar::check::<S>()?;
        check_dim("CSR values length (nnz)", col_idx.len(), values.len())?;
        Self::upload(
            backend,
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
            S::IS_COMPLEX,
        )
    }

    /// Whether the values are stored in the real type of a complex `S` (the real-by-complex
    /// kernels; see [`ValueStorage`]).
    pub fn real_values(&self) -> bool {
        self.st.real_values
    }

    /// The upload of validated-length arrays with values of type `V` (`S`, or `S::Real`
    /// when `real`).
    fn upload<I: GpuIndex, V: Scalar>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[V],
        real: bool,
    ) -> Result<Self> {
        let max_row = validate_csr(nrows, ncols, row_ptr, col_idx)?;
        if let Some(k) = values.par_iter().position_first(|v| !v.finite()) {
            return Err(Error::NonFinite {
                context: "GpuCsr values".into(),
                index: k,
                value: format!("{}", values[k]),
            });
        }
        let device = backend.device();
        let lanes = auto_lanes(nrows, col_idx.len(), max_row);
        let mut st = CsrStructure::upload(device, nrows, ncols, row_ptr, col_idx, lanes)?;
        st.real_values = real;
        let mut vals = DeviceBuffer::uninit(device, std::mem::size_of_val(values))?;
        vals.upload(scalar::as_bytes(values))?;
        Ok(GpuCsr {
            disc_box: gershgorin_box(nrows, row_ptr, col_idx, Some(values)),
            hermitian_part: if nrows == ncols {
                matexp_sparse::hermitian_part_bounds(nrows, row_ptr, col_idx, Some(values))
            } else {
                None
            },
            st,
            values: vals,
            kernel: SpmvKernel::Auto,
            hermitian: false,
            skew_hermitian: false,
            deferred_lanczos: false,
            cusparse: Mutex::new(None),
            _s: PhantomData,
        })
    }

    /// Uploads a [`matexp_sparse::CsrMatrix`], keeping its index width; Hermitian-ness is
    /// taken from the matrix (an O(nnz log nnz) check on the host). Real values of a complex
    /// matrix are stored as real ([`ValueStorage::Auto`]).
    pub fn from_csr<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::CsrMatrix<S, I>,
    ) -> Result<Self> {
        Self::from_csr_with(backend, a, ValueStorage::Auto)
    }

    /// As [`GpuCsr::from_csr`] with the value storage chosen.
    pub fn from_csr_with<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::CsrMatrix<S, I>,
        storage: ValueStorage,
    ) -> Result<Self> {
        let m = with_gpu_index!(I, a.row_ptr(), a.col_idx(), |r, c| {
            Self::from_parts_with(backend, a.nrows(), a.ncols(), r, c, a.values(), storage)
        })?;
        let square = a.nrows() == a.ncols();
        Ok(m.with_structure_flags(square && a.is_hermitian(), square && a.is_skew_hermitian()))
    }

    /// A real [`matexp_sparse::CsrMatrix`] acting on vectors of `S` (complex `S`: the
    /// real-by-complex kernels, no complex copy made), keeping its index width; symmetry
    /// (= Hermitian-ness) taken from the matrix.
    pub fn from_real_csr<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::CsrMatrix<S::Real, I>,
    ) -> Result<Self> {
        let m = with_gpu_index!(I, a.row_ptr(), a.col_idx(), |r, c| {
            Self::from_real_parts(backend, a.nrows(), a.ncols(), r, c, a.values())
        })?;
        let square = a.nrows() == a.ncols();
        Ok(m.with_structure_flags(square && a.is_hermitian(), square && a.is_skew_hermitian()))
    }

    /// Hermitian-ness and skew-Hermitian-ness as the host matrix states them (a
    /// skew-Hermitian matrix gets the imaginary segment, as `CsrMatrix::gershgorin`).
    fn with_structure_flags(self, hermitian: bool, skew_hermitian: bool) -> Self {
        let mut m = self.assume_hermitian(hermitian);
        m.skew_hermitian = !hermitian && skew_hermitian;
        m
    }

    /// Declares the matrix Hermitian (symmetric if real) or not: the spectral bounds become
    /// a real interval and Lanczos is allowed. The caller vouches for it.
    pub fn assume_hermitian(mut self, hermitian: bool) -> Self {
        self.hermitian = hermitian;
        self
    }

    /// Whether Lanczos runs the deferred step form on this matrix
    /// ([`FusedOperator::lanczos_advance`], `spmv_csr_lanczos_advance`: q_{j+1} formed from
    /// w and q_j at every gather, no update pass). Off by default: a CSR product gathers
    /// each x entry once per stored entry, so forming it there doubles the gathers, against
    /// a saved update pass of 3n of traffic, which did not pay for them on the seed 000
    /// matrices (`bench-results/notes/tuning.md`). Stencils, which load each value once,
    /// take it by default.
    pub fn with_deferred_lanczos(mut self, deferred: bool) -> Self {
        self.set_deferred_lanczos(deferred);
        self
    }

    /// As [`GpuCsr::with_deferred_lanczos`], in place.
    pub fn set_deferred_lanczos(&mut self, deferred: bool) {
        self.deferred_lanczos = deferred;
    }

    /// Selects the SpMV kernel of [`LinearOperator::apply`].
    pub fn with_kernel(mut self, kernel: SpmvKernel) -> Result<Self> {
        self.set_kernel(kernel)?;
        Ok(self)
    }

    /// Selects the SpMV kernel of [`LinearOperator::apply`].
    pub fn set_kernel(&mut self, kernel: SpmvKernel) -> Result<()> {
        if kernel == SpmvKernel::Hybrid {
            return Err(Error::Unsupported(
                "the hybrid kernel is for pattern matrices (GpuPattern) only".into(),
            ));
        }
        resolve(kernel, self.st.auto_lanes)?;
        self.kernel = kernel;
        Ok(())
    }

    /// The kernel [`LinearOperator::apply`] uses.
    pub fn kernel(&self) -> SpmvKernel {
        self.kernel
    }

    /// Lanes per row that [`SpmvKernel::Auto`] uses.
    pub fn auto_lanes(&self) -> u32 {
        self.st.auto_lanes
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.st.nnz
    }

    /// `u32` or `u64`.
    pub fn index_type(&self) -> &'static str {
        self.st.indices.name()
    }

    /// The device holding the matrix.
    pub fn device(&self) -> &Arc<Device> {
        &self.st.device
    }

    /// Bytes a product must move at least (see the module docs).
    pub fn bytes_per_product(&self, reads_y: bool) -> usize {
        let full = self.st.floor_bytes(std::mem::size_of::<S>(), true, reads_y);
        if self.st.real_values {
            // Values of the real type: half a complex value's bytes per stored entry.
            full - self.st.nnz * (std::mem::size_of::<S>() - std::mem::size_of::<S::Real>())
        } else {
            full
        }
    }

    /// y ← α·A·x + β·y with an explicit kernel (y not read when β = 0).
    pub fn apply_with(
        &self,
        backend: &GpuBackend,
        kernel: SpmvKernel,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        check_vectors(backend, &self.st.device, self.st.nrows, self.st.ncols, x, y)?;
        match resolve(kernel, self.st.auto_lanes)? {
            Mapping::Cusparse => {
                let mut cache = self
                    .cusparse
                    .lock()
                    .map_err(|_| Error::Device("cuSPARSE descriptor poisoned".into()))?;
                cusparse::spmv::<S>(
                    &self.st,
                    self.values.device_ptr(),
                    &mut cache,
                    alpha,
                    x.device_ptr(),
                    beta,
                    y.device_ptr(),
                )
            }
            m => self.st.spmv(
                Some(self.values.device_ptr()),
                m,
                alpha,
                x.device_ptr(),
                beta,
                y.device_ptr(),
            ),
        }
    }

    /// The fused Leja step with its norm left on the way to the host (see
    /// [`FusedOperator::shifted_step`] for the math): one kernel over A, y_prev, y_next, p and
    /// one finish launch; the caller waits when (and if) it needs the norm.
    pub fn leja_step_deferred(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<Pending<S::Real>> {
        leja_checks(backend, &self.st, y_prev, y_next, p)?;
        let log2 = leja_log2(
            resolve(self.kernel, self.st.auto_lanes)?,
            self.st.auto_lanes,
        );
        let slot = self.st.leja_slot(
            Some(self.values.device_ptr()),
            log2,
            step,
            y_prev.device_ptr(),
            y_prev.device_ptr(),
            y_next.device_ptr(),
            p.device_ptr(),
        )?;
        Ok(Pending::new(vec![slot], reduce::combine_norm::<S::Real>))
    }
}

fn leja_checks<S: Scalar>(
    backend: &GpuBackend,
    st: &CsrStructure,
    y_prev: &GpuVector<S>,
    y_next: &GpuVector<S>,
    p: &GpuVector<S>,
) -> Result<()> {
    if st.nrows != st.ncols {
        return Err(Error::invalid(
            "operator",
            format!("{}x{}", st.nrows, st.ncols),
            "a Leja step needs a square matrix",
        ));
    }
    check_vectors(backend, &st.device, st.nrows, st.ncols, y_prev, y_next)?;
    backend.own("p", p)?;
    check_dim("leja_step: p length", st.nrows, p.len())
}

impl<S: Scalar> GpuCsr<S> {
    /// The checks of the fused Lanczos products at step `j`: a square matrix, vectors and
    /// arrays of this device and of the right lengths.
    fn check_lanczos(
        &self,
        backend: &GpuBackend,
        j: usize,
        q: &GpuVector<S>,
        w: &GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &GpuVector<f64>,
    ) -> Result<()> {
        if self.st.nrows != self.st.ncols {
            return Err(Error::invalid(
                "operator",
                format!("{}x{}", self.st.nrows, self.st.ncols),
                "a Lanczos product needs a square matrix",
            ));
        }
        check_vectors(backend, &self.st.device, self.st.nrows, self.st.ncols, q, w)?;
        backend.own("c", c)?;
        backend.own("sums", sums)?;
        if c.len() < 2 * j + 2 || sums.len() < matexp_core::LANCZOS_SUMS {
            return Err(Error::dim(
                "lanczos_product: coefficient and sums arrays",
                (2 * j + 2).max(matexp_core::LANCZOS_SUMS),
                c.len().min(sums.len()),
            ));
        }
        Ok(())
    }

    /// Lanes per row of the fused products (log2), from the kernel choice.
    fn lanes_log2(&self) -> Result<u32> {
        Ok(leja_log2(
            resolve(self.kernel, self.st.auto_lanes)?,
            self.st.auto_lanes,
        ))
    }
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for GpuCsr<S> {
    fn nrows(&self) -> usize {
        self.st.nrows
    }
    fn ncols(&self) -> usize {
        self.st.ncols
    }
    fn apply(
        &self,
        backend: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.apply_with(backend, self.kernel, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.st.nrows != self.st.ncols {
            return None;
        }
        if self.skew_hermitian {
            return SpectralBounds::new(0.0, 0.0, self.disc_box.2, self.disc_box.3).ok();
        }
        bounds_from_box(self.disc_box, self.hermitian)
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        if self.hermitian {
            self.spectral_bounds().map(|b| (b.re_min, b.re_max))
        } else if self.skew_hermitian {
            Some((0.0, 0.0))
        } else {
            self.hermitian_part
        }
    }
    fn fused(&self) -> Option<&dyn FusedOperator<GpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar> FusedOperator<GpuBackend, S> for GpuCsr<S> {
    /// One pass (`spmv_csr_lanczos`): the product, the β_j·q_{j−1} subtraction and the
    /// step's sums together, reduced on the device into `sums`.
    fn lanczos_product(
        &self,
        backend: &GpuBackend,
        j: usize,
        q_prev: Option<&GpuVector<S>>,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.check_lanczos(backend, j, q, w, c, sums)?;
        let prev = match q_prev.filter(|_| j > 0) {
            Some(p) => {
                backend.own("q_prev", p)?;
                check_dim("lanczos_product: q_prev length", q.len(), p.len())?;
                p.device_ptr()
            }
            None => 0,
        };
        self.st.lanczos_into::<S>(
            self.values.device_ptr(),
            self.lanes_log2()?,
            c.device_ptr(),
            j,
            q.device_ptr(),
            prev,
            w.device_ptr(),
            sums.device_ptr(),
        )
    }
    fn lanczos_advance_fused(&self) -> bool {
        self.deferred_lanczos && self.st.nrows == self.st.ncols
    }
    /// One pass (`spmv_csr_lanczos_advance`): q_{j+1} formed from `w_prev` and q_j where it
    /// is gathered and written once, the product, the β_{j+1}·q_j subtraction and the
    /// step's sums (reads A, q_j, w_prev; writes q_next, w).
    fn lanczos_advance(
        &self,
        backend: &GpuBackend,
        j: usize,
        q: &GpuVector<S>,
        w_prev: &GpuVector<S>,
        q_next: &mut GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.check_lanczos(backend, j + 1, q, w, c, sums)?;
        backend.own("w_prev", w_prev)?;
        backend.own("q_next", q_next)?;
        check_dim("lanczos_advance: w_prev length", q.len(), w_prev.len())?;
        check_dim("lanczos_advance: q_next length", q.len(), q_next.len())?;
        self.st.lanczos_advance_into::<S>(
            self.values.device_ptr(),
            self.lanes_log2()?,
            c.device_ptr(),
            j,
            q.device_ptr(),
            w_prev.device_ptr(),
            q_next.device_ptr(),
            w.device_ptr(),
            sums.device_ptr(),
        )
    }
    fn shifted_step(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<S::Real> {
        self.leja_step_deferred(backend, step, y_prev, y_next, p)?
            .wait()
    }
}

/// A pattern-only CSR matrix (every stored entry is 1) on one GPU: adjacency matrices of
/// graphs, applied to vectors of any scalar type without storing values.
pub struct GpuPattern {
    st: CsrStructure,
    hybrid: HybridPlan,
    skewed: bool,
    kernel: SpmvKernel,
    disc_box: (f64, f64, f64, f64),
    symmetric: bool,
}

impl fmt::Debug for GpuPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GpuPattern<{}>({}x{}, nnz {}, kernel {}, gpu:{})",
            self.st.indices.name(),
            self.st.nrows,
            self.st.ncols,
            self.st.nnz,
            self.kernel,
            self.st.device.ordinal()
        )
    }
}

impl GpuPattern {
    /// Uploads a pattern given by its arrays (validated first).
    pub fn from_parts<I: GpuIndex>(
        backend: &GpuBackend,
        nrows: usize,
        ncols: usize,
        row_ptr: &[I],
        col_idx: &[I],
    ) -> Result<Self> {
        let max_row = validate_csr(nrows, ncols, row_ptr, col_idx)?;
        let lanes = auto_lanes(nrows, col_idx.len(), max_row);
        Ok(GpuPattern {
            disc_box: gershgorin_box::<f64, I>(nrows, row_ptr, col_idx, None),
            st: CsrStructure::upload(backend.device(), nrows, ncols, row_ptr, col_idx, lanes)?,
            hybrid: HybridPlan::build(backend.device(), nrows, row_ptr)?,
            skewed: is_skewed(nrows, col_idx.len(), max_row),
            kernel: SpmvKernel::Auto,
            symmetric: false,
        })
    }

    /// Uploads a [`matexp_sparse::PatternCsr`]; symmetry is taken from it.
    pub fn from_pattern<I: matexp_sparse::CsrIndex>(
        backend: &GpuBackend,
        a: &matexp_sparse::PatternCsr<I>,
    ) -> Result<Self> {
        let m = if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u32>(a.row_ptr()),
            scalar::cast_slice::<I, u32>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c)?
        } else if let (Some(r), Some(c)) = (
            scalar::cast_slice::<I, u64>(a.row_ptr()),
            scalar::cast_slice::<I, u64>(a.col_idx()),
        ) {
            Self::from_parts(backend, a.nrows(), a.ncols(), r, c)?
        } else {
            return Err(Error::Unsupported(format!("index type {}", I::NAME)));
        };
        Ok(m.assume_symmetric(a.nrows() == a.ncols() && a.is_symmetric()))
    }

    /// Declares the pattern symmetric (an undirected graph): real spectral bounds, Lanczos.
    pub fn assume_symmetric(mut self, symmetric: bool) -> Self {
        self.symmetric = symmetric;
        self
    }

    /// Selects the SpMV kernel ([`SpmvKernel::Cusparse`] is not available for patterns).
    pub fn with_kernel(mut self, kernel: SpmvKernel) -> Result<Self> {
        if kernel == SpmvKernel::Cusparse {
            return Err(Error::Unsupported(
                "cuSPARSE needs stored values; pattern matrices use the matexp kernels".into(),
            ));
        }
        resolve(kernel, self.st.auto_lanes)?;
        self.kernel = kernel;
        Ok(self)
    }

    /// Lanes per row of the vector kernel that [`SpmvKernel::Auto`] uses for uniform
    /// patterns (and the fused Leja step for all).
    pub fn auto_lanes(&self) -> u32 {
        self.st.auto_lanes
    }

    /// The kernel [`SpmvKernel::Auto`] stands for: [`SpmvKernel::Hybrid`] when the row
    /// lengths are skewed ([`is_skewed`]), else the scalar or vector kernel of
    /// [`auto_lanes`](Self::auto_lanes).
    pub fn auto_kernel(&self) -> SpmvKernel {
        if self.skewed {
            SpmvKernel::Hybrid
        } else if self.st.auto_lanes <= 1 {
            SpmvKernel::Scalar
        } else {
            SpmvKernel::Vector {
                lanes: self.st.auto_lanes,
            }
        }
    }

    /// The row bins of [`SpmvKernel::Hybrid`] (built at upload for every pattern).
    pub fn hybrid_tiers(&self) -> HybridTiers {
        self.hybrid.tiers
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.st.nnz
    }

    /// Bytes a product on vectors of `S` must move at least.
    pub fn bytes_per_product<S: Scalar>(&self, reads_y: bool) -> usize {
        self.st
            .floor_bytes(std::mem::size_of::<S>(), false, reads_y)
    }

    /// y ← α·A·x + β·y with an explicit kernel.
    pub fn apply_with<S: Scalar>(
        &self,
        backend: &GpuBackend,
        kernel: SpmvKernel,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        check_vectors(backend, &self.st.device, self.st.nrows, self.st.ncols, x, y)?;
        let kernel = match kernel {
            SpmvKernel::Auto => self.auto_kernel(),
            k => k,
        };
        match resolve(kernel, self.st.auto_lanes)? {
            Mapping::Cusparse => Err(Error::Unsupported(
                "cuSPARSE needs stored values; pattern matrices use the matexp kernels".into(),
            )),
            Mapping::Hybrid => {
                self.hybrid
                    .spmv(&self.st, alpha, x.device_ptr(), beta, y.device_ptr())
            }
            m => self
                .st
                .spmv(None, m, alpha, x.device_ptr(), beta, y.device_ptr()),
        }
    }

    /// The fused Leja step, its norm left on the way to the host.
    pub fn leja_step_deferred<S: Scalar>(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<Pending<S::Real>> {
        leja_checks(backend, &self.st, y_prev, y_next, p)?;
        let log2 = leja_log2(
            resolve(self.kernel, self.st.auto_lanes)?,
            self.st.auto_lanes,
        );
        let slot = self.st.leja_slot(
            None,
            log2,
            step,
            y_prev.device_ptr(),
            y_prev.device_ptr(),
            y_next.device_ptr(),
            p.device_ptr(),
        )?;
        Ok(Pending::new(vec![slot], reduce::combine_norm::<S::Real>))
    }
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for GpuPattern {
    fn nrows(&self) -> usize {
        self.st.nrows
    }
    fn ncols(&self) -> usize {
        self.st.ncols
    }
    fn apply(
        &self,
        backend: &GpuBackend,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.apply_with(backend, self.kernel, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.st.nrows != self.st.ncols {
            return None;
        }
        bounds_from_box(self.disc_box, self.symmetric)
    }
    fn is_hermitian(&self) -> bool {
        self.symmetric
    }
    fn fused(&self) -> Option<&dyn FusedOperator<GpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar> FusedOperator<GpuBackend, S> for GpuPattern {
    fn shifted_step(
        &self,
        backend: &GpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &GpuVector<S>,
        y_next: &mut GpuVector<S>,
        p: &mut GpuVector<S>,
    ) -> Result<S::Real> {
        self.leja_step_deferred(backend, step, y_prev, y_next, p)?
            .wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_follow_the_row_length_profile() {
        assert_eq!(auto_lanes(10, 10, 1), 1);
        assert_eq!(auto_lanes(100, 700, 7), 1); // 3D Laplacian, 7 per row
        assert_eq!(auto_lanes(100, 1750, 18), 4); // spin bath without explicit zeros
        assert_eq!(auto_lanes(100, 3400, 34), 8); // spin bath as stored in the thesis
        assert_eq!(auto_lanes(100, 2000, 3000), 32); // power-law graph: hubs
        assert_eq!(auto_lanes(100, 200, 3000), 1); // skewed but mostly tiny rows
        assert_eq!(auto_lanes(1, 10_000, 10_000), 32);
        assert_eq!(auto_lanes(0, 0, 0), 1);
    }

    #[test]
    fn kernel_choices_resolve_or_are_rejected() {
        assert_eq!(resolve(SpmvKernel::Auto, 1).unwrap(), Mapping::Scalar);
        assert_eq!(resolve(SpmvKernel::Auto, 8).unwrap(), Mapping::Vector(3));
        assert_eq!(
            resolve(SpmvKernel::Vector { lanes: 32 }, 1).unwrap(),
            Mapping::Vector(5)
        );
        for bad in [0, 3, 64] {
            assert!(matches!(
                resolve(SpmvKernel::Vector { lanes: bad }, 1),
                Err(Error::InvalidArgument { name: "lanes", .. })
            ));
        }
    }

    #[test]
    fn malformed_csr_is_rejected_with_context() {
        // Wrong row_ptr length, nonzero start, decreasing pointers, column out of range,
        // and a col_idx length that disagrees with the last pointer.
        assert!(matches!(
            validate_csr(2, 2, &[0u32, 1], &[0]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(validate_csr(1, 2, &[1u32, 1], &[]).is_err());
        let e = validate_csr(2, 2, &[0u32, 2, 1], &[0]).unwrap_err();
        assert!(e.to_string().contains("row_ptr[1] = 2"), "{e}");
        let e = validate_csr(2, 2, &[0u64, 1, 2], &[0, 2]).unwrap_err();
        assert!(e.to_string().contains("2 in row 1"), "{e}");
        assert!(validate_csr(2, 2, &[0u32, 1, 2], &[0, 1, 1]).is_err());
        assert_eq!(
            validate_csr(3, 3, &[0u32, 0, 3, 4], &[0, 1, 2, 2]).unwrap(),
            3
        );
    }

    #[test]
    fn gershgorin_box_encloses_the_discs() {
        // [[2, -1], [-1, 2]]: eigenvalues 1 and 3; discs [1, 3] twice.
        let b = gershgorin_box(
            2,
            &[0u32, 2, 4],
            &[0, 1, 0, 1],
            Some(&[2.0, -1.0, -1.0, 2.0]),
        );
        assert_eq!(b, (1.0, 3.0, -1.0, 1.0));
        let r = bounds_from_box(b, true).unwrap();
        assert_eq!(
            (r.re_min, r.re_max, r.im_min, r.im_max),
            (1.0, 3.0, 0.0, 0.0)
        );
        // A path graph 0-1-2 as a pattern: degrees 1, 2, 1, no diagonal.
        let p = gershgorin_box::<f64, u32>(3, &[0, 1, 3, 4], &[1, 0, 2, 1], None);
        assert_eq!((p.0, p.1), (-2.0, 2.0));
    }
}
