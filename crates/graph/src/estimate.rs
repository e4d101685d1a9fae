//! Results of the stochastic estimators, with their confidence intervals.

use crate::stats::student_t_quantile;
use matexp_core::{Error, Result};

/// Options of the stochastic estimators ([`crate::estrada_index_slq`],
/// [`crate::estrada_index_hutchpp`], [`crate::subgraph_centrality_estimate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeOptions {
    /// Number of Rademacher probes whose sample mean and spread give the estimate and its
    /// interval (≥ 2). For Hutch++, the probes of the residual trace.
    pub probes: usize,
    /// Hutch++ only: rank of the sketch e^{βA}S that is deflated exactly (≥ 1).
    pub sketch: usize,
    /// Seed of the probe streams ([`crate::probes::rademacher`]).
    pub seed: u64,
    /// Confidence level of the interval, in (0, 1).
    pub confidence: f64,
}

impl Default for ProbeOptions {
    /// 30 probes, sketch rank 10, seed 0, 95 % confidence.
    fn default() -> Self {
        ProbeOptions {
            probes: 30,
            sketch: 10,
            seed: 0,
            confidence: 0.95,
        }
    }
}

/// Most probes (and sketch columns) accepted: each costs a Lanczos run, and the stochastic
/// error falls like 1/√m, so 2²⁰ probes (10⁻³ of one probe's spread) is beyond any use; a
/// larger count is a mistake, refused before anything is allocated.
pub const MAX_PROBES: usize = 1 << 20;

impl ProbeOptions {
    with_setters! {
        /// [`ProbeOptions::probes`].
        with_probes => probes: usize;
        /// [`ProbeOptions::sketch`] (Hutch++).
        with_sketch => sketch: usize;
        /// [`ProbeOptions::seed`].
        with_seed => seed: u64;
        /// [`ProbeOptions::confidence`].
        with_confidence => confidence: f64;
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.probes < 2 {
            return Err(Error::invalid(
                "probes",
                self.probes,
                "an interval needs at least 2 probes",
            ));
        }
        if self.probes > MAX_PROBES {
            return Err(Error::invalid(
                "probes",
                self.probes,
                format!("at most MAX_PROBES = {MAX_PROBES} probes"),
            ));
        }
        if self.sketch > MAX_PROBES {
            return Err(Error::invalid(
                "sketch",
                self.sketch,
                format!("at most MAX_PROBES = {MAX_PROBES} sketch columns"),
            ));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(Error::invalid(
                "confidence",
                self.confidence,
                "a level strictly between 0 and 1",
            ));
        }
        Ok(())
    }

    /// The two-sided Student t factor for `probes − 1` degrees of freedom.
    pub(crate) fn t_factor(&self) -> Result<f64> {
        student_t_quantile(0.5 * (1.0 + self.confidence), (self.probes - 1) as f64)
    }
}

/// An estimate of a trace (the Estrada index tr e^{βA}) with a confidence interval. All
/// figures but `ln_scale` are in units of e^{ln_scale}, so that indices beyond the f64 range
/// (e^{λ_max} for λ_max > 709) are represented.
///
/// **The interval.** [mean − t·se − rounding_error, mean + t·se + quadrature_error +
/// rounding_error]·e^{ln_scale}, where se is
/// the standard error of the mean over the probe samples (sample standard deviation / √m), t
/// the Student quantile t_{(1+c)/2, m−1} at confidence c, and quadrature_error bounds the
/// Lanczos quadrature's truncation separately: each Gauss value is a lower bound of its
/// quadratic form (in exact arithmetic), so the truncation only widens the interval upwards,
/// by the mean of the per-sample gaps (Gauss–Radau where it is tighter, else the last relative
/// change, an estimate); rounding_error bounds the floating-point error of the quadratures
/// (relative 8u·(k + √n·|β|·max|θ|) each, [`crate::QuadraticForm::rounding`]: e^{x} turns an
/// absolute error of x into a relative one, which matters when β·λ_max is in the hundreds). The t-interval assumes the sample mean is nearly normal; with a
/// heavy-tailed sample distribution (plain Hutchinson on graphs with a dominant eigenvalue)
/// its coverage falls below c, which Hutch++'s deflation repairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceEstimate {
    /// `"slq"` or `"hutch++"`.
    pub method: &'static str,
    /// Natural logarithm of the common scale.
    pub ln_scale: f64,
    /// The point estimate / e^{ln_scale}.
    pub mean: f64,
    /// Standard error of the stochastic part / e^{ln_scale}.
    pub std_error: f64,
    /// t·std_error / e^{ln_scale}.
    pub half_width: f64,
    /// Upper-side allowance for the quadrature truncation / e^{ln_scale}.
    pub quadrature_error: f64,
    /// Two-sided allowance for the rounding errors of the quadratures / e^{ln_scale}.
    pub rounding_error: f64,
    /// Confidence level of the interval.
    pub confidence: f64,
    /// Stochastic samples behind the interval.
    pub samples: usize,
    /// Products with A spent.
    pub matvecs: usize,
    /// What `quadrature_error` must not exceed for the quadratures to count as converged:
    /// rtol·mean for SLQ (every form to rtol of itself), 2·rtol·mean for Hutch++ (the
    /// deflated forms to rtol of themselves, the residual forms to rtol of the deflated part).
    pub quadrature_tolerance: f64,
    /// `quadrature_error ≤ quadrature_tolerance`: the truncation of the quadratures is within
    /// the tolerance (the stochastic error is what the interval describes).
    pub converged: bool,
}

