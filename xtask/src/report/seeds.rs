//! The report organised by seed and table: each row of a seed table set beside the records
//! that reproduce it (ours on the CPU, on one GPU, on several, the peers), and a check that
//! the numbers of each human verdict are backed by those records.

use super::line::{Line, misses_tolerance};
use super::mapping::{Mapping, Role, RowSpec, SeedTable, Verdict};
use super::{escape_md, fmt_map, fmt_sci, fmt_time, sig3};
use crate::records::{Record, natural_cmp, record_order};
use std::collections::BTreeMap;

/// A peer is more accurate than ours by more than this factor: the ratio is not at equal
/// accuracy and is marked.
const UNEQUAL_ACCURACY: f64 = 100.0;

/// Backends of vendor libraries, whose ratio is `vendor_ratio`; every other peer's is
/// `peer_ratio`.
const VENDORS: [&str; 2] = ["cusparse", "cublas"];

/// Peers that run on the GPU (their ratio compares with ours on one GPU).
const GPU_PEERS: [&str; 4] = ["cusparse", "cublas", "torch", "cupy"];

/// How a backend is named in the report.
fn peer_name(backend: &str) -> String {
    match backend {
        "cusparse" => "cuSPARSE".into(),
        "cublas" => "cuBLAS".into(),
        "scipy" => "SciPy".into(),
        "torch" => "torch".into(),
        "cupy" => "CuPy".into(),
        "networkx" => "networkx".into(),
        "quspin" => "QuSpin".into(),
        "gpu-csr" => "ours, CSR on GPU".into(),
        other => other.to_string(),
    }
}

fn size_key(r: &Record) -> String {
    r.get("size").map(|v| v.to_string()).unwrap_or_default()
}

/// Two records measure the same size when every size key both state is equal (a vendor's
/// record may add `nnz` to what ours states).
fn same_size(a: &Record, b: &Record) -> bool {
    let (Some(x), Some(y)) = (
        (!a.size.is_empty()).then_some(&a.size),
        (!b.size.is_empty()).then_some(&b.size),
    ) else {
        return size_key(a) == size_key(b);
    };
    x.iter().all(|(k, v)| y.get(k).is_none_or(|w| w == v))
}

/// The lines of one row: the records its selector takes, one line per case, precision, size
/// and tolerance, with the row's extra peers beside lines of equal precision and size.
pub fn expand<'a>(row: &'a RowSpec, records: &'a [Record]) -> Vec<Line<'a>> {
    if row.select.case.is_empty() {
        return Vec::new();
    }
    // Our records by case, precision, size and tolerance; peers (which state no tolerance)
    // join every group of their case, precision and size, or form their own.
    let mut groups: BTreeMap<(String, String, String, String), Vec<&Record>> = BTreeMap::new();
    let mut peer_groups: BTreeMap<(String, String, String), Vec<&Record>> = BTreeMap::new();
    for r in records.iter().filter(|r| row.select.matches(r)) {
        let base = (
            r.text("case").to_string(),
            r.text("precision").to_string(),
            size_key(r),
        );
        if row.role(r) == Role::Peer {
            peer_groups.entry(base).or_default().push(r);
            continue;
        }
        let tol = r.get("tol").map(|v| v.to_string()).unwrap_or_default();
        groups
            .entry((base.0, base.1, base.2, tol))
            .or_default()
            .push(r);
    }
    for (base, peers) in peer_groups {
        let mut joined = false;
        for ((case, precision, _, _), g) in groups.iter_mut() {
            if (case, precision) == (&base.0, &base.1) && same_size(g[0], peers[0]) {
                g.extend(peers.iter().copied());
                joined = true;
            }
        }
        if !joined {
            groups.insert((base.0, base.1, base.2, String::new()), peers);
        }
    }
    let extra_peers: Vec<&Record> = match &row.peers {
        Some(sel) => records
            .iter()
            .filter(|r| sel.matches(r) && row.role(r) == Role::Peer)
            .collect(),
        None => Vec::new(),
    };
    let mut groups: Vec<Vec<&Record>> = groups.into_values().collect();
    for g in &mut groups {
        g.sort_by(|a, b| record_order(a, b));
    }
    groups.sort_by(|a, b| {
        natural_cmp(a[0].text("case"), b[0].text("case"))
            .then_with(|| natural_cmp(&size_key(a[0]), &size_key(b[0])))
            .then_with(|| a[0].text("precision").cmp(b[0].text("precision")))
    });
    let sizes: std::collections::BTreeSet<String> = groups.iter().map(|g| size_key(g[0])).collect();
    let mut lines = Vec::new();
    for g in groups {
        let mut line = Line {
            row,
            first: lines.is_empty(),
            case: g[0].text("case").to_string(),
            precision: g[0].text("precision").to_string(),
            size: (sizes.len() > 1)
                .then(|| g[0].get("size").as_ref().and_then(fmt_map))
                .flatten(),
            cpu: Vec::new(),
            gpu: Vec::new(),
            multi: Vec::new(),
            peers: Vec::new(),
        };
        for r in &g {
            match row.role(r) {
                Role::Cpu => line.cpu.push(r),
                Role::Gpu => line.gpu.push(r),
                Role::MultiGpu => line.multi.push(r),
                Role::Peer => line.peers.push(r),
            }
        }
        for p in &extra_peers {
            if p.text("precision") == line.precision
                && same_size(p, g[0])
                && !line.peers.iter().any(|q| std::ptr::eq(*q, *p))
            {
                line.peers.push(p);
            }
        }
        lines.push(line);
    }
    lines
}

