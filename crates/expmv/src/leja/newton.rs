//! One substep: the Newton form of the Leja interpolant applied to a vector.
//!
//! `p = Σ_{m≤M} d_m y_m`, `y_0 = u`, `y_m = ((A − c)/s − ξ_{m−1}) y_{m−1}`, one fused
//! [`matexp_core::FusedOperator::shifted_step`] per term, so the loop never touches vector entries on the
//! host: per term it reads back one norm (the one the fused step returns), and the norm of
//! `p` only when the cheap upper bound says the test may pass.

use super::focal::Focal;
use matexp_core::OperatorSteps;
use matexp_core::{Backend, LinearOperator, RealScalar, Result, Scalar, ShiftedStep};

/// When to stop adding terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule<'a> {
    /// `e_m + e_{m−1} ≤ rel·‖p‖ + abs` with `e_j = |d_j|·‖y_j‖`, not before degree `floor`,
    /// and, where `tail` is not empty, `tail[m]·unorm ≤ rel·‖p‖ + abs` too: for a normal
    /// operator with its spectrum on the focal segment, `tail[m] = Σ_{j>m}|d_j|·W_j`
    /// (`W_j = max_{[−2,2]}|ω_j|`, attained at the Leja point ξ_j) bounds ‖p_m − e^{τA}u‖/‖u‖.
    TwoTerm {
        floor: usize,
        rel: f64,
        abs: f64,
        tail: &'a [f64],
        unorm: f64,
    },
    /// The thesis's `|d_m|·‖y_m‖ < abs`.
    Single { abs: f64 },
}

/// The augmented part of φ-function substeps: `Ã = [[A, W/η], [0, J]]` acting on
/// `[y; tail]`, with the `p` tail entries on the host.
#[derive(Debug)]
pub(crate) struct Augmented<'w, B: Backend, S: Scalar> {
    /// Columns of `W` (`None`: a zero column, skipped).
    pub cols: &'w [Option<&'w B::Vector<S>>],
    /// `1/η`.
    pub inv_eta: S,
    /// The tail of `y_0` (already scaled by `η`).
    pub tail0: Vec<S>,
    pub tail_a: Vec<S>,
    pub tail_b: Vec<S>,
}

/// What a substep reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Outcome {
    /// Highest index `m` of the terms added.
    pub degree: usize,
    /// The stopping quantity at exit (`e_m + e_{m−1}`, or `e_m` for the thesis's rule).
    pub estimate: f64,
    /// The threshold it was compared with at exit.
    pub threshold: f64,
    pub converged: bool,
    /// ‖p‖₂ at exit.
    pub pnorm: f64,
    /// Operator applications.
    pub matvecs: usize,
    /// A basis vector overflowed (the spectral interval is too small, or the substep too long).
    pub overflow: bool,
    /// `Σ_j |d_j|·‖y_j‖`: rounding in the Newton sum is about `ε` times this.
    pub term_sum: f64,
}