impl TraceEstimate {
    /// The estimate (∞ beyond the f64 range).
    pub fn value(&self) -> f64 {
        self.mean * self.ln_scale.exp()
    }

    /// ln of the estimate.
    pub fn ln_value(&self) -> f64 {
        self.ln_scale + self.mean.ln()
    }

    /// The confidence interval (see the type's documentation).
    pub fn interval(&self) -> (f64, f64) {
        let s = self.ln_scale.exp();
        let (lo, hi) = self.scaled_interval();
        (lo * s, hi * s)
    }

    /// Whether `x` lies in the interval (compared in the scaled units, so it works beyond
    /// the f64 range when `x` is given as its logarithm through [`TraceEstimate::contains_ln`]).
    pub fn contains(&self, x: f64) -> bool {
        let (lo, hi) = self.interval();
        lo <= x && x <= hi
    }

    /// Whether e^{ln_x} lies in the interval.
    pub fn contains_ln(&self, ln_x: f64) -> bool {
        let x = (ln_x - self.ln_scale).exp();
        let (lo, hi) = self.scaled_interval();
        lo <= x && x <= hi
    }

    /// The interval in units of e^{ln_scale}.
    fn scaled_interval(&self) -> (f64, f64) {
        (
            self.mean - self.half_width - self.rounding_error,
            self.mean + self.half_width + self.quadrature_error + self.rounding_error,
        )
    }
}

/// Estimates of the diagonal of e^{βA} (subgraph centralities), node by node, with standard
/// errors; values in units of e^{ln_scale}.
///
/// Node i's interval is mean_i ± t·std_error_i (scaled), t = t_{(1+c)/2, m−1}. The
/// products e^{βA}z are computed to `rtol` (an error far below the stochastic one).
#[derive(Debug, Clone, PartialEq)]
pub struct DiagonalEstimate {
    /// Natural logarithm of the common scale.
    pub ln_scale: f64,
    /// Sample means z_i·(e^{βA}z)_i over the probes / e^{ln_scale}.
    pub mean: Vec<f64>,
    /// Standard errors of the means / e^{ln_scale}.
    pub std_error: Vec<f64>,
    /// The Student factor of the intervals.
    pub t_factor: f64,
    /// Confidence level.
    pub confidence: f64,
    /// Probes used.
    pub probes: usize,
    /// Products with A spent.
    pub matvecs: usize,
    /// The worst relative error estimate of the products e^{βA}zₖ (Lanczos'
    /// `rel_error_estimate`, over the probes).
    pub rel_error_estimate: f64,
    /// The tolerance of the products (`rtol` of the quadrature options).
    pub rtol: f64,
    /// `rel_error_estimate ≤ rtol` and the shift's quadrature converged.
    pub converged: bool,
}

impl DiagonalEstimate {
    /// The estimate of [e^{βA}]_ii.
    pub fn value(&self, i: usize) -> f64 {
        self.mean[i] * self.ln_scale.exp()
    }

    /// All estimates.
    pub fn values(&self) -> Vec<f64> {
        let s = self.ln_scale.exp();
        self.mean.iter().map(|m| m * s).collect()
    }

    /// Node i's confidence interval.
    pub fn interval(&self, i: usize) -> (f64, f64) {
        let s = self.ln_scale.exp();
        let h = self.t_factor * self.std_error[i];
        ((self.mean[i] - h) * s, (self.mean[i] + h) * s)
    }
}
