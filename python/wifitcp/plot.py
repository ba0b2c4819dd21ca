"""``wifitcp plot``: a metric against a swept parameter, mean and 95 % CI.

From a results store: the runs of one scenario (or all), the latest run of
each (configuration, seed). ``x`` and ``by`` name a swept parameter (a
dotted path of ``params``), any configuration path (``mac.cw_min``), or the
run columns ``seed`` / ``scenario``; ``y`` names a numeric column of
``runs`` or any numeric value of the core's result by dotted path
(``jain_index``, ``queues[0].mean_len``). One line per value of ``by``;
each point is the mean over the runs sharing (by, x) (the seeds) with its
95 % Student-t confidence interval (`wifitcp.stats`).

Runs sharing (by, x) must be the same configuration: if they differ in
something else the command says in what, and ``--where PATH=VALUE`` picks
one value (or ``--by`` separates them). Figures are drawn with matplotlib's
object API (no pyplot state, no display needed) as PNG and SVG, with fixed
metadata so equal data give equal files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from .errors import InputError
from .scenario import get_path, parse_value, split_path
from .stats import Summary, summarise
from .store import Store

RUN_COLUMNS = ("seed", "scenario", "version")
FORMATS = ("png", "svg")

_LATEST = """
SELECT run_id, scenario, scenario_hash, seed, version, params, config_json, created_at,
       {yexpr} AS y
FROM (SELECT *, row_number() OVER (PARTITION BY scenario_hash, seed
                                   ORDER BY run_id DESC) AS k_
      FROM runs {where}) WHERE k_ = 1 ORDER BY run_id