/// Runs one substep from `u` (norm `unorm`) into `p`, using `ya`, `yb` as the two basis
/// buffers. `coeffs[m] = d_m`, `xi[m]` the Leja points of [−2, 2].
pub(crate) fn substep<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    focal: &Focal,
    coeffs: &[S],
    xi: &[f64],
    rule: Rule<'_>,
    u: &B::Vector<S>,
    unorm: f64,
    p: &mut B::Vector<S>,
    ya: &mut B::Vector<S>,
    yb: &mut B::Vector<S>,
    mut aug: Option<&mut Augmented<'_, B, S>>,
) -> Result<Outcome> {
    let d0 = coeffs[0];
    be.axpby(d0, u, S::zero(), p)?;
    // The terms are measured on the top block only: the tail is exact (a polynomial in the
    // nilpotent J, reset every substep) and enters the top block through W·tail.
    let mut e_prev = d0.modulus().as_f64() * unorm;
    // ‖p‖ is known exactly at `p_known`; `p_upper` adds the terms since (triangle inequality).
    let mut p_upper = d0.modulus().as_f64() * unorm;
    let mut p_known = p_upper;
    let max_m = coeffs.len() - 1;
    let mut out = Outcome {
        degree: 0,
        estimate: e_prev,
        threshold: 0.0,
        converged: false,
        pnorm: p_known,
        matvecs: 0,
        overflow: false,
        term_sum: e_prev,
    };
    if let Some(a) = aug.as_deref_mut() {
        a.tail_a.clone_from(&a.tail0);
    }
    for m in 1..=max_m {
        let dm = coeffs[m];
        let step = focal.step(xi[m - 1], dm);
        // y_{m−1} is u for m = 1, then alternates between the two buffers.
        let (prev, next): (&B::Vector<S>, &mut B::Vector<S>) = if m == 1 {
            (u, &mut *ya)
        } else if m % 2 == 0 {
            (&*ya, &mut *yb)
        } else {
            (&*yb, &mut *ya)
        };
        let ny = match aug.as_deref_mut() {
            None => op.shifted_step(be, &step, prev, next, p)?.as_f64(),
            Some(a) => {
                // The top block needs A·y + W·tail/η: the fused step without the p update,
                // then the rank-p correction, then p and the norm.
                let bare = ShiftedStep {
                    coeff: S::zero(),
                    ..step
                };
                op.shifted_step(be, &bare, prev, next, p)?;
                // tail_a holds the tail of y_{m−1}, tail_b receives that of y_m.
                for (col, &z) in a.cols.iter().zip(&a.tail_a) {
                    if let (Some(col), true) = (col, z != S::zero()) {
                        be.axpby(step.alpha * z * a.inv_eta, col, S::one(), next)?;
                    }
                }
                let len = a.tail_a.len();
                for i in 0..len {
                    let shifted = if i + 1 < len {
                        a.tail_a[i + 1]
                    } else {
                        S::zero()
                    };
                    a.tail_b[i] = step.alpha * shifted + step.shift * a.tail_a[i];
                }
                std::mem::swap(&mut a.tail_a, &mut a.tail_b);
                be.axpby(dm, next, S::one(), p)?;
                be.nrm2(next)?.as_f64()
            }
        };
        out.matvecs += 1;
        out.degree = m;
        if !ny.is_finite() {
            out.overflow = true;
            out.estimate = f64::INFINITY;
            return Ok(out);
        }
        let e = dm.modulus().as_f64() * ny;
        p_upper += e;
        out.term_sum += e;
        match rule {
            Rule::Single { abs } => {
                out.estimate = e;
                out.threshold = abs;
                if e < abs {
                    out.converged = true;
                    out.pnorm = be.nrm2(p)?.as_f64();
                    return Ok(out);
                }
            }
            Rule::TwoTerm {
                floor,
                rel,
                abs,
                tail,
                unorm,
            } => {
                let est = e + e_prev;
                out.estimate = est;
                out.threshold = rel * p_known + abs;
                if m >= floor && est <= rel * p_upper + abs {
                    p_known = be.nrm2(p)?.as_f64();
                    p_upper = p_known;
                    out.threshold = rel * p_known + abs;
                    let bounded = tail.get(m).is_none_or(|t| t * unorm <= out.threshold);
                    if est <= out.threshold && bounded {
                        out.converged = true;
                        out.pnorm = p_known;
                        return Ok(out);
                    }
                }
            }
        }
        e_prev = e;
    }
    out.pnorm = be.nrm2(p)?.as_f64();
    Ok(out)
}

