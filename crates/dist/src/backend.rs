//! [`DistBackend`]: vectors in row blocks over any local backend, reductions across ranks.

use crate::comm::{Communicator, Reduce};
use crate::layout::RowLayout;
use crate::wire;
use matexp_core::{Backend, Error, KrylovBackend, RealScalar, Result, Scalar, c64, check_dim};
use std::ops::Range;
use std::sync::Arc;

/// A vector of a [`DistBackend`]: this rank's block of a vector of the layout's length
/// (**distributed**), or a whole small vector held identically by every rank
/// (**replicated**: Krylov coefficient arrays and other workspaces whose length is not the
/// layout's).
#[derive(Debug, Clone)]
pub struct DistVector<V> {
    local: V,
    len: usize,
    replicated: bool,
}

impl<V> DistVector<V> {
    /// This rank's part: its rows of a distributed vector, the whole of a replicated one.
    pub fn local(&self) -> &V {
        &self.local
    }
    /// This rank's part, mutable (for pointwise work the caller does on its own rows).
    pub fn local_mut(&mut self) -> &mut V {
        &mut self.local
    }
    /// Whether every rank holds the whole vector.
    pub fn is_replicated(&self) -> bool {
        self.replicated
    }
    /// This rank's part, by value.
    pub fn into_local(self) -> V {
        self.local
    }
}

/// The backend of the distributed engine: every vector whose length is the layout's `n` is
/// split in row blocks ([`RowLayout`]) and this rank holds its block in the local backend
/// `B` (the CPU, or one GPU per rank); vectors of any other length are replicated. Element
/// operations run on the local blocks; `dot`, `nrm2`, `amax` (and the Lanczos sums of
/// [`KrylovBackend::lanczos_sums`]) reduce the local results across ranks.
///
/// **The solvers do not know.** `len` reports the global length, `upload` takes a whole host
/// vector (each rank keeps its rows) and `download` returns the whole vector (an all-gather:
/// O(n) bytes to every rank — for results, not for hot loops), so every method written
/// against [`Backend`] runs unchanged; operators of this crate ([`crate::DistCsr`],
/// [`crate::DistStencil`], [`crate::DistFock`]) exchange the halos they need.
///
/// **Determinism.** Each reduction gathers the per-rank partials and combines them in rank
/// order ([`Reduce`]), so all ranks hold identical scalars (they take identical decisions)
/// and a run is reproducible for a given number of ranks. With one rank every reduction
/// returns the local backend's value bit for bit. Across rank counts, results differ only
/// by the rounding of the partial sums (relative ~ε·log(ranks) per reduction).
///
/// **Cost.** A reduction is one all-gather of 1–4 numbers per rank (bound by the
/// interconnect's latency, not its bandwidth); Lanczos needs one per step
/// ([`KrylovBackend::lanczos_sums`] reduces its four sums together), Leja one per product.
///
/// ```
/// use std::sync::Arc;
/// use matexp_core::{Backend, CpuBackend};
/// use matexp_dist::{DistBackend, RowLayout, comm::run_ranks};
/// let norms = run_ranks(2, |comm| {
///     let layout = RowLayout::even(4, 2).unwrap();
///     let dist = DistBackend::new(CpuBackend, Arc::new(comm), layout).unwrap();
///     let x = dist.upload(&[3.0f64, 0.0, 0.0, 4.0]).unwrap(); // rank 0: [3, 0], rank 1: [0, 4]
///     assert_eq!(dist.local(&x).len(), 2);
///     dist.nrm2(&x).unwrap()
/// });
/// assert_eq!(norms, vec![5.0, 5.0]);
/// ```
#[derive(Debug, Clone)]
pub struct DistBackend<B> {
    local: B,
    comm: Arc<dyn Communicator>,
    layout: Arc<RowLayout>,
}

