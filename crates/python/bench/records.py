"""Benchmark records in the format of crates/records (`matexp_records::Record`), one JSON
object per line, for `cargo xtask ingest <folder>`."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from typing import Any, Optional


def commit() -> str:
    env = os.environ.get("MATEXP_COMMIT")
    if env:
        return env[:12]
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def record(suite: str, case: str, backend: str, device: str, precision: str, *, size: dict,
           time_s: float, reps: int, matvecs: Optional[int] = None, tol: Optional[float] = None,
           error: Optional[float] = None, peer_ratio: Optional[float] = None, **extra: Any) -> dict:
    r = {"suite": suite, "case": case, "backend": backend, "device": device, "precision": precision,
         "size": size, "time_s": time_s, "reps": reps, "commit": commit(),
         "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"), "extra": extra}
    for k, v in (("matvecs", matvecs), ("tol", tol), ("error", error), ("peer_ratio", peer_ratio)):
        if v is not None:
            r[k] = v
    return r


def write(path: str, records: list) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"{len(records)} records -> {path}")
