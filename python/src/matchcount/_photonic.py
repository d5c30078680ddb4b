"""The photonic quantities built on hafnians: thewalrus's hafnian_repeated, tor and ltor (the
package's __init__ re-exports them)."""
from __future__ import annotations

import json
from typing import Any, Optional, Sequence

import numpy as np

from . import _core
from ._input import check_options as _check_options, multiplicities as _multiplicities, to_matrix as _to_matrix

FAST_FLOATS = frozenset(np.dtype(t) for t in (np.float64, np.complex128))
_FAST_TOR_MODES = 12  # torontonians' quick path: a count of < ~1 ms (the library's kernel takes up to 16 modes)


def _few_modes(O: Any, threads: Any, device: str, details: bool) -> bool:
    """Whether tor or ltor of O takes the quick path: a float64 or complex128 2n x 2n array of a
    few modes, with the default options."""
    return (type(O) is np.ndarray and O.ndim == 2 and O.dtype in FAST_FLOATS and O.shape[0] == O.shape[1]
            and O.shape[0] % 2 == 0 and O.shape[0] <= 2 * _FAST_TOR_MODES and device in ("auto", "cpu")
            and not details and type(threads) is int and threads >= 0)


def nearly_symmetric(A: Any, rtol: float, atol: float) -> Any:
    """A float NumPy matrix symmetric within np.allclose(A, A.T, rtol, atol), as thewalrus accepts
    it, made exactly symmetric ((A + A.T) / 2); others as they are (the count refuses them as the
    CLI does)."""
    if not isinstance(A, np.ndarray) or A.ndim != 2 or A.shape[0] != A.shape[1] or A.dtype.kind not in "fc":
        return A
    if np.array_equal(A, A.T):
        return A
    if not np.allclose(A, A.T, rtol=rtol, atol=atol):
        return A  # refused by the count, in the CLI's words, naming the first entry that differs
    return (A + A.T) / 2


def hafnian_repeated(A: Any, rpt: Sequence[int], mu: Any = None, loop: bool = False, *, exact: Optional[bool] = None,
                     threads: int = 0, device: str = "auto", rtol: float = 1e-05, atol: float = 1e-08,
                     details: bool = False) -> Any:
    """The hafnian of A with row and column i repeated rpt[i] times (0 drops it), as thewalrus's
    ``hafnian_repeated``: two copies of mode i are joined by A[i, i], so the diagonal counts even
    without loops. With loop=True each copy of i also has loop weight mu[i] (default: the
    diagonal). The expanded matrix is never built: the cost grows with the product of (r + 1)
    over the pair types of the pattern, not with 2^(sum(rpt)/2). Integers give exact ints,
    exact=True fractions, floats and complex an estimate of their error (details=True gives the
    record with abs_error and error_model). A float matrix symmetric within rtol/atol is
    symmetrized, as thewalrus does. device: "auto" (a CUDA device for walks of half a second or
    more, up to 64 photons), "cpu" or "gpu".

    >>> import numpy as np, matchcount
    >>> matchcount.hafnian_repeated(np.ones((2, 2), dtype=int), [3, 3])  # K6: 5 * 3 * 1
    15
    >>> matchcount.hafnian_repeated(np.array([[1, 2], [2, 0]]), [2, 1], loop=True)  # a loop and an edge, twice
    4
    """
    if (type(A) is np.ndarray and A.ndim == 2 and A.dtype in FAST_FLOATS and exact is None and not details
            and device in ("auto", "cpu") and type(threads) is int and threads >= 0
            and (mu is None or (loop and type(mu) is np.ndarray and mu.dtype == A.dtype and mu.ndim == 1))):
        # A few photons: the engine alone, without the pipeline (None where the pipeline counts).
        reps = rpt.tolist() if type(rpt) is np.ndarray and rpt.dtype.kind in "iu" else rpt
        if type(reps) in (list, tuple) and all(type(r) is int and 0 <= r < 1 << 31 for r in reps):
            value = _core.hafnian_repeated_dense(A, list(reps), mu, bool(loop))
            if value is not None:
                return value
    matrix, fmt = _to_matrix(nearly_symmetric(A, rtol, atol), exact)
    mu_matrix = None
    if mu is not None:
        if not loop:
            raise ValueError("mu gives loop weights: it needs loop=True")
        mu_matrix, _ = _to_matrix(np.asarray(mu).reshape(-1, 1), exact)
    _check_options(device, "auto", threads)
    out = _core.hafnian_repeated(matrix, _multiplicities(rpt, "rpt"), mu_matrix, bool(loop), int(threads), device,
                                 1 if details else 0, fmt)
    return json.loads(out) if details else out


def torontonian(O: Any, *, threads: int = 0, device: str = "auto", details: bool = False) -> Any:
    """The torontonian of the 2n x 2n matrix O, as thewalrus's ``tor``: the sum over subsets Z of
    the modes of (-1)^(n - |Z|) / sqrt(det(I - O_Z)), O in the (a, a^dagger) order (rows i and
    i + n of mode i). I - O must be Hermitian positive definite, as a Gaussian state's is
    (O = conj(I - Q^-1)). The value is a float with an error bound that holds (details=True gives
    the record with abs_error); where the terms cancel beyond what double precision (and then
    long double) can certify, RefusedError rather than a value the bound does not determine.
    device: "auto" (a CUDA device from 26 modes where one is present), "cpu" or "gpu".

    >>> import numpy as np, matchcount
    >>> t = np.tanh(0.5)  # a single-mode squeezed vacuum: cosh(0.5) - 1
    >>> round(matchcount.tor(np.array([[0, t], [t, 0]])), 12)
    0.127625965206
    """
    if _few_modes(O, threads, device, details):
        value = _core.torontonian_dense(O)  # a few modes: the engine's count without the pipeline
        if value is not None:
            return value
    matrix, fmt = _to_matrix(np.asarray(O, dtype=complex if np.iscomplexobj(O) else float), False)
    _check_options(device, "auto", threads)
    out = _core.torontonian(matrix, None, int(threads), device, 1 if details else 0, fmt)
    return json.loads(out) if details else out


def loop_torontonian(O: Any, gamma: Any, *, threads: int = 0, device: str = "auto", details: bool = False) -> Any:
    """The loop torontonian, as thewalrus's ``ltor``: each term of ``torontonian(O)`` times
    exp(gamma_Z^T (I - O_Z)^-1 conj(gamma_Z) / 2), gamma of 2n values in the same order."""
    if (_few_modes(O, threads, device, details) and type(gamma) is np.ndarray and gamma.dtype in FAST_FLOATS
            and gamma.shape == (O.shape[0],)):
        value = _core.loop_torontonian_dense(O, gamma)  # a few modes: the engine's count without the pipeline
        if value is not None:
            return value
    matrix, fmt = _to_matrix(np.asarray(O, dtype=complex if np.iscomplexobj(O) else float), False)
    g = np.asarray(gamma)
    gm, _ = _to_matrix(g.astype(complex if np.iscomplexobj(g) else float).reshape(-1, 1), False)
    _check_options(device, "auto", threads)
    out = _core.torontonian(matrix, gm, int(threads), device, 1 if details else 0, fmt)
    return json.loads(out) if details else out


tor = torontonian
ltor = loop_torontonian
