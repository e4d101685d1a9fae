//! Spectral bounds for the focal interval, on any backend: given, from the operator, or
//! estimated (Lanczos for Hermitian operators, power iteration otherwise).
//!
//! The estimators mirror [`matexp_leja::lanczos_bounds`] and
//! [`matexp_leja::power_spectral_radius`] (same margins) but run on backend vectors, so that
//! a GPU operator is never copied to the host; only the starting vector is uploaded.

use matexp_core::{
    Backend, Error, LinearOperator, RealScalar, Result, Scalar, SpectralBounds, c64,
};

/// Lanczos steps of the estimate (fewer for smaller operators).
pub(crate) const LANCZOS_STEPS: usize = 40;
/// Relative widening of the Lanczos interval (of its width), as in `matexp-leja`.
pub(crate) const LANCZOS_MARGIN: f64 = 0.01;
/// Power-iteration steps of the estimate for non-Hermitian operators.
pub(crate) const POWER_STEPS: usize = 40;
/// Relative widening of the power-iteration radius.
pub(crate) const POWER_MARGIN: f64 = 0.05;

/// Where the bounds came from (for error messages and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundsSource {
    /// [`crate::LejaOptions::bounds`].
    Options,
    /// [`LinearOperator::spectral_bounds`].
    Operator,
    /// A Lanczos estimate (Hermitian operators).
    Lanczos,
    /// A power-iteration box (non-Hermitian operators).
    Power,
}

/// A seeded unit vector (SplitMix64, uniform entries in [−1, 1)) on the host.
fn start_vector<S: Scalar>(n: usize) -> Vec<S> {
    let mut state: u64 = 0x6c65_6a61_7370_6563;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    };
    let mut v: Vec<S> = (0..n)
        .map(|_| {
            let re = next();
            let im = if S::IS_COMPLEX { next() } else { 0.0 };
            S::from_c64(c64::new(re, im))
        })
        .collect();
    let nrm = matexp_core::norms::nrm2(&v).as_f64();
    let inv = <S::Real as Scalar>::from_f64(1.0 / nrm);
    v.iter_mut().for_each(|x| *x = x.scale(inv));
    v
}

fn check_output<B: Backend, S: Scalar>(
    be: &B,
    what: &str,
    step: usize,
    y: &B::Vector<S>,
) -> Result<f64> {
    let nrm = be.nrm2(y)?.as_f64();
    if nrm.is_finite() {
        return Ok(nrm);
    }
    let host = be.to_host(y)?;
    let (index, value) = matexp_core::norms::first_non_finite(&host)
        .map(|(i, v)| (i, format!("{v}")))
        .unwrap_or((0, format!("norm {nrm}")));
    Err(Error::NonFinite {
        context: format!("operator output in the {what} spectral estimate, step {step}"),
        index,
        value,
    })
}

/// Estimated spectral bounds and the number of operator applications spent. The three
/// scratch vectors (length n) are overwritten.
pub(crate) fn estimate<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    scratch: [&mut B::Vector<S>; 3],
) -> Result<(SpectralBounds, BoundsSource, usize)> {
    let n = op.nrows();
    let [v, v_prev, w] = scratch;
    *v = be.upload(&start_vector::<S>(n))?;
    if op.is_hermitian() {
        let (b, k) = lanczos(be, op, v, v_prev, w)?;
        Ok((b, BoundsSource::Lanczos, k))
    } else {
        let (b, k) = power(be, op, v, w)?;
        Ok((b, BoundsSource::Power, k))
    }
}

