//! The XXZ chain on one NVIDIA GPU (feature `gpu`): the kernels of `kernels/spin.cu`, loaded
//! through `matexp-gpu`'s public kernel API, for `f32`, `f64`, `c32` and `c64`.
//!
//! One thread per row (grid-stride, 64-bit indices); each row unranks its word from the
//! binomial table staged in shared memory (`(L+1)(K+2)` u64, at most 17 KiB) and gathers its
//! flip-flop columns at `i ± C(j, p)` ([`crate::spin::basis`]). Bytes floor of a product: `x`
//! read and `y` written (and read when `β ≠ 0`); the gathers at large shifts miss the cache.
//!
//! Besides the product: the initial states built on the device ([`GpuXxzChain::product_state`],
//! [`GpuXxzChain::neel_state`], [`GpuXxzChain::random_state`]; the same vectors as the host
//! functions of [`crate::spin::states`]), and the observables of a state reduced on the device
//! into per-block partial sums that the host adds: energy and norm in one pass without a
//! second vector ([`GpuXxzChain::energy_norm`]), `⟨S^z_k⟩` and `⟨S^z_0 S^z_r⟩`
//! ([`GpuXxzChain::sz_observables`]), the overlap with a product state. A state reaches the host
//! only when asked (`Backend::download`).

use super::basis::SpinBasis;
use super::model::XxzChain;
use super::states::{check_amplitudes, correlations_from_moments, neel_word, sz_from_moments};
use crate::model::Boundary;
use matexp_core::{
    Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds, c32, c64, check_dim,
};
use matexp_gpu::rt::{Device, DeviceBuffer, Kernel, KernelArg, LaunchConfig, PtxModule};
use matexp_gpu::{GpuBackend, GpuVector};
use std::sync::Arc;

static SPIN_PTX: PtxModule = PtxModule::new("spin", include_str!("../../ptx/spin.ptx"));
static HX: Kernel = Kernel::new(&SPIN_PTX, "spin_hx");
static EXPECT: Kernel = Kernel::new(&SPIN_PTX, "spin_expect");
static MOMENTS: Kernel = Kernel::new(&SPIN_PTX, "spin_moments");
static PRODUCT: Kernel = Kernel::new(&SPIN_PTX, "spin_product");
static OVERLAP: Kernel = Kernel::new(&SPIN_PTX, "spin_overlap_product");
static RANDOM: Kernel = Kernel::new(&SPIN_PTX, "spin_random");

/// Threads per block.
const BLOCK: u32 = 256;

/// A scalar kernel argument of the instantiated type.
pub(crate) enum ScalarArg {
    F32(f32),
    F64(f64),
    C32(c32),
    C64(c64),
}

impl ScalarArg {
    pub(crate) fn of<S: Scalar>(v: S) -> Result<Self> {
        let z = v.to_c64();
        Ok(match S::NAME {
            "f32" => ScalarArg::F32(z.re as f32),
            "f64" => ScalarArg::F64(z.re),
            "c32" => ScalarArg::C32(c32::new(z.re as f32, z.im as f32)),
            "c64" => ScalarArg::C64(z),
            other => {
                return Err(Error::Unsupported(format!(
                    "the GPU spin kernels are instantiated for f32, f64, c32, c64, not {other}"
                )));
            }
        })
    }

    pub(crate) fn arg(&self) -> &dyn KernelArg {
        match self {
            ScalarArg::F32(v) => v,
            ScalarArg::F64(v) => v,
            ScalarArg::C32(v) => v,
            ScalarArg::C64(v) => v,
        }
    }
}

/// [`XxzChain`] on one GPU: a [`LinearOperator`] on [`GpuBackend`] for `f32`, `f64`, `c32`,
/// `c64` (coefficients in the working precision).
#[derive(Debug)]
pub struct GpuXxzChain {
    model: XxzChain,
    device: Arc<Device>,
    binom: DeviceBuffer<u64>,
    c64: DeviceBuffer<f64>,
    c32: DeviceBuffer<f32>,
}

impl GpuXxzChain {
    /// Uploads `model`'s binomial table and coefficients to the GPU of `backend`.
    ///
    /// # Errors
    /// Device errors (allocation, copy).
    pub fn new(backend: &GpuBackend, model: &XxzChain) -> Result<Self> {
        let device = backend.device().clone();
        let coeffs = model.kernel_coefficients();
        let single: Vec<f32> = coeffs.iter().map(|&c| c as f32).collect();
        Ok(GpuXxzChain {
            binom: DeviceBuffer::from_host(&device, model.basis().table())?,
            c64: DeviceBuffer::from_host(&device, &coeffs)?,
            c32: DeviceBuffer::from_host(&device, &single)?,
            model: model.clone(),
            device,
        })
    }

