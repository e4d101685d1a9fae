//! The markdown benchmark report (`bench-results/REPORT.md`) and the terminal summary, both
//! rendered from records alone so that the report can be regenerated at any time from the
//! committed JSON.
//!
//! The report is organised by seed and table through the hand-edited mapping
//! `bench-results/seed_tables.toml` ([`mapping`], [`seeds`], with the verdict check in
//! [`check`]), shows the SVG plots of [`plots`], and keeps every record in per-suite tables in
//! its appendix.

pub mod check;
pub mod headline;
pub mod line;
pub mod mapping;
pub mod plots;
pub mod seeds;

use crate::records::{Record, load_results, natural_cmp, record_order};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `x` with three significant digits, without exponent for moderate magnitudes.
pub(crate) fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-4..6).contains(&mag) {
        return format!("{x:.2e}");
    }
    let decimals = (2 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A time in seconds with a unit chosen for humans: `850 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`.
pub fn fmt_time(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return format!("{seconds}");
    }
    let (value, unit) = if seconds == 0.0 {
        (0.0, "s")
    } else if seconds < 1e-6 {
        (seconds * 1e9, "ns")
    } else if seconds < 1e-3 {
        (seconds * 1e6, "µs")
    } else if seconds < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    // Rounding can carry into the next unit (999.6 µs → "1000 µs"); accept that rarity
    // rather than re-deciding the unit, since the value stays correct.
    format!("{} {unit}", sig3(value))
}

/// A tolerance or error: scientific notation with two significant digits.
pub(crate) fn fmt_sci(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.1e}")
    }
}

/// A JSON value inside `size` or `extra`: integers as they are, floats to 3 digits.
fn fmt_value(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => n.as_f64().map(sig3).unwrap_or_else(|| n.to_string()),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(crate) fn fmt_map(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) if m.is_empty() => None,
        Value::Object(m) => Some(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{k}={}", fmt_value(v)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Value::Null => None,
        other => Some(fmt_value(other)),
    }
}

/// One column of a table: a title, whether it holds numbers (right-aligned), and the cell.
struct Column {
    title: &'static str,
    numeric: bool,
    cell: fn(&Record) -> Option<String>,
}

fn text_cell(r: &Record, field: &str) -> Option<String> {
    Some(r.text(field).to_string()).filter(|s| !s.is_empty())
}

fn number_cell(r: &Record, field: &str, fmt: fn(f64) -> String) -> Option<String> {
    r.number(field).map(fmt)
}

