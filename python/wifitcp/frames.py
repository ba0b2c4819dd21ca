"""Campaign results as data frames (pandas or polars).

One row per run: ``run_index``, ``run_id``, ``scenario``, one column per
swept parameter (named by its dotted path, e.g. ``"wlan.stations"``),
``seed``, then every scalar of the core's result (``aggregate_mbps``,
``jain_index``, ``collision_probability``, ``events``, ...; keys the core
adds later appear by themselves), ``error`` (None for a run that finished),
``wall_time_s`` and ``version``. Nested results (flows, stations, queues,
time series) are not columns: ask for ``frame="records"``, or run with a
store and read its tidy tables with ``wifitcp.load(store)`` (`wifitcp.tidy`).
"""

from __future__ import annotations

from typing import Any, Optional

FIRST = ["run_index", "run_id", "scenario"]
LAST = ["error", "wall_time_s", "version"]
KINDS = ("pandas", "polars")


def frame_kind(kind: Optional[str]) -> str:
    """``"pandas"`` or ``"polars"``; None picks pandas if installed, else polars."""
    if kind is None:
        for k in KINDS:
            try:
                __import__(k)
                return k
            except ImportError:
                continue
        raise ImportError("data frames need pandas or polars (pip install pandas); "
                          "or pass frame='records' for a list of dicts")
    if kind not in KINDS:
        raise ValueError(f"frame must be 'pandas', 'polars' or 'records', got {kind!r}")
    return kind


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def flat(record: dict, param_names: list) -> dict:
    """One record (see `api.record`) as a row of scalars."""
    params = record.get("params") or {}
    row = {k: record.get(k) for k in FIRST}
    for name in param_names:
        row[name] = params.get(name)
    row["seed"] = record.get("seed")
    for k, v in record.items():
        if k in row or k in LAST or k == "params" or not _scalar(v):
            continue
        row[k] = v
    for k in LAST:
        row[k] = record.get(k)
    return row


def to_frame(records: list, kind: Optional[str] = None) -> Any:
    """A data frame with one row per record (columns as described above)."""
    kind = frame_kind(kind)
    names: list = []
    for r in records:
        for k in (r.get("params") or {}):
            if k not in names:
                names.append(k)
    rows = [flat(r, names) for r in records]
    columns: list = []
    for row in rows:
        for k in row:
            if k not in columns:
                columns.append(k)
    if not columns:
        columns = FIRST + ["seed"] + LAST
    data = {c: [row.get(c) for row in rows] for c in columns}
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame(data, columns=columns)
    import polars as pl

    return pl.DataFrame({c: pl.Series(c, v, strict=False) for c, v in data.items()})
