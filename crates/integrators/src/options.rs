//! Options of the f(tA)v methods.

use matexp_core::{Error, RealScalar, Result, Scalar};

/// The accuracy requested of a result w ≈ f(tA)v:
/// ‖w − f(tA)v‖₂ ≤ `atol` + `rtol`·‖f(tA)v‖₂ (as estimated by each method).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance; must be finite, > 0, and not below the unit roundoff of the scalar
    /// type (≈ 6e−8 for `f32`, 1.1e−16 for `f64`).
    pub rtol: f64,
    /// Absolute tolerance; finite and ≥ 0.
    pub atol: f64,
}

impl Default for Tolerance {
    /// `rtol = 1e−8`, `atol = 0` (single-precision users must ask for ≥ 6e−8).
    fn default() -> Self {
        Tolerance {
            rtol: 1e-8,
            atol: 0.0,
        }
    }
}

impl Tolerance {
    /// A purely relative tolerance.
    pub fn relative(rtol: f64) -> Self {
        Tolerance { rtol, atol: 0.0 }
    }

    /// Relative and absolute tolerances.
    pub fn new(rtol: f64, atol: f64) -> Self {
        Tolerance { rtol, atol }
    }

    /// Checks the tolerance for computations in scalar type `S`.
    pub fn validate<S: Scalar>(&self) -> Result<()> {
        let u = S::Real::EPS.as_f64() / 2.0;
        if !(self.rtol.is_finite() && self.rtol > 0.0) {
            return Err(Error::invalid("rtol", self.rtol, "must be finite and > 0"));
        }
        if self.rtol < u {
            return Err(Error::invalid(
                "rtol",
                self.rtol,
                format!("is below the unit roundoff {u:.2e} of {}", S::NAME),
            ));
        }
        if !(self.atol.is_finite() && self.atol >= 0.0) {
            return Err(Error::invalid("atol", self.atol, "must be finite and ≥ 0"));
        }
        Ok(())
    }

    /// atol + rtol·scale.
    pub(crate) fn bound(&self, scale: f64) -> f64 {
        self.atol + self.rtol * scale
    }
}

/// Options of the Lanczos method ([`crate::Lanczos`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LanczosOptions {
    /// Requested accuracy.
    pub tol: Tolerance,
    /// Largest Krylov dimension (matrix–vector products) before giving up.
    pub max_dim: usize,
    /// Check convergence every this many steps at first; the interval then grows to about
    /// 10 % of the current dimension, so small eigensolves stay a small part of the work.
    pub check_every: usize,
    /// Two-pass mode: the first pass only builds T (three vectors of storage), the second
    /// regenerates the basis from the stored α, β and accumulates Q·y. Twice the products,
    /// O(n) memory instead of O(n·k); results agree with the one-pass mode to rounding.
    pub two_pass: bool,
    /// Full reorthogonalization against all stored vectors (one-pass mode only). Costs
    /// O(n·k) per step; rarely needed for f(A)v (the error of Lanczos without
    /// reorthogonalization for exp is well understood, and the estimate still applies).
    pub reorthogonalize: bool,
    /// Run even if the operator does not report [`matexp_core::LinearOperator::is_hermitian`]
    /// (the caller vouches for it).
    pub assume_hermitian: bool,
    /// Return the result reached at `max_dim` with `Report::converged = false` instead of
    /// [`Error::NoConvergence`].
    pub allow_unconverged: bool,
}

impl Default for LanczosOptions {
    fn default() -> Self {
        LanczosOptions {
            tol: Tolerance::default(),
            max_dim: 500,
            check_every: 4,
            two_pass: false,
            reorthogonalize: false,
            assume_hermitian: false,
            allow_unconverged: false,
        }
    }
}

impl LanczosOptions {
    pub(crate) fn validate<S: Scalar>(&self) -> Result<()> {
        self.tol.validate::<S>()?;
        if self.max_dim == 0 {
            return Err(Error::invalid("max_dim", 0, "must be ≥ 1"));
        }
        if self.check_every == 0 {
            return Err(Error::invalid("check_every", 0, "must be ≥ 1"));
        }
        if self.two_pass && self.reorthogonalize {
            return Err(Error::invalid(
                "reorthogonalize",
                true,
                "needs the stored basis; it cannot be combined with two_pass",
            ));
        }
        Ok(())
    }
}

/// Options of the Arnoldi method with adaptive substeps ([`crate::Arnoldi`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArnoldiOptions {
    /// Requested accuracy at every output time.
    pub tol: Tolerance,
    /// Krylov dimension m per substep (Expokit's default is 30); capped at the problem size.
    pub krylov_dim: usize,
    /// Most accepted substeps before giving up.
    pub max_substeps: usize,
    /// Most rejected step-size trials in a row (each costs a small exponential, no products).
    pub max_rejections: usize,
    /// Most operator applications before giving up.
    pub max_matvecs: usize,
}

impl Default for ArnoldiOptions {
    fn default() -> Self {
        ArnoldiOptions {
            tol: Tolerance::default(),
            krylov_dim: 30,
            max_substeps: 10_000,
            max_rejections: 50,
            max_matvecs: 1_000_000,
        }
    }
}

