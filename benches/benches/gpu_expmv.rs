//! GPU benchmark suite `expmv_gpu`: w = e^{tA}v by every method (Leja, Lanczos, Arnoldi,
//! Taylor, and what `Method::Auto` picks) through the one solver trait, on the GPU and on the
//! host's CPU backend in the same binary: the measurement behind `Method::Auto` on GPUs.
//!
//! Problems: the 3D Dirichlet Laplacian (Hermitian) at a small and a moderate ‖tA‖, the
//! spin-bath Hamiltonian's e^{−itH}v (complex Hermitian), and a 1D convection–diffusion
//! operator (nonsymmetric). Per method and backend: median wall time of the repetitions after
//! one warm-up (the backend synchronised before the clock stops), products, relative
//! difference to the GPU Lanczos/Arnoldi result at rtol 10⁻¹² and the report line.
//!
//! ```text
//! cargo bench -p matexp-benches --bench gpu_expmv -- [--out DIR] [--small] [--reps N] [--no-cpu]
//!     [--tables] [--tables-only]
//! ```
//!
//! `--tables` adds seed 000's Table 12 (3D Laplacian N = 256, e^{0.01A}u₀, u₀ = sin(2πx),
//! tol 10⁻⁵, f64) and Table 10 (spin bath L = 21, e^{−10iH}ψ₀, tol 10⁻⁵, c64) on the GPU
//! with Lanczos (which `Method::Auto` picks for these Hermitian operators: its rule is
//! "Lanczos if `is_hermitian()`", on every backend), errors against Leja at rtol 10⁻¹⁰,
//! and, on both operators, the time of one Lanczos step (`lanczos_product` + `lanczos_update`)
//! against one product in the same run (`…/lanczos_step` records, the ratio in `extra`);
//! Table 10 runs twice: the real Hamiltonian with real values stored (the real-by-complex
//! kernels, what `GpuCsr::from_csr` picks) and stored complex (`…_complex_values`).
//! `--small` shrinks them to N = 64 and L = 14. `--tables-only` skips the other problems;
//! `--table T10` (or `T12`, repeatable) runs only that table.
//! Records (one JSON object per line) go to `DIR/expmv_gpu.jsonl` (default
//! `target/bench-records`). Exit status 3 means no GPU.

#[path = "common/cusparse_route.rs"]
mod cusparse_route;

use cusparse_route::CusparseRoute;
use matexp_benches::Record;
use matexp_benches::gpu_harness::{
    CommonArgs, Res, device_tag, err, exit_on_failure, gpu_or_exit, time_wall, upper_median,
    vendor_ratio, write_records,
};
use matexp_core::OperatorSteps;
use matexp_core::{Backend, CpuBackend, KrylovBackend, LinearOperator, Scalar, c64};
use matexp_expmv::{
    Arnoldi, ArnoldiOptions, ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions, Report,
    Taylor, TaylorOptions,
};
use matexp_gpu::{GpuBackend, GpuCsr, ValueStorage};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros, laplacian_3d};
use matexp_testkit::reference::{laplace_initial, laplace_reference};
use std::time::Instant;

const SUITE: &str = "expmv_gpu";
const TOL: f64 = 1e-8;

struct Args {
    common: CommonArgs,
    cpu: bool,
    tables: bool,
    others: bool,
    /// `--table T10` / `--table T12`: only that seed table (repeatable; all when empty).
    only_tables: Vec<String>,
}

fn parse_args() -> Args {
    let (mut cpu, mut tables, mut others) = (true, false, true);
    let mut only_tables = Vec::new();
    let common = CommonArgs::parse(3, |flag, it| match flag {
        "--no-cpu" => cpu = false,
        "--tables" => tables = true,
        "--tables-only" => {
            tables = true;
            others = false;
        }
        "--table" => only_tables.extend(it.next()),
        _ => {}
    });
    Args {
        common,
        cpu,
        tables,
        others,
        only_tables,
    }
}

/// Median wall time (s), the last result on the host, and the report of one method.
type Timed<S> = (f64, Vec<S>, Report);

