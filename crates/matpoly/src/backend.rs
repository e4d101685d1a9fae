//! The dense backend: the handful of matrix operations every evaluation scheme is written
//! against, so that one algorithm runs on the CPU and on cuBLAS.

use matexp_core::{Result, Scalar};
use matexp_dense::Matrix;

/// Dense matrix operations on one device (the CPU, or one GPU stream with its cuBLAS handle).
///
/// Matrices are column-major `nrows × ncols` and may be rectangular: the column split of
/// several devices works on `n × n_g` column blocks of the powers. Only `gemm` costs
/// `O(n³)`; everything else is `O(n²)` and memory-bound, which is why the schemes count
/// matrix products and nothing else.
///
/// Methods take `&mut self` so that a GPU backend can keep its handle and scratch without
/// interior mutability; the CPU backend is stateless.
pub trait DenseBackend<S: Scalar> {
    /// A matrix living on this backend.
    type Mat;

    /// Short name for reports: `cpu`, `cublas`, ...
    fn name(&self) -> String;
    /// An `nrows × ncols` matrix of zeros.
    fn zeros(&mut self, nrows: usize, ncols: usize) -> Result<Self::Mat>;
    /// Copies a host matrix to the backend.
    fn upload(&mut self, m: &Matrix<S>) -> Result<Self::Mat>;
    /// Copies a backend matrix to the host (waits for pending work).
    fn download(&mut self, a: &Self::Mat) -> Result<Matrix<S>>;
    /// `(nrows, ncols)` of `a`.
    fn shape(&self, a: &Self::Mat) -> (usize, usize);
    /// `C ← α·A·B + β·C`; `C` is not read when `β = 0`. The only `O(n³)` operation.
    fn gemm(
        &mut self,
        alpha: S,
        a: &Self::Mat,
        b: &Self::Mat,
        beta: S,
        c: &mut Self::Mat,
    ) -> Result<()>;
    /// `Y ← α·X + Y`, entry-wise (same shapes).
    fn axpy(&mut self, alpha: S, x: &Self::Mat, y: &mut Self::Mat) -> Result<()>;
    /// `A ← A + α·I[:, col0 .. col0 + ncols(A)]`: adds α to the entries `(col0 + j, j)`,
    /// the identity's column block that `A` stands for (`col0 = 0` for a square `A`).
    fn add_identity(&mut self, alpha: S, a: &mut Self::Mat, col0: usize) -> Result<()>;
    /// `OUT ← α₀·I[:, col0 .. col0 + ncols(OUT)] + Σ_k c_k·M_k` for `terms = [(c_k, M_k)]`
    /// (all of `OUT`'s shape; `OUT` is overwritten, never read, so NaN left in a reused buffer
    /// does not leak in). Entry-wise `o = [diagonal] α₀ + c_1 m_1 + c_2 m_2 + …`, summed in
    /// that order, as the sequence zero / add-identity / axpy would.
    ///
    /// Cost: one pass, reading each `M_k` once and writing `OUT` once, `(t + 1)·n²` scalars
    /// moved for `t` terms, against `(3t + 1)·n²` for `t` axpys after zeroing. This is the
    /// memory-bound part of the Paterson–Stockmeyer blocks and the Sastre-type combinations.
    /// The default implementation is that sequence; backends override it with one pass.
    fn lincomb(
        &mut self,
        alpha0: S,
        terms: &[(S, &Self::Mat)],
        col0: usize,
        out: &mut Self::Mat,
    ) -> Result<()> {
        self.set_zero(out)?;
        if alpha0 != S::zero() {
            self.add_identity(alpha0, out, col0)?;
        }
        for &(c, m) in terms {
            self.axpy(c, m, out)?;
        }
        Ok(())
    }
    /// `A ← α·A`.
    fn scale(&mut self, alpha: S, a: &mut Self::Mat) -> Result<()>;
    /// `A ← 0` (also clears NaN left in a reused buffer, which `scale(0)` would keep).
    fn set_zero(&mut self, a: &mut Self::Mat) -> Result<()>;
    /// `DST ← SRC` (same shapes).
    fn copy(&mut self, src: &Self::Mat, dst: &mut Self::Mat) -> Result<()>;
    /// The 1-norm `max_j Σ_i |a_ij|`, in double precision; NaN when `a` holds a NaN.
    fn norm_one(&mut self, a: &Self::Mat) -> Result<f64>;
    /// Waits until the queued work is done (no-op on the CPU).
    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A backend wrapper that counts the operations it forwards: the measured side of the
/// product-count formulas ([`crate::Scheme::products`]).
///
/// ```
/// use matexp_matpoly::{Counting, CpuDense, Evaluator, Scheme};
/// use matexp_dense::Matrix;
/// let x = Matrix::<f64>::from_fn(4, 4, |i, j| 1.0 / (1.0 + i as f64 + 2.0 * j as f64));
/// let coeffs = vec![1.0; 13];
/// let mut ev = Evaluator::new(Counting::new(CpuDense::new()));
/// let scheme = Scheme::paterson_stockmeyer(12);
/// ev.polyval(&x, &coeffs, scheme)?;
/// assert_eq!(ev.backend().gemms, scheme.products(12)); // 5, as in seed 004's Table 1
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Counting<B> {
    /// The wrapped backend.
    pub inner: B,
    /// Matrix–matrix products (output with more than one row and column) since the last
    /// reset: what the product-count formulas count.
    pub gemms: usize,
    /// Products with a one-row or one-column output (the norm estimator's probes).
    pub thin: usize,
    /// `O(n²)` operations (axpy, add-identity, linear combination, scale, zero, copy) since
    /// the last reset; a [`DenseBackend::lincomb`] counts once, however many terms it has.
    pub level2: usize,
    /// Matrices allocated (`zeros`, `upload`) since the last reset.
    pub allocations: usize,
}

impl<B> Counting<B> {
    /// Wraps `inner` with zeroed counters.
    pub fn new(inner: B) -> Self {
        Counting {
            inner,
            gemms: 0,
            thin: 0,
            level2: 0,
            allocations: 0,
        }
    }
    /// Sets the counters to zero.
    pub fn reset(&mut self) {
        self.gemms = 0;
        self.thin = 0;
        self.level2 = 0;
        self.allocations = 0;
    }
}

impl<S: Scalar, B: DenseBackend<S>> DenseBackend<S> for Counting<B> {
    type Mat = B::Mat;
    fn name(&self) -> String {
        self.inner.name()
    }
    fn zeros(&mut self, nrows: usize, ncols: usize) -> Result<Self::Mat> {
        self.allocations += 1;
        self.inner.zeros(nrows, ncols)
    }
    fn upload(&mut self, m: &Matrix<S>) -> Result<Self::Mat> {
        self.allocations += 1;
        self.inner.upload(m)
    }
    fn download(&mut self, a: &Self::Mat) -> Result<Matrix<S>> {
        self.inner.download(a)
    }
    fn shape(&self, a: &Self::Mat) -> (usize, usize) {
        self.inner.shape(a)
    }
    fn gemm(
        &mut self,
        alpha: S,
        a: &Self::Mat,
        b: &Self::Mat,
        beta: S,
        c: &mut Self::Mat,
    ) -> Result<()> {
        let (m, n) = self.inner.shape(c);
        if m > 1 && n > 1 {
            self.gemms += 1;
        } else {
            self.thin += 1;
        }
        self.inner.gemm(alpha, a, b, beta, c)
    }
    fn axpy(&mut self, alpha: S, x: &Self::Mat, y: &mut Self::Mat) -> Result<()> {
        self.level2 += 1;
        self.inner.axpy(alpha, x, y)
    }
    fn add_identity(&mut self, alpha: S, a: &mut Self::Mat, col0: usize) -> Result<()> {
        self.level2 += 1;
        self.inner.add_identity(alpha, a, col0)
    }
    fn lincomb(
        &mut self,
        alpha0: S,
        terms: &[(S, &Self::Mat)],
        col0: usize,
        out: &mut Self::Mat,
    ) -> Result<()> {
        self.level2 += 1;
        self.inner.lincomb(alpha0, terms, col0, out)
    }
    fn scale(&mut self, alpha: S, a: &mut Self::Mat) -> Result<()> {
        self.level2 += 1;
        self.inner.scale(alpha, a)
    }
    fn set_zero(&mut self, a: &mut Self::Mat) -> Result<()> {
        self.level2 += 1;
        self.inner.set_zero(a)
    }
    fn copy(&mut self, src: &Self::Mat, dst: &mut Self::Mat) -> Result<()> {
        self.level2 += 1;
        self.inner.copy(src, dst)
    }
    fn norm_one(&mut self, a: &Self::Mat) -> Result<f64> {
        self.inner.norm_one(a)
    }
    fn synchronize(&mut self) -> Result<()> {
        self.inner.synchronize()
    }
}
