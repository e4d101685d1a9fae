//! The automatic check of a human verdict: a table measured or not as its verdict says, every
//! row matching some record, and every number of the verdict that carries a unit of time, a
//! `×` or a rate found among the table's records (times, ratios, rates, and the ratios between
//! them) or among the seed figures of its rows.

use super::line::Line;
use super::mapping::{SeedTable, Verdict};
use crate::records::Record;

/// What a number in a verdict measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Seconds.
    Time,
    /// A dimensionless factor (`30×`).
    Ratio,
    /// GB/s or GFlop/s (TFlop/s converted).
    Rate,
}

/// A number as written in a verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Quoted {
    pub text: String,
    pub kind: Kind,
    /// In base units (seconds, GB/s or GFlop/s).
    pub value: f64,
    /// Half a unit of the last written digit, in base units.
    pub half_ulp: f64,
    /// Written with `~` or `≈`.
    pub approx: bool,
}

/// The numbers with a unit in `text`: `0.105 s`, `12 ms`, `30×`, `3.4 TB/s`… Plain numbers,
/// percentages and numbers in scientific notation are parameters or errors and are not taken.
pub fn quoted_numbers(text: &str) -> Vec<Quoted> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts = c.is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == ',') {
            i += 1;
        }
        if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
        }
        let num: String = chars[start..i].iter().filter(|c| **c != ',').collect();
        // Scientific notation (errors, tolerances) is not checked.
        if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            if next == '-' || next == '+' || next.is_ascii_digit() {
                i += 1;
                continue;
            }
        }
        let Ok(value) = num.parse::<f64>() else {
            continue;
        };
        let decimals = num.split('.').nth(1).map_or(0, str::len) as i32;
        let half = 0.5 * 10f64.powi(-decimals);
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let rest: String = chars[j..chars.len().min(j + 8)].iter().collect();
        let word_end = |n: usize| {
            chars
                .get(j + n)
                .is_none_or(|c| !c.is_alphanumeric() && *c != '/')
        };
        // A factor is written against its number (`30×`); `2 × Xeon`, `6144 × 6144` are
        // counts and dimensions.
        let factor = rest.starts_with('×') || (rest.starts_with('x') && word_end(1));
        let unit = if factor && j == i {
            Some((Kind::Ratio, 1.0))
        } else if rest.starts_with("ms") && word_end(2) {
            Some((Kind::Time, 1e-3))
        } else if (rest.starts_with("µs") || rest.starts_with("us")) && word_end(2) {
            Some((Kind::Time, 1e-6))
        } else if rest.starts_with("ns") && word_end(2) {
            Some((Kind::Time, 1e-9))
        } else if rest.starts_with('s') && word_end(1) {
            Some((Kind::Time, 1.0))
        } else if rest.starts_with("GB/s") || rest.starts_with("GFlop/s") {
            Some((Kind::Rate, 1.0))
        } else if rest.starts_with("TB/s") || rest.starts_with("TFlop/s") {
            Some((Kind::Rate, 1e3))
        } else {
            None
        };
        if let Some((kind, scale)) = unit {
            let before: String = chars[start.saturating_sub(2)..start].iter().collect();
            out.push(Quoted {
                text: format!("{}{}", num, {
                    let u: String = chars[i..j].iter().collect();
                    let unit_text: String = rest
                        .chars()
                        .take_while(|c| c.is_alphabetic() || *c == '×' || *c == '/' || *c == 'µ')
                        .collect();
                    format!("{u}{unit_text}")
                }),
                kind,
                value: value * scale,
                half_ulp: half * scale,
                approx: before.contains('~') || before.contains('≈'),
            });
        }
    }
    out
}

/// Every figure the table's records and seed rows back, by kind.
#[derive(Debug, Default)]
pub struct Backing {
    pub times: Vec<f64>,
    pub ratios: Vec<f64>,
    pub rates: Vec<f64>,
}

const RATE_FIELDS: [&str; 6] = [
    "gbps",
    "floor_gbps",
    "copy_gbps",
    "gflops",
    "dgemm_gflops",
    "seed_gflops",
];

fn record_time(r: &Record) -> Option<f64> {
    r.number("time_s")
}

