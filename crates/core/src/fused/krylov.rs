//! The Krylov hooks of a backend: optional speed-ups over the vector interface.
//!
//! **A new backend needs only the vector interface ([`Backend`]); the hooks below are optional
//! speed-ups.** It opts in with one line, `impl KrylovBackend for MyBackend {}`, and runs every
//! Krylov method on the defaults, which are the BLAS-1 sequences of [`Backend`]; it overrides
//! only the hooks it runs faster (the GPU backend keeps the coefficients in device memory and
//! runs each hook as one kernel).

use crate::{Backend, RealScalar, Result, Scalar};

/// The Krylov hooks of a backend, with the vector interface's BLAS-1 sequences as defaults.
///
/// **A new backend needs only the vector interface ([`Backend`]); the hooks below are optional
/// speed-ups.** `impl KrylovBackend for MyBackend {}` gives it all of them.
///
/// The scalars of a Krylov recurrence (Lanczos' α_j, β_j) live in a coefficient array
/// `Self::Vector<f64>` on the backend, next to the vectors, so that a step needs no host round
/// trip; the host reads them in batches at convergence checks with
/// [`KrylovBackend::read_coeffs`], the only synchronizing call. The defaults are written with
/// the BLAS-1 methods of [`Backend`] (each reduction a host scalar), so every backend runs them
/// unchanged; GPU backends override [`KrylovBackend::lanczos_step`] with kernels that read and
/// write the coefficients in device memory.
pub trait KrylovBackend: Backend {
    /// `out` ← `c[start..start + out.len()]` on the host, after all queued work.
    ///
    /// The default downloads the whole array (coefficient arrays are a few thousand
    /// doubles); backends with ranged copies override it.
    ///
    /// # Errors
    ///
    /// [`crate::Error::DimensionMismatch`] when the range exceeds the array; the backend's
    /// error when the copy fails (on GPUs: also faults of earlier asynchronous work).
    fn read_coeffs(&self, c: &Self::Vector<f64>, start: usize, out: &mut [f64]) -> Result<()> {
        let host = self.to_host(c)?;
        let range = coeff_range(host.len(), start, out.len())?;
        out.copy_from_slice(&host[range]);
        Ok(())
    }

    /// `c[start..start + values.len()]` ← `values`, queued after earlier work.
    ///
    /// The default downloads, patches and uploads the whole array; backends with ranged
    /// copies override it.
    ///
    /// # Errors
    ///
    /// As [`KrylovBackend::read_coeffs`].
    fn write_coeffs(&self, c: &mut Self::Vector<f64>, start: usize, values: &[f64]) -> Result<()> {
        let mut host = self.to_host(c)?;
        let range = coeff_range(host.len(), start, values.len())?;
        host[range].copy_from_slice(values);
        let fresh = self.upload(&host)?;
        self.copy(&fresh, c)
    }

    /// One Lanczos orthogonalization step, with its scalars kept in the coefficient array
    /// `c` (layout `c[2i] = α_i`, `c[2i + 1] = β_{i+1}`, steps counted from 0). On entry
    /// `w = A·q_j` and `c[2j − 1] = β_j` (for `j > 0`); on return
    ///
    /// * `c[2j] = α_j = Re⟨q_j, w⟩` (the imaginary part vanishes for Hermitian A),
    /// * w ← w − α_j·q_j − β_j·q_{j−1} (no q_{j−1} term when `q_prev` is `None`),
    /// * `c[2j + 1] = β_{j+1} = ‖w‖₂` (overflow-safe, as [`Backend::nrm2`]),
    /// * w ← w / β_{j+1}: q_{j+1}, in place; w ← 0 when β_{j+1} = 0 (an exact breakdown,
    ///   so that later steps run on zeros instead of NaN).
    ///
    /// Nothing is checked on the way: a caller detects breakdown (β_{j+1} ≈ 0) and
    /// non-finite values when it next reads the coefficients. α_j and β_{j+1} are those of
    /// the classical three-term recurrence (modified Gram–Schmidt order: α from A·q_j
    /// before any subtraction, as [`Backend::dot`]), computed in `f64` for every scalar
    /// type; the vector update rounds them to `S` as [`Backend::axpby`] does.
    ///
    /// **Cost.** Three passes over memory: the dot product (reads 2n), the update with the
    /// norm's sum of squares (reads 3n, writes n; 2n without `q_prev`), the scaling (reads
    /// and writes n). The default runs [`Backend::dot`], two [`Backend::axpby`],
    /// [`Backend::nrm2`] and [`Backend::scale`], with two host synchronizations on
    /// asynchronous backends; GPU backends run it as kernels with none.
    ///
    /// # Errors
    ///
    /// [`crate::Error::DimensionMismatch`] when the vectors differ in length or `c` holds
    /// fewer than 2j + 2 doubles; the backend's errors.
    fn lanczos_step<S: Scalar>(
        &self,
        j: usize,
        q_prev: Option<&Self::Vector<S>>,
        q: &Self::Vector<S>,
        w: &mut Self::Vector<S>,
        c: &mut Self::Vector<f64>,
    ) -> Result<()> {
        if self.len(c) < 2 * j + 2 {
            return Err(crate::Error::dim(
                "lanczos_step: coefficient array length",
                2 * j + 2,
                self.len(c),
            ));
        }
        let mut beta_j = [0.0];
        if j > 0 && q_prev.is_some() {
            self.read_coeffs(c, 2 * j - 1, &mut beta_j)?;
        }
        let alpha = self.dot(q, w)?.re().as_f64();
        self.axpby(S::from_f64(-alpha), q, S::one(), w)?;
        if let Some(qp) = q_prev {
            self.axpby(S::from_f64(-beta_j[0]), qp, S::one(), w)?;
        }
        let beta = self.nrm2(w)?.as_f64();
        self.write_coeffs(c, 2 * j, &[alpha, beta])?;
        self.scale(S::from_f64(inverse_or_zero(beta)), w)
    }