/// One timed method: median wall time (s), the last result on the host, the report.
fn time_method<'b, M, B, S, O>(
    backend: &'b B,
    opts: M::Options,
    op: &O,
    t: S,
    v: &B::Vector<S>,
    reps: usize,
) -> Res<Timed<S>>
where
    M: ExpmvMethod<'b, B, S>,
    B: Backend + 'b,
    S: Scalar,
    O: LinearOperator<B, S> + ?Sized,
{
    // At least one timed run after the warm-up (a reference solve asks for none).
    let reps = reps.max(1);
    let mut w = backend.zeros(op.nrows()).map_err(err)?;
    let mut report = None;
    let mut times = time_wall(1, reps, || {
        let mut m = M::new(backend, opts.clone()).map_err(err)?;
        let r = m.expmv(op, t, v, &mut w).map_err(err)?;
        backend.synchronize().map_err(err)?;
        report = Some(r);
        Ok(())
    })?;
    let host = backend.to_host(&w).map_err(err)?;
    Ok((upper_median(&mut times), host, report.expect("ran")))
}

fn rel_diff<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    let d: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x.to_c64() - y.to_c64()).norm_sqr())
        .sum();
    let r: f64 = b.iter().map(|y| y.to_c64().norm_sqr()).sum();
    (d / r).sqrt()
}

/// 1D convection–diffusion, central differences on n interior points of [0, 1], cell Péclet
/// number `peclet`·h: nonsymmetric, real spectrum in the diffusion-dominated range.
fn convection_diffusion(n: usize, peclet: f64) -> Res<CsrMatrix<f64>> {
    let h2 = ((n + 1) * (n + 1)) as f64;
    let c = peclet * (n + 1) as f64 / 2.0;
    let (mut rp, mut ci, mut vals) = (vec![0u32], Vec::new(), Vec::new());
    for i in 0..n {
        if i > 0 {
            ci.push(i as u32 - 1);
            vals.push(h2 + c);
        }
        ci.push(i as u32);
        vals.push(-2.0 * h2);
        if i + 1 < n {
            ci.push(i as u32 + 1);
            vals.push(h2 - c);
        }
        rp.push(ci.len() as u32);
    }
    CsrMatrix::try_new(n, n, rp, ci, vals).map_err(err)
}

struct Ctx<'a> {
    gpu: &'a GpuBackend,
    cpu: CpuBackend,
    args: &'a Args,
    tag: String,
    records: Vec<Record>,
}

