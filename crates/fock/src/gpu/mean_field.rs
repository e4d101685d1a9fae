//! The seed's mean-field state built on the device, and the overlap of a state with it in one
//! pass without storing it: no host copy of a 19 GB state.
//!
//! `ψ_n = exp(Σ_k L_k(n_k))·e^{i Σ_k Φ_k(n_k)}` with the per-site tables
//! `L_k(n) = n·ln|C_k| − ½ ln n! + ½ ln N!/M` and `Φ_k(n) = n·arg C_k` (the `C_k` scaled to
//! `Σ|C_k|² = 1`), the factorisation of [`crate::mean_field_state`]'s
//! `√(N!/Π n_k!)·Π C_k^{n_k}`: the same vector to rounding, normalised by construction.

use super::GpuBoseHubbard;
use crate::observables::{MeanFieldLogs, mean_field_logs};
use matexp_core::{Error, Result, Scalar, c64, check_dim};
use matexp_gpu::rt::{DeviceBuffer, Kernel, LaunchConfig};
use matexp_gpu::{GpuBackend, GpuVector};

static PRODUCT_LOG: Kernel = Kernel::new(&super::FOCK_PTX, "fock_product_log");
static OVERLAP_LOG: Kernel = Kernel::new(&super::FOCK_PTX, "fock_overlap_log");

/// The per-site tables of a mean-field state on the device (see the module documentation).
#[derive(Debug)]
pub struct GpuMeanField {
    lnabs: DeviceBuffer<f64>,
    phase: DeviceBuffer<f64>,
}

impl GpuBoseHubbard {
    fn mean_field_tables(&self, amplitudes: &[c64]) -> Result<GpuMeanField> {
        let basis = self.model.basis();
        let MeanFieldLogs {
            ln_abs,
            phase,
            ln_fact,
        } = mean_field_logs(basis, amplitudes)?;
        let (n, m) = (basis.particles() as usize, basis.sites() as usize);
        let share = 0.5 * ln_fact[n] / m as f64;
        let mut lt = Vec::with_capacity(m * (n + 1));
        let mut pt = Vec::with_capacity(m * (n + 1));
        for k in 0..m {
            for nk in 0..=n {
                // n·ln|C| is −∞ for a vanishing amplitude and nk > 0 (exp gives 0), and 0 for
                // nk = 0 (not 0·(−∞)).
                let l = if nk == 0 {
                    0.0
                } else {
                    nk as f64 * ln_abs[k] - 0.5 * ln_fact[nk]
                };
                lt.push(l + share);
                pt.push(nk as f64 * phase[k]);
            }
        }
        Ok(GpuMeanField {
            lnabs: DeviceBuffer::from_host(&self.device, &lt)?,
            phase: DeviceBuffer::from_host(&self.device, &pt)?,
        })
    }

    fn check_complex<S: Scalar>() -> Result<()> {
        if S::NAME == "c32" || S::NAME == "c64" {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "the GPU Bose–Hubbard states are instantiated for c32 and c64, not {}",
                S::NAME
            )))
        }
    }

    fn state_config(&self) -> LaunchConfig {
        let d = self.model.basis().dim() as usize;
        let mut cfg = LaunchConfig::grid_stride(&self.device, d, 256);
        cfg.shared_mem_bytes = (self.model.basis().table().len() * 8) as u32;
        cfg
    }

    /// The mean-field state of [`crate::mean_field_state`] built on the device, with its
    /// tables for [`GpuBoseHubbard::overlap_with_mean_field`].
    ///
    /// # Errors
    /// As [`crate::mean_field_state`]; [`Error::Unsupported`] for a real scalar; device
    /// errors.
    pub fn mean_field_state<S: Scalar>(
        &self,
        backend: &GpuBackend,
        amplitudes: &[c64],
    ) -> Result<(GpuVector<S>, GpuMeanField)> {
        Self::check_complex::<S>()?;
        let t = self.mean_field_tables(amplitudes)?;
        let basis = self.model.basis();
        let psi = matexp_core::Backend::alloc::<S>(backend, basis.len()?)?;
        let f = PRODUCT_LOG.for_scalar::<S>(&self.device)?;
        let (dim, n, m) = (basis.dim(), basis.particles(), basis.sites());
        let pp = psi.device_ptr();
        // SAFETY: fock_product_log_<S>(u64 dim, u32 n, u32 m, const u64 *table,
        // const double *lnabs, const double *phase, C *psi): tables of M(N+1) doubles, the
        // D table of (N+1)(M+1) entries staged in the dynamic shared memory, psi D elements.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&n)
                .arg(&m)
                .arg(&self.table)
                .arg(&t.lnabs)
                .arg(&t.phase)
                .arg(&pp)
                .launch(self.state_config())?;
        }
        Ok((psi, t))
    }

    /// `⟨φ|x⟩` for the mean-field state `φ` of `tables`, in one pass over `x`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length; device errors.
    pub fn overlap_with_mean_field<S: Scalar>(
        &self,
        tables: &GpuMeanField,
        x: &GpuVector<S>,
    ) -> Result<c64> {
        Self::check_complex::<S>()?;
        let basis = self.model.basis();
        check_dim(
            "GPU mean-field overlap: state length",
            basis.len()?,
            x.len(),
        )?;
        let cfg = self.state_config();
        let partial = DeviceBuffer::<f64>::zeros(&self.device, 2 * cfg.grid.0 as usize)?;
        let f = OVERLAP_LOG.for_scalar::<S>(&self.device)?;
        let (dim, n, m) = (basis.dim(), basis.particles(), basis.sites());
        let xp = x.device_ptr();
        // SAFETY: fock_overlap_log_<S>(u64 dim, u32 n, u32 m, const u64 *table,
        // const double *lnabs, const double *phase, const C *x, double *partial) writes
        // 2·grid partials.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&n)
                .arg(&m)
                .arg(&self.table)
                .arg(&tables.lnabs)
                .arg(&tables.phase)
                .arg(&xp)
                .arg(&partial)
                .launch(cfg)?;
        }
        let host = partial.to_vec()?;
        let (re, im) = host
            .chunks(2)
            .fold((0.0, 0.0), |(a, b), p| (a + p[0], b + p[1]));
        Ok(c64::new(re, im))
    }
}
