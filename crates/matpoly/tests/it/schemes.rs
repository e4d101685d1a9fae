//! Every evaluation scheme computes Horner's polynomial, in the number of products its
//! formula states, for all four scalar types.

use crate::common;

use common::{coefficients, eps, families, rel_err};
use matexp_core::{Error, Scalar, c32, c64};
use matexp_dense::Matrix;
use matexp_matpoly::{Counting, CpuDense, DenseBackend, Evaluator, Scheme, TAYLOR8_PRODUCTS};
use proptest::prelude::*;

fn all_schemes(d: usize) -> Vec<Scheme> {
    let mut s = vec![Scheme::Powers, Scheme::Horner];
    for b in 1..=d + 1 {
        s.push(Scheme::PatersonStockmeyer { block: b });
    }
    s
}

/// Checks every scheme against Horner on every family; `tol` is relative to ‖P‖₁.
fn agree_with_horner<S: Scalar>(n: usize, degrees: &[usize], tol: f64) {
    let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
    for (k, &d) in degrees.iter().enumerate() {
        let alpha = coefficients::<S>(d, 7 + k as u64);
        for (name, x) in families::<S>(n, 1.0, 100 + d as u64) {
            let h = ev.polyval(&x, &alpha, Scheme::Horner).unwrap();
            for scheme in all_schemes(d) {
                ev.backend_mut().reset();
                let p = ev.polyval(&x, &alpha, scheme).unwrap();
                let err = rel_err(&p, &h);
                assert!(
                    err <= tol,
                    "{} {name} d = {d} {}: {err:.2e}",
                    S::NAME,
                    scheme.name()
                );
                assert_eq!(
                    ev.backend().gemms,
                    scheme.products(d),
                    "{} d = {d} products",
                    scheme.name()
                );
            }
        }
    }
}

#[test]
fn f64_schemes_agree_with_horner_to_1e_14() {
    agree_with_horner::<f64>(24, &[0, 1, 2, 3, 5, 8, 12, 13, 20, 30], 1e-14);
}

#[test]
fn c64_schemes_agree_with_horner_to_1e_14() {
    agree_with_horner::<c64>(16, &[0, 1, 4, 12, 20, 30], 1e-14);
}

#[test]
fn single_precision_schemes_agree_with_horner() {
    agree_with_horner::<f32>(16, &[0, 3, 12, 20], 100.0 * eps::<f32>());
    agree_with_horner::<c32>(12, &[2, 12, 20], 100.0 * eps::<c32>());
}

#[test]
fn horner_matches_an_independent_sum_of_powers() {
    // Horner itself against Σ α_i X^i with powers formed by matexp-dense's matmul.
    let x = families::<f64>(10, 1.0, 5).remove(2).1;
    let alpha = coefficients::<f64>(9, 3);
    let mut want = Matrix::<f64>::zeros(10, 10);
    let mut pw = Matrix::<f64>::identity(10);
    for &a in &alpha {
        want.add_scaled(a, &pw).unwrap();
        pw = pw.matmul(&x).unwrap();
    }
    let h = Evaluator::new(CpuDense::new())
        .polyval(&x, &alpha, Scheme::Horner)
        .unwrap();
    assert!(rel_err(&h, &want) <= 1e-14);
}

#[test]
fn taylor8_agrees_with_horner_in_three_products() {
    let mut f = 1.0;
    let alpha: Vec<f64> = (0..=8)
        .map(|k| {
            if k > 0 {
                f *= k as f64;
            }
            1.0 / f
        })
        .collect();
    let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
    // ‖X‖ up to θ₈ ≈ 0.05 (where the exponential uses it) and beyond.
    for norm in [0.01, 0.05, 0.5, 2.0] {
        for (name, x) in families::<f64>(20, norm, 42) {
            let h = ev.polyval(&x, &alpha, Scheme::Horner).unwrap();
            ev.backend_mut().reset();
            let mut t = Matrix::zeros(20, 20);
            ev.taylor8_into(&x, &mut t).unwrap();
            assert_eq!(ev.backend().gemms, TAYLOR8_PRODUCTS);
            let ps = Scheme::paterson_stockmeyer(8).products(8);
            assert!(TAYLOR8_PRODUCTS < ps, "{TAYLOR8_PRODUCTS} vs {ps}");
            let err = rel_err(&t, &h);
            assert!(err <= 1e-14, "{name} ‖X‖ = {norm}: {err:.2e}");
        }
    }
}

