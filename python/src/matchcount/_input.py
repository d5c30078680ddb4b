"""Turning numpy arrays, scipy.sparse matrices and networkx graphs into the library's
matrices, with the CLI's rules and messages (its NumPy reader, src/io/npy.cpp)."""
from __future__ import annotations

import decimal
import math
import threading
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core

_SUPPORTED = "(integers i1..i8 and u1..u8, bool b1, floats f4 f8, complex c8 c16)"
_DEVICES = ("auto", "cpu", "gpu")


def exact_mode(exact: Optional[bool]) -> int:
    """None: the CLI's rules; True: exact fractions (--exact); False: floating point."""
    if exact is None:
        return 0
    if exact is True:
        return 1
    if exact is False:
        return 2
    raise TypeError(f"exact must be None, True or False, not {exact!r}")


def entry(i: int, j: int, what: str) -> str:
    return f"entry (row {i + 1}, column {j + 1}) {what}"


def check_options(device: str, engine: str, threads: int) -> None:
    if device not in _DEVICES:
        raise ValueError(f"device: '{device}' is not one of auto, cpu, gpu")
    if engine != "auto" and engine not in _core.engine_names():
        names = ", ".join(["auto"] + list(_core.engine_names()))
        raise ValueError(f"engine: '{engine}' is not one of {names}")
    if isinstance(threads, bool) or not isinstance(threads, Integral) or threads < 0:
        raise ValueError(f"threads: must be a whole number >= 0, not '{threads}'")


def memory_budget(max_memory: Union[int, str, None]) -> float:
    """max_memory as the library's CountOptions::max_memory: 0.0 for the default (3/4 of the
    memory available), inf for no budget ("none" or 0, as the CLI's --max-memory), else bytes.
    Sizes are read by the CLI's parser, so "200M", "8G", "1.5GiB", "512 KB", "1e9" mean the same."""
    if max_memory is None:
        return 0.0
    if isinstance(max_memory, str):
        size = 0.0 if max_memory == "none" else _core.parse_memory_size(max_memory)
        if size is None:
            raise ValueError("max_memory: must be a size such as 200M, 8G or 1.5GiB (none or 0: no budget), "
                             f"not {max_memory!r}")
        return size if size > 0 else math.inf
    if isinstance(max_memory, bool) or not isinstance(max_memory, Integral):
        raise TypeError(f"max_memory must be an int (bytes), a size such as '8G', or None, not "
                        f"{type(max_memory).__name__}")
    if max_memory < 0:
        raise ValueError(f"max_memory: must be a number of bytes >= 0 (0: no budget), not {max_memory}")
    return float(max_memory) if max_memory > 0 else math.inf


def time_cap(max_seconds: Optional[float]) -> float:
    """max_seconds as CountOptions::max_seconds: 0.0 for none (None, 0 or inf), else seconds."""
    if max_seconds is None:
        return 0.0
    if isinstance(max_seconds, bool) or not isinstance(max_seconds, Real):
        raise TypeError(f"max_seconds must be a number of seconds or None, not {type(max_seconds).__name__}")
    if not max_seconds >= 0:
        raise ValueError(f"max_seconds: must be a number >= 0 (0 or None: no cap), not {max_seconds!r}")
    return 0.0 if math.isinf(max_seconds) else float(max_seconds)


def multiplicities(mult: Any, name: str) -> str:
    """The CLI's "1,0,2" text; its parser (parse_multiplicities) judges the items."""
    if mult is None:
        return ""
    if isinstance(mult, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of non-negative integers, not a string")
    items = [str(x) for x in np.asarray(mult).ravel().tolist()]
    return ",".join(items) if items else " "


def interruptible() -> bool:
    """Ctrl-C can be caught only where Python's handler runs: the main thread."""
    return threading.current_thread() is threading.main_thread()


def _is_sparse(a: Any) -> bool:
    return type(a).__module__.startswith("scipy.sparse") and hasattr(a, "tocoo")


def _is_graph(a: Any) -> bool:
    return hasattr(a, "is_directed") and hasattr(a, "adj")


def _classify(value: Any, i: int, j: int) -> Tuple[str, Any]:
    """An object entry as ('int' | 'frac' | 'float' | 'complex', value)."""
    if isinstance(value, (bool, np.bool_)):
        return "int", int(value)
    if isinstance(value, Integral):
        return "int", int(value)
    if isinstance(value, Fraction):
        return "frac", value
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(entry(i, j, ("is NaN" if value.is_nan() else "is infinite")
                                   + ": only finite values can be counted"))
        return "frac", Fraction(value)
    if isinstance(value, (float, np.floating)):
        return "float", float(value)
    if isinstance(value, (complex, np.complexfloating)):
        return "complex", complex(value)
    if isinstance(value, Rational):  # numbers.Rational: SymPy's Rational, gmpy2's mpq, ...
        return "frac", Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, Real):  # numbers.Real: SymPy's Float, gmpy2's mpfr, ... (to the nearest double)
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(entry(i, j, ("is NaN" if math.isnan(x) else "is infinite")
                                   + ": only finite values can be counted"))
        return "float", x
    raise TypeError(entry(i, j, f"is a {type(value).__name__}, not a number"))


