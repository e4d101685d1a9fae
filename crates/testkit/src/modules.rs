//! The module import graph of a crate, and its cycles.
//!
//! Each source file under `src/` is a module (`lib.rs` the root, `a/mod.rs` and `a.rs` the
//! module `a`, `a/b.rs` the module `a::b`). A module depends on another when its code (tests
//! at the end of a file excluded) names a path into it: `crate::…`, `super::…`, `self::…`.
//! Paths that end at a re-export (`pub use child::Item` in a parent) are followed to the module
//! that defines the item, and `mod` / re-export lines themselves are containment, not
//! dependence. Cycles are the strongly connected components of more than one module
//! (Tarjan's algorithm), which [`import_cycles`] returns.
//!
//! ```
//! let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
//! assert!(matexp_testkit::import_cycles(&src).unwrap().is_empty());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (segments after `crate`) → the file's code with comments and tests removed.
type Sources = BTreeMap<Vec<String>, String>;

fn module_of(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?.to_string();
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem);
    }
    Some(parts)
}

/// The code that matters for dependencies: comments, strings' contents and the test module
/// (`#[cfg(test)] mod …`, at the end of a file) removed.
fn code_of(text: &str) -> String {
    let cut = text.match_indices("#[cfg(test)]").find_map(|(i, m)| {
        text[i + m.len()..]
            .trim_start()
            .starts_with("mod ")
            .then_some(i)
    });
    let text = &text[..cut.unwrap_or(text.len())];
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut in_str = false;
        for c in line.chars() {
            if c == '"' {
                in_str = !in_str;
                out.push(c);
            } else if !in_str {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

fn read_sources(src: &Path) -> std::io::Result<Sources> {
    let mut out = Sources::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).unwrap_or(&p);
                if let Some(m) = module_of(rel) {
                    out.insert(m, code_of(&std::fs::read_to_string(&p)?));
                }
            }
        }
    }
    Ok(out)
}

/// Statements `use …;` / `pub use …;` / `mod …;` split off the rest of the code.
fn statements(code: &str) -> Vec<String> {
    code.split(';').map(|s| s.trim().to_string()).collect()
}

fn is_reexport(stmt: &str) -> bool {
    // Attributes on lines of their own (`#[cfg(feature = "mpi")]`, `#[rustfmt::skip]`)
    // precede the statement they qualify.
    let s = without_attributes(stmt);
    s.starts_with("pub use ")
        || s.starts_with("pub(crate) use ")
        || s.starts_with("pub(super) use ")
}

/// `stmt` without the attribute lines (`#[…]`) in front of it.
fn without_attributes(stmt: &str) -> &str {
    let mut s = stmt.trim();
    while s.starts_with("#[") {
        match s.find('\n') {
            Some(i) => s = s[i + 1..].trim_start(),
            None => return "",
        }
    }
    s
}

fn is_mod_decl(stmt: &str) -> bool {
    let last = stmt.lines().last().unwrap_or("").trim();
    last.starts_with("mod ") || last.starts_with("pub mod ") || last.starts_with("pub(crate) mod ")
}

/// Expands `a::{b, c::{d, e as f}}` into `a::b`, `a::c::d`, `a::c::e` (renames dropped).
fn expand(path: &str) -> Vec<String> {
    let path = path.trim();
    let Some(open) = path.find('{') else {
        return vec![path.split_whitespace().next().unwrap_or("").to_string()];
    };
    let prefix: String = path[..open]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inner[start..].trim());
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(&format!("{prefix}{p}")))
        .collect()
}

