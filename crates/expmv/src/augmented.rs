//! Vectors and operators augmented by a few host scalars, for φ-function combinations.
//!
//! Σ_{k=0}^{p} t^k φ_k(tA) b_k is the top block of exp(tÃ)[b₀; η·e_p] with
//! Ã = [[A, W/η], [0, J]], W = [b_p, …, b₁], J the p×p upper shift (Al-Mohy & Higham
//! 2011, Thm. 2.1; Sidje 1998): the tail obeys y' = Jy, so yᵢ(t) = η·t^{p−1−i}/(p−1−i)!, and
//! the top solves u' = Au + Σ_k t^{k−1}/(k−1)!·b_k, u(0) = b₀. Any exponential method for Ã
//! therefore computes φ-combinations; the p extra entries live on the host. η balances the
//! two blocks and may be changed between steps (tail·ρ with W/(ηρ) leaves Ã·x unchanged).

use matexp_core::{Backend, LinearOperator, RealScalar, Result, Scalar};

/// A backend vector with `tail.len() = p` extra host entries.
#[derive(Debug)]
pub(crate) struct AugVec<B: Backend, S: Scalar> {
    pub(crate) big: B::Vector<S>,
    pub(crate) tail: Vec<S>,
}

impl<B: Backend, S: Scalar> AugVec<B, S> {
    pub(crate) fn zeros(be: &B, n: usize, p: usize) -> Result<Self> {
        Ok(AugVec {
            big: be.zeros(n)?,
            tail: vec![S::zero(); p],
        })
    }

    /// Resizes the tail (and zeroes it); keeps the backend vector.
    pub(crate) fn set_tail_len(&mut self, p: usize) {
        self.tail.clear();
        self.tail.resize(p, S::zero());
    }
}

/// ⟨x, y⟩ = Σ conj(xᵢ)yᵢ over both parts.
pub(crate) fn dot<B: Backend, S: Scalar>(be: &B, x: &AugVec<B, S>, y: &AugVec<B, S>) -> Result<S> {
    let t: S = x.tail.iter().zip(&y.tail).map(|(a, b)| a.conj() * *b).sum();
    Ok(be.dot(&x.big, &y.big)? + t)
}

/// ‖x‖₂ over both parts (overflow-safe).
pub(crate) fn nrm2<B: Backend, S: Scalar>(be: &B, x: &AugVec<B, S>) -> Result<f64> {
    let a = be.nrm2(&x.big)?.as_f64();
    if x.tail.is_empty() {
        return Ok(a);
    }
    Ok(a.hypot(tail_norm(&x.tail)))
}

pub(crate) fn tail_norm<S: Scalar>(t: &[S]) -> f64 {
    matexp_core::norms::nrm2(t).as_f64()
}

/// y ← α·x + β·y.
pub(crate) fn axpby<B: Backend, S: Scalar>(
    be: &B,
    alpha: S,
    x: &AugVec<B, S>,
    beta: S,
    y: &mut AugVec<B, S>,
) -> Result<()> {
    be.axpby(alpha, &x.big, beta, &mut y.big)?;
    for (yi, &xi) in y.tail.iter_mut().zip(&x.tail) {
        *yi = if beta == S::zero() {
            alpha * xi
        } else {
            alpha * xi + beta * *yi
        };
    }
    Ok(())
}

/// x ← α·x.
pub(crate) fn scale<B: Backend, S: Scalar>(be: &B, alpha: S, x: &mut AugVec<B, S>) -> Result<()> {
    be.scale(alpha, &mut x.big)?;
    x.tail.iter_mut().for_each(|v| *v *= alpha);
    Ok(())
}

/// dst ← src.
pub(crate) fn copy<B: Backend, S: Scalar>(
    be: &B,
    src: &AugVec<B, S>,
    dst: &mut AugVec<B, S>,
) -> Result<()> {
    be.copy(&src.big, &mut dst.big)?;
    dst.tail.copy_from_slice(&src.tail);
    Ok(())
}

/// Ã = [[A, W/η], [0, J]] with W's columns given by reference (`None` = zero column).
pub(crate) struct AugOp<'o, B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> {
    pub(crate) op: &'o O,
    pub(crate) w: Vec<Option<&'o B::Vector<S>>>,
    pub(crate) inv_eta: S,
}

impl<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized> AugOp<'_, B, S, O> {
    /// y ← Ã·x.
    pub(crate) fn apply(&self, be: &B, x: &AugVec<B, S>, y: &mut AugVec<B, S>) -> Result<()> {
        self.op.apply(be, S::one(), &x.big, S::zero(), &mut y.big)?;
        for (wi, &xi) in self.w.iter().zip(&x.tail) {
            if let Some(wi) = wi {
                if xi != S::zero() {
                    be.axpby(xi * self.inv_eta, wi, S::one(), &mut y.big)?;
                }
            }
        }
        let p = x.tail.len();
        for i in 0..p.saturating_sub(1) {
            y.tail[i] = x.tail[i + 1];
        }
        if p > 0 {
            y.tail[p - 1] = S::zero();
        }
        Ok(())
    }
}
