//! Divided differences of `exp` and the φ-functions at (Leja) interpolation nodes.
//!
//! # The problem
//!
//! Newton interpolation of `f(hA)v` at Leja points needs the divided differences
//!
//! ```text
//! d_j = g[ξ_0, …, ξ_j],   g(ξ) = f(α + β·ξ),   j = 0..m,
//! ```
//!
//! of `f = φ_k` (`φ_0 = exp`, `φ_k(z) = Σ_{i≥0} z^i/(i+k)!`, `φ_{k+1}(z) = (φ_k(z) − 1/k!)/z`)
//! at real nodes `ξ_j` (typically Leja points of `[−2, 2]`, the interval of capacity 1), taken
//! with respect to `ξ`. For the real Leja method of `exp(hA)` with spectrum in `[a, b]`:
//! `c = (a+b)/2`, `γ = (b−a)/4`, `α = h·c`, `β = h·γ` ([`Affine::from_step`]). For
//! `exp(−itH)` on an imaginary focal interval, `α = −i·h·c`, `β = −i·h·γ` (complex, [`c64`]).
//! The divided differences with respect to `ξ` relate to those with respect to `z = α + βξ`
//! by `g[ξ_0..ξ_j] = β^j f[z_0..z_j]`.
//!
//! # Methods
//!
//! * [`Method::Recurrence`] — the Newton table of the seed (thesis Thm. 21):
//!   `d_0^{(j)} = g(ξ_j)`, `d_{i+1}^{(j)} = (d_i^{(j)} − d_i)/(ξ_j − ξ_i)`. `O(m²)` flops.
//! * [`Method::Stable`] — `d` is the first column of `exp(Z)` for the lower bidiagonal `Z`
//!   with `α + βξ_j` on the diagonal and `β` on the subdiagonal (Opitz; McCurdy, Ng & Parlett
//!   1984), computed by shifting, scaling `Z/s`, a componentwise-converged Taylor series of
//!   the banded `exp(Z/s)`, and `s` banded products (Caliari 2007, Zivcovich 2019). φ_k uses
//!   `φ_k[z_0..z_j] = exp[0,…,0, z_0..z_j]` with `k` extra zero nodes. Cost
//!   `O((s + T)·n·w)` flops, `n = m + k + 1`, `s = ⌈ν/θ⌉` with `ν ≈ |β|·(max ξ − min ξ)`
//!   (plus the distance to `0` for `k > 0`), `θ = 16` (real) or `3` (complex), `T, w ≤ ≈ 220`
//!   (Taylor terms, bandwidth of `exp(Z/s)`); memory `O(n·w)`. Repeated nodes are allowed
//!   (confluent divided differences).
//! * [`Method::Auto`] — `Recurrence` when the spread `ν = |β|·(max ξ − min ξ) ≤
//!   AUTO_RECURRENCE_MAX_SPREAD` (= 1) and the nodes are distinct and in Leja order (each
//!   node maximises, within a factor 4, the product of distances to its predecessors over the
//!   later nodes: an `O(m²)` test), `Stable` otherwise.
//!
//! # Accuracy (what the tests in `tests/` establish against 512-bit arithmetic)
//!
//! *Normwise* (error relative to `max_j |d_j|`): at Leja points of `[−2, 2]`, up to 100
//! points, real and imaginary `β` with `|β| ≤ 100`, φ_0…φ_4, **both** methods stay below
//! `1e−13` (measured: recurrence ≲ 3e−15, stable ≲ 3e−14). The recurrence is stable in this
//! sense *because* Leja ordering keeps `∏|ξ_j − ξ_i|` of order one (Reichel 1990); it is not
//! for other orderings: the same 100 points sorted ascending make it lose every digit
//! (errors 10^6…10^14 times `max|d_j|`), while the stable method stays below `1e−14`.
//!
//! *Componentwise* (error relative to each `|d_j|`): the coefficients decay to far below
//! `max |d_j|` once the interpolant converges, and the recurrence computes every coefficient
//! smaller than about `ε·max|d_j|` with no correct digit at all (measured errors up to
//! `10^{63}` times the coefficient). The stable method keeps each coefficient (down to
//! `1e−80·max|d_j|` in the tests) to ≈ `2e−14` relative for real `α, β` (all its arithmetic
//! is on numbers of one sign), and, measured, to ≈ `5e−13` for imaginary and complex `β`.
//! This is what matters when the sum `Σ d_j ω_j(A)v` is small compared with
//! `max|d_j|·‖v‖` — e.g. strongly damped diffusion, where `e^{hA}v ≪ v` and the stopping
//! test `|d_m|·‖ω_m(A)v‖ ≤ tol·‖p‖` would otherwise stagnate at `ε·max|d_j|·‖v‖`.
//! For `ν ≤ 1`, `max|g|/min|g| ≤ e`, so absolute accuracy `ε·max|d_j|` is relative
//! accuracy for any value of the interpolant, and `Auto` takes the cheaper recurrence.
//!
//! Overflow is reported, never returned as `inf`: when `|d_j|` exceeds the `f64` range the
//! functions return [`Error::NonFinite`] naming `j` and the magnitude. The stable method keeps
//! its arithmetic out of the (slow) subnormal range: coefficients below about `1e−290·max|d_j|`
//! may be returned as zero or without relative accuracy.
//!
//! # Example
//!
//! ```
//! use matexp_divdiff::{divided_differences, newton_eval, Affine, Function, Method};
//! use matexp_core::c64;
//!
//! // A few Leja points of [−2, 2].
//! let xi = [2.0, -2.0, 0.0, 1.1547005383792517, -1.1547005383792517];
//!
//! // Real case: exp(h(c + γξ)) with h = 0.1, spectrum [−40, 0] (c = −20, γ = 10).
//! let map = Affine::from_step(0.1, -20.0, 10.0)?;
//! let d = divided_differences(Function::Exp, map, &xi, Method::Auto)?;
//! // The Newton polynomial interpolates g at the nodes.
//! for &x in &xi {
//!     let g = (map.alpha + map.beta * x).exp();
//!     assert!((newton_eval(&d, &xi, x)? - g).abs() < 1e-14);
//! }
//!
//! // Imaginary case for exp(−iτH), spectrum of H in [−3, 5]: α = −iτc, β = −iτγ, φ_1.
//! let tau = 0.5;
//! let map = Affine::new(c64::new(0.0, -tau * 1.0), c64::new(0.0, -tau * 2.0));
//! let d1 = divided_differences(Function::Phi(1), map, &xi, Method::Stable)?;
//! assert!((d1[0] - matexp_divdiff::phi(1, map.alpha + map.beta * 2.0)?).norm() < 1e-15);
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod newton;
mod phi;
mod recurrence;
mod scalar;
mod stable;

