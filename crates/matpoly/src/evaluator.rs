//! The evaluator: a backend plus the workspaces of the schemes, reused across calls.

use crate::backend::DenseBackend;
use crate::core::{self, ensure};
use crate::scheme::Scheme;
use matexp_core::{Error, Result, Scalar, check_dim};
use matexp_dense::Matrix;

/// Evaluates matrix polynomials (and, through [`Evaluator::expm_into`], the exponential) on
/// one backend, owning the stored powers and scratch matrices so that repeated calls of the
/// same size allocate nothing.
///
/// Memory: `b + 3` matrices of `n × n` for Paterson–Stockmeyer with block `b`, 4 for the
/// other schemes; buffers are kept until the size changes or [`Evaluator::release`].
///
/// ```
/// use matexp_matpoly::{CpuDense, Evaluator, Scheme};
/// use matexp_dense::Matrix;
/// // P(X) = I + 2X + 3X² for X = [[0, 1], [0, 0]] (X² = 0): [[1, 2], [0, 1]].
/// let x = Matrix::from_row_major(2, 2, &[0.0, 1.0, 0.0, 0.0])?;
/// let mut ev = Evaluator::new(CpuDense::new());
/// for scheme in [Scheme::Powers, Scheme::Horner, Scheme::paterson_stockmeyer(2)] {
///     let p = ev.polyval(&x, &[1.0, 2.0, 3.0], scheme)?;
///     assert_eq!(p.to_row_major(), vec![1.0, 2.0, 0.0, 1.0]);
/// }
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Evaluator<S: Scalar, B: DenseBackend<S>> {
    pub(crate) be: B,
    /// `pows[k]` = `X^{k+1}` (Paterson–Stockmeyer, Sastre) — kept between calls.
    pub(crate) pows: Vec<B::Mat>,
    /// Scratch: result and ping-pong buffers.
    pub(crate) work: Vec<B::Mat>,
}

impl<S: Scalar, B: DenseBackend<S>> Evaluator<S, B> {
    /// An evaluator on `backend` with no buffers yet.
    pub fn new(backend: B) -> Self {
        Evaluator {
            be: backend,
            pows: Vec::new(),
            work: Vec::new(),
        }
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.be
    }

