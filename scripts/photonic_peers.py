#!/usr/bin/env python3
"""Photonic quantities side by side with thewalrus, in one run (docs/benchmarks.md,
"Photon-number patterns and torontonians"): repeated-row hafnians and torontonians.

Run with a Python that has thewalrus (pip install thewalrus) and numpy. matchcount is timed in
process through its Python package when that imports (MATCHCOUNT_SITE=site-packages folder
appended to the path), else as its command-line program (the path given, process start-up of
about 5 ms included). Every function runs once on a small input first (thewalrus compiles with
numba on its first call):
    MATCHCOUNT_SITE=build-python/venv/lib/python3.11/site-packages \
        python3 scripts/photonic_peers.py build/bin/matchcount [--quick]
Never a test dependency: the tests compare against oracles of their own.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
from thewalrus import hafnian_repeated, tor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gbs_matrices import gbs_o  # noqa: E402

if os.environ.get("MATCHCOUNT_SITE"):
    sys.path.append(os.environ["MATCHCOUNT_SITE"])
try:
    import matchcount as mc_py
except ImportError:
    mc_py = None


def write_mm(path, a):
    a = np.atleast_2d(a)
    cplx = np.iscomplexobj(a)
    kind = "complex" if cplx else ("integer" if a.dtype.kind in "iu" else "real")
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array {kind} general\n{a.shape[0]} {a.shape[1]}\n")
        for j in range(a.shape[1]):
            for i in range(a.shape[0]):
                v = a[i, j]
                if cplx:
                    f.write(f"{float(v.real)!r} {float(v.imag)!r}\n")
                elif kind == "integer":
                    f.write(f"{int(v)}\n")
                else:
                    f.write(f"{float(v)!r}\n")


def matchcount(binary, args, call=None):
    """Seconds, value and error: in process when the package imported (call), else the CLI."""
    if mc_py is not None and call is not None:
        t = time.perf_counter()
        d = call()
        s = time.perf_counter() - t
        return s, d["value"], d.get("abs_error", 0)
    t = time.perf_counter()
    r = subprocess.run([binary, "--json"] + args, capture_output=True, text=True)
    s = time.perf_counter() - t
    if r.returncode:
        return s, None, r.stderr.strip()
    d = json.loads(r.stdout)
    return s, d["value"], d.get("abs_error", 0)


def timed(f, *a, **k):
    t = time.perf_counter()
    v = f(*a, **k)
    return time.perf_counter() - t, v


def main():
    binary = sys.argv[1]
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(5)
    rows = []
    # Warm-up: numba's compilation on thewalrus's first calls, and matchcount's first import.
    w = np.array([[1.0, 0.5], [0.5, 1.0]])
    hafnian_repeated(w, [2, 2]), hafnian_repeated(w + 0j, [2, 2]), tor(np.array([[0, 0.3], [0.3, 0.0]]))
    tor(gbs_o(2, 0.5, 1, 0.2))  # the complex signature
    if mc_py is not None:
        mc_py.hafnian_repeated(w, [2, 2]), mc_py.tor(np.array([[0, 0.3], [0.3, 0.0]]))
    # Repeated-row hafnians.
    a = rng.uniform(-1, 1, (20, 20)) + 1j * rng.uniform(-1, 1, (20, 20))
    a = (a + a.T) / 2
    rpt = [4, 3, 3, 3, 3] + [2] * 9 + [1] * 6
    write_mm("/tmp/pp_c20.mtx", a)
    tw_s, tw_v = timed(hafnian_repeated, a, rpt)
    mc_s, mc_v, mc_e = matchcount(binary, ["--hafnian", "--reps", ",".join(map(str, rpt)), "/tmp/pp_c20.mtx"],
                                  lambda: mc_py.hafnian_repeated(a, rpt, details=True))
    rows.append(("hafnian_repeated, complex 20 modes, 40 photons 4,3,3,3,3,2x9,1x6", tw_s, tw_v, mc_s, mc_v, mc_e))
    b = rng.integers(-9, 10, (5, 5))
    b = b + b.T
    write_mm("/tmp/pp_i5.mtx", b)
    tw_s, tw_v = timed(hafnian_repeated, b.astype(float), [12, 10, 8, 6, 4])
    mc_s, mc_v, mc_e = matchcount(binary, ["--hafnian", "--reps", "12,10,8,6,4", "/tmp/pp_i5.mtx"],
                                  lambda: mc_py.hafnian_repeated(b, [12, 10, 8, 6, 4], details=True))
    rows.append(("hafnian_repeated, integer 5 modes, 40 photons 12,10,8,6,4 (matchcount exact)", tw_s, tw_v, mc_s, mc_v, mc_e))
    c = rng.uniform(0, 1, (4, 4))
    c = (c + c.T) / 2
    write_mm("/tmp/pp_r4.mtx", c)
    tw_s, tw_v = timed(hafnian_repeated, c, [10, 10, 10, 10])
    mc_s, mc_v, mc_e = matchcount(binary, ["--hafnian", "--reps", "10,10,10,10", "/tmp/pp_r4.mtx"],
                                  lambda: mc_py.hafnian_repeated(c, [10, 10, 10, 10], details=True))
    rows.append(("hafnian_repeated, real 4 modes, 10,10,10,10", tw_s, tw_v, mc_s, mc_v, mc_e))
    # Torontonians of lossy squeezed states (r = 1.5, loss 0.2: the terms cancel little).
    for n in ([16, 20] if quick else [16, 20, 24]):
        o = gbs_o(n, 1.5, 1, 0.2)
        write_mm(f"/tmp/pp_tor{n}.mtx", o)
        tw_s, tw_v = timed(tor, o)
        mc_s, mc_v, mc_e = matchcount(binary, ["--torontonian", f"/tmp/pp_tor{n}.mtx"],
                                      lambda: mc_py.tor(o, details=True))
        rows.append((f"tor, {n} modes, squeezing 1.5, loss 0.2", tw_s, np.real(tw_v), mc_s, mc_v, mc_e))
    print(f"matchcount timed {'in process' if mc_py is not None else 'as its CLI'}")
    print("| case | thewalrus s | matchcount s | ratio | thewalrus value | matchcount value (error) |")
    print("|---|---|---|---|---|---|")
    for name, tw_s, tw_v, mc_s, mc_v, mc_e in rows:
        print(f"| {name} | {tw_s:.3g} | {mc_s:.3g} | {tw_s / mc_s:.3g}x | {tw_v} | {mc_v} ({mc_e}) |", flush=True)


if __name__ == "__main__":
    main()
