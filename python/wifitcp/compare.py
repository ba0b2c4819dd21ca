"""Simulation versus the analytical models, from a results store.

Bianchi's DCF saturation model (saturated single-size workloads), Pokhrel &
Williamson's Compound-TCP fixed point (TCP flows in ``channel.model =
"fixed"`` SNR classes, `wifitcp.models.pokhrel`) and the Mathis and Padhye
TCP throughput formulas (every TCP flow, fed with the flow's own loss-event
rate and RTT, `wifitcp.models.tcp_throughput`).

Runs are grouped by configuration (``scenario_hash``: same config, several
seeds; only the latest run of each (config, seed) counts). For each group:

* simulated throughput: mean (and sd) over seeds of ``aggregate_msdu_mbps``;
* simulated collision probability: collisions / channel-access attempts,
  summed over the stations of every run of the group. An attempt is a frame
  sent when the backoff ends (RTS with RTS/CTS, else the data frame); this
  is the conditional collision probability ``p`` of Bianchi's model;
* the model (`wifitcp.models.bianchi.from_scenario` on the stored config)
  with both collision-duration variants, ``eifs`` and ``difs``.

``wifitcp compare FILE`` prints the tables; so does
``python -m wifitcp.compare FILE [--scenario NAME]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Optional, Sequence

from .models import bianchi, pokhrel, tcp_throughput
from .models.errors import ModelError
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
        flows = {h: _flows(st, [r["run_id"] for r in rs]) for h, rs in groups.items()}
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
        row.update(_pokhrel_row(config, flows[h], len(runs_of)))
        row.update(_formula_row(config, flows[h]))
        out.append(row)
    out.sort(key=lambda r: (r["scenario"], r["mac"], str(r["standard"]), r["data_rate_mbps"] or 0,
                            r["n"] or 0, params_label(r["params"])))
    return out


def _flows(st: Store, run_ids: list) -> list:
    """The TCP flow rows of these runs (``extra`` parsed)."""
    if not run_ids:
        return []
    marks = ", ".join("?" for _ in run_ids)
    rows = st.query(f"SELECT run_id, name, kind, src, dst, goodput_mbps, packets_generated, "
                    f"extra FROM flows WHERE run_id IN ({marks}) AND kind = 'tcp'", run_ids)
    for r in rows:
        e = r.get("extra")
        r["extra"] = json.loads(e) if isinstance(e, str) else (e or {})
    return rows


def _pokhrel_row(config: dict, flows: list, seeds: int) -> dict:
    """Per-class simulated goodput (sum over the class's flows, mean over
    seeds) beside the Pokhrel fixed point, for TCP-only workloads in fixed
    SNR classes; empty fields otherwise (or when the model refuses the
    configuration, with the reason)."""
    row: dict = {"pokhrel_classes": None, "pokhrel_sim_mbps": None, "pokhrel_model_mbps": None,
                 "pokhrel_err_pct": None, "pokhrel_note": None}
    chan = config.get("channel") or {}
    traffic = config.get("traffic") or []
    if chan.get("model") != "fixed" or not chan.get("classes") or not flows:
        return row
    if any(t.get("kind", "udp") != "tcp" for t in traffic):
        return row
    try:
        classes = pokhrel.classes_from_scenario(config)
        res = pokhrel.from_scenario(config)
    except ModelError as e:
        row["pokhrel_note"] = str(e)
        return row
    members = {}
    for c in chan["classes"]:
        for sname in c.get("stations", []):
            members[sname] = c.get("name", "")
    sums = {c.name: 0.0 for c in classes}
    for f in flows:
        down = f["dst"] in members
        sta = f["dst"] if down else f["src"]
        key = f"{members.get(sta, '')}/{'down' if down else 'up'}"
        if key in sums and f["goodput_mbps"] is not None:
            sums[key] += f["goodput_mbps"]
    sim = [sums[c.name] / max(seeds, 1) for c in classes]
    row.update(pokhrel_classes=[c.name for c in classes], pokhrel_sim_mbps=sim,
               pokhrel_model_mbps=res.goodput_mbps,
               pokhrel_err_pct=[100.0 * (s / m - 1.0) if m else None
                                for s, m in zip(sim, res.goodput_mbps)])
    return row


def _formula_row(config: dict, flows: list) -> dict:
    """Mean over the TCP flows of simulated goodput, Mathis and Padhye, each
    flow fed with its own loss-event rate and smoothed RTT."""
    tcp = config.get("tcp") or {}
    got = []
    for f in flows:
        rec = dict(f["extra"])
        rec.update(name=f["name"], goodput_mbps=f["goodput_mbps"],
                   packets_generated=f["packets_generated"])
        r = tcp_throughput.from_flow(rec, mss=int(tcp.get("mss", 1460)),
                                     w_max=tcp.get("rwnd_packets"),
                                     min_rto_s=float(tcp.get("min_rto_ms", 200.0)) / 1e3,
                                     b=2 if tcp.get("delayed_ack", True) else 1)
        if r is not None and r["sim_mbps"] is not None:
            got.append(r)
    if not got:
        return {"tcp_flows": 0, "tcp_sim_mbps": None, "mathis_mbps": None, "padhye_mbps": None,
                "tcp_p": None, "tcp_rtt_ms": None}
    n = len(got)
    return {"tcp_flows": n, "tcp_sim_mbps": sum(r["sim_mbps"] for r in got) / n,
            "mathis_mbps": sum(r["mathis_mbps"] for r in got) / n,
            "padhye_mbps": sum(r["padhye_mbps"] for r in got) / n,
            "tcp_p": sum(r["p"] for r in got) / n,
            "tcp_rtt_ms": 1e3 * sum(r["rtt_s"] for r in got) / n}


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
    out = head + "\n" + table(headers, body, "llllrrrrrrrrrrr")
    pk = [r for r in rows if r.get("pokhrel_model_mbps")]
    if pk:
        hb = []
        for r in pk:
            for k, name in enumerate(r["pokhrel_classes"]):
                hb.append([r["scenario"], params_label(r["params"]), name, str(r["seeds"]),
                           fmt(r["pokhrel_sim_mbps"][k]), fmt(r["pokhrel_model_mbps"][k]),
                           _pct(r["pokhrel_err_pct"][k])])
        out += ("\n\nTCP over SNR classes: simulation (goodput summed over the class, mean over "
                "seeds) vs Pokhrel & Williamson's fixed point (docs/models.md).\n"
                + table(["scenario", "params", "class", "seeds", "sim Mbit/s", "model Mbit/s",
                         "err %"], hb, "lllrrrr"))
    tf = [r for r in rows if r.get("tcp_flows")]
    if tf:
        fb = [[r["scenario"], params_label(r["params"]), str(r["tcp_flows"]),
               fmt(r["tcp_p"], 4), fmt(r["tcp_rtt_ms"], 1), fmt(r["tcp_sim_mbps"], 3),
               fmt(r["mathis_mbps"], 3), fmt(r["padhye_mbps"], 3)] for r in tf]
        out += ("\n\nTCP throughput formulas per flow (mean over flows and seeds), fed with each "
                "flow's loss-event rate p = (fast retransmits + RTOs) / segments sent and its "
                "smoothed RTT.\n"
                + table(["scenario", "params", "flows", "p", "RTT ms", "sim Mbit/s",
                         "Mathis", "Padhye"], fb, "llrrrrrr"))
    return out


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.2f}"


def _signed(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:+.4f}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m wifitcp.compare FILE.duckdb [--scenario NAME]``."""
    ap = argparse.ArgumentParser(prog="python -m wifitcp.compare",
                                 description="Compare stored runs with the analytical models.")
    ap.add_argument("store", metavar="FILE.duckdb")
    ap.add_argument("--scenario", default=None, help="only this scenario name")
    args = ap.parse_args(argv)
    if not Path(args.store).is_file():
        ap.error(f"{args.store}: no such results store")
    print(render(compare(args.store, scenario=args.scenario)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
