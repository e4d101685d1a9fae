//! Operator combinators: `c·A`, `A + σI` and `A + B` as operators in their own right, on any
//! backend, without forming a matrix.
//!
//! Each combinator forwards the metadata it can keep exact: a scaled or shifted operator
//! maps spectral bounds and norm bounds by the same affine map, a sum adds bounds (a box
//! containing the Minkowski sum of the two boxes, Bendixson–Weyl for Hermitian parts), and
//! Hermitian-ness is kept where it survives (real scale and shift, sum of Hermitian parts).
//! Cost per product: one product of the inner operator (`Scaled`, `Shifted`), or one product
//! of each (`Sum`: the second accumulates into `y` with β = 1, no temporary vector).

use crate::{
    Backend, FusedOperator, LinearOperator, OperatorSteps, Result, Scalar, SpectralBounds,
    check_dim,
};

/// `c·A` for a scalar `c`.
#[derive(Debug, Clone)]
pub struct Scaled<Op, S> {
    inner: Op,
    factor: S,
}

impl<Op, S: Scalar> Scaled<Op, S> {
    /// The operator `factor·inner`.
    pub fn new(inner: Op, factor: S) -> Self {
        Scaled { inner, factor }
    }

    /// The wrapped operator.
    pub fn inner(&self) -> &Op {
        &self.inner
    }

    /// The factor.
    pub fn factor(&self) -> S {
        self.factor
    }
}

/// Image of a box under `z ↦ c·z + s` (a rotation-scaling plus a shift), enclosed in a box.
fn affine_box(b: SpectralBounds, c: num_complex::Complex<f64>, s: f64) -> Option<SpectralBounds> {
    let corners = [
        num_complex::Complex::new(b.re_min, b.im_min),
        num_complex::Complex::new(b.re_min, b.im_max),
        num_complex::Complex::new(b.re_max, b.im_min),
        num_complex::Complex::new(b.re_max, b.im_max),
    ];
    let img: Vec<_> = corners.iter().map(|z| c * z + s).collect();
    let f = |g: fn(&num_complex::Complex<f64>) -> f64, max: bool| {
        img.iter()
            .map(g)
            .fold(if max { f64::MIN } else { f64::MAX }, |a, v| {
                if max { a.max(v) } else { a.min(v) }
            })
    };
    SpectralBounds::new(
        f(|z| z.re, false),
        f(|z| z.re, true),
        f(|z| z.im, false),
        f(|z| z.im, true),
    )
    .ok()
}

impl<B: Backend, S: Scalar, Op: LinearOperator<B, S>> LinearOperator<B, S> for Scaled<Op, S> {
    fn nrows(&self) -> usize {
        self.inner.nrows()
    }
    fn ncols(&self) -> usize {
        self.inner.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.inner.apply(backend, alpha * self.factor, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        affine_box(self.inner.spectral_bounds()?, self.factor.to_c64(), 0.0)
    }
    fn is_hermitian(&self) -> bool {
        self.inner.is_hermitian() && self.factor.to_c64().im == 0.0
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.inner.norm_bound()? * self.factor.to_c64().norm())
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        // H(cA) = c·H(A) for real c; a complex c mixes in the skew part, which is not known.
        let c = self.factor.to_c64();
        if c.im != 0.0 {
            return None;
        }
        let (lo, hi) = self.inner.hermitian_part_bounds()?;
        Some(if c.re >= 0.0 {
            (c.re * lo, c.re * hi)
        } else {
            (c.re * hi, c.re * lo)
        })
    }
}

/// `A + σI` for a real shift `σ`.
#[derive(Debug, Clone)]
pub struct Shifted<Op> {
    inner: Op,
    sigma: f64,
}

impl<Op> Shifted<Op> {
    /// The operator `inner + sigma·I` (square operators only; checked at the first product).
    pub fn new(inner: Op, sigma: f64) -> Self {
        Shifted { inner, sigma }
    }

    /// The wrapped operator.
    pub fn inner(&self) -> &Op {
        &self.inner
    }

    /// The shift σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
}

