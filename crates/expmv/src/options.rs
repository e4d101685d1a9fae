//! Options of the f(tA)v methods.

use matexp_core::{Error, RealScalar, Result, Scalar};

/// Safety factor of the rounding floor of every error estimate,
/// `ROUNDING_FACTOR·ε·(1 + products)·‖w‖₂` (see [`crate::ExpmvMethod::finish`]): the smallest power
/// of two with which the estimates bound the rounding-dominated errors of the accuracy
/// suite (φ₄ of a stiff Laplacian by Arnoldi needs ≈ 50).
pub const ROUNDING_FACTOR: f64 = 64.0;

/// The accuracy requested of a result w ≈ f(tA)v:
/// ‖w − f(tA)v‖₂ ≤ `atol` + `rtol`·‖f(tA)v‖₂ (as estimated by each method).
///
/// The default leaves `rtol` to the precision of the computation:
/// [`Tolerance::default_rtol`] gives 10⁻⁸ for `f64`/`c64` and 10⁻³ for `f32`/`c32`, with
/// `atol = 0`: tolerances a report can certify, since every estimate carries the rounding
/// floor [`crate::ROUNDING_FACTOR`]·ε·(1 + products) (relative), which stays below 10⁻⁸ in
/// double precision up to about 7·10⁵ products and below 10⁻³ in single precision up to
/// about 130 (beyond, the report says not converged: see [`crate::Report`]). A
/// tolerance built with [`Tolerance::relative`], [`Tolerance::new`] or
/// [`Tolerance::with_rtol`] is taken as given.
///
/// ```
/// use matexp_expmv::Tolerance;
/// assert_eq!(Tolerance::default().resolve::<f32>()?.rtol, 1e-3);
/// assert_eq!(Tolerance::default().resolve::<f64>()?.rtol, 1e-8);
/// // Below the roundoff of the scalar type: an error that says what to do.
/// let err = Tolerance::relative(1e-10).resolve::<f32>().unwrap_err();
/// assert!(err.to_string().contains("f64"));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance; must be finite, > 0, and not below the unit roundoff of the scalar
    /// type (≈ 6e−8 for `f32`, 1.1e−16 for `f64`). The default holds the double-precision
    /// value until [`Tolerance::resolve`] fills in the one of the precision in use.
    pub rtol: f64,
    /// Absolute tolerance; finite and ≥ 0.
    pub atol: f64,
    /// Whether `rtol` is still the default, to be chosen by the precision.
    by_precision: bool,
}

/// The default relative tolerance in double precision.
const DOUBLE_RTOL: f64 = 1e-8;
/// The default relative tolerance in single precision: 64·ε·(1 + p) ≤ 10⁻³ for p ≤ 130
/// products (ε = 2⁻²³), where 10⁻⁵ was below the rounding floor of a single product.
const SINGLE_RTOL: f64 = 1e-3;

impl Default for Tolerance {
    /// `rtol` by precision ([`Tolerance::default_rtol`]), `atol = 0`.
    fn default() -> Self {
        Tolerance::by_precision()
    }
}

impl Tolerance {
    /// `rtol` chosen by the precision of the computation ([`Tolerance::default_rtol`]),
    /// `atol = 0`; the same as `Tolerance::default()`.
    pub const fn by_precision() -> Self {
        Tolerance {
            rtol: DOUBLE_RTOL,
            atol: 0.0,
            by_precision: true,
        }
    }

    /// A purely relative tolerance.
    pub const fn relative(rtol: f64) -> Self {
        Tolerance {
            rtol,
            atol: 0.0,
            by_precision: false,
        }
    }

    /// Relative and absolute tolerances.
    pub const fn new(rtol: f64, atol: f64) -> Self {
        Tolerance {
            rtol,
            atol,
            by_precision: false,
        }
    }

    /// The same tolerance with relative part `rtol`.
    pub const fn with_rtol(self, rtol: f64) -> Self {
        Tolerance {
            rtol,
            by_precision: false,
            ..self
        }
    }

    /// The same tolerance with absolute part `atol`.
    pub const fn with_atol(self, atol: f64) -> Self {
        Tolerance { atol, ..self }
    }

    /// The requested relative tolerance, `None` while it is left to the precision (then
    /// [`Tolerance::resolve`] fills in [`Tolerance::default_rtol`]).
    pub fn rtol(&self) -> Option<f64> {
        (!(self.by_precision && self.rtol == DOUBLE_RTOL)).then_some(self.rtol)
    }

