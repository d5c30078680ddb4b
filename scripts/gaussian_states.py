"""The torontonian's O of Gaussian states, for the benchmark scripts (python_bench.py,
python_gpu_batch_bench.py, tor_stacks.py)."""
import numpy as np


def gaussian_o(rng, n, noise=None):
    """tor's O = conj(I - Q^-1) of an n-mode squeezed state through a random interferometer, with
    thermal noise of each mode uniform in noise = (lo, hi) where given; Q as thewalrus's Qmat
    (hbar = 2)."""
    u, _ = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))
    r = rng.uniform(0.1, 0.9, n)
    s = np.block([[u.real, -u.imag], [u.imag, u.real]]) @ np.diag(np.concatenate([np.exp(-r), np.exp(r)]))
    cov = s @ s.T + (np.diag(np.tile(rng.uniform(noise[0], noise[1], n), 2)) if noise else 0)
    x, xp, p = cov[:n, :n], cov[:n, n:], cov[n:, n:]
    aidaj = (x + p + 1j * (xp - xp.T) - 2 * np.identity(n)) / 4
    aiaj = (x - p + 1j * (xp + xp.T)) / 4
    q = np.block([[aidaj, aiaj.conj()], [aiaj, aidaj.conj()]]) + np.identity(2 * n)
    return np.conj(np.identity(2 * n) - np.linalg.inv(q))