/// One substep on an imaginary focal segment `c + iγ·[−2, 2]` (`c` real) for a real
/// operator and real vectors, at the conjugate Leja points `0, η₁, −η₁, η₂, −η₂, …`
/// ([`super::focal::symmetric_leja_points`]) with complex divided differences `d_j` of
/// `e^{τ(c + iγξ)}` (Caliari, Kandolf, Ostermann & Rainer 2016).
///
/// With `B = (A − c)/γ` (real) the scaled operator is `Â = (A − c)/(iγ) = −iB`, and the
/// Newton basis splits into real vectors: `r₀ = u`, `w_m = B·r_m`, `z_m = B·w_m`,
///
/// ```text
/// ω_{2m+1}(Â)u = −i·w_m,   ω_{2m+2}(Â)u = −z_m + iη_{m+1}·w_m,
/// r_{m+1} = (Â² − η_{m+1}²)r_m = −z_m − η_{m+1}²·r_m.
/// ```
///
/// The interpolant of even degree is a real polynomial (its nodes are closed under
/// conjugation), so its real part may be taken term by term:
/// `p = Re(d₀)u + Σ_m [Im(d_{2m+1})·w_m − Re(d_{2m+2})·z_m − η_{m+1}Im(d_{2m+2})·w_m]`.
/// Two fused products per pair of nodes (each `y ← A·x/γ − (c/γ)·x`, `p += coeff·y`, norm),
/// plus one AXPY for the `w_m` term and one for `r_{m+1}`; three real vectors besides `u` and
/// `p`, half the memory traffic and a quarter of the arithmetic of the same recurrence in
/// complex numbers. The stopping test is the two-term test of [`Rule::TwoTerm`] with
/// `e_j = |d_j|·‖ω_j(Â)u‖` (`‖ω_{2m+2}u‖² = ‖z_m‖² + η²‖w_m‖²`), checked at even degrees
/// only, where the partial sum is real.
#[allow(clippy::too_many_arguments)]
pub(crate) fn substep_conjugate<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    be: &B,
    op: &O,
    focal: &Focal,
    coeffs: &[matexp_core::c64],
    xi: &[f64],
    rule: Rule<'_>,
    u: &B::Vector<S>,
    unorm: f64,
    p: &mut B::Vector<S>,
    bufs: [&mut B::Vector<S>; 3],
) -> Result<Outcome> {
    let [r, w, z] = bufs;
    let (floor, rel, abs) = match rule {
        Rule::TwoTerm {
            floor, rel, abs, ..
        } => (floor, rel, abs),
        Rule::Single { abs } => (0, 0.0, abs),
    };
    let gamma = focal.scale.im;
    let c = focal.center.re;
    let (alpha, shift) = (S::from_f64(1.0 / gamma), S::from_f64(-c / gamma));
    let d0 = coeffs[0].re;
    be.axpby(S::from_f64(d0), u, S::zero(), p)?;
    be.copy(u, r)?;
    let e0 = coeffs[0].norm() * unorm;
    let mut p_upper = d0.abs() * unorm;
    let mut p_known = p_upper;
    let mut out = Outcome {
        degree: 0,
        estimate: e0,
        threshold: 0.0,
        converged: false,
        pnorm: p_known,
        matvecs: 0,
        overflow: false,
        term_sum: e0,
    };
    let max_m = coeffs.len() - 1;
    let mut j = 1;
    while j < max_m {
        let (d1, d2, eta) = (coeffs[j], coeffs[j + 1], xi[j]);
        // w = B·r, p += Im(d_{2m+1})·w.
        let step = ShiftedStep {
            alpha,
            shift,
            coeff: S::from_f64(d1.im),
        };
        let nw = op.shifted_step(be, &step, r, w, p)?.as_f64();
        // z = B·w, p += −Re(d_{2m+2})·z − η·Im(d_{2m+2})·w.
        let step = ShiftedStep {
            alpha,
            shift,
            coeff: S::from_f64(-d2.re),
        };
        let nz = op.shifted_step(be, &step, w, z, p)?.as_f64();
        be.axpby(S::from_f64(-eta * d2.im), w, S::one(), p)?;
        // r ← −z − η²·r.
        be.axpby(-S::one(), z, S::from_f64(-eta * eta), r)?;
        out.matvecs += 2;
        out.degree = j + 1;
        if !(nw.is_finite() && nz.is_finite()) {
            out.overflow = true;
            out.estimate = f64::INFINITY;
            return Ok(out);
        }
        let e1 = d1.norm() * nw;
        let e2 = d2.norm() * nz.hypot(eta * nw);
        p_upper += e1 + e2;
        out.term_sum += e1 + e2;
        let est = e1 + e2;
        out.estimate = est;
        out.threshold = rel * p_known + abs;
        if out.degree >= floor && est <= rel * p_upper + abs {
            p_known = be.nrm2(p)?.as_f64();
            p_upper = p_known;
            out.threshold = rel * p_known + abs;
            if est <= out.threshold {
                out.converged = true;
                out.pnorm = p_known;
                return Ok(out);
            }
        }
        j += 2;
    }
    out.pnorm = be.nrm2(p)?.as_f64();
    Ok(out)
}
