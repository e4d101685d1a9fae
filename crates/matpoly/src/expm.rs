//! The dense matrix exponential by Taylor polynomials with scaling and squaring, and the
//! φ-functions on top of it.
//!
//! `e^A = (T_m(2^{−s}A))^{2^s}`. The pair `(m, s)` comes from a backward-error bound:
//! `T_m(X) = e^{X+ΔX}` with `‖ΔX‖/‖X‖ ≤ u = 2^{−53}` whenever `α(X) ≤ θ_m`, where `θ_m` is the
//! largest θ with `Σ_{k>m} |c_k| θ^{k−1} ≤ u` for `Σ c_k x^k = log(e^{−x}T_m(x))`
//! (Al-Mohy & Higham, SIAM J. Sci. Comput. 33 (2011) 488–511, §3 and Table 3.1; the values
//! in [`THETA`] are recomputed in 60-digit arithmetic by `fixtures/matpoly/expm_reference.py`).
//! The size measure is `α_p = max(d_p, d_{p+1})`, `d_k = ‖A^k‖₁^{1/k}`, which degree `m` may
//! use when `p(p−1) ≤ m+1` (their Theorem 4.2; `α_p ≤ ‖A‖`, much smaller for nonnormal
//! matrices, which avoids the overscaling of a plain `‖A‖` bound and the loss of accuracy
//! in the squarings that comes with it). `d₁`, `d₂` are exact (`A²` is formed anyway);
//! `α₂` first uses the rigorous bound `d₃ ≤ (‖A‖‖A²‖)^{1/3}`, and only if that asks for
//! scaling are `d₃ … d₇` estimated by the 1-norm estimator of `crate::normest` (thin
//! products only, `O(n²)` each), as Al-Mohy & Higham's `expm` and `expmv` do.
//!
//! The degree is chosen among the cheapest evaluations of each degree: Paterson–Stockmeyer
//! for `m ∈ {2, 4, 9, 12, 16, 20, 25, 30}` (1, 2, 4, 5, 6, 7, 8, 9 products), the
//! Sastre-type `T₈` (3 products, [`crate::taylor8`]) and Bader–Blanes–Casas's `T₁₈`
//! (5 products, [`crate::taylor18`]); `(m, s)` minimises
//! products + `s` squarings. `A²` is formed once, used for `α` and reused (scaled by `4^{−s}`)
//! by the evaluation.
//!
//! Cost: `π_m + s` products (`2n³` flops each, real). Accuracy: backward error `≤ u` in exact
//! arithmetic; rounding in the squarings adds a forward error of order `s·u·κ_exp(A)`.

use crate::backend::DenseBackend;
use crate::core::{self, ensure};
use crate::evaluator::Evaluator;
use crate::scheme::{TAYLOR8_PRODUCTS, optimal_block, ps_products};
use matexp_core::{Error, Result, Scalar, check_dim};
use matexp_dense::Matrix;

/// `THETA[m − 1] = θ_m` for `m = 1..30` and `u = 2^{−53}` (see the module docs).
pub const THETA: [f64; 30] = [
    2.220446049250313e-16,
    2.580956802971767e-08,
    1.386347866119121e-05,
    3.397168839976962e-04,
    2.400876357887274e-03,
    9.065656407595102e-03,
    2.384455532500274e-02,
    4.991228871115323e-02,
    8.957760203223343e-02,
    1.441829761614378e-01,
    2.142358068451711e-01,
    2.996158913811581e-01,
    3.997775336316795e-01,
    5.139146936124294e-01,
    6.410835233041199e-01,
    7.802874256626574e-01,
    9.305328460786568e-01,
    1.090863719290036e+00,
    1.260381060642639e+00,
    1.438252596804337e+00,
    1.623715950235821e+00,
    1.816077816215086e+00,
    2.014710780944616e+00,
    2.219048869365090e+00,
    2.428582524442827e+00,
    2.642853457459435e+00,
    2.861449633934264e+00,
    3.084000544989162e+00,
    3.310172839890271e+00,
    3.539666348743689e+00,
];

/// How the Taylor polynomial was evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaylorEvaluation {
    /// Paterson–Stockmeyer with this block size.
    PatersonStockmeyer {
        /// Block size `b`.
        block: usize,
    },
    /// Sastre-type `T₈` in 3 products.
    Sastre8,
    /// Bader–Blanes–Casas `T₁₈` in 5 products.
    Sastre18,
    /// No polynomial: `A = 0` (or `n = 0`), `e^A = I`.
    Identity,
}

