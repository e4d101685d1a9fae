//! The CPU or a GPU, chosen at run time, without a generic function in the caller.

use crate::{Options, solve};
use matexp_core::{Backend, CpuBackend, Error, Result, Scalar};
use matexp_expmv::Report;
use matexp_gpu::{GpuBackend, GpuCsr};
use matexp_sparse::{CsrIndex, CsrMatrix};
use std::fmt;

/// Where a computation runs.
///
/// ```
/// use matexp::Device;
/// assert_eq!("gpu:1".parse::<Device>()?, Device::Gpu(1));
/// assert_eq!("cpu".parse::<Device>()?, Device::Cpu);
/// assert_eq!(Device::Gpu(0).to_string(), "gpu:0");
/// # Ok::<(), matexp::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// The CPU backend (rayon).
    Cpu,
    /// The NVIDIA GPU with this ordinal.
    Gpu(usize),
}

impl Device {
    /// `Gpu(0)` when a CUDA driver and at least one GPU are present, `Cpu` otherwise.
    pub fn best_available() -> Device {
        match matexp_gpu::device_count() {
            Ok(n) if n > 0 => Device::Gpu(0),
            _ => Device::Cpu,
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Gpu(i) => write!(f, "gpu:{i}"),
        }
    }
}

impl std::str::FromStr for Device {
    type Err = Error;

    /// Parses `cpu`, `gpu` (ordinal 0) or `gpu:N`.
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "cpu" => Ok(Device::Cpu),
            "gpu" => Ok(Device::Gpu(0)),
            _ => s
                .strip_prefix("gpu:")
                .and_then(|n| n.parse().ok())
                .map(Device::Gpu)
                .ok_or_else(|| Error::invalid("device", s.clone(), "expected cpu, gpu or gpu:N")),
        }
    }
}

/// A backend chosen at run time: the CPU or one GPU. It solves with host vectors in and out,
/// so the caller writes no generic function; the matrix is uploaded per call.
///
/// ```no_run
/// use matexp::{AnyBackend, CsrMatrix, Device, Options, read_matrix_market};
/// let a: CsrMatrix<f64> = read_matrix_market("matrix.mtx")?;
/// let v = vec![1.0; a.nrows()];
/// // The GPU if there is one, the CPU otherwise.
/// let backend = AnyBackend::new(Device::best_available())?;
/// let (w, report) = backend.expmv(&a, 0.1, &v, &Options::default())?;
/// println!("{}: {report}", backend.device());
/// # Ok::<(), matexp::Error>(())
/// ```
#[derive(Debug)]
pub enum AnyBackend {
    /// The CPU backend.
    Cpu(CpuBackend),
    /// One GPU.
    Gpu(GpuBackend),
}

impl AnyBackend {
    /// The backend of `device`.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when `device` is a GPU and no CUDA driver or no GPU of that ordinal
    /// exists (the message says so; [`AnyBackend::gpu_or_cpu`] falls back instead).
    pub fn new(device: Device) -> Result<Self> {
        match device {
            Device::Cpu => Ok(AnyBackend::Cpu(CpuBackend::new())),
            Device::Gpu(i) => {
                let count = matexp_gpu::device_count().map_err(|e| {
                    Error::Device(format!(
                        "gpu:{i} was asked for, but no CUDA driver could be used ({e}); \
                         choose Device::Cpu or AnyBackend::gpu_or_cpu"
                    ))
                })?;
                if i >= count {
                    return Err(Error::Device(format!(
                        "gpu:{i} was asked for, but this machine has {count} GPU(s); choose \
                         Device::Cpu or AnyBackend::gpu_or_cpu"
                    )));
                }
                Ok(AnyBackend::Gpu(GpuBackend::new(i)?))
            }
        }
    }

    /// GPU `ordinal` if it can be used, the CPU otherwise.
    pub fn gpu_or_cpu(ordinal: usize) -> Self {
        AnyBackend::new(Device::Gpu(ordinal)).unwrap_or(AnyBackend::Cpu(CpuBackend::new()))
    }

    /// Where this backend computes.
    pub fn device(&self) -> Device {
        match self {
            AnyBackend::Cpu(_) => Device::Cpu,
            AnyBackend::Gpu(g) => Device::Gpu(g.device().ordinal()),
        }
    }

    /// w = e^{tA}v for a CSR matrix, as [`crate::expmv`].
    ///
    /// # Errors
    ///
    /// As [`crate::expmv`], and device errors of the upload.
    pub fn expmv<S: Scalar, I: CsrIndex>(
        &self,
        a: &CsrMatrix<S, I>,
        t: S,
        v: &[S],
        opts: &Options,
    ) -> Result<(Vec<S>, Report)> {
        match self {
            AnyBackend::Cpu(cpu) => solve::expmv(cpu, a, t, &v.to_vec(), opts),
            AnyBackend::Gpu(g) => {
                let ag = GpuCsr::from_csr(g, a)?;
                let vg = g.upload(v)?;
                let (w, r) = solve::expmv(g, &ag, t, &vg, opts)?;
                Ok((g.to_host(&w)?, r))
            }
        }
    }

    /// `out[i]` = e^{tᵢA}v for a CSR matrix, as [`crate::expmv_times`].
    ///
    /// # Errors
    ///
    /// As [`crate::expmv_times`], and device errors of the upload.
    pub fn expmv_times<S: Scalar, I: CsrIndex>(
        &self,
        a: &CsrMatrix<S, I>,
        times: &[S],
        v: &[S],
        opts: &Options,
    ) -> Result<(Vec<Vec<S>>, Report)> {
        match self {
            AnyBackend::Cpu(cpu) => solve::expmv_times(cpu, a, times, &v.to_vec(), opts),
            AnyBackend::Gpu(g) => {
                let ag = GpuCsr::from_csr(g, a)?;
                let vg = g.upload(v)?;
                let (ws, r) = solve::expmv_times(g, &ag, times, &vg, opts)?;
                let host = ws.iter().map(|w| g.to_host(w)).collect::<Result<_>>()?;
                Ok((host, r))
            }
        }
    }

    /// `[φ₀(tA)v, …, φ_k(tA)v]` for a CSR matrix, as [`crate::phimv`].
    ///
    /// # Errors
    ///
    /// As [`crate::phimv`], and device errors of the upload.
    pub fn phimv<S: Scalar, I: CsrIndex>(
        &self,
        a: &CsrMatrix<S, I>,
        t: S,
        v: &[S],
        k: usize,
        opts: &Options,
    ) -> Result<(Vec<Vec<S>>, Report)> {
        match self {
            AnyBackend::Cpu(cpu) => solve::phimv(cpu, a, t, &v.to_vec(), k, opts),
            AnyBackend::Gpu(g) => {
                let ag = GpuCsr::from_csr(g, a)?;
                let vg = g.upload(v)?;
                let (ws, r) = solve::phimv(g, &ag, t, &vg, k, opts)?;
                let host = ws.iter().map(|w| g.to_host(w)).collect::<Result<_>>()?;
                Ok((host, r))
            }
        }
    }
}
