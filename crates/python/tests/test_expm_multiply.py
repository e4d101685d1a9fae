"""matexp.expm_multiply against SciPy's and against dense references."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import matexp
from reference import expm_grid, rel

TOL = 1e-12


def problems(rng):
    n = 60
    sym = sp.random(n, n, density=0.1, random_state=1, format="csr")
    sym = (sym + sym.T) * 0.5 - 2 * sp.eye(n)
    nonsym = sp.random(n, n, density=0.1, random_state=2, format="csr") - sp.eye(n)
    stiff = sp.diags(-np.logspace(0, 3, n)) + 0.1 * sp.random(n, n, density=0.05, random_state=3)
    tri = sp.triu(sp.random(n, n, density=0.2, random_state=4)) * 3
    herm = sp.random(n, n, density=0.1, random_state=5) + 1j * sp.random(n, n, density=0.1, random_state=6)
    herm = (herm + herm.conj().T) * 0.5
    cplx = sp.random(n, n, density=0.1, random_state=7) * (1 + 2j) - sp.eye(n)
    dense = rng.standard_normal((n, n)) / np.sqrt(n)
    return {
        "symmetric": sym.tocsr(), "nonsymmetric": nonsym.tocsr(), "stiff": stiff.tocsr(),
        "triangular": tri.tocsr(), "hermitian": herm.tocsr(), "complex": cplx.tocsr(),
        "dense": dense,
    }


def agree(ours, scipy_result, reference):
    """Ours equals SciPy's to 1e-12 where SciPy is right (within 1e-12 of the dense
    reference), and equals the reference where SciPy is not."""
    if rel(scipy_result, reference) <= TOL:
        assert rel(ours, scipy_result) <= TOL, (rel(ours, scipy_result), rel(ours, reference))
    else:
        assert rel(ours, reference) <= TOL, rel(ours, reference)


@pytest.mark.parametrize("name", ["symmetric", "nonsymmetric", "stiff", "triangular", "hermitian", "complex", "dense"])
@pytest.mark.parametrize("bshape", [(60,), (60, 3)])
def test_single_time_matches_scipy(rng, name, bshape):
    A = problems(rng)[name]
    B = rng.standard_normal(bshape)
    ours = matexp.expm_multiply(A, B)
    ref = expm_grid(A, B, [1.0])[0]
    assert ours.shape == B.shape
    assert ours.dtype == (np.complex128 if np.iscomplexobj(A.data if sp.issparse(A) else A) else np.float64)
    # One time: the relative error is taken over the whole result.
    agree(ours[None], sla.expm_multiply(A, B)[None], ref[None])


GRIDS = [
    dict(start=0, stop=1, num=5, endpoint=True),
    dict(start=0, stop=2, num=4, endpoint=False),
    dict(start=0.5, stop=1.5, num=3, endpoint=True),
    dict(start=-1.0, stop=0.0, num=4, endpoint=True),
    dict(start=1.0, stop=-1.0, num=5, endpoint=True),
    dict(start=2.0, stop=1.0, num=3, endpoint=False),
    dict(start=0.3, stop=0.3, num=2, endpoint=True),
    dict(start=0.7, stop=1.0, num=1, endpoint=True),
]


@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("name", ["symmetric", "nonsymmetric", "complex"])
def test_every_grid_form(rng, grid, name):
    A = problems(rng)[name]
    B = rng.standard_normal((60, 2))
    ours = matexp.expm_multiply(A, B, **grid)
    times = np.linspace(grid["start"], grid["stop"], grid["num"], endpoint=grid["endpoint"])
    ref = expm_grid(A, B, times)
    assert ours.shape == (grid["num"], 60, 2)
    if grid["num"] < 2:  # SciPy refuses a grid of one time; the reference decides.
        assert rel(ours, ref) <= TOL
    else:
        agree(ours, sla.expm_multiply(A, B, **grid), ref)


def test_grid_defaults_are_scipys(rng):
    A = problems(rng)["symmetric"]
    b = rng.standard_normal(60)
    ours = matexp.expm_multiply(A, b, stop=0.5)
    assert ours.shape == (50, 60)
    assert rel(ours, expm_grid(A, b, np.linspace(0, 0.5, 50))) <= TOL


# SciPy's three open grid issues (16311: start != 0; 16363: t < 0; 16375: stop < start):
# a 40-digit reference (mpmath) decides, whatever SciPy returns.
@pytest.mark.parametrize("grid", [
    dict(start=1.0, stop=2.0, num=3, endpoint=True),     # scipy#16311
    dict(start=-2.0, stop=-1.0, num=3, endpoint=True),   # scipy#16363
    dict(start=2.0, stop=0.5, num=4, endpoint=True),     # scipy#16375
])
def test_scipy_grid_issues_are_right(rng, grid):
    A = sp.csr_array(np.array([[-1.0, 2.0, 0.0], [0.5, -3.0, 1.0], [0.0, 1.0, -0.5]]) * 4)
    b = np.array([1.0, -2.0, 0.5])
    ours = matexp.expm_multiply(A, b, **grid)
    times = np.linspace(grid["start"], grid["stop"], grid["num"], endpoint=grid["endpoint"])
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    M = mpmath.matrix(A.toarray().tolist())
    ref = np.array([[float(x) for x in mpmath.expm(float(t) * M) * mpmath.matrix(b.tolist())] for t in times])
    assert rel(ours, ref) <= TOL


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "lil", "dok", "dia"])
@pytest.mark.parametrize("kind", ["matrix", "array"])
def test_every_sparse_format(rng, fmt, kind):
    A = problems(rng)["nonsymmetric"]
    M = (sp.csr_matrix(A) if kind == "matrix" else sp.csr_array(A)).asformat(fmt)
    b = rng.standard_normal(60)
    assert rel(matexp.expm_multiply(M, b), expm_grid(A, b, [1.0])[0]) <= TOL


@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
def test_index_and_value_types(rng, index, dtype):
    A = sp.csr_array(problems(rng)["nonsymmetric"])
    A = sp.csr_array((A.data.astype(dtype) if dtype != np.int64 else np.round(A.data * 3).astype(dtype),
                      A.indices.astype(index), A.indptr.astype(index)), shape=A.shape)
    b = rng.standard_normal(60)
    ref = expm_grid(A.astype(np.complex128 if dtype == np.complex128 else np.float64), b, [1.0])[0]
    assert rel(matexp.expm_multiply(A, b), ref) <= TOL


def test_csr_is_used_without_copy():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    op = matexp.as_operator(A)
    assert op.kind == "csr"
    assert matexp.as_operator(A.tocsc()).kind == "csr"
    assert matexp.as_operator(np.eye(2)).kind == "matrix"


def test_complex_vectors_of_a_real_matrix(rng):
    A = problems(rng)["nonsymmetric"]
    B = rng.standard_normal((60, 2)) + 1j * rng.standard_normal((60, 2))
    ours = matexp.expm_multiply(A, B, start=-0.5, stop=1.0, num=4)
    assert ours.dtype == np.complex128
    assert rel(ours, expm_grid(A, B, np.linspace(-0.5, 1.0, 4))) <= TOL


def test_linear_operator_callback(rng):
    A = problems(rng)["nonsymmetric"]
    calls = []

    def matvec(x):
        calls.append(1)
        return A @ x

    L = sla.LinearOperator(A.shape, matvec=matvec, dtype=np.float64)
    b = rng.standard_normal(60)
    assert rel(matexp.expm_multiply(L, b), expm_grid(A, b, [1.0])[0]) <= TOL
    assert len(calls) > 0


def test_trace_is_accepted(rng):
    A = problems(rng)["symmetric"]
    b = rng.standard_normal(60)
    assert rel(matexp.expm_multiply(A, b, traceA=A.diagonal().sum()), expm_grid(A, b, [1.0])[0]) <= TOL


def test_num_zero_and_empty_block(rng):
    A = problems(rng)["symmetric"]
    assert matexp.expm_multiply(A, np.ones(60), start=0, stop=1, num=0).shape == (0, 60)
    assert matexp.expm_multiply(A, np.ones((60, 0))).shape == (60, 0)


def test_rtol_trades_accuracy_for_products(rng):
    A = problems(rng)["nonsymmetric"] * 20
    b = rng.standard_normal(60)
    ref = expm_grid(A, b, [1.0])[0]
    _, tight = matexp.expmv(A, b, 1.0, rtol=matexp.UNIT_ROUNDOFF, return_info=True)
    loose_w, loose = matexp.expmv(A, b, 1.0, rtol=1e-6, return_info=True)
    assert loose["products"] < tight["products"]
    assert rel(loose_w, ref) <= 1e-5
