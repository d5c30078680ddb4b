"""permanent() against brute force for every dtype, exactness rules, shapes, options."""
import decimal
from fractions import Fraction

import numpy as np
import pytest

import matchcount
from conftest import close, fractions_of, perm_brute

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def shapes(rng, count, rect=True):
    for _ in range(count):
        m = int(rng.integers(0, 7))
        n = int(rng.integers(max(m - 2, 0), m + 3)) if rect else m
        yield (m, n)


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_])
def test_integer_dtypes_exact(rng, dtype):
    for shape in shapes(rng, 60):
        hi = 2 if dtype is np.bool_ else 5
        lo = -4 if np.issubdtype(dtype, np.signedinteger) else 0
        a = rng.integers(lo, hi, size=shape).astype(dtype)
        got = matchcount.permanent(a)
        assert type(got) is int
        assert got == perm_brute(a.astype(object)), (a, got)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_dtypes(rng, dtype):
    for shape in shapes(rng, 80):
        a = (rng.standard_normal(shape)).astype(dtype)
        got = matchcount.permanent(a)
        want = perm_brute(a.astype(np.float64))
        if a.size == 0:
            assert got == 1 and type(got) is int
            continue
        assert type(got) is float
        assert close(got, want, perm_brute(np.abs(a.astype(np.float64)))), (a, got, want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_dtypes(rng, dtype):
    for shape in shapes(rng, 80):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        got = matchcount.permanent(a)
        if a.size == 0:
            assert got == 1
            continue
        assert type(got) is complex
        assert close(got, perm_brute(a.astype(np.complex128)), perm_brute(np.abs(a.astype(np.complex128))))


def test_exactness_rules():
    # The CLI's NumPy reader: integral floats (and real integral complex values) are exact.
    assert type(matchcount.permanent(np.ones((3, 3)))) is int
    assert matchcount.permanent(np.ones((3, 3)) * (1 + 0j)) == 6
    assert type(matchcount.permanent(np.ones((3, 3)) * (1 + 0j))) is int
    assert type(matchcount.permanent(np.full((3, 3), 0.5))) is float
    assert matchcount.permanent(np.full((3, 3), 0.5), exact=True) == Fraction(6, 8)
    assert type(matchcount.permanent(np.ones((3, 3), dtype=int), exact=False)) is float
    assert type(matchcount.permanent(np.full((3, 3), 0.5j))) is complex


def test_exact_floats_are_exact_binary_fractions(rng):
    for shape in shapes(rng, 60):
        a = rng.standard_normal(shape)
        got = matchcount.permanent(a, exact=True)
        want = perm_brute(fractions_of(a))
        assert got == want
        assert type(got) in (int, Fraction)


def test_float_mode_of_integers(rng):
    for shape in shapes(rng, 40):
        a = rng.integers(-3, 4, size=shape)
        got = matchcount.permanent(a, exact=False)
        want = perm_brute(a.astype(object))
        if a.size:
            assert type(got) is float
        assert close(got, want, perm_brute(np.abs(a).astype(object)))


def test_object_arrays_of_big_ints_and_fractions(rng):
    for shape in shapes(rng, 40):
        a = np.empty(shape, dtype=object)
        for idx in np.ndindex(*shape):
            a[idx] = int(rng.integers(-5, 6)) * 10**30 + int(rng.integers(0, 3))
        assert matchcount.permanent(a) == perm_brute(a)
        f = np.empty(shape, dtype=object)
        for idx in np.ndindex(*shape):
            f[idx] = Fraction(int(rng.integers(-5, 6)), int(rng.integers(1, 7)))
        got = matchcount.permanent(f)
        assert got == perm_brute(f)
        assert type(got) in (Fraction, int)


def test_decimals_and_mixed_objects():
    d = np.array([[decimal.Decimal("0.1"), 1], [2, decimal.Decimal("0.3")]], dtype=object)
    assert matchcount.permanent(d) == Fraction(1, 10) * Fraction(3, 10) + 2
    mixed = np.array([[1, 0.5], [2, 1]], dtype=object)
    assert matchcount.permanent(mixed) == pytest.approx(2.0)
    assert matchcount.permanent([[1, 2], [3, 4]]) == 10  # nested lists


def test_empty_and_trivial():
    assert matchcount.permanent(np.zeros((0, 0))) == 1
    assert matchcount.permanent(np.zeros((0, 0), dtype=object)) == 1
    assert matchcount.permanent(np.zeros((3, 3))) == 0
    assert matchcount.permanent(np.array([[7]])) == 7
    assert matchcount.permanent(np.zeros((0, 4))) == 1  # one empty map


def test_large_exact_value():
    n = 25
    assert matchcount.permanent(np.ones((n, n), dtype=np.int64)) == __import__("math").factorial(n)
    big = np.full((3, 3), 2**62, dtype=np.int64)
    assert matchcount.permanent(big) == 6 * 2**186


def test_strided_and_fortran_and_byteorder(rng):
    a = rng.integers(-3, 4, size=(6, 8))
    for view in (a[:, ::2], a.T[:4, :4], np.asfortranarray(a[:5, :5]), a[:5, :5].astype(">i4")):
        assert matchcount.permanent(view) == perm_brute(np.array(view, dtype=object))


def test_multiplicities(rng):
    for _ in range(40):
        m, n = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        a = rng.integers(-3, 4, size=(m, n))
        rm = rng.integers(0, 3, size=m)
        cm = rng.integers(0, 3, size=n)
        big = np.repeat(np.repeat(a, rm, axis=0), cm, axis=1)
        if big.shape[0] > 7 or big.shape[1] > 7:
            continue
        got = matchcount.permanent(a, row_mult=rm, col_mult=cm)
        assert got == perm_brute(big.astype(object)), (a, rm, cm)
        assert matchcount.permanent(a, row_mult=list(rm)) == perm_brute(np.repeat(a, rm, axis=0).astype(object))


def test_scipy_sparse(rng):
    sp = pytest.importorskip("scipy.sparse")
    for shape in shapes(rng, 40):
        a = rng.integers(-2, 3, size=shape) * (rng.random(shape) < 0.6)
        for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.lil_matrix):
            assert matchcount.permanent(fmt(a)) == perm_brute(a.astype(object))
        f = rng.random(shape)
        got = matchcount.permanent(sp.csr_matrix(f))
        assert close(got, perm_brute(f), perm_brute(f))
    # duplicate COO entries are summed, as scipy does
    coo = sp.coo_matrix(([1, 2, 3], ([0, 0, 1], [0, 0, 1])), shape=(2, 2))
    assert matchcount.permanent(coo) == 9


def test_engines_and_options(rng):
    a = rng.integers(-3, 4, size=(7, 7))
    want = perm_brute(a.astype(object))
    for engine in ("ryser", "brute", "sparyser"):
        assert matchcount.permanent(a, engine=engine, device="cpu", threads=1) == want
    names = [e["name"] for e in matchcount.engines()]
    assert "ryser" in names
    assert matchcount.built_with_cuda() in (True, False)
