//! The GPU stencil against the CPU stencil on fresh random inputs: every boundary kind,
//! coefficient and kernel, 2D and 3D, f32 and f64; the affine products with Dirichlet data
//! evaluated in the kernel and precomputed; the fused step; the pointwise source.
//! Run on a GPU host by the bundle (`cargo xtask bundle`).

mod common;

use common::{KINDS, coefficient, dim, random_vec, rel_err};
use matexp_core::OperatorSteps;
use matexp_core::{Backend, CpuBackend, LinearOperator, RealScalar, ShiftedStep};
use matexp_gpu::rt::DeviceElement;
use matexp_gpu::{GpuBackend, GpuVector};
use matexp_stencil::gpu::{
    BoundaryEval, GpuPartitionedStencil, GpuStencil, StencilKernel, pointwise, stream_block,
};
use matexp_stencil::partition::ZPartition;
use matexp_stencil::{Boundary, BoundaryFunction, Dim, Pointwise, Stencil};
use matexp_testkit::gpu_sizes::pick;

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a GPU (this test runs on GPU hosts only)")
}

fn tol<S: RealScalar>() -> f64 {
    if S::NAME == "f32" { 2e-5 } else { 1e-12 }
}

/// Every product of `op` on the GPU against the CPU.
fn compare<S: RealScalar + DeviceElement>(
    g: &GpuBackend,
    op: &Stencil<S>,
    kernel: StencilKernel,
    zchunk: Option<u32>,
    seed: u64,
) {
    let mut dev = GpuStencil::new(g, op).unwrap().with_kernel(kernel);
    if let Some(z) = zchunk {
        dev = dev.with_zchunk(z);
    }
    compare_dev(g, op, &dev, seed);
}

/// Every product of `dev` (the GPU operator of `op`, configured) against the CPU.
fn compare_dev<S: RealScalar + DeviceElement>(
    g: &GpuBackend,
    op: &Stencil<S>,
    dev: &GpuStencil<S>,
    seed: u64,
) {
    let len = op.grid().len();
    let ctx = format!("{} {dev:?} {:?}", S::NAME, op.coefficient());
    // The error scale of a product is the size of its terms, h⁻²·|x|, not ‖A‖: on a grid of
    // one Neumann cell A = 0 exactly, yet each point still sums six terms that cancel, and the
    // GPU and the CPU round that cancellation differently.
    let floor = op.norm_bound().unwrap().max(1.0);
    let x = random_vec::<S>(len, seed);
    let y0 = random_vec::<S>(len, seed + 1);
    let (alpha, beta) = (S::from_f64(0.625), S::from_f64(-1.5));
    let xg: GpuVector<S> = g.upload(&x).unwrap();

    // y ← αAx + βy, β = 0 and β ≠ 0.
    for b in [S::zero(), beta] {
        let mut y = y0.clone();
        op.apply(&CpuBackend, alpha, &x, b, &mut y).unwrap();
        let mut yg = g.upload(&y0).unwrap();
        dev.apply(g, alpha, &xg, b, &mut yg).unwrap();
        let got = g.to_host(&yg).unwrap();
        assert!(
            rel_err(&got, &y, floor) < tol::<S>(),
            "apply {ctx}: {}",
            rel_err(&got, &y, floor)
        );
    }

    // (αA + βI)x.
    let mut z = vec![S::zero(); len];
    op.apply_shifted(alpha, beta, &x, &mut z).unwrap();
    let mut zg = g.zeros::<S>(len).unwrap();
    dev.apply_shifted(alpha, beta, &xg, &mut zg).unwrap();
    assert!(
        rel_err(&g.to_host(&zg).unwrap(), &z, floor) < tol::<S>(),
        "apply_shifted {ctx}"
    );

    // The fused step.
    let step = ShiftedStep {
        alpha,
        shift: beta,
        coeff: S::from_f64(0.75),
    };
    let p0 = random_vec::<S>(len, seed + 2);
    let (mut yn, mut p) = (y0.clone(), p0.clone());
    let norm = op
        .shifted_step(&CpuBackend, &step, &x, &mut yn, &mut p)
        .unwrap();
    let (mut yng, mut pg) = (g.upload(&y0).unwrap(), g.upload(&p0).unwrap());
    let norm_g = dev.shifted_step(g, &step, &xg, &mut yng, &mut pg).unwrap();
    assert!(
        rel_err(&g.to_host(&yng).unwrap(), &yn, floor) < tol::<S>(),
        "step y {ctx}"
    );
    assert!(
        rel_err(&g.to_host(&pg).unwrap(), &p, floor) < tol::<S>(),
        "step p {ctx}"
    );
    let nt = tol::<S>() * floor * (len as f64).sqrt();
    assert!(
        (norm.as_f64() - norm_g.as_f64()).abs() <= nt,
        "step norm {ctx}: {norm} vs {norm_g}"
    );
}

