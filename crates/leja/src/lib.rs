//! Potential theory for polynomial interpolation of matrix functions: logarithmic capacity,
//! the affine maps of real and imaginary intervals, and Leja points. Spectral bounds of
//! operators (Gershgorin, Lanczos, power iteration) are estimated by
//! `matexp_expmv::spectrum`; the tridiagonal eigensolver is `matexp-dense`'s.
//!
//! # The mathematics
//!
//! **Capacity.** The logarithmic capacity `c(K)` of a compact set `K ⊂ ℂ` measures its size
//! for polynomial approximation: for monic polynomials of degree `n`, `min ‖p‖_K ≈ c(K)ⁿ`.
//! It is affine-covariant, `c(rK + a) = |r|·c(K)`, and an interval `[a, b]` has capacity
//! `γ = (b − a)/4`, so [−2, 2] has capacity one. An [`Interval`] is stored as its center
//! `c` and capacity `γ`: `[c − 2γ, c + 2γ]` on the real axis, or `i·[c − 2γ, c + 2γ]` on the
//! imaginary axis (the spectrum of `−iH` for Hermitian `H`, for `e^{−itH}`). The affine map
//! `ξ ↦ c + γξ` (or `i(c + γξ)`) takes [−2, 2] onto it, and `(A − c)/γ` has its spectrum
//! in [−2, 2] when `A` has it in `[a, b]`.
//!
//! **Green's function.** `G(z) = log|φ(ξ)|`, `ξ = (z − c)/γ`, `φ(ξ) = ξ/2 + √(ξ²/4 − 1)` the
//! conformal map of the exterior of [−2, 2] onto `|w| > 1` with `φ(ξ) ~ ξ` at infinity
//! ([`Interval::green`]). Its level sets `G = log R` are the ellipses with foci at the
//! endpoints. A function analytic inside the level set `R` is approximated by polynomials
//! of degree `n` with error `O(R'^{−n})` for every `R' < R`, and no better (Bernstein–Walsh).
//!
//! **Leja points.** `z_0` maximises `|z|` on `K`, and `z_n` maximises the Leja product
//! `∏_{j<n}|z − z_j|` on `K`. They are a *sequence*: interpolation can add points one at a
//! time, with Newton's form, until an error estimate is met, which Chebyshev nodes cannot.
//! The Leja product satisfies `∏_{j<n}|z_n − z_j| ≥ c(K)ⁿ` and `(∏)^{1/n} → c(K)` (Reichel
//! 1990): on a set of capacity `γ ≠ 1` the Newton basis grows or decays like `γⁿ`, which is
//! why points are computed, and interpolation is carried out, on [−2, 2]. The interpolants
//! at Leja points converge *maximally*: `limsup ‖f − p_n‖_K^{1/n} = 1/R` for `f` analytic
//! inside the level set `R` of `G` (Leja 1957; see the 2011 GPU thesis, Thm 38 and Cor. 39).
//! On [−2, 2] the first Leja points are `2, −2, 0, ±(2/3)√3` (a tie, broken here towards
//! the positive point).
//!
//! # What is here
//!
//! * [`Interval`] / [`Axis`]: capacity, center, maps to and from [−2, 2], Green's function,
//!   construction from endpoints or [`SpectralBounds`], Newton–Leja step coefficients.
//! * [`discrete_leja_points`]: discrete Leja points on a uniform grid of `M` points,
//!   `O(n·M)`, first points `2, −2, 0, ≈±1.1547`; [`leja_ordering`] for any finite set.
//! * [`fast_leja_points`]: fast Leja points (Baglama–Calvetti–Reichel), candidates at gap
//!   midpoints, `O(n²)`, no grid: `2, −2, 0, 1, −1, ±1.5, …`.
//! * [`leja_points`]: the shipped table of [`TABLE_LEN`] = 10 000 fast Leja points of
//!   [−2, 2] (no computation; bit-for-bit what [`fast_leja_points`] returns).
//!
//! # Accuracy and cost
//!
//! Leja points are exact to the rounding of their defining maximisation: fast Leja points
//! are reproducible bit for bit on any IEEE-754 machine; discrete ones are within the grid
//! spacing of the grid maximiser. Products are formed with exact power-of-two rescaling,
//! so nothing overflows or underflows for any `n`.
//!
//! # Example
//!
//! Interpolating `e^{hA}v` for a symmetric `A` with spectrum in [−8, 0]: map the Leja points
//! of [−2, 2] onto the interval, and build the Newton–Leja recurrence coefficients.
//!
//! ```
//! use matexp_leja::{Interval, leja_points, SpectralBounds};
//!
//! // tridiag(2, −4, 2): its Gershgorin interval is [−8, 0].
//! let bounds = SpectralBounds::real(-8.0, 0.0)?;
//! let k = Interval::from_spectral_bounds(&bounds)?;
//! assert_eq!((k.center(), k.capacity()), (-4.0, 2.0));
//!
//! let xi = leja_points(20)?;               // on [−2, 2]
//! let z = k.leja_coordinates(20)?;         // on [−8, 0]
//! assert_eq!((z[0], z[1], z[2]), (0.0, -8.0, -4.0));
//! assert!(z.iter().all(|&t| (-8.0..=0.0).contains(&t)));
//!
//! // One step y ← ((A − c)/γ − ξ₀) y of the Newton recurrence, in the form of
//! // `FusedOperator::shifted_step`.
//! let step = k.shifted_step::<f64>(xi[0], 1.0)?;
//! assert_eq!((step.alpha, step.shift), (0.5, 0.0));
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod discrete;
mod fast;
mod interval;
mod table;
mod wide;

pub use discrete::{discrete_leja_points, leja_ordering, uniform_grid};
pub use fast::fast_leja_points;
pub use interval::{Axis, Interval};
pub use table::{TABLE_LEN, leja_points};

#[doc(no_inline)]
pub use matexp_core::SpectralBounds;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
