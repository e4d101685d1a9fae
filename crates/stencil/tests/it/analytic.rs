//! The operators against analytic facts: conservation, eigenpairs, exactness on cubic
//! polynomials, and second-order convergence of an inhomogeneous Dirichlet problem.

use crate::common;

use common::{dim, random_vec};
use matexp_core::{CpuBackend, LinearOperator};
use matexp_stencil::spectrum::mode_eigenvalue;
use matexp_stencil::{Boundary, BoundaryFunction, Coefficient, Dim, Stencil};
use std::f64::consts::PI;

fn apply(op: &Stencil<f64>, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    op.apply(&CpuBackend, 1.0, &x.to_vec(), 0.0, &mut y)
        .unwrap();
    y
}

/// ‖A v − λ v‖_∞ / (|λ|·‖v‖_∞), or / ‖A‖ when λ = 0.
fn eigen_residual(op: &Stencil<f64>, v: &[f64], lambda: f64) -> f64 {
    let av = apply(op, v);
    let vmax = v.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    let scale = lambda.abs().max(1.0) * vmax;
    av.iter()
        .zip(v)
        .map(|(a, x)| (a - lambda * x).abs())
        .fold(0.0, f64::max)
        / scale
}

#[test]
fn neumann_conserves_mass() {
    for three in [false, true] {
        let op = Stencil::<f64>::laplacian(dim(three), 9, Boundary::Neumann).unwrap();
        let x = random_vec::<f64>(op.grid().len(), 7);
        let ax = apply(&op, &x);
        let total: f64 = ax.iter().sum();
        let size: f64 = ax.iter().map(|v| v.abs()).sum();
        assert!(
            total.abs() < 1e-13 * size,
            "1ᵀAx = {total} (Σ|Ax| = {size})"
        );
        // And constants are stationary.
        let ones = vec![1.0; op.grid().len()];
        assert!(apply(&op, &ones).iter().all(|v| v.abs() < 1e-9));
    }
}

#[test]
fn periodic_reproduces_fourier_eigenvalues() {
    let n = 12;
    for three in [false, true] {
        let op = Stencil::<f64>::laplacian(dim(three), n, Boundary::Periodic).unwrap();
        let g = *op.grid();
        for k in [[0usize, 0, 0], [1, 0, 2], [3, 5, 1], [6, 6, 6], [11, 2, 7]] {
            let axes = if three { 3 } else { 2 };
            // Real part of e^{2πi k·x}: an eigenvector since the eigenvalue is even in k.
            let v: Vec<f64> = (0..g.len())
                .map(|i| {
                    let idx = [i % n, (i / n) % n, i / (n * n)];
                    (2.0 * PI
                        * (0..axes)
                            .map(|a| (k[a] * idx[a]) as f64 / n as f64)
                            .sum::<f64>())
                    .cos()
                })
                .collect();
            let lambda: f64 = (0..axes).map(|a| mode_eigenvalue(&g, k[a])).sum();
            let expect = -4.0
                * (n * n) as f64
                * (0..axes)
                    .map(|a| (PI * k[a] as f64 / n as f64).sin().powi(2))
                    .sum::<f64>();
            assert!((lambda - expect).abs() <= 1e-12 * expect.abs().max(1.0));
            assert!(eigen_residual(&op, &v, lambda) < 1e-12, "k = {k:?}");
        }
    }
}