impl<B: Backend, S: Scalar, Op: LinearOperator<B, S>> LinearOperator<B, S> for Shifted<Op> {
    fn nrows(&self) -> usize {
        self.inner.nrows()
    }
    fn ncols(&self) -> usize {
        self.inner.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        check_dim(
            "Shifted: square operator (ncols)",
            self.nrows(),
            self.ncols(),
        )?;
        // y ← αAx + βy, then y ← y + ασx: two passes, no temporary.
        self.inner.apply(backend, alpha, x, beta, y)?;
        backend.axpby(alpha * S::from_f64(self.sigma), x, S::one(), y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        affine_box(
            self.inner.spectral_bounds()?,
            num_complex::Complex::new(1.0, 0.0),
            self.sigma,
        )
    }
    fn is_hermitian(&self) -> bool {
        self.inner.is_hermitian()
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.inner.norm_bound()? + self.sigma.abs())
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        let (lo, hi) = self.inner.hermitian_part_bounds()?;
        Some((lo + self.sigma, hi + self.sigma))
    }
    /// The inner operator's fused step, with the shift folded in (below).
    fn fused(&self) -> Option<&dyn FusedOperator<B, S>> {
        self.inner.fused().map(|_| self as &dyn FusedOperator<B, S>)
    }
}

impl<B: Backend, S: Scalar, Op: LinearOperator<B, S>> FusedOperator<B, S> for Shifted<Op> {
    fn shifted_step(
        &self,
        backend: &B,
        step: &crate::ShiftedStep<S>,
        y_prev: &B::Vector<S>,
        y_next: &mut B::Vector<S>,
        p: &mut B::Vector<S>,
    ) -> Result<S::Real> {
        // (A + σI) folded into the inner operator's fused step: α(A + σ)x + s·x = αAx + (s + ασ)x.
        let folded = crate::ShiftedStep {
            alpha: step.alpha,
            shift: step.shift + step.alpha * S::from_f64(self.sigma),
            coeff: step.coeff,
        };
        OperatorSteps::shifted_step(&self.inner, backend, &folded, y_prev, y_next, p)
    }
}

/// `A + B` of two operators of the same shape on the same backend.
#[derive(Debug, Clone)]
pub struct Sum<A, C> {
    a: A,
    b: C,
}

