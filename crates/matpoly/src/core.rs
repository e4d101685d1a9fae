//! The building blocks of every scheme, written once over [`DenseBackend`] and over column
//! blocks, so that one device (blocks = whole matrices) and the column split of several
//! devices (blocks = `n × n_g` column slices) share the same code.
//!
//! Convention: `pows[k]` holds the column block of `X^{k+1}`; `col0` is the first column of
//! the block, so the identity's block is `I[:, col0..]`.

use crate::backend::DenseBackend;
use matexp_core::{Result, Scalar};

/// Grows `bufs` to `count` matrices of `shape`, dropping them first if the shape changed.
pub(crate) fn ensure<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    bufs: &mut Vec<B::Mat>,
    count: usize,
    shape: (usize, usize),
) -> Result<()> {
    if bufs.first().is_some_and(|m| be.shape(m) != shape) {
        bufs.clear();
    }
    while bufs.len() < count {
        bufs.push(be.zeros(shape.0, shape.1)?);
    }
    Ok(())
}

/// Forms `pows[k] = X · pows[k−1]` for `k ∈ have..upto` (`have ≥ 1`): one product each.
/// `x` is the whole `X` (`None`: `pows[0]`, the single-device case).
pub(crate) fn form_powers<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: Option<&B::Mat>,
    pows: &mut [B::Mat],
    have: usize,
    upto: usize,
) -> Result<()> {
    debug_assert!(have >= 1 && upto <= pows.len());
    for k in have.max(1)..upto {
        let (lo, hi) = pows.split_at_mut(k);
        let xm = x.unwrap_or(&lo[0]);
        be.gemm(S::one(), xm, &lo[k - 1], S::zero(), &mut hi[0])?;
    }
    Ok(())
}

/// `out ← α_0·I_block + Σ_{k=1}^{q} α_k·pows[k−1]` with `q = alpha.len() − 1 ≤ pows.len()`.
/// No products: one [`DenseBackend::lincomb`] pass (reads the `q` powers with a nonzero
/// coefficient once, writes `out` once).
pub(crate) fn combine<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    pows: &[B::Mat],
    alpha: &[S],
    col0: usize,
    out: &mut B::Mat,
) -> Result<()> {
    let a0 = alpha.first().copied().unwrap_or_else(S::zero);
    // Zero coefficients are skipped: their powers need not be read at all.
    let terms: Vec<(S, &B::Mat)> = alpha
        .iter()
        .enumerate()
        .skip(1)
        .filter(|&(_, &a)| a != S::zero())
        .map(|(k, &a)| (a, &pows[k - 1]))
        .collect();
    be.lincomb(a0, &terms, col0, out)
}

/// The Paterson–Stockmeyer recursion once the powers `X … X^{min(d, b+1)}` are in `pows`:
/// `R ← Q(α_{i_K..d})`, then `R ← X^{b+1}·R + Q(α_{i_j..i_j+b})` for the lower blocks.
/// `top` is the whole `X^{b+1}` (`None`: `pows[b]`). The result ends in `r`; `t` is scratch.
/// Products: `ps_outer_steps(d, b)`.
pub(crate) fn paterson_stockmeyer_tail<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    pows: &[B::Mat],
    top: Option<&B::Mat>,
    alpha: &[S],
    b: usize,
    col0: usize,
    r: &mut B::Mat,
    t: &mut B::Mat,
) -> Result<()> {
    let d = alpha.len() - 1;
    let outer = crate::scheme::ps_outer_steps(d, b);
    let start = outer * (b + 1);
    combine(be, pows, &alpha[start..], col0, r)?;
    for j in (0..outer).rev() {
        let i = j * (b + 1);
        combine(be, pows, &alpha[i..=i + b], col0, t)?;
        let xb = top.unwrap_or(&pows[b]);
        be.gemm(S::one(), xb, r, S::one(), t)?;
        std::mem::swap(r, t);
    }
    Ok(())
}

/// Horner's rule on a column block: `R ← α_d X_blk + α_{d−1} I_blk`, then
/// `R ← X·R + α_i I_blk`. `x` whole, `x_blk` its column block. Products: `d − 1`.
pub(crate) fn horner<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &B::Mat,
    x_blk: &B::Mat,
    alpha: &[S],
    col0: usize,
    r: &mut B::Mat,
    t: &mut B::Mat,
) -> Result<()> {
    let d = alpha.len() - 1;
    if d == 0 {
        return be.lincomb(alpha[0], &[], col0, r);
    }
    be.lincomb(alpha[d - 1], &[(alpha[d], x_blk)], col0, r)?;
    for i in (0..d - 1).rev() {
        be.lincomb(alpha[i], &[], col0, t)?;
        be.gemm(S::one(), x, r, S::one(), t)?;
        std::mem::swap(r, t);
    }
    Ok(())
}

/// Seed 004, Alg. 1: `P ← α_0 I + α_1 X`, then `B ← X·B`, `P ← P + α_i B`.
/// Products: `d − 1`. `b`, `t` are scratch.
pub(crate) fn powers<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &B::Mat,
    alpha: &[S],
    p: &mut B::Mat,
    b: &mut B::Mat,
    t: &mut B::Mat,
) -> Result<()> {
    let d = alpha.len() - 1;
    if d == 0 {
        return be.lincomb(alpha[0], &[], 0, p);
    }
    be.lincomb(alpha[0], &[(alpha[1], x)], 0, p)?;
    if d == 1 {
        return Ok(());
    }
    be.copy(x, b)?;
    for &a in &alpha[2..] {
        be.gemm(S::one(), x, b, S::zero(), t)?;
        std::mem::swap(b, t);
        be.axpy(a, b, p)?;
    }
    Ok(())
}