#[test]
fn dirichlet_and_neumann_modes_are_eigenvectors_and_bound_the_spectrum() {
    let n = 10;
    for three in [false, true] {
        let axes = if three { 3 } else { 2 };
        for (kind, lo_k, hi_k) in [(Boundary::Dirichlet, n, 1), (Boundary::Neumann, n - 1, 0)] {
            let op = Stencil::<f64>::laplacian(dim(three), n, kind).unwrap();
            let g = *op.grid();
            let mode = |k: usize, c: f64| match kind {
                Boundary::Dirichlet => (PI * k as f64 * c).sin(),
                _ => (PI * k as f64 * c).cos(),
            };
            let b = op.spectral_bounds().unwrap();
            for (k, bound) in [(lo_k, b.re_min), (hi_k, b.re_max)] {
                let v: Vec<f64> = (0..g.len())
                    .map(|i| g.point(i)[..axes].iter().map(|&c| mode(k, c)).product())
                    .collect();
                assert!(eigen_residual(&op, &v, bound) < 1e-11, "{kind:?} k = {k}");
            }
            assert_eq!(op.norm_bound().unwrap(), b.re_min.abs());
        }
    }
}

#[test]
fn coefficient_bounds_contain_the_rayleigh_quotients() {
    let op = Stencil::<f64>::builder(Dim::Three, 8)
        .coefficient(Coefficient::Seed)
        .build()
        .unwrap();
    let b = op.spectral_bounds().unwrap();
    let (dmin, dmax) = op.coefficient_range();
    assert!((dmax - 1.0 / (1.0 + 2.0 * (1.0 / 9.0f64).powi(2)).sqrt()).abs() < 1e-15);
    assert!((dmin - 1.0 / (1.0 + 2.0 * (8.0 / 9.0f64).powi(2)).sqrt()).abs() < 1e-15);
    // Eigenvalues of D·L are those of D^½ L D^½: check random Rayleigh quotients of it.
    let g = *op.grid();
    let dsqrt: Vec<f64> = (0..g.len()).map(|i| op.coefficient_at(i).sqrt()).collect();
    let plain = Stencil::<f64>::laplacian(Dim::Three, 8, Boundary::Dirichlet).unwrap();
    for seed in 0..5 {
        let x = random_vec::<f64>(g.len(), seed);
        let y: Vec<f64> = x.iter().zip(&dsqrt).map(|(a, d)| a * d).collect();
        let ly = apply(&plain, &y);
        let q = y.iter().zip(&ly).map(|(a, b)| a * b).sum::<f64>()
            / x.iter().map(|a| a * a).sum::<f64>();
        assert!(
            b.re_min <= q && q <= b.re_max,
            "{q} outside [{}, {}]",
            b.re_min,
            b.re_max
        );
    }
}

/// The 7-point stencil is exact on polynomials of degree ≤ 3 in each variable, so with the
/// seed's g = z(1−z)xy as boundary data, A·g + b = D·Δg = −2xy·D at every grid point.
#[test]
fn affine_term_is_exact_on_the_seed_polynomial() {
    for coef in [Coefficient::Unit, Coefficient::Seed] {
        for three in [false, true] {
            let op = Stencil::<f64>::builder(dim(three), 11)
                .boundary_values(BoundaryFunction::Polynomial)
                .coefficient(coef.clone())
                .build()
                .unwrap();
            let g = *op.grid();
            let u: Vec<f64> = (0..g.len())
                .map(|i| BoundaryFunction::Polynomial.eval(g.point(i)))
                .collect();
            let mut r = vec![0.0; g.len()];
            op.apply_affine(1.0, &u, 0.0, &mut r).unwrap();
            for i in 0..g.len() {
                let [x, y, _] = g.point(i);
                // In 2D z = ½ is fixed and g = xy/4 is harmonic in (x, y).
                let lap = if three { -2.0 * x * y } else { 0.0 };
                let want = lap * op.coefficient_at(i);
                assert!(
                    (r[i] - want).abs() < 1e-10,
                    "{coef:?} 3d={three} at {i}: {} vs {want}",
                    r[i]
                );
            }
        }
    }
}

