//! The seed-table mapping (`bench-results/seed_tables.toml`): which table of which seed paper
//! a record reproduces, the figure the paper published for it, and the human verdict.
//!
//! The file is edited by hand and read here as plain TOML values, so that an error names the
//! seed, table and row it occurred in.

use crate::records::Record;
use serde_json::Value;
use std::collections::BTreeMap;

/// The whole mapping: seeds in file order.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    pub seeds: Vec<Seed>,
}

/// One seed paper.
#[derive(Debug, Clone, Default)]
pub struct Seed {
    pub id: String,
    pub title: String,
    /// The hardware the seed measured on, as the paper states it.
    pub hardware: String,
    pub tables: Vec<SeedTable>,
}

/// What a human concluded from a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Confirmed,
    Refuted,
    /// The claim held on the seed's hardware and no longer does (or holds far more strongly).
    Changed,
    NotMeasured,
    /// Measured, but beyond what the seed published (no figure to confirm or refute).
    Extension,
}

impl Verdict {
    fn parse(s: &str) -> Option<Verdict> {
        match s.trim().to_ascii_lowercase().as_str() {
            "confirmed" => Some(Verdict::Confirmed),
            "refuted" => Some(Verdict::Refuted),
            "changed" | "changed by modern hardware" => Some(Verdict::Changed),
            "not measured" => Some(Verdict::NotMeasured),
            "extension" | "beyond the seed" => Some(Verdict::Extension),
            _ => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Changed => "changed by modern hardware",
            Verdict::NotMeasured => "not measured",
            Verdict::Extension => "beyond the seed (no published figure)",
        }
    }
}

/// One table (or figure) of a seed.
#[derive(Debug, Clone)]
pub struct SeedTable {
    /// As the paper numbers it: `Table 9`, `Fig. 5.6`, `Table I`.
    pub id: String,
    pub title: String,
    pub verdict: Verdict,
    /// The verdict's reasoning; numbers in it with a unit of time, a `×` or a rate are
    /// checked against the records (see `check`).
    pub summary: String,
    /// Why nothing is measured (shown when no row has a record).
    pub not_measured: Option<String>,
    pub rows: Vec<RowSpec>,
}

/// A seed figure that may differ by precision: one number for all, or one per precision.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum PerPrecision {
    #[default]
    None,
    All(f64),
    By(BTreeMap<String, f64>),
}

impl PerPrecision {
    pub fn get(&self, precision: &str) -> Option<f64> {
        match self {
            PerPrecision::None => None,
            PerPrecision::All(x) => Some(*x),
            PerPrecision::By(m) => m.get(precision).copied(),
        }
    }

    pub fn values(&self) -> Vec<f64> {
        match self {
            PerPrecision::None => Vec::new(),
            PerPrecision::All(x) => vec![*x],
            PerPrecision::By(m) => m.values().copied().collect(),
        }
    }
}

/// Which records a row of a seed table takes.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub suite: String,
    /// The case: exact, or a pattern where `*` matches any text.
    pub case: String,
    pub precision: Option<String>,
    /// Every key given must be present in the record's `size` with an equal number or text.
    pub size: BTreeMap<String, Value>,
    /// A device pattern (`*` wildcards).
    pub device: Option<String>,
    /// Backend patterns (`*` wildcards); a record must match one of them. Empty: any backend.
    pub backends: Vec<String>,
}

impl Selector {
    pub fn matches(&self, r: &Record) -> bool {
        if r.text("suite") != self.suite || !glob(&self.case, r.text("case")) {
            return false;
        }
        if let Some(p) = &self.precision {
            if r.text("precision") != p {
                return false;
            }
        }
        if let Some(d) = &self.device {
            if !glob(d, r.text("device")) {
                return false;
            }
        }
        if !self.backends.is_empty() && !self.backends.iter().any(|b| glob(b, r.text("backend"))) {
            return false;
        }
        let size = Some(&r.size);
        self.size.iter().all(|(k, want)| {
            let Some(have) = size.and_then(|s| s.get(k)) else {
                return false;
            };
            match (have.as_f64(), want.as_f64()) {
                (Some(a), Some(b)) => a == b,
                _ => have == want,
            }
        })
    }
}