/// Every method on one problem, on the GPU and (unless `--no-cpu`) on the CPU.
fn problem<S: Scalar>(
    ctx: &mut Ctx<'_>,
    name: &str,
    a: &CsrMatrix<S, u32>,
    t: S,
    v: &[S],
) -> Res<()> {
    let ag = GpuCsr::from_csr(ctx.gpu, a).map_err(err)?;
    let vg = ctx.gpu.upload(v).map_err(err)?;
    let vc = v.to_vec();
    let hermitian = LinearOperator::<CpuBackend, S>::is_hermitian(a);
    // The reference: the best Krylov method at a tight tolerance, on the GPU.
    let (_, reference, _) = if hermitian {
        time_method::<Lanczos<'_, _, _>, _, _, _>(
            ctx.gpu,
            LanczosOptions::default().with_rtol(1e-12),
            &ag,
            t,
            &vg,
            0,
        )?
    } else {
        time_method::<Arnoldi<'_, _, _>, _, _, _>(
            ctx.gpu,
            ArnoldiOptions::default().with_rtol(1e-12),
            &ag,
            t,
            &vg,
            0,
        )?
    };
    let reps = ctx.args.common.reps.max(1);
    let mut rows: Vec<(&str, &str, Res<Timed<S>>)> = Vec::new();
    macro_rules! each_method {
        ($backend:expr, $label:expr, $op:expr, $v:expr) => {
            rows.push((
                "leja",
                $label,
                time_method::<Leja<'_, _, _>, _, _, _>(
                    $backend,
                    LejaOptions::default().with_rtol(TOL),
                    $op,
                    t,
                    $v,
                    reps,
                ),
            ));
            if hermitian {
                rows.push((
                    "lanczos",
                    $label,
                    time_method::<Lanczos<'_, _, _>, _, _, _>(
                        $backend,
                        LanczosOptions::default().with_rtol(TOL),
                        $op,
                        t,
                        $v,
                        reps,
                    ),
                ));
            }
            rows.push((
                "arnoldi",
                $label,
                time_method::<Arnoldi<'_, _, _>, _, _, _>(
                    $backend,
                    ArnoldiOptions::default().with_rtol(TOL),
                    $op,
                    t,
                    $v,
                    reps,
                ),
            ));
            rows.push((
                "taylor",
                $label,
                time_method::<Taylor<'_, _, _>, _, _, _>(
                    $backend,
                    TaylorOptions::default().with_rtol(TOL),
                    $op,
                    t,
                    $v,
                    reps,
                ),
            ));
        };
    }
    each_method!(ctx.gpu, "gpu", &ag, &vg);
    if ctx.args.cpu {
        let cpu = &ctx.cpu;
        each_method!(cpu, "cpu", a, &vc);
    }
    println!("{name} (n = {}, nnz = {}):", a.nrows(), a.nnz());
    for (method, backend, res) in rows {
        match res {
            Ok((time, w, report)) => {
                let e = rel_diff(&w, &reference);
                println!(
                    "  {backend} {method}: {:.3} ms, error {e:.1e}; {report}",
                    time * 1e3
                );
                let mut r = Record::new(SUITE, &format!("{name}/{method}"), backend, S::NAME)
                    .size("n", a.nrows())
                    .size("nnz", a.nnz())
                    .matvecs(report.matvecs as u64)
                    .tol(TOL)
                    .error(e)
                    .extra("max_degree", report.max_degree)
                    .extra("substeps", report.substeps)
                    .extra("host_wall", true);
                r.time_s = time;
                r.reps = reps as u64;
                r.device = ctx.tag.clone();
                ctx.records.push(r);
            }
            Err(e) => println!("  {backend} {method}: failed: {e}"),
        }
    }
    Ok(())
}

fn main() {
    let args = parse_args();
    let gpu = gpu_or_exit("gpu_expmv");
    exit_on_failure("gpu_expmv", run(&gpu, &args));
}

fn run(gpu: &GpuBackend, args: &Args) -> Res<()> {
    let info = gpu.device().info().clone();
    let tag = device_tag(|| info.short_name());
    println!("device: {info}");
    let mut ctx = Ctx {
        gpu,
        cpu: CpuBackend::new(),
        args,
        tag,
        records: Vec::new(),
    };
    if args.tables {
        tables(&mut ctx)?;
    }
    if !args.others {
        return write_records(&args.common.out, SUITE, &ctx.records);
    }
    let (grid, spins, n1) = if args.common.small {
        (32, 12, 100_000)
    } else {
        (96, 16, 1_000_000)
    };
    let lap: CsrMatrix<f64> = laplacian_3d(grid).map_err(err)?;
    let v: Vec<f64> = (0..lap.nrows())
        .map(|i| 1.0 + ((i * 7919) % 97) as f64 / 97.0)
        .collect();
    let h2 = ((grid + 1) * (grid + 1)) as f64;
    // ‖tA‖ ≈ 12(N+1)²t: 5 and 500.
    for norm in [5.0, 500.0] {
        let t = norm / (12.0 * h2);
        problem(
            &mut ctx,
            &format!("laplace3d_N{grid}_normtA{norm}"),
            &lap,
            t,
            &v,
        )?;
    }
    let bath = SpinBath::seed000(spins, 2011).map_err(err)?;
    let h: CsrMatrix<c64> = bath.hamiltonian(StoredZeros::Keep).map_err(err)?;
    let psi: Vec<c64> = bath.initial_state(1).map_err(err)?;
    problem(
        &mut ctx,
        &format!("spin_bath_L{spins}_t10"),
        &h,
        c64::new(0.0, -10.0),
        &psi,
    )?;
    let cd = convection_diffusion(n1, 10.0)?;
    let v: Vec<f64> = (0..n1).map(|i| 1.0 + (i as f64 * 1e-3).sin()).collect();
    let t = 500.0 / (4.0 * ((n1 + 1) * (n1 + 1)) as f64);
    problem(&mut ctx, &format!("convection_diffusion_n{n1}"), &cd, t, &v)?;
    write_records(&args.common.out, SUITE, &ctx.records)
}

