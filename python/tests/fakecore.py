"""A small stand-in for `wifitcp._core` used by unit tests.

It validates a subset of the scenario schema (enough to produce the same
kinds of "dotted.path: reason" errors as the real core), fills defaults, and
returns deterministic, seed-dependent results of the contract's shape.
"""

from __future__ import annotations

import json
import random

SCHEMA = {
    "scenario": {"name": str, "description": str, "duration_s": float},
    "phy": {"standard": str, "data_rate_mbps": float, "control_rate_mbps": float},
    "mac": {"cw_min": int, "cw_max": int, "short_retry_limit": int, "long_retry_limit": int,
            "rts_threshold_bytes": int, "queue_packets": int},
    "wlan": {"stations": int, "per_uplink": float, "per_downlink": float},
}
TRAFFIC = {"name": str, "kind": str, "pattern": str, "direction": str, "stations": object,
           "msdu_bytes": int, "rate_mbps": float, "start_s": float, "stop_s": float}
DEFAULTS = {
    "scenario": {"description": "", "duration_s": 10.0},
    "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
    "mac": {"cw_min": 15, "cw_max": 1023, "short_retry_limit": 7, "long_retry_limit": 4,
            "rts_threshold_bytes": 65535, "queue_packets": 50},
    "wlan": {"stations": 1, "per_uplink": 0.0, "per_downlink": 0.0},
}
TRAFFIC_DEFAULTS = {"kind": "udp", "pattern": "saturated", "direction": "uplink",
                    "stations": "all", "msdu_bytes": 1500, "rate_mbps": 1.0, "start_s": 0.0}


def _check_type(path, value, typ):
    if typ is object:
        return
    if typ is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, typ) and not isinstance(value, bool)
    if not ok:
        raise ValueError(f"{path}: expected {typ.__name__}, got {type(value).__name__}")


def normalise(doc: dict) -> dict:
    out = {}
    for key in doc:
        if key not in SCHEMA and key != "traffic":
            raise ValueError(f"{key}: unknown key")
    for section, fields in SCHEMA.items():
        given = doc.get(section, {})
        if not isinstance(given, dict):
            raise ValueError(f"{section}: expected a table")
        for k, v in given.items():
            if k not in fields:
                raise ValueError(f"{section}.{k}: unknown key")
            _check_type(f"{section}.{k}", v, fields[k])
        out[section] = {**DEFAULTS.get(section, {}), **given}
    if "name" not in out["scenario"]:
        raise ValueError("scenario.name: required")
    if out["wlan"]["stations"] < 1:
        raise ValueError("wlan.stations: must be at least 1")
    if out["phy"]["standard"] not in ("802.11a", "802.11b", "802.11g"):
        raise ValueError(f"phy.standard: unknown standard {out['phy']['standard']!r}")
    traffic = []
    for i, t in enumerate(doc.get("traffic", [])):
        for k, v in t.items():
            if k not in TRAFFIC:
                raise ValueError(f"traffic[{i}].{k}: unknown key")
            _check_type(f"traffic[{i}].{k}", v, TRAFFIC[k])
        t = {**TRAFFIC_DEFAULTS, **t}
        if isinstance(t["stations"], list):
            for j, k in enumerate(t["stations"]):
                if k >= out["wlan"]["stations"]:
                    raise ValueError(f"traffic[{i}].stations[{j}]: station {k} does not exist")
        traffic.append(t)
    out["traffic"] = traffic
    return out


class FakeCore:
    calls = 0

    @staticmethod
    def version() -> str:
        return "0.0.0-fake"

    @staticmethod
    def build_commit() -> str:
        return "unknown"

    @staticmethod
    def check_config(text: str) -> str:
        return json.dumps(normalise(json.loads(text)))

    @classmethod
    def run(cls, text: str, seed: int, progress=None) -> str:
        cls.calls += 1
        cfg = normalise(json.loads(text))
        if progress is not None:
            end = float(cfg["scenario"]["duration_s"])
            progress(end, end, 0, 0.0)
        rng = random.Random(f"{seed}/{json.dumps(cfg, sort_keys=True)}")
        n = cfg["wlan"]["stations"]
        flows, stations = [], []
        for t in cfg["traffic"]:
            for s in range(n):
                g = 20.0 / n * (0.9 + 0.2 * rng.random())
                flows.append({"name": f"{t.get('name', 'flow')}/sta{s}", "kind": t["kind"],
                              "src": f"sta{s}", "dst": "ap", "goodput_mbps": g,
                              "msdu_mbps": g * 1.03, "packets_generated": 1000 + s,
                              "packets_delivered": 990 + s, "bytes_delivered": 1_485_000,
                              "mean_delay_ms": 1.5, "future_metric": [1, 2]})
        for s in range(n):
            stations.append({"name": f"sta{s}", "attempts": 1000, "successes": 900,
                             "collisions": 100, "retries": 95,
                             "drops": {"retry_limit": 1, "queue_full": 2, "other": 3},
                             "collision_probability": 0.1, "airtime_ns": 5})
        agg = sum(f["goodput_mbps"] for f in flows)
        return json.dumps({
            "scenario": cfg["scenario"]["name"], "duration_s": cfg["scenario"]["duration_s"],
            "events": 1000 * n + seed, "aggregate_mbps": agg, "aggregate_msdu_mbps": agg * 1.03,
            "collision_probability": 0.1, "flows": flows, "stations": stations,
            "ledger": {"generated": 10, "delivered": 9, "in_flight": 1,
                       "dropped": {"queue_full": 0}},
            "new_top_level": {"x": 1},
        })

    @staticmethod
    def phy_timing(text: str, msdu_bytes: int) -> str:
        normalise(json.loads(text))
        return json.dumps(A54(msdu_bytes))


def A54(msdu_bytes: int) -> dict:
    """802.11a 54 Mbit/s timing (ns), control responses at 24 Mbit/s."""
    mpdu = msdu_bytes + 28  # MAC header 24 + FCS 4
    sym = -(-(16 + 8 * mpdu + 6) // 216)
    return {"slot_ns": 9000, "sifs_ns": 16000, "difs_ns": 34000, "eifs_ns": 94000,
            "ack_timeout_ns": 75000, "cts_timeout_ns": 75000, "data_ns": 20000 + 4000 * sym,
            "ack_ns": 28000, "rts_ns": 28000, "cts_ns": 28000, "cw_min": 15, "cw_max": 1023,
            "short_retry_limit": 7, "long_retry_limit": 4, "rts_threshold_bytes": 65535,
            "data_rate_mbps": 54.0, "control_rate_mbps": 24.0, "mpdu_bytes": mpdu,
            "msdu_bytes": msdu_bytes}
