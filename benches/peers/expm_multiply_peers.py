#!/usr/bin/env python3
"""Peers of e^{tA}v for the GPU suites: SciPy's expm_multiply on the host CPU, and the same
algorithm (Al-Mohy and Higham 2011, SciPy's parameters and loop) over CuPy's CSR product
(cuSPARSE) on the GPU, both at SciPy's accuracy (unit roundoff 2⁻⁵³; there is no tolerance
to loosen).

Run by the gpu_stencil and gpu_graph benchmarks (embedded in their binaries, so the GPU
bundle needs no copy of this file) on the matrix and vector ours used, written to DIR as raw
little-endian arrays: a.indptr and a.indices (u32), a.data (f64, or interleaved complex f64
with --complex; absent with --pattern: every stored entry is 1), v.bin (f64 or complex f64).
Results go to DIR/w_<backend>.bin in the same layout; the benchmark measures their error.

The CuPy peer: μ = trace(tA)/n and the 1-norm of tA − μI exactly on the GPU, SciPy's own
parameter choice (scipy.sparse.linalg._expm_multiply: LazyOperatorNormInfo, _fragment_3_1,
whose norm estimates call products on the GPU from the host), then SciPy's loop with CuPy
arrays. Its time includes the parameter choice, as SciPy's does; not the upload of A and v.

Each peer runs --reps times (fewer once half its --time-limit is spent; median) under the
time limit (seconds, per peer): SciPy's loop is Python code, so an alarm stops it between
products. A missing library, a failure or the limit skips that peer with the reason.

Prints one JSON object on stdout: {"results": [{backend, time_s, reps, products, m_star, s,
library, ...}], "skipped": [{backend, why, ...}]}.

Usage:
    python3 expm_multiply_peers.py DIR --t T [--complex] [--pattern] [--reps 3]
        [--time-limit 120] [--backends scipy,cupy]
(T is a Python complex literal: 0.01, -10j, 1.)
"""

import argparse
import json
import os
import signal
import sys
import time


class TimeLimit(Exception):
    pass


def _alarm(signum, frame):
    raise TimeLimit()


def load(np, d, cplx, pattern):
    indptr = np.fromfile(os.path.join(d, "a.indptr"), dtype="<u4").astype(np.int64)
    indices = np.fromfile(os.path.join(d, "a.indices"), dtype="<u4").astype(np.int32)
    dt = np.complex128 if cplx else np.float64
    if pattern:
        data = np.ones(indices.size, dtype=dt)
    else:
        data = np.fromfile(os.path.join(d, "a.data"), dtype="<c16" if cplx else "<f8")
    v = np.fromfile(os.path.join(d, "v.bin"), dtype="<c16" if cplx else "<f8")
    return indptr, indices, data, v


def median_runs(f, reps, limit):
    times, out = [], None
    t0 = time.perf_counter()
    for _ in range(reps):
        s = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - s)
        if time.perf_counter() - t0 > limit / 2:
            break
    times.sort()
    return times[len(times) // 2], len(times), out


def run_scipy(np, indptr, indices, data, v, t, reps, limit):
    import scipy
    import scipy.sparse as sp
    from scipy.sparse.linalg import expm_multiply
    n = v.size
    dt = np.result_type(data.dtype, np.asarray(t).dtype)
    a = sp.csr_matrix(((t * data).astype(dt), indices, indptr), shape=(n, n))
    s = time.perf_counter()
    a @ v.astype(dt)
    one = time.perf_counter() - s
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t_s, k, w = median_runs(lambda: expm_multiply(a, v.astype(dt)), reps, limit)
    except TimeLimit:
        raise TimeLimit(f"SciPy expm_multiply did not finish within {limit:g} s "
                        f"(one product A @ v takes {one * 1e3:.1f} ms on this CPU)")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"time_s": t_s, "reps": k, "library": f"scipy {scipy.__version__}",
            "one_product_s": one, "host_cores": os.cpu_count(),
            "what": "scipy.sparse.linalg.expm_multiply(t*A, v) on the host CPU "
                    "(single-threaded CSR products)"}, w


