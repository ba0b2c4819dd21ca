"""A results store as tidy (long-format) tables: pandas, polars, Parquet, CSV.

``wifitcp.load("results/x.duckdb")`` (or ``Results(store)``) reads a store
once and gives one table per kind of observation, every value in a typed
column (no JSON columns; docs/results.md lists the columns):

- ``runs``: one row per run: identification, provenance, one column per
  swept parameter named by its dotted path (``"wlan.stations"``) with the
  parameter's own type, and every scalar of the core's result, nested
  tables flattened with ``_`` (``ledger_generated``,
  ``ledger_dropped_queue_full``);
- ``flows`` / ``stations`` / ``queues`` / ``links``: one row per flow (per
  station, queue, wired link direction) per run, with the run's ``run_id``,
  ``scenario``, ``seed`` and parameter columns, and the element's scalars
  flattened the same way (``tcp_srtt_ms``, ``drops_retry_limit``);
- ``series``: one row per flow per sample (``t_s``, ``mbps``);
  ``delay_histogram``: one row per flow per delay bucket (``lower_ms``,
  ``upper_ms``, ``count``);
  ``queue_series``: one row per queue per change (``t_s``, ``packets``);
  ``cwnd``: one row per cwnd trace sample (``[tcp] trace_cwnd``), each with
  ``run_id`` and the flow's (queue's) index and name;
- ``failures``: one row per failed run.

Types are inferred per column from the values: integers -> int64, numbers
with a fraction anywhere -> float64, booleans, strings; a column whose
values are lists or tables, or mix strings with numbers, holds their JSON
text (string). Counts by reason (``*dropped*`` / ``drops``) that a run does
not report are 0, every other missing value is null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Union

TABLES = ("runs", "flows", "series", "delay_histogram", "cwnd", "stations", "queues", "queue_series", "links",
          "failures")
#: result keys that hold a table or null (null: the mechanism is off); the
#: table's values become columns, null in the rows where it was off
NULL_TABLES = {"window_rewrites"}

#: the first columns of the per-element tables, after the run's ``run_id``,
#: ``scenario``, ``seed`` and parameters (the rest in the core's order)
FIRST = {"flows": ["flow_index", "name", "kind", "src", "dst"],
         "stations": ["station_index", "name"],
         "queues": ["queue_index", "node", "iface", "kind"],
         "links": ["link_index", "from", "to"]}


def _flatten(node: Any, prefix: str, out: dict) -> None:
    """Scalars of ``node`` into ``out`` as ``prefix_key``; lists are skipped."""
    if isinstance(node, dict):
        for k, v in node.items():
            if v is None and k in NULL_TABLES:
                continue
            name = f"{prefix}_{k}" if prefix else str(k)
            _flatten(v, name, out)
    elif isinstance(node, list):
        return
    else:
        out[prefix] = node


#: types of columns that can be null in every row (a store without failures,
#: a flow that never left slow start): by name, else by the name's ending
TYPES = {"run_id": "int64", "seed": "int64", "flow_index": "int64", "station_index": "int64",
         "queue_index": "int64", "link_index": "int64", "wall_time_s": "float64",
         "created_at": "timestamp", "t_s": "float64", "mbps": "float64", "packets": "int64",
         "cwnd_bytes": "int64", "ssthresh_bytes": "int64", "tcp_ssthresh_bytes": "int64",
         "loss_ratio": "float64", "delay_relative_error": "float64", "lower_ms": "float64",
         "upper_ms": "float64"}
_FLOAT_ENDINGS = ("_s", "_ms", "_mbps", "probability", "share", "index", "mean_len")
_INT_ENDINGS = ("_bytes", "_packets", "count", "events")


def _type_for(name: str) -> str:
    if name in TYPES:
        return TYPES[name]
    if name.endswith(_FLOAT_ENDINGS):
        return "float64"
    if name.endswith(_INT_ENDINGS) or "dropped" in name or name.startswith("drops_"):
        return "int64"
    return "string"


class _Table:
    """Rows (dicts) collected into columns, first-seen column order."""

    def __init__(self, first: Optional[list] = None):
        self.columns: dict = {c: None for c in (first or [])}
        self.fixed = set(first or [])
        self.rows: list = []
        self.counts: set = set()

    def add(self, row: dict, counts: Optional[set] = None) -> None:
        for k in row:
            if k not in self.columns:
                self.columns[k] = None
        if counts:
            self.counts |= counts
        self.rows.append(row)

    def arrow(self, hints: Optional[dict] = None) -> Any:
        """A pyarrow Table; ``hints``: types (pyarrow) for all-null columns."""
        import pyarrow as pa

        arrays, names = [], []
        for c in self.columns:
            default = 0 if c in self.counts else None
            vals = [r.get(c, default) for r in self.rows]
            if all(v is None for v in vals):
                typ = (hints or {}).get(c) or _PA[_type_for(c)]()
                arrays.append(pa.nulls(len(vals), typ))
            else:
                arrays.append(_array(vals))
            names.append(c)
        return pa.table(arrays, names=names)


def _pa_types() -> dict:
    return {"int64": lambda: __import__("pyarrow").int64(),
            "float64": lambda: __import__("pyarrow").float64(),
            "string": lambda: __import__("pyarrow").string(),
            "timestamp": lambda: __import__("pyarrow").timestamp("us")}


_PA = _pa_types()


def _array(vals: list) -> Any:
    import pyarrow as pa

    present = [v for v in vals if v is not None]
    if any(isinstance(v, (list, dict)) for v in present) or (
            any(isinstance(v, str) for v in present)
            and not all(isinstance(v, str) for v in present)):
        return pa.array([None if v is None else json.dumps(v) for v in vals], pa.string())
    if all(isinstance(v, bool) for v in present):
        return pa.array(vals, pa.bool_())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        if max(present) >= 2**63:
            return pa.array(vals, pa.uint64())
        return pa.array(vals, pa.int64())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in vals], pa.float64())
    if all(isinstance(v, str) for v in present):
        return pa.array(vals, pa.string())
    return pa.array(vals)  # timestamps


def _loads(v: Any) -> Any:
    return json.loads(v) if isinstance(v, str) else v


class Results:
    """Every table of a results store, read once.

    ``store``: a path or an open `wifitcp.store.Store`; ``scenario``: only
    this scenario's runs; ``frame``: ``"pandas"`` or ``"polars"`` for the
    attribute access (``res.runs``, ``res.flows``, ...; default pandas, or
    polars without pandas).
    """

    def __init__(self, store: Any, scenario: Optional[str] = None,
                 frame: Optional[str] = None):
        from .store import Store

        self.frame_kind = frame
        if isinstance(store, (str, Path)):
            if not Path(store).is_file():
                from .errors import InputError

                raise InputError(str(store), "", "no such results store")
            with Store(store, read_only=True) as st:
                self._read(st, scenario)
        else:
            self._read(store, scenario)
        self._arrow: dict = {}

    # -- reading -----------------------------------------------------------
    def _read(self, st: Any, scenario: Optional[str]) -> None:
        self.path = st.path
        where, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        runs = st.query(f"SELECT * FROM runs {where} ORDER BY run_id", args)
        params: list = []
        for r in runs:
            r["params"] = _loads(r["params"]) or {}
            for k in r["params"]:
                if k not in params:
                    params.append(k)
        self.params = params
        t = {name: _Table() for name in TABLES}
        t["series"] = _Table(["run_id", "flow_index", "flow", "t_s", "mbps"])
        t["delay_histogram"] = _Table(["run_id", "flow_index", "flow", "lower_ms", "upper_ms",
                                       "count"])
        t["cwnd"] = _Table(["run_id", "flow_index", "flow", "t_s", "cwnd_bytes",
                            "ssthresh_bytes"])
        t["queue_series"] = _Table(["run_id", "queue_index", "node", "t_s", "packets"])
        keys = ["run_id", "scenario", "seed", *params]
        for name, first in FIRST.items():
            t[name] = _Table(keys + first)
        t["runs"] = _Table(["run_id", "run_key", "scenario", "scenario_hash", "seed", *params,
                            "version", "source", "command", "host", "created_at",
                            "wall_time_s"])
        for r in runs:
            self._add_run(t, r)
        fails = st.failures(scenario) if st.has_table("failures") else []
        t["failures"] = _Table(["run_key", "scenario", "scenario_hash", "seed", *params,
                                "version", "error", "wall_time_s", "created_at"])
        for f in fails:
            row = {k: f.get(k) for k in ("run_key", "scenario", "scenario_hash", "seed",
                                         "version", "error", "wall_time_s", "created_at")}
            row.update(f.get("params") or {})
            t["failures"].add(row)
        self._tables = t

    def _add_run(self, t: dict, r: dict) -> None:
        res = _loads(r["result_json"]) or {}
        keys = {"run_id": r["run_id"], "scenario": r["scenario"], "seed": r["seed"],
                **r["params"]}
        row = {k: r.get(k) for k in ("run_id", "run_key", "scenario", "scenario_hash", "seed",
                                     "version", "source", "command", "host", "created_at",
                                     "wall_time_s")}
        row.update(r["params"])
        flat: dict = {}
        _flatten({k: v for k, v in res.items() if k != "wall_time_s"}, "", flat)
        row.update(flat)
        row["config"] = json.dumps(_loads(r["config_json"]), sort_keys=True)
        t["runs"].add(row, _count_keys(flat))
        for name, table, index in (("flows", "flows", "flow_index"),
                                   ("stations", "stations", "station_index"),
                                   ("queues", "queues", "queue_index"),
                                   ("links", "links", "link_index")):
            items = res.get(name)
            for i, item in enumerate(items if isinstance(items, list) else []):
                if not isinstance(item, dict):
                    continue
                flat = {}
                _flatten(item, "", flat)
                t[table].add({**keys, index: i, **flat}, _count_keys(flat))
                label = item.get("name", item.get("node"))
                if name == "flows":
                    for s in item.get("series") or []:
                        t["series"].add({"run_id": r["run_id"], "flow_index": i, "flow": label,
                                         "t_s": s[0], "mbps": s[1]})
                    for b in item.get("delay_histogram") or []:
                        t["delay_histogram"].add({"run_id": r["run_id"], "flow_index": i,
                                                  "flow": label, "lower_ms": b[0],
                                                  "upper_ms": b[1], "count": b[2]})
                    tcp = item.get("tcp") if isinstance(item.get("tcp"), dict) else {}
                    for s in tcp.get("cwnd_trace") or []:
                        t["cwnd"].add({"run_id": r["run_id"], "flow_index": i, "flow": label,
                                       "t_s": s[0], "cwnd_bytes": s[1], "ssthresh_bytes": s[2]})
                elif name == "queues":
                    for s in item.get("series") or []:
                        t["queue_series"].add({"run_id": r["run_id"], "queue_index": i,
                                               "node": label, "t_s": s[0], "packets": s[1]})

    # -- access ------------------------------------------------------------
    def arrow(self, name: str) -> Any:
        """Table ``name`` (one of `TABLES`) as a pyarrow Table."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r} (tables: {', '.join(TABLES)})")
        if name not in self._arrow:
            hints = None
            if name == "failures":  # parameters typed as in runs, even without failures
                runs = self.arrow("runs")
                hints = {f.name: f.type for f in runs.schema}
            self._arrow[name] = self._tables[name].arrow(hints)
        return self._arrow[name]

    def frame(self, name: str, kind: Optional[str] = None) -> Any:
        """Table ``name`` as a pandas (nullable integer, boolean and string
        dtypes) or polars data frame."""
        from .frames import frame_kind

        tab = self.arrow(name)
        if frame_kind(kind or self.frame_kind) == "polars":
            import polars as pl

            return pl.from_arrow(tab)
        import pandas as pd
        import pyarrow as pa

        mapping = {pa.int64(): pd.Int64Dtype(), pa.uint64(): pd.UInt64Dtype(),
                   pa.bool_(): pd.BooleanDtype(), pa.string(): pd.StringDtype()}
        return tab.to_pandas(types_mapper=mapping.get)

    def __getattr__(self, name: str) -> Any:
        if name in TABLES:
            return self.frame(name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{n}: {len(self._tables[n].rows)}" for n in TABLES)
        return f"<wifitcp results {self.path}: {sizes} rows>"

    def write(self, directory: Union[str, Path], fmt: str = "parquet") -> list:
        """Write every table to ``DIR/<table>.parquet`` (or ``.csv``); the paths."""
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        out = []
        for name in TABLES:
            path = d / f"{name}.{fmt}"
            tab = self.arrow(name)
            if fmt == "parquet":
                pq.write_table(tab, path)
            else:
                pcsv.write_csv(tab, path)
            out.append(str(path))
        return out


def _count_keys(flat: dict) -> set:
    return {k for k in flat if "dropped" in k or k.startswith("drops_")}


def load(store: Any, scenario: Optional[str] = None, frame: Optional[str] = None) -> Results:
    """The tidy tables of a results store (see `Results`)."""
    return Results(store, scenario=scenario, frame=frame)
