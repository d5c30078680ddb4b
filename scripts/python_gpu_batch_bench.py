#!/usr/bin/env python3
"""hafnian_batch on the GPU and on the CPU from Python: the whole call from a NumPy stack, best of
three, matrices a second (docs/benchmarks.md, "Python's batches on the GPU"). Entries
0.3 U(-1, 1), symmetric. Needs a CUDA device for the GPU rows. Usage:
  python scripts/python_gpu_batch_bench.py LABEL
LABEL starts each line (which build of the package ran).
"""
import sys
import time

import numpy as np

import matchcount as mc


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "matchcount"
    rng = np.random.default_rng(1)
    for (k, n, kind) in [(65536, 8, "complex"), (65536, 12, "complex"), (262144, 12, "complex"), (65536, 12, "real"),
                         (16384, 16, "complex")]:
        a = 0.3 * rng.uniform(-1, 1, (k, n, n))
        if kind == "complex":
            a = a + 0.3j * rng.uniform(-1, 1, (k, n, n))
        a = np.tril(a) + np.transpose(np.tril(a, -1), (0, 2, 1))
        for dev in ["gpu", "cpu"]:
            best = 1e30
            for _ in range(3):
                t = time.perf_counter()
                v = mc.hafnian_batch(a, device=dev)
                best = min(best, time.perf_counter() - t)
            print(f"{label} {kind} n={n} k={k} device={dev}: {best:.4f} s, {k / best:.3g} /s, "
                  f"checksum {np.abs(v).sum():.10g}", flush=True)


if __name__ == "__main__":
    main()
