"""The Python API: run a scenario's campaign and get its results.

``run`` and ``sweep`` return a data frame (pandas, or polars; see
`wifitcp.frames`) with one row per run, or with ``frame="records"`` a list
of dicts holding the core's whole result. With ``out`` the runs go to a
DuckDB store and the campaign is resumable: runs already in the store are
not run again, their stored results are returned.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping, Optional, Sequence, Union, overload

from . import campaign, core, scenario as scn_mod
from .errors import InputError, RunError
from .runner import RECORD_KEYS, RunOutcome
from .scenario import Scenario
from .store import Store

if TYPE_CHECKING:
    import pandas
    import polars

#: What `run` and `sweep` return: a pandas or polars DataFrame (one row per
#: run), or with ``frame="records"`` the list of the runs' records.
Frame = Union["pandas.DataFrame", "polars.DataFrame"]

DEFAULT_RESULTS_DIR = "results"


def default_store_path(name: str) -> str:
    """``results/<scenario-name>.duckdb`` (relative to the working directory)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "scenario"
    return os.path.join(DEFAULT_RESULTS_DIR, f"{safe}.duckdb")


def load(scenario: Union[str, os.PathLike, dict, Scenario], sets: Iterable = (),
         seed: Optional[int] = None) -> Scenario:
    """A Scenario from a TOML path or an already-parsed document (dict).

    ``sets`` are ``"dotted.key=VALUE"`` strings or ``(key, value)`` pairs.
    """
    if isinstance(scenario, Scenario):
        if list(sets) or seed is not None:
            raise ValueError("sets/seed apply when loading; pass a path or a dict")
        return scenario
    if isinstance(scenario, dict):
        return scn_mod.from_dict(scenario, sets=sets, seed=seed)
    return scn_mod.load(scenario, sets=sets, seed=seed)


def _record_keys(o: RunOutcome, version: str, run_id: Optional[int]) -> dict:
    """What a run's record sets beside its result (`RECORD_KEYS`)."""
    return dict(scenario=o.spec.scenario, params=o.spec.params, seed=o.spec.seed,
                run_index=o.spec.index, run_id=run_id, wall_time_s=o.wall_time_s,
                version=version)


def record(o: RunOutcome, version: str, run_id: Optional[int] = None) -> dict:
    """One run as a flat dict: the whole result plus run identification."""
    d = dict(o.result or {})
    d.update(_record_keys(o, version, run_id))
    if o.error:
        d["error"] = o.error
    return d


def record_json(o: RunOutcome, version: str, run_id: Optional[int] = None) -> str:
    """`record` as compact JSON text (what ``wifitcp run --json`` prints).

    The result's canonical text is compact JSON already; when the keys
    `record` sets that the result has too hold the same values there
    (`RunOutcome.head`, known without parsing the result when the run
    was in this process), the record's text is that text with the new keys
    appended (what ``json.dumps(record(...), separators=(",", ":"))``
    writes, without parsing or writing a result of thousands of stations
    again).
    """
    text, cut, tail = _record_json_parts(o, version, run_id)
    return text[:cut] + tail


def write_record_json(o: RunOutcome, version: str, run_id: Optional[int], out: Any) -> None:
    """Write `record_json`'s text and a newline to the text stream ``out``
    a mebibyte at a time: a result of thousands of stations is megabytes,
    and the record made whole, then encoded whole, held three copies of it
    beside the result (docs/performance.md)."""
    text, cut, tail = _record_json_parts(o, version, run_id)
    step = 1 << 20
    for at in range(0, cut, step):
        out.write(text[at:min(at + step, cut)])
    out.write(tail + "\n")
    out.flush()


