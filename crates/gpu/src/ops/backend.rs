//! [`GpuBackend`]: the [`Backend`] of one GPU, with device vectors [`GpuVector`].

use crate::kernels::blas1 as blas;
use crate::kernels::reduce::{self, Pending};
use crate::rt::{Device, DeviceBuffer, scalar};
use matexp_core::{Backend, Error, KrylovBackend, Result, Scalar, check_dim};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// A vector of `S` in one GPU's memory.
///
/// Operations on it are queued on the device's stream and run in program order; nothing
/// waits for the device unless a value must reach the host.
pub struct GpuVector<S: Scalar> {
    buf: DeviceBuffer<u8>,
    len: usize,
    _s: PhantomData<S>,
}

impl<S: Scalar> fmt::Debug for GpuVector<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GpuVector<{}>[{}] on gpu:{}",
            S::NAME,
            self.len,
            self.buf.device().ordinal()
        )
    }
}

impl<S: Scalar> GpuVector<S> {
    /// `n` zeros on `device`.
    pub fn zeros(device: &Arc<Device>, n: usize) -> Result<Self> {
        scalar::check::<S>()?;
        Ok(GpuVector {
            buf: DeviceBuffer::zeros(device, bytes_of::<S>(n)?)?,
            len: n,
            _s: PhantomData,
        })
    }

    /// `n` elements whose contents are unspecified (see `Backend::alloc`).
    pub fn uninit(device: &Arc<Device>, n: usize) -> Result<Self> {
        scalar::check::<S>()?;
        Ok(GpuVector {
            buf: DeviceBuffer::uninit(device, bytes_of::<S>(n)?)?,
            len: n,
            _s: PhantomData,
        })
    }

    /// A copy of `host` on `device`.
    pub fn from_host(device: &Arc<Device>, host: &[S]) -> Result<Self> {
        scalar::check::<S>()?;
        let mut v = GpuVector {
            buf: DeviceBuffer::uninit(device, bytes_of::<S>(host.len())?)?,
            len: host.len(),
            _s: PhantomData,
        };
        v.upload(host)?;
        Ok(v)
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The owning device.
    pub fn device(&self) -> &Arc<Device> {
        self.buf.device()
    }

    /// Raw device address of element `i` (one past the end allowed), for kernels.
    pub fn ptr_at(&self, i: usize) -> u64 {
        debug_assert!(i <= self.len);
        self.buf.device_ptr() + (i * std::mem::size_of::<S>()) as u64
    }

    /// Raw device address of the first element.
    pub fn device_ptr(&self) -> u64 {
        self.buf.device_ptr()
    }

    /// Overwrites the vector with `host` (same length).
    pub fn upload(&mut self, host: &[S]) -> Result<()> {
        check_dim("GpuVector::upload: host length", self.len, host.len())?;
        self.upload_range(0, host)
    }

    /// Overwrites elements `offset..offset + host.len()`.
    pub fn upload_range(&mut self, offset: usize, host: &[S]) -> Result<()> {
        self.buf
            .upload_range(offset * std::mem::size_of::<S>(), scalar::as_bytes(host))
    }

    /// Copies the vector to `host` (same length) after all queued work.
    pub fn download(&self, host: &mut [S]) -> Result<()> {
        check_dim("GpuVector::download: host length", self.len, host.len())?;
        self.download_range(0, host)
    }

    /// Copies elements `offset..offset + host.len()` to `host`.
    pub fn download_range(&self, offset: usize, host: &mut [S]) -> Result<()> {
        self.buf.download_range(
            offset * std::mem::size_of::<S>(),
            scalar::as_bytes_mut(host),
        )
    }

    /// Queues self[offset..offset+len] ← src[offset..offset+len]; `src` may live on another
    /// device (a peer copy on this vector's device stream).
    pub fn copy_range_from(&mut self, src: &GpuVector<S>, offset: usize, len: usize) -> Result<()> {
        let b = std::mem::size_of::<S>();
        self.buf.copy_range_from(&src.buf, offset * b, len * b)
    }
}

fn bytes_of<S: Scalar>(n: usize) -> Result<usize> {
    n.checked_mul(std::mem::size_of::<S>())
        .ok_or_else(|| Error::invalid("n", n, "vector byte size overflows"))
}

/// One GPU as a [`Backend`]: vectors are [`GpuVector`]s, BLAS-1 and reductions run as
/// kernels on the device's stream. Reductions wait for their result (one host
/// synchronization each); the `*_deferred` variants return a [`Pending`] instead.
///
/// ```no_run
/// use matexp_core::{Backend, c64};
/// use matexp_gpu::GpuBackend;
/// let gpu = GpuBackend::new(0)?; // Error::Device when there is no GPU
/// let x = gpu.upload(&[c64::new(3.0, 0.0), c64::new(0.0, 4.0)])?;
/// assert_eq!(gpu.nrm2(&x)?, 5.0);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct GpuBackend {
    device: Arc<Device>,
}

