//! Second-order convergence of the 3D Laplacian with inhomogeneous Dirichlet data.
//!
//! Solves `Δu = f` on the unit cube with `u = g` on the boundary, for the manufactured
//! solution `u* = sin(πz)·e^{−xy}` (seed 003's second boundary function), by conjugate
//! gradients on the matrix-free operator: the discrete problem is `A u + b = f` with `b` the
//! stencil's affine term. Prints the max-norm error and the observed order per refinement.
//!
//! ```text
//! cargo run -p matexp-stencil --release --example convergence
//! ```

use matexp_core::{CpuBackend, LinearOperator, Result};
use matexp_stencil::{BoundaryFunction, Dim, Stencil};
use std::f64::consts::PI;

/// Solves `A u = rhs` by CG on `−A` (symmetric positive definite), relative residual 1e-12.
fn solve(op: &Stencil<f64>, rhs: &[f64]) -> Result<(Vec<f64>, usize)> {
    let n = rhs.len();
    let mut u = vec![0.0; n];
    let mut r: Vec<f64> = rhs.iter().map(|v| -v).collect();
    let mut p = r.clone();
    let mut ap = vec![0.0; n];
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    let stop = rr * 1e-24;
    for it in 0..10 * n {
        op.apply(&CpuBackend, -1.0, &p, 0.0, &mut ap)?;
        let a = rr / p.iter().zip(&ap).map(|(x, y)| x * y).sum::<f64>();
        for i in 0..n {
            u[i] += a * p[i];
            r[i] -= a * ap[i];
        }
        let rr_new: f64 = r.iter().map(|v| v * v).sum();
        if rr_new < stop {
            return Ok((u, it + 1));
        }
        for i in 0..n {
            p[i] = r[i] + rr_new / rr * p[i];
        }
        rr = rr_new;
    }
    Ok((u, 10 * n))
}

fn main() -> Result<()> {
    println!(
        "{:>5} {:>10} {:>12} {:>6} {:>6}",
        "N", "h", "max error", "order", "CG"
    );
    let mut last: Option<f64> = None;
    for n in [7, 15, 31, 63] {
        let op = Stencil::<f64>::builder(Dim::Three, n)
            .boundary_values(BoundaryFunction::SineExp)
            .build()?;
        let g = *op.grid();
        let exact: Vec<f64> = (0..g.len())
            .map(|i| BoundaryFunction::SineExp.eval(g.point(i)))
            .collect();
        let b = op.affine_term().unwrap_or(&[]);
        let rhs: Vec<f64> = (0..g.len())
            .map(|i| {
                let [x, y, _] = g.point(i);
                (x * x + y * y - PI * PI) * exact[i] - b[i]
            })
            .collect();
        let (u, iterations) = solve(&op, &rhs)?;
        let err = u
            .iter()
            .zip(&exact)
            .map(|(a, e)| (a - e).abs())
            .fold(0.0, f64::max);
        let order = last.map_or("-".to_string(), |e| format!("{:.2}", (e / err).log2()));
        println!(
            "{n:>5} {:>10.6} {err:>12.3e} {order:>6} {iterations:>6}",
            g.h()
        );
        last = Some(err);
    }
    Ok(())
}
