"""Which perfect matchings (the CLI's --marginals and --sample, docs/usage.md "Which
matchings"): the probability of each edge in a random perfect matching, and exact random perfect
matchings, uniform or with probability proportional to the product of their weights. G: a
networkx graph, or a matrix: a bipartite graph's biadjacency matrix (rows matched to columns),
or with hafnian=True a general graph's symmetric adjacency matrix."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Hashable, List, Optional, Set, Tuple, Union

import numpy as np

from . import _core
from ._graphs import undirected
from ._input import _is_graph, check_options, exact_mode, interruptible, to_matrix

Probability = Union[int, Fraction, float]


def _prepare(G: Any, weight: Optional[str], exact: Optional[bool], hafnian: bool):
    """The core matrix, whether it is a general graph's, and the row and column labels (nodes
    of a networkx graph; None for a matrix)."""
    if _is_graph(G):
        gm = undirected(G, weight, exact_mode(exact))
        return gm.matrix, gm.hafnian, gm.row_nodes, gm.col_nodes
    if weight is not None:
        raise ValueError("weight= names an edge attribute of a networkx graph; a matrix holds its weights")
    matrix, _ = to_matrix(G, exact, "graph's matrix")
    return matrix, bool(hafnian), None, None


def _cell(node: Hashable) -> Optional[Tuple[int, int]]:
    """The lattice cell a node stands for: a pair of ints, as networkx's grid_2d_graph names its
    nodes (or a name 'r,c' / '(r, c)' read from a file); None otherwise."""
    if isinstance(node, tuple) and len(node) == 2 and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                          for x in node):
        return int(node[0]), int(node[1])
    if isinstance(node, str):
        text = node.strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        parts = text.split(",")
        if len(parts) == 2:
            try:
                return int(parts[0]), int(parts[1])
            except ValueError:
                return None
    return None


def _cells(rows, cols, symmetric: bool) -> List[Tuple[int, int]]:
    """The vertices' lattice cells (a symmetric graph's vertices, else rows then columns) where
    every node is one, so that whole lattice regions take the exact lattice samplers; else []."""
    if rows is None:
        return []
    cells = []
    for node in (rows if symmetric else list(rows) + list(cols)):
        cell = _cell(node)
        if cell is None or not (-2**31 <= cell[0] < 2**31 and -2**31 <= cell[1] < 2**31):
            return []
        cells.append(cell)
    return cells


def _picture(rows, cols, symmetric: bool, entries) -> Tuple[List[str], List[Tuple[int, int]]]:
    """The graph as the pictures take it: names (a symmetric graph's vertices, else rows then
    columns; str() of networkx nodes, so grid_2d_graph's (r, c) are cells) and edges (u, v) in
    one numbering, from the core matrix's entries (row, column)."""
    nr = len(rows)
    names = [str(x) for x in (rows if symmetric else list(rows) + list(cols))]
    edges = []
    for r, c in entries:
        if symmetric and r >= c:
            continue
        edges.append((r, c if symmetric else nr + c))
    return names, edges


def _write_svg(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def edge_probabilities(G: Any, *, hafnian: bool = False, weight: Optional[str] = None, exact: Optional[bool] = None,
                       threads: int = 0, device: str = "auto", svg: Optional[str] = None, log: bool = False) -> Any:
    """The probability that each edge lies in a random perfect matching, drawn uniformly or with
    probability proportional to the product of its weights (the chemists' Pauling bond orders).
    Integer and Fraction weights give exact Fractions (0 and 1 as ints); floats give floats.
    Ctrl-C stops it (KeyboardInterrupt).

    A networkx graph gives a dict {(u, v): p}, one key per edge as G.edges lists it. A matrix
    gives a matrix of the same shape: P[i, j] for entry (i, j) (both triangles of a symmetric
    matrix with hafnian=True), an object array of exact values or a float array.

    >>> import networkx as nx, matchcount
    >>> sorted(set(matchcount.edge_probabilities(nx.cycle_graph(6)).values()))
    [Fraction(1, 2)]

    svg: a file to draw the graph in, each edge shaded by its probability (as the CLI's
    --marginals --svg: lattices named by cells as segments, planar graphs by Tutte's embedding).
    log=True (the CLI's --log, for counts too large to print): floats with estimated errors from
    the inverse Kasteleyn (or Pfaffian) matrix of a planar graph, every edge in one
    factorisation; graphs that are not planar are refused.
    """
    check_options(device, "auto", threads)
    matrix, symmetric, rows, cols = _prepare(G, weight, exact, hafnian)
    if not isinstance(log, bool):
        raise ValueError(f"log: must be True or False, not '{log}'")
    got = _core.marginals(matrix, symmetric, int(threads), device, log, interruptible())
    if svg is not None:
        labels_r = rows if rows is not None else list(range(1, matrix.rows + 1))
        labels_c = cols if cols is not None else list(range(1, matrix.cols + 1))
        names, edges = _picture(labels_r, labels_c, symmetric, [(u, v) for u, v, _, _ in got])
        _write_svg(svg, _core.marginals_svg(names, edges, [float(value) for _, _, value, _ in got]))
    if rows is not None:
        p = {}
        for u, v, value, _ in got:
            p[(rows[u], cols[v])] = value
        out = {}
        for u, v in G.edges():  # the graph's own order and orientation
            out[(u, v)] = p.get((u, v), p.get((v, u), 0))
        return out
    shape = G.shape if hasattr(G, "shape") else np.shape(G)
    exact_values = all(not isinstance(value, float) for _, _, value, _ in got)
    out = np.zeros(shape, dtype=object if exact_values else float)
    for u, v, value, _ in got:
        out[u, v] = value
        if symmetric:
            out[v, u] = value
    return out


def sample_perfect_matchings(G: Any, k: int = 1, *, seed: int = 1, hafnian: bool = False, weight: Optional[str] = None,
                             threads: int = 0, device: str = "auto",
                             svg: Optional[str] = None) -> List[Set[Tuple[Hashable, Hashable]]]:
    """k independent exact random perfect matchings of G, uniform or with probability
    proportional to the product of their weights (negative and complex weights are refused), each
    a set of edges (u, v). The same seed gives the same samples on every machine. Ctrl-C stops
    it (KeyboardInterrupt). Whole lattice regions with nodes named by their cells (networkx's
    grid_2d_graph, tuples (r, c)) and unit weights take the exact lattice samplers: an Aztec
    diamond by domino shuffling, a rectangle by Temperley's bijection and Wilson's algorithm.
    svg: with k = 1, a file to draw the matching in (as the CLI's --sample 1 --svg: dominoes on
    the square lattice, lozenges on the honeycomb, Tutte's embedding for other planar graphs).

    >>> import networkx as nx, matchcount
    >>> [sorted(m) for m in matchcount.sample_perfect_matchings(nx.path_graph(4), 2, seed=3)]
    [[(0, 1), (2, 3)], [(0, 1), (2, 3)]]
    """
    check_options(device, "auto", threads)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k: must be a whole number >= 1, not '{k}'")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: must be a whole number >= 0, not '{seed}'")
    if svg is not None and k != 1:
        raise ValueError("svg= draws one matching: ask for k=1")
    matrix, symmetric, rows, cols = _prepare(G, weight, None, hafnian)
    drawn = _core.samples(matrix, symmetric, int(k), int(seed), int(threads), device, interruptible(),
                          _cells(rows, cols, symmetric))
    if svg is not None:
        labels_r = rows if rows is not None else list(range(1, matrix.rows + 1))
        labels_c = cols if cols is not None else list(range(1, matrix.cols + 1))
        entries = matrix.positions
        names, edges = _picture(labels_r, labels_c, symmetric, entries)
        chosen = {(u, v if symmetric else len(labels_r) + v) for u, v in drawn[0]}
        _write_svg(svg, _core.matching_svg(names, edges, [(min(e), max(e)) in chosen for e in edges]))
    if rows is None:
        return [set(m) for m in drawn]
    edges = set()
    for u, v in G.edges():
        edges.add((u, v))
    out = []
    for m in drawn:
        pairs = set()
        for u, v in m:
            a, b = rows[u], cols[v]
            pairs.add((a, b) if (a, b) in edges or (b, a) not in edges else (b, a))
        out.append(pairs)
    return out
