//! The matrix-free product `y ← α·H·x + β·y` on the CPU (rayon).
//!
//! Rows are processed in blocks of [`BLOCK`] consecutive states: each block unranks its first
//! state and steps through the rest with [`FockBasis::next_state`], so no state table is
//! stored. For row `i` with occupations `n` and `r` the particles right of site `m`, the hops
//! across bond `m` read `x[i − Δ(r, M−m)]` (a particle moves right) and `x[i + Δ(r−1, M−m)]`
//! (a particle moves left); the periodic bond re-ranks the hopped state (`O(M)`).
//!
//! Cost per row: `M − 1` bonds with two hops each and the diagonal, so about `4M` flops
//! (real couplings) and `(2M − 1)` reads of `x` scattered at distances `Δ`; the product is
//! bound by memory traffic at large `D`. The result is exact up to the rounding of the sum
//! (each hop amplitude is `−J·(√(n_to+1)·√n_from)`, the product of the roots formed first so
//! that the two directions of a hop round alike and the operator is exactly symmetric).

use crate::FockBasis;
use crate::model::{BoseHubbard, Boundary, Coefficients, FrozenBoseHubbard};
use matexp_core::{
    Backend, CpuBackend, LinearOperator, Result, Scalar, SpectralBounds, TimeDependentOperator,
    check_dim,
};
use num_traits::{One, Zero};
use rayon::prelude::*;

/// Rows per parallel task.
pub const BLOCK: usize = 1 << 12;

/// `y ← α·H·x + β·y` with the couplings `c` (`y` not read when `β = 0`).
pub(crate) fn apply_cpu<S: Scalar>(
    model: &BoseHubbard,
    c: &Coefficients,
    alpha: S,
    x: &[S],
    beta: S,
    y: &mut [S],
) -> Result<()> {
    let basis = model.basis();
    let dim = basis.len()?;
    check_dim("Bose–Hubbard product: x length", dim, x.len())?;
    check_dim("Bose–Hubbard product: y length", dim, y.len())?;
    let m = basis.sites() as usize;
    let periodic = model.boundary() == Boundary::Periodic;
    let real = |v: f64| <S::Real as Scalar>::from_f64(v);
    // Couplings in the working precision; hops carry the minus sign of −J.
    let mj: Vec<S::Real> = c.hopping.iter().map(|&j| real(-j)).collect();
    let v: Vec<S::Real> = c.potential.iter().map(|&v| real(v)).collect();
    let hu: Vec<S::Real> = c.interaction.iter().map(|&u| real(0.5 * u)).collect();
    let sq: Vec<S::Real> = model.sqrt_table().iter().map(|&s| real(s)).collect();
    let beta_zero = beta == S::zero();

    y.par_chunks_mut(BLOCK).enumerate().for_each(|(b, ychunk)| {
        let start = b * BLOCK;
        let mut occ = vec![0u32; m];
        let mut hopped = vec![0u32; m];
        basis.unrank_unchecked(start as u64, &mut occ);
        for (off, yi) in ychunk.iter_mut().enumerate() {
            if off > 0 {
                FockBasis::next_state(&mut occ);
            }
            let i = start + off;
            let mut acc = S::zero();
            let mut diag = S::Real::zero();
            let mut r = basis.particles();
            for k in 0..m {
                let nk = occ[k];
                let nkr = <S::Real as Scalar>::from_f64(f64::from(nk));
                diag += v[k] * nkr + hu[k] * nkr * (nkr - S::Real::one());
                r -= nk;
                if k + 1 < m {
                    let nn = occ[k + 1];
                    let s = m - k;
                    if nk != 0 {
                        let j = i - basis.delta(r, s) as usize;
                        acc += x[j].scale(mj[k] * (sq[nn as usize + 1] * sq[nk as usize]));
                    }
                    if nn != 0 {
                        let j = i + basis.delta(r - 1, s) as usize;
                        acc += x[j].scale(mj[k] * (sq[nk as usize + 1] * sq[nn as usize]));
                    }
                }
            }
            if periodic {
                let (first, last) = (0, m - 1);
                for (from, to) in [(last, first), (first, last)] {
                    if occ[from] != 0 {
                        hopped.copy_from_slice(&occ);
                        hopped[from] -= 1;
                        hopped[to] += 1;
                        let j = basis.rank_unchecked(&hopped) as usize;
                        let amp = mj[m - 1] * (sq[occ[to] as usize + 1] * sq[occ[from] as usize]);
                        acc += x[j].scale(amp);
                    }
                }
            }
            acc += x[i].scale(diag);
            *yi = if beta_zero {
                alpha * acc
            } else {
                alpha * acc + beta * *yi
            };
        }
    });
    Ok(())
}

impl<S: Scalar> TimeDependentOperator<CpuBackend, S> for BoseHubbard {
    fn nrows(&self) -> usize {
        self.basis().dim() as usize
    }
    fn ncols(&self) -> usize {
        self.basis().dim() as usize
    }
    fn apply_at(
        &self,
        _: &CpuBackend,
        t: f64,
        alpha: S,
        x: &<CpuBackend as Backend>::Vector<S>,
        beta: S,
        y: &mut <CpuBackend as Backend>::Vector<S>,
    ) -> Result<()> {
        let c = self.coefficients_at(t)?;
        apply_cpu(self, &c, alpha, x, beta, y)
    }
    fn spectral_bounds_at(&self, t: f64) -> Option<SpectralBounds> {
        self.spectral_bounds_with(&self.coefficients_at(t).ok()?)
    }
    fn norm_bound_at(&self, t: f64) -> Option<f64> {
        Some(self.norm_bound_with(&self.coefficients_at(t).ok()?))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

impl<S: Scalar> LinearOperator<CpuBackend, S> for FrozenBoseHubbard<'_> {
    fn nrows(&self) -> usize {
        self.model.basis().dim() as usize
    }
    fn ncols(&self) -> usize {
        self.model.basis().dim() as usize
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        apply_cpu(self.model, &self.coeffs, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.model.spectral_bounds_with(&self.coeffs)
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.model.norm_bound_with(&self.coeffs))
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}