def _record_json_parts(o: RunOutcome, version: str, run_id: Optional[int]) -> tuple[str, int, str]:
    """``(text, cut, tail)`` with `record_json`'s text ``text[:cut] + tail``."""
    keys = _record_keys(o, version, run_id)
    head = o.head()
    text = o.result_json
    if (head is None or not text.endswith("}") or text == "{}"
            or any(k in head and head[k] != keys[k] for k in RECORD_KEYS)):
        whole = _compact(record(o, version, run_id))
        return whole, len(whole), ""
    tail = "".join(f",{_compact(k)}:{_compact(keys[k])}" for k in RECORD_KEYS if k not in head)
    return text, len(text) - 1, tail + "}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def stored_records(store: Store, planned: list) -> list:
    """Records (as `record` makes them) of the planned runs the store
    already has, in the order of ``planned``."""
    if not planned:
        return []
    keys = [p.key for p in planned]
    rows = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        marks = ", ".join("?" for _ in chunk)
        for r in store.query(f"SELECT run_id, run_key, wall_time_s, version, result_json "
                             f"FROM runs WHERE run_key IN ({marks})", chunk):
            rows[r["run_key"]] = r
    out = []
    for p in planned:
        r = rows[p.key]
        d = json.loads(r["result_json"])
        d.update(scenario=p.spec.scenario, params=p.spec.params, seed=p.spec.seed,
                 run_index=p.spec.index, run_id=r["run_id"], wall_time_s=r["wall_time_s"],
                 version=r["version"])
        out.append(d)
    return out


def execute(scn: Scenario, jobs: Optional[int] = 1, store: Optional[Store] = None,
            on_outcome: Optional[Callable[[RunOutcome, Optional[int]], None]] = None,
            items: Optional[list] = None, dask: Any = None,
            rerun: bool = False) -> list:
    """Run a campaign; [(outcome, run_id), ...] of the runs executed, in run order.

    (The lower-level `campaign.execute` also reports the skipped runs.)
    """
    return campaign.execute(scn, items, jobs=jobs, dask=dask, store=store, rerun=rerun,
                            on_outcome=on_outcome).outcomes


def _sets(set: Iterable, sweep: Optional[Mapping], seeds: Any) -> list:
    if isinstance(set, (str, bytes)):
        set = [set]
    try:
        out: list = list(set)
    except TypeError:
        raise InputError("set", "", f"expected a list of \"dotted.key=VALUE\" strings or (key, value) "
                                    f"pairs, got {type(set).__name__}") from None
    if sweep is not None and not isinstance(sweep, Mapping):
        raise InputError("sweep", "", f"expected a mapping of dotted keys to value lists "
                                      f"({{\"wlan.stations\": [1, 2, 5]}}), got {type(sweep).__name__}")
    for path, values in (sweep or {}).items():
        if not isinstance(path, str):
            raise InputError("sweep", "", f"keys are dotted keys (strings), got {path!r}")
        if isinstance(values, str):
            try:
                values = scn_mod.parse_values(values)
            except ValueError as e:
                raise InputError("sweep", path, str(e)) from None
        elif not isinstance(values, (list, tuple, range)):
            values = [values]
        out.append((f'sweep."{path}"', list(values)))
    if seeds is not None:
        if isinstance(seeds, str):
            try:
                seeds = scn_mod.parse_seeds(seeds)
            except ValueError as e:
                raise InputError("seeds", "", str(e)) from None
        elif isinstance(seeds, int):
            seeds = [seeds]
        out.append(("scenario.seeds", list(seeds)))
    return out


@overload
def run(scenario: Union[str, os.PathLike, dict, Scenario], *, frame: Literal["records"],
        **kwargs: Any) -> list[dict]: ...


@overload
def run(scenario: Union[str, os.PathLike, dict, Scenario], *, frame: Literal["polars"],
        **kwargs: Any) -> "polars.DataFrame": ...


@overload
def run(scenario: Union[str, os.PathLike, dict, Scenario], *,
        frame: Optional[Literal["pandas"]] = None, **kwargs: Any) -> Frame: ...


