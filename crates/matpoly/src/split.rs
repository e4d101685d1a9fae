//! Several devices: the seed's power split (Alg. 2/3) and column split (Alg. 7/8), for any
//! number of devices, one host thread per device (`std::thread::scope`).
//!
//! Each device is a [`DenseBackend`] of its own (a CPU backend, or a cuBLAS handle on a
//! GPU); the threads share only host matrices. What crosses devices goes through the host:
//! the column split's all-gather of `X^{b+1}` (the seed uses a peer copy for two GPUs) and
//! the final gathers. Peer copies between GPUs belong to the multi-GPU runtime.
//!
//! * **Power split** ([`power_split`], seed Alg. 2/3 generalised from 2 to `G` devices):
//!   device `g` forms `X² … X^G`, then the powers `X^k` with `k ≡ g (mod G)` by products
//!   with `X^G`, accumulating `Σ α_k X^k` (device 0 takes `α_0 I`); the host adds the `G`
//!   partial sums. Products on device `g`: [`power_split_products`]. Little parallelism for
//!   small `d`, and all powers are formed (no Paterson–Stockmeyer saving).
//! * **Column split** ([`column_split`], seed Alg. 7/8): device `g` keeps the whole `X` and
//!   the columns `J_g` of the powers, `X^k[:, J_g] = X · X^{k−1}[:, J_g]`; after the blocks of
//!   `X^{b+1}` are gathered, Paterson–Stockmeyer runs on the column block with no further
//!   communication. Every device does [`crate::Scheme::products`] block products of
//!   `n × n` by `n × |J_g|`, i.e. `1/G` of the flops.

use crate::backend::DenseBackend;
use crate::core;
use crate::evaluator::check_coefficients;
use crate::scheme::ps_outer_steps;
use matexp_core::{Error, Result, Scalar, check_dim};
use matexp_dense::Matrix;
use std::ops::Range;
use std::sync::{Barrier, Mutex};

/// `parts` contiguous column ranges of `0..n`, sizes differing by at most one.
pub fn column_ranges(n: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.max(1);
    let (q, r) = (n / parts, n % parts);
    let mut start = 0;
    (0..parts)
        .map(|g| {
            let len = q + usize::from(g < r);
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// Matrix products device `g` of `parts` spends in [`power_split`] for degree `d`:
/// `min(G, d) − 1` for `X² … X^G`, one per further power of its residue class.
pub fn power_split_products(d: usize, parts: usize, g: usize) -> usize {
    let chain = parts.min(d).saturating_sub(1);
    let start = if g == 0 { parts } else { g };
    let extra = if start <= d && start <= parts.min(d) {
        (d - start) / parts
    } else {
        0
    };
    chain + extra
}

fn check_inputs<S: Scalar>(what: &str, parts: usize, x: &Matrix<S>, alpha: &[S]) -> Result<()> {
    check_dim(
        &format!("{what}: X must be square (columns)"),
        x.nrows(),
        x.ncols(),
    )?;
    check_coefficients(alpha)?;
    if parts == 0 || parts > x.nrows().max(1) {
        return Err(Error::invalid(
            "backends",
            parts,
            format!("{what} needs between 1 and n = {} devices", x.nrows()),
        ));
    }
    if let Some((i, v)) = x.as_slice().iter().enumerate().find(|(_, v)| !v.finite()) {
        return Err(Error::NonFinite {
            context: format!("{what}: X"),
            index: i,
            value: v.to_string(),
        });
    }
    Ok(())
}

/// `P(X) = Σ α_i X^i` with the powers split over `backends.len()` devices (module docs).
///
/// ```
/// use matexp_matpoly::{CpuDense, Evaluator, Scheme, split};
/// use matexp_dense::Matrix;
/// let x = Matrix::<f64>::from_fn(8, 8, |i, j| 0.1 * ((i + 3 * j) % 7) as f64 - 0.3);
/// let alpha: Vec<f64> = (0..=9).map(|i| 1.0 / (i + 1) as f64).collect();
/// let mut devices = vec![CpuDense::new(); 3];
/// let p = split::power_split(&mut devices, &x, &alpha)?;
/// let h = Evaluator::new(CpuDense::new()).polyval(&x, &alpha, Scheme::Horner)?;
/// let mut d = p.clone();
/// d.add_scaled(-1.0, &h)?;
/// assert!(d.norm_one() <= 1e-14 * h.norm_one());
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
/// `DimensionMismatch` (non-square `X`), `InvalidArgument` (no devices, more devices than
/// rows, no coefficients), `NonFinite` (NaN/∞ in `X`, or a result that overflows), and any
/// device's error.
pub fn power_split<S, B>(backends: &mut [B], x: &Matrix<S>, alpha: &[S]) -> Result<Matrix<S>>
where
    S: Scalar,
    B: DenseBackend<S> + Send,
{
    let parts = backends.len();
    check_inputs("power split", parts, x, alpha)?;
    let d = alpha.len() - 1;
    let partials: Vec<Result<Matrix<S>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = backends
            .iter_mut()
            .enumerate()
            .map(|(g, be)| scope.spawn(move || power_class(be, x, alpha, d, parts, g)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Device("a device thread panicked".into())))
            })
            .collect()
    });
    let mut sum = Matrix::zeros(x.nrows(), x.ncols());
    for p in partials {
        sum.add_scaled(S::one(), &p?)?;
    }
    sum.check_finite("power split: P(X) overflows or is NaN")?;
    Ok(sum)
}

