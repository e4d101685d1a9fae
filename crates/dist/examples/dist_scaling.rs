//! Strong and weak scaling of the distributed engine on CPU ranks, under `mpiexec -n P`,
//! against the single-process solver on the same problem in the same run.
//!
//! Problems (seed 000):
//! * **Table 12 on the matrix-free stencil**: the 3D Dirichlet Laplacian on `N³` points,
//!   e^{tA}u₀ with t = 0.01, u₀ = sin(2πx), tol 1e−5, by Leja (the method of the stencil's
//!   Table 12 runs), error against the exact separable solution. One Leja solve of N = 256
//!   on one core takes longer than a scaling sweep should, so strong scaling times the
//!   product at N = 256 and the product plus one full solve at N = 128 (`--full-expmv`:
//!   the solve at N = 256 too). Weak scaling keeps the points per rank near 128³:
//!   `N = round(128·∛P)` (128, 161, 203, 256 at P = 1, 2, 4, 8), products and one solve;
//!   at P = 8 that solve is Table 12 itself. (The grid is cubic, so the per-rank size is
//!   exact at P = 1 and 8 only; `extra.rows_per_rank` gives it.)
//! * **Table 10's spin bath** as a `DistCsr` (`c64` values, the seed's stored zeros kept,
//!   `SpinBath::seed000(L, 1)`, ψ₀ = `initial_state(1)`, scattered from rank 0):
//!   e^{−10iH}ψ₀ at tol 1e−5 by Lanczos (what `Method::Auto` picks for it). Strong scaling
//!   at L = 21 (products and one solve); weak scaling at L = 18 + log₂P (2^18 rows per
//!   rank; the entries per row, 2L − 2, grow slowly with L). A rank count that is not a
//!   power of two takes L = 18 + ⌊log₂P⌋, fewer than 2^18 rows per rank.
//!
//! For each case: the time of one product (median of `--reps` products, each between two
//! barriers, after one untimed product) and of one full expmv, on the ranks and, on rank 0
//! while the others wait, by the single-process solver (`CpuBackend`, the same operator as
//! one `Stencil` or `CsrMatrix`) on the whole problem; `speedup` = T₁/T_P and
//! `efficiency` = T₁/(P·T_P) with T₁ the single-process time. The distributed solve runs
//! first, then the single-process one; every rank first runs one tiny Leja solve at the same
//! tolerance, so that the process-wide Leja caches (keyed by direction and tolerance) are
//! warm on every rank. Results are checked against each other (`rel_diff_to_single`).
//!
//! **Threads.** Each rank runs a rayon pool of `--threads` threads (default
//! `$RAYON_NUM_THREADS`, else 1), the single-process solver included: bind ranks to cores
//! (`mpiexec -bind-to core`) so that P ranks use P cores and T₁ is one core's time.
//!
//! ```text
//! cargo build --release -p matexp-dist --features mpi --example dist_scaling
//! mpiexec -n 4 -bind-to core target/release/examples/dist_scaling [--mode strong|weak|both]
//!     [--only stencil|spin] [--small] [--reps N] [--threads N] [--full-expmv]
//!     [--ranks-label TEXT] [--out DIR]
//! ```
//!
//! `--small` shrinks everything (stencil N = 24 and 16, weak N = round(16·∛P); spin bath
//! L = 12, weak L = 10 + log₂P) so that a run takes seconds. Rank 0 prints a table and
//! appends JSON-lines records (`matexp_records::Record`) to `DIR/dist_scaling.jsonl` (default
//! `$MATEXP_BENCH_RECORDS`, else `target/bench-records`): backend `cpu-mpi` for the ranks,
//! `cpu` for the single-process solver, with top-level fields `ranks` and `mode` (`strong` or
//! `weak`; they define the measurement) and `extra.efficiency`, `extra.speedup`,
//! `extra.single_s`, `extra.threads_per_rank`, `extra.ranks_label`.

use matexp::{Method, Options};
use matexp_core::{Backend, CpuBackend, LinearOperator, Scalar, c64};
use matexp_dist::comm::{Communicator, MpiComm};
use matexp_dist::{DistBackend, DistCsr, DistStencil};
use matexp_expmv::Report;
use matexp_records::Record;
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::{SpinBath, StoredZeros};
use matexp_stencil::{Boundary, Dim, Stencil};
use matexp_testkit::reference::{laplace_initial, laplace_reference};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

