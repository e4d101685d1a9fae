//! The heat equation u' = Au on a 1D grid at several output times, SciPy style
//! (`linspace(start, stop, num)`), in one march: each output costs only the steps from the
//! previous one.

use matexp::sparse::generators::laplacian_1d;
use matexp::{CpuBackend, CsrMatrix, Options, TimeGrid, expmv_times};

fn main() -> matexp::Result<()> {
    let n = 200;
    let a: CsrMatrix<f64> = laplacian_1d(n)?;
    // A hat function as the initial temperature.
    let u0: Vec<f64> = (0..n)
        .map(|i| if (80..120).contains(&i) { 1.0 } else { 0.0 })
        .collect();
    let grid = TimeGrid::linspace(0.0, 0.02, 5);
    let (us, report) = expmv_times(&CpuBackend::new(), &a, &grid, &u0, &Options::default())?;
    for (u, t) in us.iter().zip(grid.iter()) {
        let peak = u.iter().cloned().fold(0.0, f64::max);
        let heat: f64 = u.iter().sum::<f64>() / (n + 1) as f64;
        println!("t = {t:.4}: peak {peak:.4}, total heat {heat:.4}");
    }
    println!("{report}");
    Ok(())
}
