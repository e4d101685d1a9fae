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
/// use matexp::Target;
/// assert_eq!("gpu:1".parse::<Target>()?, Target::Gpu(1));
/// assert_eq!("cpu".parse::<Target>()?, Target::Cpu);
/// assert_eq!(Target::Gpu(0).to_string(), "gpu:0");
/// # Ok::<(), matexp::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The CPU backend (rayon).
    Cpu,
    /// The NVIDIA GPU with this ordinal.
    Gpu(usize),
}

impl Target {
    /// `Gpu(0)` when a CUDA driver and at least one GPU are present, `Cpu` otherwise.
    pub fn best_available() -> Target {
        match matexp_gpu::device_count() {
            Ok(n) if n > 0 => Target::Gpu(0),
            _ => Target::Cpu,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Cpu => f.write_str("cpu"),
            Target::Gpu(i) => write!(f, "gpu:{i}"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = Error;

    /// Parses `cpu`, `gpu` (ordinal 0) or `gpu:N`.
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "cpu" => Ok(Target::Cpu),
            "gpu" => Ok(Target::Gpu(0)),
            _ => s
                .strip_prefix("gpu:")
                .and_then(|n| n.parse().ok())
                .map(Target::Gpu)
                .ok_or_else(|| Error::invalid("device", s.clone(), "expected cpu, gpu or gpu:N")),
        }
    }
}

/// A backend chosen at run time: the CPU or one GPU. It solves with host vectors in and out,
/// so the caller writes no generic function; the matrix is uploaded per call.
///
/// ```no_run
/// use matexp::{AnyBackend, CsrMatrix, Target, Options, read_matrix_market};
/// let a: CsrMatrix<f64> = read_matrix_market("matrix.mtx")?;
/// let v = vec![1.0; a.nrows()];
/// // The GPU if there is one, the CPU otherwise.
/// let backend = AnyBackend::new(Target::best_available())?;
/// let (w, report) = backend.expmv(&a, 0.1, &v, &Options::default())?;
/// println!("{}: {report}", backend.target());
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
    /// The backend of `target`.
    ///
    /// # Errors
    ///
    /// [`Error::Device`] when `target` is a GPU and no CUDA driver or no GPU of that ordinal
    /// exists (the message says so; [`AnyBackend::gpu_or_cpu`] falls back instead).
    pub fn new(target: Target) -> Result<Self> {
        match target {
            Target::Cpu => Ok(AnyBackend::Cpu(CpuBackend::new())),
            Target::Gpu(i) => {
                let count = matexp_gpu::device_count().map_err(|e| {
                    Error::Device(format!(
                        "gpu:{i} was asked for, but no CUDA driver could be used ({e}); \
                         choose Target::Cpu or AnyBackend::gpu_or_cpu"
                    ))
                })?;
                if i >= count {
                    return Err(Error::Device(format!(
                        "gpu:{i} was asked for, but this machine has {count} GPU(s); choose \
                         Target::Cpu or AnyBackend::gpu_or_cpu"
                    )));
                }
                Ok(AnyBackend::Gpu(GpuBackend::new(i)?))
            }
        }
    }

    /// GPU `ordinal` if it can be used, the CPU otherwise.
    pub fn gpu_or_cpu(ordinal: usize) -> Self {
        AnyBackend::new(Target::Gpu(ordinal)).unwrap_or(AnyBackend::Cpu(CpuBackend::new()))
    }

    /// Where this backend computes.
    pub fn target(&self) -> Target {
        match self {
            AnyBackend::Cpu(_) => Target::Cpu,
            AnyBackend::Gpu(g) => Target::Gpu(g.device().ordinal()),
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
