"""Simulation versus Bianchi's DCF saturation model, from a results store.

Runs are grouped by configuration (``scenario_hash``: same config, several
seeds; only the latest run of each (config, seed) counts). For each group:

* simulated throughput: mean (and sd) over seeds of ``aggregate_msdu_mbps``;
* simulated collision probability: collisions / channel-access attempts,
  summed over the stations of every run of the group. An attempt is a frame
  sent when the backoff ends (RTS with RTS/CTS, else the data frame); this
  is the conditional collision probability ``p`` of Bianchi's model;
* the model (`wifitcp.models.bianchi.from_scenario` on the stored config)
  with both collision-duration variants, ``eifs`` and ``difs``.
"""

from __future__ import annotations

import json
import statistics
from typing import Optional

from .models import bianchi
from .report import fmt, params_label, table
from .store import Store

_LATEST = """
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY scenario_hash, seed ORDER BY run_id DESC) AS k
  FROM runs {where}
) WHERE k = 1 ORDER BY run_id
"""

VARIANTS = ("eifs", "classic")


def _contention(st: Store, run_ids: list) -> tuple[int, int]:
    """(collisions, attempts) summed over the stations of these runs."""
    if not run_ids:
        return 0, 0
    marks = ", ".join("?" for _ in run_ids)
    row = st.query(f"SELECT sum(collisions) AS c, sum(attempts) AS a FROM stations "
                   f"WHERE run_id IN ({marks})", run_ids)[0]
    return int(row["c"] or 0), int(row["a"] or 0)


def compare(path: str, scenario: Optional[str] = None) -> list[dict]:
    """One row per configuration: simulation vs model, with % errors."""
    with Store(path, read_only=True) as st:
        where, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        runs = st.query(_LATEST.format(where=where), args)
        groups: dict = {}
        for r in runs:
            groups.setdefault(r["scenario_hash"], []).append(r)
        contention = {h: _contention(st, [r["run_id"] for r in rs]) for h, rs in groups.items()}
    out = []
    for h, runs_of in groups.items():
        first = runs_of[0]
        config = json.loads(first["config_json"])
        tput = [r["aggregate_msdu_mbps"] for r in runs_of if r["aggregate_msdu_mbps"] is not None]
        col, att = contention[h]
        phy = config.get("phy") or {}
        mac = config.get("mac") or {}
        row = {
            "scenario": first["scenario"], "params": json.loads(first["params"]),
            "seeds": len(runs_of), "config": config,
            "standard": phy.get("standard"), "data_rate_mbps": phy.get("data_rate_mbps"),
            "mac": mac_label(mac),
            "sim_mbps": statistics.fmean(tput) if tput else None,
            "sim_sd": statistics.stdev(tput) if len(tput) > 1 else 0.0,
            "sim_p": col / att if att else None, "attempts": att, "collisions": col,
            "n": None, "access": None, "model_p": None, "dp": None,
        }
        for v in VARIANTS:
            row[f"model_{v}_mbps"] = row[f"err_{v}_pct"] = None
        found = bianchi.contenders(config)
        if found is not None:
            row["n"] = found[0]
            for v in VARIANTS:
                m = bianchi.from_scenario(config, collision=v)
                row["access"], row["model_p"] = m["access"], m["p"]
                row[f"model_{v}_mbps"] = m["throughput_mbps"]
                if row["sim_mbps"] is not None:
                    row[f"err_{v}_pct"] = 100.0 * (row["sim_mbps"] / m["throughput_mbps"] - 1.0)
            if row["sim_p"] is not None:
                row["dp"] = row["sim_p"] - row["model_p"]
        out.append(row)
    out.sort(key=lambda r: (r["scenario"], r["mac"], str(r["standard"]), r["data_rate_mbps"] or 0,
                            r["n"] or 0, params_label(r["params"])))
    return out


def mac_label(mac: dict) -> str:
    """Short name of the MAC's contention rules: "std" for the standard
    defaults, "bianchi" for busy-slot counting + EIFS restart."""
    rule = mac.get("backoff_rule", "idle-slots")
    restart = mac.get("collision_restart", "ack-timeout-difs")
    if (rule, restart) == ("idle-slots", "ack-timeout-difs"):
        return "std"
    if (rule, restart) == ("busy-slot-counts", "eifs"):
        return "bianchi"
    return f"{rule}/{restart}"


def render(rows: list[dict]) -> str:
    headers = ["scenario", "mac", "phy", "access", "n", "seeds", "sim Mbit/s", "sd",
               "Bianchi/EIFS", "err %", "Bianchi/DIFS", "err %", "sim p", "model p", "dp"]
    body = []
    for r in rows:
        phy = f"{r['standard']}@{fmt(r['data_rate_mbps'], 0)}"
        body.append([r["scenario"], r["mac"], phy, fmt(r["access"]), fmt(r["n"]), str(r["seeds"]),
                     fmt(r["sim_mbps"]), fmt(r["sim_sd"]),
                     fmt(r["model_eifs_mbps"]), _pct(r["err_eifs_pct"]),
                     fmt(r["model_classic_mbps"]), _pct(r["err_classic_pct"]),
                     fmt(r["sim_p"], 4), fmt(r["model_p"], 4), _signed(r["dp"])])
    head = ("DCF saturation: simulation (MSDU Mbit/s, mean over seeds) vs Bianchi with retry "
            "limit.\nT_c = DATA + EIFS (Bianchi/EIFS) or DATA + DIFS (Bianchi/DIFS: "
            "same-slot collisions destroy the PLCP headers, so bystanders defer DIFS);\n"
            "p = collisions per channel access.\nmac: std = 802.11 "
            "backoff (counters frozen while busy; colliders resume after ACKTimeout+DIFS);"
            "\n     bianchi = the model's assumptions (counters move in busy slots; "
            "colliders resume after EIFS). See docs/results.md.")
    return head + "\n" + table(headers, body, "llllrrrrrrrrrrr")


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.2f}"


def _signed(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.4f}"
