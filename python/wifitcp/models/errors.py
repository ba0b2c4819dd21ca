"""The one error type the analytical models raise for bad input.

``ModelError`` is a ``ValueError`` whose ``param`` names the offending
parameter (dotted where it sits inside a structure, e.g. ``classes[1].p_w``);
its message starts with that name. A fixed point that does not converge
raises it too, naming the iteration parameter (``max_iter``) and the
residual reached.
"""

from __future__ import annotations

import math


class ModelError(ValueError):
    """A parameter outside a model's domain, or a solve that failed."""

    def __init__(self, param: str, reason: str):
        super().__init__(f"{param}: {reason}")
        self.param = param
        self.reason = reason


def check_prob(name: str, v: float, *, open_top: bool = False) -> float:
    """``v`` in [0, 1] (or [0, 1) with ``open_top``), finite."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ModelError(name, f"must be a number, got {v!r}") from None
    top_ok = x < 1.0 if open_top else x <= 1.0
    if not (math.isfinite(x) and x >= 0.0 and top_ok):
        rng = "[0, 1)" if open_top else "[0, 1]"
        raise ModelError(name, f"must be a probability in {rng}, got {v!r}")
    return x


def check_positive(name: str, v: float, *, minimum: float = 0.0, strict: bool = True) -> float:
    """``v > minimum`` (``>=`` when not strict), finite."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ModelError(name, f"must be a number, got {v!r}") from None
    ok = x > minimum if strict else x >= minimum
    if not (math.isfinite(x) and ok):
        rel = ">" if strict else ">="
        raise ModelError(name, f"must be {rel} {minimum:g}, got {v!r}")
    return x


def check_int(name: str, v, *, minimum: int) -> int:
    """An integer ``>= minimum`` (bools refused)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or float(v) != int(v):
        raise ModelError(name, f"must be an integer, got {v!r}")
    if int(v) < minimum:
        raise ModelError(name, f"must be >= {minimum}, got {v!r}")
    return int(v)
