//! Dense reference values for small graphs, from the eigendecomposition of A.

use matexp_core::{Error, Result};
use matexp_dense::{Matrix, eigh};
use matexp_sparse::{CsrIndex, PatternCsr};

/// The three measures of a small graph computed densely: with A = VΛVᵀ
/// ([`matexp_dense::eigh`]: LAPACK's `dsyevd` with this crate's `lapack` feature, the
/// pure-Rust cyclic Jacobi method without it, minutes at n = 2000), e^{βA} = V·e^{βΛ}·Vᵀ, so
/// TC = V·e^{βΛ}·(Vᵀ1), SC_i = Σⱼ Vᵢⱼ²e^{βλⱼ}, EE = Σⱼ e^{βλⱼ}.
///
/// Every sum has nonnegative terms but TC's, whose cancellation is bounded by
/// ‖e^{βA}‖·‖1‖: relative errors are a small multiple of n·u for SC and EE, and of
/// n·u·√n·e^{βλ_max}/TC_i for TC. Cost O(n³) time and O(n²) memory: for graphs up to a few
/// thousand nodes (the references of tests and benchmarks).
#[derive(Debug, Clone, PartialEq)]
pub struct DenseCentrality {
    /// Total communicabilities e^{βA}·1.
    pub total_communicability: Vec<f64>,
    /// Subgraph centralities diag(e^{βA}).
    pub subgraph_centrality: Vec<f64>,
    /// The Estrada index tr e^{βA}.
    pub estrada_index: f64,
    /// ln of the Estrada index (meaningful beyond the f64 range).
    pub ln_estrada_index: f64,
    /// The eigenvalues of A, ascending.
    pub eigenvalues: Vec<f64>,
}

/// Largest graph [`DenseCentrality::new`] accepts (n² doubles = 800 MB).
pub const MAX_DENSE_NODES: usize = 10_000;

impl DenseCentrality {
    /// The measures of the graph `g` at β (see the type's documentation).
    ///
    /// Errors: [`Error::InvalidArgument`] for a non-square or non-symmetric pattern, more than
    /// [`MAX_DENSE_NODES`] nodes, or non-finite β; [`Error::NonFinite`] when a measure other
    /// than the Estrada index's logarithm overflows; LAPACK failures.
    ///
    /// ```
    /// use matexp_graph::DenseCentrality;
    /// use matexp_sparse::PatternCsr;
    /// let g = PatternCsr::<u32>::undirected_graph(2, &[(0, 1)])?;
    /// let d = DenseCentrality::new(&g, 1.0)?;
    /// assert!((d.estrada_index - 2.0 * 1f64.cosh()).abs() < 1e-15);
    /// assert!((d.total_communicability[1] - 1f64.exp()).abs() < 1e-15);
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    pub fn new<I: CsrIndex>(g: &PatternCsr<I>, beta: f64) -> Result<Self> {
        crate::gauss::check_beta(beta)?;
        let n = g.nrows();
        if g.ncols() != n || n > MAX_DENSE_NODES {
            return Err(Error::invalid(
                "g",
                format!("{}×{}", n, g.ncols()),
                format!("needs a square graph of at most {MAX_DENSE_NODES} nodes"),
            ));
        }
        if !g.is_symmetric() {
            return Err(Error::invalid(
                "g",
                "non-symmetric pattern",
                "the measures are defined here for undirected graphs",
            ));
        }
        let mut a = Matrix::<f64>::zeros(n, n);
        for i in 0..n {
            for &j in g.row(i) {
                a[(i, j.as_usize())] += 1.0;
            }
        }
        let (lambda, v) = eigh(&a)?;
        let ln_max = lambda
            .iter()
            .map(|&l| beta * l)
            .fold(f64::NEG_INFINITY, f64::max);
        let ln_max = if n == 0 { 0.0 } else { ln_max };
        // e^{βλ − c} ∈ (0, 1]; the scale e^{c} is applied once at the end.
        let w: Vec<f64> = lambda.iter().map(|&l| (beta * l - ln_max).exp()).collect();
        let scale = ln_max.exp();
        let mut sc = vec![0.0; n];
        let mut tc = vec![0.0; n];
        for j in 0..n {
            let col = v.col(j);
            let s: f64 = col.iter().sum();
            for i in 0..n {
                sc[i] += col[i] * col[i] * w[j];
                tc[i] += col[i] * w[j] * s;
            }
        }
        let sum_w: f64 = w.iter().sum();
        for (i, x) in sc.iter_mut().chain(tc.iter_mut()).enumerate() {
            *x *= scale;
            if !x.is_finite() {
                return Err(Error::NonFinite {
                    context: "dense centrality: e^{βA} beyond the f64 range".into(),
                    index: i % n.max(1),
                    value: format!("{x}"),
                });
            }
        }
        Ok(DenseCentrality {
            total_communicability: tc,
            subgraph_centrality: sc,
            estrada_index: sum_w * scale,
            ln_estrada_index: ln_max + sum_w.ln(),
            eigenvalues: lambda,
        })
    }
}
