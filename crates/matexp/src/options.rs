//! The options of every facade call.

use crate::Method;
use matexp_expmv::{
    ArnoldiOptions, LanczosOptions, LejaOptions, MethodOptions, TaylorOptions, Tolerance,
};

/// Options of [`crate::expmv`] and the other facade calls: the method, the tolerance, and the
/// fine options of each method, built one way for all of them.
///
/// The default (`Options::default()`) works for every scalar type: [`Method::Auto`] and a
/// tolerance chosen by the precision (rtol 10⁻⁸ for `f64`/`c64`, 10⁻³ for `f32`/`c32`,
/// [`Tolerance::default_rtol`]). The tolerance given here replaces the one inside the
/// per-method options. The cost cap `max_products` and the `progress` callback
/// ([`crate::ProgressFn`]) are fine options of every method: set them in the method's
/// options (`with_lanczos(LanczosOptions { max_products: …, ..Default::default() })`).
///
/// ```
/// use matexp::{Method, Options, LanczosOptions};
/// let opts = Options::default()
///     .with_method(Method::Lanczos)
///     .with_rtol(1e-10)
///     .with_lanczos(LanczosOptions { two_pass: true, ..Default::default() });
/// assert_eq!(opts.method, Method::Lanczos);
/// assert_eq!(opts.tol.rtol, 1e-10);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// The algorithm ([`Method::Auto`] by default).
    pub method: Method,
    /// The requested accuracy: ‖w − f(tA)v‖₂ ≲ atol + rtol·‖f(tA)v‖₂.
    pub tol: Tolerance,
    /// Fine options of the Leja method (their tolerance is replaced by `tol`).
    pub leja: LejaOptions,
    /// Fine options of the Lanczos method (their tolerance is replaced by `tol`).
    pub lanczos: LanczosOptions,
    /// Fine options of the Arnoldi method (their tolerance is replaced by `tol`).
    pub arnoldi: ArnoldiOptions,
    /// Fine options of the Taylor method (their tolerance is replaced by `tol`).
    pub taylor: TaylorOptions,
}

impl Options {
    /// The defaults: [`Method::Auto`], tolerance by precision.
    pub fn new() -> Self {
        Self::default()
    }

    /// These options with method `method`.
    pub fn with_method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

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
    pub fn with_tolerance(mut self, tol: Tolerance) -> Self {
        self.tol = tol;
        self
    }

    /// These options with the Leja method's fine options.
    pub fn with_leja(mut self, leja: LejaOptions) -> Self {
        self.leja = leja;
        self
    }

    /// These options with the Lanczos method's fine options.
    pub fn with_lanczos(mut self, lanczos: LanczosOptions) -> Self {
        self.lanczos = lanczos;
        self
    }

    /// These options with the Arnoldi method's fine options.
    pub fn with_arnoldi(mut self, arnoldi: ArnoldiOptions) -> Self {
        self.arnoldi = arnoldi;
        self
    }

    /// These options with the Taylor method's fine options.
    pub fn with_taylor(mut self, taylor: TaylorOptions) -> Self {
        self.taylor = taylor;
        self
    }

    /// The options of one method with this tolerance.
    pub(crate) fn for_method<O: MethodOptions>(&self, fine: &O) -> O {
        let mut o = fine.clone();
        o.set_tolerance(self.tol);
        o
    }
}
