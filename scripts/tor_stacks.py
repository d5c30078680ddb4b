#!/usr/bin/env python3
"""Stacks of torontonian O matrices for `matchcount-kernel-bench --tor-stack` (docs/benchmarks.md,
"Which batches go to the GPU by default"): squeezed states through random interferometers, pure
(/tmp/torP{modes}.npy) or with thermal noise (/tmp/torL{modes}.npy), O = conj(I - Q^-1) with Q as
thewalrus's Qmat (hbar = 2); 64 states repeated to each stack's size. Usage:
  python scripts/tor_stacks.py
"""
import numpy as np

rng = np.random.default_rng(7)


def o_of(n, thermal):
    u, _ = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))
    r = rng.uniform(0.1, 0.9, n)
    s = np.block([[u.real, -u.imag], [u.imag, u.real]]) @ np.diag(np.concatenate([np.exp(-r), np.exp(r)]))
    cov = s @ s.T + (np.diag(np.tile(rng.uniform(0.2, 1.0, n), 2)) if thermal else 0)
    x, xp, p = cov[:n, :n], cov[:n, n:], cov[n:, n:]
    aidaj = (x + p + 1j * (xp - xp.T) - 2 * np.identity(n)) / 4
    aiaj = (x - p + 1j * (xp + xp.T)) / 4
    q = np.block([[aidaj, aiaj.conj()], [aiaj, aidaj.conj()]]) + np.identity(2 * n)
    return np.conj(np.identity(2 * n) - np.linalg.inv(q))


for modes, k in ((2, 65536), (4, 65536), (8, 16384), (12, 4096)):
    for thermal in (False, True):
        base = np.stack([o_of(modes, thermal) for _ in range(64)])
        np.save(f"/tmp/tor{'L' if thermal else 'P'}{modes}.npy", base[np.arange(k) % 64])
