"""All matchings (the CLI's --matchings): the Hosoya index, the monomer-dimer partition function
and the matching polynomial of a graph, counted through loop hafnians (docs/usage.md, "All
matchings"). G: a networkx graph (its nodes, isolated ones included, are the vertices) or a
symmetric adjacency matrix (numpy array or scipy.sparse, zero diagonal)."""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, List, Optional, Union

import numpy as np

from . import _core
from ._graphs import undirected
from ._input import _is_graph, check_options, exact_mode, to_matrix

Number = Union[int, Fraction, float, complex]


def _graph(G: Any, weight: Optional[str], exact: Optional[bool], x: Number = 1):
    """The core matrix of G's adjacency with every edge times x, and its format."""
    if _is_graph(G):
        gm = undirected(G, weight, exact_mode(exact), hafnian=True, scale=x)
        return gm.matrix, gm.format
    if weight is not None:
        raise ValueError("weight= names an edge attribute of a networkx graph; a matrix holds its weights")
    a = G
    if x != 1:
        if hasattr(a, "tocoo"):
            a = a.tocoo() * x
        else:
            arr = np.asarray(a)
            a = (arr.astype(object) if isinstance(x, Fraction) or arr.dtype.kind == "O" else arr) * x
    return to_matrix(a, exact, "graph's adjacency matrix")


def _weight_matrix(y: Number, exact: Optional[bool]):
    """The monomer weight as a 1 x 1 core matrix (its number kind read as everywhere else)."""
    if isinstance(y, bool) or not isinstance(y, (int, Fraction, float, complex, np.number)):
        raise TypeError(f"the monomer weight must be a number, not {type(y).__name__}")
    arr = np.array([[y]], dtype=object if isinstance(y, (int, Fraction)) and not isinstance(y, np.number) else None)
    return to_matrix(arr, exact, "monomer weight")[0]


def _run(G: Any, x: Number, y: Number, polynomial: bool, weight: Optional[str], exact: Optional[bool], threads: int,
         details: bool, log: bool = False) -> Any:
    check_options("auto", "auto", threads)
    g, fmt = _graph(G, weight, exact, x)
    out = _core.matchings(g, _weight_matrix(y, exact), polynomial, int(threads), 1 if details else 0, fmt, bool(log))
    if details:
        return json.loads(out)
    if log:
        from . import LogCount
        return LogCount.of(out)
    return out


def hosoya_index(G: Any, *, weight: Optional[str] = None, threads: int = 0, details: bool = False,
                 log: bool = False) -> Any:
    """The number of all matchings of G, the empty one included (the Hosoya index of a molecule's
    graph); with weight="attr" the sum over matchings of the product of their edges' weights.
    log=True: a ``LogCount`` (the CLI's --log).

    >>> import networkx as nx, matchcount
    >>> matchcount.hosoya_index(nx.path_graph(5))  # Fibonacci
    8
    """
    return _run(G, 1, 1, False, weight, None, threads, details, log)


def monomer_dimer(G: Any, x: Number = 1, y: Number = 1, *, weight: Optional[str] = None, exact: Optional[bool] = None,
                  threads: int = 0, details: bool = False, log: bool = False) -> Any:
    """The monomer-dimer partition function Z(x, y) = sum_k m_k x^k y^(n - 2k): each matched edge
    weighs x (times its weight), each unmatched vertex y. Exact for integers and Fractions; floats
    give a float (details=True: with its error; log=True: a ``LogCount``).

    >>> import networkx as nx, matchcount
    >>> matchcount.monomer_dimer(nx.cycle_graph(4), 1, 2)  # 2^4 + 4 * 2^2 + 2
    34
    """
    return _run(G, x, y, False, weight, exact, threads, details, log)


def matching_polynomial(G: Any, *, weight: Optional[str] = None, threads: int = 0) -> List[Any]:
    """The coefficients [m_0, m_1, ..., m_(n//2)] of G's matching polynomial: m_k is the number of
    matchings of k edges (their total weight with weight="attr"). Exact: ints, or Fractions for
    rational weights; float and complex weights give floats and complex numbers, each the exact
    coefficient of the doubles rounded once (details of the bounds: the CLI's --json
    "polynomial_errors").

    >>> import networkx as nx, matchcount
    >>> matchcount.matching_polynomial(nx.complete_graph(4))
    [1, 6, 3]
    """
    return _run(G, 1, 1, True, weight, None, threads, False)