/// What one step of `step_times` runs.
#[derive(Clone, Copy, PartialEq)]
enum StepForm {
    /// The product alone.
    Product,
    /// `lanczos_product` + `lanczos_update` (the Pythagorean step).
    Update,
    /// `lanczos_settle` + `lanczos_advance` (the deferred form, q_{j+1} formed in the next
    /// product).
    Deferred,
}

/// Seconds per step of each form (median of two rounds of `steps` steps, the second
/// reported, after the first as warm-up): (product, Pythagorean step, deferred step). The
/// backend is synchronized before each clock stops, and no step reads a coefficient (as
/// `Lanczos` between checks).
fn step_times<S: Scalar>(
    gpu: &GpuBackend,
    op: &GpuCsr<S>,
    v: &[S],
    steps: usize,
) -> Res<(f64, f64, f64)> {
    let n = v.len();
    let mut q: Vec<_> = (0..3)
        .map(|_| gpu.zeros::<S>(n))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let mut w: Vec<_> = (0..2)
        .map(|_| gpu.zeros::<S>(n))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let v0 = gpu.upload(v).map_err(err)?;
    let nv = gpu.nrm2(&v0).map_err(err)?.to_c64().re;
    let mut c = gpu.zeros::<f64>(4 * steps + 4).map_err(err)?;
    let mut sums = gpu.zeros::<f64>(matexp_core::LANCZOS_SUMS).map_err(err)?;
    let mut run_steps = |form: StepForm| -> Res<f64> {
        gpu.axpby(S::from_f64(1.0 / nv), &v0, S::zero(), &mut q[0])
            .map_err(err)?;
        if form == StepForm::Deferred {
            op.lanczos_product(gpu, 0, None, &q[0], &mut w[0], &c, &mut sums)
                .map_err(err)?;
        }
        let mut times = Vec::new();
        for round in 0..2 {
            gpu.synchronize().map_err(err)?;
            let start = Instant::now();
            for s in 0..steps {
                let j = round * steps + s;
                // Rotating slots: q_j in q[j % 3], the pending w_j in w[j % 2].
                let (ip, ic, iu) = ((j + 2) % 3, j % 3, (j + 1) % 3);
                let (q_prev, q_cur, q_next) = three(&mut q, ip, ic, iu);
                match form {
                    StepForm::Product => op
                        .apply(gpu, S::one(), q_cur, S::zero(), q_next)
                        .map_err(err)?,
                    StepForm::Update => {
                        let p = (j > 0).then_some(q_prev);
                        op.lanczos_product(gpu, j, p, q_cur, q_next, &c, &mut sums)
                            .map_err(err)?;
                        gpu.lanczos_update(j, q_cur, q_next, &mut c, &mut sums)
                            .map_err(err)?;
                    }
                    StepForm::Deferred => {
                        let (lo, hi) = w.split_at_mut(1);
                        let (w_prev, w_next) = if j % 2 == 0 {
                            (&mut lo[0], &mut hi[0])
                        } else {
                            (&mut hi[0], &mut lo[0])
                        };
                        gpu.lanczos_settle(j, q_cur, w_prev, &mut c, &mut sums)
                            .map_err(err)?;
                        op.lanczos_advance(gpu, j, q_cur, w_prev, q_next, w_next, &c, &mut sums)
                            .map_err(err)?;
                    }
                }
            }
            gpu.synchronize().map_err(err)?;
            times.push(start.elapsed().as_secs_f64() / steps as f64);
        }
        Ok(times[1])
    };
    let spmv = run_steps(StepForm::Product)?;
    let update = run_steps(StepForm::Update)?;
    let deferred = run_steps(StepForm::Deferred)?;
    Ok((spmv, update, deferred))
}