def run(scenario: Union[str, os.PathLike, dict, Scenario], *, seed: Optional[int] = None,
        seeds: Any = None, set: Iterable = (), sweep: Optional[Mapping] = None,
        jobs: Optional[int] = None, dask: Any = None,
        out: Optional[Union[str, os.PathLike]] = None, replace: bool = False,
        rerun: bool = False, frame: Optional[str] = None, progress: bool = False,
        raise_on_failure: bool = True, pcap: Optional[Union[str, os.PathLike]] = None,
        trace: Optional[Union[str, os.PathLike]] = None) -> Union[Frame, list[dict]]:
    """Run a scenario's campaign (path, dict or Scenario); one row per run.

    * ``set``: ``"dotted.key=VALUE"`` overrides; ``sweep``: extra grid axes,
      ``{"wlan.stations": [1, 2, 5]}`` (or ``"1..15"``); ``seeds``: a list,
      a range or ``"1..5"``; ``seed``: only that seed.
    * ``jobs``: worker processes (default: ``[campaign] jobs``, else all
      cores); ``dask``: a scheduler address, ``"local"``, a Client or a
      cluster (default: ``[campaign] dask``, else run locally).
    * ``out``: a DuckDB store; runs already in it are skipped (``rerun``
      runs them again), ``replace`` first deletes the scenario's runs.
    * ``pcap``: a directory; each run writes one pcap file per interface
      into ``pcap/<scenario>/run<index>-seed<seed>/``; ``trace``: likewise
      its per-packet trace, ``trace/<scenario>/run<index>-seed<seed>/
      packets.parquet`` (as the CLI's ``--pcap`` and ``--trace``). A run
      the store already has runs again if its files are not there.
    * ``frame``: ``"pandas"``, ``"polars"``, or ``"records"`` for a list of
      dicts with the whole result (flows, stations, series); default pandas,
      or polars if pandas is missing.

    Rows are in run order (grid x cases x seeds). Raises `InputError` for
    bad input (before any run) and, after the campaign, `RunError` if a run
    failed (``raise_on_failure=False``: failed runs are rows with ``error``).
    """
    campaign.check_jobs(jobs)
    scn = load(scenario, sets=_sets(set, sweep, seeds), seed=seed)
    items = scn_mod.check_all(scn)
    store = None
    bar = None
    try:
        if out is not None:
            store = Store(out)
            if replace:
                store.delete_scenario(scn.name)

        def on_start(n, skipped):
            nonlocal bar
            if progress:
                from .progress import Progress

                bar = Progress(n, label=scn.name)

        def on_outcome(o, rid):
            if bar is not None:
                bar.update(o.ok)

        res = campaign.execute(scn, items, jobs=jobs, dask=dask, store=store, rerun=rerun,
                               on_start=on_start, on_outcome=on_outcome,
                               pcap=None if pcap is None else str(pcap),
                               trace=None if trace is None else str(trace))
        records = [record(o, res.version, rid) for o, rid in res.outcomes]
        if store is not None:
            records += stored_records(store, res.skipped)
    finally:
        if bar is not None:
            bar.close()
        if store is not None:
            store.close()
    failed = res.failed
    if failed and raise_on_failure:
        raise RunError(f"{len(failed)} of {len(res.outcomes)} runs failed; run "
                       f"{failed[0].spec.label}: {failed[0].error}")
    records.sort(key=lambda r: r["run_index"])
    if frame == "records":
        return records
    from .frames import to_frame

    return to_frame(records, frame)


def sweep(scenario: Union[str, os.PathLike, dict, Scenario], sweep: Optional[Mapping] = None,
          seeds: Any = None, **kwargs: Any) -> Union[Frame, list[dict]]:
    """`run` with the sweep first: ``sweep(path, {"wlan.stations": "1..15"}, "1..5")``."""
    return run(scenario, sweep=sweep, seeds=seeds, **kwargs)
