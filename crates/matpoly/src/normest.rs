//! 1-norm estimates of matrix powers `‖A^k‖₁` without forming `A^k`.
//!
//! Hager's method as refined by Higham (LAPACK `xLACON`; N. J. Higham, *FORTRAN codes for
//! estimating the one-norm of a real or complex matrix*, ACM TOMS 14 (1988) 381–396):
//! alternate `y = Bx`, `ξ = sign(y)`, `z = Bᴴξ`, move `x` to the unit vector of `max|z_j|`
//! until that no longer increases, then compare with one extra probe of alternating sign.
//! The result is a lower bound, almost always within a factor 3 and usually exact.
//!
//! `Bx` and `Bᴴξ` use only products with thin matrices on the backend: `A^k x` as `k`
//! products with an `n × 1` column (`⌈k/2⌉` when `A²` is at hand), and `(Bᴴξ)ᴴ = ξᴴB` as
//! products of a `1 × n` row with the same factors, so no transpose operation is needed. Cost: at most 5 iterations of `2k` thin
//! products (`O(kn²)` flops each) and `n`-vector transfers — negligible beside one `n × n`
//! product.

use crate::backend::DenseBackend;
use matexp_core::{RealScalar, Result, Scalar};
use matexp_dense::Matrix;

const MAX_ITER: usize = 5;

fn one_norm<S: Scalar>(v: &[S]) -> f64 {
    v.iter().map(|x| x.modulus().as_f64()).sum()
}

/// The factors of `A^k`: `A²` as often as it fits when given, then `A` (they commute).
fn factors<'m, M>(a: &'m M, a2: Option<&'m M>, k: usize) -> Vec<&'m M> {
    match a2 {
        Some(a2) => {
            let mut f = vec![a2; k / 2];
            if k % 2 == 1 {
                f.push(a);
            }
            f
        }
        None => vec![a; k],
    }
}

/// `A^k x` for a host column `x`.
fn apply<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    a: &B::Mat,
    a2: Option<&B::Mat>,
    k: usize,
    x: &[S],
) -> Result<Vec<S>> {
    let n = x.len();
    let mut v = be.upload(&Matrix::from_col_major(n, 1, x.to_vec())?)?;
    let mut w = be.zeros(n, 1)?;
    for f in factors(a, a2, k) {
        be.gemm(S::one(), f, &v, S::zero(), &mut w)?;
        std::mem::swap(&mut v, &mut w);
    }
    Ok(be.download(&v)?.into_vec())
}

/// `(A^k)ᴴ ξ` for a host column `ξ`, through the row `ξᴴA^k`.
fn apply_adjoint<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    a: &B::Mat,
    a2: Option<&B::Mat>,
    k: usize,
    xi: &[S],
) -> Result<Vec<S>> {
    let n = xi.len();
    let row: Vec<S> = xi.iter().map(|x| x.conj()).collect();
    let mut v = be.upload(&Matrix::from_col_major(1, n, row)?)?;
    let mut w = be.zeros(1, n)?;
    for f in factors(a, a2, k) {
        be.gemm(S::one(), &v, f, S::zero(), &mut w)?;
        std::mem::swap(&mut v, &mut w);
    }
    Ok(be
        .download(&v)?
        .into_vec()
        .into_iter()
        .map(|x| x.conj())
        .collect())
}

/// An estimate (lower bound) of `‖A^k‖₁` for square `a`; NaN if the products produce NaN.
/// With `a2 = A²` the probes take `⌈k/2⌉` products instead of `k`.
pub(crate) fn norm1_power<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    a: &B::Mat,
    a2: Option<&B::Mat>,
    k: usize,
) -> Result<f64> {
    let (n, _) = be.shape(a);
    if n == 0 {
        return Ok(0.0);
    }
    let mut x = vec![S::from_f64(1.0 / n as f64); n];
    let mut est = 0.0f64;
    let mut last_j = usize::MAX;
    for iter in 0..MAX_ITER {
        let y = apply(be, a, a2, k, &x)?;
        let ny = one_norm(&y);
        if ny.is_nan() {
            return Ok(f64::NAN);
        }
        if iter > 0 && ny <= est {
            break;
        }
        est = ny;
        let xi: Vec<S> = y
            .iter()
            .map(|&v| {
                let m = v.modulus().as_f64();
                if m == 0.0 {
                    S::one()
                } else {
                    v * S::from_f64(1.0 / m)
                }
            })
            .collect();
        let z = apply_adjoint(be, a, a2, k, &xi)?;
        let (j, zmax) = z
            .iter()
            .enumerate()
            .map(|(j, v)| (j, v.modulus().as_f64()))
            .fold((0, -1.0), |b, c| if c.1 > b.1 { c } else { b });
        let ztx: f64 = z
            .iter()
            .zip(&x)
            .map(|(&zi, &xi)| (zi.conj() * xi).re().as_f64())
            .sum();
        if iter > 0 && (zmax <= ztx || j == last_j) {
            break;
        }
        last_j = j;
        x = vec![S::zero(); n];
        x[j] = S::one();
    }
    // Higham's extra probe catches matrices on which the iteration stalls early.
    let alt: Vec<S> = (0..n)
        .map(|i| {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            let t = if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            };
            S::from_f64(sign * (1.0 + t))
        })
        .collect();
    let y = apply(be, a, a2, k, &alt)?;
    let alt_est = 2.0 * one_norm(&y) / (3.0 * n as f64);
    Ok(est.max(alt_est))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CpuDense;
    use matexp_core::c64;

    fn exact_power_norm(a: &Matrix<f64>, k: usize) -> f64 {
        let mut p = Matrix::identity(a.nrows());
        for _ in 0..k {
            p = a.matmul(&p).unwrap();
        }
        p.norm_one()
    }

    #[test]
    fn estimates_are_lower_bounds_within_a_small_factor() {
        let mut be = CpuDense::new();
        for seed in 0..20u64 {
            let a = Matrix::<f64>::from_fn(12, 12, |i, j| {
                let h = (i as u64 * 31 + j as u64 * 17 + seed * 101) % 97;
                h as f64 / 48.0 - 1.0
            });
            for k in 1..=4 {
                let est = norm1_power(&mut be, &a, None, k).unwrap();
                let exact = exact_power_norm(&a, k);
                let a2 = a.matmul(&a).unwrap();
                let with_square = norm1_power(&mut be, &a, Some(&a2), k).unwrap();
                assert!(
                    (with_square / est - 1.0).abs() < 1e-12,
                    "seed {seed}, k {k}"
                );
                assert!(est <= exact * (1.0 + 1e-12), "seed {seed}, k {k}");
                assert!(est >= exact / 3.0, "seed {seed}, k {k}: {est} vs {exact}");
            }
        }
    }

    #[test]
    fn nonnormal_powers_are_estimated_exactly() {
        let mut be = CpuDense::new();
        let a = Matrix::<c64>::from_row_major(
            2,
            2,
            &[
                c64::new(1.0, 0.0),
                c64::new(1e6, 0.0),
                c64::new(0.0, 0.0),
                c64::new(1.0, 0.0),
            ],
        )
        .unwrap();
        for k in 1..=5 {
            let est = norm1_power(&mut be, &a, None, k).unwrap();
            let want = 1.0 + k as f64 * 1e6;
            assert!((est / want - 1.0).abs() < 1e-12, "k {k}: {est}");
        }
    }
}
