#!/usr/bin/env python3
"""Stacks of torontonian O matrices for `matchcount-kernel-bench --tor-stack` (docs/benchmarks.md,
"Which batches go to the GPU by default"): squeezed states through random interferometers, pure
(/tmp/torP{modes}.npy) or with thermal noise (/tmp/torL{modes}.npy), O = conj(I - Q^-1) with Q as
thewalrus's Qmat (hbar = 2); 64 states repeated to each stack's size. Usage:
  python scripts/tor_stacks.py
"""
import numpy as np

from gaussian_states import gaussian_o

rng = np.random.default_rng(7)

for modes, k in ((2, 65536), (4, 65536), (8, 16384), (12, 4096)):
    for thermal in (False, True):
        base = np.stack([gaussian_o(rng, modes, (0.2, 1.0) if thermal else None) for _ in range(64)])
        np.save(f"/tmp/tor{'L' if thermal else 'P'}{modes}.npy", base[np.arange(k) % 64])