impl<B: Backend> DistBackend<B> {
    /// The backend over `local` for vectors split by `layout` among the ranks of `comm`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when the layout has another number of blocks than the
    /// communicator has ranks.
    pub fn new(local: B, comm: Arc<dyn Communicator>, layout: RowLayout) -> Result<Self> {
        check_dim(
            "DistBackend: layout blocks = ranks",
            comm.size(),
            layout.size(),
        )?;
        wire::check_index_range(layout.n())?;
        Ok(DistBackend {
            local,
            comm,
            layout: Arc::new(layout),
        })
    }
    /// The local backend.
    pub fn local_backend(&self) -> &B {
        &self.local
    }
    /// The communicator.
    pub fn comm(&self) -> &Arc<dyn Communicator> {
        &self.comm
    }
    /// The row layout of distributed vectors.
    pub fn layout(&self) -> &RowLayout {
        &self.layout
    }
    /// This rank's rows.
    pub fn rows(&self) -> Range<usize> {
        self.layout.range(self.comm.rank())
    }
    /// This rank's block of `x` (the whole of a replicated vector).
    pub fn local<'a, S: Scalar>(&self, x: &'a DistVector<B::Vector<S>>) -> &'a B::Vector<S> {
        &x.local
    }
    /// This rank's block of `x`, mutable.
    pub fn local_mut<'a, S: Scalar>(
        &self,
        x: &'a mut DistVector<B::Vector<S>>,
    ) -> &'a mut B::Vector<S> {
        &mut x.local
    }
    /// A distributed vector from this rank's block (each rank passes its own rows).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when the block is not this rank's number of rows.
    pub fn from_local<S: Scalar>(&self, block: B::Vector<S>) -> Result<DistVector<B::Vector<S>>> {
        check_dim(
            "from_local: rows of this rank",
            self.rows().len(),
            self.local.len(&block),
        )?;
        Ok(DistVector {
            local: block,
            len: self.layout.n(),
            replicated: false,
        })
    }
    /// A distributed vector from this rank's rows on the host.
    ///
    /// # Errors
    /// As [`DistBackend::from_local`]; the local backend's upload errors.
    pub fn upload_local<S: Scalar>(&self, rows: &[S]) -> Result<DistVector<B::Vector<S>>> {
        let block = self.local.upload(rows)?;
        self.from_local(block)
    }

    fn distributes(&self, n: usize) -> bool {
        n == self.layout.n()
    }
    fn wrap<V>(&self, local: V, n: usize) -> DistVector<V> {
        DistVector {
            local,
            len: n,
            replicated: !self.distributes(n),
        }
    }
    fn same_shape<V, W>(&self, what: &str, x: &DistVector<V>, y: &DistVector<W>) -> Result<()> {
        check_dim(what, x.len, y.len)
    }
    /// The reduction of a distributed vector's local dots (sum of (re, im) in rank order).
    fn reduce_dot<S: Scalar>(&self, local: S) -> Result<S> {
        let z = local.to_c64();
        let s = self.comm.sum_in_order(&[z.re, z.im])?;
        Ok(S::from_c64(c64::new(s[0], s[1])))
    }
}

/// ‖x‖₂ from the ranks' local norms r_i, overflow-safe: m·√(Σ (r_i/m)²) with m = max r_i,
/// summed in rank order; NaN if any r_i is NaN; exactly r_0 for one rank.
pub(crate) fn combine_norms(parts: &[f64]) -> f64 {
    if parts.iter().any(|r| r.is_nan()) {
        return f64::NAN;
    }
    let m = parts.iter().fold(0.0f64, |a, &b| a.max(b));
    if m == 0.0 || m.is_infinite() {
        return m;
    }
    m * parts.iter().map(|&r| (r / m) * (r / m)).sum::<f64>().sqrt()
}

impl<B: Backend> Backend for DistBackend<B> {
    type Vector<S: Scalar> = DistVector<B::Vector<S>>;

