"""Stability of Compound TCP with VBS: the appendix of Pokhrel & Williamson.

Fluid model, eq. (23): ``dW/dt = (alpha W^(kappa-1) (1 - p) - beta W p)
W(t - RTT) / RTT`` with the loss of a VBS class's virtual drop-tail buffer,
eq. (21): ``p = (lambda / Theta)^(c h* B)``. Linearised about ``W*``,
eq. (24): ``dy/dt = -a y(t) - b y(t - RTT)`` with, in units of 1/RTT,

    a RTT = alpha W*^(kappa-1) (2 - kappa) (1 - p*)
    b RTT = alpha W*^(kappa-1) W* p'(W*) / p(W*) = alpha W*^(kappa-1) c h* B

(``W p'/p = c h* B`` because ``p ~ W^(c h* B)`` by eq. 21). The paper prints
``a`` with ``(k - 2)``; its eqs. (26), (27), (30) use ``(kappa - 2)(1 - p)``
inside ``cos^-1(.)`` where Result II has ``cos^-1(-a/b)``, so ``a`` is read
with ``(2 - kappa)`` (``a >= 0``, as Result I requires).

* Result I / eq. (25), sufficient: ``b RTT < pi/2``, i.e.
  ``c h* B alpha W*^(kappa-1) < pi/2``; eqs. (27)-(29) are its cases
  ``kappa = 0, 1, 0.75``.
* Result II / eq. (26), necessary and sufficient (``b > a >= 0``): stable
  iff ``RTT sqrt(b^2 - a^2) < cos^-1(-a/b)``; equality is the Hopf
  bifurcation, with period ``2 pi RTT / cos^-1(-a/b)``. For ``b <= a`` the
  equilibrium is stable for every delay.

`critical_c` solves the boundary for ``c``. `simulate_linear` integrates
eq. (24) (Euler steps of RTT/400 with the delayed term from the history),
the independent check of both conditions in tests/test_model_vbs_stability.py.
`fixed_point_starts` checks the appendix's claim that the fixed-point
iteration with VBS converges to one point from any start.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Optional

from .errors import ModelError, check_int, check_positive, check_prob

HALF_PI = math.pi / 2.0


@dataclass
class Stability:
    a_rtt: float
    b_rtt: float
    sufficient_lhs: float      # b RTT, eq. (25) asks < pi/2
    sufficient: bool
    stable: bool               # Result II, exact for the linearisation
    margin: float              # cos^-1(-a/b) - sqrt(b^2 - a^2) RTT (> 0: stable)
    period_rtt: Optional[float]  # limit-cycle period at the boundary, in RTTs


def coefficients(c: float, h_star: float, b_ap: float, w_star: float, *,
                 alpha: float = 0.125, kappa: float = 0.75, p_star: float = 0.0) -> tuple:
    """``(a RTT, b RTT)`` of eq. (24)."""
    c = check_positive("c", c)
    if c > 1.0:
        raise ModelError("c", f"must be in (0, 1], got {c!r}")
    h_star = check_prob("h_star", h_star)
    b_ap = check_positive("b_ap", b_ap)
    w_star = check_positive("w_star", w_star, minimum=1.0, strict=False)
    alpha = check_positive("alpha", alpha)
    if not (0.0 <= kappa < 2.0):
        raise ModelError("kappa", f"must be in [0, 2), got {kappa!r}")
    p_star = check_prob("p_star", p_star)
    g = alpha * w_star ** (kappa - 1.0)
    return g * (2.0 - kappa) * (1.0 - p_star), g * c * h_star * b_ap


def check(c: float, h_star: float, b_ap: float, w_star: float, *, alpha: float = 0.125,
          kappa: float = 0.75, p_star: float = 0.0) -> Stability:
    """Eq. (25) and eq. (26) for one operating point."""
    a, b = coefficients(c, h_star, b_ap, w_star, alpha=alpha, kappa=kappa, p_star=p_star)
    if b <= a:
        return Stability(a, b, b, b < HALF_PI, True, math.inf, None)
    ang = math.acos(-a / b)
    margin = ang - math.sqrt(b * b - a * a)
    return Stability(a, b, b, b < HALF_PI, margin > 0.0, margin, 2.0 * math.pi / ang)


def critical_c(h_star: float, b_ap: float, w_star: float, *, alpha: float = 0.125,
               kappa: float = 0.75, p_star: float = 0.0, exact: bool = True) -> float:
    """Largest ``c`` in (0, 1] for which the linearisation is stable (exact,
    eq. 26) or eq. (25) holds; 1.0 when every ``c`` is stable."""
    def ok(c: float) -> bool:
        s = check(c, h_star, b_ap, w_star, alpha=alpha, kappa=kappa, p_star=p_star)
        return s.stable if exact else s.sufficient

    if ok(1.0):
        return 1.0
    lo, hi = 1e-12, 1.0
    if not ok(lo):
        return 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def simulate_linear(a_rtt: float, b_rtt: float, *, rtts: float = 200.0,
                    steps_per_rtt: int = 400) -> float:
    """Integrate eq. (24) from ``y = 1`` (history 1) and return the ratio of
    the largest ``|y|`` over the last 20 RTTs to that over RTTs 20-40 (below
    1: decaying, stable; above 1: growing, unstable)."""
    check_positive("rtts", rtts, minimum=60.0, strict=False)
    steps_per_rtt = check_int("steps_per_rtt", steps_per_rtt, minimum=10)
    dt = 1.0 / steps_per_rtt
    n = int(rtts * steps_per_rtt)
    hist = [1.0] * (steps_per_rtt + 1)  # y(t - RTT) .. y(t)
    ys = []
    y = 1.0
    for _ in range(n):
        delayed = hist[-steps_per_rtt - 1]
        y = y + dt * (-a_rtt * y - b_rtt * delayed)
        hist.append(y)
        if len(hist) > 2 * steps_per_rtt + 2:
            del hist[:steps_per_rtt]
        ys.append(abs(y))
    early = max(ys[20 * steps_per_rtt:40 * steps_per_rtt])
    late = max(ys[-20 * steps_per_rtt:])
    return late / early if early > 0 else 0.0


def fixed_point_starts(classes, starts: int = 20, seed: int = 1, **kw) -> dict:
    """Solve `pokhrel.solve` (``qdisc="vbs"`` unless given) from ``starts``
    random initial points; return the spread of the solutions (the appendix:
    "the iterations always converge to the same solution irrespective of the
    initial point")."""
    from . import pokhrel

    kw.setdefault("qdisc", "vbs")
    rng = random.Random(seed)
    sols = []
    for _ in range(check_int("starts", starts, minimum=1)):
        raw = [rng.random() + 1e-3 for _ in classes]
        h0 = [x / sum(raw) for x in raw]
        b0 = [rng.uniform(1e-4, 0.2) for _ in classes]
        r = pokhrel.solve(classes, h0=h0, beta0=b0, beta_ap0=rng.uniform(1e-3, 0.2), **kw)
        sols.append(r.goodput_mbps)
    spread = max(max(s[k] for s in sols) - min(s[k] for s in sols)
                 for k in range(len(classes)))
    return {"starts": starts, "solutions": sols, "max_spread_mbps": spread}


# --------------------------------------------------------------------------
# Fig. 18 from simulation: class shares over time and reaction times

def class_series(result: dict, classes: dict) -> dict:
    """Per-class throughput series (Mbit/s per sample) from a run's flow
    ``series``; ``classes`` maps a class name to flow-name prefixes."""
    out: dict = {}
    for cname, prefixes in classes.items():
        acc: dict = {}
        for f in result.get("flows") or []:
            if any(f["name"].startswith(p) for p in prefixes):
                for t, v in f.get("series") or []:
                    k = round(t, 6)
                    acc[k] = acc.get(k, 0.0) + v
        out[cname] = sorted(acc.items())
    return out


def reaction_times(result: dict, classes: dict, events: list, *, smooth_s: int = 10,
                   band: float = 0.05, tail_s: float = 30.0) -> list:
    """For each event time ``t_e`` (seconds, ascending), the time from
    ``t_e`` until the ``smooth_s``-sample moving average of the first class's
    throughput share enters and stays within ``band`` of that phase's final
    level (its mean share over the last ``tail_s`` seconds before the next
    event or the end). Returns dicts with the event, the phase's level and
    the reaction time (None if it never settles)."""
    ser = class_series(result, classes)
    names = list(classes)
    times = [t for t, _ in ser[names[0]]]
    tot = [sum(dict(ser[c]).get(t, 0.0) for c in names) for t in times]
    share = [(dict(ser[names[0]]).get(t, 0.0) / x) if x > 0 else 0.0 for t, x in zip(times, tot)]
    ma = []
    for k in range(len(share)):
        w = share[max(0, k - smooth_s + 1):k + 1]
        ma.append(sum(w) / len(w))
    end = times[-1] if times else 0.0
    out = []
    for n, te in enumerate(events):
        stop = events[n + 1] if n + 1 < len(events) else end
        tail = [s for t, s in zip(times, share) if stop - tail_s < t <= stop]
        level = sum(tail) / len(tail) if tail else None
        react = None
        if level is not None:
            idx = [k for k, t in enumerate(times) if te < t <= stop]
            for k in idx:
                if all(abs(ma[j] - level) <= band for j in idx if j >= k):
                    react = times[k] - te
                    break
        out.append({"event_s": te, "until_s": stop, "share_level": level, "reaction_s": react})
    return out


FIG18_CLASSES = {"class1": ("c1/", "c1join/"), "class2": ("c2/", "c2leave/")}


def fig18(result: dict, **kw) -> list:
    """`reaction_times` for scenarios/pokhrel-join-leave.toml: events at the
    two departures' mean completion time and at the join (150 s)."""
    done = [f["tcp"]["completion_s"] for f in result.get("flows") or []
            if f["name"].startswith("c2leave/") and (f.get("tcp") or {}).get("completion_s")]
    ev = ([sum(done) / len(done)] if done else []) + [150.0]
    return reaction_times(result, FIG18_CLASSES, ev, **kw)


def main(argv=None) -> int:
    """``python -m wifitcp.models.vbs_stability --fig18 RUNS.jsonl``."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m wifitcp.models.vbs_stability")
    ap.add_argument("--fig18", metavar="RUNS.jsonl", required=True,
                    help="`wifitcp run scenarios/pokhrel-join-leave.toml --no-store --json` output")
    args = ap.parse_args(argv)
    with open(args.fig18) as fh:
        for line in fh:
            r = json.loads(line)
            p = r.get("params") or {}
            label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in p.items() if k != "ap.qdisc.shares")
            parts = []
            for e in fig18(r):
                rt = "never" if e["reaction_s"] is None else f"{e['reaction_s']:.0f} s"
                parts.append(f"t={e['event_s']:.0f}s: share1 -> {e['share_level']:.3f} in {rt}")
            print(f"{label}: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
