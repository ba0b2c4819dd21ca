"""Small statistics for campaign summaries: mean and 95 % confidence interval.

The interval is Student's t: mean +- t(0.975, n-1) * sd / sqrt(n), sd the
sample standard deviation (n - 1), i.e. it assumes the per-seed values are
independent and roughly normal. The 0.975 quantiles are tabulated for
1..30 degrees of freedom (Student's t tables, 4 significant digits) and
interpolated in 1/df above, reaching the normal 1.960 as df grows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
_T975_TAIL = [(40, 2.021), (60, 2.000), (120, 1.980), (math.inf, 1.960)]


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= 30:
        return _T975[df - 1]
    lo_df, lo_t = 30, _T975[-1]
    for hi_df, hi_t in _T975_TAIL:
        if df <= hi_df:
            if hi_df == math.inf:
                w = (1 / lo_df - 1 / df) / (1 / lo_df)
            else:
                w = (1 / lo_df - 1 / df) / (1 / lo_df - 1 / hi_df)
            return lo_t + w * (hi_t - lo_t)
        lo_df, lo_t = hi_df, hi_t
    return 1.960  # pragma: no cover


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
