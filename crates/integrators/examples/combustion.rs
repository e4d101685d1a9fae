//! Seed 003's combustion problem (`examples/support/combustion.rs`) on the CPU backend:
//!
//! 1. Table IV: one exponential-Euler step, h = 10⁻⁴, φ-tolerance 10⁻⁴, in f64 and f32, with
//!    time, products and the error against the same step at tolerance 10⁻¹² (f64);
//! 2. the run to t = 0.1 with the adaptive exponential Rosenbrock and EPIRK schemes at
//!    tolerance 10⁻⁶, against exprb43 at 10⁻¹⁰, and the centre temperature u(½,½,½; t).
//!
//! Heavy: minutes in a release build at the default n = 48; `--small` (n = 12, t = 0.002)
//! finishes in a debug build in well under a minute.
//!
//! ```text
//! cargo run --release -p matexp-integrators --example combustion -- [--n 48] [--t 0.1] [--small] [--out DIR]
//! ```
//! (n points per axis; the seed's n = 256 runs on the GPU in the `gpu_expint` bench suite.)
//! Writes combustion_{table4,adaptive,centre}.csv and combustion_centre.svg to DIR (default
//! target/plots; the committed figures are refreshed with `--out bench-results/plots`).

#[path = "support/combustion.rs"]
mod combustion;
#[path = "support/plot.rs"]
mod plot;

use combustion::{Combustion, initial, rel_diff};
use matexp_core::{CpuBackend, RealScalar};
use matexp_expmv::Tolerance;
use matexp_integrators::expint::{ExpIntOptions, ExpIntegrator, PhiMethod, Scheme, Stepping};
use matexp_stencil::{Boundary, Dim, Stencil};
use plot::{Plot, Scale, Series, arg, out_dir, small, write_csv};
use std::time::Instant;

