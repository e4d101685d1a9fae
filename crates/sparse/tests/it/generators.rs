//! Invariants of the problem generators, against independent constructions and analytic
//! formulas.

use matexp_core::{CpuBackend, LinearOperator, c32, c64};
use matexp_sparse::generators::{
    RoadNetwork, SpinBath, StoredZeros, barabasi_albert, erdos_renyi_gnm, erdos_renyi_gnp,
    grid_graph_2d, grid_graph_3d, laplacian_1d, laplacian_2d, laplacian_3d, laplacian_eigenvalue,
};
use matexp_sparse::{CsrMatrix, PatternCsr, fixtures};

// ---------------------------------------------------------------- spin bath

type Dense = Vec<Vec<c64>>;

fn zeros(n: usize) -> Dense {
    vec![vec![c64::new(0.0, 0.0); n]; n]
}
fn kron(a: &Dense, b: &Dense) -> Dense {
    let (n, m) = (a.len(), b.len());
    let mut k = zeros(n * m);
    for i in 0..n {
        for j in 0..n {
            for p in 0..m {
                for q in 0..m {
                    k[i * m + p][j * m + q] = a[i][j] * b[p][q];
                }
            }
        }
    }
    k
}
fn matmul(a: &Dense, b: &Dense) -> Dense {
    let n = a.len();
    let mut c = zeros(n);
    for i in 0..n {
        for k in 0..n {
            if a[i][k] != c64::new(0.0, 0.0) {
                for j in 0..n {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
    }
    c
}
fn add_scaled(acc: &mut Dense, s: f64, b: &Dense) {
    for (ra, rb) in acc.iter_mut().zip(b) {
        for (x, y) in ra.iter_mut().zip(rb) {
            *x += *y * s;
        }
    }
}

/// H of seed 000 from its definition: Kronecker products of the spin-½ operators with the
/// complex S_y, multiplied out densely.
fn spin_bath_dense(j0: f64, couplings: &[f64]) -> Dense {
    let l = couplings.len() + 2;
    let c = |re: f64, im: f64| c64::new(re, im);
    let sx = vec![
        vec![c(0.0, 0.0), c(0.5, 0.0)],
        vec![c(0.5, 0.0), c(0.0, 0.0)],
    ];
    let sy = vec![
        vec![c(0.0, 0.0), c(0.0, -0.5)],
        vec![c(0.0, 0.5), c(0.0, 0.0)],
    ];
    let sz = vec![
        vec![c(0.5, 0.0), c(0.0, 0.0)],
        vec![c(0.0, 0.0), c(-0.5, 0.0)],
    ];
    let id = vec![
        vec![c(1.0, 0.0), c(0.0, 0.0)],
        vec![c(0.0, 0.0), c(1.0, 0.0)],
    ];
    let op = |s: &Dense, i: usize| -> Dense {
        let mut m = vec![vec![c(1.0, 0.0)]];
        for k in 1..=l {
            m = kron(&m, if k == i { s } else { &id });
        }
        m
    };
    let n = 1 << l;
    let mut h = zeros(n);
    for s in [&sx, &sy, &sz] {
        let (s1, s2) = (op(s, 1), op(s, 2));
        for a in [&s1, &s2] {
            for b in [&s1, &s2] {
                add_scaled(&mut h, j0, &matmul(a, b));
            }
        }
        for (idx, &j) in couplings.iter().enumerate() {
            let si = op(s, idx + 3);
            add_scaled(&mut h, j, &matmul(&si, &s1));
            add_scaled(&mut h, j, &matmul(&si, &s2));
        }
    }
    h
}

#[test]
fn spin_bath_equals_the_kronecker_definition() {
    for l in [2, 3, 4, 5] {
        let model = SpinBath::seed000(l, 11 + l as u64).unwrap();
        let want = spin_bath_dense(model.j0(), model.couplings());
        for zeros in [StoredZeros::Keep, StoredZeros::Drop] {
            let h = model.hamiltonian::<c64, u32>(zeros).unwrap();
            assert_eq!(h.nnz(), model.stored_nnz(zeros), "L = {l}, {zeros:?}");
            let d = h.to_dense().unwrap();
            let n = 1 << l;
            for i in 0..n {
                for j in 0..n {
                    let e = (d[i * n + j] - want[i][j]).norm();
                    assert!(
                        e < 1e-14,
                        "L = {l}: H[{i}][{j}] = {} vs {}",
                        d[i * n + j],
                        want[i][j]
                    );
                }
            }
            if zeros == StoredZeros::Keep {
                // The stored zeros are exactly the cancelled Kronecker positions: every row
                // holds 2L − 2 entries.
                assert!(h.pattern().degrees().iter().all(|&k| k == 2 * l - 2));
            } else {
                assert!(h.values().iter().all(|v| *v != c64::new(0.0, 0.0)));
            }
        }
    }
}

fn check_spin_bath_invariants(l: usize) {
    let model = SpinBath::seed000(l, l as u64).unwrap();
    let h = model.hamiltonian::<c64, u32>(StoredZeros::Keep).unwrap();
    assert_eq!(h.nnz(), (2 * l - 2) << l, "L = {l}");
    assert!(h.is_canonical());
    assert!(LinearOperator::<CpuBackend, c64>::is_hermitian(&h));
    // H commutes with the total S_z: nonzeros join basis states of equal popcount.
    let rp = h.row_ptr();
    for i in 0..h.nrows() {
        for k in rp[i] as usize..rp[i + 1] as usize {
            if h.values()[k] != c64::new(0.0, 0.0) {
                assert_eq!(
                    (i as u32).count_ones(),
                    h.col_idx()[k].count_ones(),
                    "L = {l}: ({i}, {})",
                    h.col_idx()[k]
                );
            }
        }
    }
    let b = h.gershgorin().unwrap();
    assert!(b.is_real() && b.re_max <= 2.0 * 8.0 + 8.0 + 0.4 * (l as f64));
    let dropped = model.hamiltonian::<c64, u32>(StoredZeros::Drop).unwrap();
    assert_eq!(dropped.nnz(), (2 * l - 1) << (l - 1));
    assert_eq!(dropped, h.drop_zeros());
}

#[test]
fn spin_bath_stored_counts_hermitian_and_sz_conserving_for_l_10_to_16() {
    for l in 10..=16 {
        check_spin_bath_invariants(l);
    }
}

#[test]
fn spin_bath_at_the_seed_sizes_l_17_and_18() {
    // The seed's L = 18 matrix: 262 144 rows, 8 912 896 stored entries (4 587 520 nonzero).
    check_spin_bath_invariants(17);
    let model = SpinBath::seed000(18, 18).unwrap();
    assert_eq!(model.stored_nnz(StoredZeros::Keep), 8_912_896);
    assert_eq!(model.stored_nnz(StoredZeros::Drop), 4_587_520);
    check_spin_bath_invariants(18);
    // Single precision by conversion, and u64 indices.
    let h = model.hamiltonian::<c64, u64>(StoredZeros::Keep).unwrap();
    let h32 = h.cast::<c32>().unwrap();
    assert_eq!(h32.nnz(), 8_912_896);
    assert_eq!(
        model.hamiltonian::<c32, u64>(StoredZeros::Keep).unwrap(),
        h32
    );
}

#[test]
fn spin_bath_parameters_and_initial_state() {
    let m = SpinBath::seed000(12, 5).unwrap();
    assert_eq!((m.spins(), m.dim(), m.j0()), (12, 4096, 8.0));
    assert_eq!(m.couplings().len(), 10);
    assert!(m.couplings().iter().all(|&j| (0.0..0.4).contains(&j)));
    assert_eq!(m, SpinBath::seed000(12, 5).unwrap(), "deterministic");
    assert_ne!(m, SpinBath::seed000(12, 6).unwrap());
    assert!(SpinBath::seed000(1, 0).is_err() && SpinBath::seed000(31, 0).is_err());
    assert!(SpinBath::new(f64::NAN, vec![]).is_err());

    let psi = m.initial_state::<c64>(3).unwrap();
    assert_eq!(psi.len(), 4096);
    assert!((matexp_core::norms::nrm2(&psi) - 1.0).abs() < 1e-14);
    // Spin 1 up (bit 11 clear) and spin 2 down (bit 10 set): ⟨S_z,1⟩ = +½, ⟨S_z,2⟩ = −½.
    let sz = |bit: usize| -> f64 {
        psi.iter()
            .enumerate()
            .map(|(b, v)| v.norm_sqr() * if b >> bit & 1 == 0 { 0.5 } else { -0.5 })
            .sum()
    };
    assert!((sz(11) - 0.5).abs() < 1e-14 && (sz(10) + 0.5).abs() < 1e-14);
    // The bath is random: spin 3's expectation is strictly inside (−½, ½), and complex.
    assert!(sz(9).abs() < 0.45);
    assert!(psi.iter().any(|v| v.im != 0.0));
    assert_eq!(psi, m.initial_state::<c64>(3).unwrap());
    assert_ne!(psi, m.initial_state::<c64>(4).unwrap());
    let real = m.initial_state::<f64>(3).unwrap();
    assert!((matexp_core::norms::nrm2(&real) - 1.0).abs() < 1e-14);
}

// ---------------------------------------------------------------- Laplacians

#[test]
fn laplacian_structure_counts_symmetry_and_gershgorin() {
    for n in 1..=9usize {
        let a1 = laplacian_1d::<f64, u32>(n).unwrap();
        let a2 = laplacian_2d::<f32, u64>(n).unwrap();
        let a3 = laplacian_3d::<f64, u32>(n).unwrap();
        assert_eq!(a1.nnz(), 3 * n - 2);
        assert_eq!(a2.nnz(), 5 * n * n - 4 * n);
        assert_eq!(a3.nnz(), 7 * n * n * n - 6 * n * n);
        assert!(a1.is_hermitian() && a2.is_hermitian() && a3.is_hermitian());
        let h2 = ((n + 1) * (n + 1)) as f64;
        if n >= 3 {
            let b = a3.gershgorin().unwrap();
            assert_eq!(
                (b.re_min, b.re_max, b.im_min, b.im_max),
                (-12.0 * h2, 0.0, 0.0, 0.0)
            );
            let b = a2.gershgorin().unwrap();
            assert_eq!((b.re_min, b.re_max), (-8.0 * h2, 0.0));
        }
        assert!(a3.diagonal().iter().all(|&d| d == -6.0 * h2));
    }
    assert!(laplacian_3d::<f64, u32>(0).is_err());
}

#[test]
fn laplacian_3d_equals_its_stencil_definition() {
    let n = 4;
    let a = laplacian_3d::<f64, u32>(n).unwrap();
    let d = a.to_dense().unwrap();
    let m = n * n * n;
    let h2 = 25.0;
    for i in 0..m {
        for j in 0..m {
            let ci = [i % n, i / n % n, i / (n * n)];
            let cj = [j % n, j / n % n, j / (n * n)];
            let dist: usize = (0..3).map(|k| ci[k].abs_diff(cj[k])).sum();
            let want = match dist {
                0 => -6.0 * h2,
                1 => h2,
                _ => 0.0,
            };
            assert_eq!(d[i * m + j], want, "({i}, {j})");
        }
    }
}

#[test]
fn laplacian_eigenvectors_give_the_analytic_eigenvalues() {
    let n = 7;
    let a = laplacian_3d::<f64, u64>(n).unwrap();
    let x = |i: usize| (i + 1) as f64 / (n + 1) as f64;
    for k in [[1, 1, 1], [1, 2, 3], [7, 7, 7], [4, 1, 6]] {
        let v: Vec<f64> = (0..n * n * n)
            .map(|i| {
                let (ix, iy, iz) = (i % n, i / n % n, i / (n * n));
                let pi = std::f64::consts::PI;
                (pi * k[0] as f64 * x(ix)).sin()
                    * (pi * k[1] as f64 * x(iy)).sin()
                    * (pi * k[2] as f64 * x(iz)).sin()
            })
            .collect();
        let lambda = laplacian_eigenvalue(n, &k);
        let mut av = vec![0.0; v.len()];
        a.spmv(1.0, &v, 0.0, &mut av).unwrap();
        let err = av
            .iter()
            .zip(&v)
            .map(|(p, q)| (p - lambda * q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-11 * lambda.abs(), "k = {k:?}: residual {err:e}");
    }
    // The spectrum lies inside the Gershgorin interval and approaches its ends.
    let lo = laplacian_eigenvalue(n, &[n, n, n]);
    assert!(-12.0 * 64.0 < lo && lo < -11.0 * 64.0);
    let a2 = laplacian_2d::<f64, u32>(n).unwrap();
    let v: Vec<f64> = (0..n * n)
        .map(|i| {
            (std::f64::consts::PI * 2.0 * x(i % n)).sin() * (std::f64::consts::PI * x(i / n)).sin()
        })
        .collect();
    let mut av = vec![0.0; v.len()];
    a2.spmv(1.0, &v, 0.0, &mut av).unwrap();
    let l2 = laplacian_eigenvalue(n, &[2, 1]);
    assert!(
        av.iter()
            .zip(&v)
            .all(|(p, q)| (p - l2 * q).abs() < 1e-11 * l2.abs())
    );
}

// ---------------------------------------------------------------- graphs

fn assert_simple_undirected(g: &PatternCsr<u32>) {
    assert!(g.is_canonical(), "no repeated edges");
    assert!(g.is_symmetric());
    assert!(!g.has_diagonal_entries(), "no self loops");
}

#[test]
fn barabasi_albert_counts_simplicity_connectivity_and_determinism() {
    for (n, m) in [(11, 10), (50, 1), (2000, 3), (10_000, 10)] {
        let g = barabasi_albert::<u32>(n, m, 42).unwrap();
        assert_eq!(g.nrows(), n);
        assert_eq!(
            g.nnz() / 2,
            m * (m + 1) / 2 + (n - m - 1) * m,
            "n = {n}, m = {m}"
        );
        assert_simple_undirected(&g);
        assert_eq!(g.connected_components().unwrap().0, 1);
        assert!(g.degrees().iter().all(|&d| d >= m));
    }
    let g = barabasi_albert::<u32>(10_000, 10, 42).unwrap();
    assert_eq!(g, barabasi_albert::<u32>(10_000, 10, 42).unwrap());
    assert_ne!(g, barabasi_albert::<u32>(10_000, 10, 43).unwrap());
    // Preferential attachment grows hubs far above the mean degree ≈ 2m.
    assert!(g.max_degree() > 10 * 20, "max degree {}", g.max_degree());
    assert_eq!(
        barabasi_albert::<u64>(2000, 3, 7)
            .unwrap()
            .with_index::<u32>()
            .unwrap(),
        barabasi_albert::<u32>(2000, 3, 7).unwrap()
    );
    assert!(barabasi_albert::<u32>(5, 5, 0).is_err() && barabasi_albert::<u32>(5, 0, 0).is_err());
}

#[test]
fn grid_graph_degrees() {
    let (nx, ny) = (7, 5);
    let g = grid_graph_2d::<u32>(nx, ny).unwrap();
    assert_simple_undirected(&g);
    let deg = g.degrees();
    let count = |d: usize| deg.iter().filter(|&&x| x == d).count();
    assert_eq!(
        (count(4), count(3), count(2)),
        ((nx - 2) * (ny - 2), 2 * (nx - 2) + 2 * (ny - 2), 4)
    );
    assert_eq!(g.nnz(), 2 * ((nx - 1) * ny + nx * (ny - 1)));
    assert!(g.row(nx + 1) == [1, nx as u32, nx as u32 + 2, 2 * nx as u32 + 1]);
    let g3 = grid_graph_3d::<u32>(4, 3, 5).unwrap();
    assert_simple_undirected(&g3);
    let deg = g3.degrees();
    assert_eq!(deg.iter().filter(|&&x| x == 6).count(), 2 * 3);
    assert_eq!(deg.iter().filter(|&&x| x == 3).count(), 8);
    assert_eq!(g3.connected_components().unwrap().0, 1);
    assert!(grid_graph_2d::<u32>(0, 3).is_err());
}

#[test]
fn erdos_renyi_models() {
    let n = 2000;
    let p = 0.01;
    let g = erdos_renyi_gnp::<u32>(n, p, 9).unwrap();
    assert_simple_undirected(&g);
    let pairs = (n * (n - 1) / 2) as f64;
    let (mean, sd) = (p * pairs, (p * (1.0 - p) * pairs).sqrt());
    let e = (g.nnz() / 2) as f64;
    assert!(
        (e - mean).abs() < 5.0 * sd,
        "{e} edges, expected {mean} ± {sd}"
    );
    assert_eq!(erdos_renyi_gnp::<u32>(30, 1.0, 1).unwrap().nnz(), 30 * 29);
    assert_eq!(erdos_renyi_gnp::<u32>(30, 0.0, 1).unwrap().nnz(), 0);
    assert!(erdos_renyi_gnp::<u32>(30, 1.5, 1).is_err());
    assert_eq!(g, erdos_renyi_gnp::<u32>(n, p, 9).unwrap());
    // Every pair is reachable: with p = 0.5 on 40 nodes, the edge count is binomial too.
    let h = erdos_renyi_gnp::<u32>(40, 0.5, 3).unwrap();
    assert!(((h.nnz() / 2) as f64 - 390.0).abs() < 5.0 * (195.0f64).sqrt());
    for m in [0, 1, 100, 700, 780] {
        let g = erdos_renyi_gnm::<u32>(40, m, 5).unwrap();
        assert_simple_undirected(&g);
        assert_eq!(g.nnz(), 2 * m, "G(40, {m})");
    }
    assert!(erdos_renyi_gnm::<u32>(40, 781, 5).is_err());
}

#[test]
fn road_network_is_connected_low_degree_and_road_like() {
    let net = RoadNetwork::new(300, 200, 1);
    let g = net.build::<u32>().unwrap();
    assert_simple_undirected(&g);
    assert_eq!(g.nrows(), 60_000);
    assert!(g.max_degree() <= 6);
    assert_eq!(g.connected_components().unwrap().0, 1);
    let mean = g.nnz() as f64 / g.nrows() as f64;
    assert!((mean - 2.24).abs() < 0.03, "mean degree {mean}");
    assert_eq!(g, net.build::<u32>().unwrap());
    assert_ne!(g, RoadNetwork::new(300, 200, 2).build::<u32>().unwrap());
    // Only the spanning tree: n − 1 edges. Every grid edge: the grid graph.
    let tree = RoadNetwork {
        extra_edge_prob: 0.0,
        shortcut_prob: 0.0,
        ..RoadNetwork::new(40, 30, 3)
    }
    .build::<u32>()
    .unwrap();
    assert_eq!(tree.nnz(), 2 * (1200 - 1));
    assert_eq!(tree.connected_components().unwrap().0, 1);
    let full = RoadNetwork {
        extra_edge_prob: 1.0,
        shortcut_prob: 0.0,
        ..RoadNetwork::new(40, 30, 3)
    }
    .build::<u32>()
    .unwrap();
    assert_eq!(full, grid_graph_2d::<u32>(40, 30).unwrap());
    let sized = RoadNetwork::with_nodes(10_000, 4);
    assert!(sized.nx * sized.ny >= 10_000 && sized.nx * sized.ny < 10_200);
    assert!(
        RoadNetwork {
            extra_edge_prob: -0.1,
            ..net
        }
        .build::<u32>()
        .is_err()
    );
    assert!(RoadNetwork::new(0, 4, 0).build::<u32>().is_err());
}

// ---------------------------------------------------------------- seed-002 fixtures

/// e^A·1 by its Taylor series (‖A‖ ≤ 5 here, so 80 terms are far below rounding).
fn exp_times_ones(g: &PatternCsr<u32>) -> Vec<f64> {
    let n = g.nrows();
    let mut term = vec![1.0; n];
    let mut sum = term.clone();
    for k in 1..80 {
        let mut next = vec![0.0; n];
        g.spmv(1.0 / k as f64, &term, 0.0, &mut next).unwrap();
        term = next;
        sum.iter_mut().zip(&term).for_each(|(s, t)| *s += t);
    }
    sum
}

#[test]
fn seed002_graphs_match_the_thesis() {
    let edges1 = [
        (1, 10),
        (2, 5),
        (2, 8),
        (2, 10),
        (3, 6),
        (3, 7),
        (3, 8),
        (4, 5),
        (5, 10),
        (8, 9),
        (9, 10),
    ];
    let edges2 = [
        (1, 4),
        (1, 5),
        (1, 10),
        (2, 3),
        (2, 4),
        (2, 5),
        (3, 4),
        (3, 5),
        (4, 5),
        (6, 8),
        (6, 9),
        (7, 8),
        (7, 9),
        (7, 10),
    ];
    let refs = fixtures::seed002_references().unwrap();
    assert_eq!((refs.nrows, refs.ncols), (10, 4));
    let table1_expa1 = [
        7.7820, 18.9721, 11.3401, 6.6374, 16.6738, 5.3637, 5.3637, 16.1898, 13.3347, 20.4108,
    ];
    let table2_expa1 = [
        24.5539, 28.1522, 28.1522, 33.8338, 33.8338, 8.1754, 12.5824, 9.0379, 9.0379, 12.9328,
    ];
    for (g, edges, printed, col) in [
        (
            fixtures::seed002_table1().unwrap(),
            &edges1[..],
            table1_expa1,
            0,
        ),
        (
            fixtures::seed002_dumbbell().unwrap(),
            &edges2[..],
            table2_expa1,
            2,
        ),
    ] {
        assert_eq!(g.nrows(), 10);
        assert_simple_undirected(&g);
        let zero_based: Vec<(usize, usize)> = edges.iter().map(|&(a, b)| (a - 1, b - 1)).collect();
        assert_eq!(
            g,
            PatternCsr::<u32>::undirected_graph(10, &zero_based).unwrap()
        );
        // The graphs reproduce the thesis's four-decimal e^A·1 and SciPy's expm.
        let e = exp_times_ones(&g);
        for i in 0..10 {
            assert!(
                (e[i] - printed[i]).abs() < 6e-5,
                "node {}: {} vs printed {}",
                i + 1,
                e[i],
                printed[i]
            );
            let rel = (e[i] - refs.data[col * 10 + i]).abs() / e[i];
            // Positive Taylor terms are accurate to a few ulps; expm (scaling and squaring)
            // carries ~1e-13 relative error here.
            assert!(
                rel < 5e-13,
                "node {}: {} vs SciPy {} (relative {rel:e})",
                i + 1,
                e[i],
                refs.data[col * 10 + i]
            );
        }
    }
    let estrada: f64 = refs.data[10..20].iter().sum();
    assert!((estrada - 28.2238).abs() < 6e-5);
    // As a weighted operator.
    let w: CsrMatrix<f64> = fixtures::seed002_table1().unwrap().with_values(1.0);
    assert!(w.is_hermitian());
}