/// One device of the power split: `Σ_{k ≡ g (mod G)} α_k X^k`.
fn power_class<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &Matrix<S>,
    alpha: &[S],
    d: usize,
    parts: usize,
    g: usize,
) -> Result<Matrix<S>> {
    let n = x.nrows();
    let xd = be.upload(x)?;
    let mut acc = be.zeros(n, n)?;
    if g == 0 {
        be.add_identity(alpha[0], &mut acc, 0)?;
    }
    let top = parts.min(d);
    if top == 0 {
        return be.download(&acc);
    }
    // X² … X^top, adding this device's own power on the way and keeping X^start, the first
    // power of the residue class, when the class continues beyond X^G.
    let start = if g == 0 { parts } else { g };
    let walk = start <= top && start + parts <= d;
    let mut pk = if walk { Some(be.zeros(n, n)?) } else { None };
    let mut cur = be.upload(x)?;
    let mut tmp = be.zeros(n, n)?;
    // cur = X¹ (the class of 1 is device 1, or device 0 when there is only one device).
    if 1 % parts == g {
        be.axpy(alpha[1], &cur, &mut acc)?;
    }
    match pk.as_mut() {
        Some(p) if start == 1 => be.copy(&cur, p)?,
        _ => {}
    }
    for j in 2..=top {
        be.gemm(S::one(), &xd, &cur, S::zero(), &mut tmp)?;
        std::mem::swap(&mut cur, &mut tmp);
        if j % parts == g {
            be.axpy(alpha[j], &cur, &mut acc)?;
        }
        match pk.as_mut() {
            Some(p) if j == start => be.copy(&cur, p)?,
            _ => {}
        }
    }
    if let Some(mut pk) = pk {
        // walk implies G ≤ d, so the chain ended at cur = X^G: the stride of the class.
        let stride = cur;
        let mut k = start + parts;
        while k <= d {
            be.gemm(S::one(), &stride, &pk, S::zero(), &mut tmp)?;
            std::mem::swap(&mut pk, &mut tmp);
            be.axpy(alpha[k], &pk, &mut acc)?;
            k += parts;
        }
    }
    be.download(&acc)
}

/// `P(X) = Σ α_i X^i` by Paterson–Stockmeyer with block size `block`, the columns split over
/// `backends.len()` devices (module docs; seed Alg. 7/8).
///
/// ```
/// use matexp_matpoly::{CpuDense, Evaluator, Scheme, split};
/// use matexp_dense::Matrix;
/// let x = Matrix::<f64>::from_fn(9, 9, |i, j| 0.05 * ((2 * i + 5 * j) % 11) as f64 - 0.2);
/// let alpha: Vec<f64> = (0..=12).map(|i| 1.0 / (i + 2) as f64).collect();
/// let mut devices = vec![CpuDense::new(); 2];
/// let p = split::column_split(&mut devices, &x, &alpha, 3)?;
/// let h = Evaluator::new(CpuDense::new()).polyval(&x, &alpha, Scheme::Horner)?;
/// let mut d = p.clone();
/// d.add_scaled(-1.0, &h)?;
/// assert!(d.norm_one() <= 1e-14 * h.norm_one());
/// # Ok::<(), matexp_core::Error>(())
/// ```
///
/// # Errors
/// As [`power_split`], and `InvalidArgument` for block size 0.
pub fn column_split<S, B>(
    backends: &mut [B],
    x: &Matrix<S>,
    alpha: &[S],
    block: usize,
) -> Result<Matrix<S>>
where
    S: Scalar,
    B: DenseBackend<S> + Send,
{
    let parts = backends.len();
    check_inputs("column split", parts, x, alpha)?;
    crate::Scheme::PatersonStockmeyer { block }.validate()?;
    let n = x.nrows();
    let d = alpha.len() - 1;
    let block = crate::scheme::effective_block(d, block);
    let ranges = column_ranges(n, parts);
    let needs_top = ps_outer_steps(d, block) > 0;
    let top_blocks: Mutex<Vec<Option<Matrix<S>>>> = Mutex::new(vec![None; parts]);
    let barrier = Barrier::new(parts);
    let results: Vec<Result<Matrix<S>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = backends
            .iter_mut()
            .zip(&ranges)
            .enumerate()
            .map(|(g, (be, cols))| {
                let (top_blocks, barrier) = (&top_blocks, &barrier);
                scope.spawn(move || {
                    column_block(
                        be,
                        x,
                        alpha,
                        block,
                        cols.clone(),
                        g,
                        needs_top,
                        top_blocks,
                        barrier,
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Device("a device thread panicked".into())))
            })
            .collect()
    });
    let mut p = Matrix::zeros(n, n);
    for (blk, cols) in results.into_iter().zip(&ranges) {
        let blk = blk?;
        for (j, c) in cols.clone().enumerate() {
            p.col_mut(c).copy_from_slice(blk.col(j));
        }
    }
    p.check_finite("column split: P(X) overflows or is NaN")?;
    Ok(p)
}

