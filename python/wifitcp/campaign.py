"""Campaigns: run a scenario's sweep resumably, locally or on a cluster.

A campaign is every run of a scenario (grid x cases x seeds). Each run has a
key (`store.run_key`: scenario content hash, params, seed, core version).
With a store, a run whose key is already stored as finished is skipped, so
re-running a campaign that was killed continues where it stopped; every
finished run is written in its own transaction as soon as it comes back, so
a kill loses at most the runs in progress. A run that fails is recorded in
the store's ``failures`` table with its error and the campaign goes on; a
later campaign retries it.

A campaign asked to write each run's files (``pcap``, ``trace``) skips a
stored run only if its files are there (`has_files`); a stored run without
them runs again (``CampaignResult.redo``), which writes them and replaces
its row with the same result (the core is deterministic).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any, Callable, Optional

from . import core, runner, scenario as scn_mod
from .errors import InputError
from .record import Record
from .runner import RunOutcome
from .scenario import RunSpec, Scenario
from .store import Store, run_key


class Planned(Record):
    FIELDS = ("spec", "config", "scenario_hash", "key")

    def __init__(self, spec: RunSpec, config: dict, scenario_hash: str, key: str):
        self.spec = spec
        self.config = config              # normalised by the core
        self.scenario_hash = scenario_hash
        self.key = key


class CampaignResult(Record):
    """What a campaign did: the runs it executed and the ones it skipped."""

    FIELDS = ("planned", "outcomes", "skipped", "redo", "version", "wall_s")

    def __init__(self, planned: list, version: str = ""):
        self.planned = planned            # [Planned] in run order
        self.outcomes: list = []          # [(RunOutcome, run_id)] run order
        self.skipped: list = []           # [Planned] already finished
        self.redo: list = []              # [Planned] finished, run again for their files
        self.version = version
        self.wall_s = 0.0                 # set by `run_with_progress`

    @property
    def failed(self) -> list:
        return [o for o, _ in self.outcomes if not o.ok]


def plan(items: list, version: str) -> list:
    """Keys for every (spec, normalised config) of ``check_all``."""
    out = []
    for spec, config in items:
        h = runner.config_hash(config)
        out.append(Planned(spec, config, h, run_key(h, spec.params, spec.seed, version)))
    return out


def check_jobs(jobs: Any) -> None:
    """``jobs`` of the Python API: None or a whole number >= 1 (as the
    CLI's ``--jobs``)."""
    if jobs is None:
        return
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise InputError("jobs", "", f"expected a whole number >= 1, got {jobs!r}")
    if jobs < 1:
        raise InputError("jobs", "", f"must be >= 1, got {jobs}")


def jobs_for(scn: Scenario, jobs: Optional[int]) -> int:
    """``jobs``, else ``[campaign] jobs``, else every core."""
    check_jobs(jobs)
    return jobs or scn.campaign.get("jobs") or runner.default_jobs()


def dask_for(scn: Scenario, dask: Any) -> Any:
    """``dask``, else ``[campaign] dask`` (None: run locally)."""
    return dask if dask is not None else scn.campaign.get("dask")


def has_files(spec: RunSpec, pcap: Any = None, trace: Any = None) -> bool:
    """Whether the files run ``spec`` writes under ``pcap`` and ``trace``
    (directories, None: not asked for) are there (`runner.run_dir`): at
    least one ``.pcap`` file, and ``packets.parquet``."""
    if pcap is not None:
        d = runner.run_dir(pcap, spec)
        if not os.path.isdir(d) or not any(f.endswith(".pcap") for f in os.listdir(d)):
            return False
    if trace is not None:
        if not os.path.isfile(os.path.join(runner.run_dir(trace, spec), "packets.parquet")):
            return False
    return True


def execute(scn: Scenario, items: Optional[list] = None, *, jobs: Optional[int] = None,
            dask: Any = None, store: Optional[Store] = None, rerun: bool = False,
            on_start: Optional[Callable[[int, int], None]] = None,
            on_outcome: Optional[Callable[[RunOutcome, Optional[int]], None]] = None,
            on_progress: Optional[Callable] = None, pcap: Any = None,
            trace: Any = None, on_plan: Optional[Callable] = None) -> CampaignResult:
    """Validate, skip what the store has, run the rest, store each as it ends.

    ``pcap``: a directory; every run that runs writes one pcap file per
    interface under it (`runner.run_dir`); ``trace``: likewise, the
    per-packet trace (``packets.parquet``). A stored run whose files are
    not there runs again (``result.redo``).

    ``on_plan(result)`` is called once ``result.skipped`` and
    ``result.redo`` are known; ``on_start(n_to_run, n_skipped)`` before the
    first run;
    ``on_outcome(outcome, run_id)`` after each run is stored;
    ``on_progress(spec, sim_s, end_s, events, wall_s)`` within runs that run
    in this process (see `runner.run_all`). Raises
    InputError (before running anything) if any run is invalid.
    """
    if items is None:
        items = scn_mod.check_all(scn)
    version = core.version()
    planned = plan(items, version)
    res = CampaignResult(planned=planned, version=version)
    todo = planned
    stale: set = set()   # keys with a row to replace (rerun) or a failure to clear
    if store is not None:
        finished = store.finished_keys()
        stale = store.failure_keys()
        if rerun:
            stale |= finished
        else:
            stored = [p for p in planned if p.key in finished]
            res.redo = [p for p in stored if not has_files(p.spec, pcap, trace)]
            redo = {p.key for p in res.redo}
            res.skipped = [p for p in stored if p.key not in redo]
            stale |= redo
            todo = [p for p in planned if p.key not in finished or p.key in redo]
    if on_plan is not None:
        on_plan(res)
    if on_start is not None:
        on_start(len(todo), len(res.skipped))
    by_index = {p.spec.index: p for p in todo}
    work = [(p.spec, p.config) for p in todo]
    with store.one_thread() if store is not None else contextlib.nullcontext():
        _run(res, by_index, work, version, stale, store, on_outcome,
             jobs=jobs_for(scn, jobs), dask=dask_for(scn, dask), on_progress=on_progress, pcap=pcap,
             trace=trace)
    res.outcomes.sort(key=lambda x: x[0].spec.index)
    return res


def _run(res: CampaignResult, by_index: dict, work: list, version: str, stale: set,
         store: Optional[Store], on_outcome: Optional[Callable], jobs: int, dask: Any,
         on_progress: Optional[Callable] = None, pcap: Any = None, trace: Any = None) -> None:
    """Run ``work``, store each outcome as it comes, append it to ``res``."""
    for o in runner.run_all(work, jobs=jobs, dask=dask, on_progress=on_progress, pcap=pcap,
                            trace=trace):
        p = by_index[o.spec.index]
        if o.ok:
            got = o.result_version
            if isinstance(got, str) and got != version:
                o.error = (f"the worker's core is version {got}, this one {version}: "
                           "install the same wifitcp on every worker")
                o.result = None
                o.rows = None
        run_id = None
        if store is not None:
            if o.ok:
                run_id = store.add_run(
                    scenario=o.spec.scenario, scenario_hash=p.scenario_hash,
                    params=o.spec.params, seed=o.spec.seed, version=version,
                    wall_time_s=o.wall_time_s, config=o.config,
                    rows=o.store_rows(), result_json=o.result_json, key=p.key,
                    known_new=p.key not in stale)
            else:
                store.add_failure(
                    scenario=o.spec.scenario, scenario_hash=p.scenario_hash,
                    params=o.spec.params, seed=o.spec.seed, version=version,
                    error=o.error or "", wall_time_s=o.wall_time_s, config=o.config,
                    key=p.key)
        res.outcomes.append((o, run_id))
        if on_outcome is not None:
            on_outcome(o, run_id)


def open_store(path: str) -> Store:
    """The results store at ``path`` (created if missing); a store that
    cannot be opened is bad input (one line naming the path)."""
    try:
        return Store(path)
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(path, "", f"cannot open results store: {msg}") from None


def resumed_line(name: str, res: CampaignResult, out: Optional[str], pcap: Any = None,
                 trace: Any = None) -> Optional[str]:
    """What a campaign says before it runs when the store already had some
    of its runs (None if it had none): how many, how many it runs, and why
    stored ones run again (their files for ``--pcap``/``--trace``)."""
    stored = len(res.skipped) + len(res.redo)
    if not stored:
        return None
    line = (f"{name}: {stored} of {len(res.planned)} runs already in {out}, "
            f"running {len(res.planned) - len(res.skipped)}")
    if not res.redo:
        return line + " (--rerun runs them again)"
    asked = " and ".join(f"--{opt} {d}" for opt, d in (("pcap", pcap), ("trace", trace))
                         if d is not None)
    return line + f" ({len(res.redo)} of them again, to write their files for {asked})"


def run_with_progress(scn: Scenario, items: Optional[list], *, out: Optional[str],
                      jobs: Optional[int], dask: Any, replace: bool = False,
                      rerun: bool = False, progress: bool = True,
                      on_outcome: Optional[Callable[[RunOutcome, Optional[int]], None]] = None,
                      pcap: Any = None, trace: Any = None) -> CampaignResult:
    """Run (or resume) a campaign into the store at ``out`` (None: no store)
    with a progress display on stderr; returns its result, ``wall_s`` set.

    ``replace`` first deletes the scenario's runs from the store; a resumed
    campaign says on stderr how many runs the store already had
    (`resumed_line`). What `wifitcp run` and `wifitcp report --run` call.
    """
    from .progress import Progress

    store = open_store(out) if out else None
    bar = None
    t0 = time.perf_counter()

    def on_plan(res):
        line = resumed_line(scn.name, res, out, pcap=pcap, trace=trace)
        if line:
            print(line, file=sys.stderr, flush=True)

    def on_start(n, skipped):
        nonlocal bar
        bar = Progress(n, enabled=progress, label=scn.name)

    def outcome(o, run_id):
        bar.update(o.ok)
        if on_outcome is not None:
            on_outcome(o, run_id)

    try:
        if store is not None and replace:
            store.delete_scenario(scn.name)
        res = execute(scn, items, jobs=jobs, dask=dask, store=store, rerun=rerun,
                      on_start=on_start, on_outcome=outcome,
                      on_progress=lambda spec, *p: bar.within(spec.label, *p), pcap=pcap,
                      trace=trace, on_plan=on_plan)
    finally:
        if bar is not None:
            bar.close()
        if store is not None:
            store.close()
    res.wall_s = time.perf_counter() - t0
    return res
