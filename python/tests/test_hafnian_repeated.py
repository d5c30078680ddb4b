"""hafnian_repeated against the hafnian of the expanded matrix, and the symmetry tolerance."""
from fractions import Fraction

import numpy as np
import pytest

import matchcount


def expanded(a, rpt):
    idx = [i for i, r in enumerate(rpt) for _ in range(r)]
    return a[np.ix_(idx, idx)]


def test_integers_are_exact_and_match_the_expansion():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 5))
        a = rng.integers(-3, 4, size=(n, n))
        a = a + a.T
        rpt = [int(x) for x in rng.integers(0, 4, size=n)]
        for loop in (False, True):
            got = matchcount.hafnian_repeated(a, rpt, loop=loop)
            assert isinstance(got, int)
            assert got == matchcount.hafnian(expanded(a, rpt), loop=loop)
            assert matchcount.hafnian_repeated(a, rpt, loop=loop, device="cpu") == got
    with pytest.raises(ValueError, match="device"):
        matchcount.hafnian_repeated(a, rpt, device="tpu")


def test_floats_complex_and_loop_weights():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    a = a + a.T
    mu = rng.normal(size=4)
    rpt = [2, 1, 0, 3]
    e = expanded(a, rpt)
    np.fill_diagonal(e, np.repeat(mu, rpt))
    got = matchcount.hafnian_repeated(a, rpt, mu=mu, loop=True)
    assert abs(got - matchcount.hafnian(e, loop=True)) < 1e-9 * max(1.0, abs(got))
    rec = matchcount.hafnian_repeated(a, rpt, mu=mu, loop=True, details=True)
    # Kan's formula (few modes: chosen here) gives a bound, the pair walk an estimate.
    assert rec["error_model"] in ("bound", "estimate") and rec["abs_error"] >= 0
    assert matchcount.hafnian_repeated(np.array([[Fraction(1, 2)]], dtype=object), [2]) == Fraction(1, 2)
    with pytest.raises(ValueError, match="loop=True"):
        matchcount.hafnian_repeated(a, rpt, mu=mu)


def test_few_photons_take_the_quick_path_with_the_pipelines_bits():
    # Float patterns of up to 4096 leaves go to the engine without the pipeline
    # (_core.hafnian_repeated_dense); exact=False takes the pipeline: the same engine, the same
    # value bit for bit, and both within a few estimates of the expanded matrix's hafnian.
    rng = np.random.default_rng(11)
    quick = 0
    for trial in range(60):
        n = int(rng.integers(1, 7))
        a = rng.normal(size=(n, n)) + (1j * rng.normal(size=(n, n)) if trial % 2 else 0)
        a = a + a.T
        rpt = [int(x) for x in rng.integers(0, 4, size=n)]
        loop = bool(trial % 3)
        mu = (rng.normal(size=n) + (1j * rng.normal(size=n) if trial % 2 else 0)) if loop and trial % 4 else None
        quick += matchcount._core.hafnian_repeated_dense(a, rpt, mu, loop) is not None
        got = matchcount.hafnian_repeated(a, rpt, mu=mu, loop=loop)
        rec = matchcount.hafnian_repeated(a, rpt, mu=mu, loop=loop, details=True, threads=1)
        assert got == matchcount.hafnian_repeated(a, rpt, mu=mu, loop=loop, exact=False, threads=1)
        e = expanded(a, rpt)
        if loop:
            np.fill_diagonal(e, np.repeat(np.diag(a) if mu is None else mu, rpt))
        want = matchcount.hafnian(e, loop=loop, exact=False) if e.size else 1.0
        assert abs(got - want) <= 1e-9 * max(1.0, abs(want)) + 8 * rec["abs_error"]
        assert matchcount.hafnian_repeated(a, np.asarray(rpt), mu=mu, loop=loop) == got
    assert quick == 60
    # Left to the pipeline: integers (exact), asymmetric matrices (near ones symmetrised there),
    # bad patterns (its messages), more leaves than the quick path takes.
    a = np.ones((3, 3))
    assert matchcount._core.hafnian_repeated_dense(a.astype(int), [1, 1, 2], None, False) is None
    assert matchcount._core.hafnian_repeated_dense(a + np.triu(a, 1) * 1e-12, [1, 1, 2], None, False) is None
    assert matchcount._core.hafnian_repeated_dense(a, [1, -1, 2], None, False) is None
    assert matchcount._core.hafnian_repeated_dense(a, [1, 2], None, False) is None
    third = np.ones((16, 16)) / 3  # 3^8 leaves
    assert matchcount._core.hafnian_repeated_dense(third, [2] * 16, None, False) is None
    assert matchcount.hafnian_repeated(third, [2] * 16) == pytest.approx(191898783962510625 / 3 ** 16, rel=1e-12)
    with pytest.raises(ValueError, match="rpt"):
        matchcount.hafnian_repeated(a, [1, -1, 2])
    with pytest.raises(ValueError, match="3 rows"):
        matchcount.hafnian_repeated(a, [1, 2])
    assert matchcount.hafnian_repeated(a + np.triu(a, 1) * 1e-12, [1, 1, 2]) == pytest.approx(
        matchcount.hafnian_repeated(a, [1, 1, 2]), rel=1e-11)