    fn name(&self) -> String {
        format!(
            "dist[{}]×{} ({})",
            self.local.name(),
            self.comm.size(),
            self.comm.describe()
        )
    }
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Self::Vector<S>> {
        let m = if self.distributes(n) {
            self.rows().len()
        } else {
            n
        };
        Ok(self.wrap(self.local.zeros(m)?, n))
    }
    fn alloc<S: Scalar>(&self, n: usize) -> Result<Self::Vector<S>> {
        let m = if self.distributes(n) {
            self.rows().len()
        } else {
            n
        };
        Ok(self.wrap(self.local.alloc(m)?, n))
    }
    /// Each rank keeps its rows of `host` (the whole of it for a replicated length).
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Self::Vector<S>> {
        let n = host.len();
        let part = if self.distributes(n) {
            &host[self.rows()]
        } else {
            host
        };
        Ok(self.wrap(self.local.upload(part)?, n))
    }
    /// The whole vector on every rank (an all-gather for distributed vectors).
    fn download<S: Scalar>(&self, x: &Self::Vector<S>, host: &mut [S]) -> Result<()> {
        check_dim("download: host length", x.len, host.len())?;
        if x.replicated {
            return self.local.download(&x.local, host);
        }
        let mine = self.local.to_host(&x.local)?;
        let mut buf = Vec::with_capacity(mine.len() * wire::width::<S>());
        wire::encode(mine, &mut buf);
        let all = self.comm.allgather(&buf)?;
        let mut out = host.iter_mut();
        for (r, part) in all.iter().enumerate() {
            let rows = self.layout.range(r).len();
            check_dim(
                "download: numbers from a rank",
                rows * wire::width::<S>(),
                part.len(),
            )?;
            // The part's iterator first: zip then stops without taking a slot of `out`.
            for (v, o) in wire::decode::<S>(part).zip(&mut out) {
                *o = v;
            }
        }
        Ok(())
    }
    fn len<S: Scalar>(&self, x: &Self::Vector<S>) -> usize {
        x.len
    }
    fn copy<S: Scalar>(&self, src: &Self::Vector<S>, dst: &mut Self::Vector<S>) -> Result<()> {
        self.same_shape("copy: destination length", src, dst)?;
        self.local.copy(&src.local, &mut dst.local)
    }
    fn fill<S: Scalar>(&self, x: &mut Self::Vector<S>, value: S) -> Result<()> {
        self.local.fill(&mut x.local, value)
    }
    /// This rank's block of the part: the entries from `offset` plus its first row.
    fn seeded_entries<S: Scalar>(
        &self,
        x: &mut Self::Vector<S>,
        seed: u64,
        offset: usize,
    ) -> Result<()> {
        let first = if x.replicated { 0 } else { self.rows().start };
        self.local
            .seeded_entries(&mut x.local, seed, offset + first)
    }
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Self::Vector<S>) -> Result<()> {
        self.local.scale(alpha, &mut x.local)
    }
    fn axpby<S: Scalar>(
        &self,
        alpha: S,
        x: &Self::Vector<S>,
        beta: S,
        y: &mut Self::Vector<S>,
    ) -> Result<()> {
        self.same_shape("axpby: y length", x, y)?;
        self.local.axpby(alpha, &x.local, beta, &mut y.local)
    }
    fn dot<S: Scalar>(&self, x: &Self::Vector<S>, y: &Self::Vector<S>) -> Result<S> {
        self.same_shape("dot: y length", x, y)?;
        let d = self.local.dot(&x.local, &y.local)?;
        if x.replicated {
            Ok(d)
        } else {
            self.reduce_dot(d)
        }
    }
    fn nrm2<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real> {
        let r = self.local.nrm2(&x.local)?;
        if x.replicated {
            return Ok(r);
        }
        let parts = self.comm.allgather(&[r.as_f64()])?;
        let parts: Vec<f64> = parts.iter().map(|p| p[0]).collect();
        Ok(<S::Real as Scalar>::from_f64(combine_norms(&parts)))
    }
    fn amax<S: Scalar>(&self, x: &Self::Vector<S>) -> Result<S::Real> {
        let r = self.local.amax(&x.local)?;
        if x.replicated {
            return Ok(r);
        }
        let m = self.comm.max_in_order(&[r.as_f64()])?;
        Ok(<S::Real as Scalar>::from_f64(m[0]))
    }
    fn is_asynchronous(&self) -> bool {
        self.local.is_asynchronous()
    }
    fn linear_combination<S: Scalar>(
        &self,
        coeffs: &[S],
        xs: &[&Self::Vector<S>],
        y: &mut Self::Vector<S>,
    ) -> Result<()> {
        matexp_core::check_combination(self, coeffs, xs, y)?;
        let locals: Vec<&B::Vector<S>> = xs.iter().map(|x| &x.local).collect();
        self.local.linear_combination(coeffs, &locals, &mut y.local)
    }
    fn synchronize(&self) -> Result<()> {
        self.local.synchronize()
    }
}

