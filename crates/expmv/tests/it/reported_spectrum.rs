//! The spectrum a report shows is what was proven or clearly labelled: Lanczos reports its
//! extreme Ritz values, which for a Hermitian operator lie inside [λ_min, λ_max].

use matexp_core::CpuBackend;
use matexp_expmv::{BoundsSource, ExpmvMethod, Lanczos, LanczosOptions};
use matexp_sparse::generators::laplacian_2d;
use std::f64::consts::PI;

/// The 3600-row 2D Laplacian of the report (true spectrum [−29748, −19.7]): the interval
/// shown lies in the spectrum's hull and inside the operator's Gershgorin interval, so it
/// has no positive end, and it is labelled as the Ritz values.
#[test]
fn negative_definite_spectrum_has_no_positive_end() {
    let m = 60;
    let a = laplacian_2d::<f64, u32>(m).unwrap();
    let h = (m + 1) as f64;
    let lam = |j: f64| -8.0 * h * h * (j * PI / (2.0 * h)).sin().powi(2);
    let (lmin, lmax) = (lam(m as f64), lam(1.0));
    let gersh = a
        .spectral_bounds()
        .expect("CSR matrices know their Gershgorin box");
    let n = m * m;
    let v: Vec<f64> = (0..n).map(|i| 1.0 + ((i * 7) % 11) as f64 / 11.0).collect();
    let cpu = CpuBackend::new();
    for (t, rtol) in [(1e-3, 1e-8), (1e-2, 1e-10), (-1e-3, 1e-6)] {
        let mut lz = Lanczos::new(&cpu, LanczosOptions::default().with_rtol(rtol)).unwrap();
        let mut w = vec![0.0; n];
        let r = lz.expmv(&a, t, &v, &mut w).unwrap();
        let (b, source) = r.bounds.expect("Lanczos reports its interval");
        assert_eq!(source, BoundsSource::Ritz);
        assert!(b.is_real(), "{b:?}");
        let slack = 1e-10 * lmin.abs();
        assert!(
            b.re_min >= lmin - slack && b.re_max <= lmax + slack && b.re_min <= b.re_max,
            "t = {t}: [{:e}, {:e}] not inside the spectrum's hull [{lmin:e}, {lmax:e}]",
            b.re_min,
            b.re_max
        );
        assert!(
            b.re_min >= gersh.re_min && b.re_max <= gersh.re_max,
            "{b:?} vs {gersh:?}"
        );
        assert!(b.re_max < 0.0, "t = {t}: positive end {:e}", b.re_max);
        let line = r.to_string();
        assert!(line.contains("(Ritz)"), "{line}");
    }
}