    /// The absolute tolerance.
    pub fn atol(&self) -> f64 {
        self.atol
    }

    /// The relative tolerance used when none is given: 10⁻⁸ in double precision, 10⁻³ in
    /// single precision (unit roundoff 6·10⁻⁸; see [`Tolerance`] for why).
    pub fn default_rtol<S: Scalar>() -> f64 {
        if S::Real::EPS.as_f64() > 1e-10 {
            SINGLE_RTOL
        } else {
            DOUBLE_RTOL
        }
    }

    /// The tolerance for computations in scalar type `S`: the default `rtol` replaced by the
    /// one of the precision, and checked.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] when `rtol` is not finite and > 0, is below the unit
    /// roundoff of `S` (the message names the smallest usable value and the default), or
    /// `atol` is not finite and ≥ 0.
    pub fn resolve<S: Scalar>(&self) -> Result<Tolerance> {
        // A default whose rtol was assigned through the public field counts as given.
        let rtol = self.rtol().unwrap_or_else(Self::default_rtol::<S>);
        let u = S::Real::EPS.as_f64() / 2.0;
        if !(rtol.is_finite() && rtol > 0.0) {
            return Err(Error::invalid("rtol", rtol, "must be finite and > 0"));
        }
        if rtol < u {
            let higher = if S::IS_COMPLEX { "c64" } else { "f64" };
            return Err(Error::invalid(
                "rtol",
                rtol,
                format!(
                    "is below the unit roundoff {u:.2e} of {}: no result can be certified \
                     there; ask for rtol ≥ {:.0e} (the rounding floor at a hundred \
                     products; the default is {:.0e} for {}), or compute in {higher}",
                    S::NAME,
                    (ROUNDING_FACTOR * 100.0 * 2.0 * u).max(1e-13),
                    Self::default_rtol::<S>(),
                    S::NAME,
                ),
            ));
        }
        if !(self.atol.is_finite() && self.atol >= 0.0) {
            return Err(Error::invalid("atol", self.atol, "must be finite and ≥ 0"));
        }
        Ok(Tolerance::new(rtol, self.atol))
    }

    /// Checks the tolerance for computations in scalar type `S`.
    ///
    /// # Errors
    ///
    /// As [`Tolerance::resolve`].
    pub fn validate<S: Scalar>(&self) -> Result<()> {
        self.resolve::<S>().map(|_| ())
    }

    /// The error allowed for a result of norm `scale`: atol + rtol·scale (the integrators
    /// measure their local errors against it).
    pub fn bound(&self, scale: f64) -> f64 {
        self.atol + self.rtol * scale
    }
}

/// What the options of every f(tA)v method share: a [`Tolerance`], builder methods and
/// validation for a scalar type. Implemented by [`LejaOptions`](crate::LejaOptions),
/// [`LanczosOptions`], [`ArnoldiOptions`] and [`TaylorOptions`], which also have the
/// builder methods `with_rtol`, `with_atol` and `with_tolerance` without importing this
/// trait.
pub trait MethodOptions: Clone + std::fmt::Debug + Default + Send + Sync {
    /// The requested accuracy.
    fn tolerance(&self) -> Tolerance;
    /// Replaces the requested accuracy.
    fn set_tolerance(&mut self, tol: Tolerance);
    /// Checks every option for computations in scalar type `S` and returns the options with
    /// the tolerance resolved ([`Tolerance::resolve`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the first option out of its domain.
    fn resolved<S: Scalar>(&self) -> Result<Self>;
    /// Hands the method spectral bounds already found (by an earlier call on the same
    /// operator) so that it does not estimate them again; methods that take no bounds ignore
    /// them. Used by the probe of the propagated error.
    fn reuse_bounds(&mut self, _bounds: matexp_core::SpectralBounds) {}
}

