//! SplitMix64, the one small generator of the workspace.
//!
//! Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014: the
//! state advances by the golden-ratio increment γ = 0x9E3779B97F4A7C15 and each output is a
//! bijective 64-bit scramble of the state. Its output for a seed is fixed forever (no
//! dependency whose stream may change), and [`SplitMix64::mix`] is a pure function of a
//! counter, so random entries can be drawn per index in any order or thread (the generators'
//! rows, the methods' seeded probe vectors). Statistically good enough for start vectors,
//! probes and test inputs; not for cryptography.

use crate::{RealScalar, Scalar, c64};

/// The golden-ratio increment of the state.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64: `next_u64` returns `mix(state)` and advances the state by γ.
///
/// ```
/// use matexp_core::rng::SplitMix64;
/// let mut g = SplitMix64::new(7);
/// let first = g.next_u64();
/// assert_eq!(first, SplitMix64::mix(7));
/// assert_eq!(g.next_u64(), SplitMix64::mix(7u64.wrapping_add(0x9E37_79B9_7F4A_7C15)));
/// assert!((0.0..1.0).contains(&g.next_f64()));
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The output for counter value `z`: the scramble of z + γ (a bijection of u64).
    #[inline]
    pub const fn mix(z: u64) -> u64 {
        let mut z = z.wrapping_add(GAMMA);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let out = Self::mix(self.state);
        self.state = self.state.wrapping_add(GAMMA);
        out
    }

    /// A uniform number in [0, 1): the 53 high bits of the next output.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        unit_interval(self.next_u64())
    }

    /// A uniform number in [−1, 1).
    #[inline]
    pub fn next_signed(&mut self) -> f64 {
        2.0 * self.next_f64() - 1.0
    }
}

/// A uniform number in [0, 1) from the 53 high bits of `bits`.
#[inline]
pub fn unit_interval(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Entry `i` of the seeded start vector before normalisation: uniform in [−1, 1), from draw
/// `i` of the generator seeded with `seed` (draws `2i` and `2i + 1`, the real and imaginary
/// parts, for complex `S`). Draw `k` is [`SplitMix64::mix`]`(seed + k·γ)`, a function of the
/// index alone, so a vector split across ranks or threads is made part by part, each where it
/// lives, with the entries the whole vector would have.
#[inline]
pub fn seeded_entry<S: Scalar>(seed: u64, i: usize) -> S {
    let draw = |k: u64| {
        2.0 * unit_interval(SplitMix64::mix(seed.wrapping_add(k.wrapping_mul(GAMMA)))) - 1.0
    };
    let i = i as u64;
    if S::IS_COMPLEX {
        S::from_c64(c64::new(draw(2 * i), draw(2 * i + 1)))
    } else {
        S::from_c64(c64::new(draw(i), 0.0))
    }
}

/// `x[j]` ← [`seeded_entry`]`(seed, offset + j)`: a part of the unnormalised seeded vector.
pub fn fill_seeded<S: Scalar>(x: &mut [S], seed: u64, offset: usize) {
    x.iter_mut()
        .enumerate()
        .for_each(|(j, v)| *v = seeded_entry(seed, offset + j));
}

/// `x` ← the seeded unit vector of its length: [`fill_seeded`] from offset 0, scaled by the
/// reciprocal of its 2-norm ([`crate::norms::nrm2`]). A random vector has a nonzero
/// component along every eigenvector with probability one, which the Krylov estimates need;
/// the entries for a seed are fixed forever, so estimates are reproducible.
pub fn fill_seeded_unit<S: Scalar>(x: &mut [S], seed: u64) {
    fill_seeded(x, seed, 0);
    let nrm = crate::norms::nrm2(x).as_f64();
    let inv = <S::Real as Scalar>::from_f64(1.0 / nrm);
    x.iter_mut().for_each(|v| *v = v.scale(inv));
}

/// The seeded unit vector of length `n` on the host ([`fill_seeded_unit`]).
pub fn seeded_unit_vector<S: Scalar>(n: usize, seed: u64) -> Vec<S> {
    let mut v = vec![S::zero(); n];
    fill_seeded_unit(&mut v, seed);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_entries_are_the_generator_stream_and_parts_join_into_the_whole() {
        let mut g = SplitMix64::new(42);
        let want: Vec<f64> = (0..50).map(|_| g.next_signed()).collect();
        let got: Vec<f64> = (0..50).map(|i| seeded_entry(42, i)).collect();
        assert_eq!(got, want);
        let mut g = SplitMix64::new(9);
        let want: Vec<c64> = (0..20)
            .map(|_| {
                let re = g.next_signed();
                c64::new(re, g.next_signed())
            })
            .collect();
        let got: Vec<c64> = (0..20).map(|i| seeded_entry(9, i)).collect();
        assert_eq!(got, want);
        let whole = seeded_unit_vector::<f64>(37, 5);
        let mut parts = vec![0.0; 37];
        let (a, b) = parts.split_at_mut(12);
        fill_seeded(a, 5, 0);
        fill_seeded(b, 5, 12);
        let nrm = crate::norms::nrm2(&parts);
        let joined: Vec<f64> = parts.iter().map(|v| v / nrm).collect();
        assert!(
            whole
                .iter()
                .zip(&joined)
                .all(|(x, y)| (x - y).abs() <= 1e-16)
        );
        assert!((crate::norms::nrm2(&whole) - 1.0).abs() <= 1e-15);
    }

    /// The reference outputs for seed 1234567 of Vigna's `splitmix64.c`
    /// (prng.di.unimi.it), which the published algorithm defines.
    #[test]
    fn matches_the_reference_implementation() {
        let mut g = SplitMix64::new(1_234_567);
        let expected = [
            6_457_827_717_110_365_317u64,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for e in expected {
            assert_eq!(g.next_u64(), e);
        }
    }

    #[test]
    fn unit_interval_is_half_open() {
        assert_eq!(unit_interval(0), 0.0);
        assert!(unit_interval(u64::MAX) < 1.0);
        let mut g = SplitMix64::new(0);
        for _ in 0..1000 {
            let x = g.next_signed();
            assert!((-1.0..1.0).contains(&x));
        }
    }
}
