//! Analytic spectra of the discrete Laplacians.
//!
//! With `D = 1` each operator is a Kronecker sum of 1D second differences whose eigenpairs
//! are known, so its spectrum is `{ Σ_a μ(k_a) }`:
//!
//! | boundary | 1D eigenvalues μ(k), h⁻² = [`Grid::inv_h2`] | modes |
//! | --- | --- | --- |
//! | Dirichlet | `−4h⁻² sin²(πk / (2(N+1)))`, k = 1..N | `sin(πk x)` |
//! | Neumann (cell-centred) | `−4h⁻² sin²(πk / (2N))`, k = 0..N−1 | `cos(πk x)` |
//! | periodic | `−4h⁻² sin²(πk / N)`, k = 0..N−1 | `e^{2πi k x}` |
//! | frame | Dirichlet with N − 2 interior points (same h), and 0 for the frame rows | |
//!
//! A positive coefficient keeps the spectrum real and inside
//! `[λ_min·max D, λ_max·min D]`: `D·L` is similar to `D^{½} L D^{½}`, whose Rayleigh
//! quotients are those of `L` at `y = D^{½}x` with `min D·|x|² ≤ |y|² ≤ max D·|x|²`, and
//! `L ≤ 0`. These bounds are exact for `D = 1` and no Gershgorin estimate is needed.

use crate::grid::{Boundary, Grid};
use std::f64::consts::PI;

/// One eigenvalue of the 1D second difference of `grid`'s kind for mode `k` (ranges in the
/// module table; frame grids use their interior Dirichlet problem).
pub fn mode_eigenvalue(grid: &Grid, k: usize) -> f64 {
    let n = grid.n() as f64;
    let s = match grid.boundary() {
        Boundary::Dirichlet => (PI * k as f64 / (2.0 * (n + 1.0))).sin(),
        Boundary::Frame => (PI * k as f64 / (2.0 * (n - 1.0))).sin(),
        Boundary::Neumann => (PI * k as f64 / (2.0 * n)).sin(),
        Boundary::Periodic => (PI * k as f64 / n).sin(),
    };
    -4.0 * grid.inv_h2() * s * s
}

/// `[λ_min, λ_max]` of the Laplacian (`D = 1`) on `grid`, exact.
pub fn laplacian_interval(grid: &Grid) -> (f64, f64) {
    let n = grid.n();
    let d = grid.dim().axes() as f64;
    let modes: Vec<usize> = match grid.boundary() {
        Boundary::Dirichlet => (1..=n).collect(),
        Boundary::Frame => (1..=n.saturating_sub(2)).collect(),
        Boundary::Neumann | Boundary::Periodic => (0..n).collect(),
    };
    let mu: Vec<f64> = modes.iter().map(|&k| mode_eigenvalue(grid, k)).collect();
    let lo = mu.iter().copied().fold(0.0f64, f64::min);
    let hi = mu.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match grid.boundary() {
        // Frame rows contribute the eigenvalue 0 (and an empty interior only that).
        Boundary::Frame => (d * lo, 0.0),
        _ => (d * lo, d * hi),
    }
}
