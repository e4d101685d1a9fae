//! The Bose–Hubbard Hamiltonian on a chain, with site-dependent, time-dependent couplings:
//!
//! ```text
//! H(t) = −Σ_k J_k(t) (b†_k b_{k+1} + b†_{k+1} b_k) + Σ_k V_k(t) n_k + Σ_k U_k(t)/2 · n_k(n_k − 1)
//! ```
//!
//! on `M` sites; bond `k` couples sites `k` and `k + 1` (open chain: `M − 1` bonds), and the
//! periodic chain adds bond `M − 1` between sites `M − 1` and `0`. `J`, `V`, `U` are real, so
//! `H(t)` is real symmetric at every `t`; `ħ = 1`.

use crate::FockBasis;
use matexp_core::{Error, Result, SpectralBounds};
use std::fmt;
use std::sync::Arc;

/// Boundary condition of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Boundary {
    /// `M − 1` bonds between neighbouring sites (the seed's model).
    #[default]
    Open,
    /// A ring: bond `M − 1` couples site `M − 1` with site 0 (needs `M ≥ 3`).
    Periodic,
}

/// A function of time giving one value per site or bond: `f(t, k)`.
pub type SiteFn = Arc<dyn Fn(f64, usize) -> f64 + Send + Sync>;

/// One family of couplings (hopping per bond, potential or interaction per site).
#[derive(Clone)]
pub enum Coupling {
    /// The same constant on every site or bond.
    Uniform(f64),
    /// One constant per site or bond.
    PerSite(Vec<f64>),
    /// `f(t, k)` for site or bond `k`, evaluated by the host once per product.
    Function(SiteFn),
}

impl Coupling {
    /// `f(t, k)` for every site or bond `k` from a closure.
    pub fn function(f: impl Fn(f64, usize) -> f64 + Send + Sync + 'static) -> Self {
        Coupling::Function(Arc::new(f))
    }

    /// The same `f(t)` on every site or bond.
    pub fn uniform_in_time(f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Self {
        Coupling::Function(Arc::new(move |t, _| f(t)))
    }

    /// Whether the coupling depends on time.
    pub fn is_time_dependent(&self) -> bool {
        matches!(self, Coupling::Function(_))
    }

    fn check_len(&self, name: &'static str, len: usize) -> Result<()> {
        if let Coupling::PerSite(v) = self {
            matexp_core::check_dim(name, len, v.len())?;
        }
        Ok(())
    }

    fn eval_into(&self, name: &'static str, t: f64, out: &mut [f64]) -> Result<()> {
        match self {
            Coupling::Uniform(c) => out.fill(*c),
            Coupling::PerSite(v) => out.copy_from_slice(v),
            Coupling::Function(f) => {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = f(t, k);
                }
            }
        }
        if let Some(k) = out.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                context: format!("Bose–Hubbard coupling {name} at t = {t}"),
                index: k,
                value: format!("{}", out[k]),
            });
        }
        Ok(())
    }
}

impl fmt::Debug for Coupling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coupling::Uniform(c) => write!(f, "Uniform({c})"),
            Coupling::PerSite(v) => write!(f, "PerSite({v:?})"),
            Coupling::Function(_) => write!(f, "Function(..)"),
        }
    }
}

/// The couplings evaluated at one time: what a kernel needs for one product.
#[derive(Debug, Clone, PartialEq)]
pub struct Coefficients {
    /// `J_k`, one per bond (`M − 1` open, `M` periodic).
    pub hopping: Vec<f64>,
    /// `V_k`, one per site.
    pub potential: Vec<f64>,
    /// `U_k`, one per site.
    pub interaction: Vec<f64>,
}