fn device_label(r: &Record, role: Role) -> String {
    let d = r.text("device");
    if role == Role::Cpu && matches!(d, "h100" | "h200") {
        format!("{d} host")
    } else {
        d.to_string()
    }
}

fn times(recs: &[&Record], role: Role) -> Option<String> {
    let parts: Vec<String> = recs
        .iter()
        .map(|r| {
            let mut s = format!(
                "{} ({})",
                fmt_time(r.number("time_s").unwrap_or(f64::NAN)),
                { device_label(r, role) }
            );
            if role == Role::MultiGpu {
                s = format!("{} {s}", r.text("backend"));
            }
            if misses_tolerance(r) || super::line::failed(r) {
                s.push_str(" ✗");
            }
            s
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Ours to compare a peer with: on one GPU for GPU peers, else on the CPU; on the peer's
/// own device where the line has a record of ours there (a CPU peer timed beside ours on
/// one machine is not compared with another machine's record of ours).
fn reference<'a>(line: &Line<'a>, peer: &Record) -> Option<&'a Record> {
    let backend = peer.text("backend");
    let gpu_side = GPU_PEERS.contains(&backend) || backend.starts_with("gpu");
    let pick = if gpu_side { &line.gpu } else { &line.cpu };
    pick.iter()
        .find(|r| r.text("device") == peer.text("device"))
        .or_else(|| pick.first())
        .copied()
}

/// Peer time divided by ours (above 1: ours faster), as recorded in the run, or computed
/// from the two records when both come from the same commit.
fn peer_ratio(line: &Line<'_>, peer: &Record) -> Option<f64> {
    let ours = reference(line, peer)?;
    let field = if VENDORS.contains(&peer.text("backend")) {
        "vendor_ratio"
    } else {
        "peer_ratio"
    };
    if let Some(r) = ours.number(field) {
        return Some(r);
    }
    let same_run = !ours.text("commit").is_empty() && ours.text("commit") == peer.text("commit");
    match (peer.number("time_s"), ours.number("time_s")) {
        (Some(p), Some(o)) if same_run && o > 0.0 => Some(p / o),
        _ => None,
    }
}

fn unequal_accuracy(line: &Line<'_>, peer: &Record) -> bool {
    let Some(ours) = reference(line, peer) else {
        return false;
    };
    matches!(
        (ours.number("error"), peer.number("error")),
        (Some(o), Some(p)) if o > UNEQUAL_ACCURACY * p.max(f64::MIN_POSITIVE)
    )
}

fn peers_cell(line: &Line<'_>) -> Option<String> {
    let mut parts = Vec::new();
    for p in &line.peers {
        let mut s = format!(
            "{} {}",
            peer_name(p.text("backend")),
            fmt_time(p.number("time_s").unwrap_or(f64::NAN))
        );
        if let Some(e) = p.number("error") {
            s.push_str(&format!(" (err {})", fmt_sci(e)));
        }
        if super::line::failed(p) {
            s.push_str(": failed");
        } else if line.withheld() {
            s.push_str(": ratio withheld");
        } else if let Some(r) = peer_ratio(line, p) {
            s.push_str(&format!(": {}×", sig3(r)));
            if unequal_accuracy(line, p) {
                s.push('‡');
            }
        }
        parts.push(s);
    }
    // Ratios recorded on our records whose peer has no record of its own in this line.
    let has_vendor = line
        .peers
        .iter()
        .any(|p| VENDORS.contains(&p.text("backend")));
    let has_peer = line
        .peers
        .iter()
        .any(|p| !VENDORS.contains(&p.text("backend")));
    for (field, present, name) in [
        ("vendor_ratio", has_vendor, "vendor"),
        ("peer_ratio", has_peer, "peer"),
    ] {
        if present {
            continue;
        }
        if let Some(r) = line.ours().find_map(|r| r.number(field)) {
            if line.withheld() {
                parts.push(format!("{name}: ratio withheld"));
            } else {
                parts.push(format!("{name}: {}×", sig3(r)));
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A byte count for humans: `792 B`, `3.67 MB`, `1.73 GB` (decimal units).
pub(crate) fn fmt_bytes(b: f64) -> String {
    let (v, unit) = if b < 1e3 {
        (b, "B")
    } else if b < 1e6 {
        (b / 1e3, "kB")
    } else if b < 1e9 {
        (b / 1e6, "MB")
    } else {
        (b / 1e9, "GB")
    };
    format!("{} {unit}", super::sig3(v))
}

/// A figure of `extra` (or a top-level field) named by the row's `figures`.
fn figure(r: &Record, key: &str) -> Option<String> {
    let v = r
        .extra
        .get(key)
        .cloned()
        .or_else(|| r.get(key))
        .filter(|v| !v.is_null())?;
    Some(match v.as_f64() {
        Some(x) if key.ends_with("bytes") => fmt_bytes(x),
        Some(x) if x != 0.0 && x.abs() < 1e-3 => fmt_sci(x),
        Some(x) => sig3(x),
        None => v.as_str().map_or_else(|| v.to_string(), str::to_string),
    })
}

/// The row's `figures` of every record of the line: ours first, then the peers.
fn figures_cell(line: &Line<'_>) -> Option<String> {
    let mut parts = Vec::new();
    for (role, recs) in [
        (Role::Cpu, &line.cpu),
        (Role::Gpu, &line.gpu),
        (Role::MultiGpu, &line.multi),
        (Role::Peer, &line.peers),
    ] {
        for r in recs.iter() {
            let label = match role {
                Role::Cpu => "ours, CPU".to_string(),
                Role::Gpu => "ours, GPU".to_string(),
                Role::MultiGpu => format!("ours, {}", r.text("backend")),
                Role::Peer => peer_name(r.text("backend")),
            };
            for key in &line.row.figures {
                if let Some(v) = figure(r, key) {
                    parts.push(format!("{label} {key} {v}"));
                }
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn error_cell(line: &Line<'_>) -> Option<String> {
    let with_error: Vec<&&Record> = line
        .ours()
        .filter(|r| r.number("error").is_some())
        .collect();
    let max = with_error
        .iter()
        .filter_map(|r| r.number("error"))
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))))?;
    let tol = line.ours().find_map(|r| r.number("tol"));
    let mut s = fmt_sci(max);
    if let Some(t) = tol {
        s.push_str(&format!(" (tol {})", fmt_sci(t)));
    }
    if line.tol_missed() {
        s = format!("✗ tol missed: {s}");
    }
    Some(s)
}

fn products_cell(line: &Line<'_>) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in line.ours() {
        let v = r
            .get("matvecs")
            .or_else(|| r.extra.get("products").cloned())
            .map(|v| v.to_string());
        if let Some(v) = v {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
    }
    (!seen.is_empty()).then(|| seen.join(" / "))
}

fn floor_cell(line: &Line<'_>) -> Option<String> {
    let from = |recs: &[&Record]| -> Vec<String> {
        recs.iter()
            .filter_map(|r| r.number("floor_ratio"))
            .map(sig3)
            .collect()
    };
    let mut v = from(&line.gpu);
    if v.is_empty() {
        v = from(&line.cpu);
    }
    (!v.is_empty()).then(|| v.join(" / "))
}

/// The seed's time divided by ours (GPU and CPU), withheld when the tolerance was missed.
fn seed_ratio_cell(line: &Line<'_>) -> Option<String> {
    let mut parts = Vec::new();
    for (label, seed, ours) in [
        ("GPU", &line.row.seed_gpu_s, &line.gpu),
        ("CPU", &line.row.seed_cpu_s, &line.cpu),
    ] {
        let (Some(s), Some(o)) = (
            seed.get(&line.precision),
            ours.first().and_then(|r| r.number("time_s")),
        ) else {
            continue;
        };
        if line.withheld() {
            parts.push(format!("{label}: withheld"));
        } else if o > 0.0 {
            parts.push(format!("{label} {}×", sig3(s / o)));
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

struct Col {
    title: &'static str,
    numeric: bool,
    always: bool,
    cell: fn(&Line<'_>) -> Option<String>,
}

fn columns() -> Vec<Col> {
    vec![
        Col {
            title: "row",
            numeric: false,
            always: true,
            cell: |l| l.first.then(|| l.row.label.clone()),
        },
        Col {
            title: "seed (published)",
            numeric: false,
            always: true,
            cell: |l| l.first.then(|| l.row.seed.clone()),
        },
        Col {
            title: "record",
            numeric: false,
            always: true,
            cell: |l| {
                let mut s = format!("`{}` {}", l.case, l.precision);
                if let Some(size) = &l.size {
                    s.push_str(&format!(" ({size})"));
                }
                if l.failed() {
                    s.push_str(" ✗ failed");
                } else if l.tol_missed() {
                    s.push_str(" ✗ tol missed");
                }
                Some(s)
            },
        },
        Col {
            title: "ours, CPU",
            numeric: false,
            always: false,
            cell: |l| times(&l.cpu, Role::Cpu),
        },
        Col {
            title: "ours, 1 GPU",
            numeric: false,
            always: false,
            cell: |l| times(&l.gpu, Role::Gpu),
        },
        Col {
            title: "ours, several GPUs",
            numeric: false,
            always: false,
            cell: |l| times(&l.multi, Role::MultiGpu),
        },
        Col {
            title: "peers / vendor (their time ÷ ours)",
            numeric: false,
            always: false,
            cell: peers_cell,
        },
        Col {
            title: "figures",
            numeric: false,
            always: false,
            cell: figures_cell,
        },
        Col {
            title: "error",
            numeric: false,
            always: false,
            cell: error_cell,
        },
        Col {
            title: "products",
            numeric: true,
            always: false,
            cell: products_cell,
        },
        Col {
            title: "floor ratio",
            numeric: true,
            always: false,
            cell: floor_cell,
        },
        Col {
            title: "seed ÷ ours",
            numeric: false,
            always: false,
            cell: seed_ratio_cell,
        },
    ]
}

/// The lines of every row of a table, in row order.
pub fn table_lines<'a>(table: &'a SeedTable, records: &'a [Record]) -> Vec<Line<'a>> {
    table
        .rows
        .iter()
        .flat_map(|row| expand(row, records))
        .collect()
}

pub(crate) fn markdown_table(out: &mut String, header: &[(&str, bool)], rows: &[Vec<String>]) {
    let titles: Vec<&str> = header.iter().map(|(t, _)| *t).collect();
    out.push_str(&format!("| {} |\n", titles.join(" | ")));
    let rule: Vec<&str> = header
        .iter()
        .map(|(_, n)| if *n { "---:" } else { "---" })
        .collect();
    out.push_str(&format!("|{}|\n", rule.join("|")));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| escape_md(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
}

/// One seed table: heading, verdict (with the check's flags), the rows, their notes.
pub fn render_table(out: &mut String, seed_id: &str, table: &SeedTable, records: &[Record]) {
    let lines = table_lines(table, records);
    out.push_str(&format!(
        "\n### Seed {seed_id}, {}: {}\n\n",
        table.id, table.title
    ));
    let measured = !lines.is_empty();
    let verdict = if measured {
        table.verdict
    } else {
        Verdict::NotMeasured
    };
    out.push_str(&format!("**Verdict: {}.**", verdict.label()));
    if !table.summary.is_empty() {
        out.push_str(&format!(" {}", table.summary));
    }
    out.push('\n');
    if !measured {
        out.push_str(&format!(
            "\n*Not measured*: {}\n",
            table
                .not_measured
                .as_deref()
                .unwrap_or("no record reproduces this table yet.")
        ));
    }
    let flags = super::check::check_table(table, &lines);
    for f in &flags {
        out.push_str(&format!("\n> ⚠ check: {f}\n"));
    }
    out.push('\n');
    if !measured {
        let rows: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|r| vec![r.label.clone(), r.seed.clone(), "not measured".into()])
            .collect();
        if !rows.is_empty() {
            markdown_table(
                out,
                &[("row", false), ("seed (published)", false), ("ours", false)],
                &rows,
            );
        }
        return;
    }
    let cols = columns();
    let mut cells: Vec<Vec<Option<String>>> = Vec::new();
    for row in &table.rows {
        let mut any = false;
        for l in lines.iter().filter(|l| std::ptr::eq(l.row, row)) {
            any = true;
            cells.push(cols.iter().map(|c| (c.cell)(l)).collect());
        }
        if !any {
            // A row no record reproduces still shows its seed figure.
            let mut c: Vec<Option<String>> = vec![None; cols.len()];
            c[0] = Some(row.label.clone());
            c[1] = Some(row.seed.clone());
            c[2] = Some("not measured".into());
            cells.push(c);
        }
    }
    let keep: Vec<usize> = (0..cols.len())
        .filter(|&j| cols[j].always || cells.iter().any(|row| row[j].is_some()))
        .collect();
    let header: Vec<(&str, bool)> = keep
        .iter()
        .map(|&j| (cols[j].title, cols[j].numeric))
        .collect();
    let rows: Vec<Vec<String>> = cells
        .into_iter()
        .map(|row| {
            keep.iter()
                .map(|&j| row[j].clone().unwrap_or_default())
                .collect()
        })
        .collect();
    markdown_table(out, &header, &rows);
    let notes: Vec<String> = table
        .rows
        .iter()
        .filter_map(|r| r.note.as_ref().map(|n| format!("* *{}*: {n}", r.label)))
        .collect();
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
}

/// The seed section of the report: one heading per seed, one subsection per table.
pub fn render_seeds(mapping: &Mapping, records: &[Record]) -> String {
    let mut out = String::new();
    for seed in &mapping.seeds {
        out.push_str(&format!("\n## Seed {}: {}\n", seed.id, seed.title));
        if !seed.hardware.is_empty() {
            out.push_str(&format!("\nSeed hardware: {}\n", seed.hardware));
        }
        for table in &seed.tables {
            render_table(&mut out, &seed.id, table, records);
        }
    }
    out
}

/// One line per table: seed, table, verdict, how many records back it.
pub fn render_index(mapping: &Mapping, records: &[Record]) -> String {
    let mut rows = Vec::new();
    for seed in &mapping.seeds {
        for table in &seed.tables {
            let lines = table_lines(table, records);
            let n: usize = lines.iter().map(|l| l.records().count()).sum();
            let verdict = if lines.is_empty() {
                Verdict::NotMeasured
            } else {
                table.verdict
            };
            let flags = super::check::check_table(table, &lines).len();
            rows.push(vec![
                seed.id.clone(),
                table.id.clone(),
                table.title.clone(),
                verdict.label().to_string(),
                n.to_string(),
                if flags == 0 {
                    String::new()
                } else {
                    format!("⚠ {flags}")
                },
            ]);
        }
    }
    let mut out = String::new();
    markdown_table(
        &mut out,
        &[
            ("seed", false),
            ("table", false),
            ("title", false),
            ("verdict", false),
            ("records", true),
            ("check", false),
        ],
        &rows,
    );
    out
}

/// Every row of the mapping that shows no peer or vendor figure: its seed, table, label,
/// whether our side is measured, and the peer measurement it lacks (the row's
/// `peer_missing`, or a ⚠ where the mapping names none).
pub fn render_missing_peers(mapping: &Mapping, records: &[Record]) -> String {
    let mut rows = Vec::new();
    for seed in &mapping.seeds {
        for table in &seed.tables {
            for row in &table.rows {
                let lines = expand(row, records);
                if lines.iter().any(|l| peers_cell(l).is_some()) {
                    continue;
                }
                rows.push(vec![
                    seed.id.clone(),
                    table.id.clone(),
                    row.label.clone(),
                    if lines.is_empty() {
                        "not measured".into()
                    } else {
                        format!("{} line(s)", lines.len())
                    },
                    row.peer_missing
                        .clone()
                        .unwrap_or_else(|| "⚠ no peer measurement named".into()),
                ]);
            }
        }
    }
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("Every row shows a peer or vendor figure.\n");
        return out;
    }
    markdown_table(
        &mut out,
        &[
            ("seed", false),
            ("table", false),
            ("row", false),
            ("ours", false),
            ("peer or vendor measurement missing", false),
        ],
        &rows,
    );
    out
}

/// Every check flag of the mapping, prefixed with its seed and table (for the terminal).
pub fn all_flags(mapping: &Mapping, records: &[Record]) -> Vec<String> {
    let mut out = Vec::new();
    for seed in &mapping.seeds {
        for table in &seed.tables {
            let lines = table_lines(table, records);
            for f in super::check::check_table(table, &lines) {
                out.push(format!("seed {}, {}: {f}", seed.id, table.id));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::temp_dir;
    use crate::report::mapping::parse;
    use serde_json::json;

    fn record(v: serde_json::Value) -> Record {
        let mut base = json!({
            "suite": "s", "case": "c", "precision": "f64", "device": "h200",
            "size": {"n": 1000}, "reps": 3, "commit": "abc", "date": "2026-11-24"
        });
        for (k, x) in v.as_object().unwrap() {
            base[k] = x.clone();
        }
        Record::from_value(base).unwrap()
    }

    const MAPPING: &str = r#"
[[seed]]
id = "000"
title = "A thesis"
hardware = "Tesla C1060"

[[seed.table]]
id = "Table 9"
title = "Measured"
verdict = "changed"
summary = "One GPU takes 1.0 s, 5.0× faster than the C1060 (5 s)."

[[seed.table.row]]
label = "L = 21"
seed = "1 × C1060 ~5 s"
seed_gpu_s = 5.0
suite = "s"
case = "c"

[[seed.table]]
id = "Table 10"
title = "Never run"
verdict = "not measured"
not_measured = "no four-GPU machine"

[[seed.table.row]]
label = "4 GPUs"
seed = "~2.1 s"
"#;

    fn render(mapping: &str, records: &[Record]) -> String {
        render_seeds(&parse(mapping, "m.toml").unwrap(), records)
    }

    #[test]
    fn a_failed_or_refused_run_is_marked_and_shows_no_speedup() {
        let records = [
            record(json!({"backend": "gpu", "time_s": 1.0, "tol": 1e-5,
                          "extra": {"failed": "below the rounding floor"}})),
            record(json!({"backend": "cusparse", "time_s": 1.5})),
        ];
        let md = render(MAPPING, &records);
        assert!(md.contains("`c` f64 ✗ failed"), "{md}");
        assert!(md.contains("cuSPARSE 1.50 s: ratio withheld"), "{md}");
        assert!(md.contains("GPU: withheld"), "{md}");
        assert!(!md.contains("1.50×") && !md.contains("5.00×"), "{md}");
        // A peer that failed gives no ratio either.
        let records = [
            record(json!({"backend": "gpu", "time_s": 1.0, "tol": 1e-5, "error": 2e-6})),
            record(json!({"backend": "cusparse", "time_s": 1.5, "extra": {"failed": "x"}})),
        ];
        let md = render(MAPPING, &records);
        assert!(md.contains("cuSPARSE 1.50 s: failed"), "{md}");
    }

    #[test]
    fn a_record_that_misses_its_tolerance_is_marked_and_shows_no_speedup() {
        let records = [
            record(
                json!({"backend": "gpu", "time_s": 1.0, "tol": 1e-5, "error": 2e-5,
                          "vendor_ratio": 1.5, "matvecs": 120}),
            ),
            record(json!({"backend": "cusparse", "time_s": 1.5})),
        ];
        let md = render(MAPPING, &records);
        assert!(md.contains("`c` f64 ✗ tol missed"), "{md}");
        assert!(md.contains("✗ tol missed: 2.0e-5 (tol 1.0e-5)"));
        assert!(md.contains("cuSPARSE 1.50 s: ratio withheld"));
        assert!(md.contains("GPU: withheld"));
        assert!(!md.contains("1.50×") && !md.contains("5.00×"), "{md}");

        // Within tolerance the same line shows its speed-ups.
        let records = [
            record(
                json!({"backend": "gpu", "time_s": 1.0, "tol": 1e-5, "error": 2e-6,
                          "vendor_ratio": 1.5, "matvecs": 120}),
            ),
            record(json!({"backend": "cusparse", "time_s": 1.5})),
        ];
        let md = render(MAPPING, &records);
        assert!(!md.contains("tol missed"));
        assert!(md.contains("| `c` f64 | 1.00 s (h200) | cuSPARSE 1.50 s: 1.50× | 2.0e-6 (tol 1.0e-5) | 120 | GPU 5.00× |"), "{md}");
    }

    #[test]
    fn a_verdict_without_backing_record_is_flagged() {
        // No record matches the row: the measured verdict has nothing behind it.
        let md = render(
            MAPPING,
            &[record(
                json!({"backend": "gpu", "case": "other", "time_s": 1.0}),
            )],
        );
        let t9 = &md[md.find("Table 9").unwrap()..md.find("Table 10").unwrap()];
        assert!(t9.contains("**Verdict: not measured.**"), "{t9}");
        assert!(
            t9.contains("⚠ check: the verdict `changed by modern hardware` has no backing record")
        );
        assert!(t9.contains("| L = 21 | 1 × C1060 ~5 s | not measured |"));

        // A number of the verdict that no record backs is flagged; backed ones are not.
        let records = [record(json!({"backend": "gpu", "time_s": 1.0}))];
        let md = render(MAPPING, &records);
        assert!(!md.contains("⚠ check"), "{md}");
        let wrong = MAPPING.replace("takes 1.0 s", "takes 0.5 s");
        let md = render(&wrong, &records);
        assert!(
            md.contains("no record or seed figure backs: `0.5 s`"),
            "{md}"
        );
        assert!(!md.contains("`5.0×`"));

        // A table marked not measured although records reproduce it is flagged too.
        let marked = MAPPING.replace("verdict = \"changed\"", "verdict = \"not measured\"");
        let md = render(&marked, &records);
        assert!(
            md.contains("the verdict says not measured, but 1 record line(s)"),
            "{md}"
        );
    }

    #[test]
    fn figures_of_extra_get_a_column_and_a_backend_filter_narrows_a_row() {
        let mapping = MAPPING.replace(
            "case = \"c\"\n",
            "case = \"c\"\nbackends = [\"gpu\", \"cusparse\"]\nfigures = [\"mem_bytes\"]\n",
        );
        let records = [
            record(json!({"backend": "gpu", "time_s": 1.0, "extra": {"mem_bytes": 4.1e8}})),
            record(json!({"backend": "gpu/SearchPacked", "time_s": 9.0,
                          "extra": {"mem_bytes": 4.1e8}})),
            record(json!({"backend": "cusparse", "time_s": 2.0,
                          "extra": {"mem_bytes": 2.9e9}})),
        ];
        let md = render(&mapping, &records);
        assert!(md.contains("| figures |"), "{md}");
        assert!(
            md.contains("ours, GPU mem_bytes 410 MB; cuSPARSE mem_bytes 2.90 GB"),
            "{md}"
        );
        assert!(md.contains("cuSPARSE 2.00 s: 2.00×"), "{md}");
        assert!(!md.contains("SearchPacked"), "{md}");
        assert_eq!(fmt_bytes(792.0), "792 B");
        assert_eq!(fmt_bytes(3.67e6), "3.67 MB");
    }

    #[test]
    fn rows_without_a_peer_figure_are_listed_with_what_they_lack() {
        let mapping = MAPPING.replace(
            "case = \"c\"\n",
            "case = \"c\"\npeer_missing = \"SciPy expm_multiply on the host\"\n",
        );
        let m = parse(&mapping, "m.toml").unwrap();
        let ours = [record(json!({"backend": "gpu", "time_s": 1.0}))];
        let md = render_missing_peers(&m, &ours);
        assert!(
            md.contains("| 000 | Table 9 | L = 21 | 1 line(s) | SciPy expm_multiply on the host |"),
            "{md}"
        );
        assert!(
            md.contains("| 000 | Table 10 | 4 GPUs | not measured | ⚠ no peer measurement named |"),
            "{md}"
        );
        // A vendor record beside ours takes the row off the list.
        let both = [
            record(json!({"backend": "gpu", "time_s": 1.0})),
            record(json!({"backend": "cusparse", "time_s": 1.5})),
        ];
        let md = render_missing_peers(&m, &both);
        assert!(!md.contains("Table 9"), "{md}");
        // So does a ratio recorded on ours.
        let ratio = [record(
            json!({"backend": "gpu", "time_s": 1.0, "vendor_ratio": 1.2}),
        )];
        assert!(!render_missing_peers(&m, &ratio).contains("Table 9"));
    }

    #[test]
    fn a_missing_table_appears_as_not_measured_with_its_reason() {
        let records = [record(json!({"backend": "gpu", "time_s": 1.0}))];
        let md = render(MAPPING, &records);
        let t10 = &md[md.find("### Seed 000, Table 10").unwrap()..];
        assert!(t10.contains("**Verdict: not measured.**"));
        assert!(t10.contains("*Not measured*: no four-GPU machine"));
        assert!(t10.contains("| 4 GPUs | ~2.1 s | not measured |"));
        assert!(!t10.contains("⚠"));
        let index = render_index(&parse(MAPPING, "m.toml").unwrap(), &records);
        assert!(index.contains("| 000 | Table 9 | Measured | changed by modern hardware | 1 |  |"));
        assert!(index.contains("| 000 | Table 10 | Never run | not measured | 0 |  |"));
    }

    #[test]
    fn peers_are_set_beside_ours_and_unequal_accuracy_is_marked() {
        let mapping = MAPPING.replace(
            "case = \"c\"\n",
            "case = \"c/*\"\npeer_case = \"c/scipy\"\n",
        );
        let records = [
            record(
                json!({"case": "c/leja", "backend": "cpu", "device": "cpu-2core",
                          "time_s": 0.1, "tol": 1e-5, "error": 1e-7, "peer_ratio": 20.0}),
            ),
            record(
                json!({"case": "c/arnoldi", "backend": "cpu", "device": "cpu-2core",
                          "time_s": 0.5, "tol": 1e-5, "error": 1e-13, "peer_ratio": 4.0}),
            ),
            record(
                json!({"case": "c/scipy", "backend": "scipy", "device": "cpu-2core",
                          "time_s": 2.0, "error": 1e-14}),
            ),
            record(json!({"case": "c/leja", "backend": "gpu", "time_s": 0.01,
                          "tol": 1e-5, "error": 1e-7})),
        ];
        let md = render(&mapping, &records);
        assert!(md.contains("| `c/leja` f64 | 100 ms (cpu-2core) | 10.0 ms (h200) | SciPy 2.00 s (err 1.0e-14): 20.0×‡ |"), "{md}");
        assert!(
            md.contains(
                "| `c/arnoldi` f64 | 500 ms (cpu-2core) |  | SciPy 2.00 s (err 1.0e-14): 4.00× |"
            ),
            "{md}"
        );
        // Lines are sorted by case; the first carries the row's label and seed figure.
        let arnoldi = md.find("`c/arnoldi`").unwrap();
        assert!(arnoldi < md.find("`c/leja`").unwrap());
        assert!(md.contains("| L = 21 | 1 × C1060 ~5 s | `c/arnoldi` f64 |"));
    }

    #[test]
    fn the_report_file_holds_seed_tables_plots_and_the_appendix() {
        let results = temp_dir("seed-report");
        std::fs::write(results.join("seed_tables.toml"), MAPPING).unwrap();
        let fock = |backend: &str, n: u64, t: f64| {
            record(json!({"suite": "gpu_fock", "case": format!("hx_m8_n{n}"),
                          "backend": backend, "precision": "c64",
                          "size": {"n": n * 1000, "sites": 8}, "time_s": t}))
        };
        crate::records::store(
            &results,
            vec![
                record(json!({"backend": "gpu", "time_s": 1.0})),
                fock("gpu", 30, 0.004),
                fock("gpu", 40, 0.03),
                fock("cusparse", 30, 0.001),
            ],
        )
        .unwrap();
        let (path, n) = crate::report::write_report(&results).unwrap();
        assert_eq!(n, 4);
        let md = std::fs::read_to_string(path).unwrap();
        let seeds_at = md.find("## Seed 000: A thesis").unwrap();
        let appendix_at = md.find("## Appendix: every record by suite").unwrap();
        assert!(md.find("## Seed tables at a glance").unwrap() < seeds_at);
        assert!(seeds_at < appendix_at);
        assert!(md[appendix_at..].contains("\n### gpu_fock\n"));
        assert!(md.contains("![Bose–Hubbard H·x (seed 001, M = 8): time against the dimension D(N, 8)](plots/fock_time_vs_dim.svg)"));
        let svg = std::fs::read_to_string(results.join("plots/fock_time_vs_dim.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("cuSPARSE CSR"));
        // Plots whose records are absent are neither drawn nor linked.
        assert!(!results.join("plots/matpoly_gflops.svg").exists());
        assert!(!md.contains("matpoly_gflops.svg"));
        std::fs::remove_dir_all(&results).unwrap();
    }
}
