//! The XXZ chain with site fields in one U(1) sector, and its matrix-free product on the CPU.
//!
//! ```text
//! H = Σ_b [ J⊥_b/2 · (S⁺_i S⁻_j + S⁻_i S⁺_j) + J^z_b · S^z_i S^z_j ] + Σ_k h_k S^z_k
//! ```
//!
//! over the bonds `b = (i, j)`: `(k, k+1)` for `k < L − 1`, and `(L−1, 0)` on the ring. `J⊥ =
//! J^z = J` is the Heisenberg chain `J Σ S_i·S_j`. Every coefficient is real, so `H` is real
//! symmetric and acts on real or complex vectors alike. `H` conserves `S^z`, so it maps the
//! sector of [`SpinBasis`] to itself.
//!
//! **Product** `y ← α·H·x + β·y` (rayon, blocks of [`crate::BLOCK`] rows: each block unranks its
//! first word and steps through the rest by Gosper's successor). Row `i` with word `s`: the
//! diagonal `Σ_b ±J^z_b/4 + Σ_k ±h_k/2` (`+` for aligned spins, up spins), and for every bond
//! whose spins differ one gather `J⊥_b/2 · x[i ± C(j, p)]` (the O(1) shift of
//! [`crate::spin::basis`]); the ring's bond re-ranks its column (`O(K)`). Cost per row about
//! `2L` integer operations and at most `L` gathers; exact up to the rounding of the row's sum
//! of at most `L + 1` terms.

use super::basis::SpinBasis;
use crate::apply::BLOCK;
use crate::model::{Boundary, Coupling};
use matexp_core::{
    Backend, CpuBackend, Error, LinearOperator, Result, Scalar, SpectralBounds, check_dim,
};
use num_traits::Zero;
use rayon::prelude::*;
use std::sync::Arc;

/// The XXZ chain on a [`SpinBasis`] (see the module documentation).
///
/// ```
/// use matexp_core::{CpuBackend, LinearOperator};
/// use matexp_fock::{Boundary, SpinBasis, XxzChain};
/// // Two spins, one up: the singlet (|01⟩ − |10⟩)/√2 has energy −3J/4.
/// let h = XxzChain::heisenberg(SpinBasis::new(2, 1)?, Boundary::Open, 1.0)?;
/// let s = 0.5f64.sqrt();
/// let x = vec![s, -s];
/// let mut y = vec![0.0; 2];
/// h.apply(&CpuBackend, 1.0, &x, 0.0, &mut y)?;
/// assert!((y[0] + 0.75 * s).abs() < 1e-15 && (y[1] - 0.75 * s).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct XxzChain {
    basis: Arc<SpinBasis>,
    boundary: Boundary,
    jxy: Vec<f64>,
    jz: Vec<f64>,
    field: Vec<f64>,
}

impl XxzChain {
    /// The chain on `basis` with every coupling zero.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ring of fewer than 3 sites.
    pub fn new(basis: SpinBasis, boundary: Boundary) -> Result<Self> {
        let l = basis.sites() as usize;
        if boundary == Boundary::Periodic && l < 3 {
            return Err(Error::invalid(
                "boundary",
                "Periodic",
                format!("a ring needs at least 3 sites, the chain has {l}"),
            ));
        }
        let bonds = if boundary == Boundary::Periodic {
            l
        } else {
            l - 1
        };
        Ok(XxzChain {
            basis: Arc::new(basis),
            boundary,
            jxy: vec![0.0; bonds],
            jz: vec![0.0; bonds],
            field: vec![0.0; l],
        })
    }

    /// The Heisenberg chain `J Σ_b S_i·S_j` (no field).
    ///
    /// # Errors
    /// As [`XxzChain::new`]; [`Error::NonFinite`] for a non-finite `j`.
    pub fn heisenberg(basis: SpinBasis, boundary: Boundary, j: f64) -> Result<Self> {
        Self::new(basis, boundary)?
            .with_jxy(Coupling::Uniform(j))?
            .with_jz(Coupling::Uniform(j))
    }

    /// Sets the flip-flop couplings `J⊥_b`, one per bond.
    ///
    /// # Errors
    /// See [`XxzChain::with_field`].
    pub fn with_jxy(mut self, c: Coupling) -> Result<Self> {
        self.jxy = values("J⊥ (one per bond)", c, self.jxy.len())?;
        Ok(self)
    }

    /// Sets the Ising couplings `J^z_b`, one per bond.
    ///
    /// # Errors
    /// See [`XxzChain::with_field`].
    pub fn with_jz(mut self, c: Coupling) -> Result<Self> {
        self.jz = values("J^z (one per bond)", c, self.jz.len())?;
        Ok(self)
    }

    /// Sets the fields `h_k`, one per site.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a per-site vector of the wrong length,
    /// [`Error::NonFinite`] for a non-finite value, [`Error::Unsupported`] for a
    /// time-dependent coupling (the chain is time-independent).
    pub fn with_field(mut self, c: Coupling) -> Result<Self> {
        self.field = values("h (one per site)", c, self.field.len())?;
        Ok(self)
    }

    /// The sector.
    pub fn basis(&self) -> &SpinBasis {
        &self.basis
    }

    /// The boundary condition.
    pub fn boundary(&self) -> Boundary {
        self.boundary
    }

    /// `J⊥_b` per bond (bond `k` couples `k` and `k + 1`; on the ring bond `L − 1` couples
    /// `L − 1` and 0).
    pub fn jxy(&self) -> &[f64] {
        &self.jxy
    }

    /// `J^z_b` per bond.
    pub fn jz(&self) -> &[f64] {
        &self.jz
    }

    /// `h_k` per site.
    pub fn field(&self) -> &[f64] {
        &self.field
    }

