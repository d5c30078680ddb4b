#!/usr/bin/env python3
"""matchcount and GBSKernels 0.2.2 on the same batches, against exact or high-precision values
(docs/benchmarks.md, "Batches beside GBSKernels"). Benchmarks only, never a test dependency.

On the GPU machine (numpy; GBSKernels' harness scripts/gbsk_compare.cu built from its sdist):
    python3 scripts/gbsk_accuracy.py run build/bin/matchcount ./gbsk_compare DIR [--batch 4096] [--threads 16]
writes DIR/times.txt (both tools' whole-call times on the same stacks), each tool's values and the
first --refs matrices of every stack (DIR/head_CASE.npy). Then, anywhere with numpy and mpmath:
    python3 scripts/gbsk_accuracy.py compare DIR
computes the references of those first matrices (hafnians and loop hafnians exactly, by a
subset recursion in integers after scaling the doubles' binary fractions away; torontonians
with mpmath at 40 digits) and prints each tool's relative errors.
Cases: entries 0.3 U(-1, 1) (symmetrized) as GBSKernels' benchmark draws them, complex and
real; O of lossy squeezed states (scripts/gbs_matrices.py) for torontonians.
"""
import argparse
import os
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CASES = [("haf16c", "haf", 16, True), ("haf20c", "haf", 20, True), ("lhaf16c", "lhaf", 16, True),
         ("haf16r", "haf", 16, False), ("tor8", "tor", 8, True), ("tor12", "tor", 12, True)]
FLAGS = {"haf": ["--hafnian"], "lhaf": ["--loop-hafnian"], "tor": ["--torontonian"]}


def stack(kind, n, batch, cplx, seed):
    if kind == "tor":
        from gbs_matrices import gbs_o
        return np.stack([gbs_o(n, 1.0, seed + b, 0.3) for b in range(batch)])
    rng = np.random.default_rng(seed)
    a = 0.3 * rng.uniform(-1, 1, (batch, n, n))
    if cplx:
        a = a + 0.3j * rng.uniform(-1, 1, (batch, n, n))
    return 0.5 * (a + np.transpose(a, (0, 2, 1)))


def run(a):
    os.makedirs(a.dir, exist_ok=True)
    times = open(os.path.join(a.dir, "times.txt"), "w")
    for name, kind, n, cplx in CASES:
        x = stack(kind, n, a.batch, cplx, 11 + n)
        path = os.path.join(a.dir, name + ".npy")
        np.save(path, x)
        np.save(os.path.join(a.dir, "head_" + name + ".npy"), x[:a.refs])
        x.astype(np.complex128).tofile(os.path.join(a.dir, name + ".bin"))
        ours = os.path.join(a.dir, "ours_" + name + ".npy")
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            r = subprocess.run([a.binary] + FLAGS[kind] + ["--threads", str(a.threads), path, "-o", ours],
                               capture_output=True, text=True)
            best = min(best, time.perf_counter() - t)
            if r.returncode:
                raise SystemExit(f"matchcount failed on {name}: {r.stderr.strip()}")
        r = subprocess.run([a.gbsk, kind, str(n), str(a.batch), os.path.join(a.dir, name + ".bin"),
                            os.path.join(a.dir, "gbsk_" + name + ".bin")], capture_output=True, text=True)
        line = f"{name}: matchcount {best:.4f} s ({a.batch / best:.4g} /s, process start included); {r.stdout.strip()} {r.stderr.strip()}"
        print(line, flush=True)
        times.write(line + "\n")
        os.remove(path)
        os.remove(os.path.join(a.dir, name + ".bin"))


def scaled_ints(m, loops):
    """The matrix's entries as Gaussian integers (re, im) times 2^s (off-diagonal 2^(2s) with
    loops, so that every loop-hafnian term carries 2^(s n)), and s."""
    s = 0
    for z in m.flat:
        for v in (z.real, z.imag):
            if v:
                s = max(s, Fraction(float(v)).denominator.bit_length() - 1)
    n = m.shape[0]
    out = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            e = s if (loops and i == j) or not loops else 2 * s
            z = m[i, j]
            out[i][j] = (int(Fraction(float(z.real)) * 2 ** e), int(Fraction(float(z.imag)) * 2 ** e))
    return out, s


