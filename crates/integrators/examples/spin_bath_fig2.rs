//! Seed 000 Figure 2: ⟨S_z⟩ of spin 1 of two spins in a spin bath, L = 15 spins (n = 32 768),
//! up to t = 100, by Leja interpolation on the imaginary focal interval (marching through the
//! output times), at a working tolerance and at a tight reference tolerance; the difference
//! of the two curves is the error reported. Model: `examples/support/spin_bath.rs`.
//!
//! ```text
//! cargo run --release -p matexp-integrators --example spin_bath_fig2 -- [--spins 15] [--t 100] [--dt 0.1] [--rtol 1e-6] [--small] [--out DIR]
//! ```
//!
//! Heavy: seconds in a release build at the defaults, far longer in a debug build; `--small`
//! (L = 7, t = 0..2) finishes in a debug build in well under a minute.
//!
//! Writes spin_bath_fig2.{csv,svg} (t, ⟨S_z⟩, reference, |difference|) to DIR (default
//! target/plots; the committed figures are refreshed with `--out bench-results/plots`).

#[path = "support/plot.rs"]
mod plot;
#[path = "support/spin_bath.rs"]
mod spin_bath;

use plot::{Plot, Scale, Series, arg, out_dir, small, write_csv};
use spin_bath::{curve, model};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (spins, t_end) = if small() { (7, 2.0) } else { (15, 100.0) };
    let spins: usize = arg("--spins", spins);
    let t_end: f64 = arg("--t", t_end);
    let dt: f64 = arg("--dt", 0.1);
    let rtol: f64 = arg("--rtol", 1e-6);
    let steps = (t_end / dt).round() as usize;
    let (h, psi0) = model(spins)?;
    println!(
        "spin bath L = {spins}: n = {}, nnz = {}, t = 0..{t_end} in steps of {dt}",
        psi0.len(),
        h.nnz()
    );
    let clock = Instant::now();
    let (sz, products) = curve(&h, &psi0, spins, dt, steps, rtol)?;
    let time = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let (sz_ref, products_ref) = curve(&h, &psi0, spins, dt, steps, 1e-12)?;
    let time_ref = clock.elapsed().as_secs_f64();
    let err = sz
        .iter()
        .zip(&sz_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "rtol {rtol:e}: {time:.2} s, {products} products; reference rtol 1e-12: {time_ref:.2} s, {products_ref} products"
    );
    println!("max |⟨S_z⟩ − reference| = {err:.3e}");
    let rows: Vec<Vec<f64>> = (0..=steps)
        .map(|k| vec![k as f64 * dt, sz[k], sz_ref[k], (sz[k] - sz_ref[k]).abs()])
        .collect();
    let dir = out_dir();
    write_csv(
        &dir.join("spin_bath_fig2.csv"),
        "t,sz_spin1,sz_spin1_reference,abs_difference",
        &rows,
    )?;
    let title = format!(
        "Seed 000 Fig. 2: <S_z> of spin 1, L = {spins} (max error {err:.1e} at rtol {rtol:e})"
    );
    Plot {
        title: &title,
        x_label: "t",
        y_label: "<S_z> of spin 1",
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![Series {
            label: "Leja, rtol working",
            points: rows.iter().map(|r| (r[0], r[1])).collect(),
            color: "#1f77b4",
        }],
    }
    .write_svg(&dir.join("spin_bath_fig2.svg"))?;
    Plot {
        title: "Seed 000 Fig. 2: error of <S_z> against the rtol 1e-12 reference",
        x_label: "t",
        y_label: "|<S_z> − reference|",
        x_scale: Scale::Linear,
        y_scale: Scale::Log10,
        series: vec![Series {
            label: "|difference|",
            points: rows
                .iter()
                .skip(1)
                .map(|r| (r[0], r[3].max(1e-17)))
                .collect(),
            color: "#d62728",
        }],
    }
    .write_svg(&dir.join("spin_bath_fig2_error.svg"))?;
    println!(
        "wrote {}",
        dir.join("spin_bath_fig2{,_error}.{csv,svg}").display()
    );
    Ok(())
}
