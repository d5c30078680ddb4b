"""networkx graphs as matrices, read as the CLI reads `--as graph` and `--as digraph`: a
bipartite graph gives the biadjacency matrix (a permanent), any other undirected graph its
symmetric adjacency matrix (a hafnian), a directed graph its adjacency matrix (cycle covers)."""
from __future__ import annotations

from collections import deque
from typing import Any, Dict, Hashable, List, Optional, Tuple

from . import _core
from ._input import from_entries


class GraphMatrix:
    """A graph's matrix and how to count it."""

    def __init__(self, matrix: "_core.Matrix", hafnian: bool, names: List[str], notes: List[str], fmt: str,
                 row_nodes: Optional[List[Hashable]] = None, col_nodes: Optional[List[Hashable]] = None):
        self.matrix, self.hafnian, self.names, self.notes, self.format = matrix, hafnian, names, notes, fmt
        # The graph's nodes of the matrix's rows and columns (undirected graphs).
        self.row_nodes, self.col_nodes = row_nodes, col_nodes


def _weight(data: Dict[str, Any], weight: Optional[str]) -> Any:
    # networkx's convention: an edge without the attribute weighs 1.
    return 1 if weight is None else data.get(weight, 1)


def _two_colour(g: Any, nodes: List[Hashable]) -> Optional[Dict[Hashable, int]]:
    """Sides 0/1 of a bipartite graph (networkx's "bipartite" node attribute when every node has
    one, else by breadth-first search from each component's first node), None if not bipartite."""
    attrs = [g.nodes[v].get("bipartite") for v in nodes]
    if nodes and all(a in (0, 1) for a in attrs):
        side = dict(zip(nodes, attrs))
        if all(side[u] != side[v] for u, v in g.edges() if u != v):
            return side
    side = {}
    for s in nodes:
        if s in side:
            continue
        side[s] = 0
        todo = deque([s])
        while todo:
            u = todo.popleft()
            for v in g.adj[u]:
                if v == u:
                    continue
                if v not in side:
                    side[v] = 1 - side[u]
                    todo.append(v)
                elif side[v] == side[u]:
                    return None
    return side


def _require_networkx_graph(g: Any, directed: bool) -> None:
    if not (hasattr(g, "is_directed") and hasattr(g, "adj")):
        raise TypeError(f"expected a networkx {'DiGraph' if directed else 'Graph'}, not {type(g).__name__}")
    if g.is_directed() != directed:
        raise TypeError("cycle_covers takes a directed graph (networkx DiGraph); perfect_matchings an undirected one"
                        if not directed else "cycle_covers takes a directed graph (networkx DiGraph), not an undirected one")


def undirected(g: Any, weight: Optional[str], mode: int, hafnian: bool = False, scale: Any = 1) -> GraphMatrix:
    _require_networkx_graph(g, False)
    nodes = list(g.nodes)
    names = [str(v) for v in nodes]
    edges = [(u, v, d) for u, v, d in g.edges(data=True)]
    loops = sum(1 for u, v, _ in edges if u == v)
    edges = [(u, v, d) for u, v, d in edges if u != v]
    notes = [f"{loops} self-loops dropped: they lie in no perfect matching"] if loops else []
    side = None if hafnian else _two_colour(g, nodes)
    multi = " multigraph" if g.is_multigraph() else ""
    if side is not None:
        left = [v for v in nodes if side[v] == 0]
        right = [v for v in nodes if side[v] == 1]
        li = {v: i for i, v in enumerate(left)}
        ri = {v: i for i, v in enumerate(right)}
        rows, cols, vals = [], [], []
        for u, v, d in edges:
            if side[u] == 1:
                u, v = v, u
            rows.append(li[u])
            cols.append(ri[v])
            vals.append(_weight(d, weight))
        if len(left) != len(right):
            notes.append(f"the graph is bipartite with sides of {len(left)} and {len(right)} vertices: "
                         "no perfect matching")
        m = from_entries(len(left), len(right), rows, cols, vals, mode)
        return GraphMatrix(m, False, names, notes, f"networkx{multi} graph, bipartite", left, right)
    index = {v: i for i, v in enumerate(nodes)}
    rows, cols, vals = [], [], []
    for u, v, d in edges:
        w = _weight(d, weight) if scale == 1 else _weight(d, weight) * scale
        rows += [index[u], index[v]]
        cols += [index[v], index[u]]
        vals += [w, w]
    notes.append("the graph is not bipartite: its perfect matchings are counted as a hafnian"
                 if not hafnian else "counted as a hafnian")
    n = len(nodes)
    return GraphMatrix(from_entries(n, n, rows, cols, vals, mode), True, names, notes, f"networkx{multi} graph", nodes, nodes)


def directed(g: Any, weight: Optional[str], mode: int) -> GraphMatrix:
    _require_networkx_graph(g, True)
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    rows, cols, vals = [], [], []
    for u, v, d in g.edges(data=True):
        rows.append(index[u])
        cols.append(index[v])
        vals.append(_weight(d, weight))
    n = len(nodes)
    multi = " multi" if g.is_multigraph() else " "
    return GraphMatrix(from_entries(n, n, rows, cols, vals, mode), False, [str(v) for v in nodes], [],
                       f"networkx{multi}digraph".replace("  ", " "))


def graph_matrix(g: Any, weight: Optional[str], mode: int) -> Tuple[GraphMatrix, bool]:
    """The matrix of a networkx graph of either kind, and whether it is directed."""
    _require_networkx_graph(g, bool(getattr(g, "is_directed", lambda: False)()))
    if g.is_directed():
        return directed(g, weight, mode), True
    return undirected(g, weight, mode), False
