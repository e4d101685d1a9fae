//! A real CSR matrix acting on complex vectors: the spin bath, the Laplacian in Schrödinger
//! form and the Bose–Hubbard Hamiltonian are real, their vectors complex.
//!
//! **Why.** Stored as complex, every entry moves `size_of::<c64>() + size_of::<u32>()` = 20
//! bytes per product; stored as real, 12 (and half the matrix memory). Each term is
//! `a_ij·x_j` with `a_ij` real: two real multiplications instead of a complex one.
//!
//! **The path.** `CsrMatrix<f64, I>` is a [`LinearOperator`] on `c64` vectors (and
//! `CsrMatrix<f32, I>` on `c32`) beside its own real scalar, so every method (Leja with its
//! fused step, Lanczos, Arnoldi, Taylor) takes it when it is handed a real matrix and a
//! complex vector; nothing is converted. The spectral information is the real matrix's
//! (the same operator): Gershgorin bounds, symmetric = Hermitian.
//!
//! **Accuracy.** `a·(x + iy) = a·x + i·a·y` is what the complex product computes for an entry
//! `a + 0i` (the zero terms add exact zeros), so results equal those of the complex copy of
//! the matrix up to the sign of zero; each row is summed left to right as in [`crate::operator`].

use crate::operator::{check_leja_dims, drive_spmv, fused_leja};
use crate::{CsrIndex, CsrMatrix};
use matexp_core::{
    CpuBackend, FusedOperator, LinearOperator, RealScalar, Result, Scalar, ShiftedStep,
    SpectralBounds, c32, c64, check_dim,
};

/// Σ_k vals[k]·x[cols[k]] with real values and any vectors of the same precision, two
/// interleaved accumulators as in the same-type row.
#[inline(always)]
fn row_dot_real<R: RealScalar, S: Scalar<Real = R>, I: CsrIndex>(
    cols: &[I],
    vals: &[R],
    x: &[S],
) -> S {
    let mut a0 = S::zero();
    let mut a1 = S::zero();
    let mut ci = cols.chunks_exact(2);
    let mut vi = vals.chunks_exact(2);
    for (c, v) in (&mut ci).zip(&mut vi) {
        a0 += x[c[0].as_usize()].scale(v[0]);
        a1 += x[c[1].as_usize()].scale(v[1]);
    }
    if let (Some(c), Some(v)) = (ci.remainder().first(), vi.remainder().first()) {
        a0 += x[c.as_usize()].scale(*v);
    }
    a0 + a1
}

impl<S: Scalar, I: CsrIndex> CsrMatrix<S, I> {
    /// The operator's spectral bounds ([`CsrMatrix::gershgorin`]), as
    /// [`LinearOperator::spectral_bounds`] gives them for every vector type: inherent so
    /// that `a.spectral_bounds()` names no vector type (a real matrix is an operator on real
    /// and on complex vectors).
    pub fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.gershgorin()
    }
}

impl<R: RealScalar, I: CsrIndex> CsrMatrix<R, I> {
    /// y ← α·A·x + β·y for this real matrix and vectors of any scalar of its precision
    /// (complex ones: the mixed product of the module docs); y not read when β = 0, A and x
    /// not read when α = 0. O(nnz + n), parallel, `nnz·(size_of::<R>() + size_of::<I>())`
    /// bytes of matrix traffic.
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] on wrong lengths.
    pub fn spmv_real_values<S: Scalar<Real = R>>(
        &self,
        alpha: S,
        x: &[S],
        beta: S,
        y: &mut [S],
    ) -> Result<()> {
        check_dim("CsrMatrix::spmv: x length (ncols)", self.ncols(), x.len())?;
        check_dim("CsrMatrix::spmv: y length (nrows)", self.nrows(), y.len())?;
        let (rp, ci, va) = (self.row_ptr(), self.col_idx(), self.values());
        drive_spmv(rp, alpha, beta, y, |r| {
            let (s, e) = (rp[r].as_usize(), rp[r + 1].as_usize());
            row_dot_real(&ci[s..e], &va[s..e], x)
        });
        Ok(())
    }

    /// The fused Newton–Leja step of [`CsrMatrix::leja_step_fused`] for this real matrix and
    /// vectors of any scalar of its precision: `y_next ← alpha·A·y_prev + shift·y_prev`,
    /// `p ← p + coeff·y_next`, returning ‖y_next‖₂, in one pass.
    ///
    /// # Errors
    ///
    /// [`matexp_core::Error::DimensionMismatch`] when a vector's length is not the order.
    pub fn leja_step_real_values<S: Scalar<Real = R>>(
        &self,
        step: &ShiftedStep<S>,
        y_prev: &[S],
        y_next: &mut [S],
        p: &mut [S],
    ) -> Result<R> {
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
            row_dot_real(&ci[s..e], &va[s..e], y_prev)
        }))
    }
}

