//! Matrix functions of large operators applied to vectors, w = f(tA)v, with error control:
//! interpolation at Leja points, Krylov (Lanczos, Arnoldi) and Taylor methods, written once
//! against [`matexp_core::Backend`] and [`matexp_core::LinearOperator`] so that they run on
//! every backend (CPU, one or several GPUs) and for every scalar type (`f32`, `f64`, `c32`,
//! `c64`). Most users start from the `matexp` facade crate (`matexp::expmv`, `Method::Auto`);
//! this crate holds the methods and their reusable workspaces.
//!
//! **Layer.** Above `matexp-core`, `matexp-leja` (Leja points, spectral intervals),
//! `matexp-divdiff` (divided differences) and `matexp-dense` (the small dense problems and
//! the tridiagonal eigensolver); it owns the workspace's spectral estimator
//! ([`spectrum`]: Lanczos, power iteration, Gershgorin), which Leja, Taylor, the graph
//! measures and the command line share;
//! below `matexp-integrators` (exponential, Magnus and Runge–Kutta integrators built on these
//! methods), `matexp-graph` and the `matexp` facade. It depends on no sparse-matrix or GPU
//! crate: those supply operators and backends.
//!
//! | method | operators | functions | products | notes |
//! |---|---|---|---|---|
//! | [`Leja`] | any | e^{tA}v, φ_k(tA)v, Σ t^kφ_k(tA)b_k | ~‖tA‖ | no inner products; fused GPU step; spectral bounds from the operator or estimated |
//! | [`Lanczos`] | Hermitian | e^{tA}v, φ₀…φ_k(tA)v | ~√‖tA‖ | one basis for many times and all φ_j; two-pass mode in O(n) memory; overflow-safe (graph centralities) |
//! | [`Arnoldi`] | any | e^{tA}v, φ_k(tA)v, Σ t^kφ_k(tA)b_k | ~‖tA‖ (substeps) | Expokit error control and step sizes; φ by the augmented operator (KIOPS) |
//! | [`Taylor`] | any | e^{tA}v | ~5.6‖tA‖ | Al-Mohy–Higham 2011 (`expm_multiply`); no inner products |
//!
//! **One shape.** The four methods implement [`ExpmvMethod`]: options that implement
//! [`MethodOptions`] (built the same way: `Options::default().with_rtol(…)`), one [`Report`]
//! that prints, and `expmv`, `expmv_times` (times of either sign, in any order, SciPy-style
//! [`TimeGrid`]s, complex times on a line), `phimv` (φ₀…φ_k together), `phimv_k`,
//! `phi_combination` and `expmv_block`, written once over the method's
//! [`ExpmvMethod::combination`]. Complex time is a scalar `t` of the computation for every
//! method (t = −iτ for e^{−iτH}v).
//!
//! **Accuracy.** Every method targets ‖w − f(tA)v‖₂ ≤ atol + rtol·‖f(tA)v‖₂
//! ([`Tolerance`]; by default rtol = 10⁻⁸ in double and 10⁻³ in single precision). Leja,
//! Lanczos and Arnoldi estimate their error a posteriori (estimates, not bounds; see each
//! type); Taylor controls a backward error a priori given the norm information of
//! [`NormBound`] and stops its series on the size of the last terms.
//! [`Report::rel_error_estimate`] stands next to [`Report::rtol`].
//!
//! **Errors** ([`matexp_core::Error`]): `DimensionMismatch` for a non-square operator or
//! wrong vector lengths, `NonFinite` for NaN/∞ in the input vector (with its index and value)
//! or an overflowing result, `InvalidArgument` for a tolerance ≤ 0 / NaN / below the unit
//! roundoff (the message names a usable one), a non-finite time, bad options or a
//! non-Hermitian operator given to Lanczos, `NoConvergence` (with the dimension, time and
//! products reached) when the caps are hit.
//!
//! **Workspaces.** Every method owns its backend vectors and reuses them across calls:
//! repeated calls (time stepping) allocate no backend vectors. A workspace takes its order
//! from the operator and follows it when it changes. The small dense problems (tridiagonal
//! eigensolves, Hessenberg exponentials of order ≤ m + 2) allocate O(m²) host memory per call.
//! The free functions ([`leja_expmv`], [`lanczos_expmv`], [`arnoldi_expmv`],
//! [`taylor_expmv`], …) build a workspace per call.
//!
//! ```
//! use matexp_core::{CpuBackend, DenseMatrixOperator};
//! use matexp_expmv::{Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions};
//! let cpu = CpuBackend::new();
//! // 1D heat equation u' = Au, A = tridiag(1, −2, 1)·(n+1)², n = 30, up to t = 0.01.
//! let n = 30;
//! let h2 = ((n + 1) * (n + 1)) as f64;
//! let mut a = vec![0.0; n * n];
//! for i in 0..n {
//!     a[i * n + i] = -2.0 * h2;
//!     if i + 1 < n { a[i * n + i + 1] = h2; a[(i + 1) * n + i] = h2; }
//! }
//! let op = DenseMatrixOperator::new(n, n, a)?;
//! let u0: Vec<f64> = (0..n).map(|i| ((i + 1) as f64 * std::f64::consts::PI / (n + 1) as f64).sin()).collect();
//! let mut lz = Lanczos::new(&cpu, LanczosOptions::default().with_rtol(1e-10))?;
//! let mut arn = Arnoldi::new(&cpu, ArnoldiOptions::default().with_rtol(1e-10))?;
//! let (mut w1, mut w2) = (vec![0.0; n], vec![0.0; n]);
//! lz.expmv(&op, 0.01, &u0, &mut w1)?;
//! let report = arn.expmv(&op, 0.01, &u0, &mut w2)?;
//! println!("{report}");
//! // u0 is an eigenvector: e^{tA}u0 = e^{tλ₁}u0, λ₁ = −4(n+1)² sin²(π/(2(n+1))).
//! let l1 = -4.0 * h2 * (std::f64::consts::PI / (2.0 * (n + 1) as f64)).sin().powi(2);
//! for i in 0..n {
//!     assert!((w1[i] - (0.01 * l1).exp() * u0[i]).abs() < 1e-9);
//!     assert!((w2[i] - w1[i]).abs() < 1e-9);
//! }
//! # Ok::<(), matexp_core::Error>(())
//! ```

#![warn(missing_docs)]

mod augmented;
pub mod checks;
mod krylov;
pub mod leja;
mod method;
mod options;
pub mod plan;
mod propagation;
mod report;
pub mod spectrum;
mod taylor;
mod times;

pub use krylov::arnoldi::{Arnoldi, MAX_AUGMENTED_COLUMNS, arnoldi_expmv, arnoldi_phimv};
pub use krylov::lanczos::{Lanczos, lanczos_expmv, lanczos_phimv};
pub use leja::{
    BoundsSource, Leja, LejaMethod, LejaOptions, LejaReport, LejaWorkspace, leja_expmv, leja_phimv,
    leja_schrodinger,
};
pub use method::{ExpmvMethod, MAX_PHI_ORDER};
pub use options::ROUNDING_FACTOR;
pub use options::{
    ArnoldiOptions, LanczosOptions, MAX_NORM_PROBES, MethodOptions, NormBound, Progress,
    ProgressFn, Reorthogonalize, Shift, TaylorOptions, Tolerance,
};
pub use report::Report;
pub use taylor::{Taylor, taylor_expmv, taylor_theta};
pub use times::TimeGrid;
