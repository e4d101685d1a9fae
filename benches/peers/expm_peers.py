#!/usr/bin/env python3
"""Peers of matexp-matpoly's dense exponential on the GPU: torch.linalg.matrix_exp and
cupyx.scipy.linalg.expm (each when importable), in double precision, on the matrix of the
gpu_matpoly benchmark.

The matrix is A = S·D·S⁻¹ with S = I + u vᵀ and the closed-form vectors of
benches/benches/gpu_matpoly.rs (d_i = −4 + 5i/(n−1), u_i = sin(0.37i + 0.1),
v_i = 0.5·cos(0.23i + 0.2)/√n), so its exponential S·e^D·S⁻¹ is known in closed form and
every library is measured against the same reference, in the same way (relative 1-norm
error). Times are medians of CUDA-event timings after one warm-up.

Prints one JSON record per line (the fields of matexp_benches::Record; suite gpu_matpoly,
case "expm n=N", backend "torch" or "cupy"), and appends them to OUT/gpu_matpoly.jsonl when
--out OUT is given, so that `cargo xtask ingest` merges them beside our own record; the
report's peer ratio is the peer's time over ours from the same run.

Usage (on the GPU host, no network needed):
    python3 benches/peers/expm_peers.py [--n 6144] [--reps 10] [--out OUTDIR] [--device h200]
"""

import argparse
import datetime
import json
import math
import os
import subprocess
import sys


def generator(np, n):
    i = np.arange(n, dtype=np.float64)
    d = -4.0 + 5.0 * i / max(n - 1, 1)
    u = np.sin(0.37 * i + 0.1)
    v = 0.5 * np.cos(0.23 * i + 0.2) / math.sqrt(n)
    return d, u, v


def similarity(np, f, u, v):
    """S·diag(f)·S⁻¹, S = I + u vᵀ, S⁻¹ = I − c u vᵀ, c = 1/(1 + vᵀu)."""
    c = 1.0 / (1.0 + v @ u)
    w = float(np.sum(v * f * u))
    m = np.outer(u, v * f) - c * np.outer(f * u, v) - c * w * np.outer(u, v)
    m[np.diag_indices_from(m)] += f
    return m


def rel_err(np, a, b):
    return float(np.abs(a - b).sum(axis=0).max() / np.abs(b).sum(axis=0).max())


def record(args, backend, t, reps, err, extra):
    return {
        "suite": "gpu_matpoly",
        "case": f"expm n={args.n}",
        "backend": backend,
        "device": args.device,
        "precision": "f64",
        "size": {"n": args.n},
        "time_s": t,
        "reps": reps,
        "error": err,
        "extra": extra,
        "commit": args.commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
    }


def time_torch(torch, a_dev, reps):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.linalg.matrix_exp(a_dev)
    torch.cuda.synchronize()
    times = []
    out = None
    for _ in range(reps):
        start.record()
        out = torch.linalg.matrix_exp(a_dev)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2], out


def time_cupy(cp, expm, a_dev, reps):
    start = cp.cuda.Event()
    end = cp.cuda.Event()
    expm(a_dev)
    cp.cuda.Device().synchronize()
    times = []
    out = None
    for _ in range(reps):
        start.record()
        out = expm(a_dev)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    times.sort()
    return times[len(times) // 2], out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=6144)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--out", default=None)
    p.add_argument("--device", default=os.environ.get("MATEXP_BENCH_DEVICE", "gpu"))
    p.add_argument("--commit", default=os.environ.get("MATEXP_COMMIT", ""))
    args = p.parse_args()
    if not args.commit:
        try:
            args.commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"],
                                         capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            args.commit = "unknown"

    import numpy as np

    d, u, v = generator(np, args.n)
    a = similarity(np, d, u, v)
    e_ref = similarity(np, np.exp(d), u, v)
    records = []

    try:
        import torch
        if torch.cuda.is_available():
            a_dev = torch.from_numpy(a).cuda()
            t, out = time_torch(torch, a_dev, args.reps)
            err = rel_err(np, out.cpu().numpy(), e_ref)
            records.append(record(args, "torch", t, args.reps, err,
                                  {"library": f"torch {torch.__version__}",
                                   "gpu": torch.cuda.get_device_name(0),
                                   "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32)}))
        else:
            print("expm_peers: torch without CUDA; skipped", file=sys.stderr)
    except ImportError:
        print("expm_peers: torch not importable; skipped", file=sys.stderr)

    try:
        import cupy as cp
        from cupyx.scipy.linalg import expm as cp_expm
        a_dev = cp.asarray(a)
        t, out = time_cupy(cp, cp_expm, a_dev, args.reps)
        err = rel_err(np, cp.asnumpy(out), e_ref)
        records.append(record(args, "cupy", t, args.reps, err,
                              {"library": f"cupy {cp.__version__}"}))
    except ImportError:
        print("expm_peers: cupy / cupyx.scipy.linalg.expm not importable; skipped", file=sys.stderr)

    lines = [json.dumps(r) for r in records]
    for line in lines:
        print(line)
    if args.out and lines:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "gpu_matpoly.jsonl"), "a") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
