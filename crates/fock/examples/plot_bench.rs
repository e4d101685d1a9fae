//! SVG plots of the `gpu_fock` benchmark records: the seed's curves for M = 8 (its Figs.
//! 5.6–5.9) — time per H·x against N for every backend, the speed-ups of the GPU over the
//! CPU backend and of the matrix-free product over cuSPARSE on the assembled CSR, and the
//! device memory of each.
//!
//! ```sh
//! cargo run -p matexp-fock --example plot_bench -- bench-results/h200/gpu_fock.json [OUT_DIR]
//! ```
//!
//! OUT_DIR defaults to `target/fock-plots` (below the current folder); the files written are
//! printed.
//!
//! Reads a JSON array or JSON lines of records (`suite = gpu_fock`, cases `hx_m8_n<N>`).

use plotters::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

type Series = BTreeMap<String, Vec<(f64, f64)>>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = PathBuf::from(args.next().ok_or("usage: plot_bench RECORDS [OUT_DIR]")?);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "target/fock-plots".into()));
    std::fs::create_dir_all(&out)?;
    let text = std::fs::read_to_string(&input)?;
    let records: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(a)) => a,
        _ => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?,
    };
    // (label → [(N, value)]) for time, memory, speed-ups; c64 only.
    let (mut time, mut mem) = (Series::new(), Series::new());
    let mut by_n: BTreeMap<u64, BTreeMap<String, f64>> = BTreeMap::new();
    for r in &records {
        let case = r["case"].as_str().unwrap_or("");
        if r["suite"] != "gpu_fock" || !case.starts_with("hx_m8_") || r["precision"] != "c64" {
            continue;
        }
        let n = r["size"]["particles"].as_u64().unwrap_or(0);
        let backend = r["backend"].as_str().unwrap_or("?");
        let label = match r["extra"]["lookup"].as_str() {
            Some(l) => format!("gpu {l}"),
            None => backend.to_string(),
        };
        let t = r["time_s"].as_f64().unwrap_or(f64::NAN);
        time.entry(label.clone()).or_default().push((n as f64, t));
        if let Some(b) = r["extra"]["mem_bytes"].as_f64() {
            mem.entry(label.clone())
                .or_default()
                .push((n as f64, b / 1e9));
        }
        by_n.entry(n).or_default().insert(label, t);
    }
    if time.is_empty() {
        return Err(format!("no gpu_fock H·x records (c64) in {}", input.display()).into());
    }
    let mut speed = Series::new();
    for (n, m) in &by_n {
        let Some(&mf) = m.get("gpu DeltaUnrank") else {
            continue;
        };
        if let Some(&c) = m.get("cpu") {
            speed
                .entry("CPU backend / GPU (Δ, unrank)".into())
                .or_default()
                .push((*n as f64, c / mf));
        }
        if let Some(&c) = m.get("cusparse") {
            speed
                .entry("cuSPARSE CSR / GPU (Δ, unrank)".into())
                .or_default()
                .push((*n as f64, c / mf));
        }
        if let Some(&c) = m.get("gpu DeltaPacked") {
            speed
                .entry("GPU (Δ, packed) / GPU (Δ, unrank)".into())
                .or_default()
                .push((*n as f64, c / mf));
        }
        if let Some(&c) = m.get("gpu DeltaStepped") {
            speed
                .entry("GPU (Δ, stepped) / GPU (Δ, unrank)".into())
                .or_default()
                .push((*n as f64, c / mf));
        }
        if let Some(&c) = m.get("gpu SearchPacked") {
            speed
                .entry("GPU (search) / GPU (Δ, unrank)".into())
                .or_default()
                .push((*n as f64, c / mf));
        }
    }
    plot(
        &out.join("fock_time.svg"),
        "H·x at M = 8 (c64): time per product",
        "seconds",
        &time,
    )?;
    plot(
        &out.join("fock_speedup.svg"),
        "H·x at M = 8 (c64): time ratios",
        "ratio",
        &speed,
    )?;
    plot(
        &out.join("fock_memory.svg"),
        "H·x at M = 8 (c64): device memory (operator + x, y)",
        "GB",
        &mem,
    )?;
    println!("wrote {}/fock_{{time,speedup,memory}}.svg", out.display());
    Ok(())
}

fn plot(
    path: &PathBuf,
    title: &str,
    ylabel: &str,
    series: &Series,
) -> Result<(), Box<dyn std::error::Error>> {
    let pts = series.values().flatten();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        if y.is_finite() && y > 0.0 {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        return Ok(());
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut b = ChartBuilder::on(&root);
    b.caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70);
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    let xr = (x0 - 1.0)..(x1 + 1.0);
    {
        let mut chart = b.build_cartesian_2d(xr, (y0 / 2.0..y1 * 2.0).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("N (particles)")
            .y_desc(ylabel)
            .draw()?;
        for (k, (label, v)) in series.iter().enumerate() {
            let c = colors[k % colors.len()];
            let mut v = v.clone();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(v.iter().copied(), c.stroke_width(2)))?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c));
            chart.draw_series(v.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
