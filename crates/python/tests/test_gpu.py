"""The GPU path (device="gpu", CuPy inputs): results equal the CPU's. Skipped without a GPU
build and a device; run on the GPU host."""

import numpy as np
import pytest
import scipy.sparse as sp

import matexp
from reference import rel

ok, why = matexp.gpu_available()
pytestmark = pytest.mark.skipif(not ok, reason=f"no GPU: {why}")


def laplacian_1d(n):
    return sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr") * (n + 1) ** 2


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_gpu_equals_cpu_on_host_arrays(index):
    A = laplacian_1d(2000)
    A = sp.csr_array((A.data, A.indices.astype(index), A.indptr.astype(index)), shape=A.shape)
    b = np.sin(np.linspace(0, np.pi, 2000))
    for grid in (dict(), dict(start=-1e-4, stop=1e-3, num=4)):
        cpu = matexp.expm_multiply(A * 1e-3, b, **grid)
        gpu = matexp.expm_multiply(A * 1e-3, b, device="gpu", **grid)
        assert rel(gpu, cpu) <= 1e-12


def test_gpu_complex_time_and_phi():
    H = sp.random(500, 500, density=0.02, random_state=3)
    H = ((H + H.T) * 0.5).tocsr()
    v = np.random.default_rng(1).standard_normal(500) + 0j
    cpu = matexp.expmv(H, v, -2j, rtol=1e-12)
    gpu = matexp.expmv(H, v, -2j, rtol=1e-12, device="gpu:0")
    assert rel(gpu, cpu) <= 1e-10
    assert rel(matexp.phimv(H, v.real, 0.5, 2, rtol=1e-12, device="gpu"),
               matexp.phimv(H, v.real, 0.5, 2, rtol=1e-12)) <= 1e-10


def test_cupy_arrays_in_cupy_arrays_out():
    cp = pytest.importorskip("cupy")
    cpx = pytest.importorskip("cupyx.scipy.sparse")
    A = laplacian_1d(1000) * 1e-3
    b = np.cos(np.linspace(0, 3, 1000))
    Ag, bg = cpx.csr_matrix(A), cp.asarray(b)
    w = matexp.expm_multiply(Ag, bg, device="gpu")
    assert isinstance(w, cp.ndarray)
    assert rel(cp.asnumpy(w), matexp.expm_multiply(A, b)) <= 1e-12


def test_an_ordinal_beyond_the_devices_is_an_invalid_argument_naming_the_count():
    with pytest.raises(matexp.InvalidArgumentError, match="CUDA device"):
        matexp.expm_multiply(np.eye(3), np.ones(3), device="gpu:64")


def test_callbacks_stay_on_the_cpu():
    import scipy.sparse.linalg as sla

    L = sla.aslinearoperator(np.eye(3))
    with pytest.raises(matexp.UnsupportedError):
        matexp.expm_multiply(L, np.ones(3), device="gpu")