    /// The model.
    pub fn model(&self) -> &XxzChain {
        &self.model
    }

    /// Device memory the operator holds (table and coefficients), in bytes.
    pub fn bytes(&self) -> usize {
        self.binom.bytes() + self.c64.bytes() + self.c32.bytes()
    }

    /// Bytes a product moves at least: `x` read and `y` written (and read when `β ≠ 0`).
    pub fn bytes_floor<S: Scalar>(&self, beta_nonzero: bool) -> usize {
        let d = self.model.basis().dim() as usize;
        d * (2 + usize::from(beta_nonzero)) * std::mem::size_of::<S>()
    }

    fn basis(&self) -> &SpinBasis {
        self.model.basis()
    }

    fn table_shared(&self) -> usize {
        self.basis().table().len() * 8
    }

    fn config(&self, coeff_bytes: usize) -> LaunchConfig {
        let mut cfg = LaunchConfig::grid_stride(&self.device, self.basis().dim() as usize, BLOCK);
        cfg.shared_mem_bytes = (self.table_shared() + coeff_bytes) as u32;
        cfg
    }

    fn coeffs<S: Scalar>(&self) -> (u64, usize) {
        let n = self.c64.len();
        if S::NAME == "f32" || S::NAME == "c32" {
            (self.c32.device_ptr(), 4 * n)
        } else {
            (self.c64.device_ptr(), 8 * n)
        }
    }

    fn check_len<S: Scalar>(&self, what: &str, x: &GpuVector<S>) -> Result<()> {
        check_dim(what, self.basis().len()?, x.len())
    }

