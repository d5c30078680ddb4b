"""Bad input, count records, estimates, batches, progress, checkpoints and Ctrl-C."""
import glob
import math
import os
import signal
import tempfile
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import matchcount
from conftest import close, perm_brute


@pytest.mark.parametrize("call, exc, text", [
    (lambda: matchcount.permanent(np.array([[1, np.nan], [0, 1]])), ValueError, "is NaN"),
    (lambda: matchcount.permanent(np.array([[np.inf]])), ValueError, "is infinite"),
    (lambda: matchcount.permanent(np.ones(3)), ValueError, "has 1 dimensions; a matrix has 2"),
    (lambda: matchcount.permanent(np.ones((2, 2, 2))), ValueError, "has 3 dimensions"),
    (lambda: matchcount.permanent(np.array([["a"]])), TypeError, "unsupported dtype '<U1'"),
    (lambda: matchcount.permanent(np.ones((2, 2), dtype=np.float16)), TypeError, "unsupported dtype '<f2'"),
    (lambda: matchcount.permanent(np.array([[1, "x"]], dtype=object)), TypeError, "is a str, not a number"),
    (lambda: matchcount.permanent(np.array([[None]], dtype=object)), TypeError, "is a NoneType"),
    (lambda: matchcount.permanent([[1, 2], [3]]), ValueError, "not a matrix"),
    (lambda: matchcount.permanent(np.eye(2), exact="yes"), TypeError, "exact must be"),
    (lambda: matchcount.permanent(np.eye(2), device="tpu"), ValueError, "device: 'tpu'"),
    (lambda: matchcount.permanent(np.eye(2), engine="fast"), ValueError, "engine: 'fast'"),
    (lambda: matchcount.permanent(np.eye(2), threads=-1), ValueError, "threads: must be a whole number"),
    (lambda: matchcount.permanent(np.eye(2), row_mult=[1]), ValueError, "row"),
    (lambda: matchcount.permanent(np.eye(2), row_mult=[1, -1]), ValueError, "row_mult"),
    (lambda: matchcount.permanent(np.eye(2), row_mult="12"), TypeError, "not a string"),
    (lambda: matchcount.permanent(np.eye(2), progress=3), TypeError, "progress must be a callable"),
    (lambda: matchcount.hafnian(np.array([[0, 1], [2, 0]])), ValueError, "is not symmetric"),
    (lambda: matchcount.hafnian(np.ones((2, 3))), ValueError, "square symmetric matrix, got 2x3"),
    (lambda: matchcount.count(np.eye(2), hafnian=True, row_mult=[1, 1]), ValueError, "not of a hafnian's"),
    (lambda: matchcount.perfect_matchings(np.eye(2)), TypeError, "expected a networkx Graph"),
    (lambda: matchcount.permanent(np.random.default_rng(0).random((40, 40)), engine="brute"), matchcount.RefusedError, ""),
    (lambda: matchcount.permanent_batch(np.ones((2, 2))), ValueError, "3 dimensions"),
    (lambda: matchcount.permanent_batch(np.array([np.eye(2), [[np.nan, 0], [0, 1]]])), ValueError, "matrix 1: entry"),
    (lambda: matchcount.estimate(-np.ones((3, 3))), matchcount.RefusedError, ""),
    (lambda: matchcount.estimate(np.ones((3, 3)), method="guess"), ValueError, "method: 'guess'"),
    (lambda: matchcount.estimate(np.ones((3, 3)), samples=0), ValueError, "samples"),
])
def test_bad_input(call, exc, text):
    with pytest.raises(exc) as e:
        call()
    assert text in str(e.value)
    assert "\n" not in str(e.value)


def test_graph_type_errors():
    nx = pytest.importorskip("networkx")
    with pytest.raises(TypeError):
        matchcount.cycle_covers(nx.Graph([(0, 1)]))
    with pytest.raises(TypeError):
        matchcount.perfect_matchings(nx.DiGraph([(0, 1)]))
    with pytest.raises(TypeError):
        matchcount.permanent(nx.Graph([(0, 1)]))


def test_gpu_without_gpu():
    if matchcount._core.gpu_count() > 0:
        pytest.skip("a GPU is visible")
    with pytest.raises(matchcount.RefusedError, match='device="gpu"'):
        matchcount.permanent(np.eye(3), device="gpu")


