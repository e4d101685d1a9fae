//! Small SVG line plots and CSV files for the examples' figures (no plotting dependency).

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One curve of a plot.
pub struct Series<'a> {
    pub label: &'a str,
    pub points: Vec<(f64, f64)>,
    pub color: &'a str,
}

/// Axis scaling.
#[derive(Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    Log10,
}

/// A line plot with axes, ticks, labels and a legend, written as SVG.
pub struct Plot<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series<'a>>,
}

fn tr(v: f64, s: Scale) -> f64 {
    match s {
        Scale::Linear => v,
        Scale::Log10 => v.max(1e-300).log10(),
    }
}

fn ticks(lo: f64, hi: f64, s: Scale) -> Vec<f64> {
    match s {
        Scale::Log10 => (lo.floor() as i32..=hi.ceil() as i32)
            .map(f64::from)
            .collect(),
        Scale::Linear => {
            let span = (hi - lo).max(1e-300);
            let raw = span / 6.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * mag)
                .find(|s| span / s <= 7.0)
                .unwrap_or(mag * 10.0);
            let mut t = (lo / step).ceil() * step;
            let mut v = Vec::new();
            while t <= hi + 1e-9 * step {
                v.push(t);
                t += step;
            }
            v
        }
    }
}

impl Plot<'_> {
    /// Writes the plot to `path`.
    pub fn write_svg(&self, path: &Path) -> std::io::Result<()> {
        let (w, h, ml, mr, mt, mb) = (720.0, 460.0, 80.0, 30.0, 40.0, 60.0);
        let pts = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|(x, y)| x.is_finite() && y.is_finite());
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y) in pts {
            let (x, y) = (tr(x, self.x_scale), tr(y, self.y_scale));
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !(x0.is_finite() && y0.is_finite()) {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let pad = 0.05 * (y1 - y0);
        let (y0, y1) = (y0 - pad, y1 + pad);
        let px = |x: f64| ml + (tr(x, self.x_scale) - x0) / (x1 - x0) * (w - ml - mr);
        let py = |y: f64| h - mb - (tr(y, self.y_scale) - y0) / (y1 - y0) * (h - mt - mb);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
            w / 2.0,
            esc(self.title)
        );
        let _ = writeln!(
            s,
            r#"<rect x="{ml}" y="{mt}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            w - ml - mr,
            h - mt - mb
        );
        let label = |v: f64, sc: Scale| match sc {
            Scale::Log10 => format!("1e{}", v as i32),
            Scale::Linear => format!("{}", (v * 1e6).round() / 1e6),
        };
        for t in ticks(x0, x1, self.x_scale) {
            let x = ml + (t - x0) / (x1 - x0) * (w - ml - mr);
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{mt}" stroke="#ddd"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"##,
                h - mb,
                h - mb + 16.0,
                label(t, self.x_scale)
            );
        }
        for t in ticks(y0, y1, self.y_scale) {
            let y = h - mb - (t - y0) / (y1 - y0) * (h - mt - mb);
            let _ = writeln!(
                s,
                r##"<line x1="{ml}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
                w - mr,
                ml - 6.0,
                y + 4.0,
                label(t, self.y_scale)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (ml + w - mr) / 2.0,
            h - 16.0,
            esc(self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">{}</text>"#,
            (mt + h - mb) / 2.0,
            (mt + h - mb) / 2.0,
            esc(self.y_label)
        );
        for (k, se) in self.series.iter().enumerate() {
            let mut d = String::new();
            for &(x, y) in se
                .points
                .iter()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
            {
                let _ = write!(
                    d,
                    "{}{:.2},{:.2}",
                    if d.is_empty() { "M" } else { " L" },
                    px(x),
                    py(y)
                );
            }
            let _ = writeln!(
                s,
                r#"<path d="{d}" fill="none" stroke="{}" stroke-width="1.5"/>"#,
                se.color
            );
            let ly = mt + 16.0 + 16.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
                w - mr - 170.0,
                w - mr - 150.0,
                se.color,
                w - mr - 145.0,
                ly + 4.0,
                esc(se.label)
            );
        }
        s.push_str("</svg>\n");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, s)
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes a CSV file with a header line.
pub fn write_csv(path: &Path, header: &str, rows: &[Vec<f64>]) -> std::io::Result<()> {
    let mut s = String::from(header);
    s.push('\n');
    for r in rows {
        let line: Vec<String> = r.iter().map(|v| format!("{v:.12e}")).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, s)
}

/// The value after `name` on the command line, parsed; `default` when absent or unparsable.
pub fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether `--small` was given: a size that runs in well under a minute in a debug build.
pub fn small() -> bool {
    std::env::args().any(|a| a == "--small")
}

/// Where an example writes its files: `--out DIR`, else `target/plots` of the workspace, so
/// that a plain run never rewrites a tracked file (the committed figures under
/// `bench-results/plots` are refreshed with `--out bench-results/plots`). Prints the folder.
pub fn out_dir() -> PathBuf {
    let dir = arg(
        "--out",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .unwrap_or(Path::new("."))
            .join("target/plots"),
    );
    println!("writing to {}", dir.display());
    dir
}
