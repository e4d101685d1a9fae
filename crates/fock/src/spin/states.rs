//! Initial states and observables of a spin sector on the host (the GPU module builds and
//! measures the same states on the device, by the same formulas).
//!
//! * [`neel_word`]: up spins on the even sites (`↑↓↑↓…`), the classical antiferromagnet.
//! * [`product_state`]: the projection of `⊗_k (a_k|↓⟩ + b_k|↑⟩)` onto the sector,
//!   `ψ_s = Π_k (b_k if site k is up else a_k)`, normalised.
//! * [`random_state`]: entries `u(2i) + i·u(2i+1)` (real part only for real scalars) with
//!   `u(n) = 2·(F(seed + (n+1)·γ) >> 11)·2⁻⁵³ − 1` uniform on `[−1, 1)`, with `F` the
//!   SplitMix64 finaliser (the (n+1)-th output of SplitMix64 seeded with `seed`),
//!   normalised: the same vector on every backend, from the index alone.
//! * [`sz_profile`] `⟨S^z_k⟩ = Σ_s |ψ_s|² (s_k − ½)` and [`sz_correlations`] `⟨S^z_0 S^z_r⟩`,
//!   both divided by `‖ψ‖²`.

use super::basis::SpinBasis;
use matexp_core::rng::SplitMix64;
use matexp_core::{Error, Result, Scalar, c64, check_dim, try_filled};
use rayon::prelude::*;

/// The golden-ratio increment of SplitMix64.
pub const RANDOM_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The Néel word: up on sites 0, 2, 4, ….
///
/// # Errors
/// [`Error::InvalidArgument`] when the sector does not hold `⌈L/2⌉` ups.
pub fn neel_word(basis: &SpinBasis) -> Result<u64> {
    let l = basis.sites();
    let want = l.div_ceil(2);
    if basis.ups() != want {
        return Err(Error::invalid(
            "basis",
            format!("L = {l}, K = {}", basis.ups()),
            format!("the Néel state of {l} sites has {want} up spins"),
        ));
    }
    let mask = if l == 64 { u64::MAX } else { (1u64 << l) - 1 };
    Ok(0x5555_5555_5555_5555 & mask)
}

/// The basis vector of word `s`.
///
/// # Errors
/// As [`SpinBasis::rank`]; allocation failures.
pub fn basis_state<S: Scalar>(basis: &SpinBasis, s: u64) -> Result<Vec<S>> {
    let i = basis.rank(s)? as usize;
    let mut v = try_filled(basis.len()?, S::zero(), "D (spin state vector)")?;
    v[i] = S::one();
    Ok(v)
}

/// Checks per-site amplitudes `[a_k (down), b_k (up)]`.
pub(crate) fn check_amplitudes(basis: &SpinBasis, amps: &[[c64; 2]]) -> Result<()> {
    check_dim(
        "product_state: amplitudes (one pair per site)",
        basis.sites() as usize,
        amps.len(),
    )?;
    if let Some(k) = amps
        .iter()
        .position(|p| p.iter().any(|z| !(z.re.is_finite() && z.im.is_finite())))
    {
        return Err(Error::NonFinite {
            context: "product_state amplitudes".into(),
            index: k,
            value: format!("{:?}", amps[k]),
        });
    }
    Ok(())
}

/// The normalised projection of a product state onto the sector (module documentation).
///
/// # Errors
/// [`Error::DimensionMismatch`] for `amps.len() ≠ L`, [`Error::NonFinite`] for non-finite
/// amplitudes, [`Error::InvalidArgument`] when the projection vanishes; a complex amplitude
/// for a real scalar type is [`Error::InvalidArgument`].
pub fn product_state<S: Scalar>(basis: &SpinBasis, amps: &[[c64; 2]]) -> Result<Vec<S>> {
    check_amplitudes(basis, amps)?;
    if !S::IS_COMPLEX && amps.iter().flatten().any(|z| z.im != 0.0) {
        return Err(Error::invalid(
            "amps",
            format!("{amps:?}"),
            format!(
                "complex amplitudes need a complex scalar type, not {}",
                S::NAME
            ),
        ));
    }
    let d = basis.len()?;
    let mut v: Vec<S> = try_filled(d, S::zero(), "D (spin state vector)")?;
    v.par_iter_mut().enumerate().for_each(|(i, vi)| {
        let s = basis.unrank_unchecked(i as u64);
        let mut z = c64::new(1.0, 0.0);
        for (k, p) in amps.iter().enumerate() {
            z *= p[((s >> k) & 1) as usize];
        }
        *vi = S::from_c64(z);
    });
    normalise(&mut v, "the product state's projection onto the sector")?;
    Ok(v)
}

/// Uniform `[−1, 1)` from draw `n` of seed `seed` (module documentation).
#[inline]
pub fn random_unit(seed: u64, n: u64) -> f64 {
    // `SplitMix64::mix(z)` finalises z + γ: the state seed + n·γ gives F(seed + (n+1)·γ).
    let z = SplitMix64::mix(seed.wrapping_add(n.wrapping_mul(RANDOM_GAMMA)));
    2.0 * ((z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)) - 1.0
}

