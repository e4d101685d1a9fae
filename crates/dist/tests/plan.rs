//! The per-rank memory planner: each operator's bytes from its sizes, the method's vector
//! count on the rank's rows, and a refusal agreed by every rank.

use matexp_core::Error;
use matexp_dist::comm::run_ranks;
use matexp_dist::{DistCsr, DistFock, DistStencil, LocalStorage, plan};
use matexp_expmv::plan::{Method, ScalarKind};
use matexp_fock::{BoseHubbard, Coupling, FockBasis};
use matexp_sparse::generators::laplacian_2d;
use matexp_stencil::{Boundary, Dim, Stencil};
use std::sync::Arc;

#[test]
fn csr_on_one_rank_is_its_storage() {
    let a = laplacian_2d::<f64, u32>(10).unwrap();
    let (n, nnz) = (a.nrows() as u64, a.nnz() as u64);
    let got = run_ranks(1, |comm| {
        let op = DistCsr::from_global(Arc::new(comm), &a).unwrap();
        let p = plan::<f64>(&op, Method::Leja { conjugate: false }, u64::MAX).unwrap();
        (op.operator_bytes(ScalarKind::F64), p)
    });
    let (bytes, p) = &got[0];
    // Row pointers, 4-byte columns and 8-byte values, one flag per row; no halo.
    assert_eq!(*bytes, 8 * (n + 1) + 12 * nnz + n);
    assert_eq!((p.vectors, p.local_len), (6, n));
    assert_eq!(p.peak_bytes(), 6 * 8 * n + bytes + p.workspace_bytes);
}

#[test]
fn stencil_slabs_count_their_halo_planes() {
    let a = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Dirichlet).unwrap();
    let got = run_ranks(2, |comm| {
        let op = DistStencil::new(Arc::new(comm), &a).unwrap();
        let p = plan::<f64>(&op, Method::Taylor, u64::MAX).unwrap();
        (op.operator_bytes(ScalarKind::F64), p.local_len, p.vectors)
    });
    for (bytes, rows, vectors) in got {
        // Three planes of 36 points each; one plane (6 lines of 6) in and one out:
        // plan 8·(6 + 6), wire 6·8·(6 + 6), decoded ghosts 6·8·6, 18 line flags.
        assert_eq!((rows, vectors), (108, 5));
        assert_eq!(bytes, 8 * 12 + 6 * 8 * 12 + 6 * 8 * 6 + 18);
    }
}

#[test]
fn a_plan_too_large_for_any_rank_is_refused_on_every_rank() {
    let h = BoseHubbard::new(FockBasis::new(4, 5).unwrap())
        .with_hopping(Coupling::Uniform(1.0))
        .unwrap();
    let dim = h.basis().len().unwrap() as u64;
    let peaks = run_ranks(3, |comm| {
        let op = DistFock::new(Arc::new(comm), &h, 0.0).unwrap();
        let lanczos = Method::Lanczos { max_dim: 30 };
        let p = plan::<matexp_core::c64>(&op, lanczos, u64::MAX).unwrap();
        assert_eq!(p.bytes_per_vector, 16 * p.local_len);
        assert!(op.operator_bytes(ScalarKind::C64) > 0);
        p.peak_bytes()
    });
    let rows: u64 = dim.div_ceil(3);
    assert!(peaks[0] >= 33 * 16 * rows);
    let largest = *peaks.iter().max().unwrap();
    let verdicts = run_ranks(3, |comm| {
        let op = DistFock::new(Arc::new(comm), &h, 0.0).unwrap();
        let lanczos = Method::Lanczos { max_dim: 30 };
        let fits = plan::<matexp_core::c64>(&op, lanczos, largest).is_ok();
        let refused = plan::<matexp_core::c64>(&op, lanczos, largest - 1);
        (fits, refused)
    });
    for (fits, refused) in verdicts {
        assert!(fits);
        match refused {
            Err(Error::OutOfMemoryBudget {
                needed, available, ..
            }) => assert_eq!((needed, available), (largest, largest - 1)),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
