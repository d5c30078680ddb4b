#!/usr/bin/env python3
"""Batches of small matrices beside GBSKernels, in one run (docs/benchmarks.md, "Batches beside
GBSKernels"): matchcount's stacks (the CLI on 3-D .npy files, threads across the matrices)
against GBSKernels 0.2.2's own benchmark binary (core/bench_kernels, built from its sdist:
cmake -S core -B build -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build --target
bench_kernels), both at batches of B matrices.
    python3 scripts/batch_peers.py build/bin/matchcount [--gbsk PATH/bench_kernels] [--batch 4096] [--threads T]
        [--device cpu|gpu|auto]
The inputs follow GBSKernels' benchmark: entries 0.3 U(-1, 1) in real and imaginary parts
(symmetrized for hafnians), and for torontonians O of lossy squeezed states
(scripts/gbs_matrices.py; GBSKernels uses 0.05-scaled random O). Needs numpy. Never a test
dependency.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gbs_matrices import gbs_o  # noqa: E402


def stack(kind, n, batch, seed):
    rng = np.random.default_rng(seed)
    if kind == "tor":
        return np.stack([gbs_o(n, 1.0, seed + b, 0.3) for b in range(batch)])
    a = 0.3 * (rng.uniform(-1, 1, (batch, n, n)) + 1j * rng.uniform(-1, 1, (batch, n, n)))
    if kind in ("haf", "lhaf"):
        a = 0.5 * (a + np.transpose(a, (0, 2, 1)))
    return a


def run_matchcount(binary, kind, path, out, threads, device):
    flags = {"perm": [], "haf": ["--hafnian"], "lhaf": ["--loop-hafnian"], "tor": ["--torontonian"]}[kind]
    flags += ["--threads", str(threads)] if threads else []
    flags += ["--device", device]
    t = time.perf_counter()
    r = subprocess.run([binary] + flags + [path, "-o", out], capture_output=True, text=True)
    s = time.perf_counter() - t
    if r.returncode:
        raise SystemExit(f"matchcount failed on {kind}: {r.stderr.strip()}")
    return s


def startup(binary):
    """Seconds of a run that counts nothing (`--version`), the best of three: MPI's and the
    libraries' start, which a batch in process (the Python package) does not pay."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([binary, "--version"], capture_output=True)
        best = min(best, time.perf_counter() - t)
    return best


def gbsk_rates(binary, batch):
    """GBSKernels' bench_kernels lines: (func, matrix_dim) -> best evaluations a second."""
    if not binary:
        return {}
    r = subprocess.run([binary, str(batch), "3"], capture_output=True, text=True)
    rates = {}
    for line in r.stdout.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        key = (d["func"], d["matrix_dim"])
        rates[key] = max(rates.get(key, 0.0), d["evals_per_sec_best"])
    return rates


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("--gbsk", default="")
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--threads", type=int, default=0, help="matchcount's threads (0: its default)")
    p.add_argument("--device", default="auto", help="matchcount's --device (auto: float permanents of batches on a GPU)")
    a = p.parse_args()
    cases = [("perm", 16), ("perm", 20), ("haf", 16), ("haf", 20), ("lhaf", 16), ("tor", 8), ("tor", 12)]
    # GBSKernels' functions for each case (their per-thread and cooperative kernels; the best).
    theirs = {"perm": ["perm", "perm_coop", "perm_warp"], "haf": ["haf", "haf_coop"], "lhaf": ["lhaf", "lhaf_coop"],
              "tor": ["tor", "tor_coop", "tor_real_chol", "tor_recursive"]}
    rates = gbsk_rates(a.gbsk, a.batch)
    start = startup(a.binary)
    print(f"batch {a.batch}; GBSKernels {'measured' if rates else 'not run'}; matchcount's start-up {start:.3g} s "
          "(taken off its times)")
    print("| case | matchcount s | matchcount /s | GBSKernels best /s (function) | ratio | CPU path s | largest difference |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for kind, n in cases:
            x = stack(kind, n, a.batch, 11 + n)
            path = os.path.join(tmp, f"{kind}{n}.npy")
            np.save(path, x)
            out = os.path.join(tmp, "out.npy")
            s = max(run_matchcount(a.binary, kind, path, out, a.threads, a.device) - start, 1e-6)
            ours = a.batch / s
            # Permanents: the CPU path too (the glynn or ryser engine), and how far apart the two
            # are, relative to the largest |value| of the batch.
            cpu_s, diff = "-", "-"
            if kind == "perm" and a.device != "cpu":
                got = np.load(out)
                cpu_out = os.path.join(tmp, "cpu.npy")
                cpu_s = f"{run_matchcount(a.binary, kind, path, cpu_out, a.threads, 'cpu') - start:.3g}"
                want = np.load(cpu_out)
                diff = f"{np.max(np.abs(got - want)) / np.max(np.abs(want)):.2g}"
            dim = 2 * n if kind == "tor" else n
            best, name = 0.0, "-"
            for f in theirs[kind]:
                if rates.get((f, dim), 0.0) > best:
                    best, name = rates[(f, dim)], f
            ratio = f"{ours / best:.3g}x" if best else "-"
            print(f"| {kind} n={n} | {s:.3g} | {ours:.4g} | {best:.4g} ({name}) | {ratio} | {cpu_s} | {diff} |", flush=True)


if __name__ == "__main__":
    main()
