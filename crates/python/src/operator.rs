//! `matexp._matexp.Operator`: the A of every call. Three kinds:
//!
//! * **csr**: a SciPy CSR matrix's own `indptr`, `indices` (int32 or int64) and `data`
//!   (float64 or complex128), borrowed for each solve through [`CsrView`] without a copy
//!   (other index and value types are converted by the Python layer);
//! * **matrix**: an owned CSR copy (a dense ndarray, or a real matrix needed as complex);
//! * **callback**: `matvec(x)` of a Python object (a `scipy.sparse.linalg.LinearOperator`),
//!   called with the GIL taken only for the call.

use crate::errors::{invalid, to_py};
use crate::scalar::{Owned, PyScalar};
use crate::watch::{Ctx, Watched};
use matexp::{CpuBackend, CsrMatrix, LinearOperator, Result, c64};
use matexp_sparse::CsrView;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

#[derive(Debug)]
enum Kind {
    Csr {
        indptr: Py<PyAny>,
        indices: Py<PyAny>,
        data: Py<PyAny>,
        wide: bool,
    },
    Owned(Box<Owned>),
    Callback {
        matvec: Py<PyAny>,
        hermitian: bool,
    },
}

/// A linear operator for matexp's solves (built by `matexp._convert.as_operator`).
#[pyclass(frozen, module = "matexp._matexp")]
#[derive(Debug)]
pub struct Operator {
    n: usize,
    m: usize,
    complex: bool,
    kind: Kind,
}

#[pymethods]
impl Operator {
    /// A dense 2-D float64 or complex128 array (C-contiguous), copied into CSR (zeros
    /// dropped): O(n·m) once, then O(nnz) per product.
    #[staticmethod]
    fn dense(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Self> {
        let owned = if let Ok(r) = a.extract::<PyReadonlyArray2<'_, f64>>() {
            let (n, m) = (r.shape()[0], r.shape()[1]);
            let v = r.as_slice().map_err(|e| invalid(py, e.to_string()))?;
            Owned::Real(CsrMatrix::from_dense(n, m, v).map_err(|e| to_py(py, e))?)
        } else {
            let r = a.extract::<PyReadonlyArray2<'_, c64>>()?;
            let (n, m) = (r.shape()[0], r.shape()[1]);
            let v = r.as_slice().map_err(|e| invalid(py, e.to_string()))?;
            Owned::Complex(CsrMatrix::from_dense(n, m, v).map_err(|e| to_py(py, e))?)
        };
        let (n, m, complex) = match &owned {
            Owned::Real(a) => (a.nrows(), a.ncols(), false),
            Owned::Complex(a) => (a.nrows(), a.ncols(), true),
        };
        Ok(Operator {
            n,
            m,
            complex,
            kind: Kind::Owned(Box::new(owned)),
        })
    }

