"""Partitioned and windowed runs through the Python API:
``scenario.threads`` changes the wall time only; the result JSON of 1, 2
and every thread is the same text but for ``wall_time_s``, also when the
run reports its progress in chunks (crates/sim/src/world/part.rs and
window.rs; the Rust side in crates/sim/tests/partitioned.rs)."""

from __future__ import annotations

import json
import re

from wifitcp import core


def campus(aps: int, per_ap: int, threads: int) -> str:
    n = aps * per_ap
    names = ["ap" if k == 0 else f"ap{k}" for k in range(aps)]
    return json.dumps({
        "scenario": {"name": "campus", "duration_s": 0.3, "threads": threads},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n, "aps": aps, "association": [i % aps for i in range(n)],
                 "ap_channels": [36 + 4 * k for k in range(aps)]},
        "ap": {"beacons": False},
        "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500,
                     "peer": [names[i % aps] for i in range(n)]}],
    })


def strip_wall(text: str) -> str:
    return re.sub(r'"wall_time_s": *[0-9.e+-]+', "", text)


def test_threads_change_nothing_but_the_wall_time() -> None:
    chunks: list[float] = []
    seq = core.run_text(campus(8, 4, 1), 3)
    two = core.run_text(campus(8, 4, 2), 3, progress=lambda sim_s, end_s, events, wall_s: chunks.append(sim_s))
    every = core.run_text(campus(8, 4, 0), 3)
    assert strip_wall(seq) == strip_wall(two) == strip_wall(every)
    assert len(chunks) > 1 and abs(chunks[-1] - 0.3) < 1e-9, chunks
    assert json.loads(seq)["aggregate_mbps"] > 8 * 20


def test_cells_joined_by_wired_links_same_result_in_windows() -> None:
    def tcp_campus(threads: int) -> str:
        s = json.loads(campus(3, 2, threads))
        s["scenario"]["duration_s"] = 1.0
        s["nodes"] = [{"name": "router"}, {"name": "server"}]
        s["links"] = [{"a": a, "b": "router", "rate_mbps": 1000.0, "delay_ms": 0.5} for a in ("ap", "ap1", "ap2")]
        s["links"].append({"a": "router", "b": "server", "rate_mbps": 10000.0, "delay_ms": 5.0})
        s["traffic"] = [{"name": "dl", "kind": "tcp", "direction": "downlink", "peer": "server"}]
        return json.dumps(s)
    chunks: list[float] = []
    seq = core.run_text(tcp_campus(1), 2)
    two = core.run_text(tcp_campus(2), 2, progress=lambda sim_s, end_s, events, wall_s: chunks.append(sim_s))
    assert strip_wall(seq) == strip_wall(two)
    assert len(chunks) > 1 and abs(chunks[-1] - 1.0) < 1e-9, chunks
    assert json.loads(seq)["aggregate_mbps"] > 10


def test_threads_out_of_range_is_one_line_naming_the_key() -> None:
    try:
        core.run_text(campus(2, 1, 5000), 1)
    except Exception as e:  # the core's configuration error
        assert "scenario.threads" in str(e)
    else:
        raise AssertionError("threads = 5000 was accepted")