    /// `c[at] ← Re⟨x, y⟩`, `c[at + 1] ← Im⟨x, y⟩` (Σ conj(xᵢ)·yᵢ in `f64`), written where the
    /// coefficients live: on a GPU the reduction finishes on the device, with no host wait.
    /// The default computes [`Backend::dot`] and writes it with [`KrylovBackend::write_coeffs`].
    ///
    /// # Errors
    ///
    /// [`crate::Error::DimensionMismatch`] when the lengths differ or `c` has fewer than
    /// `at + 2` entries; the backend's errors.
    fn dot_into<S: Scalar>(
        &self,
        x: &Self::Vector<S>,
        y: &Self::Vector<S>,
        c: &mut Self::Vector<f64>,
        at: usize,
    ) -> Result<()> {
        coeff_range(self.len(c), at, 2)?;
        let d = self.dot(x, y)?.to_c64();
        self.write_coeffs(c, at, &[d.re, d.im])
    }

    /// The sums of a Pythagorean Lanczos step for an operator that does not form them in
    /// its product ([`crate::FusedOperator::lanczos_product`]'s default): on entry w = A·q_j;
    /// w ← w − β_j·q_{j−1} (β_j = `c[2j − 1]`; nothing when `q_prev` is `None`), then
    /// `sums[0..4]` ← (Re⟨q_j, w⟩, Im⟨q_j, w⟩, ‖w‖², ‖q_j‖²), plain sums in `f64`, written
    /// where the coefficients live. `sums` has at least [`LANCZOS_SUMS`] entries.
    ///
    /// **Cost.** One pass (reads 3n, writes n; reads 2n without `q_prev`). The default uses
    /// [`KrylovBackend::read_coeffs`], [`Backend::axpby`], [`Backend::dot`] and [`Backend::nrm2`]
    /// (host round trips on asynchronous backends); GPU backends run one kernel.
    ///
    /// # Errors
    ///
    /// [`crate::Error::DimensionMismatch`] for short `c` or `sums` or unequal lengths; the
    /// backend's errors.
    fn lanczos_sums<S: Scalar>(
        &self,
        j: usize,
        q_prev: Option<&Self::Vector<S>>,
        q: &Self::Vector<S>,
        w: &mut Self::Vector<S>,
        c: &Self::Vector<f64>,
        sums: &mut Self::Vector<f64>,
    ) -> Result<()> {
        lanczos_lengths(self, j, c, sums)?;
        if let Some(qp) = q_prev.filter(|_| j > 0) {
            let mut beta_j = [0.0];
            self.read_coeffs(c, 2 * j - 1, &mut beta_j)?;
            self.axpby(S::from_f64(-beta_j[0]), qp, S::one(), w)?;
        }
        let d = self.dot(q, w)?.to_c64();
        let (nw, nq) = (self.nrm2(w)?.as_f64(), self.nrm2(q)?.as_f64());
        self.write_coeffs(sums, 0, &[d.re, d.im, nw * nw, nq * nq])
    }

