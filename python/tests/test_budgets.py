"""max_memory and max_seconds (the CLI's --max-memory and --max-seconds): refusals name the stage
or the prediction in the CLI's words, bad sizes are ValueErrors, a roomy budget changes nothing."""
import math
import subprocess
import time

import numpy as np
import pytest

import matchcount


def dense01(n, seed=1, density=0.9):
    """A random 0-1 matrix with no structure to exploit: the planner predicts a Ryser walk."""
    return (np.random.default_rng(seed).random((n, n)) < density).astype(np.int64)


def cli_error(request, args, path):
    """The one line the CLI prints after "matchcount: error: " (exit code 3); None without the CLI,
    so that the Python side is tested all the same."""
    try:
        cli = request.getfixturevalue("cli")
    except pytest.skip.Exception:
        return None
    r = subprocess.run([cli, *args, str(path)], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert r.stderr.startswith("matchcount: error: ") and r.stderr.count("\n") == 1, r.stderr
    return r.stderr[len("matchcount: error: "):].rstrip("\n")


def test_budget_exceeded_is_a_refusal():
    assert issubclass(matchcount.BudgetExceeded, matchcount.RefusedError)
    assert issubclass(matchcount.BudgetExceeded, RuntimeError)
    assert "BudgetExceeded" in matchcount.__all__


def test_planning_beyond_the_memory_budget_is_refused_naming_the_stage(tmp_path, request):
    nx = pytest.importorskip("networkx")
    g = nx.grid_2d_graph(300, 300)
    with pytest.raises(matchcount.BudgetExceeded) as e:
        matchcount.perfect_matchings(g, max_memory="40M")
    text = str(e.value)
    assert text.startswith("planning needs about ") and "over the memory budget of 40 MiB (max_memory)" in text
    assert "\n" not in text
    # The CLI refuses the same graph with the same line (its reading, about 25 MiB here, fits
    # 40 MiB; within 1 MiB the CLI would refuse while reading the file, which Python does not).
    index = {v: i for i, v in enumerate(g.nodes)}
    path = tmp_path / "grid.edges"
    path.write_text("".join(f"{index[u]} {index[v]}\n" for u, v in g.edges))
    # (in the CLI's words: its option where Python names the argument)
    assert cli_error(request, ["--as", "graph", "--max-memory", "40M"], path) in (text.replace("max_memory", "--max-memory"), None)


@pytest.mark.parametrize("call", [
    lambda b: matchcount.permanent(np.ones((50, 50), dtype=np.int64), max_memory=b),
    lambda b: matchcount.hafnian(np.ones((50, 50), dtype=np.int64), max_memory=b),
    lambda b: matchcount.count(np.ones((50, 50)), max_memory=b, details=True),
    lambda b: matchcount.count(np.ones((50, 50)), max_memory=b, explain=True),
])
def test_every_exact_count_takes_the_memory_budget(call):
    with pytest.raises(matchcount.BudgetExceeded, match=r"^planning needs about .* \(max_memory\)$"):
        call(1000)


def test_cycle_covers_take_the_memory_budget():
    nx = pytest.importorskip("networkx")
    with pytest.raises(matchcount.BudgetExceeded, match="planning needs about"):
        matchcount.cycle_covers(nx.complete_graph(30, create_using=nx.DiGraph), max_memory="1K")


def test_a_count_predicted_beyond_the_time_cap_is_refused_at_once(tmp_path, request):
    a = dense01(62)
    t0 = time.monotonic()
    with pytest.raises(matchcount.BudgetExceeded) as e:
        matchcount.permanent(a, max_seconds=1)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.5, elapsed
    text = str(e.value)
    assert text.startswith("the count is predicted to take about ")
    assert text.endswith(", more than the time cap of 1 s; nothing was counted")
    # The CLI's line for the same matrix (the planner's prediction for this machine's cores).
    path = tmp_path / "dense62.mtx"
    rows, cols = np.nonzero(a)
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    f"62 62 {len(rows)}\n" + "".join(f"{i + 1} {j + 1}\n" for i, j in zip(rows, cols)))
    assert cli_error(request, ["--max-seconds", "1"], path) in (text.replace("max_seconds", "--max-seconds"), None)
    # The same through count() and for a hafnian; a plan (explain) is not refused.
    with pytest.raises(matchcount.BudgetExceeded, match="time cap of 0.5 s"):
        matchcount.count(a, max_seconds=0.5, details=True)
    sym = np.triu(dense01(64, seed=2), 1)
    with pytest.raises(matchcount.BudgetExceeded, match="predicted to take about"):
        matchcount.hafnian(sym + sym.T, max_seconds=1)
    assert matchcount.count(a, max_seconds=1, explain=True)["value"] is None


