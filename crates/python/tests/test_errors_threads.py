"""Bad input raises matexp.Error subclasses; solves run in threads; Ctrl-C stops them."""

import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import matexp
from reference import expm_grid, rel


def test_error_hierarchy():
    assert issubclass(matexp.InvalidArgumentError, ValueError)
    assert issubclass(matexp.DimensionMismatchError, ValueError)
    assert issubclass(matexp.NonFiniteError, ValueError)
    assert issubclass(matexp.NoConvergenceError, RuntimeError)
    assert issubclass(matexp.DeviceError, RuntimeError)
    for cls in (matexp.InvalidArgumentError, matexp.NoConvergenceError, matexp.DeviceError):
        assert issubclass(cls, matexp.Error)


@pytest.mark.parametrize("A, b, exc", [
    (np.ones((2, 3)), np.ones(2), matexp.DimensionMismatchError),
    (np.eye(3), np.ones(2), matexp.DimensionMismatchError),
    (np.eye(3), np.ones((3, 2, 2)), matexp.DimensionMismatchError),
    (np.array([[np.nan, 0.0], [0.0, 1.0]]), np.ones(2), matexp.NonFiniteError),
    (np.eye(2), np.array([1.0, np.inf]), matexp.NonFiniteError),
    (sp.csr_array(np.array([[np.nan, 0.0], [0.0, 1.0]])), np.ones(2), matexp.NonFiniteError),
    (lambda x: x, np.ones(2), matexp.InvalidArgumentError),
    (np.ones(3), np.ones(3), matexp.DimensionMismatchError),
])
def test_bad_inputs(A, b, exc):
    with pytest.raises(exc):
        matexp.expm_multiply(A, b)


def test_library_messages_and_options():
    with pytest.raises(matexp.InvalidArgumentError, match="method"):
        matexp.expmv(np.eye(2), np.ones(2), method="nope")
    with pytest.raises(matexp.InvalidArgumentError, match="roundoff"):
        matexp.expmv(np.eye(2), np.ones(2), rtol=1e-20)
    with pytest.raises(matexp.InvalidArgumentError):
        matexp.expmv(np.eye(2), np.ones(2), [])
    with pytest.raises(matexp.InvalidArgumentError):
        matexp.phimv(np.eye(2), np.ones(2), 1.0, -1)
    with pytest.raises(matexp.NoConvergenceError, match="max_products"):
        matexp.expmv(sp.random(50, 50, density=0.2, random_state=1) * 50, np.ones(50),
                     method="arnoldi", max_products=3)


def test_malformed_csr_is_refused():
    A = sp.csr_array(np.eye(2))
    A.indices[1] = 7
    with pytest.raises(matexp.InvalidArgumentError):
        matexp.expm_multiply(A, np.ones(2))
    A.indices[1] = -1
    with pytest.raises(matexp.InvalidArgumentError):
        matexp.expm_multiply(A, np.ones(2))


def test_callback_exceptions_propagate():
    def matvec(x):
        raise ZeroDivisionError("inside matvec")

    L = sla.LinearOperator((3, 3), matvec=matvec, dtype=np.float64)
    with pytest.raises(ZeroDivisionError, match="inside matvec"):
        matexp.expm_multiply(L, np.ones(3))


class Short(sla.LinearOperator):
    """A LinearOperator whose matvec (overridden, so SciPy's shape check is bypassed)
    returns too few values."""

    def __init__(self):
        super().__init__(np.float64, (3, 3))

    def matvec(self, x):
        return np.ones(2)


def test_callback_wrong_length():
    L = Short()
    with pytest.raises(matexp.DimensionMismatchError):
        matexp.expm_multiply(L, np.ones(3))


def test_no_gpu_is_a_device_error():
    ok, why = matexp.gpu_available()
    if ok:
        pytest.skip("a GPU is present")
    for device in ("gpu", "gpu:1"):
        with pytest.raises(matexp.DeviceError):
            matexp.expm_multiply(np.eye(2), np.ones(2), device=device)
    with pytest.raises(matexp.InvalidArgumentError):
        matexp.expm_multiply(np.eye(2), np.ones(2), device="tpu")


def test_threads_give_the_same_results(rng):
    A = (sp.random(300, 300, density=0.02, random_state=4) - sp.eye(300)).tocsr()
    bs = [rng.standard_normal(300) for _ in range(8)]
    ref = [expm_grid(A, b, [1.0])[0] for b in bs]
    out = [None] * len(bs)

    def work(i):
        out[i] = matexp.expm_multiply(A, bs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(bs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o, r in zip(out, ref):
        assert rel(o, r) <= 1e-12


def test_gil_is_released_during_a_solve():
    """A second Python thread makes progress while a long matrix solve runs."""
    n = 200_000
    A = sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr") * 0.25
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    matexp.expmv(A, np.ones(n), 50.0, method="taylor", rtol=1e-12)
    done.set()
    t.join()
    assert len(ticks) >= 5


def test_ctrl_c_stops_a_long_solve():
    script = textwrap.dedent("""
        import os, signal, threading, time, numpy as np, scipy.sparse as sp, matexp
        n = 400_000
        A = sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t0 = time.time()
        try:
            matexp.expmv(A, np.ones(n), 1e5, method="taylor", rtol=1e-12)
            print("finished", time.time() - t0)
        except KeyboardInterrupt:
            print("interrupted", time.time() - t0)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.stdout.startswith("interrupted"), (r.stdout, r.stderr)
    assert float(r.stdout.split()[1]) < 5.0
