#!/usr/bin/env python3
"""QuSpin (from PyPI) beside matexp-fock: the same Bose–Hubbard basis, Hamiltonian and
initial state, propagated to the same time, on the same host, interleaved.

The model is matexp-fock's (crates/fock/src/model.rs), time-independent:

    H = −J Σ_k (b†_k b_{k+1} + b†_{k+1} b_k) + Σ_k V_k n_k + U/2 Σ_k n_k (n_k − 1)

for N bosons on M sites, open chain (bonds k = 0..M−2) or ring (`--boundary periodic`, bond
M−1 couples sites M−1 and 0), V_k = tilt·k, ħ = 1. In QuSpin it is
boson_basis_1d(M, Nb=N, sps=N+1) with the static list

    ["+-", [[-J, k, k+1]]], ["-+", [[-J, k, k+1]]]      hopping, both directions
    ["n",  [[V_k − U/2, k]]], ["nn", [[U/2, k, k]]]     V_k n_k + U/2 (n_k² − n_k)

The initial state is the Fock state with the bosons round-robin on the left half of the
chain ((2,2,2,2,0,0,0,0) for M = N = 8: not mirror-symmetric, so a reversed site order
would show); ψ(t) = e^{−iHt}ψ₀ at t = 2 by default.

* Ours: `crates/fock/examples/propagate.rs` (built here with cargo unless --ours names a
  binary), Leja (`leja_schrodinger`) and Lanczos (`lanczos_expmv` at time −it; what the
  facade's Method::Auto picks for a Hermitian operator), relative tolerance 1e−12, CPU
  backend (rayon, all cores). It writes the final state in its own basis order (occupation
  tuples in ascending lexicographic order) and its wall time (propagation only: the
  operator is matrix-free).
* QuSpin: `quspin.tools.evolution.expm_multiply_parallel(H.tocsr(), a=−it).dot(ψ₀)`
  (QuSpin's propagator for time-independent H: truncated Taylor series at double-precision
  tolerance, OpenMP over all cores), timed with its set-up (norm and partition), and
  optionally `hamiltonian.evolve` (dop853 ODE solver, --ode-tol; off above --ode-max-dim).
  Building the basis and H is timed separately (`extra.build_s`).

Basis ordering: QuSpin's boson basis lists states by their integer Σ_k n_k·sps^{M−1−k}
(site 0 most significant) in descending order; each QuSpin state is mapped to its
occupation tuple (checked against QuSpin's own int_to_state and against the tuples the
Rust side writes for a few indices), and the tuples are ranked lexicographically.

Agreement (`error`): ‖ψ_ours − ψ_QuSpin‖₂ / ‖ψ_QuSpin‖₂ after that mapping; the largest
site-density difference is in `extra.max_density_diff`.

Timing: every repetition runs ours (one process per method) and then QuSpin, so both see
the same load on a shared host; `time_s` is the median over the repetitions, `reps` their
number, `peer_ratio` = QuSpin time / our time (above 1: ours is faster). Both sides are
timed warm: ours on the second call within its process (the first, which also builds
per-process tables, is `extra.first_call_s`), QuSpin after one untimed call; QuSpin's time
includes constructing expm_multiply_parallel (trace shift, 1-norm, Taylor partition), the
part of a propagation that depends on H and t (`extra.setup_s`; `extra.dot_s` is the
product e^{aA}·ψ₀ alone, what a loop of equal steps pays per step, `extra.dot_ratio` its
ratio to ours). Threads: rayon and OpenMP both use every
core the process may run on (OMP_NUM_THREADS is set to that, OMP_WAIT_POLICY to PASSIVE:
libgomp's spinning barriers collapse when other processes share the cores).

Records (suite `peer_quspin`, fields of matexp_benches::Record, device named as `cargo
xtask bench` names this host) go to OUT/peer_quspin.jsonl; merge them with
`cargo xtask ingest OUT`.

Usage:
    python3 benches/peers/quspin_bose_hubbard.py [--sizes 8x8,10x10,12x12] [--t 2]
        [--reps 3] [--out target/peer-records/quspin] [--ours target/release/examples/propagate]
(MxN: M sites, N bosons.) The script creates its own venv under target/peer-venv and
installs QuSpin there with pip on first use.
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

REQUIREMENTS = ["quspin==1.0.1"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="8x8,10x10,12x12",
                    help="comma-separated MxN (M sites, N bosons)")
    ap.add_argument("--t", type=float, default=2.0)
    ap.add_argument("--j", type=float, default=1.0)
    ap.add_argument("--u", type=float, default=2.0)
    ap.add_argument("--tilt", type=float, default=0.25)
    ap.add_argument("--boundary", choices=["open", "periodic"], default="open")
    ap.add_argument("--rtol", type=float, default=1e-12, help="our methods' tolerance")
    ap.add_argument("--methods", default="leja,lanczos")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-round-s", type=float, default=60.0,
                    help="no further repetitions of a size once one round took longer")
    ap.add_argument("--ode-tol", type=float, default=1e-10)
    ap.add_argument("--ode-max-dim", type=int, default=100_000,
                    help="largest dimension QuSpin's ODE propagation (evolve) runs at; 0: never")
    ap.add_argument("--ours", help="the propagate example binary (default: cargo builds it)")
    ap.add_argument("--work", default=os.path.join(peer_env.ROOT, "target", "peer-quspin"))
    ap.add_argument("--out", default=os.path.join(peer_env.ROOT, "target", "peer-records",
                                                  "quspin"))
    ap.add_argument("--device", default=None)
    ap.add_argument("--venv", default=None)
    return ap.parse_args()


def default_state(m, n):
    half = max((m + 1) // 2, 1)
    occ = [0] * m
    for p in range(n):
        occ[p % half] += 1
    return occ


def run_ours(args, binary, m, n, method, occ0, stem):
    cmd = [binary, "--sites", str(m), "--particles", str(n), "--j", repr(args.j),
           "--u", repr(args.u), "--tilt", repr(args.tilt), "--boundary", args.boundary,
           "--state", ",".join(map(str, occ0)), "--t", repr(args.t), "--rtol", repr(args.rtol),
           "--method", method, "--reps", "2", "--out", stem]
    subprocess.run(cmd, check=True)
    return json.load(open(stem + ".json"))


def main():
    args = parse_args()
    peer_env.ensure_venv(REQUIREMENTS, args.venv)
    threads = len(os.sched_getaffinity(0))
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    # libgomp's default active wait spins at every barrier; on a host whose cores other
    # processes also use, a spinning thread waits for a descheduled one and a 20 ms
    # propagation took seconds. Passive waiting removes that (set OMP_WAIT_POLICY to override).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import numpy as np
    import quspin
    import scipy
    from quspin.basis import boson_basis_1d
    from quspin.operators import hamiltonian
    from quspin.tools.evolution import expm_multiply_parallel

    device = args.device or peer_env.device_name()
    commit = peer_env.commit()
    date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    binary = args.ours or peer_env.build_example("matexp-fock", "propagate")
    methods = [s for s in args.methods.split(",") if s]
    os.makedirs(args.work, exist_ok=True)
    versions = f"quspin {quspin.__version__}, numpy {np.__version__}, scipy {scipy.__version__}"
    print(f"{versions}; device {device}; {threads} threads; commit {commit}", flush=True)

    records = []
    table = []
    for spec in args.sizes.split(","):
        m, n = (int(x) for x in spec.lower().split("x"))
        occ0 = default_state(m, n)
        sps = n + 1
        # QuSpin: basis and Hamiltonian.
        t0 = time.perf_counter()
        basis = boson_basis_1d(m, Nb=n, sps=sps)
        bonds = list(range(m - 1)) if args.boundary == "open" else list(range(m))
        hop = [[-args.j, k, (k + 1) % m] for k in bonds]
        static = [
            ["+-", hop], ["-+", hop],
            ["n", [[args.tilt * k - args.u / 2, k] for k in range(m)]],
            ["nn", [[args.u / 2, k, k] for k in range(m)]],
        ]
        ham = hamiltonian(static, [], basis=basis, dtype=np.float64,
                          check_symm=False, check_herm=True, check_pcon=True)
        a = ham.tocsr()
        build_s = time.perf_counter() - t0
        d = basis.Ns
        # Occupation tuples of QuSpin's states (site 0 most significant digit, base sps).
        states = np.asarray(basis.states).astype(np.int64)
        occ = np.empty((d, m), dtype=np.int64)
        rest = states.copy()
        for k in range(m - 1, -1, -1):
            occ[:, k] = rest % sps
            rest //= sps
        assert np.all(occ.sum(axis=1) == n)
        for i in {0, d // 2, d - 1}:
            shown = basis.int_to_state(int(basis.states[i])).strip("|>").split()
            assert list(map(int, shown)) == list(occ[i]), (shown, occ[i])
        # Our index of QuSpin's state j: the lexicographic rank of its tuple.
        lex = np.lexsort(occ.T[::-1])          # lex[i] = QuSpin index of our state i
        psi0 = np.zeros(d, dtype=np.complex128)
        start = int(np.flatnonzero(np.all(occ == np.array(occ0), axis=1))[0])
        psi0[start] = 1.0
        print(f"M={m} N={n}: D={d}, nnz(H)={a.nnz}, QuSpin basis + H {build_s:.2f} s", flush=True)

        ours_times = {meth: [] for meth in methods}
        ours_first = {meth: [] for meth in methods}
        ours_last = {}
        peer_times, peer_setup, peer_dot, ode_times = [], [], [], []
        psi_peer = psi_ode = None
        run_ode = 0 < d <= args.ode_max_dim
        # One untimed QuSpin call first, as ours is timed on its second call.
        expm_multiply_parallel(a, a=-1j * args.t, dtype=np.complex128).dot(psi0)
        for rep in range(max(args.reps, 1)):
            round_start = time.perf_counter()
            for meth in methods:
                stem = os.path.join(args.work, f"m{m}_n{n}_{args.boundary}_{meth}")
                res = run_ours(args, binary, m, n, meth, occ0, stem)
                # The second call of the process: the first also builds per-process tables
                # (Leja points, divided differences), recorded as extra.first_call_s.
                ours_times[meth].append(res["times_s"][-1])
                ours_first[meth].append(res["times_s"][0])
                ours_last[meth] = (res, stem)
            t0 = time.perf_counter()
            prop = expm_multiply_parallel(a, a=-1j * args.t, dtype=np.complex128)
            t1 = time.perf_counter()
            psi_peer = prop.dot(psi0)
            t2 = time.perf_counter()
            peer_times.append(t2 - t0)
            peer_setup.append(t1 - t0)
            peer_dot.append(t2 - t1)
            if run_ode:
                t0 = time.perf_counter()
                psi_ode = ham.evolve(psi0, 0.0, [args.t], atol=args.ode_tol,
                                     rtol=args.ode_tol)[:, -1]
                ode_times.append(time.perf_counter() - t0)
            if time.perf_counter() - round_start > args.max_round_s:
                break
        reps = len(peer_times)
        med = lambda xs: float(np.median(xs))  # noqa: E731
        peer_t = med(peer_times)
        peer_lex = psi_peer[lex]
        dens_peer = (np.abs(peer_lex[:, None]) ** 2 * occ[lex]).sum(axis=0)
        size = {"n": d, "sites": m, "particles": n, "nnz": int(a.nnz)}
        case = f"m{m}_n{n}_{args.boundary}_t{args.t:g}"
        common_extra = {
            "shared_host": True, "interleaved": True, "threads": threads,
            "J": args.j, "U": args.u, "V": f"{args.tilt:g}·k", "t": args.t,
            "boundary": args.boundary, "initial_state": occ0,
            "load_avg_1min": peer_env.load_average(),
        }

        def rec(case_suffix, backend, t, reps_, error=None, ratio=None, matvecs=None, tol=None,
                extra=None):
            r = {"suite": "peer_quspin", "case": f"{case}/{case_suffix}", "backend": backend,
                 "device": device, "precision": "c64", "size": size, "time_s": t,
                 "reps": reps_, "commit": commit, "date": date,
                 "extra": dict(common_extra, **(extra or {}))}
            if matvecs is not None:
                r["matvecs"] = matvecs
            if tol is not None:
                r["tol"] = tol
            if error is not None:
                r["error"] = error
            if ratio is not None:
                r["peer_ratio"] = ratio
            return r

        ours_for_peer = None
        for meth in methods:
            res, stem = ours_last[meth]
            assert res["dim"] == d
            for idx, tup in res["basis_samples"]:
                assert list(occ[lex[idx]]) == tup, (idx, tup, occ[lex[idx]])
            psi = np.fromfile(stem + ".state.bin", dtype="<c16")
            err = float(np.linalg.norm(psi - peer_lex) / np.linalg.norm(peer_lex))
            ddiff = float(np.max(np.abs(np.array(res["densities"]) - dens_peer)))
            t_ours = med(ours_times[meth])
            ratio = peer_t / t_ours
            extra = {"method": meth, "peer": "quspin expm_multiply_parallel",
                     "error_vs": "QuSpin expm_multiply_parallel, relative 2-norm difference",
                     "max_density_diff": ddiff, "rel_error_estimate": res["rel_error_estimate"],
                     "norm_drift": abs(res["norm"] - 1.0),
                     "times_s": ours_times[meth], "first_call_s": med(ours_first[meth])}
            records.append(rec(meth, "cpu", t_ours, reps, err, ratio, res["matvecs"], args.rtol,
                               extra))
            table.append((m, n, d, f"ours {meth}", t_ours, peer_t, ratio, err))
            if meth == "lanczos" or ours_for_peer is None:
                ours_for_peer = (meth, t_ours, psi)
        meth, t_ours, psi = ours_for_peer
        err = float(np.linalg.norm(psi - peer_lex) / np.linalg.norm(psi))
        records.append(rec("expm_multiply_parallel", "quspin", peer_t, reps, err, peer_t / t_ours,
                           extra={"library": versions, "build_s": build_s,
                                  "omp_threads": int(os.environ["OMP_NUM_THREADS"]),
                                  "omp_wait_policy": os.environ["OMP_WAIT_POLICY"],
                                  "method": "expm_multiply_parallel (Taylor, tol eps/2)",
                                  "ratio_vs": f"cpu {meth}",
                                  "error_vs": f"matexp {meth}, relative 2-norm difference",
                                  "setup_s": med(peer_setup), "dot_s": med(peer_dot),
                                  "dot_ratio": med(peer_dot) / t_ours,
                                  "times_s": peer_times}))
        table.append((m, n, d, f"QuSpin dot() alone vs ours {meth}", t_ours, med(peer_dot),
                      med(peer_dot) / t_ours, err))
        if run_ode and psi_ode is not None:
            ode_t = med(ode_times)
            ode_lex = psi_ode[lex]
            err_ode = float(np.linalg.norm(psi - ode_lex) / np.linalg.norm(psi))
            records.append(rec("evolve_dop853", "quspin", ode_t, reps, err_ode, ode_t / t_ours,
                               tol=args.ode_tol,
                               extra={"library": versions, "build_s": build_s,
                                      "method": f"hamiltonian.evolve, dop853, atol = rtol = "
                                                f"{args.ode_tol:g}",
                                      "ratio_vs": f"cpu {meth}",
                                      "error_vs": f"matexp {meth}, relative 2-norm difference",
                                      "times_s": ode_times}))
            table.append((m, n, d, "QuSpin evolve (dop853)", t_ours, ode_t, ode_t / t_ours,
                          err_ode))
        for r in records[-(len(methods) + 1 + (1 if run_ode else 0)):]:
            print(json.dumps(r, ensure_ascii=False), flush=True)

    peer_env.finish(args.out, "peer_quspin", records,
                    ["M", "N", "D", "ours", "our time (s)", "QuSpin (s)", "QuSpin / ours",
                     "rel. diff"],
                    [(str(m), str(n), str(d), what, f"{t_o:.4f}", f"{t_p:.4f}", f"{ratio:.2f}",
                      f"{err:.1e}") for m, n, d, what, t_o, t_p, ratio, err in table])

if __name__ == "__main__":
    main()
