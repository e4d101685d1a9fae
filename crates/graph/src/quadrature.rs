//! Lanczos quadrature: uᵀe^{βA}u for symmetric A from the Lanczos coefficients alone.

use crate::gauss::{check_beta, gauss_ln, radau_ln};
use matexp_core::{Backend, Error, LinearOperator, RealScalar, Result, Scalar};

/// Options of [`LanczosQuadrature`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadratureOptions {
    /// Relative tolerance: stop once two successive Gauss values G_{k−1}, G_k and the pair
    /// before them agree to `rtol` (|G_k/G_{k−1} − 1| ≤ rtol twice in a row; beyond 40 steps
    /// the values compared are about k/32 steps apart). Finite, ≥ 1e−16.
    pub rtol: f64,
    /// Most Lanczos steps (operator products).
    pub max_steps: usize,
    /// Treat the operator as symmetric even if it does not say so
    /// ([`LinearOperator::is_hermitian`]); the caller vouches for it.
    pub assume_symmetric: bool,
    /// Return the value reached at `max_steps` with `converged = false` instead of
    /// [`Error::NoConvergence`].
    pub allow_unconverged: bool,
}

impl Default for QuadratureOptions {
    /// rtol 1e−12, at most 500 steps, symmetry checked.
    fn default() -> Self {
        QuadratureOptions {
            rtol: 1e-12,
            max_steps: 500,
            assume_symmetric: false,
            allow_unconverged: false,
        }
    }
}

impl QuadratureOptions {
    /// The relative tolerance of [`matexp_expmv::Tolerance`] (as the facade's
    /// `Options::with_tolerance`); a quadratic form is resolved relative to itself, so
    /// `atol` is not used.
    pub fn with_tolerance(mut self, tol: matexp_expmv::Tolerance) -> Self {
        self.rtol = tol.rtol;
        self
    }

    with_setters! {
        /// [`QuadratureOptions::rtol`].
        with_rtol => rtol: f64;
        /// [`QuadratureOptions::max_steps`].
        with_max_steps => max_steps: usize;
        /// [`QuadratureOptions::assume_symmetric`] (the caller vouches for symmetry).
        with_assume_symmetric => assume_symmetric: bool;
        /// [`QuadratureOptions::allow_unconverged`].
        with_allow_unconverged => allow_unconverged: bool;
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.rtol.is_finite() && self.rtol >= 1e-16) {
            return Err(Error::invalid(
                "rtol",
                self.rtol,
                "must be finite and ≥ 1e-16 (the f64 roundoff)",
            ));
        }
        if self.max_steps == 0 {
            return Err(Error::invalid("max_steps", 0, "at least one step"));
        }
        Ok(())
    }
}

/// The quadrature value of uᵀe^{βA}u, in logarithms so that graphs whose exponentials
/// exceed the floating-point range are handled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadraticForm {
    /// ln of the Gauss value G_k = ‖u‖²·e₁ᵀe^{βT_k}e₁ (a lower bound in exact arithmetic).
    pub ln_value: f64,
    /// ln of the Gauss–Radau upper bound at the final step, when the operator reports
    /// [`LinearOperator::spectral_bounds`] (for graphs: Gershgorin, ±max degree).
    pub ln_upper: Option<f64>,
    /// |ln G_k − ln G_{k−1}| at the final step: the last relative change (0 when exact).
    pub last_change: f64,
    /// Lanczos steps (operator products).
    pub steps: usize,
    /// The Krylov space became invariant (breakdown): the value is exact up to rounding.
    pub exact: bool,
    /// Whether the tolerance was met: for a form resolved against itself (every public
    /// entry point), `converged ⇔ relative_error() ≤ rtol` (two successive relative changes
    /// ≤ rtol, a Gauss–Radau gap ≤ rtol, or an invariant Krylov space).
    pub converged: bool,
    /// The smallest Ritz value θ_min of T_k (≥ λ_min(A)).
    pub theta_min: f64,
    /// The largest Ritz value θ_max of T_k (≤ λ_max(A)).
    pub theta_max: f64,
    /// Allowance for the relative rounding error of the value, either sign:
    /// 8u·(k + √n·|β|·max|θ|). e^{x} turns an absolute error δ of x = βθ into a relative error
    /// δ (condition number |x|), and θ inherits the rounding of the inner products α = qᵀAq,
    /// about √n·u·‖A‖ for sums of n terms: a pessimistic model, not a proven bound.
    pub rounding: f64,
}

impl QuadraticForm {
    /// The shift σ that keeps e^{β(A − σI)} near unit size: θ_max for β ≥ 0, θ_min for β < 0.
    pub fn exponent_shift(&self, beta: f64) -> f64 {
        if beta >= 0.0 {
            self.theta_max
        } else {
            self.theta_min
        }
    }

