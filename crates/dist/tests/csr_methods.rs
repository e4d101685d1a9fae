//! Every f(tA)v method on a DistCsr at 1–4 in-process ranks equals the single-process
//! solver (and the 1-rank run) to 1e-13 relative; total communicability likewise.

mod common;

use common::rel;
use matexp::{Method, Options};
use matexp_core::{Backend, CpuBackend};
use matexp_dist::{DistBackend, DistCsr, comm::run_ranks};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_2d;
use std::sync::Arc;

/// A non-symmetric matrix: the 2D Laplacian plus an upwind convection term.
fn convection(n: usize) -> CsrMatrix<f64> {
    let l = laplacian_2d::<f64, u32>(n).unwrap();
    let mut t = Vec::new();
    for i in 0..l.nrows() {
        let (cols, vals) = l.row(i);
        for (&c, &v) in cols.iter().zip(vals) {
            let extra = if c as usize + 1 == i {
                3.0 * (n as f64)
            } else {
                0.0
            };
            t.push((i, c as usize, v + extra));
        }
    }
    CsrMatrix::from_triplets(l.nrows(), l.ncols(), &t).unwrap()
}

fn run_all(a: &CsrMatrix<f64>, methods: &[Method], t: f64) {
    let n = a.nrows();
    let v: Vec<f64> = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect();
    for &m in methods {
        let opts = Options::default().with_method(m).with_rtol(1e-12);
        let (w1, _) = matexp::expmv(&CpuBackend, a, t, &v, &opts).unwrap();
        let mut one_rank: Option<Vec<f64>> = None;
        for ranks in 1..=4 {
            let ws = run_ranks(ranks, |comm| {
                let comm = Arc::new(comm);
                let op = DistCsr::from_global(comm.clone(), a).unwrap();
                let dist = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
                let x = dist.upload(&v).unwrap();
                let (w, _) = matexp::expmv(&dist, &op, t, &x, &opts).unwrap();
                dist.to_host(&w).unwrap()
            });
            for w in &ws {
                assert_eq!(w, &ws[0], "{m:?}: ranks disagree");
                let e = rel(w, &w1);
                assert!(
                    e <= 1e-13,
                    "{m:?} at {ranks} ranks: {e:e} from the single process"
                );
                if let Some(o) = &one_rank {
                    assert!(rel(w, o) <= 1e-13, "{m:?} at {ranks} ranks vs 1 rank");
                }
            }
            one_rank.get_or_insert_with(|| ws[0].clone());
        }
    }
}

#[test]
fn symmetric_laplacian_by_every_method() {
    let a = laplacian_2d::<f64, u32>(12).unwrap();
    run_all(
        &a,
        &[
            Method::Leja,
            Method::Lanczos,
            Method::Arnoldi,
            Method::Taylor,
            Method::Auto,
        ],
        2e-3,
    );
}

#[test]
fn nonsymmetric_convection_by_leja_arnoldi_taylor() {
    let a = convection(10);
    run_all(&a, &[Method::Leja, Method::Arnoldi, Method::Taylor], 2e-3);
}

#[test]
fn properties_match_the_whole_matrix() {
    for a in [laplacian_2d::<f64, u32>(9).unwrap(), convection(9)] {
        use matexp_core::LinearOperator;
        let want = (
            LinearOperator::<CpuBackend, f64>::spectral_bounds(&a),
            LinearOperator::<CpuBackend, f64>::is_hermitian(&a),
            LinearOperator::<CpuBackend, f64>::hermitian_part_bounds(&a),
        );
        for ranks in 1..=4 {
            let got = run_ranks(ranks, |comm| {
                let op = DistCsr::<f64>::from_global(Arc::new(comm), &a).unwrap();
                type D = DistBackend<CpuBackend>;
                (
                    LinearOperator::<D, f64>::spectral_bounds(&op),
                    LinearOperator::<D, f64>::is_hermitian(&op),
                    LinearOperator::<D, f64>::hermitian_part_bounds(&op),
                )
            });
            for g in got {
                assert_eq!(g.0, want.0);
                assert_eq!(g.1, want.1);
                let (lo, hi) = (g.2.unwrap(), want.2.unwrap());
                assert!((lo.0 - hi.0).abs() <= 1e-12 * hi.0.abs().max(1.0));
                assert!((lo.1 - hi.1).abs() <= 1e-12 * hi.1.abs().max(1.0));
            }
        }
    }
}

#[test]
fn scatter_from_root_equals_from_global() {
    let a = convection(8);
    let v: Vec<f64> = (0..a.nrows()).map(|i| (i as f64).cos()).collect();
    for ranks in 1..=4 {
        let ys = run_ranks(ranks, |comm| {
            use matexp_core::LinearOperator;
            let comm = Arc::new(comm);
            let mine = (comm.as_ref() as &dyn matexp_dist::comm::Communicator).rank() == 0;
            let op = DistCsr::scatter_from_root(comm.clone(), mine.then_some(&a), 0).unwrap();
            let dist = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
            let x = dist.upload(&v).unwrap();
            let mut y = dist.zeros(v.len()).unwrap();
            op.apply(&dist, 1.0, &x, 0.0, &mut y).unwrap();
            dist.to_host(&y).unwrap()
        });
        let mut want = vec![0.0; v.len()];
        a.spmv(1.0, &v, 0.0, &mut want).unwrap();
        for y in ys {
            let bad: Vec<_> = (0..y.len())
                .filter(|&i| y[i] != want[i])
                .map(|i| (i, y[i], want[i]))
                .collect();
            assert!(bad.is_empty(), "{ranks} ranks: {bad:?}");
        }
    }
}

#[test]
fn total_communicability_on_a_graph() {
    use matexp_graph::{CommunicabilityOptions, total_communicability};
    // The grid graph of the 2D Laplacian's off-diagonal pattern.
    let l = laplacian_2d::<f64, u32>(10).unwrap();
    let mut t = Vec::new();
    for i in 0..l.nrows() {
        t.extend(
            l.row(i)
                .0
                .iter()
                .filter(|&&c| c as usize != i)
                .map(|&c| (i, c as usize, 1.0)),
        );
    }
    let g: CsrMatrix<f64> = CsrMatrix::from_triplets(l.nrows(), l.ncols(), &t).unwrap();
    let opts = CommunicabilityOptions::default();
    let (want, _) = total_communicability(&CpuBackend, &g, 0.5, &opts).unwrap();
    for ranks in 1..=4 {
        let ws = run_ranks(ranks, |comm| {
            let comm = Arc::new(comm);
            let op = DistCsr::from_global(comm.clone(), &g).unwrap();
            let dist = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
            let (w, _) = total_communicability(&dist, &op, 0.5, &opts).unwrap();
            dist.to_host(&w).unwrap()
        });
        for w in ws {
            assert!(
                rel(&w, &want) <= 1e-13,
                "{ranks} ranks: {:e}",
                rel(&w, &want)
            );
        }
    }
}