/// One row of a seed table: the published figure and the records that reproduce it.
#[derive(Debug, Clone, Default)]
pub struct RowSpec {
    pub label: String,
    /// The seed's figure as published (time, hardware, error), quoted with its units.
    pub seed: String,
    /// The seed's CPU and GPU times in seconds, for the "seed ÷ ours" column.
    pub seed_cpu_s: PerPrecision,
    pub seed_gpu_s: PerPrecision,
    pub select: Selector,
    /// Further peer records set beside every line of the row (e.g. SciPy's own case).
    pub peers: Option<Selector>,
    /// Backends that count as ours on the CPU and on one GPU.
    pub cpu: Vec<String>,
    pub gpu: Vec<String>,
    /// Figures of the records' `extra` (or top-level fields) shown in a column of their own,
    /// e.g. `mem_bytes` for a memory comparison.
    pub figures: Vec<String>,
    /// Which peer or vendor measurement the row still lacks (listed in the report while no
    /// line of the row shows one).
    pub peer_missing: Option<String>,
    pub note: Option<String>,
}

impl RowSpec {
    /// What a record of this row is: ours on the CPU, on one GPU, on several, or a peer.
    pub fn role(&self, r: &Record) -> Role {
        let b = r.text("backend");
        if self.cpu.iter().any(|c| c == b) {
            Role::Cpu
        } else if self.gpu.iter().any(|g| g == b) {
            Role::Gpu
        } else if b.starts_with("gpu×") || b.starts_with("gpux") {
            Role::MultiGpu
        } else {
            Role::Peer
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Cpu,
    Gpu,
    MultiGpu,
    Peer,
}

/// `pattern` with `*` matching any (possibly empty) text; otherwise equality.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

fn to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
        toml::Value::Datetime(d) => Value::String(d.to_string()),
    }
}

/// Reads fields of one TOML table, naming where it sits in errors.
struct Fields<'a> {
    table: &'a toml::Table,
    at: String,
}

impl<'a> Fields<'a> {
    fn new(v: &'a toml::Value, at: String) -> Result<Self, String> {
        match v {
            toml::Value::Table(table) => Ok(Fields { table, at }),
            _ => Err(format!("{at}: expected a table")),
        }
    }

    fn known(&self, keys: &[&str]) -> Result<(), String> {
        match self.table.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(format!(
                "{}: unknown field `{k}` (known: {})",
                self.at,
                keys.join(", ")
            )),
            None => Ok(()),
        }
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>, String> {
        match self.table.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(_) => Err(format!("{}: `{key}` must be a string", self.at)),
        }
    }

    fn str(&self, key: &str) -> Result<String, String> {
        self.opt_str(key)?
            .ok_or_else(|| format!("{}: missing `{key}`", self.at))
    }

    fn array(&self, key: &str) -> Result<&'a [toml::Value], String> {
        match self.table.get(key) {
            None => Ok(&[]),
            Some(toml::Value::Array(a)) => Ok(a),
            Some(_) => Err(format!("{}: `{key}` must be an array", self.at)),
        }
    }

    fn strings(&self, key: &str, default: &[&str]) -> Result<Vec<String>, String> {
        if !self.table.contains_key(key) {
            return Ok(default.iter().map(|s| s.to_string()).collect());
        }
        self.array(key)?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}: `{key}` must hold strings", self.at))
            })
            .collect()
    }

    fn per_precision(&self, key: &str) -> Result<PerPrecision, String> {
        let number = |v: &toml::Value| match v {
            toml::Value::Float(f) => Some(*f),
            toml::Value::Integer(i) => Some(*i as f64),
            _ => None,
        };
        match self.table.get(key) {
            None => Ok(PerPrecision::None),
            Some(toml::Value::Table(t)) => t
                .iter()
                .map(|(k, v)| {
                    number(v).map(|x| (k.clone(), x)).ok_or_else(|| {
                        format!("{}: `{key}.{k}` must be a number of seconds", self.at)
                    })
                })
                .collect::<Result<_, _>>()
                .map(PerPrecision::By),
            Some(v) => number(v).map(PerPrecision::All).ok_or_else(|| {
                format!(
                    "{}: `{key}` must be seconds or a table of seconds by precision",
                    self.at
                )
            }),
        }
    }
}

