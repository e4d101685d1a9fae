//! Hostile inputs of the states and observables: extreme amplitudes, NaN in ψ, no sites.

use matexp_core::{CpuBackend, Error, c64};
use matexp_fock::{
    BoseHubbard, Coupling, FockBasis, energy, fock_state, mean_field_state, site_densities,
};

#[test]
fn next_state_of_no_sites_is_the_last_state() {
    let mut empty: [u32; 0] = [];
    assert!(!FockBasis::next_state(&mut empty));
    let mut one = [5u32];
    assert!(!FockBasis::next_state(&mut one));
    assert_eq!(one, [5]);
}

/// Amplitudes only matter through their ratios: 1e200·C and 1e−200·C give the state of C,
/// with ⟨n_m⟩ = N·|C_m|²/Σ|C|².
#[test]
fn mean_field_state_takes_any_finite_scale() {
    let b = FockBasis::new(6, 3).unwrap();
    let c = [c64::new(3.0, 0.0), c64::new(0.0, 4.0), c64::new(-1.0, 1.0)];
    let want: Vec<c64> = mean_field_state(&b, &c).unwrap();
    let total: f64 = c.iter().map(|x| x.norm_sqr()).sum();
    for s in [1e200, 1e-200, 1e-310, f64::MAX / 4.0] {
        let scaled: Vec<c64> = c.iter().map(|x| x * s).collect();
        let psi: Vec<c64> = mean_field_state(&b, &scaled).unwrap();
        let err = psi
            .iter()
            .zip(&want)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max);
        assert!(err < 1e-13, "scale {s:e}: {err:e}");
        let d = site_densities(&b, &psi).unwrap();
        for (k, ck) in c.iter().enumerate() {
            let exact = 6.0 * ck.norm_sqr() / total;
            assert!(
                (d[k] - exact).abs() < 1e-12,
                "scale {s:e}, site {k}: {} vs {exact}",
                d[k]
            );
        }
    }
    // A tiny amplitude beside a huge one keeps its (tiny) weight instead of vanishing.
    let mixed = [
        c64::new(1e200, 0.0),
        c64::new(1e-200, 0.0),
        c64::new(0.0, 0.0),
    ];
    let psi: Vec<c64> = mean_field_state(&b, &mixed).unwrap();
    let i = b.rank(&[5, 1, 0]).unwrap() as usize;
    // c = √(6!/5!)·1·1e−400 underflows; the state (6, 0, 0) has amplitude 1.
    assert_eq!(psi[i], c64::new(0.0, 0.0));
    assert!((psi[b.rank(&[6, 0, 0]).unwrap() as usize].re - 1.0).abs() < 1e-15);
    let e = mean_field_state::<c64>(&b, &[c64::new(0.0, 0.0); 3]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
}

#[test]
fn nan_in_psi_is_an_error_not_a_density() {
    let b = FockBasis::new(3, 3).unwrap();
    let mut psi: Vec<f64> = fock_state(&b, &[1, 1, 1]).unwrap();
    psi[2] = f64::NAN;
    let e = site_densities(&b, &psi).unwrap_err();
    assert!(matches!(e, Error::NonFinite { index: 2, .. }), "{e}");
    psi[2] = f64::INFINITY;
    assert!(matches!(
        site_densities(&b, &psi).unwrap_err(),
        Error::NonFinite { .. }
    ));
    // |ψ_i|² overflows: the densities are not representable.
    psi[2] = 1e200;
    assert!(matches!(
        site_densities(&b, &psi).unwrap_err(),
        Error::NonFinite { .. }
    ));
    let h = BoseHubbard::new(b.clone())
        .with_hopping(Coupling::Uniform(1.0))
        .unwrap();
    let mut scratch = vec![0.0; psi.len()];
    psi[2] = f64::NAN;
    let e = energy(&CpuBackend, &h.at(0.0).unwrap(), &psi, &mut scratch).unwrap_err();
    assert!(matches!(e, Error::NonFinite { .. }), "{e}");
}
