"""Small statistics for campaign summaries: mean and 95 % confidence interval.

The interval is Student's t: mean +- t(0.975, n-1) * sd / sqrt(n), sd the
sample standard deviation (n - 1), i.e. it assumes the per-seed values are
independent and roughly normal. The quantile is scipy's exact one
(`scipy.stats.t.ppf`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Optional, Sequence


@functools.lru_cache(maxsize=256)
def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("df must be >= 1")
    from scipy.stats import t

    return float(t.ppf(0.975, df))


@dataclass
class Summary:
    n: int
    mean: float
    sd: Optional[float]       # None for n = 1
    half: Optional[float]     # CI half-width; None for n = 1

    @property
    def lo(self) -> Optional[float]:
        return None if self.half is None else self.mean - self.half

    @property
    def hi(self) -> Optional[float]:
        return None if self.half is None else self.mean + self.half


def summarise(values: Sequence[float]) -> Summary:
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(xs) / n
    if n == 1:
        return Summary(1, mean, None, None)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return Summary(n, mean, sd, t975(n - 1) * sd / math.sqrt(n))
