//! The front door of the per-node and trace measures: [`subgraph_centrality`] and
//! [`estrada_index`] meet a requested relative tolerance by choosing exact Gauss quadrature
//! or a stochastic estimator, and return every value in one shape, [`Centrality`].

use crate::estimate::ProbeOptions;
use crate::quadrature::{QuadraticForm, QuadratureOptions};
use crate::subgraph::{subgraph_centrality_estimate, subgraph_centrality_quadrature};
use crate::trace::estrada_index_hutchpp;
use matexp_core::{Error, KrylovBackend, LinearOperator, RealScalar, Result};
use matexp_expmv::Tolerance;

/// Options of [`subgraph_centrality`] and [`estrada_index`]: the tolerance asked for, and
/// the settings of the two kinds of method they choose from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CentralityOptions {
    /// Relative tolerance of every returned value: its interval's half-width (or, for
    /// quadrature, its truncation and rounding allowance) at most `rtol` times the value.
    /// In (0, 1); default 1e−6.
    pub rtol: f64,
    /// The quadratures (their `rtol` is tightened to a tenth of [`Self::rtol`] where it is
    /// looser).
    pub quadrature: QuadratureOptions,
    /// The stochastic estimators (their probe count is raised when the first run's interval
    /// predicts that more probes meet the tolerance for less than quadrature costs).
    pub probes: ProbeOptions,
}

impl Default for CentralityOptions {
    /// rtol 1e−6, default quadrature and probe options.
    fn default() -> Self {
        CentralityOptions {
            rtol: 1e-6,
            quadrature: QuadratureOptions::default(),
            probes: ProbeOptions::default(),
        }
    }
}

impl CentralityOptions {
    /// The relative tolerance of [`Tolerance`] (as the facade's `Options::with_tolerance`);
    /// the measures are positive and are resolved relative to themselves, so `atol` is not
    /// used.
    pub fn with_tolerance(mut self, tol: Tolerance) -> Self {
        self.rtol = tol.rtol;
        self
    }

    with_setters! {
        /// [`CentralityOptions::rtol`].
        with_rtol => rtol: f64;
        /// [`CentralityOptions::quadrature`].
        with_quadrature => quadrature: QuadratureOptions;
        /// [`CentralityOptions::probes`].
        with_probes => probes: ProbeOptions;
    }

    fn validate(&self) -> Result<()> {
        if !(self.rtol > 0.0 && self.rtol < 1.0) {
            return Err(Error::invalid(
                "rtol",
                self.rtol,
                "a relative tolerance in (0, 1)",
            ));
        }
        self.probes.validate()?;
        self.quadrature.validate()
    }

    /// Quadrature to a tenth of the tolerance (the rest is left for rounding).
    fn exact_quadrature(&self) -> QuadratureOptions {
        QuadratureOptions {
            rtol: self.quadrature.rtol.min(0.1 * self.rtol).max(1e-16),
            ..self.quadrature
        }
    }
}

/// Which method produced a [`Centrality`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CentralityMethod {
    /// Gauss quadrature of Lanczos from e_i, node by node
    /// ([`crate::subgraph_centrality_quadrature`]; for the Estrada index, the sum over all
    /// nodes): the interval is the quadrature's truncation and rounding allowance.
    Quadrature,
    /// Rademacher probing of the diagonal ([`crate::subgraph_centrality_estimate`]): a
    /// Student t-interval at the probes' confidence level.
    Probing,
    /// Hutch++ with Lanczos quadrature ([`crate::estrada_index_hutchpp`]): a t-interval
    /// plus the quadrature allowance.
    HutchPlusPlus,
}

/// A measure with its interval and where it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Centrality {
    /// The value (∞ beyond the f64 range; see `ln_value`).
    pub value: f64,
    /// ln of the value (meaningful beyond the f64 range).
    pub ln_value: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
    /// The method chosen.
    pub method: CentralityMethod,
    /// Whether the interval meets the tolerance: half-width ≤ rtol·value (the quadrature's
    /// allowance ≤ rtol·value).
    pub met: bool,
    /// Products with A spent on this call (the same figure on every node of one call).
    pub matvecs: usize,
}