def run_cupy(np, indptr, indices, data, v, t, reps, limit):
    import cupy as cp
    import cupyx
    import cupyx.scipy.sparse as cps
    from scipy.sparse.linalg import LinearOperator
    from scipy.sparse.linalg._expm_multiply import LazyOperatorNormInfo, _fragment_3_1
    n = v.size
    dt = np.result_type(data.dtype, np.asarray(t).dtype)
    a = cps.csr_matrix((cp.asarray((t * data).astype(dt)), cp.asarray(indices),
                        cp.asarray(indptr.astype(np.int32 if indptr[-1] < 2**31 else np.int64))),
                       shape=(n, n))
    b0 = cp.asarray(v.astype(dt))
    tol = 2.0 ** -53
    counter = {"products": 0}

    class GpuOp(LinearOperator):
        def __init__(self, m, mh):
            super().__init__(dtype=dt, shape=m.shape)
            self.m, self.mh = m, mh

        def _matvec(self, x):
            counter["products"] += 1
            return cp.asnumpy(self.m @ cp.asarray(x.astype(dt)))

        def _matmat(self, x):
            counter["products"] += x.shape[1]
            return cp.asnumpy(self.m @ cp.asarray(np.ascontiguousarray(x.astype(dt))))

        def _rmatvec(self, x):
            counter["products"] += 1
            return cp.asnumpy(self.mh @ cp.asarray(x.astype(dt)))

        def _rmatmat(self, x):
            counter["products"] += x.shape[1]
            return cp.asnumpy(self.mh @ cp.asarray(np.ascontiguousarray(x.astype(dt))))

    def inf_norm(x):
        return float(cp.abs(x).max())

    def expm_multiply_gpu():
        counter["products"] = 0
        mu = complex(a.diagonal().sum()) / n
        mu = mu.real if dt.kind == "f" else mu
        m = a - mu * cps.identity(n, dtype=dt, format="csr") if mu != 0 else a
        m = m.tocsr()
        colsum = cp.zeros(n, dtype=np.float64)
        cupyx.scatter_add(colsum, m.indices, cp.abs(m.data))
        norm1 = float(colsum.max())
        if norm1 == 0:
            m_star, s = 0, 1
        else:
            op = GpuOp(m, m.T.conj().tocsr())
            info = LazyOperatorNormInfo(op, A_1_norm=norm1, ell=2)
            m_star, s = _fragment_3_1(info, 1, tol, ell=2)
        estimate = counter["products"]
        b = b0.copy()
        f = b.copy()
        eta = np.exp(mu / float(s))
        for _ in range(s):
            c1 = inf_norm(b)
            for j in range(m_star):
                b = (1.0 / float(s * (j + 1))) * (m @ b)
                counter["products"] += 1
                c2 = inf_norm(b)
                f = f + b
                if c1 + c2 <= tol * inf_norm(f):
                    break
                c1 = c2
            f = eta * f
            b = f
        cp.cuda.Device().synchronize()
        return f, m_star, s, estimate

    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        t_s, k, (w, m_star, s, estimate) = median_runs(expm_multiply_gpu, reps, limit)
    except TimeLimit:
        raise TimeLimit(f"SciPy's algorithm on CuPy did not finish within {limit:g} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"time_s": t_s, "reps": k, "library": f"cupy {cp.__version__}",
            "products": counter["products"], "norm_estimate_products": estimate,
            "m_star": int(m_star), "s": int(s),
            "what": "SciPy's expm_multiply algorithm (parameters by scipy's own "
                    "_fragment_3_1, norm estimates with products on the GPU) over "
                    "cupyx.scipy.sparse CSR products"}, cp.asnumpy(w)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--t", required=True)
    p.add_argument("--complex", action="store_true")
    p.add_argument("--pattern", action="store_true")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--time-limit", type=float, default=120.0)
    p.add_argument("--backends", default="scipy,cupy")
    a = p.parse_args()
    results, skipped = [], []
    try:
        import numpy as np
        t = complex(a.t)
        t = t.real if t.imag == 0 else t
        indptr, indices, data, v = load(np, a.dir, a.complex, a.pattern)
    except Exception as e:
        print(json.dumps({"results": [], "skipped": [{"backend": "all",
                                                      "why": f"{type(e).__name__}: {e}"}]}))
        return
    runners = {"scipy": run_scipy, "cupy": run_cupy}
    for backend in filter(None, a.backends.split(",")):
        run = runners.get(backend)
        if run is None:
            skipped.append({"backend": backend, "why": "unknown peer"})
            continue
        try:
            r, w = run(np, indptr, indices, data, v, t, a.reps, a.time_limit)
            np.asarray(w, dtype=np.complex128 if a.complex else np.float64).reshape(-1).tofile(
                os.path.join(a.dir, f"w_{backend}.bin"))
            r["backend"] = backend
            results.append(r)
        except ImportError as e:
            skipped.append({"backend": backend, "why": f"not importable: {e}"})
        except TimeLimit as e:
            skipped.append({"backend": backend, "why": str(e), "time_limit_s": a.time_limit})
        except Exception as e:  # a peer's failure costs its record only
            skipped.append({"backend": backend, "why": f"{type(e).__name__}: {e}"})
        sys.stdout.flush()
    print(json.dumps({"results": results, "skipped": skipped}))


if __name__ == "__main__":
    main()
