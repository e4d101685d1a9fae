//! Independent references for the tests: direct products, a Jacobi eigenvalue solver, and
//! analytic Laplacian spectra.
#![allow(dead_code)]

use matexp_core::c64;
use std::f64::consts::PI;

/// ∏_{j<n} |x − z_j| by direct multiplication (small n only).
pub fn direct_product(x: f64, z: &[f64]) -> f64 {
    z.iter().map(|&zj| (x - zj).abs()).product()
}

/// log ∏_{j<n} |z_n − z_j|: the Leja product of the n-th point, as a sum of logarithms.
pub fn log_leja_product(z: &[f64], n: usize) -> f64 {
    (0..n).map(|j| (z[n] - z[j]).abs().ln()).sum()
}

/// Same for complex points.
pub fn log_leja_product_c(z: &[c64], n: usize) -> f64 {
    (0..n).map(|j| (z[n] - z[j]).norm().ln()).sum()
}

/// Eigenvalues (ascending) of a real symmetric matrix (row-major) by the cyclic Jacobi
/// method: an algorithm independent of the crate's QL solver.
pub fn jacobi_eigenvalues(a: &[f64], n: usize) -> Vec<f64> {
    let mut a = a.to_vec();
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum();
        let total: f64 = a.iter().map(|x| x * x).sum();
        if off <= 1e-30 * total {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let akp = a[k * n + p];
                    let akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[p * n + k];
                    let aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
            }
        }
    }
    let mut ev: Vec<f64> = (0..n).map(|i| a[i * n + i]).collect();
    ev.sort_by(f64::total_cmp);
    ev
}

/// Eigenvalues of a Hermitian matrix (row-major) through its real symmetric embedding
/// [[X, −Y], [Y, X]], whose spectrum is that of H with every eigenvalue doubled.
pub fn hermitian_eigenvalues(h: &[c64], n: usize) -> Vec<f64> {
    let m = 2 * n;
    let mut r = vec![0.0; m * m];
    for i in 0..n {
        for j in 0..n {
            let z = h[i * n + j];
            r[i * m + j] = z.re;
            r[(i + n) * m + (j + n)] = z.re;
            r[i * m + (j + n)] = -z.im;
            r[(i + n) * m + j] = z.im;
        }
    }
    jacobi_eigenvalues(&r, m).into_iter().step_by(2).collect()
}

/// Eigenvalues of tridiag(1, −2, 1) of order n: −4 sin²(kπ/(2(n+1))), k = 1..n.
pub fn laplacian_1d_eigenvalue(k: usize, n: usize) -> f64 {
    let s = (k as f64 * PI / (2.0 * (n as f64 + 1.0))).sin();
    -4.0 * s * s
}

/// y = L x for the 1D Laplacian tridiag(1, −2, 1) (Dirichlet).
pub fn laplacian_1d(x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for i in 0..n {
        let mut v = -2.0 * x[i];
        if i > 0 {
            v += x[i - 1];
        }
        if i + 1 < n {
            v += x[i + 1];
        }
        y[i] = v;
    }
}

/// y = L x for the 2D 5-point Laplacian on an m × m grid (Dirichlet), unscaled.
pub fn laplacian_2d(m: usize, x: &[f64], y: &mut [f64]) {
    for iy in 0..m {
        for ix in 0..m {
            let i = ix + m * iy;
            let mut v = -4.0 * x[i];
            if ix > 0 {
                v += x[i - 1];
            }
            if ix + 1 < m {
                v += x[i + 1];
            }
            if iy > 0 {
                v += x[i - m];
            }
            if iy + 1 < m {
                v += x[i + m];
            }
            y[i] = v;
        }
    }
}

/// Kolmogorov distance between the empirical distribution of `z` and the arcsine law
/// F(x) = 1/2 + asin(x/2)/π, the equilibrium measure of [−2, 2].
pub fn arcsine_distance(z: &[f64]) -> f64 {
    let mut s = z.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let mut d: f64 = 0.0;
    for (i, x) in s.iter().enumerate() {
        let f = 0.5 + (x / 2.0).clamp(-1.0, 1.0).asin() / PI;
        d = d
            .max((f - i as f64 / n).abs())
            .max((f - (i + 1) as f64 / n).abs());
    }
    d
}
