//! Construction, validation and structural operations of CSR and pattern CSR.

use crate::common;

use common::*;
use matexp_core::{CpuBackend, Error, LinearOperator, Scalar, c32, c64};
use matexp_sparse::{CsrMatrix, PatternCsr};
use proptest::prelude::*;

fn dense<S: Scalar>(n: usize, m: usize, t: &[(usize, usize, S)]) -> Vec<S> {
    let mut d = vec![S::zero(); n * m];
    for &(i, j, v) in t {
        d[i * m + j] += v;
    }
    d
}

#[test]
fn construction_rejects_every_broken_invariant() {
    let ok =
        CsrMatrix::<f64, u32>::try_new(2, 3, vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0])
            .unwrap();
    assert!(ok.is_canonical());
    type Case = (Vec<u32>, Vec<u32>, Vec<f64>, &'static str);
    let cases: Vec<Case> = vec![
        (vec![0, 1], vec![0], vec![1.0], "row_ptr too short"),
        (vec![1, 1, 1], vec![0], vec![1.0], "row_ptr[0] != 0"),
        (
            vec![0, 2, 1],
            vec![0, 1],
            vec![1.0, 1.0],
            "decreasing row_ptr",
        ),
        (vec![0, 1, 2], vec![0], vec![1.0], "row_ptr end != nnz"),
        (
            vec![0, 1, 2],
            vec![0, 3],
            vec![1.0, 1.0],
            "column out of range",
        ),
        (vec![0, 1, 2], vec![0, 1], vec![1.0], "values too short"),
        (vec![0, 1, 2], vec![0, 1], vec![1.0, f64::NAN], "NaN value"),
    ];
    for (p, c, v, what) in cases {
        let e = CsrMatrix::<f64, u32>::try_new(2, 3, p, c, v);
        assert!(e.is_err(), "{what} accepted");
    }
    assert!(matches!(
        CsrMatrix::<f64, u32>::try_new(2, 3, vec![0, 1, 2], vec![0, 1], vec![1.0, f64::INFINITY]),
        Err(Error::NonFinite { index: 1, .. })
    ));
    // Unsorted and repeated columns are valid but not canonical; canonical construction
    // rejects them.
    let u = CsrMatrix::<f64, u32>::try_new(1, 3, vec![0, 3], vec![2, 0, 2], vec![1.0, 2.0, 3.0])
        .unwrap();
    assert!(!u.is_canonical());
    assert!(
        CsrMatrix::<f64, u32>::try_new_canonical(
            1,
            3,
            vec![0, 3],
            vec![2, 0, 2],
            vec![1.0, 2.0, 3.0]
        )
        .is_err()
    );
    let c = u.canonicalize();
    assert_eq!((c.col_idx(), c.values()), (&[0u32, 2][..], &[2.0, 4.0][..]));
    assert_eq!(u.get(0, 2), 4.0);
    // Sizes that do not fit u32.
    assert!(matches!(
        PatternCsr::<u32>::try_new(1, 1usize << 33, vec![0, 0], vec![]),
        Err(Error::InvalidArgument { name: "ncols", .. })
    ));
    assert!(PatternCsr::<u64>::try_new(1, 1usize << 33, vec![0, 0], vec![]).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn transpose_and_conjugate_transpose_match_dense(seed in any::<u64>(), n in 0usize..12, m in 0usize..12) {
        let mut r = rng(seed);
        let t = triplets::<c64>(&mut r, n, m, 0.3);
        let a = CsrMatrix::<c64, u32>::from_triplets(n, m, &t).unwrap();
        let d = dense(n, m, &t);
        let at = a.transpose().to_dense().unwrap();
        let ah = a.conj_transpose().to_dense().unwrap();
        for i in 0..n {
            for j in 0..m {
                prop_assert_eq!(at[j * n + i], d[i * m + j]);
                prop_assert_eq!(ah[j * n + i], d[i * m + j].conj());
            }
        }
        prop_assert!(a.transpose().is_canonical());
        // Transposing twice gives back the canonical matrix.
        prop_assert_eq!(a.transpose().transpose(), a.canonicalize());
    }

    #[test]
    fn symmetry_checks_agree_with_dense_definitions(seed in any::<u64>(), n in 1usize..10, kind in 0u8..4) {
        let mut r = rng(seed);
        let t = triplets::<c64>(&mut r, n, n, 0.4);
        let base = CsrMatrix::<c64, u32>::from_triplets(n, n, &t).unwrap();
        // Build a matrix with the property from the random one, or leave it general.
        let b = base.canonicalize();
        let mut entries: Vec<(usize, usize, c64)> = Vec::new();
        for i in 0..n {
            let (cols, vals) = b.row(i);
            for (j, v) in cols.iter().zip(vals) {
                let j = *j as usize;
                match kind {
                    0 => { entries.push((i, j, *v)); entries.push((j, i, v.conj())); }   // A + Aᴴ
                    1 => { entries.push((i, j, *v)); entries.push((j, i, *v)); }          // A + Aᵀ
                    2 => { entries.push((i, j, *v)); entries.push((j, i, -*v)); }         // A − Aᵀ
                    _ => entries.push((i, j, *v)),
                }
            }
        }
        let a = CsrMatrix::<c64, u64>::from_triplets(n, n, &entries).unwrap();
        let d = a.to_dense().unwrap();
        let herm = (0..n).all(|i| (0..n).all(|j| d[i * n + j] == d[j * n + i].conj()));
        let sym = (0..n).all(|i| (0..n).all(|j| d[i * n + j] == d[j * n + i]));
        let skew = (0..n).all(|i| (0..n).all(|j| d[i * n + j] == -d[j * n + i]));
        prop_assert_eq!(a.is_hermitian(), herm);
        prop_assert_eq!(a.is_symmetric(), sym);
        prop_assert_eq!(a.is_skew_symmetric(), skew);
        match kind {
            0 => prop_assert!(herm),
            1 => prop_assert!(sym),
            2 => prop_assert!(skew),
            _ => {}
        }
        // Unsorted storage with an explicit zero gives the same answers.
        let mut rev = entries.clone();
        rev.reverse();
        rev.push((0, n - 1, c64::new(0.0, 0.0)));
        let unsorted_rows: Vec<u32> = {
            let mut p = vec![0u32; n + 1];
            for e in &rev { p[e.0 + 1] += 1; }
            for i in 0..n { p[i + 1] += p[i]; }
            p
        };
        let mut cols = vec![0u32; rev.len()];
        let mut vals = vec![c64::new(0.0, 0.0); rev.len()];
        let mut next: Vec<usize> = unsorted_rows.iter().map(|&x| x as usize).collect();
        for &(i, j, v) in &rev { cols[next[i]] = j as u32; vals[next[i]] = v; next[i] += 1; }
        let u = CsrMatrix::<c64, u32>::try_new(n, n, unsorted_rows, cols, vals).unwrap();
        prop_assert_eq!(u.is_hermitian(), herm);
        prop_assert_eq!(u.is_skew_symmetric(), skew);
    }

    #[test]
    fn gershgorin_encloses_the_dense_discs(seed in any::<u64>(), n in 1usize..10) {
        let mut r = rng(seed);
        let t = triplets::<c64>(&mut r, n, n, 0.4);
        let a = CsrMatrix::<c64, u32>::from_triplets(n, n, &t).unwrap();
        let d = a.to_dense().unwrap();
        let b = LinearOperator::<CpuBackend, c64>::spectral_bounds(&a).unwrap();
        for i in 0..n {
            let r: f64 = (0..n).filter(|&j| j != i).map(|j| d[i * n + j].norm()).sum();
            let c = d[i * n + i];
            let tol = 1e-12 * (1.0 + r + c.norm());
            prop_assert!(b.re_min <= c.re - r + tol && c.re + r <= b.re_max + tol);
            if !a.is_hermitian() {
                prop_assert!(b.im_min <= c.im - r + tol && c.im + r <= b.im_max + tol);
            }
        }
        // Tight: some disc touches each side.
        let lo = (0..n).map(|i| d[i * n + i].re - (0..n).filter(|&j| j != i).map(|j| d[i * n + j].norm()).sum::<f64>()).fold(f64::INFINITY, f64::min);
        prop_assert!((b.re_min - lo).abs() <= 1e-12 * (1.0 + lo.abs()));
    }

    #[test]
    fn sprs_round_trip(seed in any::<u64>(), n in 0usize..12, m in 0usize..12) {
        let mut r = rng(seed);
        let t = triplets::<f32>(&mut r, n, m, 0.3);
        let a = CsrMatrix::<f32, u64>::from_triplets(n, m, &t).unwrap();
        let s = a.to_sprs();
        prop_assert_eq!(s.nnz(), a.nnz());
        for &(i, j, _) in &t {
            prop_assert_eq!(s.get(i, j).copied().unwrap_or(0.0), a.get(i, j));
        }
        prop_assert_eq!(&CsrMatrix::from_sprs(s.view()).unwrap(), &a);
        // CSC storage converts too.
        let csc = s.to_csc();
        prop_assert_eq!(&CsrMatrix::from_sprs(csc.view()).unwrap(), &a);
        let back: CsrMatrix<f32, u64> = (&s).try_into().unwrap();
        prop_assert_eq!(back, a);
    }
}

#[test]
fn sprs_sub_views_and_unsorted_sources_convert() {
    let a = CsrMatrix::<f64, u32>::try_new(
        3,
        3,
        vec![0, 2, 3, 5],
        vec![2, 0, 1, 2, 0],
        vec![1.0, 2.0, 3.0, 4.0, 5.0],
    )
    .unwrap();
    assert!(!a.is_canonical());
    let s = a.to_sprs();
    assert_eq!(s.indices(), &[0u32, 2, 1, 0, 2]);
    let view = s.view();
    let mid = view.slice_outer(1..3);
    let b = CsrMatrix::from_sprs(mid).unwrap();
    assert_eq!(b.to_dense().unwrap(), vec![0.0, 3.0, 0.0, 5.0, 0.0, 4.0]);
}

#[test]
fn diagonal_cast_index_change_and_drop_zeros() {
    let a = CsrMatrix::<c64, u32>::from_triplets(
        3,
        3,
        &[
            (0, 0, c64::new(1.0, 0.0)),
            (0, 0, c64::new(2.0, 0.0)),
            (1, 2, c64::new(0.0, 0.0)),
            (2, 2, c64::new(-1.0, 0.0)),
        ],
    )
    .unwrap();
    assert_eq!(
        a.diagonal(),
        vec![c64::new(3.0, 0.0), c64::new(0.0, 0.0), c64::new(-1.0, 0.0)]
    );
    let real = a.cast::<f64>().unwrap();
    assert_eq!(
        real.to_dense().unwrap(),
        vec![3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0]
    );
    let single = a.cast::<c32>().unwrap();
    assert_eq!(single.values()[0], c32::new(3.0, 0.0));
    let wide = a.with_index::<u64>().unwrap();
    assert_eq!(wide.col_idx(), &[0u64, 2, 2]);
    assert_eq!(a.nnz(), 3);
    assert_eq!(a.drop_zeros().nnz(), 2);
    // Complex → real with a nonzero imaginary part, and f64 → f32 overflow, are errors.
    let z = CsrMatrix::<c64, u32>::from_triplets(1, 1, &[(0, 0, c64::new(0.0, 1.0))]).unwrap();
    assert!(matches!(
        z.cast::<f32>(),
        Err(Error::InvalidArgument { .. })
    ));
    let big = CsrMatrix::<f64, u32>::from_triplets(1, 1, &[(0, 0, 1e300)]).unwrap();
    assert!(matches!(big.cast::<f32>(), Err(Error::NonFinite { .. })));
}

#[test]
fn pattern_graph_helpers() {
    // Two components: a triangle and an edge, plus an isolated node.
    let g =
        PatternCsr::<u32>::undirected_graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (1, 0)]).unwrap();
    assert_eq!(g.nnz(), 8);
    assert!(g.is_symmetric() && !g.has_diagonal_entries());
    assert_eq!(g.degrees(), vec![2, 2, 2, 1, 1, 0]);
    let (count, label) = g.connected_components().unwrap();
    assert_eq!(count, 3);
    assert_eq!(label, vec![0, 0, 0, 1, 1, 2]);
    let b = LinearOperator::<CpuBackend, f64>::spectral_bounds(&g).unwrap();
    assert_eq!(
        (b.re_min, b.re_max, b.im_min, b.im_max),
        (-2.0, 2.0, 0.0, 0.0)
    );
    assert!(LinearOperator::<CpuBackend, f64>::is_hermitian(&g));
    let directed = PatternCsr::<u64>::from_coordinates(3, 3, &[(0, 1), (1, 2), (2, 2)]).unwrap();
    assert!(!directed.is_symmetric() && directed.has_diagonal_entries());
    assert_eq!(directed.transpose().row(2), &[1u64, 2]);
    let b = LinearOperator::<CpuBackend, f64>::spectral_bounds(&directed).unwrap();
    assert_eq!(
        (b.re_min, b.re_max, b.im_min, b.im_max),
        (-1.0, 1.0, -1.0, 1.0)
    );
    let w = directed.with_values(2.5f64);
    assert_eq!(
        w.to_dense().unwrap(),
        vec![0.0, 2.5, 0.0, 0.0, 0.0, 2.5, 0.0, 0.0, 2.5]
    );
}
