"""device="gpu" from Python: the CUDA engines give the CPU's exact values and floats within the
two error bounds, estimates on the GPU agree with the CPU's, and Ctrl-C, progress callbacks and
checkpoints work on GPU walks. Skipped where no CUDA device is visible (CI);
scripts/python_device_check.sh runs them on one. Blocks are of n >= 28, where --device gpu
sends them to the GPU (docs/gpu.md)."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import matchcount

pytestmark = pytest.mark.skipif(matchcount._core.gpu_count() == 0, reason="no CUDA device is visible")


def runs_on(record):
    return {r["device"] for r in record["engine_runs"]}


def symmetric(rng, n, p, loops=False):
    a = np.triu((rng.random((n, n)) < p).astype(np.int64), 1)
    a = a + a.T
    if loops:
        a[np.diag_indices(n)] = rng.integers(0, 3, n)
    return a


def agree_within_bounds(gpu, cpu):
    """Float results: the two values differ by no more than the two stated error bounds."""
    def value(r):  # JSON: a number, or [re, im] for complex counts
        v = r["value"]
        return complex(*v) if isinstance(v, list) else complex(v)

    g, c = value(gpu), value(cpu)
    assert abs(g - c) <= float(gpu["abs_error"]) + float(cpu["abs_error"]) + 1e-300


@pytest.mark.parametrize("seed", range(4))
def test_exact_permanents_match_the_cpu(seed):
    rng = np.random.default_rng(seed)
    zero_one = (rng.random((30, 30)) < 0.7).astype(np.int64)
    signed = rng.integers(-3, 4, size=(28, 28))
    for a in (zero_one, signed):
        gpu = matchcount.count(a, device="gpu", details=True)
        cpu = matchcount.count(a, device="cpu", details=True)
        assert runs_on(gpu) == {"gpu"} and runs_on(cpu) == {"cpu"}
        assert gpu["exact"] and gpu["value"] == cpu["value"]
    assert matchcount.permanent(zero_one, device="gpu") == matchcount.permanent(zero_one, device="cpu")


def test_float_and_complex_permanents_within_their_bounds():
    rng = np.random.default_rng(7)
    real = rng.random((30, 30))
    cplx = rng.standard_normal((28, 28)) + 1j * rng.standard_normal((28, 28))
    for a in (real, cplx):
        gpu = matchcount.count(a, device="gpu", details=True)
        cpu = matchcount.count(a, device="cpu", details=True)
        assert runs_on(gpu) == {"gpu"} and not gpu["exact"]
        agree_within_bounds(gpu, cpu)
    assert isinstance(matchcount.permanent(cplx, device="gpu"), complex)


@pytest.mark.parametrize("loop", [False, True])
def test_hafnians_match_the_cpu(loop):
    rng = np.random.default_rng(11)
    a = symmetric(rng, 28, 0.5, loops=loop)
    gpu = matchcount.count(a, hafnian=True, loop=loop, device="gpu", engine="gpu-hafnian", details=True)
    cpu = matchcount.count(a, hafnian=True, loop=loop, device="cpu", engine="hafnian", details=True)
    assert runs_on(gpu) == {"gpu"} and gpu["value"] == cpu["value"]
    assert matchcount.hafnian(a, loop=loop, device="gpu") == int(cpu["value"])
    f = rng.standard_normal((24, 24))
    f = f + f.T
    gpu = matchcount.count(f, hafnian=True, loop=loop, device="gpu", engine="gpu-hafnian", details=True)
    cpu = matchcount.count(f, hafnian=True, loop=loop, device="cpu", engine="hafnian", details=True)
    agree_within_bounds(gpu, cpu)


def test_perfect_matchings_of_a_graph_on_the_gpu():
    nx = pytest.importorskip("networkx")
    g = nx.random_regular_graph(3, 40, seed=5)
    assert matchcount.perfect_matchings(g, device="gpu") == matchcount.perfect_matchings(g, device="cpu")


def test_estimates_on_the_gpu_agree_with_the_cpu():
    nx = pytest.importorskip("networkx")
    g = nx.random_regular_graph(3, 400, seed=3)  # far beyond an exact count
    gpu = matchcount.estimate(g, device="gpu", samples=20000, seed=4, exact_up_to=0)
    cpu = matchcount.estimate(g, device="cpu", samples=20000, seed=4, exact_up_to=0)
    assert not gpu.exact and gpu.samples >= 20000
    # The GPU draws the CPU's samples: the same seed and count give the same sums.
    if gpu.samples == cpu.samples:
        assert gpu.value == pytest.approx(cpu.value, rel=1e-9)
    assert abs(gpu.value - cpu.value) <= 5 * (gpu.std_error + cpu.std_error)
    assert gpu.record["mode"] == "estimate"
    rng = np.random.default_rng(2)
    a = (rng.random((36, 36)) < 0.5).astype(float)
    exact = matchcount.permanent(a.astype(np.int64), device="gpu")
    e = matchcount.estimate(a, device="gpu", samples=4000, seed=7, exact_up_to=0)
    assert not e.exact and e.samples >= 4000
    assert abs(e.value - exact) <= 6 * e.std_error


def test_ctrl_c_stops_a_gpu_walk():
    a = np.random.default_rng(3).random((44, 44))  # tens of seconds on one GPU
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        matchcount.permanent(a, device="gpu")
    assert time.monotonic() - t0 < 8
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    b = a[:30, :30]  # the device is usable again
    gpu = matchcount.count(b, device="gpu", details=True)
    assert runs_on(gpu) == {"gpu"}
    agree_within_bounds(gpu, matchcount.count(b, device="cpu", details=True))


def test_progress_and_checkpoints_on_a_gpu_walk(tmp_path):
    a = (np.random.default_rng(5).random((40, 40)) < 0.5).astype(np.int64)  # seconds on one GPU
    seen = []
    whole = matchcount.permanent(a, device="gpu", progress=seen.append, progress_every=0.05)
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    ckpt = tmp_path / "gpu.ckpt"
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        v = matchcount.permanent(a, device="gpu", checkpoint=str(ckpt))
        timer.cancel()
        pytest.skip(f"finished before the interrupt ({v})")
    except KeyboardInterrupt as e:
        assert "progress is saved in" in str(e) and ckpt.exists()
    r = matchcount.count(a, device="gpu", checkpoint=str(ckpt), details=True)
    assert any("resumed" in n for n in r["notes"]) and runs_on(r) == {"gpu"}
    assert int(r["value"]) == whole


def test_repeated_hafnians_match_the_cpu():
    rng = np.random.default_rng(13)
    a = rng.integers(-3, 4, (16, 16))
    a = a + a.T
    rpt = [2, 3, 1, 2, 2, 1, 3, 2, 2, 1, 2, 2, 3, 2, 1, 3]  # 32 photons
    gpu = matchcount.hafnian_repeated(a, rpt, device="gpu", details=True)
    cpu = matchcount.hafnian_repeated(a, rpt, device="cpu", details=True)
    assert runs_on(gpu) == {"gpu"} and gpu["value"] == cpu["value"]
    c = rng.standard_normal((16, 16)) + 1j * rng.standard_normal((16, 16))
    c = c + c.T
    gpu = matchcount.hafnian_repeated(c, rpt, loop=True, device="gpu", details=True)
    cpu = matchcount.hafnian_repeated(c, rpt, loop=True, device="cpu", details=True)
    assert runs_on(gpu) == {"gpu"}
    agree_within_bounds(gpu, cpu)


def test_batches_on_the_gpu_take_the_float_matrices_and_leave_the_rest_to_the_cpu():
    """hafnian_batch and permanent_batch on the GPU: the float matrices go to the device (read
    on every thread, each into its own place), the integral ones stay exact on the CPU, and the
    values do not depend on the stack's layout or on float32 storage of the same numbers."""
    rng = np.random.default_rng(5)
    k, n = 300, 10
    a = 0.3 * (rng.uniform(-1, 1, (k, n, n)) + 1j * rng.uniform(-1, 1, (k, n, n)))
    a = np.tril(a) + np.transpose(np.tril(a, -1), (0, 2, 1))
    for i in (0, 7, 200, k - 1):  # integral: exact on the CPU, the GPU's matrices squeezed past them
        a[i] = symmetric(rng, n, 0.5)
    for loop in (False, True):
        gpu = matchcount.hafnian_batch(a, loop=loop, device="gpu")
        cpu = matchcount.hafnian_batch(a, loop=loop, device="cpu")
        assert np.allclose(gpu, cpu, rtol=1e-10, atol=1e-13)
        for i in (0, 7, 200, k - 1):
            assert gpu[i] == cpu[i] and gpu[i].imag == 0 and gpu[i].real == round(gpu[i].real)
        assert np.array_equal(matchcount.hafnian_batch(np.transpose(a, (0, 2, 1)), loop=loop, device="gpu"), gpu)
    f = a.real.astype(np.float32)
    assert np.array_equal(matchcount.hafnian_batch(f, device="gpu"),
                          matchcount.hafnian_batch(f.astype(np.float64), device="gpu"))
    p = a[:, :8, :8].copy()
    assert np.allclose(matchcount.permanent_batch(p, device="gpu"), matchcount.permanent_batch(p, device="cpu"),
                       rtol=1e-10, atol=1e-13)
