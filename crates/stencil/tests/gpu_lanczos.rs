//! The GPU stencil's fused Lanczos step against the unfused defaults: the product with its
//! sums (`lanczos_product`) against `apply` + `Backend::lanczos_sums`, and the advance of the
//! deferred step (`lanczos_advance`) against `Backend::lanczos_form` + `lanczos_product`,
//! for every boundary kind and coefficient, 2D and 3D, several chunks and blocks of the
//! streaming kernel; then a whole Lanczos e^{tA}v over the GPU stencil against the CPU
//! stencil. Run on a GPU host by the bundle (`cargo xtask bundle`).

mod common;

use common::{KINDS, coefficient, dim, random_vec, rel_err};
use matexp_core::OperatorSteps;
use matexp_core::{Backend, KrylovBackend, LinearOperator};
use matexp_gpu::{GpuBackend, GpuVector};
use matexp_stencil::gpu::{GpuStencil, StencilKernel};
use matexp_stencil::{Boundary, Dim, Stencil};
use matexp_testkit::gpu_sizes::pick;

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a GPU (this test runs on GPU hosts only)")
}

/// Relative agreement of the fused and the unfused forms in `f64`: the same operations but
/// for one fused multiply-add and the order of the sums.
const TOL: f64 = 1e-13;

/// `|a − b| ≤ TOL·scale`, with a message.
fn close(what: &str, a: f64, b: f64, scale: f64) {
    assert!(
        (a - b).abs() <= TOL * scale,
        "{what}: {a} vs {b} (scale {scale:e}, diff {:e})",
        (a - b).abs()
    );
}

/// The sums of a Lanczos step (`sums[0..4]`) against another's, each relative to its
/// natural size: ⟨q, w⟩ to ‖q‖‖w‖, the squares to themselves.
fn same_sums(ctx: &str, got: &[f64], want: &[f64]) {
    let (nw, nq) = (want[2].sqrt(), want[3].sqrt());
    close(&format!("<q, w> {ctx}"), got[0], want[0], nq * nw);
    close(&format!("Im <q, w> {ctx}"), got[1], want[1], nq * nw);
    close(&format!("|w|^2 {ctx}"), got[2], want[2], want[2]);
    close(&format!("|q|^2 {ctx}"), got[3], want[3], want[3]);
}

/// Coefficients of a made-up step j: c[2j − 1] = β_j, then room for step j + 1.
fn coeffs(g: &GpuBackend, j: usize, beta_j: f64) -> GpuVector<f64> {
    let mut c = vec![0.0; 2 * j + 4];
    if j > 0 {
        c[2 * j - 1] = beta_j;
    }
    g.upload(&c).unwrap()
}

