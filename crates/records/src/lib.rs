//! The benchmark record of matexp: one measured case, as the benchmark suites write it
//! (`target/bench-records/<suite>.jsonl`, a GPU bundle's `records/*.jsonl`) and as xtask
//! merges it into `bench-results/<device>/<suite>.json` and renders it.
//!
//! Both sides use this one type, so the format has one definition. Fields a newer writer adds
//! and this type does not know are kept in [`Record::other`] and written back unchanged, so a
//! merge never drops them. The crate depends on serde only: xtask reads records without
//! compiling the benchmark suites or any GPU crate.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fields every record must carry as non-empty strings; they also lead the sort order.
pub const KEY_FIELDS: [&str; 5] = ["suite", "case", "backend", "precision", "device"];

/// The fields that hold what a run measured (or when), as opposed to what it measured: every
/// other field (the [`KEY_FIELDS`], `size`, `tol`, and any field added later) defines the
/// measurement and is part of its [`MeasurementKey`]. An unknown field counts as defining, so
/// that a record format grown by a new dimension can never make two measurements collide.
pub const RESULT_FIELDS: [&str; 10] = [
    "time_s",
    "reps",
    "matvecs",
    "error",
    "floor_ratio",
    "vendor_ratio",
    "peer_ratio",
    "extra",
    "commit",
    "date",
];

/// Ratios to another implementation timed in the same run. A run that could not time the
/// other implementation (SciPy missing, no GPU vendor library) writes its own record without
/// the ratio; a merge then keeps the stored ratio (see xtask's `records::merge`).
pub const PEER_RATIOS: [&str; 2] = ["peer_ratio", "vendor_ratio"];

/// One measured case, as stored in `bench-results/<device>/<suite>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// Suite (one JSON file per suite and device).
    pub suite: String,
    /// Case within the suite.
    pub case: String,
    /// `cpu`, `gpu`, `gpu×2`, `cusparse`, `scipy`, ...
    pub backend: String,
    /// Device description (`cpu-2core`, a GPU's short name, ...).
    pub device: String,
    /// `f32`, `f64`, `c32`, `c64`, ...
    pub precision: String,
    /// Problem size: `n`, `nnz`, points, ...
    #[serde(default)]
    pub size: Map<String, Value>,
    /// Median time in seconds.
    pub time_s: f64,
    /// Number of timed repetitions behind the median.
    #[serde(default)]
    pub reps: u64,
    /// Operator applications per run, where that applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub matvecs: Option<u64>,
    /// Requested tolerance.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tol: Option<f64>,
    /// Achieved error against a reference.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<f64>,
    /// time / (bytes-moved or flops floor) with the floor rate measured in the same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub floor_ratio: Option<f64>,
    /// vendor library time / ours, same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub vendor_ratio: Option<f64>,
    /// peer (e.g. SciPy) time / ours, same run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub peer_ratio: Option<f64>,
    /// Further figures (GB/s, substeps, ...).
    #[serde(skip_serializing_if = "Map::is_empty", default)]
    pub extra: Map<String, Value>,
    /// Git commit of the measured code.
    #[serde(default)]
    pub commit: String,
    /// UTC date of the run (YYYY-MM-DD).
    #[serde(default)]
    pub date: String,
    /// Top-level fields this type does not know (written by a newer suite), kept as they are.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What identifies a measurement: every defining field (see [`RESULT_FIELDS`]) with its
/// value as canonical JSON (object keys sorted), in a fixed order. Two records with equal
/// keys measured the same thing, and the newer replaces the older.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MeasurementKey(pub Vec<(String, String)>);

