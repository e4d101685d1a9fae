//! Benchmark records on disk: reading the JSON-lines files that benchmark runs write, and
//! merging them into the committed `bench-results/<device>/<suite>.json` arrays.
//!
//! A record is `matexp_records::Record`, the type the benchmark suites write (`suite`,
//! `case`, `backend`, `device`, `precision`, `size`, `time_s`, `reps`, optional `matvecs`,
//! `tol`, `error`, `floor_ratio`, `vendor_ratio`, `peer_ratio`, `extra`, and `commit`,
//! `date`). Fields it does not know (added later, for example by the GPU bundle) are kept in
//! `Record::other` and survive a merge unchanged; the type's crate depends on serde only, so
//! xtask need not compile the benchmark crate.

use crate::util::path_component;
pub use matexp_records::{KEY_FIELDS, MeasurementKey, PEER_RATIOS, Record};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Keeps the [`PEER_RATIOS`] that `new` lacks and `older` (the stored record of the same
/// measurement) has, with where they came from in `extra.<ratio>_from`.
fn carry_peer_ratios(new: &mut Record, older: &Record) {
    for ratio in PEER_RATIOS {
        let Some(value) = older.number(ratio) else {
            continue;
        };
        if new.number(ratio).is_some() {
            continue;
        }
        let from_field = format!("{ratio}_from");
        let from = older
            .extra
            .get(&from_field)
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or_else(|| Value::String(format!("{} {}", older.commit, older.date)));
        if let Some(slot) = new.ratio_mut(ratio) {
            *slot = Some(value);
        }
        new.extra.insert(from_field, from);
    }
}

/// Compares strings so that digit runs compare as numbers (`n=200` before `n=1000`), which
/// keeps tables in the order a reader expects.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let db = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let (na, nb) = (
                    a[..da].trim_start_matches('0'),
                    b[..db].trim_start_matches('0'),
                );
                let ord = na
                    .len()
                    .cmp(&nb.len())
                    .then_with(|| na.cmp(nb))
                    .then_with(|| da.cmp(&db));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

/// The order of records in files and tables: suite, case, backend, precision, device, then
/// the other defining fields (`size` before the rest), each compared naturally, so that
/// `{"n":64}` sorts before `{"n":128}`.
pub fn record_order(a: &Record, b: &Record) -> Ordering {
    fn defining(r: &Record) -> Vec<(String, String)> {
        let mut rest = r.measurement_key().0.split_off(KEY_FIELDS.len());
        // `size` is what a reader scans a table by; it leads the remaining fields.
        rest.sort_by_key(|(k, _)| (k != "size", k.clone()));
        rest
    }
    let leading = a
        .key()
        .iter()
        .zip(b.key().iter())
        .map(|(x, y)| natural_cmp(x, y))
        .find(|o| *o != Ordering::Equal);
    if let Some(o) = leading {
        return o;
    }
    let (da, db) = (defining(a), defining(b));
    da.iter()
        .zip(&db)
        .map(|((ka, va), (kb, vb))| natural_cmp(ka, kb).then_with(|| natural_cmp(va, vb)))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or_else(|| da.len().cmp(&db.len()))
}

/// Merges `incoming` into `existing`: an incoming record replaces the existing record with
/// the same [`MeasurementKey`] (so size variants of one case, or runs at two tolerances, are
/// separate records); among incoming records with the same key the last wins. A replaced
/// record's [`PEER_RATIOS`] survive when the new record has none (the peer was not timed this
/// run), and peer rows themselves (`backend = "scipy"`, …) are separate records that a run
/// without the peer leaves alone. The result is sorted by [`record_order`] so that files diff
/// stably.
pub fn merge(existing: Vec<Record>, incoming: Vec<Record>) -> Vec<Record> {
    let mut by_key: BTreeMap<MeasurementKey, Record> = BTreeMap::new();
    for r in existing {
        by_key.insert(r.measurement_key(), r);
    }
    let stored = by_key.clone();
    for mut r in incoming {
        let key = r.measurement_key();
        if let Some(older) = stored.get(&key) {
            carry_peer_ratios(&mut r, older);
        }
        by_key.insert(key, r);
    }
    let mut out: Vec<Record> = by_key.into_values().collect();
    out.sort_by(record_order);
    out
}