    /// The value e^{ln_value} (∞ beyond the f64 range).
    pub fn value(&self) -> f64 {
        self.ln_value.exp()
    }

    /// An upper bound on the truncation error of the value relative to itself: the
    /// Gauss–Radau gap where it is known and smaller, else the last relative change
    /// (an estimate, pessimistic once convergence is superlinear).
    /// Rounding ([`QuadraticForm::rounding`]) is not included.
    pub fn relative_error(&self) -> f64 {
        if self.exact {
            return 0.0;
        }
        let change = self.last_change.exp_m1();
        match self.ln_upper {
            Some(u) if u.is_finite() => (u - self.ln_value).max(0.0).exp_m1().min(change),
            _ => change,
        }
    }
}

/// A reusable workspace for Lanczos quadrature on backend `B`: three vectors of order n.
///
/// **Method.** Lanczos without reorthogonalization from q₁ = u/‖u‖ builds the Jacobi
/// matrix T_k of the spectral measure μ_u (Golub & Meurant 2010); uᵀe^{βA}u =
/// ∫e^{βλ}dμ_u(λ) is approximated by the k-point Gauss rule ‖u‖²·e₁ᵀe^{βT_k}e₁
/// ([`crate::gauss`]), which needs no basis: memory is three vectors whatever k.
/// Loss of orthogonality in floating point does not spoil the Gauss values (Golub & Strakoš
/// 1994; Knizhnerman 1996): they converge as in exact arithmetic, at worst a few steps later.
///
/// **Stopping.** ln G_k from the eigenvalues and first eigenvector components of T_k
/// (Golub–Welsch, O(k²) flops), after every step up to 40 steps and every ~k/32 steps after
/// that; stop when two successive relative changes are ≤ `rtol`, or at breakdown
/// (β_{k} ≤ 10u·‖Aq_k‖: the Krylov space is invariant and the value exact — for a start
/// vector e_i on a connected graph, at the latest after n steps).
///
/// **Cost.** k products with A, 5 BLAS-1 operations per step, and O(k²·log k) flops in all
/// for the small eigenproblems (a dense eigensolve per step, O(k⁴) in all, took minutes for
/// k = 500); for e^{βA} the number of steps grows like √(β·ρ(A)) + log(1/rtol) (25–50 on the
/// seed's graphs at rtol 1e−12), and drops when one eigenvalue dominates the form: about 13
/// for e_i on the 5405-node Barabási–Albert graph with m = 28 (λ₁ ≈ 110, well separated).
///
/// ```
/// use matexp_core::{Backend, CpuBackend};
/// use matexp_graph::{LanczosQuadrature, QuadratureOptions};
/// use matexp_sparse::PatternCsr;
/// // Path 0 – 1: e^{A} = [[cosh 1, sinh 1], [sinh 1, cosh 1]]; e₀ᵀe^{A}e₀ = cosh 1.
/// let g = PatternCsr::<u32>::undirected_graph(2, &[(0, 1)])?;
/// let cpu = CpuBackend::new();
/// let mut q = LanczosQuadrature::<_, f64>::new(&cpu, 2, QuadratureOptions::default())?;
/// let e0 = cpu.upload(&[1.0, 0.0])?;
/// let r = q.quadratic_form(&g, 1.0, &e0)?;
/// assert!(r.exact && (r.value() - 1f64.cosh()).abs() < 1e-15);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct LanczosQuadrature<'a, B: Backend, S: Scalar> {
    backend: &'a B,
    n: usize,
    opts: QuadratureOptions,
    slots: Vec<B::Vector<S>>,
    alpha: Vec<f64>,
    off: Vec<f64>,
}

impl<'a, B: Backend, S: Scalar> LanczosQuadrature<'a, B, S> {
    /// A workspace for operators of order `n`.
    pub fn new(backend: &'a B, n: usize, opts: QuadratureOptions) -> Result<Self> {
        opts.validate()?;
        let slots = (0..3).map(|_| backend.zeros(n)).collect::<Result<_>>()?;
        Ok(LanczosQuadrature {
            backend,
            n,
            opts,
            slots,
            alpha: Vec::new(),
            off: Vec::new(),
        })
    }

    /// The options in use.
    pub fn options(&self) -> &QuadratureOptions {
        &self.opts
    }

