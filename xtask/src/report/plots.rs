//! SVG plots of the records (plotters' SVG backend: text is written as SVG text, so no system
//! font is needed): SpMV and stencil floor and vendor ratios, error against products per
//! method, Bose–Hubbard time against the Fock-space dimension, polynomial GFlop/s against n,
//! centrality time against graph size.

use crate::records::{Record, natural_cmp};
use plotters::coord::ranged1d::{AsRangedCoord, SegmentValue, ValueFormatter};
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;

/// One plotted series: a name for the legend and its points.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Joined by a line (otherwise markers only).
    pub line: bool,
}

/// A plot written by [`write_plots`]: file name (under `plots/`) and caption.
#[derive(Debug, Clone)]
pub struct Plot {
    pub file: String,
    pub caption: String,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn err<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> String + '_ {
    move |e| format!("cannot draw {}: {e}", path.display())
}

fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let v: Vec<f64> = values.filter(|x| x.is_finite() && *x > 0.0).collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// Tick labels on a log axis: 1e-6, 0.01, 1, 100, 1e6.
fn log_label(x: &f64) -> String {
    let x = *x;
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10();
    if (-2.0..5.0).contains(&mag) {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.1e}").replace(".0e", "e")
    }
}

/// A chart of `series` with a log y axis and a log x axis, or a linear x axis when `x_log` is
/// false (a log axis spanning less than a decade would show no tick label).
pub fn loglog(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
) -> Result<(), String> {
    xy(path, title, x_desc, y_desc, series, true)
}

fn xy(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    x_log: bool,
) -> Result<(), String> {
    let (x0, x1) = bounds(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)))
        .ok_or_else(|| format!("{}: no points", path.display()))?;
    let (y0, y1) = bounds(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)))
        .ok_or_else(|| format!("{}: no points", path.display()))?;
    let y = (y0 / 2.0..y1 * 2.0).log_scale();
    if x_log {
        draw_xy(
            path,
            title,
            x_desc,
            y_desc,
            series,
            (x0 / 1.5..x1 * 1.5).log_scale(),
            y,
        )
    } else {
        let pad = 0.08 * (x1 - x0).max(x1 * 1e-3);
        draw_xy(
            path,
            title,
            x_desc,
            y_desc,
            series,
            (x0 - pad)..(x1 + pad),
            y,
        )
    }
}

fn draw_xy<X, Y>(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    x_range: X,
    y_range: Y,
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let e = err(path);
    let root = SVGBackend::new(path, (760, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)
        .map_err(&e)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&log_label)
        .y_label_formatter(&log_label)
        .draw()
        .map_err(&e)?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(x, y)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite())
            .collect();
        if s.line {
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(&e)?;
        }
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(&e)?
            .label(s.name.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(&e)?;
    root.present().map_err(&e)?;
    Ok(())
}

/// Ratios per category (one marker per series), with the parity line at 1.
pub fn ratios(
    path: &Path,
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> Result<(), String> {
    let n = categories.len();
    if n == 0 {
        return Err(format!("{}: no categories", path.display()));
    }
    let y1 = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .fold(1.0f64, f64::max)
        * 1.1;
    let e = err(path);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(170)
        .y_label_area_size(60)
        .build_cartesian_2d((0..n as i32).into_segmented(), 0.0..y1)
        .map_err(&e)?;
    let label = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
            categories.get(*i as usize).cloned().unwrap_or_default()
        }
        SegmentValue::Last => String::new(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&label)
        .x_label_style(
            ("sans-serif", 11)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_desc(y_desc)
        .draw()
        .map_err(&e)?;
    chart
        .draw_series(LineSeries::new(
            [
                (SegmentValue::Exact(0), 1.0),
                (SegmentValue::Exact(n as i32), 1.0),
            ],
            BLACK.stroke_width(1),
        ))
        .map_err(&e)?;
    for (k, (name, values)) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let pts: Vec<(SegmentValue<i32>, f64)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (SegmentValue::CenterOf(i as i32), v)))
            .collect();
        let marker = move |p: (SegmentValue<i32>, f64)| -> DynElement<'static, SVGBackend<'_>, _> {
            match k % 3 {
                0 => Circle::new(p, 5, color.filled()).into_dyn(),
                1 => TriangleMarker::new(p, 6, color.filled()).into_dyn(),
                _ => Cross::new(p, 5, color.stroke_width(2)).into_dyn(),
            }
        };
        chart
            .draw_series(pts.into_iter().map(marker))
            .map_err(&e)?
            .label(name.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(&e)?;
    root.present().map_err(&e)?;
    Ok(())
}

