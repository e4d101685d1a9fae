//! Under `mpiexec -n P`: the per-rank memory planner ([`matexp_dist::plan`]) against the
//! measured peak of each rank, for five configurations of operator and method.
//!
//! Each rank's peak is its resident set's high-water mark (`VmHWM` of `/proc/self/status`,
//! reset through `/proc/self/clear_refs` once the operator is built) less its resident set
//! before the operator was built: the operator's storage and ghost plan, the method's vectors
//! (input and output included) and whatever else the solve touches. The global inputs (the
//! whole CSR matrix every rank reads its rows from, the model) are made before and are not
//! part of either figure. Rank 0 prints, per configuration, the planned and the measured
//! peak of the rank with the largest measured peak and their ratio; the exit status is
//! non-zero when a measured peak exceeds its plan by more than 10 %.
//!
//! ```sh
//! cargo build --release -p matexp-dist --features mpi --example dist_memory
//! MALLOC_MMAP_THRESHOLD_=65536 RAYON_NUM_THREADS=1 \
//!     mpiexec -n 4 target/release/examples/dist_memory [--small] [--verbose]
//! ```
//!
//! `MALLOC_MMAP_THRESHOLD_` fixes glibc's threshold for mapping large blocks: without it the
//! threshold rises after the first large block is freed, later vectors come from the heap,
//! and memory freed by one configuration is counted as resident before the next. `--small`
//! runs in seconds (too small for the figures to mean much); `--verbose` prints each rank's
//! operator storage as built beside its plan.
//!
//! Linux only (it reads `/proc`).

use matexp::{Method as Facade, Options};
use matexp_core::{CpuBackend, Error, Result};
use matexp_dist::comm::{Communicator, MpiComm};
use matexp_dist::{DistBackend, DistCsr, DistFock, DistStencil, LocalStorage};
use matexp_expmv::plan::Method;
use matexp_fock::{BoseHubbard, Coupling, FockBasis};
use matexp_sparse::generators::laplacian_2d;
use matexp_stencil::{Boundary, Dim, Stencil};
use std::sync::Arc;

/// How far a measured peak may exceed its plan.
const SLACK: f64 = 1.10;

/// A line of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`; the file gives kB).
fn status_bytes(key: &str) -> Result<u64> {
    let text = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| Error::invalid("/proc/self/status", "", e.to_string()))?;
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| Error::invalid("/proc/self/status", key, "no such line"))
}

/// Resets the resident set's high-water mark to the present resident set.
fn reset_peak() -> Result<()> {
    std::fs::write("/proc/self/clear_refs", "5")
        .map_err(|e| Error::invalid("/proc/self/clear_refs", "5", e.to_string()))
}

/// One configuration's verdict, printed by rank 0.
struct Row {
    name: &'static str,
    planned: u64,
    measured: u64,
}

/// Measures `solve` on `op`: the planned and measured peak of the rank whose measured peak
/// is largest. `build` makes the operator (its storage counts), `solve` runs the method.
fn measure<O: LocalStorage, S: matexp_core::Scalar>(
    comm: &Arc<MpiComm>,
    name: &'static str,
    method: Method,
    build: impl FnOnce() -> Result<O>,
    solve: impl FnOnce(&O) -> Result<usize>,
) -> Result<(Row, usize)> {
    comm.barrier_like()?;
    let before = status_bytes("VmRSS")?;
    let op = build()?;
    let plan = matexp_dist::plan::<S>(&op, method, u64::MAX)?;
    let built = status_bytes("VmRSS")?.saturating_sub(before);
    if std::env::args().any(|a| a == "--verbose") {
        eprintln!(
            "rank {} {name}: operator built {:.1} MB (planned {:.1} MB), vectors planned {:.1} MB",
            comm.rank(),
            built as f64 / 1e6,
            plan.operator_bytes as f64 / 1e6,
            plan.vector_bytes() as f64 / 1e6
        );
    }
    reset_peak()?;
    let products = solve(&op)?;
    let measured = status_bytes("VmHWM")?.saturating_sub(before);
    let all = comm.allgather(&[measured as f64, plan.peak_bytes() as f64])?;
    let worst = all
        .iter()
        .max_by(|a, b| a[0].total_cmp(&b[0]))
        .cloned()
        .unwrap_or_default();
    drop(op);
    Ok((
        Row {
            name,
            planned: worst[1] as u64,
            measured: worst[0] as u64,
        },
        products,
    ))
}

