"""``wifitcp plot``: a metric against a parameter, its CDF, or time series.

From a results store: the runs of one scenario (or all), the latest run of
each (configuration, seed). Three kinds of figure:

- **x-y** (``--x PATH --y METRIC``): ``x`` and ``by`` name a swept
  parameter (a dotted path of ``params``), any configuration path
  (``mac.cw_min``), or the run columns ``seed`` / ``scenario``; ``y`` names a
  numeric column of ``runs`` or any numeric value of the core's result by
  dotted path (``jain_index``, ``queues[0].mean_len``). One line per value
  of ``by``; each point is the mean over the runs sharing (by, x) (the
  seeds) with its 95 % Student-t confidence interval (`wifitcp.stats`).
  Numeric x values make a numeric axis, any other (``ap.qdisc.kind``) a
  categorical one, in order of first appearance.
- **CDF** (``--cdf --y METRIC``): the empirical distribution of ``y`` over
  the selected runs (or flows), one step line per value of ``by``. With
  ``--y delay_histogram`` it is the distribution of the packets' one-way
  delays (ms) of the selected flows, from the histograms stored with each
  run (counts of equal buckets summed over runs and flows; ``--by flow``
  for one line per flow): exact at bucket bounds, linear inside a bucket.
  ``--y rtt_histogram`` does the same with the round-trip times of ping
  flows (``ping.rtt_histogram``).
- **time series** (``--series [flows|queues|cwnd]``): the flows' delivered
  Mbit/s per sample interval, the queues' occupancy or the senders' cwnd
  (``[tcp] trace_cwnd``) against time, one line per flow (node), mean over
  the selected runs at each time with its 95 % interval.

``--flow PATTERN`` (shell wildcards, repeatable) selects flows by name
(``up/sta3``, ``'tcp/*'``); with it ``y`` is a value of each flow
(``goodput_mbps``, ``mean_delay_ms``, ``tcp.srtt_ms``) and every selected
flow of every run is one sample; ``--by flow`` draws one line per flow.

Runs sharing (by, x) must be the same configuration: if they differ in
something else the command says in what, and ``--where PATH=VALUE`` picks
one value (or ``--by`` separates them). Grouping is a polars group-by over
integer codes of the distinct values. Figures are drawn with matplotlib's
object API (no pyplot state, no display needed) as PNG and SVG, with fixed
metadata so equal data give equal files.
"""

from __future__ import annotations

import fnmatch
import functools
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
    values: list = field(default_factory=list)   # a CDF's sorted samples
    buckets: list = field(default_factory=list)  # a histogram CDF: (lower, upper, count)


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
    mode: str = "xy"                # xy, cdf or series
    models: list = field(default_factory=list)   # [(line index, label, xs, ys)]
    flows: list = field(default_factory=list)    # the --flow patterns

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
    if path == "flow":
        return row.get("flow")
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


MODES = ("xy", "cdf", "series")
SERIES = {"flows": ("flows", "series", "name", "Mbit/s"),
          "queues": ("queues", "series", "node", "packets"),
          "cwnd": ("flows", "tcp.cwnd_trace", "name", "cwnd bytes")}