/// Inherent builder methods and the [`MethodOptions`] impl of an options struct with a
/// `tol` field and a `check` method.
macro_rules! method_options {
    ($ty:ty $(, $bounds:ident)?) => {
        impl $ty {
            /// These options with relative tolerance `rtol` (the absolute one is kept).
            pub fn with_rtol(mut self, rtol: f64) -> Self {
                self.tol = self.tol.with_rtol(rtol);
                self
            }

            /// These options with absolute tolerance `atol` (the relative one is kept).
            pub fn with_atol(mut self, atol: f64) -> Self {
                self.tol = self.tol.with_atol(atol);
                self
            }

            /// These options with tolerance `tol`.
            pub fn with_tolerance(mut self, tol: $crate::Tolerance) -> Self {
                self.tol = tol;
                self
            }
        }

        impl $crate::MethodOptions for $ty {
            fn tolerance(&self) -> $crate::Tolerance {
                self.tol
            }

            fn set_tolerance(&mut self, tol: $crate::Tolerance) {
                self.tol = tol;
            }

            fn resolved<S: matexp_core::Scalar>(&self) -> matexp_core::Result<Self> {
                let mut o = self.clone();
                o.tol = self.tol.resolve::<S>()?;
                o.check()?;
                Ok(o)
            }

            $(
                fn reuse_bounds(&mut self, bounds: matexp_core::SpectralBounds) {
                    self.$bounds = Some(bounds);
                }
            )?
        }
    };
}
pub(crate) use method_options;

/// Where a long call stands: passed to the `progress` callback of
/// [`LejaOptions`](crate::LejaOptions), [`LanczosOptions`], [`ArnoldiOptions`] and
/// [`TaylorOptions`] as the call advances (after every substep; Lanczos: at every
/// convergence check).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Operator applications so far.
    pub products: usize,
    /// The up-front estimate of the products of the whole call.
    pub estimated_products: usize,
    /// Fraction of the time range reached, in [0, 1] (|t_reached| / |t_last|). Lanczos builds
    /// one basis for all times and reaches them together: 0 until it has converged, then 1
    /// (with substeps: the fraction of τ done after each substep).
    pub fraction: f64,
}

/// A progress callback (a plain function, so options stay `Copy`; send the figures on
/// through a channel or an atomic in a `static` when they are needed elsewhere).
#[derive(Clone, Copy)]
pub struct ProgressFn(pub fn(&Progress));

impl std::fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressFn(..)")
    }
}

impl PartialEq for ProgressFn {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

method_options!(LanczosOptions);
method_options!(ArnoldiOptions);
method_options!(TaylorOptions);

/// Options of the Lanczos method ([`crate::Lanczos`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LanczosOptions {
    /// Requested accuracy.
    pub tol: Tolerance,
    /// Largest Krylov dimension (matrix–vector products) before giving up.
    pub max_dim: usize,
    /// Check convergence every this many steps at first; the interval then grows to about
    /// 10 % of the current dimension, so small eigensolves stay a small part of the work,
    /// and shrinks to the predicted convergence point once the estimates fall (so the
    /// overshoot past convergence is a few steps, not the interval). The coefficients reach
    /// the host only at checks (one synchronization each on a GPU).
    pub check_every: usize,
    /// Two-pass mode: the first pass only builds T (three vectors of storage), the second
    /// regenerates the basis from the stored α, β and accumulates Q·y. Twice the products,
    /// O(n) memory instead of O(n·k); results agree with the one-pass mode to rounding.
    pub two_pass: bool,
    /// Shorthand kept for compatibility: `true` forces full reorthogonalization from the
    /// first step, as [`Reorthogonalize::Always`] in `reorthogonalization` (which it
    /// overrides); `false` leaves the choice to `reorthogonalization`.
    pub reorthogonalize: bool,
    /// When the basis is reorthogonalized (default [`Reorthogonalize::Auto`]: where the loss
    /// of orthogonality is found harmful, see [`crate::Lanczos`]).
    pub reorthogonalization: Reorthogonalize,
    /// Most substeps e^{τ_s A}…e^{τ_1 A}v when a single e^{τA}v needs a Krylov dimension above
    /// `max_dim` (see [`crate::Lanczos`]); 1 turns substeps off, and so does
    /// `allow_unconverged`. φ-functions and several output times never take substeps.
    pub max_substeps: usize,
    /// Run even if the operator does not report [`matexp_core::LinearOperator::is_hermitian`]
    /// (the caller vouches for it).
    pub assume_hermitian: bool,
    /// Return the result reached at `max_dim` with `Report::converged = false` instead of
    /// [`Error::NoConvergence`] (not when `max_products` stops the call). Turns substeps off:
    /// the result at `max_dim` is what is asked for (e.g. a fixed Krylov dimension).
    pub allow_unconverged: bool,
    /// Cost cap: most operator applications per call; default unlimited. A call whose
    /// up-front estimate ([`crate::Report::cost_estimate`]; the Krylov dimension predicted by the Hochbruck–Lubich bounds, see [`crate::Lanczos`]) exceeds twice the cap is
    /// refused before the work it estimates, one that reaches the cap stops there; both with
    /// [`Error::NoConvergence`] naming `max_products`, never a partial result.
    pub max_products: usize,
    /// Called at every convergence check and at the end with the products so far
    /// ([`Progress::fraction`] is 0 until the basis has converged, then 1; with substeps,
    /// after every substep with the fraction of τ done, and at the end). A
    /// φ-combination builds one basis per nonzero b_j: the figures, and `max_products`,
    /// apply to each basis.
    pub progress: Option<ProgressFn>,
}