    /// The update of a Pythagorean Lanczos step, given `sums` from
    /// [`crate::FusedOperator::lanczos_product`] (w = A·q_j − β_j·q_{j−1} on entry):
    /// α_j = Re⟨q_j, w⟩ and β_{j+1}² = ‖w − α_j·q_j‖² = ‖w‖² − 2α_j·Re⟨q_j, w⟩ + α_j²·‖q_j‖²
    /// (an identity for the vectors at hand; [`lanczos_pythagoras`]). Where that is trusted,
    /// w ← (w − α_j·q_j)/β_{j+1} in one pass; otherwise (cancellation: β² below 1/16 of
    /// ‖w‖², breakdown, overflow, NaN) w ← w − α_j·q_j and β_{j+1} = ‖w‖₂ by the
    /// overflow-safe norm, then w ← w/β_{j+1} (0 when β_{j+1} = 0), exactly as
    /// [`KrylovBackend::lanczos_step`]. Writes `c[2j] = α_j`, `c[2j + 1] = β_{j+1}`.
    ///
    /// **Accuracy.** The sums carry rounding of about ε·‖w‖² (in `f64`), so the trusted β²
    /// is within ~16ε of itself relative; the three-term recurrence is otherwise that of
    /// [`KrylovBackend::lanczos_step`], with α_j taken after the β_j·q_{j−1} subtraction (Paige's
    /// ordering).
    ///
    /// **Cost.** One pass when trusted (reads 2n, writes n); three otherwise. The default
    /// reads `sums` on the host; GPU backends decide on the device (every block of the
    /// update reads the same sums), with no host wait.
    ///
    /// # Errors
    ///
    /// As [`KrylovBackend::lanczos_sums`].
    fn lanczos_update<S: Scalar>(
        &self,
        j: usize,
        q: &Self::Vector<S>,
        w: &mut Self::Vector<S>,
        c: &mut Self::Vector<f64>,
        sums: &mut Self::Vector<f64>,
    ) -> Result<()> {
        lanczos_lengths(self, j, c, sums)?;
        let mut host = [0.0; 4];
        self.read_coeffs(sums, 0, &mut host)?;
        match lanczos_pythagoras(&host) {
            Some((alpha, beta)) => {
                self.axpby(S::from_f64(-alpha), q, S::one(), w)?;
                self.scale(S::from_f64(1.0 / beta), w)?;
                self.write_coeffs(c, 2 * j, &[alpha, beta])
            }
            None => {
                let alpha = host[0];
                self.axpby(S::from_f64(-alpha), q, S::one(), w)?;
                let beta = self.nrm2(w)?.as_f64();
                self.write_coeffs(c, 2 * j, &[alpha, beta])?;
                self.scale(S::from_f64(inverse_or_zero(beta)), w)
            }
        }
    }

    /// Settles step j of the **deferred** Lanczos form: given `sums` of w = A·q_j −
    /// β_j·q_{j−1} (from [`crate::FusedOperator::lanczos_product`] or
    /// [`crate::FusedOperator::lanczos_advance`]), writes `c[2j] = α_j`, `c[2j + 1] =
    /// β_{j+1}` as [`KrylovBackend::lanczos_update`] does, but leaves the division to the reader
    /// of q_{j+1}: where the Pythagorean β is trusted ([`lanczos_pythagoras`]) w is left
    /// as it is and `sums[4] = 0` (q_{j+1} = (w − α_j·q_j)/β_{j+1}, formed where it is read:
    /// [`KrylovBackend::lanczos_form`] or a fused [`crate::FusedOperator::lanczos_advance`]);
    /// otherwise w ← (w − α_j·q_j)/β_{j+1} by the exact overflow-safe norm, exactly as
    /// [`KrylovBackend::lanczos_update`], and `sums[4] = 1` (w then is q_{j+1}).
    ///
    /// **Why.** The update pass of a Lanczos step (read w and q_j, write q_{j+1}) costs
    /// three vectors of memory traffic; an operator that forms q_{j+1} while it gathers it
    /// for the next product pays one more read and one write instead.
    ///
    /// **Cost.** Nothing beyond a few scalars when trusted; three passes otherwise. The
    /// default reads `sums` on the host; GPU backends decide on the device.
    ///
    /// # Errors
    ///
    /// As [`KrylovBackend::lanczos_sums`].
    fn lanczos_settle<S: Scalar>(
        &self,
        j: usize,
        q: &Self::Vector<S>,
        w: &mut Self::Vector<S>,
        c: &mut Self::Vector<f64>,
        sums: &mut Self::Vector<f64>,
    ) -> Result<()> {
        lanczos_lengths(self, j, c, sums)?;
        let mut host = [0.0; 4];
        self.read_coeffs(sums, 0, &mut host)?;
        match lanczos_pythagoras(&host) {
            Some((alpha, beta)) => {
                self.write_coeffs(c, 2 * j, &[alpha, beta])?;
                self.write_coeffs(sums, 4, &[0.0])
            }
            None => {
                self.lanczos_update(j, q, w, c, sums)?;
                self.write_coeffs(sums, 4, &[1.0])
            }
        }
    }

