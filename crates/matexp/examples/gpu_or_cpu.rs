//! The GPU end to end with the CPU as fallback, chosen at run time:
//!
//! ```sh
//! cargo run -p matexp --features gpu --example gpu_or_cpu -- [cpu|gpu|gpu:N] [matrix.mtx]
//! ```
//!
//! Without a device argument the GPU is used when one exists, the CPU otherwise.

use matexp::sparse::generators::laplacian_3d;
use matexp::{AnyBackend, CsrMatrix, Options, Target, read_matrix_market};

fn main() -> matexp::Result<()> {
    let mut args = std::env::args().skip(1);
    let device = match args.next() {
        Some(d) => d.parse()?,
        None => Target::best_available(),
    };
    let a: CsrMatrix<f64> = match args.next() {
        Some(path) => read_matrix_market(path)?,
        None => laplacian_3d(32)?,
    };
    let backend = match AnyBackend::new(device) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}; falling back to the CPU");
            AnyBackend::new(Target::Cpu)?
        }
    };
    let v = vec![1.0; a.nrows()];
    let (w, report) = backend.expmv(&a, 1e-3, &v, &Options::default())?;
    let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
    println!("{}: n = {}, ‖w‖₂ = {norm:.6e}", backend.target(), a.nrows());
    println!("{report}");
    Ok(())
}
