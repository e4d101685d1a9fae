"""Hostile calls to the C ABI from Python ctypes, each in its own process so that a crash is
seen as a crash: usage `python3 abi_hostile.py path/to/libmatexp_cli.so`. Prints one line per
case and exits 0 when every call returned its documented status."""
import ctypes as C
import subprocess
import sys

LIB = sys.argv[1]

# Each case: Python code run in a child after `lib` and helpers are set up; it prints the
# status it got. Expected statuses per matexp.h: 1 null pointer, 2 invalid argument, 3 input.
PRELUDE = f"""
import ctypes as C, math
lib = C.CDLL({LIB!r})
lib.matexp_options_new.restype = C.c_void_p
lib.matexp_last_error.restype = C.c_char_p
o = C.c_void_p(lib.matexp_options_new())
def arr(t, xs): return (t * len(xs))(*xs)
def csr(rp, ci, va, wide=C.c_int32, fn=lib.matexp_csr_new_i32, n=None, nnz=None):
    a = C.c_void_p()
    n = len(rp) - 1 if n is None else n
    nnz = len(ci) if nnz is None else nnz
    s = fn(C.c_size_t(n), C.c_size_t(nnz), arr(wide, rp), arr(wide, ci), arr(C.c_double, va), C.byref(a))
    return s, a
"""
CASES = [
    ("set_method 5", "print(lib.matexp_options_set_method(o, C.c_int32(5)))", 2),
    ("set_method -1", "print(lib.matexp_options_set_method(o, C.c_int32(-1)))", 2),
    ("set_method 9", "print(lib.matexp_options_set_method(o, C.c_int32(9)))", 2),
    ("set_method 1000", "print(lib.matexp_options_set_method(o, C.c_int32(1000)))", 2),
    ("set_method 3", "print(lib.matexp_options_set_method(o, C.c_int32(3)))", 0),
    ("negative rtol", "print(lib.matexp_options_set_tolerance(o, C.c_double(-1e-8), C.c_double(0)))", 2),
    ("NaN atol", "print(lib.matexp_options_set_tolerance(o, C.c_double(1e-8), C.c_double(math.nan)))", 2),
    ("null options", "print(lib.matexp_options_set_method(None, C.c_int32(0)))", 1),
    ("scipy int32 csr", "print(csr([0, 1, 2], [1, 0], [1.0, -1.0])[0])", 0),
    ("int64 csr", "print(csr([0, 1, 2], [1, 0], [1.0, -1.0], C.c_int64, lib.matexp_csr_new)[0])", 0),
    ("decreasing row_ptr", "print(csr([0, 2, 1], [1, 0], [1.0, -1.0])[0])", 3),
    ("last row_ptr != nnz", "print(csr([0, 1, 5], [1, 0], [1.0, -1.0])[0])", 3),
    ("column out of range", "print(csr([0, 1, 2], [1, 7], [1.0, -1.0])[0])", 3),
    ("negative column", "print(csr([0, 1, 2], [-1, 0], [1.0, -1.0])[0])", 3),
    ("expmv after bad method",
     "s, a = csr([0, 1, 2], [1, 0], [1.0, -1.0]); lib.matexp_options_set_method(o, C.c_int32(77));\n"
     "v = arr(C.c_double, [1.0, 2.0]); w = (C.c_double * 2)()\n"
     "s = lib.matexp_expmv(a, C.c_double(0.5), v, w, C.c_size_t(2), o, None)\n"
     "c, sn = math.cos(0.5), math.sin(0.5)\n"
     "print(s if abs(w[0] - (c + 2 * sn)) < 1e-8 and abs(w[1] - (2 * c - sn)) < 1e-8 else 99)", 0),
    ("phimv k = 2^64 - 1",
     "s, a = csr([0, 1, 2], [1, 0], [1.0, -1.0]); v = arr(C.c_double, [1.0, 0.0]); out = (C.c_double * 4)()\n"
     "print(lib.matexp_phimv(a, C.c_double(1.0), v, C.c_size_t(2**64 - 1), out, C.c_size_t(2), o, None))", 2),
]

failed = 0
for name, body, want in CASES:
    child = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, timeout=60)
    got = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else None
    ok = child.returncode == 0 and got == str(want)
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {child.returncode}, status {got}, want {want}"
          + ("" if ok else f"\n{child.stderr[-2000:]}"))
print("all calls returned their status" if failed == 0 else f"{failed} failed")
sys.exit(1 if failed else 0)
