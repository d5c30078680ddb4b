"""edge_probabilities and sample_perfect_matchings (the CLI's --marginals and --sample): exact
values against enumeration, arrays in and out, samples against enumeration by
a chi-square test, seeds and refusals."""
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import matchcount

nx = pytest.importorskip("networkx")


def perfect_matchings(g):
    nodes = list(g.nodes)
    out = []

    def rec(left, chosen):
        if not left:
            out.append(frozenset(chosen))
            return
        u = left[0]
        for v in left[1:]:
            if g.has_edge(u, v):
                rec([x for x in left if x not in (u, v)], chosen + [frozenset((u, v))])

    rec(nodes, [])
    return out


def test_probabilities_match_enumeration_and_c60():
    rng = np.random.default_rng(7)
    for _ in range(20):
        g = nx.gnp_random_graph(8, 0.5, seed=int(rng.integers(1 << 30)))
        ms = perfect_matchings(g)
        if not ms:
            with pytest.raises(matchcount.RefusedError):
                matchcount.edge_probabilities(g)
            continue
        p = matchcount.edge_probabilities(g)
        assert set(p) == set(g.edges())
        for (u, v), value in p.items():
            assert value == Fraction(sum(frozenset((u, v)) in m for m in ms), len(ms))
        for v in g.nodes:
            assert sum(x for e, x in p.items() if v in e) == 1
    # C60's bond orders (11/25, 7/25) are checked in tests/which_test.cpp.


def test_arrays_weights_and_floats():
    a = np.array([[2, 1, 0], [1, 1, 3], [0, 1, 1]])
    p = matchcount.edge_probabilities(a)
    assert p.dtype == object and p[0, 0] == Fraction(8, 9) and p[1, 2] == Fraction(2, 3) and p[0, 2] == 0
    assert all(sum(p[i, :]) == 1 for i in range(3)) and all(sum(p[:, j]) == 1 for j in range(3))
    f = matchcount.edge_probabilities(a * 0.5 + np.eye(3) * 0.25)  # non-integer floats: a float matrix
    assert f.dtype == float and np.allclose(f.sum(axis=0), 1) and np.allclose(f.sum(axis=1), 1)
    s = np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]])
    q = matchcount.edge_probabilities(s, hafnian=True)  # K_4 as a general graph: 1/3 per edge
    assert q[0, 1] == q[1, 0] == Fraction(1, 3) and q[0, 0] == 0
    g = nx.cycle_graph(4)
    nx.set_edge_attributes(g, {(0, 1): 3, (1, 2): 1, (2, 3): 3, (0, 3): 1}, "w")
    assert matchcount.edge_probabilities(g, weight="w")[(0, 1)] == Fraction(9, 10)


def test_samples_fit_enumeration_and_seeds_reproduce():
    g = nx.complete_graph(6)
    n = 3000
    seen = Counter(frozenset(frozenset(e) for e in m) for m in matchcount.sample_perfect_matchings(g, n, seed=5))
    ms = perfect_matchings(g)
    assert set(seen) <= set(ms)
    expected = n / len(ms)
    chi2 = sum((seen[m] - expected) ** 2 / expected for m in ms)
    assert chi2 < 60  # 14 degrees of freedom: p < 1e-6 beyond this
    a = matchcount.sample_perfect_matchings(nx.grid_2d_graph(4, 4), 10, seed=9)
    assert a == matchcount.sample_perfect_matchings(nx.grid_2d_graph(4, 4), 10, seed=9)
    assert a != matchcount.sample_perfect_matchings(nx.grid_2d_graph(4, 4), 10, seed=10)
    assert all(e in nx.grid_2d_graph(4, 4).edges for m in a for e in m)
    with pytest.raises(matchcount.RefusedError):
        matchcount.sample_perfect_matchings(np.array([[1, -1], [1, 1]]))
    with pytest.raises(ValueError, match="k:"):
        matchcount.sample_perfect_matchings(g, 0)


def test_ctrl_c_stops_sampling():
    import os, signal, threading, time
    g = nx.grid_2d_graph(8, 8)  # a million samples: seconds
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        matchcount.sample_perfect_matchings(g, 1_000_000, seed=1)
    assert time.monotonic() - t0 < 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_stops_edge_probabilities():
    """The counts' way (real weights: a count per edge, each seconds' worth here) stops between
    edges at Ctrl-C."""
    import os, signal, threading, time
    rng = np.random.default_rng(5)
    n = 40
    a = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.5), 1)
    a = a + a.T
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        matchcount.edge_probabilities(a, hafnian=True)
    assert time.monotonic() - t0 < 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_lattice_regions_take_the_lattice_samplers():
    """networkx's grid graphs name their nodes by cells: the exact lattice samplers draw them,
    each sample a perfect matching of the graph, reproducible by its seed."""
    nx = pytest.importorskip("networkx")
    for G in (nx.grid_2d_graph(6, 8), nx.grid_2d_graph(5, 4)):
        drawn = matchcount.sample_perfect_matchings(G, 5, seed=9)
        assert drawn == matchcount.sample_perfect_matchings(G, 5, seed=9)
        for m in drawn:
            assert len(m) == G.number_of_nodes() // 2
            assert all(G.has_edge(u, v) for u, v in m)
            assert {x for e in m for x in e} == set(G.nodes())
    big = nx.grid_2d_graph(120, 120)  # far beyond the frontier DP's tables: the lattice sampler
    (m,) = matchcount.sample_perfect_matchings(big, 1, seed=2)
    assert len(m) == 7200 and all(big.has_edge(u, v) for u, v in m)


def test_pictures(tmp_path):
    """svg= draws the sample (dominoes for a grid named by cells) or the marginals (C60 by its
    Tutte embedding), as the CLI's --svg does; several samples cannot be drawn."""
    nx = pytest.importorskip("networkx")
    path = tmp_path / "grid.svg"
    (m,) = matchcount.sample_perfect_matchings(nx.grid_2d_graph(4, 6), 1, seed=3, svg=str(path))
    text = path.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>") and "domino" in text
    with pytest.raises(ValueError):
        matchcount.sample_perfect_matchings(nx.grid_2d_graph(4, 6), 2, svg=str(path))
    c60 = tmp_path / "c60.svg"
    matchcount.edge_probabilities(nx.cycle_graph(6), svg=str(c60))
    assert "<line" in c60.read_text() or "<path" in c60.read_text()


def test_large_lattices_with_log():
    """log=True: the inverse Kasteleyn matrix gives every edge of a 60 x 60 grid as a float,
    each vertex's probabilities summing to 1, the corners' two edges 1/2 each; and the exact
    fractions of a small grid within 1e-12."""
    nx = pytest.importorskip("networkx")
    p = matchcount.edge_probabilities(nx.grid_2d_graph(60, 60), log=True)
    assert len(p) == 2 * 60 * 59 and all(isinstance(x, float) for x in p.values())
    assert abs(p[((0, 0), (0, 1))] - 0.5) < 1e-12
    sums = Counter()
    for (u, v), x in p.items():
        sums[u] += x
        sums[v] += x
    assert max(abs(s - 1) for s in sums.values()) < 1e-9
    small = nx.grid_2d_graph(4, 5)
    exact, floats = matchcount.edge_probabilities(small), matchcount.edge_probabilities(small, log=True)
    assert all(abs(float(exact[e]) - floats[e]) < 1e-12 for e in exact)
    with pytest.raises(matchcount.RefusedError, match="planar"):
        matchcount.edge_probabilities(nx.complete_graph(6), log=True)
