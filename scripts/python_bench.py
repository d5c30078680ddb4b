#!/usr/bin/env python3
"""Timings of the Python package (docs/benchmarks.md, "Python package"):
  1. call overhead: a 4x4 float permanent, beside thewalrus's perm on the same matrix;
  2. permanent_batch over K random 10x10 complex matrices, beside a Python loop of thewalrus perm;
  3. a large matrix: permanent() beside the matchcount command on the same matrix (.npy);
  4. per call: hafnians of 2 to 12 vertices, photon-number patterns (hafnian_repeated, and
     through the pipeline with exact=False) and torontonians of 1 to 8 modes (Gaussian states'
     O; loop torontonians with a displacement's gamma, and through the pipeline with details=True),
     beside thewalrus's hafnian, hafnian_repeated, tor and ltor.
Peers that are not installed are skipped. Usage:
  python scripts/python_bench.py [--cli build/bin/matchcount] [--batch 100000] [--large 30]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

import matchcount
from gaussian_states import gaussian_o

try:
    from thewalrus import hafnian as tw_hafnian, hafnian_repeated as tw_repeated, ltor as tw_ltor, perm as tw_perm, tor as tw_tor
except ImportError:  # the peer is optional
    tw_perm = tw_hafnian = tw_repeated = tw_tor = tw_ltor = None


def per_call(fn, number):
    """Best of 5 repeats, seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def overhead(rows):
    a = np.random.default_rng(1).random((4, 4))
    mc = per_call(lambda: matchcount.permanent(a), 100_000)
    rows.append(("4x4 float permanent, per call", f"{mc * 1e6:.2f} us",
                 f"{per_call(lambda: tw_perm(a), 100_000) * 1e6:.2f} us" if tw_perm else "not installed"))


def batch(rows, k):
    rng = np.random.default_rng(2)
    stack = rng.standard_normal((k, 10, 10)) + 1j * rng.standard_normal((k, 10, 10))
    t0 = time.perf_counter()
    mine = matchcount.permanent_batch(stack)
    mc = time.perf_counter() - t0
    peer = "not installed"
    if tw_perm:
        tw_perm(stack[0])  # compile (numba) outside the timing
        t0 = time.perf_counter()
        theirs = np.array([tw_perm(m) for m in stack])
        tw = time.perf_counter() - t0
        worst = np.max(np.abs(mine - theirs) / np.abs(theirs))
        peer = f"{tw:.3f} s (x{tw / mc:.1f}; max rel. difference {worst:.1e})"
    rows.append((f"permanent_batch, {k} random 10x10 complex", f"{mc:.3f} s", peer))


def small_calls(rows):
    rng = np.random.default_rng(4)
    for n in (2, 4, 8, 12):
        a = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
        a = (a + a.T) / 2
        mc = per_call(lambda: matchcount.hafnian(a), 2000)
        peer = f"{per_call(lambda: tw_hafnian(a), 2000) * 1e6:.2f} us" if tw_hafnian else "not installed"
        rows.append((f"{n}x{n} complex hafnian, per call", f"{mc * 1e6:.2f} us", peer))
    for rpt, loop in (([1, 2, 0, 1], False), ([2, 2, 2, 2], False), ([2, 1, 0, 3, 1, 0, 2, 1], False),
                      ([2, 1, 0, 3, 1, 0, 2, 1], True)):
        n = len(rpt)
        a = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
        a = (a + a.T) / 8
        mu = np.diag(a).copy()
        mc = per_call(lambda: matchcount.hafnian_repeated(a, rpt, mu=mu if loop else None, loop=loop), 2000)
        pipe = per_call(lambda: matchcount.hafnian_repeated(a, rpt, mu=mu if loop else None, loop=loop, exact=False), 500)
        peer = (f"{per_call(lambda: tw_repeated(a, rpt, mu=mu if loop else None, loop=loop), 500) * 1e6:.2f} us"
                if tw_repeated else "not installed")
        rows.append((f"hafnian_repeated, {n} complex modes, {sum(rpt)} photons{', loops' if loop else ''}, per call",
                     f"{mc * 1e6:.2f} us (pipeline {pipe * 1e6:.2f} us)", peer))
    for n in (1, 2, 4, 8):
        o = gaussian_o(rng, n)
        mc = per_call(lambda: matchcount.tor(o), 500)
        peer = f"{per_call(lambda: tw_tor(o), 500) * 1e6:.2f} us" if tw_tor else "not installed"
        rows.append((f"torontonian of {n} modes, per call", f"{mc * 1e6:.2f} us", peer))
    for n in (1, 2, 4, 8):
        o = gaussian_o(rng, n)
        g = 0.3 * (rng.normal(size=n) + 1j * rng.normal(size=n))
        gamma = np.concatenate([g, g.conj()])
        mc = per_call(lambda: matchcount.ltor(o, gamma), 500)
        pipe = per_call(lambda: matchcount.ltor(o, gamma, details=True), 200)
        peer = f"{per_call(lambda: tw_ltor(o, gamma), 500) * 1e6:.2f} us" if tw_ltor else "not installed"
        rows.append((f"loop torontonian of {n} modes, per call", f"{mc * 1e6:.2f} us (pipeline {pipe * 1e6:.2f} us)", peer))


def large(rows, cli, n):
    a = np.random.default_rng(3).random((n, n))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.npy")
        np.save(path, a)
        t0 = time.perf_counter()
        mine = matchcount.permanent(a)
        mc = time.perf_counter() - t0
        peer = "not built"
        if cli and os.access(cli, os.X_OK):
            t0 = time.perf_counter()
            out = subprocess.run([cli, "--json", path], capture_output=True, text=True, check=True).stdout
            wall = time.perf_counter() - t0
            rec = json.loads(out)
            same = abs(float(rec["value"]) - mine) <= 1e-12 * abs(mine)
            peer = (f"{wall:.2f} s wall, {rec['seconds']['total']:.2f} s counting "
                    f"(Python/CLI {mc / wall:.3f}; same value: {same})")
    rows.append((f"{n}x{n} random float permanent", f"{mc:.2f} s", peer))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "matchcount"))
    p.add_argument("--batch", type=int, default=100_000, help="matrices in the batch test")
    p.add_argument("--large", type=int, default=30, help="side of the large matrix")
    args = p.parse_args()
    rows = []
    overhead(rows)
    batch(rows, args.batch)
    large(rows, args.cli, args.large)
    small_calls(rows)
    print(f"matchcount {matchcount.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
          + (", thewalrus present" if tw_perm else ", thewalrus absent"))
    print("| test | matchcount | peer |\n|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
