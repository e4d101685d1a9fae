//! The spectrum Arnoldi reports is what it saw, clipped to what is proven: the Gershgorin
//! box of its Hessenberg matrices, intersected with the operator's bounds and, for a
//! Hermitian operator, with the real axis (`BoundsSource::Ritz`).

use matexp_core::CpuBackend;
use matexp_expmv::{Arnoldi, ArnoldiOptions, BoundsSource, ExpmvMethod};
use matexp_sparse::generators::laplacian_2d;
use std::f64::consts::PI;

/// A negative-definite 2D Laplacian (n = 400, spectrum in [−8h²cos²(π/2h), −8h²sin²(π/2h)],
/// h = 21; Gershgorin interval [−8h², 0]): the Gershgorin radii of H carried the box past
/// 0. The interval shown is real, inside the operator's Gershgorin interval, and holds the
/// Rayleigh quotient vᴴAv/vᴴv (h₁₁, the centre of a Gershgorin disc of every H).
#[test]
fn negative_definite_operator_shows_no_positive_end() {
    let m = 20;
    let a = laplacian_2d::<f64, u32>(m).unwrap();
    let n = m * m;
    let h = (m + 1) as f64;
    let (lmin, lmax) = (
        -8.0 * h * h * (m as f64 * PI / (2.0 * h)).sin().powi(2),
        -8.0 * h * h * (PI / (2.0 * h)).sin().powi(2),
    );
    let gersh = a
        .spectral_bounds()
        .expect("CSR matrices know their Gershgorin box");
    let v: Vec<f64> = (0..n).map(|i| 1.0 + ((i * 7) % 11) as f64 / 11.0).collect();
    // ρ(v) from the stencil itself, independent of the operator's product.
    let at = |ix: isize, iy: isize| {
        if ix < 0 || iy < 0 || ix >= m as isize || iy >= m as isize {
            0.0
        } else {
            v[ix as usize + m * iy as usize]
        }
    };
    let mut num = 0.0;
    for iy in 0..m as isize {
        for ix in 0..m as isize {
            let lap = at(ix - 1, iy) + at(ix + 1, iy) + at(ix, iy - 1) + at(ix, iy + 1)
                - 4.0 * at(ix, iy);
            num += at(ix, iy) * lap * h * h;
        }
    }
    let rho = num / v.iter().map(|x| x * x).sum::<f64>();
    assert!(lmin < rho && rho < lmax);
    let cpu = CpuBackend::new();
    for (t, rtol) in [(1e-3, 1e-8), (-1e-4, 1e-6), (1e-2, 1e-10)] {
        let mut arn = Arnoldi::new(&cpu, ArnoldiOptions::default().with_rtol(rtol)).unwrap();
        let mut w = vec![0.0; n];
        let r = arn.expmv(&a, t, &v, &mut w).unwrap();
        let (b, source) = r.bounds.expect("Arnoldi reports its box");
        assert_eq!(source, BoundsSource::Ritz);
        assert!(b.is_real(), "t = {t}: {b:?}");
        assert!(
            b.re_min >= gersh.re_min && b.re_max <= gersh.re_max && b.re_max <= 0.0,
            "t = {t}: {b:?} not inside the Gershgorin interval {gersh:?}"
        );
        let slack = 1e-12 * lmin.abs();
        assert!(
            b.re_min - slack <= rho && rho <= b.re_max + slack,
            "t = {t}: {b:?} misses ρ(v) = {rho:e}"
        );
        assert!(r.to_string().contains("(Ritz)"), "{r}");
    }
}
