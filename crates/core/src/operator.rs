//! Linear operators: `y ← α·A·x + β·y`.

use crate::error::check_dim;
use crate::{Backend, CpuBackend, Error, KrylovBackend, Result, Scalar};

/// A box in the complex plane holding the spectrum (or the field of values) of an operator:
/// `[re_min, re_max] × [im_min, im_max]`. Hermitian operators have `im_min = im_max = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectralBounds {
    /// Least real part.
    pub re_min: f64,
    /// Greatest real part.
    pub re_max: f64,
    /// Least imaginary part.
    pub im_min: f64,
    /// Greatest imaginary part.
    pub im_max: f64,
}

impl SpectralBounds {
    /// A real interval `[lo, hi]` (spectrum of a symmetric / Hermitian operator).
    ///
    /// # Errors
    ///
    /// As [`SpectralBounds::new`]: [`Error::InvalidArgument`] if a bound is not finite or `lo >
    /// hi`.
    pub fn real(lo: f64, hi: f64) -> Result<Self> {
        Self::new(lo, hi, 0.0, 0.0)
    }

    /// A box; rejects non-finite or inverted bounds.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the bound that is not finite, or the pair that is
    /// inverted (`re_min > re_max`, `im_min > im_max`).
    pub fn new(re_min: f64, re_max: f64, im_min: f64, im_max: f64) -> Result<Self> {
        for (name, v) in [
            ("re_min", re_min),
            ("re_max", re_max),
            ("im_min", im_min),
            ("im_max", im_max),
        ] {
            if !v.is_finite() {
                return Err(Error::invalid(name, v, "spectral bounds must be finite"));
            }
        }
        if re_min > re_max {
            return Err(Error::invalid(
                "re_min",
                re_min,
                format!("exceeds re_max = {re_max}"),
            ));
        }
        if im_min > im_max {
            return Err(Error::invalid(
                "im_min",
                im_min,
                format!("exceeds im_max = {im_max}"),
            ));
        }
        Ok(SpectralBounds {
            re_min,
            re_max,
            im_min,
            im_max,
        })
    }

    /// Whether the box is a real interval.
    pub fn is_real(&self) -> bool {
        self.im_min == 0.0 && self.im_max == 0.0
    }
}

/// Coefficients of one fused shifted-product step (see [`FusedOperator::shifted_step`]):
/// `y ← alpha·A·x + shift·x`, `acc ← acc + coeff·y`, returning ‖y‖₂.
///
/// This is the inner step of every polynomial method on an operator. Newton interpolation at
/// Leja points uses `alpha = 1/γ`, `shift = −c/γ − ξ_{m−1}`, `coeff = d_m` (the new basis
/// vector ω_m(A)v and its divided difference); a Taylor series uses `alpha = t/k`,
/// `shift = 0`, `coeff = 1` (the next term `(tA)^k v / k!` added to the sum).
#[derive(Debug, Clone, Copy)]
pub struct ShiftedStep<S: Scalar> {
    /// Multiplier of the product `A·x`.
    pub alpha: S,
    /// Multiplier of `x` added to the product.
    pub shift: S,
    /// Multiplier of the new vector `y` accumulated into `acc`.
    pub coeff: S,
}

/// A linear operator on vectors of backend `B`: the only thing the matrix-function algorithms
/// need from a matrix.
pub trait LinearOperator<B: Backend, S: Scalar>: Send + Sync {
    /// Number of rows.
    fn nrows(&self) -> usize;
    /// Number of columns.
    fn ncols(&self) -> usize;

    /// y ← α·A·x + β·y (y is not read when β = 0).
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()>;