/// Collects what the lines back: record times and ratios, numeric extra fields, the seed
/// figures of the rows, and the ratios of times within a line (seed, CPU, GPU, peers) and
/// between our records of equal precision and backend kind (CPU, one GPU, several) across
/// the table.
pub fn backing(table: &SeedTable, lines: &[Line<'_>]) -> Backing {
    let mut b = Backing::default();
    for row in &table.rows {
        b.times.extend(row.seed_cpu_s.values());
        b.times.extend(row.seed_gpu_s.values());
        for q in quoted_numbers(&row.seed) {
            match q.kind {
                Kind::Time => b.times.push(q.value),
                Kind::Ratio => b.ratios.push(q.value),
                Kind::Rate => b.rates.push(q.value),
            }
        }
    }
    // Our times by precision and by where they ran (CPU, one GPU, several).
    let mut ours_by_precision: Vec<(String, usize, f64)> = Vec::new();
    for line in lines {
        let all: Vec<&Record> = line
            .cpu
            .iter()
            .chain(&line.gpu)
            .chain(&line.multi)
            .chain(&line.peers)
            .copied()
            .collect();
        let mut line_times: Vec<f64> = Vec::new();
        for r in &all {
            if let Some(t) = record_time(r) {
                b.times.push(t);
                line_times.push(t);
            }
            for f in ["floor_ratio", "vendor_ratio", "peer_ratio"] {
                if let Some(x) = r.number(f) {
                    b.ratios.push(x);
                    if x > 0.0 {
                        b.ratios.push(1.0 / x);
                    }
                }
            }
            {
                for (k, v) in &r.extra {
                    let Some(x) = v.as_f64() else { continue };
                    if RATE_FIELDS.contains(&k.as_str()) {
                        b.rates.push(x);
                    } else if k.ends_with("_s") {
                        b.times.push(x);
                    } else if k.ends_with("_ms") {
                        b.times.push(x * 1e-3);
                    } else if k.contains("ratio") || k.contains("speedup") || k.contains("_over_") {
                        b.ratios.push(x);
                    }
                }
            }
        }
        for (kind, recs) in [&line.cpu, &line.gpu, &line.multi].iter().enumerate() {
            for r in recs.iter() {
                if let Some(t) = record_time(r) {
                    ours_by_precision.push((line.precision.clone(), kind, t));
                }
            }
        }
        let seeds: Vec<f64> = [&line.row.seed_cpu_s, &line.row.seed_gpu_s]
            .iter()
            .filter_map(|s| s.get(&line.precision))
            .collect();
        let quoted_seed: Vec<f64> = quoted_numbers(&line.row.seed)
            .into_iter()
            .filter(|q| q.kind == Kind::Time)
            .map(|q| q.value)
            .collect();
        let pool: Vec<f64> = line_times
            .iter()
            .chain(&seeds)
            .chain(&quoted_seed)
            .copied()
            .collect();
        for &a in &pool {
            for &c in &pool {
                if a > 0.0 && c > 0.0 {
                    b.ratios.push(a / c);
                }
            }
        }
    }
    // Across lines, only like with like: GPU against GPU, CPU against CPU.
    for (pa, ka, a) in &ours_by_precision {
        for (pc, kc, c) in &ours_by_precision {
            if pa == pc && ka == kc && *c > 0.0 {
                b.ratios.push(a / c);
            }
        }
    }
    b
}

fn backed(q: &Quoted, b: &Backing) -> bool {
    let pool = match q.kind {
        Kind::Time => &b.times,
        Kind::Ratio => &b.ratios,
        Kind::Rate => &b.rates,
    };
    let rel = if q.approx { 0.10 } else { 0.05 };
    let slack = q.half_ulp.max(rel * q.value.abs());
    pool.iter().any(|&c| (c - q.value).abs() <= slack)
}

/// The flags of one table: what in its verdict no record backs.
pub fn check_table(table: &SeedTable, lines: &[Line<'_>]) -> Vec<String> {
    let mut flags = Vec::new();
    let measured = !lines.is_empty();
    match (table.verdict, measured) {
        (Verdict::NotMeasured, true) => flags.push(format!(
            "the verdict says not measured, but {} record line(s) reproduce this table",
            lines.len()
        )),
        (v, false) if v != Verdict::NotMeasured => flags.push(format!(
            "the verdict `{}` has no backing record: no row of the mapping matches a record",
            v.label()
        )),
        _ => {}
    }
    if measured {
        for row in &table.rows {
            if !row.select.case.is_empty() && !lines.iter().any(|l| std::ptr::eq(l.row, row)) {
                flags.push(format!(
                    "row `{}` names suite `{}`, case `{}`, but no record matches",
                    row.label, row.select.suite, row.select.case
                ));
            }
        }
    }
    let b = backing(table, lines);
    let unbacked: Vec<String> = quoted_numbers(&table.summary)
        .into_iter()
        .filter(|q| !backed(q, &b))
        .map(|q| format!("`{}`", q.text))
        .collect();
    if !unbacked.is_empty() {
        flags.push(format!(
            "numbers in the verdict that no record or seed figure backs: {}",
            unbacked.join(", ")
        ));
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_units_are_found() {
        let q = quoted_numbers(
            "one H200 takes 0.105 s (~143× the C1060's 15 s), 12 ms per step, 3,400 GB/s, \
             tol 1e-5, L = 21, 2 GPUs, 34% and 4.9 TFlop/s; 1.65x; 2 × Xeon, 6144 × 6144",
        );
        let texts: Vec<&str> = q.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "0.105 s",
                "143×",
                "15 s",
                "12 ms",
                "3400 GB/s",
                "4.9 TFlop/s",
                "1.65x"
            ]
        );
        assert!(q[1].approx && !q[0].approx);
        assert_eq!(q[3].value, 12e-3);
        assert_eq!(q[5].value, 4900.0);
        assert!((q[0].half_ulp - 5e-4).abs() < 1e-12);
    }

    #[test]
    fn backing_allows_rounding_but_not_other_numbers() {
        let b = Backing {
            times: vec![0.1051],
            ratios: vec![142.7],
            rates: vec![],
        };
        let q = |s: &str| quoted_numbers(s).remove(0);
        assert!(backed(&q("0.105 s"), &b));
        assert!(backed(&q("105 ms"), &b));
        assert!(backed(&q("143×"), &b));
        assert!(backed(&q("~140×"), &b));
        assert!(!backed(&q("120×"), &b));
        assert!(!backed(&q("0.2 s"), &b));
        assert!(!backed(&q("500 GB/s"), &b));
    }
}
