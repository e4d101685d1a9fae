//! The README's short table of headline results, written between its `report` markers.
//!
//! Which records are headlines is chosen by hand in `bench-results/headline.toml`; the
//! figures come from the records only, so a rerun and `cargo xtask report` update the README
//! without editing prose.

use super::{escape_md, fmt_sci, fmt_time, sig3};
use crate::records::Record;
use serde::Deserialize;
use std::path::Path;

pub const BEGIN: &str = "<!-- report:begin -->";
pub const END: &str = "<!-- report:end -->";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    row: Vec<Row>,
}

/// One headline: a label and the exact key of its record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    what: String,
    suite: String,
    case: String,
    backend: String,
    precision: String,
    device: String,
}

impl Row {
    fn matches(&self, r: &Record) -> bool {
        [
            ("suite", &self.suite),
            ("case", &self.case),
            ("backend", &self.backend),
            ("precision", &self.precision),
            ("device", &self.device),
        ]
        .iter()
        .all(|(field, want)| r.text(field) == want.as_str())
    }
}

fn ratio(r: &Record, field: &str) -> String {
    r.number(field)
        .map(|x| format!("{}×", sig3(x)))
        .unwrap_or_default()
}

/// The markdown table for the rows of `spec` (TOML text) over `records`.
pub fn render(spec: &str, records: &[Record]) -> Result<String, String> {
    let spec: Spec = toml::from_str(spec).map_err(|e| format!("headline.toml: {e}"))?;
    let mut out = String::from(
        "| what | device | time | products | error | of its floor | vendor ÷ ours |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    for row in &spec.row {
        // The latest record of the key; on equal dates the last one read.
        let r = records
            .iter()
            .filter(|r| row.matches(r))
            .max_by(|a, b| a.text("date").cmp(b.text("date")))
            .ok_or_else(|| {
                format!(
                    "headline.toml: no record for `{}` ({} / {} / {} / {} / {})",
                    row.what, row.suite, row.case, row.backend, row.precision, row.device
                )
            })?;
        let cells = [
            escape_md(&row.what),
            row.device.clone(),
            r.number("time_s").map(fmt_time).unwrap_or_default(),
            r.number("matvecs")
                .map(|m| m.to_string())
                .unwrap_or_default(),
            r.number("error").map(fmt_sci).unwrap_or_default(),
            ratio(r, "floor_ratio"),
            ratio(r, "vendor_ratio"),
        ];
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    Ok(out)
}

/// `readme` with the text between the markers replaced by `table`.
pub fn splice(readme: &str, table: &str) -> Result<String, String> {
    let start = readme
        .find(BEGIN)
        .ok_or_else(|| format!("README.md has no `{BEGIN}` marker"))?
        + BEGIN.len();
    let stop = start
        + readme[start..]
            .find(END)
            .ok_or_else(|| format!("README.md has no `{END}` marker"))?;
    Ok(format!("{}\n{table}{}", &readme[..start], &readme[stop..]))
}

/// The README as `cargo xtask report` writes it from the records under `results`.
pub fn fresh_readme(root: &Path, records: &[Record]) -> Result<String, String> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let spec = read(&root.join("bench-results/headline.toml"))?;
    splice(&read(&root.join("README.md"))?, &render(&spec, records)?)
}

/// Rewrites the README's headline table.
pub fn write_readme(root: &Path, records: &[Record]) -> Result<(), String> {
    let text = fresh_readme(root, records)?;
    let path = root.join("README.md");
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_between_the_markers() {
        let readme = format!("a\n{BEGIN}\nold\n{END}\nb");
        assert_eq!(
            splice(&readme, "new\n").unwrap(),
            format!("a\n{BEGIN}\nnew\n{END}\nb")
        );
    }
}
