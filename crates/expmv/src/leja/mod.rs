//! Polynomial interpolation at Leja points: `e^{tA}v`, `φ_k(tA)v`, `Σ t^jφ_j(tA)b_j` and
//! `e^{−itH}v` with error control, on any backend.
//!
//! # The method
//!
//! **Focal interval and capacity-one scaling.** The spectrum of `A` is enclosed in a box
//! (from [`LejaOptions::bounds`], [`matexp_core::LinearOperator::spectral_bounds`] —
//! Gershgorin for CSR matrices — or an estimate: 40 Lanczos steps for Hermitian operators,
//! 40 power steps otherwise). Its *focal interval* is the segment `c + s·[−2, 2]` along the
//! box's longer side (real axis, `s = γ`, or imaginary axis, `s = iγ`), with the spectrum
//! assumed inside the ellipse with foci at its endpoints through the box corners.
//!
//! **Loose boxes are narrowed by measuring.** An operator box that is not
//! [tight](matexp_core::LinearOperator::spectral_bounds_are_tight) — a Gershgorin box can be
//! several times wider than the spectrum: [−2.5e6, 1.1e6] for a dense symmetric matrix with
//! spectrum in [−1e6, −1e−2], `[−(n−1), n−1]` for a star graph whose spectral radius is
//! `√(n−1)` — is intersected with the estimate above (Lanczos: the Ritz interval widened by
//! the residuals and 1 % of its width; power iteration: the disc of 1.05 times the largest
//! `‖Ax‖/‖x‖`), and the intersection replaces it when it is less than half as wide
//! ([`BoundsSource::Tightened`]). The estimators stop as soon as what they have seen already
//! covers half the box, so a nearly tight box costs 1–3 products (Laplacians, advection,
//! Markov generators of the accuracy suite: 1–2); the products are counted in
//! `Report::estimate_matvecs`, and the result is remembered in the [`LejaWorkspace`] for the
//! same operator (address, order, box). Measured: the dense stiff matrix above (n = 120,
//! `t = 1e−3`) 4 110 → 242 products at rtol 1e−6 (5 694 → 337 at 1e−10; Lanczos: 43 and 47),
//! errors 0.19 and 0.03 of the tolerance; the accuracy suite's `dense_stiff40` 3 966 → 240
//! and 7 949 → 337; a star graph with 64 leaves at `t = 2` 534 → 28.
//!
//! **Real skew-symmetric operators.** Real scalars with a box taller than wide (a real
//! skew-symmetric CSR matrix reports `i·[a, b]`) use the imaginary focal segment with
//! *conjugate* Leja points `0, ±η₁, ±η₂, …` and the real-arithmetic Newton recurrence of
//! Caliari, Kandolf, Ostermann & Rainer (SIAM J. Sci. Comput. 38(3), 2016): per conjugate pair
//! `ξ, ξ̄` two real products, and the partial sums of even degree are real, so the real part
//! is taken term by term. Measured: central-difference advection, n = 100, `t = 1`:
//! 153 products at rtol 1e−6 and 173 at 1e−10 (on the real axis inside the ellipse through
//! the square box's corners: 606 and 895; complex arithmetic on the imaginary segment: 153
//! and 169), errors ≤ 0.006 of the tolerance; the accuracy suite's `skew40`, `t = 20`:
//! 1 213 → 348 and 1 914 → 380. φ-functions (the augmented operator) and the thesis's method
//! keep the real axis for real scalars. Interpolation happens on [−2, 2], the interval of
//! logarithmic capacity one: `Â = (A − c)/s` has its spectrum in (the ellipse around)
//! [−2, 2]. Capacity one matters because the Leja product `∏_{j<m}|ξ_m − ξ_j|`, i.e. the
//! size of the Newton basis, behaves like `capacity^m`: on [−2, 2] it stays of order one
//! (subexponential) instead of over- or underflowing like `γ^m`.
//!
//! **Newton form.** For a substep `τ`, `g(ξ) = e^{τ(c + sξ)}` is interpolated at the Leja
//! points `ξ_0 = 2, ξ_1 = −2, ξ_2 = 0, …` of [−2, 2] (the shipped table of
//! [`matexp_leja::leja_points`]):
//!
//! ```text
//! e^{τA}u ≈ p_m = Σ_{j≤m} d_j y_j,   y_0 = u,   y_j = (Â − ξ_{j−1}) y_{j−1},
//! d_j = g[ξ_0, …, ξ_j]   (divided differences, matexp-divdiff's stable method).
//! ```
//!
//! Each term is one fused [`matexp_core::FusedOperator::shifted_step`]
//! (`y_j = A·y_{j−1}/s + (−c/s − ξ_{j−1})·y_{j−1}`, `p += d_j y_j`, returns `‖y_j‖`): one
//! product and one pass over three vectors, whatever the backend. Leja points are a
//! *sequence*, so the degree grows until the error estimate is met. The divided differences
//! come from the stable algorithm (first column of the exponential of the bidiagonal node
//! matrix): the plain Newton table of the thesis loses every small coefficient for
//! `|τ|γ ≳ 1`, which then stalls the stopping test. They are cached in the
//! [`LejaWorkspace`] per substep length: time stepping with a fixed step computes them once.
//!
//! **Substeps.** The convergence model (the first `m` after which every term
//! `|d_j|·max_{[−2,2]}|ω_j|` of the scalar Newton series of `e^{βξ}` stays below the
//! tolerance, computed once per direction of `β` and tolerance and cached for the process)
//! gives the largest radius `ρ_max` for which at most `target_fraction·max_degree` points
//! suffice (defaults 0.75·128 = 96). The interval `[t_{i−1}, t_i]` between output times is
//! cut into `⌈|Δt|·capacity/ρ_max⌉` equal substeps, with capacity the focal ellipse's
//! (`γ` for a segment). Real growth (`β = τγ` real, diffusion) needs `O(√ρ)` points, so
//! substeps are long (`ρ_max` = 225, 162, 120, 95, 80 for tol 1e−4, 1e−6, …, 1e−12);
//! oscillation (`β` imaginary, Schrödinger) needs `≈ 2ρ` points (`ρ_max` = 36 … 28). A substep that has not converged
//! after `max_degree` points is halved (all remaining substeps are, too); at most
//! `max_halvings` reductions per call.
//!
//! **Long substeps for diffusion.** Since the degree grows like `√ρ` for real `β`, `k`
//! substeps of radius `ρ/k` cost about `√k` times the products of one of radius `ρ`: the
//! fewest substeps minimize the total under the model. Where the plan above needs several
//! substeps on a real focal segment with a real model direction (no φ-columns, double
//! precision: in single the rounding of a 300-term recurrence reached 1.3–1.7e−5 at tol 1e−5) and enough
//! work (rows × products ≥ 2²⁷), the segment is planned again with up to
//! `diffusion_max_degree` points (default 512, target 384; the radius search starts from the
//! 96-point radius times `(384/96)²`, ≈ 5 model evaluations) and takes the longer substeps
//! when they are fewer. Oscillatory substeps keep `max_degree`: their degree grows like
//! `2ρ`, so the total does not depend on the substep length, and short ones keep the
//! divided differences cheap. Measured on the 3D Laplacian `N = 64` at `|t|·capacity` ≈
//! 2 000 (seed 000's Table 12 radius): 1 290 → 416 products at tol 1e−5, 1 849 → 478 at
//! 1e−8, 2 284 → 683 at 1e−10, errors 0.08, 0.03 and 0.17 of the tolerance. The host pays
//! a model search once per process and tolerance bucket and the divided differences at 513
//! points once per substep length (their times, and the GPU solve of Table 12 itself:
//! `bench-results/notes/tuning.md`, "expmv: Leja long substeps"); long coefficient sets are also kept in a
//! process-wide cache (8 sets), since one-shot calls start from a fresh workspace.
//!
//! **Stopping rule.** With `e_j = |d_j|·‖y_j‖₂` (for the augmented φ operator, of the top
//! block), a substep stops at the first `m ≥ floor` with
//!
//! ```text
//! e_m + e_{m−1} ≤ rtol_τ·‖p_m‖₂ + atol·|τ|/T,   rtol_τ = max(rtol·|τ|/T, 4ε),
//! ```
//!
//! `T` the whole time range, so that the local errors add up to the tolerance. Two terms,
//! not one: a single coefficient can be tiny by symmetry. Nor is that enough alone:
//!
//! * for oscillatory substeps, the first Leja points lie on dyadic grids that alias
//!   `e^{iρξ}` to a slowly varying function, and the terms can fall by five orders of
//!   magnitude over ten steps and rise again (measured at `ρ = 24`: terms down to `7e−6` at
//!   degree 10, error 1.4);
//! * for diffusion, a vector concentrated on the slowest modes (next to the node `ξ_0 = 2`)
//!   sees its terms dip when later nodes come close to those modes (measured: a second
//!   substep stopping at degree 53 where 73 were needed, an error of nine times the
//!   tolerance).
//!
//! Hence the *degree floor* `floor = m_model`, the model degree of the substep's own
//! function (or of the ellipse's, for a box). It costs little — vectors with weight near
//! the top of the spectrum need the model degree anyway. Over 280 runs (1D/2D/3D
//! Laplacians, advection–diffusion, `‖tA‖` = 1 … 10⁴, tol 1e−4 … 1e−12, random vectors) a
//! floor of `⌈0.9·m_model⌉` cut the worst error more than a three-term sum did, for fewer
//! extra products, but the accuracy suite (`fixtures/accuracy`) still found errors above
//! the tolerance for the last of four output times of a Laplacian (the vector smoothed by
//! the earlier ones: terms dip at degree 67 of 74), which the full model degree removes for
//! a few more products (the figures: `bench-results/notes/tuning.md`, "expmv: Leja degree floor"). With φ-columns the
//! floor is at least `p + 2`: the first `p` terms' top block can vanish by structure. `‖p_m‖` is read only when the test passes
//! with the upper bound `‖p_k‖ + Σ_{k<j≤m} e_j`.
//!
//! **A bound for Hermitian operators.** Where the operator is Hermitian and its box is a
//! real segment (a normal `Â` with its spectrum in [−2, 2]), the substep also needs
//! `tail_m·‖u‖ ≤ rtol_τ·‖p_m‖ + atol·|τ|/T` with `tail_m = Σ_{j>m}|d_j|·W_j` and
//! `W_j = max_{[−2,2]}|ω_j|` (attained at the Leja point ξ_j): since
//! `‖ω_j(Â)‖ ≤ W_j`, this bounds the truncation error, where the two-term test only
//! estimates it. It matters for decaying solutions (`‖p‖ ≪ ‖u‖`), where a model relative to
//! `‖u‖` stops too early: the 3D Laplacian N = 32, h = 0.1, tol 1e−5 of the benchmark suite
//! `expmv` went from error 1.08e−5 (180 products) to 4.8e−7 (200 products). It costs no
//! product when the two-term test is already conservative (spin bath, complex time:
//! unchanged). Not applied to the augmented φ operator, which is not normal.
//!
//! **Rounding check.** An accepted substep must also satisfy `ε·Σ_j e_j ≤` the threshold
//! (the rounding of the Newton sum). It fails when the focal interval reaches far above the
//! part of the spectrum that survives — e.g. a Gershgorin bound 0 for a Laplacian whose top
//! eigenvalue is −29, at `‖tA‖ = 300`: the early terms are `O(‖v‖)` and cancel to
//! `e^{−20}‖v‖`. The substep is then cut by the factor `f` that brings `ε·H^{1/f}` below the
//! proportionally smaller tolerance (`H` the measured cancellation factor), since `H` grows
//! exponentially with the substep.
//!
//! **φ-functions.** `Σ_{j=0}^{p} t^jφ_j(tA)b_j` is the top block of `e^{tÃ}[b₀; η·e_p]`
//! with `Ã = [[A, W/η], [0, J]]`, `W = [b_p, …, b_1]`, `J` the nilpotent shift (Al-Mohy &
//! Higham 2011, Thm 2.1): an exponential, so substeps compose exactly, which φ_k itself does
//! not. The `p` tail entries live on the host and are reset to their exact values
//! `η·t^{p−1−i}/(p−1−i)!` at every substep, `η` balances the two blocks, and the focal
//! interval is widened to contain 0 (the eigenvalue of `J`). Each term costs the fused step
//! plus `p` AXPYs, one AXPY and one norm. `φ_k(tA)v = t^{−k}·(top block with b_k = v)`.
//!
//! **`e^{−itH}v`.** For Hermitian `H` with spectrum in `[λ_min, λ_max]` and `t` real,
//! [`Leja::schrodinger`] (the same as `expmv` with the complex time −it) interpolates `e^{z}` at the Leja points of the imaginary focal
//! interval `−it·[λ_min, λ_max]` (`β = −itγ` purely imaginary). By affine invariance of
//! polynomial interpolation this is the same polynomial as interpolating `e^{−itλ}` at the
//! real Leja points of `[λ_min, λ_max]` (the thesis's "real Leja point method" for the
//! Schrödinger equation); what the imaginary path brings is the oscillatory model —
//! `|e^{z}| = 1` on the interval, so no `e^{2ρ}` normalisation and no cancellation (the
//! terms exceed `‖v‖` by at most ≈ 20), `≈ 2ρ` points per substep, and the degree floor
//! against aliasing. Treating the *generator* `G = −iH` as a general operator instead (its
//! Gershgorin box has real half-width equal to the off-diagonal row sums of `H`, hence an
//! ellipse around the imaginary focal segment) gives the same result with more than twice
//! the products (spin bath, `L = 10`, `t` = 1 … 100, tol 1e−5 and 1e−10; a test checks the
//! factor two).
//!
//! **The thesis's method.** [`LejaMethod::SeedFixed`] reproduces Algorithm 10 of the 2011
//! GPU thesis: fixed equal substeps, the plain Newton recurrence for the divided
//! differences, the single-term test `|d_m|·‖y_m‖ < tol`, at most 500 points.
//!
//! # Cost and accuracy
//!
//! Per term: one operator application, one pass over `y_{j−1}`, `y_j`, `p` (fused) and one
//! norm read back; memory: four vectors of order `n` (plus the `p` columns for φ). Per new
//! substep length: one stable divided-difference computation of `max_degree + 1` points
//! (host only; its time: `bench-results/notes/tuning.md`, "expmv: Leja long substeps"), cached in the
//! workspace; per process and
//! (direction, tolerance bucket): the substep radius search (≈ 25 such computations). Products
//! per unit of `|t|·capacity`: ≈ 0.5–1.2 for diffusion (fewer for longer substeps), ≈ 2.5–3
//! for Schrödinger. Measured on seed 000's runs (benchmark suite `expmv`, tol 1e−5): spin
//! bath `L = 12` to `t = 20`: 246 products (the thesis's fixed `h = 0.1` steps: 1 400);
//! 3D Laplacian `N = 32`, `h = 0.1`: 200 products (with the Hermitian tail bound), `h = 0.01`: 41. Krylov methods exploit
//! the spectral distribution of `v` (Lanczos needs 44 and 62 products there); Leja
//! interpolation needs no inner products, only one norm per product, and no basis storage.
//!
//! Measured (tests of this crate): errors within `10·rtol` of dense `expm` / analytic
//! references for `rtol` = 1e−4 … 1e−12 on 1D/2D/3D Laplacians (`‖tA‖` up to 10⁴), a
//! non-symmetric advection–diffusion operator, the spin-bath Hamiltonian (`e^{−itH}`) and a
//! skew-Hermitian operator. Rounding limits the attainable relative accuracy to a few
//! hundred `ε` times the number of substeps; the error is relative to `‖e^{tA}v‖`, which
//! for strongly damped `v` can be far below `‖v‖`.
//!
//! # Example
//!
//! ```
//! use matexp_core::{CpuBackend, DenseMatrixOperator};
//! use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
//! let cpu = CpuBackend::new();
//! // 1D heat equation, A = tridiag(1, −2, 1)·(n+1)², u₀ = the first sine mode.
//! let n = 40;
//! let h2 = ((n + 1) * (n + 1)) as f64;
//! let mut a = vec![0.0; n * n];
//! for i in 0..n {
//!     a[i * n + i] = -2.0 * h2;
//!     if i + 1 < n { a[i * n + i + 1] = h2; a[(i + 1) * n + i] = h2; }
//! }
//! let op = DenseMatrixOperator::new(n, n, a)?;
//! let pi = std::f64::consts::PI;
//! let u0: Vec<f64> = (1..=n).map(|i| (pi * i as f64 / (n + 1) as f64).sin()).collect();
//! let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-10))?;
//! let mut u = vec![0.0; n];
//! let report = leja.expmv(&op, 0.1, &u0, &mut u)?;
//! // u₀ is an eigenvector: e^{tA}u₀ = e^{tλ₁}u₀.
//! let l1 = -4.0 * h2 * (pi / (2.0 * (n + 1) as f64)).sin().powi(2);
//! for i in 0..n {
//!     assert!((u[i] - (0.1 * l1).exp() * u0[i]).abs() < 1e-10);
//! }
//! assert!(report.converged);
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod focal;
mod model;
mod newton;
mod options;
mod report;
mod solver;
pub(crate) mod spectrum;
mod workspace;

