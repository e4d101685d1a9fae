//! An SVG of a `gpu_scale` series: the profile `⟨S^z_k⟩(t)` (or `⟨n_k⟩(t)` of a
//! Bose–Hubbard series) as a space–time map, site across and time up, blue for negative and
//! red for positive values (white at the middle of the range), beside the return probability
//! `|⟨ψ₀|ψ(t)⟩|²` as a line.
//!
//! ```sh
//! cargo run -p matexp-fock --example plot_scale -- bench-results/h200/scale/gpu_scale_neel_l32.csv [OUT.svg]
//! ```
//!
//! Reads the CSV the suite streams: a header naming `t`, then per-site columns `sz_<k>` or
//! `n_<k>`, and the return amplitude as `return_re, return_im` or `overlap_re, overlap_im`.

use plotters::prelude::*;
use std::path::PathBuf;

struct Series {
    t: Vec<f64>,
    /// One row per time, one value per site.
    sites: Vec<Vec<f64>>,
    ret: Vec<f64>,
    label: &'static str,
}

fn read(path: &PathBuf) -> Result<Series, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty series")?.split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (prefix, label) = if col("sz_0").is_some() {
        ("sz_", "⟨S^z_k⟩")
    } else {
        ("n_", "⟨n_k⟩")
    };
    let site_cols: Vec<usize> = (0..).map_while(|k| col(&format!("{prefix}{k}"))).collect();
    let t_col = col("t").ok_or("no t column")?;
    let (re, im) = match (col("return_re"), col("overlap_re")) {
        (Some(r), _) => (r, r + 1),
        (None, Some(o)) => (o, o + 1),
        _ => return Err("no return amplitude columns".into()),
    };
    let mut s = Series {
        t: Vec::new(),
        sites: Vec::new(),
        ret: Vec::new(),
        label,
    };
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let v: Vec<f64> = line.split(',').map(str::parse).collect::<Result<_, _>>()?;
        s.t.push(v[t_col]);
        s.sites.push(site_cols.iter().map(|&c| v[c]).collect());
        s.ret.push(v[re] * v[re] + v[im] * v[im]);
    }
    if s.t.len() < 2 || site_cols.is_empty() {
        return Err("a series needs at least two times and one site".into());
    }
    Ok(s)
}

/// Blue (lo) → white (mid) → red (hi).
fn color(v: f64, lo: f64, hi: f64) -> RGBColor {
    let x = if hi > lo {
        (2.0 * (v - lo) / (hi - lo) - 1.0).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let fade = |a: f64| (255.0 * (1.0 - a)) as u8;
    if x < 0.0 {
        RGBColor(fade(-x), fade(-x), 255)
    } else {
        RGBColor(255, fade(x), fade(x))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = PathBuf::from(
        args.next()
            .ok_or("usage: plot_scale SERIES.csv [OUT.svg]")?,
    );
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| input.with_extension("svg"));
    let s = read(&input)?;
    let l = s.sites[0].len();
    let (lo, hi) = s
        .sites
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let t_end = *s.t.last().unwrap_or(&1.0);
    let root = SVGBackend::new(&out, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let (map, line) = root.split_horizontally(600);
    let title = format!("{} (blue {lo:.3}, red {hi:.3})", s.label);
    let mut chart = ChartBuilder::on(&map)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0f64..l as f64, 0f64..t_end)?;
    chart.configure_mesh().x_desc("site k").y_desc("t").draw()?;
    for (i, row) in s.sites.iter().enumerate() {
        // Row i covers the times from its midpoint with the previous row to the next one.
        let below = if i == 0 {
            0.0
        } else {
            0.5 * (s.t[i - 1] + s.t[i])
        };
        let above = if i + 1 < s.t.len() {
            0.5 * (s.t[i] + s.t[i + 1])
        } else {
            t_end
        };
        chart.draw_series(row.iter().enumerate().map(|(k, &v)| {
            Rectangle::new(
                [(k as f64, below), (k as f64 + 1.0, above)],
                color(v, lo, hi).filled(),
            )
        }))?;
    }
    let mut echo = ChartBuilder::on(&line)
        .caption("|⟨ψ₀|ψ(t)⟩|²", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0f64..1f64, 0f64..t_end)?;
    echo.configure_mesh().draw()?;
    echo.draw_series(LineSeries::new(
        s.ret.iter().zip(&s.t).map(|(&p, &t)| (p, t)),
        &BLACK,
    ))?;
    root.present()?;
    println!("{}", out.display());
    Ok(())
}