/// A barrier from an all-gather, so that the ranks start each configuration together.
trait BarrierLike {
    fn barrier_like(&self) -> Result<()>;
}
impl BarrierLike for Arc<MpiComm> {
    fn barrier_like(&self) -> Result<()> {
        self.allgather(&[0.0]).map(|_| ())
    }
}

/// `expmv` by `method` of the facade on `op` over `comm`, from this rank's rows of a fixed
/// start vector (made in place: no global copy); the products it took.
fn expmv<O>(
    comm: &Arc<MpiComm>,
    op: &O,
    layout: &matexp_dist::RowLayout,
    method: Facade,
    t: f64,
) -> Result<usize>
where
    O: matexp_core::LinearOperator<DistBackend<CpuBackend>, f64>,
{
    let dist = DistBackend::new(CpuBackend, comm.clone(), layout.clone())?;
    let block: Vec<f64> = layout
        .range(comm.rank())
        .map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0)
        .collect();
    let x = dist.from_local(block)?;
    let opts = Options::default().with_method(method).with_rtol(1e-8);
    let (_w, rep) = matexp::expmv(&dist, op, t, &x, &opts)?;
    Ok(rep.matvecs)
}

fn main() -> Result<()> {
    let small = std::env::args().any(|a| a == "--small");
    let comm = Arc::new(MpiComm::world()?);
    let rank0 = comm.rank() == 0;
    // Sizes whose vectors and operators are tens of megabytes per rank, so that what the
    // plan leaves out (allocator slack, message buffers) is small beside them.
    let (n2, n3, bosons) = if small { (256, 32, 8) } else { (2048, 160, 12) };
    let mut rows = Vec::new();
    let mut products = Vec::new();

    let a = laplacian_2d::<f64, u32>(n2)?;
    let h2 = 1.0 / (n2 as f64 + 1.0);
    for (name, facade, method) in [
        (
            "csr 2D laplacian, leja",
            Facade::Leja,
            Method::Leja { conjugate: false },
        ),
        ("csr 2D laplacian, taylor", Facade::Taylor, Method::Taylor),
    ] {
        let (row, k) = measure::<_, f64>(
            &comm,
            name,
            method,
            || DistCsr::from_global(comm.clone(), &a),
            |op| expmv(&comm, op, op.layout(), facade, 2.0 * h2 * h2),
        )?;
        rows.push(row);
        products.push(k);
    }
    drop(a);

    let s = Stencil::<f64>::laplacian(Dim::Three, n3, Boundary::Dirichlet)?;
    let h3 = 1.0 / (n3 as f64 + 1.0);
    for (name, facade, method) in [
        (
            "stencil 3D dirichlet, leja",
            Facade::Leja,
            Method::Leja { conjugate: false },
        ),
        (
            "stencil 3D dirichlet, taylor",
            Facade::Taylor,
            Method::Taylor,
        ),
    ] {
        let (row, k) = measure::<_, f64>(
            &comm,
            name,
            method,
            || DistStencil::new(comm.clone(), &s),
            |op| expmv(&comm, op, op.layout(), facade, 2.0 * h3 * h3),
        )?;
        rows.push(row);
        products.push(k);
    }
    drop(s);

    let h = BoseHubbard::new(FockBasis::new(bosons, bosons)?)
        .with_boundary(matexp_fock::Boundary::Periodic)?
        .with_hopping(Coupling::Uniform(1.0))?
        .with_interaction(Coupling::Uniform(2.0))?;
    let (row, k) = measure::<_, f64>(
        &comm,
        "fock periodic, leja (imaginary t)",
        Method::Leja { conjugate: false },
        || DistFock::new(comm.clone(), &h, 0.0),
        |op| expmv(&comm, op, op.layout(), Facade::Leja, -0.1),
    )?;
    rows.push(row);
    products.push(k);

    let mut worst: f64 = 0.0;
    if rank0 {
        println!("{} ({} ranks)", comm.describe(), comm.size());
        println!("| configuration | products | planned MB | measured MB | measured / planned |");
        println!("| --- | ---: | ---: | ---: | ---: |");
    }
    for (r, k) in rows.iter().zip(&products) {
        let ratio = r.measured as f64 / r.planned as f64;
        worst = worst.max(ratio);
        if rank0 {
            println!(
                "| {} | {k} | {:.1} | {:.1} | {ratio:.3} |",
                r.name,
                r.planned as f64 / 1e6,
                r.measured as f64 / 1e6
            );
        }
    }
    if worst > SLACK {
        if rank0 {
            eprintln!("a measured peak exceeds its plan by more than 10 % ({worst:.3})");
        }
        std::process::exit(1);
    }
    Ok(())
}