def exact_hafnian(m, loops):
    """The (loop) hafnian of m exactly: f(S) = [loops] a_ii f(S - i) + sum_j a_ij f(S - i - j),
    i the least vertex of S, over subsets in integers; rounded once to a complex double."""
    n = m.shape[0]
    a, s = scaled_ints(m, loops)
    f = {0: (1, 0)}
    for S in range(1, 1 << n):
        if not loops and bin(S).count("1") % 2:
            continue
        i = (S & -S).bit_length() - 1
        rest = S & ~(1 << i)
        re = im = 0
        if loops:
            x, y = a[i][i]
            u, v = f[rest]
            re += x * u - y * v
            im += x * v + y * u
        j_bits = rest
        while j_bits:
            j = (j_bits & -j_bits).bit_length() - 1
            j_bits &= j_bits - 1
            x, y = a[i][j]
            u, v = f[rest & ~(1 << j)]
            re += x * u - y * v
            im += x * v + y * u
        f[S] = (re, im)
    re, im = f[(1 << n) - 1]
    scale = 2 ** (s * n) if loops else 2 ** (s * (n // 2))
    return complex(float(Fraction(re, scale)), float(Fraction(im, scale)))


def mp_torontonian(o):
    import mpmath
    mpmath.mp.dps = 40
    d = o.shape[0]
    n = d // 2
    total = mpmath.mpf(0)
    for z in range(1 << n):
        modes = [i for i in range(n) if z >> i & 1]
        idx = modes + [i + n for i in modes]
        if not idx:
            total += (-1) ** n
            continue
        m = mpmath.matrix(len(idx))
        for r, p in enumerate(idx):
            for c, q in enumerate(idx):
                m[r, c] = (1 if p == q else 0) - mpmath.mpc(o[p, q].real, o[p, q].imag)
        total += (-1) ** (n - len(modes)) / mpmath.sqrt(mpmath.det(m))
    return complex(total)


def compare(a):
    print("| case | matrices checked | matchcount: largest / median relative error | GBSKernels: largest / median relative error |")
    print("|---|---|---|---|")
    for name, kind, n, cplx in CASES:
        head_path = os.path.join(a.dir, "head_" + name + ".npy")
        if not os.path.exists(head_path):
            continue
        head = np.load(head_path)
        ours = np.load(os.path.join(a.dir, "ours_" + name + ".npy"))
        theirs = np.fromfile(os.path.join(a.dir, "gbsk_" + name + ".bin"), dtype=np.complex128)
        k = min(len(head), a.limit.get(kind + str(n), len(head)))
        errs_ours, errs_theirs = [], []
        for b in range(k):
            if kind == "tor":
                ref = mp_torontonian(head[b])
            else:
                ref = exact_hafnian(head[b], kind == "lhaf")
            errs_ours.append(abs(ours[b] - ref) / abs(ref))
            errs_theirs.append(abs(theirs[b] - ref) / abs(ref))
        print(f"| {name} | {k} | {max(errs_ours):.2g} / {np.median(errs_ours):.2g} | "
              f"{max(errs_theirs):.2g} / {np.median(errs_theirs):.2g} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("binary")
    r.add_argument("gbsk")
    r.add_argument("dir")
    r.add_argument("--batch", type=int, default=4096)
    r.add_argument("--threads", type=int, default=16)
    r.add_argument("--refs", type=int, default=16)
    c = sub.add_parser("compare")
    c.add_argument("dir")
    a = p.parse_args()
    if a.cmd == "run":
        run(a)
    else:
        a.limit = {"tor12": 4}
        compare(a)


if __name__ == "__main__":
    main()
