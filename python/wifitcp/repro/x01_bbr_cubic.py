"""BBR against CUBIC sharing one Wi-Fi bottleneck, with FIFO, FQ-CoDel or
CAKE at the AP: a reproduction beyond the five seed papers.

The finding compared with: a 2025 testbed study of BBRv3 over Wi-Fi 6
found that FIFO at the AP lets CUBIC dominate BBR and that FQ-CoDel or
CAKE restore fairness.

``scenarios/bbr-cubic-wifi.toml``: four stations on 802.11g 54 Mbit/s, one
bulk TCP flow each (sta0 and sta2 BBR v1, sta1 and sta3 CUBIC) to or from a
server 10 ms behind the AP; the AP's queue discipline drop-tail (300
packets), FQ-CoDel or CAKE (unshaped, triple-isolate); the flows all
downlink, all uplink, or both (sta0/sta1 download, sta2/sta3 upload); 40 s
with 10 s of warm-up, seeds 1-3.

Reproduce::

    python -m wifitcp.repro.x01_bbr_cubic [--quick] [--jobs 2] [--store] [--cache DIR]

prints one table: per AP discipline and direction, the goodput of the two
BBR flows and of the two CUBIC flows (Mbit/s, mean over seeds), BBR's
share of the total, Jain's index over the four flows and the flows' mean
smoothed RTT. ``--quick`` runs seed 1 only. docs/validation.md section
16.11 states the finding beside the testbed's.

Deviations from the testbed: BBR v1 (the simulator has no BBRv3), 802.11g
without aggregation (the testbed's Wi-Fi 6 aggregates), CAKE unshaped at
the AP (the testbed's placement of its shaper is not modelled).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

from .common import fmt, group, mean, parse_args, run_scenario, summarise, table

PAPER = ("BBR against CUBIC over one Wi-Fi AP with FIFO, FQ-CoDel or CAKE (beyond the seeds: "
         "a 2025 testbed study of BBRv3 over Wi-Fi 6)")
PARTS = {"share": ["bbr-cubic-wifi"]}
SCENARIOS = [s for names in PARTS.values() for s in names]
QDISCS = ["drop-tail", "fq-codel", "cake"]
DIRECTIONS = ["downlink", "uplink", "both"]
FINDING = ("FIFO at the AP lets CUBIC dominate BBR; FQ-CoDel or CAKE restore fairness "
           "(2025 testbed study of BBRv3 over Wi-Fi 6).")


def direction(r: dict) -> str:
    """The case of a run: all four flows downlink, all uplink, or both."""
    p = r["params"]
    d = {p.get(f"traffic[{i}].direction") for i in range(4)}
    return "both" if len(d) > 1 else d.pop()


def shares(runs: list) -> dict:
    """(qdisc, direction) -> dict of means over the seeds: ``bbr`` and
    ``cubic`` (Mbit/s, the two flows of each), ``share`` (BBR's share of the
    total), ``jain`` (over the four flows), ``srtt`` (ms, mean over flows)."""
    g = group(runs, lambda r: (r["params"].get("ap.qdisc.kind"), direction(r)))
    out = {}
    for k, rs in g.items():
        bbr = [sum(f["goodput"] for f in r["flows"] if f["name"].startswith("bbr")) for r in rs]
        cub = [sum(f["goodput"] for f in r["flows"] if f["name"].startswith("cubic")) for r in rs]
        out[k] = {"bbr": mean(bbr), "cubic": mean(cub),
                  "share": mean(b / (b + c) for b, c in zip(bbr, cub) if b + c > 0),
                  "jain": mean(r["jain"] for r in rs),
                  "srtt": mean(mean(f["srtt_ms"] for f in r["flows"] if f["srtt_ms"] is not None) for r in rs),
                  "seeds": len(rs)}
    return out


def share_table(runs: list) -> str:
    s = shares(runs)
    rows = []
    for q in QDISCS:
        for d in DIRECTIONS:
            x = s.get((q, d))
            if x:
                rows.append([q, d, fmt(x["bbr"]), fmt(x["cubic"]), fmt(x["share"], 3), fmt(x["jain"], 3),
                             fmt(x["srtt"], 1), str(x["seeds"])])
    seeds = sorted({r["seed"] for r in runs})
    return (f"### BBR against CUBIC through one AP (scenarios/bbr-cubic-wifi.toml, seeds {seeds})\n\n"
            f"Testbed: {FINDING}\n\n"
            + table(["AP discipline", "direction", "BBR flows (Mbit/s)", "CUBIC flows (Mbit/s)", "BBR share",
                     "Jain (4 flows)", "mean srtt (ms)", "seeds"], rows))


def main(argv: Optional[list] = None) -> int:
    a, _ = parse_args("x01_bbr_cubic", __doc__, PARTS, argv)
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    t0 = time.monotonic()
    runs = run_scenario("bbr-cubic-wifi", sets=seeds, store=a.store, jobs=a.jobs,
                        cache=Path(a.cache) if a.cache else None, reduce=summarise)
    print(share_table(runs) + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the claims beside the testbed's finding (``wifitcp report``) --------------

def claims(full: bool = False, jobs: int = 2, cache: Optional[Path] = None):
    """The testbed's finding beside this module's runs (`claims.PaperClaims`)."""
    from .claims import Claim, PaperClaims, quick_sets, verdict, within

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    how = "scenario's seeds" if full else "seed 1"
    runs = run_scenario("bbr-cubic-wifi", sets=quick_sets(full), jobs=jobs, cache=cache, reduce=summarise)
    out = PaperClaims("x01", PAPER, __name__, cmd)
    out.tables.append(share_table(runs))
    s = shares(runs)
    where = f"scenarios/bbr-cubic-wifi.toml, {how}"
    nan = {"share": float("nan"), "jain": float("nan")}
    fifo = s.get(("drop-tail", "downlink"), nan)
    v, c = verdict(fifo["share"] < 0.4, fifo["share"] < 0.5,
                   "BBR v1's 2 x BDP cwnd against CUBIC filling the 300-packet FIFO: CUBIC ahead, not dominant")
    out.claims.append(Claim("x01", "FIFO at the AP lets CUBIC dominate BBR (downloads)", "direction: CUBIC dominates",
                            f"BBR share {fifo['share']:.3f}, Jain {fifo['jain']:.3f}", v, c, cmd, where, "16.11"))
    for q, label, cause in (("fq-codel", "FQ-CoDel", "BBR's standing queue draws CoDel's drops"),
                            ("cake", "CAKE", "BBR's flows lose more to COBALT than to CoDel (742 against "
                                             "584 AQM drops, 2-3 RTOs per BBR flow against none; seed 1)")):
        x = s.get((q, "downlink"), nan)
        v, c = verdict(within(x["share"], 0.45, 0.55) and x["jain"] >= 0.95, within(x["share"], 0.4, 0.6), cause)
        out.claims.append(Claim("x01", f"{label} at the AP restores fairness (downloads)",
                                "direction: fair shares", f"BBR share {x['share']:.3f}, Jain {x['jain']:.3f}",
                                v, c, cmd, where, "16.11"))
    both = [s.get((q, "both"), nan)["share"] for q in ("fq-codel", "cake")]
    v, c = verdict(all(within(x, 0.45, 0.55) for x in both), all(within(x, 0.4, 0.6) for x in both),
                   "the downloads' and uploads' shares are set by the DCF, not by the AP's discipline")
    out.claims.append(Claim("x01", "FQ-CoDel or CAKE at the AP restore fairness, flows both ways",
                            "direction: fair shares", f"BBR share {both[0]:.3f} (FQ-CoDel), {both[1]:.3f} (CAKE)",
                            v, c, cmd, where, "16.11"))
    up = [s.get((q, "uplink"), nan)["share"] for q in ("fq-codel", "cake")]
    v, c = verdict(all(within(x, 0.45, 0.55) for x in up), all(within(x, 0.4, 0.6) for x in up),
                   "uploads contend at the stations: CUBIC's stations make twice BBR's attempts "
                   "(34-36 k against 16 k, FQ-CoDel, seed 1); the AP holds only their ACKs")
    out.claims.append(Claim("x01", "FQ-CoDel or CAKE at the AP restore fairness, uploads",
                            "direction: fair shares", f"BBR share {up[0]:.3f} (FQ-CoDel), {up[1]:.3f} (CAKE)",
                            v, c, cmd, where, "16.11"))
    return out
