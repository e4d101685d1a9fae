//! The `matexp` binary on small inputs, checked against the library called directly (and
//! closed forms where they exist); bad inputs give the documented exit status, one line on
//! stderr, no panic and no output file.

use assert_cmd::Command;
use matexp::sparse::generators::{SpinBath, StoredZeros};
use matexp::{CpuBackend, CsrMatrix, Method, Options, c64};
use std::path::{Path, PathBuf};

fn matexp_cmd() -> Command {
    Command::cargo_bin("matexp").expect("the matexp binary")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

/// A nonsymmetric 3 × 3 matrix.
const NONSYM: &str = "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 -1\n1 2 0.5\n2 2 -2\n2 3 1\n3 1 0.25\n3 3 -0.5\n";
/// The path graph 1 - 2 - 3 - 4.
const PATH4: &str = "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 3\n";

fn nonsym() -> CsrMatrix<f64> {
    CsrMatrix::from_triplets(
        3,
        3,
        &[
            (0, 0, -1.0),
            (0, 1, 0.5),
            (1, 1, -2.0),
            (1, 2, 1.0),
            (2, 0, 0.25),
            (2, 2, -0.5),
        ],
    )
    .expect("matrix")
}

fn read_array(path: &Path) -> Vec<Vec<f64>> {
    let a = matexp::read_dense_file::<f64>(path).expect("result file reads back");
    a.into_columns().expect("the array's columns")
}

fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    let num: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt();
    let den: f64 = b.iter().map(|y| y * y).sum::<f64>().sqrt();
    num / den
}

/// Parses CSV output into its header and columns.
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(String::from)
        .collect();
    let mut cols = vec![Vec::new(); header.len()];
    for l in lines {
        for (c, x) in cols.iter_mut().zip(l.split(',')) {
            c.push(x.parse::<f64>().expect("number"));
        }
    }
    (header, cols)
}

#[test]
fn expmv_matches_the_library_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.mtx", NONSYM);
    let (want, _) = matexp::expmv(
        &CpuBackend::new(),
        &nonsym(),
        0.8,
        &vec![1.0; 3],
        &Options::default()
            .with_method(Method::Taylor)
            .with_rtol(1e-13),
    )
    .unwrap();
    let out = dir.path().join("w.mtx");
    let report = dir.path().join("r.json");
    matexp_cmd()
        .args([
            "expmv",
            a.to_str().unwrap(),
            "-t",
            "0.8",
            "--rtol",
            "1e-12",
            "-o",
        ])
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let got = read_array(&out);
    assert!(rel_err(&got[0], &want) < 1e-10, "{got:?} vs {want:?}");
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(rep["command"], "expmv");
    assert_eq!(rep["method"], "arnoldi");
    assert_eq!(rep["device"], "cpu");
    assert!(rep["products"].as_u64().unwrap() > 0);
    assert!(rep["time_s"].as_f64().unwrap() >= 0.0);
    assert!(rep["rel_error_estimate"].as_f64().unwrap() <= 1e-10);

    // CSV on stdout and JSON by extension carry the same numbers.
    let csv = matexp_cmd()
        .args([
            "expmv",
            a.to_str().unwrap(),
            "-t",
            "0.8",
            "--rtol",
            "1e-12",
            "-q",
        ])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&csv.get_output().stdout));
    assert_eq!(header, ["t=0.8"]);
    assert!(rel_err(&cols[0], &want) < 1e-10);
    let json = dir.path().join("w.json");
    matexp_cmd()
        .args([
            "expmv",
            a.to_str().unwrap(),
            "-t",
            "0.8",
            "--rtol",
            "1e-12",
            "-q",
            "-o",
        ])
        .arg(&json)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let data: Vec<f64> = v["data"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(rel_err(&data, &want) < 1e-10);
}

