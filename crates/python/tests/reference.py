"""Independent references for the tests: dense exponentials by scipy.linalg.expm."""

import numpy as np
import scipy.linalg as la


def dense(A):
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A)


def expm_grid(A, B, times):
    """e^{tA}B for each t, by dense expm (Padé with scaling and squaring)."""
    M = dense(A)
    return np.array([la.expm(t * M) @ B for t in times])


def rel(x, ref):
    """max |x − ref| / max |ref| per leading index (per time), the worst of them."""
    x, ref = np.asarray(x), np.asarray(ref)
    if x.ndim <= 1 or x.shape[0] == 0:
        return float(np.max(np.abs(x - ref)) / max(np.max(np.abs(ref)), 1e-300))
    axes = tuple(range(1, x.ndim))
    num = np.max(np.abs(x - ref), axis=axes)
    den = np.maximum(np.max(np.abs(ref), axis=axes), 1e-300)
    return float(np.max(num / den))
