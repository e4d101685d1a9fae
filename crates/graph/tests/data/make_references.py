#!/usr/bin/env python3
"""High-precision references for the seed-002 example graphs (Tables 1 and 2).

For each graph (the MatrixMarket pattern files of crates/sparse/data), computes in
80-digit arithmetic with mpmath (mpmath.expm, Taylor series with scaling and squaring
at that precision) and for beta = 1, 0.5, -1 and 3:
  e^{beta A} 1 (total communicability), diag(e^{beta A}) (subgraph centrality),
  tr e^{beta A} (Estrada index),
and writes seed002_mpmath.txt: one line per value, "graph beta measure index value",
values rounded to 20 significant digits (far below f64 resolution).

Independent of the library: only the edge lists are shared. Run from this directory:
    python3 make_references.py
"""
import mpmath

mpmath.mp.dps = 80
GRAPHS = {
    "table1": "../../../sparse/data/seed002_table1.mtx",
    "dumbbell": "../../../sparse/data/seed002_table2_dumbbell.mtx",
}
BETAS = ["1", "0.5", "-1", "3"]


def read_pattern(path):
    lines = [l for l in open(path) if l.strip() and not l.startswith("%")]
    n, _, nnz = (int(t) for t in lines[0].split())
    a = mpmath.zeros(n, n)
    for l in lines[1 : 1 + nnz]:
        i, j = (int(t) - 1 for t in l.split()[:2])
        a[i, j] = 1
        a[j, i] = 1
    return a


with open("seed002_mpmath.txt", "w") as out:
    out.write("# graph beta measure index value (mpmath.expm at 80 digits; make_references.py)\n")
    for name, path in GRAPHS.items():
        a = read_pattern(path)
        n = a.rows
        for beta in BETAS:
            e = mpmath.expm(mpmath.mpf(beta) * a)
            for i in range(n):
                tc = mpmath.fsum(e[i, j] for j in range(n))
                out.write(f"{name} {beta} tc {i} {mpmath.nstr(tc, 20)}\n")
            for i in range(n):
                out.write(f"{name} {beta} sc {i} {mpmath.nstr(e[i, i], 20)}\n")
            ee = mpmath.fsum(e[i, i] for i in range(n))
            out.write(f"{name} {beta} ee 0 {mpmath.nstr(ee, 20)}\n")
print("wrote seed002_mpmath.txt")
