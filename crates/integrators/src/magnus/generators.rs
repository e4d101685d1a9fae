//! The exponents of the Magnus schemes as matrix-free Hermitian operators `M` (the step is
//! `e^{−iτM}`), built from products with `H(t)` at the quadrature nodes.

use matexp_core::{
    Backend, Error, LinearOperator, Result, Scalar, SpectralBounds, TimeDependentOperator, c64,
};
use std::sync::Mutex;

/// `M = w₁ H(t₁) + w₂ H(t₂)` for real weights: two products per application.
pub(crate) struct Combination<'a, Op: ?Sized> {
    pub(crate) h: &'a Op,
    pub(crate) nodes: [(f64, f64); 2],
}

impl<B: Backend, S: Scalar, Op: TimeDependentOperator<B, S> + ?Sized> LinearOperator<B, S>
    for Combination<'_, Op>
{
    fn nrows(&self) -> usize {
        self.h.nrows()
    }
    fn ncols(&self) -> usize {
        self.h.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        let [(t1, w1), (t2, w2)] = self.nodes;
        self.h
            .apply_at(backend, t1, alpha * S::from_f64(w1), x, beta, y)?;
        self.h
            .apply_at(backend, t2, alpha * S::from_f64(w2), x, S::one(), y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let mut lo = 0.0;
        let mut hi = 0.0;
        for (t, w) in self.nodes {
            let b = self.h.spectral_bounds_at(t)?;
            if !b.is_real() {
                return None;
            }
            let (a, c) = (w * b.re_min, w * b.re_max);
            lo += a.min(c);
            hi += a.max(c);
        }
        SpectralBounds::real(lo, hi).ok()
    }
    fn norm_bound(&self) -> Option<f64> {
        let [(t1, w1), (t2, w2)] = self.nodes;
        Some(w1.abs() * self.h.norm_bound_at(t1)? + w2.abs() * self.h.norm_bound_at(t2)?)
    }
    fn is_hermitian(&self) -> bool {
        self.h.is_hermitian()
    }
}

/// The fourth-order Gauss–Magnus exponent for `ψ' = −iH(t)ψ`,
/// `Ω = −i·M`, `M = (h/2)(H₁ + H₂) − i(√3h²/12)[H₂, H₁]`, `H_j = H(t + c_j h)`,
/// `c_{1,2} = ½ ∓ √3/6`. (With `A = −iH`, Ω = (h/2)(A₁ + A₂) + (√3h²/12)[A₂, A₁] is the
/// usual form; `[A₂, A₁] = −[H₂, H₁]`.) `M` is Hermitian when `H` is: `[H₂, H₁]` is
/// anti-Hermitian. The commutator is applied matrix-free, `[H₂, H₁]x = H₂(H₁x) − H₁(H₂x)`:
/// four products with `H` per application.
pub(crate) struct GaussMagnus<'a, B: Backend, S: Scalar, Op: ?Sized> {
    pub(crate) h_op: &'a Op,
    pub(crate) t: [f64; 2],
    pub(crate) h: f64,
    pub(crate) scratch: Mutex<(B::Vector<S>, B::Vector<S>)>,
}

impl<B: Backend, S: Scalar, Op: TimeDependentOperator<B, S> + ?Sized> LinearOperator<B, S>
    for GaussMagnus<'_, B, S, Op>
{
    fn nrows(&self) -> usize {
        self.h_op.nrows()
    }
    fn ncols(&self) -> usize {
        self.h_op.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        let mut guard = self
            .scratch
            .lock()
            .map_err(|_| Error::Device("Gauss–Magnus scratch lock poisoned".into()))?;
        let (p1, p2) = &mut *guard;
        let [t1, t2] = self.t;
        let (zero, one) = (S::zero(), S::one());
        self.h_op.apply_at(backend, t1, one, x, zero, p1)?;
        self.h_op.apply_at(backend, t2, one, x, zero, p2)?;
        let half = alpha * S::from_f64(0.5 * self.h);
        backend.axpby(half, p1, beta, y)?;
        backend.axpby(half, p2, one, y)?;
        // −i·√3h²/12·(H₂p₁ − H₁p₂).
        let c = alpha * S::from_c64(c64::new(0.0, -(3f64.sqrt()) * self.h * self.h / 12.0));
        self.h_op.apply_at(backend, t2, c, p1, one, y)?;
        self.h_op.apply_at(backend, t1, -c, p2, one, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let [t1, t2] = self.t;
        let (b1, b2) = (
            self.h_op.spectral_bounds_at(t1)?,
            self.h_op.spectral_bounds_at(t2)?,
        );
        if !(b1.is_real() && b2.is_real()) {
            return None;
        }
        // ‖[H₂, H₁]‖ ≤ 2‖H₁‖‖H₂‖ widens the interval of (h/2)(H₁ + H₂) (Weyl).
        let n1 = b1.re_min.abs().max(b1.re_max.abs());
        let n2 = b2.re_min.abs().max(b2.re_max.abs());
        let widen = 3f64.sqrt() * self.h * self.h / 12.0 * 2.0 * n1 * n2;
        SpectralBounds::real(
            0.5 * self.h * (b1.re_min + b2.re_min) - widen,
            0.5 * self.h * (b1.re_max + b2.re_max) + widen,
        )
        .ok()
    }
    fn norm_bound(&self) -> Option<f64> {
        let [t1, t2] = self.t;
        let (n1, n2) = (self.h_op.norm_bound_at(t1)?, self.h_op.norm_bound_at(t2)?);
        Some(0.5 * self.h * (n1 + n2) + 3f64.sqrt() * self.h * self.h / 6.0 * n1 * n2)
    }
    fn is_hermitian(&self) -> bool {
        self.h_op.is_hermitian()
    }
}
