"""The result of estimate(): an unbiased random estimate with its error bars."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Dict, List, Optional, Tuple, Union


@dataclass(frozen=True)
class Estimate:
    """An estimate of a permanent, hafnian or count of perfect matchings.

    ``value`` is a float (``inf`` beyond the double range: see ``log10`` and ``text``);
    ``std_error`` its standard error; ``ci`` the 95% normal confidence interval; ``samples``
    the samples drawn; ``target_met`` whether the requested relative error was reached (and
    no heavy tail was seen). Inputs that are cheap to count exactly are counted exactly:
    then ``exact`` is true and ``exact_value`` holds the count.

    >>> import numpy as np, matchcount
    >>> e = matchcount.estimate(np.ones((30, 30)), samples=1000, seed=1)
    >>> e.ci[0] <= e.value <= e.ci[1]
    True
    """

    value: float
    std_error: float
    rel_std_error: float
    ci: Tuple[float, float]
    samples: int
    zero_samples: int
    target_met: bool
    exact: bool
    exact_value: Optional[Union[int, Fraction, float]]
    heavy_tail: bool
    method: str
    seconds: float
    log10: float
    text: str
    notes: List[str] = field(default_factory=list)
    record: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def _from_core(cls, d: Dict[str, Any]) -> "Estimate":
        value, ci = d["value"], (d["ci_low"], d["ci_high"])
        if d["exact"] and d["exact_value"] is not None:
            try:  # the exact count, as near as a float gets
                value = float(d["exact_value"].real if isinstance(d["exact_value"], complex) else d["exact_value"])
            except OverflowError:
                value = math.inf
            ci = (value, value)  # the library's bounds are its own rounding of the count
        rel = d["rel_std_error"]
        return cls(value=value, std_error=value * rel if math.isfinite(value) else math.inf, rel_std_error=rel,
                   ci=ci, samples=d["samples"], zero_samples=d["zero_samples"],
                   target_met=d["target_met"], exact=d["exact"], exact_value=d["exact_value"],
                   heavy_tail=d["heavy_tail"], method=d["method"], seconds=d["seconds"], log10=d["log10"],
                   text=d["text"], notes=list(d["notes"]), record=json.loads(d["json"]))

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        if self.exact:
            return f"{self.text} (exact)"
        return f"{self.text} ± {self.rel_std_error:.2%} (95% CI {self.ci[0]:.6g} .. {self.ci[1]:.6g})"
