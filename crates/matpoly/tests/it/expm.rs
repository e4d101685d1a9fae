//! The dense exponential and φ-functions against 60-digit mpmath references
//! (fixtures/matpoly/expm_reference.py), and its error contract.

use crate::common;

use common::{real, reference_cases, reference_theta, rel_err};
use matexp_core::{Error, c64};
use matexp_dense::Matrix;
use matexp_matpoly::{Counting, CpuDense, Evaluator, THETA, TaylorEvaluation};

const TOL: f64 = 1e-13;

#[test]
fn expm_f64_matches_the_mpmath_references() {
    let mut ev = Evaluator::new(CpuDense::new());
    let mut checked = 0;
    for case in reference_cases().iter().filter(|c| !c.complex) {
        let (e, rep) = ev.expm(&real(&case.a)).unwrap();
        let err = rel_err(&e, &real(&case.expm));
        println!(
            "{:28} m = {:2} s = {:2} products = {:2} error = {err:.2e}",
            case.name, rep.degree, rep.squarings, rep.products
        );
        assert!(err <= TOL, "{}: relative error {err:.3e}", case.name);
        checked += 1;
    }
    assert!(checked >= 8);
}

#[test]
fn expm_c64_matches_the_mpmath_references() {
    let mut ev = Evaluator::new(CpuDense::new());
    for case in reference_cases() {
        let (e, rep) = ev.expm(&case.a).unwrap();
        let err = rel_err(&e, &case.expm);
        println!(
            "{:28} m = {:2} s = {:2} error = {err:.2e}",
            case.name, rep.degree, rep.squarings
        );
        assert!(err <= TOL, "{}: relative error {err:.3e}", case.name);
    }
}

#[test]
fn phi_functions_match_the_mpmath_references() {
    let mut ev = Evaluator::new(CpuDense::new());
    for case in reference_cases().iter().filter(|c| !c.phi.is_empty()) {
        let phis = ev.phi_functions(&case.a, case.phi.len()).unwrap();
        for (k, (got, want)) in phis.iter().zip(&case.phi).enumerate() {
            let err = rel_err(got, want);
            assert!(
                err <= TOL,
                "{}: φ_{}: relative error {err:.3e}",
                case.name,
                k + 1
            );
        }
        if !case.complex {
            let phis = Evaluator::new(CpuDense::new())
                .phi_functions(&real(&case.a), 1)
                .unwrap();
            let err = rel_err(&phis[0], &real(&case.phi[0]));
            assert!(err <= TOL, "{} (f64): φ_1: {err:.3e}", case.name);
        }
    }
}

#[test]
fn theta_constants_are_the_fixture_values() {
    let theta = reference_theta();
    assert_eq!(theta.len(), THETA.len());
    for (m, (a, b)) in THETA.iter().zip(&theta).enumerate() {
        assert!((a / b - 1.0).abs() < 1e-14, "θ_{}", m + 1);
    }
}

#[test]
fn reported_products_are_the_products_performed() {
    for case in reference_cases() {
        let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
        let (_, rep) = ev.expm(&case.a).unwrap();
        assert_eq!(ev.backend().gemms, rep.products, "{}", case.name);
    }
}

#[test]
fn the_cheap_t8_path_is_taken_and_accurate() {
    // ‖A‖ just below θ₈: no squaring, Sastre's 3-product T₈.
    let a = Matrix::<f64>::from_fn(6, 6, |i, j| 0.004 * ((i + 2 * j) % 5) as f64 - 0.005);
    let (e, rep) = Evaluator::new(CpuDense::new()).expm(&a).unwrap();
    assert_eq!(rep.evaluation, TaylorEvaluation::Sastre8);
    assert_eq!((rep.squarings, rep.products), (0, 3));
    // Reference: the exponential of matexp-dense (Padé, independent).
    let want = matexp_dense::expm(&a).unwrap();
    assert!(rel_err(&e, &want) < 1e-15);
}

#[test]
fn nonnormal_matrices_are_not_overscaled() {
    // [[1, 1e6], [0, 1]]: ‖A‖₁ ≈ 1e6 would ask for about 20 squarings; the bound through
    // ‖A²‖ and ‖A‖·‖A²‖ asks for fewer.
    let a = Matrix::<f64>::from_row_major(2, 2, &[1.0, 1e6, 0.0, 1.0]).unwrap();
    let (_, rep) = Evaluator::new(CpuDense::new()).expm(&a).unwrap();
    let plain = (rep.norm1 / THETA[rep.degree - 1]).log2().ceil() as u32;
    assert!(rep.squarings + 5 <= plain, "{} vs {plain}", rep.squarings);
}

#[test]
fn zero_and_empty_matrices_give_the_identity() {
    let mut ev = Evaluator::new(CpuDense::new());
    let (e, rep) = ev.expm(&Matrix::<c64>::zeros(3, 3)).unwrap();
    assert_eq!(e, Matrix::identity(3));
    assert_eq!(rep.evaluation, TaylorEvaluation::Identity);
    let (e, _) = ev.expm(&Matrix::<c64>::zeros(0, 0)).unwrap();
    assert_eq!(e.nrows(), 0);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let mut ev = Evaluator::new(CpuDense::new());
    let nan = Matrix::<f64>::from_row_major(2, 2, &[1.0, f64::NAN, 0.0, 1.0]).unwrap();
    assert!(matches!(ev.expm(&nan), Err(Error::NonFinite { .. })));
    let overflow = Matrix::<f64>::from_diagonal(&[800.0, 1.0]);
    assert!(matches!(ev.expm(&overflow), Err(Error::NonFinite { .. })));
    let rect = Matrix::<f64>::zeros(2, 3);
    assert!(matches!(
        ev.expm(&rect),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        ev.phi_functions(&Matrix::<f64>::identity(2), 0),
        Err(Error::InvalidArgument { .. })
    ));
    // The evaluator stays usable after errors.
    let (e, _) = ev
        .expm(&Matrix::<f64>::from_diagonal(&[1.0, -1.0]))
        .unwrap();
    assert!((e[(0, 0)] - 1f64.exp()).abs() < 1e-15 * 3.0);
}

#[test]
fn repeated_calls_reuse_the_workspace_and_agree() {
    let mut ev = Evaluator::new(CpuDense::new());
    let cases = reference_cases();
    let first: Vec<_> = cases.iter().map(|c| ev.expm(&c.a).unwrap().0).collect();
    let again: Vec<_> = cases.iter().map(|c| ev.expm(&c.a).unwrap().0).collect();
    assert_eq!(first, again);
}