#[test]
fn expmv_time_grid_complex_time_vector_file_and_f32() {
    let dir = tempfile::tempdir().unwrap();
    // D = diag(-1, 2, 0.5): closed forms.
    let d = write(
        dir.path(),
        "d.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 -1\n2 2 2\n3 3 0.5\n",
    );
    let v = write(
        dir.path(),
        "v.mtx",
        "%%MatrixMarket matrix array real general\n3 1\n1\n-2\n3\n",
    );
    let diag: [f64; 3] = [-1.0, 2.0, 0.5];
    let vv = [1.0, -2.0, 3.0];
    // Grid 0:1:3.
    let out = dir.path().join("grid.mtx");
    matexp_cmd()
        .args([
            "expmv",
            d.to_str().unwrap(),
            "-t",
            "0:1:3",
            "-v",
            v.to_str().unwrap(),
            "-q",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let cols = read_array(&out);
    for (j, t) in [0.0, 0.5, 1.0].iter().enumerate() {
        let want: Vec<f64> = (0..3).map(|i| (diag[i] * t).exp() * vv[i]).collect();
        assert!(
            rel_err(&cols[j], &want) < 1e-7,
            "t = {t}: {:?} vs {want:?}",
            cols[j]
        );
    }
    // Complex time -i*2.5: e^{-2.5 i d} v, written as re/im CSV columns.
    let out = matexp_cmd()
        .args([
            "expmv",
            d.to_str().unwrap(),
            "-t",
            "-i*2.5",
            "-v",
            v.to_str().unwrap(),
            "-q",
        ])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["t=0-2.5i_re", "t=0-2.5i_im"]);
    for i in 0..3 {
        let z = c64::new(0.0, -2.5 * diag[i]).exp() * vv[i];
        assert!(
            (cols[0][i] - z.re).abs() < 1e-7 && (cols[1][i] - z.im).abs() < 1e-7,
            "{i}: {z}"
        );
    }
    // f32 agrees with the closed form to single precision.
    let out = matexp_cmd()
        .args([
            "expmv",
            d.to_str().unwrap(),
            "-t",
            "1",
            "--precision",
            "f32",
            "-q",
        ])
        .assert()
        .success();
    let (_, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    let want: Vec<f64> = diag.iter().map(|x: &f64| x.exp()).collect();
    assert!(rel_err(&cols[0], &want) < 1e-5);
}

#[test]
fn phimv_matches_closed_forms_and_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let d = write(
        dir.path(),
        "d.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 -1\n2 2 -3\n",
    );
    let out = matexp_cmd()
        .args(["phimv", d.to_str().unwrap(), "-t", "0.5", "-k", "2", "-q"])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["phi0", "phi1", "phi2"]);
    for (i, d) in [-1.0f64, -3.0].iter().enumerate() {
        let z = 0.5 * d;
        let want = [z.exp(), (z.exp() - 1.0) / z, (z.exp() - 1.0 - z) / (z * z)];
        for k in 0..3 {
            assert!(
                (cols[k][i] / want[k] - 1.0).abs() < 1e-8,
                "phi{k}[{i}] = {} vs {}",
                cols[k][i],
                want[k]
            );
        }
    }
    // Nonsymmetric A against matexp::phimv.
    let a = write(dir.path(), "a.mtx", NONSYM);
    let (want, _) = matexp::phimv(
        &CpuBackend::new(),
        &nonsym(),
        0.3,
        &vec![1.0; 3],
        1,
        &Options::default().with_rtol(1e-12),
    )
    .unwrap();
    let out = matexp_cmd()
        .args([
            "phimv",
            a.to_str().unwrap(),
            "-t",
            "0.3",
            "-k",
            "1",
            "--method",
            "leja",
            "--rtol",
            "1e-12",
            "-q",
        ])
        .assert()
        .success();
    let (_, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    for k in 0..2 {
        assert!(rel_err(&cols[k], &want[k]) < 1e-9, "phi{k}");
    }
}

#[test]
fn centrality_matches_the_dense_reference() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "g.mtx", PATH4);
    let pattern = matexp::read_pattern_file::<u32>(&g).unwrap();
    let dense = matexp_graph::DenseCentrality::new(&pattern, 0.5).unwrap();
    // Total communicability, all nodes.
    let out = matexp_cmd()
        .args(["centrality", g.to_str().unwrap(), "--beta", "0.5", "-q"])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["node", "score"]);
    assert_eq!(cols[0], [1.0, 2.0, 3.0, 4.0]);
    assert!(rel_err(&cols[1], &dense.total_communicability) < 1e-10);
    // Subgraph centrality, top 2 (the two inner nodes, in decreasing order).
    let out = matexp_cmd()
        .args([
            "centrality",
            g.to_str().unwrap(),
            "--beta",
            "0.5",
            "-m",
            "sc",
            "--top",
            "2",
            "-q",
        ])
        .assert()
        .success();
    let (_, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(cols[0].len(), 2);
    assert!(cols[0].iter().all(|&n| n == 2.0 || n == 3.0));
    assert!((cols[1][0] / dense.subgraph_centrality[1] - 1.0).abs() < 1e-10);
    // Estrada index: the estimate's interval holds the dense value.
    let report = dir.path().join("r.json");
    matexp_cmd()
        .args([
            "centrality",
            g.to_str().unwrap(),
            "--beta",
            "0.5",
            "-m",
            "estrada",
            "-q",
            "--report",
        ])
        .arg(&report)
        .assert()
        .success();
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let (lo, hi) = (
        rep["interval"][0].as_f64().unwrap(),
        rep["interval"][1].as_f64().unwrap(),
    );
    assert!(
        lo <= dense.estrada_index * (1.0 + 1e-10) && dense.estrada_index <= hi * (1.0 + 1e-10),
        "[{lo}, {hi}] vs {}",
        dense.estrada_index
    );
}

