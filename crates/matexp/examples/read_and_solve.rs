//! Read a MatrixMarket file and compute w = e^{tA}v with v = 1 on the CPU.
//!
//! ```sh
//! cargo run -p matexp --example read_and_solve -- matrix.mtx 0.01
//! ```
//!
//! Without arguments it writes a 2D Laplacian to a temporary file and reads that.

use matexp::sparse::generators::laplacian_2d;
use matexp::sparse::matrix_market::{Symmetry, write_csr_file};
use matexp::{CpuBackend, CsrMatrix, Options, expmv, read_matrix_market};

fn main() -> matexp::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let p = std::env::temp_dir().join("matexp-example-laplacian.mtx");
            let a: CsrMatrix<f64> = laplacian_2d(50)?;
            write_csr_file(&p, &a, Symmetry::Symmetric, &["2D Laplacian, N = 50"])?;
            p
        }
    };
    let t: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1e-3);

    let a: CsrMatrix<f64> = read_matrix_market(&path)?;
    let v = vec![1.0; a.nrows()];
    let (w, report) = expmv(&CpuBackend::new(), &a, t, &v, &Options::default())?;

    let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
    println!("{}: n = {}, nnz = {}", path.display(), a.nrows(), a.nnz());
    println!("‖e^(tA)·1‖₂ = {norm:.6e} at t = {t}");
    println!("{report}");
    Ok(())
}