#[test]
fn custom_boundary_function_equals_builtin() {
    let built = Stencil::<f64>::builder(Dim::Three, 6)
        .boundary_values(BoundaryFunction::SineExp)
        .build()
        .unwrap();
    let custom = Stencil::<f64>::builder(Dim::Three, 6)
        .boundary_values(BoundaryFunction::custom(|[x, y, z]| {
            (PI * z).sin() * (-x * y).exp()
        }))
        .build()
        .unwrap();
    assert_eq!(built.affine_term(), custom.affine_term());
    // b lives next to the boundary only.
    let g = *built.grid();
    let b = built.affine_term().unwrap();
    let interior = |i: usize| [i % 6, (i / 6) % 6, i / 36].iter().all(|&c| c > 0 && c < 5);
    assert!((0..g.len()).filter(|&i| interior(i)).all(|i| b[i] == 0.0));
    // The same b given directly.
    let direct = Stencil::<f64>::builder(Dim::Three, 6)
        .boundary_term(b.to_vec())
        .build()
        .unwrap();
    assert_eq!(direct.affine_term(), Some(b));
    let x = random_vec::<f64>(216, 5);
    let (mut y1, mut y2) = (vec![0.0; 216], vec![0.0; 216]);
    built.apply_affine(0.5, &x, 0.0, &mut y1).unwrap();
    direct.apply_affine(0.5, &x, 0.0, &mut y2).unwrap();
    assert_eq!(y1, y2);
    assert!(
        Stencil::<f64>::builder(Dim::Three, 6)
            .boundary_term(vec![0.0; 5])
            .build()
            .is_err()
    );
    assert!(
        Stencil::<f64>::builder(Dim::Three, 6)
            .boundary(Boundary::Neumann)
            .boundary_values(BoundaryFunction::SineExp)
            .build()
            .is_err()
    );
}

/// Solves A u = f − b by conjugate gradients on −A (symmetric positive definite).
fn solve(op: &Stencil<f64>, rhs: &[f64]) -> Vec<f64> {
    let n = rhs.len();
    let neg = |x: &[f64]| -> Vec<f64> { apply(op, x).into_iter().map(|v| -v).collect() };
    let mut u = vec![0.0; n];
    let mut r: Vec<f64> = rhs.iter().map(|v| -v).collect();
    let mut p = r.clone();
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    let stop = rr * 1e-26;
    for _ in 0..10 * n {
        let ap = neg(&p);
        let a = rr / p.iter().zip(&ap).map(|(x, y)| x * y).sum::<f64>();
        for i in 0..n {
            u[i] += a * p[i];
            r[i] -= a * ap[i];
        }
        let rr_new: f64 = r.iter().map(|v| v * v).sum();
        if rr_new < stop {
            break;
        }
        for i in 0..n {
            p[i] = r[i] + rr_new / rr * p[i];
        }
        rr = rr_new;
    }
    u
}

/// Manufactured solution u* = sin(πz)e^{−xy} (the seed's second boundary function):
/// Δu* = (x² + y² − π²)u*. The discrete solution of A u + b = Δu* must approach u* at O(h²).
#[test]
fn inhomogeneous_dirichlet_converges_at_second_order() {
    for three in [false, true] {
        let sizes: &[usize] = if three { &[7, 15, 31] } else { &[15, 31, 63] };
        let mut errs = Vec::new();
        for &n in sizes {
            let op = Stencil::<f64>::builder(dim(three), n)
                .boundary_values(BoundaryFunction::SineExp)
                .build()
                .unwrap();
            let g = *op.grid();
            let exact: Vec<f64> = (0..g.len())
                .map(|i| BoundaryFunction::SineExp.eval(g.point(i)))
                .collect();
            let b = op.affine_term().unwrap();
            let rhs: Vec<f64> = (0..g.len())
                .map(|i| {
                    let [x, y, _] = g.point(i);
                    let lap_z = if three { PI * PI } else { 0.0 };
                    (x * x + y * y - lap_z) * exact[i] - b[i]
                })
                .collect();
            let u = solve(&op, &rhs);
            errs.push(
                u.iter()
                    .zip(&exact)
                    .map(|(a, e)| (a - e).abs())
                    .fold(0.0, f64::max),
            );
        }
        eprintln!("3d={three}: max errors {errs:?}");
        for w in errs.windows(2) {
            let order = (w[0] / w[1]).log2();
            eprintln!("3d={three}: observed order {order:.3}");
            assert!(
                (1.8..2.2).contains(&order),
                "3d={three}: errors {errs:?}, order {order}"
            );
        }
    }
}