    /// Bounds on the spectrum if the operator knows them cheaply (Gershgorin for explicit
    /// matrices, analytic for stencils); `None` asks the caller to estimate.
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        None
    }

    /// Whether the operator is Hermitian (symmetric if real); enables Lanczos.
    fn is_hermitian(&self) -> bool {
        false
    }

    /// Bounds `(lo, hi)` on the spectrum of the Hermitian part H = (A + Aᴴ)/2 if the operator
    /// knows them cheaply: `hi` bounds the logarithmic norm μ₂(A), so ‖e^{tA}‖₂ ≤ e^{t·hi} for
    /// t ≥ 0 and ≤ e^{t·lo} for t ≤ 0 (Dahlquist 1958; Söderlind, BIT 46, 2006). The methods
    /// use them to bound how much an error committed on the way is amplified by the rest
    /// of the propagation. The default is the real part of
    /// [`spectral_bounds`](Self::spectral_bounds) for a Hermitian operator (H = A) and `None`
    /// otherwise; explicit matrices give Gershgorin's bound on H,
    /// `max_i (Re a_ii ± (Σ_{j≠i}|a_ij| + Σ_{j≠i}|a_ji|)/2)`.
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        if self.is_hermitian() {
            self.spectral_bounds().map(|b| (b.re_min, b.re_max))
        } else {
            None
        }
    }

    /// An upper bound on ‖A‖₂ if the operator knows one cheaply (for example `max_i Σ_j |a_ij|`
    /// for a symmetric matrix, or the analytic norm of a stencil); `None` asks the caller to
    /// estimate. Methods that need a norm (Taylor's degree selection) use it before
    /// estimating one with products.
    fn norm_bound(&self) -> Option<f64> {
        None
    }

    /// Whether [`spectral_bounds`](Self::spectral_bounds) is tight: its extreme values are
    /// (close to) extreme eigenvalues, as for the analytic bounds of a stencil. `false` (the
    /// default) says the box may be loose — a Gershgorin box can be several times wider than
    /// the spectrum — and lets a method spend a few products on narrowing it (Leja runs a
    /// short Lanczos or power estimate and keeps the intersection when it is less than half
    /// as wide).
    fn spectral_bounds_are_tight(&self) -> bool {
        false
    }

    /// This operator's fused passes ([`FusedOperator`]: the Lanczos product with its sums,
    /// the deferred Lanczos step, Leja's shifted step), when it has kernels for them: an
    /// operator that implements [`FusedOperator`] returns `Some(self)`. `None` (the default)
    /// gives the BLAS-1 sequences of [`crate::OperatorSteps`]. Wrappers forward their inner
    /// operator's answer.
    fn fused(&self) -> Option<&dyn FusedOperator<B, S>> {
        None
    }
}

/// The fused passes an operator may override; each default is the BLAS-1 sequence it
/// replaces. An operator implements this trait and returns itself from
/// [`LinearOperator::fused`] (`Some(self)`); methods reach it through [`crate::OperatorSteps`].
/// (The two traits share method names: where both are in scope, call
/// `OperatorSteps::shifted_step(&op, …)`.)
pub trait FusedOperator<B: Backend, S: Scalar>: LinearOperator<B, S> {
    /// The product of a Lanczos step with its sums: w ← A·q_j − β_j·q_{j−1} (β_j =
    /// `c[2j − 1]`, read where the coefficients live; no subtraction when `q_prev` is
    /// `None`) and `sums[0..4]` ← (Re⟨q_j, w⟩, Im⟨q_j, w⟩, ‖w‖², ‖q_j‖²) for
    /// [`KrylovBackend::lanczos_update`]. The default applies the operator and calls
    /// [`KrylovBackend::lanczos_sums`] (a second pass over the vectors); GPU operators
    /// override it with one pass.
    ///
    /// # Errors
    ///
    /// Those of [`LinearOperator::apply`] and [`KrylovBackend::lanczos_sums`].
    #[allow(clippy::too_many_arguments)]
    fn lanczos_product(
        &self,
        backend: &B,
        j: usize,
        q_prev: Option<&B::Vector<S>>,
        q: &B::Vector<S>,
        w: &mut B::Vector<S>,
        c: &B::Vector<f64>,
        sums: &mut B::Vector<f64>,
    ) -> Result<()>
    where
        B: KrylovBackend,
    {
        sequence::lanczos_product(self, backend, j, q_prev, q, w, c, sums)
    }

