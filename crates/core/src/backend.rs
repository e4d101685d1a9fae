//! The vector interface algorithms are written against.

use crate::{Result, Scalar};
use std::fmt::Debug;

/// Where vectors live and how BLAS-1 runs on them.
///
/// **A new backend needs only this vector interface; the Krylov hooks of
/// [`crate::KrylovBackend`] are optional speed-ups** (`impl KrylovBackend for MyBackend {}`
/// gives their BLAS-1 defaults).
///
/// Algorithms (Leja, Lanczos, Arnoldi, Taylor, integrators) are generic over a backend, so
/// they are written once and run on the CPU ([`crate::CpuBackend`]), one GPU or several.
/// Reductions return host scalars; backends whose reductions cost a round trip (GPUs) also
/// override the Krylov hooks and offer fused operator steps (see
/// [`crate::FusedOperator::shifted_step`]) so that hot loops synchronize rarely.
pub trait Backend: Send + Sync + Debug {
    /// A vector of `S` owned by this backend.
    type Vector<S: Scalar>: Send + Sync + Debug;

    /// Human-readable name (`cpu`, `gpu:0`, `gpu:0,1`), used in reports.
    fn name(&self) -> String;

    /// A zero vector of length `n`.
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Self::Vector<S>>;
    /// A vector of length `n` whose contents are unspecified, for a workspace that is written
    /// before it is read (a Krylov basis): backends whose memory must be cleared by a pass
    /// (GPUs) skip that pass. Operators treat `beta = 0` as "y is not read" (BLAS
    /// convention), so a product may write into it. The default is [`Backend::zeros`].
    fn alloc<S: Scalar>(&self, n: usize) -> Result<Self::Vector<S>> {
        self.zeros(n)
    }
    /// A vector holding a copy of `host`.
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Self::Vector<S>>;
    /// Copies `x` into `host` (lengths must agree).
    fn download<S: Scalar>(&self, x: &Self::Vector<S>, host: &mut [S]) -> Result<()>;
    /// Length of `x`.
    fn len<S: Scalar>(&self, x: &Self::Vector<S>) -> usize;

    /// dst ← src.
    fn copy<S: Scalar>(&self, src: &Self::Vector<S>, dst: &mut Self::Vector<S>) -> Result<()>;
    /// x ← value everywhere.
    fn fill<S: Scalar>(&self, x: &mut Self::Vector<S>, value: S) -> Result<()>;
    /// x ← α·x.
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Self::Vector<S>) -> Result<()>;
    /// y ← α·x + β·y (y is not read when β = 0).
    fn axpby<S: Scalar>(
        &self,
        alpha: S,
        x: &Self::Vector<S>,
        beta: S,
        y: &mut Self::Vector<S>,
    ) -> Result<()>;
    /// Σ conj(xᵢ)·yᵢ.
    fn dot<S: Scalar>(&self, x: &Self::Vector<S>, y: &Self::Vector<S>) -> Result<S>;
    /// ‖x‖₂, overflow-safe (NaN if x holds a NaN).
    fn nrm2<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real>;
    /// max |xᵢ|.
    fn amax<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real>;

    /// Whether operations are queued and run asynchronously to the host (GPUs). Algorithms
    /// that must read a result back (a convergence check) then queue further work before
    /// the host computation, so that the device stays busy while the host decides; on
    /// synchronous backends (the CPU) that work would only be spent sooner.
    fn is_asynchronous(&self) -> bool {
        false
    }

    /// `x[j]` ← [`crate::rng::seeded_entry`]`(seed, offset + j)`: a part of the unnormalised
    /// seeded vector, as a distributed backend makes its block of it. The default makes the
    /// part on the host and uploads it over `x`; the CPU writes it in place.
    fn seeded_entries<S: Scalar>(
        &self,
        x: &mut Self::Vector<S>,
        seed: u64,
        offset: usize,
    ) -> Result<()> {
        let mut host = vec![S::zero(); self.len(x)];
        crate::rng::fill_seeded(&mut host, seed, offset);
        *x = self.upload(&host)?;
        Ok(())
    }

    /// y ← Σᵢ cᵢ·xᵢ (y is not read; y ← 0 for no terms), as the final combination of a
    /// Krylov basis y = Q·c. The terms are added in order i = 0, 1, …; overrides read every
    /// xᵢ, so a non-finite xᵢ poisons y even where cᵢ = 0 (the default skips those terms).
    ///
    /// **Cost.** The default runs one [`Backend::fill`] and one [`Backend::axpby`] per term
    /// (reading y and xᵢ, writing y: 3n per term); backends override it to read each xᵢ once
    /// (n per term plus a few passes over y).
    ///
    /// # Errors
    ///
    /// [`crate::Error::DimensionMismatch`] when `coeffs` and `xs` differ in length or a
    /// vector's length differs from y's; the backend's errors.
    fn linear_combination<S: Scalar>(
        &self,
        coeffs: &[S],
        xs: &[&Self::Vector<S>],
        y: &mut Self::Vector<S>,
    ) -> Result<()> {
        check_combination(self, coeffs, xs, y)?;
        self.fill(y, S::zero())?;
        for (&c, x) in coeffs.iter().zip(xs) {
            if c != S::zero() {
                self.axpby(c, x, S::one(), y)?;
            }
        }
        Ok(())
    }

    /// Waits for all queued work (no-op on synchronous backends).
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    /// A vector holding a copy of `x`.
    fn duplicate<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<Self::Vector<S>> {
        let mut y = self.zeros(self.len(x))?;
        self.copy(x, &mut y)?;
        Ok(y)
    }

    /// Copies `x` to a new host vector.
    fn to_host<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<Vec<S>> {
        let mut h = vec![S::zero(); self.len(x)];
        self.download(x, &mut h)?;
        Ok(h)
    }
}

/// `x` ← the seeded unit vector of its length ([`crate::rng::seeded_unit_vector`]): the start
/// of the methods' Krylov spectral estimates, made by [`Backend::seeded_entries`] where `x`
/// lives (in place on the CPU, each rank's block on a distributed backend: no rank holds the
/// whole vector) and scaled by the reciprocal of its norm. On the CPU the result is
/// `seeded_unit_vector`'s to the bit.
///
/// # Errors
/// The backend's.
pub fn seeded_unit<B: Backend + ?Sized, S: Scalar>(
    be: &B,
    x: &mut B::Vector<S>,
    seed: u64,
) -> Result<()> {
    be.seeded_entries(x, seed, 0)?;
    let nrm = crate::RealScalar::as_f64(be.nrm2(x)?);
    be.scale(S::from_f64(1.0 / nrm), x)
}

/// The argument checks of [`Backend::linear_combination`]: as many coefficients as vectors,
/// every vector as long as the output.
///
/// # Errors
///
/// [`crate::Error::DimensionMismatch`] naming the count or the first vector that differs.
pub fn check_combination<B: Backend + ?Sized, S: Scalar>(
    backend: &B,
    coeffs: &[S],
    xs: &[&B::Vector<S>],
    y: &B::Vector<S>,
) -> Result<()> {
    if coeffs.len() != xs.len() {
        return Err(crate::Error::dim(
            "linear_combination: coefficients for the vectors",
            xs.len(),
            coeffs.len(),
        ));
    }
    let n = backend.len(y);
    for (i, x) in xs.iter().enumerate() {
        if backend.len(*x) != n {
            return Err(crate::Error::dim(
                format!("linear_combination: length of vector {i}"),
                n,
                backend.len(*x),
            ));
        }
    }
    Ok(())
}
