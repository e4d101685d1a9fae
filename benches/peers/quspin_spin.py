#!/usr/bin/env python3
"""QuSpin (from PyPI) beside matexp-fock's spin sectors: the Heisenberg ring
H = J Σ_b S_i·S_j (J = 1, bonds (k, k+1) and (L−1, 0)) in the S^z = 0 sector, on the same host.

* QuSpin: spin_basis_1d(L, Nup=L//2, pauli=0) and the static list
  ["+-", [[J/2, i, j]]], ["-+", [[J/2, i, j]]], ["zz", [[J, i, j]]]; H·x by
  hamiltonian.dot (its CSR product, OpenMP), timed after one untimed call (median of 7).
* Ours: crates/fock/examples/spin_chain.rs --hx-dump (the matrix-free XxzChain product,
  rayon), median of 7, writing H·x for the seeded random vector of matexp_fock::random_state.

Basis ordering: QuSpin stores a spin-½ state as an integer whose bit L−1−i is site i (site 0
most significant), states in descending order; ours is the word with bit i for site i, in
ascending numeric order, ranked by the combinatorial number system. Each QuSpin state is
mapped to our word (bits reversed) and ranked; the random vector is regenerated here from the
same SplitMix64 formula (u(n) = 2·(mix(seed + (n+1)γ) >> 11)·2⁻⁵³ − 1, entry i = u(2i)).

Agreement (`error`): ‖y_ours − y_QuSpin‖₂/‖y_QuSpin‖₂ after the mapping. `peer_ratio` = QuSpin
time / our time (above 1: ours is faster). Dynamics check (`--neel L`): ⟨S^z_k⟩(t) of the Néel
state (up on even sites) at the output times of our spin_chain CSV, by QuSpin's
expm_multiply_parallel, largest difference in `extra.max_sz_diff`.

Records (suite `peer_quspin_spin`) go to OUT/peer_quspin_spin.jsonl.

Usage:
    /path/to/venv/bin/python benches/peers/quspin_spin.py [--sizes 16,20,22,24] [--neel 16]
        [--ours target/release/examples/spin_chain] [--out target/peer-records/quspin_spin]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_env  # noqa: E402
from quspin.basis import spin_basis_1d
from quspin.operators import hamiltonian

GAMMA = np.uint64(0x9E3779B97F4A7C15)


def mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def random_state(d, seed):
    """matexp_fock::random_state::<f64>: u(2i), normalised."""
    with np.errstate(over="ignore"):
        n = np.arange(d, dtype=np.uint64) * np.uint64(2)
        z = mix(np.uint64(seed) + (n + np.uint64(1)) * GAMMA)
    x = 2.0 * ((z >> np.uint64(11)).astype(np.float64) * 2.0**-53) - 1.0
    return x / np.linalg.norm(x)


def our_index(basis, L, K):
    """Our index of every QuSpin state: reverse the bits, rank by Σ C(c_i, i)."""
    from math import comb

    states = np.asarray(basis.states, dtype=np.uint64)
    word = np.zeros_like(states)
    for i in range(L):
        word |= ((states >> np.uint64(L - 1 - i)) & np.uint64(1)) << np.uint64(i)
    table = np.array([[comb(n, k) for k in range(K + 1)] for n in range(L + 1)], dtype=np.uint64)
    idx = np.zeros_like(states)
    count = np.zeros(len(states), dtype=np.int64)
    for c in range(L):
        up = ((word >> np.uint64(c)) & np.uint64(1)).astype(bool)
        count[up] += 1
        idx[up] += table[c, count[up]]
    return idx.astype(np.int64)


def heisenberg(L):
    basis = spin_basis_1d(L, Nup=L // 2, pauli=0)
    bonds = [[i, (i + 1) % L] for i in range(L)]
    static = [
        ["+-", [[0.5, i, j] for i, j in bonds]],
        ["-+", [[0.5, i, j] for i, j in bonds]],
        ["zz", [[1.0, i, j] for i, j in bonds]],
    ]
    no_checks = dict(check_herm=False, check_pcon=False, check_symm=False)
    return basis, hamiltonian(static, [], basis=basis, dtype=np.float64, **no_checks)


def median_time(f, reps=7):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def record(case, time_s, d, L, **extra):
    return {
        "suite": "peer_quspin_spin",
        "case": case,
        "backend": "cpu",
        "device": peer_env.device_name(),
        "commit": peer_env.commit(),
        "precision": "f64",
        "size": {"n": int(d), "sites": L},
        "time_s": time_s,
        "reps": 7,
        "date": datetime.date.today().isoformat(),
        **{k: v for k, v in extra.items() if k in ("error", "peer_ratio", "tol")},
        "extra": {k: v for k, v in extra.items() if k not in ("error", "peer_ratio", "tol")},
    }


def product(L, ours):
    basis, H = heisenberg(L)
    d = basis.Ns
    idx = our_index(basis, L, L // 2)
    assert sorted(idx.tolist()) == list(range(d)), "the mapping is not a permutation"
    x_ours = random_state(d, 1)
    xq = x_ours[idx]
    t_q = median_time(lambda: H.dot(xq))
    yq = H.dot(xq)
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        out = subprocess.run(
            [ours, "--sites", str(L), "--hx-dump", f.name], capture_output=True, text=True, check=True
        ).stdout
        y_ours = np.fromfile(f.name, dtype="<f8")
    t_ours = float(out.split()[1])
    err = float(np.linalg.norm(y_ours[idx] - yq) / np.linalg.norm(yq))
    print(f"L = {L}, D = {d}: H·x ours {t_ours * 1e3:.2f} ms, QuSpin {t_q * 1e3:.2f} ms "
          f"(ratio {t_q / t_ours:.2f}), rel diff {err:.2e}")
    return [
        record(f"heisenberg_l{L}_hx", t_ours, d, L, error=err, peer_ratio=t_q / t_ours,
               quspin_s=t_q, rows_per_s=d / t_ours, threads=os.cpu_count(),
               load_average=peer_env.load_average(), interleaved=True),
    ]


def neel(L, ours, outdir):
    from quspin.tools.evolution import expm_multiply_parallel

    csv = os.path.join(outdir, f"spin_chain_l{L}.csv")
    subprocess.run([ours, "--sites", str(L), "--out", csv], check=True, capture_output=True)
    rows = np.loadtxt(csv, delimiter=",", skiprows=1)
    basis, H = heisenberg(L)
    s = "".join("1" if k % 2 == 0 else "0" for k in range(L))
    psi = np.zeros(basis.Ns, dtype=np.complex128)
    psi[basis.index(s)] = 1.0
    # ⟨S^z_k⟩ = Σ |ψ_s|² (bit − ½), site k at bit L−1−k.
    states = np.asarray(basis.states, dtype=np.uint64)
    bits = np.array([((states >> np.uint64(L - 1 - k)) & np.uint64(1)) for k in range(L)], dtype=float)
    worst, prev = 0.0, 0.0
    t0 = time.perf_counter()
    for row in rows:
        t = row[0]
        if t > prev:
            psi = expm_multiply_parallel(H.tocsr(), a=-1j * (t - prev)).dot(psi)
            prev = t
        sz = bits @ np.abs(psi) ** 2 - 0.5
        worst = max(worst, float(np.max(np.abs(sz - row[7:7 + L]))))
    t_q = time.perf_counter() - t0
    print(f"Néel L = {L}: max |⟨S^z_k⟩ ours − QuSpin| over {len(rows)} times = {worst:.2e} "
          f"(QuSpin {t_q:.2f} s)")
    return [record(f"neel_l{L}_sz", t_q, basis.Ns, L, error=worst, max_sz_diff=worst,
                   t_end=float(rows[-1, 0]), outputs=len(rows) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16,20,22,24")
    ap.add_argument("--neel", type=int, default=16)
    ap.add_argument("--ours", default="target/release/examples/spin_chain")
    ap.add_argument("--out", default="target/peer-records/quspin_spin")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    recs = []
    for L in [int(v) for v in a.sizes.split(",") if v]:
        recs += product(L, a.ours)
    if a.neel:
        recs += neel(a.neel, a.ours, a.out)
    path = os.path.join(a.out, "peer_quspin_spin.jsonl")
    with open(path, "a") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    print(f"records: {path}")


if __name__ == "__main__":
    sys.exit(main())