/// Extra figures other than GB/s (which has its own column).
fn other_extra(r: &Record) -> Option<String> {
    let extra = &r.extra;
    let parts: Vec<String> = extra
        .iter()
        .filter(|(k, v)| k.as_str() != "gbps" && !v.is_null())
        .map(|(k, v)| format!("{k}={}", fmt_value(v)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn report_columns() -> Vec<Column> {
    vec![
        Column {
            title: "case",
            numeric: false,
            cell: |r| text_cell(r, "case"),
        },
        Column {
            title: "backend",
            numeric: false,
            cell: |r| text_cell(r, "backend"),
        },
        Column {
            title: "device",
            numeric: false,
            cell: |r| text_cell(r, "device"),
        },
        Column {
            title: "precision",
            numeric: false,
            cell: |r| text_cell(r, "precision"),
        },
        Column {
            title: "size",
            numeric: false,
            cell: |r| r.get("size").as_ref().and_then(fmt_map),
        },
        Column {
            title: "median",
            numeric: true,
            cell: |r| number_cell(r, "time_s", fmt_time),
        },
        Column {
            title: "matvecs",
            numeric: true,
            cell: |r| r.get("matvecs").as_ref().map(fmt_value),
        },
        Column {
            title: "tol",
            numeric: true,
            cell: |r| number_cell(r, "tol", fmt_sci),
        },
        Column {
            title: "error",
            numeric: true,
            cell: |r| number_cell(r, "error", fmt_sci),
        },
        Column {
            title: "floor ratio",
            numeric: true,
            cell: |r| number_cell(r, "floor_ratio", sig3),
        },
        Column {
            title: "vendor ratio",
            numeric: true,
            cell: |r| number_cell(r, "vendor_ratio", sig3),
        },
        Column {
            title: "peer ratio",
            numeric: true,
            cell: |r| number_cell(r, "peer_ratio", sig3),
        },
        Column {
            title: "GB/s",
            numeric: true,
            cell: |r| r.extra.get("gbps")?.as_f64().map(sig3),
        },
        Column {
            title: "extra",
            numeric: false,
            cell: other_extra,
        },
        Column {
            title: "commit",
            numeric: false,
            cell: |r| text_cell(r, "commit"),
        },
        Column {
            title: "date",
            numeric: false,
            cell: |r| text_cell(r, "date"),
        },
    ]
}

fn summary_columns() -> Vec<Column> {
    vec![
        Column {
            title: "suite",
            numeric: false,
            cell: |r| text_cell(r, "suite"),
        },
        Column {
            title: "case",
            numeric: false,
            cell: |r| text_cell(r, "case"),
        },
        Column {
            title: "backend",
            numeric: false,
            cell: |r| text_cell(r, "backend"),
        },
        Column {
            title: "prec",
            numeric: false,
            cell: |r| text_cell(r, "precision"),
        },
        // Size variants of one case are separate measurements; without the size they would
        // read as duplicates.
        Column {
            title: "size",
            numeric: false,
            cell: |r| r.get("size").as_ref().and_then(fmt_map),
        },
        Column {
            title: "median",
            numeric: true,
            cell: |r| number_cell(r, "time_s", fmt_time),
        },
        Column {
            title: "error",
            numeric: true,
            cell: |r| number_cell(r, "error", fmt_sci),
        },
        Column {
            title: "floor",
            numeric: true,
            cell: |r| number_cell(r, "floor_ratio", sig3),
        },
        Column {
            title: "vendor",
            numeric: true,
            cell: |r| number_cell(r, "vendor_ratio", sig3),
        },
        Column {
            title: "peer",
            numeric: true,
            cell: |r| number_cell(r, "peer_ratio", sig3),
        },
    ]
}

/// The cells of `records` under those of `columns` that have at least one value.
fn table<'c>(columns: &'c [Column], records: &[&Record]) -> (Vec<&'c Column>, Vec<Vec<String>>) {
    let cells: Vec<Vec<Option<String>>> = records
        .iter()
        .map(|r| columns.iter().map(|c| (c.cell)(r)).collect())
        .collect();
    let keep: Vec<usize> = (0..columns.len())
        .filter(|&j| cells.iter().any(|row| row[j].is_some()))
        .collect();
    let rows = cells
        .into_iter()
        .map(|row| {
            keep.iter()
                .map(|&j| row[j].clone().unwrap_or_default())
                .collect()
        })
        .collect();
    (keep.iter().map(|&j| &columns[j]).collect(), rows)
}

pub(crate) fn escape_md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The mapping file of seed tables, beside the records.
pub const MAPPING_FILE: &str = "seed_tables.toml";

/// The accuracy suite's records (JSON lines written by the accuracy test of matexp-expmv).
pub const ACCURACY_FILE: &str = "accuracy/accuracy.jsonl";

const LEGEND: &str = "Columns: *median* is the median wall time of one run; *floor ratio* is \
that time divided by the time the bytes (or flops) the run must move would take at the \
bandwidth (or rate) measured in the same run, so 1 is at the hardware floor; *vendor ratio* \
and *peer ratio* are the vendor library's (cuSPARSE, cuBLAS) or a peer's (SciPy, …) time \
divided by ours in the same run, so above 1 means ours is faster (a ratio kept from an \
earlier run that could time the peer names that run in *extra* as `peer_ratio_from` or \
`vendor_ratio_from`); *tol* is the requested tolerance and *error* the achieved error \
against an independent reference; *GB/s* is the effective bandwidth. Only columns with \
values appear.\n";

const SEED_LEGEND: &str = "How to read the seed tables: each row of a seed table (from \
[seed_tables.toml](seed_tables.toml), edited by hand) quotes the seed's published figure and \
sets beside it the records that reproduce it, one line per case and precision. *ours, CPU* \
and *ours, 1 GPU* are our medians with the device in brackets (`h200 host` is the CPU of the \
GPU machine); *peers / vendor* gives each peer's time, its error where recorded, and its \
time divided by ours (above 1: ours faster), as recorded in the same run; ‡ marks a ratio \
where the peer reached an error more than 100× smaller than ours, so it is not a comparison \
at equal accuracy. *error* is the largest achieved error of our records with the requested \
tolerance; a line whose error exceeds its tolerance is marked ✗ tol missed and shows no \
speed-up (ratios withheld), and so is a line whose run failed or was refused by the method \
(✗ failed: its time is not a result). *figures* shows figures of the records' `extra` that a row names (e.g. memory \
in bytes). *products* are operator applications (matrix products for \
polynomials); *seed ÷ ours* is the seed's time divided by ours on the same kind of \
hardware. Verdicts are written by hand; the numbers in them that carry a unit of time, a × \
or a rate are checked against the table's records and seed figures, and what no record \
backs is flagged with ⚠.\n";

const MISSING_PEERS_LEGEND: &str = "Each row below shows the seed's figure but no peer or \
vendor figure (neither a peer record in any of its lines nor a ratio recorded on ours); the \
last column is the measurement that would give it one (`peer_missing` in \
[seed_tables.toml](seed_tables.toml)).\n\n";

/// The per-suite tables of every record (the report's appendix), headed at `level`.
pub fn render_suites(records: &[Record], level: &str) -> String {
    let mut out = String::new();
    let mut suites: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for r in records {
        suites.entry(r.text("suite")).or_default().push(r);
    }
    let mut names: Vec<&str> = suites.keys().copied().collect();
    names.sort_by(|a, b| natural_cmp(a, b));
    for name in names {
        let mut rows = suites.remove(name).unwrap_or_default();
        rows.sort_by(|a, b| record_order(a, b));
        out.push_str(&format!("\n{level} {}\n\n", escape_md(name)));
        let columns = report_columns();
        let (cols, cells) = table(&columns, &rows);
        let header: Vec<(&str, bool)> = cols.iter().map(|c| (c.title, c.numeric)).collect();
        seeds::markdown_table(&mut out, &header, &cells);
    }
    out
}

/// The markdown report for `records` (any devices, any suites): the seed tables of `mapping`
/// with their verdicts, the `plots`, and an appendix with one table per suite showing only
/// the columns that have values in that suite.
pub fn render_markdown(
    records: &[Record],
    mapping: &mapping::Mapping,
    plots: &[plots::Plot],
) -> String {
    let mut out = String::from("# matexp benchmark report\n\n");
    out.push_str(
        "Generated by `cargo xtask report` from the records in \
         `bench-results/<device>/<suite>.json` and the seed-table mapping \
         [seed_tables.toml](seed_tables.toml); do not edit by hand. The layout and the \
         meaning of every field are in [README.md](README.md).\n\n",
    );
    if records.is_empty() {
        out.push_str(
            "No benchmark records yet. Run `cargo xtask bench` on a CPU host, or bring back a \
             GPU run and merge it with `cargo xtask ingest <folder>`.\n",
        );
        return out;
    }
    let mut devices: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records {
        *devices.entry(r.text("device")).or_default() += 1;
    }
    out.push_str(&format!(
        "{} records from {} device(s): {}.\n",
        records.len(),
        devices.len(),
        devices
            .iter()
            .map(|(d, n)| format!("`{d}` ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if !mapping.seeds.is_empty() {
        out.push_str("\n## Seed tables at a glance\n\n");
        out.push_str(&seeds::render_index(mapping, records));
        out.push('\n');
        out.push_str(SEED_LEGEND);
        out.push_str("\n### Rows without a peer or vendor figure\n\n");
        out.push_str(MISSING_PEERS_LEGEND);
        out.push_str(&seeds::render_missing_peers(mapping, records));
    }
    if !plots.is_empty() {
        out.push_str("\n## Plots\n");
        for p in plots {
            out.push_str(&format!(
                "\n{}\n\n![{}](plots/{})\n",
                escape_md(&p.caption),
                escape_md(&p.caption),
                p.file
            ));
        }
    }
    out.push_str(&seeds::render_seeds(mapping, records));
    out.push_str("\n## Appendix: every record by suite\n\n");
    out.push_str(LEGEND);
    out.push_str(&render_suites(records, "###"));
    out
}

/// A plain-text table of `records` for the terminal (aligned by character count).
pub fn render_summary(records: &[Record]) -> String {
    let mut sorted: Vec<&Record> = records.iter().collect();
    sorted.sort_by(|a, b| record_order(a, b));
    let columns = summary_columns();
    let (cols, cells) = table(&columns, &sorted);
    let width = |j: usize| {
        cells
            .iter()
            .map(|row| row[j].chars().count())
            .chain(std::iter::once(cols[j].title.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..cols.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let pad = widths[j].saturating_sub(c.chars().count());
                if cols[j].numeric {
                    format!("{}{c}", " ".repeat(pad))
                } else {
                    format!("{c}{}", " ".repeat(pad))
                }
            })
            .collect();
        format!("  {}\n", parts.join("  ").trim_end())
    };
    let mut out = line(cols.iter().map(|c| c.title).collect());
    for row in &cells {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// Reads the seed-table mapping under `results` (an empty mapping when the file is absent).
pub fn load_mapping(results: &Path) -> Result<mapping::Mapping, String> {
    let path = results.join(MAPPING_FILE);
    if !path.exists() {
        return Ok(mapping::Mapping::default());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    mapping::parse(&text, &path.display().to_string())
}

/// The accuracy suite's records under `results` (none when the file is absent); lines that
/// do not parse are skipped.
pub fn load_accuracy(results: &Path) -> Result<Vec<Value>, String> {
    let path = results.join(ACCURACY_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect())
}

/// Regenerates `<results>/REPORT.md` and the plots under `<results>/plots/` from every record
/// under `results` and the seed-table mapping; returns the report's path and the number of
/// records it covers. What the verdict check flags is printed on stderr.
pub fn write_report(results: &Path) -> Result<(PathBuf, usize), String> {
    let records = load_results(results)?;
    let mapping = load_mapping(results)?;
    std::fs::create_dir_all(results)
        .map_err(|e| format!("cannot create {}: {e}", results.display()))?;
    let plots = if records.is_empty() {
        Vec::new()
    } else {
        plots::write_plots(results, &records, &load_accuracy(results)?)?
    };
    for flag in seeds::all_flags(&mapping, &records) {
        eprintln!("warning: {flag}");
    }
    let path = results.join("REPORT.md");
    std::fs::write(&path, render_markdown(&records, &mapping, &plots))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((path, records.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::{rec, temp_dir};
    use crate::records::{Record, store};
    use serde_json::json;

    #[test]
    fn times_get_human_units() {
        assert_eq!(fmt_time(8.5e-7), "850 ns");
        assert_eq!(fmt_time(1.234e-5), "12.3 µs");
        assert_eq!(fmt_time(4.5678e-3), "4.57 ms");
        assert_eq!(fmt_time(1.2), "1.20 s");
        assert_eq!(fmt_time(123.4), "123 s");
        assert_eq!(fmt_time(0.0), "0 s");
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(sig3(1.23456), "1.23");
        assert_eq!(sig3(0.045678), "0.0457");
        assert_eq!(sig3(12345.0), "12345");
        assert_eq!(sig3(3.0e9), "3.00e9");
        assert_eq!(fmt_sci(1e-8), "1.0e-8");
        assert_eq!(fmt_value(&json!(83_886_080)), "83886080");
    }

    #[test]
    fn empty_report_says_how_to_fill_it() {
        let md = render_markdown(&[], &mapping::Mapping::default(), &[]);
        assert!(md.contains("No benchmark records yet"));
        assert!(md.contains("cargo xtask ingest"));
    }

    #[test]
    fn suite_tables_show_only_columns_with_values() {
        let mut gpu = Record::from_value(json!({
            "suite": "spmv", "case": "poisson n=1000", "backend": "gpu", "device": "h200",
            "precision": "c64", "size": {"n": 1000, "nnz": 4960}, "time_s": 3.85e-4,
            "reps": 50, "floor_ratio": 1.31, "vendor_ratio": 1.05,
            "extra": {"gbps": 3012.4, "floor_gbps": 4250.0},
            "commit": "0123456789ab", "date": "2026-11-22"
        }))
        .unwrap();
        let cpu = rec("spmv", "poisson n=1000", "cpu", "cpu-2core", 0.0125);
        let leja = rec("leja", "points|fast", "cpu", "cpu-2core", 2.5e-6);
        let md = render_markdown(&[cpu, leja, gpu.clone()], &mapping::Mapping::default(), &[]);

        assert!(md.contains("3 records from 2 device(s): `cpu-2core` (2), `h200` (1).\n"));
        let leja_at = md.find("\n### leja\n").expect("leja section");
        let spmv_at = md.find("\n### spmv\n").expect("spmv section");
        assert!(leja_at < spmv_at);
        let leja_table = &md[leja_at..spmv_at];
        let spmv_table = &md[spmv_at..];

        // leja has no ratios or bandwidth: those columns are absent there.
        assert!(
            leja_table.contains(
                "| case | backend | device | precision | size | median | commit | date |"
            )
        );
        assert!(
            leja_table.contains("| points\\|fast | cpu | cpu-2core | f64 | n=1000 | 2.50 µs |")
        );
        assert!(spmv_table.contains(
            "| case | backend | device | precision | size | median | floor ratio | vendor ratio \
             | GB/s | extra | commit | date |"
        ));
        assert!(spmv_table.contains("|---|---|---|---|---|---:|---:|---:|---:|---|---|---|"));
        // cpu sorts before gpu; missing cells stay empty.
        let cpu_row = spmv_table.find("| poisson n=1000 | cpu |").unwrap();
        let gpu_row = spmv_table.find("| poisson n=1000 | gpu |").unwrap();
        assert!(cpu_row < gpu_row);
        assert!(spmv_table.contains(
            "| poisson n=1000 | gpu | h200 | c64 | n=1000, nnz=4960 | 385 µs | 1.31 | 1.05 \
             | 3012 | floor_gbps=4250 | 0123456789ab | 2026-11-22 |"
        ));
        assert!(spmv_table.contains("| 12.5 ms |  |  |  |  | abc123 |"));

        // Rendering does not depend on input order.
        gpu = gpu.clone();
        let again = render_markdown(
            &[
                gpu,
                rec("leja", "points|fast", "cpu", "cpu-2core", 2.5e-6),
                rec("spmv", "poisson n=1000", "cpu", "cpu-2core", 0.0125),
            ],
            &mapping::Mapping::default(),
            &[],
        );
        assert_eq!(md, again);
    }

    #[test]
    fn report_is_written_from_every_device_folder() {
        let results = temp_dir("report");
        store(
            &results,
            vec![
                rec("expmv", "heat", "cpu", "cpu-2core", 0.5),
                rec("expmv", "heat", "gpu", "h100", 0.01),
            ],
        )
        .unwrap();
        let (path, n) = write_report(&results).unwrap();
        assert_eq!(n, 2);
        let md = std::fs::read_to_string(path).unwrap();
        assert!(md.contains("| heat | cpu | cpu-2core | f64 | n=1000 | 500 ms |"));
        assert!(md.contains("| heat | gpu | h100 | f64 | n=1000 | 10.0 ms |"));
        std::fs::remove_dir_all(&results).unwrap();
    }

    #[test]
    fn terminal_summary_aligns_columns() {
        let text = render_summary(&[
            rec("spmv", "n=1000", "cpu", "d", 0.0125),
            rec("leja", "points", "cpu", "d", 2.5e-6),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("  suite  case"));
        assert!(lines[1].starts_with("  leja   points"));
        assert!(lines[1].ends_with("2.50 µs"));
        assert!(lines[2].ends_with("12.5 ms"));
        assert_eq!(lines[1].chars().count(), lines[2].chars().count());
    }
}
