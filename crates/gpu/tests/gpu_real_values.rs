//! A real CSR matrix acting on complex vectors on the GPU (the `rcsr` kernels and cuSPARSE's
//! mixed real/complex SpMV) against the CPU backend's real-by-complex product
//! (`CsrMatrix<f64>` on `c64` vectors), and its fused Lanczos passes against those of the
//! same matrix stored complex. Seeded random inputs; outputs poisoned with NaN first.
//!
//! Every test needs a CUDA GPU and is ignored elsewhere; the GPU bundle runs them.

use matexp_core::{Backend, CpuBackend, LinearOperator, OperatorSteps, Scalar, ShiftedStep};
use matexp_core::{KrylovBackend, c32, c64};
use matexp_gpu::{GpuBackend, GpuCsr, GpuVector, SpmvKernel, ValueStorage};
use matexp_sparse::CsrMatrix;
use matexp_testkit::gpu_sizes::pick;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

fn rng(tag: u64) -> ChaCha8Rng {
    matexp_testkit::rng(&format!("matexp-gpu real values {tag}"))
}

/// A real matrix with distinct sorted columns per row (what cuSPARSE requires), some long
/// rows, values in [−1, 1).
fn random_real(r: &mut impl Rng, n: usize, max_row: usize) -> CsrMatrix<f64> {
    let mut t = Vec::new();
    for i in 0..n {
        let len = if i % 97 == 5 {
            r.random_range(100..300)
        } else {
            r.random_range(0..=max_row)
        };
        for _ in 0..len {
            t.push((i, r.random_range(0..n), r.random_range(-1.0..1.0)));
        }
    }
    CsrMatrix::from_triplets(n, n, &t).unwrap()
}

fn rand_vec<S: Scalar>(r: &mut impl Rng, n: usize) -> Vec<S> {
    (0..n)
        .map(|_| {
            S::from_c64(c64::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
            ))
        })
        .collect()
}

fn widen<S: Scalar>(x: &[S]) -> Vec<c64> {
    x.iter().map(|v| v.to_c64()).collect()
}

/// ‖got − want‖ / ‖want‖; NaN anywhere gives ∞.
fn rel_err<S: Scalar>(got: &[S], want: &[c64]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        let g = g.to_c64();
        if !(g.re.is_finite() && g.im.is_finite()) {
            return f64::INFINITY;
        }
        num += (g - w).norm_sqr();
        den += w.norm_sqr();
    }
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// The tolerance of a product in S's precision with rows of up to `max_row` terms.
fn tol<S: Scalar>(a: &CsrMatrix<f64>) -> f64 {
    let eps = if std::mem::size_of::<S::Real>() == 4 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    let max_row = (0..a.nrows()).map(|i| a.row(i).0.len()).max().unwrap_or(1);
    32.0 * eps * (max_row as f64).sqrt().max(1.0)
}

/// The real matrix with values rounded to S's real type, as the GPU stores it, and in f64.
fn rounded<S: Scalar>(a: &CsrMatrix<f64>) -> CsrMatrix<f64> {
    a.map_values(|v| S::from_f64(v).re().to_c64().re).unwrap()
}

fn upload_real<S: Scalar>(g: &GpuBackend, a: &CsrMatrix<f64>) -> GpuCsr<S> {
    let ar: CsrMatrix<S::Real> = a.cast().unwrap();
    let op = GpuCsr::<S>::from_real_csr(g, &ar).unwrap();
    assert!(op.real_values());
    op
}