fn lanczos<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    v: &mut B::Vector<S>,
    v_prev: &mut B::Vector<S>,
    w: &mut B::Vector<S>,
) -> Result<(SpectralBounds, usize)> {
    let n = op.nrows();
    let k_max = LANCZOS_STEPS.min(n);
    let eps = S::Real::EPS.as_f64();
    let (mut alpha, mut beta) = (Vec::with_capacity(k_max), Vec::with_capacity(k_max));
    let (mut beta_prev, mut beta_last) = (0.0f64, 0.0f64);
    let mut matvecs = 0;
    for j in 0..k_max {
        op.apply(be, S::one(), v, S::zero(), w)?;
        matvecs += 1;
        check_output(be, "Lanczos", j, w)?;
        if j > 0 {
            be.axpby(S::from_f64(-beta_prev), v_prev, S::one(), w)?;
        }
        // vᴴAv is real for Hermitian A; the imaginary part is rounding.
        let a = be.dot(v, w)?.re().as_f64();
        be.axpby(S::from_f64(-a), v, S::one(), w)?;
        let b = be.nrm2(w)?.as_f64();
        alpha.push(a);
        beta_last = b;
        let scale = (beta_prev * beta_prev + a * a + b * b).sqrt();
        if b <= 8.0 * eps * scale || j + 1 == k_max {
            break;
        }
        beta.push(b);
        std::mem::swap(v_prev, v);
        be.copy(w, v)?;
        be.scale(S::from_f64(1.0 / b), v)?;
        beta_prev = b;
    }
    let k = alpha.len();
    let eig = matexp_leja::symmetric_tridiagonal_eigen(&alpha, &beta)?;
    let (lo, hi) = (eig.values[0], eig.values[k - 1]);
    let res_lo = (beta_last * eig.vector(0)[k - 1]).abs();
    let res_hi = (beta_last * eig.vector(k - 1)[k - 1]).abs();
    let magnitude = lo.abs().max(hi.abs());
    let width = if hi > lo { hi - lo } else { magnitude };
    let widen = LANCZOS_MARGIN * width + 2.0 * k as f64 * eps * magnitude;
    let b = SpectralBounds {
        re_min: lo - res_lo - widen,
        re_max: hi + res_hi + widen,
        im_min: 0.0,
        im_max: 0.0,
    };
    Ok((b, matvecs))
}

fn power<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    v: &mut B::Vector<S>,
    w: &mut B::Vector<S>,
) -> Result<(SpectralBounds, usize)> {
    let mut radius = 0.0f64;
    let mut matvecs = 0;
    for j in 0..POWER_STEPS {
        op.apply(be, S::one(), v, S::zero(), w)?;
        matvecs += 1;
        let r = check_output(be, "power-iteration", j, w)?;
        radius = radius.max(r);
        if r == 0.0 {
            break;
        }
        std::mem::swap(v, w);
        be.scale(S::from_f64(1.0 / r), v)?;
    }
    let r = (1.0 + POWER_MARGIN) * radius;
    // Every eigenvalue has modulus ≤ ρ̂: the disc, enclosed in a box.
    let b = SpectralBounds {
        re_min: -r,
        re_max: r,
        im_min: -r,
        im_max: r,
    };
    Ok((b, matvecs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{CpuBackend, DenseMatrixOperator};

    #[test]
    fn lanczos_encloses_a_diagonal_spectrum() {
        let n = 60;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = -(i as f64) * 3.0;
        }
        let op = DenseMatrixOperator::new(n, n, a).unwrap();
        let cpu = CpuBackend::new();
        let (mut x, mut y, mut z) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (b, src, k) = estimate(&cpu, &op, [&mut x, &mut y, &mut z]).unwrap();
        assert_eq!(src, BoundsSource::Lanczos);
        assert!(k <= LANCZOS_STEPS);
        assert!(b.re_min <= -177.0 && b.re_max >= 0.0, "{b:?}");
        assert!(b.re_min > -190.0 && b.re_max < 5.0, "{b:?}");
    }

    #[test]
    fn power_box_holds_a_rotation() {
        let op = DenseMatrixOperator::new(2, 2, vec![0.0, -2.0, 2.0, 0.0]).unwrap();
        let cpu = CpuBackend::new();
        let (mut x, mut y, mut z) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
        let (b, src, _) = estimate(&cpu, &op, [&mut x, &mut y, &mut z]).unwrap();
        assert_eq!(src, BoundsSource::Power);
        assert!(b.im_max >= 2.0 && b.re_max >= 2.0 && b.im_min <= -2.0);
    }
}