fn selector(f: &Fields<'_>, prefix: &str) -> Result<Option<Selector>, String> {
    let key = |k: &str| format!("{prefix}{k}");
    let Some(case) = f.opt_str(&key("case"))? else {
        return Ok(None);
    };
    let suite = match f.opt_str(&key("suite"))? {
        Some(s) => s,
        None if !prefix.is_empty() => f.str("suite")?,
        None => return Err(format!("{}: missing `suite`", f.at)),
    };
    let size = match f.table.get(&key("size")) {
        None => BTreeMap::new(),
        Some(toml::Value::Table(t)) => t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect(),
        Some(_) => return Err(format!("{}: `{}` must be a table", f.at, key("size"))),
    };
    Ok(Some(Selector {
        suite,
        case,
        precision: f.opt_str(&key("precision"))?,
        size,
        device: f.opt_str(&key("device"))?,
        backends: f.strings(&key("backends"), &[])?,
    }))
}

fn row(v: &toml::Value, at: String) -> Result<RowSpec, String> {
    let f = Fields::new(v, at)?;
    f.known(&[
        "label",
        "seed",
        "seed_cpu_s",
        "seed_gpu_s",
        "suite",
        "case",
        "precision",
        "size",
        "device",
        "backends",
        "peer_suite",
        "peer_case",
        "peer_precision",
        "peer_size",
        "peer_device",
        "peer_backends",
        "cpu",
        "gpu",
        "figures",
        "peer_missing",
        "note",
    ])?;
    let select = selector(&f, "")?.unwrap_or_default();
    Ok(RowSpec {
        label: f.str("label")?,
        seed: f.str("seed")?,
        seed_cpu_s: f.per_precision("seed_cpu_s")?,
        seed_gpu_s: f.per_precision("seed_gpu_s")?,
        select,
        peers: selector(&f, "peer_")?,
        cpu: f.strings("cpu", &["cpu"])?,
        gpu: f.strings("gpu", &["gpu"])?,
        figures: f.strings("figures", &[])?,
        peer_missing: f.opt_str("peer_missing")?,
        note: f.opt_str("note")?,
    })
}