    /// A CSR matrix over the given arrays (kept, not copied): `indptr` and `indices` of one
    /// dtype, int32 or int64, `data` float64 or complex128, all contiguous. The structure is
    /// validated here, O(nnz).
    #[staticmethod]
    fn csr(
        py: Python<'_>,
        shape: (usize, usize),
        indptr: Bound<'_, PyAny>,
        indices: Bound<'_, PyAny>,
        data: Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let (n, m) = shape;
        let complex = data.extract::<PyReadonlyArray1<'_, c64>>().is_ok();
        if !complex && data.extract::<PyReadonlyArray1<'_, f64>>().is_err() {
            return Err(invalid(
                py,
                "csr: data must be a contiguous float64 or complex128 array",
            ));
        }
        let wide = indptr.extract::<PyReadonlyArray1<'_, i64>>().is_ok();
        let op = Operator {
            n,
            m,
            complex,
            kind: Kind::Csr {
                indptr: indptr.unbind(),
                indices: indices.unbind(),
                data: data.unbind(),
                wide,
            },
        };
        // Validation: the view's constructor checks the structure.
        let ctx = Ctx::new(None);
        let checked = if complex {
            op.with::<c64, _>(py, &ctx, |_| Ok(()))?
        } else {
            op.with::<f64, _>(py, &ctx, |_| Ok(()))?
        };
        ctx.finish(py, checked)?;
        Ok(op)
    }

    /// The spin-bath Hamiltonian H of seed 000 (two central spins, coupling `j0`, and a bath of
    /// `spins` − 2 spins with couplings J_i = 0.4·u_i drawn from ChaCha8 seeded by `seed`;
    /// [`matexp_sparse::generators::SpinBath`]), real symmetric CSR of order 2^spins, stored
    /// zeros dropped; and the seed's initial state ψ₀ (central spins up, the bath in a random
    /// state drawn from `state_seed`, ‖ψ₀‖ = 1). e^{−itH}ψ₀ is `expmv(H, ψ₀, −1j·t)`.
    #[staticmethod]
    #[pyo3(signature = (spins, seed = 42, state_seed = 7))]
    fn spin_bath<'py>(
        py: Python<'py>,
        spins: usize,
        seed: u64,
        state_seed: u64,
    ) -> PyResult<(Self, Bound<'py, PyArray1<c64>>)> {
        use matexp_sparse::generators::{SpinBath, StoredZeros};
        let model = SpinBath::seed000(spins, seed).map_err(|e| to_py(py, e))?;
        let h = model
            .hamiltonian::<f64, u64>(StoredZeros::Drop)
            .map_err(|e| to_py(py, e))?;
        let psi = model
            .initial_state::<c64>(state_seed)
            .map_err(|e| to_py(py, e))?;
        let n = h.nrows();
        Ok((
            Operator {
                n,
                m: n,
                complex: false,
                kind: Kind::Owned(Box::new(Owned::Real(h))),
            },
            PyArray1::from_vec(py, psi),
        ))
    }

    /// `matvec(x)` of a Python object, an n × n operator; `complex` says whether it takes
    /// and returns complex128 vectors, `hermitian` whether it is symmetric/Hermitian
    /// (enables Lanczos; not checked).
    #[staticmethod]
    fn callback(n: usize, matvec: Py<PyAny>, complex: bool, hermitian: bool) -> Self {
        Operator {
            n,
            m: n,
            complex,
            kind: Kind::Callback { matvec, hermitian },
        }
    }

    /// (rows, columns).
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.n, self.m)
    }

    /// Whether the operator's values are complex.
    #[getter]
    fn is_complex(&self) -> bool {
        self.complex
    }

    /// `"csr"` (borrowed arrays), `"matrix"` (an owned copy) or `"callback"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.kind {
            Kind::Csr { .. } => "csr",
            Kind::Owned(_) => "matrix",
            Kind::Callback { .. } => "callback",
        }
    }

    /// Whether the operator is Hermitian (exactly, for matrices; as declared, for callbacks).
    fn is_hermitian(&self, py: Python<'_>) -> PyResult<bool> {
        let ctx = Ctx::new(None);
        let r = if self.complex {
            self.with::<c64, _>(py, &ctx, |op| Ok(op.is_hermitian()))?
        } else {
            self.with::<f64, _>(py, &ctx, |op| Ok(op.is_hermitian()))?
        };
        ctx.finish(py, r)
    }

    fn __repr__(&self) -> String {
        format!(
            "matexp.Operator({} × {}, {}, {})",
            self.n,
            self.m,
            if self.complex {
                "complex128"
            } else {
                "float64"
            },
            self.kind()
        )
    }
}

/// Contiguous slice of a 1-D array of element type `T` (a copy-free borrow).
fn slice<'a, T: numpy::Element>(
    py: Python<'_>,
    a: &'a PyReadonlyArray1<'_, T>,
    what: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|e| invalid(py, format!("csr: {what} must be contiguous: {e}")))
}

/// Reinterprets signed indices as unsigned ones of the same width. Sound for every bit
/// pattern; a negative index becomes one above `i64::MAX`/`i32::MAX`, which the CSR
/// validation then rejects as out of range.
fn unsigned<T, U>(s: &[T]) -> &[U] {
    const { assert!(size_of::<T>() == size_of::<U>() && align_of::<T>() == align_of::<U>()) };
    // SAFETY: T and U (i32/u32 or i64/u64) have equal size and alignment and every bit
    // pattern is valid for U; the lifetime is that of `s`.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<U>(), s.len()) }
}

