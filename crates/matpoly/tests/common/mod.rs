//! Shared test helpers: seeded random matrices, relative errors, the mpmath fixture.

#![allow(dead_code)]

use matexp_core::{RealScalar, Scalar, c64};
use matexp_dense::Matrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Relative 1-norm error ‖a − b‖₁ / ‖b‖₁, in double precision.
pub fn rel_err<S: Scalar>(a: &Matrix<S>, b: &Matrix<S>) -> f64 {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    let n = a.ncols();
    let mut num = 0.0f64;
    let mut den = 0.0f64;
    for j in 0..n {
        let mut sn = 0.0;
        let mut sd = 0.0;
        for i in 0..a.nrows() {
            sn += (a[(i, j)].to_c64() - b[(i, j)].to_c64()).norm();
            sd += b[(i, j)].to_c64().norm();
        }
        num = num.max(sn);
        den = den.max(sd);
    }
    if den == 0.0 { num } else { num / den }
}

/// Entries uniform in [−scale, scale] (complex types: both parts), seeded.
pub fn random<S: Scalar>(n: usize, scale: f64, seed: u64) -> Matrix<S> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Matrix::from_fn(n, n, |_, _| {
        let re = rng.random_range(-scale..=scale);
        let im = rng.random_range(-scale..=scale);
        S::from_c64(c64::new(re, im))
    })
}

/// The structured families the schemes are checked on, each with ‖X‖₁ about `norm`.
pub fn families<S: Scalar>(n: usize, norm: f64, seed: u64) -> Vec<(&'static str, Matrix<S>)> {
    let scaled = |m: Matrix<S>| {
        let s = m
            .as_slice()
            .chunks(n)
            .map(|c| c.iter().map(|x| x.modulus().as_f64()).sum::<f64>())
            .fold(0.0, f64::max);
        m.scaled(S::from_f64(norm / s))
    };
    let r = random::<S>(n, 1.0, seed);
    // Normal: Hermitian part of a random matrix.
    let normal = Matrix::from_fn(n, n, |i, j| {
        (r[(i, j)] + r[(j, i)].conj()) * S::from_f64(0.5)
    });
    // Nonnormal: triangular with a dominant superdiagonal.
    let nonnormal = Matrix::from_fn(n, n, |i, j| {
        if j == i + 1 {
            S::from_f64(50.0)
        } else if j >= i {
            r[(i, j)]
        } else {
            S::zero()
        }
    });
    let lower = Matrix::from_fn(n, n, |i, j| if i >= j { r[(i, j)] } else { S::zero() });
    vec![
        ("random", scaled(r.clone())),
        ("normal", scaled(normal)),
        ("nonnormal", scaled(nonnormal)),
        ("triangular", scaled(lower)),
    ]
}

/// Coefficients in [0.5, 1] (no cancellation between terms), seeded.
pub fn coefficients<S: Scalar>(d: usize, seed: u64) -> Vec<S> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..=d)
        .map(|_| {
            S::from_c64(c64::new(
                rng.random_range(0.5..=1.0),
                rng.random_range(-0.5..=0.5),
            ))
        })
        .collect()
}

/// Unit roundoff of S's precision.
pub fn eps<S: Scalar>() -> f64 {
    <S::Real as RealScalar>::EPS.as_f64()
}

/// One reference case of fixtures/matpoly/expm_reference.json.
pub struct Case {
    pub name: String,
    pub complex: bool,
    pub a: Matrix<c64>,
    pub expm: Matrix<c64>,
    pub phi: Vec<Matrix<c64>>,
}

fn matrix(n: usize, re: &serde_json::Value, im: &serde_json::Value) -> Matrix<c64> {
    let re: Vec<f64> = serde_json::from_value(re.clone()).unwrap();
    let im: Vec<f64> = serde_json::from_value(im.clone()).unwrap();
    let data: Vec<c64> = re.iter().zip(&im).map(|(&r, &i)| c64::new(r, i)).collect();
    Matrix::from_row_major(n, n, &data).unwrap()
}

/// The mpmath references (made by fixtures/matpoly/expm_reference.py).
pub fn reference_cases() -> Vec<Case> {
    // Embedded, so that the GPU test binary carried to another host finds it too.
    let text = include_str!("../../../../fixtures/matpoly/expm_reference.json");
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let n = c["n"].as_u64().unwrap() as usize;
            let phi = c
                .get("phi")
                .and_then(|p| p.as_array())
                .map(|ps| ps.iter().map(|p| matrix(n, &p["re"], &p["im"])).collect())
                .unwrap_or_default();
            Case {
                name: c["name"].as_str().unwrap().to_string(),
                complex: c["complex"].as_bool().unwrap(),
                a: matrix(n, &c["a_re"], &c["a_im"]),
                expm: matrix(n, &c["expm_re"], &c["expm_im"]),
                phi,
            }
        })
        .collect()
}

/// The fixture's θ_m list.
pub fn reference_theta() -> Vec<f64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/matpoly/expm_reference.json"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::from_value(doc["theta"]["theta"].clone()).unwrap()
}

/// Real part of a complex matrix.
pub fn real(m: &Matrix<c64>) -> Matrix<f64> {
    m.map(|z| z.re)
}