const SUITE: &str = "dist_scaling";
const BACKEND: &str = "cpu-mpi";
const TOL: f64 = 1e-5;
/// Table 12's time.
const T_HEAT: f64 = 0.01;
/// Table 10's time: e^{−10iH}ψ₀.
const T_SPIN: f64 = 10.0;

type D = DistBackend<CpuBackend>;
type DVec<S> = <D as Backend>::Vector<S>;
type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Args {
    out: PathBuf,
    small: bool,
    reps: usize,
    threads: usize,
    label: Option<String>,
    strong: bool,
    weak: bool,
    stencil: bool,
    spin: bool,
    full_expmv: bool,
}

const USAGE: &str = "dist_scaling [--mode strong|weak|both] [--only stencil|spin] [--small] \
                     [--reps N] [--threads N] [--full-expmv] [--ranks-label TEXT] [--out DIR]";

fn parse_args() -> Res<Args> {
    let env_threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&t: &usize| t > 0);
    let mut a = Args {
        out: std::env::var_os("MATEXP_BENCH_RECORDS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/bench-records")),
        small: false,
        reps: 7,
        threads: env_threads.unwrap_or(1),
        label: None,
        strong: true,
        weak: true,
        stencil: true,
        spin: true,
        full_expmv: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--out" => a.out = PathBuf::from(value()?),
            "--small" => a.small = true,
            "--reps" => a.reps = value()?.parse::<usize>()?.max(1),
            "--threads" => a.threads = value()?.parse::<usize>()?.max(1),
            "--ranks-label" => a.label = Some(value()?),
            "--full-expmv" => a.full_expmv = true,
            "--mode" => {
                let m = value()?;
                (a.strong, a.weak) = match m.as_str() {
                    "strong" => (true, false),
                    "weak" => (false, true),
                    "both" => (true, true),
                    _ => return Err(format!("--mode {m}: strong, weak or both").into()),
                };
            }
            "--only" => {
                let p = value()?;
                (a.stencil, a.spin) = match p.as_str() {
                    "stencil" => (true, false),
                    "spin" => (false, true),
                    _ => return Err(format!("--only {p}: stencil or spin").into()),
                };
            }
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument {flag}\n{USAGE}").into()),
        }
    }
    Ok(a)
}

/// One row of the printed table.
struct Row {
    problem: String,
    mode: &'static str,
    what: &'static str,
    n: usize,
    tp: f64,
    t1: f64,
    products: usize,
    diff: Option<f64>,
}

struct Ctx {
    comm: Arc<dyn Communicator>,
    p: usize,
    rank0: bool,
    reps: usize,
    threads: usize,
    label: String,
    describe: String,
    records: Vec<Record>,
    rows: Vec<Row>,
}

/// What one case measures.
struct Case<S> {
    /// Record case prefix (`T12_stencil_N256`).
    case: String,
    /// Table text.
    problem: String,
    mode: &'static str,
    size: Vec<(&'static str, usize)>,
    /// Rows per rank for weak scaling (points or basis states), recorded in `extra`.
    per_rank: usize,
    t: S,
    /// |t|, for the records.
    time: f64,
    method: Method,
    expmv: bool,
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let k = times.len();
    if k == 0 {
        f64::NAN
    } else if k % 2 == 1 {
        times[k / 2]
    } else {
        0.5 * (times[k / 2 - 1] + times[k / 2])
    }
}

fn rel_diff<S: Scalar>(a: &[S], b: &[S]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    let (mut num, mut den) = (0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        let d = x.to_c64() - y.to_c64();
        num += d.norm_sqr();
        den += y.to_c64().norm_sqr();
    }
    (num / den).sqrt()
}

impl Ctx {
    fn record<S: Scalar>(&self, case: &Case<S>, what: &str, backend: &str) -> Record {
        let mut r = Record::new(SUITE, &format!("{}/{what}", case.case), backend, S::NAME);
        for &(k, v) in &case.size {
            r = r.size(k, v);
        }
        r = r
            .extra("threads_per_rank", self.threads)
            .extra("ranks_label", self.label.as_str())
            .extra("mpi", self.describe.as_str());
        if case.mode == "weak" {
            r = r.extra("rows_per_rank", case.per_rank);
        }
        r
    }

