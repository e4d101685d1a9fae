//! The small problems of the Lanczos method: f(τT_k)e₁ for the tridiagonal T_k, with the
//! error estimate, kept in a scaled form that cannot overflow.

use crate::Tolerance;
use matexp_core::{Error, Result, Scalar, c64};
use matexp_dense::{Matrix, phi_vectors};
use matexp_leja::symmetric_tridiagonal_eigen;

/// f(τT_k)e₁ = e^{c}·y with the estimated error of y (same scaling) and ‖y‖₂.
#[derive(Debug, Clone)]
pub(crate) struct Coefficients {
    y: Vec<c64>,
    c: f64,
    err: f64,
    norm_y: f64,
}

impl Coefficients {
    /// Whether ‖v‖·e^{c}·err ≤ atol + rtol·‖v‖·e^{c}·‖y‖, evaluated without forming e^{c}.
    pub(crate) fn converged(&self, tol: &Tolerance, beta0: f64) -> bool {
        let atol_scaled = if tol.atol == 0.0 {
            0.0
        } else {
            (tol.atol.ln() - self.c - beta0.ln()).exp()
        };
        self.err <= atol_scaled + tol.rtol * self.norm_y
    }

    /// The estimate as an absolute error of the result (∞ only if the result overflows).
    pub(crate) fn abs_error(&self, beta0: f64) -> f64 {
        if self.err == 0.0 {
            0.0
        } else {
            (self.err.ln() + self.c + beta0.ln()).exp()
        }
    }

    /// ‖v‖·e^{c}·y as scalars of the vector type; an overflowing coefficient is an error.
    pub(crate) fn final_coefficients<S: Scalar>(&self, beta0: f64) -> Result<Vec<S>> {
        let g = beta0.ln() + self.c;
        let direct = g.exp();
        self.y
            .iter()
            .enumerate()
            .map(|(j, &y)| {
                let z = if direct.is_finite() && direct > 0.0 {
                    y * direct
                } else if y == c64::new(0.0, 0.0) {
                    y
                } else {
                    // e^{g} alone over- or underflows; the product may not.
                    (y / y.norm()) * (y.norm().ln() + g).exp()
                };
                let s = S::from_c64(z);
                if s.finite() {
                    Ok(s)
                } else {
                    Err(Error::NonFinite {
                        context: format!(
                            "lanczos: coefficient {j} of the result overflows the {} range \
                             (‖f(tA)v‖ ≈ e^{g:.1})",
                            S::NAME
                        ),
                        index: j,
                        value: format!("{s}"),
                    })
                }
            })
            .collect()
    }
}

fn norm(y: &[c64]) -> f64 {
    matexp_core::norms::nrm2(y)
}

/// Z·g with gᵢ = f(λᵢ)·Z[0, i]: the first column of Z·f(Λ)·Zᵀ.
fn first_column(z: &Matrix<f64>, f: impl Fn(usize) -> c64) -> Vec<c64> {
    let k = z.nrows();
    let mut y = vec![c64::new(0.0, 0.0); k];
    for i in 0..k {
        let g = f(i) * z[(0, i)];
        for (yr, &zr) in y.iter_mut().zip(z.col(i)) {
            *yr += g * zr;
        }
    }
    y
}

/// The eigendecomposition of the tridiagonal T_k: pure-Rust implicit QL (`matexp-leja`), so
/// that Lanczos links no LAPACK; T_k is small (k ≲ 100), so O(k³) is negligible next to
/// the k operator products.
fn eigh_tridiagonal(alpha: &[f64], beta: &[f64]) -> Result<(Vec<f64>, Matrix<f64>)> {
    let e = symmetric_tridiagonal_eigen(alpha, beta)?;
    let k = e.values.len();
    Ok((e.values, Matrix::from_col_major(k, k, e.vectors)?))
}

/// e^{τT_k}e₁ = e^{c}·y from the eigendecomposition of T_k, c = max Re(τλ), with the error estimate
/// max(‖y_k − [y_{k−1}; 0]‖, β_{k+1}·|e_kᵀy|) (same scaling); zero when `exact`.
pub(crate) fn exp_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    tau: c64,
    exact: bool,
) -> Result<Coefficients> {
    let (lam, z) = eigh_tridiagonal(&alpha[..k], &beta[..k - 1])?;
    let c = lam
        .iter()
        .map(|&l| (tau * l).re)
        .fold(f64::NEG_INFINITY, f64::max);
    let y = first_column(&z, |i| (tau * lam[i] - c).exp());
    let norm_y = norm(&y);
    let err = if exact {
        0.0
    } else {
        let saad = beta[k - 1] * y[k - 1].norm();
        let diff = if k >= 2 {
            let (lp, zp) = eigh_tridiagonal(&alpha[..k - 1], &beta[..k - 2])?;
            let yp = first_column(&zp, |i| (tau * lp[i] - c).exp());
            let mut d: Vec<c64> = y.clone();
            for (di, &p) in d.iter_mut().zip(&yp) {
                *di -= p;
            }
            norm(&d)
        } else {
            norm_y
        };
        saad.max(diff)
    };
    Ok(Coefficients { y, c, err, norm_y })
}

fn tridiagonal_times(alpha: &[f64], beta: &[f64], k: usize, tau: c64) -> Matrix<c64> {
    Matrix::from_fn(k, k, |i, j| {
        if i == j {
            tau * alpha[i]
        } else if i.abs_diff(j) == 1 {
            tau * beta[i.min(j)]
        } else {
            c64::new(0.0, 0.0)
        }
    })
}

fn e1(k: usize) -> Vec<c64> {
    let mut e = vec![c64::new(0.0, 0.0); k];
    e[0] = c64::new(1.0, 0.0);
    e
}

/// φ_p(τT_k)e₁ (no scaling, c = 0) from the augmented exponential, with the estimate
/// max(‖y_k − [y_{k−1}; 0]‖, β_{k+1}·|e_kᵀy|).
pub(crate) fn phi_coefficients(
    alpha: &[f64],
    beta: &[f64],
    k: usize,
    p: usize,
    tau: c64,
    exact: bool,
) -> Result<Coefficients> {
    let m = tridiagonal_times(alpha, beta, k, tau);
    let y = phi_vectors(&m, &e1(k), p)?.pop().expect("p + 1 vectors");
    let norm_y = norm(&y);
    let err = if exact {
        0.0
    } else {
        let saad = beta[k - 1] * y[k - 1].norm();
        let diff = if k >= 2 {
            let mp = tridiagonal_times(alpha, beta, k - 1, tau);
            let yp = phi_vectors(&mp, &e1(k - 1), p)?
                .pop()
                .expect("p + 1 vectors");
            let mut d = y.clone();
            for (di, &q) in d.iter_mut().zip(&yp) {
                *di -= q;
            }
            norm(&d)
        } else {
            norm_y
        };
        saad.max(diff)
    };
    Ok(Coefficients {
        y,
        c: 0.0,
        err,
        norm_y,
    })
}
