//! Under `mpiexec -n P`: the distributed engine over MPI against the single-process solver.
//! Every f(tA)v method on a DistCsr, a DistStencil and a DistFock, one exponential-Euler step
//! on the stencil with its Dirichlet data, and the total communicability of a graph; each
//! result, gathered to every rank, must be within 1e-13 (relative) of the single-process one.
//! Rank 0 prints a table; the exit status is non-zero on any miss (on every rank).
//!
//! `cargo build -p matexp-dist --features mpi --example mpi_check && mpiexec -n 4 target/debug/examples/mpi_check`

#[path = "../tests/common/mod.rs"]
mod common;

use matexp::{Method, Options};
use matexp_core::{Backend, CpuBackend, LinearOperator, Result};
use matexp_dist::comm::{Communicator, MpiComm};
use matexp_dist::{DistBackend, DistCsr, DistFock, DistStencil};
use matexp_expmv::Tolerance;
use matexp_fock::{BoseHubbard, Coupling, FockBasis};
use matexp_integrators::expint::{ExpIntOptions, ExpIntegrator, Nonlinearity, Scheme, Stepping};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_2d;
use matexp_stencil::{Boundary, BoundaryFunction, Dim, Stencil};
use std::sync::Arc;

/// The bound every row of the table must meet.
const TOL: f64 = 1e-13;

type D = DistBackend<CpuBackend>;

/// The rows of the table, and whether all met [`TOL`].
struct Table {
    rank0: bool,
    worst: f64,
    rows: usize,
}

impl Table {
    fn row(&mut self, operator: &str, what: &str, products: usize, got: &[f64], want: &[f64]) {
        let e = if got.len() == want.len() {
            common::rel(got, want)
        } else {
            f64::INFINITY
        };
        self.worst = self.worst.max(if e.is_nan() { f64::INFINITY } else { e });
        self.rows += 1;
        if self.rank0 {
            let verdict = if e <= TOL { "ok" } else { "MISS" };
            println!("| {operator:<28} | {what:<16} | {products:>8} | {e:>10.2e} | {verdict:<4} |");
        }
    }
}

/// `expmv` by every method on one process and on the ranks, one table row each.
fn every_method<A, O>(
    table: &mut Table,
    name: &str,
    single: &A,
    dist: &D,
    op: &O,
    t: f64,
    v: &[f64],
) -> Result<()>
where
    A: LinearOperator<CpuBackend, f64>,
    O: LinearOperator<D, f64>,
{
    let x = dist.upload(v)?;
    for m in [
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
        Method::Auto,
    ] {
        if m == Method::Lanczos && !single.is_hermitian() {
            continue;
        }
        let opts = Options::default().with_method(m).with_rtol(1e-12);
        let (w1, _) = matexp::expmv(&CpuBackend, single, t, &v.to_vec(), &opts)?;
        let (w, rep) = matexp::expmv(dist, op, t, &x, &opts)?;
        table.row(
            name,
            &format!("{m:?}"),
            rep.matvecs,
            &dist.to_host(&w)?,
            &w1,
        );
    }
    Ok(())
}

/// g = b, the stencil's Dirichlet data, on the whole vector (one process).
struct Data<'a>(&'a [f64]);
impl Nonlinearity<CpuBackend, f64> for Data<'_> {
    fn eval(&self, _: &CpuBackend, _: f64, _: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
        out.copy_from_slice(self.0);
        Ok(())
    }
    fn is_autonomous(&self) -> bool {
        true
    }
}
impl Nonlinearity<D, f64> for Data<'_> {
    fn eval(
        &self,
        _: &D,
        _: f64,
        _: &<D as Backend>::Vector<f64>,
        out: &mut <D as Backend>::Vector<f64>,
    ) -> Result<()> {
        out.local_mut().copy_from_slice(self.0);
        Ok(())
    }
    fn is_autonomous(&self) -> bool {
        true
    }
}

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect()
}

