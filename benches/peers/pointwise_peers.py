#!/usr/bin/env python3
"""Peers of seed 003's Table III (the combustion source g(u) = ¼(2 − u)·exp(20(1 − 1/u)),
pointwise over n³ values): the same expression in torch and CuPy on the GPU, and in NumPy
on the host CPU, each in double and single precision, on the input of the gpu_stencil
benchmark.

Run by the gpu_stencil benchmark (embedded in its binary, so the GPU bundle needs no copy of
this file). Reads u (n float64 values, raw little-endian) and our double-precision result
g(u) from the GPU (same layout); the single-precision runs take u rounded to float32, as
ours do. Times are medians after one warm-up: CUDA events for torch and CuPy, wall time for
NumPy. `error` = max |peer − ours| / max |ours|, against our double-precision result.

torch and the plain CuPy expression run as a user writes them: one kernel per operation,
with temporaries. CuPy is also timed as one fused kernel (cupy.fuse), its fair counterpart
of our single kernel: the record's time is the fused one, the plain expression's time is
`unfused_time_s`.

Prints one JSON object on stdout: {"results": [{backend, precision, time_s, reps, error,
library, ...}], "skipped": [{backend, precision, why}]}. A missing library, a failure or the
time limit (--time-limit seconds per backend and precision, reps included) skips that peer
with the reason, never silently.

Usage:
    python3 pointwise_peers.py --u U.bin --ours G.bin [--reps 20] [--time-limit 60]
        [--backends torch,cupy,numpy] [--precisions f64,f32]
"""

import argparse
import json
import sys
import time


def g_expr(xp, u):
    return 0.25 * (2 - u) * xp.exp(20 * (1 - 1 / u))


def error(np, out, ref, ref_max):
    return float(np.max(np.abs(out.astype(np.float64) - ref)) / ref_max)


def timed_gpu(events, sync, f, reps, limit):
    """Median of `reps` event timings after one warm-up; stops early at `limit` seconds."""
    f()
    sync()
    times = []
    t0 = time.perf_counter()
    out = None
    for _ in range(reps):
        start, end, elapsed = events()
        start.record()
        out = f()
        end.record()
        end.synchronize()
        times.append(elapsed(start, end))
        if time.perf_counter() - t0 > limit:
            break
    times.sort()
    return times[len(times) // 2], len(times), out


def run_torch(np, u64, ref, ref_max, prec, reps, limit):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch without CUDA")
    dt = torch.float64 if prec == "f64" else torch.float32
    u = torch.from_numpy(u64).to(device="cuda", dtype=dt)

    def events():
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        return s, e, lambda a, b: a.elapsed_time(b) / 1e3

    t, n, out = timed_gpu(events, torch.cuda.synchronize, lambda: g_expr(torch, u), reps, limit)
    err = error(np, out.cpu().numpy(), ref, ref_max)
    return {"time_s": t, "reps": n, "error": err, "library": f"torch {torch.__version__}",
            "gpu": torch.cuda.get_device_name(0), "fused": False,
            "what": "0.25*(2-u)*torch.exp(20*(1-1/u)), one kernel per operation"}


def run_cupy(np, u64, ref, ref_max, prec, reps, limit):
    import cupy as cp
    dt = cp.float64 if prec == "f64" else cp.float32
    u = cp.asarray(u64).astype(dt)

    def events():
        return cp.cuda.Event(), cp.cuda.Event(), lambda a, b: cp.cuda.get_elapsed_time(a, b) / 1e3

    sync = cp.cuda.Device().synchronize
    t_plain, _, _ = timed_gpu(events, sync, lambda: g_expr(cp, u), reps, limit / 2)
    fused = cp.fuse(kernel_name="combustion_g")(lambda x: g_expr(cp, x))
    t, n, out = timed_gpu(events, sync, lambda: fused(u), reps, limit / 2)
    err = error(np, cp.asnumpy(out), ref, ref_max)
    return {"time_s": t, "reps": n, "error": err, "library": f"cupy {cp.__version__}",
            "fused": True, "unfused_time_s": t_plain,
            "what": "cupy.fuse of 0.25*(2-u)*exp(20*(1-1/u)) (one kernel); unfused_time_s: "
                    "the plain expression"}


def run_numpy(np, u64, ref, ref_max, prec, reps, limit):
    u = u64 if prec == "f64" else u64.astype(np.float32)
    g_expr(np, u)
    times = []
    t0 = time.perf_counter()
    out = None
    for _ in range(reps):
        s = time.perf_counter()
        out = g_expr(np, u)
        times.append(time.perf_counter() - s)
        if time.perf_counter() - t0 > limit:
            break
    times.sort()
    return {"time_s": times[len(times) // 2], "reps": len(times),
            "error": error(np, out, ref, ref_max), "library": f"numpy {np.__version__}",
            "threads": 1, "what": "0.25*(2-u)*np.exp(20*(1-1/u)) on the host CPU"}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--u", required=True)
    p.add_argument("--ours", required=True)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--backends", default="torch,cupy,numpy")
    p.add_argument("--precisions", default="f64,f32")
    a = p.parse_args()
    results, skipped = [], []
    try:
        import numpy as np
    except ImportError as e:
        print(json.dumps({"results": [], "skipped": [{"backend": "all", "precision": "-",
                                                      "why": f"numpy not importable: {e}"}]}))
        return
    u64 = np.fromfile(a.u, dtype="<f8")
    ref = np.fromfile(a.ours, dtype="<f8")
    if u64.shape != ref.shape:
        sys.exit(f"pointwise_peers: {u64.size} inputs but {ref.size} results")
    ref_max = float(np.max(np.abs(ref)))
    runners = {"torch": run_torch, "cupy": run_cupy, "numpy": run_numpy}
    for backend in filter(None, a.backends.split(",")):
        for prec in filter(None, a.precisions.split(",")):
            run = runners.get(backend)
            if run is None:
                skipped.append({"backend": backend, "precision": prec, "why": "unknown peer"})
                continue
            try:
                reps = a.reps if backend != "numpy" else max(1, min(a.reps, 5))
                r = run(np, u64, ref, ref_max, prec, reps, a.time_limit)
                r.update(backend=backend, precision=prec)
                results.append(r)
            except ImportError as e:
                skipped.append({"backend": backend, "precision": prec,
                                "why": f"not importable: {e}"})
            except Exception as e:  # a peer's failure costs its record only
                skipped.append({"backend": backend, "precision": prec,
                                "why": f"{type(e).__name__}: {e}"})
            finally:
                try:
                    if backend == "cupy":
                        import cupy
                        cupy.get_default_memory_pool().free_all_blocks()
                    elif backend == "torch":
                        import torch
                        torch.cuda.empty_cache()
                except Exception:
                    pass
    print(json.dumps({"results": results, "skipped": skipped}))


if __name__ == "__main__":
    main()
