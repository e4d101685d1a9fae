"""The solves: :func:`expm_multiply` (SciPy's signature), :func:`expmv` and :func:`phimv`."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _matexp
from ._convert import as_block, as_operator, unblock
from ._errors import DeviceError, InvalidArgumentError

#: The unit roundoff of float64, 2⁻⁵³: SciPy's ``expm_multiply`` tolerance and the default
#: of :func:`expm_multiply`.
UNIT_ROUNDOFF = 2.0**-53

#: Below this rtol, ``method="auto"`` of :func:`expm_multiply` is the Taylor method.
TAYLOR_BELOW = 1e-14

Times = Union[float, complex, Sequence[Union[float, complex]], np.ndarray]


def _device(device: str) -> Optional[int]:
    """None for the CPU, the ordinal for ``"gpu"`` / ``"gpu:N"``; a DeviceError when this
    build or this machine has no GPU."""
    if device == "cpu":
        return None
    if device == "gpu" or device.startswith("gpu:"):
        try:
            ordinal = int(device[4:]) if ":" in device else 0
        except ValueError:
            raise InvalidArgumentError(f"device = {device!r}: expected 'cpu', 'gpu' or 'gpu:N'") from None
        if ordinal < 0:
            raise InvalidArgumentError(f"device = {device!r}: the ordinal must be ≥ 0")
        if not _matexp.GPU_BUILD:
            raise DeviceError(f"device = {device!r}: this build of matexp has no GPU backend "
                              "(build the wheel with the cargo feature `gpu`)")
        return ordinal
    raise InvalidArgumentError(f"device = {device!r}: expected 'cpu', 'gpu' or 'gpu:N'")


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.split(".")[0] in ("cupy", "cupyx")


def _from_device(A: Any, B: Any) -> tuple[Any, Any, bool]:
    """CuPy inputs as host arrays (a copy to the host: the arrays are uploaded again by the
    solve), and whether the result goes back to CuPy."""
    on_gpu = _is_cupy(B) or _is_cupy(A)
    if _is_cupy(A):
        A = A.get()
    if _is_cupy(B):
        B = B.get()
    return A, B, on_gpu


def _to_device(x: np.ndarray, on_gpu: bool) -> Any:
    if not on_gpu:
        return x
    import cupy

    return cupy.asarray(x)


def _times(t: Times) -> tuple[list[complex], bool]:
    """The times as a list, and whether ``t`` was a single time."""
    arr = np.asarray(t)
    if arr.ndim > 1:
        raise InvalidArgumentError(f"t: expected a time or a 1-D list of times, got shape {arr.shape}")
    scalar = arr.ndim == 0
    arr = np.atleast_1d(arr)
    if arr.size == 0:
        raise InvalidArgumentError("t: expected at least one time")
    if not np.issubdtype(arr.dtype, np.number):
        raise InvalidArgumentError(f"t: expected numbers, got {arr.dtype}")
    return [complex(x) for x in arr], scalar


def _solve_times(A: Any, B: Any, times: list[complex], *, method: str, rtol: Optional[float], atol: float,
                 max_products: Optional[int], progress: Optional[Callable[[int], Any]],
                 hermitian: Optional[bool], device: Optional[int] = None) -> tuple[np.ndarray, dict, tuple]:
    op = as_operator(A, hermitian=hermitian)
    block, shape = as_block(B, op.shape[0])
    if block.shape[0] == 0:
        dtype = np.result_type(block.dtype, np.complex128 if op.is_complex else np.float64)
        return np.zeros((len(times),) + shape, dtype=dtype), {"method": "none", "products": 0}, shape
    out, info = _matexp.expmv_times(op, block, times, method=method, rtol=rtol, atol=atol,
                                    max_products=max_products, progress=progress, device=device)
    return unblock(out, shape), info, shape


def expm_multiply(A: Any, B: Any, start: Any = None, stop: Any = None, num: Optional[int] = None,
                  endpoint: Optional[bool] = None, traceA: Any = None, *, method: str = "auto",
                  rtol: Optional[float] = None, atol: float = 0.0, device: str = "cpu") -> np.ndarray:
    """e^{tA}B as :func:`scipy.sparse.linalg.expm_multiply` computes it, with the same
    signature, shapes and dtypes (float64 or complex128), so that
    ``from matexp import expm_multiply`` replaces SciPy's.

    With ``start``, ``stop``, ``num`` and ``endpoint`` all None the result is e^{A}B (B's
    shape). Otherwise it is e^{t_j A}B at ``t = numpy.linspace(start, stop, num, endpoint)``
    (defaults 0, 1, 50, True), shape ``(num,) + B.shape``; any start, t < 0 and
    stop < start are right (SciPy 1.8-1.17 are not: scipy issues 16311, 16363, 16375).

    A: an ndarray, any scipy.sparse matrix or array (CSR with int32/int64 indices and
    float64/complex128 values is used without a copy; other formats and types are
    converted), a ``scipy.sparse.linalg.LinearOperator`` (its ``matvec`` is called with the
    GIL taken only for the call) or a matexp model. B: 1-D or 2-D, real or complex.

    Accuracy: by default ``rtol`` is the unit roundoff 2⁻⁵³, SciPy's own tolerance, so
    results agree with SciPy's where SciPy is right; a larger ``rtol`` trades accuracy for
    speed (the error is ‖w − e^{tA}b‖₂ ≲ atol + rtol·‖e^{tA}b‖₂ per column, estimated).
    ``traceA`` is accepted for compatibility and checked, not needed: the methods take their
    shift and norms from A itself. ``method``: "auto" (below rtol 1e-14, so by default, the
    Taylor method, SciPy's Al-Mohy–Higham algorithm; from 1e-14 up Lanczos for Hermitian A,
    Arnoldi otherwise, Taylor where those decline), "taylor", "lanczos", "arnoldi" or "leja".

    >>> import numpy as np, scipy.sparse as sp
    >>> from matexp import expm_multiply
    >>> A = sp.csr_array(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    >>> w = expm_multiply(A, np.array([1.0, 0.0]), start=0, stop=np.pi, num=3)
    >>> w.shape                          # e^{tA}b = (cos t, −sin t) at t = 0, π/2, π
    (3, 2)
    >>> bool(np.allclose(w, [[1, 0], [0, -1], [-1, 0]], rtol=0, atol=1e-14))
    True
    """
    ordinal = _device(device)
    A, B, on_gpu = _from_device(A, B)
    if traceA is not None and not np.isfinite(complex(traceA)):
        raise InvalidArgumentError(f"traceA = {traceA!r}: must be finite")
    rtol = UNIT_ROUNDOFF if rtol is None else rtol
    if method == "auto" and rtol < TAYLOR_BELOW:
        # At SciPy's tolerance the Krylov methods meet their rounding floor (Lanczos grinds
        # on before declining); the Taylor method is SciPy's own algorithm there.
        method = "taylor"
    kw: dict[str, Any] = dict(method=method, rtol=rtol, atol=atol, max_products=None, progress=None,
                              hermitian=None, device=ordinal)
    if all(x is None for x in (start, stop, num, endpoint)):
        out, _, _ = _solve_times(A, B, [1.0], **kw)
        return _to_device(out[0], on_gpu)
    start = 0.0 if start is None else start
    stop = 1.0 if stop is None else stop
    num = 50 if num is None else int(num)
    endpoint = True if endpoint is None else bool(endpoint)
    if num < 0:
        raise InvalidArgumentError(f"num = {num}: must be non-negative")
    grid = np.linspace(start, stop, num=num, endpoint=endpoint)
    if num == 0:
        op = as_operator(A)
        block, shape = as_block(B, op.shape[0])
        dtype = np.result_type(block.dtype, np.complex128 if op.is_complex else np.float64, grid.dtype)
        return _to_device(np.zeros((0,) + shape, dtype=dtype), on_gpu)
    out, _, _ = _solve_times(A, B, list(grid.astype(complex)), **kw)
    return _to_device(out, on_gpu)


def expmv(A: Any, v: Any, t: Times = 1.0, *, method: str = "auto", rtol: Optional[float] = None,
          atol: float = 0.0, max_products: Optional[int] = None,
          progress: Optional[Callable[[int], Any]] = None, hermitian: Optional[bool] = None,
          return_info: bool = False, device: str = "cpu") -> Any:
    """w = e^{tA}v for one time (v's shape) or a list of times (``(len(t),) + v.shape``).

    ``t`` real, negative or complex (complex times of a list must lie on one line through
    0, e.g. −iτ_j). ``rtol`` defaults to 1e-8 (the facade's default; 2⁻⁵³ is the smallest).
    ``progress(products)`` is called at most every 50 ms and at the end; Ctrl-C stops the
    solve between products. ``hermitian=True`` declares a LinearOperator Hermitian.
    ``return_info=True`` returns ``(w, info)``, info a dict: method, products,
    rel_error_estimate, rtol, converged, declined, report.

    >>> import numpy as np
    >>> from matexp import expmv
    >>> w, info = expmv(np.array([[-1.0]]), np.array([1.0]), 2.0, return_info=True)
    >>> bool(abs(w[0] - np.exp(-2.0)) < 1e-8 * np.exp(-2.0)), info["converged"]
    (True, True)
    """
    ordinal = _device(device)
    A, v, on_gpu = _from_device(A, v)
    times, scalar = _times(t)
    out, info, _ = _solve_times(A, v, times, method=method, rtol=rtol, atol=atol,
                                max_products=max_products, progress=progress, hermitian=hermitian,
                                device=ordinal)
    w = _to_device(out[0] if scalar else out, on_gpu)
    return (w, info) if return_info else w


def phimv(A: Any, v: Any, t: Union[float, complex] = 1.0, k: int = 1, *, all: bool = False,
          method: str = "auto", rtol: Optional[float] = None, atol: float = 0.0,
          max_products: Optional[int] = None, progress: Optional[Callable[[int], Any]] = None,
          hermitian: Optional[bool] = None, return_info: bool = False, device: str = "cpu") -> Any:
    """φ_k(tA)v (v's shape), or with ``all=True`` the stack φ₀(tA)v … φ_k(tA)v
    (``(k + 1,) + v.shape``); φ₀ = exp, φ_k(z) = Σ_i z^i/(i + k)!.

    Options as :func:`expmv`.

    >>> import numpy as np
    >>> from matexp import phimv
    >>> z = -2.0
    >>> w = phimv(np.array([[z]]), np.array([1.0]), 1.0, 1)
    >>> bool(abs(w[0] - (np.exp(z) - 1) / z) < 1e-8)
    True
    """
    ordinal = _device(device)
    A, v, on_gpu = _from_device(A, v)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise InvalidArgumentError(f"k = {k!r}: expected an integer ≥ 0")
    tt = np.asarray(t)
    if tt.ndim != 0 or not np.issubdtype(tt.dtype, np.number):
        raise InvalidArgumentError(f"t = {t!r}: expected one real or complex time")
    op = as_operator(A, hermitian=hermitian)
    block, shape = as_block(v, op.shape[0], "v")
    out, info = _matexp.phimv(op, block, complex(tt), int(k), bool(all), method=method, rtol=rtol,
                              atol=atol, max_products=max_products, progress=progress, device=ordinal)
    w = unblock(out, shape)
    w = _to_device(w if all else w[0], on_gpu)
    return (w, info) if return_info else w
