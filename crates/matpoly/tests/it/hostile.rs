//! Hostile arguments of the public API: absurd block sizes and degrees, shapes that overflow,
//! NaN and overflow in the polynomial. Each is a typed error or the right answer.

use matexp_core::Error;
use matexp_dense::Matrix;
use matexp_matpoly::{CpuDense, DenseBackend, Evaluator, Scheme, optimal_block, split};
use std::time::{Duration, Instant};

fn x() -> Matrix<f64> {
    Matrix::from_fn(4, 4, |i, j| 0.1 * (i as f64 - 2.0 * j as f64) + 0.05)
}

/// Σ α_i X^i by the definition (powers one after another).
fn reference(x: &Matrix<f64>, alpha: &[f64]) -> Matrix<f64> {
    let n = x.nrows();
    let mut sum = Matrix::zeros(n, n);
    let mut pow = Matrix::identity(n);
    for &a in alpha {
        sum.add_scaled(a, &pow).unwrap();
        pow = x.matmul(&pow).unwrap();
    }
    sum
}

#[test]
fn paterson_stockmeyer_accepts_any_block_size() {
    let alpha: Vec<f64> = (0..=9).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let want = reference(&x(), &alpha);
    let mut ev = Evaluator::new(CpuDense::new());
    for block in [1, 4, 9, 10, 1 << 40, usize::MAX - 1, usize::MAX] {
        let scheme = Scheme::PatersonStockmeyer { block };
        let p = ev.polyval(&x(), &alpha, scheme).unwrap();
        let mut d = p.clone();
        d.add_scaled(-1.0, &want).unwrap();
        assert!(
            d.norm_one() <= 1e-14 * want.norm_one(),
            "block {block}: {}",
            d.norm_one()
        );
        // A block beyond the degree stores X … X^9: 8 products, no outer step.
        assert!(scheme.products(9) <= 8);
        let _ = scheme.products(usize::MAX);
        let _ = scheme.name();
        let cs = split::column_split(&mut [CpuDense::new(), CpuDense::new()], &x(), &alpha, block)
            .unwrap();
        let mut d = cs;
        d.add_scaled(-1.0, &want).unwrap();
        assert!(
            d.norm_one() <= 1e-14 * want.norm_one(),
            "split, block {block}"
        );
    }
}

/// The old exhaustive search over 1..=d, the definition of the optimal block.
fn optimal_block_by_search(d: usize) -> usize {
    let target = ((d + 1) as f64).sqrt() - 1.0;
    let cost = |b: usize| Scheme::PatersonStockmeyer { block: b }.products(d);
    (1..=d.max(1))
        .min_by(|&a, &b| {
            cost(a).cmp(&cost(b)).then(
                (a as f64 - target)
                    .abs()
                    .total_cmp(&(b as f64 - target).abs()),
            )
        })
        .unwrap()
}

#[test]
fn optimal_block_agrees_with_the_search_and_returns_at_once_for_huge_degrees() {
    for d in (0..1500).chain([4095, 4096, 10_000, 65_535, 99_999]) {
        assert_eq!(optimal_block(d), optimal_block_by_search(d), "d = {d}");
    }
    for d in [
        1usize << 40,
        (1 << 52) + 3,
        usize::MAX / 3,
        usize::MAX - 1,
        usize::MAX,
    ] {
        let start = Instant::now();
        let b = optimal_block(d);
        assert!(start.elapsed() < Duration::from_secs(2), "d = {d}");
        // A local minimum, and no worse than the block ⌈√(d+1)⌉ − 1 that reaches 2√(d+1).
        let cost = |b: usize| Scheme::PatersonStockmeyer { block: b }.products(d);
        for other in b.saturating_sub(2000).max(1)..=b + 2000 {
            assert!(cost(b) <= cost(other), "d = {d}: b = {b} vs {other}");
        }
        let root = ((d as u128 + 1).isqrt() as usize).max(1);
        assert!(cost(b) <= cost(root) && cost(b) <= cost(root - 1).max(1));
    }
}

#[test]
fn nan_in_x_and_overflow_of_p_are_errors() {
    let mut ev = Evaluator::new(CpuDense::new());
    let mut bad = x();
    bad[(1, 2)] = f64::NAN;
    let schemes = [
        Scheme::Horner,
        Scheme::Powers,
        Scheme::paterson_stockmeyer(4),
    ];
    for scheme in schemes {
        let e = ev.polyval(&bad, &[1.0, 1.0, 1.0], scheme).unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "{scheme:?}: {e}");
        // (1e200·I)² overflows: P(X) = I + X + X² is ∞ on the diagonal.
        let big = Matrix::<f64>::from_diagonal(&[1e200, 1e200, 1e200]);
        let e = ev.polyval(&big, &[1.0, 1.0, 1.0], scheme).unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "{scheme:?}: {e}");
        // 0·∞ does not hide: X = [[1e300, 1e300], [0, 0]], X² has 1e600.
        let tri = Matrix::<f64>::from_row_major(2, 2, &[1e300, 1e300, 0.0, 0.0]).unwrap();
        let e = ev.polyval(&tri, &[0.0, 0.0, 1.0], scheme).unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "{scheme:?}: {e}");
    }
    let big = Matrix::<f64>::from_diagonal(&[1e200, 1e200, 1e200]);
    for e in [
        split::power_split(
            &mut [CpuDense::new(), CpuDense::new()],
            &big,
            &[1.0, 1.0, 1.0],
        )
        .unwrap_err(),
        split::column_split(
            &mut [CpuDense::new(), CpuDense::new()],
            &big,
            &[1.0, 1.0, 1.0],
            1,
        )
        .unwrap_err(),
    ] {
        assert!(matches!(e, Error::NonFinite { .. }), "{e}");
    }
    // Finite results stay answers.
    let p = ev.polyval(&x(), &[1.0, 2.0], Scheme::Horner).unwrap();
    assert!(p.check_finite("p").is_ok());
}

#[test]
fn shapes_that_overflow_are_refused_by_the_backend_and_the_phi_functions() {
    let mut cpu = CpuDense::new();
    let e = DenseBackend::<f64>::zeros(&mut cpu, 1 << 32, 1 << 32).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let mut ev = Evaluator::new(CpuDense::new());
    for k in [usize::MAX, 1 << 40] {
        let e = ev.phi_functions(&x(), k).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "k = {k}: {e}");
    }
}