impl<B: KrylovBackend> KrylovBackend for DistBackend<B> {
    fn read_coeffs(&self, c: &Self::Vector<f64>, start: usize, out: &mut [f64]) -> Result<()> {
        if c.replicated {
            return self.local.read_coeffs(&c.local, start, out);
        }
        let host = self.to_host(c)?;
        let end = start.saturating_add(out.len());
        if end > host.len() {
            return Err(Error::dim("coefficient range end", host.len(), end));
        }
        out.copy_from_slice(&host[start..end]);
        Ok(())
    }
    fn write_coeffs(&self, c: &mut Self::Vector<f64>, start: usize, values: &[f64]) -> Result<()> {
        if c.replicated {
            return self.local.write_coeffs(&mut c.local, start, values);
        }
        let mut host = self.to_host(c)?;
        let end = start.saturating_add(values.len());
        if end > host.len() {
            return Err(Error::dim("coefficient range end", host.len(), end));
        }
        host[start..end].copy_from_slice(values);
        let fresh = self.upload(&host)?;
        self.copy(&fresh, c)
    }
    /// The local backend's sums of this rank's rows, then one reduction of the four plain
    /// sums (Re⟨q, w⟩, Im⟨q, w⟩, ‖w‖², ‖q‖² add across row blocks) instead of the default's
    /// three.
    fn lanczos_sums<S: Scalar>(
        &self,
        j: usize,
        q_prev: Option<&Self::Vector<S>>,
        q: &Self::Vector<S>,
        w: &mut Self::Vector<S>,
        c: &Self::Vector<f64>,
        sums: &mut Self::Vector<f64>,
    ) -> Result<()> {
        if !(c.replicated && sums.replicated) || q.replicated || w.replicated {
            return lanczos_sums_sequence(self, j, q_prev, q, w, c, sums);
        }
        self.same_shape("lanczos_sums: w length", q, w)?;
        if let Some(qp) = q_prev {
            self.same_shape("lanczos_sums: q_prev length", q, qp)?;
        }
        let qp = q_prev.map(|v| &v.local);
        self.local
            .lanczos_sums(j, qp, &q.local, &mut w.local, &c.local, &mut sums.local)?;
        let mut part = [0.0; 4];
        self.local.read_coeffs(&sums.local, 0, &mut part)?;
        let total = self.comm.sum_in_order(&part)?;
        self.local.write_coeffs(&mut sums.local, 0, &total)
    }
}

/// The BLAS-1 sequence of [`KrylovBackend::lanczos_sums`] (the trait default), for arrays
/// that are not replicated.
fn lanczos_sums_sequence<B: KrylovBackend, S: Scalar>(
    d: &DistBackend<B>,
    j: usize,
    q_prev: Option<&DistVector<B::Vector<S>>>,
    q: &DistVector<B::Vector<S>>,
    w: &mut DistVector<B::Vector<S>>,
    c: &DistVector<B::Vector<f64>>,
    sums: &mut DistVector<B::Vector<f64>>,
) -> Result<()> {
    if d.len(c) < 2 * j + 2 || d.len(sums) < matexp_core::LANCZOS_SUMS {
        return Err(Error::dim(
            "lanczos_sums: coefficient arrays",
            2 * j + 2,
            d.len(c),
        ));
    }
    if let Some(qp) = q_prev.filter(|_| j > 0) {
        let mut beta_j = [0.0];
        d.read_coeffs(c, 2 * j - 1, &mut beta_j)?;
        d.axpby(S::from_f64(-beta_j[0]), qp, S::one(), w)?;
    }
    let z = d.dot(q, w)?.to_c64();
    let (nw, nq) = (d.nrm2(w)?.as_f64(), d.nrm2(q)?.as_f64());
    d.write_coeffs(sums, 0, &[z.re, z.im, nw * nw, nq * nq])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norms_combine_safely() {
        assert_eq!(combine_norms(&[3.0]), 3.0);
        assert_eq!(combine_norms(&[3.0, 4.0]), 5.0);
        assert_eq!(combine_norms(&[0.0, 0.0]), 0.0);
        let big = combine_norms(&[3e300, 4e300]);
        assert!((big / 5e300 - 1.0).abs() < 1e-15);
        assert!(combine_norms(&[1.0, f64::NAN]).is_nan());
        assert_eq!(combine_norms(&[1.0, f64::INFINITY]), f64::INFINITY);
    }
}