/// What [`Evaluator::expm_into`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpmReport {
    /// Taylor degree `m`.
    pub degree: usize,
    /// Squarings `s`.
    pub squarings: u32,
    /// Matrix products in all (`A²`, evaluation, squarings).
    pub products: usize,
    /// The evaluation scheme.
    pub evaluation: TaylorEvaluation,
    /// `‖A‖₁`.
    pub norm1: f64,
    /// `α₂ = max(d₂, d₃)`, `d_k = ‖A^k‖₁^{1/k}` (`d₃` estimated or bounded): the size the
    /// degree and scaling were chosen for (with the `α_p`, `p ≤ 6`, when scaling is needed).
    pub alpha: f64,
}

/// The candidate evaluations: degree, products (including the one forming `X²`), scheme.
fn candidates() -> Vec<(usize, usize, TaylorEvaluation)> {
    let mut c = vec![
        (8, TAYLOR8_PRODUCTS, TaylorEvaluation::Sastre8),
        (18, crate::taylor18::PRODUCTS, TaylorEvaluation::Sastre18),
    ];
    for m in [2usize, 4, 9, 12, 16, 20, 25, 30] {
        let b = optimal_block(m);
        c.push((
            m,
            ps_products(m, b),
            TaylorEvaluation::PatersonStockmeyer { block: b },
        ));
    }
    c
}

/// The cheapest `(m, s, evaluation, products before squaring)` given `alpha[p − 2] = α_p`
/// for `p = 2, 3, …`: degree `m` may use `α_p` when `p(p − 1) ≤ m + 1`
/// (Al-Mohy & Higham 2011, Theorem 4.2 and eq. (3.11)).
fn choose(alpha: &[f64]) -> (usize, u32, TaylorEvaluation, usize) {
    let mut best: Option<(usize, u32, TaylorEvaluation, usize)> = None;
    for (m, p, ev) in candidates() {
        let a = alpha
            .iter()
            .enumerate()
            .filter(|&(i, _)| (i + 2) * (i + 1) <= m + 1)
            .map(|(_, &a)| a)
            .fold(f64::INFINITY, f64::min);
        let ratio = a / THETA[m - 1];
        let s = if ratio <= 1.0 {
            0
        } else {
            ratio.log2().ceil().max(0.0) as u32
        };
        let better = match best {
            None => true,
            Some((bm, bs, _, bp)) => {
                let (cost, bcost) = (p + s as usize, bp + bs as usize);
                cost < bcost || (cost == bcost && s < bs) || (cost == bcost && s == bs && m > bm)
            }
        };
        if better {
            best = Some((m, s, ev, p));
        }
    }
    best.unwrap_or((30, 0, TaylorEvaluation::PatersonStockmeyer { block: 5 }, 9))
}

/// Largest `p` whose `α_p` any candidate degree may use: `p(p − 1) ≤ 31`.
const P_MAX: usize = 6;

fn inv_factorials<S: Scalar>(m: usize) -> Vec<S> {
    let mut f = 1.0f64;
    (0..=m)
        .map(|k| {
            if k > 0 {
                f *= k as f64;
            }
            S::from_f64(1.0 / f)
        })
        .collect()
}

