"""hafnian() against brute force; networkx graphs and digraphs against brute force and known
counts."""
import math
from fractions import Fraction

import numpy as np
import pytest

import matchcount
from conftest import close, haf_brute, perm_brute

nx = pytest.importorskip("networkx")


def sym(rng, n, kind):
    if kind == "int":
        a = rng.integers(-3, 4, size=(n, n))
    elif kind == "float":
        a = rng.standard_normal((n, n))
    else:
        a = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    return np.triu(a) + np.triu(a, 1).T


@pytest.mark.parametrize("kind", ["int", "float", "complex"])
def test_hafnian_brute(rng, kind):
    for _ in range(60):
        n = int(rng.integers(0, 9))
        a = sym(rng, n, kind)
        for loop in (False, True):
            got = matchcount.hafnian(a, loop=loop)
            want = haf_brute(a, loop=loop)
            if kind == "int" or n == 0:
                assert got == want and type(got) is int
            else:
                assert close(got, want, haf_brute(np.abs(a), loop=loop)), (a, loop, got, want)


def test_hafnian_fractions_and_known():
    assert matchcount.hafnian(np.ones((8, 8), dtype=int)) == 105
    assert matchcount.hafnian(np.ones((7, 7), dtype=int)) == 0
    assert matchcount.hafnian(np.zeros((0, 0))) == 1
    f = np.array([[0, Fraction(1, 3)], [Fraction(1, 3), 0]], dtype=object)
    assert matchcount.hafnian(f) == Fraction(1, 3)


def test_bipartite_graph_hafnian_equals_permanent(rng):
    for _ in range(20):
        b = rng.integers(0, 2, size=(4, 4))
        a = np.block([[np.zeros((4, 4), int), b], [b.T, np.zeros((4, 4), int)]])
        assert matchcount.hafnian(a) == perm_brute(b.astype(object))


def brute_matchings(g):
    a = nx.to_numpy_array(g, nodelist=list(g.nodes), dtype=object, weight=None)
    np.fill_diagonal(a, 0)
    return haf_brute(a)


def test_grids_and_lattices():
    assert matchcount.perfect_matchings(nx.grid_2d_graph(8, 8)) == 12988816
    assert matchcount.perfect_matchings(nx.grid_2d_graph(10, 10)) == 258584046368
    assert matchcount.perfect_matchings(nx.grid_2d_graph(3, 3)) == 0
    # triangular lattice (not bipartite: a hafnian), against brute force
    for m, n in ((2, 4), (3, 4), (4, 4)):
        g = nx.triangular_lattice_graph(m, n)
        if g.number_of_nodes() % 2 == 0 and g.number_of_nodes() <= 16:
            assert matchcount.perfect_matchings(g) == brute_matchings(g)
    assert matchcount.perfect_matchings(nx.petersen_graph()) == 6
    assert matchcount.perfect_matchings(nx.complete_graph(10)) == 945
    assert matchcount.perfect_matchings(nx.complete_bipartite_graph(5, 5)) == 120
    assert matchcount.perfect_matchings(nx.complete_bipartite_graph(4, 5)) == 0
    assert matchcount.perfect_matchings(nx.Graph()) == 1


def test_random_graphs_and_weights(rng):
    for seed in range(30):
        g = nx.gnp_random_graph(int(rng.integers(2, 11)), 0.5, seed=seed)
        assert matchcount.perfect_matchings(g) == brute_matchings(g), seed
        for u, v in g.edges:
            g.edges[u, v]["w"] = int(rng.integers(1, 5))
        a = nx.to_numpy_array(g, nodelist=list(g.nodes), dtype=object, weight="w")
        assert matchcount.perfect_matchings(g, weight="w") == haf_brute(a)


def test_graph_details_and_names():
    g = nx.relabel_nodes(nx.path_graph(4), {0: "a", 1: "b", 2: "c", 3: "d"})
    g.add_edge("a", "a")  # a self-loop lies in no perfect matching
    assert matchcount.perfect_matchings(g) == 1
    r = matchcount.count(g, details=True)
    assert r["value"] == "1" and any("self-loops" in n for n in r["notes"])
    m = nx.MultiGraph([(0, 1), (0, 1), (2, 3)])
    assert matchcount.perfect_matchings(m) == 2
    b = nx.Graph()
    b.add_nodes_from([0, 1], bipartite=0)
    b.add_nodes_from(["x", "y"], bipartite=1)
    b.add_edges_from([(0, "x"), (0, "y"), (1, "x")])
    assert matchcount.perfect_matchings(b) == 1


def test_cycle_covers(rng):
    assert matchcount.cycle_covers(nx.complete_graph(5, create_using=nx.DiGraph)) == 44
    for seed in range(30):
        d = nx.gnp_random_graph(int(rng.integers(1, 8)), 0.4, seed=seed, directed=True)
        for v in list(d.nodes)[::3]:
            d.add_edge(v, v)
        a = nx.to_numpy_array(d, nodelist=list(d.nodes), dtype=object, weight=None)
        assert matchcount.cycle_covers(d) == perm_brute(a)
        for u, v in d.edges:
            d.edges[u, v]["weight"] = Fraction(int(rng.integers(1, 4)), 2)
        a = nx.to_numpy_array(d, nodelist=list(d.nodes), dtype=object)
        assert matchcount.cycle_covers(d, weight="weight") == perm_brute(a)
    assert matchcount.count(nx.cycle_graph(6, create_using=nx.DiGraph)) == 1
    assert matchcount.cycle_covers(nx.DiGraph()) == 1
