//! Helpers shared by the stencil tests.
#![allow(dead_code)]

use matexp_core::RealScalar;
use matexp_core::rng::SplitMix64;
use matexp_stencil::{Boundary, Coefficient, Dim};

pub const KINDS: [Boundary; 4] = [
    Boundary::Dirichlet,
    Boundary::Neumann,
    Boundary::Periodic,
    Boundary::Frame,
];

/// A deterministic pseudo-random vector in [−1, 1] (SplitMix64).
pub fn random_vec<S: RealScalar>(len: usize, seed: u64) -> Vec<S> {
    let mut g = SplitMix64::new(seed.wrapping_add(0x9E37_79B9_7F4A_7C15));
    (0..len).map(|_| S::from_f64(g.next_signed())).collect()
}

/// The three coefficient kinds: unit, the seed's `D`, and a random positive field.
pub fn coefficient<S: RealScalar>(which: usize, len: usize, seed: u64) -> Coefficient<S> {
    match which % 3 {
        0 => Coefficient::Unit,
        1 => Coefficient::Seed,
        _ => Coefficient::field(
            random_vec::<S>(len, seed)
                .into_iter()
                .map(|v| S::from_f64(1.5) + v)
                .collect::<Vec<S>>(),
        ),
    }
}

pub fn dim(three: bool) -> Dim {
    if three { Dim::Three } else { Dim::Two }
}

/// max |a − b| / max(max |b|, floor).
pub fn rel_err<S: RealScalar>(a: &[S], b: &[S], floor: f64) -> f64 {
    let scale = b.iter().map(|v| v.as_f64().abs()).fold(floor, f64::max);
    a.iter()
        .zip(b)
        .map(|(x, y)| (x.as_f64() - y.as_f64()).abs())
        .fold(0.0, f64::max)
        / scale
}