/// The Bose–Hubbard Hamiltonian `H(t)` on a [`FockBasis`] (see the module documentation).
///
/// It is a [`matexp_core::TimeDependentOperator`] on the CPU backend (and on the GPU with the
/// `gpu` feature); [`BoseHubbard::at`] freezes it at one time as a
/// [`matexp_core::LinearOperator`], so the `f(tA)v` solvers propagate time-independent models.
///
/// ```
/// use matexp_core::{CpuBackend, TimeDependentOperator, c64};
/// use matexp_fock::{BoseHubbard, Coupling, FockBasis};
/// // Double well, one particle: H = −J(b†_0 b_1 + h.c.), J(t) = e^{−t}.
/// let h = BoseHubbard::new(FockBasis::new(1, 2)?)
///     .with_hopping(Coupling::uniform_in_time(|t| (-t).exp()))?;
/// // |1,0⟩ has index 1, |0,1⟩ index 0; H|1,0⟩ = −J(0)|0,1⟩.
/// let x = vec![c64::new(0.0, 0.0), c64::new(1.0, 0.0)];
/// let mut y = vec![c64::new(0.0, 0.0); 2];
/// h.apply_at(&CpuBackend, 0.0, c64::new(1.0, 0.0), &x, c64::new(0.0, 0.0), &mut y)?;
/// assert_eq!(y[0], c64::new(-1.0, 0.0));
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BoseHubbard {
    basis: Arc<FockBasis>,
    boundary: Boundary,
    hopping: Coupling,
    potential: Coupling,
    interaction: Coupling,
    /// `√k` for `k ∈ 0..=N+1`: every hop amplitude is `√(n_to + 1)·√n_from`.
    sqrt: Vec<f64>,
}

impl BoseHubbard {
    /// The Hamiltonian on `basis` with all couplings zero, open chain.
    pub fn new(basis: FockBasis) -> Self {
        let sqrt = (0..=basis.particles() as usize + 1)
            .map(|k| (k as f64).sqrt())
            .collect();
        BoseHubbard {
            basis: Arc::new(basis),
            boundary: Boundary::Open,
            hopping: Coupling::Uniform(0.0),
            potential: Coupling::Uniform(0.0),
            interaction: Coupling::Uniform(0.0),
            sqrt,
        }
    }

    /// Sets the boundary condition.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a periodic chain of fewer than 3 sites (its two bonds
    /// would coincide), or when per-bond hoppings were given for the other boundary.
    pub fn with_boundary(mut self, boundary: Boundary) -> Result<Self> {
        if boundary == Boundary::Periodic && self.basis.sites() < 3 {
            return Err(Error::invalid(
                "boundary",
                "Periodic",
                format!(
                    "a ring needs at least 3 sites, the basis has {}",
                    self.basis.sites()
                ),
            ));
        }
        self.boundary = boundary;
        self.hopping
            .check_len("hopping (one per bond)", self.bonds())?;
        Ok(self)
    }

    /// Sets the hopping `J_k(t)` (one value per bond).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when a per-bond vector has the wrong length.
    pub fn with_hopping(mut self, hopping: Coupling) -> Result<Self> {
        hopping.check_len("hopping (one per bond)", self.bonds())?;
        self.hopping = hopping;
        Ok(self)
    }

    /// Sets the on-site potential `V_k(t)` (one value per site).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when a per-site vector has the wrong length.
    pub fn with_potential(mut self, potential: Coupling) -> Result<Self> {
        potential.check_len("potential (one per site)", self.basis.sites() as usize)?;
        self.potential = potential;
        Ok(self)
    }

    /// Sets the on-site interaction `U_k(t)` (one value per site).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when a per-site vector has the wrong length.
    pub fn with_interaction(mut self, interaction: Coupling) -> Result<Self> {
        interaction.check_len("interaction (one per site)", self.basis.sites() as usize)?;
        self.interaction = interaction;
        Ok(self)
    }

    /// The Fock basis.
    pub fn basis(&self) -> &FockBasis {
        &self.basis
    }

    /// The boundary condition.
    pub fn boundary(&self) -> Boundary {
        self.boundary
    }

    /// Number of bonds: `M − 1` (open) or `M` (periodic).
    pub fn bonds(&self) -> usize {
        let m = self.basis.sites() as usize;
        match self.boundary {
            Boundary::Open => m - 1,
            Boundary::Periodic => m,
        }
    }