pub use matexp_core::{Error, Result, c64};
pub use newton::newton_eval;
pub use scalar::DdScalar;

/// Largest number of nodes accepted (`m + 1 ≤ MAX_NODES`). The stable method's memory is
/// `O(n·w)` with `w ≤ ≈ 220`, i.e. ≈ 40 MB complex at the cap; Leja interpolation beyond a
/// few hundred points calls for substepping instead.
pub const MAX_NODES: usize = 10_000;

/// Largest φ-index `k` accepted (ExponentialUtilities' range). The pointwise values keep
/// about 13 digits up to here (scaling and modified squaring, see [`phi`]), and the stable
/// method's `k` extra zero nodes are cheap next to the interpolation nodes.
pub const MAX_PHI_ORDER: usize = 30;

/// Largest spread `ν = |β|·(max ξ − min ξ)` accepted by [`Method::Stable`]: its cost grows
/// linearly in `ν` (`s = ⌈ν/θ⌉` banded products of `≈ 220·n` multiply-adds each, i.e.
/// `≈ 14·ν·n` flops for real data (θ = 16), `≈ 70·ν·n` for complex (θ = 3): well under a
/// second for `ν = 10⁴`, `n = 500` on one core). Larger spreads
/// mean the step must be subdivided anyway (interpolation at `m` Leja points only converges
/// for `ν ≲ 4m`).
pub const MAX_SPREAD: f64 = 1.0e6;