impl Operator {
    /// (rows, columns).
    pub fn dims(&self) -> (usize, usize) {
        (self.n, self.m)
    }

    /// Whether the values are complex.
    pub fn complex(&self) -> bool {
        self.complex
    }

    /// Runs `f` on this operator as one of scalar type `S`, watched by `ctx`, with the GIL
    /// released (callbacks take it back for each product). A real operator asked for as
    /// complex is copied to complex once for the call; a complex one asked for as real is
    /// an error.
    pub fn with<S: PyScalar, R: Send>(
        &self,
        py: Python<'_>,
        ctx: &Ctx,
        f: impl FnOnce(&dyn LinearOperator<CpuBackend, S>) -> Result<R> + Send,
    ) -> PyResult<Result<R>> {
        if self.complex && !S::COMPLEX {
            return Err(invalid(py, "a complex operator cannot act on real vectors"));
        }
        let run = |op: &dyn LinearOperator<CpuBackend, S>| {
            let watched = Watched { op, ctx };
            py.detach(|| f(&watched))
        };
        match &self.kind {
            Kind::Callback { matvec, hermitian } => {
                let op = Callback::<S> {
                    n: self.n,
                    matvec,
                    hermitian: *hermitian,
                    ctx,
                    _s: std::marker::PhantomData,
                };
                Ok(run(&op))
            }
            _ => self.with_parts(py, OnCpu(run)),
        }
    }

    /// Runs `f` on the CSR arrays of a matrix operator (borrowed from NumPy, or the owned
    /// copy) as values of `S`: a real matrix needed as complex gets one complex copy of its
    /// values for the call. Callbacks have no arrays: `Unsupported`.
    pub fn with_parts<S: PyScalar, F: Parts<S>>(
        &self,
        py: Python<'_>,
        f: F,
    ) -> PyResult<Result<F::Out>> {
        if self.complex && !S::COMPLEX {
            return Err(invalid(py, "a complex operator cannot act on real vectors"));
        }
        match &self.kind {
            Kind::Csr {
                indptr,
                indices,
                data,
                wide: true,
            } => self.csr_parts::<S, i64, u64, F>(py, (indptr, indices, data), f),
            Kind::Csr {
                indptr,
                indices,
                data,
                wide: false,
            } => self.csr_parts::<S, i32, u32, F>(py, (indptr, indices, data), f),
            Kind::Owned(owned) => Ok(match S::pick(owned) {
                Some(a) => f.call(self.n, self.m, a.row_ptr(), a.col_idx(), a.values()),
                None => match &**owned {
                    Owned::Real(a) => {
                        let vals = complex_values::<S>(a.values());
                        f.call(self.n, self.m, a.row_ptr(), a.col_idx(), &vals)
                    }
                    Owned::Complex(_) => unreachable!("complex operators are refused above"),
                },
            }),
            Kind::Callback { .. } => Ok(Err(matexp::Error::Unsupported(
                "a LinearOperator callback runs on the CPU only; pass a matrix for device='gpu'"
                    .into(),
            ))),
        }
    }

    fn csr_parts<S, IS, IU, F>(
        &self,
        py: Python<'_>,
        (indptr, indices, data): (&Py<PyAny>, &Py<PyAny>, &Py<PyAny>),
        f: F,
    ) -> PyResult<Result<F::Out>>
    where
        S: PyScalar,
        IS: numpy::Element,
        IU: Index,
        F: Parts<S>,
    {
        let index = |a: &Py<PyAny>| {
            a.bind(py)
                .extract::<PyReadonlyArray1<'_, IS>>()
                .map_err(|_| {
                    invalid(
                        py,
                        "csr: indptr and indices must share one dtype, int32 or int64",
                    )
                })
        };
        let (ip, ix) = (index(indptr)?, index(indices)?);
        let (ptr, idx) = (
            unsigned::<IS, IU>(slice(py, &ip, "indptr")?),
            unsigned::<IS, IU>(slice(py, &ix, "indices")?),
        );
        if self.complex || !S::COMPLEX {
            let d = data.bind(py).extract::<PyReadonlyArray1<'_, S>>()?;
            Ok(f.call(self.n, self.m, ptr, idx, slice(py, &d, "data")?))
        } else {
            // A real matrix needed as complex (complex t, or complex vectors with complex
            // times): one complex copy of the values for the call.
            let d = data.bind(py).extract::<PyReadonlyArray1<'_, f64>>()?;
            let vals = complex_values::<S>(slice(py, &d, "data")?);
            Ok(f.call(self.n, self.m, ptr, idx, &vals))
        }
    }
}

