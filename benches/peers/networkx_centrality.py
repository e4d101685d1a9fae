#!/usr/bin/env python3
"""networkx (from PyPI) beside matexp-graph on the graphs of the `graph` benchmark suite,
on the same host, interleaved.

For every graph, this script first runs ours — `benches/examples/centrality_peer.rs`
(built here with cargo unless --ours names the binary), which writes the graph as
MatrixMarket when it is not there yet and, timed in its own process (one untimed run, then
--reps runs, median), writes to --dir (default target/graph-bench, or $MATEXP_GRAPH_DIR):
  <label>.mtx          the graph (pattern symmetric),
  <label>.tc.txt       e^A·1 (automatic Krylov dimension, rtol 1e-12),
  <label>.sc.txt       the exact subgraph centrality of every node (Lanczos quadrature),
                       for graphs of at most --max-dense nodes,
  <label>.matexp.json  the Estrada index by Hutch++ (95 % interval), the exact one (sum of
                       the above), the subgraph centralities of the ten most communicable
                       nodes, wall times —
and then the peer on the same file (the `graph` suite's `write_peer_inputs` writes the same
files, with one run per measure; --no-ours reads those instead, and the records then say
"interleaved": false):
  * total communicability: networkx has none; scipy.sparse.linalg.expm_multiply(A, 1)
    (the library networkx delegates sparse linear algebra to) on the adjacency that
    networkx builds (nx.to_scipy_sparse_array), backend `scipy`;
  * subgraph centrality: nx.subgraph_centrality (dense eigendecomposition, O(n^3) time,
    O(n^2) memory), only for n <= --max-dense nodes: the graphs where it finishes;
  * Estrada index: nx.estrada_index (the same eigendecomposition once more), against our
    Hutch++ estimate (case estrada/…) and against the sum of our exact subgraph
    centralities (case estrada_exact/…, our time that of the all-node run).
Agreement (`error`): max relative difference of e^A·1 over all nodes; max relative
difference of the subgraph centralities over all nodes; relative difference of our Hutch++
estimate (whether networkx's value lies in our 95 % interval is in `extra`) and of our
exact sum from networkx's Estrada index.

Timing: ours for a graph, then the peer for it, so both see the same load on a shared host;
`time_s` is a median over --reps runs for e^A·1 and for our measures, one run for
networkx's dense measures above 2000 nodes (`reps` says how many). Records (suite
graph_peer, fields of matexp_benches::Record, device named as `cargo xtask bench` names this
host): one row for ours (backend cpu) and one for the peer (scipy or networkx) per measure
and graph, both with peer_ratio = peer time / our time from this run; appended to
OUT/graph_peer.jsonl. Merge them with `cargo xtask ingest OUT`.

Usage:
    python3 benches/peers/networkx_centrality.py [--graphs ba700_m3,ba2000_m3,...]
        [--max-dense 2000] [--reps 3] [--out target/peer-records/networkx]
The script creates its own venv under target/peer-venv and installs networkx and SciPy
there with pip on first use.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_env  # noqa: E402

REQUIREMENTS = ["networkx==3.6.1", "scipy>=1.13", "numpy>=2.0"]
# The power-law stand-ins (barabasi_x0.01, coPapersDBLP_x0.01, com_LiveJournal_x0.01) and
# channel_500_x0.01 are left out by default: on coPapersDBLP_x0.01 (5405 nodes, m = 28) our
# example's runs (Estrada estimate, exact subgraph centralities) had not finished after
# 8 minutes on a loaded 2-core host. Name them with --graphs to include them.
GRAPHS = ("ba700_m3,ba2000_m3,california,adaptive_x0.01,road_central_x0.01,"
          "hugetrace_00020_x0.01,europe_osm_x0.01")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=os.environ.get(
        "MATEXP_GRAPH_DIR", os.path.join(peer_env.ROOT, "target", "graph-bench")))
    ap.add_argument("--graphs", default=GRAPHS)
    ap.add_argument("--max-dense", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ours", help="the centrality_peer example binary (default: cargo builds it)")
    ap.add_argument("--no-ours", action="store_true",
                    help="use the .matexp.json files already in --dir (the graph suite's)")
    ap.add_argument("--out", default=os.path.join(peer_env.ROOT, "target", "peer-records",
                                                  "networkx"))
    ap.add_argument("--device", default=None)
    ap.add_argument("--venv", default=None)
    args = ap.parse_args()
    peer_env.ensure_venv(REQUIREMENTS, args.venv)
    import networkx as nx
    import numpy as np
    import scipy
    import scipy.io
    import scipy.sparse.linalg

    device = args.device or peer_env.device_name()
    commit = peer_env.commit()
    date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    threads = len(os.sched_getaffinity(0))
    versions = f"networkx {nx.__version__}, scipy {scipy.__version__}, numpy {np.__version__}"
    print(f"{versions}; device {device}; {threads} threads; commit {commit}", flush=True)
    binary = None if args.no_ours else (
        args.ours or peer_env.build_example("matexp-benches", "centrality_peer"))
    med = lambda xs: float(np.median(xs))  # noqa: E731

    records, table = [], []

    def record(case, backend, n, nnz, t, reps, error=None, peer_ratio=None, extra=None):
        r = {
            "suite": "graph_peer", "case": case, "backend": backend, "device": device,
            "precision": "f64", "size": {"n": n, "nnz": nnz}, "time_s": t, "reps": reps,
            "commit": commit, "date": date,
            "extra": dict({"shared_host": True, "interleaved": binary is not None,
                           "threads": threads}, **(extra or {})),
        }
        if error is not None:
            r["error"] = error
        if peer_ratio is not None:
            r["peer_ratio"] = peer_ratio
        records.append(r)
        return r

    def pair(measure, label, n, nnz, peer_backend, t_ours, reps_ours, t_peer, reps_peer, err,
             ours_extra, peer_extra):
        ratio = t_peer / t_ours
        record(f"{measure}/{label}", "cpu", n, nnz, t_ours, reps_ours, err, ratio,
               dict(ours_extra, peer=peer_backend + " " + peer_extra["method"]))
        record(f"{measure}/{label}", peer_backend, n, nnz, t_peer, reps_peer, err, ratio,
               dict(peer_extra, library=versions))
        table.append((label, n, nnz, measure, t_ours, t_peer, ratio, err))

    for label in [s for s in args.graphs.split(",") if s]:
        if binary:
            subprocess.run([binary, "--graph", label, "--dir", args.dir, "--reps",
                            str(args.reps), "--all-nodes", str(args.max_dense)], check=True)
        mtx = os.path.join(args.dir, label + ".mtx")
        ours_json = os.path.join(args.dir, label + ".matexp.json")
        if not (os.path.exists(mtx) and os.path.exists(ours_json)):
            print(f"{label}: no {label}.mtx / .matexp.json in {args.dir}, skipped")
            continue
        ours = json.load(open(ours_json))
        ours_reps = ours.get("reps", 1)
        ours_tc = np.loadtxt(os.path.join(args.dir, label + ".tc.txt"))
        g = nx.from_scipy_sparse_array(scipy.io.mmread(mtx).tocsr())
        g.remove_edges_from(nx.selfloop_edges(g))
        n, nnz = g.number_of_nodes(), 2 * g.number_of_edges()
        a = nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr", dtype=float)

        # e^A·1: SciPy, warm-up and --reps runs when a run is short, else one.
        t = time.perf_counter()
        tc = scipy.sparse.linalg.expm_multiply(a, np.ones(n))
        first = time.perf_counter() - t
        times = [first]
        if first < 10.0:
            times = []
            for _ in range(max(args.reps, 1)):
                t = time.perf_counter()
                tc = scipy.sparse.linalg.expm_multiply(a, np.ones(n))
                times.append(time.perf_counter() - t)
        err_tc = float(np.max(np.abs(ours_tc - tc) / np.abs(tc)))
        pair("tc", label, n, nnz, "scipy", ours["tc_time_s"], ours_reps, med(times), len(times),
             err_tc,
             {"method": "total_communicability (Lanczos, automatic dimension, rtol 1e-12)",
              "matvecs_run": ours.get("tc_matvecs"),
              "error_vs": "scipy expm_multiply, max relative difference over nodes"},
             {"method": "scipy.sparse.linalg.expm_multiply",
              "error_vs": "matexp e^A·1, max relative difference over nodes", "times_s": times})
        line = (f"{label:<24} n={n:<7} e^A·1: matexp {ours['tc_time_s']:.4f} s, scipy "
                f"{med(times):.4f} s, max rel diff {err_tc:.1e}")

        if n <= args.max_dense:
            sc_times, ee_times = [], []
            runs = max(args.reps, 1) if n <= 2000 else 1
            for _ in range(runs):
                t = time.perf_counter()
                sc = nx.subgraph_centrality(g)
                sc_times.append(time.perf_counter() - t)
            for _ in range(runs):
                t = time.perf_counter()
                ee = nx.estrada_index(g)
                ee_times.append(time.perf_counter() - t)
            sc = np.array([sc[i] for i in range(n)])
            err_top = max(abs(v - sc[i]) / sc[i] for i, v in ours["sc_top"])
            line += f"; SC top-10 max rel diff {err_top:.1e}"
        if n <= args.max_dense and "sc_all_time_s" in ours:
            ours_sc = np.loadtxt(os.path.join(args.dir, label + ".sc.txt"))
            err_sc = float(np.max(np.abs(ours_sc - sc) / sc))
            pair("sc", label, n, nnz, "networkx", ours["sc_all_time_s"],
                 len(ours.get("sc_all_times_s", [0])), med(sc_times), len(sc_times), err_sc,
                 {"method": "subgraph_centrality, every node (Lanczos quadrature, rtol 1e-12)",
                  "top10_rel_diff": err_top,
                  "error_vs": "networkx, max relative difference over nodes"},
                 {"method": "nx.subgraph_centrality (dense eigendecomposition)",
                  "error_vs": "matexp, max relative difference over nodes", "times_s": sc_times})
            line += (f"; SC all nodes: matexp {ours['sc_all_time_s']:.3f} s, networkx "
                     f"{med(sc_times):.2f} s, max rel diff {err_sc:.1e}")
        if n <= args.max_dense:
            lo, hi = ours["estrada"]["lo"], ours["estrada"]["hi"]
            inside = bool(lo <= ee <= hi)
            err_ee = abs(ours["estrada"]["value"] - ee) / ee
            err_exact = (abs(ours["estrada_exact"] - ee) / ee if "estrada_exact" in ours
                         else None)
            pair("estrada", label, n, nnz, "networkx", ours["estrada"]["time_s"], ours_reps,
                 med(ee_times), len(ee_times), err_ee,
                 {"method": "estrada_index_hutchpp (estimate, 95 % interval)",
                  "interval": [lo, hi], "networkx_in_interval": inside,
                  "exact_sum_rel_diff": err_exact,
                  "error_vs": "networkx (exact), relative difference of the estimate"},
                 {"method": "nx.estrada_index (dense eigendecomposition)",
                  "in_matexp_interval": inside, "times_s": ee_times,
                  "error_vs": "matexp Hutch++ estimate, relative difference"})
            if err_exact is not None:
                pair("estrada_exact", label, n, nnz, "networkx", ours["sc_all_time_s"],
                     len(ours.get("sc_all_times_s", [0])), med(ee_times), len(ee_times),
                     err_exact,
                     {"method": "sum of the exact subgraph centralities (Lanczos quadrature)",
                      "error_vs": "networkx, relative difference"},
                     {"method": "nx.estrada_index (dense eigendecomposition)",
                      "times_s": ee_times,
                      "error_vs": "matexp exact sum, relative difference"})
            line += (f"; Estrada {'in' if inside else 'NOT in'} matexp's interval, estimate "
                     f"off by {err_ee:.1e}, exact sum by "
                     f"{'-' if err_exact is None else format(err_exact, '.1e')} "
                     f"({ours['estrada']['time_s']:.3f} s vs {med(ee_times):.2f} s)")
        print(line, flush=True)

    peer_env.finish(args.out, "graph_peer", records,
                    ["graph", "n", "nnz", "measure", "ours (s)", "peer (s)", "peer / ours",
                     "rel. diff"],
                    [(label, str(n), str(nnz), what, f"{t_o:.4f}", f"{t_p:.4f}", f"{ratio:.2f}",
                      f"{err:.1e}") for label, n, nnz, what, t_o, t_p, ratio, err in table])

if __name__ == "__main__":
    main()
