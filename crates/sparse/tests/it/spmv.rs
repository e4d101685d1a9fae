//! SpMV and the fused Leja step against independent references, for every scalar type and
//! both index widths.

use crate::common;
use matexp_core::OperatorSteps;

use common::*;
use matexp_core::{Backend, CpuBackend, LinearOperator, Scalar, ShiftedStep, c32, c64};
use matexp_sparse::{CsrIndex, CsrMatrix, PatternCsr};
use proptest::prelude::*;

fn check_spmv<S: Scalar, I: CsrIndex>(
    seed: u64,
    nrows: usize,
    ncols: usize,
    density: f64,
    beta_zero: bool,
) {
    let mut r = rng(seed);
    let t = triplets::<S>(&mut r, nrows, ncols, density);
    let a = CsrMatrix::<S, I>::from_triplets(nrows, ncols, &t).unwrap();
    let x = vector::<S>(&mut r, ncols);
    let alpha = scalar::<S>(&mut r);
    let beta = if beta_zero {
        S::zero()
    } else {
        scalar::<S>(&mut r)
    };
    let y0: Vec<S> = if beta_zero {
        // y must not be read when β = 0: NaN there would otherwise propagate.
        vec![S::from_f64(f64::NAN); nrows]
    } else {
        vector::<S>(&mut r, nrows)
    };
    let (want, bound) = reference_spmv(nrows, &t, alpha, &x, beta, &y0);
    let mut y = y0.clone();
    a.apply(&CpuBackend, alpha, &x, beta, &mut y).unwrap();
    assert_close(
        &y,
        &want,
        &bound,
        &format!("{}/{} spmv {nrows}x{ncols}", S::NAME, I::NAME),
    );
}

fn check_all_types(seed: u64, nrows: usize, ncols: usize, density: f64, beta_zero: bool) {
    check_spmv::<f32, u32>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<f64, u32>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<c32, u32>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<c64, u32>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<f32, u64>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<f64, u64>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<c32, u64>(seed, nrows, ncols, density, beta_zero);
    check_spmv::<c64, u64>(seed, nrows, ncols, density, beta_zero);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn spmv_matches_reference(seed in any::<u64>(), nrows in 0usize..20, ncols in 0usize..20,
                              density in 0.0f64..0.6, beta_zero in any::<bool>()) {
        check_all_types(seed, nrows, ncols, density, beta_zero);
    }

    #[test]
    fn pattern_spmv_matches_weighted_ones(seed in any::<u64>(), n in 1usize..25, density in 0.0f64..0.5,
                                          beta_zero in any::<bool>()) {
        let mut r = rng(seed);
        let t = triplets::<f64>(&mut r, n, n, density);
        let coords: Vec<(usize, usize)> = t.iter().map(|e| (e.0, e.1)).collect();
        let p = PatternCsr::<u32>::from_coordinates(n, n, &coords).unwrap();
        // Reference: the set of coordinates (repeats once) with value 1.
        let mut set = coords.clone();
        set.sort_unstable();
        set.dedup();
        let ones: Vec<(usize, usize, c64)> = set.iter().map(|&(i, j)| (i, j, c64::new(1.0, 0.0))).collect();
        let x = vector::<c64>(&mut r, n);
        let alpha = scalar::<c64>(&mut r);
        let beta = if beta_zero { c64::new(0.0, 0.0) } else { scalar::<c64>(&mut r) };
        let y0 = if beta_zero { vec![c64::new(f64::NAN, 0.0); n] } else { vector::<c64>(&mut r, n) };
        let (want, bound) = reference_spmv(n, &ones, alpha, &x, beta, &y0);
        let mut y = y0.clone();
        LinearOperator::<CpuBackend, c64>::apply(&p, &CpuBackend, alpha, &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, "pattern spmv");
    }

    #[test]
    fn fused_leja_step_equals_unfused(seed in any::<u64>(), n in 1usize..30, density in 0.0f64..0.5) {
        fused_equals_unfused::<f64, u32>(seed, n, density);
        fused_equals_unfused::<c64, u64>(seed, n, density);
        fused_equals_unfused::<f32, u64>(seed, n, density);
        fused_equals_unfused::<c32, u32>(seed, n, density);
    }
}

/// The default trait method (copy, apply, axpby, nrm2) as the reference.
struct Unfused<'a, S: Scalar, I: CsrIndex>(&'a CsrMatrix<S, I>);
impl<S: Scalar, I: CsrIndex> LinearOperator<CpuBackend, S> for Unfused<'_, S, I> {
    fn nrows(&self) -> usize {
        self.0.nrows()
    }
    fn ncols(&self) -> usize {
        self.0.ncols()
    }
    fn apply(
        &self,
        b: &CpuBackend,
        alpha: S,
        x: &Vec<S>,
        beta: S,
        y: &mut Vec<S>,
    ) -> matexp_core::Result<()> {
        self.0.apply(b, alpha, x, beta, y)
    }
}