/// The operator impls of a real matrix on complex vectors of its precision (`$r` values,
/// `$c` vectors).
macro_rules! real_on_complex {
    ($r:ty, $c:ty) => {
        impl<I: CsrIndex> LinearOperator<CpuBackend, $c> for CsrMatrix<$r, I> {
            fn nrows(&self) -> usize {
                CsrMatrix::nrows(self)
            }
            fn ncols(&self) -> usize {
                CsrMatrix::ncols(self)
            }
            fn apply(
                &self,
                _: &CpuBackend,
                alpha: $c,
                x: &Vec<$c>,
                beta: $c,
                y: &mut Vec<$c>,
            ) -> Result<()> {
                self.spmv_real_values(alpha, x, beta, y)
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
            fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, $c>> {
                Some(self)
            }
        }

        impl<I: CsrIndex> FusedOperator<CpuBackend, $c> for CsrMatrix<$r, I> {
            fn shifted_step(
                &self,
                _: &CpuBackend,
                step: &ShiftedStep<$c>,
                y_prev: &Vec<$c>,
                y_next: &mut Vec<$c>,
                p: &mut Vec<$c>,
            ) -> Result<$r> {
                self.leja_step_real_values(step, y_prev, y_next, p)
            }
        }
    };
}

real_on_complex!(f64, c64);
real_on_complex!(f32, c32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{SpinBath, StoredZeros};

    fn vector(n: usize, seed: u64) -> Vec<c64> {
        let mut rng = matexp_core::rng::SplitMix64::new(seed);
        (0..n)
            .map(|_| c64::new(rng.next_f64() - 0.5, rng.next_f64() - 0.5))
            .collect()
    }

    /// The real matrix on complex vectors equals its complex copy's product and fused step
    /// to rounding (the same terms, each row in the same order).
    #[test]
    fn real_values_match_the_complex_copy() {
        let bath = SpinBath::seed000(8, 3).unwrap();
        let a: CsrMatrix<f64> = bath.hamiltonian(StoredZeros::Keep).unwrap();
        let ac: CsrMatrix<c64> = a.cast().unwrap();
        let n = a.nrows();
        let x = vector(n, 1);
        let y0 = vector(n, 2);
        let (alpha, beta) = (c64::new(0.3, -1.2), c64::new(-0.5, 0.25));
        let (mut y, mut yc) = (y0.clone(), y0.clone());
        a.spmv_real_values(alpha, &x, beta, &mut y).unwrap();
        ac.spmv(alpha, &x, beta, &mut yc).unwrap();
        let scale = yc.iter().map(|v| v.norm()).fold(0.0, f64::max);
        for (u, v) in y.iter().zip(&yc) {
            assert!((u - v).norm() <= 1e-15 * scale, "{u} vs {v}");
        }
        let step = ShiftedStep {
            alpha: c64::new(0.0, -0.1),
            shift: c64::new(0.5, 0.0),
            coeff: c64::new(0.2, 0.1),
        };
        let (mut yn, mut ync) = (vec![c64::default(); n], vec![c64::default(); n]);
        let (mut p, mut pc) = (y0.clone(), y0);
        let nrm = a.leja_step_real_values(&step, &x, &mut yn, &mut p).unwrap();
        let nrmc = ac.leja_step_fused(&step, &x, &mut ync, &mut pc).unwrap();
        assert!((nrm - nrmc).abs() <= 1e-14 * nrmc);
        for (u, v) in yn.iter().zip(&ync).chain(p.iter().zip(&pc)) {
            assert!((u - v).norm() <= 1e-14 * (1.0 + v.norm()), "{u} vs {v}");
        }
    }

    /// Through the operator trait with both vector types: the real matrix's bounds and
    /// Hermitian-ness, wrong lengths rejected with a typed error.
    #[test]
    fn the_operator_serves_real_and_complex_vectors() {
        let a: CsrMatrix<f64> = CsrMatrix::from_triplets(
            2,
            2,
            &[(0, 0, 2.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 2.0)],
        )
        .unwrap();
        let cpu = CpuBackend::new();
        let x = vec![c64::new(1.0, 2.0), c64::new(-1.0, 0.5)];
        let mut y = vec![c64::default(); 2];
        LinearOperator::<CpuBackend, c64>::apply(
            &a,
            &cpu,
            c64::new(1.0, 0.0),
            &x,
            c64::default(),
            &mut y,
        )
        .unwrap();
        assert_eq!(y, vec![c64::new(3.0, 3.5), c64::new(-3.0, -1.0)]);
        assert!(LinearOperator::<CpuBackend, c64>::is_hermitian(&a));
        let b = LinearOperator::<CpuBackend, c64>::spectral_bounds(&a).unwrap();
        assert_eq!((b.re_min, b.re_max), (1.0, 3.0));
        let mut short = vec![c64::default(); 1];
        assert!(matches!(
            a.spmv_real_values(c64::new(1.0, 0.0), &x, c64::default(), &mut short),
            Err(matexp_core::Error::DimensionMismatch { .. })
        ));
        let mut yr = vec![0.0; 2];
        a.apply(&cpu, 1.0, &[1.0, 1.0].to_vec(), 0.0, &mut yr)
            .unwrap();
        assert_eq!(yr, vec![1.0, 1.0]);
    }
}
