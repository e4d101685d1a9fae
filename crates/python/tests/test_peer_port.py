"""The GPU benchmark's peer, the port of SciPy's expm_multiply (bench/cupy_expm_multiply.py),
run on the host through NumPy: it must compute e^{tA}b to SciPy's accuracy."""

import os
import sys

import numpy as np
import scipy.sparse as sp

from reference import expm_grid, rel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import cupy_expm_multiply as peer  # noqa: E402


def test_port_matches_dense_expm():
    n = 80
    A = (sp.random(n, n, density=0.1, random_state=5) * 10 - 3 * sp.eye(n)).tocsr()
    b = np.linspace(-1, 1, n)
    for t in (0.3, 2.0):
        w, products, m_star, s = peer.expm_multiply(A, b.copy(), t, xp=np, sparse=sp, scatter_add=np.add.at)
        assert rel(w, expm_grid(A, b, [t])[0]) <= 1e-12
        assert products > 0 and 1 <= m_star <= 55 and s >= 1