/// One device of the column split: its column block of `P(X)`.
fn column_block<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    x: &Matrix<S>,
    alpha: &[S],
    b: usize,
    cols: Range<usize>,
    g: usize,
    needs_top: bool,
    top_blocks: &Mutex<Vec<Option<Matrix<S>>>>,
    barrier: &Barrier,
) -> Result<Matrix<S>> {
    let n = x.nrows();
    let d = alpha.len() - 1;
    let np = d.min(b + 1).max(1);
    // Phase 1: the column blocks of X … X^{b+1}. Errors are held until every device has
    // passed the barrier, so that one failing device cannot leave the others waiting.
    let phase1 = (|| -> Result<(B::Mat, Vec<B::Mat>)> {
        let xd = be.upload(x)?;
        let mut pows = Vec::with_capacity(np);
        pows.push(be.upload(&x.submatrix(0, cols.start, n, cols.len())?)?);
        for _ in 1..np {
            pows.push(be.zeros(n, cols.len())?);
        }
        core::form_powers(be, Some(&xd), &mut pows, 1, np)?;
        if needs_top {
            let mine = be.download(&pows[b])?;
            lock(top_blocks)?[g] = Some(mine);
        }
        Ok((xd, pows))
    })();
    if needs_top {
        barrier.wait();
    }
    let (_xd, pows) = phase1?;
    let top = if needs_top {
        let blocks = lock(top_blocks)?;
        let mut full = Matrix::zeros(n, n);
        let mut c = 0;
        for blk in blocks.iter() {
            let blk = blk
                .as_ref()
                .ok_or_else(|| Error::Device("another device failed before the exchange".into()))?;
            for j in 0..blk.ncols() {
                full.col_mut(c + j).copy_from_slice(blk.col(j));
            }
            c += blk.ncols();
        }
        Some(be.upload(&full)?)
    } else {
        None
    };
    let mut r = be.zeros(n, cols.len())?;
    let mut t = be.zeros(n, cols.len())?;
    core::paterson_stockmeyer_tail(
        be,
        &pows,
        top.as_ref(),
        alpha,
        b,
        cols.start,
        &mut r,
        &mut t,
    )?;
    be.download(&r)
}

fn lock<T>(m: &Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>> {
    m.lock()
        .map_err(|_| Error::Device("a device thread panicked during the exchange".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_and_balance() {
        for n in [1usize, 7, 64, 100] {
            for parts in 1..=4.min(n) {
                let r = column_ranges(n, parts);
                assert_eq!(r.len(), parts);
                assert_eq!(r[0].start, 0);
                assert_eq!(r[parts - 1].end, n);
                assert!(r.windows(2).all(|w| w[0].end == w[1].start));
                let (lo, hi) = (
                    r.iter().map(|x| x.len()).min().unwrap(),
                    r.iter().map(|x| x.len()).max().unwrap(),
                );
                assert!(hi - lo <= 1);
            }
        }
    }

    #[test]
    fn two_device_power_split_matches_the_seed() {
        // Seed Alg. 2/3 for d = 12: GPU0 forms X², X⁴, …, X¹² (1 + 5 products),
        // GPU1 forms X², X³, X⁵, …, X¹¹ (1 + 5 products).
        assert_eq!(power_split_products(12, 2, 0), 6);
        assert_eq!(power_split_products(12, 2, 1), 6);
        // d = 13: GPU1 gets one more (the sawtooth of the seed's Fig. 2).
        assert_eq!(power_split_products(13, 2, 1), 7);
        assert_eq!(power_split_products(13, 2, 0), 6);
    }
}
