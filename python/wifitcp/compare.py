"""Simulation versus Bianchi's DCF saturation model, from a results store.

Runs are grouped by configuration (``scenario_hash``: same config, several
seeds; only the latest run of each (config, seed) counts). For each group
the mean ``aggregate_msdu_mbps`` and ``collision_probability`` over seeds are
compared with `wifitcp.models.bianchi.from_scenario` on the stored config.
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


def compare(path: str, scenario: Optional[str] = None, collision: str = "eifs") -> list[dict]:
    """One row per configuration: sim mean/std vs model, with % error."""
    with Store(path, read_only=True) as st:
        where, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        runs = st.query(_LATEST.format(where=where), args)
    groups: dict = {}
    for r in runs:
        groups.setdefault(r["scenario_hash"], []).append(r)
    out = []
    for runs_of in groups.values():
        first = runs_of[0]
        config = json.loads(first["config_json"])
        tput = [r["aggregate_msdu_mbps"] for r in runs_of if r["aggregate_msdu_mbps"] is not None]
        pc = [r["collision_probability"] for r in runs_of if r["collision_probability"] is not None]
        row = {
            "scenario": first["scenario"], "params": json.loads(first["params"]),
            "seeds": len(runs_of), "config": config,
            "standard": (config.get("phy") or {}).get("standard"),
            "data_rate_mbps": (config.get("phy") or {}).get("data_rate_mbps"),
            "sim_mbps": statistics.fmean(tput) if tput else None,
            "sim_std": statistics.stdev(tput) if len(tput) > 1 else 0.0,
            "sim_p": statistics.fmean(pc) if pc else None,
        }
        found = bianchi.contenders(config)
        if found is None:
            row.update(n=None, model_mbps=None, model_p=None, err_pct=None, dp=None,
                       access=None)
        else:
            m = bianchi.from_scenario(config, collision=collision)
            row.update(n=found[0], model_mbps=m["throughput_mbps"], model_p=m["p"],
                       access=m["access"])
            row["err_pct"] = (100.0 * (row["sim_mbps"] - m["throughput_mbps"])
                              / m["throughput_mbps"]) if row["sim_mbps"] is not None else None
            row["dp"] = (row["sim_p"] - m["p"]) if row["sim_p"] is not None else None
        out.append(row)
    out.sort(key=lambda r: (r["scenario"], str(r["standard"]), r["data_rate_mbps"] or 0,
                            r["n"] or 0, params_label(r["params"])))
    return out


def render(rows: list[dict], collision: str = "eifs") -> str:
    headers = ["scenario", "phy", "access", "n", "seeds", "sim Mbit/s", "+-sd",
               "model Mbit/s", "err %", "sim p", "model p", "dp"]
    body = []
    for r in rows:
        phy = f"{r['standard']}@{fmt(r['data_rate_mbps'], 0)}"
        body.append([r["scenario"], phy, fmt(r["access"]), fmt(r["n"]), str(r["seeds"]),
                     fmt(r["sim_mbps"]), fmt(r["sim_std"]), fmt(r["model_mbps"]),
                     _pct(r["err_pct"]), fmt(r["sim_p"], 4), fmt(r["model_p"], 4),
                     _signed(r["dp"])])
    head = (f"DCF saturation: simulation (MSDU Mbit/s, mean over seeds) vs Bianchi "
            f"(retry-limited, T_c variant '{collision}')")
    return head + "\n" + table(headers, body, "lllrrrrrrrrr")


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.2f}"


def _signed(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.4f}"