fn find<'a>(
    records: &'a [Record],
    suite: &str,
    case: &str,
    backend: &str,
    precision: &str,
) -> Option<&'a Record> {
    records.iter().find(|r| {
        r.text("suite") == suite
            && r.text("case") == case
            && r.text("backend") == backend
            && r.text("precision") == precision
    })
}

fn size(r: &Record, key: &str) -> Option<f64> {
    r.get("size")?.get(key)?.as_f64()
}

fn extra(r: &Record, key: &str) -> Option<f64> {
    r.extra.get(key)?.as_f64()
}

/// SpMV on one GPU: our floor ratio, cuSPARSE's, and cuSPARSE's time over ours.
fn spmv_plot(records: &[Record], path: &Path) -> Result<bool, String> {
    let cases: [(&str, &str, &str); 7] = [
        ("spmv_gpu", "laplace3d_N256", "f64"),
        ("spmv_gpu", "spin_bath_L18", "c64"),
        ("spmv_gpu", "spin_bath_L18", "c32"),
        ("spmv_gpu", "spin_bath_L21", "c64"),
        ("spmv_gpu", "spin_bath_L21", "c32"),
        ("spmv_pattern_gpu", "barabasi_albert_n1000000_m10", "f64"),
        ("spmv_pattern_gpu", "erdos_renyi_n1000000_e10000000", "f64"),
    ];
    let mut cats = Vec::new();
    let (mut ours, mut vendor_floor, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for (suite, case, prec) in cases {
        let Some(g) = find(records, suite, case, "gpu", prec) else {
            continue;
        };
        let c = find(records, suite, case, "cusparse", prec);
        cats.push(format!("{case} {prec}"));
        ours.push(g.number("floor_ratio"));
        vendor_floor.push(c.and_then(|c| c.number("floor_ratio")));
        ratio.push(g.number("vendor_ratio"));
    }
    // Pattern SpMV of the graph suite: only the vendor ratio is recorded.
    let mut graph: Vec<&Record> = records
        .iter()
        .filter(|r| {
            r.text("suite") == "gpu_graph"
                && r.text("case").starts_with("spmv_pattern/")
                && r.text("backend") == "gpu"
        })
        .collect();
    graph.sort_by(|a, b| natural_cmp(a.text("case"), b.text("case")));
    for g in graph {
        cats.push(g.text("case").replace("spmv_pattern/", "graph "));
        ours.push(g.number("floor_ratio"));
        vendor_floor.push(None);
        ratio.push(g.number("vendor_ratio"));
    }
    if cats.is_empty() {
        return Ok(false);
    }
    ratios(
        path,
        "SpMV on one GPU: time ÷ bandwidth floor, and cuSPARSE time ÷ ours",
        "ratio (floor: 1 = at the floor; vendor: >1 = ours faster)",
        &cats,
        &[
            ("ours: floor ratio".into(), ours),
            ("cuSPARSE: floor ratio".into(), vendor_floor),
            ("cuSPARSE time ÷ ours".into(), ratio),
        ],
    )?;
    Ok(true)
}

/// Stencil products (seed 003 Tables I–III) on one GPU: floor ratio by kernel and precision.
fn stencil_plot(records: &[Record], path: &Path) -> Result<bool, String> {
    let mut cases: Vec<&str> = records
        .iter()
        .filter(|r| {
            r.text("suite") == "gpu_stencil"
                && r.text("backend") == "gpu"
                && r.number("floor_ratio").is_some()
        })
        .map(|r| r.text("case"))
        .collect();
    cases.sort_by(|a, b| natural_cmp(a, b));
    cases.dedup();
    if cases.is_empty() {
        return Ok(false);
    }
    let get = |case: &str, prec: &str| {
        find(records, "gpu_stencil", case, "gpu", prec).and_then(|r| r.number("floor_ratio"))
    };
    let series = vec![
        (
            "f64: time ÷ floor".to_string(),
            cases.iter().map(|c| get(c, "f64")).collect(),
        ),
        (
            "f32: time ÷ floor".to_string(),
            cases.iter().map(|c| get(c, "f32")).collect(),
        ),
    ];
    let cats: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
    ratios(
        path,
        "Stencil products on one GPU (seed 003 Tables I–III): time ÷ bandwidth floor",
        "time ÷ floor (1 = at the floor)",
        &cats,
        &series,
    )?;
    Ok(true)
}

/// Achieved relative error against operator products, per method and tolerance, from the
/// accuracy suite's records (`accuracy/accuracy.jsonl`).
fn accuracy_plot(accuracy: &[Value], path: &Path) -> Result<bool, String> {
    let mut groups: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in accuracy {
        let (Some(method), Some(rtol), Some(products), Some(ratio)) = (
            r.get("method").and_then(Value::as_str),
            r.get("rtol").and_then(Value::as_f64),
            r.get("products").and_then(Value::as_f64),
            r.get("err_over_tol").and_then(Value::as_f64),
        ) else {
            continue;
        };
        if products <= 0.0 {
            continue;
        }
        // An exact result is drawn at the double-precision floor.
        let error = (ratio * rtol).max(1e-17);
        let name = format!("{method}, rtol {rtol:.0e}");
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, pts)) => pts.push((products, error)),
            None => groups.push((name, vec![(products, error)])),
        }
    }
    if groups.is_empty() {
        return Ok(false);
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let series: Vec<Series> = groups
        .into_iter()
        .map(|(name, points)| Series {
            name,
            points,
            line: false,
        })
        .collect();
    loglog(
        path,
        "Accuracy suite: achieved relative error against products",
        "operator products",
        "relative error",
        &series,
    )?;
    Ok(true)
}