    /// The coefficients as the kernels read them: `[J⊥_b/2 (bonds), J^z_b/4 (bonds),
    /// h_k/2 (L)]`.
    pub fn kernel_coefficients(&self) -> Vec<f64> {
        let mut c: Vec<f64> = self.jxy.iter().map(|j| 0.5 * j).collect();
        c.extend(self.jz.iter().map(|j| 0.25 * j));
        c.extend(self.field.iter().map(|h| 0.5 * h));
        c
    }

    /// Gershgorin: the diagonal lies in `±(Σ|J^z|/4 + Σ|h|/2)` and the off-diagonal row sums
    /// are at most `Σ|J⊥|/2`.
    pub fn spectral_bounds_real(&self) -> (f64, f64) {
        let sum = |v: &[f64], f: f64| v.iter().map(|x| x.abs()).sum::<f64>() * f;
        let r = sum(&self.jz, 0.25) + sum(&self.field, 0.5) + sum(&self.jxy, 0.5);
        (-r, r)
    }

    /// `y ← α·H·x + β·y` on host slices (`y` not read when `β = 0`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for wrong lengths.
    pub fn apply_slices<S: Scalar>(&self, alpha: S, x: &[S], beta: S, y: &mut [S]) -> Result<()> {
        let d = self.basis.len()?;
        check_dim("XXZ product: x length", d, x.len())?;
        check_dim("XXZ product: y length", d, y.len())?;
        let coeffs = self.kernel_coefficients();
        let real = |v: &f64| <S::Real as Scalar>::from_f64(*v);
        let c: Vec<S::Real> = coeffs.iter().map(real).collect();
        let nb = self.jxy.len();
        let (jxy2, rest) = c.split_at(nb);
        let (jz4, h2) = rest.split_at(nb);
        let basis = &*self.basis;
        let l = basis.sites();
        let periodic = self.boundary == Boundary::Periodic;
        let beta_zero = beta == S::zero();
        let open = l.saturating_sub(1) as usize;
        let open_mask = if l >= 2 { (1u64 << (l - 1)) - 1 } else { 0 };
        let two = <S::Real as Scalar>::from_f64(2.0);
        let jz2: Vec<S::Real> = jz4.iter().map(|&v| two * v).collect();
        let jz_open = jz4[..open].iter().fold(S::Real::zero(), |a, &v| a + v);
        let h1: Vec<S::Real> = h2.iter().map(|&v| two * v).collect();
        let h_down = h2.iter().fold(S::Real::zero(), |a, &v| a - v);
        let has_field = self.field.iter().any(|&h| h != 0.0);
        y.par_chunks_mut(BLOCK)
            .enumerate()
            .for_each(|(blk, ychunk)| {
                let start = (blk * BLOCK) as u64;
                let mut s = basis.unrank_unchecked(start);
                for (off, yi) in ychunk.iter_mut().enumerate() {
                    if off > 0 {
                        s = SpinBasis::next_state(s);
                    }
                    let i = start as usize + off;
                    let mut acc = S::zero();
                    // Bit j of `flips`: bond (j, j+1) has opposite spins (−J^z/4 and a
                    // flip-flop); the others are aligned (+J^z/4). Visiting only the set bits
                    // keeps the loop free of data-dependent branches.
                    let mut diag = jz_open;
                    let mut f = (s ^ (s >> 1)) & open_mask;
                    while f != 0 {
                        let j = f.trailing_zeros();
                        f &= f - 1;
                        diag -= jz2[j as usize];
                        let d = basis.c(j, (s & ((1u64 << j) - 1)).count_ones()) as usize;
                        let col = if (s >> j) & 1 == 1 { i + d } else { i - d };
                        acc += x[col].scale(jxy2[j as usize]);
                    }
                    if periodic {
                        let last = l - 1;
                        if (s ^ (s >> last)) & 1 == 0 {
                            diag += jz4[last as usize];
                        } else {
                            diag -= jz4[last as usize];
                            let col = basis.rank_unchecked(s ^ (1 | 1u64 << last)) as usize;
                            acc += x[col].scale(jxy2[last as usize]);
                        }
                    }
                    if has_field {
                        // Σ_k ±h_k/2 = −Σ h_k/2 + Σ_{k up} h_k.
                        diag += h_down;
                        let mut u = s;
                        while u != 0 {
                            diag += h1[u.trailing_zeros() as usize];
                            u &= u - 1;
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
}

fn values(name: &'static str, c: Coupling, len: usize) -> Result<Vec<f64>> {
    let v = match c {
        Coupling::Uniform(x) => vec![x; len],
        Coupling::PerSite(v) => {
            check_dim(name, len, v.len())?;
            v
        }
        Coupling::Function(_) => {
            return Err(Error::Unsupported(format!(
                "the XXZ chain is time-independent: {name} must be uniform or per site"
            )));
        }
    };
    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            context: format!("XXZ coupling {name}"),
            index: k,
            value: format!("{}", v[k]),
        });
    }
    Ok(v)
}

impl<S: Scalar> LinearOperator<CpuBackend, S> for XxzChain {
    fn nrows(&self) -> usize {
        self.basis.dim() as usize
    }
    fn ncols(&self) -> usize {
        self.basis.dim() as usize
    }
    fn apply(
        &self,
        _: &CpuBackend,
        alpha: S,
        x: &<CpuBackend as Backend>::Vector<S>,
        beta: S,
        y: &mut <CpuBackend as Backend>::Vector<S>,
    ) -> Result<()> {
        self.apply_slices(alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        let (lo, hi) = self.spectral_bounds_real();
        SpectralBounds::real(lo, hi).ok()
    }
    fn norm_bound(&self) -> Option<f64> {
        Some(self.spectral_bounds_real().1)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}
