//! The Heisenberg ring in its S^z = 0 sector on the CPU: the Néel state under e^{−iHt} by Leja
//! interpolation, with `⟨S^z_k⟩`, `⟨S^z_0 S^z_r⟩`, energy, norm and the return amplitude
//! `⟨Néel|ψ(t)⟩` at every output time, streamed as CSV (the columns of the `gpu_scale`
//! suite's `neel` series, so `plot_scale` draws either), and the time per product `H·x`.
//!
//! ```sh
//! cargo run --release -p matexp-fock --example spin_chain -- [--sites L] [--t T] [--outputs K] [--out FILE.csv]
//! ```
//! Defaults: L = 16 (D = 12 870), T = 5, K = 20, `target/fock-plots/spin_chain_l<L>.csv`.
//! `--hx-dump FILE` instead writes `H·x` for `x = random_state::<f64>(seed 1)` as raw
//! little-endian f64 in our basis order, with the time per product (what the QuSpin peer
//! script compares against).

use matexp_core::{CpuBackend, LinearOperator, c64};
use matexp_expmv::{ExpmvMethod, Leja, LejaOptions};
use matexp_fock::{
    Boundary, SpinBasis, XxzChain, basis_state, neel_word, sz_correlations, sz_profile,
};
use std::io::Write as _;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut l, mut t_end, mut k) = (16u32, 5.0f64, 20usize);
    let mut out = None;
    let mut dump = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--sites" => l = value()?.parse()?,
            "--t" => t_end = value()?.parse()?,
            "--outputs" => k = value()?.parse()?,
            "--out" => out = Some(value()?),
            "--hx-dump" => dump = Some(value()?),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let h = XxzChain::heisenberg(SpinBasis::new(l, l / 2)?, Boundary::Periodic, 1.0)?;
    let b = h.basis().clone();
    let d = b.len()?;
    if let Some(path) = dump {
        return hx_dump(&h, &path);
    }
    let neel = b.rank(neel_word(&b)?)? as usize;
    let mut psi: Vec<c64> = basis_state(&b, neel_word(&b)?)?;
    let path = out.unwrap_or_else(|| format!("target/fock-plots/spin_chain_l{l}.csv"));
    if let Some(dir) = std::path::Path::new(&path).parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut csv = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let header: Vec<String> = [
        "t",
        "products",
        "elapsed_s",
        "norm",
        "energy",
        "return_re",
        "return_im",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain((0..l).map(|q| format!("sz_{q}")))
    .chain((0..l).map(|q| format!("c_0_{q}")))
    .collect();
    writeln!(csv, "{}", header.join(","))?;
    let cpu = CpuBackend;
    let (one, zero) = (c64::new(1.0, 0.0), c64::new(0.0, 0.0));
    let mut scratch = vec![zero; d];
    let start = Instant::now();
    let mut row = |t: f64, products: usize, psi: &[c64], scratch: &mut Vec<c64>| {
        h.apply(&cpu, one, &psi.to_vec(), zero, scratch)?;
        let n2: f64 = psi.iter().map(|z| z.norm_sqr()).sum();
        let e: f64 = psi
            .iter()
            .zip(scratch.iter())
            .map(|(a, b)| (a.conj() * b).re)
            .sum();
        let mut v = vec![
            t,
            products as f64,
            start.elapsed().as_secs_f64(),
            n2.sqrt(),
            e / n2,
        ];
        v.extend([psi[neel].re, psi[neel].im]);
        v.extend(sz_profile(&b, psi)?);
        v.extend(sz_correlations(&b, psi)?);
        let text: Vec<String> = v.iter().map(|x| format!("{x:.12e}")).collect();
        writeln!(csv, "{}", text.join(","))?;
        Ok::<(), Box<dyn std::error::Error>>(())
    };
    row(0.0, 0, &psi, &mut scratch)?;
    let mut leja = Leja::new(&cpu, LejaOptions::default().with_rtol(1e-8))?;
    let mut w = vec![zero; d];
    let (mut products, mut prev) = (0, 0.0);
    for i in 1..=k {
        let t = t_end * i as f64 / k as f64;
        let rep = leja.schrodinger(&h, t - prev, &psi, &mut w)?;
        std::mem::swap(&mut psi, &mut w);
        products += rep.matvecs;
        prev = t;
        row(t, products, &psi, &mut scratch)?;
    }
    let wall = start.elapsed().as_secs_f64();
    let reps = 20;
    let t0 = Instant::now();
    for _ in 0..reps {
        h.apply(&cpu, one, &psi, zero, &mut w)?;
    }
    let per = t0.elapsed().as_secs_f64() / reps as f64;
    println!(
        "L = {l}, D = {d}: {products} products to t = {t_end} in {wall:.2} s; H·x {:.3} ms ({:.3e} rows/s); series {path}",
        per * 1e3,
        d as f64 / per
    );
    Ok(())
}

/// Writes `H·x` (x the seeded random state) and prints the median time per product.
fn hx_dump(h: &XxzChain, path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let d = h.basis().len()?;
    let x: Vec<f64> = matexp_fock::random_state(h.basis(), 1)?;
    let mut y = vec![0.0; d];
    let mut times = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        h.apply(&CpuBackend, 1.0, &x, 0.0, &mut y)?;
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let bytes: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes)?;
    println!("hx_s {:.6e} dim {d}", times[times.len() / 2]);
    Ok(())
}