def test_a_cap_reached_while_counting_stops_the_count(tmp_path):
    # An engine named by the caller has no prediction, so nothing refuses it before it starts;
    # the cap stops its walk within a unit of work.
    a = dense01(36, seed=3)
    t0 = time.monotonic()
    with pytest.raises(matchcount.BudgetExceeded) as e:
        matchcount.permanent(a, engine="ryser", threads=2, max_seconds=0.3)
    assert time.monotonic() - t0 < 20
    assert str(e.value) == ("the time cap max_seconds=0.3 was reached; the count stopped "
                            "(checkpoint=FILE saves progress to resume)")
    ckpt = tmp_path / "run.ckpt"
    with pytest.raises(matchcount.BudgetExceeded, match="progress is saved in .*run.ckpt"):
        matchcount.permanent(a, engine="ryser", threads=2, max_seconds=0.3, checkpoint=str(ckpt))
    assert ckpt.exists()


def test_a_count_within_its_budgets_gives_the_same_value():
    nx = pytest.importorskip("networkx")
    g = nx.grid_2d_graph(8, 8)
    want = matchcount.perfect_matchings(g)
    assert want == 12988816
    for budget in ("8G", "1.5GiB", "none", 0, 8 << 30, "0"):
        assert matchcount.perfect_matchings(g, max_memory=budget, max_seconds=60) == want
    a = dense01(20, seed=4)
    assert matchcount.permanent(a, max_memory="8G") == matchcount.permanent(a)
    sym = np.triu(dense01(16, seed=5), 1)
    assert matchcount.hafnian(sym + sym.T, max_memory="8G") == matchcount.hafnian(sym + sym.T)
    small = np.arange(1, 10).reshape(3, 3)
    assert matchcount.permanent(small, max_memory="8G", max_seconds=math.inf) == 450


def test_the_budget_is_in_the_record():
    rec = matchcount.count(np.ones((20, 20), dtype=np.int64), explain=True, max_memory="200M")
    assert rec["memory"]["budget"] == 200 * 2 ** 20
    assert matchcount.count(np.ones((20, 20)), explain=True, max_memory="none")["memory"]["budget"] is None
    assert matchcount.count(np.ones((20, 20)), explain=True, max_memory=10 ** 9)["memory"]["budget"] == 10 ** 9


@pytest.mark.parametrize("size, exc, text", [
    ("12Q", ValueError, "max_memory: must be a size such as 200M, 8G or 1.5GiB (none or 0: no budget), not '12Q'"),
    ("-1G", ValueError, "not '-1G'"),
    ("", ValueError, "max_memory: must be a size"),
    ("eight gigs", ValueError, "not 'eight gigs'"),
    ("1e30", ValueError, "max_memory: must be a size"),
    (-5, ValueError, "max_memory: must be a number of bytes >= 0"),
    (1.5e9, TypeError, "max_memory must be an int"),
    (True, TypeError, "max_memory must be an int"),
])
def test_bad_sizes(size, exc, text):
    for call in (lambda: matchcount.permanent(np.eye(3), max_memory=size),
                 lambda: matchcount.perfect_matchings(pytest.importorskip("networkx").path_graph(4), max_memory=size),
                 lambda: matchcount.estimate(np.ones((3, 3)), max_memory=size)):
        with pytest.raises(exc) as e:
            call()
        assert text in str(e.value)


@pytest.mark.parametrize("cap, exc", [(-1, ValueError), (math.nan, ValueError), ("10", TypeError), (True, TypeError)])
def test_bad_time_caps(cap, exc):
    with pytest.raises(exc, match="max_seconds"):
        matchcount.permanent(np.eye(3), max_seconds=cap)


def test_estimate_counts_exactly_only_within_the_budget():
    a = np.ones((40, 40))
    e = matchcount.estimate(a, max_memory="none")
    assert e.exact and e.exact_value == math.factorial(40)
    # Counting the block exactly would plan beyond 100 KiB: it is sampled instead.
    s = matchcount.estimate(a, samples=200, seed=1, max_memory="100K")
    assert not s.exact and s.samples > 0
    assert math.isclose(s.value, math.factorial(40), rel_tol=1e-6)  # every sample of all-ones is 40!