    /// Whether [`lanczos_advance`](Self::lanczos_advance) forms q_{j+1} inside the product's
    /// own pass. Lanczos then runs the deferred form of its step
    /// ([`KrylovBackend::lanczos_settle`] and `lanczos_advance`), which saves the update
    /// pass; `false` (the default) keeps the product-and-update form.
    fn lanczos_advance_fused(&self) -> bool {
        false
    }

    /// Step j + 1 of the deferred Lanczos form, once step j is settled
    /// ([`KrylovBackend::lanczos_settle`]): `q_next` ← q_{j+1} (formed from `w_prev` and q_j =
    /// `q` as [`KrylovBackend::lanczos_form`] does), then `w` ← A·q_{j+1} − β_{j+1}·q_j with
    /// the sums of step j + 1 in `sums` (as [`lanczos_product`](Self::lanczos_product)). `w`
    /// overlaps neither `w_prev` nor `q_next`: a fused product still gathers from `w_prev`
    /// while other rows are written.
    ///
    /// The default is [`KrylovBackend::lanczos_form`] followed by `lanczos_product`;
    /// operators that say [`lanczos_advance_fused`](Self::lanczos_advance_fused) do both in
    /// one pass (reads A, q_j and w_prev; writes q_{j+1} and w), the same values up to the
    /// order of the sums' rounding.
    ///
    /// # Errors
    ///
    /// Those of [`KrylovBackend::lanczos_form`] and [`lanczos_product`](Self::lanczos_product).
    #[allow(clippy::too_many_arguments)]
    fn lanczos_advance(
        &self,
        backend: &B,
        j: usize,
        q: &B::Vector<S>,
        w_prev: &B::Vector<S>,
        q_next: &mut B::Vector<S>,
        w: &mut B::Vector<S>,
        c: &B::Vector<f64>,
        sums: &mut B::Vector<f64>,
    ) -> Result<()>
    where
        B: KrylovBackend,
    {
        backend.lanczos_form(j, q, w_prev, c, sums, q_next)?;
        FusedOperator::lanczos_product(self, backend, j + 1, Some(q), q_next, w, c, sums)
    }

    /// One fused shifted-product step ([`ShiftedStep`]): `y_next ← alpha·A·y_prev +
    /// shift·y_prev`, `p ← p + coeff·y_next`, returns ‖y_next‖₂. The default runs the four
    /// operations one after another; GPU operators override it with a single pass over
    /// memory.
    ///
    /// # Errors
    ///
    /// Those of [`LinearOperator::apply`] and of the backend's vector operations.
    fn shifted_step(
        &self,
        backend: &B,
        step: &ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real> {
        sequence::shifted_step(self, backend, step, y_prev, y_next, p)
    }
}

/// The BLAS-1 sequences the fused passes replace.
pub(crate) mod sequence {
    use super::*;

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lanczos_product<B, S, O>(
        op: &O,
        backend: &B,
        j: usize,
        q_prev: Option<&B::Vector<S>>,
        q: &B::Vector<S>,
        w: &mut B::Vector<S>,
        c: &B::Vector<f64>,
        sums: &mut B::Vector<f64>,
    ) -> Result<()>
    where
        B: KrylovBackend,
        S: Scalar,
        O: LinearOperator<B, S> + ?Sized,
    {
        op.apply(backend, S::one(), q, S::zero(), w)?;
        backend.lanczos_sums(j, q_prev, q, w, c, sums)
    }