impl<S: Scalar, B: DenseBackend<S>> Evaluator<S, B> {
    /// `out ← e^A` by Taylor with scaling and squaring (module docs: degree selection,
    /// cost, accuracy). Tested to ≤ 1e−13 relative (1-norm) against 60-digit references on
    /// the classic hard cases.
    ///
    /// ```
    /// use matexp_matpoly::{CpuDense, Evaluator};
    /// use matexp_dense::Matrix;
    /// // Moler & Van Loan's example: e^A ≈ [[-0.735759, 0.551819], [-1.471518, 1.103638]].
    /// let a = Matrix::<f64>::from_row_major(2, 2, &[-49.0, 24.0, -64.0, 31.0])?;
    /// let mut ev = Evaluator::new(CpuDense::new());
    /// let (e, report) = ev.expm(&a)?;
    /// assert!((e[(0, 0)] + 0.7357587581447531).abs() < 1e-13);
    /// assert!((e[(1, 1)] - 1.1036382407155725).abs() < 1e-13);
    /// assert!(report.squarings > 0);
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// `DimensionMismatch` for a non-square `A` or a wrongly shaped `out`; `NonFinite` when
    /// `A` holds NaN or ∞, or when `e^A` overflows.
    pub fn expm_into(&mut self, a: &B::Mat, out: &mut B::Mat) -> Result<ExpmReport> {
        let (n, m) = self.be.shape(a);
        check_dim("expm: A must be square (columns)", n, m)?;
        let (on, om) = self.be.shape(out);
        check_dim("expm: rows of the output", n, on)?;
        check_dim("expm: columns of the output", n, om)?;
        let norm1 = self.be.norm_one(a)?;
        if !norm1.is_finite() {
            return Err(non_finite("expm: input matrix", norm1));
        }
        if n == 0 || norm1 == 0.0 {
            self.be.set_zero(out)?;
            self.be.add_identity(S::one(), out, 0)?;
            return Ok(ExpmReport {
                degree: 0,
                squarings: 0,
                products: 0,
                evaluation: TaylorEvaluation::Identity,
                norm1,
                alpha: 0.0,
            });
        }
        let shape = (n, n);
        // Powers X … X^6 (block ≤ 5), plus scratch for Horner steps and T₈.
        ensure(&mut self.be, &mut self.pows, 2, shape)?;
        ensure(&mut self.be, &mut self.work, 4, shape)?;
        self.be.copy(a, &mut self.pows[0])?;
        {
            let (lo, hi) = self.pows.split_at_mut(1);
            self.be
                .gemm(S::one(), &lo[0], &lo[0], S::zero(), &mut hi[0])?;
        }
        let norm2 = self.be.norm_one(&self.pows[1])?;
        // ‖A²‖ overflows only for ‖A‖ beyond 1e154, where e^A overflows too unless A is
        // very nonnormal; fall back to the plain norm and form X² again after scaling.
        let reuse_square = norm2.is_finite();
        let (alpha, alphas) = if reuse_square {
            // d_k = ‖A^k‖^{1/k}: d₁, d₂ exact; d₃ bounded by (‖A‖‖A²‖)^{1/3}.
            let mut d = vec![norm1, norm2.sqrt()];
            let d3_bound = ((norm1.ln() + norm2.max(f64::MIN_POSITIVE).ln()) / 3.0).exp();
            let bound_alpha = norm1.min(d[1].max(d3_bound));
            let mut alphas = vec![bound_alpha];
            if choose(&alphas).1 > 0 {
                // Scaling is needed: sharpen with estimated d₃ … d₇ (lower bounds, as in
                // Al-Mohy & Higham's expm and expmv), which cuts squarings for nonnormal A.
                for k in 3..=P_MAX + 1 {
                    let est = crate::normest::norm1_power(&mut self.be, a, Some(&self.pows[1]), k)?;
                    if !est.is_finite() {
                        return Err(non_finite("expm: powers of the input matrix", est));
                    }
                    d.push(est.powf(1.0 / k as f64));
                }
                alphas = (2..=P_MAX).map(|p| d[p - 1].max(d[p])).collect();
                alphas[0] = alphas[0].min(bound_alpha);
            }
            (alphas[0], alphas)
        } else {
            (norm1, vec![norm1])
        };
        let (degree, s, evaluation, poly_products) = choose(&alphas);
        let scale = 0.5f64.powi(s as i32);
        self.be.scale(S::from_f64(scale), &mut self.pows[0])?;
        if reuse_square {
            self.be
                .scale(S::from_f64(scale * scale), &mut self.pows[1])?;
        } else {
            let (lo, hi) = self.pows.split_at_mut(1);
            self.be
                .gemm(S::one(), &lo[0], &lo[0], S::zero(), &mut hi[0])?;
        }
        let mut products = poly_products + usize::from(!reuse_square);
        match evaluation {
            TaylorEvaluation::Sastre8 => {
                let (w0, rest) = self.work.split_at_mut(1);
                let (w1, w2) = rest.split_at_mut(1);
                crate::taylor8::taylor8(
                    &mut self.be,
                    &self.pows[0],
                    &self.pows[1],
                    &mut w0[0],
                    &mut w1[0],
                    &mut w2[0],
                    out,
                )?;
            }
            TaylorEvaluation::Sastre18 => {
                ensure(&mut self.be, &mut self.pows, 3, shape)?;
                let (p01, p2) = self.pows.split_at_mut(2);
                crate::taylor18::taylor18(
                    &mut self.be,
                    &p01[0],
                    &p01[1],
                    &mut p2[0],
                    &mut self.work[..4],
                    out,
                )?;
            }
            TaylorEvaluation::PatersonStockmeyer { block } => {
                let np = degree.min(block + 1);
                ensure(&mut self.be, &mut self.pows, np, shape)?;
                core::form_powers(&mut self.be, None, &mut self.pows[..np], 2, np)?;
                let coeffs = inv_factorials::<S>(degree);
                core::paterson_stockmeyer_tail(
                    &mut self.be,
                    &self.pows[..np],
                    None,
                    &coeffs,
                    block,
                    0,
                    out,
                    &mut self.work[0],
                )?;
            }
            TaylorEvaluation::Identity => unreachable!("chosen only for A = 0"),
        }
        for _ in 0..s {
            let t = &mut self.work[0];
            self.be.gemm(S::one(), out, out, S::zero(), t)?;
            std::mem::swap(out, t);
        }
        products += s as usize;
        let result_norm = self.be.norm_one(out)?;
        if !result_norm.is_finite() {
            return Err(non_finite(
                "expm: e^A overflows this precision",
                result_norm,
            ));
        }
        Ok(ExpmReport {
            degree,
            squarings: s,
            products,
            evaluation,
            norm1,
            alpha,
        })
    }