#[test]
fn taylor18_agrees_with_horner_in_five_products() {
    let mut f = 1.0;
    let alpha: Vec<f64> = (0..=18)
        .map(|k| {
            if k > 0 {
                f *= k as f64;
            }
            1.0 / f
        })
        .collect();
    let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
    // Up to θ₁₈ ≈ 1.09, the range the exponential uses it in.
    for norm in [0.01, 0.3, 1.09] {
        for (name, x) in families::<f64>(20, norm, 7) {
            let h = ev.polyval(&x, &alpha, Scheme::Horner).unwrap();
            ev.backend_mut().reset();
            let mut t = Matrix::zeros(20, 20);
            ev.taylor18_into(&x, &mut t).unwrap();
            assert_eq!(ev.backend().gemms, matexp_matpoly::taylor18::PRODUCTS);
            assert!(
                matexp_matpoly::taylor18::PRODUCTS < Scheme::paterson_stockmeyer(18).products(18)
            );
            let err = rel_err(&t, &h);
            assert!(err <= 1e-14, "{name} ‖X‖ = {norm}: {err:.2e}");
        }
        let xc = families::<c64>(12, norm, 8).remove(0).1;
        let alpha_c: Vec<c64> = alpha.iter().map(|&a| c64::new(a, 0.0)).collect();
        let mut evc = Evaluator::new(CpuDense::new());
        let h = evc.polyval(&xc, &alpha_c, Scheme::Horner).unwrap();
        let mut t = Matrix::zeros(12, 12);
        evc.taylor18_into(&xc, &mut t).unwrap();
        assert!(rel_err(&t, &h) <= 1e-14);
    }
}

#[test]
fn seed_table_counts_and_block_sizes() {
    // Seed 004, Table 1: (d, b) = (12, 3), (20, 4), (30, 5) imply 5, 7 and 9 products.
    for (d, b, p) in [(12, 3, 5), (20, 4, 7), (30, 5, 9)] {
        assert_eq!(
            Scheme::paterson_stockmeyer(d),
            Scheme::PatersonStockmeyer { block: b }
        );
        assert_eq!(Scheme::PatersonStockmeyer { block: b }.products(d), p);
    }
}

#[test]
fn workspaces_are_reused_across_calls() {
    let x = families::<f64>(12, 1.0, 9).remove(0).1;
    let alpha = coefficients::<f64>(20, 1);
    let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
    let scheme = Scheme::paterson_stockmeyer(20);
    let first = ev.polyval(&x, &alpha, scheme).unwrap();
    // A second call allocates nothing: the evaluator kept its powers and scratch.
    let xd = ev.backend_mut().upload(&x).unwrap();
    let mut out = ev.backend_mut().zeros(12, 12).unwrap();
    ev.backend_mut().reset();
    ev.evaluate_into(&xd, &alpha, scheme, &mut out).unwrap();
    assert_eq!(ev.backend().allocations, 0);
    assert_eq!(out, first);
    // The exponential too, after its first call (‖X‖₁ = 1 needs no scaling, so no norm
    // estimates, whose probe vectors are the only other allocations).
    let mut e = ev.backend_mut().zeros(12, 12).unwrap();
    ev.expm_into(&xd, &mut e).unwrap();
    ev.backend_mut().reset();
    let rep = ev.expm_into(&xd, &mut e).unwrap();
    assert_eq!(rep.squarings, 0);
    assert_eq!(ev.backend().allocations, 0);
}

/// `α₀·I[:, col0..] + Σ c_k M_k` entry by entry, in the order the backend documents.
fn lincomb_reference<S: Scalar>(
    a0: S,
    terms: &[(S, &Matrix<S>)],
    col0: usize,
    out: &mut Matrix<S>,
) {
    for j in 0..out.ncols() {
        for i in 0..out.nrows() {
            let mut v = if i == col0 + j { a0 } else { S::zero() };
            for &(c, m) in terms {
                v += c * m[(i, j)];
            }
            out[(i, j)] = v;
        }
    }
}