fn spmv_case<S: Scalar>(g: &GpuBackend, r: &mut impl Rng, a: &CsrMatrix<f64>) {
    let cpu = CpuBackend::new();
    let op = upload_real::<S>(g, a);
    // The complex matrix with zero imaginary parts takes the same path by itself.
    let ac: CsrMatrix<S> = a.cast().unwrap();
    assert!(GpuCsr::from_csr(g, &ac).unwrap().real_values());
    assert!(
        !GpuCsr::from_csr_with(g, &ac, ValueStorage::Full)
            .unwrap()
            .real_values()
    );
    let n = a.nrows();
    let (x, y) = (rand_vec::<S>(r, n), rand_vec::<S>(r, n));
    let alpha = S::from_c64(c64::new(0.75, -1.25));
    let reference = rounded::<S>(a);
    let kernels = [
        SpmvKernel::Auto,
        SpmvKernel::Scalar,
        SpmvKernel::Vector { lanes: 4 },
        SpmvKernel::Vector { lanes: 32 },
        SpmvKernel::Cusparse,
    ];
    for beta in [S::from_c64(c64::new(-0.5, 0.25)), S::zero()] {
        let mut want = widen(&y);
        reference
            .apply(&cpu, alpha.to_c64(), &widen(&x), beta.to_c64(), &mut want)
            .unwrap();
        let gx = g.upload(&x).unwrap();
        for k in kernels {
            // β = 0: y must not be read (NaN there must not leak) by our kernels; cuSPARSE
            // promises nothing, so it gets y itself.
            let start = if beta == S::zero() && k != SpmvKernel::Cusparse {
                vec![S::from_c64(c64::new(f64::NAN, f64::NAN)); n]
            } else {
                y.clone()
            };
            let mut gy = g.upload(&start).unwrap();
            op.apply_with(g, k, alpha, &gx, beta, &mut gy).unwrap();
            let e = rel_err(&g.to_host(&gy).unwrap(), &want);
            assert!(e <= tol::<S>(a), "spmv {k} {} beta={beta}: {e:e}", S::NAME);
        }
    }
    assert_eq!(
        op.bytes_per_product(false),
        (n + 1 + a.nnz()) * 4
            + a.nnz() * std::mem::size_of::<S::Real>()
            + 2 * n * std::mem::size_of::<S>()
    );
}

fn leja_case<S: Scalar>(g: &GpuBackend, r: &mut impl Rng, a: &CsrMatrix<f64>) {
    let op = upload_real::<S>(g, a);
    let n = a.nrows();
    let step = ShiftedStep {
        alpha: S::from_c64(c64::new(0.0, -0.3)),
        shift: S::from_c64(c64::new(0.5, 0.1)),
        coeff: S::from_c64(c64::new(-0.2, 0.7)),
    };
    let (y, p) = (rand_vec::<S>(r, n), rand_vec::<S>(r, n));
    let wide = ShiftedStep {
        alpha: step.alpha.to_c64(),
        shift: step.shift.to_c64(),
        coeff: step.coeff.to_c64(),
    };
    let (mut yn_want, mut p_want) = (vec![c64::default(); n], widen(&p));
    let nrm_want = rounded::<S>(a)
        .leja_step_real_values(&wide, &widen(&y), &mut yn_want, &mut p_want)
        .unwrap();
    let gy = g.upload(&y).unwrap();
    let mut gyn = g
        .upload(&vec![S::from_c64(c64::new(f64::NAN, 0.0)); n])
        .unwrap();
    let mut gp = g.upload(&p).unwrap();
    let nrm = OperatorSteps::shifted_step(&op, g, &step, &gy, &mut gyn, &mut gp).unwrap();
    let t = tol::<S>(a);
    let e = rel_err(&g.to_host(&gyn).unwrap(), &yn_want);
    assert!(e <= t, "leja y_next {}: {e:e}", S::NAME);
    let e = rel_err(&g.to_host(&gp).unwrap(), &p_want);
    assert!(e <= t, "leja p {}: {e:e}", S::NAME);
    let nrm = nrm.to_c64().re;
    assert!(
        (nrm - nrm_want).abs() <= t * nrm_want,
        "leja norm {nrm} vs {nrm_want}"
    );
}