impl Default for LanczosOptions {
    fn default() -> Self {
        LanczosOptions {
            tol: Tolerance::default(),
            max_dim: 500,
            check_every: 4,
            two_pass: false,
            reorthogonalize: false,
            reorthogonalization: Reorthogonalize::Auto,
            max_substeps: 10_000,
            assume_hermitian: false,
            allow_unconverged: false,
            max_products: usize::MAX,
            progress: None,
        }
    }
}

impl LanczosOptions {
    fn check(&self) -> Result<()> {
        if self.max_dim == 0 {
            return Err(Error::invalid("max_dim", 0, "must be ≥ 1"));
        }
        if self.check_every == 0 {
            return Err(Error::invalid("check_every", 0, "must be ≥ 1"));
        }
        if self.max_products == 0 {
            return Err(Error::invalid("max_products", 0, "must be ≥ 1"));
        }
        if self.max_substeps == 0 {
            return Err(Error::invalid("max_substeps", 0, "must be ≥ 1"));
        }
        if self.two_pass && self.reorthogonalize {
            return Err(Error::invalid(
                "reorthogonalize",
                true,
                "needs the stored basis; it cannot be combined with two_pass",
            ));
        }
        if self.two_pass && self.reorthogonalization == Reorthogonalize::Always {
            return Err(Error::invalid(
                "reorthogonalization",
                "Always",
                "needs the stored basis; it cannot be combined with two_pass",
            ));
        }
        Ok(())
    }

    /// The reorthogonalization that applies: `Always` if `reorthogonalize` is set, `Never`
    /// for `Auto` in two-pass mode (no stored basis to orthogonalize against), otherwise
    /// `reorthogonalization`.
    pub fn effective_reorthogonalization(&self) -> Reorthogonalize {
        match (
            self.reorthogonalize,
            self.two_pass,
            self.reorthogonalization,
        ) {
            (true, _, _) => Reorthogonalize::Always,
            (false, true, Reorthogonalize::Auto) => Reorthogonalize::Never,
            (false, _, r) => r,
        }
    }
}

/// When [`crate::Lanczos`] reorthogonalizes its basis ([`LanczosOptions::reorthogonalization`]).
///
/// Full reorthogonalization (one modified Gram–Schmidt sweep of the new vector against the
/// stored basis) costs O(n·k) per step and forms each step from host scalars (on a GPU, a
/// synchronization per step). Without it the Lanczos vectors lose orthogonality once Ritz
/// values converge; for exp the result usually stays accurate, but stiff operators (‖A‖ ≫
/// the eigenvalues that matter, e.g. a spectrum in [−1e6, 0]) stall: ghost copies of
/// converged eigenvalues keep the estimate up until `max_dim`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reorthogonalize {
    /// Plain three-term Lanczos (the fused steps of [`matexp_core::Backend::lanczos_step`]).
    Never,
    /// Plain Lanczos (the fused steps) while the loss of orthogonality is harmless; when the
    /// ω-recurrence estimate of it (Paige, Simon) has passed 10⁻², T_k shows ghosts (repeated
    /// Ritz values) and a restart pays, the iteration goes back to the step where the
    /// estimate passed min(√ε, rtol) and continues with full reorthogonalization (the
    /// products since are spent). Falls back to `Never` in two-pass mode, which stores no
    /// basis. Details and measurements in [`crate::Lanczos`].
    #[default]
    Auto,
    /// Full reorthogonalization from the first step (one-pass mode only).
    Always,
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
    /// Most operator applications before giving up (checked before each substep; see also
    /// `max_products`).
    pub max_matvecs: usize,
    /// Cost cap: most operator applications per call; default unlimited. A call whose
    /// up-front estimate ([`crate::Report::cost_estimate`]; the substeps the step-size rule plans from the first Krylov basis, times m + 1; made after that basis, see [`crate::Arnoldi`]) exceeds twice the cap is
    /// refused before the work it estimates, one that reaches the cap stops there; both with
    /// [`Error::NoConvergence`] naming `max_products`, never a partial result.
    pub max_products: usize,
    /// Called after every accepted substep with the products so far and the time reached.
    pub progress: Option<ProgressFn>,
}

