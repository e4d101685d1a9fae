//! The matrix-free stencil operator on the CPU.

use crate::grid::{Boundary, Dim, Grid};
use crate::kernel::{self, CoefView, Ctx};
use crate::spectrum::laplacian_interval;
use crate::terms::{BoundaryFunction, Coefficient, check_coefficient};
use matexp_core::FusedOperator;
use matexp_core::{
    CpuBackend, Error, LinearOperator, RealScalar, Result, ShiftedStep, SpectralBounds, check_dim,
};
use rayon::prelude::*;

/// The discrete operator `A = D·Δ_h` on a [`Grid`]: the 5-point (2D) or 7-point (3D)
/// Laplacian scaled by `h⁻²`, times a positive coefficient `D`, with the boundary kind of
/// the grid; for an inhomogeneous Dirichlet problem also the affine term `b`, so that the
/// semi-discrete problem is `u' = A u + b`.
///
/// **Math.** `(Au)_i = D_i h⁻² (Σ_{j ∈ nb(i)} u_j − 2d·u_i)`, where a neighbour outside the
/// grid is resolved by [`Boundary`]. With Dirichlet data `g`, the neighbours on `∂[0,1]^d`
/// carry `g`, which moves into `b_i = D_i h⁻² Σ_{boundary neighbours} g`.
///
/// **Cost.** One product reads `x` once and writes `y` once (the neighbour rows come from
/// cache), 8 flops per point in 3D plus 2 for `α, β` (the seed's 10 flops); the fused
/// [`FusedOperator::shifted_step`] adds the accumulation and the norm in the same pass.
///
/// **Accuracy.** Truncation error `O(h²)` for smooth solutions (`h²/12·Σ ∂⁴u/∂x_a⁴`);
/// each product is a sum of at most 8 terms, so its rounding error is a few ulps of
/// `h⁻² Σ|u_j|`.
///
/// ```
/// use matexp_core::{CpuBackend, LinearOperator};
/// use matexp_stencil::{Boundary, Dim, Stencil};
/// let a = Stencil::<f64>::laplacian(Dim::Three, 16, Boundary::Dirichlet)?;
/// // The lowest Dirichlet mode sin(πx)sin(πy)sin(πz) is an eigenvector.
/// let g = a.grid();
/// let v: Vec<f64> = (0..g.len())
///     .map(|i| g.point(i).iter().map(|c| (std::f64::consts::PI * c).sin()).product())
///     .collect();
/// let mut av = vec![0.0; v.len()];
/// a.apply(&CpuBackend, 1.0, &v, 0.0, &mut av)?;
/// let lambda = a.spectral_bounds().unwrap().re_max; // the eigenvalue nearest 0
/// assert!(av.iter().zip(&v).all(|(a, v)| (a - lambda * v).abs() < 1e-10 * lambda.abs()));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Stencil<S> {
    grid: Grid,
    boundary_fn: BoundaryFunction,
    coefficient: Coefficient<S>,
    /// The coefficient as the kernel reads it: a plane table for the seed's `D(x, y)`, a
    /// field otherwise, nothing for `D = 1`.
    coef_table: Option<Vec<S>>,
    coef_range: (f64, f64),
    /// `b`, present for an inhomogeneous Dirichlet problem.
    affine: Option<Vec<S>>,
}

/// Builder of a [`Stencil`] (dimension and size first, everything else optional).
#[derive(Debug, Clone)]
pub struct StencilBuilder<S> {
    dim: Dim,
    n: usize,
    boundary: Boundary,
    boundary_fn: BoundaryFunction,
    coefficient: Coefficient<S>,
    affine: Option<Vec<S>>,
}

impl<S: RealScalar> StencilBuilder<S> {
    /// The affine term `b` of `u' = Au + b` given directly (`N^d` values, for Dirichlet data
    /// computed elsewhere: `b_i = D_i h⁻² Σ g` over the boundary neighbours of point `i`);
    /// instead of [`StencilBuilder::boundary_values`].
    pub fn boundary_term(mut self, b: Vec<S>) -> Self {
        self.affine = Some(b);
        self
    }

    /// Boundary kind (default homogeneous Dirichlet).
    pub fn boundary(mut self, b: Boundary) -> Self {
        self.boundary = b;
        self
    }

    /// Dirichlet boundary values (default zero); only with [`Boundary::Dirichlet`].
    pub fn boundary_values(mut self, g: BoundaryFunction) -> Self {
        self.boundary_fn = g;
        self
    }

    /// Diffusion coefficient (default 1).
    pub fn coefficient(mut self, d: Coefficient<S>) -> Self {
        self.coefficient = d;
        self
    }

