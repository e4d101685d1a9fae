//! GPU kernels against the CPU, on seeded random inputs, for every scalar type. The seed is
//! printed; `MATEXP_TEST_SEED=<seed>` replays a logged run.
//!
//! Every test needs a CUDA GPU and is ignored elsewhere; the GPU bundle
//! (`cargo xtask bundle`) runs them on a GPU host with `--include-ignored`. References are
//! computed on the CPU in double-precision complex arithmetic (`c64`) from the same inputs,
//! and errors are judged relative to the precision of the type under test. Outputs are
//! poisoned with NaN before each kernel so that an unwritten entry cannot pass.

use matexp_core::OperatorSteps;
use matexp_core::{Backend, CpuBackend, LinearOperator, Scalar, ShiftedStep, c32, c64, norms};
use matexp_gpu::{
    GpuBackend, GpuCsr, GpuIndex, GpuPattern, GpuVector, MultiGpuBackend, MultiGpuCsr, SpmvKernel,
    device_count,
};
use matexp_testkit::gpu_sizes::pick;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Above one pass of the full grid (8 blocks of 256 threads per SM: 270 336 threads on a
/// 132-SM device), so that grid-stride loops take a second turn at the small scale too.
const PAST_ONE_GRID: usize = 300_007;

fn gpu() -> GpuBackend {
    let g = GpuBackend::new(0).expect("a CUDA device");
    eprintln!("device: {}", g.device().info());
    g
}

/// The test's input stream: one per tag, all derived from the printed test seed.
fn rng(tag: u64) -> ChaCha8Rng {
    matexp_testkit::rng(&format!("matexp-gpu kernels {tag}"))
}

fn rand_scalar<S: Scalar>(r: &mut impl Rng) -> S {
    S::from_c64(c64::new(
        r.random_range(-1.0..1.0),
        r.random_range(-1.0..1.0),
    ))
}

fn rand_vec<S: Scalar>(r: &mut impl Rng, n: usize) -> Vec<S> {
    (0..n).map(|_| rand_scalar(r)).collect()
}

fn up<S: Scalar>(x: &[S]) -> Vec<c64> {
    x.iter().map(|v| v.to_c64()).collect()
}

fn poison<S: Scalar>() -> S {
    S::from_c64(c64::new(f64::NAN, f64::NAN))
}

/// Unit roundoff of S's real type.
fn eps<S: Scalar>() -> f64 {
    if std::mem::size_of::<S::Real>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// ‖got − want‖ / ‖want‖ (absolute when want = 0), NaN anywhere gives ∞.
fn rel_err<S: Scalar>(got: &[S], want: &[c64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let mut num = 0.0;
    let mut den = 0.0;
    for (g, w) in got.iter().zip(want) {
        let g = g.to_c64();
        if !(g.re.is_finite() && g.im.is_finite()) {
            return f64::INFINITY;
        }
        num += (g - w).norm_sqr();
        den += w.norm_sqr();
    }
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

fn assert_close<S: Scalar>(what: &str, got: &[S], want: &[c64], tol: f64) {
    let e = rel_err(got, want);
    assert!(
        e <= tol,
        "{what} ({}): relative error {e:.3e} > {tol:.1e}",
        S::NAME
    );
}

// ---------------------------------------------------------------------------------------
// BLAS-1 and reductions

fn blas1_case<S: Scalar>(g: &GpuBackend, r: &mut impl Rng, n: usize) {
    let x = rand_vec::<S>(r, n);
    let y = rand_vec::<S>(r, n);
    let (alpha, beta): (S, S) = (rand_scalar(r), rand_scalar(r));
    let (xu, yu) = (up(&x), up(&y));
    let (a, b) = (alpha.to_c64(), beta.to_c64());
    // Inputs are exact in S; products round once (twice for complex).
    let tol = 4.0 * eps::<S>();
    let gx = g.upload(&x).unwrap();

    let mut gy = g.upload(&y).unwrap();
    g.axpby(alpha, &gx, beta, &mut gy).unwrap();
    let want: Vec<c64> = xu.iter().zip(&yu).map(|(x, y)| a * x + b * y).collect();
    // Rounding is relative to the terms, not to their (possibly cancelling) sum.
    let terms = a.norm() * norms::nrm2(&xu) + b.norm() * norms::nrm2(&yu);
    let cancel = terms / norms::nrm2(&want).max(f64::MIN_POSITIVE);
    assert_close(
        "axpby",
        &g.to_host(&gy).unwrap(),
        &want,
        tol * cancel.max(1.0),
    );

    // beta = 0 must not read y: a NaN there must not leak.
    let mut gy = g.upload(&vec![poison::<S>(); n]).unwrap();
    g.axpby(alpha, &gx, S::zero(), &mut gy).unwrap();
    let want: Vec<c64> = xu.iter().map(|x| a * x).collect();
    assert_close("axpby beta=0", &g.to_host(&gy).unwrap(), &want, tol);

    let mut gz = g.upload(&x).unwrap();
    g.scale(alpha, &mut gz).unwrap();
    assert_close("scale", &g.to_host(&gz).unwrap(), &want, tol);

    let mut gf = g.upload(&vec![poison::<S>(); n]).unwrap();
    g.fill(&mut gf, alpha).unwrap();
    assert_close(
        "fill",
        &g.to_host(&gf).unwrap(),
        &vec![alpha.to_c64(); n],
        0.0,
    );

    let mut gc = g.upload(&vec![poison::<S>(); n]).unwrap();
    g.copy(&gx, &mut gc).unwrap();
    assert_close("copy", &g.to_host(&gc).unwrap(), &xu, 0.0);

    // Linear combinations: none (y ← 0), one, and past one launch's 512 vectors; y is
    // poisoned, so a read of it would show.
    for count in [0usize, 1, 7, if n > 4096 { 9 } else { 520 }] {
        let xs: Vec<Vec<S>> = (0..count).map(|_| rand_vec::<S>(r, n)).collect();
        let cs: Vec<S> = (0..count).map(|_| rand_scalar(r)).collect();
        let gxs: Vec<_> = xs.iter().map(|x| g.upload(x).unwrap()).collect();
        let refs: Vec<_> = gxs.iter().collect();
        let mut gy = g.upload(&vec![poison::<S>(); n]).unwrap();
        g.linear_combination(&cs, &refs, &mut gy).unwrap();
        let mut want = vec![c64::new(0.0, 0.0); n];
        let mut terms = vec![0.0; n];
        for (c, x) in cs.iter().zip(&xs) {
            for i in 0..n {
                let t = c.to_c64() * x[i].to_c64();
                want[i] += t;
                terms[i] += t.norm();
            }
        }
        let got = g.to_host(&gy).unwrap();
        for i in 0..n {
            let err = (got[i].to_c64() - want[i]).norm();
            // count roundings of the running sum, each relative to the terms so far.
            let bound = 2.0 * (count as f64 + 1.0) * eps::<S>() * terms[i];
            assert!(
                err <= bound,
                "{} combination of {count}: element {i} off by {err:e} (bound {bound:e})",
                S::NAME
            );
        }
    }
    let one = g.upload(&x).unwrap();
    let bad = g.zeros::<S>(n + 1).unwrap();
    let mut gy = g.zeros::<S>(n).unwrap();
    assert!(
        g.linear_combination(&[alpha], &[&one, &one], &mut gy)
            .is_err()
    );
    assert!(g.linear_combination(&[alpha], &[&bad], &mut gy).is_err());
}

fn reduction_case<S: Scalar>(g: &GpuBackend, r: &mut impl Rng, n: usize) {
    let x = rand_vec::<S>(r, n);
    let y = rand_vec::<S>(r, n);
    let (xu, yu) = (up(&x), up(&y));
    let (gx, gy) = (g.upload(&x).unwrap(), g.upload(&y).unwrap());
    let cpu = CpuBackend::new();
    // Accumulation is in f64 on the device: the error is that of f64 sums plus one rounding
    // to S.
    let tol = 2.0 * eps::<S>() + 1e-13;

    let d = g.dot(&gx, &gy).unwrap().to_c64();
    let want = cpu.dot(&xu, &yu).unwrap();
    let want = if S::IS_COMPLEX {
        want
    } else {
        c64::new(want.re, 0.0)
    };
    let scale = norms::nrm2(&xu) * norms::nrm2(&yu);
    assert!(
        (d - want).norm() <= tol * scale.max(f64::MIN_POSITIVE),
        "dot ({}, n={n}): {d} vs {want}",
        S::NAME
    );

    let nrm = g.nrm2(&gx).unwrap().to_c64().re;
    let want = norms::nrm2(&xu);
    assert!(
        (nrm - want).abs() <= tol * want.max(f64::MIN_POSITIVE),
        "nrm2 ({}, n={n}): {nrm:e} vs {want:e}",
        S::NAME
    );

    let m = g.amax(&gx).unwrap().to_c64().re;
    let want = norms::amax(&xu);
    assert!(
        (m - want).abs() <= tol * want.max(f64::MIN_POSITIVE),
        "amax ({}, n={n}): {m:e} vs {want:e}",
        S::NAME
    );
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn blas1_and_reductions_match_cpu_for_every_scalar() {
    let g = gpu();
    let mut r = rng(1);
    for n in [0usize, 1, 31, 1000, pick((1 << 20) + 3, PAST_ONE_GRID)] {
        blas1_case::<f32>(&g, &mut r, n);
        blas1_case::<f64>(&g, &mut r, n);
        blas1_case::<c32>(&g, &mut r, n);
        blas1_case::<c64>(&g, &mut r, n);
    }
    for n in [
        1usize,
        257,
        pick(100_003, 3001),
        pick(3_000_001, PAST_ONE_GRID),
    ] {
        reduction_case::<f32>(&g, &mut r, n);
        reduction_case::<f64>(&g, &mut r, n);
        reduction_case::<c32>(&g, &mut r, n);
        reduction_case::<c64>(&g, &mut r, n);
    }
    // Empty vectors: zero, not NaN.
    let e = g.zeros::<c64>(0).unwrap();
    assert_eq!(g.nrm2(&e).unwrap(), 0.0);
    assert_eq!(g.dot(&e, &e).unwrap(), c64::new(0.0, 0.0));
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn norm_is_overflow_safe_and_propagates_nan() {
    let g = gpu();
    let mut r = rng(2);
    for n in [5usize, pick(100_000, 3001), pick(2_000_003, PAST_ONE_GRID)] {
        // Magnitudes from 1e-300 to 1e300: naive Σx² overflows and underflows.
        let x: Vec<f64> = (0..n)
            .map(|_| r.random_range(-1.0..1.0) * 10f64.powi(r.random_range(-300..300)))
            .collect();
        let got = g.nrm2(&g.upload(&x).unwrap()).unwrap();
        let want = norms::nrm2(&x);
        assert!(
            ((got - want) / want).abs() < 1e-13,
            "f64 n={n}: {got:e} vs {want:e}"
        );
        // e^A·1 on LiveJournal reaches 1.89e195.
        let z: Vec<c64> = (0..n)
            .map(|_| c64::new(1.89e195 * r.random_range(0.0..1.0), 1e-200))
            .collect();
        let got = g.nrm2(&g.upload(&z).unwrap()).unwrap();
        let want = norms::nrm2(&z);
        assert!(
            got.is_finite() && ((got - want) / want).abs() < 1e-13,
            "c64 n={n}: {got:e} vs {want:e}"
        );
        // Tiny values: squares underflow below the smallest subnormal.
        let t: Vec<f64> = (0..n).map(|_| 1e-300 * r.random_range(0.5..1.0)).collect();
        let got = g.nrm2(&g.upload(&t).unwrap()).unwrap();
        let want = norms::nrm2(&t);
        assert!(
            got > 0.0 && ((got - want) / want).abs() < 1e-13,
            "tiny n={n}: {got:e} vs {want:e}"
        );
    }
    let mut x = vec![1.0f32; 70_000];
    x[12_345] = f32::NAN;
    let gx = g.upload(&x).unwrap();
    assert!(g.nrm2(&gx).unwrap().is_nan());
    assert!(g.amax(&gx).unwrap().is_nan());
    assert!(g.dot(&gx, &gx).unwrap().is_nan());
    x[12_345] = f32::INFINITY;
    let gx = g.upload(&x).unwrap();
    assert_eq!(g.nrm2(&gx).unwrap(), f32::INFINITY);
    assert_eq!(g.amax(&gx).unwrap(), f32::INFINITY);
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn deferred_reductions_wait_in_any_order() {
    let g = gpu();
    let mut r = rng(3);
    let xs: Vec<Vec<c64>> = (0..6).map(|k| rand_vec(&mut r, 1000 + 777 * k)).collect();
    let gs: Vec<GpuVector<c64>> = xs.iter().map(|x| g.upload(x).unwrap()).collect();
    let pending: Vec<_> = gs.iter().map(|x| g.nrm2_deferred(x).unwrap()).collect();
    for (x, p) in xs.iter().zip(pending).rev() {
        let want = norms::nrm2(x);
        let got = p.wait().unwrap();
        assert!(((got - want) / want).abs() < 1e-14);
    }
}

// ---------------------------------------------------------------------------------------
// Sparse matrices

/// A random CSR matrix: row lengths 0..=max_row with a few long rows, random columns
/// (duplicates allowed: kernels must add them), values in the unit square.
struct Csr {
    n: usize,
    m: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    values: Vec<c64>,
}

fn random_csr(r: &mut impl Rng, n: usize, m: usize, max_row: usize) -> Csr {
    random_csr_with(r, n, m, max_row, false)
}

/// With `distinct`, each row's columns are distinct and sorted (what cuSPARSE requires);
/// otherwise repeats are allowed (our kernels must add them).
fn random_csr_with(r: &mut impl Rng, n: usize, m: usize, max_row: usize, distinct: bool) -> Csr {
    let mut row_ptr = vec![0];
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    for i in 0..n {
        let mut len = if i % 97 == 5 {
            r.random_range(100..400) // long rows: several rounds of every lane count
        } else {
            r.random_range(0..=max_row)
        };
        let mut cols: Vec<usize> = (0..len).map(|_| r.random_range(0..m)).collect();
        if distinct {
            len = len.min(m);
            cols.sort_unstable();
            cols.dedup();
            while cols.len() < len {
                let c = r.random_range(0..m);
                if let Err(at) = cols.binary_search(&c) {
                    cols.insert(at, c);
                }
            }
        }
        for c in cols {
            col_idx.push(c);
            values.push(c64::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
            ));
        }
        row_ptr.push(col_idx.len());
    }
    Csr {
        n,
        m,
        row_ptr,
        col_idx,
        values,
    }
}

impl Csr {
    fn indices<I: GpuIndex>(&self) -> (Vec<I>, Vec<I>) {
        let f = |v: &Vec<usize>| v.iter().map(|&i| I::try_narrow(i).unwrap()).collect();
        (f(&self.row_ptr), f(&self.col_idx))
    }
    fn values<S: Scalar>(&self) -> Vec<S> {
        self.values.iter().map(|&v| S::from_c64(v)).collect()
    }
    /// α·A·x + β·y in c64 with A's values rounded to S (None: pattern, all ones).
    fn reference<S: Scalar>(
        &self,
        pattern: bool,
        alpha: c64,
        x: &[c64],
        beta: c64,
        y: &[c64],
    ) -> Vec<c64> {
        let vals = up(&self.values::<S>());
        (0..self.n)
            .map(|i| {
                let mut s = c64::new(0.0, 0.0);
                for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                    let a = if pattern { c64::new(1.0, 0.0) } else { vals[k] };
                    s += a * x[self.col_idx[k]];
                }
                if beta == c64::new(0.0, 0.0) {
                    alpha * s
                } else {
                    alpha * s + beta * y[i]
                }
            })
            .collect()
    }
    /// A bound on |A|·|x| per entry, for the rounding tolerance of the products.
    fn max_row_len(&self) -> usize {
        (0..self.n)
            .map(|i| self.row_ptr[i + 1] - self.row_ptr[i])
            .max()
            .unwrap_or(0)
    }
}

const KERNELS: [SpmvKernel; 9] = [
    SpmvKernel::Auto,
    SpmvKernel::Scalar,
    SpmvKernel::Vector { lanes: 1 },
    SpmvKernel::Vector { lanes: 2 },
    SpmvKernel::Vector { lanes: 4 },
    SpmvKernel::Vector { lanes: 8 },
    SpmvKernel::Vector { lanes: 16 },
    SpmvKernel::Vector { lanes: 32 },
    SpmvKernel::Cusparse,
];

fn spmv_case<S: Scalar, I: GpuIndex>(
    g: &GpuBackend,
    r: &mut impl Rng,
    a: &Csr,
    kernels: &[SpmvKernel],
) {
    let (rp, ci) = a.indices::<I>();
    let op = GpuCsr::from_parts(g, a.n, a.m, &rp, &ci, &a.values::<S>()).unwrap();
    let x = rand_vec::<S>(r, a.m);
    let y = rand_vec::<S>(r, a.n);
    let (alpha, beta): (S, S) = (rand_scalar(r), rand_scalar(r));
    // Summation error of a row in S arithmetic, relative to |A||x| ≲ row length.
    let tol = 8.0 * eps::<S>() * (a.max_row_len() as f64).sqrt().max(1.0) * 4.0;
    let gx = g.upload(&x).unwrap();
    for &k in kernels {
        for beta in [beta, S::zero()] {
            let want = a.reference::<S>(false, alpha.to_c64(), &up(&x), beta.to_c64(), &up(&y));
            // Our kernels must not read y when beta = 0 (NaN there must not leak); cuSPARSE
            // documents no such promise, so it gets finite garbage instead.
            let start = match (beta == S::zero(), k) {
                (false, _) => y.clone(),
                (true, SpmvKernel::Cusparse) => rand_vec::<S>(r, a.n),
                (true, _) => vec![poison::<S>(); a.n],
            };
            let mut gy = g.upload(&start).unwrap();
            op.apply_with(g, k, alpha, &gx, beta, &mut gy).unwrap();
            assert_close(
                &format!("spmv {k} {} beta={beta}", I::NAME),
                &g.to_host(&gy).unwrap(),
                &want,
                tol,
            );
        }
    }
}

fn pattern_case<S: Scalar, I: GpuIndex>(g: &GpuBackend, r: &mut impl Rng, a: &Csr) {
    let (rp, ci) = a.indices::<I>();
    let op = GpuPattern::from_parts(g, a.n, a.m, &rp, &ci).unwrap();
    let x = rand_vec::<S>(r, a.m);
    let y = rand_vec::<S>(r, a.n);
    let (alpha, beta): (S, S) = (rand_scalar(r), rand_scalar(r));
    let tol = 8.0 * eps::<S>() * (a.max_row_len() as f64).sqrt().max(1.0) * 4.0;
    let gx = g.upload(&x).unwrap();
    for k in &KERNELS[..8] {
        let want = a.reference::<S>(true, alpha.to_c64(), &up(&x), beta.to_c64(), &up(&y));
        let mut gy = g.upload(&y).unwrap();
        op.apply_with(g, *k, alpha, &gx, beta, &mut gy).unwrap();
        assert_close(
            &format!("pattern spmv {k} {}", I::NAME),
            &g.to_host(&gy).unwrap(),
            &want,
            tol,
        );
    }
    assert!(op.with_kernel(SpmvKernel::Cusparse).is_err());
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn spmv_kernels_match_cpu() {
    let g = gpu();
    let mut r = rng(4);
    for (n, m, max_row) in [
        (1usize, 1usize, 3usize),
        (1000, 700, 12),
        pick((20_000, 20_000, 40), (3000, 3000, 40)),
    ] {
        let a = random_csr(&mut r, n, m, max_row);
        let k = &KERNELS[..8];
        spmv_case::<f32, u32>(&g, &mut r, &a, k);
        spmv_case::<f64, u32>(&g, &mut r, &a, k);
        spmv_case::<c32, u32>(&g, &mut r, &a, k);
        spmv_case::<c64, u32>(&g, &mut r, &a, k);
        spmv_case::<f32, u64>(&g, &mut r, &a, k);
        spmv_case::<f64, u64>(&g, &mut r, &a, k);
        spmv_case::<c32, u64>(&g, &mut r, &a, k);
        spmv_case::<c64, u64>(&g, &mut r, &a, k);
    }
}

// ---------------------------------------------------------------------------------------
// The hybrid pattern SpMV (rows binned by length: light rows with lanes, a warp per medium
// row, a block per long row) against the CPU, on power-law, uniform and pathological graphs.

/// A pattern with the given row lengths and random columns below `m` (repeats allowed:
/// the kernels must add them).
fn csr_from_lengths(r: &mut impl Rng, m: usize, lens: &[usize]) -> Csr {
    let mut row_ptr = vec![0];
    let mut col_idx = Vec::new();
    for &len in lens {
        col_idx.extend((0..len).map(|_| r.random_range(0..m)));
        row_ptr.push(col_idx.len());
    }
    let nnz = col_idx.len();
    Csr {
        n: lens.len(),
        m,
        row_ptr,
        col_idx,
        values: vec![c64::new(1.0, 0.0); nnz],
    }
}

/// Each row within the summation bound of its own magnitudes (|α|·Σ|x_j| + |β|·|y_i|),
/// so that a dropped or doubled entry of one row cannot hide in a norm over all rows.
fn assert_rows_close<S: Scalar>(
    what: &str,
    a: &Csr,
    got: &[S],
    want: &[c64],
    alpha: c64,
    x: &[c64],
    beta: c64,
    y: &[c64],
) {
    for i in 0..a.n {
        let g = got[i].to_c64();
        let (lo, hi) = (a.row_ptr[i], a.row_ptr[i + 1]);
        let mag: f64 = a.col_idx[lo..hi].iter().map(|&c| x[c].norm()).sum();
        let scale = alpha.norm() * mag + beta.norm() * y[i].norm();
        let bound = 4.0 * eps::<S>() * ((hi - lo) as f64 + 4.0) * scale + f64::MIN_POSITIVE;
        assert!(
            g.re.is_finite() && g.im.is_finite() && (g - want[i]).norm() <= bound,
            "{what} ({}): row {i} (length {}): got {g}, want {}, bound {bound:.1e}",
            S::NAME,
            hi - lo,
            want[i]
        );
    }
}

fn hybrid_case<S: Scalar, I: GpuIndex>(g: &GpuBackend, r: &mut impl Rng, name: &str, a: &Csr) {
    let (rp, ci) = a.indices::<I>();
    let op = GpuPattern::from_parts(g, a.n, a.m, &rp, &ci).unwrap();
    let x = rand_vec::<S>(r, a.m);
    let y = rand_vec::<S>(r, a.n);
    let (alpha, beta): (S, S) = (rand_scalar(r), rand_scalar(r));
    let (xu, yu) = (up(&x), up(&y));
    let gx = g.upload(&x).unwrap();
    for k in [SpmvKernel::Hybrid, SpmvKernel::Auto] {
        let what = format!("{name} {k} {}", I::NAME);
        // β ≠ 0: y read and updated.
        let want = a.reference::<S>(true, alpha.to_c64(), &xu, beta.to_c64(), &yu);
        let mut gy = g.upload(&y).unwrap();
        op.apply_with(g, k, alpha, &gx, beta, &mut gy).unwrap();
        let got = g.to_host(&gy).unwrap();
        assert_rows_close(
            &what,
            a,
            &got,
            &want,
            alpha.to_c64(),
            &xu,
            beta.to_c64(),
            &yu,
        );
        // β = 0 on a poisoned y: every row must be written, none read.
        let zero = S::from_c64(c64::new(0.0, 0.0));
        let want0 = a.reference::<S>(true, alpha.to_c64(), &xu, c64::new(0.0, 0.0), &yu);
        let mut gy = g.upload(&vec![poison::<S>(); a.n]).unwrap();
        op.apply_with(g, k, alpha, &gx, zero, &mut gy).unwrap();
        let got0 = g.to_host(&gy).unwrap();
        let zeros = vec![c64::new(0.0, 0.0); a.n];
        assert_rows_close(
            &what,
            a,
            &got0,
            &want0,
            alpha.to_c64(),
            &xu,
            c64::new(0.0, 0.0),
            &zeros,
        );
        // Reproducible: one group sums each row in a fixed order.
        let mut gy = g.upload(&vec![poison::<S>(); a.n]).unwrap();
        op.apply_with(g, k, alpha, &gx, zero, &mut gy).unwrap();
        let again = g.to_host(&gy).unwrap();
        assert!(
            got0.iter()
                .zip(&again)
                .all(|(p, q)| p.to_c64() == q.to_c64()),
            "{what}: two runs differ"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn hybrid_pattern_spmv_matches_cpu() {
    let g = gpu();
    let mut r = rng(17);
    let mut graphs: Vec<(String, Csr, bool)> = Vec::new();

    // Power-law: a Barabási–Albert graph (hubs of hundreds), and Pareto row lengths
    // (P(len > l) = 6 / l, capped at 12 000) with hundreds of hubs over a thousand, so that
    // all three tiers are used.
    let ba = matexp_sparse::generators::barabasi_albert::<u32>(pick(30_000, 3000), 6, 5).unwrap();
    // Hubs near m·√n ≈ 1000 against a mean of 12: skewed.
    let ba_skewed = ba.max_degree() > 16 * ba.nnz() / ba.nrows();
    let to_usize = |v: &[u32]| v.iter().map(|&i| i as usize).collect::<Vec<_>>();
    let nnz = ba.nnz();
    graphs.push((
        "barabasi-albert".into(),
        Csr {
            n: ba.nrows(),
            m: ba.ncols(),
            row_ptr: to_usize(ba.row_ptr()),
            col_idx: to_usize(ba.col_idx()),
            values: vec![c64::new(1.0, 0.0); nnz],
        },
        ba_skewed,
    ));
    let n = pick(40_000, 4000);
    let lens: Vec<usize> = (0..n)
        .map(|_| {
            let u: f64 = r.random_range(1e-9..1.0);
            ((6.0 / u) as usize).min(12_000)
        })
        .collect();
    graphs.push(("pareto".into(), csr_from_lengths(&mut r, n, &lens), true));

    // Uniform: 10–30 per row (Auto keeps the vector kernel; Hybrid must still be right).
    let lens: Vec<usize> = (0..n).map(|_| r.random_range(10..=30)).collect();
    graphs.push(("uniform".into(), csr_from_lengths(&mut r, n, &lens), false));

    // Pathological: one row with every column, mostly empty rows, rows at each tier's
    // boundary (mean 1 → one lane, light rows up to 16), an all-empty pattern, one row.
    // Small: still above the longest listed row (2048), so every tier keeps its rows.
    let n = pick(30_000, 3000);
    let mut lens = vec![0usize; n];
    lens[17] = n;
    for (i, l) in [
        (3usize, 16usize),
        (4, 17),
        (5, 1024),
        (6, 1025),
        (7, 1),
        (n - 1, 2048),
        (n - 2, 33),
    ] {
        lens[i] = l;
    }
    for i in (100..n).step_by(7) {
        lens[i] = r.random_range(0..4);
    }
    let mut full = csr_from_lengths(&mut r, n, &lens);
    let (lo, hi) = (full.row_ptr[17], full.row_ptr[18]);
    for (k, c) in full.col_idx[lo..hi].iter_mut().enumerate() {
        *c = k; // every column once
    }
    graphs.push(("one-full-row".into(), full, true));
    graphs.push((
        "all-empty".into(),
        csr_from_lengths(&mut r, 1000, &[0; 5000]),
        false,
    ));
    graphs.push((
        "single-row".into(),
        csr_from_lengths(&mut r, 70_000, &[70_000]),
        false,
    ));

    for (name, a, skewed) in &graphs {
        let (rp, ci) = a.indices::<u32>();
        let op = GpuPattern::from_parts(&g, a.n, a.m, &rp, &ci).unwrap();
        let t = op.hybrid_tiers();
        eprintln!("{name}: n {} nnz {} tiers {t:?}", a.n, a.col_idx.len());
        assert_eq!(op.auto_kernel() == SpmvKernel::Hybrid, *skewed, "{name}");
        if name == "pareto" || name == "one-full-row" {
            assert!(t.block_rows > 0 && t.warp_rows > 0, "{name}: {t:?}");
        }
        hybrid_case::<f32, u32>(&g, &mut r, name, a);
        hybrid_case::<f64, u32>(&g, &mut r, name, a);
        hybrid_case::<c32, u32>(&g, &mut r, name, a);
        hybrid_case::<c64, u32>(&g, &mut r, name, a);
        hybrid_case::<f64, u64>(&g, &mut r, name, a);
        hybrid_case::<c64, u64>(&g, &mut r, name, a);
    }
    // Matrices with values refuse the pattern-only kernel.
    let a = random_csr(&mut r, 10, 10, 3);
    let (rp, ci) = a.indices::<u32>();
    let m = GpuCsr::from_parts(&g, a.n, a.m, &rp, &ci, &a.values::<f64>()).unwrap();
    assert!(m.with_kernel(SpmvKernel::Hybrid).is_err());
}

/// cuSPARSE as a reference of its own: the same check on canonical matrices (distinct,
/// sorted columns per row), in a test of its own so that the bundle can run it in a
/// separate process.
#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn cusparse_matches_cpu() {
    let g = gpu();
    let mut r = rng(8);
    for (n, m, max_row) in [
        (1usize, 1usize, 1usize),
        (1000, 700, 12),
        pick((20_000, 20_000, 40), (3000, 3000, 40)),
    ] {
        let a = random_csr_with(&mut r, n, m, max_row, true);
        let k = &[SpmvKernel::Cusparse];
        spmv_case::<f32, u32>(&g, &mut r, &a, k);
        spmv_case::<f64, u32>(&g, &mut r, &a, k);
        spmv_case::<c32, u32>(&g, &mut r, &a, k);
        spmv_case::<c64, u32>(&g, &mut r, &a, k);
        spmv_case::<f64, u64>(&g, &mut r, &a, k);
        spmv_case::<c64, u64>(&g, &mut r, &a, k);
    }
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn pattern_spmv_matches_cpu() {
    let g = gpu();
    let mut r = rng(5);
    for (n, max_row) in [(3usize, 2usize), (5000, 30)] {
        let a = random_csr(&mut r, n, n, max_row);
        pattern_case::<f32, u32>(&g, &mut r, &a);
        pattern_case::<f64, u32>(&g, &mut r, &a);
        pattern_case::<c32, u32>(&g, &mut r, &a);
        pattern_case::<c64, u32>(&g, &mut r, &a);
        pattern_case::<f64, u64>(&g, &mut r, &a);
        pattern_case::<c64, u64>(&g, &mut r, &a);
    }
}

/// The Leja step on the CPU in c64: y_next, p and ‖y_next‖.
fn leja_reference<S: Scalar>(
    a: &Csr,
    pattern: bool,
    step: &ShiftedStep<S>,
    y_prev: &[c64],
    p: &[c64],
) -> (Vec<c64>, Vec<c64>, f64) {
    let (ig, sh, co) = (
        step.alpha.to_c64(),
        step.shift.to_c64(),
        step.coeff.to_c64(),
    );
    let ay = a.reference::<S>(
        pattern,
        c64::new(1.0, 0.0),
        y_prev,
        c64::new(0.0, 0.0),
        y_prev,
    );
    let yn: Vec<c64> = ay
        .iter()
        .zip(y_prev)
        .map(|(ay, y)| ig * ay + sh * y)
        .collect();
    let pn: Vec<c64> = p.iter().zip(&yn).map(|(p, y)| p + co * y).collect();
    let nrm = norms::nrm2(&yn);
    (yn, pn, nrm)
}

fn leja_case<S: Scalar>(g: &GpuBackend, r: &mut impl Rng, a: &Csr) {
    let (rp, ci) = a.indices::<u32>();
    let csr = GpuCsr::from_parts(g, a.n, a.n, &rp, &ci, &a.values::<S>()).unwrap();
    let step = ShiftedStep {
        alpha: rand_scalar::<S>(r),
        shift: rand_scalar::<S>(r),
        coeff: rand_scalar::<S>(r),
    };
    let y_prev = rand_vec::<S>(r, a.n);
    let p0 = rand_vec::<S>(r, a.n);
    let tol = 8.0 * eps::<S>() * (a.max_row_len() as f64).sqrt().max(1.0) * 4.0;
    let gy = g.upload(&y_prev).unwrap();
    for pattern in [false, true] {
        let (yn, pn, nrm) = leja_reference(a, pattern, &step, &up(&y_prev), &up(&p0));
        for k in [
            SpmvKernel::Auto,
            SpmvKernel::Scalar,
            SpmvKernel::Vector { lanes: 32 },
        ] {
            let mut gyn = g.upload(&vec![poison::<S>(); a.n]).unwrap();
            let mut gp = g.upload(&p0).unwrap();
            let got = if pattern {
                let op = GpuPattern::from_parts(g, a.n, a.n, &rp, &ci)
                    .unwrap()
                    .with_kernel(k)
                    .unwrap();
                op.shifted_step(g, &step, &gy, &mut gyn, &mut gp).unwrap()
            } else if k == SpmvKernel::Auto {
                csr.shifted_step(g, &step, &gy, &mut gyn, &mut gp).unwrap()
            } else {
                let op = GpuCsr::from_parts(g, a.n, a.n, &rp, &ci, &a.values::<S>())
                    .unwrap()
                    .with_kernel(k)
                    .unwrap();
                op.leja_step_deferred(g, &step, &gy, &mut gyn, &mut gp)
                    .unwrap()
                    .wait()
                    .unwrap()
            };
            let what = format!("leja {} {k}", if pattern { "pattern" } else { "csr" });
            assert_close(
                &format!("{what} y_next"),
                &g.to_host(&gyn).unwrap(),
                &yn,
                tol,
            );
            assert_close(&format!("{what} p"), &g.to_host(&gp).unwrap(), &pn, tol);
            let got = got.to_c64().re;
            assert!(
                ((got - nrm) / nrm).abs() <= tol,
                "{what} norm ({}): {got:e} vs {nrm:e}",
                S::NAME
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn fused_leja_step_matches_the_unfused_cpu_step() {
    let g = gpu();
    let mut r = rng(6);
    for (n, max_row) in [(2usize, 2usize), (3000, 20), pick((50_000, 36), (5000, 36))] {
        let a = random_csr(&mut r, n, n, max_row);
        leja_case::<f32>(&g, &mut r, &a);
        leja_case::<f64>(&g, &mut r, &a);
        leja_case::<c32>(&g, &mut r, &a);
        leja_case::<c64>(&g, &mut r, &a);
    }
    // With 8 or more lanes per row this needs more blocks than a partial pass may launch
    // (MX_MAX_PARTIALS), so blocks stride over several row groups and combine them in their
    // partial norms. Small: 32 lanes (8 rows per block) still need more than 16 384 blocks.
    let n = pick(700_000, 140_000);
    let a = random_csr(&mut r, n, n, 6);
    leja_case::<f64>(&g, &mut r, &a);
    leja_case::<c32>(&g, &mut r, &a);
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn invalid_uses_are_typed_errors() {
    let g = gpu();
    let x = g.upload(&[1.0f64, 2.0]).unwrap();
    let mut y = g.zeros::<f64>(3).unwrap();
    assert!(matches!(
        g.axpby(1.0, &x, 0.0, &mut y),
        Err(matexp_core::Error::DimensionMismatch { .. })
    ));
    let a = GpuCsr::from_parts(&g, 2, 2, &[0u32, 1, 2], &[0, 1], &[1.0f64, 1.0]).unwrap();
    assert!(a.apply(&g, 1.0, &x, 0.0, &mut y).is_err());
    assert!(GpuCsr::from_parts(&g, 2, 2, &[0u32, 1, 2], &[0, 1], &[1.0f64, f64::NAN]).is_err());
    assert!(GpuBackend::new(1 << 20).is_err());
}

// ---------------------------------------------------------------------------------------
// Several GPUs (all of the machine's; with one GPU the same code runs on one block)

fn multi_case<S: Scalar>(m: &MultiGpuBackend, r: &mut impl Rng, a: &Csr) {
    let (rp, ci) = a.indices::<u32>();
    let m_local =
        MultiGpuBackend::new(&m.devices().iter().map(|d| d.ordinal()).collect::<Vec<_>>())
            .unwrap()
            .with_balanced_partition(&rp)
            .unwrap();
    let m = &m_local;
    let op = MultiGpuCsr::from_parts(m, a.n, a.n, &rp, &ci, &a.values::<S>()).unwrap();
    let x = rand_vec::<S>(r, a.n);
    let y = rand_vec::<S>(r, a.n);
    let (alpha, beta): (S, S) = (rand_scalar(r), rand_scalar(r));
    let tol = 8.0 * eps::<S>() * (a.max_row_len() as f64).sqrt().max(1.0) * 4.0;
    let (xu, yu) = (up(&x), up(&y));

    let gx = m.upload(&x).unwrap();
    let mut gy = m.upload(&y).unwrap();
    op.apply(m, alpha, &gx, beta, &mut gy).unwrap();
    let want = a.reference::<S>(false, alpha.to_c64(), &xu, beta.to_c64(), &yu);
    assert_close("multi spmv", &m.to_host(&gy).unwrap(), &want, tol);

    // A second product reads gy as input: it must be gathered first.
    let mut gz = m.zeros::<S>(a.n).unwrap();
    op.apply(m, S::one(), &gy, S::zero(), &mut gz).unwrap();
    let gyh = up(&m.to_host(&gy).unwrap());
    let want2_from_gpu_y =
        a.reference::<S>(false, c64::new(1.0, 0.0), &gyh, c64::new(0.0, 0.0), &gyh);
    assert_close(
        "multi spmv after gather",
        &m.to_host(&gz).unwrap(),
        &want2_from_gpu_y,
        tol,
    );

    // BLAS-1 and reductions over the blocks.
    let mut gw = m.upload(&y).unwrap();
    m.axpby(alpha, &gx, beta, &mut gw).unwrap();
    let want: Vec<c64> = xu
        .iter()
        .zip(&yu)
        .map(|(x, y)| alpha.to_c64() * x + beta.to_c64() * y)
        .collect();
    assert_close(
        "multi axpby",
        &m.to_host(&gw).unwrap(),
        &want,
        4.0 * eps::<S>(),
    );
    let n2 = m.nrm2(&gx).unwrap().to_c64().re;
    assert!((n2 / norms::nrm2(&xu) - 1.0).abs() < 2.0 * eps::<S>() + 1e-13);
    let d = m.dot(&gx, &gw).unwrap().to_c64();
    let cpu = CpuBackend::new();
    let dw = cpu.dot(&xu, &up(&m.to_host(&gw).unwrap())).unwrap();
    let dw = if S::IS_COMPLEX {
        dw
    } else {
        c64::new(dw.re, 0.0)
    };
    assert!(
        (d - dw).norm() <= (2.0 * eps::<S>() + 1e-13) * norms::nrm2(&xu) * norms::nrm2(&want) * 2.0
    );
    let am = m.amax(&gx).unwrap().to_c64().re;
    assert!((am / norms::amax(&xu) - 1.0).abs() < 2.0 * eps::<S>() + 1e-13);

    // The fused Leja step across devices.
    let step = ShiftedStep {
        alpha: rand_scalar::<S>(r),
        shift: rand_scalar::<S>(r),
        coeff: rand_scalar::<S>(r),
    };
    let mut gyn = m.upload(&vec![poison::<S>(); a.n]).unwrap();
    let mut gp = m.upload(&y).unwrap();
    let got = op
        .shifted_step(m, &step, &gw, &mut gyn, &mut gp)
        .unwrap()
        .to_c64()
        .re;
    let wh = up(&m.to_host(&gw).unwrap());
    let (yn, pn, nrm) = leja_reference(a, false, &step, &wh, &yu);
    assert_close("multi leja y_next", &m.to_host(&gyn).unwrap(), &yn, tol);
    assert_close("multi leja p", &m.to_host(&gp).unwrap(), &pn, tol);
    assert!(((got - nrm) / nrm).abs() <= tol);
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn multi_gpu_vectors_and_csr_match_cpu() {
    let count = device_count().expect("a CUDA driver");
    let m = MultiGpuBackend::all().unwrap();
    eprintln!("multi-GPU test over {count} device(s): {}", m.name());
    for i in 0..count {
        for j in 0..count {
            if i != j {
                eprintln!("  peer access gpu:{i} -> gpu:{j}: {}", m.peer_access(i, j));
            }
        }
    }
    let mut r = rng(7);
    for (n, max_row) in [(7usize, 3usize), pick((40_000, 30), (4000, 30))] {
        let a = random_csr(&mut r, n, n, max_row);
        multi_case::<f32>(&m, &mut r, &a);
        multi_case::<f64>(&m, &mut r, &a);
        multi_case::<c32>(&m, &mut r, &a);
        multi_case::<c64>(&m, &mut r, &a);
    }
    if count >= 2 {
        // Direct peer copy of a buffer range between the first two devices.
        let (d0, d1) = (&m.devices()[0], &m.devices()[1]);
        let host: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.5).collect();
        let src = matexp_gpu::DeviceBuffer::from_host(d0, &host).unwrap();
        let mut dst =
            matexp_gpu::DeviceBuffer::<f64>::from_host(d1, &vec![f64::NAN; 10_000]).unwrap();
        dst.copy_range_from(&src, 100, 9000).unwrap();
        let back = dst.to_vec().unwrap();
        assert!(back[..100].iter().all(|v| v.is_nan()) && back[9100..].iter().all(|v| v.is_nan()));
        assert_eq!(&back[100..9100], &host[100..9100]);
        // Vectors of one device are rejected by another device's backend.
        let g1 = GpuBackend::new(1).unwrap();
        let v0 = gpu().upload(&[1.0f32]).unwrap();
        assert!(g1.nrm2(&v0).is_err());
    } else {
        eprintln!("only one GPU: peer copies not exercised");
    }
}

/// The GPU matrix reports the CPU matrix's spectral box: a real interval when symmetric, the
/// imaginary segment when skew-symmetric (its spectrum is imaginary), the disc box otherwise.
#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn gpu_csr_bounds_are_the_cpu_bounds() {
    let g = gpu();
    let n = 50;
    let mut r = rng(11);
    let dense: Vec<f64> = (0..n * n).map(|_| r.random_range(-1.0..1.0)).collect();
    for kind in ["symmetric", "skew", "general"] {
        let a: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                match kind {
                    "symmetric" => dense[i * n + j] + dense[j * n + i],
                    "skew" => dense[i * n + j] - dense[j * n + i],
                    _ => dense[k],
                }
            })
            .collect();
        let csr = matexp_sparse::CsrMatrix::<f64, u32>::from_dense(n, n, &a).unwrap();
        let gc = GpuCsr::from_csr(&g, &csr).unwrap();
        let want = LinearOperator::<CpuBackend, f64>::spectral_bounds(&csr).unwrap();
        let got = LinearOperator::<GpuBackend, f64>::spectral_bounds(&gc).unwrap();
        assert_eq!(got, want, "{kind}");
        if kind == "skew" {
            assert_eq!((got.re_min, got.re_max), (0.0, 0.0));
        }
    }
}
