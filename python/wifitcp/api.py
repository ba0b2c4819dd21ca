"""The Python API behind the CLI: run a scenario's sweep and record it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Optional, Union

from . import core, runner, scenario as scn_mod
from .errors import RunError
from .runner import RunOutcome
from .scenario import Scenario
from .store import Store

DEFAULT_RESULTS_DIR = "results"


def default_store_path(name: str) -> str:
    """``results/<scenario-name>.duckdb`` (relative to the working directory)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "scenario"
    return str(Path(DEFAULT_RESULTS_DIR) / f"{safe}.duckdb")


def load(scenario: Union[str, Path, dict], sets: Iterable[str] = (),
         seed: Optional[int] = None) -> Scenario:
    """A Scenario from a TOML path or an already-parsed document (dict)."""
    if isinstance(scenario, Scenario):
        if sets or seed is not None:
            raise ValueError("sets/seed apply when loading; pass a path or a dict")
        return scenario
    if isinstance(scenario, dict):
        return scn_mod.from_dict(scenario, sets=sets, seed=seed)
    return scn_mod.load(scenario, sets=sets, seed=seed)


def record(o: RunOutcome, version: str, run_id: Optional[int] = None) -> dict:
    """One run as a flat dict: the whole result plus run identification."""
    d = dict(o.result or {})
    d.update(scenario=o.spec.scenario, params=o.spec.params, seed=o.spec.seed,
             run_index=o.spec.index, run_id=run_id, wall_time_s=o.wall_time_s,
             version=version)
    if o.error:
        d["error"] = o.error
    return d


def execute(scn: Scenario, jobs: int = 1, store: Optional[Store] = None,
            on_outcome: Optional[Callable[[RunOutcome, Optional[int]], None]] = None,
            items: Optional[list] = None) -> list[tuple[RunOutcome, Optional[int]]]:
    """Validate every run, execute them (``jobs`` processes), store each.

    Raises InputError before running anything if any run is invalid.
    ``items`` are ``scenario.check_all(scn)`` if the caller already has them.
    Returns [(outcome, run_id), ...] sorted by run index.
    """
    if items is None:
        items = scn_mod.check_all(scn)
    version = core.version()
    done = []
    for o in runner.run_all(items, jobs=jobs):
        run_id = None
        if o.ok and store is not None:
            run_id = store.add_run(
                scenario=o.spec.scenario, scenario_hash=runner.config_hash(o.config),
                params=o.spec.params, seed=o.spec.seed, version=version,
                wall_time_s=o.wall_time_s, config=o.config, result=o.result or {},
                result_json=o.result_json)
        done.append((o, run_id))
        if on_outcome is not None:
            on_outcome(o, run_id)
    done.sort(key=lambda x: x[0].spec.index)
    return done


def run(scenario: Union[str, Path, dict], *, seed: Optional[int] = None,
        set: Iterable[str] = (), jobs: int = 1, out: Optional[Union[str, Path]] = None,
        replace: bool = False) -> list[dict]:
    """Run a scenario (path or dict) and return one dict per run.

    Each dict is the core's result (``aggregate_mbps``, ``flows``, ...) plus
    ``scenario``, ``params``, ``seed``, ``run_index``, ``run_id`` (when stored
    to ``out``) and ``wall_time_s``. ``set`` takes ``"dotted.key=VALUE"``
    overrides; ``seed`` runs only that seed. Raises `InputError` for bad
    input and `RunError` if a run fails.
    """
    scn = load(scenario, sets=set, seed=seed)
    store = None
    try:
        if out is not None:
            store = Store(out)
            if replace:
                store.delete_scenario(scn.name)
        done = execute(scn, jobs=jobs, store=store)
    finally:
        if store is not None:
            store.close()
    failed = [o for o, _ in done if not o.ok]
    if failed:
        raise RunError(f"{len(failed)} of {len(done)} runs failed; run {failed[0].spec.label}: "
                       f"{failed[0].error}")
    version = core.version()
    return [record(o, version, rid) for o, rid in done]