#[test]
fn frame_rows_are_zero_and_keep_the_boundary_data() {
    let op = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Frame).unwrap();
    let g = *op.grid();
    // A function linear in each coordinate is harmonic: A u = 0 everywhere, frame included.
    let u: Vec<f64> = (0..g.len())
        .map(|i| {
            let [x, y, z] = g.point(i);
            1.0 + 2.0 * x - y + 0.5 * z + x * y * z
        })
        .collect();
    assert!(apply(&op, &u).iter().all(|v| v.abs() < 1e-10));
    let x = random_vec::<f64>(g.len(), 3);
    let ax = apply(&op, &x);
    for i in 0..g.len() {
        let c = [i % 6, (i / 6) % 6, i / 36];
        if c.iter().any(|&v| v == 0 || v == 5) {
            assert_eq!(ax[i], 0.0);
        }
    }
    let b = op.spectral_bounds().unwrap();
    assert_eq!(b.re_max, 0.0);
    assert!((b.re_min - 3.0 * mode_eigenvalue(&g, 4)).abs() < 1e-9);
}

/// e^{tA₁}w for the 1D Dirichlet second difference through its sine eigenbasis.
fn expm_1d(t: f64, w: &[f64]) -> Vec<f64> {
    let n = w.len();
    let h1 = (n + 1) as f64;
    let q = |i: usize, k: usize| (2.0 / h1).sqrt() * (PI * ((i + 1) * (k + 1)) as f64 / h1).sin();
    let c: Vec<f64> = (0..n)
        .map(|k| {
            let lam = -4.0 * h1 * h1 * (PI * (k + 1) as f64 / (2.0 * h1)).sin().powi(2);
            (0..n).map(|i| q(i, k) * w[i]).sum::<f64>() * (t * lam).exp()
        })
        .collect();
    (0..n)
        .map(|i| (0..n).map(|k| q(i, k) * c[k]).sum())
        .collect()
}

/// The 3D Dirichlet operator is the Kronecker sum A₁ ⊕ A₁ ⊕ A₁, so e^{tA}(a ⊗ b ⊗ c) is the
/// product of 1D exponentials: the exact reference of seed 000's Tables 11 and 12. Checked
/// against a Taylor series of the matrix-free operator at t‖A‖ ≈ 0.6.
#[test]
fn heat_equation_solution_is_separable() {
    let n = 6;
    let op = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
    let g = *op.grid();
    let t = 0.6 / op.norm_bound().unwrap();
    let a: Vec<f64> = (0..n).map(|i| (2.0 * PI * g.coord(i)).sin()).collect();
    let b: Vec<f64> = (0..n).map(|i| 1.0 + g.coord(i)).collect();
    let u0: Vec<f64> = (0..g.len())
        .map(|i| a[i % n] * b[(i / n) % n] * b[i / (n * n)])
        .collect();
    let (ea, eb) = (expm_1d(t, &a), expm_1d(t, &b));
    let exact: Vec<f64> = (0..g.len())
        .map(|i| ea[i % n] * eb[(i / n) % n] * eb[i / (n * n)])
        .collect();
    let mut term = u0.clone();
    let mut sum = u0.clone();
    for k in 1..40 {
        let mut next = vec![0.0; term.len()];
        op.apply(&CpuBackend, t / k as f64, &term, 0.0, &mut next)
            .unwrap();
        term = next;
        sum.iter_mut().zip(&term).for_each(|(s, v)| *s += v);
    }
    let err = sum
        .iter()
        .zip(&exact)
        .map(|(s, e)| (s - e).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-13, "max error {err}");
}