fn main() -> Result<()> {
    let comm = Arc::new(MpiComm::world()?);
    let mut table = Table {
        rank0: comm.rank() == 0,
        worst: 0.0,
        rows: 0,
    };
    if table.rank0 {
        println!("{}", comm.describe());
        println!(
            "| operator                     | method           | products | rel. diff. | ok   |"
        );
        println!(
            "| ---------------------------- | ---------------- | -------: | ---------: | ---- |"
        );
    }

    // CSR: the 2D Laplacian on 16 × 16 points.
    let a = laplacian_2d::<f64, u32>(16)?;
    let op = DistCsr::from_global(comm.clone(), &a)?;
    let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
    every_method(
        &mut table,
        "csr laplacian 16x16",
        &a,
        &dist,
        &op,
        2e-3,
        &start(a.nrows()),
    )?;

    // Stencils: 3D Dirichlet with boundary data, 2D periodic.
    let s3 = Stencil::<f64>::builder(Dim::Three, 8)
        .boundary(Boundary::Dirichlet)
        .boundary_values(BoundaryFunction::Polynomial)
        .build()?;
    let s2 = Stencil::<f64>::laplacian(Dim::Two, 12, Boundary::Periodic)?;
    for (name, s, t) in [
        ("stencil 3D dirichlet 8^3", &s3, 3e-3),
        ("stencil 2D periodic 12^2", &s2, 2e-3),
    ] {
        let op = DistStencil::new(comm.clone(), s)?;
        let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
        every_method(&mut table, name, s, &dist, &op, t, &start(s.grid().len()))?;
    }

    // Bose–Hubbard: N = 5 bosons on M = 5 sites (126 states), periodic, imaginary time.
    let h = BoseHubbard::new(FockBasis::new(5, 5)?)
        .with_boundary(matexp_fock::Boundary::Periodic)?
        .with_hopping(Coupling::function(|_, k| 1.0 + 0.1 * k as f64))?
        .with_interaction(Coupling::Uniform(2.0))?;
    let op = DistFock::new(comm.clone(), &h, 0.0)?;
    let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
    let frozen = h.at(0.0)?;
    let dim = h.basis().len()?;
    every_method(
        &mut table,
        "fock M=N=5 periodic",
        &frozen,
        &dist,
        &op,
        -0.2,
        &start(dim),
    )?;

    // One exponential-Euler step of u' = A u + b on the 3D stencil.
    let n = s3.grid().len();
    let b = s3.affine_term().expect("Dirichlet data").to_vec();
    let opts = ExpIntOptions {
        scheme: Scheme::ExponentialEuler,
        stepping: Stepping::Fixed { steps: 1 },
        tol: Tolerance::relative(1e-12),
        ..Default::default()
    };
    let u0 = start(n);
    let mut want = u0.clone();
    ExpIntegrator::new(&CpuBackend, n, opts)?.integrate(&s3, &Data(&b), 0.0, 5e-3, &mut want)?;
    let op = DistStencil::new(comm.clone(), &s3)?;
    let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
    let mut u = dist.upload(&u0)?;
    let g = Data(op.affine_term_local().expect("Dirichlet data"));
    let rep = ExpIntegrator::new(&dist, n, opts)?.integrate(&op, &g, 0.0, 5e-3, &mut u)?;
    table.row(
        "stencil 3D dirichlet 8^3",
        "exp. Euler step",
        rep.matvecs,
        &dist.to_host(&u)?,
        &want,
    );

    // Total communicability of the 12 × 12 grid graph.
    let l = laplacian_2d::<f64, u32>(12)?;
    let mut trip = Vec::new();
    for i in 0..l.nrows() {
        let cols = l.row(i).0.iter().filter(|&&c| c as usize != i);
        trip.extend(cols.map(|&c| (i, c as usize, 1.0)));
    }
    let graph: CsrMatrix<f64> = CsrMatrix::from_triplets(l.nrows(), l.ncols(), &trip)?;
    let copts = matexp_graph::CommunicabilityOptions::default();
    let (want, _) = matexp_graph::total_communicability(&CpuBackend, &graph, 0.5, &copts)?;
    let op = DistCsr::from_global(comm.clone(), &graph)?;
    let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
    let (w, rep) = matexp_graph::total_communicability(&dist, &op, 0.5, &copts)?;
    table.row(
        "csr grid graph 12x12",
        "communicability",
        rep.matvecs,
        &dist.to_host(&w)?,
        &want,
    );

    let all = comm.allgather(&[table.worst])?;
    let worst = all.iter().map(|p| p[0]).fold(0.0, f64::max);
    if table.rank0 {
        println!(
            "{} ranks, {} rows: worst relative difference {worst:.2e} (bound {TOL:e})",
            comm.size(),
            table.rows
        );
    }
    if worst > TOL {
        std::process::exit(1);
    }
    Ok(())
}
