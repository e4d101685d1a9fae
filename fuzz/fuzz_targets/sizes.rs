//! The public size arguments of the dense, polynomial, divided-difference, graph and Fock
//! crates — matrix orders, φ orders k, degrees, block sizes, probe and sketch counts, Krylov
//! (quadrature) step caps, Fock N and M — drawn from arbitrary bytes, including 0, 2³², 2⁴⁰,
//! 2⁶¹ and `usize::MAX`. Every call must return a result or a typed error at once: no panic,
//! no abort, no hang, and no allocation that the size did not justify (a size whose storage
//! exceeds `isize::MAX` bytes must be refused before the allocator is asked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_core::{CpuBackend, Error, LinearOperator, c64};
use matexp_dense::{Matrix, phi_functions, phi_scalar, phi_vectors};
use matexp_divdiff::{Affine, Function, Method, divided_differences, phi};
use matexp_fock::{FockBasis, mean_field_state, site_densities};
use matexp_graph::{
    ProbeOptions, QuadratureOptions, estrada_index_hutchpp, estrada_index_slq, subgraph_centrality,
    subgraph_centrality_estimate,
};
use matexp_matpoly::{CpuDense, Evaluator, Scheme, optimal_block};
use matexp_sparse::PatternCsr;

/// Sizes a hostile caller reaches for, and small ones.
const EDGES: [usize; 12] = [
    0,
    1,
    2,
    3,
    1 << 31,
    1 << 32,
    (1 << 32) + 1,
    1 << 40,
    1 << 60,
    1 << 61,
    usize::MAX - 1,
    usize::MAX,
];

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, i| acc | (u64::from(self.byte()) << (8 * i)))
    }
    /// An edge size (high bit set) or any 64-bit value.
    fn size(&mut self) -> usize {
        let tag = self.byte();
        if tag & 0x80 != 0 {
            EDGES[usize::from(tag & 0x7f) % EDGES.len()]
        } else if tag & 0x40 != 0 {
            usize::from(tag & 0x3f)
        } else {
            self.u64() as usize
        }
    }
    fn f64(&mut self) -> f64 {
        match self.byte() % 8 {
            0 => 0.0,
            1 => 1e200,
            2 => -1e-200,
            3 => f64::NAN,
            4 => f64::INFINITY,
            5 => 1e308,
            _ => f64::from_bits(self.u64()),
        }
    }
}

/// Bytes of `rows × cols` entries of `elem` bytes, when representable.
fn bytes_of(rows: usize, cols: usize, elem: usize) -> Option<usize> {
    rows.checked_mul(cols)?.checked_mul(elem)
}

/// Sizes the harness lets the library allocate: small ones, and those beyond `isize::MAX`
/// bytes, which must be refused without asking the allocator. Between them lie valid
/// requests for gigabytes (refused by libFuzzer's memory limit, not by the library).
fn storable(bytes: Option<usize>) -> bool {
    match bytes {
        None => true,
        Some(b) => b <= 1 << 16 || b > isize::MAX as usize,
    }
}

/// An operator that claims `n` rows and has no storage behind them.
struct Claims(usize);

