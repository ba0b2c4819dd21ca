"""Plain-text tables for the terminal."""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Optional, Sequence


def fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.{digits}f}"
    if isinstance(v, str):
        return v
    return json.dumps(v)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]],
          align: Optional[str] = None) -> str:
    """Columns padded to width; ``align`` is a string of 'l'/'r' per column."""
    cells = [[fmt(c) if not isinstance(c, str) else c for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    align = align or "l" * len(headers)

    def line(r: Sequence[str]) -> str:
        out = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(r, widths, align)]
        return "  ".join(out).rstrip()

    return "\n".join([line(list(headers)), line(["-" * w for w in widths])]
                     + [line(r) for r in cells])


def params_label(params: dict) -> str:
    """``k=v`` pairs with values as written in TOML/JSON (54.0, "802.11a")."""
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                    for k, v in params.items()) or "-"


def jain(values: Sequence[float]) -> Optional[float]:
    """Jain's fairness index (sum x)^2 / (n sum x^2)."""
    xs = [float(v) for v in values if v is not None]
    sq = sum(x * x for x in xs)
    if not xs or sq == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def flows_summary(flows: Sequence[dict], all_flows: bool = False, limit: int = 8) -> str:
    """Per-flow goodput (Mbit/s); summarised when there are many flows."""
    goodputs = [f.get("goodput_mbps") for f in flows]
    if not flows:
        return "no flows"
    if all_flows or len(flows) <= limit:
        return "  ".join(f"{f.get('name', i)}={fmt(f.get('goodput_mbps'))}"
                         for i, f in enumerate(flows))
    xs = sorted(float(g) for g in goodputs if g is not None)
    if not xs:
        return f"{len(flows)} flows"
    med = xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])
    return (f"{len(flows)} flows: min={fmt(xs[0])} median={fmt(med)} max={fmt(xs[-1])} "
            f"jain={fmt(jain(xs))}  (--flows lists all)")


def runs_table(outcomes: Sequence[Any], all_flows: bool = False) -> str:
    """Per run: params, seed, aggregate Mbit/s, collision p, then flows."""
    headers = ["run", "params", "seed", "Mbit/s", "MSDU Mbit/s", "p_coll", "events", "wall s"]
    lines = []
    rows = []
    for o in outcomes:
        r = o.result or {}
        rows.append([str(o.spec.index), params_label(o.spec.params), str(o.spec.seed),
                     fmt(r.get("aggregate_mbps")), fmt(r.get("aggregate_msdu_mbps")),
                     fmt(r.get("collision_probability"), 4), fmt(r.get("events")),
                     fmt(o.wall_time_s, 2)])
    text = table(headers, rows, "rlrrrrrr").split("\n")
    lines.extend(text[:2])
    for o, row_text in zip(outcomes, text[2:]):
        lines.append(row_text)
        if o.error:
            lines.append(f"      error: {o.error}")
        else:
            lines.append("      flows (goodput Mbit/s): "
                         + flows_summary((o.result or {}).get("flows") or [], all_flows))
    return "\n".join(lines)


def configs_table(outcomes: Sequence[Any]) -> str:
    """One line per configuration (sweep point): means over its seeds."""
    groups: dict = {}
    for o in outcomes:
        groups.setdefault(params_label(o.spec.params), []).append(o)

    def mean(xs: list) -> Optional[float]:
        xs = [float(x) for x in xs if isinstance(x, (int, float)) and not isinstance(x, bool)]
        return sum(xs) / len(xs) if xs else None

    rows = []
    for label, os_ in groups.items():
        ok = [o.result or {} for o in os_ if o.ok]
        rows.append([label, str(len(ok)), str(len(os_) - len(ok)),
                     fmt(mean([r.get("aggregate_mbps") for r in ok])),
                     fmt(mean([r.get("jain_index") for r in ok])),
                     fmt(mean([r.get("collision_probability") for r in ok]), 4),
                     fmt(mean([o.wall_time_s for o in os_]), 2)])
    return table(["params", "runs", "failed", "Mbit/s", "jain", "p_coll", "wall s"], rows,
                 "lrrrrrr")