    /// Host convenience: `e^A` for a host matrix, with the report.
    ///
    /// # Errors
    /// As [`Evaluator::expm_into`].
    pub fn expm(&mut self, a: &Matrix<S>) -> Result<(Matrix<S>, ExpmReport)> {
        let ad = self.be.upload(a)?;
        let mut out = self.be.zeros(a.nrows(), a.ncols())?;
        let rep = self.expm_into(&ad, &mut out)?;
        Ok((self.be.download(&out)?, rep))
    }

    /// `[φ_1(A), …, φ_k(A)]`, `φ_j(z) = Σ_{i≥0} z^i/(i+j)!`, from the exponential of the
    /// block matrix `W = [[A, I, 0, …], [0, 0, I, …], …, [0, …, 0]]` of order `(k+1)n`,
    /// whose first block row is `[e^A, φ_1(A), …, φ_k(A)]` (Higham, *Functions of
    /// Matrices*, Thm. 10.13 generalised; Sidje, ACM TOMS 24 (1998), Thm. 1).
    ///
    /// Cost: one exponential of order `(k+1)n`, about `(k+1)³` times that of `e^A`;
    /// accuracy as [`Evaluator::expm_into`] on `W` (tested ≤ 1e−13 against 60-digit
    /// references for `k = 2`).
    ///
    /// ```
    /// use matexp_matpoly::{CpuDense, Evaluator};
    /// use matexp_dense::Matrix;
    /// // φ_1(λ) = (e^λ − 1)/λ on a diagonal matrix.
    /// let a = Matrix::from_diagonal(&[1.0, -2.0]);
    /// let mut ev = Evaluator::new(CpuDense::new());
    /// let phi = ev.phi_functions(&a, 1)?;
    /// assert!((phi[0][(0, 0)] - (1f64.exp() - 1.0)).abs() < 1e-15);
    /// assert!((phi[0][(1, 1)] - (1.0 - (-2f64).exp()) / 2.0).abs() < 1e-15);
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Evaluator::expm_into`]; `InvalidArgument` for `k = 0`, or when the augmented
    /// matrix of order `(k + 1)·n` overflows or cannot be allocated.
    pub fn phi_functions(&mut self, a: &Matrix<S>, k: usize) -> Result<Vec<Matrix<S>>> {
        if k == 0 {
            return Err(Error::invalid(
                "k",
                0,
                "φ-functions start at φ_1 (e^A is expm)",
            ));
        }
        let n = a.nrows();
        check_dim("phi_functions: A must be square (columns)", n, a.ncols())?;
        let big = k
            .checked_add(1)
            .and_then(|k1| k1.checked_mul(n))
            .ok_or_else(|| {
                Error::invalid(
                    "k",
                    k,
                    format!("the augmented matrix of order (k + 1)·n (n = {n}) overflows usize"),
                )
            })?;
        let mut w = Matrix::<S>::try_zeros(big, big)?;
        for j in 0..n {
            for i in 0..n {
                w[(i, j)] = a[(i, j)];
            }
        }
        for blk in 0..k {
            for i in 0..n {
                w[(blk * n + i, (blk + 1) * n + i)] = S::one();
            }
        }
        let (e, _) = self.expm(&w)?;
        (1..=k).map(|j| e.submatrix(0, j * n, n, n)).collect()
    }
}

fn non_finite(context: &str, value: f64) -> Error {
    Error::NonFinite {
        context: context.into(),
        index: 0,
        value: value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_grows_and_matches_the_published_table() {
        assert!(THETA.windows(2).all(|w| w[0] < w[1]));
        // Al-Mohy & Higham (2011), Table 3.1 (three digits).
        for (m, want) in [
            (5, 2.40e-3),
            (10, 1.44e-1),
            (20, 1.44),
            (25, 2.43),
            (30, 3.54),
        ] {
            assert!((THETA[m - 1] / want - 1.0).abs() < 5e-3, "θ_{m}");
        }
    }

    #[test]
    fn degree_choice_is_cheapest() {
        // Tiny norms need no squaring and low degree; large ones settle on a high degree.
        let (m, s, _, _) = choose(&[1e-9]);
        assert_eq!((m, s), (2, 0));
        let (m, s, ev, _) = choose(&[0.04]);
        assert_eq!((m, s, ev), (8, 0, TaylorEvaluation::Sastre8));
        let (m, _, _, p) = choose(&[1e4]);
        assert!(m >= 16, "{m}");
        assert!(p <= 9);
        // A small α₆ helps only the degrees that may use it (m + 1 ≥ 30).
        let (m, s, _, _) = choose(&[100.0, 100.0, 100.0, 100.0, 1.0]);
        assert_eq!((m, s), (30, 0));
    }
}