fn every_kind<S: RealScalar + DeviceElement>() {
    let g = gpu();
    for kind in KINDS {
        for coef in 0..3 {
            // Small 3D: 20³ (one partial x tile, two full y tiles and a partial one, z chunks
            // of 8, 8 and 4); the 2D grid of 45² keeps interior x and y tile edges.
            for (three, n) in [(true, pick(37, 20)), (false, 45), (true, 8), (true, 1)] {
                let len = if three { n * n * n } else { n * n };
                let op = Stencil::<S>::builder(dim(three), n)
                    .boundary(kind)
                    .coefficient(coefficient(coef, len, 5))
                    .build()
                    .unwrap();
                for kernel in [
                    StencilKernel::Naive,
                    StencilKernel::Optimized,
                    StencilKernel::Marching,
                ] {
                    compare(&g, &op, kernel, None, 11);
                }
                compare(&g, &op, StencilKernel::Optimized, Some(3), 12);
                compare(&g, &op, StencilKernel::Marching, Some(3), 13);
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn gpu_equals_cpu_for_every_boundary_kind_f64() {
    every_kind::<f64>();
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn gpu_equals_cpu_for_every_boundary_kind_f32() {
    every_kind::<f32>();
}

/// The streaming kernel on grids that are not multiples of its block (37, 65) and one that
/// is (64), at several chunk lengths (1 plane, around the ring's period, longer than the
/// grid, the default) and block shapes, every boundary kind and coefficient, 2D and 3D: products and fused step.
fn marching<S: RealScalar + DeviceElement>() {
    let g = gpu();
    let sizes = [pick(37, 13), pick(64, 16), pick(65, 17)];
    for kind in KINDS {
        for coef in 0..3 {
            for (three, n) in sizes
                .iter()
                .map(|&n| (true, n))
                .chain([(false, pick(65, 33))])
            {
                let len = if three { n * n * n } else { n * n };
                let op = Stencil::<S>::builder(dim(three), n)
                    .boundary(kind)
                    .coefficient(coefficient(coef, len, 6))
                    .build()
                    .unwrap();
                let base = || {
                    GpuStencil::new(&g, &op)
                        .unwrap()
                        .with_kernel(StencilKernel::Marching)
                };
                compare_dev(&g, &op, &base(), 51);
                if three {
                    stacked_equals_march(&g, &op, 55);
                }
                // Chunks shorter than, equal to and longer than the register ring's period
                // (5 planes for the f64 product and fused step, 6 for the f64 frame product, 9 and 6
                // for the f32 product and step) and not a
                // multiple of it: the unrolled march leaves its window part-way.
                for z in [1, 4, 5, 6, 9, 11, 2 * n as u32] {
                    compare_dev(&g, &op, &base().with_zchunk(z), 52);
                }
                for (bx, by) in [(64, 4), (32, 16), (32, 1), (128, 2)] {
                    let dev = base().with_march_block(bx, by).unwrap().with_zchunk(7);
                    compare_dev(&g, &op, &dev, 53);
                }
                // L2 prefetch (a hint: the results must not change), within and past the
                // chunk's end.
                for (pf, z) in [(1, 7), (4, 2 * n as u32), (64, 5)] {
                    let dev = base().with_l2_prefetch(pf).with_zchunk(z);
                    compare_dev(&g, &op, &dev, 54);
                }
            }
        }
    }
    // Blocks that are not whole warps, or too large for the kernel's register budget.
    let op = Stencil::<S>::laplacian(Dim::Three, 8, Boundary::Dirichlet).unwrap();
    for (bx, by) in [(16, 1), (0, 32), (32, 32), (33, 4)] {
        assert!(
            GpuStencil::new(&g, &op)
                .unwrap()
                .with_march_block(bx, by)
                .is_err(),
            "{bx}×{by}"
        );
    }
}

/// `(αA + βI)x` by the default streaming product (the stacked kernel on 3D grids whose side 4
/// divides, with a coefficient constant along z and no boundary data) and by `march` (a block
/// set explicitly selects it), at the default and at short chunks: the same sums in the same
/// order, so the same bits.
fn stacked_equals_march<S: RealScalar + DeviceElement>(g: &GpuBackend, op: &Stencil<S>, seed: u64) {
    let len = op.grid().len();
    let x: GpuVector<S> = g.upload(&random_vec::<S>(len, seed)).unwrap();
    let (alpha, beta) = (S::from_f64(-0.375), S::from_f64(1.25));
    let n = op.grid().n();
    for z in [None, Some(1), Some(6), Some(2 * n as u32)] {
        let product = |block: Option<(u32, u32)>| {
            let mut dev = GpuStencil::new(g, op)
                .unwrap()
                .with_kernel(StencilKernel::Marching);
            if let Some(z) = z {
                dev = dev.with_zchunk(z);
            }
            if let Some((bx, by)) = block {
                dev = dev.with_march_block(bx, by).unwrap();
            }
            let mut y = g.zeros::<S>(len).unwrap();
            dev.apply_shifted(alpha, beta, &x, &mut y).unwrap();
            g.to_host(&y).unwrap()
        };
        let (stacked, march) = (product(None), product(Some(stream_block(n))));
        let differ = stacked.iter().zip(&march).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ,
            0,
            "{} {:?} zchunk {z:?}: stacked vs march differ at {differ} of {len} points",
            S::NAME,
            op.grid()
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn marching_kernel_equals_the_cpu_f64() {
    marching::<f64>();
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn marching_kernel_equals_the_cpu_f32() {
    marching::<f32>();
}

fn affine<S: RealScalar + DeviceElement>() {
    let g = gpu();
    let custom = BoundaryFunction::custom(|[x, y, z]| 1.0 + x - 2.0 * y * z);
    for f in [
        BoundaryFunction::Polynomial,
        BoundaryFunction::SineExp,
        custom,
    ] {
        for (three, n) in [(true, pick(33, 20)), (false, 40)] {
            for coef in 0..2 {
                let len = if three { n * n * n } else { n * n };
                let op = Stencil::<S>::builder(dim(three), n)
                    .boundary_values(f.clone())
                    .coefficient(coefficient(coef, len, 3))
                    .build()
                    .unwrap();
                let x = random_vec::<S>(len, 21);
                let y0 = random_vec::<S>(len, 22);
                let mut y = y0.clone();
                op.apply_affine(S::from_f64(0.5), &x, S::from_f64(2.0), &mut y)
                    .unwrap();
                let xg = g.upload(&x).unwrap();
                for kernel in [
                    StencilKernel::Naive,
                    StencilKernel::Optimized,
                    StencilKernel::Marching,
                ] {
                    for eval in [BoundaryEval::InKernel, BoundaryEval::Precomputed] {
                        let dev = GpuStencil::new(&g, &op)
                            .unwrap()
                            .with_kernel(kernel)
                            .with_boundary_eval(eval);
                        let mut yg = g.upload(&y0).unwrap();
                        dev.apply_affine(S::from_f64(0.5), &xg, S::from_f64(2.0), &mut yg)
                            .unwrap();
                        let e = rel_err(&g.to_host(&yg).unwrap(), &y, op.norm_bound().unwrap());
                        // α(Ax + b) + βx, Table I's product with inhomogeneous data.
                        let mut z = vec![S::zero(); len];
                        op.apply_affine(S::from_f64(0.5), &x, S::zero(), &mut z)
                            .unwrap();
                        for (zi, xi) in z.iter_mut().zip(&x) {
                            *zi += S::from_f64(-1.5) * *xi;
                        }
                        let mut zg = g.zeros::<S>(len).unwrap();
                        dev.apply_shifted_affine(S::from_f64(0.5), S::from_f64(-1.5), &xg, &mut zg)
                            .unwrap();
                        let ez = rel_err(&g.to_host(&zg).unwrap(), &z, op.norm_bound().unwrap());
                        assert!(
                            ez < 4.0 * tol::<S>(),
                            "shifted affine {} {f:?} 3d={three} {kernel:?} {eval:?}: {ez}",
                            S::NAME
                        );
                        assert!(
                            e < 4.0 * tol::<S>(),
                            "{} {f:?} 3d={three} coef={coef} {kernel:?} {eval:?}: {e}",
                            S::NAME
                        );
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn affine_products_match_the_cpu_f64() {
    affine::<f64>();
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn affine_products_match_the_cpu_f32() {
    affine::<f32>();
}

fn source<S: RealScalar + DeviceElement>() {
    let g = gpu();
    // u in (0.05, 1.95): the source's useful range (it spans e^{-380} to e^{9.7}).
    let x: Vec<S> = random_vec::<S>(8000, 31)
        .into_iter()
        .map(|v| S::from_f64(1.0 + 0.95 * v.as_f64()))
        .collect();
    let xg = g.upload(&x).unwrap();
    for f in [Pointwise::Combustion, Pointwise::CombustionFast] {
        let mut y = vec![S::zero(); x.len()];
        f.apply(&x, &mut y).unwrap();
        let mut yg = g.zeros::<S>(x.len()).unwrap();
        pointwise(&g, f, &xg, &mut yg).unwrap();
        let got = g.to_host(&yg).unwrap();
        // Relative, point by point, with the source's condition number 20/u.
        let eps = if S::NAME == "f32" { 1.2e-7 } else { 2.2e-16 };
        let fast = if f == Pointwise::CombustionFast {
            2e-7
        } else {
            0.0
        };
        for i in 0..x.len() {
            let (a, b, u) = (got[i].as_f64(), y[i].as_f64(), x[i].as_f64());
            let t = (8.0 * (1.0 + 20.0 / u) * eps + 2.0 * fast) * b.abs()
                + f64::from(f32::MIN_POSITIVE);
            assert!((a - b).abs() <= t, "{} {f:?} u = {u}: {a} vs {b}", S::NAME);
        }
    }
    let mut bad = x.clone();
    bad[4321] = S::from_f64(-0.01);
    let bg = g.upload(&bad).unwrap();
    let mut yg = g.zeros::<S>(x.len()).unwrap();
    match pointwise(&g, Pointwise::Combustion, &bg, &mut yg) {
        Err(matexp_core::Error::NonFinite { index, .. }) => assert_eq!(index, 4321),
        other => panic!("expected NonFinite at 4321, got {other:?}"),
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn combustion_source_matches_the_cpu() {
    source::<f64>();
    source::<f32>();
}

fn partitions<S: RealScalar + DeviceElement>() {
    let g = gpu();
    let n = 21;
    let len = n * n * n;
    for kind in KINDS {
        for coef in 0..3 {
            let op = Stencil::<S>::builder(Dim::Three, n)
                .boundary(kind)
                .coefficient(coefficient(coef, len, 8))
                .build()
                .unwrap();
            let floor = op.norm_bound().unwrap();
            let x = random_vec::<S>(len, 41);
            let y0 = random_vec::<S>(len, 42);
            let p0 = random_vec::<S>(len, 43);
            let (alpha, beta) = (S::from_f64(0.5), S::from_f64(-0.75));
            let mut y = y0.clone();
            op.apply(&CpuBackend, alpha, &x, beta, &mut y).unwrap();
            let step = ShiftedStep {
                alpha,
                shift: beta,
                coeff: S::from_f64(1.25),
            };
            let (mut yn, mut p) = (y0.clone(), p0.clone());
            let norm = op
                .shifted_step(&CpuBackend, &step, &x, &mut yn, &mut p)
                .unwrap();
            for parts in [2, 4] {
                let ctx = format!("{} {kind:?} coef={coef} parts={parts}", S::NAME);
                let on_one = vec![g.clone(); parts];
                let split =
                    GpuPartitionedStencil::new(&op, ZPartition::even(n, parts).unwrap(), &on_one)
                        .unwrap();
                let xs = split.scatter(&x).unwrap();
                let mut ys = split.scatter(&y0).unwrap();
                split.apply(alpha, &xs, beta, &mut ys).unwrap();
                let got = split.gather(&ys).unwrap();
                assert!(rel_err(&got, &y, floor) < tol::<S>(), "apply {ctx}");

                let mut yns = split.scatter(&y0).unwrap();
                let mut ps = split.scatter(&p0).unwrap();
                let norm_g = split.shifted_step(&step, &xs, &mut yns, &mut ps).unwrap();
                assert!(
                    rel_err(&split.gather(&yns).unwrap(), &yn, floor) < tol::<S>(),
                    "step {ctx}"
                );
                assert!(
                    rel_err(&split.gather(&ps).unwrap(), &p, floor) < tol::<S>(),
                    "step p {ctx}"
                );
                let nt = tol::<S>() * floor * (len as f64).sqrt();
                assert!((norm.as_f64() - norm_g.as_f64()).abs() <= nt, "norm {ctx}");
            }
        }
    }
    // Uneven slabs, single-plane slabs included.
    let op = Stencil::<S>::laplacian(Dim::Three, 6, Boundary::Periodic).unwrap();
    let x = random_vec::<S>(216, 44);
    let mut y = vec![S::zero(); 216];
    op.apply(&CpuBackend, S::one(), &x, S::zero(), &mut y)
        .unwrap();
    let split = GpuPartitionedStencil::new(
        &op,
        ZPartition::from_bounds(vec![0, 1, 2, 5, 6]).unwrap(),
        &vec![g.clone(); 4],
    )
    .unwrap();
    let xs = split.scatter(&x).unwrap();
    let mut ys = split.scatter(&y).unwrap();
    split.apply(S::one(), &xs, S::zero(), &mut ys).unwrap();
    assert!(rel_err(&split.gather(&ys).unwrap(), &y, op.norm_bound().unwrap()) < tol::<S>());
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn two_and_four_slabs_on_one_gpu_equal_the_cpu() {
    partitions::<f64>();
    partitions::<f32>();
}