"""


@dataclass
class Point:
    x: Any
    stats: Summary
    run_ids: list


@dataclass
class Line:
    label: Any                      # the ``by`` value (None without --by)
    points: list = field(default_factory=list)


@dataclass
class Selection:
    """The runs behind a figure and their summary."""

    store: str
    x: str
    y: str
    by: Optional[str]
    scenarios: list
    rows: list                      # dicts: run_id, seed, params, x, by, y, ...
    lines: list                     # [Line]
    categorical: bool

    @property
    def n_runs(self) -> int:
        return len(self.rows)


def json_path(path: str) -> str:
    """``queues[0].mean_len`` -> ``$."queues"[0]."mean_len"`` (DuckDB JSON path)."""
    out = "$"
    for part in split_path(path):
        out += f"[{part}]" if isinstance(part, int) else '."' + part.replace('"', '\\"') + '"'
    return out


def parse_where(items: Sequence[str]) -> dict:
    out = {}
    for text in items:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InputError("--where", "", f"expected PATH=VALUE, got {text!r}")
        out[key.strip()] = parse_value(value.strip())
    return out


def _value(row: dict, path: str) -> Any:
    if "," in path:  # several paths (--by kind,mode): the values present, joined
        vals = [_value(row, p.strip()) for p in path.split(",")]
        vals = [_label(v) for v in vals if v is not None]
        return " ".join(vals) if vals else None
    if path in RUN_COLUMNS:
        return row[path]
    params = row["params"]
    if path in params:
        return params[path]
    return get_path(row["config"], path)


def _flatten(node: Any, prefix: str = "") -> dict:
    out = {}
    if isinstance(node, dict):
        for k, v in node.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.update(_flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = node
    return out


def _differences(configs: list) -> list:
    flat = [_flatten(c) for c in configs]
    keys = sorted(set().union(*flat))
    return [k for k in keys if len({json.dumps(f.get(k)) for f in flat}) > 1]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _label(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def select(store_path: str, x: str, y: str, by: Optional[str] = None,
           scenario: Optional[str] = None, where: Optional[dict] = None) -> Selection:
    """The runs of a store behind one figure, grouped and summarised."""
    if not Path(store_path).is_file():
        raise InputError(store_path, "", "no such results store")
    for opt, path in (("--x", x), ("--y", y), ("--by", by)):
        if not path:
            continue
        for part in path.split(",") if opt == "--by" else [path]:
            try:
                split_path(part)
            except ValueError as e:
                raise InputError(opt, "", str(e)) from None
    try:
        st = Store(store_path, read_only=True)
    except Exception as e:
        raise InputError(store_path, "", f"not a results store: "
                         f"{str(e).splitlines()[0]}") from None
    try:
        cols = {r["column_name"]: r["data_type"] for r in st.query(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'runs'")}
        if y in cols and cols[y] not in ("JSON", "VARCHAR", "TIMESTAMP"):
            yexpr = f'CAST("{y}" AS VARCHAR)'
        else:
            yexpr = f"json_extract(result_json, '{json_path(y)}')::VARCHAR"
        cond, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        raw = st.query(_LATEST.format(yexpr=yexpr, where=cond), args)
        sample = None
        if raw:
            sample = st.query("SELECT result_json FROM runs WHERE run_id = ?",
                              [raw[0]["run_id"]])[0]["result_json"]
        names = sorted({r["scenario"] for r in st.query("SELECT DISTINCT scenario FROM runs")})
    finally:
        st.close()
    if not raw:
        what = f"scenario {scenario!r}" if scenario else "any scenario"
        raise InputError(store_path, "", f"no runs of {what} (scenarios here: "
                         f"{', '.join(names) or 'none'})")
    rows = []
    for r in raw:
        row = dict(r)
        row["params"] = json.loads(r["params"]) if isinstance(r["params"], str) else r["params"]
        row["config"] = json.loads(r["config_json"]) if isinstance(r["config_json"], str) \
            else r["config_json"]
        yv = json.loads(r["y"]) if r["y"] is not None else None
        if isinstance(yv, str):
            try:
                yv = float(yv)
            except ValueError:
                pass
        row["yv"] = yv
        rows.append(row)
    _check_y(rows, y, sample, store_path)
    where = where or {}
    for path, want in where.items():
        rows = [r for r in rows if _value(r, path) == want]
        if not rows:
            raise InputError("--where", path, f"no run has {path} = {_label(want)}")
    for r in rows:
        r["xv"] = _value(r, x)
        r["byv"] = _value(r, by) if by else None
        if r["xv"] is None:
            raise InputError("--x", x, f"not a parameter, configuration path or run column "
                             f"(params here: {', '.join(sorted(r['params'])) or 'none'})")
        if by and r["byv"] is None:
            raise InputError("--by", by, "not a parameter, configuration path or run column "
                             f"(params here: {', '.join(sorted(r['params'])) or 'none'})")
    rows = [r for r in rows if _is_number(r["yv"])]
    lines, categorical = _group(rows, x, by, store_path)
    return Selection(store_path, x, y, by, sorted({r["scenario"] for r in rows}), rows, lines,
                     categorical)


def _check_y(rows: list, y: str, sample: Optional[str], store_path: str) -> None:
    if any(_is_number(r["yv"]) for r in rows):
        return
    keys = []
    if sample:
        res = json.loads(sample)
        keys = [k for k, v in _flatten(res).items()
                if _is_number(v) and not re.search(r"\[\d+\]\[", k)
                and not re.search(r"\[(?:[1-9]\d*)\]", k)]
    hint = f" (numeric values of a result: {', '.join(keys[:40])})" if keys else ""
    raise InputError("--y", y, f"no run of {store_path} has a number there{hint}")


def _group(rows: list, x: str, by: Optional[str], store_path: str) -> tuple[list, bool]:
    groups: dict = {}
    order_by: list = []
    order_x: list = []
    for r in rows:
        bk, xk = json.dumps(r["byv"]), json.dumps(r["xv"])
        if bk not in groups:
            groups[bk] = {}
            order_by.append(bk)
        if xk not in order_x:
            order_x.append(xk)
        groups[bk].setdefault(xk, []).append(r)
    categorical = not all(_is_number(json.loads(k)) for k in order_x)
    if not categorical:
        order_x.sort(key=lambda k: json.loads(k))
    lines = []
    for bk in order_by:
        line = Line(json.loads(bk))
        for xk in order_x:
            runs = groups[bk].get(xk)
            if not runs:
                continue
            hashes = {r["scenario_hash"] for r in runs}
            if len(hashes) > 1:
                configs = [next(r["config"] for r in runs if r["scenario_hash"] == h)
                           for h in sorted(hashes)]
                diff = _differences(configs)
                at = f"{x}={_label(json.loads(xk))}" + (
                    f", {by}={_label(json.loads(bk))}" if by else "")
                raise InputError(
                    store_path, "", f"the runs at {at} are {len(hashes)} different "
                    f"configurations (they differ in {', '.join(diff[:6]) or 'nothing'}): "
                    f"choose one with --where PATH=VALUE (or --scenario), or separate them "
                    f"with --by")
            line.points.append(Point(json.loads(xk), summarise([r["yv"] for r in runs]),
                                     [r["run_id"] for r in runs]))
        lines.append(line)
    return lines, categorical


# --------------------------------------------------------------------------
# drawing

def default_prefix(store_path: str, x: str, y: str, by: Optional[str]) -> str:
    def slug(s: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")

    p = Path(store_path)
    name = f"{p.stem}-{slug(y)}-vs-{slug(x)}" + (f"-by-{slug(by)}" if by else "")
    return str(p.with_name(name))


def draw(sel: Selection, prefix: str, formats: Sequence[str] = FORMATS,
         title: Optional[str] = None, xlabel: Optional[str] = None,
         ylabel: Optional[str] = None) -> list:
    """Draw the selection; write ``prefix.<fmt>`` for each format; return the paths."""
    from matplotlib.figure import Figure

    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "wifitcp"
    fig = Figure(figsize=(6.4, 4.4), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    xs_cat: list = []
    if sel.categorical:
        for line in sel.lines:
            for p in line.points:
                if p.x not in xs_cat:
                    xs_cat.append(p.x)
    seeds = sorted({p.stats.n for line in sel.lines for p in line.points})
    for i, line in enumerate(sel.lines):
        xs = [xs_cat.index(p.x) if sel.categorical else p.x for p in line.points]
        means = [p.stats.mean for p in line.points]
        band = [clipped_interval(sel.y, p.stats) for p in line.points]
        lows = [m if lo is None else lo for m, (lo, _) in zip(means, band)]
        highs = [m if hi is None else hi for m, (_, hi) in zip(means, band)]
        err = [[m - lo for m, lo in zip(means, lows)], [hi - m for m, hi in zip(means, highs)]]
        label = _label(line.label) if sel.by else sel.y
        color = f"C{i % 10}"
        ax.errorbar(xs, means, yerr=err, marker="o", ms=4, capsize=3, lw=1.5,
                    color=color, label=label)
        if any(h > lo for lo, h in zip(lows, highs)) and len(xs) > 1:
            ax.fill_between(xs, lows, highs, color=color, alpha=0.15, lw=0)
    if sel.categorical:
        ax.set_xticks(range(len(xs_cat)), [_label(v) for v in xs_cat])
    ax.set_xlabel(xlabel or sel.x)
    ax.set_ylabel(ylabel or sel.y)
    n_text = "/".join(str(n) for n in seeds)
    ax.set_title(title or f"{', '.join(sel.scenarios)}: {sel.y} vs {sel.x}", fontsize=10)
    ax.grid(True, alpha=0.3)
    if sel.by:
        ax.legend(title=sel.by, fontsize=8, title_fontsize=8)
    fig.text(0.99, 0.01, f"mean and 95 % CI over {n_text} runs per point"
             + ("" if metric_range(sel.y) == (float("-inf"), float("inf"))
                else " (clipped to the metric's range)"),
             ha="right", va="bottom", fontsize=7, color="0.4")
    fig.tight_layout()
    Path(prefix).parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = f"{prefix}.{fmt}"
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(path, format=fmt, metadata=meta)
        paths.append(path)
    return paths


#: Metrics with a known range, by the last part of their name: the t
#: interval is clipped to it (a Jain index of 1.0 in two seeds and 0.9 in a
#: third gives 0.967 +- 0.143, but the index never exceeds 1).
_UNIT_RANGE = re.compile(r"(jain|probability|share|fraction)")
_NON_NEGATIVE = re.compile(r"(mbps|bytes|packets|_s$|_ms$|count|events|len|drops|dropped|"
                           r"retries|attempts|timeouts|successes|failures|collisions|"
                           r"enqueued|dequeued|generated|delivered)")


def metric_range(y: str) -> tuple[float, float]:
    """The range a metric's values can take, as far as its name tells."""
    last = y.split(".")[-1].lower()
    if _UNIT_RANGE.search(last):
        return 0.0, 1.0
    if _NON_NEGATIVE.search(last):
        return 0.0, float("inf")
    return float("-inf"), float("inf")