    /// q_{j+1} of a settled deferred step ([`KrylovBackend::lanczos_settle`]) into `q_next`:
    /// (w − α_j·q_j)·(1/β_{j+1}) when `sums[4] = 0`, a copy of w otherwise: the vector that
    /// [`KrylovBackend::lanczos_update`] would have left in w, by the same operations.
    ///
    /// **Cost.** One pass (reads 2n, writes n); the default reads the flag on the host.
    ///
    /// # Errors
    ///
    /// As [`KrylovBackend::lanczos_sums`]; unequal lengths.
    fn lanczos_form<S: Scalar>(
        &self,
        j: usize,
        q: &Self::Vector<S>,
        w: &Self::Vector<S>,
        c: &Self::Vector<f64>,
        sums: &Self::Vector<f64>,
        q_next: &mut Self::Vector<S>,
    ) -> Result<()> {
        lanczos_lengths(self, j, c, sums)?;
        let mut flag = [0.0];
        self.read_coeffs(sums, 4, &mut flag)?;
        self.copy(w, q_next)?;
        if flag[0] == 0.0 {
            let mut ab = [0.0; 2];
            self.read_coeffs(c, 2 * j, &mut ab)?;
            self.axpby(S::from_f64(-ab[0]), q, S::one(), q_next)?;
            self.scale(S::from_f64(1.0 / ab[1]), q_next)?;
        }
        Ok(())
    }
}

/// Entries of the `sums` array of a Pythagorean Lanczos step ([`KrylovBackend::lanczos_sums`]):
/// Re⟨q, w⟩, Im⟨q, w⟩, ‖w‖², ‖q‖², and a flag the GPU kernels keep.
pub const LANCZOS_SUMS: usize = 5;

/// Least share of ‖w‖² that β² = ‖w‖² − 2α·Re⟨q, w⟩ + α²‖q‖² must keep to be trusted
/// ([`lanczos_pythagoras`]): the sums' rounding (~ε‖w‖²) is then ≤ ~16ε relative to β².
pub const LANCZOS_TRUST: f64 = 1.0 / 16.0;

/// α = Re⟨q, w⟩ and β = ‖w − α·q‖₂ from the sums (Re⟨q, w⟩, Im⟨q, w⟩, ‖w‖², ‖q‖²), or
/// `None` where the identity cannot be trusted: β² < [`LANCZOS_TRUST`]·‖w‖², ‖w‖ = 0, or a
/// value not finite (the caller then takes the norm of w − α·q itself). The GPU kernels
/// (`lanczos_pythag_update`) decide the same way.
pub fn lanczos_pythagoras(sums: &[f64; 4]) -> Option<(f64, f64)> {
    let (alpha, sw, sq) = (sums[0], sums[2], sums[3]);
    let b2 = sw - 2.0 * alpha * sums[0] + alpha * alpha * sq;
    (alpha.is_finite() && sw.is_finite() && b2.is_finite() && sw > 0.0 && b2 >= LANCZOS_TRUST * sw)
        .then(|| (alpha, b2.sqrt()))
}

/// The length checks of the Pythagorean step: `c` holds step j, `sums` its sums.
fn lanczos_lengths<B: Backend + ?Sized>(
    backend: &B,
    j: usize,
    c: &B::Vector<f64>,
    sums: &B::Vector<f64>,
) -> Result<()> {
    if backend.len(c) < 2 * j + 2 {
        return Err(crate::Error::dim(
            "lanczos: coefficient array length",
            2 * j + 2,
            backend.len(c),
        ));
    }
    if backend.len(sums) < LANCZOS_SUMS {
        return Err(crate::Error::dim(
            "lanczos: sums array length",
            LANCZOS_SUMS,
            backend.len(sums),
        ));
    }
    Ok(())
}

/// 1/β, or 0 for β = 0 (the scaling that turns an exactly vanished Lanczos residual into a
/// zero vector rather than NaN).
fn inverse_or_zero(beta: f64) -> f64 {
    if beta == 0.0 { 0.0 } else { 1.0 / beta }
}

/// The range `start..start + len` of a coefficient array of `total` doubles, or a
/// dimension error.
fn coeff_range(total: usize, start: usize, len: usize) -> Result<std::ops::Range<usize>> {
    let end = start.saturating_add(len);
    if end > total {
        return Err(crate::Error::dim("coefficient range end", total, end));
    }
    Ok(start..end)
}
