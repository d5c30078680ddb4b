"""The small dense kernel (the library's glynn engine, matchcount/small_dense.hpp: Glynn's formula for n <= 16, used
by permanent_batch and permanent's quick path) against the general pipeline: same values and
number kinds, error estimates that hold, and the cases it must leave to the pipeline."""
from fractions import Fraction

import numpy as np
import pytest

import matchcount
from matchcount import _core


# Matrices per size: thousands in all, small enough for a fast suite.
SIZES = [(n, 300 if n <= 8 else 60 if n <= 12 else 6) for n in range(0, 17)]


def reference(a, exact=None):
    """The general pipeline's value and error estimate (count() never takes the kernel)."""
    r = matchcount.count(a, details=True, exact=exact)
    return matchcount.count(a, exact=exact), r.get("abs_error", 0.0)


def random_stack(rng, k, n, kind):
    if kind == "complex":
        return rng.standard_normal((k, n, n)) + 1j * rng.standard_normal((k, n, n))
    if kind == "float":
        return rng.standard_normal((k, n, n))
    return rng.integers(-3, 4, (k, n, n))


@pytest.mark.parametrize("kind", ["float", "complex"])
def test_floats_match_pipeline_within_both_estimates(kind):
    rng = np.random.default_rng(11)
    for n, k in SIZES:
        stack = random_stack(rng, k, n, kind)
        # On the CPU: a batch of 256 or more goes to a GPU where one is present, whose bits differ
        # (tests/test_gpu.py compares those within the bounds).
        got = matchcount.permanent_batch(stack, device="cpu")
        for i in range(0, k, max(1, k // 30)):  # the pipeline's error needs the record: a sample
            want, want_err = reference(stack[i])
            value, err = _core.small_permanent(stack[i], 0)
            assert value == got[i] == matchcount.permanent(stack[i])
            assert type(value) is type(want)
            assert abs(value - want) <= err + want_err, (n, i)


@pytest.mark.parametrize("kind", ["float", "complex"])
def test_values_match_pipeline_on_thousands(kind):
    rng = np.random.default_rng(12)
    for n, k in SIZES[:11]:
        stack = random_stack(rng, k, n, kind)
        got = matchcount.permanent_batch(stack)
        want = matchcount.permanent_batch(stack, engine="ryser") if n >= 1 else np.array([1] * k)
        scale = np.prod(np.abs(stack).sum(axis=1), axis=1) if n else np.ones(k)
        assert np.all(np.abs(got - want) <= 1e-13 * n * scale), n


def test_error_estimate_holds_against_exact_values():
    """exact=True counts the binary fractions exactly: the float result lies within its
    estimate of the true permanent of the same doubles."""
    rng = np.random.default_rng(13)
    for n in range(1, 11):
        for _ in range(20):
            a = rng.standard_normal((n, n))
            value, err = _core.small_permanent(a, 0)
            exact = matchcount.permanent(a, exact=True)
            assert abs(Fraction(value) - exact) <= Fraction(err), (n, value, float(exact), err)


def exact_complex_perm(x, y):
    """perm(X + iY) of integer X, Y, exactly: multilinear in the rows, so the sum over row
    sets S of i^|S| perm(rows S from Y, the others from X)."""
    n = len(x)
    parts = [0, 0, 0, 0]  # coefficients of 1, i, -1, -i
    for mask in range(1 << n):
        rows = np.array([(y if mask >> r & 1 else x)[r] for r in range(n)], dtype=np.int64)
        parts[bin(mask).count("1") % 4] += matchcount.permanent(rows)
    return parts[0] - parts[2], parts[1] - parts[3]


def test_complex_error_estimate_holds_against_exact_values():
    rng = np.random.default_rng(14)
    for n in range(1, 9):
        for _ in range(12 if n < 8 else 3):
            x, y = rng.integers(-64, 65, (2, n, n))
            if n == 3:
                x[1] = -x[0] + rng.integers(-1, 2, n)  # near-cancelling column sums
            a = (x + 1j * y) / 64
            value, err = _core.small_permanent(a, 0)
            re, im = exact_complex_perm(x, y)
            d2 = (Fraction(value.real) - Fraction(re, 64**n)) ** 2 + (Fraction(value.imag) - Fraction(im, 64**n)) ** 2
            assert d2 <= Fraction(err) ** 2, (n, value, err)


def test_exact_integers():
    rng = np.random.default_rng(15)
    for n, k in SIZES:
        stack = random_stack(rng, min(k, 40), n, "int")
        got = matchcount.permanent_batch(stack, exact=True)  # exact ints only when asked for
        assert got.dtype == object
        assert np.array_equal(matchcount.permanent_batch(stack), got.astype(float))
        for i in range(len(stack)):
            assert type(got[i]) is int and got[i] == matchcount.count(stack[i]), (n, i)
    # 0/1 matrices up to n = 16: the 53-bit walk where it is exact, the pipeline beyond
    ones = (rng.random((8, 16, 16)) < 0.7).astype(np.int64)
    got = matchcount.permanent_batch(ones, exact=True)
    assert all(got[i] == matchcount.count(ones[i]) for i in range(8))
    assert matchcount.permanent(np.ones((16, 16), dtype=np.int64)) == 20922789888000  # 16!
    big = np.full((3, 8, 8), 2**40, dtype=np.int64)  # beyond 2^53: left to the pipeline, exact
    assert list(matchcount.permanent_batch(big, exact=True)) == [40320 * 2**320] * 3
    assert _core.small_permanent(big[0], 0) is None


def test_number_kinds_follow_the_numpy_reader():
    k = _core.small_permanent
    assert k(np.array([[1.0, 2.0], [3.0, 4.0]]), 0) == (10, 0.0)                 # integral floats: int
    assert type(k(np.array([[1.0, 2.0], [3.0, 4.0]]), 0)[0]) is int
    assert k(np.array([[1 + 0j, 2], [3, 4]]), 0) == (10, 0.0)                    # real integral complex
    assert type(k(np.array([[1.5, 2], [3, 4]]), 0)[0]) is float
    assert type(k(np.array([[1.5, 2], [3, 4]], dtype=np.float32), 0)[0]) is float
    assert type(k(np.array([[1 + 1j, 2], [3, 4]]), 0)[0]) is complex
    assert type(k(np.array([[1 + 1j, 2], [3, 4]], dtype=np.complex64), 0)[0]) is complex
    assert type(k(np.array([[1, 2], [3, 4]]), 2)[0]) is float                   # exact=False
    assert type(k(np.array([[1 + 0j, 2], [3, 4]]), 2)[0]) is float
    assert type(k(np.array([[1 + 1j, 2], [3, 4]]), 2)[0]) is complex
    assert k(np.array([[1.5, 2], [3, 4]]), 1) is None                           # exact=True: Fractions
    assert k(np.ones((2, 3)), 0) is None                                        # rectangular
    assert k(np.ones((17, 17)), 0) is None                                      # n > 16
    assert k(np.array([[np.nan]]), 0) is None                                   # the pipeline's message
    for dt in (bool, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.uint64):
        assert k(np.ones((5, 5), dtype=dt), 0) == (120, 0.0)


def test_edge_sizes_and_zero_lines_keep_the_pipeline_kind():
    cases = [np.zeros((0, 0)), np.zeros((0, 0), complex), np.zeros((0, 0), np.int64), np.array([[2.5]]),
             np.array([[2.5 - 1j]]), np.array([[3]]), np.array([[1.5, 2], [0, 0]]), np.array([[1.5, 0], [2, 0]]),
             np.array([[1.5j, 2, 3], [0, 0, 0], [1, 1, 1]]), np.zeros((4, 4)), np.array([[0.5, 1], [2, 3]])]
    for a in cases:
        for exact in (None, False):
            want = matchcount.count(a, exact=exact)
            one = matchcount.permanent(a, exact=exact)
            batch = matchcount.permanent_batch(a[None], exact=exact)[0]
            assert one == batch == want and type(one) is type(want), (a, exact)
            # A batch's dtype follows the input: complex128 for complex input, else float64.
            assert type(batch.item()) is (complex if np.iscomplexobj(a) or isinstance(want, complex) else float)


def test_rectangular_strided_and_failures():
    rng = np.random.default_rng(16)
    rect = rng.standard_normal((5, 3, 4))
    got = matchcount.permanent_batch(rect)
    assert np.allclose(got, [matchcount.count(r) for r in rect], rtol=1e-13, atol=0)
    base = rng.standard_normal((20, 9, 9)) + 1j * rng.standard_normal((20, 9, 9))
    view = base.transpose(0, 2, 1)[::2]  # strided, not contiguous; perm(A^T) = perm(A)
    assert np.allclose(matchcount.permanent_batch(view), matchcount.permanent_batch(base[::2]), rtol=1e-12)
    bad = rng.standard_normal((6, 4, 4))
    bad[3, 1, 2] = np.nan
    with pytest.raises(ValueError, match=r"matrix 3: entry \(row 2, column 3\) is NaN"):
        matchcount.permanent_batch(bad)
    mixed = np.stack([np.ones((3, 3)), np.full((3, 3), 0.5)])  # an int and a float: objects
    assert list(matchcount.permanent_batch(mixed)) == [6, 0.75]
    assert matchcount.permanent_batch(np.zeros((0, 4, 4))).shape == (0,)
