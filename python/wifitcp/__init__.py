"""wifitcp: simulate, model and improve TCP over IEEE 802.11.

Quick use::

    import wifitcp
    df = wifitcp.run("scenarios/quick-check.toml", seed=1)          # a data frame
    df = wifitcp.sweep("scenarios/quick-check.toml", {"wlan.stations": "1..5"},
                       seeds="1..3", out="results/qc.duckdb")      # resumable
    runs = wifitcp.run("scenarios/quick-check.toml", frame="records")
    runs[0]["aggregate_mbps"], runs[0]["flows"][0]["goodput_mbps"]

The per-packet simulator is the compiled core ``wifitcp._core`` (Rust);
this package loads scenarios, expands sweeps, runs them in parallel, stores
results in DuckDB and holds the analytical models (``wifitcp.models``).
"""

from __future__ import annotations

from .api import load, run, sweep
from .errors import InputError, RunError
from .scenario import Scenario
from .store import Store

try:
    from importlib.metadata import version as _dist_version

    __version__ = _dist_version("wifitcp")
except Exception:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = ["run", "sweep", "load", "Scenario", "Store", "InputError", "RunError", "__version__"]