fn fused_equals_unfused<S: Scalar, I: CsrIndex>(seed: u64, n: usize, density: f64) {
    use matexp_core::RealScalar;
    let mut r = rng(seed);
    let t = triplets::<S>(&mut r, n, n, density);
    let a = CsrMatrix::<S, I>::from_triplets(n, n, &t).unwrap();
    let step = ShiftedStep {
        alpha: scalar::<S>(&mut r),
        shift: scalar::<S>(&mut r),
        coeff: scalar::<S>(&mut r),
    };
    let y_prev = vector::<S>(&mut r, n);
    let p0 = vector::<S>(&mut r, n);
    let (mut y1, mut p1) = (vec![S::from_f64(f64::NAN); n], p0.clone());
    let (mut y2, mut p2) = (vec![S::from_f64(f64::NAN); n], p0.clone());
    let cpu = CpuBackend;
    let n1 = a
        .shifted_step(&cpu, &step, &y_prev, &mut y1, &mut p1)
        .unwrap();
    let n2 = Unfused(&a)
        .shifted_step(&cpu, &step, &y_prev, &mut y2, &mut p2)
        .unwrap();
    // Same arithmetic per entry: y = alpha·(Ay) + shift·y_prev, p += coeff·y.
    assert_eq!(y1, y2, "{}/{} y_next", S::NAME, I::NAME);
    assert_eq!(p1, p2, "{}/{} p", S::NAME, I::NAME);
    let eps = <S::Real as RealScalar>::EPS.as_f64();
    let (n1, n2) = (n1.as_f64(), n2.as_f64());
    assert!(
        (n1 - n2).abs() <= 4.0 * (n as f64 + 1.0) * eps * n2.max(f64::MIN_POSITIVE),
        "norm {n1} vs {n2}"
    );
    assert!(
        (n1 - matexp_core::norms::nrm2(&y1).as_f64()).abs() <= 4.0 * (n as f64 + 1.0) * eps * n2
    );
}

#[test]
fn large_matrices_take_the_parallel_path_and_agree() {
    // 4000 rows with ~25 entries each (100 k entries) plus a dense hub row: above the serial
    // threshold, so rows are split into chunks; one row is much heavier than the rest.
    let mut r = rng(99);
    let n = 4000;
    let mut t = triplets::<c64>(&mut r, n, n, 25.0 / n as f64);
    for j in 0..n {
        t.push((17, j, scalar(&mut r)));
    }
    let a = CsrMatrix::<c64, u32>::from_triplets(n, n, &t).unwrap();
    assert!(a.nnz() > 100_000);
    let x = vector::<c64>(&mut r, n);
    for beta in [c64::new(0.0, 0.0), c64::new(1.0, 0.0), c64::new(0.3, -0.2)] {
        let y0 = if beta == c64::new(0.0, 0.0) {
            vec![c64::new(f64::NAN, f64::NAN); n]
        } else {
            vector(&mut r, n)
        };
        let (want, bound) = reference_spmv(n, &t, c64::new(-1.5, 0.5), &x, beta, &y0);
        let mut y = y0.clone();
        a.spmv(c64::new(-1.5, 0.5), &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, "large spmv");
    }
    // The fused step on the parallel path: compare with its definition.
    let step = ShiftedStep {
        alpha: c64::new(0.25, 0.0),
        shift: c64::new(-0.1, 0.0),
        coeff: c64::new(2.0, 1.0),
    };
    let mut y_next = vec![c64::new(0.0, 0.0); n];
    let mut p = vector::<c64>(&mut r, n);
    let p0 = p.clone();
    let norm = a.leja_step_fused(&step, &x, &mut y_next, &mut p).unwrap();
    let mut ay = vec![c64::new(0.0, 0.0); n];
    a.spmv(c64::new(1.0, 0.0), &x, c64::new(0.0, 0.0), &mut ay)
        .unwrap();
    for i in 0..n {
        let want = step.alpha * ay[i] + step.shift * x[i];
        assert_eq!(y_next[i], want);
        assert_eq!(p[i], p0[i] + step.coeff * want);
    }
    assert!((norm - CpuBackend.nrm2(&y_next).unwrap()).abs() <= 1e-12 * norm);
}

#[test]
fn fused_norm_survives_overflow_and_underflow() {
    // Entries near 1e200 (squares overflow f64) and near 1e-200 (squares underflow).
    for scale in [1e200, 1e-200] {
        let n = 50;
        let a = CsrMatrix::<f64, u32>::identity(n).unwrap();
        let y_prev = vec![scale; n];
        let mut y_next = vec![0.0; n];
        let mut p = vec![0.0; n];
        let step = ShiftedStep {
            alpha: 1.0,
            shift: 0.0,
            coeff: 1.0,
        };
        let norm = a
            .leja_step_fused(&step, &y_prev, &mut y_next, &mut p)
            .unwrap();
        let want = scale * (n as f64).sqrt();
        assert!(
            (norm / want - 1.0).abs() < 1e-14,
            "scale {scale:e}: {norm:e} vs {want:e}"
        );
    }
}

#[test]
fn alpha_zero_scales_y_and_wrong_lengths_are_errors() {
    let a = CsrMatrix::<f64, u32>::from_triplets(2, 3, &[(0, 0, 1.0), (1, 2, 2.0)]).unwrap();
    let mut y = vec![1.0, 2.0];
    a.spmv(0.0, &[f64::NAN; 3], 3.0, &mut y).unwrap();
    assert_eq!(y, vec![3.0, 6.0]);
    assert!(matches!(
        a.spmv(1.0, &[1.0; 2], 0.0, &mut y),
        Err(matexp_core::Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        a.spmv(1.0, &[1.0; 3], 0.0, &mut [0.0; 3]),
        Err(matexp_core::Error::DimensionMismatch { .. })
    ));
    let step = ShiftedStep {
        alpha: 1.0,
        shift: 0.0,
        coeff: 1.0,
    };
    assert!(
        a.leja_step_fused(&step, &[0.0; 3], &mut [0.0; 3], &mut [0.0; 3])
            .is_err(),
        "non-square"
    );
}