/// Disjoint borrows of three distinct slots: (i, j read; k written).
fn three<V>(v: &mut [V], i: usize, j: usize, k: usize) -> (&V, &V, &mut V) {
    let (head, tail) = v.split_at_mut(k);
    let (out, tail) = tail.split_first_mut().expect("k in bounds");
    let (head, tail) = (&*head, &*tail);
    let get = move |x: usize| -> &V { if x < k { &head[x] } else { &tail[x - k - 1] } };
    (get(i), get(j), out)
}

/// Seed 000's Tables 12 and 10 on the GPU by Lanczos (= `Method::Auto` here), and the time
/// of a Lanczos step against one product on both operators.
fn tables(ctx: &mut Ctx<'_>) -> Res<()> {
    let (lap_n, spins) = if ctx.args.common.small {
        (64, 14)
    } else {
        (256, 21)
    };
    let tol = 1e-5;
    let reps = ctx.args.common.reps.max(1);
    let only = &ctx.args.only_tables;
    let (t12, t10) = (
        only.is_empty() || only.iter().any(|x| x == "T12"),
        only.is_empty() || only.iter().any(|x| x == "T10"),
    );
    if t12 {
        let a: CsrMatrix<f64> = laplacian_3d(lap_n).map_err(err)?;
        let u0 = laplace_initial(lap_n);
        let mut ag = GpuCsr::from_csr(ctx.gpu, &a).map_err(err)?;
        table_case(
            ctx,
            &format!("T12_laplace3d_N{lap_n}_t0.01"),
            &mut ag,
            0.01,
            &u0,
            Some(laplace_reference(lap_n, 0.01)),
            tol,
            reps,
        )?;
    }
    if t10 {
        let bath = SpinBath::seed000(spins, 1).map_err(err)?;
        let hm: CsrMatrix<c64> = bath.hamiltonian(StoredZeros::Keep).map_err(err)?;
        let psi: Vec<c64> = bath.initial_state(1).map_err(err)?;
        // The real Hamiltonian on complex vectors: real values stored (`GpuCsr::from_csr`
        // finds every imaginary part zero), then the same matrix stored complex, in one run.
        for (suffix, storage) in [
            ("", ValueStorage::Auto),
            ("_complex_values", ValueStorage::Full),
        ] {
            let mut hg = GpuCsr::from_csr_with(ctx.gpu, &hm, storage).map_err(err)?;
            println!(
                "T10: values stored {}, {} bytes a product",
                if hg.real_values() { "real" } else { "complex" },
                hg.bytes_per_product(false)
            );
            let case = format!("T10_spin_bath_L{spins}_t10{suffix}");
            table_case(
                ctx,
                &case,
                &mut hg,
                c64::new(0.0, -10.0),
                &psi,
                None,
                tol,
                reps,
            )?;
        }
    }
    Ok(())
}