impl Record {
    /// A record with the identifying fields set and the provenance of this process (device
    /// from [`device_name`], commit from [`commit`], [`today`]'s date); the time is filled in
    /// later.
    pub fn new(suite: &str, case: &str, backend: &str, precision: &str) -> Self {
        Record {
            suite: suite.into(),
            case: case.into(),
            backend: backend.into(),
            device: device_name(),
            precision: precision.into(),
            size: Map::new(),
            time_s: 0.0,
            reps: 0,
            matvecs: None,
            tol: None,
            error: None,
            floor_ratio: None,
            vendor_ratio: None,
            peer_ratio: None,
            extra: Map::new(),
            commit: commit(),
            date: today(),
            other: Map::new(),
        }
    }
    /// Adds a size field.
    pub fn size(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.size.insert(key.into(), value.into());
        self
    }
    /// Adds an extra figure.
    pub fn extra(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
    /// Sets the matvec count.
    pub fn matvecs(mut self, m: u64) -> Self {
        self.matvecs = Some(m);
        self
    }
    /// Sets the requested tolerance.
    pub fn tol(mut self, t: f64) -> Self {
        self.tol = Some(t);
        self
    }
    /// Sets the error against a reference.
    pub fn error(mut self, e: f64) -> Self {
        self.error = Some(e);
        self
    }

    /// Reads a record from JSON: an object with non-empty string [`KEY_FIELDS`] and a numeric
    /// `time_s`; the other fields are optional. The error names the first offending field.
    pub fn from_value(value: Value) -> Result<Self, String> {
        let Value::Object(map) = &value else {
            return Err(format!("expected a JSON object, found {}", kind(&value)));
        };
        for field in KEY_FIELDS {
            match map.get(field) {
                Some(Value::String(s)) if !s.is_empty() => {}
                Some(other) => {
                    return Err(format!(
                        "field `{field}` must be a non-empty string, found {}",
                        kind(other)
                    ));
                }
                None => return Err(format!("missing field `{field}`")),
            }
        }
        match map.get("time_s") {
            Some(Value::Number(_)) => {}
            Some(other) => {
                return Err(format!(
                    "field `time_s` must be a number, found {}",
                    kind(other)
                ));
            }
            None => return Err("missing field `time_s`".into()),
        }
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    /// The record as a JSON object (keys sorted, as serde_json's map keeps them).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A string field by name (empty when absent or not a string).
    pub fn text(&self, field: &str) -> &str {
        match field {
            "suite" => &self.suite,
            "case" => &self.case,
            "backend" => &self.backend,
            "device" => &self.device,
            "precision" => &self.precision,
            "commit" => &self.commit,
            "date" => &self.date,
            other => self.other.get(other).and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// A numeric field by name.
    pub fn number(&self, field: &str) -> Option<f64> {
        match field {
            "time_s" => Some(self.time_s),
            "reps" => Some(self.reps as f64),
            "matvecs" => self.matvecs.map(|m| m as f64),
            "tol" => self.tol,
            "error" => self.error,
            "floor_ratio" => self.floor_ratio,
            "vendor_ratio" => self.vendor_ratio,
            "peer_ratio" => self.peer_ratio,
            other => self.other.get(other).and_then(Value::as_f64),
        }
    }

    /// Any top-level field by name as JSON, `None` when absent (an empty `size` or `extra`
    /// counts as absent, as it is not written).
    pub fn get(&self, field: &str) -> Option<Value> {
        let text = |s: &str| (!s.is_empty()).then(|| Value::String(s.to_string()));
        let map = |m: &Map<String, Value>| (!m.is_empty()).then(|| Value::Object(m.clone()));
        match field {
            "suite" | "case" | "backend" | "device" | "precision" | "commit" | "date" => {
                text(self.text(field))
            }
            "size" => map(&self.size),
            "extra" => map(&self.extra),
            "time_s" => Some(self.time_s.into()),
            "reps" => Some(self.reps.into()),
            "matvecs" => self.matvecs.map(Value::from),
            "tol" | "error" | "floor_ratio" | "vendor_ratio" | "peer_ratio" => {
                self.number(field).map(Value::from)
            }
            other => self.other.get(other).filter(|v| !v.is_null()).cloned(),
        }
    }

    /// The ratio field `name` (one of [`PEER_RATIOS`] or `floor_ratio`), to set or clear.
    pub fn ratio_mut(&mut self, name: &str) -> Option<&mut Option<f64>> {
        match name {
            "peer_ratio" => Some(&mut self.peer_ratio),
            "vendor_ratio" => Some(&mut self.vendor_ratio),
            "floor_ratio" => Some(&mut self.floor_ratio),
            _ => None,
        }
    }

    /// The leading identifying fields, in [`KEY_FIELDS`] order.
    pub fn key(&self) -> [&str; 5] {
        KEY_FIELDS.map(|f| self.text(f))
    }

    /// Everything that defines the measurement: the [`KEY_FIELDS`] first, then the other
    /// defining fields (`size`, `tol`, …) by name. `null` counts as absent.
    pub fn measurement_key(&self) -> MeasurementKey {
        let mut fields: Vec<(String, String)> = KEY_FIELDS
            .iter()
            .map(|f| (f.to_string(), self.text(f).to_string()))
            .collect();
        // serde_json's map is ordered by key (no `preserve_order`), so `to_string` is
        // canonical: equal values give equal text whatever order a writer used.
        let mut rest: Vec<(String, String)> = vec![("size".into(), object_text(&self.size))];
        if let Some(tol) = self.tol {
            rest.push(("tol".into(), Value::from(tol).to_string()));
        }
        rest.extend(
            self.other
                .iter()
                .filter(|(k, v)| !v.is_null() && !RESULT_FIELDS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.to_string())),
        );
        rest.sort_by(|a, b| a.0.cmp(&b.0));
        fields.extend(rest);
        MeasurementKey(fields)
    }
}

fn object_text(map: &Map<String, Value>) -> String {
    Value::Object(map.clone()).to_string()
}

/// How a JSON value reads in an error message: `a string`, `an object`, ...
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Device name for records: `$MATEXP_BENCH_DEVICE`, else `cpu-<cores>core`.
pub fn device_name() -> String {
    std::env::var("MATEXP_BENCH_DEVICE").unwrap_or_else(|_| {
        format!(
            "cpu-{}core",
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        )
    })
}

/// The measured commit: `$MATEXP_COMMIT`, else `git rev-parse --short=12 HEAD`, else
/// `unknown`.
pub fn commit() -> String {
    std::env::var("MATEXP_COMMIT")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_else(|| "unknown".into())
        })
}

/// A UTC civil date and time of day from seconds since the Unix epoch: (year, month, day,
/// seconds into the day). Civil-from-days (H. Hinnant), exact for the proleptic Gregorian
/// calendar.
pub fn utc_parts(secs: u64) -> (i64, u32, u32, u64) {
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, secs % 86_400)
}