pub use options::{LejaMethod, LejaOptions, Progress, ProgressFn};
pub use report::LejaReport;
pub use solver::Leja;
pub use spectrum::BoundsSource;
pub(crate) use spectrum::{overflow_bound, proven_overflow, tighten};
pub use workspace::LejaWorkspace;

use matexp_core::{Backend, LinearOperator, Result, Scalar};

/// e^{tA}v by Leja interpolation with a fresh workspace. See [`Leja`].
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{LejaOptions, leja_expmv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![0.0, -1.0, 1.0, 0.0])?; // rotation generator
/// let (w, _) = leja_expmv(&cpu, &op, 0.5, &vec![1.0, 0.0], &LejaOptions::default())?;
/// assert!((w[0] - 0.5f64.cos()).abs() < 1e-8 && (w[1] - 0.5f64.sin()).abs() < 1e-8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::expmv`](crate::ExpmvMethod::expmv).
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn leja_expmv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    opts: &LejaOptions,
) -> Result<(B::Vector<S>, LejaReport)> {
    crate::method::expmv_with::<Leja<'_, B, S>, _, _, _>(backend, op, t, v, *opts)
}

/// φ_k(tA)v by Leja interpolation with a fresh workspace. See [`ExpmvMethod::phimv_k`](crate::ExpmvMethod::phimv_k).
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{LejaOptions, leja_phimv};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(1, 1, vec![-2.0])?;
/// let (w, _) = leja_phimv(&cpu, &op, 1, 1.0, &vec![1.0], &LejaOptions::default())?;
/// assert!((w[0] - (1.0 - (-2f64).exp()) / 2.0).abs() < 1e-8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`ExpmvMethod::phimv_k`](crate::ExpmvMethod::phimv_k).
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn leja_phimv<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    k: usize,
    t: S,
    v: &B::Vector<S>,
    opts: &LejaOptions,
) -> Result<(B::Vector<S>, LejaReport)> {
    crate::method::phimv_k_with::<Leja<'_, B, S>, _, _, _>(backend, op, k, t, v, *opts)
}

