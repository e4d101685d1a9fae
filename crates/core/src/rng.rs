//! SplitMix64, the one small generator of the workspace.
//!
//! Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014: the
//! state advances by the golden-ratio increment γ = 0x9E3779B97F4A7C15 and each output is a
//! bijective 64-bit scramble of the state. Its output for a seed is fixed forever (no
//! dependency whose stream may change), and [`SplitMix64::mix`] is a pure function of a
//! counter, so random entries can be drawn per index in any order or thread (the generators'
//! rows, the methods' seeded probe vectors). Statistically good enough for start vectors,
//! probes and test inputs; not for cryptography.

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

#[cfg(test)]
mod tests {
    use super::*;

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
