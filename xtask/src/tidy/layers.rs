//! The layer rule: a library crate depends only on crates of lower layers.
//!
//! The layers are the table between the `layers` markers of `docs/architecture.md` (one source
//! of truth; the README's picture is compared with it). Normal and build dependencies count;
//! dev-dependencies do not, because tests may use crates above them.

use super::{marked, read, root};
use cargo_metadata::{DependencyKind, MetadataCommand};
use std::collections::{BTreeMap, BTreeSet};

/// Edges that break the rule today, each with the change that removes it. The test fails when
/// one of them is gone, so that this list only shrinks. Empty: every edge follows the rule.
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[];

/// One row of the layer table.
#[derive(Debug)]
struct Entry {
    layer: u32,
    planned: bool,
}

/// Parses the rows `| <layer> | `crate` `crate` *(planned)* … | what |` of the table.
fn parse_table(block: &str) -> BTreeMap<String, Entry> {
    let mut table = BTreeMap::new();
    for line in block.lines().map(str::trim).filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Ok(layer) = cells[0].parse::<u32>() else {
            continue; // the header and its rule
        };
        let crates = cells.get(1).copied().unwrap_or_default();
        // `a` *(planned)* `b`: the mark belongs to the crate before it.
        let mut parts = crates.split('`').peekable();
        while let Some(part) = parts.next() {
            let name = part.trim();
            if name.is_empty() || name.contains('(') || name.contains('*') {
                continue;
            }
            let planned = parts.peek().is_some_and(|next| next.contains("(planned)"));
            let old = table.insert(name.to_string(), Entry { layer, planned });
            assert!(old.is_none(), "layer table: `{name}` is listed twice");
        }
    }
    table
}

fn layer_table() -> BTreeMap<String, Entry> {
    let doc = read("docs/architecture.md");
    let block = marked(&doc, "layers")
        .expect("docs/architecture.md: the layer table's `<!-- layers:begin/end -->` markers");
    let table = parse_table(block);
    assert!(
        !table.is_empty(),
        "docs/architecture.md: the layer table has no rows"
    );
    table
}

/// Crate names of one line of the README's picture, in order.
fn names_in(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| *w == "xtask" || *w == "matexp" || w.starts_with("matexp-"))
        .map(str::to_string)
        .collect()
}

/// The workspace's packages: name → (publishable, library dependencies on workspace crates).
fn workspace() -> BTreeMap<String, (bool, BTreeSet<String>)> {
    let meta = MetadataCommand::new()
        .current_dir(root())
        .no_deps()
        .exec()
        .expect("cargo metadata");
    let members: BTreeSet<String> = meta
        .workspace_packages()
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    meta.workspace_packages()
        .into_iter()
        .map(|p| {
            let deps = p
                .dependencies
                .iter()
                .filter(|d| d.kind != DependencyKind::Development)
                .filter(|d| members.contains(&d.name))
                .map(|d| d.name.clone())
                .collect();
            let publishable = p.publish.as_ref().is_none_or(|to| !to.is_empty());
            (p.name.to_string(), (publishable, deps))
        })
        .collect()
}

#[test]
fn every_dependency_points_to_a_lower_layer() {
    let table = layer_table();
    let packages = workspace();
    let mut errors = Vec::new();
    let mut seen_violations = BTreeSet::new();
    for (name, (_, deps)) in &packages {
        let Some(entry) = table.get(name) else {
            errors.push(format!(
                "`{name}` is not in the layer table of docs/architecture.md: add it to a layer"
            ));
            continue;
        };
        if entry.planned {
            errors.push(format!(
                "`{name}` exists: drop its *(planned)* mark in docs/architecture.md"
            ));
        }
        for dep in deps {
            let Some(to) = table.get(dep) else { continue };
            if to.layer < entry.layer {
                continue;
            }
            if KNOWN_VIOLATIONS.contains(&(name.as_str(), dep.as_str())) {
                seen_violations.insert((name.as_str(), dep.as_str()));
                continue;
            }
            errors.push(format!(
                "`{name}` (layer {}) depends on `{dep}` (layer {}): a crate may depend only on \
                 lower layers (docs/architecture.md)",
                entry.layer, to.layer
            ));
        }
    }
    for (name, entry) in &table {
        if !entry.planned && !packages.contains_key(name) {
            errors.push(format!(
                "docs/architecture.md lists `{name}`, which is not a workspace crate \
                 (remove it or mark it *(planned)*)"
            ));
        }
    }
    for edge in KNOWN_VIOLATIONS {
        if !seen_violations.contains(edge) {
            errors.push(format!(
                "the known violation {} → {} is gone: delete it from KNOWN_VIOLATIONS \
                 (xtask/src/tidy/layers.rs) and from docs/architecture.md",
                edge.0, edge.1
            ));
        }
    }
    assert!(errors.is_empty(), "layer rule:\n  {}", errors.join("\n  "));
}

#[test]
fn published_crates_need_no_unpublished_crate() {
    let packages = workspace();
    let mut errors = Vec::new();
    for (name, (publishable, deps)) in &packages {
        for dep in deps {
            if *publishable && packages.get(dep).is_some_and(|(p, _)| !p) {
                errors.push(format!(
                    "`{name}` is published but depends on `{dep}` (publish = false); \
                     make it a dev-dependency"
                ));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn readme_picture_lists_the_layers_of_the_table() {
    let table = layer_table();
    let mut want: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for (name, entry) in &table {
        want.entry(entry.layer).or_default().insert(name.clone());
    }
    let readme = read("README.md");
    let block = marked(&readme, "layers").expect("README.md: `<!-- layers:begin/end -->` markers");
    let got: Vec<BTreeSet<String>> = block
        .lines()
        .map(names_in)
        .filter(|names| !names.is_empty())
        .map(|names| names.into_iter().collect())
        .collect();
    // The picture is drawn top down: highest layer first.
    let want: Vec<BTreeSet<String>> = want.into_values().rev().collect();
    assert_eq!(
        got, want,
        "README.md's layer picture (top line = highest layer) differs from the table of \
         docs/architecture.md"
    );
}

#[test]
fn table_rows_and_marks_are_parsed() {
    let t = parse_table(
        "| layer | crates | what |\n| --- | --- | --- |\n\
         | 1 | `a` *(planned)* `b` | x · `c` is not a crate cell |\n| 0 | `core` | y |",
    );
    assert_eq!(t.len(), 3);
    assert!(t["a"].planned && !t["b"].planned);
    assert_eq!((t["a"].layer, t["core"].layer), (1, 0));
    assert_eq!(
        names_in("matexp-gpu   (rt → kernels)  xtask"),
        ["matexp-gpu", "xtask"]
    );
}