    /// `√k` for `k ∈ 0..=N+1`.
    pub fn sqrt_table(&self) -> &[f64] {
        &self.sqrt
    }

    /// Whether any coupling depends on time.
    pub fn is_time_dependent(&self) -> bool {
        self.hopping.is_time_dependent()
            || self.potential.is_time_dependent()
            || self.interaction.is_time_dependent()
    }

    /// The couplings at time `t`.
    ///
    /// # Errors
    /// [`Error::NonFinite`] when a coupling (or `t`) is not finite.
    pub fn coefficients_at(&self, t: f64) -> Result<Coefficients> {
        if !t.is_finite() {
            return Err(Error::invalid("t", t, "time must be finite"));
        }
        let m = self.basis.sites() as usize;
        let mut c = Coefficients {
            hopping: vec![0.0; self.bonds()],
            potential: vec![0.0; m],
            interaction: vec![0.0; m],
        };
        self.hopping.eval_into("J", t, &mut c.hopping)?;
        self.potential.eval_into("V", t, &mut c.potential)?;
        self.interaction.eval_into("U", t, &mut c.interaction)?;
        Ok(c)
    }

    /// The Hamiltonian frozen at time `t`: a [`matexp_core::LinearOperator`].
    ///
    /// # Errors
    /// As [`BoseHubbard::coefficients_at`].
    pub fn at(&self, t: f64) -> Result<FrozenBoseHubbard<'_>> {
        Ok(FrozenBoseHubbard {
            model: self,
            coeffs: self.coefficients_at(t)?,
        })
    }

    /// A real interval holding the spectrum of `H` with coefficients `c` (Gershgorin on the
    /// diagonal range and the hop row sums; see [`BoseHubbard::norm_bound_with`]).
    pub fn spectral_bounds_with(&self, c: &Coefficients) -> Option<SpectralBounds> {
        let n = f64::from(self.basis.particles());
        let pairs = n * (n - 1.0) / 2.0;
        let (vmin, vmax) = min_max(&c.potential);
        let (umin, umax) = min_max(&c.interaction);
        let lo = n * vmin + umin.min(0.0) * pairs;
        let hi = n * vmax + umax.max(0.0) * pairs;
        let r = self.hop_radius(c);
        SpectralBounds::real(lo - r, hi + r).ok()
    }

    /// An upper bound on ‖H‖₂ with coefficients `c`: `N·max|V| + max|U|·N(N−1)/2 + R`, where
    /// `R = √(N(N+2))·Σ_k |J_k|` bounds the off-diagonal row sums. For a bond with
    /// `a + b ≤ N` particles on its ends, `√((b+1)a) + √((a+1)b) ≤ √(2(2ab + a + b)) ≤
    /// √(N(N+2))` (Cauchy–Schwarz, `ab ≤ N²/4`); `H` is symmetric, so the largest row sum
    /// bounds its 2-norm.
    pub fn norm_bound_with(&self, c: &Coefficients) -> f64 {
        let n = f64::from(self.basis.particles());
        let vmax = c.potential.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let umax = c.interaction.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        n * vmax + umax * n * (n - 1.0).max(0.0) / 2.0 + self.hop_radius(c)
    }

    fn hop_radius(&self, c: &Coefficients) -> f64 {
        let n = f64::from(self.basis.particles());
        (n * (n + 2.0)).sqrt() * c.hopping.iter().map(|j| j.abs()).sum::<f64>()
    }
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        })
}

/// [`BoseHubbard`] with its couplings evaluated at one time: an ordinary linear operator
/// (see [`BoseHubbard::at`]).
#[derive(Debug, Clone)]
pub struct FrozenBoseHubbard<'a> {
    pub(crate) model: &'a BoseHubbard,
    pub(crate) coeffs: Coefficients,
}

impl FrozenBoseHubbard<'_> {
    /// The model.
    pub fn model(&self) -> &BoseHubbard {
        self.model
    }

    /// The coefficients it was frozen with.
    pub fn coefficients(&self) -> &Coefficients {
        &self.coeffs
    }
}
