#!/usr/bin/env python3
"""networkx (from PyPI) beside matexp-graph on the graphs of the `graph` benchmark suite.

The CPU suite (`cargo bench -p matexp-benches --bench graph`) writes, for every stand-in
graph with at most 4e6 stored entries, to target/graph-bench/ (or $MATEXP_GRAPH_DIR):
  <label>.mtx          the graph (MatrixMarket, pattern symmetric),
  <label>.tc.txt       matexp's e^A·1 (automatic Krylov dimension, rtol 1e-12),
  <label>.matexp.json  matexp's Estrada index (Hutch++, 95 % interval), the subgraph
                       centralities of the ten most communicable nodes, wall times.
This script computes the same measures with networkx and SciPy and reports time and
agreement:
  * total communicability: networkx has none; scipy.sparse.linalg.expm_multiply(A, 1)
    (the library networkx delegates sparse linear algebra to) on the adjacency that
    networkx builds (nx.to_scipy_sparse_array);
  * subgraph centrality: nx.subgraph_centrality (dense eigendecomposition, O(n^3)), only
    for n <= --max-dense nodes;
  * Estrada index: nx.estrada_index (the same eigendecomposition).
Agreement: max relative difference of e^A·1, relative difference of the subgraph
centralities of matexp's top-10 nodes, and whether networkx's Estrada index lies in
matexp's 95 % interval. Records (fields of matexp_benches::Record, suite graph_peer,
backend networkx or scipy, peer_ratio = peer time / matexp time, both from this host) are
printed and appended to OUT/graph_peer.jsonl with --out OUT.

Usage (on a host with Python 3 and network access for pip):
    python3 -m venv .venv && .venv/bin/pip install networkx scipy
    .venv/bin/python benches/peers/networkx_centrality.py [--dir target/graph-bench]
        [--max-dense 5000] [--out OUTDIR] [--device cpu-16core]
"""

import argparse
import datetime
import glob
import json
import os
import subprocess
import sys
import time


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def record(args, case, backend, n, nnz, t, error=None, peer_ratio=None, extra=None):
    r = {
        "suite": "graph_peer", "case": case, "backend": backend, "device": args.device,
        "precision": "f64", "size": {"n": n, "nnz": nnz}, "time_s": t, "reps": 1,
        "commit": commit(), "date": datetime.date.today().isoformat(),
    }
    if error is not None:
        r["error"] = error
    if peer_ratio is not None:
        r["peer_ratio"] = peer_ratio
    if extra:
        r["extra"] = extra
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("MATEXP_GRAPH_DIR", "target/graph-bench"))
    ap.add_argument("--max-dense", type=int, default=5000)
    ap.add_argument("--out")
    ap.add_argument("--device", default=f"cpu-{os.cpu_count()}core")
    args = ap.parse_args()
    try:
        import networkx as nx
        import numpy as np
        import scipy.io
        import scipy.sparse.linalg
    except ImportError as e:
        sys.exit(f"networkx_centrality: {e}; install networkx and scipy from PyPI")
    print(f"networkx {nx.__version__}, scipy {scipy.__version__}, numpy {np.__version__}")
    records = []
    for mtx in sorted(glob.glob(os.path.join(args.dir, "*.mtx"))):
        label = os.path.basename(mtx)[:-4]
        ours_json = os.path.join(args.dir, label + ".matexp.json")
        if not os.path.exists(ours_json):
            continue
        ours = json.load(open(ours_json))
        ours_tc = np.loadtxt(os.path.join(args.dir, label + ".tc.txt"))
        g = nx.from_scipy_sparse_array(scipy.io.mmread(mtx).tocsr())
        g.remove_edges_from(nx.selfloop_edges(g))
        n, nnz = g.number_of_nodes(), 2 * g.number_of_edges()
        a = nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr", dtype=float)
        t = time.perf_counter()
        tc = scipy.sparse.linalg.expm_multiply(a, np.ones(n))
        t_tc = time.perf_counter() - t
        err_tc = float(np.max(np.abs(ours_tc - tc) / np.abs(tc)))
        records.append(record(args, f"tc/{label}", "scipy", n, nnz, t_tc, err_tc,
                              t_tc / ours["tc_time_s"],
                              {"method": "scipy.sparse.linalg.expm_multiply",
                               "error_vs": "matexp e^A·1, max relative difference"}))
        line = f"{label:<28} n={n:<8} e^A·1: scipy {t_tc:.3f} s vs matexp {ours['tc_time_s']:.3f} s, max rel diff {err_tc:.1e}"
        if n <= args.max_dense:
            t = time.perf_counter()
            sc = nx.subgraph_centrality(g)
            t_sc = time.perf_counter() - t
            t = time.perf_counter()
            ee = nx.estrada_index(g)
            t_ee = time.perf_counter() - t
            err_sc = max(abs(v - sc[i]) / sc[i] for i, v in ours["sc_top"])
            lo, hi = ours["estrada"]["lo"], ours["estrada"]["hi"]
            inside = bool(lo <= ee <= hi)
            err_ee = abs(ours["estrada"]["value"] - ee) / ee
            records.append(record(args, f"sc/{label}", "networkx", n, nnz, t_sc, err_sc,
                                  t_sc / ours["sc_time_s"],
                                  {"method": "nx.subgraph_centrality (all nodes, dense)",
                                   "error_vs": "matexp exact quadrature of the top-10 nodes"}))
            records.append(record(args, f"estrada/{label}", "networkx", n, nnz, t_ee, err_ee,
                                  t_ee / ours["estrada"]["time_s"],
                                  {"method": "nx.estrada_index (dense)",
                                   "in_matexp_interval": inside,
                                   "error_vs": "matexp Hutch++ estimate"}))
            line += (f"; SC top-10 rel diff {err_sc:.1e} ({t_sc:.2f} s vs {ours['sc_time_s']:.3f} s)"
                     f"; Estrada {ee:.8e} {'in' if inside else 'NOT in'} matexp's interval "
                     f"[{lo:.8e}, {hi:.8e}] ({t_ee:.2f} s vs {ours['estrada']['time_s']:.3f} s)")
        print(line, flush=True)
    for r in records:
        print(json.dumps(r))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "graph_peer.jsonl"), "a") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