impl<A, C> Sum<A, C> {
    /// The operator `a + b`; the shapes are checked by [`Sum::try_new`].
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`](crate::Error::DimensionMismatch) if the two terms differ in
    /// rows or columns.
    pub fn try_new<B: Backend, S: Scalar>(a: A, b: C) -> Result<Self>
    where
        A: LinearOperator<B, S>,
        C: LinearOperator<B, S>,
    {
        check_dim("Sum: rows of the second term", a.nrows(), b.nrows())?;
        check_dim("Sum: columns of the second term", a.ncols(), b.ncols())?;
        Ok(Sum { a, b })
    }

    /// The two terms.
    pub fn terms(&self) -> (&A, &C) {
        (&self.a, &self.b)
    }
}

impl<B: Backend, S: Scalar, A: LinearOperator<B, S>, C: LinearOperator<B, S>> LinearOperator<B, S>
    for Sum<A, C>
{
    fn nrows(&self) -> usize {
        self.a.nrows()
    }
    fn ncols(&self) -> usize {
        self.a.ncols()
    }
    fn apply(
        &self,
        backend: &B,
        alpha: S,
        x: &B::Vector<S>,
        beta: S,
        y: &mut B::Vector<S>,
    ) -> Result<()> {
        self.a.apply(backend, alpha, x, beta, y)?;
        self.b.apply(backend, alpha, x, S::one(), y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        // Box of the field of values: W(A + B) ⊂ W(A) + W(B).
        let (p, q) = (self.a.spectral_bounds()?, self.b.spectral_bounds()?);
        SpectralBounds::new(
            p.re_min + q.re_min,
            p.re_max + q.re_max,
            p.im_min + q.im_min,
            p.im_max + q.im_max,
        )
        .ok()
    }
    fn is_hermitian(&self) -> bool {
        self.a.is_hermitian() && self.b.is_hermitian()
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.a.norm_bound()? + self.b.norm_bound()?)
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        // H(A + B) = H(A) + H(B) (Weyl).
        let (p, q) = (
            self.a.hermitian_part_bounds()?,
            self.b.hermitian_part_bounds()?,
        );
        Some((p.0 + q.0, p.1 + q.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CpuBackend, DenseMatrixOperator, c64};

    fn dense(n: usize, f: impl Fn(usize, usize) -> f64) -> DenseMatrixOperator<f64> {
        let data = (0..n * n).map(|k| f(k / n, k % n)).collect();
        DenseMatrixOperator::new(n, n, data).unwrap()
    }

    fn product<Op: LinearOperator<CpuBackend, f64>>(op: &Op, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; op.nrows()];
        op.apply(&CpuBackend, 1.0, &x.to_vec(), 0.0, &mut y)
            .unwrap();
        y
    }

    #[test]
    fn combinators_equal_the_assembled_matrix() {
        let n = 5;
        let a = dense(n, |i, j| ((i * 7 + j * 3) % 5) as f64 - 2.0);
        let b = dense(n, |i, j| if i == j { 1.5 } else { 0.25 * (i + j) as f64 });
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
        let op = Sum::try_new::<CpuBackend, f64>(
            Scaled::new(a.clone(), 2.0),
            Shifted::new(b.clone(), -3.0),
        )
        .unwrap();
        let want = dense(n, |i, j| {
            2.0 * a.get(i, j) + b.get(i, j) + if i == j { -3.0 } else { 0.0 }
        });
        let (got, want) = (product(&op, &x), product(&want, &x));
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "{g} vs {w}");
        }
    }

    #[test]
    fn shifted_fused_step_equals_the_unfused_one() {
        let a = dense(4, |i, j| (i as f64 - j as f64).cos());
        let op = Shifted::new(a, 0.75);
        let step = crate::ShiftedStep {
            alpha: 0.5,
            shift: -0.25,
            coeff: 2.0,
        };
        let x = vec![1.0, -2.0, 0.5, 3.0];
        let (mut y, mut p) = (vec![0.0; 4], vec![1.0; 4]);
        let norm =
            OperatorSteps::shifted_step(&op, &CpuBackend, &step, &x, &mut y, &mut p).unwrap();
        let ax = product(&op, &x);
        for i in 0..4 {
            let yi = 0.5 * ax[i] - 0.25 * x[i];
            assert!((y[i] - yi).abs() < 1e-14);
            assert!((p[i] - (1.0 + 2.0 * yi)).abs() < 1e-14);
        }
        assert!((norm - y.iter().map(|v| v * v).sum::<f64>().sqrt()).abs() < 1e-14);
    }

    #[test]
    fn bounds_follow_the_affine_maps() {
        let a = dense(3, |i, j| if i == j { i as f64 } else { 0.0 });
        let s = LinearOperator::<CpuBackend, f64>::spectral_bounds(&Shifted::new(a.clone(), 1.0))
            .unwrap();
        assert_eq!((s.re_min, s.re_max), (1.0, 3.0));
        let h: DenseMatrixOperator<c64> =
            DenseMatrixOperator::new(1, 1, vec![c64::new(2.0, 0.0)]).unwrap();
        // −i·H has its spectrum on the imaginary axis and is no longer Hermitian.
        let m = Scaled::new(h, c64::new(0.0, -1.0));
        let b = LinearOperator::<CpuBackend, c64>::spectral_bounds(&m).unwrap();
        assert_eq!(
            (b.re_min, b.re_max, b.im_min, b.im_max),
            (0.0, 0.0, -2.0, -2.0)
        );
        assert!(!LinearOperator::<CpuBackend, c64>::is_hermitian(&m));
        assert!(
            Sum::try_new::<CpuBackend, f64>(dense(2, |_, _| 1.0), dense(3, |_, _| 1.0)).is_err()
        );
    }
}