    /// The distributed record and its single-process twin (backend `cpu`).
    #[allow(clippy::too_many_arguments)]
    fn push<S: Scalar>(
        &mut self,
        case: &Case<S>,
        what: &'static str,
        tp: f64,
        t1: f64,
        reps: usize,
        extra: Vec<(&str, f64)>,
        single_extra: Vec<(&str, f64)>,
        fill: impl Fn(Record, bool) -> Record,
    ) {
        let p = self.p;
        let mut r = self.record(case, what, BACKEND);
        r.time_s = tp;
        r.reps = reps as u64;
        r.other.insert("ranks".into(), p.into());
        r.other.insert("mode".into(), case.mode.into());
        r = r
            .extra("single_s", t1)
            .extra("speedup", t1 / tp)
            .extra("efficiency", t1 / (p as f64 * tp));
        for (k, v) in extra {
            r = r.extra(k, v);
        }
        self.records.push(fill(r, false));
        let mut s = self.record(case, what, "cpu");
        s.time_s = t1;
        s.reps = reps as u64;
        s = s.extra("ranks_in_job", p);
        for (k, v) in single_extra {
            s = s.extra(k, v);
        }
        self.records.push(fill(s, true));
    }

    /// Products and (if the case asks) one expmv, on the ranks and by the single-process
    /// solver on rank 0 (`single` and `v` are `Some` there only).
    fn measure<S, A, O>(
        &mut self,
        case: &Case<S>,
        dist: &D,
        op: &O,
        x: &DVec<S>,
        single: Option<(&A, &Vec<S>)>,
        exact: Option<&dyn Fn() -> Vec<S>>,
    ) -> Res<()>
    where
        S: Scalar,
        A: LinearOperator<CpuBackend, S>,
        O: LinearOperator<D, S>,
    {
        let (one, zero) = (S::from_f64(1.0), S::from_f64(0.0));
        let n = op.nrows();
        let comm = self.comm.clone();
        // Products on the ranks.
        let mut y = dist.zeros::<S>(n)?;
        op.apply(dist, one, x, zero, &mut y)?;
        let mut times = Vec::with_capacity(self.reps);
        for _ in 0..self.reps {
            comm.barrier()?;
            let t0 = Instant::now();
            op.apply(dist, one, x, zero, &mut y)?;
            comm.barrier()?;
            times.push(t0.elapsed().as_secs_f64());
        }
        let tp = median(&mut times);
        drop(y);
        // The same products by the single-process operator on rank 0.
        comm.barrier()?;
        let mut t1 = f64::NAN;
        if let Some((a, v)) = single {
            let mut y = vec![zero; n];
            a.apply(&CpuBackend, one, v, zero, &mut y)?;
            let mut times = Vec::with_capacity(self.reps);
            for _ in 0..self.reps {
                let t0 = Instant::now();
                a.apply(&CpuBackend, one, v, zero, &mut y)?;
                times.push(t0.elapsed().as_secs_f64());
            }
            t1 = median(&mut times);
        }
        comm.barrier()?;
        if self.rank0 {
            let reps = self.reps;
            self.push(case, "product", tp, t1, reps, vec![], vec![], |r, _| r);
            self.row(case, "product", n, tp, t1, 1, None);
        }
        if !case.expmv {
            return Ok(());
        }
        // One expmv on the ranks, then on one process.
        let opts = Options::default().with_method(case.method).with_rtol(TOL);
        let method = format!("{:?}", case.method).to_lowercase();
        let what: &'static str = if case.method == Method::Leja {
            "expmv_leja"
        } else {
            "expmv_lanczos"
        };
        comm.barrier()?;
        let t0 = Instant::now();
        let (w, rep): (DVec<S>, Report) = matexp::expmv(dist, op, case.t, x, &opts)?;
        comm.barrier()?;
        let tp = t0.elapsed().as_secs_f64();
        let w = dist.to_host(&w)?;
        comm.barrier()?;
        if let Some((a, v)) = single {
            let t0 = Instant::now();
            let (w1, rep1) = matexp::expmv(&CpuBackend, a, case.t, v, &opts)?;
            let t1 = t0.elapsed().as_secs_f64();
            let diff = rel_diff(&w, &w1);
            let reference = exact.map(|f| f());
            let (err, err1, reference_name) = match &reference {
                Some(e) => (
                    Some(rel_diff(&w, e)),
                    Some(rel_diff(&w1, e)),
                    "exact separable solution",
                ),
                None => (Some(diff), None, "the single-process solve"),
            };
            let (m, m1) = (rep.matvecs, rep1.matvecs);
            self.push(
                case,
                what,
                tp,
                t1,
                1,
                vec![
                    ("rel_diff_to_single", diff),
                    ("single_matvecs", m1 as f64),
                    ("error_estimate", rep.error_estimate),
                ],
                vec![("error_estimate", rep1.error_estimate)],
                |r, is_single| {
                    let mut r = r
                        .tol(TOL)
                        .matvecs(if is_single { m1 } else { m } as u64)
                        .extra("method", method.as_str())
                        .extra("reference", reference_name)
                        .extra("t", case.time)
                        .extra(
                            "order",
                            "distributed solve first, then the single-process one",
                        );
                    r.error = if is_single { err1 } else { err };
                    r
                },
            );
            self.row(case, what, n, tp, t1, m, Some(diff));
        }
        comm.barrier()?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn row<S>(
        &mut self,
        case: &Case<S>,
        what: &'static str,
        n: usize,
        tp: f64,
        t1: f64,
        products: usize,
        diff: Option<f64>,
    ) {
        let row = Row {
            problem: case.problem.clone(),
            mode: case.mode,
            what,
            n,
            tp,
            t1,
            products,
            diff,
        };
        print_row(self.p, &row);
        self.rows.push(row);
    }
}

fn print_header() {
    println!(
        "| {:<24} | {:<6} | {:>5} | {:<13} | {:>10} | {:>11} | {:>11} | {:>6} | {:>5} | {:>8} | {:>9} |",
        "problem",
        "mode",
        "ranks",
        "measure",
        "n",
        "T_P (ms)",
        "T_1 (ms)",
        "T1/TP",
        "eff.",
        "products",
        "rel.diff."
    );
    println!(
        "| {:-<24} | {:-<6} | {:->5} | {:-<13} | {:->10} | {:->11} | {:->11} | {:->6} | {:->5} | {:->8} | {:->9} |",
        "", "", "", "", "", "", "", "", "", "", ""
    );
}

fn print_row(p: usize, r: &Row) {
    let diff = r.diff.map_or("".to_string(), |d| format!("{d:.1e}"));
    println!(
        "| {:<24} | {:<6} | {:>5} | {:<13} | {:>10} | {:>11.3} | {:>11.3} | {:>6.2} | {:>5.2} | {:>8} | {:>9} |",
        r.problem,
        r.mode,
        p,
        r.what,
        r.n,
        r.tp * 1e3,
        r.t1 * 1e3,
        r.t1 / r.tp,
        r.t1 / (p as f64 * r.tp),
        r.products,
        diff
    );
}

/// Table 12 on the matrix-free stencil at `n³` points.
fn stencil_case(ctx: &mut Ctx, n: usize, mode: &'static str, expmv: bool) -> Res<()> {
    let s = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet)?;
    let op = DistStencil::new(ctx.comm.clone(), &s)?;
    let dist = DistBackend::new(CpuBackend, ctx.comm.clone(), op.layout().clone())?;
    let h = 1.0 / (n + 1) as f64;
    let local: Vec<f64> = dist
        .rows()
        .map(|i| (2.0 * std::f64::consts::PI * ((i % n) + 1) as f64 * h).sin())
        .collect();
    let x = dist.upload_local(&local)?;
    drop(local);
    let v = ctx.rank0.then(|| laplace_initial(n));
    let case = Case {
        case: format!("T12_stencil_N{n}"),
        problem: format!("T12 stencil N={n}"),
        mode,
        size: vec![("n", n * n * n), ("points_per_axis", n)],
        per_rank: n * n * n / ctx.p,
        t: T_HEAT,
        time: T_HEAT,
        method: Method::Leja,
        expmv,
    };
    let exact = move || laplace_reference(n, T_HEAT);
    let single = v.as_ref().map(|v| (&s, v));
    ctx.measure(&case, &dist, &op, &x, single, Some(&exact))
}

