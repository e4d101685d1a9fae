//! CSR and pattern CSR as [`LinearOperator`]s on the CPU: rayon SpMV and a fused Leja step.
//!
//! **Memory model.** SpMV is bandwidth-bound: per product it must stream the values
//! (`nnz·size_of::<S>()`, none for patterns), the column indices (`nnz·size_of::<I>()`), the
//! row pointers (`(n+1)·size_of::<I>()`), read `x` at least once (`ncols·size_of::<S>()`) and
//! write `y` (`nrows·size_of::<S>()`, plus a read when β ≠ 0). Irregular access to `x` costs
//! more when the columns of a row are far apart and `x` does not fit in cache.
//!
//! **Parallelism.** Rows are split into chunks of equal `Σ(nnz(row) + 1)` (not equal row
//! counts, which starve threads on power-law graphs), a few per rayon thread; each chunk
//! owns a disjoint slice of `y`. Small products run on the calling thread.
//!
//! **Accuracy.** Each `yᵢ` is a left-to-right sum in the working precision `S`, the same as
//! a serial loop: the result does not depend on the number of threads.
//!
//! **Conventions.** y is never read when β = 0 (NaN there does not propagate); when α = 0,
//! A and x are not touched (y ← β·y), as in the BLAS.

use crate::parallel::{map_row_chunks, map_row_chunks2};
use crate::{CsrIndex, CsrMatrix, PatternCsr};
use matexp_core::FusedOperator;
use matexp_core::{
    CpuBackend, LinearOperator, RealScalar, Result, Scalar, ShiftedStep, SpectralBounds, check_dim,
    norms,
};

/// y ← α·(row sums given by `row`) + β·y over a balanced row partition.
pub(crate) fn drive_spmv<I, S, F>(row_ptr: &[I], alpha: S, beta: S, y: &mut [S], row: F)
where
    I: CsrIndex,
    S: Scalar,
    F: Fn(usize) -> S + Sync,
{
    if alpha == S::zero() {
        if beta == S::zero() {
            y.iter_mut().for_each(|v| *v = S::zero());
        } else {
            norms::scal(beta, y);
        }
        return;
    }
    // Three loops rather than one with a branch per row: β is loop-invariant, and β = 0 must
    // not read y at all.
    if beta == S::zero() {
        map_row_chunks(row_ptr, y, |rows, yc| {
            for (yi, r) in yc.iter_mut().zip(rows) {
                *yi = alpha * row(r);
            }
        });
    } else if beta == S::one() {
        map_row_chunks(row_ptr, y, |rows, yc| {
            for (yi, r) in yc.iter_mut().zip(rows) {
                *yi += alpha * row(r);
            }
        });
    } else {
        map_row_chunks(row_ptr, y, |rows, yc| {
            for (yi, r) in yc.iter_mut().zip(rows) {
                *yi = alpha * row(r) + beta * *yi;
            }
        });
    }
}

/// Σ_k vals[k]·x[cols[k]], two interleaved accumulators to shorten the add dependency chain.
#[inline(always)]
fn row_dot<S: Scalar, I: CsrIndex>(cols: &[I], vals: &[S], x: &[S]) -> S {
    let mut a0 = S::zero();
    let mut a1 = S::zero();
    let mut ci = cols.chunks_exact(2);
    let mut vi = vals.chunks_exact(2);
    for (c, v) in (&mut ci).zip(&mut vi) {
        a0 += v[0] * x[c[0].as_usize()];
        a1 += v[1] * x[c[1].as_usize()];
    }
    if let (Some(c), Some(v)) = (ci.remainder().first(), vi.remainder().first()) {
        a0 += *v * x[c.as_usize()];
    }
    a0 + a1
}

