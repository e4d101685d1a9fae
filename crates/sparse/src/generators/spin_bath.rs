//! Two spins in a spin bath (seed 000, §3.1.1).

use crate::parallel::for_each_row_mut;
use crate::{CsrIndex, CsrMatrix, PatternCsr};
use matexp_core::{Error, Result, Scalar};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// Whether [`SpinBath::hamiltonian`] stores the entries that the seed's construction stores
/// although they are zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredZeros {
    /// Store them, as the seed does: (2L − 2)·2^L entries (8 912 896 for L = 18). Use this to
    /// reproduce the seed's timings, which move these zeros through memory.
    Keep,
    /// Drop them: (2L − 1)·2^(L−1) entries (4 587 520 for L = 18).
    Drop,
}

/// The Hamiltonian of two central spins coupled to a bath of L − 2 spins:
///
/// H = J₀ Σ_{i,j∈{1,2}} Σ_α S_{α,i} S_{α,j} + Σ_{i=3}^{L} J_i Σ_α S_{α,i} (S_{α,1} + S_{α,2}),
///
/// with S_α = σ_α / 2, S_{α,i} = I^{⊗(i−1)} ⊗ S_α ⊗ I^{⊗(L−i)}, α ∈ {x, y, z}. The seed takes
/// J₀ = 8 and J_i ~ U[0, 0.4] ([`SpinBath::seed000`]).
///
/// **Basis.** The S_z product basis in Kronecker order: spin i is bit L − i of the basis
/// index (spin 1 is the most significant bit) and a clear bit means spin up (S_z = +½).
///
/// **Entries.** With s_k = ±½ the S_z value of spin k in basis state b, and b ⊕ {k, l} the
/// state with spins k and l flipped, S_x⊗S_x + S_y⊗S_y maps |↑↓⟩ ↔ |↓↑⟩ with weight ½ and
/// annihilates |↑↑⟩, |↓↓⟩ (the x and y parts cancel exactly there). Hence row b holds
/// * the diagonal J₀[(s₁ + s₂)² + 1] + Σ_{i≥3} J_i s_i (s₁ + s₂) (the `+1` is
///   Σ_{α∈{x,y}} (S²_{α,1} + S²_{α,2}) = 4·¼);
/// * column b ⊕ {1, 2}: J₀ if s₁ ≠ s₂, else 0;
/// * columns b ⊕ {i, k}, i ≥ 3, k ∈ {1, 2}: J_i / 2 if s_i ≠ s_k, else 0.
///
/// That is 2 + 2(L − 2) = 2L − 2 positions per row — the seed's stored count
/// (2L − 2)·2^L comes from building H as a sum of Kronecker products, where the cancelling
/// x and y parts leave explicit zeros at every parallel-spin position. Half of the flip
/// positions are zero in each family, so the true nonzeros number 2^L·(1 + ½ + (L − 2)) =
/// (2L − 1)·2^(L−1).
///
/// H is real symmetric in this basis (S_y ⊗ S_y is real), so it can be built in any scalar
/// type; the Schrödinger evolution e^{−itH}ψ needs complex vectors. H commutes with the total
/// S_z: every nonzero entry joins states of equal popcount.
///
/// Construction: rows in parallel, each from bit operations on its index — O(L·2^L) time,
/// no Kronecker products, memory of the result only. L = 21 (2 M rows, 84 M stored entries)
/// takes about 1.7 GB as `c64`/`u32`.
///
/// ```
/// use matexp_sparse::generators::{SpinBath, StoredZeros};
/// use matexp_core::c64;
/// let model = SpinBath::seed000(10, 42)?;
/// let h = model.hamiltonian::<c64, u32>(StoredZeros::Keep)?;
/// assert_eq!(h.nnz(), (2 * 10 - 2) << 10);
/// assert!(h.is_hermitian());
/// let psi0 = model.initial_state::<c64>(7)?;
/// assert!((matexp_core::norms::nrm2(&psi0) - 1.0).abs() < 1e-14);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SpinBath {
    j0: f64,
    couplings: Vec<f64>,
}

/// Most spins supported: 2^30 rows already need ≈ 60 GB.
const MAX_SPINS: usize = 30;

impl SpinBath {
    /// The seed's model with `spins` = L spins: J₀ = 8 and bath couplings
    /// J_i = 0.4·u_i, i = 3..L, where u_3, u_4, … are the successive `rng.random::<f64>()`
    /// draws (uniform in [0, 1)) of `ChaCha8Rng::seed_from_u64(seed)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) unless 2 ≤ `spins` ≤ 30.
    pub fn seed000(spins: usize, seed: u64) -> Result<Self> {
        Self::check_spins(spins)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let couplings = (2..spins).map(|_| 0.4 * rng.random::<f64>()).collect();
        Self::new(8.0, couplings)
    }

    /// A model with central coupling `j0` and bath couplings `couplings` = [J_3, …, J_L]
    /// (so L = couplings.len() + 2). All must be finite.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) unless 2 ≤ L ≤ 30, or
    /// for a non-finite `j0` or coupling.
    pub fn new(j0: f64, couplings: Vec<f64>) -> Result<Self> {
        Self::check_spins(couplings.len() + 2)?;
        if !j0.is_finite() {
            return Err(Error::invalid("j0", j0, "must be finite"));
        }
        if let Some(j) = couplings.iter().find(|j| !j.is_finite()) {
            return Err(Error::invalid("couplings", j, "must be finite"));
        }
        Ok(SpinBath { j0, couplings })
    }