/// One exponential-Euler step of size h at φ-tolerance `tol`: (result, seconds, products).
fn euler_step<S: RealScalar>(
    n: usize,
    h: f64,
    tol: f64,
) -> Result<(Vec<S>, f64, usize), matexp_core::Error> {
    let cpu = CpuBackend::new();
    let a = Stencil::<S>::laplacian(Dim::Three, n, Boundary::Dirichlet)?;
    let opts = ExpIntOptions {
        scheme: Scheme::ExponentialEuler,
        phi: PhiMethod::Leja,
        tol: Tolerance::new(tol, 0.0),
        phi_tol: Some(Tolerance::new(tol, 0.0)),
        stepping: Stepping::Fixed { steps: 1 },
        ..Default::default()
    };
    let mut integ = ExpIntegrator::new(&cpu, n * n * n, opts)?;
    // The second of two runs: the first builds the Leja tables.
    let mut w = initial::<S>(n);
    integ.integrate(&a, &Combustion, 0.0, h, &mut w)?;
    let mut w = initial::<S>(n);
    let clock = Instant::now();
    let rep = integ.integrate(&a, &Combustion, 0.0, h, &mut w)?;
    Ok((w, clock.elapsed().as_secs_f64(), rep.matvecs))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (n, t_end) = if small() { (12, 0.002) } else { (48, 0.1) };
    let n: usize = arg("--n", n);
    let t_end: f64 = arg("--t", t_end);
    let dir = out_dir();

    // Table IV.
    let h = 1e-4;
    let (reference, _, ref_products) = euler_step::<f64>(n, h, 1e-12)?;
    let (w64, t64, p64) = euler_step::<f64>(n, h, 1e-4)?;
    let (w32, t32, p32) = euler_step::<f32>(n, h, 1e-4)?;
    let (e64, e32) = (rel_diff(&w64, &reference), rel_diff(&w32, &reference));
    println!(
        "Table IV, n = {n}³: one exponential-Euler step, h = {h:e}, tol 1e-4 (reference: tol 1e-12, {ref_products} products)"
    );
    println!("  f64: {t64:.3} s, {p64} products, relative error {e64:.3e}");
    println!("  f32: {t32:.3} s, {p32} products, relative error {e32:.3e}");
    write_csv(
        &dir.join("combustion_table4.csv"),
        "n,precision_bits,time_s,products,relative_error",
        &[
            vec![n as f64, 64.0, t64, p64 as f64, e64],
            vec![n as f64, 32.0, t32, p32 as f64, e32],
        ],
    )?;

    // The adaptive run to t_end, and the centre temperature of the reference.
    let cpu = CpuBackend::new();
    let a = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet)?;
    let len = n * n * n;
    let centre = (n / 2) + n * (n / 2) + n * n * (n / 2);
    let run = |scheme: Scheme,
               rtol: f64|
     -> Result<
        (Vec<f64>, f64, matexp_integrators::expint::ExpIntReport),
        matexp_core::Error,
    > {
        let opts = ExpIntOptions {
            scheme,
            tol: Tolerance::new(rtol, 0.0),
            stepping: Stepping::Adaptive {
                h0: Some(1e-4),
                h_min: 1e-12,
                h_max: 1.0,
            },
            ..Default::default()
        };
        let mut integ = ExpIntegrator::new(&cpu, len, opts)?;
        let mut w = initial::<f64>(n);
        let clock = Instant::now();
        let rep = integ.integrate(&a, &Combustion, 0.0, t_end, &mut w)?;
        Ok((w, clock.elapsed().as_secs_f64(), rep))
    };
    let (wref, tref, rref) = run(Scheme::Exprb43, 1e-10)?;
    println!(
        "adaptive to t = {t_end}: reference exprb43 rtol 1e-10: {tref:.2} s, {} steps, {} products",
        rref.steps, rref.matvecs
    );
    let mut rows = Vec::new();
    for (k, scheme) in [Scheme::Exprb32, Scheme::Exprb43, Scheme::Epirk4s3]
        .into_iter()
        .enumerate()
    {
        let (w, secs, rep) = run(scheme, 1e-6)?;
        let e = rel_diff(&w, &wref);
        println!(
            "  {:<9} rtol 1e-6: {secs:.2} s, {} steps ({} rejected), {} φ-calls, {} products, relative error {e:.3e}",
            scheme.name(),
            rep.steps,
            rep.rejected,
            rep.phi_calls,
            rep.matvecs
        );
        rows.push(vec![
            k as f64,
            secs,
            rep.steps as f64,
            rep.rejected as f64,
            rep.matvecs as f64,
            e,
        ]);
    }
    write_csv(
        &dir.join("combustion_adaptive.csv"),
        "scheme(0=exprb32;1=exprb43;2=epirk4s3),time_s,steps,rejected,products,relative_error_vs_exprb43_1e-10",
        &rows,
    )?;

    // Centre temperature over time (exprb43 at 1e-8, output every t_end/40).
    let opts = ExpIntOptions {
        scheme: Scheme::Exprb43,
        tol: Tolerance::new(1e-8, 0.0),
        ..Default::default()
    };
    let mut integ = ExpIntegrator::new(&cpu, len, opts)?;
    let mut w = initial::<f64>(n);
    let mut curve = vec![(0.0, 1.0 + w[centre])];
    for k in 0..40 {
        let (t0, t1) = (t_end * k as f64 / 40.0, t_end * (k + 1) as f64 / 40.0);
        integ.integrate(&a, &Combustion, t0, t1, &mut w)?;
        curve.push((t1, 1.0 + w[centre]));
    }
    write_csv(
        &dir.join("combustion_centre.csv"),
        "t,u_centre",
        &curve.iter().map(|&(t, u)| vec![t, u]).collect::<Vec<_>>(),
    )?;
    let title = format!("Combustion, n = {n}³: temperature at the centre of the cube");
    Plot {
        title: &title,
        x_label: "t",
        y_label: "u(1/2, 1/2, 1/2)",
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![Series {
            label: "exprb43, rtol 1e-8",
            points: curve,
            color: "#d62728",
        }],
    }
    .write_svg(&dir.join("combustion_centre.svg"))?;
    println!("wrote {}", dir.join("combustion_*.{csv,svg}").display());
    Ok(())
}
