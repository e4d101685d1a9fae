//! What a stencil carries besides its grid: the boundary function of an inhomogeneous
//! Dirichlet problem and the diffusion coefficient.

use matexp_core::{Error, RealScalar, Result};
use std::fmt;
use std::sync::Arc;

/// A user boundary or coefficient function of the point `[x, y, z]`.
pub type PointFn = Arc<dyn Fn([f64; 3]) -> f64 + Send + Sync>;

/// Boundary values `g` of a Dirichlet problem, `u = g` on `∂[0, 1]^d`.
///
/// Every variant can be turned into the affine term `b` (see
/// [`crate::Stencil::affine_term`]); the two functions of seed 003 can also be evaluated
/// inside the product kernel ([`crate::Stencil::apply_affine`] on the GPU evaluates them in
/// the kernel, as the seed's Table I does).
#[derive(Clone, Default)]
pub enum BoundaryFunction {
    /// `g = 0`: the homogeneous problem, `b = 0`.
    #[default]
    Zero,
    /// Seed 003's `g = z(1 − z)·x·y`.
    Polynomial,
    /// Seed 003's `g = sin(πz)·e^{−xy}`.
    SineExp,
    /// Any function of the boundary point.
    Custom(PointFn),
}

impl BoundaryFunction {
    /// A boundary function from a closure of `[x, y, z]`.
    pub fn custom(f: impl Fn([f64; 3]) -> f64 + Send + Sync + 'static) -> Self {
        BoundaryFunction::Custom(Arc::new(f))
    }

    /// `g(p)`.
    pub fn eval(&self, p: [f64; 3]) -> f64 {
        let [x, y, z] = p;
        match self {
            BoundaryFunction::Zero => 0.0,
            BoundaryFunction::Polynomial => z * (1.0 - z) * x * y,
            BoundaryFunction::SineExp => (std::f64::consts::PI * z).sin() * (-x * y).exp(),
            BoundaryFunction::Custom(f) => f(p),
        }
    }

    /// Whether `g = 0` is known without evaluating it.
    pub fn is_zero(&self) -> bool {
        matches!(self, BoundaryFunction::Zero)
    }
}

impl fmt::Debug for BoundaryFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoundaryFunction::Zero => "Zero",
            BoundaryFunction::Polynomial => "Polynomial[z(1-z)xy]",
            BoundaryFunction::SineExp => "SineExp[sin(pi z)exp(-xy)]",
            BoundaryFunction::Custom(_) => "Custom(..)",
        })
    }
}

/// The diffusion coefficient `D` of the operator `D(x)·Δu` (seed 003's position-dependent
/// coefficient; note that this is not the conservative `∇·(D∇u)`).
#[derive(Clone, Default)]
pub enum Coefficient<S> {
    /// `D = 1`: the plain Laplacian.
    #[default]
    Unit,
    /// Seed 003's `D = 1/√(1 + x² + y²)` (taken by the seed from its reference 11), evaluated at the grid
    /// points (in the GPU kernel, in the product itself, as the seed's Table II).
    Seed,
    /// Values at the grid points, in grid order (`N^d` values, each finite and positive).
    Field(Arc<[S]>),
    /// Any positive function of the point, sampled once into a field.
    Function(PointFn),
}

impl<S: RealScalar> Coefficient<S> {
    /// Seed 003's coefficient at `[x, y, z]`.
    pub fn seed(p: [f64; 3]) -> f64 {
        1.0 / (1.0 + p[0] * p[0] + p[1] * p[1]).sqrt()
    }

    /// A coefficient from a closure of `[x, y, z]` (sampled at the grid points).
    pub fn function(f: impl Fn([f64; 3]) -> f64 + Send + Sync + 'static) -> Self {
        Coefficient::Function(Arc::new(f))
    }

    /// A coefficient from values at the grid points.
    pub fn field(values: impl Into<Arc<[S]>>) -> Self {
        Coefficient::Field(values.into())
    }

    /// Whether `D = 1`.
    pub fn is_unit(&self) -> bool {
        matches!(self, Coefficient::Unit)
    }
}

impl<S> fmt::Debug for Coefficient<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coefficient::Unit => f.write_str("Unit"),
            Coefficient::Seed => f.write_str("Seed[1/sqrt(1+x^2+y^2)]"),
            Coefficient::Field(v) => write!(f, "Field({} values)", v.len()),
            Coefficient::Function(_) => f.write_str("Function(..)"),
        }
    }
}

/// Checks that coefficient values are finite and positive (the spectral bounds and the
/// meaning of a diffusion coefficient need `D > 0`).
pub(crate) fn check_coefficient<S: RealScalar>(values: &[S]) -> Result<()> {
    match values
        .iter()
        .position(|d| !(d.is_finite() && *d > S::zero()))
    {
        None => Ok(()),
        Some(i) if !values[i].is_finite() => Err(Error::NonFinite {
            context: "stencil coefficient".into(),
            index: i,
            value: format!("{}", values[i]),
        }),
        Some(i) => Err(Error::invalid(
            "coefficient",
            format!("{} at index {i}", values[i]),
            "a diffusion coefficient must be positive",
        )),
    }
}