/// Spread `ν = |β|·(max ξ − min ξ)` up to which [`Method::Auto`] uses the recurrence.
pub const AUTO_RECURRENCE_MAX_SPREAD: f64 = 1.0;

/// The function whose divided differences are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `exp` (= `φ_0`).
    Exp,
    /// `φ_k(z) = Σ_{i≥0} z^i/(i+k)!`, `0 ≤ k ≤ MAX_PHI_ORDER`.
    Phi(usize),
}

impl Function {
    /// The φ-index `k` (`0` for `exp`).
    pub fn order(self) -> usize {
        match self {
            Function::Exp => 0,
            Function::Phi(k) => k,
        }
    }
}

/// How the divided differences are computed (see the crate documentation for accuracy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// Recurrence for small spreads and distinct nodes, stable method otherwise.
    #[default]
    Auto,
    /// The plain Newton table (the seed's algorithm), `O(m²)`.
    Recurrence,
    /// First column of `exp` of the bidiagonal node matrix, by Taylor and repeated products.
    Stable,
}

/// The affine argument map `ξ ↦ α + β·ξ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine<T> {
    /// Shift `α` (`h·c`).
    pub alpha: T,
    /// Scale `β` (`h·γ`).
    pub beta: T,
}

impl<T: DdScalar> Affine<T> {
    /// `ξ ↦ α + β·ξ`. Finiteness is checked when the map is used.
    pub fn new(alpha: T, beta: T) -> Self {
        Affine { alpha, beta }
    }

    /// The Leja-method map `ξ ↦ h·(c + γ·ξ)` for a step `h`, interval centre `c` and
    /// quarter-length `γ` (capacity) of the focal interval.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming `h`, `c` or `gamma` when one is not finite, or
    /// `alpha`/`beta` when the product overflows.
    pub fn from_step(h: f64, c: T, gamma: T) -> Result<Self> {
        if !h.is_finite() {
            return Err(Error::invalid("h", h, "the step must be finite"));
        }
        if !c.finite() {
            return Err(Error::invalid("c", c, "the interval centre must be finite"));
        }
        if !gamma.finite() {
            return Err(Error::invalid(
                "gamma",
                gamma,
                "the capacity must be finite",
            ));
        }
        let map = Affine {
            alpha: c.scale(h),
            beta: gamma.scale(h),
        };
        map.check()?;
        Ok(map)
    }

    /// `α + β·ξ`.
    pub fn at(&self, xi: f64) -> T {
        self.alpha + self.beta.scale(xi)
    }

    fn check(&self) -> Result<()> {
        if !self.alpha.finite() {
            return Err(Error::invalid("alpha", self.alpha, "must be finite"));
        }
        if !self.beta.finite() {
            return Err(Error::invalid("beta", self.beta, "must be finite"));
        }
        Ok(())
    }
}

/// Divided differences together with how they were obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct DividedDifferences<T> {
    /// `d_j = g[ξ_0..ξ_j]`, `j = 0..m`.
    pub values: Vec<T>,
    /// The method that ran ([`Method::Recurrence`] or [`Method::Stable`], never `Auto`).
    pub method: Method,
    /// Number of banded products `s` of the stable method (0 for the recurrence).
    pub substeps: usize,
    /// Bandwidth of `exp(Z/s)` kept by the stable method (0 for the recurrence).
    pub bandwidth: usize,
    /// The spread `ν = |β|·(max ξ − min ξ)`.
    pub spread: f64,
}