    /// `y ← α·H·x + β·y` (`y` not read when `β = 0`).
    fn product<S: Scalar>(
        &self,
        alpha: S,
        x: &GpuVector<S>,
        beta: S,
        y: &mut GpuVector<S>,
    ) -> Result<()> {
        self.check_len("GPU XXZ product: x length", x)?;
        self.check_len("GPU XXZ product: y length", y)?;
        let f = HX.for_scalar::<S>(&self.device)?;
        let b = self.basis();
        let (dim, l, k) = (b.dim(), b.sites(), b.ups());
        let periodic = u32::from(self.model.boundary() == Boundary::Periodic);
        let (coeffs, cbytes) = self.coeffs::<S>();
        let (a, bb) = (ScalarArg::of(alpha)?, ScalarArg::of(beta)?);
        let read_y = u32::from(beta != S::zero());
        let (xp, yp) = (x.device_ptr(), y.device_ptr());
        // SAFETY: spin_hx_<S>(u64 dim, u32 sites, u32 ups, u32 periodic, const u64 *binom,
        // const R *coeffs, V alpha, const V *x, V beta, V *y, u32 read_y): the table holds
        // (L+1)(K+2) entries, the coefficients 2·bonds + L reals of S's precision, x and y D
        // elements of S (lengths checked); the shared memory holds the table and coefficients.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&l)
                .arg(&k)
                .arg(&periodic)
                .arg(&self.binom)
                .arg(&coeffs)
                .arg(a.arg())
                .arg(&xp)
                .arg(bb.arg())
                .arg(&yp)
                .arg(&read_y)
                .launch(self.config(cbytes))
        }
    }

    /// Sums the per-block partials of a reduction kernel, `count` values per block.
    fn sum_partials(partial: &DeviceBuffer<f64>, count: usize) -> Result<Vec<f64>> {
        let host = partial.to_vec()?;
        let mut sums = vec![0.0; count];
        for block in host.chunks(count) {
            for (s, v) in sums.iter_mut().zip(block) {
                *s += v;
            }
        }
        Ok(sums)
    }

    /// `(⟨x|H|x⟩, ‖x‖²)` in one pass over `x`, with no second full-size vector (the row of `H·x`
    /// is formed and dotted with `x_i` in registers). Sums in `f64`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length; device errors.
    pub fn energy_norm<S: Scalar>(&self, x: &GpuVector<S>) -> Result<(f64, f64)> {
        self.check_len("GPU XXZ energy: state length", x)?;
        let f = EXPECT.for_scalar::<S>(&self.device)?;
        let (coeffs, cbytes) = self.coeffs::<S>();
        let cfg = self.config(cbytes);
        let partial = DeviceBuffer::<f64>::zeros(&self.device, 2 * cfg.grid.0 as usize)?;
        let b = self.basis();
        let (dim, l, k) = (b.dim(), b.sites(), b.ups());
        let periodic = u32::from(self.model.boundary() == Boundary::Periodic);
        let xp = x.device_ptr();
        // SAFETY: spin_expect_<S>(u64 dim, u32 sites, u32 ups, u32 periodic, const u64 *binom,
        // const R *coeffs, const V *x, double *partial) writes 2·grid partials.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&l)
                .arg(&k)
                .arg(&periodic)
                .arg(&self.binom)
                .arg(&coeffs)
                .arg(&xp)
                .arg(&partial)
                .launch(cfg)?;
        }
        let s = Self::sum_partials(&partial, 2)?;
        Ok((s[0], s[1]))
    }

    /// `⟨S^z_k⟩` (k < L) and `⟨S^z_0 S^z_r⟩` (r < L), normalised by `‖x‖²`, and `‖x‖²`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length, [`Error::InvalidArgument`] for `x = 0`;
    /// device errors.
    pub fn sz_observables<S: Scalar>(&self, x: &GpuVector<S>) -> Result<(Vec<f64>, Vec<f64>, f64)> {
        self.check_len("GPU S^z observables: state length", x)?;
        let f = MOMENTS.for_scalar::<S>(&self.device)?;
        let cfg = self.config(0);
        let l = self.basis().sites() as usize;
        let count = 2 * l + 1;
        let partial = DeviceBuffer::<f64>::zeros(&self.device, count * cfg.grid.0 as usize)?;
        let b = self.basis();
        let (dim, ll, k) = (b.dim(), b.sites(), b.ups());
        let xp = x.device_ptr();
        // SAFETY: spin_moments_<S>(u64 dim, u32 sites, u32 ups, const u64 *binom, const V *x,
        // double *partial) writes (2L + 1)·grid partials.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&ll)
                .arg(&k)
                .arg(&self.binom)
                .arg(&xp)
                .arg(&partial)
                .launch(cfg)?;
        }
        let s = Self::sum_partials(&partial, count)?;
        let (n, rest) = s.split_at(l);
        let (nn, w) = rest.split_at(l);
        let w = w[0];
        Ok((
            sz_from_moments(n, w)?,
            correlations_from_moments(n, nn, w)?,
            w,
        ))
    }

    fn amplitude_buffer(&self, amps: &[[c64; 2]]) -> Result<DeviceBuffer<f64>> {
        check_amplitudes(self.basis(), amps)?;
        let flat: Vec<f64> = amps
            .iter()
            .flat_map(|p| [p[0].re, p[0].im, p[1].re, p[1].im])
            .collect();
        DeviceBuffer::from_host(&self.device, &flat)
    }

    /// The projection of the product state `⊗_k (a_k|↓⟩ + b_k|↑⟩)` onto the sector, built on
    /// the device and normalised there: the vector of [`crate::product_state`].
    ///
    /// # Errors
    /// As [`crate::product_state`]; device errors.
    pub fn product_state<S: Scalar>(
        &self,
        backend: &GpuBackend,
        amps: &[[c64; 2]],
    ) -> Result<GpuVector<S>> {
        if !S::IS_COMPLEX && amps.iter().flatten().any(|z| z.im != 0.0) {
            return Err(Error::invalid(
                "amps",
                format!("{amps:?}"),
                format!(
                    "complex amplitudes need a complex scalar type, not {}",
                    S::NAME
                ),
            ));
        }
        let amp = self.amplitude_buffer(amps)?;
        let mut psi = backend.alloc::<S>(self.basis().len()?)?;
        let f = PRODUCT.for_scalar::<S>(&self.device)?;
        let b = self.basis();
        let (dim, l, k) = (b.dim(), b.sites(), b.ups());
        let pp = psi.device_ptr();
        // SAFETY: spin_product_<S>(u64 dim, u32 sites, u32 ups, const u64 *binom,
        // const double *amp, V *psi): amp holds 4L doubles, psi D elements of S.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&l)
                .arg(&k)
                .arg(&self.binom)
                .arg(&amp)
                .arg(&pp)
                .launch(self.config(0))?;
        }
        normalise(
            backend,
            &mut psi,
            "the product state's projection onto the sector",
        )?;
        Ok(psi)
    }

    /// The Néel state (up on the even sites) on the device.
    ///
    /// # Errors
    /// As [`crate::neel_word`]; device errors.
    pub fn neel_state<S: Scalar>(&self, backend: &GpuBackend) -> Result<GpuVector<S>> {
        self.product_state(backend, &neel_amplitudes(self.basis())?)
    }

    /// `⟨φ|x⟩` for the normalised projection `φ` of a product state (as
    /// [`GpuXxzChain::product_state`] builds it), in one pass without storing `φ`.
    ///
    /// # Errors
    /// As [`crate::product_state`]; device errors.
    pub fn overlap_with_product<S: Scalar>(
        &self,
        amps: &[[c64; 2]],
        x: &GpuVector<S>,
    ) -> Result<c64> {
        self.check_len("GPU overlap: state length", x)?;
        let amp = self.amplitude_buffer(amps)?;
        let cfg = self.config(0);
        let partial = DeviceBuffer::<f64>::zeros(&self.device, 2 * cfg.grid.0 as usize)?;
        let f = OVERLAP.for_scalar::<S>(&self.device)?;
        let b = self.basis();
        let (dim, l, k) = (b.dim(), b.sites(), b.ups());
        let xp = x.device_ptr();
        // SAFETY: spin_overlap_product_<S>(u64 dim, u32 sites, u32 ups, const u64 *binom,
        // const double *amp, const V *x, double *partial) writes 2·grid partials.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&l)
                .arg(&k)
                .arg(&self.binom)
                .arg(&amp)
                .arg(&xp)
                .arg(&partial)
                .launch(cfg)?;
        }
        let raw = Self::sum_partials(&partial, 2)?;
        // φ = φ_raw/‖φ_raw‖, ‖φ_raw‖² summed on the host by a recursion over the sites.
        let norm = product_norm(self.basis(), amps).sqrt();
        if norm.is_nan() || norm <= 0.0 {
            return Err(Error::invalid(
                "amps",
                format!("{amps:?}"),
                "the product state's projection onto the sector vanishes",
            ));
        }
        Ok(c64::new(raw[0], raw[1]) / norm)
    }

    /// The seeded random state of [`crate::random_state`], built and normalised on the device.
    ///
    /// # Errors
    /// Device errors.
    pub fn random_state<S: Scalar>(&self, backend: &GpuBackend, seed: u64) -> Result<GpuVector<S>> {
        let mut psi = backend.alloc::<S>(self.basis().len()?)?;
        let f = RANDOM.for_scalar::<S>(&self.device)?;
        let dim = self.basis().dim();
        let complex = u32::from(S::IS_COMPLEX);
        let pp = psi.device_ptr();
        // SAFETY: spin_random_<S>(u64 dim, u64 seed, u32 complex, V *psi) writes D elements.
        unsafe {
            self.device
                .launch_builder(f)
                .arg(&dim)
                .arg(&seed)
                .arg(&complex)
                .arg(&pp)
                .launch(LaunchConfig::grid_stride(&self.device, dim as usize, BLOCK))?;
        }
        normalise(backend, &mut psi, "the random state")?;
        Ok(psi)
    }
}

