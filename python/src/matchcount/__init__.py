"""matchcount: exact permanents, hafnians and counts of perfect matchings and cycle covers.

The functions wrap matchcount's C++ library (the engines, planner and exactness rules of
the ``matchcount`` command): integer input gives an exact ``int``, exact fractions a
``fractions.Fraction``, floating-point input a ``float`` or ``complex``.

>>> import numpy as np, matchcount
>>> matchcount.permanent(np.ones((4, 4), dtype=int))
24
>>> matchcount.permanent([[0.5, 1], [1, 0.5]])
1.25
>>> import networkx as nx
>>> matchcount.perfect_matchings(nx.grid_2d_graph(4, 4))
36

See docs/python.md for more.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Callable, Dict, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _core
from ._core import BudgetExceeded, RefusedError
from ._estimate import Estimate
from ._matchings import hosoya_index, matching_polynomial, monomer_dimer
from ._photonic import (FAST_FLOATS as _FAST_FLOATS, hafnian_repeated, loop_torontonian, ltor,
                        nearly_symmetric as _nearly_symmetric, tor, torontonian)
from ._which import edge_probabilities, sample_perfect_matchings
from ._graphs import directed as _directed, graph_matrix as _graph_matrix, undirected as _undirected
from ._input import (check_options as _check_options, exact_mode as _exact_mode, interruptible as _interruptible,
                     memory_budget as _memory_budget, multiplicities as _multiplicities, time_cap as _time_cap,
                     to_matrix as _to_matrix)

__version__: str = _core.__version__
__all__ = ["permanent", "perm", "hafnian", "loop_hafnian", "LogCount", "hafnian_repeated", "torontonian", "loop_torontonian", "tor", "ltor",
           "hafnian_batch", "torontonian_batch", "loop_torontonian_batch", "perfect_matchings", "cycle_covers", "count", "estimate", "permanent_batch",
           "Estimate", "RefusedError", "BudgetExceeded", "engines", "built_with_cuda", "hosoya_index", "monomer_dimer",
           "matching_polynomial", "edge_probabilities", "sample_perfect_matchings", "__version__"]

Number = Union[int, Fraction, float, complex]
Progress = Optional[Callable[[float], Any]]
Size = Union[int, str, None]


class LogCount(NamedTuple):
    """A count given by its logarithm (log=True, the CLI's --log): sign * e^log, log10 = log / ln 10,
    error a bound on the error of log (the count's relative error is e^error - 1)."""
    sign: int
    log: float
    log10: float
    error: float

    @classmethod
    def of(cls, core: Any) -> "LogCount":
        """From the core's (sign, ln |count|, error)."""
        sign, ln, err = core
        return cls(sign, ln, ln / math.log(10) if sign else -math.inf, err)

_FAST_DTYPES = frozenset(np.dtype(t) for t in (np.float64, np.complex128, np.int64))
_FAST_MAX = 16  # the fast path is not interruptible: only where a count takes < ~1 ms
_FAST_HAFNIAN_MAX = 20  # hafnians' fast path likewise (the library's kernel takes up to 24)


def _run(matrix: Any, fmt: str, *, what: int = 0, graph: bool = False, device: str = "auto", engine: str = "auto",
         threads: int = 0, row_mult: Any = None, col_mult: Any = None, checkpoint: Optional[str] = None,
         checkpoint_every: float = 60.0, progress: Progress = None, progress_every: float = 0.5, details: int = 0,
         names: Sequence[str] = (), notes: Sequence[str] = (), max_memory: Size = None,
         max_seconds: Optional[float] = None, log: bool = False) -> Any:
    _check_options(device, engine, threads)
    if log and checkpoint is not None:
        raise ValueError("checkpoint applies to exact counts, not log=True (no logarithm is kept by a checkpoint)")
    budget, cap = _memory_budget(max_memory), _time_cap(max_seconds)
    if checkpoint is not None and details == 2:
        raise ValueError("checkpoint applies to exact counts, not explain")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable taking the fraction done (0..1)")
    out = _core.count(matrix, what, graph, device, engine, int(threads), _multiplicities(row_mult, "row_mult"),
                      _multiplicities(col_mult, "col_mult"), "" if checkpoint is None else str(checkpoint),
                      float(checkpoint_every), progress, float(progress_every), _interruptible(), details, fmt,
                      list(names), list(notes), budget, cap, bool(log))
    if details:
        return json.loads(out)
    if log:
        return LogCount.of(out)
    return out


def permanent(A: Any, *, exact: Optional[bool] = None, device: str = "auto", engine: str = "auto", threads: int = 0,
              row_mult: Optional[Sequence[int]] = None, col_mult: Optional[Sequence[int]] = None,
              checkpoint: Optional[str] = None, checkpoint_every: float = 60.0, progress: Progress = None,
              progress_every: float = 0.5, max_memory: Size = None, max_seconds: Optional[float] = None,
              log: bool = False) -> Any:
    """The permanent of a matrix: the sum over permutations s of prod_i A[i, s(i)].

    A: a 2-D numpy array (bool, int, uint, float32/64, complex64/128, or objects: Python ints,
    ``Fraction``, ``Decimal``, floats), anything ``np.asarray`` takes, or a scipy.sparse matrix.
    A rectangular m x n matrix gives the sum over injective maps from the shorter side into the
    longer one (the CLI's rule); the 0 x 0 matrix gives 1.

    exact: None (the CLI's rules: integers and integral floats give an exact ``int``, Fractions
    an exact ``Fraction``, other floats a ``float``, complex values a ``complex``); True reads
    non-integral floats as exact binary fractions (``--exact``); False gives a float even for
    integers. device: "auto", "cpu" or "gpu". engine: "auto" or a name from ``engines()``.
    threads: 0 for all cores. row_mult / col_mult: repeat row i row_mult[i] times (as
    thewalrus's ``permanent_repeated``). checkpoint: a file that saves progress now and then
    (every checkpoint_every seconds) and on Ctrl-C; the same call resumes from it.
    progress: called with the fraction done (0..1) at most every progress_every seconds, from
    a worker thread; an exception it raises stops the count and is raised here.
    max_memory: the memory budget (``--max-memory``): bytes as an int, or a size such as "200M",
    "8G", "1.5GiB"; "none" or 0 lifts it; None is the default, 3/4 of the memory available.
    Planning and engines predicted beyond it are refused. max_seconds: a time cap
    (``--max-seconds``; None or 0: none): a count predicted to take longer is refused at once,
    and one still running when it is reached stops (saving its checkpoint, if given).
    log: return the count as a ``LogCount`` (sign, natural logarithm, log10, error bound), as
    ``--log`` does: for counts far beyond double range (planar lattices by their log-determinant).

    Raises ValueError for bad input (NaN, ...) or a bad size, TypeError for unsupported types,
    BudgetExceeded (a RefusedError) when max_memory or max_seconds refuse or stop the count,
    RefusedError when it is otherwise out of reach, KeyboardInterrupt on Ctrl-C.

    >>> import numpy as np, matchcount
    >>> matchcount.permanent(np.arange(1, 10).reshape(3, 3))
    450
    >>> from fractions import Fraction
    >>> matchcount.permanent(np.array([[Fraction(1, 2), 1], [1, 1]], dtype=object))
    Fraction(3, 2)
    >>> matchcount.permanent(np.ones((2, 3), dtype=int))  # rectangular: 3 * 2 injective maps
    6
    >>> matchcount.permanent(np.ones((2, 2), dtype=int), row_mult=[2, 0])
    2
    """
    if (type(A) is np.ndarray and A.ndim == 2 and A.dtype in _FAST_DTYPES and A.shape[0] <= _FAST_MAX
            and A.shape[1] <= _FAST_MAX and exact is None and device == "auto" and engine == "auto"
            and type(threads) is int and threads >= 0 and row_mult is None and col_mult is None
            and checkpoint is None and progress is None and max_memory is None and max_seconds is None and not log):
        return _core.permanent_dense(A, 0, threads)  # the common case, with least overhead
    matrix, fmt = _to_matrix(A, exact)
    return _run(matrix, fmt, device=device, engine=engine, threads=threads, row_mult=row_mult, col_mult=col_mult,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, progress=progress,
                progress_every=progress_every, max_memory=max_memory, max_seconds=max_seconds, log=log)


def hafnian(A: Any, *, loop: bool = False, exact: Optional[bool] = None, device: str = "auto", engine: str = "auto",
            threads: int = 0, checkpoint: Optional[str] = None, checkpoint_every: float = 60.0,
            progress: Progress = None, progress_every: float = 0.5, max_memory: Size = None,
            max_seconds: Optional[float] = None, rtol: float = 1e-05, atol: float = 1e-08, log: bool = False) -> Any:
    """The hafnian of a symmetric matrix: the weighted number of perfect matchings of the graph
    whose adjacency matrix it is (the diagonal is ignored). With loop=True, the loop hafnian:
    the diagonal holds loop weights. Odd sizes give 0, the 0 x 0 matrix 1. Input types, exact
    and the other options as for ``permanent``; a matrix that is not square and symmetric is a
    ValueError naming the first entry whose mirror differs. A float NumPy matrix symmetric within
    np.allclose(A, A.T, rtol, atol) (thewalrus's defaults) is symmetrized first: a Gaussian
    state's B = U diag(tanh r) U^T is symmetric only to rounding.

    >>> import numpy as np, matchcount
    >>> matchcount.hafnian(np.ones((6, 6), dtype=int))  # 5 * 3 * 1 perfect matchings of K6
    15
    >>> matchcount.hafnian(np.ones((3, 3), dtype=int), loop=True)  # 3 edges + the 3 loops
    4
    """
    A = _nearly_symmetric(A, rtol, atol)
    if (type(A) is np.ndarray and A.ndim == 2 and A.dtype in _FAST_FLOATS and A.shape[0] <= _FAST_HAFNIAN_MAX
            and exact is None and device == "auto" and engine == "auto" and type(threads) is int and threads >= 0
            and checkpoint is None and progress is None and max_memory is None and max_seconds is None and not log):
        value = _core.hafnian_dense(A, bool(loop))  # floats of a small dense matrix: the walk alone
        if value is not None:
            return value
    matrix, fmt = _to_matrix(A, exact)
    return _run(matrix, fmt, what=2 if loop else 1, device=device, engine=engine, threads=threads,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, progress=progress,
                progress_every=progress_every, max_memory=max_memory, max_seconds=max_seconds, log=log)


def loop_hafnian(A: Any, **options: Any) -> Any:
    """The loop hafnian, thewalrus's name: ``hafnian(A, loop=True, ...)``."""
    return hafnian(A, loop=True, **options)


perm = permanent  # thewalrus's name


def perfect_matchings(G: Any, *, weight: Optional[str] = None, exact: Optional[bool] = None, device: str = "auto",
                      engine: str = "auto", threads: int = 0, checkpoint: Optional[str] = None,
                      checkpoint_every: float = 60.0, progress: Progress = None, progress_every: float = 0.5,
                      max_memory: Size = None, max_seconds: Optional[float] = None, log: bool = False) -> Any:
    """The number of perfect matchings of an undirected networkx graph (Graph or MultiGraph,
    whose parallel edges count separately), or their total weight with weight="attr" (an edge
    without the attribute weighs 1). A bipartite graph (its sides from the nodes' "bipartite"
    attribute when all have one, else by 2-colouring) is counted as the permanent of its
    biadjacency matrix, any other as a hafnian. Self-loops lie in no perfect matching. The
    other options (max_memory, max_seconds and log included) as for ``permanent``.

    >>> import networkx as nx, matchcount
    >>> matchcount.perfect_matchings(nx.grid_2d_graph(8, 8))  # dimer coverings of the 8 x 8 board
    12988816
    >>> matchcount.perfect_matchings(nx.petersen_graph())
    6
    """
    gm = _undirected(G, weight, _exact_mode(exact))
    return _run(gm.matrix, gm.format, what=1 if gm.hafnian else 0, graph=True, device=device, engine=engine,
                threads=threads, checkpoint=checkpoint, checkpoint_every=checkpoint_every, progress=progress,
                progress_every=progress_every, names=gm.names, notes=gm.notes, max_memory=max_memory,
                max_seconds=max_seconds, log=log)


def cycle_covers(D: Any, *, weight: Optional[str] = None, exact: Optional[bool] = None, device: str = "auto",
                 engine: str = "auto", threads: int = 0, checkpoint: Optional[str] = None,
                 checkpoint_every: float = 60.0, progress: Progress = None, progress_every: float = 0.5,
                 max_memory: Size = None, max_seconds: Optional[float] = None) -> Number:
    """The number of cycle covers of a networkx DiGraph (sets of vertex-disjoint directed
    cycles through every vertex; a self-loop is a cycle of length 1), or their total weight
    with weight="attr": the permanent of the adjacency matrix. The other options as for
    ``permanent``.

    >>> import networkx as nx, matchcount
    >>> matchcount.cycle_covers(nx.complete_graph(5, create_using=nx.DiGraph))  # derangements of 5
    44
    """
    gm = _directed(D, weight, _exact_mode(exact))
    return _run(gm.matrix, gm.format, graph=True, device=device, engine=engine, threads=threads,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, progress=progress,
                progress_every=progress_every, names=gm.names, max_memory=max_memory, max_seconds=max_seconds)


def count(obj: Any, *, hafnian: bool = False, loop: bool = False, weight: Optional[str] = None,
          details: bool = False, explain: bool = False, exact: Optional[bool] = None, device: str = "auto",
          engine: str = "auto", threads: int = 0, row_mult: Optional[Sequence[int]] = None,
          col_mult: Optional[Sequence[int]] = None, checkpoint: Optional[str] = None, checkpoint_every: float = 60.0,
          progress: Progress = None, progress_every: float = 0.5, max_memory: Size = None,
          max_seconds: Optional[float] = None) -> Union[Number, Dict[str, Any]]:
    """One entry point for every count, as the CLI reads its input: a networkx DiGraph gives
    its cycle covers, a Graph its perfect matchings, a matrix its permanent (its hafnian with
    hafnian=True, the loop hafnian with loop=True).

    details=True returns the record of ``matchcount --json`` as a dict: value (a string),
    value_kind, exact, the Dulmage-Mendelsohn blocks, Forbert-Marx reductions, engine runs with
    predicted and actual seconds, error bound (abs_error for floats), stage times, notes.
    explain=True plans without counting and returns the ``--explain --json`` record (its
    "memory" field holds the budget and the predicted bytes; max_seconds does not refuse a plan).
    The other options as for ``permanent``.

    >>> import numpy as np, matchcount
    >>> r = matchcount.count(np.ones((5, 5), dtype=int), details=True)
    >>> r["value"], r["exact"], r["engine_runs"][0]["engine"] is not None
    ('120', True, True)
    """
    mode = _exact_mode(exact)
    level = 2 if explain else 1 if details else 0
    opts = dict(device=device, engine=engine, threads=threads, checkpoint=checkpoint,
                checkpoint_every=checkpoint_every, progress=progress, progress_every=progress_every, details=level,
                max_memory=max_memory, max_seconds=max_seconds)
    if hasattr(obj, "is_directed") and hasattr(obj, "adj"):
        if row_mult is not None or col_mult is not None:
            raise ValueError("row_mult/col_mult repeat the lines of a matrix, not of a graph")
        gm, is_directed = _graph_matrix(obj, weight, mode)
        return _run(gm.matrix, gm.format, what=1 if gm.hafnian else 0, graph=True, names=gm.names, notes=gm.notes,
                    **opts)
    matrix, fmt = _to_matrix(obj, exact)
    if hafnian or loop:
        if row_mult is not None or col_mult is not None:
            # The CLI's words (apps/cli_main.cpp).
            raise ValueError("--row-mult/--col-mult repeat the lines of a permanent's matrix, not of a hafnian's")
        return _run(matrix, fmt, what=2 if loop else 1, **opts)
    return _run(matrix, fmt, row_mult=row_mult, col_mult=col_mult, **opts)


def estimate(obj: Any, *, hafnian: bool = False, weight: Optional[str] = None, method: str = "scaling+",
             samples: Optional[int] = None, rel_error: float = 0.01, max_seconds: float = 60.0,
             max_samples: int = 1_000_000_000, seed: int = 1, threads: int = 0, device: str = "auto",
             exact_up_to: int = 20, scale_interval: int = 0, scale_sweeps: int = 5, progress: Progress = None,
             progress_every: float = 0.5, max_memory: Size = None) -> Estimate:
    """An unbiased random estimate with error bars (``matchcount --estimate``) of the permanent
    of a nonnegative matrix, the hafnian of a nonnegative symmetric one (hafnian=True), or the
    perfect matchings of a networkx graph. Either a fixed number of samples per estimated block,
    or sampling until the relative standard error is below rel_error (capped by max_seconds and
    max_samples). Blocks of up to exact_up_to rows are counted exactly. The same seed, options
    and device give the same result. progress receives a dict (samples, rel_error, seconds, ...).
    max_memory (as for ``permanent``) bounds the blocks counted exactly: one whose exact count
    would not fit is sampled instead.

    >>> import numpy as np, matchcount
    >>> a = (np.random.default_rng(1).random((40, 40)) < 0.5).astype(float)
    >>> e = matchcount.estimate(a, samples=2000, seed=3)
    >>> e.ci[0] <= e.value <= e.ci[1], e.exact
    (True, False)
    >>> import math; e = matchcount.estimate(np.ones((40, 40)))  # cheap exactly: counted exactly
    >>> e.exact, e.exact_value == math.factorial(40)
    (True, True)
    """
    _check_options(device, "auto", threads)
    if samples is not None and (isinstance(samples, bool) or int(samples) < 1):
        raise ValueError(f"samples: must be a whole number >= 1, not '{samples}'")
    if not rel_error > 0:
        raise ValueError(f"rel_error: must be a number > 0, not '{rel_error}'")
    if not max_seconds >= 0:
        raise ValueError(f"max_seconds: must be a number >= 0, not '{max_seconds}'")
    budget = _memory_budget(max_memory)
    graph = False
    names_fmt = ""
    if hasattr(obj, "is_directed") and hasattr(obj, "adj"):
        gm, is_directed = _graph_matrix(obj, weight, 0)
        matrix, names_fmt, hafnian, graph = gm.matrix, gm.format, gm.hafnian, True
    else:
        matrix, names_fmt = _to_matrix(obj, None)
    d = _core.estimate(matrix, bool(hafnian), False, graph, method, int(samples or 0), float(rel_error),
                       float(max_seconds), int(max_samples), int(seed), int(threads), int(exact_up_to),
                       int(scale_interval), int(scale_sweeps), device, progress, float(progress_every),
                       _interruptible(), names_fmt, budget)
    return Estimate._from_core(d)


def _stack(As: Any) -> np.ndarray:
    a = np.asarray(As)
    if a.ndim != 3:
        raise ValueError(f"a stack of matrices has 3 dimensions (k, m, n), not {a.ndim}")
    return a


def _batch(a: np.ndarray, what: int, exact: Optional[bool], threads: int, device: str, engine: str,
           single: Callable[[Any], Any], rtol: float = 0.0, atol: float = 0.0, gammas: Any = None) -> np.ndarray:
    _check_options(device, engine, threads)
    mode = _exact_mode(exact)
    if a.dtype.kind == "O":  # Python numbers: one count each, exact where they are
        out = np.empty(a.shape[0], dtype=object)
        for i in range(a.shape[0]):
            out[i] = single(a[i])
        if mode == 1:
            return out
        return out.astype(complex if any(isinstance(v, complex) for v in out) else float)
    from ._input import _check_dtype
    _check_dtype(a.dtype)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    res = _core.batch(a, what, mode, int(threads), device, engine, _interruptible(), float(rtol), float(atol), gammas)
    if isinstance(res, np.ndarray):
        return res
    out = np.empty(len(res), dtype=object)
    out[:] = res
    return out


def permanent_batch(As: Any, *, exact: Optional[bool] = None, threads: int = 0, device: str = "auto",
                    engine: str = "auto") -> np.ndarray:
    """Permanents of a stack of matrices (shape (k, m, n), or a sequence of equal-shaped 2-D
    arrays), with threads across the matrices (one each). The result follows the input: a
    complex128 array for complex input (or values), else float64; exact=True gives an object
    array of the exact ints or Fractions instead. Ctrl-C stops the batch after the matrices under
    way. An error names the first matrix it concerns ("matrix 3: entry (row 1, column 2) is NaN:
    ...").

    >>> import numpy as np, matchcount
    >>> matchcount.permanent_batch(np.stack([np.eye(3), 2 * np.ones((3, 3))]))
    array([ 1., 48.])
    >>> matchcount.permanent_batch(np.stack([np.eye(3), 2 * np.ones((3, 3))]).astype(int), exact=True)
    array([1, 48], dtype=object)
    """
    return _batch(_stack(As), 0, exact, threads, device, engine,
                  lambda m: permanent(m, exact=exact, device=device, engine=engine, threads=threads))


def hafnian_batch(As: Any, *, loop: bool = False, exact: Optional[bool] = None, threads: int = 0,
                  device: str = "auto", engine: str = "auto", rtol: float = 1e-05, atol: float = 1e-08) -> np.ndarray:
    """Hafnians (loop hafnians with loop=True) of a stack of symmetric matrices, threads across
    them; dtypes, exact, Ctrl-C and errors as permanent_batch. Float matrices symmetric within
    rtol/atol (thewalrus's test) are symmetrized first.

    >>> import numpy as np, matchcount
    >>> matchcount.hafnian_batch(np.ones((2, 4, 4)))
    array([3., 3.])
    """
    # The module tests symmetry and symmetrises near matrices in the same pass as its other
    # looks at the stack: a pass of NumPy's would outlast a GPU batch.
    return _batch(_stack(As), 2 if loop else 1, exact, threads, device, engine,
                  lambda m: hafnian(m, loop=loop, exact=exact, device=device, engine=engine, threads=threads),
                  rtol, atol)


def torontonian_batch(Os: Any, *, threads: int = 0, device: str = "auto") -> np.ndarray:
    """Torontonians of a stack of 2n x 2n matrices (``tor`` of each), threads across them, or
    on a CUDA device (device="gpu", or by default for 256 matrices of up to 16 modes): a float64
    array, each value within its certified bound. A matrix whose bound cannot be met raises
    RefusedError naming it."""
    return _batch(_stack(Os).astype(complex) if np.iscomplexobj(Os) else _stack(Os).astype(float), 3, False,
                  threads, device, "auto", lambda m: torontonian(m, threads=threads))


def loop_torontonian_batch(Os: Any, gammas: Any, *, threads: int = 0, device: str = "auto") -> np.ndarray:
    """Loop torontonians (``ltor`` of each O with its gamma) of a stack of 2n x 2n matrices:
    gammas holds one row of 2n values a matrix (shape (k, 2n)), or 2n values for every matrix.
    Threads and the GPU as torontonian_batch; a float64 array, each value within its certified
    bound; a matrix whose bound cannot be met raises RefusedError naming it."""
    a = _stack(Os)
    g = np.asarray(gammas)
    if g.ndim == 1:
        g = np.broadcast_to(g, (a.shape[0], g.shape[0]))
    if g.ndim != 2 or g.shape != (a.shape[0], a.shape[1]):
        raise ValueError(f"gammas: {a.shape[0]} rows of {a.shape[1]} values (or {a.shape[1]} values) for "
                         f"{a.shape[0]} matrices of {a.shape[1]} x {a.shape[2]}, not shape {np.shape(gammas)}")
    g = np.ascontiguousarray(g, dtype=complex if np.iscomplexobj(g) else float)
    # Float or complex stacks only: _batch's one-at-a-time path for object arrays is not taken.
    return _batch(a.astype(complex) if np.iscomplexobj(a) else a.astype(float), 3, False, threads, device, "auto",
                  lambda m: None, gammas=g)


def engines() -> list:
    """The engine catalog (``matchcount --list-engines``) as a list of dicts."""
    return _core.engine_catalog()


def built_with_cuda() -> bool:
    """True when the library was compiled with its CUDA engines."""
    return _core.built_with_cuda()