/// `d_j = g[ξ_0..ξ_j]` for `g(ξ) = f(α + β·ξ)`, `j = 0..nodes.len()−1`.
///
/// # Errors
///
/// [`Error`]: empty `nodes` or more than [`MAX_NODES`] (`InvalidArgument`,
/// `nodes`); a NaN or infinite node (`NonFinite`, with its index); non-finite `α`/`β`
/// (`InvalidArgument`); `k > MAX_PHI_ORDER` (`InvalidArgument`, `k`); repeated nodes with
/// [`Method::Recurrence`] (`InvalidArgument`, `nodes`); spread above [`MAX_SPREAD`] with
/// [`Method::Stable`] (`InvalidArgument`, `beta`); a result beyond the `f64` range
/// (`NonFinite`, naming the coefficient and its magnitude).
pub fn divided_differences<T: DdScalar>(
    f: Function,
    map: Affine<T>,
    nodes: &[f64],
    method: Method,
) -> Result<Vec<T>> {
    divided_differences_detailed(f, map, nodes, method).map(|d| d.values)
}

/// As [`divided_differences`], also reporting the method used, the number of products and
/// the spread.
///
/// # Errors
///
/// As [`divided_differences`].
pub fn divided_differences_detailed<T: DdScalar>(
    f: Function,
    map: Affine<T>,
    nodes: &[f64],
    method: Method,
) -> Result<DividedDifferences<T>> {
    let k = check_order(f)?;
    map.check()?;
    let (lo, hi) = check_nodes(nodes)?;
    let spread = map.beta.modulus() * (hi - lo);
    let method = match method {
        Method::Auto => auto_choice(spread, nodes),
        m => m,
    };
    match method {
        Method::Recurrence => Ok(DividedDifferences {
            values: recurrence::recurrence(k, map, nodes)?,
            method,
            substeps: 0,
            bandwidth: 0,
            spread,
        }),
        _ => {
            if spread > MAX_SPREAD {
                return Err(Error::invalid(
                    "beta",
                    map.beta,
                    format!(
                        "spread |β|·(max ξ − min ξ) = {spread:e} exceeds MAX_SPREAD = {MAX_SPREAD:e}; \
                         subdivide the step"
                    ),
                ));
            }
            // φ_k adds k nodes at z = 0: the distance from 0 to the nodes counts as spread too.
            let reach = map.at(lo).modulus().max(map.at(hi).modulus());
            if k > 0 && reach > MAX_SPREAD {
                return Err(Error::invalid(
                    "alpha",
                    map.alpha,
                    format!(
                        "φ_{k} divided differences need the nodes α + βξ within MAX_SPREAD = \
                         {MAX_SPREAD:e} of 0 (found {reach:e}); subdivide the step"
                    ),
                ));
            }
            let out = stable::stable(k, map, nodes)?;
            Ok(DividedDifferences {
                values: out.values,
                method: Method::Stable,
                substeps: out.substeps,
                bandwidth: out.bandwidth,
                spread,
            })
        }
    }
}

/// The method [`Method::Auto`] picks for these nodes and map (the argument is returned
/// unchanged when it is not `Auto`).
///
/// # Errors
///
/// As [`divided_differences`], for invalid nodes or map.
pub fn resolve_method<T: DdScalar>(
    method: Method,
    map: Affine<T>,
    nodes: &[f64],
) -> Result<Method> {
    map.check()?;
    let (lo, hi) = check_nodes(nodes)?;
    let spread = map.beta.modulus() * (hi - lo);
    Ok(match method {
        Method::Auto => auto_choice(spread, nodes),
        m => m,
    })
}

