//! Spin-½ chains in one U(1) sector (fixed `S^z`), as hard-core bosons: at most one
//! particle (up spin) per site, a fixed number of them.
//!
//! * [`basis`]: the sector [`SpinBasis`], its combinatorial-number-system rank and unrank, the
//!   O(1) index shift of a flip-flop (derived there), Gosper's successor.
//! * [`model`]: the XXZ chain with site fields [`XxzChain`], open or periodic, with its
//!   matrix-free product on the CPU (rayon; `f32`, `f64`, `c32`, `c64`: real coefficients on
//!   real or complex vectors).
//! * [`states`]: the Néel, product and seeded random states, `⟨S^z_k⟩` and `⟨S^z_0 S^z_r⟩`.
//!
//! The GPU product and the device-side states and observables are in `crate::gpu`
//! (feature `gpu`).

pub mod basis;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod model;
pub mod states;
