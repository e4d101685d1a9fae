//! The products and wall time of every method on a few problems, the measurements behind
//! `Method::Auto`. Products do not depend on the machine; times do.
//!
//! ```text
//! cargo run -p matexp --release --example choose_method -- [--small]
//! ```
//!
//! Heavy: every method on four problems, some 40 s in a debug build (run it in release for
//! the times); `--small` (the same problems at a quarter of the unknowns or fewer) finishes
//! in a debug build in well under a minute.

use matexp::sparse::generators::{laplacian_2d, laplacian_3d};
use matexp::{CpuBackend, CsrMatrix, Method, Options, expmv, phimv};
use std::time::Instant;

fn convection_diffusion(n: usize, peclet: f64) -> matexp::Result<CsrMatrix<f64>> {
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
    CsrMatrix::try_new(n, n, rp, ci, vals)
}

fn main() -> matexp::Result<()> {
    let cpu = CpuBackend::new();
    // Grid points per axis of the 3D and 2D Laplacians, and unknowns of convection–diffusion.
    let small = std::env::args().any(|a| a == "--small");
    let (n3, n2, n1) = if small { (12, 32, 500) } else { (24, 64, 2000) };
    let problems: Vec<(String, CsrMatrix<f64>, f64)> = vec![
        (
            format!("3D Laplacian N={n3}, t=1e-3 (Hermitian)"),
            laplacian_3d(n3)?,
            1e-3,
        ),
        (
            format!("2D Laplacian N={n2}, t=1e-3 (Hermitian)"),
            laplacian_2d(n2)?,
            1e-3,
        ),
        (
            format!("convection-diffusion n={n1}, Pe=10, t=1e-4"),
            convection_diffusion(n1, 10.0)?,
            1e-4,
        ),
        (
            format!("convection-diffusion n={n1}, Pe=1000, t=1e-4"),
            convection_diffusion(n1, 1000.0)?,
            1e-4,
        ),
    ];
    println!("| problem | f | method | products | time | est. rel. error |");
    println!("|---|---|---|---|---|---|");
    for (name, a, t) in &problems {
        let v: Vec<f64> = (0..a.nrows()).map(|i| 1.0 + (i as f64).sin()).collect();
        for method in Method::ALL {
            for k in [0usize, 1] {
                let opts = Options::default().with_method(method).with_rtol(1e-8);
                let start = Instant::now();
                let r = if k == 0 {
                    expmv(&cpu, a, *t, &v, &opts).map(|x| x.1)
                } else {
                    phimv(&cpu, a, *t, &v, 1, &opts).map(|x| x.1)
                };
                let secs = start.elapsed().as_secs_f64();
                let f = if k == 0 { "exp" } else { "φ₀,φ₁" };
                match r {
                    Ok(r) => println!(
                        "| {name} | {f} | {method} | {} | {:.1} ms | {:.1e} |",
                        r.matvecs,
                        secs * 1e3,
                        r.rel_error_estimate
                    ),
                    Err(e) => println!("| {name} | {f} | {method} | — | — | {e} |"),
                }
            }
        }
    }
    Ok(())
}
