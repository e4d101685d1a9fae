"""Python inputs as matexp operators and blocks: ndarrays, every scipy.sparse format,
``scipy.sparse.linalg.LinearOperator`` and matexp's model objects."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _matexp
from ._errors import DimensionMismatchError, InvalidArgumentError, NonFiniteError


def _value_dtype(dtype: np.dtype) -> np.dtype:
    """float64 for real (and integer, boolean) values, complex128 for complex ones."""
    return np.dtype(np.complex128) if np.issubdtype(dtype, np.complexfloating) else np.dtype(np.float64)


def _check_finite(values: np.ndarray, what: str) -> None:
    if values.size and not np.isfinite(values).all():
        i = int(np.flatnonzero(~np.isfinite(values.ravel()))[0])
        raise NonFiniteError(f"non-finite value in {what} at index {i}: {values.ravel()[i]}")


def _square(shape: tuple, what: str = "A") -> int:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise DimensionMismatchError(f"expected {what} to be like a square matrix, got shape {shape}")
    return int(shape[0])


def _csr(a: Any) -> _matexp.Operator:
    """A scipy.sparse matrix or array: its own CSR arrays when their types allow (int32 or
    int64 indices of one dtype, float64 or complex128 values, contiguous), else a CSR copy."""
    import scipy.sparse as sp

    if a.format != "csr":
        a = a.tocsr()
    data = a.data
    vt = _value_dtype(data.dtype)
    if data.dtype != vt or not data.flags.c_contiguous:
        data = np.ascontiguousarray(data, dtype=vt)
    indptr, indices = a.indptr, a.indices
    it = np.int64 if np.int64 in (indptr.dtype, indices.dtype) else np.int32
    if indptr.dtype != it or indices.dtype != it:
        indptr, indices = indptr.astype(it), indices.astype(it)
    indptr, indices = np.ascontiguousarray(indptr), np.ascontiguousarray(indices)
    _check_finite(data, "A")
    assert sp.issparse(a)
    return _matexp.Operator.csr((int(a.shape[0]), int(a.shape[1])), indptr, indices, data)


def as_operator(A: Any, *, hermitian: bool | None = None) -> _matexp.Operator:
    """``A`` as a :class:`matexp._matexp.Operator`, square. ``hermitian`` declares a
    LinearOperator symmetric/Hermitian (enables Lanczos); matrices are tested exactly."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    if isinstance(A, _matexp.Operator):
        op = A
    elif hasattr(A, "_matexp_operator"):
        op = A._matexp_operator()
    elif sp.issparse(A):
        _square(A.shape)
        op = _csr(A)
    elif isinstance(A, sla.LinearOperator):
        n = _square(A.shape)
        complex_ = np.issubdtype(np.dtype(A.dtype), np.complexfloating) if A.dtype is not None else False
        if not callable(getattr(A, "matvec", None)):
            raise InvalidArgumentError("A: the LinearOperator has no callable matvec")
        op = _matexp.Operator.callback(n, A.matvec, bool(complex_), bool(hermitian))
    elif callable(A) and not hasattr(A, "__array__"):
        raise InvalidArgumentError(
            "A: a bare callable is not an operator; wrap it as "
            "scipy.sparse.linalg.LinearOperator((n, n), matvec=f)"
        )
    else:
        if hasattr(A, "__cuda_array_interface__") or type(A).__module__.startswith("cupy"):
            raise InvalidArgumentError("A: a CuPy array needs device='gpu'")
        a = np.asarray(A)
        if a.dtype == object:
            raise InvalidArgumentError(f"A: cannot use an array of Python objects ({type(A).__name__})")
        _square(a.shape)
        a = np.ascontiguousarray(a, dtype=_value_dtype(a.dtype))
        _check_finite(a, "A")
        op = _matexp.Operator.dense(a)
    _square(op.shape)
    return op


def as_block(B: Any, n: int, what: str = "B") -> tuple[np.ndarray, tuple]:
    """``B`` (1-D of length n or 2-D with n rows) as a (k, n) C-contiguous float64 or
    complex128 block, with B's own shape."""
    b = np.asarray(B)
    if b.dtype == object:
        raise InvalidArgumentError(f"{what}: cannot use an array of Python objects")
    if b.ndim not in (1, 2):
        raise DimensionMismatchError(f"expected {what} to be 1-D or 2-D, got shape {b.shape}")
    if b.shape[0] != n:
        raise DimensionMismatchError(
            f"the matrices A and {what} have incompatible shapes: A is {n} × {n}, {what} has shape {b.shape}"
        )
    b = b.astype(_value_dtype(b.dtype), copy=False)
    _check_finite(b, what)
    block = b[None, :] if b.ndim == 1 else b.T
    return np.ascontiguousarray(block), b.shape


def unblock(out: np.ndarray, shape: tuple) -> np.ndarray:
    """An (m, k, n) result as (m,) + B's shape."""
    m = out.shape[0]
    if len(shape) == 1:
        return out[:, 0, :]
    return np.ascontiguousarray(np.transpose(out, (0, 2, 1))).reshape((m,) + shape)