/// `lanczos_product` and `lanczos_advance` of `dev` against the defaults, at step `j`.
fn check_step(g: &GpuBackend, op: &Stencil<f64>, dev: &GpuStencil<f64>, j: usize, seed: u64) {
    let len = op.grid().len();
    let ctx = format!("{dev:?} {:?} j={j}", op.coefficient());
    // The error scale of a product is the size of its terms (h⁻²·|x|), as in gpu_stencil.
    let floor = op.norm_bound().unwrap().max(1.0);
    let q = g.upload(&random_vec::<f64>(len, seed)).unwrap();
    let qp = g.upload(&random_vec::<f64>(len, seed + 1)).unwrap();
    let beta_j = 0.375 * floor;
    let mut c = coeffs(g, j, beta_j);

    // The product with its sums, with and without the previous vector.
    for prev in [None, Some(&qp)] {
        let (mut w1, mut s1) = (g.zeros::<f64>(len).unwrap(), g.zeros::<f64>(5).unwrap());
        dev.lanczos_product(g, j, prev, &q, &mut w1, &c, &mut s1)
            .unwrap();
        let (mut w2, mut s2) = (g.zeros::<f64>(len).unwrap(), g.zeros::<f64>(5).unwrap());
        dev.apply(g, 1.0, &q, 0.0, &mut w2).unwrap();
        g.lanczos_sums(j, prev, &q, &mut w2, &c, &mut s2).unwrap();
        let (w1, w2) = (g.to_host(&w1).unwrap(), g.to_host(&w2).unwrap());
        let e = rel_err(&w1, &w2, floor);
        assert!(e < TOL, "product w {ctx} prev={}: {e:e}", prev.is_some());
        let ctx2 = format!("{ctx} prev={}", prev.is_some());
        same_sums(&ctx2, &g.to_host(&s1).unwrap(), &g.to_host(&s2).unwrap());
    }

    // A settled step j: the product's w and sums, then the backend's settle (α_j, β_{j+1}
    // and the flag), as Lanczos leaves them before the advance.
    let mut w_prev = g.zeros::<f64>(len).unwrap();
    let mut sums = g.zeros::<f64>(5).unwrap();
    let prev = (j > 0).then_some(&qp);
    dev.lanczos_product(g, j, prev, &q, &mut w_prev, &c, &mut sums)
        .unwrap();
    g.lanczos_settle(j, &q, &mut w_prev, &mut c, &mut sums)
        .unwrap();
    let mut flags = vec![g.to_host(&sums).unwrap()[4]];
    // The other branch too: w_prev taken as q_{j+1} itself (the settle's exact-norm path),
    // or formed with the settle's α and β (unless β = 0: a vanished residual, never trusted).
    if flags[0] == 0.0 || g.to_host(&c).unwrap()[2 * j + 1] != 0.0 {
        flags.push(1.0 - flags[0]);
    }
    for flag in flags {
        let mut s0 = sums.clone_vec(g);
        g.write_coeffs(&mut s0, 4, &[flag]).unwrap();
        let ctx2 = format!("{ctx} flag={flag}");
        let (mut qn1, mut w1) = (g.zeros::<f64>(len).unwrap(), g.zeros::<f64>(len).unwrap());
        let mut s1 = s0.clone_vec(g);
        dev.lanczos_advance(g, j, &q, &w_prev, &mut qn1, &mut w1, &c, &mut s1)
            .unwrap();
        // The default: q_{j+1} by the backend, then the product of step j + 1 (itself
        // checked against apply + lanczos_sums above).
        let (mut qn2, mut w2) = (g.zeros::<f64>(len).unwrap(), g.zeros::<f64>(len).unwrap());
        let mut s2 = s0.clone_vec(g);
        g.lanczos_form(j, &q, &w_prev, &c, &s0, &mut qn2).unwrap();
        dev.lanczos_product(g, j + 1, Some(&q), &qn2, &mut w2, &c, &mut s2)
            .unwrap();
        let (qn1h, qn2h) = (g.to_host(&qn1).unwrap(), g.to_host(&qn2).unwrap());
        let e = rel_err(&qn1h, &qn2h, f64::MIN_POSITIVE);
        assert!(e < TOL, "advance q_next {ctx2}: {e:e}");
        let w1h = g.to_host(&w1).unwrap();
        let e = rel_err(&w1h, &g.to_host(&w2).unwrap(), floor);
        assert!(e < TOL, "advance w {ctx2}: {e:e}");
        let s1h = g.to_host(&s1).unwrap();
        same_sums(&ctx2, &s1h, &g.to_host(&s2).unwrap());
        // The flag is the settle's, left alone; w is the product of the q_next written (the
        // values gathered are those stored).
        assert_eq!(s1h[4], flag, "flag {ctx2}");
        let mut w3 = g.zeros::<f64>(len).unwrap();
        dev.apply(g, 1.0, &qn1, 0.0, &mut w3).unwrap();
        let beta = g.to_host(&c).unwrap()[2 * j + 1];
        g.axpby(-beta, &q, 1.0, &mut w3).unwrap();
        let e = rel_err(&w1h, &g.to_host(&w3).unwrap(), floor);
        assert!(e < TOL, "advance w of its own q_next {ctx2}: {e:e}");
    }
}

/// A copy of a small device vector.
trait CloneVec {
    fn clone_vec(&self, g: &GpuBackend) -> Self;
}