fn lincomb_matches_its_definition<S: Scalar>() {
    let mut be = CpuDense::new();
    // A 150 × 700 column block: several rayon tasks of whole columns, the identity's block
    // [:, 40..] crossing it (rows 40..150 hold diagonal entries, the rest of the columns none).
    let (n, m, col0) = (150, 700, 40);
    let mats: Vec<Matrix<S>> = (0..11u64)
        .map(|k| {
            let full = common::random::<S>(m, 1.0, 900 + k);
            full.submatrix(0, 0, n, m).unwrap()
        })
        .collect();
    let a0 = S::from_c64(c64::new(0.75, -0.25));
    for t in [0usize, 1, 3, 8, 11] {
        let coefs: Vec<S> = (0..t)
            .map(|k| S::from_c64(c64::new(1.0 / (1.0 + k as f64), 0.125 * k as f64)))
            .collect();
        let terms: Vec<(S, &Matrix<S>)> = coefs.iter().copied().zip(&mats).collect();
        let mut want = Matrix::zeros(n, m);
        lincomb_reference(a0, &terms, col0, &mut want);
        // NaN in the reused output must not leak in: the output is written, not read.
        let mut got = Matrix::from_fn(n, m, |_, _| S::from_f64(f64::NAN));
        be.lincomb(a0, &terms, col0, &mut got).unwrap();
        assert_eq!(got, want, "{} with {t} terms", S::NAME);
    }
    let wrong = Matrix::<S>::zeros(n, m + 1);
    let mut out = Matrix::<S>::zeros(n, m);
    assert!(matches!(
        be.lincomb(a0, &[(S::one(), &wrong)], col0, &mut out),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn lincomb_is_one_pass_of_the_definition_for_every_scalar_type() {
    lincomb_matches_its_definition::<f64>();
    lincomb_matches_its_definition::<c64>();
    lincomb_matches_its_definition::<f32>();
    lincomb_matches_its_definition::<c32>();
}

#[test]
fn paterson_stockmeyer_forms_each_block_in_one_pass() {
    // The O(n²) work of Paterson–Stockmeyer: one copy of X into the stored powers and one
    // linear combination per block (1 + outer steps), no axpy chains: (12, 3) has 2 outer
    // steps, (20, 4) 3, (30, 5) 4 (seed 004, Table 1).
    let x = families::<f64>(16, 1.0, 3).remove(0).1;
    let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
    for (d, b, outer) in [(12, 3, 2), (20, 4, 3), (30, 5, 4)] {
        let alpha = coefficients::<f64>(d, d as u64);
        ev.polyval(&x, &alpha, Scheme::PatersonStockmeyer { block: b })
            .unwrap();
        ev.backend_mut().reset();
        let xd = ev.backend_mut().upload(&x).unwrap();
        let mut out = ev.backend_mut().zeros(16, 16).unwrap();
        ev.backend_mut().reset();
        ev.evaluate_into(
            &xd,
            &alpha,
            Scheme::PatersonStockmeyer { block: b },
            &mut out,
        )
        .unwrap();
        assert_eq!(ev.backend().level2, 1 + (1 + outer), "d = {d}");
    }
}

#[test]
fn bad_arguments_are_typed_errors() {
    let mut ev = Evaluator::new(CpuDense::new());
    let x = Matrix::<f64>::identity(3);
    assert!(matches!(
        ev.polyval(&x, &[], Scheme::Horner),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ev.polyval(&x, &[1.0, f64::NAN], Scheme::Horner),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        ev.polyval(&x, &[1.0, 2.0], Scheme::PatersonStockmeyer { block: 0 }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        ev.polyval(&Matrix::<f64>::zeros(2, 3), &[1.0], Scheme::Powers),
        Err(Error::DimensionMismatch { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any degree, block size and size: Paterson–Stockmeyer ≡ Horner, with its formula's
    /// number of products, never more than Horner's. The difference is measured against
    /// the a-priori scale `Σ|α_i|‖X‖₁^i` of both schemes' rounding errors: with `X = −1`
    /// (n = 1) the alternating sum cancels and no scheme is accurate relative to `|P|`.
    #[test]
    fn paterson_stockmeyer_is_horner(n in 1usize..9, d in 0usize..40, b in 1usize..9, seed in 0u64..1000) {
        let alpha = coefficients::<f64>(d, seed);
        let x = families::<f64>(n, 1.0, seed).remove((seed % 4) as usize).1;
        let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
        let h = ev.polyval(&x, &alpha, Scheme::Horner).unwrap();
        ev.backend_mut().reset();
        let scheme = Scheme::PatersonStockmeyer { block: b };
        let p = ev.polyval(&x, &alpha, scheme).unwrap();
        let nx = x.norm_one();
        let scale: f64 = alpha.iter().enumerate().map(|(i, a)| a.abs() * nx.powi(i as i32)).sum();
        let mut diff = p.clone();
        diff.add_scaled(-1.0, &h).unwrap();
        prop_assert!(diff.norm_one() <= 1e-14 * scale, "{:.2e}", diff.norm_one() / scale);
        if n > 1 {
            prop_assert_eq!(ev.backend().gemms, scheme.products(d));
        }
        prop_assert!(Scheme::paterson_stockmeyer(d).products(d) <= Scheme::Horner.products(d));
    }
}