    /// uᵀe^{βA}u by the Gauss rule of Lanczos started at u (see the type's documentation).
    ///
    /// Errors: [`Error::DimensionMismatch`] for a wrong order, [`Error::InvalidArgument`] for a
    /// non-symmetric operator or non-finite β, [`Error::NonFinite`] for NaN/∞ in u or in a
    /// product, [`Error::NoConvergence`] at `max_steps` (unless `allow_unconverged`).
    pub fn quadratic_form<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        beta: f64,
        u: &B::Vector<S>,
    ) -> Result<QuadraticForm> {
        self.quadratic_form_above(op, beta, u, f64::NEG_INFINITY)
    }

    /// [`LanczosQuadrature::quadratic_form`] for a form that is one part of a sum known to
    /// exceed e^{ln_floor}: the changes are measured relative to max(value, e^{ln_floor}),
    /// so the form is resolved to `rtol` of the sum rather than of itself (a small part of
    /// a large trace stops after a few steps instead of running to `max_steps`).
    pub(crate) fn quadratic_form_above<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        beta: f64,
        u: &B::Vector<S>,
        ln_floor: f64,
    ) -> Result<QuadraticForm> {
        check_beta(beta)?;
        self.check_operator(op)?;
        let be = self.backend;
        if be.len(u) != self.n {
            return Err(Error::dim("quadrature: vector length", self.n, be.len(u)));
        }
        let unorm = be.nrm2(u)?.as_f64();
        if !unorm.is_finite() {
            return Err(Error::NonFinite {
                context: "quadrature: start vector u".into(),
                index: 0,
                value: format!("‖u‖ = {unorm}"),
            });
        }
        if unorm == 0.0 {
            return Ok(QuadraticForm {
                ln_value: f64::NEG_INFINITY,
                ln_upper: Some(f64::NEG_INFINITY),
                last_change: 0.0,
                steps: 0,
                exact: true,
                converged: true,
                theta_min: f64::NAN,
                theta_max: f64::NAN,
                rounding: 0.0,
            });
        }
        be.copy(u, &mut self.slots[0])?;
        be.scale(S::from_f64(1.0 / unorm), &mut self.slots[0])?;
        let ln_norm2 = 2.0 * unorm.ln();
        let mut out = self.run(op, beta, ln_floor - ln_norm2)?;
        out.ln_value += ln_norm2;
        out.ln_upper = out.ln_upper.map(|u| u + ln_norm2);
        Ok(out)
    }

    fn check_operator<O: LinearOperator<B, S> + ?Sized>(&self, op: &O) -> Result<()> {
        if op.nrows() != self.n || op.ncols() != self.n {
            return Err(Error::dim(
                "quadrature: operator order vs workspace",
                self.n,
                if op.nrows() != self.n {
                    op.nrows()
                } else {
                    op.ncols()
                },
            ));
        }
        if !(self.opts.assume_symmetric || op.is_hermitian()) {
            return Err(Error::invalid(
                "op",
                "operator with is_hermitian() = false",
                "Lanczos quadrature needs a symmetric operator (an undirected graph); \
                 set assume_symmetric if it is one",
            ));
        }
        Ok(())
    }

    /// The Lanczos loop from the unit vector in slot 0; changes are relative to
    /// max(value, e^{ln_floor}) (values of the unit vector's form).
    fn run<O: LinearOperator<B, S> + ?Sized>(
        &mut self,
        op: &O,
        beta: f64,
        ln_floor: f64,
    ) -> Result<QuadraticForm> {
        let be = self.backend;
        let opts = self.opts;
        let eps = S::Real::EPS.as_f64();
        self.alpha.clear();
        self.off.clear();
        let mut prev_ln = f64::NAN;
        let (mut ln_g, mut theta_min, mut theta_max, mut change) =
            (f64::NAN, f64::NAN, f64::NAN, f64::INFINITY);
        let mut small_changes = 0;
        let mut next_check = 1usize;
        let mut j = 0usize;
        loop {
            let (ip, ic, iu) = ((j + 2) % 3, j % 3, (j + 1) % 3);
            let (q_prev, q_cur, u) = three(&mut self.slots, ip, ic, iu);
            op.apply(be, S::one(), q_cur, S::zero(), u)?;
            let a = be.dot(q_cur, u)?.re().as_f64();
            be.axpby(S::from_f64(-a), q_cur, S::one(), u)?;
            let bprev = if j > 0 { self.off[j - 1] } else { 0.0 };
            if j > 0 {
                be.axpby(S::from_f64(-bprev), q_prev, S::one(), u)?;
            }
            let b = be.nrm2(u)?.as_f64();
            if !(a.is_finite() && b.is_finite()) {
                return Err(Error::NonFinite {
                    context: format!(
                        "quadrature: Lanczos step {j} gave α = {a}, β = {b} (the operator returned NaN/∞)"
                    ),
                    index: j,
                    value: format!("{}", if a.is_finite() { b } else { a }),
                });
            }
            self.alpha.push(a);
            let k = j + 1;
            // ‖(β_{k−1}, α, β_k)‖ by hypot: squaring overflowed for weights ≥ 1e154, and
            // b ≤ 10u·∞ declared every step a breakdown (SC = 1, "exact", for weights 1e200).
            let breakdown = b <= 10.0 * eps * a.hypot(bprev).hypot(b);
            let last = breakdown || k >= opts.max_steps || k >= self.n;
            if last || k >= next_check {
                (ln_g, theta_min, theta_max) = gauss_ln(&self.alpha, &self.off, beta)?;
                change = if prev_ln.is_nan() {
                    f64::INFINITY
                } else {
                    (ln_g - prev_ln).abs()
                };
                // Relative to max(smaller value, floor): exactly the relative change when
                // the floor is −∞.
                let low = ln_g.min(prev_ln);
                let against = change.exp_m1() * (low - low.max(ln_floor)).exp();
                if against <= opts.rtol {
                    small_changes += 1;
                } else {
                    small_changes = 0;
                }
                prev_ln = ln_g;
                next_check = k + check_stride(k);
            }
            let converged = breakdown || small_changes >= 2;
            if converged || last {
                // k = n without breakdown: rounding kept β above the threshold; T_n's Gauss
                // rule is then as exact as the recurrence allows.
                let exact = breakdown || k >= self.n;
                let ln_upper = if exact {
                    Some(ln_g)
                } else {
                    self.radau(op, beta, b)?
                };
                // The Gauss–Radau gap is a bound: when it meets rtol the value has converged
                // even if the successive changes have not shown it yet. So `converged` is
                // exactly `relative_error() ≤ rtol` for a form resolved against itself.
                let gap_met = match ln_upper {
                    Some(u) if u.is_finite() => (u - ln_g).max(0.0).exp_m1() <= opts.rtol,
                    _ => false,
                };
                let converged = converged || exact || (gap_met && ln_floor == f64::NEG_INFINITY);
                if !converged && !opts.allow_unconverged {
                    return Err(Error::NoConvergence {
                        method: "lanczos quadrature",
                        detail: format!(
                            "{k} steps = max_steps reached with last relative change {:.2e} \
                             (rtol {:.1e}); raise max_steps",
                            change.exp_m1(),
                            opts.rtol
                        ),
                    });
                }
                let rounding = 8.0
                    * eps
                    * (k as f64
                        + (self.n as f64).sqrt()
                            * beta.abs()
                            * theta_max.abs().max(theta_min.abs()));
                return Ok(QuadraticForm {
                    rounding,
                    ln_value: ln_g,
                    ln_upper,
                    last_change: if exact { 0.0 } else { change },
                    steps: k,
                    exact,
                    converged,
                    theta_min,
                    theta_max,
                });
            }
            self.off.push(b);
            be.scale(S::from_f64(1.0 / b), &mut self.slots[iu])?;
            j += 1;
        }
    }

    /// The Gauss–Radau bound with the node at the end of the operator's spectral interval
    /// that makes it an upper bound (upper end for β ≥ 0, lower end for β < 0).
    fn radau<O: LinearOperator<B, S> + ?Sized>(
        &self,
        op: &O,
        beta: f64,
        b_last: f64,
    ) -> Result<Option<f64>> {
        let Some(bounds) = op.spectral_bounds() else {
            return Ok(None);
        };
        let node = if beta >= 0.0 {
            bounds.re_max
        } else {
            bounds.re_min
        };
        radau_ln(&self.alpha, &self.off, b_last, node, beta)
    }
}

