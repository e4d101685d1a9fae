//! The matrix-function solvers of `matexp-expmv`, written once over `Backend`, run on
//! the GPU backend and compared with the same solvers on the CPU backend. Every test needs a
//! CUDA GPU (the GPU bundle runs them).

use matexp_core::OperatorSteps;
use matexp_core::{Backend, CpuBackend, RealScalar, Scalar, c32, c64, norms};
use matexp_expmv::{
    ArnoldiOptions, LanczosOptions, LejaOptions, TaylorOptions, Tolerance, arnoldi_expmv,
    arnoldi_phimv, lanczos_expmv, leja_expmv, leja_phimv, leja_schrodinger, taylor_expmv,
};
use matexp_gpu::{GpuBackend, GpuCsr};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d};

fn gpu() -> GpuBackend {
    let g = GpuBackend::new(0).expect("a CUDA device");
    eprintln!("device: {}", g.device().info());
    g
}

/// ‖a − b‖ / ‖b‖ in double precision.
fn rel_diff<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    let d: Vec<c64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.to_c64() - y.to_c64())
        .collect();
    let r: Vec<c64> = b.iter().map(|y| y.to_c64()).collect();
    norms::nrm2(&d) / norms::nrm2(&r)
}

fn smooth_plus_noise<S: Scalar>(n: usize) -> Vec<S> {
    // Deterministic but not an eigenvector: every part of the spectrum is excited.
    (0..n)
        .map(|i| {
            let x = i as f64 / n as f64;
            S::from_c64(c64::new(
                (7.0 * x).sin() + 0.3 * ((i * 7919) % 97) as f64 / 97.0,
                0.0,
            ))
        })
        .collect()
}

