#!/usr/bin/env python3
"""SciPy beside the CPU suites (spmv, fock, graph, expint): the same matrix, vector or
Hamiltonian, read from the raw arrays the bench wrote (benches/benches/common/scipy_peer.rs),
computed by the SciPy call a user would pick, timed here and checked against ours.

Called by the benches with `$MATEXP_PYTHON` (the venv of `cargo xtask bench`, made by
peer_env.py with numpy and scipy); not meant to be run by hand, but it can be:

    scipy_cpu_peers.py spmv DIR --dtype f64 [--reps 50 --max-s 5]
        A @ x for the CSR DIR/A.{indptr,indices,data} and DIR/x; error against DIR/y (ours).
        time_s: median of one product; bytes: data + indices + indptr as SciPy holds them.
    scipy_cpu_peers.py expmv DIR --dtype f64 [--reps 5 --max-s 20]
        expm_multiply(A, DIR/v); error ‖w − ref‖₂ / ‖ref‖₂ against DIR/ref.
    scipy_cpu_peers.py expm_times DIR --spins L --start 0 --stop 100 --num 1001
        expm_multiply(−iH, ψ₀, start, stop, num, endpoint=True) (one call, timed once);
        ⟨S_z⟩ of spin 1 at every time, error = max |Δ⟨S_z⟩| against DIR/ref (our curve).
    scipy_cpu_peers.py ode DIR --times 10 [--decay 0.3] --rtol 1e-10 --atol 1e-12
        solve_ivp(DOP853) of i ψ' = f(t) H ψ (f = e^{−a t} with --decay a, else 1) from
        DIR/psi0; the states at --times are written to DIR/out (complex f64) for the bench
        to score as it scores ours.
    scipy_cpu_peers.py exp_euler DIR --h 1e-4
        one exponential-Euler step e^{hA}u + hφ₁(hA)g from DIR/A (the Laplacian), DIR/u and
        DIR/g = g(u): expm_multiply of h·[[A, g], [0, 0]] on [u; 1] (the augmented matrix),
        written to DIR/out; error ‖out − ref‖₂ / ‖ref‖₂ against DIR/ref.
    scipy_cpu_peers.py cnot --rtol 1e-10 --atol 1e-12
        the CNOT pulse sequence of crates/integrators/examples/support/nmr.rs without a bath
        (pulses in the laboratory frame, the free evolution in the rotating frame), each
        segment by solve_ivp(DOP853); |1 − F| of the mean fidelity over the 16 product inputs.

Every command prints one JSON line: time_s, reps, error where it has one, scipy's version.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.integrate import solve_ivp
from scipy.sparse.linalg import expm_multiply

DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex128, "c32": np.complex128}


def read_csr(d, stem, dtype, n):
    indptr = np.fromfile(os.path.join(d, stem + ".indptr"), dtype=np.uint32)
    indices = np.fromfile(os.path.join(d, stem + ".indices"), dtype=np.uint32)
    data = np.fromfile(os.path.join(d, stem + ".data"), dtype=dtype)
    itype = np.int32 if len(indices) < 2**31 else np.int64
    return sp.csr_array((data, indices.astype(itype), indptr.astype(itype)), shape=(n, n))


def vec(d, name, dtype):
    return np.fromfile(os.path.join(d, name), dtype=dtype)


def timed(fn, reps, max_s):
    """Median of up to `reps` timed calls after one untimed call; stops once `max_s` spent."""
    out = fn()
    times = []
    spent = 0.0
    while len(times) < reps and (spent < max_s or len(times) < 1):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    times.sort()
    return times[len(times) // 2], len(times), out


def emit(d):
    d["scipy"] = scipy.__version__
    d["numpy"] = np.__version__
    print(json.dumps(d))


def cmd_spmv(a):
    dtype = DTYPES[a.dtype]
    x = vec(a.dir, "x", dtype)
    n = len(x)
    A = read_csr(a.dir, "A", dtype, n)
    t, reps, y = timed(lambda: A @ x, a.reps, a.max_s)
    ours = vec(a.dir, "y", dtype)
    err = float(np.max(np.abs(y - ours)) / max(np.max(np.abs(ours)), 1e-300))
    emit({"time_s": t, "reps": reps, "error": err, "nnz": int(A.nnz),
          "bytes": int(A.data.nbytes + A.indices.nbytes + A.indptr.nbytes),
          "index_dtype": str(A.indices.dtype), "threads": 1})


def cmd_expmv(a):
    dtype = DTYPES[a.dtype]
    v = vec(a.dir, "v", dtype)
    A = read_csr(a.dir, "A", dtype, len(v))
    ref = vec(a.dir, "ref", dtype)
    t, reps, w = timed(lambda: expm_multiply(A, v), a.reps, a.max_s)
    err = float(np.linalg.norm(w - ref) / np.linalg.norm(ref))
    emit({"time_s": t, "reps": reps, "error": err})


def cmd_exp_euler(a):
    u = vec(a.dir, "u", np.float64)
    n = len(u)
    A = read_csr(a.dir, "A", np.float64, n)
    g = vec(a.dir, "g", np.float64)
    ref = vec(a.dir, "ref", np.float64)

    def step():
        top = sp.hstack([A, sp.csr_array(g.reshape(-1, 1))])
        aug = sp.vstack([top, sp.csr_array((1, n + 1))], format="csr")
        return expm_multiply(a.h * aug, np.append(u, 1.0))[:n]

    t, reps, w = timed(step, a.reps, a.max_s)
    w.tofile(os.path.join(a.dir, "out"))
    err = float(np.linalg.norm(w - ref) / np.linalg.norm(ref))
    emit({"time_s": t, "reps": reps, "error": err})


def sz_spin1(psi, spins):
    # Spin 1 is the most significant bit; a clear bit is spin up (+½).
    n = psi.shape[-1]
    sign = np.where((np.arange(n) >> (spins - 1)) & 1 == 0, 0.5, -0.5)
    return (np.abs(psi) ** 2) @ sign


def cmd_expm_times(a):
    psi0 = vec(a.dir, "psi0", np.complex128)
    H = read_csr(a.dir, "H", np.complex128, len(psi0))
    G = (-1j) * H
    t0 = time.perf_counter()
    states = expm_multiply(G, psi0, start=a.start, stop=a.stop, num=a.num, endpoint=True)
    t = time.perf_counter() - t0
    curve = sz_spin1(states, a.spins)
    ref = vec(a.dir, "ref", np.float64)
    err = float(np.max(np.abs(curve - ref[: len(curve)])))
    curve.astype(np.float64).tofile(os.path.join(a.dir, "out"))
    emit({"time_s": t, "reps": 1, "error": err, "outputs": int(len(curve))})


def cmd_ode(a):
    psi0 = vec(a.dir, "psi0", np.complex128)
    H = read_csr(a.dir, "H", np.complex128, len(psi0))
    times = [float(s) for s in a.times.split(",")]
    decay = a.decay

    def f(t, y):
        c = math.exp(-decay * t) if decay else 1.0
        return (-1j * c) * (H @ y)

    def run():
        return solve_ivp(f, (0.0, times[-1]), psi0, method="DOP853", t_eval=times,
                         rtol=a.rtol, atol=a.atol)

    t, reps, sol = timed(run, a.reps, a.max_s)
    if not sol.success:
        sys.exit(f"solve_ivp: {sol.message}")
    np.ascontiguousarray(sol.y.T).astype(np.complex128).tofile(os.path.join(a.dir, "out"))
    emit({"time_s": t, "reps": reps, "nfev": int(sol.nfev), "method": "DOP853",
          "rtol": a.rtol, "atol": a.atol})


# --- CNOT (nmr.rs without a bath: two qubits, dimension 4) -------------------------------
H1, H2, J, K = 1.0, 0.25, -0.43e-6, 0.5


def sz(idx, q):
    bit = 2 - q
    return 0.5 if (idx >> bit) & 1 == 0 else -0.5


def diag(lab):
    d = np.zeros(4)
    for i in range(4):
        s1, s2 = sz(i, 1), sz(i, 2)
        d[i] = -J * s1 * s2 - ((H1 * s1 + H2 * s2) if lab else 0.0)
    return d


def sequence():
    p = lambda q, axis, angle: (q, axis, angle)  # noqa: E731
    rz = lambda q, al: [p(q, "y", math.pi / 2), p(q, "x", al), p(q, "y", -math.pi / 2)]  # noqa
    s = [p(2, "y", math.pi / 2), p(2, "x", math.pi), None]
    s += rz(1, -math.pi / 2)
    s += rz(2, -math.pi / 2)
    s += [p(2, "y", math.pi / 2), p(2, "x", math.pi)]
    return s


def frame(psi, t, to_lab):
    sign = 1.0 if to_lab else -1.0
    e = np.array([H1 * sz(i, 1) + H2 * sz(i, 2) for i in range(4)])
    return psi * np.exp(1j * sign * e * t)


def run_gate(psi, rtol, atol):
    t = 0.0
    nfev = 0
    lab, rot = diag(True), diag(False)
    for seg in sequence():
        if seg is not None:
            q, axis, angle = seg
            duration = abs(angle) / K
            k = -angle / duration
            omega, bit = (H1, 1) if q == 1 else (H2, 0)
            theta = 0.0 if axis == "x" else -math.pi / 2
            flip = np.arange(4) ^ (1 << bit)
            down = ((np.arange(4) >> bit) & 1) == 1

            def f(tt, y, omega=omega, theta=theta, k=k, flip=flip, down=down):
                w = -0.5 * k * np.exp(-1j * (omega * tt + theta))
                hx = lab * y + np.where(down, w, np.conj(w)) * y[flip]
                return -1j * hx

            psi = frame(psi, t, True)
            sol = solve_ivp(f, (t, t + duration), psi, method="DOP853", rtol=rtol, atol=atol)
            psi = sol.y[:, -1]
            t += duration
            psi = frame(psi, t, False)
        else:
            duration = math.pi / abs(J)
            sol = solve_ivp(lambda tt, y: -1j * rot * y, (t, t + duration), psi,
                            method="DOP853", rtol=rtol, atol=atol)
            psi = sol.y[:, -1]
            t += duration
        nfev += sol.nfev
    return psi, nfev


def inputs():
    s = math.sqrt(0.5)
    one = [[1, 0], [0, 1], [s, s], [s, 1j * s]]
    return [np.array([a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]], dtype=complex)
            for a in one for b in one]


def gate_fidelity(rtol, atol):
    cols = []
    nfev = 0
    for j in range(4):
        psi = np.zeros(4, dtype=complex)
        psi[j] = 1.0
        w, n = run_gate(psi, rtol, atol)
        cols.append(w)
        nfev += n
    W = np.array(cols).T  # column j: the gate applied to e_j
    fs = []
    for c in inputs():
        d = c[[0, 1, 3, 2]]
        fs.append(abs(np.vdot(d, W @ c)) ** 2)
    return float(np.mean(fs)), float(np.min(fs)), nfev


def cmd_cnot(a):
    t, reps, (f, fmin, nfev) = timed(lambda: gate_fidelity(a.rtol, a.atol), a.reps, a.max_s)
    emit({"time_s": t, "reps": reps, "error": abs(1.0 - f), "worst_infidelity": 1.0 - fmin,
          "nfev": nfev, "method": "DOP853", "rtol": a.rtol, "atol": a.atol})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ["spmv", "expmv", "expm_times", "ode", "exp_euler"]:
        s = sub.add_parser(name)
        s.add_argument("dir")
    c = sub.add_parser("cnot")
    c.add_argument("dir", nargs="?")
    for s in sub.choices.values():
        s.add_argument("--dtype", default="f64")
        s.add_argument("--reps", type=int, default=5)
        s.add_argument("--max-s", type=float, default=20.0)
        s.add_argument("--rtol", type=float, default=1e-10)
        s.add_argument("--atol", type=float, default=1e-12)
    sub.choices["expm_times"].add_argument("--spins", type=int, required=True)
    sub.choices["expm_times"].add_argument("--start", type=float, default=0.0)
    sub.choices["expm_times"].add_argument("--stop", type=float, required=True)
    sub.choices["expm_times"].add_argument("--num", type=int, required=True)
    sub.choices["ode"].add_argument("--times", required=True)
    sub.choices["ode"].add_argument("--decay", type=float, default=0.0)
    sub.choices["exp_euler"].add_argument("--h", type=float, required=True)
    a = ap.parse_args()
    {"spmv": cmd_spmv, "expmv": cmd_expmv, "expm_times": cmd_expm_times, "ode": cmd_ode,
     "exp_euler": cmd_exp_euler, "cnot": cmd_cnot}[a.cmd](a)


if __name__ == "__main__":
    main()
