//! States and observables on the Fock basis: Fock and mean-field (coherent product) states,
//! site densities `⟨n_k⟩`, the norm and the energy `⟨ψ|H|ψ⟩`.

use crate::FockBasis;
use crate::apply::BLOCK;
use matexp_core::{Backend, Error, LinearOperator, Result, Scalar, c64, check_dim, try_filled};
use rayon::prelude::*;

/// The basis vector of the state with occupations `occ`.
///
/// # Errors
/// As [`FockBasis::rank`]; [`Error::InvalidArgument`] when the basis does not fit in memory.
pub fn fock_state<S: Scalar>(basis: &FockBasis, occ: &[u32]) -> Result<Vec<S>> {
    let i = basis.rank(occ)? as usize;
    let mut v = try_filled(basis.len()?, S::zero(), "D (Fock state vector)")?;
    v[i] = S::one();
    Ok(v)
}

/// The logarithms the mean-field state is built from: `ln|C_m|` after the scaling to
/// `Σ|C_m|² = 1`, `arg C_m`, and `ln k!` for `k ∈ 0..=N` (shared with the GPU builder).
pub(crate) struct MeanFieldLogs {
    pub ln_abs: Vec<f64>,
    pub phase: Vec<f64>,
    pub ln_fact: Vec<f64>,
}

/// Checks the amplitudes and forms [`MeanFieldLogs`] (see [`mean_field_state`]).
pub(crate) fn mean_field_logs(basis: &FockBasis, amplitudes: &[c64]) -> Result<MeanFieldLogs> {
    let m = basis.sites() as usize;
    check_dim(
        "mean_field_state: amplitudes (one per site)",
        m,
        amplitudes.len(),
    )?;
    if let Some(k) = amplitudes
        .iter()
        .position(|c| !(c.re.is_finite() && c.im.is_finite()))
    {
        return Err(Error::NonFinite {
            context: "mean_field_state amplitudes".into(),
            index: k,
            value: format!("{}", amplitudes[k]),
        });
    }
    // Σ|C_m|² directly overflows for |C| ≈ 1e200 (ψ came out 0) and underflows to 0 for
    // 1e−200 (refused as "all zero"): scale by the largest modulus first, and keep the
    // ratios in logarithms so that a tiny amplitude beside a huge one is not flushed to 0.
    let cmax = amplitudes.iter().map(|c| c.norm()).fold(0.0f64, f64::max);
    if cmax <= 0.0 {
        return Err(Error::invalid(
            "amplitudes",
            format!("{amplitudes:?}"),
            "at least one amplitude must be nonzero",
        ));
    }
    let total: f64 = amplitudes.iter().map(|c| (c / cmax).norm_sqr()).sum();
    let ln_total = 0.5 * total.ln();
    let ln_ratio = |r: f64| {
        let q = r / cmax;
        // ln(r/cmax) from the ratio (exact to rounding); from the difference of logarithms
        // only where the ratio underflows (ln 1e200 would cost 460·u absolute per factor).
        if q > f64::MIN_POSITIVE || r == 0.0 {
            q.ln()
        } else {
            r.ln() - cmax.ln()
        }
    };
    let (ln_abs, phase): (Vec<f64>, Vec<f64>) = amplitudes
        .iter()
        .map(|c| (ln_ratio(c.norm()) - ln_total, c.arg()))
        .unzip();
    let n = basis.particles() as usize;
    // ln k! for k ∈ 0..=N.
    let mut ln_fact = vec![0.0f64; n + 1];
    for k in 1..=n {
        ln_fact[k] = ln_fact[k - 1] + (k as f64).ln();
    }
    Ok(MeanFieldLogs {
        ln_abs,
        phase,
        ln_fact,
    })
}