/// The amplitudes `[a_k, b_k]` of the Néel product state (up on even sites).
///
/// # Errors
/// As [`crate::neel_word`].
pub fn neel_amplitudes(basis: &SpinBasis) -> Result<Vec<[c64; 2]>> {
    let s = neel_word(basis)?;
    let (one, zero) = (c64::new(1.0, 0.0), c64::new(0.0, 0.0));
    Ok((0..basis.sites())
        .map(|k| {
            if (s >> k) & 1 == 1 {
                [zero, one]
            } else {
                [one, zero]
            }
        })
        .collect())
}

/// `Σ_s |Π_k amp[k][s_k]|²` over the sector: the coefficient of `x^K` in
/// `Π_k (|a_k|² + |b_k|² x)`, by a recursion over sites (`O(L·K)`, no vector).
pub(crate) fn product_norm(basis: &SpinBasis, amps: &[[c64; 2]]) -> f64 {
    let k = basis.ups() as usize;
    let mut poly = vec![0.0f64; k + 1];
    poly[0] = 1.0;
    for p in amps {
        let (a, b) = (p[0].norm_sqr(), p[1].norm_sqr());
        for j in (0..=k).rev() {
            poly[j] = poly[j] * a + if j > 0 { poly[j - 1] * b } else { 0.0 };
        }
    }
    poly[k]
}

fn normalise<S: Scalar>(backend: &GpuBackend, psi: &mut GpuVector<S>, what: &str) -> Result<()> {
    let n = backend.nrm2(psi)?.as_f64();
    if !(n > 0.0 && n.is_finite()) {
        return Err(Error::invalid(
            "state",
            what,
            format!("its norm is {n}: nothing to normalise"),
        ));
    }
    backend.scale(S::from_f64(1.0 / n), psi)
}

impl<S: Scalar> LinearOperator<GpuBackend, S> for GpuXxzChain {
    fn nrows(&self) -> usize {
        self.basis().dim() as usize
    }
    fn ncols(&self) -> usize {
        self.basis().dim() as usize
    }
    fn apply(
        &self,
        _: &GpuBackend,
        alpha: S,
        x: &<GpuBackend as Backend>::Vector<S>,
        beta: S,
        y: &mut <GpuBackend as Backend>::Vector<S>,
    ) -> Result<()> {
        self.product(alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let (lo, hi) = self.model.spectral_bounds_real();
        SpectralBounds::real(lo, hi).ok()
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.model.spectral_bounds_real().1)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}
