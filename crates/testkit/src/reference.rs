//! Reference solutions of the seed-000 runs (the 2011 GPU thesis), independent of the
//! solvers under test; shared by the reproduction tests and the `expmv` benchmark.
//!
//! * Spin bath: e^{−itH}ψ by the Chebyshev expansion with Bessel coefficients
//!   (Tal-Ezer & Kosloff, 1984) on the Gershgorin interval of the Hermitian H; accurate to
//!   about 1e−13 with the degree chosen here.
//! * 3D heat equation: e^{hA}u₀ for the Dirichlet Laplacian and u₀ = sin(2πx), from the
//!   separable form e^{hA}(s ⊗ 1 ⊗ 1) = (e^{hλ₂}s) ⊗ (e^{hA₁}1) ⊗ (e^{hA₁}1), with e^{hA₁}1
//!   summed exactly over the sine basis of the 1D Laplacian A₁.

use matexp_core::c64;
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_eigenvalue;
use std::f64::consts::PI;

/// J₀(x), …, J_K(x) by Miller's backward recurrence, normalised by J₀ + 2ΣJ_{2k} = 1.
/// Relative accuracy near 1e−15 for the orders that matter (|J_k| not negligible).
pub fn bessel_j(x: f64, kmax: usize) -> Vec<f64> {
    let start = kmax + 40 + (x.sqrt() as usize) * 4;
    let mut j = vec![0.0f64; start + 2];
    j[start] = 1e-300;
    for k in (1..=start).rev() {
        j[k - 1] = 2.0 * k as f64 / x * j[k] - j[k + 1];
        if j[k - 1].abs() > 1e250 {
            j.iter_mut().for_each(|v| *v *= 1e-250);
        }
    }
    let norm = j[0] + 2.0 * j.iter().skip(2).step_by(2).sum::<f64>();
    j.truncate(kmax + 1);
    j.iter().map(|v| v / norm).collect()
}

/// e^{−itH}ψ by the Chebyshev expansion on the Gershgorin interval [a, b] of the Hermitian
/// `h`: Σ_k (2 − δ_k0)(−i)^k J_k(t·r) T_k((H − c)/r) ψ · e^{−itc}, c and r the interval's
/// centre and radius, to degree t·r + 30(t·r)^{1/3} + 60 (the Bessel terms beyond are below
/// 1e−16). Cost: that many products with H.
///
/// # Panics
/// When `h` has no Gershgorin interval (empty or not square) or `psi` has the wrong length.
pub fn chebyshev_propagate(h: &CsrMatrix<c64, u32>, t: f64, psi: &[c64]) -> Vec<c64> {
    let b = h.gershgorin().expect("square Hermitian matrix");
    let (c, r) = ((b.re_min + b.re_max) / 2.0, (b.re_max - b.re_min) / 2.0);
    let x = t * r;
    let kmax = (x + 30.0 * x.cbrt() + 60.0) as usize;
    let jk = bessel_j(x, kmax);
    let n = psi.len();
    let scaled = |v: &[c64], out: &mut [c64]| {
        // out ← (H − c)/r · v
        out.iter_mut().zip(v).for_each(|(o, x)| *o = -x * (c / r));
        h.spmv(c64::new(1.0 / r, 0.0), v, c64::new(1.0, 0.0), out)
            .expect("psi has the matrix's dimension");
    };
    let mut t_prev = psi.to_vec();
    let mut t_cur = vec![c64::new(0.0, 0.0); n];
    scaled(&t_prev, &mut t_cur);
    let mi = c64::new(0.0, -1.0);
    let mut sum: Vec<c64> = t_prev.iter().map(|v| v * jk[0]).collect();
    let mut phase = mi;
    let mut t_next = vec![c64::new(0.0, 0.0); n];
    for k in 1..=kmax {
        let coef = phase * (2.0 * jk[k]);
        sum.iter_mut().zip(&t_cur).for_each(|(s, v)| *s += coef * v);
        scaled(&t_cur, &mut t_next);
        t_next
            .iter_mut()
            .zip(&t_prev)
            .for_each(|(a, p)| *a = 2.0 * *a - p);
        std::mem::swap(&mut t_prev, &mut t_cur);
        std::mem::swap(&mut t_cur, &mut t_next);
        phase *= mi;
    }
    let rot = c64::new(0.0, -t * c).exp();
    sum.iter().map(|s| s * rot).collect()
}

/// u₀ = sin(2πx) on the N³ interior grid of the unit cube (index i_x + N·i_y + N²·i_z).
pub fn laplace_initial(n: usize) -> Vec<f64> {
    let h = 1.0 / (n + 1) as f64;
    (0..n * n * n)
        .map(|i| (2.0 * PI * ((i % n) + 1) as f64 * h).sin())
        .collect()
}

/// e^{hA}u₀ for the 3D Dirichlet Laplacian A of `laplacian_3d(n)` and u₀ =
/// [`laplace_initial`]`(n)`, from the separable form (module documentation); exact up to
/// rounding, O(N³ + N²) work.
pub fn laplace_reference(n: usize, h: f64) -> Vec<f64> {
    let dx = 1.0 / (n + 1) as f64;
    let s: Vec<f64> = (1..=n).map(|i| (2.0 * PI * i as f64 * dx).sin()).collect();
    let decay2 = (h * laplacian_eigenvalue(n, &[2])).exp();
    // e^{hA₁}·1 = Σ_k c_k e^{hλ_k} sin(kπx), c_k = (2/(N+1)) Σ_i sin(kπx_i).
    let mut g = vec![0.0; n];
    for k in 1..=n {
        let mode: Vec<f64> = (1..=n).map(|i| (PI * (k * i) as f64 * dx).sin()).collect();
        let ck = 2.0 * dx * mode.iter().sum::<f64>();
        let w = ck * (h * laplacian_eigenvalue(n, &[k])).exp();
        g.iter_mut().zip(&mode).for_each(|(gi, m)| *gi += w * m);
    }
    (0..n * n * n)
        .map(|i| decay2 * s[i % n] * g[(i / n) % n] * g[i / (n * n)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_sparse::generators::laplacian_3d;

    #[test]
    fn bessel_values_match_the_tables() {
        // J_0(1) and J_5(10) (Abramowitz & Stegun, Table 9.1).
        assert!((bessel_j(1.0, 3)[0] - 0.765_197_686_557_966_6).abs() < 1e-15);
        assert!((bessel_j(10.0, 6)[5] - (-0.234_061_528_186_793_7)).abs() < 1e-14);
    }

    #[test]
    fn laplace_reference_starts_at_the_initial_value_and_solves_the_heat_equation() {
        let n = 5;
        let u0 = laplace_initial(n);
        let r0 = laplace_reference(n, 0.0);
        let e0 = u0
            .iter()
            .zip(&r0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(e0 < 1e-13, "{e0:e}");
        // Independent check of the time dependence: d/dh e^{hA}u₀ = A e^{hA}u₀, by a central
        // difference against the assembled Laplacian.
        let a: CsrMatrix<f64, u32> = laplacian_3d(n).unwrap();
        let (h, d) = (0.01, 1e-5);
        let (up, um, u) = (
            laplace_reference(n, h + d),
            laplace_reference(n, h - d),
            laplace_reference(n, h),
        );
        let mut au = vec![0.0; u.len()];
        a.spmv(1.0, &u, 0.0, &mut au).unwrap();
        let scale = au.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = up
            .iter()
            .zip(&um)
            .zip(&au)
            .map(|((p, m), w)| ((p - m) / (2.0 * d) - w).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-6 * scale, "{err:e} vs {scale:e}");
    }
}
