//! The semilinear problem `u' = F(t, u) = A u + g(t, u)`: the user's nonlinearity and the
//! Jacobian `J = A + ∂g/∂u` as a matrix-free operator.

use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds};
use std::sync::Mutex;

/// The nonlinear part `g(t, u)` of `u' = A u + g(t, u)`, evaluated on a backend.
///
/// An affine problem `u' = A u + b` is `g(t, u) = b`. Only [`Nonlinearity::eval`] is
/// required: the Jacobian action `∂g/∂u(t, u)·v` defaults to a directional difference
/// `(g(t, u + εv) − g(t, u))/ε` with `ε = √ε_mach·(1 + ‖u‖)/‖v‖` (one evaluation of `g`,
/// first-order accurate: relative error about √ε_mach), and `∂g/∂t` to a central difference
/// (two evaluations, error O(ε_mach^{2/3})). Give the exact ones where they are cheap.
pub trait Nonlinearity<B: Backend, S: Scalar>: Send + Sync {
    /// `out ← g(t, u)`.
    fn eval(&self, backend: &B, t: f64, u: &B::Vector<S>, out: &mut B::Vector<S>) -> Result<()>;

    /// Whether [`Nonlinearity::jacobian_apply`] is implemented.
    fn has_jacobian(&self) -> bool {
        false
    }

    /// `y ← α·∂g/∂u(t, u)·v + β·y`. Called only when [`Nonlinearity::has_jacobian`] is true.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_apply(
        &self,
        _backend: &B,
        _t: f64,
        _u: &B::Vector<S>,
        _alpha: S,
        _v: &B::Vector<S>,
        _beta: S,
        _y: &mut B::Vector<S>,
    ) -> Result<()> {
        Err(Error::Unsupported(
            "this nonlinearity has no Jacobian action".into(),
        ))
    }

    /// Whether `g` does not depend on `t` (then `∂g/∂t = 0` and no difference is formed).
    fn is_autonomous(&self) -> bool {
        false
    }

    /// `out ← ∂g/∂t(t, u)`, or `Ok(false)` to have it formed by a central difference.
    fn time_derivative(
        &self,
        _backend: &B,
        _t: f64,
        _u: &B::Vector<S>,
        _out: &mut B::Vector<S>,
    ) -> Result<bool> {
        Ok(false)
    }

    /// A box containing the field of values of `∂g/∂u(t, u)` (for a pointwise reaction
    /// term: `[min g', max g']`), or `None`. With the bounds of `A`, it gives the Jacobian's
    /// bounds (their sum, by Weyl's inequalities for Hermitian parts), which saves the Leja
    /// method a spectral estimate (up to 40 products) in every φ-combination.
    fn jacobian_bounds(
        &self,
        _backend: &B,
        _t: f64,
        _u: &B::Vector<S>,
    ) -> Result<Option<SpectralBounds>> {
        Ok(None)
    }

    /// Whether `∂g/∂u` is Hermitian wherever it is evaluated (e.g. a pointwise reaction
    /// term with real derivative); with a Hermitian `A` the Jacobian is then Hermitian, which
    /// lets the Leja method use a real focal interval.
    fn jacobian_is_hermitian(&self) -> bool {
        false
    }
}

/// The square root of the unit roundoff of `S`.
pub(crate) fn sqrt_eps<S: Scalar>() -> f64 {
    S::Real::EPS.as_f64().sqrt()
}

/// `∂g/∂u(t, u)` as an operator: the user's action or a directional difference.
pub(crate) struct NonlinearJacobian<'a, B: Backend, S: Scalar, G: ?Sized> {
    pub(crate) g: &'a G,
    pub(crate) t: f64,
    pub(crate) u: &'a B::Vector<S>,
    /// g(t, u), the base point of the difference.
    pub(crate) gu: &'a B::Vector<S>,
    pub(crate) unorm: f64,
    /// Bounds of ∂g/∂u at (t, u), when the nonlinearity gives them.
    pub(crate) bounds: Option<SpectralBounds>,
    /// u + εv and g(t, u + εv) of the difference quotient.
    pub(crate) scratch: Mutex<(B::Vector<S>, B::Vector<S>)>,
}

impl<B: Backend, S: Scalar, G: Nonlinearity<B, S> + ?Sized> NonlinearJacobian<'_, B, S, G> {
    /// `y ← α·∂g/∂u·x + β·y`.
    pub(crate) fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        if self.g.has_jacobian() {
            return self
                .g
                .jacobian_apply(backend, self.t, self.u, alpha, x, beta, y);
        }
        let xnorm = backend.nrm2(x)?.as_f64();
        // β = 0 overwrites y (it may hold anything, NaN included), as LinearOperator::apply.
        if beta == S::zero() {
            backend.fill(y, S::zero())?;
        } else if beta != S::one() {
            backend.scale(beta, y)?;
        }
        if xnorm == 0.0 {
            return Ok(());
        }
        let eps = sqrt_eps::<S>() * (1.0 + self.unorm) / xnorm;
        let mut guard = self
            .scratch
            .lock()
            .map_err(|_| Error::Device("Jacobian scratch lock poisoned".into()))?;
        let (w, gw) = &mut *guard;
        backend.copy(self.u, w)?;
        backend.axpby(S::from_f64(eps), x, S::one(), w)?;
        self.g.eval(backend, self.t, w, gw)?;
        let c = alpha * S::from_f64(1.0 / eps);
        backend.axpby(c, gw, S::one(), y)?;
        backend.axpby(-c, self.gu, S::one(), y)
    }
}

/// `J = A + ∂g/∂u(t, u)`, the linearisation of an exponential Rosenbrock step.
pub(crate) struct Jacobian<'a, 'b, B: Backend, S: Scalar, A: ?Sized, G: ?Sized> {
    pub(crate) a: &'a A,
    pub(crate) dg: &'b NonlinearJacobian<'a, B, S, G>,
}

impl<B, S, A, G> LinearOperator<B, S> for Jacobian<'_, '_, B, S, A, G>
where
    B: Backend,
    S: Scalar,
    A: LinearOperator<B, S> + ?Sized,
    G: Nonlinearity<B, S> + ?Sized,
{
    fn nrows(&self) -> usize {
        self.a.nrows()
    }
    fn ncols(&self) -> usize {
        self.a.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.a.apply(backend, alpha, x, beta, y)?;
        self.dg.apply(backend, alpha, x, S::one(), y)
    }
    fn is_hermitian(&self) -> bool {
        self.a.is_hermitian() && self.dg.g.jacobian_is_hermitian()
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let (a, d) = (self.a.spectral_bounds()?, self.dg.bounds?);
        SpectralBounds::new(
            a.re_min + d.re_min,
            a.re_max + d.re_max,
            a.im_min + d.im_min,
            a.im_max + d.im_max,
        )
        .ok()
    }
}