impl Default for ArnoldiOptions {
    fn default() -> Self {
        ArnoldiOptions {
            tol: Tolerance::default(),
            krylov_dim: 30,
            max_substeps: 10_000,
            max_rejections: 50,
            max_matvecs: 1_000_000,
            max_products: usize::MAX,
            progress: None,
        }
    }
}

impl ArnoldiOptions {
    fn check(&self) -> Result<()> {
        if self.krylov_dim < 2 {
            return Err(Error::invalid("krylov_dim", self.krylov_dim, "must be ≥ 2"));
        }
        if self.max_substeps == 0 {
            return Err(Error::invalid("max_substeps", 0, "must be ≥ 1"));
        }
        if self.max_matvecs == 0 {
            return Err(Error::invalid("max_matvecs", 0, "must be ≥ 1"));
        }
        if self.max_products == 0 {
            return Err(Error::invalid("max_products", 0, "must be ≥ 1"));
        }
        Ok(())
    }
}

/// What the Taylor method knows about the size of the operator.
///
/// The truncated Taylor method needs ‖A − μI‖ (Al-Mohy & Higham use ‖A‖₁ and the 1-norm
/// estimates d_p ≈ ‖(A − μI)^p‖₁^{1/p}). [`matexp_core::LinearOperator`] offers an optional
/// norm bound but not the adjoint the block 1-norm estimator needs, hence the choices below.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum NormBound {
    /// Hermitian operators with [`matexp_core::LinearOperator::spectral_bounds`]: the exact
    /// 2-norm max|λ − μ| (an upper bound if the bounds are). Otherwise
    /// [`matexp_core::LinearOperator::norm_bound`] plus |μ| where the operator knows a
    /// bound, and [`NormBound::Estimate`] with 2 probes where it does not.
    #[default]
    Auto,
    /// An upper bound on ‖A − μI‖ in the 1-, 2-, ∞- or Frobenius norm (‖A‖₁ from column
    /// sums, ‖A‖_∞ from row sums, …), μ being the shift in use. Safest and cheapest. The
    /// series' own terms check it at no cost: a value they prove too small (by more than the
    /// factor n^{1/j} the choice of norm allows at power j) is [`Error::InvalidArgument`]
    /// naming `norm`, never a silently truncated series.
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
        /// Number of random probe vectors, 1 to [`MAX_NORM_PROBES`] (each is a vector of
        /// the operator's order, kept in the workspace).
        probes: usize,
    },
}

/// The most probe vectors [`NormBound::Estimate`] takes: the estimate is a maximum over
/// probes and settles after a few (SciPy's 1-norm estimator uses 2); more would only cost
/// 2·(p_max + 1) products and one vector of memory each.
pub const MAX_NORM_PROBES: usize = 64;

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
    /// Cost cap: most operator applications per call; default unlimited. A call whose
    /// up-front estimate ([`crate::Report::cost_estimate`]; the norm estimate's products plus Σ s·m* over the output intervals, an upper bound known before the first series product, see [`crate::Taylor`]) exceeds twice the cap is
    /// refused before the work it estimates, one that reaches the cap stops there; both with
    /// [`Error::NoConvergence`] naming `max_products`, never a partial result.
    pub max_products: usize,
    /// Called after every scaling step with the products so far and the time reached.
    pub progress: Option<ProgressFn>,
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
            max_products: usize::MAX,
            progress: None,
        }
    }
}

impl TaylorOptions {
    fn check(&self) -> Result<()> {
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
            NormBound::Estimate { probes } if !(1..=MAX_NORM_PROBES).contains(&probes) => {
                return Err(Error::invalid(
                    "probes",
                    probes,
                    format!("must be in 1..={MAX_NORM_PROBES} (NormBound::Estimate)"),
                ));
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
        if self.max_products == 0 {
            return Err(Error::invalid("max_products", 0, "must be ≥ 1"));
        }
        Ok(())
    }
}