impl GpuBackend {
    /// The backend of GPU `ordinal`; an [`Error::Device`] when there is no driver or GPU.
    pub fn new(ordinal: usize) -> Result<Self> {
        Ok(GpuBackend {
            device: Device::open(ordinal)?,
        })
    }

    /// The backend of an already opened device.
    pub fn on(device: Arc<Device>) -> Self {
        GpuBackend { device }
    }

    /// The device.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    pub(crate) fn own<S: Scalar>(&self, what: &str, v: &GpuVector<S>) -> Result<()> {
        if v.device().ordinal() == self.device.ordinal() {
            Ok(())
        } else {
            Err(Error::invalid(
                "vector",
                format!("{what} on gpu:{}", v.device().ordinal()),
                format!("the backend runs on gpu:{}", self.device.ordinal()),
            ))
        }
    }

    /// Σ conj(xᵢ)·yᵢ, left on its way to the host.
    pub fn dot_deferred<S: Scalar>(
        &self,
        x: &GpuVector<S>,
        y: &GpuVector<S>,
    ) -> Result<Pending<S>> {
        self.own("x", x)?;
        self.own("y", y)?;
        check_dim("dot: y length", x.len(), y.len())?;
        let slot = reduce::dot_slot::<S>(&self.device, x.len(), x.device_ptr(), y.device_ptr())?;
        Ok(Pending::new(vec![slot], reduce::combine_dot::<S>))
    }

    /// ‖x‖₂ (overflow-safe), left on its way to the host.
    pub fn nrm2_deferred<S: Scalar>(&self, x: &GpuVector<S>) -> Result<Pending<S::Real>> {
        self.own("x", x)?;
        let slot = reduce::nrm2_slot::<S>(&self.device, x.len(), x.device_ptr())?;
        Ok(Pending::new(vec![slot], reduce::combine_norm::<S::Real>))
    }

    /// max |xᵢ|, left on its way to the host.
    pub fn amax_deferred<S: Scalar>(&self, x: &GpuVector<S>) -> Result<Pending<S::Real>> {
        self.own("x", x)?;
        let slot = reduce::amax_slot::<S>(&self.device, x.len(), x.device_ptr())?;
        Ok(Pending::new(vec![slot], reduce::combine_max::<S::Real>))
    }
}

impl Backend for GpuBackend {
    type Vector<S: Scalar> = GpuVector<S>;

    fn name(&self) -> String {
        format!("gpu:{}", self.device.ordinal())
    }

    fn zeros<S: Scalar>(&self, n: usize) -> Result<GpuVector<S>> {
        GpuVector::zeros(&self.device, n)
    }

    /// No memset: a Krylov basis is written before it is read, and clearing it would cost
    /// one more write pass over `k·n` entries.
    fn alloc<S: Scalar>(&self, n: usize) -> Result<GpuVector<S>> {
        GpuVector::uninit(&self.device, n)
    }

    fn upload<S: Scalar>(&self, host: &[S]) -> Result<GpuVector<S>> {
        GpuVector::from_host(&self.device, host)
    }

    fn download<S: Scalar>(&self, x: &GpuVector<S>, host: &mut [S]) -> Result<()> {
        self.own("x", x)?;
        x.download(host)
    }

    fn len<S: Scalar>(&self, x: &GpuVector<S>) -> usize {
        x.len()
    }

    fn copy<S: Scalar>(&self, src: &GpuVector<S>, dst: &mut GpuVector<S>) -> Result<()> {
        self.own("src", src)?;
        self.own("dst", dst)?;
        check_dim("copy: destination length", src.len(), dst.len())?;
        dst.copy_range_from(src, 0, src.len())
    }

    fn fill<S: Scalar>(&self, x: &mut GpuVector<S>, value: S) -> Result<()> {
        self.own("x", x)?;
        blas::fill(&self.device, x.len(), x.device_ptr(), value)
    }

    fn scale<S: Scalar>(&self, alpha: S, x: &mut GpuVector<S>) -> Result<()> {
        self.own("x", x)?;
        blas::scale(&self.device, x.len(), alpha, x.device_ptr())
    }