/// The in-phase mean-field state of the seed (its Eq. 6.8): all `N` particles in the single
/// mode `Σ_m C_m b†_m`,
///
/// ```text
/// |ψ⟩ = (N!)^{-1/2} (Σ_m C_m b†_m)^N |0⟩,    c_n = √(N! / Π_m n_m!) · Π_m C_m^{n_m}
/// ```
///
/// The amplitudes `C_m` are first scaled to `Σ|C_m|² = 1`, which makes `‖ψ‖ = 1` (multinomial
/// theorem); then `⟨n_m⟩ = N·|C_m|²`. The scaling divides by `max|C_m|` before squaring, so
/// any finite amplitudes are accepted (1e200 or 1e−200 alike: only the ratios matter). The
/// coefficients are computed in logarithms (so
/// `N = 190` and beyond neither overflow nor underflow prematurely), relative accuracy
/// about `N·ε`. Cost `O(D·M)`, parallel.
///
/// # Errors
/// [`Error::DimensionMismatch`] for `amplitudes.len() ≠ M`; [`Error::InvalidArgument`] for
/// amplitudes that are all zero or not finite.
///
/// ```
/// use matexp_fock::{FockBasis, mean_field_state, site_densities};
/// use matexp_core::c64;
/// let b = FockBasis::new(19, 4)?;
/// let c: Vec<c64> = [130.0, 7.0, 3.0, 50.0].iter().map(|&x: &f64| c64::new((x / 190.0).sqrt(), 0.0)).collect();
/// let psi: Vec<c64> = mean_field_state(&b, &c)?;
/// let n = site_densities(&b, &psi)?;
/// assert!((n[0] - 19.0 * 130.0 / 190.0).abs() < 1e-12);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn mean_field_state<S: Scalar>(basis: &FockBasis, amplitudes: &[c64]) -> Result<Vec<S>> {
    let MeanFieldLogs {
        ln_abs,
        phase,
        ln_fact,
    } = mean_field_logs(basis, amplitudes)?;
    let (m, n) = (basis.sites() as usize, basis.particles() as usize);
    let dim = basis.len()?;
    let mut psi = try_filled(dim, S::zero(), "D (mean-field state vector)")?;
    psi.par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(b, chunk)| {
            let mut occ = vec![0u32; m];
            basis.unrank_unchecked((b * BLOCK) as u64, &mut occ);
            for (off, out) in chunk.iter_mut().enumerate() {
                if off > 0 {
                    FockBasis::next_state(&mut occ);
                }
                let mut ln = 0.5 * ln_fact[n];
                let mut arg = 0.0;
                let mut vanishes = false;
                for k in 0..m {
                    let nk = occ[k] as usize;
                    if nk == 0 {
                        continue;
                    }
                    if ln_abs[k] == f64::NEG_INFINITY {
                        vanishes = true;
                        break;
                    }
                    ln += nk as f64 * ln_abs[k] - 0.5 * ln_fact[nk];
                    arg += nk as f64 * phase[k];
                }
                *out = if vanishes {
                    S::zero()
                } else {
                    S::from_c64(c64::from_polar(ln.exp(), arg))
                };
            }
        });
    Ok(psi)
}

/// Site densities `⟨n_k⟩ = Σ_i |ψ_i|² n_k(i)` for `k ∈ 0..M` (not divided by `‖ψ‖²`),
/// accumulated in `f64`. Cost `O(D·M)`, parallel.
///
/// # Errors
/// [`Error::DimensionMismatch`] when `psi.len() ≠ D`; [`Error::NonFinite`] for a NaN/∞
/// entry of ψ (its index) or densities beyond the f64 range (|ψ_i| ≳ 1e154).
pub fn site_densities<S: Scalar>(basis: &FockBasis, psi: &[S]) -> Result<Vec<f64>> {
    check_dim("site_densities: state length", basis.len()?, psi.len())?;
    if let Some((i, v)) = matexp_core::norms::first_non_finite(psi) {
        return Err(Error::NonFinite {
            context: "site_densities: ψ".into(),
            index: i,
            value: format!("{v}"),
        });
    }
    let m = basis.sites() as usize;
    let sums = psi
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(b, chunk)| {
            let mut occ = vec![0u32; m];
            let mut acc = vec![0.0f64; m];
            basis.unrank_unchecked((b * BLOCK) as u64, &mut occ);
            for (off, z) in chunk.iter().enumerate() {
                if off > 0 {
                    FockBasis::next_state(&mut occ);
                }
                let p = z.to_c64().norm_sqr();
                for k in 0..m {
                    acc[k] += p * f64::from(occ[k]);
                }
            }
            acc
        })
        .reduce(
            || vec![0.0; m],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    if let Some(k) = sums.iter().position(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            context: "site_densities: ⟨n_k⟩ overflows f64".into(),
            index: k,
            value: format!("{}", sums[k]),
        });
    }
    Ok(sums)
}

/// The energy `⟨ψ|H|ψ⟩` (real part; exact for Hermitian `H`) on any backend, using `scratch`
/// (length `D`) for `H·ψ`. One product and one inner product.
///
/// # Errors
/// Those of the product and of the backend; [`Error::NonFinite`] when the energy is NaN or
/// ∞ (a NaN/∞ in ψ or in the couplings, or overflow).
pub fn energy<B: Backend, S: Scalar, Op: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &Op,
    psi: &B::Vector<S>,
    scratch: &mut B::Vector<S>,
) -> Result<f64> {
    op.apply(backend, S::one(), psi, S::zero(), scratch)?;
    let e = backend.dot(psi, scratch)?.to_c64().re;
    if !e.is_finite() {
        return Err(Error::NonFinite {
            context: "energy ⟨ψ|H|ψ⟩".into(),
            index: 0,
            value: format!("{e}"),
        });
    }
    Ok(e)
}