/// Σ_k x[cols[k]] (pattern rows: every entry is 1).
#[inline(always)]
fn row_sum<S: Scalar, I: CsrIndex>(cols: &[I], x: &[S]) -> S {
    let mut a0 = S::zero();
    let mut a1 = S::zero();
    let mut ci = cols.chunks_exact(2);
    for c in &mut ci {
        a0 += x[c[0].as_usize()];
        a1 += x[c[1].as_usize()];
    }
    if let Some(c) = ci.remainder().first() {
        a0 += x[c.as_usize()];
    }
    a0 + a1
}

/// ‖y‖₂ from per-chunk sums of squares accumulated in `f64`; falls back to the two-pass
/// overflow-safe norm when the sum over- or underflows (or is NaN, which it then returns).
fn finish_norm<S: Scalar>(partials: &[f64], y: &[S]) -> S::Real {
    let s: f64 = partials.iter().sum();
    if s.is_finite() && s > 1e-290 {
        <S::Real as Scalar>::from_f64(s.sqrt())
    } else {
        norms::nrm2(y)
    }
}

#[inline(always)]
fn abs2_f64<S: Scalar>(v: S) -> f64 {
    let (re, im) = (v.re().as_f64(), v.im().as_f64());
    re * re + im * im
}

/// The fused Newton–Leja step over any row kernel `row(r) = (A·y_prev)_r`.
pub(crate) fn fused_leja<I, S, F>(
    row_ptr: &[I],
    step: &ShiftedStep<S>,
    y_prev: &[S],
    y_next: &mut [S],
    p: &mut [S],
    row: F,
) -> S::Real
where
    I: CsrIndex,
    S: Scalar,
    F: Fn(usize) -> S + Sync,
{
    let ShiftedStep {
        alpha: inv_gamma,
        shift,
        coeff,
    } = *step;
    let partials = map_row_chunks2(row_ptr, y_next, p, |rows, yc, pc| {
        let mut ss = 0.0f64;
        for ((yi, pi), r) in yc.iter_mut().zip(pc.iter_mut()).zip(rows) {
            let v = inv_gamma * row(r) + shift * y_prev[r];
            *yi = v;
            *pi += coeff * v;
            ss += abs2_f64(v);
        }
        ss
    });
    finish_norm(&partials, y_next)
}

pub(crate) fn check_leja_dims(
    n: usize,
    m: usize,
    y_prev: usize,
    y_next: usize,
    p: usize,
) -> Result<()> {
    check_dim("leja_step: square operator (ncols)", n, m)?;
    check_dim("leja_step: y_prev length", n, y_prev)?;
    check_dim("leja_step: y_next length", n, y_next)?;
    check_dim("leja_step: p length", n, p)
}

impl<S: Scalar, I: CsrIndex> CsrMatrix<S, I> {
    /// y ← α·A·x + β·y on host slices (y not read when β = 0; A, x not read when α = 0).
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] on wrong lengths.
    pub fn spmv(&self, alpha: S, x: &[S], beta: S, y: &mut [S]) -> Result<()> {
        check_dim("CsrMatrix::spmv: x length (ncols)", self.ncols(), x.len())?;
        check_dim("CsrMatrix::spmv: y length (nrows)", self.nrows(), y.len())?;
        let (rp, ci, va) = (self.row_ptr(), self.col_idx(), self.values());
        drive_spmv(rp, alpha, beta, y, |r| {
            let (s, e) = (rp[r].as_usize(), rp[r + 1].as_usize());
            row_dot(&ci[s..e], &va[s..e], x)
        });
        Ok(())
    }

    /// One Newton–Leja step in a single pass over A and the vectors:
    /// `y_next ← alpha·A·y_prev + shift·y_prev`, `p ← p + coeff·y_next`, returning
    /// ‖y_next‖₂ (sums of squares in `f64` per chunk; the overflow-safe
    /// [`matexp_core::norms::nrm2`] only if that over- or underflows). Rounding is identical
    /// to the unfused sequence except that the norm's summation order differs.
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] when a vector's length is not the order.
    pub fn leja_step_fused(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &[S],
        y_next: &mut [S],
        p: &mut [S],
    ) -> Result<S::Real> {
        check_leja_dims(
            self.nrows(),
            self.ncols(),
            y_prev.len(),
            y_next.len(),
            p.len(),
        )?;
        let (rp, ci, va) = (self.row_ptr(), self.col_idx(), self.values());
        Ok(fused_leja(rp, step, y_prev, y_next, p, |r| {
            let (s, e) = (rp[r].as_usize(), rp[r + 1].as_usize());
            row_dot(&ci[s..e], &va[s..e], y_prev)
        }))
    }
}