impl ArnoldiOptions {
    pub(crate) fn validate<S: Scalar>(&self) -> Result<()> {
        self.tol.validate::<S>()?;
        if self.krylov_dim < 2 {
            return Err(Error::invalid("krylov_dim", self.krylov_dim, "must be ≥ 2"));
        }
        if self.max_substeps == 0 {
            return Err(Error::invalid("max_substeps", 0, "must be ≥ 1"));
        }
        if self.max_matvecs == 0 {
            return Err(Error::invalid("max_matvecs", 0, "must be ≥ 1"));
        }
        Ok(())
    }
}

/// What the Taylor method knows about the size of the operator.
///
/// The truncated Taylor method needs ‖A − μI‖ (Al-Mohy & Higham use ‖A‖₁ and the 1-norm
/// estimates d_p ≈ ‖(A − μI)^p‖₁^{1/p}). [`matexp_core::LinearOperator`] offers neither a
/// norm nor the adjoint the block 1-norm estimator needs, hence the choices below.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum NormBound {
    /// Hermitian operators with [`matexp_core::LinearOperator::spectral_bounds`]: the exact
    /// 2-norm max|λ − μ| (an upper bound if the bounds are). Otherwise
    /// [`NormBound::Estimate`] with 2 probes.
    #[default]
    Auto,
    /// An upper bound on ‖A − μI‖ in some consistent operator norm (‖A‖₁ from column
    /// sums, ‖A‖_∞ from row sums, …), μ being the shift in use. Safest and cheapest.
    Upper(f64),
    /// Estimate d_p = max over `probes` seeded random vectors x of (‖(A − μI)^p x‖₂/‖x‖₂)^{1/p},
    /// p = 1, …, 2(p_max + 1), times a safety factor 1.25; ‖A − μI‖ is taken as the largest
    /// d_p, and α_p = max(d_p, d_{p+1}, ρ̂) with ρ̂ the largest d_p beyond p_max + 1 (the power
    /// sequence's estimate of the spectral radius, a lower bound of every
    /// ‖(A − μI)^p‖^{1/p}). Without the factor these are lower bounds of the true
    /// ‖(A − μI)^p‖₂^{1/p} (like SciPy's `onenormest`: an estimate, not a bound). Cost
    /// 2·probes·(p_max + 1) products per call — for repeated calls, or small ‖tA‖ where this
    /// dominates, pass [`NormBound::Upper`].
    Estimate {
        /// Number of random probe vectors (≥ 1).
        probes: usize,
    },
}

/// The shift μ of the Taylor method: e^{tA}v = e^{tμ}·e^{t(A − μI)}v with ‖A − μI‖ < ‖A‖.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Shift {
    /// The midpoint of [`matexp_core::LinearOperator::spectral_bounds`] for Hermitian
    /// operators (minimizes ‖A − μI‖₂); no shift otherwise.
    #[default]
    Auto,
    /// No shift.
    None,
    /// A given shift, typically trace(A)/n (Al-Mohy & Higham's choice); real and imaginary
    /// parts. The imaginary part is ignored for real scalar types.
    Value(f64, f64),
}

/// Options of the truncated Taylor method ([`crate::Taylor`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TaylorOptions {
    /// Requested accuracy. `rtol` is the backward-error tolerance the θ_m table is computed
    /// for, and enters the early-termination test (with `atol`).
    pub tol: Tolerance,
    /// How ‖A − μI‖ is obtained.
    pub norm: NormBound,
    /// The shift μ.
    pub shift: Shift,
    /// Largest Taylor degree m_max (55 in the paper and SciPy).
    pub m_max: usize,
    /// Largest power p_max in the α_p estimates (8 in the paper and SciPy).
    pub p_max: usize,
    /// Most operator applications (the selected s·m* is checked before starting).
    pub max_matvecs: usize,
}

impl Default for TaylorOptions {
    fn default() -> Self {
        TaylorOptions {
            tol: Tolerance::default(),
            norm: NormBound::Auto,
            shift: Shift::Auto,
            m_max: 55,
            p_max: 8,
            max_matvecs: 10_000_000,
        }
    }
}

impl TaylorOptions {
    pub(crate) fn validate<S: Scalar>(&self) -> Result<()> {
        self.tol.validate::<S>()?;
        if !(1..=60).contains(&self.m_max) {
            return Err(Error::invalid("m_max", self.m_max, "must be in 1..=60"));
        }
        if self.p_max < 2 || self.p_max * (self.p_max - 1) > self.m_max + 1 {
            return Err(Error::invalid(
                "p_max",
                self.p_max,
                format!(
                    "must be ≥ 2 with p_max(p_max − 1) ≤ m_max + 1 = {}",
                    self.m_max + 1
                ),
            ));
        }
        match self.norm {
            NormBound::Upper(b) if !(b.is_finite() && b >= 0.0) => {
                return Err(Error::invalid(
                    "norm",
                    b,
                    "an upper bound must be finite and ≥ 0",
                ));
            }
            NormBound::Estimate { probes: 0 } => {
                return Err(Error::invalid("probes", 0, "must be ≥ 1"));
            }
            _ => {}
        }
        if let Shift::Value(re, im) = self.shift {
            if !(re.is_finite() && im.is_finite()) {
                return Err(Error::invalid(
                    "shift",
                    format!("{re}+{im}i"),
                    "must be finite",
                ));
            }
        }
        if self.max_matvecs == 0 {
            return Err(Error::invalid("max_matvecs", 0, "must be ≥ 1"));
        }
        Ok(())
    }
}