/// The seeded random state of the module documentation, normalised.
///
/// # Errors
/// Allocation failures.
pub fn random_state<S: Scalar>(basis: &SpinBasis, seed: u64) -> Result<Vec<S>> {
    let mut v: Vec<S> = try_filled(basis.len()?, S::zero(), "D (spin state vector)")?;
    v.par_iter_mut().enumerate().for_each(|(i, vi)| {
        let i = i as u64;
        let im = if S::IS_COMPLEX {
            random_unit(seed, 2 * i + 1)
        } else {
            0.0
        };
        *vi = S::from_c64(c64::new(random_unit(seed, 2 * i), im));
    });
    normalise(&mut v, "the random state")?;
    Ok(v)
}

fn normalise<S: Scalar>(v: &mut [S], what: &str) -> Result<()> {
    let n2: f64 = v.par_iter().map(|z| z.to_c64().norm_sqr()).sum();
    if !(n2 > 0.0 && n2.is_finite()) {
        return Err(Error::invalid(
            "state",
            what,
            format!("its norm² is {n2}: nothing to normalise"),
        ));
    }
    let inv = S::from_f64(1.0 / n2.sqrt());
    v.par_iter_mut().for_each(|z| *z *= inv);
    Ok(())
}

/// `Σ_s |ψ_s|²·[bit k of s]` for every site and `Σ_s |ψ_s|²·[bits 0 and k]`, and `‖ψ‖²`.
fn moments<S: Scalar>(basis: &SpinBasis, psi: &[S]) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    check_dim("spin observables: state length", basis.len()?, psi.len())?;
    if let Some((i, v)) = matexp_core::norms::first_non_finite(psi) {
        return Err(Error::NonFinite {
            context: "spin observables: ψ".into(),
            index: i,
            value: format!("{v}"),
        });
    }
    let l = basis.sites() as usize;
    let zero = || (vec![0.0; l], vec![0.0; l], 0.0);
    let (n, nn, w) = psi
        .par_iter()
        .enumerate()
        .fold(zero, |(mut n, mut nn, mut w), (i, z)| {
            let p = z.to_c64().norm_sqr();
            let s = basis.unrank_unchecked(i as u64);
            for k in 0..l {
                if (s >> k) & 1 == 1 {
                    n[k] += p;
                    if s & 1 == 1 {
                        nn[k] += p;
                    }
                }
            }
            w += p;
            (n, nn, w)
        })
        .reduce(zero, |(mut a, mut b, w1), (c, d, w2)| {
            for k in 0..l {
                a[k] += c[k];
                b[k] += d[k];
            }
            (a, b, w1 + w2)
        });
    Ok((n, nn, w))
}

/// `⟨S^z_k⟩` for every site, normalised by `‖ψ‖²`.
///
/// # Errors
/// [`Error::DimensionMismatch`] for a wrong length, [`Error::NonFinite`] for NaN/∞ in `ψ`,
/// [`Error::InvalidArgument`] for `ψ = 0`.
pub fn sz_profile<S: Scalar>(basis: &SpinBasis, psi: &[S]) -> Result<Vec<f64>> {
    let (n, _, w) = moments(basis, psi)?;
    sz_from_moments(&n, w)
}

/// `⟨S^z_0 S^z_r⟩` for `r ∈ 0..L`, normalised by `‖ψ‖²`.
///
/// # Errors
/// As [`sz_profile`].
pub fn sz_correlations<S: Scalar>(basis: &SpinBasis, psi: &[S]) -> Result<Vec<f64>> {
    let (n, nn, w) = moments(basis, psi)?;
    correlations_from_moments(&n, &nn, w)
}

fn check_weight(w: f64) -> Result<()> {
    if w > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("psi", "0", "observables of the zero vector"))
    }
}

/// `⟨S^z_k⟩ = ⟨n_k⟩/‖ψ‖² − ½` from the moments `n_k = Σ|ψ_s|² s_k` and `w = ‖ψ‖²`.
pub(crate) fn sz_from_moments(n: &[f64], w: f64) -> Result<Vec<f64>> {
    check_weight(w)?;
    Ok(n.iter().map(|x| x / w - 0.5).collect())
}

/// `⟨S^z_0 S^z_r⟩ = ⟨n_0 n_r⟩ − ½⟨n_0⟩ − ½⟨n_r⟩ + ¼` from the moments.
pub(crate) fn correlations_from_moments(n: &[f64], nn: &[f64], w: f64) -> Result<Vec<f64>> {
    check_weight(w)?;
    let n0 = n[0] / w;
    Ok(n.iter()
        .zip(nn)
        .map(|(nr, nnr)| nnr / w - 0.5 * n0 - 0.5 * nr / w + 0.25)
        .collect())
}