def clipped_interval(y: str, st: Summary) -> tuple[Optional[float], Optional[float]]:
    """The 95 % interval of `st`, clipped to the range of metric `y`."""
    if st.half is None:
        return None, None
    lo, hi = metric_range(y)
    return max(st.mean - st.half, lo), min(st.mean + st.half, hi)


def table_rows(sel: Selection) -> list:
    """[by, x, n, mean, ci95 low, ci95 high] per point (clipped to the
    metric's range, see `metric_range`)."""
    out = []
    for line in sel.lines:
        for p in line.points:
            lo, hi = clipped_interval(sel.y, p.stats)
            out.append([_label(line.label) if sel.by else "-", _label(p.x), p.stats.n,
                        p.stats.mean, lo, hi])
    return out


def render(sel: Selection) -> str:
    from .report import fmt, table

    rows = [[b, x, str(n), fmt(m, 4), fmt(lo, 4), fmt(hi, 4)]
            for b, x, n, m, lo, hi in table_rows(sel)]
    return table([sel.by or "by", sel.x, "n", f"mean {sel.y}", "ci95 low", "ci95 high"],
                 rows, "lrrrrr")


def check_formats(text: str) -> list:
    out = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in out if f not in FORMATS]
    if bad or not out:
        raise InputError("--format", "", f"expected png, svg or png,svg, got {text!r}")
    return out


def strip_ext(prefix: str) -> str:
    for ext in FORMATS:
        if prefix.lower().endswith("." + ext):
            return prefix[: -len(ext) - 1]
    return prefix