/// The fused Lanczos product (with and without q_{j−1}) and the deferred advance of the
/// real-valued matrix against the same matrix stored complex: the same arithmetic, so the
/// same results to rounding.
fn lanczos_case(g: &GpuBackend, r: &mut impl Rng, a: &CsrMatrix<f64>) {
    let real = upload_real::<c64>(g, a);
    let ac: CsrMatrix<c64> = a.cast().unwrap();
    let full = GpuCsr::from_csr_with(g, &ac, ValueStorage::Full).unwrap();
    let n = a.nrows();
    let j = 3;
    let q = g.upload(&rand_vec::<c64>(r, n)).unwrap();
    let qp = g.upload(&rand_vec::<c64>(r, n)).unwrap();
    let mut c0 = vec![0.0; 2 * j + 4];
    c0[2 * j - 1] = 0.375;
    let run = |op: &GpuCsr<c64>, prev: Option<&GpuVector<c64>>| {
        let mut c = g.upload(&c0).unwrap();
        let mut w = g.zeros::<c64>(n).unwrap();
        let mut sums = g.zeros::<f64>(matexp_core::LANCZOS_SUMS).unwrap();
        OperatorSteps::lanczos_product(op, g, j, prev, &q, &mut w, &c, &mut sums).unwrap();
        let product = (g.to_host(&w).unwrap(), g.to_host(&sums).unwrap());
        g.lanczos_settle(j, &q, &mut w, &mut c, &mut sums).unwrap();
        let mut qn = g.zeros::<c64>(n).unwrap();
        let mut w2 = g.zeros::<c64>(n).unwrap();
        OperatorSteps::lanczos_advance(op, g, j, &q, &w, &mut qn, &mut w2, &c, &mut sums).unwrap();
        let advance = (g.to_host(&qn).unwrap(), g.to_host(&w2).unwrap());
        (product, advance, g.to_host(&sums).unwrap())
    };
    for prev in [None, Some(&qp)] {
        let (pr, ar, sr) = run(&real, prev);
        let (pf, af, sf) = run(&full, prev);
        let ctx = format!("prev={}", prev.is_some());
        for (what, got, want) in [
            ("product w", &pr.0, &pf.0),
            ("advance q_next", &ar.0, &af.0),
            ("advance w", &ar.1, &af.1),
        ] {
            let e = rel_err(got, want);
            assert!(e <= 1e-13, "lanczos {what} {ctx}: {e:e}");
        }
        for (k, (x, y)) in pr.1.iter().zip(&pf.1).chain(sr.iter().zip(&sf)).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "lanczos sums {ctx} [{k}]: {x} vs {y}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn real_matrix_on_complex_vectors_matches_the_cpu() {
    let g = gpu();
    let mut r = rng(1);
    // Beyond one grid of the fused kernels' capped launches at the larger full size.
    for (n, max_row) in [
        (1usize, 1usize),
        (2000, 12),
        pick((300_007, 20), (30_000, 20)),
    ] {
        let a = random_real(&mut r, n, max_row);
        spmv_case::<c64>(&g, &mut r, &a);
        spmv_case::<c32>(&g, &mut r, &a);
        leja_case::<c64>(&g, &mut r, &a);
        leja_case::<c32>(&g, &mut r, &a);
        lanczos_case(&g, &mut r, &a);
    }
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn real_matrix_with_u64_indices_and_bad_input() {
    let g = gpu();
    let mut r = rng(2);
    let a = random_real(&mut r, 5000, 30);
    let a64: CsrMatrix<f64, u64> = a.with_index().unwrap();
    let op = GpuCsr::<c64>::from_real_csr(&g, &a64).unwrap();
    assert!(op.real_values() && op.index_type() == "u64");
    let x = rand_vec::<c64>(&mut r, a.nrows());
    let mut want = vec![c64::default(); a.nrows()];
    a.apply(
        &CpuBackend::new(),
        c64::new(1.0, 0.0),
        &x,
        c64::default(),
        &mut want,
    )
    .unwrap();
    let mut y = g.zeros::<c64>(a.nrows()).unwrap();
    op.apply(
        &g,
        c64::new(1.0, 0.0),
        &g.upload(&x).unwrap(),
        c64::default(),
        &mut y,
    )
    .unwrap();
    assert!(rel_err(&g.to_host(&y).unwrap(), &want) <= 1e-14);
    // A non-finite real value is a typed error naming the entry.
    let bad = GpuCsr::<c64>::from_real_parts(&g, 1, 1, &[0u32, 1], &[0u32], &[f64::NAN]);
    assert!(matches!(
        bad,
        Err(matexp_core::Error::NonFinite { index: 0, .. })
    ));
    let short = GpuCsr::<c64>::from_real_parts(&g, 1, 1, &[0u32, 1], &[0u32], &[]);
    assert!(matches!(
        short,
        Err(matexp_core::Error::DimensionMismatch { .. })
    ));
}