impl Centrality {
    /// `(lower, upper)`.
    pub fn interval(&self) -> (f64, f64) {
        (self.lower, self.upper)
    }

    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }

    fn from_form(f: &QuadraticForm, rtol: f64, matvecs: usize) -> Self {
        let value = f.value();
        let err = f.relative_error();
        Centrality {
            value,
            ln_value: f.ln_value,
            lower: value * (1.0 - f.rounding),
            upper: value * (1.0 + err + f.rounding),
            method: CentralityMethod::Quadrature,
            met: err + f.rounding <= rtol,
            matvecs,
        }
    }
}

/// Subgraph centralities [e^{βA}]_ii of `nodes` to the relative tolerance `opts.rtol`.
///
/// **Choice.** Quadrature costs about k products per node, probing (m + 1)·k for every
/// node at once with an interval that shrinks like 1/√m. For at most 4(m + 1) nodes, or
/// when the probing run's intervals miss the tolerance, quadrature is exact to rounding at
/// breakdown and otherwise to `opts.rtol`; probing is kept when every requested node's
/// interval already meets it. [`Centrality::method`] says which ran.
///
/// The scalar is `beta`'s: `1.0` runs in `f64` on a pattern graph without a turbofish.
///
/// Errors: as [`crate::subgraph_centrality_quadrature`] and
/// [`crate::subgraph_centrality_estimate`]; [`Error::InvalidArgument`] for an `rtol`
/// outside (0, 1).
///
/// ```
/// use matexp_core::CpuBackend;
/// use matexp_graph::{CentralityMethod, CentralityOptions, DenseCentrality, subgraph_centrality};
/// use matexp_sparse::generators::barabasi_albert;
/// let g = barabasi_albert::<u32>(300, 2, 1)?;
/// let opts = CentralityOptions::default().with_rtol(1e-8);
/// let sc = subgraph_centrality(&CpuBackend, &g, 1.0, &[0, 5, 17], &opts)?;
/// let dense = DenseCentrality::new(&g, 1.0)?;
/// for (c, i) in sc.iter().zip([0, 5, 17]) {
///     let want = dense.subgraph_centrality[i];
///     assert!(c.met && c.method == CentralityMethod::Quadrature);
///     assert!((c.value / want - 1.0).abs() < 1e-8);
/// }
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn subgraph_centrality<B: KrylovBackend, S: RealScalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    beta: S,
    nodes: &[usize],
    opts: &CentralityOptions,
) -> Result<Vec<Centrality>> {
    opts.validate()?;
    let n = op.nrows();
    let parallel = !backend.is_asynchronous();
    if nodes.len() > 4 * (opts.probes.probes + 1) {
        if let Some(&bad) = nodes.iter().find(|&&i| i >= n) {
            return Err(Error::invalid(
                "nodes",
                bad,
                format!("node index beyond the graph's {n} nodes"),
            ));
        }
        let quad = opts.exact_quadrature();
        let est = subgraph_centrality_estimate(backend, op, beta, &opts.probes, &quad)?;
        let cents: Vec<Centrality> = nodes
            .iter()
            .map(|&i| {
                let (lower, upper) = est.interval(i);
                let value = est.value(i);
                Centrality {
                    value,
                    ln_value: est.ln_scale + est.mean[i].ln(),
                    lower,
                    upper,
                    method: CentralityMethod::Probing,
                    met: value > 0.0 && 0.5 * (upper - lower) <= opts.rtol * value,
                    matvecs: est.matvecs,
                }
            })
            .collect();
        if cents.iter().all(|c| c.met) {
            return Ok(cents);
        }
    }
    let forms = subgraph_centrality_quadrature(
        backend,
        op,
        beta,
        nodes,
        &opts.exact_quadrature(),
        parallel,
    )?;
    let matvecs = forms.iter().map(|f| f.steps).sum();
    Ok(forms
        .iter()
        .map(|f| Centrality::from_form(f, opts.rtol, matvecs))
        .collect())
}