/// `φ_k(z)` (with `φ_0 = exp`), to about 14 digits for `k ≤ 4` and 13 (real `z`) or 12
/// (complex `z`) up to [`MAX_PHI_ORDER`]: for `|z| < max(2, 2k)` by the series at
/// `z/2^s` (`|z/2^s| ≤ 1/2`) and `s` modified squarings
/// `φ_j(2w) = 2^{−j}[e^w φ_j(w) + Σ_{i=1}^{j} φ_i(w)/(j−i)!]`, whose terms are all positive
/// for real `z`; beyond, `e^z` and the upward recurrence `φ_{l+1} = (φ_l − 1/l!)/z`.
/// Cost `O(k²·log k)` flops.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for `k > MAX_PHI_ORDER` or a non-finite `z`,
/// [`Error::NonFinite`] when `φ_k(z)` overflows.
///
/// ```
/// let z = -3.0_f64;
/// let p2 = matexp_divdiff::phi(2, z)?;
/// assert!((p2 - (z.exp() - 1.0 - z) / (z * z)).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn phi<T: DdScalar>(k: usize, z: T) -> Result<T> {
    check_order(Function::Phi(k))?;
    if !z.finite() {
        return Err(Error::invalid("z", z, "must be finite"));
    }
    let v = phi::phi_value(k, z);
    if !v.finite() {
        return Err(Error::NonFinite {
            context: format!("φ_{k}({z}) overflows f64"),
            index: 0,
            value: format!("{v}"),
        });
    }
    Ok(v)
}

fn check_order(f: Function) -> Result<usize> {
    let k = f.order();
    if k > MAX_PHI_ORDER {
        return Err(Error::invalid(
            "k",
            k,
            format!("φ_k is supported for k ≤ {MAX_PHI_ORDER}"),
        ));
    }
    Ok(k)
}

/// Validates the nodes and returns `(min ξ, max ξ)`.
fn check_nodes(nodes: &[f64]) -> Result<(f64, f64)> {
    if nodes.is_empty() {
        return Err(Error::invalid(
            "nodes",
            "[]",
            "at least one node is required",
        ));
    }
    if nodes.len() > MAX_NODES {
        return Err(Error::invalid(
            "nodes",
            format!("{} nodes", nodes.len()),
            format!("at most MAX_NODES = {MAX_NODES} nodes are supported"),
        ));
    }
    if let Some(i) = nodes.iter().position(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            context: "divided differences: nodes".into(),
            index: i,
            value: format!("{}", nodes[i]),
        });
    }
    Ok(nodes
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        }))
}

fn auto_choice(spread: f64, nodes: &[f64]) -> Method {
    if spread <= AUTO_RECURRENCE_MAX_SPREAD && leja_ordered(nodes) {
        Method::Recurrence
    } else {
        Method::Stable
    }
}

/// Slack of the Leja-order test in [`leja_ordered`].
const LEJA_SLACK: f64 = 4.0;

/// Whether the nodes are distinct and (up to a factor [`LEJA_SLACK`]) in Leja order with
/// respect to their own set: `∏_{i<j}|ξ_l − ξ_i| ≤ LEJA_SLACK · ∏_{i<j}|ξ_j − ξ_i|` for all
/// `l > j`. Exact and fast Leja sequences pass; sorted or random orderings fail, and for them
/// the recurrence amplifies rounding errors exponentially in `m` (see the tests), so `Auto`
/// takes the stable method. `O(m²)` logarithms, computed in the log domain to avoid overflow.
fn leja_ordered(nodes: &[f64]) -> bool {
    let slack = LEJA_SLACK.ln();
    // log_omega[l] = Σ_{i<j} ln|ξ_l − ξ_i| for the current j.
    let mut log_omega = vec![0.0f64; nodes.len()];
    for j in 0..nodes.len() {
        let pj = log_omega[j];
        if pj == f64::NEG_INFINITY {
            return false; // ξ_j repeats an earlier node
        }
        for l in j + 1..nodes.len() {
            if log_omega[l] > pj + slack {
                return false;
            }
            log_omega[l] += (nodes[l] - nodes[j]).abs().ln();
        }
    }
    true
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