def select(store_path: str, x: Optional[str], y: Optional[str], by: Optional[str] = None,
           scenario: Optional[str] = None, where: Optional[dict] = None,
           flows: Sequence[str] = (), mode: str = "xy", series: str = "flows") -> Selection:
    """The runs of a store behind one figure, grouped and summarised.

    ``mode``: ``"xy"`` (needs x and y), ``"cdf"`` (y) or ``"series"``
    (``series``: flows, queues or cwnd); ``flows``: name patterns.
    """
    if str(store_path).endswith(".parquet"):
        return _trace_rtt_cdf(store_path, y, mode, list(flows))
    if not Path(store_path).is_file():
        raise InputError(store_path, "", "no such results store")
    if mode == "series" and series not in SERIES:
        raise InputError("--series", "", f"expected flows, queues or cwnd, got {series!r}")
    for opt, path in (("--x", x), ("--y", y), ("--by", by)):
        if not path:
            continue
        for part in path.split(",") if opt == "--by" else [path]:
            try:
                split_path(part)
            except ValueError as e:
                raise InputError(opt, "", str(e)) from None
    if mode != "xy" or flows or "flow" in (x, by):
        sel = _select_samples(store_path, x, y, by, scenario, where or {}, list(flows),
                              mode, series)
        sel.flows = list(flows)
        return sel
    try:
        st = Store(store_path, read_only=True)
    except Exception as e:
        raise InputError(store_path, "", f"not a results store: "
                         f"{str(e).splitlines()[0]}") from None
    try:
        cols = {r["column_name"]: r["data_type"] for r in st.query(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'runs'")}
        if derived_metric(y):
            yexpr = "result_json"
        elif y in cols and cols[y] not in ("JSON", "VARCHAR", "TIMESTAMP"):
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
        if derived_metric(y):
            yv = derived_value(y, yv or {}, row["config"])
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


#: Metrics derived from a run's result and configuration (not one stored
#: number), for the figures the models predict (`wifitcp.models.overlay`):
#:
#: - ``class_goodput_mbps[K]``: the goodput summed over the flows whose
#:   station (source or destination) is in ``channel.classes[K].stations``
#:   (Pokhrel's per-class throughput, Figs. 3, 11, 15-17);
#: - ``ap_failure_probability``: the AP's failed data-frame attempts per
#:   attempt (``f_ap``, Fig. 9);
#: - ``ap_discard_probability``: the AP's retry-limit discards per frame it
#:   started (attempts - retries; ``p_d``, Fig. 10);
#: - ``ap_buffer_loss_probability``: the AP WLAN queue's ``queue_full``
#:   drops per packet offered (``p_b``, Fig. 13).
DERIVED = ("class_goodput_mbps[K]", "ap_failure_probability", "ap_discard_probability",
           "ap_buffer_loss_probability")
_CLASS_Y = re.compile(r"^class_goodput_mbps\[(\d+)\]$")


def derived_metric(y: Optional[str]) -> bool:
    return bool(y) and (y in DERIVED[1:] or _CLASS_Y.match(y) is not None)


def _ap(items: list, key: str) -> Optional[dict]:
    return next((s for s in items or [] if isinstance(s, dict) and s.get(key) == "ap"), None)


def derived_value(y: str, result: dict, config: dict) -> Optional[float]:
    """The value of a `DERIVED` metric for one run (None where it has none)."""
    m = _CLASS_Y.match(y)
    if m:
        classes = get_path(config, "channel.classes") or []
        k = int(m.group(1))
        if k >= len(classes):
            return None
        names = set(classes[k].get("stations") or [])
        flows = [f for f in result.get("flows") or []
                 if f.get("src") in names or f.get("dst") in names]
        return sum(float(f.get("goodput_mbps") or 0.0) for f in flows) if flows else None
    if y == "ap_buffer_loss_probability":
        q = next((q for q in result.get("queues") or []
                  if q.get("node") == "ap" and q.get("iface") == "wlan"), None)
        if not q or not q.get("enqueued"):
            return None
        return (q.get("dropped") or {}).get("queue_full", 0) / q["enqueued"]
    ap = _ap(result.get("stations"), "name")
    if not ap or not ap.get("attempts"):
        return None
    if y == "ap_failure_probability":
        return ap.get("failures", 0) / ap["attempts"]
    started = max(ap["attempts"] - ap.get("retries", 0), 1)
    return (ap.get("drops") or {}).get("retry_limit", 0) / started


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


def _codes(values: list) -> tuple[list, list]:
    """(codes, distinct): each value's index among the distinct values
    (compared by value and type, so 1 and "1" or 1 and True stay apart)."""
    distinct: list = []
    index: dict = {}
    codes = []
    for v in values:
        key = (type(v).__name__, repr(v))
        if key not in index:
            index[key] = len(distinct)
            distinct.append(v)
        codes.append(index[key])
    return codes, distinct


def _group(rows: list, x: str, by: Optional[str], store_path: str) -> tuple[list, bool]:
    """Lines of points: a polars group-by of the samples over (by, x) codes."""
    import polars as pl

    bcodes, bvals = _codes([r["byv"] for r in rows])
    xcodes, xvals = _codes([r["xv"] for r in rows])
    hcodes, _ = _codes([r["scenario_hash"] for r in rows])
    df = pl.DataFrame({"b": bcodes, "x": xcodes, "h": hcodes,
                       "y": [float(r["yv"]) for r in rows],
                       "run_id": [r["run_id"] for r in rows],
                       "row": list(range(len(rows)))})
    groups = df.group_by(["b", "x"], maintain_order=True).agg(
        pl.col("y"), pl.col("run_id"), pl.col("h").n_unique().alias("configs"),
        pl.col("row"))
    categorical = not all(_is_number(v) for v in xvals)
    x_order = list(range(len(xvals))) if categorical else \
        sorted(range(len(xvals)), key=lambda i: xvals[i])
    rank = {c: i for i, c in enumerate(x_order)}
    lines = [Line(v) for v in bvals]
    for g in sorted(groups.iter_rows(named=True), key=lambda g: (g["b"], rank[g["x"]])):
        if g["configs"] > 1:
            runs = [rows[i] for i in g["row"]]
            hashes = sorted({r["scenario_hash"] for r in runs})
            configs = [next(r["config"] for r in runs if r["scenario_hash"] == h)
                       for h in hashes]
            diff = _differences(configs)
            at = f"{x}={_label(xvals[g['x']])}" + (
                f", {by}={_label(bvals[g['b']])}" if by else "")
            raise InputError(
                store_path, "", f"the runs at {at} are {len(hashes)} different "
                f"configurations (they differ in {', '.join(diff[:6]) or 'nothing'}): "
                f"choose one with --where PATH=VALUE (or --scenario), or separate them "
                f"with --by")
        lines[g["b"]].points.append(Point(xvals[g["x"]], summarise(g["y"]), g["run_id"]))
    return lines, categorical


# --------------------------------------------------------------------------
# CDFs, time series and per-flow values

def _read_runs(store_path: str, scenario: Optional[str]) -> list:
    """The latest run of each (configuration, seed), whole results parsed."""
    try:
        st = Store(store_path, read_only=True)
    except Exception as e:
        raise InputError(store_path, "", f"not a results store: "
                         f"{str(e).splitlines()[0]}") from None
    try:
        cond, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        raw = st.query(_LATEST.format(yexpr="result_json", where=cond), args)
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
        row["result"] = json.loads(r["y"]) if isinstance(r["y"], str) else (r["y"] or {})
        rows.append(row)
    return rows


def _pick_flows(items: list, patterns: list, key: str) -> list:
    if not patterns:
        return items
    return [f for f in items if isinstance(f, dict)
            and any(fnmatch.fnmatchcase(str(f.get(key)), p) for p in patterns)]


def _select_samples(store_path: str, x: Optional[str], y: Optional[str], by: Optional[str],
                    scenario: Optional[str], where: dict, patterns: list, mode: str,
                    series: str) -> Selection:
    runs = _read_runs(store_path, scenario)
    for path, want in where.items():
        runs = [r for r in runs if _value(r, path) == want]
        if not runs:
            raise InputError("--where", path, f"no run has {path} = {_label(want)}")
    by_flow = by == "flow"
    if mode == "series":
        table, field_, key, unit = SERIES[series]
        samples = []
        for r in runs:
            items = r["result"].get(table) or []
            for it in _pick_flows(items, patterns, key):
                for point in get_path(it, field_) or []:
                    samples.append({**r, "flow": it.get(key), "xv": point[0], "yv": point[1],
                                    "byv": _series_label(r, by, it.get(key))})
        if not samples:
            raise InputError("--series", series, "no selected run has such a time series"
                             + (f" for --flow {' '.join(patterns)}" if patterns else "")
                             + (" (tcp.cwnd_trace needs [tcp] trace_cwnd = true)"
                                if series == "cwnd" else ""))
        samples = [s for s in samples if _is_number(s["yv"])]
        lines, _ = _group_series(samples, store_path)
        return Selection(store_path, "t_s", f"{series} ({unit})", by or key, _names(runs),
                         samples, lines, False, mode="series")
    if not y:
        raise InputError("--y", "", "required (the metric)")
    if mode == "cdf" and y in HISTOGRAMS:
        return _histogram_cdf(store_path, runs, by, patterns, y)
    samples = []
    for r in runs:
        if patterns or by_flow or x == "flow":
            flows = _pick_flows(r["result"].get("flows") or [], patterns or ["*"], "name")
            for f in flows:
                samples.append({**r, "flow": f.get("name"), "yv": get_path(f, y)})
        else:
            samples.append({**r, "flow": None, "yv": get_path(r["result"], y,
                                                                r.get(y) if y in r else None)})
    if patterns and not samples:
        names = sorted({f.get("name") for r in runs for f in r["result"].get("flows") or []
                        if isinstance(f, dict)})
        raise InputError("--flow", " ".join(patterns), "no flow has such a name (flows here: "
                         f"{', '.join(map(str, names[:20]))})")
    if not any(_is_number(s["yv"]) for s in samples):
        what = "flow" if (patterns or by_flow or x == "flow") else "run"
        raise InputError("--y", y, f"no selected {what} of {store_path} has a number there")
    for s in samples:
        s["byv"] = s["flow"] if by_flow else (_value(s, by) if by else None)
        if by and s["byv"] is None:
            raise InputError("--by", by, "not a parameter, configuration path or run column")
        if mode == "xy":
            s["xv"] = _value(s, x)
            if s["xv"] is None:
                raise InputError("--x", x, "not a parameter, configuration path or run column")
    samples = [s for s in samples if _is_number(s["yv"])]
    if mode == "cdf":
        import polars as pl

        codes, labels = _codes([s["byv"] for s in samples])
        df = pl.DataFrame({"b": codes, "y": [float(s["yv"]) for s in samples]})
        lines = []
        for g in df.group_by("b", maintain_order=True).agg(pl.col("y").sort()).iter_rows(
                named=True):
            lines.append(Line(labels[g["b"]], values=g["y"]))
        return Selection(store_path, y, y, by, _names(runs), samples, lines, False, mode="cdf")
    lines, categorical = _group(samples, x, by, store_path)
    return Selection(store_path, x, y, by, _names(runs), samples, lines, categorical)


#: what a per-packet trace (``packets.parquet``) gives: ``--cdf --y tcp_rtt_ms``
TRACE_RTT = "tcp_rtt_ms"


def _trace_rtt_cdf(path: str, y: Optional[str], mode: str, patterns: list) -> Selection:
    """The CDF of the per-segment TCP RTTs of the selected flows of one
    run's per-packet trace (`wifitcp.tcprtt`), one line per flow."""
    from .tcprtt import rtt_samples

    if mode != "cdf" or y != TRACE_RTT:
        raise InputError("--y", y or "", f"a per-packet trace gives --cdf --y {TRACE_RTT} "
                         "(the TCP round-trip time of each segment)")
    found = rtt_samples(path, patterns or ["*"])
    lines = [Line(name, values=sorted(v)) for name, v in sorted(found.items()) if v]
    if not lines:
        raise InputError(path, "", "no TCP segment with an RTT sample"
                         + (f" in the flows {' '.join(patterns)}" if patterns else ""))
    return Selection(path, TRACE_RTT, TRACE_RTT, "flow", [Path(path).parent.name], [], lines,
                     False, mode="cdf", flows=patterns)


#: a flow's stored delay histogram: ``[lower_ms, upper_ms, count]`` per bucket
HISTOGRAM = "delay_histogram"
#: the histograms ``--cdf --y`` accepts: name -> (path in a flow, axis label)
HISTOGRAMS = {
    HISTOGRAM: (HISTOGRAM, "one-way delay (ms)"),
    "rtt_histogram": ("ping.rtt_histogram", "round-trip time (ms)"),
}


def _histogram_cdf(store_path: str, runs: list, by: Optional[str], patterns: list,
                   y: str = HISTOGRAM) -> Selection:
    """One line per ``by`` value (``flow`` or a run value), from the summed
    counts of the selected flows' histograms ``y`` (one of HISTOGRAMS)."""
    path, axis = HISTOGRAMS[y]
    samples, groups = [], {}
    for r in runs:
        for f in _pick_flows(r["result"].get("flows") or [], patterns or ["*"], "name"):
            hist = get_path(f, path)
            if not isinstance(hist, list):
                continue
            s = {**r, "flow": f.get("name")}
            s["byv"] = s["flow"] if by == "flow" else (_value(s, by) if by else None)
            if by and s["byv"] is None:
                raise InputError("--by", by, "not a parameter, configuration path or run column")
            samples.append(s)
            g = groups.setdefault(json.dumps(s["byv"], sort_keys=True, default=str),
                                  (s["byv"], {}))[1]
            for lo, hi, n in hist:
                g[(lo, hi)] = g.get((lo, hi), 0) + n
    lines = [Line(label, buckets=[(lo, hi, n) for (lo, hi), n in sorted(b.items())])
             for label, b in groups.values() if b]
    if not lines:
        what = "delivered packets with a delay histogram" if y == HISTOGRAM else \
            "echo replies with a round-trip histogram (a ping flow)"
        raise InputError("--y", y, f"no selected flow has {what}"
                         + (f" (--flow {' '.join(patterns)})" if patterns else ""))
    return Selection(store_path, axis, y, by, _names(runs), samples,
                     lines, False, mode="cdf")


def _histogram_points(buckets: list) -> tuple[list, list]:
    """The CDF's corners: 0 at the first lower bound, the cumulative share
    at each bucket's upper bound, flat across gaps between buckets."""
    total = sum(n for _, _, n in buckets)
    xs, ys, seen = [buckets[0][0]], [0.0], 0
    for lo, hi, n in buckets:
        if lo > xs[-1]:
            xs.append(lo)
            ys.append(seen / total)
        seen += n
        xs.append(hi)
        ys.append(seen / total)
    return xs, ys


def _histogram_quantile(buckets: list, q: float) -> float:
    """Linear inside the bucket where the cumulative share reaches q."""
    xs, ys = _histogram_points(buckets)
    for k in range(1, len(xs)):
        if ys[k] >= q and ys[k] > ys[k - 1]:
            return xs[k - 1] + (xs[k] - xs[k - 1]) * (q - ys[k - 1]) / (ys[k] - ys[k - 1])
    return xs[-1]


def _names(rows: list) -> list:
    return sorted({r["scenario"] for r in rows})


def _series_label(run: dict, by: Optional[str], name: Any) -> Any:
    if not by or by in ("flow", "node"):
        return name
    return f"{_label(_value(run, by))} {name}"


def _group_series(samples: list, store_path: str) -> tuple[list, bool]:
    """One line per label; per time the mean over runs and its 95 % CI."""
    import polars as pl

    codes, labels = _codes([s["byv"] for s in samples])
    hcodes, _ = _codes([s["scenario_hash"] for s in samples])
    df = pl.DataFrame({"b": codes, "t": [float(s["xv"]) for s in samples],
                       "y": [float(s["yv"]) for s in samples], "h": hcodes,
                       "run_id": [s["run_id"] for s in samples],
                       "row": list(range(len(samples)))})
    mixed = df.group_by("b").agg(pl.col("h").n_unique().alias("n"), pl.col("row").first()) \
        .filter(pl.col("n") > 1)
    if mixed.height:
        runs = [s for s in samples if s["byv"] == labels[mixed["b"][0]]]
        hashes = sorted({r["scenario_hash"] for r in runs})
        configs = [next(r["config"] for r in runs if r["scenario_hash"] == h) for h in hashes]
        diff = _differences(configs)
        raise InputError(store_path, "", f"the runs behind {_label(labels[mixed['b'][0]])} are "
                         f"{len(hashes)} different configurations (they differ in "
                         f"{', '.join(diff[:6]) or 'nothing'}): choose one with "
                         f"--where PATH=VALUE (or --scenario), or separate them with --by")
    lines = [Line(v) for v in labels]
    for g in df.group_by(["b", "t"], maintain_order=True).agg(
            pl.col("y"), pl.col("run_id")).sort(["b", "t"]).iter_rows(named=True):
        lines[g["b"]].points.append(Point(g["t"], summarise(g["y"]), g["run_id"]))
    return lines, False


# --------------------------------------------------------------------------
# drawing

def default_prefix(store_path: str, x: Optional[str], y: Optional[str], by: Optional[str],
                   mode: str = "xy", series: str = "flows") -> str:
    def slug(s: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")

    p = Path(store_path)
    if mode == "series":
        name = f"{p.stem}-{series}-series"
    elif mode == "cdf":
        name = f"{p.stem}-{slug(y or '')}-cdf"
    else:
        name = f"{p.stem}-{slug(y or '')}-vs-{slug(x or '')}"
    name += f"-by-{slug(by)}" if by else ""
    return str(p.with_name(name))


#: Names and units of the result values people plot most, by the last part
#: of their path (any other value: its path, with the unit its suffix names).
RESULT_LABELS = {
    "aggregate_mbps": ("aggregate goodput", "Mbit/s"),
    "aggregate_msdu_mbps": ("aggregate MSDU throughput", "Mbit/s"),
    "goodput_mbps": ("goodput", "Mbit/s"),
    "jain_index": ("Jain's fairness index", ""),
    "collision_probability": ("collision probability", ""),
    "mean_delay_ms": ("mean one-way delay", "ms"),
    "srtt_ms": ("smoothed RTT", "ms"),
    "mean_len": ("mean queue length", "packets"),
    "max_len": ("longest queue", "packets"),
    "events": ("events", ""),
    "wall_time_s": ("wall time", "s"),
    "seed": ("seed", ""),
}
#: The unit a name's suffix states.
_SUFFIX_UNITS = (("_mbps", "Mbit/s"), ("_kbps", "kbit/s"), ("_ms", "ms"), ("_us", "us"), ("_s", "s"),
                 ("_bytes", "bytes"), ("_packets", "packets"), ("_dbm", "dBm"), ("_dbi", "dBi"),
                 ("_db", "dB"), ("_hz", "Hz"), ("_mhz", "MHz"), ("_ghz", "GHz"), ("_m", "m"),
                 ("_w", "W"), ("_tu", "TU"))


def axis_label(path: Optional[str]) -> str:
    """``name (unit)`` for an axis: a result value's name from
    `RESULT_LABELS`, a scenario key's unit from the core's schema, else
    the unit its suffix names; the path itself when nothing is known."""
    if not path:
        return ""
    last = re.sub(r"\[\d+\]", "", path.split(".")[-1])
    if last in RESULT_LABELS:
        name, unit = RESULT_LABELS[last]
        return f"{name} ({unit})" if unit else name
    unit = _schema_unit(path)
    if unit is None:
        unit = next((u for suf, u in _SUFFIX_UNITS if last.endswith(suf)), "")
    return f"{path} ({unit})" if unit else path


def _schema_unit(path: str) -> Optional[str]:
    """The unit the core's schema gives the scenario key ``path`` (array
    indices dropped), None if it is not a key or the core is not built."""
    return _schema_units().get(re.sub(r"\[\d+\]", "", path))


@functools.lru_cache(maxsize=1)
def _schema_units() -> dict:
    """Every scenario key's unit ("" if it has none), from the core's schema
    (read once); empty if the core is not built."""
    try:
        from . import core
        rows = core.schema()
    except Exception:
        return {}
    return {r.get("key"): r.get("unit") or "" for r in rows}


def _integer_axis(values: Sequence[Any]) -> bool:
    """Whether every value is a whole number (ticks at integers only)."""
    vs = [v for v in values if _is_number(v)]
    return bool(vs) and all(float(v).is_integer() for v in vs)


def draw(sel: Selection, prefix: str, formats: Sequence[str] = FORMATS,
         title: Optional[str] = None, xlabel: Optional[str] = None,
         ylabel: Optional[str] = None, box: bool = False) -> list:
    """Draw the selection; write ``prefix.<fmt>`` for each format; return
    the paths. ``box``: an x-y selection as box plots of the samples at
    each x (one box per line) instead of means and intervals."""
    from matplotlib.figure import Figure

    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "wifitcp"
    fig = Figure(figsize=(6.4, 4.4), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    from matplotlib.ticker import MaxNLocator

    if sel.mode == "cdf":
        note = _draw_cdf(ax, sel)
    elif sel.mode == "series":
        note = _draw_series(ax, sel)
    elif box:
        note = _draw_box(ax, sel)
    else:
        note = _draw_xy(ax, sel)
    cdf_of = sel.x if sel.y in HISTOGRAMS else sel.y
    ax.set_xlabel(xlabel or ("time (s)" if sel.mode == "series"
                             else "TCP round-trip time per segment (ms)" if sel.y == TRACE_RTT
                             else "delay (ms)" if sel.y == HISTOGRAM
                             else "round-trip time (ms)" if sel.y in HISTOGRAMS
                             else axis_label(cdf_of) if sel.mode == "cdf" else axis_label(sel.x)))
    ax.set_ylabel(ylabel or ("fraction of packets <= value" if sel.y in HISTOGRAMS
                             else "fraction of segments <= value" if sel.y == TRACE_RTT
                             else "fraction of samples <= value" if sel.mode == "cdf"
                             else axis_label(sel.y)))
    if sel.mode == "xy" and not sel.categorical and \
            _integer_axis([p.x for line in sel.lines for p in line.points]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    flows = f" of flow {', '.join(sel.flows)}" if sel.flows else ""
    what = {"xy": f"{sel.y} vs {sel.x}{flows}",
            "cdf": f"CDF of {cdf_of}{flows}",
            "series": f"{sel.y} over time{flows}"}[sel.mode]
    ax.set_title(title or f"{', '.join(sel.scenarios)}: {what}", fontsize=10)
    ax.grid(True, alpha=0.3)
    if sel.by or len(sel.lines) > 1 or sel.models:
        _legend_outside(fig, ax, title=sel.by, fontsize=8, title_fontsize=8)
    fig.text(0.99, 0.01, note, ha="right", va="bottom", fontsize=7, color="0.4")
    return _save(fig, prefix, formats)


def _legend_outside(fig, ax, **kw) -> None:
    """The legend to the right of the axes, never over a curve; the figure
    widened by the legend's width so that the axes keep their size."""
    leg = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    w = leg.get_window_extent(FigureCanvasAgg(fig).get_renderer()).width / fig.dpi
    fig.set_size_inches(fig.get_figwidth() + w + 0.2, fig.get_figheight())


def _save(fig, prefix: str, formats: Sequence[str]) -> list:
    """Lay out `fig` and write PREFIX.FMT for each format (no dates or
    software versions in the files, so they are reproducible); the paths."""
    fig.tight_layout()
    Path(prefix).parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = f"{prefix}.{fmt}"
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(path, format=fmt, metadata=meta)
        paths.append(path)
    return paths


def draw_curves(curves: Sequence[dict], prefix: str, formats: Sequence[str] = FORMATS,
                title: Optional[str] = None) -> list:
    """Draw model curves alone (`wifitcp.models.overlay` dicts: label, x, y,
    xlabel, ylabel), dashed as beside a simulation; returns the paths."""
    from matplotlib.figure import Figure

    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "wifitcp"
    fig = Figure(figsize=(6.4, 4.4), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    for i, c in enumerate(curves):
        ax.plot(c["x"], c["y"], ls="--", lw=1.2, marker="x", ms=4, color=f"C{i % 10}",
                label=c["label"])
    if curves:
        ax.set_xlabel(curves[0].get("xlabel", "x"))
        ax.set_ylabel(curves[0].get("ylabel", "y"))
        _legend_outside(fig, ax, fontsize=7)
    ax.set_title(title or "model", fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.text(0.99, 0.01, "analytical model only", ha="right", va="bottom", fontsize=7,
             color="0.4")
    return _save(fig, prefix, formats)


def _draw_cdf(ax: Any, sel: Selection) -> str:
    if sel.y in HISTOGRAMS:
        rtt = sel.y != HISTOGRAM
        for i, line in enumerate(sel.lines):
            xs, ys = _histogram_points(line.buckets)
            n = sum(c for _, _, c in line.buckets)
            label = _label(line.label) if sel.by else ("round trip" if rtt else "delay")
            ax.plot(xs, ys, color=f"C{i % 10}", lw=1.5,
                    label=f"{label} (n={n} {'replies' if rtt else 'packets'})")
        ax.set_ylim(0, 1.02)
        return f"from the stored per-flow {'round-trip' if rtt else 'delay'} histograms"
    for i, line in enumerate(sel.lines):
        n = len(line.values)
        ys = [0.0] + [(k + 1) / n for k in range(n)]   # F(x) = share of samples <= x
        label = _label(line.label) if sel.by else sel.y
        ax.step([line.values[0]] + list(line.values), ys, where="post", color=f"C{i % 10}",
                lw=1.5, label=f"{label} (n={n})")
    ax.set_ylim(0, 1.02)
    if sel.y == TRACE_RTT:
        return "per-segment RTTs at the sender, from the per-packet trace (Karn's rule)"
    unit = "flows" if any(r.get("flow") for r in sel.rows) else "runs"
    return f"empirical CDF over {unit}"


def _draw_series(ax: Any, sel: Selection) -> str:
    ns = set()
    for i, line in enumerate(sel.lines):
        xs = [p.x for p in line.points]
        means = [p.stats.mean for p in line.points]
        ns |= {p.stats.n for p in line.points}
        color = f"C{i % 10}"
        ax.plot(xs, means, color=color, lw=1.2, label=_label(line.label))
        band = [clipped_interval(sel.y, p.stats) for p in line.points]
        if any(lo is not None for lo, _ in band):
            lows = [m if lo is None else lo for m, (lo, _) in zip(means, band)]
            highs = [m if hi is None else hi for m, (_, hi) in zip(means, band)]
            ax.fill_between(xs, lows, highs, color=color, alpha=0.15, lw=0)
    runs = "/".join(str(n) for n in sorted(ns))
    return f"mean over {runs} runs per time" + (" with 95 % CI" if max(ns) > 1 else "")


#: what Bianchi's model predicts for a metric: the compare row's key per MAC
#: ("std": the standard MAC, whose bystanders defer DIFS after a collision;
#: "bianchi": the model's own assumptions, T_c with EIFS)
MODEL_Y = {"aggregate_msdu_mbps": {"std": "model_classic_mbps", "bianchi": "model_eifs_mbps"},
           "collision_probability": {"std": "model_p", "bianchi": "model_p"}}


def add_model(sel: Selection, model: str = "bianchi") -> int:
    """Add Bianchi's model beside each line of an x-y selection: one dashed
    line per simulated line, at the same configurations (`wifitcp.compare`,
    retry limit included). Only for saturated single-size workloads with
    ``y`` = aggregate_msdu_mbps or collision_probability; returns the number
    of model lines added (0 where the model does not apply)."""
    if model != "bianchi":
        raise InputError("--model", "", f"expected bianchi, got {model!r}")
    if sel.mode != "xy" or sel.y not in MODEL_Y or sel.categorical:
        return 0
    from .compare import compare

    rows = [r for name in sel.scenarios for r in compare(sel.store, scenario=name)
            if r.get("n") is not None and r.get("access") is not None]
    by_hash = {}
    for r in rows:
        by_hash[json.dumps(r["config"], sort_keys=True)] = r
    added = 0
    for i, line in enumerate(sel.lines):
        xs, ys = [], []
        for p in line.points:
            cfgs = {json.dumps(r["config"], sort_keys=True) for r in sel.rows
                    if r["run_id"] in set(p.run_ids)}
            r = by_hash.get(next(iter(cfgs))) if len(cfgs) == 1 else None
            key = MODEL_Y[sel.y].get(r["mac"]) if r else None
            if key and r.get(key) is not None:
                xs.append(p.x)
                ys.append(r[key])
        if xs:
            variant = "T_c = DATA + DIFS" if sel.y == "aggregate_msdu_mbps" else "p"
            name = _label(line.label) + " " if sel.by else ""
            sel.models.append((i, f"{name}Bianchi ({variant})", xs, ys))
            added += 1
    return added


def _draw_box(ax: Any, sel: Selection) -> str:
    """Box plots (quartiles, whiskers at 1.5 IQR, outliers) of the samples
    at each x, the lines' boxes side by side."""
    xs_all: list = []
    for line in sel.lines:
        for p in line.points:
            if p.x not in xs_all:
                xs_all.append(p.x)
    if not sel.categorical:
        xs_all.sort()
    k = max(1, len(sel.lines))
    width = 0.8 / k
    ns = set()
    for i, line in enumerate(sel.lines):
        data, pos = [], []
        for j, x in enumerate(xs_all):
            vals = [r["yv"] for r in sel.rows
                    if r.get("xv") == x and (not sel.by or r.get("byv") == line.label)]
            if vals:
                data.append(vals)
                pos.append(j - 0.4 + width * (i + 0.5))
                ns.add(len(vals))
        color = f"C{i % 10}"
        ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": color, "alpha": 0.35, "edgecolor": color},
                   medianprops={"color": color}, whiskerprops={"color": color},
                   capprops={"color": color}, flierprops={"markeredgecolor": color, "markersize": 3})
        ax.plot([], [], color=color, lw=6, alpha=0.35,
                label=_label(line.label) if sel.by else sel.y)
    ax.set_xticks(range(len(xs_all)), [_label(v) for v in xs_all])
    per = "flows" if any(r.get("flow") for r in sel.rows) else "runs"
    return f"box plots over {'/'.join(str(n) for n in sorted(ns))} {per} per box"


def _draw_xy(ax: Any, sel: Selection) -> str:
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
        if sel.models:
            label += " (simulation)"
        color = f"C{i % 10}"
        ax.errorbar(xs, means, yerr=err, marker="o", ms=4, capsize=3, lw=1.5,
                    color=color, label=label)
        if any(h > lo for lo, h in zip(lows, highs)) and len(xs) > 1:
            ax.fill_between(xs, lows, highs, color=color, alpha=0.15, lw=0)
    for i, label, xs, ys in sel.models:
        ax.plot(xs, ys, ls="--", lw=1.2, marker="x", ms=4, color=f"C{i % 10}", label=label)
    if sel.categorical:
        ax.set_xticks(range(len(xs_cat)), [_label(v) for v in xs_cat])
        if sum(len(_label(v)) for v in xs_cat) > 60:
            for t in ax.get_xticklabels():
                t.set_rotation(30)
                t.set_horizontalalignment("right")
    n_text = "/".join(str(n) for n in seeds)
    per = "flows" if any(r.get("flow") for r in sel.rows) else "runs"
    return (f"mean and 95 % CI over {n_text} {per} per point"
            + ("" if metric_range(sel.y) == (float("-inf"), float("inf"))
               else " (clipped to the metric's range)"))


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
    metric's range, see `metric_range`); for a CDF [by, n, min, p10, p50,
    p90, max] per line."""
    out = []
    for line in sel.lines:
        lab = _label(line.label) if (sel.by or sel.mode == "series") else "-"
        if sel.mode == "cdf" and line.buckets:
            b = line.buckets
            out.append([lab, sum(n for _, _, n in b), b[0][0],
                        *(_histogram_quantile(b, q) for q in (0.1, 0.5, 0.9)), b[-1][1]])
            continue
        if sel.mode == "cdf":
            v = line.values
            out.append([lab, len(v), v[0], _quantile(v, 0.1), _quantile(v, 0.5),
                        _quantile(v, 0.9), v[-1]])
            continue
        for p in line.points:
            lo, hi = clipped_interval(sel.y, p.stats)
            out.append([lab, _label(p.x), p.stats.n, p.stats.mean, lo, hi])
    return out


def _quantile(sorted_values: list, q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(sorted_values) - 1)
    i = int(pos)
    j = min(i + 1, len(sorted_values) - 1)
    return sorted_values[i] + (sorted_values[j] - sorted_values[i]) * (pos - i)


def render(sel: Selection) -> str:
    from .report import fmt, table

    if sel.mode == "cdf":
        rows = [[b, str(n), *(fmt(v, 4) for v in vals)] for b, n, *vals in table_rows(sel)]
        return table([sel.by or "by", "n", "min", "p10", "median", "p90", "max"], rows,
                     "lrrrrrr")
    rows = [[b, x, str(n), fmt(m, 4), fmt(lo, 4), fmt(hi, 4)]
            for b, x, n, m, lo, hi in table_rows(sel)]
    if sel.mode == "series" and len(rows) > 40:  # the figure is the point: summarise
        rows = _series_summary(sel)
        return table([sel.by or "line", "samples", "t from", "t to", f"mean {sel.y}"], rows,
                     "lrrrr")
    return table([sel.by or "by", sel.x, "n", f"mean {sel.y}", "ci95 low", "ci95 high"],
                 rows, "lrrrrr")


def _series_summary(sel: Selection) -> list:
    from .report import fmt

    out = []
    for line in sel.lines:
        pts = line.points
        mean = sum(p.stats.mean for p in pts) / len(pts) if pts else None
        out.append([_label(line.label), str(len(pts)), fmt(pts[0].x, 3), fmt(pts[-1].x, 3),
                    fmt(mean, 4)])
    return out


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

