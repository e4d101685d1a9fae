//! The multi-device splits (seed 004, Alg. 2/3 and 7/8) with 2 and 4 CPU partitions: the
//! same polynomial as Horner on one device, with the per-device product counts of the
//! formulas.

use crate::common;

use common::{coefficients, families, rel_err};
use matexp_core::{Error, c64};
use matexp_dense::Matrix;
use matexp_matpoly::split::{column_ranges, column_split, power_split, power_split_products};
use matexp_matpoly::{Counting, CpuDense, Evaluator, Scheme};

fn devices(parts: usize) -> Vec<Counting<CpuDense>> {
    (0..parts).map(|_| Counting::new(CpuDense::new())).collect()
}

#[test]
fn column_split_is_horner_on_2_and_4_partitions() {
    for parts in [2usize, 4] {
        for (d, b) in [(12, 3), (20, 4), (30, 5), (3, 1), (2, 5)] {
            for (name, x) in families::<f64>(26, 1.0, d as u64) {
                let alpha = coefficients::<f64>(d, 11);
                let h = Evaluator::new(CpuDense::new())
                    .polyval(&x, &alpha, Scheme::Horner)
                    .unwrap();
                let mut devs = devices(parts);
                let p = column_split(&mut devs, &x, &alpha, b).unwrap();
                let err = rel_err(&p, &h);
                assert!(err <= 1e-14, "{parts} parts, {name}, d = {d}: {err:.2e}");
                let want = Scheme::PatersonStockmeyer { block: b }.products(d);
                for (g, dev) in devs.iter().enumerate() {
                    assert_eq!(dev.gemms, want, "{parts} parts, device {g}, d = {d}");
                }
            }
        }
    }
}

#[test]
fn power_split_is_horner_on_2_and_4_partitions() {
    for parts in [2usize, 4] {
        for d in [0usize, 1, 2, 3, 4, 5, 7, 12, 13, 20] {
            for (name, x) in families::<c64>(12, 1.0, 3 + d as u64) {
                let alpha = coefficients::<c64>(d, 5);
                let h = Evaluator::new(CpuDense::new())
                    .polyval(&x, &alpha, Scheme::Horner)
                    .unwrap();
                let mut devs = devices(parts);
                let p = power_split(&mut devs, &x, &alpha).unwrap();
                let err = rel_err(&p, &h);
                assert!(err <= 1e-14, "{parts} parts, {name}, d = {d}: {err:.2e}");
                for (g, dev) in devs.iter().enumerate() {
                    assert_eq!(
                        dev.gemms,
                        power_split_products(d, parts, g),
                        "{parts} parts, device {g}, d = {d}"
                    );
                }
            }
        }
    }
}

#[test]
fn power_split_work_is_balanced() {
    // The devices' product counts differ by at most one for d ≥ G (the seed's sawtooth).
    for parts in 2..=4 {
        for d in parts..40 {
            let c: Vec<usize> = (0..parts)
                .map(|g| power_split_products(d, parts, g))
                .collect();
            let (lo, hi) = (c.iter().min().unwrap(), c.iter().max().unwrap());
            assert!(hi - lo <= 1, "G = {parts}, d = {d}: {c:?}");
        }
    }
}

#[test]
fn uneven_column_blocks_and_single_device_work() {
    let x = families::<f64>(7, 1.0, 1).remove(0).1;
    let alpha = coefficients::<f64>(9, 2);
    let h = Evaluator::new(CpuDense::new())
        .polyval(&x, &alpha, Scheme::Horner)
        .unwrap();
    assert_eq!(
        column_ranges(7, 3)
            .iter()
            .map(|r| r.len())
            .collect::<Vec<_>>(),
        vec![3, 2, 2]
    );
    for parts in [1usize, 3] {
        let p = column_split(&mut devices(parts), &x, &alpha, 2).unwrap();
        assert!(rel_err(&p, &h) <= 1e-14);
        let p = power_split(&mut devices(parts), &x, &alpha).unwrap();
        assert!(rel_err(&p, &h) <= 1e-14);
    }
}

#[test]
fn bad_arguments_are_typed_errors() {
    let x = Matrix::<f64>::identity(3);
    let none: &mut [CpuDense] = &mut [];
    assert!(matches!(
        column_split(none, &x, &[1.0], 1),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        power_split(&mut [CpuDense::new(); 4], &x, &[1.0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        column_split(&mut [CpuDense::new(); 2], &x, &[1.0, 2.0], 0),
        Err(Error::InvalidArgument { .. })
    ));
    let nan = Matrix::<f64>::from_diagonal(&[1.0, f64::NAN]);
    assert!(matches!(
        power_split(&mut [CpuDense::new(); 2], &nan, &[1.0, 1.0]),
        Err(Error::NonFinite { .. })
    ));
}