def test_nearly_symmetric_matrices_are_accepted_and_far_ones_named():
    rng = np.random.default_rng(5)
    u, _ = np.linalg.qr(rng.normal(size=(6, 6)) + 1j * rng.normal(size=(6, 6)))
    b = u @ np.diag(np.tanh([0.3, 0.5, 0.2, 0.4, 0.1, 0.6])) @ u.T  # symmetric only to rounding
    assert not np.array_equal(b, b.T)
    value = matchcount.hafnian(b)
    assert abs(value - matchcount.hafnian((b + b.T) / 2)) == 0
    assert matchcount.hafnian_repeated(b, [1] * 6) == pytest.approx(value, rel=1e-10)
    with pytest.raises(ValueError, match="not symmetric"):
        matchcount.hafnian(b + np.triu(np.full((6, 6), 0.1), 1))


def test_batches_test_symmetry_exactly_and_symmetrise_what_is_near():
    # hafnian_batch's symmetric test runs in the module, in its one look at the stack, for the
    # four float dtypes, strided views and reversed ones included; near-symmetric matrices are
    # symmetrised as hafnian does (in the stored type), the rest left as they are, far ones named.
    rng = np.random.default_rng(9)
    a = rng.normal(size=(40, 6, 6)) + 1j * rng.normal(size=(40, 6, 6))
    a = a + a.transpose(0, 2, 1)
    for x in (a, a.astype(np.complex64), a.real.copy(), a.real.astype(np.float32), a.transpose(0, 2, 1), a[::-1],
              a[:, ::-1, ::-1]):
        got = matchcount.hafnian_batch(x, device="cpu", threads=2)
        assert np.array_equal(got, [matchcount.hafnian(m, device="cpu") for m in x])
    for x in (a.copy(), a.astype(np.complex64), a.real.astype(np.float32), a[:, ::-1, ::-1].copy()):
        near = x.copy()
        near[3, 1, 4] += 1e-6 * abs(near[3, 1, 4])
        near[7, 5, 0] *= 1 + 1e-7
        got = matchcount.hafnian_batch(near[:, ::-1, ::-1] if x.dtype == np.float32 else near, device="cpu")
        if x.dtype == np.float32:
            near = near[:, ::-1, ::-1]
        for i in (3, 7):
            mended = (near[i] + near[i].T) / 2
            assert mended.dtype == x.dtype and got[i] == matchcount.hafnian(mended)
        assert np.array_equal(np.delete(got, [3, 7]), [matchcount.hafnian(m) for m in np.delete(near, [3, 7], 0)])
    # An exactly symmetric matrix is left as it is when another is symmetrised: (A + A.T) / 2
    # of these entries would overflow.
    huge = np.array([[[0, 1.5e308], [1.5e308, 0]], [[0, 1e-9], [1e-9 * (1 + 1e-9), 0]]])
    assert np.array_equal(matchcount.hafnian_batch(huge, device="cpu"), [1.5e308, (huge[1, 0, 1] + huge[1, 1, 0]) / 2])
    far = a.copy()
    far[5, 0, 2] += 0.5
    with pytest.raises(ValueError, match="matrix 5"):
        matchcount.hafnian_batch(far, device="cpu")
    nan = a.copy()
    nan[2, 0, 1] = np.nan
    with pytest.raises(ValueError, match="matrix 2"):
        matchcount.hafnian_batch(nan, device="cpu")


