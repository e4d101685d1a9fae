//! The tool against hostile and edge inputs: a header declaring more than memory holds,
//! option values that start with '-', the mode of output files, f32 in `heat`, results that
//! underflow, and convergence in every centrality report.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn matexp_cmd() -> Command {
    Command::cargo_bin("matexp").expect("the matexp binary")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

/// The 70-byte file of the report: 10⁹ × 10⁹, no entries.
const BILLION: &str = "%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 0\n";

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn report_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report")).expect("JSON report")
}

#[test]
fn a_billion_row_header_is_refused_at_once_with_both_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), "big.mtx", BILLION);
    assert_eq!(BILLION.len(), 70);
    let m = m.to_str().unwrap();
    for extra in [&[][..], &["--memory-limit", "1G"][..]] {
        let t = Instant::now();
        let out = matexp_cmd()
            .args(["expmv", m, "-t", "1", "-q"])
            .args(extra)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        assert_eq!(out.status.code(), Some(7), "{err}");
        assert!(
            err.starts_with("matexp: error: not enough memory for")
                && err.contains("big.mtx")
                && err.contains("needs ")
                && err.contains("bytes available"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // The environment variable, and a malformed one.
    let small = write(
        dir.path(),
        "small.mtx",
        "%%MatrixMarket matrix coordinate real general\n100000 100000 1\n1 1 -1\n",
    );
    let out = matexp_cmd()
        .args(["expmv", small.to_str().unwrap(), "-t", "1", "-q"])
        .env("MATEXP_MEMORY_LIMIT", "1M")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("MATEXP_MEMORY_LIMIT"),
        "{}",
        stderr_of(&out)
    );
    let out = matexp_cmd()
        .args(["expmv", small.to_str().unwrap(), "-t", "1", "-q"])
        .env("MATEXP_MEMORY_LIMIT", "lots")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let out = matexp_cmd()
        .args([
            "expmv",
            small.to_str().unwrap(),
            "-t",
            "1",
            "-q",
            "--memory-limit",
            "x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
}

#[test]
fn option_values_starting_with_a_minus_reach_validation() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "a.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 -1\n2 2 -2\n",
    );
    let g = write(
        dir.path(),
        "g.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
    );
    let (m, g) = (m.to_str().unwrap(), g.to_str().unwrap());
    let cases: [(&[&str], &str); 6] = [
        (
            &["expmv", m, "-t", "1", "--rtol", "-1e-8"],
            "--rtol -0.00000001: must be a finite number ≥ 0",
        ),
        (
            &["expmv", m, "-t", "1", "--atol", "-1"],
            "--atol -1: must be a finite number ≥ 0",
        ),
        (&["phimv", m, "-t", "1", "--rtol", "-1e-8"], "--rtol"),
        (
            &["centrality", g, "--beta", "-1"],
            "--beta -1: must be a finite number > 0",
        ),
        (&["centrality", g, "-b", "-2.5"], "--beta -2.5"),
        (&["phimv", m, "-t", "1", "-k", "-1"], "invalid value '-1'"),
    ];
    for (args, needle) in cases {
        let out = matexp_cmd().args(args).arg("-q").output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
    // A negative time is a value, not an option: e^{-A}·1 = (e, e²).
    let out = matexp_cmd()
        .args(["expmv", m, "-t", "-1", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let vals: Vec<f64> = text.lines().skip(1).map(|l| l.parse().unwrap()).collect();
    assert!((vals[0] - 1f64.exp()).abs() < 1e-6 * 3.0 && (vals[1] - 2f64.exp()).abs() < 1e-5);
}

#[cfg(unix)]
#[test]
fn output_files_get_the_users_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "a.mtx",
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -1\n",
    );
    let bin = assert_cmd::cargo::cargo_bin("matexp");
    for (umask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let out = dir.path().join(format!("w{umask}.csv"));
        let rep = dir.path().join(format!("r{umask}.json"));
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask {umask}; exec \"$0\" expmv \"$1\" -t 1 -q -o \"$2\" --report \"$3\""
            ))
            .arg(&bin)
            .arg(&m)
            .arg(&out)
            .arg(&rep)
            .status()
            .unwrap();
        assert!(status.success());
        for p in [&out, &rep] {
            let got = std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, mode, "{} under umask {umask}: {got:o}", p.display());
        }
    }
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".matexp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn heat_runs_in_f32_and_agrees_with_the_sine_mode() {
    // u₀ = sin πx sin πy sin πz is an eigenvector of the Dirichlet 7-point Laplacian with
    // eigenvalue λ = −3·(2/h²)(1 − cos πh), h = 1/(N + 1): u(t) = e^{λt}u₀ exactly.
    let dir = tempfile::tempdir().unwrap();
    let n = 6usize;
    let t = 0.01;
    let h = 1.0 / (n as f64 + 1.0);
    let lambda = -3.0 * (2.0 / (h * h)) * (1.0 - (std::f64::consts::PI * h).cos());
    let mut ratios = Vec::new();
    for precision in ["f32", "f64"] {
        let o = dir.path().join(format!("u_{precision}.csv"));
        let r = dir.path().join(format!("r_{precision}.json"));
        let out = matexp_cmd()
            .args(["heat", "-N", &n.to_string(), "-t", &t.to_string(), "-q"])
            .args(["--precision", precision, "--u0", "ones"])
            .arg("-o")
            .arg(&o)
            .arg("--report")
            .arg(&r)
            .output()
            .unwrap();
        assert!(out.status.success(), "{precision}: {}", stderr_of(&out));
        assert_eq!(report_of(&r)["precision"], precision);
        let text = std::fs::read_to_string(&o).unwrap();
        let u: Vec<f64> = text.lines().skip(1).map(|l| l.parse().unwrap()).collect();
        assert_eq!(u.len(), n * n * n);
        ratios.push(u);
    }
    let diff = ratios[0]
        .iter()
        .zip(&ratios[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    let scale = ratios[1].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(diff <= 1e-4 * scale, "f32 vs f64: {diff} of {scale}");
    // The sine mode in f32 against the closed form.
    let o = dir.path().join("sine.csv");
    let out = matexp_cmd()
        .args([
            "heat",
            "-N",
            &n.to_string(),
            "-t",
            &t.to_string(),
            "-q",
            "--precision",
            "f32",
        ])
        .arg("-o")
        .arg(&o)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = std::fs::read_to_string(&o).unwrap();
    let u: Vec<f64> = text.lines().skip(1).map(|l| l.parse().unwrap()).collect();
    let mut k = 0;
    for iz in 1..=n {
        for iy in 1..=n {
            for ix in 1..=n {
                let s = |i: usize| (std::f64::consts::PI * i as f64 * h).sin();
                let exact = (lambda * t).exp() * s(ix) * s(iy) * s(iz);
                assert!(
                    (u[k] - exact).abs() <= 1e-4 * (lambda * t).exp(),
                    "{k}: {} vs {exact}",
                    u[k]
                );
                k += 1;
            }
        }
    }
}

#[test]
fn results_that_underflow_to_zero_are_flagged_not_converged() {
    // e^{-200} ≈ 1.4e-87 is below the smallest f32 (1.4e-45): the f32 result is 0.
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "d.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 -200\n2 2 -1\n",
    );
    let one = write(
        dir.path(),
        "one.mtx",
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -200\n",
    );
    for (precision, matrix, flagged) in [
        ("f32", &one, true),
        ("f64", &one, false),
        ("f32", &m, false), // the second entry e^{-1} survives
    ] {
        let r = dir.path().join("r.json");
        let out = matexp_cmd()
            .args([
                "expmv",
                matrix.to_str().unwrap(),
                "-t",
                "1",
                "-q",
                "--precision",
                precision,
            ])
            .arg("--report")
            .arg(&r)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let rep = report_of(&r);
        let warned = rep["warnings"].as_array().is_some_and(|w| {
            w.iter()
                .any(|x| x.as_str().unwrap().contains("underflowed to zero"))
        });
        assert_eq!(warned, flagged, "{precision} {}: {rep}", matrix.display());
        let est = rep["rel_error_estimate"].as_f64().unwrap();
        let rtol = rep["rtol"].as_f64().unwrap();
        assert_eq!(rep["converged"].as_bool().unwrap(), est <= rtol, "{rep}");
        assert_eq!(rep["converged"].as_bool().unwrap(), !flagged, "{rep}");
    }
}

#[test]
fn centrality_reports_convergence_for_every_measure() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(
        dir.path(),
        "g.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 5\n2 1\n3 2\n4 3\n5 4\n5 1\n",
    );
    for measure in ["tc", "sc", "estrada"] {
        let r = dir.path().join(format!("{measure}.json"));
        let out = matexp_cmd()
            .args(["centrality", g.to_str().unwrap(), "-m", measure, "-q"])
            .arg("--report")
            .arg(&r)
            .output()
            .unwrap();
        assert!(out.status.success(), "{measure}: {}", stderr_of(&out));
        let rep = report_of(&r);
        assert!(rep["converged"].is_boolean(), "{measure}: {rep}");
        assert!(rep.get("error_estimate").is_none(), "{measure}: {rep}");
    }
}
