#!/usr/bin/env python3
"""Matrices of Gaussian boson sampling for benchmarks (docs/benchmarks.md, "Torontonians on the
GPU"): O = conj(I - Q^-1) of n squeezed vacua through a random interferometer with a uniform
loss, in thewalrus's (a, a^dagger) order, written as a Matrix Market complex array.
    python3 scripts/gbs_matrices.py N [--squeezing 1.5] [--loss 0.2] [--seed 1] > oN.mtx
Needs numpy.
"""
import argparse
import sys

import numpy as np


def gbs_o(n, r, seed, loss):
    """O of n squeezed vacua (squeezing r) through a random unitary, with a uniform loss."""
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))
    s2, m = np.sinh(r) ** 2 * (1 - loss), np.sinh(r) * np.cosh(r) * (1 - loss)
    aidaj = np.conj(u) @ np.diag(np.full(n, s2)) @ u.T
    aiaj = u @ np.diag(np.full(n, m)) @ u.T
    q = np.block([[aidaj + np.eye(n), np.conj(aiaj)], [aiaj, np.conj(aidaj) + np.eye(n)]])
    return np.conj(np.eye(2 * n) - np.linalg.inv(q))


def write_mm(out, a):
    """A complex array in Matrix Market's column-major array format, every digit kept."""
    out.write(f"%%MatrixMarket matrix array complex general\n{a.shape[0]} {a.shape[1]}\n")
    for j in range(a.shape[1]):
        for i in range(a.shape[0]):
            out.write(f"{float(a[i, j].real)!r} {float(a[i, j].imag)!r}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("modes", type=int)
    p.add_argument("--squeezing", type=float, default=1.5)
    p.add_argument("--loss", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    write_mm(sys.stdout, gbs_o(a.modes, a.squeezing, a.seed, a.loss))


if __name__ == "__main__":
    main()
