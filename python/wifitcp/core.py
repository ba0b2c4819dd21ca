"""Typed access to the compiled simulator core (`wifitcp._core`).

Every function takes and returns Python objects; JSON crosses the boundary.
Tests may replace `_impl` with a fake object exposing the same four
functions (`version`, `check_config`, `run`, `phy_timing`).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `wifitcp --help` does without typing
    from typing import Any

_impl: Any = None


def impl() -> Any:
    """The object implementing the core API (the extension module)."""
    global _impl
    if _impl is None:
        try:
            from . import _core  # the compiled extension (maturin)
        except ImportError as e:
            raise RuntimeError(f"the simulator core wifitcp._core is not built ({e}); "
                               "run `make build`") from None
        _impl = _core
    return _impl


def to_json(config: dict) -> str:
    """Serialise a scenario document; TOML dates/times are rejected."""

    def reject(value: Any) -> Any:
        raise TypeError(f"unsupported value {value!r}")

    return json.dumps(config, default=reject, sort_keys=False)


def version() -> str:
    return impl().version()


def build_commit() -> str:
    """The git commit the core was built from, or "unknown"."""
    return impl().build_commit()


def check_config(config: dict) -> dict:
    """Validate `config`; return it normalised (all defaults filled).

    Raises ValueError("dotted.path: reason") for an invalid configuration.
    """
    return json.loads(impl().check_config(to_json(config)))


def run(config: dict, seed: int) -> dict:
    """Run one scenario with one seed; returns the parsed result."""
    return json.loads(impl().run(to_json(config), int(seed)))


def run_text(config_json: str, seed: int, progress: Any = None, pcap: Any = None,
             trace: Any = None) -> str:
    """Run one scenario given as JSON text; returns the result JSON text.

    The core checks for signals (Ctrl-C raises KeyboardInterrupt within
    about 50 ms of wall time) and calls ``progress(sim_s, end_s, events,
    wall_s)``, if given, between chunks of the run. ``pcap``: a directory
    the run writes one pcap file per interface into; ``trace``: one it
    writes its per-packet trace (``packets.parquet``) into.
    """
    if trace is not None:
        return impl().run(config_json, int(seed), progress, None if pcap is None else str(pcap),
                          str(trace))
    if pcap is not None:
        return impl().run(config_json, int(seed), progress, str(pcap))
    if progress is None:
        return impl().run(config_json, int(seed))
    return impl().run(config_json, int(seed), progress)


def schema() -> list:
    """The scenario schema: every key's type, default, range and unit."""
    return json.loads(impl().schema())


def phy_timing(config: dict, msdu_bytes: int) -> dict:
    """Derived PHY/MAC timing (ns) for a data frame carrying `msdu_bytes`."""
    return json.loads(impl().phy_timing(to_json(config), int(msdu_bytes)))


def available() -> bool:
    """True once the core can actually run scenarios (not a stub)."""
    try:
        impl().check_config("{}")
    except ValueError:
        return True
    except Exception:  # ImportError, RuntimeError("not implemented yet")
        return False
    return True
