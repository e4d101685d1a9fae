//! Under `mpiexec -n P`: every f(tA)v method on a DistCsr over MPI equals the
//! single-process solver to 1e-13 relative (rank 0 reports). Exits non-zero on a mismatch.
//!
//! `cargo build -p matexp-dist --features mpi --example mpi_check && mpiexec -n 4 target/debug/examples/mpi_check`

use matexp::{Method, Options};
use matexp_core::{Backend, CpuBackend};
use matexp_dist::comm::{Communicator, MpiComm};
use matexp_dist::{DistBackend, DistCsr};
use matexp_sparse::generators::laplacian_2d;
use std::sync::Arc;

fn main() -> Result<(), matexp_core::Error> {
    let comm = Arc::new(MpiComm::world()?);
    let a = laplacian_2d::<f64, u32>(16)?;
    let v: Vec<f64> = (0..a.nrows())
        .map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0)
        .collect();
    let op = DistCsr::from_global(comm.clone(), &a)?;
    let dist = DistBackend::new(CpuBackend, comm.clone(), op.layout().clone())?;
    let x = dist.upload(&v)?;
    let mut worst = 0.0f64;
    for m in [
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
    ] {
        let opts = Options::default().with_method(m).with_rtol(1e-12);
        let (w1, _) = matexp::expmv(&CpuBackend, &a, 2e-3, &v, &opts)?;
        let (w, rep) = matexp::expmv(&dist, &op, 2e-3, &x, &opts)?;
        let w = dist.to_host(&w)?;
        let num: f64 = w
            .iter()
            .zip(&w1)
            .map(|(p, q)| (p - q) * (p - q))
            .sum::<f64>()
            .sqrt();
        let den: f64 = w1.iter().map(|q| q * q).sum::<f64>().sqrt();
        worst = worst.max(num / den);
        if comm.rank() == 0 {
            println!(
                "{m:?}: rel. difference {:.2e}, {} products",
                num / den,
                rep.matvecs
            );
        }
    }
    if comm.rank() == 0 {
        println!("{}: worst {worst:.2e}", comm.describe());
    }
    if worst > 1e-13 {
        std::process::exit(1);
    }
    Ok(())
}
