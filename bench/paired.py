"""The summary of a paired comparison (`ab-engine`, `dense-cli`): the
median of the per-pair ratios with its quartiles, each quartile the
element at that fraction of the sorted ratios."""
from __future__ import annotations

import statistics


def quartiles(v: list) -> tuple:
    """(median, lower quartile, upper quartile) of `v`."""
    s = sorted(v)
    q = lambda f: s[min(len(s) - 1, int(f * len(s)))]  # noqa: E731
    return statistics.median(s), q(0.25), q(0.75)