def test_torontonians_closed_forms_and_names():
    t = np.tanh(0.8)
    o = np.array([[0, t], [t, 0]])
    assert matchcount.tor(o) == pytest.approx(np.cosh(0.8) - 1, rel=1e-12)
    assert matchcount.torontonian is matchcount.tor
    rec = matchcount.tor(o, details=True)
    assert rec["counts"] == "torontonian" and rec["error_model"] == "bound"
    assert abs(rec["value"] - (np.cosh(0.8) - 1)) <= rec["abs_error"]
    gamma = np.array([0.3 + 0.1j, 0.3 - 0.1j])
    zero = np.zeros((2, 2))
    assert matchcount.ltor(zero, gamma) == pytest.approx(np.expm1(0.5 * (0.1 + 0.1)), rel=1e-12)
    with pytest.raises(matchcount.RefusedError, match="positive definite"):
        matchcount.tor(2 * np.eye(2))
    # device as for the other counts: the CPU gives the same bits; "gpu" needs a CUDA build.
    assert matchcount.tor(o, device="cpu") == matchcount.tor(o)
    if not matchcount.built_with_cuda():
        with pytest.raises(matchcount.RefusedError, match="without CUDA"):
            matchcount.ltor(zero, gamma, device="gpu")
    with pytest.raises(ValueError):
        matchcount.tor(o, device="tpu")


def gaussian_o(rng, n, thermal):
    """tor's O = conj(I - Q^-1) of an n-mode Gaussian state: squeezers, a random interferometer
    and, where `thermal`, added noise; Q as thewalrus's Qmat (hbar = 2)."""
    u, _ = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))
    r = rng.uniform(0.1, 0.9, n)
    s = np.block([[u.real, -u.imag], [u.imag, u.real]]) @ np.diag(np.concatenate([np.exp(-r), np.exp(r)]))
    cov = s @ s.T + (np.diag(np.tile(rng.uniform(0, 0.5, n), 2)) if thermal else 0)
    x, xp, p = cov[:n, :n], cov[:n, n:], cov[n:, n:]
    eye = np.identity(n)
    aidaj = (x + p + 1j * (xp - xp.T) - 2 * eye) / 4
    aiaj = (x - p + 1j * (xp + xp.T)) / 4
    q = np.block([[aidaj, aiaj.conj()], [aiaj, aidaj.conj()]]) + np.identity(2 * n)
    return np.conj(np.identity(2 * n) - np.linalg.inv(q))


def test_torontonians_of_a_few_modes_take_the_quick_path_with_the_pipelines_bits():
    # tor of up to 12 modes counts by the engine's kernel without the pipeline (about 1 us for
    # one mode, where the pipeline took 17): the same bits as the pipeline's count.
    rng = np.random.default_rng(21)
    for n in (1, 2, 3, 5, 8):
        for thermal in (False, True):
            o = gaussian_o(rng, n, thermal)
            quick = matchcount._core.torontonian_dense(o)
            assert quick is not None
            rec = matchcount.tor(o, details=True)  # details: the pipeline
            assert matchcount.tor(o) == quick == rec["value"]
            real = o.real.copy()  # a real O (pure quadrature squeezing) too
            if np.allclose(o.imag, 0):
                assert matchcount.tor(real) == matchcount.tor(real, details=True)["value"]
    assert matchcount._core.torontonian_dense(np.zeros((3, 3))) is None  # odd: the pipeline's message