def test_count_details_and_explain():
    a = np.arange(1, 10).reshape(3, 3)
    assert matchcount.count(a) == 450
    r = matchcount.count(a, details=True)
    assert r["mode"] == "count" and r["value"] == "450" and r["exact"] is True
    assert r["number_kind"] == "integer" and r["rows"] == 3 and "seconds" in r and "engine_runs" in r
    f = matchcount.count(np.full((3, 3), 0.1), details=True)
    assert f["exact"] is False and "abs_error" in f and f["error_model"] == "bound"
    # The dense hafnian walk's error is the spread of its vertex orders: an estimate, said so.
    sym = np.full((6, 6), 0.1) + np.diag(np.arange(6.0))
    g = matchcount.count(sym, hafnian=True, engine="hafnian", details=True)
    assert g["error_model"] == "estimate"
    e = matchcount.count(np.ones((20, 20)) + np.eye(20), explain=True)
    assert e["mode"] == "explain" and e.get("value") is None
    h = matchcount.count(np.ones((4, 4), dtype=int), hafnian=True, details=True)
    assert h["value"] == "3"


def test_estimate():
    rng = np.random.default_rng(5)
    a = (rng.random((40, 40)) < 0.5).astype(float)
    e = matchcount.estimate(a, samples=2000, seed=7)
    assert not e.exact and e.samples >= 2000 and e.ci[0] <= e.value <= e.ci[1]
    assert e.std_error == pytest.approx(e.value * e.rel_std_error)
    assert e.record["mode"] == "estimate" and float(e) == e.value and e.target_met
    assert matchcount.estimate(a, samples=2000, seed=7).value == e.value  # reproducible
    small = matchcount.estimate(np.ones((5, 5)))
    assert small.exact and small.exact_value == 120
    # Counted exactly: the interval is the count itself (30! as a float, not the library's
    # own rounding of it, which may differ in the last place).
    ones = matchcount.estimate(np.ones((30, 30)), samples=1000, seed=1)
    assert ones.exact and ones.ci == (ones.value, ones.value) == (float(math.factorial(30)),) * 2
    nx = pytest.importorskip("networkx")
    g = matchcount.estimate(nx.grid_2d_graph(4, 4))
    assert g.exact and g.exact_value == 36


def test_permanent_batch(rng):
    c = rng.standard_normal((200, 5, 5)) + 1j * rng.standard_normal((200, 5, 5))
    got = matchcount.permanent_batch(c, threads=2)
    assert got.dtype == np.complex128 and got.shape == (200,)
    for k in range(0, 200, 17):
        assert close(got[k], perm_brute(c[k]), perm_brute(np.abs(c[k])))
        assert got[k] == matchcount.permanent(c[k])
    rect = rng.random((50, 4, 6))
    r = matchcount.permanent_batch(rect)
    assert r.dtype == np.float64 and close(r[3], perm_brute(rect[3]), perm_brute(rect[3]))
    ints = rng.integers(-2, 3, size=(30, 4, 4))
    i = matchcount.permanent_batch(ints)  # the dtype follows the input: float64 unless exact=True
    assert i.dtype == np.float64
    e = matchcount.permanent_batch(ints, exact=True)
    assert e.dtype == object and all(type(v) is int for v in e) and list(i) == [float(v) for v in e]
    assert matchcount.permanent_batch(np.full((3, 2, 2), 0.5), exact=True).tolist() == [Fraction(1, 2)] * 3
    assert matchcount.permanent_batch(np.zeros((0, 3, 3))).shape == (0,)


def slow_matrix(n=33, seed=3):
    return np.random.default_rng(seed).random((n, n))


def leftovers():
    return glob.glob(os.path.join(tempfile.gettempdir(), f"matchcount-py-{os.getpid()}-*"))


def test_ctrl_c_raises_keyboard_interrupt():
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        matchcount.permanent(slow_matrix(), device="cpu")
    assert time.monotonic() - t0 < 6
    assert leftovers() == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's handler is back
    assert matchcount.permanent(np.eye(3)) == 1  # and the module still works


def test_progress_callback_and_its_exception():
    seen = []
    a = slow_matrix(27)
    v = matchcount.permanent(a, progress=seen.append, progress_every=0.01, device="cpu")
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    assert v == pytest.approx(matchcount.permanent(a))

    def stop(f):
        raise RuntimeError("enough")

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        matchcount.permanent(slow_matrix(), progress=stop, device="cpu")
    assert time.monotonic() - t0 < 6
    assert leftovers() == []


def test_checkpoint_resume(tmp_path):
    ckpt = tmp_path / "run.ckpt"
    a = (np.random.default_rng(11).random((29, 29)) < 0.8).astype(int)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        v = matchcount.permanent(a, checkpoint=str(ckpt), device="cpu")
        timer.cancel()
        pytest.skip(f"finished before the interrupt ({v})")
    except KeyboardInterrupt as e:
        assert "progress is saved in" in str(e) and ckpt.exists()
    r = matchcount.count(a, checkpoint=str(ckpt), details=True, device="cpu")
    assert any("resumed" in n for n in r["notes"])
    assert not ckpt.exists()  # a complete count removes it
    assert int(r["value"]) == matchcount.permanent(a)


def test_gil_released_during_count():
    a = slow_matrix(28)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    matchcount.permanent(a, threads=1, device="cpu")
    stop.set()
    t.join()
    assert len(ticks) > 10
