//! Mean-field states, densities and the product against the assembled CSR over many sizes.

use matexp_core::{Backend, CpuBackend, LinearOperator, c64};
use matexp_fock::{BoseHubbard, Boundary, Coupling, FockBasis, mean_field_state, site_densities};
use proptest::prelude::*;

/// The seed's mean-field state is normalised and has ⟨n_m⟩ = N·|C_m|² (multinomial theorem),
/// also at N = 190 (D = 1 179 616), where √(N!/Πn!) spans hundreds of orders of magnitude.
#[test]
fn mean_field_state_has_the_prescribed_densities() {
    let cpu = CpuBackend;
    let c2 = [130.0, 7.0, 3.0, 50.0];
    for n in [19u32, 190] {
        let b = FockBasis::new(n, 4).unwrap();
        // Unnormalised and complex amplitudes: scaled to Σ|C|² = 1 by the constructor.
        let amps: Vec<c64> = c2
            .iter()
            .enumerate()
            .map(|(k, &x)| c64::from_polar(3.0 * f64::sqrt(x), 0.3 * k as f64))
            .collect();
        let psi: Vec<c64> = mean_field_state(&b, &amps).unwrap();
        assert!((cpu.nrm2(&psi).unwrap() - 1.0).abs() < 1e-12);
        let d = site_densities(&b, &psi).unwrap();
        for k in 0..4 {
            let want = f64::from(n) * c2[k] / 190.0;
            assert!(
                (d[k] - want).abs() < 1e-10 * f64::from(n),
                "N = {n}, site {k}"
            );
        }
    }
    // A zero amplitude empties its site; all-zero amplitudes are rejected.
    let b = FockBasis::new(5, 3).unwrap();
    let psi: Vec<c64> = mean_field_state(
        &b,
        &[c64::new(1.0, 0.0), c64::new(0.0, 0.0), c64::new(1.0, 0.0)],
    )
    .unwrap();
    assert_eq!(site_densities(&b, &psi).unwrap()[1], 0.0);
    assert!(mean_field_state::<c64>(&b, &[c64::new(0.0, 0.0); 3]).is_err());
    assert!(mean_field_state::<c64>(&b, &[c64::new(f64::NAN, 0.0); 3]).is_err());
    assert!(mean_field_state::<c64>(&b, &[c64::new(1.0, 0.0); 2]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// The Δ-method product equals the CSR assembled by ranking every hopped state, over many
    /// sizes, both boundaries and random couplings.
    #[test]
    fn product_equals_assembled_csr(
        n in 0u32..9,
        m in 2u32..8,
        periodic in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let periodic = periodic && m >= 3;
        let mut h = BoseHubbard::new(FockBasis::new(n, m).unwrap());
        if periodic {
            h = h.with_boundary(Boundary::Periodic).unwrap();
        }
        let s = seed as f64;
        let h = h
            .with_hopping(Coupling::function(move |_, k| (s + k as f64).sin()))
            .unwrap()
            .with_potential(Coupling::function(move |_, k| (s * 0.7 + k as f64).cos()))
            .unwrap()
            .with_interaction(Coupling::function(move |_, k| (s * 1.3 + 2.0 * k as f64).sin()))
            .unwrap();
        let a = h.to_csr::<c64, u32>(0.0).unwrap();
        let d = a.nrows();
        let x: Vec<c64> = (0..d).map(|i| c64::new((i as f64 * 0.37 + s).sin(), (i as f64 * 0.11).cos())).collect();
        let (mut y1, mut y2) = (vec![c64::new(0.0, 0.0); d], vec![c64::new(0.0, 0.0); d]);
        let one = c64::new(1.0, 0.0);
        let zero = c64::new(0.0, 0.0);
        h.at(0.0).unwrap().apply(&CpuBackend, one, &x, zero, &mut y1).unwrap();
        a.apply(&CpuBackend, one, &x, zero, &mut y2).unwrap();
        for i in 0..d {
            prop_assert!((y1[i] - y2[i]).norm() < 1e-12, "row {} of D = {}", i, d);
        }
    }
}