    fn axpby<S: Scalar>(
        &self,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.own("x", x)?;
        self.own("y", y)?;
        check_dim("axpby: y length", x.len(), y.len())?;
        blas::axpby(
            &self.device,
            x.len(),
            alpha,
            x.device_ptr(),
            beta,
            y.device_ptr(),
        )
    }

    fn dot<S: Scalar>(&self, x: &GpuVector<S>, y: &GpuVector<S>) -> Result<S> {
        self.dot_deferred(x, y)?.wait()
    }

    fn nrm2<S: Scalar>(&self, x: &GpuVector<S>) -> Result<S::Real> {
        self.nrm2_deferred(x)?.wait()
    }

    fn amax<S: Scalar>(&self, x: &GpuVector<S>) -> Result<S::Real> {
        self.amax_deferred(x)?.wait()
    }

    fn synchronize(&self) -> Result<()> {
        self.device.synchronize()
    }

    /// Kernels are queued on the device's stream; the host waits only for results it reads.
    fn is_asynchronous(&self) -> bool {
        true
    }

    /// One `combine` launch per 512 vectors, each reading its vectors once (n per term and
    /// one write of y, against 3n per term for repeated axpby).
    fn linear_combination<S: Scalar>(
        &self,
        coeffs: &[S],
        xs: &[&GpuVector<S>],
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.own("y", y)?;
        for x in xs {
            self.own("x", x)?;
        }
        matexp_core::check_combination(self, coeffs, xs, y)?;
        let ptrs: Vec<u64> = xs.iter().map(|x| x.device_ptr()).collect();
        blas::combine(&self.device, y.len(), coeffs, &ptrs, y.device_ptr())
    }
}

/// Every hook runs on the device: the coefficients stay in device memory and each step is a
/// few kernel launches with no host synchronization.
impl KrylovBackend for GpuBackend {
    /// A ranged copy of the coefficients (one synchronization).
    fn read_coeffs(&self, c: &GpuVector<f64>, start: usize, out: &mut [f64]) -> Result<()> {
        self.own("c", c)?;
        check_range("read_coeffs", c.len(), start, out.len())?;
        c.download_range(start, out)
    }

    fn write_coeffs(&self, c: &mut GpuVector<f64>, start: usize, values: &[f64]) -> Result<()> {
        self.own("c", c)?;
        check_range("write_coeffs", c.len(), start, values.len())?;
        c.upload_range(start, values)
    }

    /// Five launches, no host synchronization: the kernels of `reduce.cu` read α_j, β_j and
    /// write α_j, β_{j+1} in `c` on the device (see [`KrylovBackend::lanczos_step`] for the
    /// mathematics; 8n elements of memory traffic).
    fn lanczos_step<S: Scalar>(
        &self,
        j: usize,
        q_prev: Option<&GpuVector<S>>,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &mut GpuVector<f64>,
    ) -> Result<()> {
        let qp = self.lanczos_args("lanczos_step", j, q_prev, q, w, c)?;
        crate::kernels::krylov::lanczos_alpha::<S>(
            &self.device,
            q.len(),
            j,
            q.device_ptr(),
            w.device_ptr(),
            c.device_ptr(),
        )?;
        crate::kernels::krylov::lanczos_finish::<S>(
            &self.device,
            q.len(),
            j,
            qp,
            q.device_ptr(),
            w.device_ptr(),
            c.device_ptr(),
        )
    }

    /// Two launches (`dot_partial`, `finish_sum` into `c + at`), no host synchronization.
    fn dot_into<S: Scalar>(
        &self,
        x: &GpuVector<S>,
        y: &GpuVector<S>,
        c: &mut GpuVector<f64>,
        at: usize,
    ) -> Result<()> {
        self.own("x", x)?;
        self.own("y", y)?;
        self.own("c", c)?;
        check_dim("dot_into: y length", x.len(), y.len())?;
        check_range("dot_into", c.len(), at, 2)?;
        reduce::dot_into::<S>(
            &self.device,
            x.len(),
            x.device_ptr(),
            y.device_ptr(),
            c.device_ptr() + (8 * at) as u64,
        )
    }