    pub(crate) fn shifted_step<B, S, O>(
        op: &O,
        backend: &B,
        step: &ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real>
    where
        B: Backend,
        S: Scalar,
        O: LinearOperator<B, S> + ?Sized,
    {
        backend.copy(y_prev, y_next)?;
        op.apply(backend, step.alpha, y_prev, step.shift, y_next)?;
        backend.axpby(step.coeff, y_next, S::one(), p)?;
        backend.nrm2(y_next)
    }
}

/// A borrowed operator is the operator: every method forwards, the defaulted ones and
/// [`LinearOperator::fused`] included, so that an operator's fused passes and bounds survive
/// wrapping a reference (for example [`crate::Shifted`] holding `&O`).
impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> LinearOperator<B, S> for &O {
    fn nrows(&self) -> usize {
        (**self).nrows()
    }
    fn ncols(&self) -> usize {
        (**self).ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        (**self).apply(backend, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        (**self).spectral_bounds()
    }
    fn is_hermitian(&self) -> bool {
        (**self).is_hermitian()
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        (**self).hermitian_part_bounds()
    }
    fn norm_bound(&self) -> Option<f64> {
        (**self).norm_bound()
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        (**self).spectral_bounds_are_tight()
    }
    fn fused(&self) -> Option<&dyn FusedOperator<B, S>> {
        (**self).fused()
    }
}

/// A small dense matrix (row-major) as an operator on the CPU: for tests, examples and
/// reference computations, not for speed.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseMatrixOperator<S: Scalar> {
    n: usize,
    m: usize,
    data: Vec<S>,
    hermitian: bool,
}

impl<S: Scalar> DenseMatrixOperator<S> {
    /// An `n × m` matrix from row-major `data`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `n·m` overflows `usize`, [`Error::DimensionMismatch`] if
    /// `data.len() != n·m`, [`Error::NonFinite`] for a NaN or infinite entry (with its
    /// row-major index).
    pub fn new(n: usize, m: usize, data: Vec<S>) -> Result<Self> {
        let len = n.checked_mul(m).ok_or_else(|| {
            Error::invalid(
                "n·m",
                format!("{n} · {m}"),
                "DenseMatrixOperator: the dense size overflows usize",
            )
        })?;
        check_dim("DenseMatrixOperator: data length (n·m)", len, data.len())?;
        if let Some((i, v)) = crate::norms::first_non_finite(&data) {
            return Err(Error::NonFinite {
                context: "DenseMatrixOperator data".into(),
                index: i,
                value: format!("{v}"),
            });
        }
        let hermitian =
            n == m && (0..n).all(|i| (0..n).all(|j| data[i * n + j] == data[j * n + i].conj()));
        Ok(DenseMatrixOperator {
            n,
            m,
            data,
            hermitian,
        })
    }

    /// Entry (i, j).
    pub fn get(&self, i: usize, j: usize) -> S {
        self.data[i * self.m + j]
    }

    /// Row-major entries.
    pub fn data(&self) -> &[S] {
        &self.data
    }
}

impl<S: Scalar> LinearOperator<CpuBackend, S> for DenseMatrixOperator<S> {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.m
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        check_dim("DenseMatrixOperator::apply: x length", self.m, x.len())?;
        check_dim("DenseMatrixOperator::apply: y length", self.n, y.len())?;
        for (i, yi) in y.iter_mut().enumerate() {
            let row = &self.data[i * self.m..(i + 1) * self.m];
            let ax: S = row.iter().zip(x).map(|(a, b)| *a * *b).sum();
            *yi = if beta == S::zero() {
                alpha * ax
            } else {
                alpha * ax + beta * *yi
            };
        }
        Ok(())
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        if self.n != self.m {
            return None;
        }
        // Gershgorin discs, enclosed in a box.
        let (mut a, mut b, mut c, mut d) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for i in 0..self.n {
            let z = self.get(i, i).to_c64();
            let r: f64 = (0..self.n)
                .filter(|&j| j != i)
                .map(|j| self.get(i, j).to_c64().norm())
                .sum();
            a = a.min(z.re - r);
            b = b.max(z.re + r);
            c = c.min(z.im - r);
            d = d.max(z.im + r);
        }
        if self.hermitian {
            c = 0.0;
            d = 0.0;
        }
        SpectralBounds::new(a, b, c, d).ok()
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        if self.n != self.m || self.n == 0 {
            return None;
        }
        // Gershgorin discs of H = (A + Aᴴ)/2 itself: h_ij = (a_ij + conj(a_ji))/2.
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for i in 0..self.n {
            let c = self.get(i, i).to_c64().re;
            let r: f64 = (0..self.n)
                .filter(|&j| j != i)
                .map(|j| (self.get(i, j).to_c64() + self.get(j, i).to_c64().conj()).norm() / 2.0)
                .sum();
            lo = lo.min(c - r);
            hi = hi.max(c + r);
        }
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OperatorSteps, c64};

