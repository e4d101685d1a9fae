//! GPU ≡ CPU: the schemes, the exponential and the splits on cuBLAS against the CPU backend
//! and the mpmath references. Run by the GPU bundle (`cargo xtask bundle`); inputs are
//! seeded, so a failure reproduces.

mod common;

use common::{coefficients, families, random, real, reference_cases, rel_err};
use matexp_core::{c32, c64};
use matexp_dense::Matrix;
use matexp_matpoly::split::{column_split, power_split, power_split_products};
use matexp_matpoly::{
    Counting, CpuDense, CublasDense, DenseBackend, Evaluator, GpuScalar, Scheme, TAYLOR8_PRODUCTS,
};

fn gpu() -> CublasDense {
    CublasDense::new(0).expect("an NVIDIA GPU with cuBLAS and NVRTC")
}

fn schemes_match_cpu<S: GpuScalar>(n: usize, tol: f64) {
    let mut g = Evaluator::new(Counting::new(gpu()));
    let mut c = Evaluator::new(CpuDense::new());
    for d in [0usize, 1, 2, 7, 12, 20, 30] {
        let alpha = coefficients::<S>(d, 17 + d as u64);
        for (name, x) in families::<S>(n, 1.0, 29 + d as u64) {
            let want = c.polyval(&x, &alpha, Scheme::Horner).unwrap();
            for scheme in [
                Scheme::Powers,
                Scheme::Horner,
                Scheme::paterson_stockmeyer(d),
                Scheme::PatersonStockmeyer { block: 2 },
            ] {
                g.backend_mut().reset();
                let got = g.polyval(&x, &alpha, scheme).unwrap();
                let err = rel_err(&got, &want);
                assert!(
                    err <= tol,
                    "{} {name} d = {d} {}: {err:.2e}",
                    S::NAME,
                    scheme.name()
                );
                assert_eq!(g.backend().gemms, scheme.products(d));
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn f64_and_c64_schemes_on_cublas_match_the_cpu() {
    schemes_match_cpu::<f64>(96, 1e-13);
    schemes_match_cpu::<c64>(64, 1e-13);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn single_precision_schemes_on_cublas_match_the_cpu() {
    // TF32 stays off: single-precision rounding, not TF32's 2^-11.
    schemes_match_cpu::<f32>(96, 5e-5);
    schemes_match_cpu::<c32>(64, 5e-5);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn taylor8_on_cublas_matches_the_cpu() {
    let x = random::<f64>(128, 0.0004, 3);
    let mut g = Evaluator::new(Counting::new(gpu()));
    let xd = g.backend_mut().upload(&x).unwrap();
    let mut out = g.backend_mut().zeros(128, 128).unwrap();
    g.backend_mut().reset();
    g.taylor8_into(&xd, &mut out).unwrap();
    assert_eq!(g.backend().gemms, TAYLOR8_PRODUCTS);
    let got = g.backend_mut().download(&out).unwrap();
    let mut c = Evaluator::new(CpuDense::new());
    let mut want = Matrix::zeros(128, 128);
    c.taylor8_into(&x, &mut want).unwrap();
    assert!(rel_err(&got, &want) <= 1e-14);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn taylor18_on_cublas_matches_the_cpu() {
    // ‖X‖₁ ≈ 1, inside θ₁₈: the range the exponential uses T₁₈ in.
    let x = families::<f64>(160, 1.0, 12).remove(2).1;
    let mut g = Evaluator::new(Counting::new(gpu()));
    let xd = g.backend_mut().upload(&x).unwrap();
    let mut out = g.backend_mut().zeros(160, 160).unwrap();
    g.backend_mut().reset();
    g.taylor18_into(&xd, &mut out).unwrap();
    assert_eq!(g.backend().gemms, matexp_matpoly::taylor18::PRODUCTS);
    let got = g.backend_mut().download(&out).unwrap();
    let mut want = Matrix::zeros(160, 160);
    Evaluator::new(CpuDense::new())
        .taylor18_into(&x, &mut want)
        .unwrap();
    assert!(rel_err(&got, &want) <= 1e-14);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn expm_on_cublas_matches_the_mpmath_references() {
    let mut ev = Evaluator::new(gpu());
    let mut ev_real = Evaluator::new(gpu());
    for case in reference_cases() {
        let (e, rep) = ev.expm(&case.a).unwrap();
        let err = rel_err(&e, &case.expm);
        println!(
            "{:28} c64 m = {:2} s = {:2} error = {err:.2e}",
            case.name, rep.degree, rep.squarings
        );
        assert!(err <= 1e-13, "{}: {err:.3e}", case.name);
        if !case.complex {
            let (e, _) = ev_real.expm(&real(&case.a)).unwrap();
            let err = rel_err(&e, &real(&case.expm));
            assert!(err <= 1e-13, "{} f64: {err:.3e}", case.name);
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn expm_on_cublas_matches_the_cpu_at_n_512() {
    for (scale, seed) in [(0.01, 1u64), (0.2, 2), (1.0, 3)] {
        let a = random::<f64>(512, scale, seed);
        let (want, rc) = Evaluator::new(CpuDense::new()).expm(&a).unwrap();
        let mut g = Evaluator::new(Counting::new(gpu()));
        let (got, rg) = g.expm(&a).unwrap();
        assert_eq!(
            (rc.degree, rc.squarings),
            (rg.degree, rg.squarings),
            "scale {scale}"
        );
        assert_eq!(g.backend().gemms, rg.products);
        let err = rel_err(&got, &want);
        println!(
            "n = 512, scale {scale}: m = {} s = {} GPU vs CPU {err:.2e}",
            rg.degree, rg.squarings
        );
        assert!(err <= 1e-12, "scale {scale}: {err:.2e}");
    }
    let a = random::<c64>(256, 0.5, 4);
    let (want, _) = Evaluator::new(CpuDense::new()).expm(&a).unwrap();
    let (got, _) = Evaluator::new(gpu()).expm(&a).unwrap();
    assert!(rel_err(&got, &want) <= 1e-12);
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn splits_over_2_and_4_partitions_of_one_gpu_match_the_cpu() {
    let x = families::<f64>(200, 1.0, 8).remove(0).1;
    for (d, b) in [(12usize, 3usize), (20, 4), (30, 5)] {
        let alpha = coefficients::<f64>(d, d as u64);
        let want = Evaluator::new(CpuDense::new())
            .polyval(&x, &alpha, Scheme::Horner)
            .unwrap();
        for parts in [2usize, 4] {
            let mut devs: Vec<_> = (0..parts).map(|_| Counting::new(gpu())).collect();
            let got = column_split(&mut devs, &x, &alpha, b).unwrap();
            let err = rel_err(&got, &want);
            assert!(
                err <= 1e-13,
                "column split, {parts} parts, d = {d}: {err:.2e}"
            );
            for dev in &devs {
                assert_eq!(
                    dev.gemms,
                    Scheme::PatersonStockmeyer { block: b }.products(d)
                );
            }
            let mut devs: Vec<_> = (0..parts).map(|_| Counting::new(gpu())).collect();
            let got = power_split(&mut devs, &x, &alpha).unwrap();
            let err = rel_err(&got, &want);
            assert!(
                err <= 1e-13,
                "power split, {parts} parts, d = {d}: {err:.2e}"
            );
            for (g, dev) in devs.iter().enumerate() {
                assert_eq!(dev.gemms, power_split_products(d, parts, g));
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn backend_primitives_match_the_cpu() {
    fn check<S: GpuScalar>() {
        let mut g = gpu();
        let mut c = CpuDense::new();
        let a = random::<S>(37, 2.0, 5);
        let ga = g.upload(&a).unwrap();
        let (ng, nc) = (g.norm_one(&ga).unwrap(), c.norm_one(&a).unwrap());
        // The GPU sums |a_ij| in double; the CPU takes |a_ij| in the working precision first,
        // so single precision agrees to its own roundoff only.
        let tol = if std::mem::size_of::<S::Elem>() == 4 {
            1e-6
        } else {
            1e-12
        };
        assert!((ng - nc).abs() <= tol * nc, "{}: {ng} vs {nc}", S::NAME);
        // The identity's column block [:, 5..17] added to a 37 × 12 block.
        let blk = a.submatrix(0, 5, 37, 12).unwrap();
        let mut gb = g.upload(&blk).unwrap();
        let mut cb = blk.clone();
        let alpha = S::from_c64(c64::new(1.5, -0.5));
        g.add_identity(alpha, &mut gb, 5).unwrap();
        c.add_identity(alpha, &mut cb, 5).unwrap();
        assert_eq!(g.download(&gb).unwrap(), cb);
        let mut nan = a.clone();
        nan[(3, 4)] = S::from_f64(f64::NAN);
        let gn = g.upload(&nan).unwrap();
        assert!(g.norm_one(&gn).unwrap().is_nan());
    }
    check::<f32>();
    check::<f64>();
    check::<c32>();
    check::<c64>();
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn lincomb_on_cublas_matches_the_cpu() {
    fn check<S: GpuScalar>(tol: f64) {
        let mut g = gpu();
        let mut c = CpuDense::new();
        // A 300 × 90 column block of the identity's columns 250.., so that its diagonal
        // entries stop at row 299 (column 49): the kernel's row == col0 + column test.
        let (n, m, col0) = (300, 90, 250);
        let mats: Vec<Matrix<S>> = (0..11u64)
            .map(|k| random::<S>(n, 1.0, 70 + k).submatrix(0, 0, n, m).unwrap())
            .collect();
        let gm: Vec<_> = mats.iter().map(|x| g.upload(x).unwrap()).collect();
        let a0 = S::from_c64(c64::new(0.5, 1.5));
        // 11 terms: two launches, the second accumulating into the first's output.
        for t in [0usize, 1, 4, 8, 11] {
            let coefs: Vec<S> = (0..t)
                .map(|k| S::from_c64(c64::new(1.0 - 0.1 * k as f64, 0.05 * k as f64)))
                .collect();
            let ct: Vec<(S, &Matrix<S>)> = coefs.iter().copied().zip(&mats).collect();
            let gt: Vec<_> = coefs.iter().copied().zip(&gm).collect();
            let mut want = Matrix::zeros(n, m);
            c.lincomb(a0, &ct, col0, &mut want).unwrap();
            // NaN in the reused output must not leak in.
            let nan = Matrix::from_fn(n, m, |_, _| S::from_f64(f64::NAN));
            let mut got = g.upload(&nan).unwrap();
            g.lincomb(a0, &gt, col0, &mut got).unwrap();
            let got = g.download(&got).unwrap();
            let err = rel_err(&got, &want);
            assert!(err <= tol, "{} with {t} terms: {err:.2e}", S::NAME);
        }
        let wrong = g.zeros(n, m + 1).unwrap();
        let mut out = g.zeros(n, m).unwrap();
        assert!(
            g.lincomb(a0, &[(S::one(), &wrong)], col0, &mut out)
                .is_err()
        );
    }
    // The GPU fuses multiply-adds, the CPU does not: agreement to a few roundoffs.
    check::<f64>(1e-15);
    check::<c64>(1e-15);
    check::<f32>(1e-6);
    check::<c32>(1e-6);
}
