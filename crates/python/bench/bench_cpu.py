"""CPU benchmark of the Python package against its peers, on this host:

* `expm_multiply`: matexp against `scipy.sparse.linalg.expm_multiply` at equal achieved
  accuracy on the expmv suite's Laplace problems (3D Dirichlet Laplacian N = 32,
  e^{hA}u₀, u₀ = sin 2πx, h = 0.1 and 0.01; error against the exact separable solution),
  a nonsymmetric 1D convection–diffusion operator (n = 1500) and a complex Hermitian e^{−itH}v: ours at
  the loosest rtol of 1e-12, 1e-13, 1e-14, 2⁻⁵³ whose error is within a factor 2 of
  SciPy's (errors near 1e-13 are at the references' rounding level) (and,
  as `extra.tol1e-5`, the expmv suite's tolerance);
* subgraph centrality and the Estrada index against networkx (dense eigendecomposition) on
  Barabási–Albert graphs from 10³ nodes up, to rtol 1e-10;
* the Python call's overhead at n ≥ 1e5: the call's wall time minus `info["solve_s"]`.

    python bench_cpu.py --out DIR [--graphs 1000,2000,4000] [--reps 3]

Records go to DIR/python_cpu.jsonl (crates/records' format).
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
import scipy.sparse.linalg as sla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402
from bench_gpu import exact, laplacian  # noqa: E402
from bench_gpu import timed as _timed  # noqa: E402

import matexp  # noqa: E402
import matexp.graph as mg  # noqa: E402

SUITE = "python_cpu"


def timed(f, reps):
    """(the last result, the median time) of `reps` calls."""
    out, med, _ = _timed(f, reps)
    return out, med


def relerr(w, ref):
    return float(np.linalg.norm(w - ref) / np.linalg.norm(ref))


def problems():
    for h in (0.1, 0.01):
        A, T = laplacian(32)
        ref, u0 = exact(32, T, h)
        yield f"laplace3d_N32_h{h}", A, u0, h, ref, "f64"
    n = 1500
    dx = 1.0 / (n + 1)
    D = sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1]) / dx**2
    C = sp.diags([-np.ones(n - 1), np.ones(n - 1)], [-1, 1]) / (2 * dx) * 100.0
    A = (D + C).tocsr()
    v = np.exp(-((np.arange(1, n + 1) * dx - 0.3) ** 2) / 0.002)
    yield "convdiff1d_n1500_pe100_t1e-4", A, v, 1e-4, la.expm(1e-4 * A.toarray()) @ v, "f64"
    H = sp.random(2000, 2000, density=0.004, random_state=7)
    H = ((H + H.T) * 0.5).tocsr()
    psi = np.random.default_rng(3).standard_normal(2000) + 0j
    w, V = np.linalg.eigh(H.toarray())
    yield "hermitian_random_n2000_t-20i", H.astype(complex), psi, -20j, V @ (np.exp(-20j * w) * (V.T @ psi)), "c64"


def bench_expm_multiply(reps, device):
    recs = []
    for case, A, v, t, ref, prec in problems():
        w_s, s_time = timed(lambda: sla.expm_multiply(t * A, v), reps)
        s_err = relerr(w_s, ref)
        chosen = None
        for rtol in (1e-12, 1e-13, 1e-14, matexp.UNIT_ROUNDOFF):
            (w, info), ours = timed(lambda: matexp.expmv(A, v, t, rtol=rtol, return_info=True), reps)
            err = relerr(w, ref)
            chosen = (rtol, w, info, ours, err)
            if err <= 2 * s_err:  # equal accuracy: within a factor 2 of SciPy's error
                break
        rtol, w, info, ours, err = chosen
        (w5, info5), ours5 = timed(lambda: matexp.expmv(A, v, t, rtol=1e-5, return_info=True), reps)
        size = {"n": A.shape[0], "nnz": int(A.nnz)}
        recs.append(records.record(SUITE, case, "cpu-python", device, prec, size=size, time_s=ours, reps=reps,
                                   matvecs=info["products"], tol=rtol, error=err, peer_ratio=s_time / ours,
                                   method=info["method"], peer_error=s_err, equal_accuracy=err <= 2 * s_err,
                                   tol1e_5={"time_s": ours5, "error": relerr(w5, ref), "products": info5["products"],
                                            "peer_ratio": s_time / ours5}))
        recs.append(records.record(SUITE, case, "scipy", device, prec, size=size, time_s=s_time, reps=reps,
                                   error=s_err, library=f"scipy {__import__('scipy').__version__}"))
        print(f"{case}: scipy {s_time:.3f} s (err {s_err:.1e}); ours {ours:.3f} s at rtol {rtol:.1e} "
              f"(err {err:.1e}, {info['method']}, {info['products']} products): {s_time / ours:.1f}x; "
              f"at 1e-5 {ours5:.4f} s: {s_time / ours5:.1f}x")
    return recs


def bench_graphs(sizes, reps, device):
    import networkx as nx

    recs = []
    for n in sizes:
        G = nx.barabasi_albert_graph(n, 4, seed=1)
        A = nx.to_scipy_sparse_array(G, weight=None, format="csr", dtype=float)
        sc_nx, t_nx = timed(lambda: nx.subgraph_centrality(G), 1)
        ee_nx, t_ee_nx = timed(lambda: nx.estrada_index(G), 1)
        r, t_ours = timed(lambda: mg.subgraph_centrality(A, rtol=1e-10, return_intervals=True), reps)
        ee, t_ee = timed(lambda: mg.estrada_index(A, rtol=1e-10, return_interval=True), reps)
        ref = np.array([sc_nx[v] for v in G])
        err = float(np.max(np.abs(r.values - ref) / ref))
        size = {"nodes": n, "edges": G.number_of_edges()}
        recs.append(records.record(SUITE, f"subgraph_centrality_ba{n}", "cpu-python", device, "f64", size=size,
                                   time_s=t_ours, reps=reps, matvecs=r.products, tol=1e-10, error=err,
                                   peer_ratio=t_nx / t_ours, method=r.method, peer="networkx subgraph_centrality",
                                   peer_time_s=t_nx))
        recs.append(records.record(SUITE, f"estrada_index_ba{n}", "cpu-python", device, "f64", size=size,
                                   time_s=t_ee, reps=reps, matvecs=ee.products, tol=1e-10,
                                   error=abs(ee.value - ee_nx) / ee_nx, peer_ratio=t_ee_nx / t_ee, method=ee.method,
                                   peer="networkx estrada_index", peer_time_s=t_ee_nx))
        print(f"BA n={n}: subgraph ours {t_ours:.3f} s vs networkx {t_nx:.2f} s ({t_nx / t_ours:.1f}x, err {err:.1e}); "
              f"estrada ours {t_ee:.3f} s vs {t_ee_nx:.2f} s ({t_ee_nx / t_ee:.1f}x)")
    return recs


def bench_overhead(reps, device):
    recs = []
    for n in (100_000, 1_000_000):
        L = sp.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")
        v = np.sin(np.linspace(0, 20, n))
        walls, solves = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            _, info = matexp.expmv(L, v, 10.0, rtol=1e-8, return_info=True)
            walls.append(time.perf_counter() - t0)
            solves.append(info["solve_s"])
        wall, solve = statistics.median(walls), statistics.median(solves)
        recs.append(records.record(SUITE, "overhead_laplace1d_t10", "cpu-python", device, "f64", size={"n": n},
                                   time_s=wall, reps=reps, matvecs=info["products"], tol=1e-8, solve_s=solve,
                                   python_overhead=(wall - solve) / solve))
        print(f"overhead n={n}: wall {wall:.4f} s, library {solve:.4f} s: {100 * (wall - solve) / solve:.2f} %")
    return recs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="target/bench-records/python")
    p.add_argument("--graphs", default="1000,2000,4000")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--device", default="cpu-2core")
    p.add_argument("--no-expm", action="store_true", help="skip the expm_multiply comparison")
    a = p.parse_args()
    path = os.path.join(a.out, f"{SUITE}.jsonl")
    sections = [lambda: bench_overhead(a.reps, a.device),
                lambda: bench_graphs([int(s) for s in a.graphs.split(",") if s], a.reps, a.device)]
    if not a.no_expm:
        sections.insert(1, lambda: bench_expm_multiply(a.reps, a.device))
    for section in sections:  # written section by section: a run cut short keeps what it measured
        recs = section()
        for r in recs:
            r["extra"].update({"shared_host": True})
        records.write(path, recs)


if __name__ == "__main__":
    main()
