//! The CNOT gate of seed 000 §3.1.2 on two NMR qubits, propagated by the Magnus integrators
//! (model and design in examples/support/nmr.rs): without a bath the gate reaches a fidelity
//! of 1 − 10⁻⁸ or better; a bath coupling lowers it.

#[path = "../../examples/support/nmr.rs"]
mod nmr;

use matexp_integrators::magnus::MagnusScheme;
use nmr::{Nmr, gate_fidelity};

#[test]
fn cnot_without_bath_is_exact_to_1e_8() {
    for scheme in [MagnusScheme::Gauss4, MagnusScheme::CommutatorFree4] {
        let m = Nmr::seed000(0, 0.0);
        let (mean, min, cost) = gate_fidelity(&m, scheme, 1e-10).unwrap();
        println!(
            "{scheme:?}: mean fidelity 1 − {:.3e}, smallest 1 − {:.3e}, {cost:?}",
            1.0 - mean,
            1.0 - min
        );
        assert!(
            min >= 1.0 - 1e-8,
            "{scheme:?}: smallest fidelity 1 − {:.3e}",
            1.0 - min
        );
    }
}

#[test]
fn cnot_fidelity_falls_with_the_bath_coupling() {
    let weak = gate_fidelity(&Nmr::seed000(3, 1e-9), MagnusScheme::Gauss4, 1e-9)
        .unwrap()
        .0;
    let strong = gate_fidelity(&Nmr::seed000(3, 1e-6), MagnusScheme::Gauss4, 1e-9)
        .unwrap()
        .0;
    println!(
        "bath λ = 1e-9: 1 − F = {:.3e}; λ = 1e-6: 1 − F = {:.3e}",
        1.0 - weak,
        1.0 - strong
    );
    assert!(
        weak > 1.0 - 1e-6,
        "a negligible bath keeps the gate: 1 − F = {:.3e}",
        1.0 - weak
    );
    assert!(
        strong < weak - 1e-3,
        "a bath with λT ≈ 1 must dephase the qubits"
    );
}