    /// The operator. O(N^d) for a field coefficient or boundary values (sampled once), else
    /// O(N²).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty or oversized grid, boundary values on a grid
    /// that is not Dirichlet, or a coefficient that is not positive;
    /// [`Error::DimensionMismatch`] for a field of the wrong length; [`Error::NonFinite`] for
    /// a non-finite coefficient or boundary value.
    pub fn build(self) -> Result<Stencil<S>> {
        let grid = Grid::new(self.dim, self.n, self.boundary)?;
        if !self.boundary_fn.is_zero() && grid.boundary() != Boundary::Dirichlet {
            return Err(Error::invalid(
                "boundary_values",
                format!("{:?}", self.boundary_fn),
                format!(
                    "boundary values need a Dirichlet grid, not {:?} (a Frame grid carries them in the vector)",
                    grid.boundary()
                ),
            ));
        }
        let coef_table = match &self.coefficient {
            Coefficient::Unit => None,
            Coefficient::Seed => {
                let n = grid.n();
                Some(
                    (0..n * n)
                        .map(|i| {
                            let p = grid.point(i);
                            S::from_f64(Coefficient::<S>::seed([p[0], p[1], 0.0]))
                        })
                        .collect(),
                )
            }
            Coefficient::Field(v) => {
                check_dim("stencil coefficient field (N^d)", grid.len(), v.len())?;
                Some(v.to_vec())
            }
            Coefficient::Function(f) => {
                let v: Vec<S> = (0..grid.len())
                    .into_par_iter()
                    .map(|i| S::from_f64(f(grid.point(i))))
                    .collect();
                Some(v)
            }
        };
        let coef_range = match &coef_table {
            None => (1.0, 1.0),
            Some(t) => {
                check_coefficient(t)?;
                t.iter().fold((f64::MAX, f64::MIN), |(lo, hi), d| {
                    (lo.min(d.as_f64()), hi.max(d.as_f64()))
                })
            }
        };
        let mut op = Stencil {
            grid,
            boundary_fn: self.boundary_fn,
            coefficient: self.coefficient,
            coef_table,
            coef_range,
            affine: None,
        };
        if let Some(b) = self.affine {
            if !op.boundary_fn.is_zero() || op.grid.boundary() != Boundary::Dirichlet {
                return Err(Error::invalid(
                    "boundary_term",
                    format!("{} values", b.len()),
                    "a boundary term needs a Dirichlet grid and no boundary function",
                ));
            }
            check_dim("stencil boundary term b (N^d)", op.grid.len(), b.len())?;
            if let Some((i, v)) = matexp_core::norms::first_non_finite(&b) {
                return Err(Error::NonFinite {
                    context: "stencil boundary term b".into(),
                    index: i,
                    value: format!("{v}"),
                });
            }
            op.affine = Some(b);
        } else if !op.boundary_fn.is_zero() {
            let b = op.sample_affine_term();
            if let Some((i, v)) = matexp_core::norms::first_non_finite(&b) {
                return Err(Error::NonFinite {
                    context: "stencil boundary term b (boundary function values)".into(),
                    index: i,
                    value: format!("{v}"),
                });
            }
            op.affine = Some(b);
        }
        Ok(op)
    }
}

impl<S: RealScalar> Stencil<S> {
    /// A builder for an operator on `N = n` points per axis.
    pub fn builder(dim: Dim, n: usize) -> StencilBuilder<S> {
        StencilBuilder {
            dim,
            n,
            boundary: Boundary::Dirichlet,
            boundary_fn: BoundaryFunction::Zero,
            coefficient: Coefficient::Unit,
            affine: None,
        }
    }

