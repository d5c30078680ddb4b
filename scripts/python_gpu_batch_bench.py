#!/usr/bin/env python3
"""Python's batches on the GPU and on the CPU: the whole call from a NumPy stack, best of three,
matrices a second (docs/benchmarks.md, "Python's batches on the GPU"). Hafnians (entries
0.3 U(-1, 1), symmetric, and "near": symmetric only to rounding, which the batch symmetrises),
permanents (the same entries, not symmetric) and torontonians (O of a
squeezed state through a random interferometer; ltor: with a displacement's gamma each, and with
"peer" thewalrus's ltor a matrix beside). Needs a CUDA device for the GPU rows. Usage:
  python scripts/python_gpu_batch_bench.py LABEL [hafnian|permanent|torontonian|ltor|peer ...]
LABEL starts each line (which build of the package ran); the kinds default to hafnians.
"""
import sys
import time

import numpy as np

import matchcount as mc
from gaussian_states import gaussian_o

HAFNIANS = [(65536, 8, "complex"), (65536, 12, "complex"), (262144, 12, "complex"), (65536, 12, "real"),
            (16384, 16, "complex"), (65536, 12, "near")]
PERMANENTS = [(65536, 4, "complex"), (65536, 8, "complex"), (65536, 12, "complex"), (16384, 16, "complex"),
              (65536, 8, "real")]
TORONTONIANS = [(65536, 2), (65536, 4), (16384, 8), (4096, 12)]


def timed(label, what, a, call):
    k = a.shape[0]
    for dev in ["gpu", "cpu"]:
        best = 1e30
        for _ in range(3):
            t = time.perf_counter()
            v = call(a, dev)
            best = min(best, time.perf_counter() - t)
        print(f"{label} {what} {a.dtype} n={a.shape[1]} k={k} device={dev}: {best:.4f} s, {k / best:.3g} /s, "
              f"checksum {np.abs(v).sum():.10g}", flush=True)


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "matchcount"
    kinds = sys.argv[2:] or ["hafnian"]
    rng = np.random.default_rng(1)
    if "hafnian" in kinds:
        for (k, n, kind) in HAFNIANS:
            a = 0.3 * rng.uniform(-1, 1, (k, n, n))
            if kind in ("complex", "near"):
                a = a + 0.3j * rng.uniform(-1, 1, (k, n, n))
            a = np.tril(a) + np.transpose(np.tril(a, -1), (0, 2, 1))
            if kind == "near":  # symmetric only to rounding, as U diag(tanh r) U^T is
                a = a * (1 + 1e-15 * np.triu(rng.uniform(-1, 1, (k, n, n)), 1))
            timed(label, "hafnian", a, lambda s, dev: mc.hafnian_batch(s, device=dev))
    if "permanent" in kinds:
        for (k, n, kind) in PERMANENTS:
            a = 0.3 * rng.uniform(-1, 1, (k, n, n))
            if kind == "complex":
                a = a + 0.3j * rng.uniform(-1, 1, (k, n, n))
            timed(label, "permanent", a, lambda s, dev: mc.permanent_batch(s, device=dev))
    if "torontonian" in kinds:
        for (k, modes) in TORONTONIANS:
            base = np.stack([gaussian_o(rng, modes) for _ in range(64)])
            a = base[np.arange(k) % 64]
            timed(label, "torontonian", a, lambda s, dev: mc.torontonian_batch(s, device=dev))
    if "ltor" in kinds:
        for (k, modes) in TORONTONIANS:
            base = np.stack([gaussian_o(rng, modes) for _ in range(64)])
            a = base[np.arange(k) % 64]
            g = 0.3 * (rng.normal(size=(k, modes)) + 1j * rng.normal(size=(k, modes)))
            gammas = np.concatenate([g, g.conj()], axis=1)
            timed(label, "ltor", a, lambda s, dev: mc.loop_torontonian_batch(s, gammas, device=dev))
            if "peer" in kinds:  # thewalrus's ltor a matrix, the first 2048
                from thewalrus import ltor
                m = min(k, 2048)
                ltor(a[0], gammas[0])
                t = time.perf_counter()
                ref = np.array([ltor(a[i], gammas[i]).real for i in range(m)])
                dt = time.perf_counter() - t
                mine = mc.loop_torontonian_batch(a[:m], gammas[:m], device="cpu")
                print(f"{label} ltor thewalrus n={2 * modes} k={m}: {dt:.4f} s, {m / dt:.3g} /s, "
                      f"max rel. difference {np.max(np.abs(mine - ref) / np.abs(ref)):.1e}", flush=True)


if __name__ == "__main__":
    main()