impl<I: CsrIndex> PatternCsr<I> {
    /// y ← α·P·x + β·y with every stored entry of P equal to 1 (y not read when β = 0;
    /// P, x not read when α = 0).
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] on wrong lengths.
    pub fn spmv<S: Scalar>(&self, alpha: S, x: &[S], beta: S, y: &mut [S]) -> Result<()> {
        check_dim("PatternCsr::spmv: x length (ncols)", self.ncols(), x.len())?;
        check_dim("PatternCsr::spmv: y length (nrows)", self.nrows(), y.len())?;
        let (rp, ci) = (self.row_ptr(), self.col_idx());
        drive_spmv(rp, alpha, beta, y, |r| {
            row_sum(&ci[rp[r].as_usize()..rp[r + 1].as_usize()], x)
        });
        Ok(())
    }

    /// The fused Newton–Leja step of [`CsrMatrix::leja_step_fused`] for the 0/1 matrix.
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] when a vector's length is not the order.
    pub fn leja_step_fused<S: Scalar>(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &[S],
        y_next: &mut [S],
        p: &mut [S],
    ) -> Result<S::Real> {
        check_leja_dims(
            self.nrows(),
            self.ncols(),
            y_prev.len(),
            y_next.len(),
            p.len(),
        )?;
        let (rp, ci) = (self.row_ptr(), self.col_idx());
        Ok(fused_leja(rp, step, y_prev, y_next, p, |r| {
            row_sum(&ci[rp[r].as_usize()..rp[r + 1].as_usize()], y_prev)
        }))
    }
}

impl<S: Scalar, I: CsrIndex> LinearOperator<CpuBackend, S> for CsrMatrix<S, I> {
    fn nrows(&self) -> usize {
        CsrMatrix::nrows(self)
    }
    fn ncols(&self) -> usize {
        CsrMatrix::ncols(self)
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.spmv(alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.gershgorin()
    }
    fn is_hermitian(&self) -> bool {
        CsrMatrix::is_hermitian(self)
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        CsrMatrix::hermitian_part_bounds(self)
    }
    fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar, I: CsrIndex> FusedOperator<CpuBackend, S> for CsrMatrix<S, I> {
    fn shifted_step(
        &self,
        _: &CpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &Vec<S>,
        y_next: &mut Vec<S>,
        p: &mut Vec<S>,
    ) -> Result<S::Real> {
        self.leja_step_fused(step, y_prev, y_next, p)
    }
}

impl<S: Scalar, I: CsrIndex> LinearOperator<CpuBackend, S> for PatternCsr<I> {
    fn nrows(&self) -> usize {
        PatternCsr::nrows(self)
    }
    fn ncols(&self) -> usize {
        PatternCsr::ncols(self)
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.spmv(alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.gershgorin()
    }
    fn is_hermitian(&self) -> bool {
        self.is_symmetric()
    }
    fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, S>> {
        Some(self)
    }
}

impl<S: Scalar, I: CsrIndex> FusedOperator<CpuBackend, S> for PatternCsr<I> {
    fn shifted_step(
        &self,
        _: &CpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &Vec<S>,
        y_next: &mut Vec<S>,
        p: &mut Vec<S>,
    ) -> Result<S::Real> {
        self.leja_step_fused(step, y_prev, y_next, p)
    }
}