/// Parses a JSON-lines text (one record per non-empty line). Lines that are not records are
/// reported as warnings with `source:line` (a run killed mid-write leaves a torn last line)
/// and skipped.
pub fn parse_jsonl(text: &str, source: &str) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Value>(line)
            .map_err(|e| e.to_string())
            .and_then(Record::from_value);
        match parsed {
            Ok(r) => records.push(r),
            Err(e) => warnings.push(format!("{source}:{}: skipped: {e}", i + 1)),
        }
    }
    (records, warnings)
}

/// Parses a JSON file holding an array of records (or a single record object).
pub fn parse_json(text: &str, source: &str) -> Result<Vec<Record>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("{source}: not valid JSON: {e}"))?;
    let items = match value {
        Value::Array(items) => items,
        obj @ Value::Object(_) => vec![obj],
        other => {
            return Err(format!(
                "{source}: expected an array of records, found {}",
                matexp_records::kind(&other)
            ));
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| Record::from_value(v).map_err(|e| format!("{source}: record {i}: {e}")))
        .collect()
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Files under `dir` (recursively) whose names end in `.json` or `.jsonl`, sorted.
fn record_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot list {}: {e}", d.display()))?
                .path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads every record file under `dir`, recursively: `*.jsonl` line by line, `*.json` as an
/// array of records. JSON files that hold something other than records (other output of a
/// run) are skipped with a warning, as are torn lines. Returns the records and the warnings.
pub fn read_folder(dir: &Path) -> Result<(Vec<Record>, Vec<String>), String> {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for path in record_files(dir)? {
        let text = read(&path)?;
        let source = path.display().to_string();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let (r, w) = parse_jsonl(&text, &source);
            records.extend(r);
            warnings.extend(w);
        } else {
            match parse_json(&text, &source) {
                Ok(r) => records.extend(r),
                Err(e) => warnings.push(format!("skipped (not a record file): {e}")),
            }
        }
    }
    Ok((records, warnings))
}

/// Every record stored under `results` (`<results>/<device>/<suite>.json`). Unlike
/// [`read_folder`], a malformed file here is an error: these files are the project's record.
pub fn load_results(results: &Path) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    if !results.exists() {
        return Ok(records);
    }
    let entries = std::fs::read_dir(results)
        .map_err(|e| format!("cannot list {}: {e}", results.display()))?;
    let mut devices: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    devices.sort();
    for device in devices {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&device)
            .map_err(|e| format!("cannot list {}: {e}", device.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            records.extend(parse_json(&read(&file)?, &file.display().to_string())?);
        }
    }
    Ok(records)
}

/// Where the records of `device` and `suite` live under `results`.
pub fn results_file(results: &Path, device: &str, suite: &str) -> PathBuf {
    results
        .join(path_component(device))
        .join(format!("{}.json", path_component(suite)))
}

/// Serializes records as a pretty-printed JSON array with a trailing newline.
pub fn to_json_text(records: &[Record]) -> String {
    let array = Value::Array(records.iter().map(Record::to_value).collect());
    let mut text = serde_json::to_string_pretty(&array).unwrap_or_else(|_| "[]".into());
    text.push('\n');
    text
}