    /// One kernel (`lanczos_sums`), then `finish_sum` into `sums`; no host wait.
    fn lanczos_sums<S: Scalar>(
        &self,
        j: usize,
        q_prev: Option<&GpuVector<S>>,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        let qp = self.lanczos_args("lanczos_sums", j, q_prev.filter(|_| j > 0), q, w, c)?;
        self.own("sums", sums)?;
        check_range(
            "lanczos_sums: sums",
            sums.len(),
            0,
            matexp_core::LANCZOS_SUMS,
        )?;
        crate::kernels::krylov::lanczos_sums::<S>(
            &self.device,
            q.len(),
            j,
            qp,
            q.device_ptr(),
            w.device_ptr(),
            c.device_ptr(),
            sums.device_ptr(),
        )
    }

    /// Three launches decided on the device (the Pythagorean update, then the norm and the
    /// scaling, which return at once when the update was trusted); no host wait.
    fn lanczos_update<S: Scalar>(
        &self,
        j: usize,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &mut GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.pythagorean_update("lanczos_update", j, q, w, c, sums, false)
    }

    /// The Pythagorean update's launches with the trusted write left out (decided on the
    /// device); no host wait.
    fn lanczos_settle<S: Scalar>(
        &self,
        j: usize,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &mut GpuVector<f64>,
        sums: &mut GpuVector<f64>,
    ) -> Result<()> {
        self.pythagorean_update("lanczos_settle", j, q, w, c, sums, true)
    }

    /// One kernel (`lanczos_form`), the flag read on the device.
    fn lanczos_form<S: Scalar>(
        &self,
        j: usize,
        q: &GpuVector<S>,
        w: &GpuVector<S>,
        c: &GpuVector<f64>,
        sums: &GpuVector<f64>,
        q_next: &mut GpuVector<S>,
    ) -> Result<()> {
        self.lanczos_args("lanczos_form", j, None, q, w, c)?;
        self.own("sums", sums)?;
        self.own("q_next", q_next)?;
        check_dim("lanczos_form: q_next length", q.len(), q_next.len())?;
        check_range(
            "lanczos_form: sums",
            sums.len(),
            0,
            matexp_core::LANCZOS_SUMS,
        )?;
        crate::kernels::krylov::lanczos_form::<S>(
            &self.device,
            q.len(),
            j,
            c.device_ptr(),
            sums.device_ptr(),
            q.device_ptr(),
            w.device_ptr(),
            q_next.device_ptr(),
        )
    }
}

impl GpuBackend {
    /// The checks of a Lanczos step's arguments; the device address of q_prev (0 for none).
    /// `lanczos_update` (`defer` false) or `lanczos_settle` (true): the checks, then the
    /// launches of `kernels::krylov::lanczos_pythag_update`.
    #[allow(clippy::too_many_arguments)]
    fn pythagorean_update<S: Scalar>(
        &self,
        what: &str,
        j: usize,
        q: &GpuVector<S>,
        w: &mut GpuVector<S>,
        c: &mut GpuVector<f64>,
        sums: &mut GpuVector<f64>,
        defer: bool,
    ) -> Result<()> {
        self.lanczos_args(what, j, None, q, w, c)?;
        self.own("sums", sums)?;
        check_range(
            &format!("{what}: sums"),
            sums.len(),
            0,
            matexp_core::LANCZOS_SUMS,
        )?;
        crate::kernels::krylov::lanczos_pythag_update::<S>(
            &self.device,
            q.len(),
            j,
            q.device_ptr(),
            w.device_ptr(),
            c.device_ptr(),
            sums.device_ptr(),
            defer,
        )
    }

    fn lanczos_args<S: Scalar>(
        &self,
        what: &str,
        j: usize,
        q_prev: Option<&GpuVector<S>>,
        q: &GpuVector<S>,
        w: &GpuVector<S>,
        c: &GpuVector<f64>,
    ) -> Result<u64> {
        self.own("q", q)?;
        self.own("w", w)?;
        self.own("c", c)?;
        check_dim(&format!("{what}: w length"), q.len(), w.len())?;
        if c.len() < 2 * j + 2 {
            return Err(Error::dim(
                format!("{what}: coefficient array length"),
                2 * j + 2,
                c.len(),
            ));
        }
        match q_prev {
            Some(p) => {
                self.own("q_prev", p)?;
                check_dim(&format!("{what}: q_prev length"), q.len(), p.len())?;
                Ok(p.device_ptr())
            }
            None => Ok(0),
        }
    }
}

fn check_range(what: &str, total: usize, start: usize, len: usize) -> Result<()> {
    let end = start.saturating_add(len);
    if end > total {
        return Err(Error::dim(format!("{what}: range end"), total, end));
    }
    Ok(())
}
