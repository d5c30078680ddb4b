"""Shared helpers: brute-force oracles and the CLI for cross-checks."""
import itertools
import os
import pathlib
import shutil
from fractions import Fraction

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATASETS = ROOT / "datasets"


def perm_brute(a):
    """Sum over injective maps from the shorter side into the longer (the CLI's rule)."""
    a = np.asarray(a, dtype=object)
    m, n = a.shape
    if m > n:
        a, m, n = a.T, n, m
    total = 0
    for cols in itertools.permutations(range(n), m):
        p = 1
        for i, j in enumerate(cols):
            p = p * a[i, j]
        total = total + p
    return total


def haf_brute(a, loop=False):
    """Sum over perfect matchings (with loops: matchings where unmatched vertices take their
    loop weight)."""
    a = np.asarray(a, dtype=object)

    def rec(vs):
        if not vs:
            return 1
        v, rest = vs[0], vs[1:]
        total = a[v, v] * rec(rest) if loop else 0
        for k, u in enumerate(rest):
            total = total + a[v, u] * rec(rest[:k] + rest[k + 1:])
        return total

    return rec(tuple(range(a.shape[0])))


def close(got, want, scale):
    return abs(complex(got) - complex(want)) <= 1e-9 * max(scale, 1e-300)


@pytest.fixture
def rng():
    return np.random.default_rng(20240521)


@pytest.fixture(scope="session")
def cli():
    """The matchcount command of the C++ build (MATCHCOUNT_CLI, else build/bin/matchcount)."""
    path = os.environ.get("MATCHCOUNT_CLI") or str(ROOT / "build" / "bin" / "matchcount")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)) and not shutil.which(path):
        pytest.skip("the matchcount command is not built (set MATCHCOUNT_CLI)")
    return path


def fractions_of(a):
    return np.vectorize(Fraction, otypes=[object])(a)