/// Steps between two evaluations of the Gauss rule after step k: every step up to
/// [`EVERY_STEP`], then about k/32 (at most 3 % more products than checking every step, and
/// O(k²·log k) instead of O(k³) flops for the small eigenproblems of a k-step run).
fn check_stride(k: usize) -> usize {
    if k < EVERY_STEP { 1 } else { (k / 32).max(1) }
}

/// Up to this many steps the Gauss rule is evaluated after every step.
const EVERY_STEP: usize = 40;

/// Disjoint borrows (previous, current, next) of three distinct slots.
fn three<V>(v: &mut [V], ip: usize, ic: usize, iu: usize) -> (&V, &V, &mut V) {
    debug_assert!(ip != ic && ic != iu && ip != iu);
    let (left, rest) = v.split_at_mut(iu);
    let (u, right) = rest.split_first_mut().expect("iu is in bounds");
    let (left, right) = (&*left, &*right);
    let get = move |i: usize| -> &V { if i < iu { &left[i] } else { &right[i - iu - 1] } };
    (get(ip), get(ic), u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_rule_is_evaluated_o_log_k_times_beyond_forty_steps() {
        let (mut k, mut evals) = (1usize, 0usize);
        while k <= 500 {
            evals += 1;
            k += check_stride(k);
        }
        // 40 evaluations up to step 40, then a geometric schedule (factor ≈ 1 + 1/32):
        // 138 instead of 500 evaluations of O(k²) each.
        assert!(evals <= 140, "{evals} evaluations for 500 steps");
        assert!((1..2000).all(|k| check_stride(k) <= k / 32 + 1));
    }
}