    /// The Laplacian `Δ_h` (`D = 1`, homogeneous boundary) on `n` points per axis.
    ///
    /// # Errors
    /// As [`StencilBuilder::build`].
    pub fn laplacian(dim: Dim, n: usize, boundary: Boundary) -> Result<Self> {
        Self::builder(dim, n).boundary(boundary).build()
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The Dirichlet boundary function.
    pub fn boundary_function(&self) -> &BoundaryFunction {
        &self.boundary_fn
    }

    /// The coefficient.
    pub fn coefficient(&self) -> &Coefficient<S> {
        &self.coefficient
    }

    /// `[min D, max D]` over the grid.
    pub fn coefficient_range(&self) -> (f64, f64) {
        self.coef_range
    }

    /// The coefficient at grid point `i` (1 for `D = 1`).
    pub fn coefficient_at(&self, i: usize) -> S {
        let pl = self.grid.plane_len();
        match (&self.coefficient, &self.coef_table) {
            (Coefficient::Seed, Some(t)) => t[i % pl],
            (_, Some(t)) => t[i],
            _ => S::one(),
        }
    }

    /// The affine term `b` of `u' = Au + b` (inhomogeneous Dirichlet data), `None` when the
    /// problem is linear. Nonzero only at points next to the boundary.
    pub fn affine_term(&self) -> Option<&[S]> {
        self.affine.as_deref()
    }

    /// `b_i = D_i h⁻² Σ g(p)` over the boundary points `p` adjacent to grid point `i`.
    fn sample_affine_term(&self) -> Vec<S> {
        let g = self.grid;
        let n = g.n();
        let inv_h2 = g.inv_h2();
        let axes = g.dim().axes();
        (0..g.len())
            .into_par_iter()
            .map(|i| {
                let idx = [i % n, (i / n) % n, i / (n * n)];
                let p = g.point(i);
                let mut s = 0.0;
                for a in 0..axes {
                    for (edge, at) in [(0usize, 0.0f64), (n - 1, 1.0)] {
                        if idx[a] == edge {
                            let mut q = p;
                            q[a] = at;
                            s += self.boundary_fn.eval(q);
                        }
                    }
                }
                S::from_f64(s * inv_h2) * self.coefficient_at(i)
            })
            .collect()
    }

    pub(crate) fn ctx(&self) -> Ctx<'_, S> {
        let coef = match (&self.coefficient, &self.coef_table) {
            (Coefficient::Seed, Some(t)) => CoefView::Plane(t),
            (_, Some(t)) => CoefView::Field(t),
            _ => CoefView::Unit,
        };
        Ctx {
            grid: self.grid,
            inv_h2: S::from_f64(self.grid.inv_h2()),
            coef,
        }
    }

    fn check_len(&self, what: &str, len: usize) -> Result<()> {
        check_dim(what, self.grid.len(), len)
    }

    /// `y ← α·(A·x + b) + β·y`: the affine right-hand side of an inhomogeneous Dirichlet
    /// problem in one pass (`b = 0` for a linear problem; `y` is not read when `β = 0`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x` or `y` does not have `N^d` entries.
    pub fn apply_affine(&self, alpha: S, x: &[S], beta: S, y: &mut [S]) -> Result<()> {
        self.product(alpha, x, beta, y, self.affine.as_deref())
    }

    /// `y ← (α·A + β·I)·x`, the product of seed 003's Table I, in one pass.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x` or `y` does not have `N^d` entries.
    pub fn apply_shifted(&self, alpha: S, beta: S, x: &[S], y: &mut [S]) -> Result<()> {
        self.check_len("Stencil::apply_shifted: x length", x.len())?;
        self.check_len("Stencil::apply_shifted: y length", y.len())?;
        let step = ShiftedStep {
            alpha,
            shift: beta,
            coeff: S::zero(),
        };
        self.fused(&step, x, y, None).map(|_| ())
    }

    fn product(&self, alpha: S, x: &[S], beta: S, y: &mut [S], b: Option<&[S]>) -> Result<()> {
        self.check_len("Stencil::apply: x length", x.len())?;
        self.check_len("Stencil::apply: y length", y.len())?;
        let ctx = self.ctx();
        let n = self.grid.n();
        let rows_per_plane = n;
        let rows = |iz: usize, iy: usize| -> &[S] {
            let o = (iz * rows_per_plane + iy) * n;
            &x[o..o + n]
        };
        let chunk = kernel::rows_per_task(y.len() / n) * n;
        y.par_chunks_mut(chunk).enumerate().for_each(|(t, ychunk)| {
            let mut ax = vec![S::zero(); n];
            for (k, yrow) in ychunk.chunks_mut(n).enumerate() {
                let r = t * chunk / n + k;
                ctx.row_ax(r / rows_per_plane, r % rows_per_plane, &rows, &mut ax);
                if let Some(b) = b {
                    for (a, &bi) in ax.iter_mut().zip(&b[r * n..(r + 1) * n]) {
                        *a += bi;
                    }
                }
                if beta == S::zero() {
                    for (yi, &a) in yrow.iter_mut().zip(&ax) {
                        *yi = alpha * a;
                    }
                } else {
                    for (yi, &a) in yrow.iter_mut().zip(&ax) {
                        *yi = alpha * a + beta * *yi;
                    }
                }
            }
        });
        Ok(())
    }