#[test]
fn spectrum_bounds_enclose_the_eigenvalues() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(
        dir.path(),
        "g.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1\n3 2 1\n4 3 1\n",
    );
    let out = matexp_cmd()
        .args(["spectrum", g.to_str().unwrap(), "-q"])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["gershgorin", "estimate_lanczos"]);
    // Path graph P4: eigenvalues 2cos(kπ/5), k = 1..4, extremes ±1.618…; Gershgorin [−2, 2].
    let lmax = 2.0 * (std::f64::consts::PI / 5.0).cos();
    assert_eq!(&cols[0][..2], &[-2.0, 2.0]);
    assert!(
        cols[1][0] <= -lmax + 1e-9 && cols[1][1] >= lmax - 1e-9,
        "{:?}",
        cols[1]
    );
    assert!(
        cols[1][1] <= 2.0 && cols[1][0] >= -2.0,
        "the estimate is tighter than Gershgorin"
    );
}

#[test]
fn spin_bath_matches_the_library() {
    let out = matexp_cmd()
        .args([
            "spin-bath",
            "-L",
            "5",
            "-t",
            "0.4",
            "--seed",
            "3",
            "--state-seed",
            "4",
            "--rtol",
            "1e-12",
            "-q",
        ])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["psi(t=0.4)_re", "psi(t=0.4)_im"]);
    let model = SpinBath::seed000(5, 3).unwrap();
    let h: CsrMatrix<c64> = model.hamiltonian::<c64, u32>(StoredZeros::Keep).unwrap();
    let psi0 = model.initial_state::<c64>(4).unwrap();
    let opts = Options::default()
        .with_method(Method::Taylor)
        .with_rtol(1e-13);
    let (want, _) =
        matexp::expmv(&CpuBackend::new(), &h, c64::new(0.0, -0.4), &psi0, &opts).unwrap();
    let err: f64 = want
        .iter()
        .enumerate()
        .map(|(i, z)| (c64::new(cols[0][i], cols[1][i]) - z).norm_sqr())
        .sum::<f64>()
        .sqrt();
    assert!(err < 1e-9, "error {err}");
    let norm: f64 = (0..want.len())
        .map(|i| cols[0][i].powi(2) + cols[1][i].powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        (norm - 1.0).abs() < 1e-9,
        "unitary evolution keeps the norm: {norm}"
    );
}

