//! The seed's comparison with the Bogoliubov back-reaction method: four sites, J = 1, V = 0,
//! U = g/(N−1) with g = 1, from the in-phase mean-field state with densities
//! C² = (130, 7, 3, 50)/190, integrated with Cash–Karp RK45. Writes the site densities
//! ⟨n_1..n_4⟩/N against t as CSV and as an SVG plot (one curve per site and per N).
//!
//! ```sh
//! cargo run --release -p matexp-fock --example bogoliubov -- [--n 19,190] [--t-end 30] [--tol 1e-8] [--small] [--out dir]
//! ```
//!
//! N = 19 (D = 1540) takes a second; N = 190 (D = 1 179 616) some minutes on a few cores.
//! Heavy: the default N = 19 takes over a minute in a debug build; `--small` (N = 10,
//! D = 286, unless `--n` is given) finishes in a debug build in well under a minute.
//! Writes to `target/bogoliubov` unless `--out` is given.
//! `--from DIR` plots the `densities_n<N>.csv` files found there instead of integrating (the
//! `gpu_fock` benchmark writes them for N = 19 and 190 from its GPU runs).

use matexp_core::{CpuBackend, Error, Result, c64};
use matexp_fock::{BoseHubbard, Coupling, FockBasis, mean_field_state, site_densities};
use matexp_integrators::rk::{CashKarp, LinearOde, Rk45Options};
use plotters::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

struct Args {
    ns: Vec<u32>,
    t_end: f64,
    tol: f64,
    samples: usize,
    out: PathBuf,
    from: Option<PathBuf>,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        ns: vec![19],
        t_end: 30.0,
        tol: 1e-8,
        samples: 300,
        out: PathBuf::from("target/bogoliubov"),
        from: None,
    };
    // `--small` takes no value: it only changes the default N.
    let (small, argv): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a == "--small");
    if !small.is_empty() {
        a.ns = vec![10];
    }
    let bad =
        |what: &str, v: &str| Error::parse("command line", 0, format!("{what}: cannot read `{v}`"));
    for pair in argv.chunks(2) {
        let (flag, val) = (
            pair[0].as_str(),
            pair.get(1).map(String::as_str).unwrap_or(""),
        );
        match flag {
            "--n" => {
                a.ns = val
                    .split(',')
                    .map(|s| s.parse().map_err(|_| bad("--n", s)))
                    .collect::<Result<_>>()?
            }
            "--t-end" => a.t_end = val.parse().map_err(|_| bad(flag, val))?,
            "--tol" => a.tol = val.parse().map_err(|_| bad(flag, val))?,
            "--samples" => a.samples = val.parse().map_err(|_| bad(flag, val))?,
            "--out" => a.out = PathBuf::from(val),
            "--from" => a.from = Some(PathBuf::from(val)),
            _ => return Err(bad("unknown flag", flag)),
        }
    }
    Ok(a)
}

/// `(t, ⟨n_k⟩/N for every site)` at the sample times.
type Curve = Vec<(f64, Vec<f64>)>;

fn run(n: u32, args: &Args) -> Result<Curve> {
    if n < 2 {
        return Err(Error::invalid("n", n, "U = g/(N−1) needs N ≥ 2"));
    }
    let h = BoseHubbard::new(FockBasis::new(n, 4)?)
        .with_hopping(Coupling::Uniform(1.0))?
        .with_interaction(Coupling::Uniform(1.0 / f64::from(n - 1)))?;
    let c: Vec<c64> = [130.0f64, 7.0, 3.0, 50.0]
        .iter()
        .map(|&x| c64::new((x / 190.0).sqrt(), 0.0))
        .collect();
    let mut psi: Vec<c64> = mean_field_state(h.basis(), &c)?;
    let cpu = CpuBackend;
    let ode = LinearOde::schrodinger(&h)?;
    let mut rk = CashKarp::new(&cpu, psi.len(), Rk45Options::new(args.tol))?;
    let times: Vec<f64> = (0..=args.samples)
        .map(|k| args.t_end * k as f64 / args.samples as f64)
        .collect();
    let mut curve = Vec::with_capacity(times.len());
    let start = Instant::now();
    let rep = rk.integrate_observed(&ode, &times, &mut psi, |t, y| {
        let d = site_densities(h.basis(), y)?;
        curve.push((t, d.iter().map(|x| x / f64::from(n)).collect()));
        Ok(())
    })?;
    eprintln!(
        "N = {n}: D = {}, {} steps ({} rejected), {} products, accumulated error {:.2e}, {:.2} s",
        h.basis().dim(),
        rep.steps,
        rep.rejected,
        rep.products,
        rep.accumulated_error,
        start.elapsed().as_secs_f64()
    );
    Ok(curve)
}

fn plot(path: &PathBuf, t_end: f64, curves: &[(u32, Curve)]) -> Result<()> {
    let err = |e: String| Error::Io {
        path: path.display().to_string(),
        source: std::io::Error::other(e),
    };
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Bose–Hubbard, M = 4, J = 1, U = 1/(N−1): site densities",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..t_end, 0.0..0.8)
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("t")
        .y_desc("⟨n_k⟩ / N")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let colors = [RED, BLUE, GREEN, MAGENTA];
    for (ci, (n, curve)) in curves.iter().enumerate() {
        for k in 0..4 {
            let style = if ci == 0 {
                colors[k].stroke_width(2)
            } else {
                colors[k].mix(0.5).stroke_width(1)
            };
            chart
                .draw_series(LineSeries::new(
                    curve.iter().map(|(t, d)| (*t, d[k])),
                    style,
                ))
                .map_err(|e| err(e.to_string()))?
                .label(format!("n_{} (N = {n})", k + 1))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colors[k]));
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// Reads `t,n1,n2,n3,n4` rows.
fn read_csv(path: &PathBuf) -> Result<Curve> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path.display(), e))?;
    let mut curve = Vec::new();
    for (line, row) in text.lines().enumerate().skip(1) {
        let v: Vec<f64> = row
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::parse(path.display().to_string(), line + 1, e.to_string()))?;
        if v.len() != 5 {
            return Err(Error::parse(
                path.display().to_string(),
                line + 1,
                format!("expected 5 columns, found {}", v.len()),
            ));
        }
        curve.push((v[0], v[1..].to_vec()));
    }
    Ok(curve)
}

fn main() -> Result<()> {
    let args = parse()?;
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(args.out.display(), e))?;
    let mut curves = Vec::new();
    for &n in &args.ns {
        if let Some(dir) = &args.from {
            curves.push((n, read_csv(&dir.join(format!("densities_n{n}.csv")))?));
            continue;
        }
        let curve = run(n, &args)?;
        let csv = args.out.join(format!("densities_n{n}.csv"));
        let mut text = String::from("t,n1,n2,n3,n4\n");
        for (t, d) in &curve {
            text.push_str(&format!("{t},{},{},{},{}\n", d[0], d[1], d[2], d[3]));
        }
        std::fs::write(&csv, text).map_err(|e| Error::io(csv.display(), e))?;
        curves.push((n, curve));
    }
    let svg = args.out.join("densities.svg");
    let t_end = curves
        .iter()
        .flat_map(|(_, c)| c.last().map(|p| p.0))
        .fold(0.0, f64::max);
    plot(&svg, t_end.max(f64::MIN_POSITIVE), &curves)?;
    eprintln!("wrote {}", svg.display());
    Ok(())
}