/// Table 10's spin bath at `spins` spins as a `DistCsr`, scattered from rank 0.
fn spin_case(ctx: &mut Ctx, spins: usize, mode: &'static str) -> Res<()> {
    let bath = SpinBath::seed000(spins, 1)?;
    let h: Option<CsrMatrix<c64, u32>> = if ctx.rank0 {
        Some(bath.hamiltonian(StoredZeros::Keep)?)
    } else {
        None
    };
    let op = DistCsr::scatter_from_root(ctx.comm.clone(), h.as_ref(), 0)?;
    let dist = DistBackend::new(CpuBackend, ctx.comm.clone(), op.layout().clone())?;
    let psi: Vec<c64> = bath.initial_state(1)?;
    let x = dist.upload(&psi)?;
    let n = bath.dim();
    let case = Case {
        case: format!("T10_spin_bath_L{spins}_t10"),
        problem: format!("T10 spin bath L={spins}"),
        mode,
        size: vec![
            ("n", n),
            ("nnz", bath.stored_nnz(StoredZeros::Keep)),
            ("spins", spins),
        ],
        per_rank: n / ctx.p,
        t: c64::new(0.0, -T_SPIN),
        time: T_SPIN,
        method: Method::Lanczos,
        expmv: true,
    };
    let single = h.as_ref().map(|h| (h, &psi));
    ctx.measure(&case, &dist, &op, &x, single, None)
}