/// Merges `incoming` into the files under `results`, one file per (device, suite), and
/// returns the files written with the number of records each received.
pub fn store(results: &Path, incoming: Vec<Record>) -> Result<Vec<(PathBuf, usize)>, String> {
    let mut groups: BTreeMap<PathBuf, Vec<Record>> = BTreeMap::new();
    for r in incoming {
        groups
            .entry(results_file(results, r.text("device"), r.text("suite")))
            .or_default()
            .push(r);
    }
    let mut written = Vec::new();
    for (path, new) in groups {
        let existing = if path.exists() {
            parse_json(&read(&path)?, &path.display().to_string())?
        } else {
            Vec::new()
        };
        let count = new.len();
        let merged = merge(existing, new);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&path, to_json_text(&merged))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push((path, count));
    }
    Ok(written)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A record as `matexp_benches::Record` serializes it.
    pub(crate) fn rec(suite: &str, case: &str, backend: &str, device: &str, time: f64) -> Record {
        Record::from_value(json!({
            "suite": suite, "case": case, "backend": backend, "device": device,
            "precision": "f64", "size": {"n": 1000}, "time_s": time, "reps": 100,
            "commit": "abc123", "date": "2026-11-22"
        }))
        .unwrap()
    }

    /// Sets (or with `null` clears) one field of `r`, as a writer would have written it.
    pub(crate) fn set(r: &mut Record, field: &str, value: Value) {
        let mut v = r.to_value();
        v[field] = value;
        *r = Record::from_value(v).unwrap();
    }

    /// A fresh empty directory under the system temp dir.
    pub(crate) fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "matexp-xtask-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn invalid_records_are_rejected_with_the_reason() {
        let missing = Record::from_value(json!({"suite": "s", "case": "c", "time_s": 1.0}));
        assert!(missing.unwrap_err().contains("backend"));
        let wrong = Record::from_value(json!({
            "suite": "s", "case": 3, "backend": "cpu", "precision": "f64", "device": "d",
            "time_s": 1.0
        }));
        assert!(wrong.unwrap_err().contains("`case`"));
        let no_time = Record::from_value(json!({
            "suite": "s", "case": "c", "backend": "cpu", "precision": "f64", "device": "d",
            "time_s": null
        }));
        assert!(no_time.unwrap_err().contains("time_s"));
        assert!(Record::from_value(json!([1, 2])).is_err());
    }

    #[test]
    fn natural_order_compares_digit_runs_as_numbers() {
        let mut v = vec!["n=1000", "n=200", "n=30", "b", "a10", "a9", "n=0200"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["a9", "a10", "b", "n=30", "n=200", "n=0200", "n=1000"]);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }

    #[test]
    fn merge_replaces_same_key_and_keeps_others() {
        let old = vec![
            rec("spmv", "n=1000", "cpu", "cpu-2core", 1.0),
            rec("spmv", "n=200", "cpu", "cpu-2core", 2.0),
            rec("spmv", "n=200", "gpu", "h200", 3.0),
        ];
        let new = vec![
            rec("spmv", "n=200", "cpu", "cpu-2core", 0.5),
            rec("spmv", "n=200", "cpu", "cpu-2core", 0.25),
            rec("spmv", "n=50", "cpu", "cpu-2core", 0.1),
        ];
        let merged = merge(old, new);
        let summary: Vec<(String, String, f64)> = merged
            .iter()
            .map(|r| {
                (
                    r.text("case").to_string(),
                    r.text("backend").to_string(),
                    r.number("time_s").unwrap(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("n=50".to_string(), "cpu".to_string(), 0.1),
                ("n=200".into(), "cpu".into(), 0.25),
                ("n=200".into(), "gpu".into(), 3.0),
                ("n=1000".into(), "cpu".into(), 1.0),
            ]
        );
    }

    #[test]
    fn precision_distinguishes_records() {
        let mut single = rec("spmv", "n=200", "cpu", "d", 1.0);
        set(&mut single, "precision", json!("f32"));
        let merged = merge(vec![single], vec![rec("spmv", "n=200", "cpu", "d", 2.0)]);
        assert_eq!(merged.len(), 2);
    }

    /// `rec` with another `size` object (and `tol` when given).
    fn sized(case: &str, backend: &str, size: Value, tol: Option<f64>, time: f64) -> Record {
        let mut r = rec("divdiff", case, backend, "cpu-x-2core", time);
        set(&mut r, "size", size);
        if let Some(tol) = tol {
            set(&mut r, "tol", json!(tol));
        }
        r
    }

    #[test]
    fn size_and_tolerance_variants_of_one_case_are_kept_apart() {
        // A suite that measures one case name at two sizes and two tolerances: four records.
        let run = |t: f64| {
            vec![
                sized("exp", "cpu", json!({"n": 64}), None, t),
                sized("exp", "cpu", json!({"n": 128}), None, 2.0 * t),
                sized("phi", "cpu", json!({"n": 64}), Some(1e-8), t),
                sized("phi", "cpu", json!({"n": 64}), Some(1e-12), 3.0 * t),
            ]
        };
        let first = merge(vec![], run(1.0));
        assert_eq!(first.len(), 4);
        let second = merge(first, run(0.5));
        assert_eq!(second.len(), 4, "a second run replaces, never drops");
        let times: Vec<f64> = second.iter().map(|r| r.number("time_s").unwrap()).collect();
        // Sorted by case, then size naturally (n = 64 before 128), then tolerance.
        assert_eq!(times, [0.5, 1.0, 0.5, 1.5]);
        // The size object is compared as a value, not as the text a writer produced.
        let reordered = sized("exp", "cpu", json!({"nnz": 5, "n": 64}), None, 9.0);
        let same = sized("exp", "cpu", json!({"n": 64, "nnz": 5}), None, 8.0);
        assert_eq!(reordered.measurement_key(), same.measurement_key());
        assert_ne!(
            same.measurement_key(),
            sized("exp", "cpu", json!({"n": 64}), None, 8.0).measurement_key()
        );
    }

    #[test]
    fn results_do_not_define_the_measurement() {
        let mut a = sized("exp", "cpu", json!({"n": 64}), Some(1e-8), 1.0);
        let b = sized("exp", "cpu", json!({"n": 64}), Some(1e-8), 2.0);
        for (field, value) in [
            ("matvecs", json!(40)),
            ("error", json!(1e-9)),
            ("extra", json!({"substeps": 3})),
            ("commit", json!("ffffffffffff")),
        ] {
            set(&mut a, field, value);
        }
        assert_eq!(a.measurement_key(), b.measurement_key());
        // A field the format does not know yet defines the measurement.
        set(&mut a, "threads", json!(2));
        assert_ne!(a.measurement_key(), b.measurement_key());
    }

    #[test]
    fn a_run_without_the_peer_keeps_its_rows_and_ratios() {
        let mut ours = sized("laplace", "cpu", json!({"n": 1024}), Some(1e-8), 0.010);
        set(&mut ours, "peer_ratio", json!(4.0));
        set(&mut ours, "commit", json!("aaaaaaaaaaaa"));
        set(&mut ours, "date", json!("2026-11-01"));
        let peer = sized("laplace", "scipy", json!({"n": 1024}), Some(1e-8), 0.040);
        let stored = merge(vec![], vec![ours, peer.clone()]);

        // SciPy missing: only our own record comes in, without a ratio (serialized as null).
        let mut rerun = sized("laplace", "cpu", json!({"n": 1024}), Some(1e-8), 0.008);
        set(&mut rerun, "peer_ratio", Value::Null);
        let merged = merge(stored, vec![rerun]);
        assert_eq!(merged.len(), 2);
        assert!(merged.contains(&peer), "the committed peer row stays");
        let ours = merged.iter().find(|r| r.text("backend") == "cpu").unwrap();
        assert_eq!(ours.number("time_s"), Some(0.008));
        assert_eq!(ours.number("peer_ratio"), Some(4.0));
        let from = ours.extra["peer_ratio_from"].clone();
        assert_eq!(from, json!("aaaaaaaaaaaa 2026-11-01"));

        // Carried twice, the ratio keeps naming the run that measured it.
        let again = merge(
            merged,
            vec![sized(
                "laplace",
                "cpu",
                json!({"n": 1024}),
                Some(1e-8),
                0.009,
            )],
        );
        let ours = again.iter().find(|r| r.text("backend") == "cpu").unwrap();
        assert_eq!(ours.extra["peer_ratio_from"], from);

        // A run that did time the peer replaces the ratio and carries nothing.
        let mut fresh = sized("laplace", "cpu", json!({"n": 1024}), Some(1e-8), 0.009);
        set(&mut fresh, "peer_ratio", json!(5.0));
        let last = merge(again, vec![fresh.clone()]);
        assert!(last.contains(&fresh));
    }

    #[test]
    fn jsonl_skips_torn_lines_with_their_location() {
        let good = rec("leja", "points", "cpu", "d", 1.0)
            .to_value()
            .to_string();
        let text = format!("{good}\n\n{good}\n{{\"suite\": \"le");
        let (records, warnings) = parse_jsonl(&text, "run/leja.jsonl");
        assert_eq!(records.len(), 2);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("run/leja.jsonl:4:"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn store_merges_into_per_device_suite_files_and_round_trips() {
        let results = temp_dir("store");
        let first = vec![
            rec("spmv", "n=200", "cpu", "cpu-2core", 2.0),
            rec("spmv", "n=200", "gpu", "h200", 1e-4),
            rec("leja", "points", "cpu", "cpu-2core", 1e-3),
        ];
        let written = store(&results, first).unwrap();
        assert_eq!(written.len(), 3);
        assert!(results.join("h200/spmv.json").exists());
        assert!(results.join("cpu-2core/leja.json").exists());

        let second = vec![rec("spmv", "n=200", "cpu", "cpu-2core", 1.5)];
        store(&results, second).unwrap();
        let all = load_results(&results).unwrap();
        assert_eq!(all.len(), 3);
        let cpu_spmv = parse_json(
            &std::fs::read_to_string(results.join("cpu-2core/spmv.json")).unwrap(),
            "f",
        )
        .unwrap();
        assert_eq!(cpu_spmv.len(), 1);
        assert_eq!(cpu_spmv[0].number("time_s"), Some(1.5));

        // Storing the same records again leaves the file byte-identical (stable diffs).
        let before = std::fs::read(results.join("cpu-2core/spmv.json")).unwrap();
        store(&results, cpu_spmv).unwrap();
        let after = std::fs::read(results.join("cpu-2core/spmv.json")).unwrap();
        assert_eq!(before, after);
        std::fs::remove_dir_all(&results).unwrap();
    }

    #[test]
    fn read_folder_finds_nested_records_and_skips_other_json() {
        let dir = temp_dir("folder");
        std::fs::create_dir_all(dir.join("bench-results/h200")).unwrap();
        let a = rec("spmv", "n=1", "gpu", "h200", 1.0);
        let b = rec("spmv", "n=2", "gpu", "h200", 2.0);
        std::fs::write(
            dir.join("bench-results/h200/spmv.json"),
            to_json_text(std::slice::from_ref(&a)),
        )
        .unwrap();
        std::fs::write(dir.join("run.jsonl"), format!("{}\n", b.to_value())).unwrap();
        std::fs::write(dir.join("meta.json"), r#"{"driver": "580"}"#).unwrap();
        std::fs::write(dir.join("log.txt"), "not json").unwrap();
        let (records, warnings) = read_folder(&dir).unwrap();
        assert_eq!(records.len(), 2);
        assert!(records.contains(&a) && records.contains(&b));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("meta.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_results_file_is_an_error() {
        let results = temp_dir("malformed");
        std::fs::create_dir_all(results.join("h100")).unwrap();
        std::fs::write(results.join("h100/spmv.json"), "[{\"suite\": 1}]").unwrap();
        let err = load_results(&results).unwrap_err();
        assert!(
            err.contains("spmv.json") && err.contains("record 0"),
            "{err}"
        );
        std::fs::remove_dir_all(&results).unwrap();
    }
}