/// Seconds since the Unix epoch now (0 if the clock is before it).
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Today's UTC date as YYYY-MM-DD.
pub fn today() -> String {
    let (y, m, d, _) = utc_parts(now_secs());
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        let year: i32 = d[..4].parse().unwrap();
        assert!((2024..2200).contains(&year), "{d}");
        assert_eq!(utc_parts(951_868_799), (2000, 2, 29, 86_399));
    }

    #[test]
    fn records_roundtrip_through_json() {
        let r = Record::new("s", "c", "cpu", "f64")
            .size("n", 10)
            .matvecs(3)
            .error(1e-12);
        let j = serde_json::to_string(&r).unwrap();
        let back: Record = serde_json::from_str(&j).unwrap();
        assert_eq!(back.case, "c");
        assert_eq!(back.matvecs, Some(3));
        assert_eq!(back, r);
    }

    #[test]
    fn unknown_fields_survive_and_define_the_measurement() {
        let v = json!({"suite": "s", "case": "c", "backend": "gpu", "precision": "f64",
                       "device": "d", "time_s": 1, "layout": "ell", "extra": {"gbps": 1.5}});
        let r = Record::from_value(v).unwrap();
        assert_eq!(r.text("layout"), "ell");
        assert_eq!(r.to_value()["layout"], "ell");
        assert_eq!(r.number("time_s"), Some(1.0));
        let key = r.measurement_key().0;
        let names: Vec<&str> = key.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "suite",
                "case",
                "backend",
                "precision",
                "device",
                "layout",
                "size"
            ]
        );
        assert_eq!(r.get("extra"), Some(json!({"gbps": 1.5})));
        assert_eq!(r.get("matvecs"), None);
    }

    #[test]
    fn invalid_records_are_rejected_with_the_reason() {
        let missing = Record::from_value(json!({"suite": "s", "case": "c", "time_s": 1.0}));
        assert!(missing.unwrap_err().contains("backend"));
        let no_time = Record::from_value(json!({"suite": "s", "case": "c", "backend": "b",
            "precision": "p", "device": "d"}));
        assert!(no_time.unwrap_err().contains("time_s"));
        assert!(Record::from_value(json!([1, 2])).is_err());
    }
}
