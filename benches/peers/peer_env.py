"""What the peer scripts share: their own virtual environment, the device name, the commit.

A peer script calls `ensure_venv([...pinned requirements...])` before importing the peer:
when it does not already run in the peer environment, that creates a venv under
target/peer-venv (ignored; `--venv DIR` or $MATEXP_PEER_VENV to move it), installs the
pinned packages with pip (from PyPI, or whatever pip is configured to use), and re-executes
the script with the venv's interpreter. A second run finds the packages installed and only
asks pip to confirm them.

`device_name()` follows `cargo xtask bench`'s rule for CPU hosts (bench-results/README.md),
so that peer records land beside the CPU records of the same machine.
"""

import os
import re
import subprocess
import sys
import venv

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_MARK = "MATEXP_PEER_VENV_ACTIVE"


def _venv_python(path):
    return os.path.join(path, "bin", "python")


def ensure_venv(requirements, path=None):
    """Runs the calling script inside a venv that holds `requirements` (pip specifiers)."""
    path = os.path.abspath(path or os.environ.get("MATEXP_PEER_VENV")
                           or os.path.join(ROOT, "target", "peer-venv"))
    py = _venv_python(path)
    if os.environ.get(_MARK) == path:
        return
    if not os.path.exists(py):
        print(f"peer_env: creating a venv in {os.path.relpath(path, ROOT)}", flush=True)
        venv.EnvBuilder(with_pip=True).create(path)
    cmd = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements]
    print("peer_env: pip install " + " ".join(requirements), flush=True)
    subprocess.run(cmd, check=True)
    env = dict(os.environ, **{_MARK: path})
    os.execve(py, [py, os.path.abspath(sys.argv[0]), *sys.argv[1:]], env)


def prepare_venv(requirements, path=None):
    """Creates (once) the peer venv with `requirements` installed; returns its interpreter.

    The non-re-executing form of `ensure_venv`, for callers that are not Python scripts
    (`cargo xtask bench` hands the interpreter to the benchmark binaries as $MATEXP_PYTHON).
    """
    path = os.path.abspath(path or os.environ.get("MATEXP_PEER_VENV")
                           or os.path.join(ROOT, "target", "peer-venv"))
    py = _venv_python(path)
    if not os.path.exists(py):
        print(f"peer_env: creating a venv in {os.path.relpath(path, ROOT)}", file=sys.stderr,
              flush=True)
        venv.EnvBuilder(with_pip=True).create(path)
    print("peer_env: pip install " + " ".join(requirements), file=sys.stderr, flush=True)
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    *requirements], check=True, stdout=sys.stderr)
    return py


def cpu_device_name(cpuinfo, cores):
    """`cpu-<model>-<cores>core` from /proc/cpuinfo, as `cargo xtask bench` names CPU hosts."""
    def field(name):
        for line in cpuinfo.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                if k.strip() == name:
                    return v.strip()
        return None

    model_name = field("model name")
    if not model_name:
        return f"cpu-{cores}core"
    filler = {"cpu", "processor", "with", "radeon", "graphics"}
    cleaned = model_name.replace("(R)", " ").replace("(TM)", " ").replace("(tm)", " ")
    words = []
    for word in cleaned.split():
        lower = word.lower()
        if lower == "@" or lower.endswith("ghz"):
            break
        if lower in filler or lower.endswith("-core"):
            continue
        slug = re.sub(r"[^a-z0-9]", "-", lower).strip("-")
        if slug:
            words.append(slug)
    if not any(re.search(r"[0-9]", w) for w in words):
        family, model = field("cpu family"), field("model")
        if family is not None and model is not None:
            words.append(f"f{family}m{model}")
    if not words:
        return f"cpu-{cores}core"
    return f"cpu-{'-'.join(words)}-{cores}core"


def device_name():
    """$MATEXP_BENCH_DEVICE, else this host's CPU device name."""
    if os.environ.get("MATEXP_BENCH_DEVICE"):
        return os.environ["MATEXP_BENCH_DEVICE"]
    try:
        cpuinfo = open("/proc/cpuinfo").read()
    except OSError:
        cpuinfo = ""
    return cpu_device_name(cpuinfo, len(os.sched_getaffinity(0)))


def commit():
    """HEAD as 12 hex digits, with `-dirty` when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return head + ("-dirty" if dirty.strip() else "")
    except Exception:
        return "unknown"


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def build_example(package, example):
    """`cargo build --release` of one example; returns the binary's path."""
    print(f"building {package}'s example {example} (release)", flush=True)
    subprocess.run(["cargo", "build", "--release", "-p", package, "--example", example],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "examples", example)


def finish(out, suite, records, header, rows):
    """Prints `rows` as a markdown table under `header` and appends the records to
    OUT/<suite>.jsonl, where `cargo xtask ingest OUT` finds them."""
    import json
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, suite + ".jsonl"), "a") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(records)} records appended to {os.path.join(out, suite + '.jsonl')}")


if __name__ == "__main__":
    # `peer_env.py REQUIREMENT...`: prepares the venv and prints its interpreter's path.
    import argparse
    ap = argparse.ArgumentParser(description="prepare the peer venv, print its python")
    ap.add_argument("requirements", nargs="+")
    ap.add_argument("--venv", default=None)
    a = ap.parse_args()
    print(prepare_venv(a.requirements, a.venv))