/// Real values as the complex scalar `S`.
fn complex_values<S: PyScalar>(v: &[f64]) -> Vec<S> {
    v.iter()
        .map(|&x| S::exact_from_c64(c64::new(x, 0.0)).expect("complex target"))
        .collect()
}

/// The two index types of CSR arrays (SciPy's int32 and int64, reinterpreted unsigned).
#[cfg(not(feature = "gpu"))]
pub trait Index: matexp::CsrIndex {}
/// The two index types of CSR arrays (SciPy's int32 and int64, reinterpreted unsigned).
#[cfg(feature = "gpu")]
pub trait Index: matexp::CsrIndex + matexp::gpu::GpuIndex {}
impl Index for u32 {}
impl Index for u64 {}

/// What runs on a matrix operator's CSR arrays ([`Operator::with_parts`]).
pub trait Parts<S: PyScalar> {
    /// Its result.
    type Out;
    /// Runs on `nrows × ncols` arrays (unvalidated: the consumer validates them).
    fn call<I: Index>(
        self,
        nrows: usize,
        ncols: usize,
        ptr: &[I],
        idx: &[I],
        vals: &[S],
    ) -> Result<Self::Out>;
}

/// A CPU solve on the borrowed [`CsrView`] of the arrays.
struct OnCpu<G>(G);

impl<S: PyScalar, R, G: FnOnce(&dyn LinearOperator<CpuBackend, S>) -> Result<R>> Parts<S>
    for OnCpu<G>
{
    type Out = R;
    fn call<I: Index>(
        self,
        nrows: usize,
        ncols: usize,
        ptr: &[I],
        idx: &[I],
        vals: &[S],
    ) -> Result<R> {
        let view = CsrView::try_new(nrows, ncols, ptr, idx, vals)?;
        (self.0)(&view)
    }
}

/// A Python `matvec` as an operator of scalar `S`.
struct Callback<'a, S> {
    n: usize,
    matvec: &'a Py<PyAny>,
    hermitian: bool,
    ctx: &'a Ctx,
    _s: std::marker::PhantomData<S>,
}

impl<S: PyScalar> Callback<'_, S> {
    /// A·x through Python: x goes in as a new array, the result is read back as a 1-D
    /// array of `S` of length n.
    fn call(&self, x: &[S]) -> PyResult<Vec<S>> {
        Python::attach(|py| {
            let xa = PyArray1::from_slice(py, x);
            let r = self.matvec.call1(py, (xa,))?;
            let np = py.import("numpy")?;
            let dtype = if S::COMPLEX { "complex128" } else { "float64" };
            let arr = np.call_method1("ascontiguousarray", (r, dtype))?;
            let arr = np.call_method1("ravel", (arr,))?;
            let ro = arr.extract::<PyReadonlyArray1<'_, S>>()?;
            let v = ro.as_slice().map_err(|e| invalid(py, e.to_string()))?;
            if v.len() != self.n {
                return Err(crate::errors::by_name(
                    py,
                    "DimensionMismatchError",
                    format!(
                        "the operator's matvec returned {} values for a vector of length {}",
                        v.len(),
                        self.n
                    ),
                ));
            }
            Ok(v.to_vec())
        })
    }
}

impl<S: PyScalar> LinearOperator<CpuBackend, S> for Callback<'_, S> {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(&self, _: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        match self.call(x) {
            Ok(ax) => {
                for (yi, a) in y.iter_mut().zip(ax) {
                    *yi = if beta == S::zero() {
                        alpha * a
                    } else {
                        alpha * a + beta * *yi
                    };
                }
                Ok(())
            }
            Err(e) => {
                self.ctx.fail(e);
                Err(matexp::Error::invalid(
                    "operator",
                    "matvec",
                    "the Python matvec raised an exception",
                ))
            }
        }
    }
    fn is_hermitian(&self) -> bool {
        self.hermitian
    }
}