/// One tiny Leja solve at the cases' tolerance and direction on this process: warms the
/// process-wide Leja caches on every rank before anything is timed.
fn warm_leja() -> Res<()> {
    let s = Stencil::<f64>::laplacian(Dim::Three, 8, Boundary::Dirichlet)?;
    let v = laplace_initial(8);
    let opts = Options::default().with_method(Method::Leja).with_rtol(TOL);
    matexp::expmv(&CpuBackend, &s, T_HEAT, &v, &opts)?;
    Ok(())
}

fn main() -> Res<()> {
    let args = parse_args()?;
    let comm: Arc<dyn Communicator> = Arc::new(MpiComm::world()?);
    rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build_global()?;
    let p = comm.size();
    let rank0 = comm.rank() == 0;
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| format!("{p}x{}", args.threads));
    let mut ctx = Ctx {
        comm: comm.clone(),
        p,
        rank0,
        reps: args.reps,
        threads: args.threads,
        label,
        describe: comm.describe(),
        records: Vec::new(),
        rows: Vec::new(),
    };
    if rank0 {
        println!("{} ({})", ctx.describe, ctx.label);
        println!(
            "rayon: {} thread(s) per rank, single-process solver included (a global pool; \
             bind ranks to cores: mpiexec -bind-to core)",
            args.threads
        );
        println!(
            "T_P: {p} ranks, T_1: the single-process solver on rank 0, same problem, same run; \
             T1/TP speedup, eff. = T_1/(P·T_P); products: median of {} after one untimed",
            args.reps
        );
        if p > 1 && !p.is_power_of_two() {
            println!(
                "{p} ranks: not a power of two, the weak spin bath has L = L0 + floor(log2 P), \
                 fewer than 2^L0 rows per rank"
            );
        }
    }
    warm_leja()?;
    comm.barrier()?;
    if rank0 {
        print_header();
    }
    let (n_strong, n_expmv, n_weak0, l_strong, l_weak0) = if args.small {
        (24, 16, 16, 12, 10)
    } else {
        (256, 128, 128, 21, 18)
    };
    let n_expmv = if args.full_expmv { n_strong } else { n_expmv };
    if args.stencil && args.strong {
        stencil_case(&mut ctx, n_strong, "strong", n_expmv == n_strong)?;
        if n_expmv != n_strong {
            stencil_case(&mut ctx, n_expmv, "strong", true)?;
        }
    }
    if args.stencil && args.weak {
        let n = ((n_weak0 as f64) * (p as f64).cbrt()).round() as usize;
        stencil_case(&mut ctx, n.max(p), "weak", true)?;
    }
    if args.spin && args.strong {
        spin_case(&mut ctx, l_strong, "strong")?;
    }
    if args.spin && args.weak {
        spin_case(&mut ctx, l_weak0 + p.ilog2() as usize, "weak")?;
    }
    if rank0 {
        println!();
        print_header();
        for r in &ctx.rows {
            print_row(p, r);
        }
        std::fs::create_dir_all(&args.out)?;
        let path = args.out.join(format!("{SUITE}.jsonl"));
        let mut text = String::new();
        for r in &ctx.records {
            text.push_str(&r.to_value().to_string());
            text.push('\n');
        }
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?
            .write_all(text.as_bytes())?;
        println!(
            "records: {} ({} appended)",
            path.display(),
            ctx.records.len()
        );
    }
    comm.barrier()?;
    Ok(())
}
