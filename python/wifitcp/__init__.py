"""wifitcp: simulate, model and improve TCP over IEEE 802.11.

Quick use::

    import wifitcp
    df = wifitcp.run("scenarios/quick-check.toml", seed=1)          # a data frame
    df = wifitcp.sweep("scenarios/quick-check.toml", {"wlan.stations": "1..5"},
                       seeds="1..3", out="results/qc.duckdb")      # resumable
    runs = wifitcp.run("scenarios/quick-check.toml", frame="records")
    runs[0]["aggregate_mbps"], runs[0]["flows"][0]["goodput_mbps"]
    res = wifitcp.load("results/qc.duckdb")      # a store: tidy tables
    res.runs, res.flows, res.series, res.stations, res.queues   # pandas (frame="polars")

The per-packet simulator is the compiled core ``wifitcp._core`` (Rust);
this package loads scenarios, expands sweeps, runs them in parallel, stores
results in DuckDB and holds the analytical models (``wifitcp.models``).
"""

from __future__ import annotations

import os as _os

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `wifitcp --help` does without typing
    from typing import Any as _Any

from .errors import InputError, RunError

#: public name -> the module defining it, imported on first use: importing
#: `wifitcp` (as ``wifitcp --help`` does) loads none of them, nor DuckDB,
#: pandas, numpy or scipy (python/tests/test_startup.py); a submodule is
#: imported likewise when first named (``wifitcp.scenario``)
_LAZY = {"run": "api", "sweep": "api", "Network": "network", "Scenario": "scenario",
         "Store": "store", "Results": "tidy"}


def load(source: _Any, *args: _Any, **kwargs: _Any) -> _Any:
    """A results store's tidy tables, or a scenario.

    ``load("results/x.duckdb", scenario=None, frame=None)`` (a path ending in
    ``.duckdb``, or a `Store`) returns `Results`: ``.runs``, ``.flows``,
    ``.series``, ``.stations``, ``.queues``, ... as pandas or polars frames,
    ``.write(dir)`` for Parquet (`wifitcp.tidy`). Anything else is a scenario
    (a TOML path or a dict; ``sets=``, ``seed=``) and returns a `Scenario`.
    """
    from . import api
    from .store import Store
    from .tidy import Results

    if isinstance(source, Store) or (isinstance(source, (str, _os.PathLike))
                                     and _os.fspath(source).endswith(".duckdb")):
        return Results(source, *args, **kwargs)
    return api.load(source, *args, **kwargs)


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    # `__version__` is looked up lazily: importlib.metadata costs about 30 ms
    # of start-up, which every CLI call would pay.
    if name == "__version__":
        try:
            from importlib.metadata import version as _dist_version

            v = _dist_version("wifitcp")
        except Exception:  # pragma: no cover - running from a source tree
            v = "0.0.0+unknown"
        globals()["__version__"] = v
        return v
    if not name.startswith("_"):  # a submodule, as `wifitcp.scenario`
        from importlib import import_module

        try:
            return import_module(f".{name}", __name__)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'wifitcp' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


__all__ = ["run", "sweep", "load", "Network", "Results", "Scenario", "Store", "InputError", "RunError",
           "__version__"]