/// Parses the mapping file's text.
pub fn parse(text: &str, source: &str) -> Result<Mapping, String> {
    let doc: toml::Table = text.parse().map_err(|e| format!("{source}: {e}"))?;
    let root = toml::Value::Table(doc);
    let top = Fields::new(&root, source.to_string())?;
    top.known(&["seed"])?;
    let mut seeds = Vec::new();
    for (i, s) in top.array("seed")?.iter().enumerate() {
        let f = Fields::new(s, format!("{source}: seed #{}", i + 1))?;
        f.known(&["id", "title", "hardware", "table"])?;
        let id = f.str("id")?;
        let f = Fields::new(s, format!("{source}: seed {id}"))?;
        let mut tables = Vec::new();
        for (j, t) in f.array("table")?.iter().enumerate() {
            let tf = Fields::new(t, format!("{}: table #{}", f.at, j + 1))?;
            tf.known(&["id", "title", "verdict", "summary", "not_measured", "row"])?;
            let tid = tf.str("id")?;
            let tf = Fields::new(t, format!("{}: {tid}", f.at))?;
            let verdict_text = tf.str("verdict")?;
            let verdict = Verdict::parse(&verdict_text).ok_or_else(|| {
                format!(
                    "{}: verdict `{verdict_text}` is none of confirmed, refuted, changed, \
                     not measured, extension",
                    tf.at
                )
            })?;
            let rows = tf
                .array("row")?
                .iter()
                .enumerate()
                .map(|(k, r)| row(r, format!("{}: row #{}", tf.at, k + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            tables.push(SeedTable {
                id: tid,
                title: tf.str("title")?,
                verdict,
                summary: tf.opt_str("summary")?.unwrap_or_default(),
                not_measured: tf.opt_str("not_measured")?,
                rows,
            });
        }
        seeds.push(Seed {
            title: f.str("title")?,
            hardware: f.opt_str("hardware")?.unwrap_or_default(),
            id,
            tables,
        });
    }
    Ok(Mapping { seeds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_wildcards() {
        assert!(glob("a", "a"));
        assert!(!glob("a", "ab"));
        assert!(glob("tc/*_k50", "tc/barabasi_k50"));
        assert!(!glob("tc/*_k50", "tc/europe_osm_k20"));
        assert!(glob("*", ""));
        assert!(glob("x*y*z", "x12y34z"));
        assert!(!glob("x*y*z", "x12z"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn parse_reads_rows_and_rejects_unknown_fields() {
        let text = r#"
[[seed]]
id = "000"
title = "Thesis"
[[seed.table]]
id = "Table 9"
title = "Spin bath"
verdict = "changed"
summary = "fast"
[[seed.table.row]]
label = "L = 21"
seed = "C1060 ~15 s"
seed_gpu_s = { c32 = 15, c64 = 23 }
suite = "leja_e2e_gpu"
case = "T10_*"
size = { n = 2097152 }
peer_case = "scipy"
"#;
        let m = parse(text, "m.toml").unwrap();
        let t = &m.seeds[0].tables[0];
        assert_eq!(t.verdict, Verdict::Changed);
        let r = &t.rows[0];
        assert_eq!(r.seed_gpu_s.get("c64"), Some(23.0));
        assert_eq!(r.seed_cpu_s.get("c64"), None);
        assert_eq!(r.select.case, "T10_*");
        assert_eq!(r.peers.as_ref().unwrap().suite, "leja_e2e_gpu");
        assert_eq!(r.gpu, vec!["gpu".to_string()]);

        assert!(r.select.backends.is_empty() && r.figures.is_empty());
        assert_eq!(r.peer_missing, None);

        let with = text.replace(
            "peer_case = \"scipy\"\n",
            "peer_case = \"scipy\"\nbackends = [\"gpu\", \"gpu/Search*\"]\n\
             figures = [\"mem_bytes\"]\npeer_missing = \"SciPy at L = 21\"\n",
        );
        let m = parse(&with, "m.toml").unwrap();
        let r = &m.seeds[0].tables[0].rows[0];
        assert_eq!(r.select.backends, vec!["gpu", "gpu/Search*"]);
        assert!(r.peers.as_ref().unwrap().backends.is_empty());
        assert_eq!(r.figures, vec!["mem_bytes"]);
        assert_eq!(r.peer_missing.as_deref(), Some("SciPy at L = 21"));
        let rec = |backend: &str| {
            Record::from_value(serde_json::json!({
                "suite": "leja_e2e_gpu", "case": "T10_x", "backend": backend,
                "precision": "c64", "device": "h200", "size": {"n": 2097152},
                "time_s": 1.0, "reps": 1, "commit": "abc", "date": "2026-11-24"
            }))
            .unwrap()
        };
        assert!(r.select.matches(&rec("gpu")));
        assert!(r.select.matches(&rec("gpu/SearchPacked")));
        assert!(!r.select.matches(&rec("cusparse")));

        let bad = text.replace("label =", "lable =");
        let e = parse(&bad, "m.toml").unwrap_err();
        assert!(
            e.contains("seed 000: Table 9: row #1: unknown field `lable`"),
            "{e}"
        );
        let bad = text.replace("\"changed\"", "\"maybe\"");
        assert!(
            parse(&bad, "m.toml")
                .unwrap_err()
                .contains("verdict `maybe`")
        );
    }
}