#[test]
fn heat_decays_the_sine_mode_at_its_eigenvalue() {
    let n = 6usize;
    let out = matexp_cmd()
        .args(["heat", "-N", "6", "-t", "0:0.02:2", "--rtol", "1e-12", "-q"])
        .assert()
        .success();
    let (header, cols) = parse_csv(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(header, ["t=0", "t=0.02"]);
    // Dirichlet, h = 1/(N+1): sin(πx)sin(πy)sin(πz) is an eigenvector with eigenvalue
    // 3·(−4/h²)·sin²(πh/2).
    let h = 1.0 / (n as f64 + 1.0);
    let lambda = -3.0 * 4.0 / (h * h) * (std::f64::consts::PI * h / 2.0).sin().powi(2);
    let scale = (lambda * 0.02).exp();
    let want: Vec<f64> = cols[0].iter().map(|u| u * scale).collect();
    assert_eq!(cols[0].len(), n * n * n);
    assert!(rel_err(&cols[1], &want) < 1e-9, "decay by e^(λt) = {scale}");
}

/// Runs a failing command; checks the status, one line on stderr naming `needles`, no
/// panic, and that the output folder holds nothing new.
fn assert_fails(args: &[&str], status: i32, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mtx");
    let assert = matexp_cmd()
        .args(args)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(status);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "one line on stderr: {stderr}"
    );
    assert!(stderr.starts_with("matexp: error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr should name '{n}': {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no output or temporary file left"
    );
}

#[test]
fn bad_inputs_give_documented_statuses_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| write(dir.path(), name, text).to_str().unwrap().to_string();
    let malformed = p(
        "malformed.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 x 3.0\n",
    );
    assert_fails(
        &["expmv", &malformed, "-t", "1"],
        3,
        &["malformed.mtx", ":4"],
    );
    let truncated = p(
        "truncated.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n",
    );
    assert_fails(&["expmv", &truncated, "-t", "1"], 3, &["truncated.mtx"]);
    let nan = p(
        "nan.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 NaN\n2 2 1\n",
    );
    assert_fails(&["phimv", &nan, "-t", "1"], 3, &["nan.mtx", ":3"]);
    let rect = p(
        "rect.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1.0\n",
    );
    assert_fails(&["expmv", &rect, "-t", "1"], 3, &["rect.mtx", "2 × 3"]);
    assert_fails(&["spectrum", &rect], 3, &["2 × 3"]);
    let good = p(
        "good.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 -1\n2 2 -2\n",
    );
    let v3 = p(
        "v3.mtx",
        "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n",
    );
    assert_fails(
        &["expmv", &good, "-t", "1", "-v", &v3],
        3,
        &["v3.mtx", "length 3", "2 rows"],
    );
    let vnan = p(
        "vnan.mtx",
        "%%MatrixMarket matrix array real general\n2 1\n1\nnan\n",
    );
    assert_fails(&["expmv", &good, "-t", "1", "-v", &vnan], 3, &["vnan.mtx"]);
    assert_fails(
        &["expmv", &good, "-t", "1", "--device", "tpu"],
        2,
        &["tpu", "cpu"],
    );
    assert_fails(&["expmv", &good, "-t", "1+x"], 2, &["1+x"]);
    assert_fails(&["expmv", &good, "-t", "0:1:0"], 2, &["0:1:0"]);
    // Finite ends whose span is not: the times between would be ∞ and NaN.
    assert_fails(
        &["expmv", &good, "-t", "-1e308:1e308:3"],
        2,
        &["-1e308:1e308:3", "not be finite"],
    );
    assert_fails(
        &["heat", "-N", "3", "-t", "1.7e308:-1.7e308:2"],
        2,
        &["1.7e308:-1.7e308:2", "not be finite"],
    );
    // Each time is a column held in memory: the count is capped, and the cap named.
    assert_fails(
        &["expmv", &good, "-t", "0:1:1000000000000"],
        2,
        &["1000000000000", "100000"],
    );
    assert_fails(&["expmv", &good, "-t", "1", "--rtol=-1"], 2, &["--rtol"]);
    assert_fails(&["expmv", "missing.mtx", "-t", "1"], 3, &["missing.mtx"]);
    assert_fails(&["centrality", &malformed], 3, &["malformed.mtx"]);
    assert_fails(&["spin-bath", "-L", "1", "-t", "1"], 2, &["spins"]);
    // No GPU on this machine: status 5 and the way to the CPU.
    if matexp::gpu::device_count().unwrap_or(0) == 0 {
        assert_fails(
            &["expmv", &good, "-t", "1", "--device", "gpu"],
            5,
            &["--device cpu"],
        );
        assert_fails(
            &["spin-bath", "-L", "4", "-t", "1", "--device", "gpu:0,1"],
            5,
            &["--device cpu"],
        );
    }
    assert_fails(
        &["heat", "-N", "3", "-t", "1", "--device", "gpu"],
        5,
        &["--device cpu"],
    );
}

#[test]
fn unknown_output_extension_is_a_usage_error_before_computing() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(
        dir.path(),
        "good.mtx",
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
    );
    let assert = matexp_cmd()
        .args(["expmv", good.to_str().unwrap(), "-t", "1", "-o"])
        .arg(dir.path().join("w.txt"))
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("--format"));
    assert!(!dir.path().join("w.txt").exists());
}