    /// An operator whose every hook differs from the default, so that a reference that fell
    /// back on a default is seen.
    struct Hooks;
    impl LinearOperator<CpuBackend, f64> for Hooks {
        fn nrows(&self) -> usize {
            2
        }
        fn ncols(&self) -> usize {
            2
        }
        fn apply(
            &self,
            _: &CpuBackend,
            a: f64,
            x: &Vec<f64>,
            b: f64,
            y: &mut Vec<f64>,
        ) -> Result<()> {
            for (yi, xi) in y.iter_mut().zip(x) {
                *yi = a * 3.0 * xi + if b == 0.0 { 0.0 } else { b * *yi };
            }
            Ok(())
        }
        fn spectral_bounds(&self) -> Option<SpectralBounds> {
            SpectralBounds::real(3.0, 3.0).ok()
        }
        fn is_hermitian(&self) -> bool {
            true
        }
        fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
            Some((2.5, 3.5))
        }
        fn norm_bound(&self) -> Option<f64> {
            Some(3.25)
        }
        fn spectral_bounds_are_tight(&self) -> bool {
            true
        }
        fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, f64>> {
            Some(self)
        }
    }
    impl FusedOperator<CpuBackend, f64> for Hooks {
        fn lanczos_product(
            &self,
            _: &CpuBackend,
            j: usize,
            _: Option<&Vec<f64>>,
            _: &Vec<f64>,
            w: &mut Vec<f64>,
            _: &Vec<f64>,
            sums: &mut Vec<f64>,
        ) -> Result<()> {
            w[0] = 100.0 + j as f64;
            sums[0] = -1.0;
            Ok(())
        }
        fn lanczos_advance_fused(&self) -> bool {
            true
        }
        fn lanczos_advance(
            &self,
            _: &CpuBackend,
            j: usize,
            _: &Vec<f64>,
            _: &Vec<f64>,
            q_next: &mut Vec<f64>,
            _: &mut Vec<f64>,
            _: &Vec<f64>,
            _: &mut Vec<f64>,
        ) -> Result<()> {
            q_next[0] = 200.0 + j as f64;
            Ok(())
        }
        fn shifted_step(
            &self,
            _: &CpuBackend,
            _: &ShiftedStep<f64>,
            _: &Vec<f64>,
            _: &mut Vec<f64>,
            _: &mut Vec<f64>,
        ) -> Result<f64> {
            Ok(42.0)
        }
    }