    /// The backend, mutable (to upload and download matrices).
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.be
    }

    /// Gives the backend back, dropping the buffers.
    pub fn into_backend(self) -> B {
        self.be
    }

    /// Drops the workspaces (they are reallocated on the next call).
    pub fn release(&mut self) {
        self.pows.clear();
        self.work.clear();
    }

    /// `out ← P(X) = Σ_{i=0}^{d} α_i X^i` with `d = alpha.len() − 1`, by `scheme`.
    ///
    /// Cost: [`Scheme::products`]`(d)` products of `n × n` matrices plus `O(d·n²)`.
    /// Accuracy: every scheme computes the same polynomial; rounding errors are of order
    /// `d·u·Σ|α_i|‖X‖^i` for all of them (Higham, *Functions of Matrices*, §4.2).
    ///
    /// A block beyond `d` is the block `d` (the same stored powers, no outer step).
    ///
    /// # Errors
    /// `DimensionMismatch` when `x` is not square or `out` not its shape; `InvalidArgument`
    /// for no coefficients, a non-finite coefficient or block size 0; `NonFinite` when `X`
    /// holds NaN/∞ or `P(X)` does (overflow), detected by the 1-norm (so also when ‖P(X)‖₁
    /// itself exceeds the range).
    pub fn evaluate_into(
        &mut self,
        x: &B::Mat,
        alpha: &[S],
        scheme: Scheme,
        out: &mut B::Mat,
    ) -> Result<()> {
        let n = self.check_args(x, alpha, out)?;
        scheme.validate()?;
        check_finite_norm(&mut self.be, x, "matrix polynomial: X")?;
        self.evaluate_checked(x, alpha, scheme, out, n)?;
        check_finite_norm(&mut self.be, out, "matrix polynomial: P(X) (overflow)")
    }

    fn evaluate_checked(
        &mut self,
        x: &B::Mat,
        alpha: &[S],
        scheme: Scheme,
        out: &mut B::Mat,
        n: usize,
    ) -> Result<()> {
        let shape = (n, n);
        let d = alpha.len() - 1;
        match scheme {
            Scheme::Horner => {
                ensure(&mut self.be, &mut self.work, 1, shape)?;
                let t = &mut self.work[0];
                core::horner(&mut self.be, x, x, alpha, 0, out, t)
            }
            Scheme::Powers => {
                ensure(&mut self.be, &mut self.work, 2, shape)?;
                let (b, t) = self.work.split_at_mut(1);
                core::powers(&mut self.be, x, alpha, out, &mut b[0], &mut t[0])
            }
            Scheme::PatersonStockmeyer { block } => {
                let block = crate::scheme::effective_block(d, block);
                let np = d.min(block + 1).max(1);
                ensure(&mut self.be, &mut self.pows, np, shape)?;
                ensure(&mut self.be, &mut self.work, 1, shape)?;
                self.be.copy(x, &mut self.pows[0])?;
                core::form_powers(&mut self.be, None, &mut self.pows[..np], 1, np)?;
                core::paterson_stockmeyer_tail(
                    &mut self.be,
                    &self.pows[..np],
                    None,
                    alpha,
                    block,
                    0,
                    out,
                    &mut self.work[0],
                )
            }
        }
    }

    /// `out ← T₈(X) = Σ_{k=0}^{8} X^k/k!` in 3 products (Sastre-type evaluation; module
    /// docs of `taylor8` give the formula and the stability of its coefficients).
    ///
    /// ```
    /// use matexp_matpoly::{CpuDense, DenseBackend, Evaluator, Scheme};
    /// use matexp_dense::Matrix;
    /// let x = Matrix::<f64>::from_fn(5, 5, |i, j| 0.01 * (i as f64 - 2.0 * j as f64));
    /// let mut ev = Evaluator::new(CpuDense::new());
    /// let mut t8 = Matrix::zeros(5, 5);
    /// ev.taylor8_into(&x, &mut t8)?;
    /// let c: Vec<f64> = (0..=8).map(|k| 1.0 / (1..=k).product::<usize>() as f64).collect();
    /// let h = ev.polyval(&x, &c, Scheme::Horner)?;
    /// let mut d = t8.clone();
    /// d.add_scaled(-1.0, &h)?;
    /// assert!(d.norm_one() <= 1e-15 * h.norm_one());
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// `DimensionMismatch` when `x` is not square or `out` not its shape.
    pub fn taylor8_into(&mut self, x: &B::Mat, out: &mut B::Mat) -> Result<()> {
        let n = self.check_args(x, &[S::one()], out)?;
        ensure(&mut self.be, &mut self.pows, 2, (n, n))?;
        ensure(&mut self.be, &mut self.work, 3, (n, n))?;
        self.be.copy(x, &mut self.pows[0])?;
        let (lo, hi) = self.pows.split_at_mut(1);
        self.be
            .gemm(S::one(), &lo[0], &lo[0], S::zero(), &mut hi[0])?;
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
        )
    }

    /// `out ← T₁₈(X) = Σ_{k=0}^{18} X^k/k!` in 5 products (Bader–Blanes–Casas; module docs
    /// of `taylor18` give the formula and the stability of its coefficients). Accurate to
    /// about `u` relative for `‖X‖ ≤ θ₁₈ ≈ 1.09`, where the exponential uses it.
    ///
    /// # Errors
    /// `DimensionMismatch` when `x` is not square or `out` not its shape.
    pub fn taylor18_into(&mut self, x: &B::Mat, out: &mut B::Mat) -> Result<()> {
        let n = self.check_args(x, &[S::one()], out)?;
        ensure(&mut self.be, &mut self.pows, 3, (n, n))?;
        ensure(&mut self.be, &mut self.work, 4, (n, n))?;
        self.be.copy(x, &mut self.pows[0])?;
        let (lo, hi) = self.pows.split_at_mut(1);
        self.be
            .gemm(S::one(), &lo[0], &lo[0], S::zero(), &mut hi[0])?;
        let (p01, p2) = self.pows.split_at_mut(2);
        crate::taylor18::taylor18(
            &mut self.be,
            &p01[0],
            &p01[1],
            &mut p2[0],
            &mut self.work[..4],
            out,
        )
    }

    /// Host convenience: uploads `x`, evaluates, downloads `P(X)`.
    ///
    /// # Errors
    /// As [`Evaluator::evaluate_into`], plus the backend's transfer errors.
    pub fn polyval(&mut self, x: &Matrix<S>, alpha: &[S], scheme: Scheme) -> Result<Matrix<S>> {
        let xd = self.be.upload(x)?;
        let mut out = self.be.zeros(x.nrows(), x.ncols())?;
        self.evaluate_into(&xd, alpha, scheme, &mut out)?;
        self.be.download(&out)
    }

    fn check_args(&self, x: &B::Mat, alpha: &[S], out: &B::Mat) -> Result<usize> {
        let (n, m) = self.be.shape(x);
        check_dim("matrix polynomial: X must be square (columns)", n, m)?;
        let (on, om) = self.be.shape(out);
        check_dim("matrix polynomial: rows of the output", n, on)?;
        check_dim("matrix polynomial: columns of the output", n, om)?;
        check_coefficients(alpha)?;
        Ok(n)
    }
}

/// `NonFinite` unless ‖m‖₁ is finite (one O(n²) pass on the backend, no transfer): a NaN or
/// ∞ entry makes the norm NaN or ∞.
fn check_finite_norm<S: Scalar, B: DenseBackend<S>>(
    be: &mut B,
    m: &B::Mat,
    what: &str,
) -> Result<()> {
    let norm = be.norm_one(m)?;
    if norm.is_finite() {
        return Ok(());
    }
    Err(Error::NonFinite {
        context: format!("{what}: ‖·‖₁ = {norm}"),
        index: 0,
        value: format!("{norm}"),
    })
}

pub(crate) fn check_coefficients<S: Scalar>(alpha: &[S]) -> Result<()> {
    if alpha.is_empty() {
        return Err(Error::invalid(
            "alpha",
            "[]",
            "a polynomial needs at least the coefficient α_0",
        ));
    }
    if let Some((i, a)) = alpha.iter().enumerate().find(|(_, a)| !a.finite()) {
        return Err(Error::NonFinite {
            context: "matrix polynomial coefficients".into(),
            index: i,
            value: a.to_string(),
        });
    }
    Ok(())
}
