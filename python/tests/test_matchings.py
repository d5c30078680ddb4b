"""All matchings from Python (hosoya_index, monomer_dimer, matching_polynomial): closed forms,
enumeration on small random graphs, every input kind, and the refusals."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

import matchcount

nx = pytest.importorskip("networkx")


def brute_polynomial(g, weight=None):
    """m_k by enumerating edge subsets of small graphs."""
    edges = list(g.edges(data=True))
    m = [0] * (g.number_of_nodes() // 2 + 1)
    for k in range(len(m)):
        for subset in itertools.combinations(edges, k):
            ends = [v for u, w, _ in subset for v in (u, w)]
            if len(set(ends)) == len(ends):
                p = 1
                for _, _, d in subset:
                    p *= d.get(weight, 1) if weight else 1
                m[k] += p
    return m


def test_closed_forms():
    fib = [1, 1]
    for _ in range(20):
        fib.append(fib[-1] + fib[-2])
    for n in range(1, 15):
        assert matchcount.hosoya_index(nx.path_graph(n)) == fib[n]
    assert [matchcount.hosoya_index(nx.complete_graph(n)) for n in range(1, 9)] == [1, 2, 4, 10, 26, 76, 232, 764]
    assert matchcount.hosoya_index(nx.grid_2d_graph(5, 5)) == 2810694
    assert matchcount.matching_polynomial(nx.complete_graph(6)) == [1, 15, 45, 15]


def test_random_graphs_against_enumeration():
    rng = np.random.default_rng(4)
    for trial in range(40):
        n = int(rng.integers(1, 9))
        g = nx.gnp_random_graph(n, 0.5, seed=int(rng.integers(1 << 30)))
        for u, v in g.edges:
            g[u][v]["w"] = int(rng.integers(-3, 4)) or 1
        m = brute_polynomial(g, "w")
        assert matchcount.matching_polynomial(g, weight="w") == m
        y = Fraction(int(rng.integers(-3, 4)), 2)
        want = sum(c * y ** (n - 2 * k) for k, c in enumerate(m))
        assert matchcount.monomer_dimer(g, 1, y, weight="w") == want
        a = nx.to_numpy_array(g, weight="w", dtype=int)
        assert matchcount.monomer_dimer(a, 2, 1) == sum(c * 2 ** k for k, c in enumerate(m))


def test_inputs_and_refusals():
    import scipy.sparse as sp
    a = nx.to_numpy_array(nx.cycle_graph(6), dtype=int)
    assert matchcount.hosoya_index(a) == matchcount.hosoya_index(sp.csr_matrix(a)) == 18  # Lucas L_6
    z = matchcount.monomer_dimer(a, 0.5, 1.5, details=True)
    assert z["counts"] == "matchings"
    want = sum(c * 0.5 ** k * 1.5 ** (6 - 2 * k) for k, c in enumerate([1, 6, 9, 2]))
    assert abs(z["value"] - want) <= z["abs_error"] + 1e-12 * want
    g = nx.Graph()
    g.add_nodes_from(range(3))  # an isolated vertex is a monomer
    g.add_edge(0, 1)
    assert matchcount.monomer_dimer(g, 1, 3) == 27 + 3
    half = matchcount.matching_polynomial(a * 0.5)  # floats: the coefficients as doubles
    assert half == [1.0, 3.0, 2.25, 0.25] and all(type(c) is float for c in half)
    with pytest.raises(TypeError):
        matchcount.monomer_dimer(a, 1, "y")
    with pytest.raises(ValueError):
        matchcount.hosoya_index(np.eye(3))  # a self-loop on the diagonal


def test_log_and_isolated_vertices():
    import math
    import networkx as nx
    g = nx.grid_2d_graph(8, 8)
    lc = matchcount.hosoya_index(g, log=True)
    assert lc.sign == 1 and abs(lc.log - math.log(179788343101980135)) < 1e-12 and lc.error < 1e-10
    assert abs(matchcount.monomer_dimer(nx.path_graph(3), 1, 2, log=True).log - math.log(12)) < 1e-14
    # An isolated node is a vertex: a monomer in every matching.
    p = nx.path_graph(3)
    p.add_node("d")
    assert matchcount.monomer_dimer(p, 1, 2) == 24 and matchcount.matching_polynomial(p) == [1, 2, 0]


def test_complex_matching_polynomial():
    nx = pytest.importorskip("networkx")
    g = nx.cycle_graph(4)
    nx.set_edge_attributes(g, {e: 1 + 1j for e in g.edges}, "w")
    assert matchcount.matching_polynomial(g, weight="w") == [1, 4 + 4j, 4j]  # two perfect matchings of (1+i)^2