    #[test]
    fn a_reference_forwards_every_hook() {
        let cpu = CpuBackend;
        let op = Hooks;
        let r: &dyn LinearOperator<CpuBackend, f64> = &op;
        let by_ref = &r;
        assert_eq!(by_ref.nrows(), 2);
        assert_eq!(by_ref.ncols(), 2);
        assert_eq!(by_ref.spectral_bounds(), op.spectral_bounds());
        assert!(by_ref.is_hermitian() && by_ref.spectral_bounds_are_tight());
        assert!(by_ref.lanczos_advance_fused());
        assert_eq!(by_ref.hermitian_part_bounds(), Some((2.5, 3.5)));
        assert_eq!(by_ref.norm_bound(), Some(3.25));
        let (q, c) = (vec![1.0, 1.0], vec![0.0; 4]);
        let (mut w, mut sums, mut q_next) = (vec![0.0; 2], vec![0.0; 4], vec![0.0; 2]);
        by_ref
            .lanczos_product(&cpu, 3, None, &q, &mut w, &c, &mut sums)
            .unwrap();
        assert_eq!((w[0], sums[0]), (103.0, -1.0));
        by_ref
            .lanczos_advance(&cpu, 4, &q, &q, &mut q_next, &mut w, &c, &mut sums)
            .unwrap();
        assert_eq!(q_next[0], 204.0);
        let step = ShiftedStep {
            alpha: 1.0,
            shift: 0.0,
            coeff: 1.0,
        };
        let (mut y, mut p) = (vec![0.0; 2], vec![0.0; 2]);
        assert_eq!(
            by_ref
                .shifted_step(&cpu, &step, &q, &mut y, &mut p)
                .unwrap(),
            42.0
        );
        by_ref.apply(&cpu, 1.0, &q, 0.0, &mut y).unwrap();
        assert_eq!(y, vec![3.0, 3.0]);
        // core's shift holds a reference: (A − 1·I) by reference, bounds shifted.
        let shifted = crate::Shifted::new(&op, -1.0);
        shifted.apply(&cpu, 1.0, &q, 0.0, &mut y).unwrap();
        assert_eq!(y, vec![2.0, 2.0]);
        assert_eq!(
            shifted.spectral_bounds(),
            SpectralBounds::real(2.0, 2.0).ok()
        );
        // The shift keeps the inner operator's fused step (with the shift folded in), and an
        // operator without fused passes gets the BLAS-1 sequence.
        assert_eq!(
            OperatorSteps::shifted_step(&shifted, &cpu, &step, &q, &mut y, &mut p).unwrap(),
            42.0
        );
        let plain = DenseMatrixOperator::new(2, 2, vec![3.0, 0.0, 0.0, 3.0]).unwrap();
        assert!(plain.fused().is_none() && crate::Shifted::new(&plain, 1.0).fused().is_none());
    }

    #[test]
    fn default_leja_step_matches_its_definition() {
        let a = DenseMatrixOperator::new(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let cpu = CpuBackend;
        let y_prev = vec![1.0, -1.0];
        let mut y_next = vec![7.0, 7.0];
        let mut p = vec![0.5, 0.5];
        let step = ShiftedStep {
            alpha: 0.5,
            shift: 2.0,
            coeff: 3.0,
        };
        let norm: f64 = a
            .shifted_step(&cpu, &step, &y_prev, &mut y_next, &mut p)
            .unwrap();
        // A·y = [-1, -1]; y_next = 0.5·[-1,-1] + 2·[1,-1] = [1.5, -2.5]
        assert_eq!(y_next, vec![1.5, -2.5]);
        assert_eq!(p, vec![0.5 + 4.5, 0.5 - 7.5]);
        assert!((norm - (1.5f64.powi(2) + 2.5f64.powi(2)).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn dense_operator_rejects_bad_input_and_detects_hermitian() {
        assert!(matches!(
            DenseMatrixOperator::new(2, 2, vec![1.0; 3]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(matches!(
            DenseMatrixOperator::new(1, 1, vec![f64::NAN]),
            Err(Error::NonFinite { .. })
        ));
        let h = DenseMatrixOperator::new(
            2,
            2,
            vec![
                c64::new(1.0, 0.0),
                c64::new(0.0, 1.0),
                c64::new(0.0, -1.0),
                c64::new(2.0, 0.0),
            ],
        )
        .unwrap();
        assert!(LinearOperator::<CpuBackend, c64>::is_hermitian(&h));
        let b = LinearOperator::<CpuBackend, c64>::spectral_bounds(&h).unwrap();
        assert_eq!(
            (b.re_min, b.re_max, b.im_min, b.im_max),
            (0.0, 3.0, 0.0, 0.0)
        );
    }

    #[test]
    fn spectral_bounds_reject_nonsense() {
        assert!(SpectralBounds::real(1.0, 0.0).is_err());
        assert!(SpectralBounds::real(f64::NAN, 0.0).is_err());
        assert!(SpectralBounds::real(-1.0, f64::INFINITY).is_err());
    }
}