    /// `y ← α·A·x + shift·x`, then (when `p` is given) `p ← p + coeff·y`; returns ‖y‖₂.
    fn fused(&self, step: &ShiftedStep<S>, x: &[S], y: &mut [S], p: Option<&mut [S]>) -> Result<S> {
        let ctx = self.ctx();
        let n = self.grid.n();
        let rows = |iz: usize, iy: usize| -> &[S] {
            let o = (iz * n + iy) * n;
            &x[o..o + n]
        };
        let chunk = kernel::rows_per_task(y.len() / n) * n;
        let row_step = |t: usize, ychunk: &mut [S], mut pchunk: Option<&mut [S]>| -> f64 {
            let mut ax = vec![S::zero(); n];
            let mut ss = 0.0;
            for (k, yrow) in ychunk.chunks_mut(n).enumerate() {
                let r = t * chunk / n + k;
                ctx.row_ax(r / n, r % n, &rows, &mut ax);
                let xr = &x[r * n..(r + 1) * n];
                for ((yi, &a), &xi) in yrow.iter_mut().zip(&ax).zip(xr) {
                    *yi = step.alpha * a + step.shift * xi;
                }
                if let Some(pc) = pchunk.as_deref_mut() {
                    for (pi, &yi) in pc[k * n..(k + 1) * n].iter_mut().zip(yrow.iter()) {
                        *pi += step.coeff * yi;
                    }
                }
                ss += kernel::sum_sq(yrow);
            }
            ss
        };
        let ss: f64 = match p {
            Some(p) => y
                .par_chunks_mut(chunk)
                .zip(p.par_chunks_mut(chunk))
                .enumerate()
                .map(|(t, (yc, pc))| row_step(t, yc, Some(pc)))
                .sum(),
            None => y
                .par_chunks_mut(chunk)
                .enumerate()
                .map(|(t, yc)| row_step(t, yc, None))
                .sum(),
        };
        Ok(kernel::norm_from_sum_sq(ss, y))
    }

    /// Exact interval of the spectrum (see [`crate::spectrum`]).
    fn interval(&self) -> (f64, f64) {
        let (lo, hi) = laplacian_interval(&self.grid);
        let (dmin, dmax) = self.coef_range;
        (lo * dmax, hi * dmin)
    }
}

impl<S: RealScalar> LinearOperator<CpuBackend, S> for Stencil<S> {
    fn nrows(&self) -> usize {
        self.grid.len()
    }
    fn ncols(&self) -> usize {
        self.grid.len()
    }

    /// `y ← α·A·x + β·y` with the linear part of `A` (the affine term `b` is left out; see
    /// [`Stencil::apply_affine`]).
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.product(alpha, x, beta, y, None)
    }

    /// Exact for `D = 1`; for a positive coefficient the interval
    /// `[λ_min·max D, λ_max·min D]` (module [`crate::spectrum`]). Always real: `D·L` is
    /// similar to a symmetric matrix (frame grids: block triangular with such a block).
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let (lo, hi) = self.interval();
        SpectralBounds::real(lo, hi).ok()
    }

    /// Symmetric for Dirichlet, Neumann and periodic grids with `D = 1`.
    fn is_hermitian(&self) -> bool {
        self.coefficient.is_unit() && self.grid.boundary() != Boundary::Frame
    }

    /// `‖A‖₂ = |λ_min|` when symmetric; `max D·|λ_min(L)|` for a coefficient (`‖DL‖ ≤
    /// ‖D‖‖L‖`); `max D·4d·h⁻²` for frame grids (`√(‖A‖₁‖A‖_∞)`, both at most `4d·h⁻²`).
    fn norm_bound(&self) -> Option<f64> {
        let (lo, _) = laplacian_interval(&self.grid);
        let dmax = self.coef_range.1;
        Some(match self.grid.boundary() {
            Boundary::Frame => dmax * 4.0 * self.grid.dim().axes() as f64 * self.grid.inv_h2(),
            _ => dmax * lo.abs(),
        })
    }

    /// The bounds are analytic (exact for `D = 1`): nothing for a caller to narrow by
    /// measuring.
    fn spectral_bounds_are_tight(&self) -> bool {
        true
    }

    fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, S>> {
        Some(self)
    }
}

impl<S: RealScalar> FusedOperator<CpuBackend, S> for Stencil<S> {
    /// One pass: `y_next ← α·A·y_prev + shift·y_prev`, `p ← p + coeff·y_next`, ‖y_next‖₂.
    fn shifted_step(
        &self,
        _: &CpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &Vec<S>,
        y_next: &mut Vec<S>,
        p: &mut Vec<S>,
    ) -> Result<S> {
        self.check_len("Stencil::shifted_step: y_prev length", y_prev.len())?;
        self.check_len("Stencil::shifted_step: y_next length", y_next.len())?;
        self.check_len("Stencil::shifted_step: p length", p.len())?;
        self.fused(step, y_prev, y_next, Some(p))
    }
}
