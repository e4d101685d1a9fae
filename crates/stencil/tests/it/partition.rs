//! The z-split with halo exchange against the single-domain operator, for 1, 2 and 4 parts
//! (and uneven slabs), every boundary kind and the coefficients.

use crate::common;
use matexp_core::OperatorSteps;

use common::{KINDS, coefficient, random_vec};
use matexp_core::{CpuBackend, LinearOperator, ShiftedStep};
use matexp_stencil::partition::{HaloPlan, PartitionedStencil, ZPartition};
use matexp_stencil::{Boundary, Dim, Stencil};

fn check(n: usize, partition: ZPartition, kind: Boundary, coef: usize) {
    let len = n * n * n;
    let op = Stencil::<f64>::builder(Dim::Three, n)
        .boundary(kind)
        .coefficient(coefficient(coef, len, 9))
        .build()
        .unwrap();
    let pl = n * n;
    let x = random_vec::<f64>(len, 1);
    let y0 = random_vec::<f64>(len, 2);
    let split = PartitionedStencil::new(&op, partition).unwrap();
    let part = split.partition().clone();
    let ctx = format!(
        "{kind:?} coef={coef} parts={:?}",
        (0..part.parts()).map(|p| part.range(p)).collect::<Vec<_>>()
    );

    let mut y = y0.clone();
    op.apply(&CpuBackend, 0.5, &x, -2.0, &mut y).unwrap();
    let xs = part.split(pl, &x).unwrap();
    let mut ys = part.split(pl, &y0).unwrap();
    split.apply(0.5, &xs, -2.0, &mut ys).unwrap();
    // Same kernel, same operation order: equal to the last bit.
    assert_eq!(part.gather(pl, &ys).unwrap(), y, "apply {ctx}");

    let step = ShiftedStep {
        alpha: 0.25,
        shift: 1.5,
        coeff: -0.75,
    };
    let (mut yn, mut p) = (y0.clone(), random_vec::<f64>(len, 3));
    let norm = op
        .shifted_step(&CpuBackend, &step, &x, &mut yn, &mut p)
        .unwrap();
    let mut yns = part.split(pl, &y0).unwrap();
    let mut ps = part.split(pl, &random_vec::<f64>(len, 3)).unwrap();
    let norm_s = split.shifted_step(&step, &xs, &mut yns, &mut ps).unwrap();
    assert_eq!(part.gather(pl, &yns).unwrap(), yn, "step {ctx}");
    assert_eq!(part.gather(pl, &ps).unwrap(), p, "step accumulation {ctx}");
    assert!(
        (norm - norm_s).abs() <= 1e-13 * norm,
        "norm {ctx}: {norm} vs {norm_s}"
    );
}

#[test]
fn two_and_four_parts_equal_one_domain() {
    for kind in KINDS {
        for coef in 0..3 {
            for parts in [1, 2, 4] {
                check(8, ZPartition::even(8, parts).unwrap(), kind, coef);
            }
        }
    }
}

#[test]
fn uneven_and_single_plane_slabs() {
    for kind in KINDS {
        check(
            5,
            ZPartition::from_bounds(vec![0, 1, 2, 4, 5]).unwrap(),
            kind,
            1,
        );
        check(4, ZPartition::even(4, 4).unwrap(), kind, 0);
        check(2, ZPartition::even(2, 2).unwrap(), kind, 2);
    }
}

#[test]
fn halo_plan_counts_messages() {
    let p = ZPartition::even(16, 4).unwrap();
    assert_eq!(HaloPlan::new(&p, Boundary::Dirichlet).messages(), 6);
    assert_eq!(HaloPlan::new(&p, Boundary::Periodic).messages(), 8);
    assert!(ZPartition::even(3, 4).is_err());
    assert!(ZPartition::from_bounds(vec![0, 2, 2]).is_err());
    let a = Stencil::<f64>::laplacian(Dim::Two, 8, Boundary::Dirichlet).unwrap();
    assert!(PartitionedStencil::new(&a, ZPartition::even(1, 1).unwrap()).is_err());
}