fn table_case<S: Scalar>(
    ctx: &mut Ctx<'_>,
    name: &str,
    op: &mut GpuCsr<S>,
    t: S,
    v: &[S],
    exact: Option<Vec<S>>,
    tol: f64,
    reps: usize,
) -> Res<()> {
    let gpu = ctx.gpu;
    let n = v.len();
    let (spmv, update, deferred) = step_times(gpu, op, v, 50)?;
    // The form `Lanczos` runs on this operator.
    let step = if op.lanczos_advance_fused() {
        deferred
    } else {
        update
    };
    let ratio = step / spmv;
    println!(
        "{name}: Lanczos step {:.3} ms (deferred form {:.3} ms, product + update {:.3} ms), \
         SpMV {:.3} ms: ratio {ratio:.2}",
        step * 1e3,
        deferred * 1e3,
        update * 1e3,
        spmv * 1e3
    );
    let mut r = Record::new(SUITE, &format!("{name}/lanczos_step"), "gpu", S::NAME)
        .size("n", n)
        .extra("spmv_s", spmv)
        .extra("step_over_spmv", ratio)
        .extra("deferred_s", deferred)
        .extra("update_form_s", update)
        .extra(
            "form",
            if op.lanczos_advance_fused() {
                "deferred"
            } else {
                "product + update"
            },
        )
        .extra("steps", 50);
    r.time_s = step;
    r.reps = 1;
    r.device = ctx.tag.clone();
    ctx.records.push(r);
    let vg = gpu.upload(v).map_err(err)?;
    // The reference: the exact solution where one is known (the Laplacian's separable
    // form), else Leja (no Krylov basis) at rtol 1e−10.
    let (reference, reference_name) = match exact {
        Some(w) => (w, "exact separable solution"),
        None => {
            let (_, w, _) = time_method::<Leja<'_, _, _>, _, _, _>(
                gpu,
                LejaOptions::default().with_rtol(1e-10),
                op,
                t,
                &vg,
                0,
            )?;
            (w, "Leja at rtol 1e-10")
        }
    };
    // The vendor route of the same call: cuSPARSE's SpMV in place of ours (and so without
    // the fused Lanczos product), the rest of Lanczos unchanged.
    let route = CusparseRoute(op);
    // A cuSPARSE refusal (say of the mixed real/complex form) is reported and leaves the
    // case without the vendor comparison instead of ending the run.
    let vendor_time = match time_method::<Lanczos<'_, _, _>, _, _, _>(
        gpu,
        LanczosOptions::default().with_rtol(tol),
        &route,
        t,
        &vg,
        reps,
    ) {
        Ok((vendor_time, vendor_w, vendor_report)) => {
            let vendor_e = rel_diff(&vendor_w, &reference);
            println!(
                "  gpu lanczos with cuSPARSE's SpMV: {:.3} ms, error {vendor_e:.1e}; {vendor_report}",
                vendor_time * 1e3
            );
            let mut r = Record::new(SUITE, &format!("{name}/lanczos"), "cusparse", S::NAME)
                .size("n", n)
                .matvecs(vendor_report.matvecs as u64)
                .tol(tol)
                .error(vendor_e)
                .extra("route", cusparse_route::ROUTE)
                .extra("reference", reference_name)
                .extra("host_wall", true);
            r.time_s = vendor_time;
            r.reps = reps as u64;
            r.device = ctx.tag.clone();
            ctx.records.push(r);
            Some(vendor_time)
        }
        Err(e) => {
            println!("  gpu lanczos with cuSPARSE's SpMV failed: {e}");
            None
        }
    };
    for (label, two_pass) in [
        ("lanczos", false),
        ("lanczos_two_pass", true),
        ("lanczos_deferred", false),
    ] {
        let opts = LanczosOptions {
            two_pass,
            ..LanczosOptions::default().with_rtol(tol)
        };
        // The deferred step form on the same matrix (`GpuCsr::set_deferred_lanczos`).
        op.set_deferred_lanczos(label == "lanczos_deferred");
        let op = &*op;
        let (time, w, report) =
            time_method::<Lanczos<'_, _, _>, _, _, _>(gpu, opts, op, t, &vg, reps)?;
        let e = rel_diff(&w, &reference);
        println!(
            "  gpu {label}: {:.3} ms, error {e:.1e} (tol {tol:.0e}); {report}",
            time * 1e3
        );
        let mut r = Record::new(SUITE, &format!("{name}/{label}"), "gpu", S::NAME)
            .size("n", n)
            .matvecs(report.matvecs as u64)
            .tol(tol)
            .error(e)
            .extra("max_degree", report.max_degree)
            .extra("auto_picks", "lanczos")
            .extra(
                "step_form",
                if OperatorSteps::<GpuBackend, S>::lanczos_advance_fused(op) {
                    "deferred"
                } else {
                    "product + update"
                },
            )
            .extra("reference", reference_name)
            .extra("error_estimate", report.error_estimate)
            .extra("host_wall", true);
        if let (Some(vt), "lanczos") = (vendor_time, label) {
            r.vendor_ratio = Some(vendor_ratio(vt, time));
        }
        r.time_s = time;
        r.reps = reps as u64;
        r.device = ctx.tag.clone();
        ctx.records.push(r);
    }
    op.set_deferred_lanczos(false);
    Ok(())
}
