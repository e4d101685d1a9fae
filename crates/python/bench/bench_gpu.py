"""GPU benchmark of the Python package (run on the GPU host with the wheel installed):

* seed 000's Table 11 (3D Dirichlet Laplacian, N = 128, n = 2,097,152, e^{0.1A}u₀ with
  u₀ = sin(2πx), CSR) through `matexp.expmv(..., device="gpu")` at tol 1e-5 and 1e-12,
  against the CuPy port of SciPy's algorithm (cupy_expm_multiply.py) at its 2⁻⁵³, errors
  against the exact separable solution;
* the Python call's overhead: wall time of the call minus the library's own time
  (`info["solve_s"]`), relative to the latter, at n = 2.1e6 (GPU) and n ≥ 1e5 (CPU).

    python bench_gpu.py --out $OUT [--small] [--no-cupy]

Records (crates/records' format) go to $OUT/python_gpu.jsonl.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402

import matexp  # noqa: E402

SUITE = "python_gpu"


def laplacian(m):
    h = 1.0 / (m + 1)
    T = sp.diags([np.ones(m - 1), -2 * np.ones(m), np.ones(m - 1)], [-1, 0, 1], format="csr") / h**2
    I = sp.identity(m, format="csr")
    A = sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(T, I), I)
    return A.tocsr(), T.toarray()


def exact(m, T, t):
    """e^{tA}u₀ from the Kronecker sum: (e^{tT}s) ⊗ (e^{tT}1) ⊗ (e^{tT}1), x fastest."""
    x = np.arange(1, m + 1) / (m + 1)
    E = la.expm(t * T)
    ex, ey = E @ np.sin(2 * np.pi * x), E @ np.ones(m)
    return np.kron(ey, np.kron(ey, ex)), np.tile(np.sin(2 * np.pi * x), m * m)


def relerr(w, ref):
    return float(np.linalg.norm(w - ref) / np.linalg.norm(ref))


def timed(f, reps):
    out, ts = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return out, statistics.median(ts), ts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--small", action="store_true", help="N = 48 instead of 128")
    p.add_argument("--no-cupy", action="store_true")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--device-name", default="h200")
    a = p.parse_args()
    m, t = (48 if a.small else 128), 0.1
    A, T = laplacian(m)
    ref, u0 = exact(m, T, t)
    size = {"axis": m, "n": m**3}
    recs = []
    ours = {}
    for tol in (1e-5, 1e-12):
        (w, info), med, ts = timed(lambda: matexp.expmv(A, u0, t, rtol=tol, device="gpu", return_info=True),
                                   a.reps)
        ours[tol] = med
        overhead = (med - info["solve_s"]) / info["solve_s"]
        recs.append(records.record(SUITE, f"T11_laplace_N{m}_t0.1", "gpu-python", a.device_name, "f64",
                                   size=size, time_s=med, reps=a.reps, matvecs=info["products"], tol=tol,
                                   error=relerr(w, ref), method=info["method"], solve_s=info["solve_s"],
                                   python_overhead=overhead, times_s=ts, report=info["report"],
                                   note="host arrays in and out: each call uploads the CSR matrix and the vector"))
        print(f"ours tol {tol:g}: {med:.4f} s, {info['products']} products, error {relerr(w, ref):.2e}, "
              f"overhead {100 * overhead:.2f} %")
    if not a.no_cupy:
        import cupy as cp
        import cupyx.scipy.sparse as cps

        import cupy_expm_multiply as peer

        Ag, bg = cps.csr_matrix(A), cp.asarray(u0)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        w, products, m_star, s = peer.expm_multiply(Ag, bg, t)
        cp.cuda.Device().synchronize()
        peer_s = time.perf_counter() - t0
        err = relerr(cp.asnumpy(w), ref)
        recs.append(records.record(SUITE, f"T11_laplace_N{m}_t0.1", "cupy", a.device_name, "f64", size=size,
                                   time_s=peer_s, reps=1, matvecs=products, error=err,
                                   peer_ratio=peer_s / ours[1e-12], m_star=m_star, s=s,
                                   library=f"cupy {cp.__version__}",
                                   peer_ratio_vs="ours through Python at tol 1e-12, same run",
                                   ratio_tol1e_5=peer_s / ours[1e-5],
                                   what="CuPy port of SciPy's expm_multiply (crates/python/bench/cupy_expm_multiply.py)"))
        print(f"cupy port: {peer_s:.2f} s, {products} products, error {err:.2e}, "
              f"{peer_s / ours[1e-12]:.1f}x ours at 1e-12")
    # The Python overhead on the CPU at n = 1e5 and 1e6 (1-D Laplacian, e^{tA}v).
    for n in (100_000, 1_000_000):
        L = sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")
        v = np.sin(np.linspace(0, 20, n))
        (w, info), med, ts = timed(lambda: matexp.expmv(L, v, 10.0, rtol=1e-8, return_info=True), a.reps)
        overhead = (med - info["solve_s"]) / info["solve_s"]
        recs.append(records.record(SUITE, "overhead_laplace1d_t10", "cpu-python", a.device_name + "-host", "f64",
                                   size={"n": n}, time_s=med, reps=a.reps, matvecs=info["products"], tol=1e-8,
                                   solve_s=info["solve_s"], python_overhead=overhead, times_s=ts))
        print(f"cpu n={n}: {med:.4f} s, overhead {100 * overhead:.2f} %")
    records.write(os.path.join(a.out, f"{SUITE}.jsonl"), recs)


if __name__ == "__main__":
    main()