def test_loop_torontonians_of_a_few_modes_take_the_quick_path_with_the_pipelines_bits():
    # ltor of up to 12 modes (float64 or complex128 O and gamma) counts by the engine without
    # the pipeline: the same bits as the pipeline's count (details=True), within the bound of
    # the sum over subsets written out here.
    import itertools
    rng = np.random.default_rng(22)
    for n in (1, 2, 3, 5, 8):
        for thermal in (False, True):
            o = gaussian_o(rng, n, thermal)
            g = 0.4 * (rng.normal(size=n) + 1j * rng.normal(size=n))
            for gamma in (np.concatenate([g, g.conj()]), np.concatenate([g.real, g.real])):
                quick = matchcount._core.loop_torontonian_dense(o, gamma)
                assert quick is not None
                rec = matchcount.ltor(o, gamma, details=True)  # details: the pipeline
                assert matchcount.ltor(o, gamma) == quick == rec["value"]
                brute = 0.0
                for size in range(n + 1):
                    for z in itertools.combinations(range(n), size):
                        idx = list(z) + [i + n for i in z]
                        m = np.eye(len(idx)) - o[np.ix_(idx, idx)]
                        gz = gamma[idx]
                        e = np.exp(0.5 * gz @ np.linalg.solve(m, gz.conj())) if idx else 1.0
                        brute += (-1) ** (n - size) * (e / np.sqrt(np.linalg.det(m)) if idx else 1.0)
                assert abs(quick - brute) <= rec["abs_error"] + 1e-9 * abs(brute)
    o = gaussian_o(rng, 2, False)
    assert matchcount._core.loop_torontonian_dense(np.zeros((3, 3)), np.zeros(3)) is None  # odd: the pipeline's message
    bad = np.full(4, np.nan)
    assert matchcount._core.loop_torontonian_dense(o, bad) is None
    with pytest.raises(ValueError, match="NaN"):
        matchcount.ltor(o, bad)


def test_loop_torontonian_batches_give_ltors_bits_row_by_row():
    # One gamma a matrix, or one for all; float64 or complex128 O and gamma; the batch's values
    # are ltor's own bits; what ltor refuses, the batch refuses naming the matrix.
    rng = np.random.default_rng(23)
    for n in (1, 3, 6):
        os_ = np.array([gaussian_o(rng, n, b % 2 == 1) for b in range(9)])
        g = 0.5 * (rng.normal(size=(9, n)) + 1j * rng.normal(size=(9, n)))
        gammas = np.concatenate([g, g.conj()], axis=1)
        got = matchcount.loop_torontonian_batch(os_, gammas, threads=2)
        assert got.dtype == np.float64 and got.shape == (9,)
        assert all(got[b] == matchcount.ltor(os_[b], gammas[b]) for b in range(9))
        assert all(got[b] != matchcount.tor(os_[b]) for b in range(9))
        shared = matchcount.loop_torontonian_batch(os_, gammas[4], device="cpu")
        assert all(shared[b] == matchcount.ltor(os_[b], gammas[4]) for b in range(9))
        real = np.concatenate([g.real, g.real], axis=1)  # a real gamma (a displacement in x)
        got = matchcount.loop_torontonian_batch(os_, real)
        assert all(got[b] == matchcount.ltor(os_[b], real[b]) for b in range(9))
    # Complex gammas that are not a displacement's (the engine's complex arithmetic) and NaN.
    odd = gammas.copy()
    odd[:, 0] += 0.3j
    assert all(matchcount.loop_torontonian_batch(os_, odd)[b] == matchcount.ltor(os_[b], odd[b]) for b in range(9))
    odd[5, 1] = np.nan
    with pytest.raises(ValueError, match="matrix 5"):
        matchcount.loop_torontonian_batch(os_, odd)
    with pytest.raises(ValueError, match="gammas"):
        matchcount.loop_torontonian_batch(os_, gammas[:, :3])


