"""expmv and phimv: times, φ-functions, info, against dense references."""

import math

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp

import matexp
from reference import dense, expm_grid, rel


def matrix(n=40, seed=3):
    A = sp.random(n, n, density=0.15, random_state=seed, format="csr") - 2 * sp.eye(n)
    return A.tocsr()


def phi_dense(M, k):
    """φ_k(M) from the exponential of the augmented block matrix [[M, I, 0..], [0, 0, I..]...]."""
    n = M.shape[0]
    big = np.zeros((n + k * n, n + k * n), dtype=np.result_type(M, float))
    big[:n, :n] = M
    for j in range(k):
        big[j * n:(j + 1) * n, (j + 1) * n:(j + 2) * n] = np.eye(n)
    E = la.expm(big)
    return E[:n, k * n:(k + 1) * n] if k else E[:n, :n]


def test_expmv_complex_time_is_schrodinger(rng):
    H = sp.random(30, 30, density=0.2, random_state=1)
    H = ((H + H.T) * 0.5).tocsr()
    v = rng.standard_normal(30) + 0j
    w, info = matexp.expmv(H, v, -0.7j, return_info=True, rtol=1e-12)
    ref = la.expm(-0.7j * dense(H)) @ v
    assert rel(w, ref) <= 1e-10
    assert info["method"] == "lanczos" and info["converged"]
    assert abs(np.linalg.norm(w) - np.linalg.norm(v)) <= 1e-10 * np.linalg.norm(v)


def test_expmv_list_of_times(rng):
    A = matrix()
    v = rng.standard_normal(40)
    times = [0.3, -0.2, 1.5, 0.0]
    w = matexp.expmv(A, v, times, rtol=1e-12)
    assert w.shape == (4, 40)
    assert rel(w, expm_grid(A, v, times)) <= 1e-9


@pytest.mark.parametrize("k", [0, 1, 2, 4])
@pytest.mark.parametrize("t", [0.5, -1.0])
def test_phimv_single_order(rng, k, t):
    A = matrix()
    v = rng.standard_normal(40)
    ref = phi_dense(t * dense(A), k) @ v
    assert rel(matexp.phimv(A, v, t, k, rtol=1e-12), ref) <= 1e-9


def test_phimv_all_orders_with_info(rng):
    A = matrix()
    V = rng.standard_normal((40, 2))
    w, info = matexp.phimv(A, V, 0.8, 3, all=True, rtol=1e-10, return_info=True)
    assert w.shape == (4, 40, 2)
    for j in range(4):
        assert rel(w[j], phi_dense(0.8 * dense(A), j) @ V) <= 1e-8
    assert info["products"] > 0 and info["converged"]


def test_phimv_scalar_case():
    z = -2.0
    w = matexp.phimv(np.array([[z]]), np.array([1.0]), 1.0, 2, rtol=1e-13)
    assert abs(w[0] - (math.exp(z) - 1 - z) / z**2) <= 1e-12


@pytest.mark.parametrize("method", ["lanczos", "arnoldi", "taylor", "leja"])
def test_every_method_on_a_symmetric_problem(rng, method):
    A = matrix()
    A = ((A + A.T) * 0.5).tocsr()
    v = rng.standard_normal(40)
    w, info = matexp.expmv(A, v, 1.0, method=method, rtol=1e-10, return_info=True)
    assert info["method"] == method
    assert rel(w, expm_grid(A, v, [1.0])[0]) <= 1e-8


def test_progress_is_called_with_products(rng):
    A = matrix()
    seen = []
    _, info = matexp.expmv(A, rng.standard_normal(40), 2.0, progress=seen.append, return_info=True)
    assert seen and seen[-1] >= info["products"] > 0