/// The Estrada index tr e^{βA} to the relative tolerance `opts.rtol`.
///
/// **Choice.** Quadrature of every diagonal entry costs about n·k products; Hutch++ about
/// (2s + 1 + m)·k, with an interval that shrinks like 1/√m. Small graphs (n ≤ 4(2s + 1 +
/// m)) take quadrature. Otherwise Hutch++ runs; if its interval misses the tolerance and
/// the probe count that the observed spread predicts still costs less than quadrature,
/// Hutch++ runs once more with that count; if that too misses, quadrature. The result says
/// which ([`CentralityMethod::HutchPlusPlus`] or [`CentralityMethod::Quadrature`]).
///
/// Errors: as [`crate::estrada_index_hutchpp`] and [`subgraph_centrality`].
///
/// ```
/// use matexp_core::CpuBackend;
/// use matexp_graph::{CentralityOptions, DenseCentrality, estrada_index};
/// use matexp_sparse::PatternCsr;
/// // A 12-cycle: the scalar is f64 from β = 1.0, no turbofish on the pattern graph.
/// let edges: Vec<(usize, usize)> = (0..12).map(|i| (i, (i + 1) % 12)).collect();
/// let g = PatternCsr::<u32>::undirected_graph(12, &edges)?;
/// let ee = estrada_index(&CpuBackend, &g, 1.0, &CentralityOptions::default())?;
/// let exact = DenseCentrality::new(&g, 1.0)?.estrada_index;
/// assert!(ee.met && ee.contains(exact));
/// assert!((ee.value / exact - 1.0).abs() < 1e-6);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn estrada_index<B: KrylovBackend, S: RealScalar, O: LinearOperator<B, S> + ?Sized>(
    backend: &B,
    op: &O,
    beta: S,
    opts: &CentralityOptions,
) -> Result<Centrality> {
    opts.validate()?;
    let n = op.nrows();
    let p = opts.probes;
    let runs = |m: usize| 2 * p.sketch.min(n) + 1 + m;
    let mut spent = 0;
    if n > 4 * runs(p.probes) {
        let quad = opts.exact_quadrature();
        let mut probes = p;
        for _ in 0..2 {
            let est = estrada_index_hutchpp(backend, op, beta, &probes, &quad)?;
            spent += est.matvecs;
            let (lower, upper) = est.interval();
            let value = est.value();
            let half = 0.5 * (est.half_width + est.quadrature_error) + est.rounding_error;
            let rel = half / est.mean;
            if rel <= opts.rtol {
                return Ok(Centrality {
                    value,
                    ln_value: est.ln_value(),
                    lower,
                    upper,
                    method: CentralityMethod::HutchPlusPlus,
                    met: true,
                    matvecs: spent,
                });
            }
            // The half-width falls like 1/√m: the count that would meet the tolerance.
            let want = (probes.probes as f64 * (rel / opts.rtol).powi(2) * 1.2).ceil();
            if !(want.is_finite() && want < crate::MAX_PROBES as f64 && runs(want as usize) < n) {
                break;
            }
            probes.probes = want as usize;
        }
    }
    let all: Vec<usize> = (0..n).collect();
    let parallel = !backend.is_asynchronous();
    let forms = subgraph_centrality_quadrature(
        backend,
        op,
        beta,
        &all,
        &opts.exact_quadrature(),
        parallel,
    )?;
    spent += forms.iter().map(|f| f.steps).sum::<usize>();
    Ok(sum_of_forms(&forms, opts.rtol, spent))
}

/// Σ of the quadratic forms in logarithms, with the worst relative allowance of a term as
/// the allowance of the sum (every term is positive).
fn sum_of_forms(forms: &[QuadraticForm], rtol: f64, matvecs: usize) -> Centrality {
    let top = forms
        .iter()
        .map(|f| f.ln_value)
        .fold(f64::NEG_INFINITY, f64::max);
    let top = if top.is_finite() { top } else { 0.0 };
    let sum: f64 = forms.iter().map(|f| (f.ln_value - top).exp()).sum();
    let ln_value = top + sum.ln();
    let err = forms
        .iter()
        .map(|f| f.relative_error())
        .fold(0.0f64, f64::max);
    let rounding = forms.iter().map(|f| f.rounding).fold(0.0f64, f64::max);
    let value = ln_value.exp();
    Centrality {
        value,
        ln_value,
        lower: value * (1.0 - rounding),
        upper: value * (1.0 + err + rounding),
        method: CentralityMethod::Quadrature,
        met: err + rounding <= rtol,
        matvecs,
    }
}