def test_batches_match_single_calls_and_follow_dtypes():
    import os
    import signal
    import threading
    import time
    rng = np.random.default_rng(8)
    s = rng.normal(size=(40, 6, 6))
    s = s + s.transpose(0, 2, 1)
    h = matchcount.hafnian_batch(s, threads=2)
    assert h.dtype == np.float64 and h.shape == (40,)
    assert all(h[k] == matchcount.hafnian(s[k]) for k in range(0, 40, 7))
    lh = matchcount.hafnian_batch(s.astype(complex), loop=True)
    assert lh.dtype == np.complex128 and lh[3] == matchcount.hafnian(s[3].astype(complex), loop=True)
    # The quick path (the engine's walk without the pipeline) gives the engine's own bits, for
    # every size it takes and in batches; odd sizes and uncovered vertices give 0.
    for n in (2, 4, 5, 10, 16, 20):
        c = rng.normal(size=(3, n, n)) + 1j * rng.normal(size=(3, n, n))
        c = c + c.transpose(0, 2, 1)
        for loop in (False, True):
            b = matchcount.hafnian_batch(c, loop=loop)
            for k in range(3):
                single = matchcount.hafnian(c[k], loop=loop)
                assert b[k] == single and (n < 4 or single == matchcount.hafnian(c[k], loop=loop, engine="hafnian"))
    lonely = s[0].copy()
    lonely[1, :] = lonely[:, 1] = 0
    assert matchcount.hafnian(lonely) == 0
    ints = rng.integers(-3, 4, size=(10, 6, 6))
    ints = ints + ints.transpose(0, 2, 1)
    exact = matchcount.hafnian_batch(ints, exact=True)
    assert exact.dtype == object and all(type(v) is int and v == matchcount.hafnian(m) for v, m in zip(exact, ints))
    t = np.tanh(np.array([0.2, 0.5, 0.9]))
    os_ = np.array([[[0, x], [x, 0]] for x in t])
    tb = matchcount.torontonian_batch(os_)
    assert tb.dtype == np.float64 and np.allclose(tb, np.cosh([0.2, 0.5, 0.9]) - 1, rtol=1e-12)
    # Product states of 5 modes: prod(cosh r_i - 1); the batch's small path gives tor's own bits.
    rs = rng.uniform(0.3, 1.2, size=(12, 5))
    prod = np.zeros((12, 10, 10))
    for b in range(12):
        for i, r in enumerate(rs[b]):
            prod[b, i, i + 5] = prod[b, i + 5, i] = np.tanh(r)
    tp = matchcount.torontonian_batch(prod, device="cpu")
    assert np.allclose(tp, np.prod(np.cosh(rs) - 1, axis=1), rtol=1e-12)
    assert all(tp[b] == matchcount.tor(prod[b]) for b in range(12))
    # Ctrl-C stops a long batch within a second and Python's handler is back.
    big = rng.normal(size=(4000, 22, 22))
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        matchcount.permanent_batch(big, threads=2)
    assert time.monotonic() - start < 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_python_fit_for_thewalrus_users():
    from fractions import Fraction as F
    # numbers.Rational and numbers.Real from other libraries (a Fraction subclass stands in for
    # SymPy's and gmpy2's types, which register with the numbers ABCs).
    import numbers

    class Half(numbers.Rational):
        numerator, denominator = 1, 2
        def __float__(self): return 0.5
        __abs__ = __add__ = __ceil__ = __eq__ = __floor__ = __floordiv__ = __le__ = __lt__ = __mod__ = None
        __mul__ = __neg__ = __pos__ = __pow__ = __radd__ = __rfloordiv__ = __rmod__ = __rmul__ = None
        __round__ = __rpow__ = __rtruediv__ = __truediv__ = __trunc__ = __hash__ = None
        def __ne__(self, other): return True

    a = np.array([[Half(), 1], [1, Half()]], dtype=object)
    assert matchcount.permanent(a) == F(5, 4)
    with pytest.raises(ValueError, match="exact=True: complex values"):
        matchcount.permanent(np.array([[1 + 1j, 2], [3, 4]]), exact=True)
    assert matchcount.perm is matchcount.permanent
    assert matchcount.loop_hafnian(np.ones((3, 3), dtype=int)) == 4
    nx = pytest.importorskip("networkx")
    lg = matchcount.perfect_matchings(nx.grid_2d_graph(8, 8), log=True)
    assert lg.sign == 1 and abs(lg.log - np.log(12988816)) <= lg.error + 1e-12
    assert isinstance(lg, matchcount.LogCount) and abs(lg.log10 - np.log10(12988816)) < 1e-9
    # Messages speak Python: the library's options become the arguments that do the same.
    with pytest.raises(matchcount.BudgetExceeded, match="max_memory"):
        matchcount.permanent(np.ones((30, 30)), max_memory="1K")