    fn check_spins(spins: usize) -> Result<()> {
        if !(2..=MAX_SPINS).contains(&spins) {
            return Err(Error::invalid(
                "spins",
                spins,
                format!("need 2 ≤ L ≤ {MAX_SPINS}"),
            ));
        }
        Ok(())
    }

    /// Number of spins L.
    pub fn spins(&self) -> usize {
        self.couplings.len() + 2
    }
    /// Hilbert-space dimension 2^L.
    pub fn dim(&self) -> usize {
        1 << self.spins()
    }
    /// Central coupling J₀.
    pub fn j0(&self) -> f64 {
        self.j0
    }
    /// Bath couplings [J_3, …, J_L].
    pub fn couplings(&self) -> &[f64] {
        &self.couplings
    }

    /// Stored entries of [`SpinBath::hamiltonian`]: (2L − 2)·2^L with `Keep`,
    /// (2L − 1)·2^(L−1) with `Drop` (assuming J₀ and every J_i nonzero; a zero coupling
    /// drops its entries too).
    pub fn stored_nnz(&self, zeros: StoredZeros) -> usize {
        let l = self.spins();
        match zeros {
            StoredZeros::Keep => (2 * l - 2) << l,
            StoredZeros::Drop => (2 * l - 1) << (l - 1),
        }
    }

    /// Calls `f(column, value)` for the 2L − 2 positions of row `b`, zeros included, the
    /// diagonal last.
    #[inline]
    fn row_entries(&self, b: usize, mut f: impl FnMut(usize, f64)) {
        let l = self.spins();
        let bit = |k: usize| 1usize << (l - k); // spin k, 1-based
        let s = |k: usize| if b & bit(k) == 0 { 0.5 } else { -0.5 };
        let (s1, s2) = (s(1), s(2));
        let mut diag = self.j0 * ((s1 + s2) * (s1 + s2) + 1.0);
        f(b ^ bit(1) ^ bit(2), if s1 != s2 { self.j0 } else { 0.0 });
        for (idx, &j) in self.couplings.iter().enumerate() {
            let i = idx + 3;
            let si = s(i);
            diag += j * si * (s1 + s2);
            for k in [1, 2] {
                f(b ^ bit(i) ^ bit(k), if si != s(k) { 0.5 * j } else { 0.0 });
            }
        }
        f(b, diag);
    }

    /// H as a canonical CSR matrix (rows sorted) in scalar `S` and index `I`; see the type's
    /// documentation for the entries.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the order 2^L or the entry count does not fit `I`.
    pub fn hamiltonian<S: Scalar, I: CsrIndex>(
        &self,
        zeros: StoredZeros,
    ) -> Result<CsrMatrix<S, I>> {
        let n = self.dim();
        I::narrow_checked(n, "2^L")?;
        let keep = zeros == StoredZeros::Keep;
        let per_row = 2 * self.spins() - 2;
        let row_ptr: Vec<I> = crate::generators::row_ptr_from_lengths(n, |b| {
            if keep {
                return per_row;
            }
            let mut count = 0;
            self.row_entries(b, |_, v| count += usize::from(v != 0.0));
            count
        })?;
        let nnz = row_ptr[n].as_usize();
        let mut cols = vec![I::narrow(0); nnz];
        let mut vals = vec![S::zero(); nnz];
        for_each_row_mut(&row_ptr, &mut cols, &mut vals, |b, c, v| {
            let mut e = [(0usize, 0.0f64); 2 * MAX_SPINS];
            let mut len = 0;
            self.row_entries(b, |col, val| {
                if keep || val != 0.0 {
                    e[len] = (col, val);
                    len += 1;
                }
            });
            let e = &mut e[..len];
            e.sort_unstable_by_key(|e| e.0);
            for (k, &(col, val)) in e.iter().enumerate() {
                c[k] = I::narrow(col);
                v[k] = S::from_f64(val);
            }
            false
        });
        Ok(CsrMatrix::from_pattern_trusted(
            PatternCsr::from_parts_trusted(n, n, row_ptr, cols, true),
            vals,
        ))
    }

    /// The seed's initial state ψ₀ = |↑⟩₁ ⊗ |↓⟩₂ ⊗ φ with φ a random unit vector of the bath
    /// (dimension 2^(L−2)), uniformly distributed on the unit sphere: i.i.d. standard normal
    /// components (real and imaginary parts for complex `S`, drawn in that order from
    /// `ChaCha8Rng::seed_from_u64(seed)`), normalized in `f64`. ‖ψ₀‖₂ = 1 to rounding.
    ///
    /// # Errors
    ///
    /// None for a model built by [`SpinBath::new`] or [`SpinBath::seed000`] (their checks bound
    /// L, hence the state length).
    pub fn initial_state<S: Scalar>(&self, seed: u64) -> Result<Vec<S>> {
        let l = self.spins();
        let bath = 1usize << (l - 2);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let phi: Vec<(f64, f64)> = (0..bath)
            .map(|_| {
                let re: f64 = rng.sample(StandardNormal);
                let im: f64 = if S::IS_COMPLEX {
                    rng.sample(StandardNormal)
                } else {
                    0.0
                };
                (re, im)
            })
            .collect();
        let norm = phi.iter().map(|(a, b)| a * a + b * b).sum::<f64>().sqrt();
        let mut psi = vec![S::zero(); self.dim()];
        // Spin 1 up: bit L−1 clear; spin 2 down: bit L−2 set.
        let offset = 1usize << (l - 2);
        for (k, (re, im)) in phi.into_iter().enumerate() {
            psi[offset + k] = S::from_c64(matexp_core::c64::new(re / norm, im / norm));
        }
        Ok(psi)
    }
}