impl CloneVec for GpuVector<f64> {
    fn clone_vec(&self, g: &GpuBackend) -> Self {
        g.upload(&g.to_host(self).unwrap()).unwrap()
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn fused_lanczos_step_equals_the_defaults_for_every_boundary_kind() {
    let g = gpu();
    for kind in KINDS {
        for coef in 0..3 {
            // 3D grids that are not multiples of the 32×8 block (and one that is), a 2D grid,
            // and a single point.
            for (three, n) in [
                (true, pick(37, 13)),
                (true, pick(64, 16)),
                (false, pick(65, 33)),
                (true, 1),
            ] {
                let len = if three { n * n * n } else { n * n };
                let op = Stencil::<f64>::builder(dim(three), n)
                    .boundary(kind)
                    .coefficient(coefficient(coef, len, 7))
                    .build()
                    .unwrap();
                let base = || GpuStencil::new(&g, &op).unwrap();
                for j in [0, 3] {
                    check_step(&g, &op, &base(), j, 61 + j as u64);
                }
                // Chunks around the ring's period (5 planes for f64) and longer than the
                // grid, other block shapes, and another kernel selected for the products (the
                // Lanczos passes stream whatever the selection).
                for z in [1, 4, 6, 2 * n as u32] {
                    check_step(&g, &op, &base().with_zchunk(z), 2, 71);
                }
                // Lanczos blocks other than the grid's default (lanczos_block), the products'
                // own block, and a march block set for the products only.
                for (bx, by) in [(32, 8), (64, 4), (32, 1), (512, 1)] {
                    let dev = base().with_lanczos_block(bx, by).unwrap().with_zchunk(7);
                    check_step(&g, &op, &dev, 1, 81);
                }
                let dev = base().with_march_block(64, 4).unwrap();
                check_step(&g, &op, &dev, 1, 82);
                // L2 prefetch is a hint: the same bits.
                for (pf, z) in [(2, 7), (8, 2 * n as u32)] {
                    check_step(&g, &op, &base().with_l2_prefetch(pf).with_zchunk(z), 1, 83);
                }
                check_step(&g, &op, &base().with_kernel(StencilKernel::Naive), 2, 91);
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU; run by the GPU bundle"]
fn fused_lanczos_checks_its_arguments() {
    let g = gpu();
    let op = Stencil::<f64>::laplacian(Dim::Three, 8, Boundary::Dirichlet).unwrap();
    let dev = GpuStencil::new(&g, &op).unwrap();
    assert!(OperatorSteps::<GpuBackend, f64>::lanczos_advance_fused(
        &dev
    ));
    for (bx, by) in [(16, 1), (0, 32), (32, 32), (33, 4)] {
        assert!(
            GpuStencil::new(&g, &op)
                .unwrap()
                .with_lanczos_block(bx, by)
                .is_err(),
            "{bx}×{by}"
        );
    }
    let q = g.zeros::<f64>(512).unwrap();
    let mut w = g.zeros::<f64>(512).unwrap();
    let mut short = g.zeros::<f64>(511).unwrap();
    // Step 0 settled with α_0 = 0, β_1 = 1.
    let c = g.upload(&[0.0, 1.0, 0.0, 0.0]).unwrap();
    let mut sums = g.zeros::<f64>(5).unwrap();
    let mut sums4 = g.zeros::<f64>(4).unwrap();
    assert!(
        dev.lanczos_product(&g, 0, None, &q, &mut short, &c, &mut sums)
            .is_err()
    );
    assert!(
        dev.lanczos_product(&g, 0, None, &q, &mut w, &c, &mut sums4)
            .is_err()
    );
    // Step 2 needs c of 6 doubles; the advance from step 1 needs 6 too (step 2's room).
    assert!(
        dev.lanczos_product(&g, 2, Some(&q), &q, &mut w, &c, &mut sums)
            .is_err()
    );
    let mut qn = g.zeros::<f64>(512).unwrap();
    assert!(
        dev.lanczos_advance(&g, 1, &q, &q, &mut qn, &mut w, &c, &mut sums)
            .is_err()
    );
    dev.lanczos_advance(&g, 0, &q, &q, &mut qn, &mut w, &c, &mut sums)
        .unwrap();
}
