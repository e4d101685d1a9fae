//! The Bose–Hubbard model on its Fock basis: `N` bosons on `M` sites.
//!
//! * [`FockBasis`]: the `D(N, M) = C(N+M−1, M−1)` occupation states in lexicographic order,
//!   closed-form [`FockBasis::rank`] / [`FockBasis::unrank`], and the Δ table that gives the
//!   index of a nearest-neighbour hop in O(1) (64-bit indices; overflow is a typed error).
//! * [`PackedStates`]: the occupations of every state packed at 4 or 8 bits per site, sorted
//!   so that a state can also be found by binary search.
//! * [`BoseHubbard`]: the matrix-free Hamiltonian
//!   `H(t) = −Σ J_k(t)(b†_k b_{k+1} + h.c.) + Σ V_k(t) n_k + Σ U_k(t)/2 · n_k(n_k−1)` on an open
//!   or periodic chain, a [`matexp_core::TimeDependentOperator`] (`y ← α·H(t)·x + β·y`, any
//!   scalar type, rayon); [`BoseHubbard::at`] freezes it into a
//!   [`matexp_core::LinearOperator`] and [`BoseHubbard::to_csr`] assembles it.
//! * [`SpinBasis`] and [`XxzChain`] ([`spin`]): spin-½ chains in one `S^z` sector as hard-core
//!   bosons, the XXZ chain with fields, its initial states and `⟨S^z⟩` observables.
//! * Observables: [`site_densities`], [`energy`], and the initial states [`fock_state`] and
//!   [`mean_field_state`].
//!
//! Time integration (RK4, Cash–Karp RK45) lives in `matexp-integrators` (`rk` module); the
//! propagator `e^{−iHt}v` of a time-independent model is any `f(tA)v` solver applied to
//! [`BoseHubbard::at`].
//!
//! The model follows Ralf Dieckmann's bachelor thesis (*Bose–Hubbard model with
//! time-dependent potentials on GPUs*, Stuttgart 2016); the hop identity and the closed-form
//! rank are re-derived in [`basis`].
//!
//! ```
//! use matexp_core::{CpuBackend, LinearOperator, c64};
//! use matexp_fock::{BoseHubbard, Coupling, FockBasis, fock_state, energy};
//! let h = BoseHubbard::new(FockBasis::new(3, 4)?)
//!     .with_hopping(Coupling::Uniform(1.0))?
//!     .with_interaction(Coupling::Uniform(2.0))?;
//! let psi: Vec<c64> = fock_state(h.basis(), &[3, 0, 0, 0])?;
//! let mut scratch = vec![c64::new(0.0, 0.0); psi.len()];
//! // ⟨3,0,0,0|H|3,0,0,0⟩ = U/2 · 3·2 = 6
//! let e = energy(&CpuBackend, &h.at(0.0)?, &psi, &mut scratch)?;
//! assert!((e - 6.0).abs() < 1e-14);
//! # Ok::<(), matexp_core::Error>(())
//! ```

mod apply;
pub mod basis;
mod csr;
#[cfg(feature = "gpu")]
pub mod gpu;
mod model;
mod observables;
mod packed;
pub mod spin;

pub use apply::BLOCK;
pub use basis::{FockBasis, MAX_SITES, MAX_TABLE_ENTRIES, dimension};
pub use model::{BoseHubbard, Boundary, Coefficients, Coupling, FrozenBoseHubbard, SiteFn};
pub use observables::{energy, fock_state, mean_field_state, site_densities};
pub use packed::{PackBits, PackedStates};
pub use spin::basis::{MAX_SPIN_SITES, SpinBasis, binomial};
pub use spin::model::XxzChain;
pub use spin::states::{
    basis_state, neel_word, product_state, random_state, random_unit, sz_correlations, sz_profile,
};