impl LinearOperator<CpuBackend, f64> for Claims {
    fn nrows(&self) -> usize {
        self.0
    }
    fn ncols(&self) -> usize {
        self.0
    }
    fn apply(
        &self,
        _: &CpuBackend,
        _: f64,
        x: &Vec<f64>,
        _: f64,
        y: &mut Vec<f64>,
    ) -> matexp_core::Result<()> {
        // Only reached for orders the harness allocated: the zero operator.
        y.iter_mut().zip(x).for_each(|(y, _)| *y = 0.0);
        Ok(())
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn typed<T>(r: matexp_core::Result<T>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(
            Error::InvalidArgument { .. }
            | Error::DimensionMismatch { .. }
            | Error::NonFinite { .. }
            | Error::NoConvergence { .. }
            | Error::OutOfMemoryBudget { .. }
            | Error::Lapack { .. },
        ) => None,
        Err(e) => panic!("unexpected error kind: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let (r, c) = (b.size(), b.size());
    let k = b.size();
    let z = b.f64();

    // Dense storage: refused exactly when the shape's entries overflow or cannot be held.
    if storable(bytes_of(r, c, 8)) {
        let m = typed(Matrix::<f64>::try_zeros(r, c));
        assert_eq!(m.is_some(), bytes_of(r, c, 8).is_some_and(|b| b <= 1 << 16));
        let data = vec![0.0; (b.byte() % 8) as usize];
        let len = data.len();
        let m = typed(Matrix::from_col_major(r, c, data));
        assert_eq!(m.is_some(), r.checked_mul(c) == Some(len));
        if let Some(m) = m {
            assert_eq!(m.as_slice().len(), m.nrows() * m.ncols());
            let _ = typed(m.submatrix(b.size(), b.size(), b.size(), b.size()));
            let _ = (
                m.norm_one(),
                m.norm_inf(),
                m.is_upper_triangular(),
                m.to_row_major(),
            );
            // A·x has r entries: a valid request for gigabytes between the two regimes.
            if storable(bytes_of(r, 1, 8)) {
                let _ = typed(m.matvec(&vec![0.0; c.min(8)]));
            }
            if storable(bytes_of(r, r, 8)) {
                let _ = typed(m.matmul(&m.transpose()));
            }
        }
    }
    // Empty factors of a product: refused when the product cannot be stored.
    if storable(bytes_of(r, c, 8)) {
        let a = Matrix::<f64>::zeros(r, 0);
        let bb = Matrix::<f64>::zeros(0, c);
        let p = typed(a.matmul(&bb));
        // gemm also refuses dimensions beyond the BLAS integer range, empty or not.
        let blas = r <= i32::MAX as usize && c <= i32::MAX as usize;
        let small = bytes_of(r, c, 8).is_some_and(|b| b <= 1 << 16);
        assert_eq!(p.is_some(), small && blas);
    }

    // φ orders: scalars take any k; matrices any order whose augmented matrix is storable.
    if let Some(v) = typed(phi_scalar(k, z)) {
        assert!(v.is_finite());
    }
    if let Some(v) = typed(phi(k, c64::new(z, b.f64()))) {
        assert!(v.re.is_finite() && v.im.is_finite());
    }
    let nodes = [2.0, -2.0, 0.0];
    let _ = typed(divided_differences(
        Function::Phi(k),
        Affine::new(b.f64(), b.f64()),
        &nodes,
        [Method::Auto, Method::Stable, Method::Recurrence][(b.byte() % 3) as usize],
    ));
    // 1×1: the augmented matrices stay of order ≤ 31 (the sizes, not the algebra, are
    // under test here; tests/phi.rs checks the values).
    let a = Matrix::<f64>::from_row_major(1, 1, &[-0.75]).unwrap();
    let order = k.checked_add(1);
    if k <= 30 || storable(order.and_then(|o| bytes_of(o, o, 8))) {
        if let Some(phis) = typed(phi_functions(&a, k)) {
            assert_eq!(phis.len(), k + 1);
        }
        if let Some(w) = typed(phi_vectors(&a, &[z], k)) {
            assert_eq!(w.len(), k + 1);
        }
        if let Some(phis) = typed(Evaluator::new(CpuDense::new()).phi_functions(&a, k)) {
            assert_eq!(phis.len(), k);
        }
    }

    // Polynomial degrees and Paterson–Stockmeyer blocks.
    let block = b.size();
    let d = b.size();
    let _ = Scheme::PatersonStockmeyer { block }.products(d);
    let ob = optimal_block(d);
    assert!(ob >= 1 && ob <= d.max(1));
    let deg = (b.byte() % 24) as usize;
    let alpha: Vec<f64> = (0..=deg).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let x = Matrix::from_fn(3, 3, |i, j| if i == j { z } else { 0.1 * (i + j) as f64 });
    for scheme in [
        Scheme::Horner,
        Scheme::Powers,
        Scheme::PatersonStockmeyer { block },
    ] {
        if let Some(p) = typed(Evaluator::new(CpuDense::new()).polyval(&x, &alpha, scheme)) {
            assert!(p.check_finite("P(X)").is_ok());
        }
    }

    // Graph measures: probe and sketch counts, step caps, and orders an operator claims.
    let g = PatternCsr::<u32>::undirected_graph(4, &[(0, 1), (1, 2), (2, 3)]).unwrap();
    let probes = ProbeOptions {
        probes: b.size(),
        sketch: b.size(),
        ..Default::default()
    };
    let quad = QuadratureOptions {
        max_steps: b.size(),
        allow_unconverged: b.byte() & 1 == 1,
        ..Default::default()
    };
    let beta = if b.byte() & 1 == 0 { 1.0 } else { z };
    // The estimators whose products go through the Lanczos solver get β from a fixed set:
    // a large |β| overflows an unchecked product in the solver's cost estimate
    // (expmv, krylov/lanczos/substeps.rs), outside the crates this target covers.
    let beta_products = [1.0, -2.0, 1e308, f64::NAN][(b.byte() % 4) as usize];
    let cpu = CpuBackend;
    // Probe counts beyond 6 are valid requests for that many quadratures (slow, not wrong):
    // the harness runs them only when they must be refused.
    let refused =
        probes.probes > matexp_graph::MAX_PROBES || probes.sketch > matexp_graph::MAX_PROBES;
    if probes.probes <= 6 && probes.sketch <= 6 || refused {
        for est in [
            typed(estrada_index_slq::<_, f64, _>(
                &cpu, &g, beta, &probes, &quad,
            )),
            typed(estrada_index_hutchpp::<_, f64, _>(
                &cpu,
                &g,
                beta_products,
                &probes,
                &quad,
            )),
        ]
        .into_iter()
        .flatten()
        {
            assert!(est.mean.is_finite() && est.ln_scale.is_finite());
            assert_eq!(
                est.converged,
                est.quadrature_error <= est.quadrature_tolerance
            );
        }
        if let Some(d) = typed(subgraph_centrality_estimate::<_, f64, _>(
            &cpu,
            &g,
            beta_products,
            &probes,
            &quad,
        )) {
            assert!(d.mean.iter().all(|m| m.is_finite()));
        }
    }
    let n = b.size();
    if storable(bytes_of(n, 8, 8)) {
        let op = Claims(n);
        let nodes = [0usize, n.saturating_sub(1), b.size()];
        for parallel in [false, true] {
            if let Some(sc) = typed(subgraph_centrality::<_, f64, _>(
                &cpu, &op, beta, &nodes, &quad, parallel,
            )) {
                assert!(sc.iter().all(|f| !f.ln_value.is_nan()));
            }
        }
    }

    // Fock bases and states.
    let fn_ = (b.u64() & 0xffff_ffff) as u32;
    let fm = u32::from(b.byte());
    if let Some(basis) = typed(FockBasis::new(fn_ % 64, fm % 8)) {
        if basis.dim() <= 4096 {
            let amps: Vec<c64> = (0..basis.sites())
                .map(|_| c64::new(b.f64(), b.f64()))
                .collect();
            if let Some(psi) = typed(mean_field_state::<c64>(&basis, &amps)) {
                if let Some(dens) = typed(site_densities(&basis, &psi)) {
                    assert!(dens.iter().all(|x| x.is_finite()));
                }
            }
        }
    }
    // The table of (N + 1)·(M + 1) dimensions: up to MAX_TABLE_ENTRIES (8 GiB) is a valid
    // request, so the harness asks for small tables and for refused ones only.
    let entries = (fn_ as usize + 1) * (fm as usize + 1);
    if entries <= 1 << 16 || entries > matexp_fock::MAX_TABLE_ENTRIES {
        let _ = typed(FockBasis::new(fn_, fm));
    }
    let mut occ = vec![0u32; (b.byte() % 5) as usize];
    occ.iter_mut().for_each(|o| *o = u32::from(b.byte() % 4));
    let before = occ.clone();
    if !FockBasis::next_state(&mut occ) {
        assert_eq!(occ, before);
    }
});