/// e^{−itH}v for Hermitian `H` by Leja interpolation on the imaginary focal interval, with a
/// fresh workspace. See [`Leja::schrodinger`].
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator, c64};
/// use matexp_expmv::{LejaOptions, leja_schrodinger};
/// let cpu = CpuBackend::new();
/// // H = σ_x: e^{−itσ_x}e₁ = (cos t, −i sin t).
/// let one = c64::new(1.0, 0.0);
/// let h = DenseMatrixOperator::new(2, 2, vec![c64::new(0.0, 0.0), one, one, c64::new(0.0, 0.0)])?;
/// let (w, _) = leja_schrodinger(&cpu, &h, 3.0, &vec![one, c64::new(0.0, 0.0)], &LejaOptions::default().with_rtol(1e-10))?;
/// assert!((w[0] - c64::new(3f64.cos(), 0.0)).norm() < 1e-9);
/// assert!((w[1] - c64::new(0.0, -3f64.sin())).norm() < 1e-9);
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`Leja::schrodinger`].
/// The result is allocated only after the operator is found square and `v` of its order
/// (`DimensionMismatch` otherwise); one the backend cannot allocate is the backend's error
/// (`InvalidArgument` on the CPU), never an abort.
pub fn leja_schrodinger<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    t: f64,
    v: &B::Vector<S>,
    opts: &LejaOptions,
) -> Result<(B::Vector<S>, LejaReport)> {
    let mut leja = <Leja<'_, B, S> as crate::ExpmvMethod<'_, B, S>>::new(backend, *opts)?;
    let mut w = crate::checks::output_like(backend, "leja", op, v)?;
    let r = leja.schrodinger(op, t, v, &mut w)?;
    Ok((w, r))
}
