"""A scenario's network stepped from Python, with per-packet callbacks.

``wifitcp.run`` runs a campaign to the end; ``Network`` holds one run in
memory and lets a notebook step it in simulated time, look at it between
steps and watch (or drop) the packets arriving at a node::

    import wifitcp
    net = wifitcp.Network("scenarios/quick-check.toml", seed=1)
    seen = []
    net.on_packet("ap", lambda t, node, local, p: seen.append((t, p["size"])))
    net.step_until(0.5)          # seconds of simulated time
    net.now, len(seen)
    result = net.finish()        # runs on to the end: the same result as wifitcp.run's

A callback is ``callback(t, node, local, packet)`` with the packet as a dict
(``id``, ``flow``, ``src``, ``dst``, ``proto``, ``size``, ``payload``,
ports, and for TCP ``seq``, ``ack``, ``flags``, ``window``, ``sack``); its
return value decides the packet's fate: ``None`` or ``"pass"``, ``"drop"``
(counted under the ledger reason ``proxy``) or ``"consume"``. It is one
Python call per packet at that node: meant for exploring, not for
campaigns. An exception in a callback is raised by the ``step_until`` that
ran it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Union

from . import core
from . import scenario as scn_mod
from .scenario import Scenario


class Network:
    """One run of a scenario, stepped by the caller.

    ``scenario`` is a TOML path, a dict or a Scenario; ``set`` overrides
    keys; a sweep picks its run with ``run`` (an index into the runs, grid x
    cases x seeds); ``seed`` overrides the seed.
    """

    def __init__(self, scenario: Union[str, Path, dict, Scenario], seed: Optional[int] = None,
                 set: Iterable = (), run: int = 0) -> None:
        from .api import load

        scn = load(scenario, sets=set, seed=seed)
        runs = scn.runs()
        if not 0 <= run < len(runs):
            raise ValueError(f"run: the scenario has {len(runs)} runs, got index {run}")
        spec = runs[run]
        scn_mod.check_run(spec, scn.file)  # bad input: one InputError naming the key
        self.spec = spec
        self._net = core.impl().Network(core.to_json(spec.config), int(spec.seed))

    def step_until(self, t: float) -> None:
        """Handle every event due by ``t`` seconds (at most the end)."""
        self._net.step_until(float(t))

    @property
    def now(self) -> float:
        """The instant of the last event handled, in seconds."""
        return self._net.now

    @property
    def end(self) -> float:
        return self._net.end

    @property
    def next_wakeup(self) -> Optional[float]:
        """When the next event is due (seconds), or None."""
        return self._net.next_wakeup

    def node_index(self, name: str) -> Optional[int]:
        return self._net.node_index(name)

    def state(self) -> dict:
        """The run's live state now: ``time_s``; ``stations``, per WLAN
        member its ``name``, ``position_m`` (``[x, y, z]`` where it is now,
        moving stations included; None without a channel with positions),
        ``queue_len`` (packets in its transmit queue)
        and MAC counters (``attempts``, ``retries``, ``successes``,
        ``failures``, ``drops_retry_limit``, ``rx_errors``,
        ``rx_delivered``); ``tcp``, per TCP flow its ``flow`` name,
        ``sender`` node, ``state``, ``cwnd_bytes``, ``ssthresh_bytes``
        (None before the first loss), ``srtt_ms`` (None before the first
        sample), ``in_flight_bytes`` and ``segments_retransmitted``. Asking
        changes nothing in the run."""
        return json.loads(self._net.state())

    def _repr_html_(self) -> str:
        """The live state as two HTML tables (how a notebook shows a
        `Network` that is the last value of a cell)."""
        from html import escape

        st = self.state()

        def table(rows: list, cols: list) -> str:
            head = "".join(f"<th>{escape(c)}</th>" for c in cols)
            body = "".join("<tr>" + "".join(f"<td>{escape(_cell(r.get(c)))}</td>" for c in cols) + "</tr>"
                           for r in rows)
            return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

        out = [f"<p>wifitcp.Network at t = {st['time_s']:.6f} s of {self.end:g} s</p>",
               table(st["stations"], ["name", "position_m", "queue_len", "attempts", "successes",
                                      "retries", "failures", "drops_retry_limit"])]
        if st["tcp"]:
            out.append(table(st["tcp"], ["flow", "sender", "state", "cwnd_bytes", "ssthresh_bytes",
                                         "srtt_ms", "in_flight_bytes", "segments_retransmitted"]))
        return "".join(out)

    def stations(self):
        """`state`'s per-station values as a polars DataFrame."""
        import polars as pl

        return pl.DataFrame(self.state()["stations"])

    def tcp(self):
        """`state`'s per-TCP-flow values as a polars DataFrame."""
        import polars as pl

        return pl.DataFrame(self.state()["tcp"])

    def on_packet(self, node: str, callback: Callable[[float, int, bool, dict], Any]) -> None:
        """Call ``callback`` for every packet arriving at ``node``."""
        self._net.on_packet(node, callback)

    def finish(self) -> dict:
        """Run on to the scenario's end and return the result (a dict, the
        same as a run's, whatever steps were taken)."""
        self._net.step_until(self._net.end)
        return json.loads(self._net.finish())


def _cell(v: Any) -> str:
    """One value of the live state as table text."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, list):
        return "(" + ", ".join(f"{x:.1f}" for x in v) + ")"
    return str(v)