/// Every `crate::a::b`, `super::x`, `self::y` path written inline in `code`.
fn inline_paths(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at_start = i == 0 || !ident(b[i - 1]);
        let hit = at_start
            && ["crate::", "super::", "self::"]
                .iter()
                .any(|p| b[i..].starts_with(p.as_bytes()));
        if hit {
            let mut j = i;
            while j < b.len() && (ident(b[j]) || b[j] == b':') {
                j += 1;
            }
            out.push(
                String::from_utf8_lossy(&b[i..j])
                    .trim_end_matches(':')
                    .to_string(),
            );
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Absolute segments of a path written in module `at`, or `None` for an external path.
fn absolute(at: &[String], path: &str) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<String>;
    let mut rest = &segs[..];
    match *segs.first()? {
        "crate" => {
            base = Vec::new();
            rest = &segs[1..];
        }
        "self" => {
            base = at.to_vec();
            rest = &segs[1..];
        }
        "super" => {
            base = at.to_vec();
            while rest.first() == Some(&"super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    Some(base)
}

/// Re-exports of each module: (module, item name) → the absolute path re-exported.
fn reexports(sources: &Sources) -> BTreeMap<(Vec<String>, String), Vec<String>> {
    let mut map = BTreeMap::new();
    for (m, code) in sources {
        for st in statements(code).iter().filter(|s| is_reexport(s)) {
            let body = st.split_once("use ").map(|(_, b)| b).unwrap_or("");
            for p in expand(body) {
                // `pub use child::X` in a parent names a child module relative to it.
                let abs = absolute(m, &p).or_else(|| {
                    let first = p.split("::").next()?;
                    let mut child = m.clone();
                    child.push(first.to_string());
                    sources.contains_key(&child).then(|| {
                        let mut v = m.clone();
                        v.extend(p.split("::").map(str::to_string));
                        v
                    })
                });
                if let (Some(abs), Some(name)) = (abs, p.rsplit("::").next()) {
                    map.insert((m.clone(), name.to_string()), abs);
                }
            }
        }
    }
    map
}

/// The module a path points into: its longest module prefix, following re-exports.
fn resolve(
    sources: &Sources,
    reexp: &BTreeMap<(Vec<String>, String), Vec<String>>,
    mut path: Vec<String>,
) -> Option<Vec<String>> {
    for _ in 0..16 {
        let k = (0..=path.len())
            .rev()
            .find(|&k| sources.contains_key(&path[..k]))?;
        let module = path[..k].to_vec();
        match path
            .get(k)
            .and_then(|item| reexp.get(&(module.clone(), item.clone())))
        {
            Some(target) if *target != path[..=k] => {
                let mut next = target.clone();
                next.extend(path[k + 1..].iter().cloned());
                path = next;
            }
            _ => return Some(module),
        }
    }
    None
}

/// Module → modules it depends on.
fn graph(sources: &Sources) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let reexp = reexports(sources);
    let mut g: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (m, code) in sources {
        let deps = g.entry(m.clone()).or_default();
        for st in statements(code) {
            if is_reexport(&st) || is_mod_decl(&st) {
                continue;
            }
            let paths = match st.trim().strip_prefix("use ") {
                Some(body) => expand(body),
                None => inline_paths(&st),
            };
            for p in paths {
                if let Some(target) = absolute(m, &p).and_then(|a| resolve(sources, &reexp, a)) {
                    // A module naming itself, or an ancestor naming a descendant through a
                    // path that lands on itself, is no dependency.
                    if target != *m {
                        deps.insert(target);
                    }
                }
            }
        }
    }
    g
}

/// The import cycles among the modules of the crate whose `src/` folder is `src`: every
/// strongly connected component of more than one module, as sorted `a::b` names.
///
/// # Errors
/// When a source file cannot be read.
pub fn import_cycles(src: &Path) -> std::io::Result<Vec<Vec<String>>> {
    let g = graph(&read_sources(src)?);
    let names: Vec<&Vec<String>> = g.keys().collect();
    let index: BTreeMap<&Vec<String>, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| g[*n].iter().filter_map(|d| index.get(d).copied()).collect())
        .collect();
    Ok(tarjan(&adj)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut v: Vec<String> = c
                .into_iter()
                .map(|i| {
                    if names[i].is_empty() {
                        "crate".to_string()
                    } else {
                        names[i].join("::")
                    }
                })
                .collect();
            v.sort();
            v
        })
        .collect())
}

/// Strongly connected components (Tarjan, 1972), iteratively.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adj[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            let p = dir.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    fn temp(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("matexp-modules-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_two_module_cycle_is_found_and_a_chain_is_not() {
        let d = temp("cycle");
        write(
            &d,
            &[
                ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;\n"),
                ("a.rs", "use crate::b::B;\npub struct A;\n"),
                ("b.rs", "pub struct B;\nfn f() { let _ = crate::a::A; }\n"),
                ("c.rs", "use crate::b::B;\n"),
            ],
        );
        assert_eq!(import_cycles(&d).unwrap(), vec![vec!["a", "b"]]);
        write(&d, &[("b.rs", "pub struct B;\n")]);
        assert!(import_cycles(&d).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn reexports_are_followed_to_the_defining_module() {
        // rt re-exports Device from rt::device; kernels uses crate::rt::Device; rt::device
        // uses nothing of kernels: no cycle, although rt's facade names its children.
        let d = temp("reexport");
        write(
            &d,
            &[
                ("lib.rs", "pub mod rt;\npub mod kernels;\n"),
                ("rt/mod.rs", "mod device;\npub use device::Device;\n"),
                ("rt/device.rs", "pub struct Device;\n"),
                ("kernels/mod.rs", "use crate::rt::Device;\n"),
            ],
        );
        assert!(import_cycles(&d).unwrap().is_empty());
        // Now the device names the kernels: a real cycle through the facade.
        write(
            &d,
            &[(
                "rt/device.rs",
                "pub struct Device;\nfn f() { crate::kernels::g(); }\n",
            )],
        );
        assert_eq!(
            import_cycles(&d).unwrap(),
            vec![vec!["kernels", "rt::device"]]
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_reexport_under_an_attribute_is_containment() {
        // comm re-exports MpiComm from comm::mpi behind a feature; comm::mpi uses comm's
        // trait: the parent names its child only to re-export it, so no cycle.
        let d = temp("attr-reexport");
        write(
            &d,
            &[
                (
                    "lib.rs",
                    "pub mod comm;
",
                ),
                (
                    "comm/mod.rs",
                    "pub trait C {}\n#[cfg(feature = \"mpi\")]\nmod mpi;\n#[cfg(feature = \"mpi\")]\npub use self::mpi::MpiComm;\n",
                ),
                ("comm/mpi.rs", "use super::C;\npub struct MpiComm;\n"),
            ],
        );
        assert!(import_cycles(&d).unwrap().is_empty());
        // The same path written in code is a use, and the pair a cycle.
        write(
            &d,
            &[(
                "comm/mod.rs",
                "mod mpi;\npub trait C {}\nfn f() { let _ = self::mpi::MpiComm; }\n",
            )],
        );
        assert_eq!(import_cycles(&d).unwrap(), vec![vec!["comm", "comm::mpi"]]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn nested_use_trees_expand() {
        assert_eq!(
            expand("crate::a::{b, c::{d, e as f}}"),
            ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]
        );
    }
}