/// Runs `solve` on both backends and checks that the GPU result matches the CPU one within
/// `bound`; both solves must also report the same kind of work (products within 10 %).
fn same_on_both<S: Scalar>(
    name: &str,
    bound: f64,
    gpu_run: impl FnOnce() -> (Vec<S>, usize),
    cpu_run: impl FnOnce() -> (Vec<S>, usize),
) {
    let (wg, mg) = gpu_run();
    let (wc, mc) = cpu_run();
    let e = rel_diff(&wg, &wc);
    eprintln!(
        "{name} [{}]: GPU vs CPU {e:.2e} ({mg} vs {mc} products)",
        S::NAME
    );
    assert!(
        wg.iter().all(|v| v.finite()),
        "{name}: non-finite GPU result"
    );
    assert!(
        e <= bound,
        "{name}: GPU differs from CPU by {e:e} (bound {bound:e})"
    );
    // Lanczos on the GPU queues steps ahead of each check (the device works while the host
    // decides): up to a lookahead, max(4, k/4), more, and a check that lands later.
    let (lo, hi) = (mc.min(mg) as f64, mc.max(mg) as f64);
    let ahead = if name.starts_with("lanczos") {
        2.0 * (4.0f64.max(lo / 4.0) + 1.0)
    } else {
        0.0
    };
    assert!(
        hi <= 1.1 * lo + 2.0 + ahead,
        "{name}: {mg} GPU products vs {mc} on the CPU"
    );
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn real_solvers_agree_with_the_cpu_backend_on_the_3d_laplacian() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64, u32> = laplacian_3d(20).unwrap();
    let n = a.nrows();
    let ag = GpuCsr::from_csr(&g, &a).unwrap();
    let v = smooth_plus_noise::<f64>(n);
    let vg = g.upload(&v).unwrap();
    let tol = 1e-8;
    // ‖tA‖ ≈ 12·21²·t: 53 for t = 1e-2.
    let t = 1e-2;
    // Both backends do the same arithmetic in a different order: agreement to well inside tol.
    let bound = 10.0 * tol;

    let lo = LejaOptions::default().with_rtol(tol);
    same_on_both(
        "leja expmv",
        bound,
        || {
            let (w, r) = leja_expmv(&g, &ag, t, &vg, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_expmv(&cpu, &a, t, &v, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    same_on_both(
        "leja phi_1",
        bound,
        || {
            let (w, r) = leja_phimv(&g, &ag, 1, t, &vg, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_phimv(&cpu, &a, 1, t, &v, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    for two_pass in [false, true] {
        let opts = LanczosOptions {
            tol: Tolerance::relative(tol),
            two_pass,
            ..Default::default()
        };
        same_on_both(
            if two_pass {
                "lanczos (two-pass)"
            } else {
                "lanczos"
            },
            bound,
            || {
                let (w, r) = lanczos_expmv(&g, &ag, t, &vg, &opts).unwrap();
                (g.to_host(&w).unwrap(), r.matvecs)
            },
            || {
                let (w, r) = lanczos_expmv(&cpu, &a, t, &v, &opts).unwrap();
                (w, r.matvecs)
            },
        );
    }
    let ao = ArnoldiOptions {
        tol: Tolerance::relative(tol),
        ..Default::default()
    };
    same_on_both(
        "arnoldi",
        bound,
        || {
            let (w, r) = arnoldi_expmv(&g, &ag, t, &vg, &ao).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = arnoldi_expmv(&cpu, &a, t, &v, &ao).unwrap();
            (w, r.matvecs)
        },
    );
    same_on_both(
        "arnoldi phi_2",
        bound,
        || {
            let (w, r) = arnoldi_phimv(&g, &ag, t, &vg, 2, &ao).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = arnoldi_phimv(&cpu, &a, t, &v, 2, &ao).unwrap();
            (w, r.matvecs)
        },
    );
    let to = TaylorOptions {
        tol: Tolerance::relative(tol),
        ..Default::default()
    };
    same_on_both(
        "taylor",
        bound,
        || {
            let (w, r) = taylor_expmv(&g, &ag, t, &vg, &to).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = taylor_expmv(&cpu, &a, t, &v, &to).unwrap();
            (w, r.matvecs)
        },
    );
}

#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn imaginary_leja_agrees_with_the_cpu_backend_on_the_spin_bath() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let bath = SpinBath::seed000(12, 7).unwrap();
    let h: CsrMatrix<c64, u32> = bath.hamiltonian(StoredZeros::Keep).unwrap();
    let psi: Vec<c64> = bath.initial_state(3).unwrap();
    let hg = GpuCsr::from_csr(&g, &h).unwrap();
    let psig = g.upload(&psi).unwrap();
    let tol = 1e-8;
    let lo = LejaOptions::default().with_rtol(tol);
    same_on_both(
        "leja e^{-itH}, t = 5",
        10.0 * tol,
        || {
            let (w, r) = leja_schrodinger(&g, &hg, 5.0, &psig, &lo).unwrap();
            (g.to_host(&w).unwrap(), r.matvecs)
        },
        || {
            let (w, r) = leja_schrodinger(&cpu, &h, 5.0, &psi, &lo).unwrap();
            (w, r.matvecs)
        },
    );
    // Single precision on the GPU against the double-precision CPU solve: f32 accuracy.
    let h32: CsrMatrix<c32, u32> = h.cast().unwrap();
    let h32g = GpuCsr::from_csr(&g, &h32).unwrap();
    let psi32: Vec<c32> = psi.iter().map(|z| c32::from_c64(*z)).collect();
    let (w32, r32) = leja_schrodinger(
        &g,
        &h32g,
        5.0,
        &g.upload(&psi32).unwrap(),
        &LejaOptions::default().with_rtol(1e-5),
    )
    .unwrap();
    let (w64, _) = leja_schrodinger(&cpu, &h, 5.0, &psi, &lo).unwrap();
    let w32: Vec<c64> = g
        .to_host(&w32)
        .unwrap()
        .iter()
        .map(|z| z.to_c64())
        .collect();
    let e = rel_diff(&w32, &w64);
    eprintln!(
        "leja e^{{-itH}} c32 on the GPU vs c64 on the CPU: {e:.2e} ({} products)",
        r32.matvecs
    );
    assert!(e <= 1e-4, "c32 GPU solve off by {e:e}");
    // Unitary evolution keeps the norm.
    assert!((norms::nrm2(&w64) - norms::nrm2(&psi)).abs() < 1e-7);
}

/// The three forms of a Lanczos step.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    /// `Backend::lanczos_step` after a plain product.
    Classical,
    /// `FusedOperator::lanczos_product` + `Backend::lanczos_update`.
    Pythagorean,
    /// `Backend::lanczos_settle` + `FusedOperator::lanczos_advance` (q_{j+1} formed in the
    /// next product).
    Deferred,
}

/// `steps` Lanczos steps of the given form on any backend: the coefficient array (α_j at
/// 2j, β_{j+1} at 2j + 1) read once at the end, as `Lanczos` reads it at a check point.
fn lanczos_coefficients<
    B: matexp_core::KrylovBackend,
    S: Scalar,
    O: matexp_core::LinearOperator<B, S>,
>(
    b: &B,
    op: &O,
    v: &[S],
    steps: usize,
    form: Form,
) -> Vec<f64> {
    let n = v.len();
    let mut q: Vec<B::Vector<S>> = (0..steps + 1).map(|_| b.zeros(n).unwrap()).collect();
    let v0 = b.upload(v).unwrap();
    let nv = b.nrm2(&v0).unwrap().as_f64();
    b.axpby(S::from_f64(1.0 / nv), &v0, S::zero(), &mut q[0])
        .unwrap();
    let mut c = b.zeros::<f64>(2 * steps).unwrap();
    let mut sums = b.zeros::<f64>(matexp_core::LANCZOS_SUMS).unwrap();
    if form == Form::Deferred {
        let mut pending: Vec<B::Vector<S>> = (0..2).map(|_| b.zeros(n).unwrap()).collect();
        op.lanczos_product(b, 0, None, &q[0], &mut pending[0], &c, &mut sums)
            .unwrap();
        for j in 1..steps {
            let (done, rest) = q.split_at_mut(j);
            let (lo, hi) = pending.split_at_mut(1);
            let (w_prev, w) = if j % 2 == 1 {
                (&mut lo[0], &mut hi[0])
            } else {
                (&mut hi[0], &mut lo[0])
            };
            b.lanczos_settle(j - 1, &done[j - 1], w_prev, &mut c, &mut sums)
                .unwrap();
            op.lanczos_advance(
                b,
                j - 1,
                &done[j - 1],
                w_prev,
                &mut rest[0],
                w,
                &c,
                &mut sums,
            )
            .unwrap();
        }
        let last = (steps - 1) % 2;
        b.lanczos_settle(
            steps - 1,
            &q[steps - 1],
            &mut pending[last],
            &mut c,
            &mut sums,
        )
        .unwrap();
    }
    for j in 0..steps {
        if form == Form::Deferred {
            break;
        }
        let (done, rest) = q.split_at_mut(j + 1);
        let w = &mut rest[0];
        let prev = if j > 0 { Some(&done[j - 1]) } else { None };
        if form == Form::Pythagorean {
            op.lanczos_product(b, j, prev, &done[j], w, &c, &mut sums)
                .unwrap();
            b.lanczos_update(j, &done[j], w, &mut c, &mut sums).unwrap();
        } else {
            op.apply(b, S::one(), &done[j], S::zero(), w).unwrap();
            b.lanczos_step(j, prev, &done[j], w, &mut c).unwrap();
        }
    }
    let mut out = vec![0.0; 2 * steps];
    b.read_coeffs(&c, 0, &mut out).unwrap();
    out
}

/// The fused Lanczos step of the GPU backend (five kernels, α and β kept in device memory)
/// against the CPU backend's default step (dot, axpby, nrm2, scale on the host), for f64
/// on the 3D Laplacian and c64 on the spin bath: the same coefficients to rounding.
#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn fused_lanczos_steps_match_the_cpu_coefficients() {
    let g = gpu();
    let cpu = CpuBackend::new();
    // Normwise, relative to ‖T‖ ≥ max |coefficient|: an individual β can be small.
    let check = |name: &str, steps: usize, bound: f64, got: &[f64], want: &[f64]| {
        let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let worst = got
            .iter()
            .zip(want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f64, f64::max)
            / scale;
        eprintln!("{name}: {steps} fused steps, max |Δ coefficient| / ‖T‖ = {worst:.2e}");
        assert!(worst <= bound, "{name}: coefficients differ by {worst:e}");
    };
    let a: CsrMatrix<f64, u32> = laplacian_3d(20).unwrap();
    let v = smooth_plus_noise::<f64>(a.nrows());
    let ag = GpuCsr::from_csr(&g, &a).unwrap();
    // Each GPU path against the CPU's path of the same arithmetic (the classical step, and
    // the Pythagorean step in Paige's order, which the CPU runs from its default sums, and
    // its deferred form, whose fused GPU product forms q_{j+1} where it gathers it).
    for form in [Form::Classical, Form::Pythagorean, Form::Deferred] {
        check(
            &format!("laplace3d f64 ({form:?})"),
            24,
            1e-13,
            &lanczos_coefficients(&g, &ag, &v, 24, form),
            &lanczos_coefficients(&cpu, &a, &v, 24, form),
        );
    }
    // The deferred GPU form gathers the same bits the update pass would have written.
    check(
        "laplace3d f64 (deferred vs Pythagorean, GPU)",
        24,
        1e-15,
        &lanczos_coefficients(&g, &ag, &v, 24, Form::Deferred),
        &lanczos_coefficients(&g, &ag, &v, 24, Form::Pythagorean),
    );
    // I + 1e−9·L: w ≈ α_j q_j, the Pythagorean β is not trusted, and the settle takes the
    // exact norm on the device (sums[4] = 1), which the advance then reads as q_{j+1}.
    let values: Vec<f64> = (0..a.nrows())
        .flat_map(|i| {
            let (cols, vals) = a.row(i);
            cols.iter()
                .zip(vals)
                .map(move |(&c, &x)| 1e-9 * x + if c as usize == i { 1.0 } else { 0.0 })
        })
        .collect();
    let shifted = CsrMatrix::from_pattern(a.pattern().clone(), values).unwrap();
    let sg = GpuCsr::from_csr(&g, &shifted).unwrap();
    for form in [Form::Pythagorean, Form::Deferred] {
        check(
            &format!("I + 1e-9 L f64 ({form:?})"),
            12,
            1e-13,
            &lanczos_coefficients(&g, &sg, &v, 12, form),
            &lanczos_coefficients(&cpu, &shifted, &v, 12, form),
        );
    }
    let bath = SpinBath::seed000(12, 7).unwrap();
    let h: CsrMatrix<c64, u32> = bath.hamiltonian(StoredZeros::Keep).unwrap();
    let psi: Vec<c64> = bath.initial_state(3).unwrap();
    let hg = GpuCsr::from_csr(&g, &h).unwrap();
    // Eight steps: this state loses orthogonality from the first steps on (⟨q₀, q_j⟩ grows
    // ~30× per step, 1e−14 at j = 1 to 7e−3 at j = 10, measured on the CPU), and the
    // coefficients amplify rounding alike: two correct backends differ by ~3e−12 at step 8
    // (H200) and part ways at O(1) past step 10. The bound follows that growth.
    for form in [Form::Classical, Form::Pythagorean, Form::Deferred] {
        check(
            &format!("spin bath c64 ({form:?})"),
            8,
            // The Pythagorean β carries the sums' rounding times ‖w‖²/β² (≤ 16, see
            // `Backend::lanczos_update`), and the two backends sum in different orders (the
            // CPU squares its scaled norm): 3.2e−11 measured on an H200 at step 8.
            if form == Form::Classical {
                1e-11
            } else {
                1e-10
            },
            &lanczos_coefficients(&g, &hg, &psi, 8, form),
            &lanczos_coefficients(&cpu, &h, &psi, 8, form),
        );
    }
}

/// Lanczos end to end with the fused step and coefficients read only at check points:
/// the GPU takes the CPU backend's decisions (the same tridiagonal to rounding), plus at
/// most a lookahead of products queued ahead of a check, and returns the CPU's result to
/// 1e−12 where it stops at the same dimension, one-pass and two-pass, real and complex time.
#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn lanczos_takes_the_cpu_products_on_the_gpu() {
    let g = gpu();
    let cpu = CpuBackend::new();
    let a: CsrMatrix<f64, u32> = laplacian_3d(24).unwrap();
    let v = smooth_plus_noise::<f64>(a.nrows());
    let ag = GpuCsr::from_csr(&g, &a).unwrap();
    let vg = g.upload(&v).unwrap();
    let bath = SpinBath::seed000(12, 7).unwrap();
    let h: CsrMatrix<c64, u32> = bath.hamiltonian(StoredZeros::Keep).unwrap();
    let psi: Vec<c64> = bath.initial_state(3).unwrap();
    let hg = GpuCsr::from_csr(&g, &h).unwrap();
    let psig = g.upload(&psi).unwrap();
    for two_pass in [false, true] {
        for rtol in [1e-6, 1e-10] {
            let opts = LanczosOptions {
                tol: Tolerance::relative(rtol),
                two_pass,
                ..Default::default()
            };
            // ‖tA‖ ≈ 12·25²·t ≈ 750.
            let t = 0.1;
            let (wg, rg) = lanczos_expmv(&g, &ag, t, &vg, &opts).unwrap();
            let (wc, rc) = lanczos_expmv(&cpu, &a, t, &v, &opts).unwrap();
            let e = rel_diff(&g.to_host(&wg).unwrap(), &wc);
            eprintln!("laplace3d two_pass {two_pass} rtol {rtol:e}: {e:.2e}; gpu {rg}; cpu {rc}");
            // The GPU queues steps ahead of each check (the device works while the host
            // solves the small eigenproblems), up to max(4, k/4): the check after the one
            // before convergence can land that much later, and the converging check queues
            // as many again, so at most ~(5/4)² of the CPU's products (both counts, small
            // and fast problems: 183 against 119 measured at n = 24³ on an H200); on the same
            // dimension it returns the CPU's result.
            let bound = |k: usize| k + (9 * k).div_ceil(16) + 10;
            assert!(
                rg.matvecs >= rc.matvecs && rg.matvecs <= bound(rc.matvecs),
                "laplace3d: products {} on the GPU, {} on the CPU",
                rg.matvecs,
                rc.matvecs
            );
            let same = rg.max_degree == rc.max_degree;
            assert!(
                e <= if same { 1e-12 } else { 2.0 * rtol },
                "laplace3d: GPU vs CPU {e:e} (dimensions {} and {})",
                rg.max_degree,
                rc.max_degree
            );
            let tau = c64::new(0.0, -5.0);
            let (wg, rg) = lanczos_expmv(&g, &hg, tau, &psig, &opts).unwrap();
            let (wc, rc) = lanczos_expmv(&cpu, &h, tau, &psi, &opts).unwrap();
            let e = rel_diff(&g.to_host(&wg).unwrap(), &wc);
            eprintln!("spin bath two_pass {two_pass} rtol {rtol:e}: {e:.2e}; gpu {rg}; cpu {rc}");
            // This state loses orthogonality from step ~9 (⟨q₀, q₁₀⟩ ≈ 7e−3: an isolated
            // eigenvalue is found early), after which the coefficients amplify the rounding
            // differences of the two backends; a check near the tolerance may then decide one
            // step apart. Both results must meet the tolerance, so they agree to 2·rtol.
            assert!(
                rg.matvecs + 2 >= rc.matvecs && rg.matvecs <= bound(rc.matvecs),
                "spin bath: products {} on the GPU, {} on the CPU",
                rg.matvecs,
                rc.matvecs
            );
            assert!(e <= 2.0 * rtol, "spin bath: GPU vs CPU {e:e}");
        }
    }
    // The deferred step form (spmv_csr_lanczos_advance) takes the same decisions as the
    // default form on the GPU and returns its result to rounding.
    let agd = GpuCsr::from_csr(&g, &a)
        .unwrap()
        .with_deferred_lanczos(true);
    let hgd = GpuCsr::from_csr(&g, &h)
        .unwrap()
        .with_deferred_lanczos(true);
    for rtol in [1e-6, 1e-10] {
        let opts = LanczosOptions {
            tol: Tolerance::relative(rtol),
            ..Default::default()
        };
        let (w0, r0) = lanczos_expmv(&g, &ag, 0.1, &vg, &opts).unwrap();
        let (w1, r1) = lanczos_expmv(&g, &agd, 0.1, &vg, &opts).unwrap();
        let e = rel_diff(&g.to_host(&w1).unwrap(), &g.to_host(&w0).unwrap());
        eprintln!("laplace3d deferred vs default rtol {rtol:e}: {e:.2e}; {r1}; {r0}");
        // The checks' places follow the measured host and device times (the lookahead), so
        // two runs may stop at different dimensions; at the same one they agree to rounding.
        let bound = if r0.max_degree == r1.max_degree {
            1e-12
        } else {
            2.0 * rtol
        };
        assert!(e <= bound, "laplace3d: deferred vs default {e:e}");
        let tau = c64::new(0.0, -5.0);
        let (w0, r0) = lanczos_expmv(&g, &hg, tau, &psig, &opts).unwrap();
        let (w1, r1) = lanczos_expmv(&g, &hgd, tau, &psig, &opts).unwrap();
        let e = rel_diff(&g.to_host(&w1).unwrap(), &g.to_host(&w0).unwrap());
        eprintln!("spin bath deferred vs default rtol {rtol:e}: {e:.2e}; {r1}; {r0}");
        // Summed in another order (the rows' sums of one kernel against two), the spin
        // bath's early loss of orthogonality may move a check by a step: both meet rtol.
        assert!(e <= 2.0 * rtol, "spin bath: deferred vs default {e:e}");
    }
}

/// e^{tA}v by Lanczos over the GPU stencil (its fused product, and its advance: Lanczos runs
/// the deferred step there) against the same call over the CPU stencil, for three boundary
/// kinds in 3D and 2D.
#[test]
#[ignore = "needs a CUDA GPU; run by the GPU bundle"]
fn lanczos_over_the_gpu_stencil_matches_the_cpu_stencil() {
    use matexp_core::LinearOperator;
    use matexp_stencil::gpu::GpuStencil;
    use matexp_stencil::{Boundary, Dim, Stencil};
    use matexp_testkit::gpu_sizes::pick;
    let g = gpu();
    let cpu = CpuBackend::new();
    for kind in [Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic] {
        for (d, n) in [(Dim::Three, pick(33, 12)), (Dim::Two, pick(90, 30))] {
            let op = Stencil::<f64>::laplacian(d, n, kind).unwrap();
            let len = LinearOperator::<CpuBackend, f64>::nrows(&op);
            // t·‖A‖ ≈ 30: a few tens of Krylov steps, a convergence check or two.
            let t = 30.0 / LinearOperator::<CpuBackend, f64>::norm_bound(&op).unwrap();
            let v = smooth_plus_noise::<f64>(len);
            let opts = LanczosOptions::default().with_rtol(1e-12);
            let (want, _) = lanczos_expmv(&cpu, &op, t, &v, &opts).unwrap();
            let dev = GpuStencil::new(&g, &op).unwrap();
            assert!(OperatorSteps::<GpuBackend, f64>::lanczos_advance_fused(
                &dev
            ));
            let vg = g.upload(&v).unwrap();
            let (got, report) = lanczos_expmv(&g, &dev, t, &vg, &opts).unwrap();
            let e = rel_diff(&g.to_host(&got).unwrap(), &want);
            eprintln!("stencil {kind:?} {d:?} n = {n}: GPU vs CPU {e:.2e}; {report}");
            assert!(e < 1e-10, "{kind:?} {d:?} n = {n}: {e:e}");
        }
    }
}