def from_entries(rows: int, cols: int, r: Sequence[int], c: Sequence[int], values: List[Any],
                 mode: int) -> "_core.Matrix":
    """Coordinates with Python values (object arrays, graph weights): duplicates are summed."""
    ri = np.asarray(r, dtype=np.int64).reshape(-1)
    ci = np.asarray(c, dtype=np.int64).reshape(-1)
    kinds = set()
    typed = []
    for k, v in enumerate(values):
        kind, x = _classify(v, int(ri[k]), int(ci[k]))
        kinds.add(kind)
        typed.append(x)
    if "complex" in kinds or ("float" in kinds and mode != 1):
        dtype = np.complex128 if "complex" in kinds else np.float64
        arr = np.array([complex(x) if dtype is np.complex128 else float(x) for x in typed], dtype=dtype)
        return _core.from_coo(rows, cols, ri, ci, arr, mode)
    if "float" in kinds or "frac" in kinds:  # exact: floats are exact binary fractions
        fr = [Fraction(x) for x in typed]
        return _core.from_coo_big(rows, cols, ri, ci, [q.numerator for q in fr], [q.denominator for q in fr], mode)
    if all(-(1 << 63) <= x < (1 << 63) for x in typed):
        return _core.from_coo(rows, cols, ri, ci, np.array(typed, dtype=np.int64), mode)
    return _core.from_coo_big(rows, cols, ri, ci, typed, None, mode)


def _check_dtype(dtype: np.dtype) -> None:
    kind, size = dtype.kind, dtype.itemsize
    ok = (kind == "b" or (kind in "iu" and size in (1, 2, 4, 8)) or (kind == "f" and size in (4, 8))
          or (kind == "c" and size in (8, 16)))
    if not ok:
        raise TypeError(f"unsupported dtype '{dtype.str}' {_SUPPORTED}")


def _dense(a: np.ndarray, mode: int) -> "_core.Matrix":
    if a.dtype.kind == "O":
        nz = np.nonzero(a != 0)
        rows, cols = (int(x) for x in a.shape)
        return from_entries(rows, cols, nz[0], nz[1], list(a[nz]), mode)
    _check_dtype(a.dtype)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return _core.from_dense(a, mode)


def to_matrix(a: Any, exact: Optional[bool], what: str = "matrix") -> Tuple["_core.Matrix", str]:
    """A numpy-like or scipy.sparse matrix as a core Matrix, and its format for records."""
    m, fmt = _to_matrix(a, exact, what)
    if exact is True and m.kind == "complex":
        raise ValueError("exact=True: complex values have no exact count here (they are counted in double "
                         "precision with an error bound); leave exact unset for complex input")
    return m, fmt


def _to_matrix(a: Any, exact: Optional[bool], what: str) -> Tuple["_core.Matrix", str]:
    mode = exact_mode(exact)
    if _is_graph(a):
        raise TypeError(f"a networkx graph is not a {what}: use perfect_matchings(G) or cycle_covers(D)")
    if _is_sparse(a):
        coo = a.tocoo()
        rows, cols = (int(x) for x in coo.shape)
        data = np.asarray(coo.data)
        r, c = coo.row.astype(np.int64), coo.col.astype(np.int64)
        fmt = f"scipy.sparse {type(a).__name__} {data.dtype.name}"
        if data.dtype.kind == "O":
            return from_entries(rows, cols, r, c, list(data), mode), fmt
        _check_dtype(data.dtype)
        if data.dtype.kind == "b" or not data.dtype.isnative:
            data = data.astype(np.int64 if data.dtype.kind == "b" else data.dtype.newbyteorder("="))
        return _core.from_coo(rows, cols, r, c, data, mode), fmt
    try:
        arr = np.asarray(a)
    except (ValueError, TypeError) as e:  # ragged lists
        raise ValueError(f"not a matrix: {e}") from None
    if arr.ndim != 2:
        shape = "(" + ", ".join(str(d) for d in arr.shape) + ("," if arr.ndim == 1 else "") + ")"
        raise ValueError(f"shape {shape} has {arr.ndim} dimensions; a matrix has 2")
    return _dense(arr, mode), f"NumPy array {arr.dtype.name}"
