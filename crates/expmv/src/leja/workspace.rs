//! The reusable state of the Leja methods: backend vectors and cached divided differences.

use matexp_core::{Backend, Result, Scalar, SpectralBounds};
use std::sync::Arc;

/// How many coefficient sets a workspace keeps (least recently used first out). Stepping
/// through equally spaced output times needs one; irregular times one per interval.
pub(crate) const CACHE_CAPACITY: usize = 16;

/// Identifies a set of Newton coefficients: the substep `τ`, the focal segment, the number
/// of nodes, the algorithm, and the tolerance the aliasing floor was computed for (all as
/// exact bit patterns: equal keys mean equal coefficients).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CoeffKey {
    pub tau: (u64, u64),
    pub center: (u64, u64),
    pub scale: (u64, u64),
    pub nodes: usize,
    pub seed: bool,
    pub floor_tol: u64,
    pub floor_theta: u64,
    pub floor_radius: u64,
}

/// Identifies the operator whose loose box was last narrowed: its address, its order, the
/// bit patterns of the box it gave and whether it is Hermitian.
pub(crate) type TightenKey = (usize, usize, [u64; 4], bool);

/// Divided differences `d_m` of one substep and its aliasing floor.
#[derive(Debug, Clone)]
pub(crate) struct Coefficients<S> {
    pub values: Vec<S>,
    /// The same in double precision complex (the conjugate-point recurrence of real
    /// operators on an imaginary segment needs their imaginary parts).
    pub exact: Vec<matexp_core::c64>,
    /// The model degree of the substep (`max_degree` when the nodes do not suffice; the
    /// cost estimate counts it).
    pub degree: usize,
    pub floor: usize,
    /// `tail[m] = Σ_{j>m}|d_j|·W_j` over the table (see [`super::newton::Rule`]).
    pub tail: Vec<f64>,
}

/// Backend vectors and coefficient cache of [`crate::Leja`]; reusable across calls,
/// operators and options of the same order `n`, so that time stepping allocates no backend
/// memory after the first call and recomputes no divided differences for a repeated step.
///
/// ```
/// use matexp_core::{CpuBackend, DenseMatrixOperator};
/// use matexp_expmv::{ExpmvMethod, Leja, LejaOptions, LejaWorkspace};
/// let cpu = CpuBackend::new();
/// let op = DenseMatrixOperator::new(2, 2, vec![-2.0, 1.0, 1.0, -2.0])?;
/// let mut leja = Leja::with_workspace(&cpu, LejaWorkspace::new(), LejaOptions::default())?;
/// let mut u = vec![1.0, 0.0];
/// let mut next = vec![0.0; 2];
/// for _ in 0..10 {
///     leja.expmv(&op, 0.1, &u, &mut next)?; // the second step reuses the coefficients
///     std::mem::swap(&mut u, &mut next);
/// }
/// assert_eq!(leja.workspace().cached_coefficient_sets(), 1);
/// // e^{A}e₁ with eigenvalues −1, −3: ((e^{−1} + e^{−3})/2, (e^{−1} − e^{−3})/2).
/// let (a, b) = ((-1f64).exp(), (-3f64).exp());
/// assert!((u[0] - (a + b) / 2.0).abs() < 1e-7 && (u[1] - (a - b) / 2.0).abs() < 1e-7);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct LejaWorkspace<B: Backend, S: Scalar> {
    n: usize,
    pub(crate) u: Option<B::Vector<S>>,
    pub(crate) p: Option<B::Vector<S>>,
    pub(crate) ya: Option<B::Vector<S>>,
    pub(crate) yb: Option<B::Vector<S>>,
    /// Third basis buffer of the conjugate-point recurrence (allocated on its first use).
    pub(crate) yc: Option<B::Vector<S>>,
    /// The last narrowing of a loose operator box (`None` inside: not worth it), so that
    /// time stepping with one operator measures once.
    pub(crate) tightened: Option<(TightenKey, Option<SpectralBounds>)>,
    cache: Vec<(CoeffKey, Arc<Coefficients<S>>)>,
}

impl<B: Backend, S: Scalar> Default for LejaWorkspace<B, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B: Backend, S: Scalar> LejaWorkspace<B, S> {
    /// An empty workspace (vectors are allocated on first use, sized by the operator).
    pub fn new() -> Self {
        LejaWorkspace {
            n: 0,
            u: None,
            p: None,
            ya: None,
            yb: None,
            yc: None,
            tightened: None,
            cache: Vec::new(),
        }
    }

    /// The operator order this workspace serves (0 before the first call).
    pub fn order(&self) -> usize {
        self.n
    }

    /// Serves operators of order `n` from now on: the vectors are dropped when the order
    /// changes (the coefficients do not depend on it and stay cached).
    pub(crate) fn resize(&mut self, n: usize) {
        if n != self.n {
            self.n = n;
            self.u = None;
            self.p = None;
            self.ya = None;
            self.yb = None;
            self.yc = None;
        }
    }

    /// Full-size vectors allocated now (u, p, y_a, y_b and, after a conjugate-point run, y_c):
    /// what `crate::plan` counts besides v and w.
    pub fn vectors(&self) -> usize {
        [&self.u, &self.p, &self.ya, &self.yb, &self.yc]
            .iter()
            .filter(|v| v.is_some())
            .count()
    }

    /// Number of coefficient sets currently cached.
    pub fn cached_coefficient_sets(&self) -> usize {
        self.cache.len()
    }

    /// Drops the cached coefficients and the remembered narrowing of an operator's box (the
    /// vectors stay allocated).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
        self.tightened = None;
    }

    /// Allocates the four vectors of order `n` if not yet done.
    pub(crate) fn ensure(&mut self, be: &B) -> Result<()> {
        for slot in [&mut self.u, &mut self.p, &mut self.ya, &mut self.yb] {
            if slot.is_none() {
                *slot = Some(be.zeros(self.n)?);
            }
        }
        Ok(())
    }

    /// Allocates the third basis buffer of the conjugate-point recurrence if not yet done.
    pub(crate) fn ensure_third(&mut self, be: &B) -> Result<()> {
        if self.yc.is_none() {
            self.yc = Some(be.zeros(self.n)?);
        }
        Ok(())
    }

    /// The cached coefficients for `key`, computing them with `make` on a miss.
    pub(crate) fn coefficients(
        &mut self,
        key: CoeffKey,
        make: impl FnOnce() -> Result<Coefficients<S>>,
    ) -> Result<Arc<Coefficients<S>>> {
        if let Some(c) = lru_get(&mut self.cache, &key) {
            return Ok(c);
        }
        let c = Arc::new(make()?);
        lru_put(&mut self.cache, key, c.clone(), CACHE_CAPACITY);
        Ok(c)
    }
}

/// The value cached for `key`, marked most recently used.
pub(crate) fn lru_get<V: Clone>(cache: &mut Vec<(CoeffKey, V)>, key: &CoeffKey) -> Option<V> {
    let pos = cache.iter().position(|(k, _)| k == key)?;
    let entry = cache.remove(pos);
    let v = entry.1.clone();
    cache.push(entry);
    Some(v)
}

/// Caches `value` for `key`, dropping the least recently used entry at `capacity`.
pub(crate) fn lru_put<V>(cache: &mut Vec<(CoeffKey, V)>, key: CoeffKey, value: V, capacity: usize) {
    if cache.len() >= capacity {
        cache.remove(0);
    }
    cache.push((key, value));
}