/// Bose–Hubbard H·x (seed 001, M = 8): time per product against the dimension D(N, 8).
fn fock_plot(records: &[Record], path: &Path) -> Result<bool, String> {
    let mut series = Vec::new();
    for (backend, name) in [
        ("cpu", "ours, CPU (matrix-free)"),
        ("gpu", "ours, GPU matrix-free"),
        ("gpu-csr", "ours, GPU CSR"),
        ("cusparse", "cuSPARSE CSR"),
    ] {
        let mut pts: Vec<(f64, f64)> = records
            .iter()
            .filter(|r| {
                // One product per record: the end-to-end and RK runs of the suite time whole
                // propagations.
                r.text("suite") == "gpu_fock"
                    && r.text("case").starts_with("hx_m8_n")
                    && r.text("backend") == backend
                    && r.text("precision") == "c64"
            })
            .filter_map(|r| Some((size(r, "n")?, r.number("time_s")?)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !pts.is_empty() {
            series.push(Series {
                name: name.into(),
                points: pts,
                line: true,
            });
        }
    }
    if series.is_empty() {
        return Ok(false);
    }
    loglog(
        path,
        "Bose–Hubbard H·x, M = 8 sites, complex double: time against D(N, 8)",
        "Fock-space dimension D (N = 30 … 50 bosons)",
        "time per product (s)",
        &series,
    )?;
    Ok(true)
}

/// Matrix polynomials (seed 004 Table 1): GFlop/s against n, ours, DGEMM and the K20.
fn matpoly_plot(records: &[Record], path: &Path) -> Result<bool, String> {
    let table: Vec<&Record> = records
        .iter()
        .filter(|r| r.text("suite") == "gpu_matpoly" && r.text("case").starts_with("table1"))
        .collect();
    if table.is_empty() {
        return Ok(false);
    }
    let mut cases: Vec<&str> = table.iter().map(|r| r.text("case")).collect();
    cases.sort_by(|a, b| natural_cmp(a, b));
    cases.dedup();
    let points = |case: &str, field: &str| {
        let mut p: Vec<(f64, f64)> = table
            .iter()
            .filter(|r| r.text("case") == case)
            .filter_map(|r| Some((size(r, "n")?, extra(r, field)?)))
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p
    };
    let mut series = Vec::new();
    for c in &cases {
        series.push(Series {
            name: format!("ours {}", c.trim_start_matches("table1 ")),
            points: points(c, "gflops"),
            line: true,
        });
    }
    series.push(Series {
        name: "cuBLAS DGEMM alone".into(),
        points: points(cases[0], "dgemm_gflops"),
        line: true,
    });
    for c in &cases {
        series.push(Series {
            name: format!("seed, 1 K20 {}", c.trim_start_matches("table1 ")),
            points: points(c, "seed_gflops"),
            line: true,
        });
    }
    xy(
        path,
        "Matrix polynomials (Paterson–Stockmeyer), f64: GFlop/s against n",
        "matrix size n",
        "GFlop/s",
        &series,
        false,
    )?;
    Ok(true)
}

/// Total communicability (seed 002): time against stored nonzeros, ours and the seed's.
fn graph_plot(records: &[Record], path: &Path) -> Result<bool, String> {
    let tc: Vec<&Record> = records
        .iter()
        .filter(|r| r.text("suite") == "gpu_graph" && r.text("case").starts_with("tc/"))
        .collect();
    if tc.is_empty() {
        return Ok(false);
    }
    let pts = |f: &dyn Fn(&Record) -> Option<(f64, f64)>, backend: &str| {
        let mut p: Vec<(f64, f64)> = tc
            .iter()
            .filter(|r| r.text("backend") == backend)
            .filter_map(|r| f(r))
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p
    };
    let ours = |r: &Record| Some((size(r, "nnz")?, r.number("time_s")?));
    let seed_serial = |r: &Record| Some((size(r, "nnz")?, extra(r, "seed_serial_s")?));
    let seed_cuda = |r: &Record| Some((size(r, "nnz")?, extra(r, "seed_cuda_s")?));
    let series = vec![
        Series {
            name: "ours, CPU (GPU host)".into(),
            points: pts(&ours, "cpu"),
            line: false,
        },
        Series {
            name: "ours, 1 GPU".into(),
            points: pts(&ours, "gpu"),
            line: false,
        },
        Series {
            name: "seed, serial (one i5-3570K core)".into(),
            points: pts(&seed_serial, "gpu"),
            line: false,
        },
        Series {
            name: "seed, CUDA (RTX 2080 Super)".into(),
            points: pts(&seed_cuda, "gpu"),
            line: false,
        },
    ];
    loglog(
        path,
        "Total communicability e^A·1 by Lanczos (k = 50; europe_osm k = 20): time against size",
        "stored nonzeros of the adjacency",
        "time (s)",
        &series,
    )?;
    Ok(true)
}

/// Writes every plot the records allow under `<results>/plots/` and returns them in report
/// order.
pub fn write_plots(
    results: &Path,
    records: &[Record],
    accuracy: &[Value],
) -> Result<Vec<Plot>, String> {
    let dir = results.join("plots");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    type Draw = fn(&[Record], &[Value], &Path) -> Result<bool, String>;
    let all: [(&str, &str, Draw); 6] = [
        (
            "spmv_ratios.svg",
            "SpMV on one GPU: floor ratios (ours and cuSPARSE) and cuSPARSE time ÷ ours",
            |r, _, p| spmv_plot(r, p),
        ),
        (
            "stencil_floor.svg",
            "Stencil products (seed 003 Tables I–III) on one GPU: time ÷ bandwidth floor",
            |r, _, p| stencil_plot(r, p),
        ),
        (
            "accuracy_error_products.svg",
            "Accuracy suite: achieved relative error against operator products, per method",
            |_, a, p| accuracy_plot(a, p),
        ),
        (
            "fock_time_vs_dim.svg",
            "Bose–Hubbard H·x (seed 001, M = 8): time against the dimension D(N, 8)",
            |r, _, p| fock_plot(r, p),
        ),
        (
            "matpoly_gflops.svg",
            "Matrix polynomials (seed 004 Table 1): GFlop/s against n, ours, DGEMM and the \
             seed's K20",
            |r, _, p| matpoly_plot(r, p),
        ),
        (
            "graph_time_vs_size.svg",
            "Total communicability (seed 002): time against graph size, ours and the seed's",
            |r, _, p| graph_plot(r, p),
        ),
    ];
    let mut plots = Vec::new();
    for (file, caption, draw) in all {
        if draw(records, accuracy, &dir.join(file))? {
            plots.push(Plot {
                file: file.into(),
                caption: caption.into(),
            });
        }
    }
    Ok(plots)
}
