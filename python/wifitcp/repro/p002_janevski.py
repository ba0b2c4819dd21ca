"""Janevski & Petrov, *Cross-layer Analysis of Transport Control Protocols
over IEEE 802.11 Wireless Networks* (paper 002,
``../shared/seeds/002_da027b964479e57b.txt``): TCP Tahoe, Reno, NewReno,
Vegas and SACK over 802.11g at 20 Mbit/s.

* Figs. 3-5: FTP throughput against the MAC retry limit L = 1..4, the
  interface queue (25 / 50 / 100 packets) and the distance (5-100 m)
  (``scenarios/janevski-static.toml``; ``docs/figures/janevski-fig3.png``,
  ``docs/figures/janevski-fig4-5.png``).
* Figs. 12-13, Tables 4 and 5: throughput and delay at 5 and 10 m with
  L = 3, the game traffic's delay, the UDP flows of Table 2
  (``scenarios/janevski-near.toml``; ``docs/figures/janevski-near.png``),
  and the settings the paper does not state, varied one at a time.
* Figs. 14-15, Table 6: FTP while n3 walks from BS0 to BS1 at 2, 4 and
  10 km/h and hands over, through the home agent and with a layer-2 update
  (``scenarios/janevski-mobility.toml``).
* Figs. 8-11, 14-15 and Table 6 on two channels (``handoff``): n3 hands
  over from BS0 to BS1 at 2-50 km/h, every variant, with what the hand-off
  cost (``scenarios/janevski-handoff.toml``; ``--speeds``, ``--seeds``,
  ``--fading rayleigh``, ``--set PATH=VALUE``, ``--grid figs8-11`` or
  ``figs14-15``: L = 1..4 x IFQ 25/50/100 at the figures' speeds).

Reproduce::

    python -m wifitcp.repro.p002_janevski [--quick] [--jobs 2] [--only static,mobility,handoff]
                                          [--figures docs/figures] [--no-figures] [--store]
                                          [--cache DIR]

prints one Markdown table per figure or table of the paper (simulation
beside what the paper states) and writes the PNG figures. ``--quick`` runs
one seed for a smoke test. docs/validation.md sections 5 (static) and 31.2
(mobility) discuss the numbers; ``scripts/mobility_walk.py`` (section 23.2)
tabulates goodput against distance on the paper's channel.

Only the figures' captions and the prose survive in the plain-text paper,
so the "paper" columns hold what the text states: orderings, and the
numbers of Tables 4 and 5.
"""

from __future__ import annotations

import json
import math
import sys
import time
import tomllib
from pathlib import Path
from typing import Optional

from .common import (parse_args, FIGURES, fmt, group, mean, occupancy_after, run_scenario, scenario_path, sd,
                     table)

PAPER = ("Janevski & Petrov, Cross-layer Analysis of Transport Control Protocols over "
         "IEEE 802.11 Wireless Networks (paper 002)")
#: part -> the scenario files it runs (``--only`` names parts)
PARTS = {
    "static": ["janevski-near", "janevski-static"],
    "mobility": ["janevski-mobility"],
    "handoff": ["janevski-handoff"],
}
SCENARIOS = [s for names in PARTS.values() for s in names]

# Janevski & Petrov, Table 5: average delay (ms) of the FTP flow, L = 3.
JP_TABLE5 = {
    # (variant, d): (IFQ 25, IFQ 50, IFQ 100)
    ("SACK", 5): (52.04, 53.48, 62.16),
    ("Vegas", 5): (60.67, 60.67, 60.67),
    ("NewReno", 5): (61.39, 58.37, 66.65),
    ("Reno", 5): (61.44, 53.51, 64.88),
    ("Tahoe", 5): (53.67, 54.58, 59.84),
    ("SACK", 10): (47.25, 52.31, 53.56),
    ("Vegas", 10): (55.05, 55.08, 55.08),
    ("NewReno", 10): (45.44, 47.27, 60.62),
    ("Reno", 10): (55.66, 52.77, 59.63),
    ("Tahoe", 10): (54.17, 49.66, 64.84),
}
# Janevski & Petrov, Table 4: average delay (ms) of the game traffic A1 -> n1,
# L = 3, n3 at 50 m.
JP_TABLE4 = {
    "Tahoe": (21.1711, 21.6210, 21.9826),
    "Reno": (21.2408, 21.2902, 21.9826),
    "NewReno": (21.2953, 21.4861, 21.7785),
    "Vegas": (21.0952, 21.0952, 21.0952),
    "SACK": (21.4726, 21.9197, 21.9386),
}
VARIANTS = ["Tahoe", "Reno", "NewReno", "Vegas", "SACK"]
IFQS = [25, 50, 100]


def jp_variant(p: dict) -> str:
    rec, cc = p.get("tcp.recovery"), p.get("tcp.cc")
    if cc == "vegas":
        return "Vegas"
    return {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"}[rec]


def jp_distance(p: dict, default: float) -> float:
    pos = p.get("wlan.positions[0]")
    return float(pos[0]) if pos else default


def jp_stats(r: dict) -> dict:
    ftp = next(f for f in r["flows"] if f["name"].startswith("ftp"))
    games = [f for f in r["flows"] if f["name"].startswith("game-down")]
    game = [f["mean_delay_ms"] for f in games]
    nan = float("nan")
    num = (lambda f, k: f.get(k) if isinstance(f.get(k), (int, float)) else nan)
    ap, n3 = r["stations"][0], r["stations"][1]
    acks_lost = n3.get("control_errors", 0)  # n3's MAC ACKs to BS1 the channel corrupted
    return {"tput": ftp["goodput_mbps"], "delay": ftp["mean_delay_ms"], "rto": ftp["tcp"]["timeouts"],
            "rtx": ftp["tcp"]["segments_retransmitted"],
            "per": ap["channel_errors"] / max(ap["attempts"], 1),
            "ack_per": acks_lost / max(ap["successes"] + acks_lost, 1),
            "fail": ap["failures"] / max(ap["attempts"], 1),
            "mac_drops": ap["drops"]["retry_limit"],
            "ifq_drops": r["queues"][0].get("dropped", {}).get("queue_full", 0),
            "occ": occupancy_after(r["queues"][0], r.get("warmup_s", 0.0), r.get("duration_s", 0.0)),
            "game_delay": game[0] if game else nan,
            # RFC 3550 jitter and delay percentiles (docs/results.md)
            "game_jitter": num(games[0], "jitter_ms") if games else nan,
            "game_p99": num(games[0], "delay_p99_ms") if games else nan,
            "jitter": num(ftp, "jitter_ms"), "p50": num(ftp, "delay_p50_ms"),
            "p99": num(ftp, "delay_p99_ms"),
            # Table 2's UDP flows: (mean delay, jitter, p99, loss) per name prefix
            "udp": {f["name"].split("/")[0]: (num(f, "mean_delay_ms"), num(f, "jitter_ms"),
                                             num(f, "delay_p99_ms"), num(f, "loss_ratio"))
                    for f in r["flows"] if f.get("kind") == "udp"}}


def jp_aggregate(runs: list[tuple[dict, float, int]]) -> dict:
    """Mean over seeds per (variant, distance, L, IFQ); each run comes with the
    distance and retry limit its file fixes when its params do not set them."""
    def key(item):
        r, d, L = item
        p = r["params"]
        return (jp_variant(p), jp_distance(p, d), p.get("mac.short_retry_limit", L), p["mac.queue_packets"])

    agg = {}
    for k, items in group(runs, key).items():
        by_seed = {}
        for it in items:  # the same configuration and seed from two files: once
            by_seed.setdefault(it[0]["seed"], it)
        st = [jp_stats(r) for r, _, _ in by_seed.values()]
        agg[k] = {x: mean(s[x] for s in st) for x in st[0] if x != "udp"}
        agg[k]["udp"] = {n: tuple(mean(s["udp"][n][i] for s in st) for i in range(4))
                         for n in st[0]["udp"]}
        agg[k]["tput_sd"] = sd(s["tput"] for s in st)
        agg[k]["n"] = len(st)
    return agg


def janevski_report(agg: dict) -> str:
    out = []
    # Fig. 3: NewReno vs distance
    rows = []
    for ifq in IFQS:
        for L in (1, 2, 3, 4):
            row = [ifq, L]
            for d in (5.0, 10.0, 50.0, 100.0):
                a = agg.get(("NewReno", d, L, ifq))
                row.append(f"{fmt(a['tput'])} ± {fmt(a['tput_sd'])}" if a else "-")
            rows.append(row)
    out.append("### Janevski & Petrov Fig. 3: NewReno FTP throughput (Mbit/s) vs distance\n\n"
               "Paper: throughput falls with distance; drastically lower at 100 m; more MAC retransmissions"
               " help (L = 3 and 4 equal); the IFQ matters at short distance, not at 100 m.\n\n"
               + table(["IFQ", "L", "5 m", "10 m", "50 m", "100 m"], rows))
    # per-attempt reception failures
    rows = []
    for d in (5.0, 10.0, 50.0, 100.0):
        a = agg.get(("NewReno", d, 4, 50))
        if a:
            rows.append([f"{d:g}", fmt(a["per"], 4), fmt(a["ack_per"], 4), fmt(a["fail"], 4),
                         fmt(a["mac_drops"], 1), fmt(a["ifq_drops"], 0), fmt(a["rto"], 1), fmt(a["occ"], 1)])
    out.append("NewReno, L = 4, IFQ 50: per AP attempt, data frames lost to the channel; n3's MAC ACKs lost"
               " to the channel (per ACK sent); AP attempts failed for any reason (channel, lost ACK,"
               " collision); MAC discards, IFQ drops and RTOs per run, mean AP queue\n\n"
               + table(["d (m)", "data lost/attempt", "ACKs lost/ACK", "failed/attempt", "MAC discards",
                        "IFQ drops", "RTOs", "AP queue (pkts)"], rows))
    # Figs. 4 and 5
    for d, fig in ((50.0, 4), (100.0, 5)):
        rows = []
        for ifq in IFQS:
            for L in (1, 2, 3, 4):
                row = [ifq, L]
                vals = {v: agg.get((v, d, L, ifq)) for v in VARIANTS}
                for v in VARIANTS:
                    row.append(fmt(vals[v]["tput"]) if vals[v] else "-")
                ok = {v: a["tput"] for v, a in vals.items() if a}
                row.append(", ".join(sorted(ok, key=lambda v: -ok[v])) if ok else "-")
                rows.append(row)
        claim = ("NewReno slightly above Reno; Vegas worst except at IFQ 25, where it is second after SACK."
                 if d == 50.0 else
                 "L = 4 needed for the best throughput; SACK best, Reno second except at IFQ 25 (NewReno and"
                 " Tahoe better); Vegas worst at L = 4, best at L = 3 (Tahoe worst there).")
        out.append(f"### Janevski & Petrov Fig. {fig}: FTP throughput (Mbit/s) of the variants, d = {d:g} m\n\n"
                   f"Paper: {claim}\n\n"
                   + table(["IFQ", "L"] + VARIANTS + ["order (best first)"], rows))
    # Table 4
    rows = []
    for v in VARIANTS:
        row = [v]
        for i, ifq in enumerate(IFQS):
            a = agg.get((v, 50.0, 3, ifq))
            row.append(f"{fmt(a['game_delay'], 2)} ({fmt(JP_TABLE4[v][i], 2)})" if a else "-")
        for ifq in IFQS:
            a = agg.get((v, 50.0, 3, ifq))
            row.append(f"{fmt(a['game_jitter'], 3)} / {fmt(a['game_p99'], 2)}" if a else "-")
        rows.append(row)
    out.append("### Janevski & Petrov Table 4: game traffic A1 -> n1 (via BS0), n3 at 50 m, L = 3\n\n"
               "Mean one-way delay in ms, simulation (paper). Paper: 21.1-22.0 ms, i.e. the 20 ms of wired"
               " delay plus 1-2 ms. Then the simulated RFC 3550 jitter / p99 delay in ms (the paper gives"
               " no jitter for Table 4).\n\n"
               + table(["variant", "IFQ 25", "IFQ 50", "IFQ 100", "jitter / p99 IFQ 25", "IFQ 50",
                        "IFQ 100"], rows))
    # Table 2's UDP flows beside the FTP
    rows = []
    for v in VARIANTS:
        a = agg.get((v, 50.0, 3, 50))
        for n, (dl, jt, p99, loss) in sorted((a or {}).get("udp", {}).items()):
            rows.append([v, n, fmt(dl, 2), fmt(jt, 3), fmt(p99, 2), fmt(loss, 4)])
    out.append("### Janevski & Petrov Table 2's UDP flows, n3 at 50 m, L = 3, IFQ 50\n\n"
               "Per flow (movie and chat from the synthetic traces, game from paper 002's periods and"
               " sizes), mean one-way delay, RFC 3550 jitter and p99 delay in ms, loss over the counted"
               " window.\n\n"
               + table(["variant", "flow", "mean delay", "jitter", "p99", "loss"], rows))
    # Fig. 13 and Table 5
    rows = []
    for d in (5.0, 10.0):
        for v in VARIANTS:
            row = [v, f"{d:g}"]
            paper = JP_TABLE5.get((v, int(d)))
            for i, ifq in enumerate(IFQS):
                a = agg.get((v, d, 3, ifq))
                row.append(f"{fmt(a['delay'], 1)} ({fmt(paper[i], 1)})" if a and paper else "-")
            sims = [agg[(v, d, 3, q)]["delay"] for q in IFQS if (v, d, 3, q) in agg]
            row.append(f"{fmt(mean(sims), 1)} ({fmt(mean(paper), 2)})" if sims and paper else "-")
            for ifq in IFQS:
                a = agg.get((v, d, 3, ifq))
                row.append(fmt(a["tput"]) if a else "-")
            for ifq in IFQS:
                a = agg.get((v, d, 3, ifq))
                row.append(f"{fmt(a['jitter'], 3)} / {fmt(a['p99'], 1)}" if a else "-")
            rows.append(row)
    out.append("### Janevski & Petrov Table 5 and Fig. 13: FTP at 5 and 10 m, L = 3\n\n"
               "Mean one-way delay of the FTP segments in ms, simulation (paper's Table 5), and the"
               " simulated throughput (Fig. 13; paper: the IFQ size matters, bigger is better; SACK best at"
               " 5 m, Tahoe best at 10 m with IFQ 50/100 and poor at IFQ 25).\n\n"
               + table(["variant", "d (m)", "delay IFQ 25", "IFQ 50", "IFQ 100", "overall",
                        "Mbit/s IFQ 25", "IFQ 50", "IFQ 100", "jitter / p99 ms IFQ 25", "IFQ 50",
                        "IFQ 100"], rows))
    return "\n\n".join(out)


# Settings J&P do not state, varied one at a time (NewReno, L = 3).
JP_SENSITIVITY = [
    ("as in the scenario files (802.11g ERP timing, ACK at 12 Mbit/s)", []),
    ("ACK/RTS/CTS at 1 Mbit/s, DSSS PLCP (ns-2 basicRate_)", ["phy.control_rate_mbps=1.0"]),
    ("all of ns-2's 802.11 defaults: slot 20 us, 192 us PLCP on every frame, CW 31, 1 Mbit/s control",
     ["phy.control_rate_mbps=1.0", "phy.slot_us=20.0", "phy.preamble_us=144.0", "phy.plcp_header_us=48.0",
      "phy.rx_phy_start_delay_us=192.0", "mac.cw_min=31"]),
    ("RTS/CTS before every data frame (ns-2 RTSThreshold_ 0)", ["mac.rts_threshold_bytes=0", "mac.long_retry_limit=4"]),
    ("receiver window 20 packets (ns-2 window_)", ["tcp.rwnd_packets=20"]),
]


def janevski_sensitivity(jobs: int, seeds: list[str], cache: Optional[Path] = None) -> str:
    rows = []
    base = ['sweep.cases=[{"tcp.recovery"="newreno"}]', "sweep.wlan.positions[0]=[[5.0,0.0],[100.0,0.0]]"]
    for label, sets in JP_SENSITIVITY:
        runs = run_scenario("janevski-near", jobs=jobs, sets=base + seeds + sets, cache=cache)
        agg = jp_aggregate([(r, 5.0, 3) for r in runs])
        for d in (5.0, 100.0):
            row = [label, f"{d:g}"]
            row += [fmt(agg[("NewReno", d, 3, q)]["tput"]) for q in IFQS]
            row += [fmt(agg[("NewReno", d, 3, q)]["delay"], 1) for q in IFQS]
            if d == 5.0:
                row += [" / ".join(fmt(x, 1) for x in JP_TABLE5[("NewReno", 5)])]
            else:
                row += ["-"]
            row += [" / ".join(fmt(agg[("NewReno", d, 3, q)]["game_delay"], 2) for q in IFQS)]
            rows.append(row)
    return ("### Janevski & Petrov: settings the paper does not state (NewReno, L = 3)\n\n"
            "Last column: the game traffic's delay A1 -> n1 (Table 4 gives 21.30 / 21.49 / 21.78 ms for"
            " NewReno with n3 at 50 m).\n\n"
            + table(["setting", "d (m)", "Mbit/s IFQ 25", "IFQ 50", "IFQ 100", "delay ms IFQ 25", "IFQ 50",
                     "IFQ 100", "Table 5 delay (5 m)", "game delay ms IFQ 25 / 50 / 100"], rows))


def janevski_figures(agg: dict, figdir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    # Fig. 3
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
    for i, ifq in enumerate(IFQS):
        for L in (1, 2, 3, 4):
            pts = sorted((d, a["tput"]) for (v, d, l, q), a in agg.items() if v == "NewReno" and l == L and q == ifq)
            if pts:
                ax[i].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=f"L = {L}")
        ax[i].set_title(f"NewReno, IFQ {ifq} (Fig. 3)", fontsize=9)
        ax[i].set_xlabel("distance n3 - BS1 (m)")
        ax[i].set_xscale("log")
        ax[i].set_xticks([5, 10, 50, 100], ["5", "10", "50", "100"])
        ax[i].grid(alpha=0.3)
    ax[0].set_ylim(bottom=0)
    ax[0].set_ylabel("FTP throughput (Mbit/s)")
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    p = figdir / "janevski-fig3.png"
    fig.savefig(p, dpi=90)
    plt.close(fig)
    paths.append(p)
    # Figs. 4 and 5
    fig, ax = plt.subplots(2, 1, figsize=(12, 6.5), sharey=True)
    for i, d in enumerate((50.0, 100.0)):
        labels = [f"{ifq}/{L}" for ifq in IFQS for L in (1, 2, 3, 4)]
        w = 0.16
        for j, v in enumerate(VARIANTS):
            ys = [agg.get((v, d, L, ifq), {}).get("tput", float("nan")) for ifq in IFQS for L in (1, 2, 3, 4)]
            ax[i].bar([x + (j - 2) * w for x in range(len(labels))], ys, width=w, label=v)
        ax[i].set_xticks(range(len(labels)), labels, fontsize=7)
        ax[i].set_title(f"d = {d:g} m (Fig. {4 if d == 50 else 5})", fontsize=9)
        ax[i].set_ylabel("FTP throughput (Mbit/s)")
        ax[i].grid(alpha=0.3, axis="y")
    ax[1].set_xlabel("IFQ (packets) / MAC retransmissions L")
    ax[0].legend(fontsize=7, ncol=5)
    fig.tight_layout()
    p = figdir / "janevski-fig4-5.png"
    fig.savefig(p, dpi=90)
    plt.close(fig)
    paths.append(p)
    # Fig. 13 and Table 5
    fig, ax = plt.subplots(1, 4, figsize=(14, 3.6))
    w = 0.16
    for i, d in enumerate((5.0, 10.0)):
        for j, v in enumerate(VARIANTS):
            xs = [x + (j - 2) * w for x in range(3)]
            ax[i].bar(xs, [agg.get((v, d, 3, q), {}).get("tput", float("nan")) for q in IFQS], width=w, label=v)
            ax[2 + i].bar(xs, [agg.get((v, d, 3, q), {}).get("delay", float("nan")) for q in IFQS], width=w,
                          label=v, color=f"C{j}")
            ax[2 + i].plot(xs, JP_TABLE5[(v, int(d))], ls="none", marker="_", ms=9, mew=2, color="k")
        ax[i].set_title(f"throughput, d = {d:g} m, L = 3 (Fig. 13)", fontsize=9)
        ax[2 + i].set_title(f"delay, d = {d:g} m (bars; Table 5: black)", fontsize=9)
        ax[i].set_ylabel("Mbit/s")
        ax[2 + i].set_ylabel("mean one-way delay (ms)")
        for a in (ax[i], ax[2 + i]):
            a.set_xticks(range(3), [f"IFQ {q}" for q in IFQS], fontsize=8)
            a.grid(alpha=0.3, axis="y")
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    p = figdir / "janevski-near.png"
    fig.savefig(p, dpi=90)
    plt.close(fig)
    paths.append(p)
    return paths



# -- Figs. 14-15, Table 6: the mobile scenario --------------------------------

def walk_speed_kmh(p: dict) -> Optional[float]:
    """The speed of n3's walk from its waypoints [t, x, y] (its last leg)."""
    wp = p.get("wlan.mobility[0].waypoints")
    if not wp or len(wp) < 2:
        return None
    (t0, x0, y0), (t1, x1, y1) = wp[-2][:3], wp[-1][:3]
    return round(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 / (t1 - t0) * 3.6, 1)


def mobility_report(runs: list, how: str) -> str:
    """FTP goodput per variant and speed (mean of the seeds, range), and the
    rank by it: Table 6 and Fig. 15."""
    g = group(runs, lambda r: (walk_speed_kmh(r["params"]), jp_variant(r["params"])))
    speeds = sorted({k[0] for k in g if k[0] is not None})
    rows = []
    for v in speeds:
        row = [f"{v:g} km/h"]
        got = {}
        for var in VARIANTS:
            xs = [next(f for f in r["flows"] if f["name"].startswith("ftp"))["goodput_mbps"]
                  for r in g.get((v, var), [])]
            if xs:
                got[var] = mean(xs)
                row.append(f"{fmt(got[var])} [{fmt(min(xs))}-{fmt(max(xs))}]")
            else:
                row.append("-")
        row.append(", ".join(sorted(got, key=lambda k: -got[k])) or "-")
        rows.append(row)
    return (f"### Janevski & Petrov Table 6 and Fig. 15: FTP while n3 hands over from BS0 to BS1 ({how})\n\n"
            "Paper (Table 6, rank by throughput): 2 km/h Tahoe, SACK, NewReno, Vegas, Reno; 4 km/h SACK,"
            " Vegas, NewReno, Reno, Tahoe; 10 km/h Tahoe, SACK, NewReno, Vegas, Reno; throughput falls with"
            " speed (Fig. 15). FTP goodput in Mbit/s after the warm-up, mean of the seeds [range].\n\n"
            + table(["speed"] + VARIANTS + ["rank"], rows))


# -- Figs. 8-11, 14-15, Table 6 on two channels: the hand-off scenario ---------

#: the goodput bins of the hand-off runs (`scenario.sample_interval_s`; the
#: sampling changes no simulated event)
HANDOFF_BIN_S = 0.1
#: Figs. 8-10 (every variant, L, IFQ at 15/25/50 km/h; Fig. 11: SACK, L = 3)
#: and Figs. 14-15 (the same at 2/4/10 km/h): speeds, L values, IFQ sizes
HANDOFF_GRIDS = {
    "figs8-11": ([15.0, 25.0, 50.0], [1, 2, 3, 4], [25, 50, 100]),
    "figs14-15": ([2.0, 4.0, 10.0], [1, 2, 3, 4], [25, 50, 100]),
}
#: `--fading rayleigh`: Rayleigh fading with the Doppler shift of the nodes'
#: motion at 2.437 GHz (802.11g channel 6) instead of the scenario's 914 MHz,
#: the transmit power raised by 20 log10(2437 / 914) dB so that every mean
#: received power (the shadowing channel, the hand-off point, carrier sense)
#: stays as it is: only the fading is added.
FADING_DB = 20 * math.log10(2437 / 914)


def handoff_row(r: dict) -> dict:
    """One hand-off run (a full record): the FTP flow's goodput over the
    counted window, its TCP counters and delay, the drops, each base
    station's attempts failed on the channel, and of the hand-off: its
    start, the outage (from the start to the end of the run of empty 100 ms
    bins that begins with the first bin after it), the frames lost, the
    time on the tunnel, and the goodput before it (from the window's start)
    and from 2 s after the reassociation to the end."""
    p = r.get("params", {})
    f = next(f for f in r["flows"] if f["name"].startswith("ftp"))
    hl = (r.get("handoffs") or {}).get("list", [])
    dropped = r["ledger"]["dropped"]
    row = {
        "kmh": walk_speed_kmh(p), "variant": jp_variant(p), "seed": r.get("seed"),
        "wall_time_s": r.get("wall_time_s"),
        "goodput": f["goodput_mbps"], "delay_ms": f["mean_delay_ms"],
        "timeouts": f["tcp"]["timeouts"], "fast_rtx": f["tcp"]["fast_retransmits"],
        "handoffs": len(hl), "ifq_drops": dropped.get("queue_full", 0),
        "retry_drops": dropped.get("retry_limit", 0),
    }
    st = {x["name"]: x for x in r["stations"]}
    for ap, key in (("ap1", "bs0_chan"), ("ap", "bs1_chan")):
        a = st[ap]
        row[key] = (a["channel_errors"] + a["control_errors"]) / a["attempts"] if a["attempts"] else 0.0
    if hl:
        h = hl[0]
        row.update(ho_start=h["start_s"], frames_lost=r["handoffs"]["frames_lost"],
                   tunnel_s=r["duration_s"] - h["end_s"])
        t = h["start_s"]
        for end, mbps in f["series"]:
            if end - HANDOFF_BIN_S < h["start_s"] - 1e-9:
                continue
            if mbps > 0:
                break
            t = end
        row["outage_s"] = t - h["start_s"]

        def rate(a: float, b: float) -> float:
            return mean(m for end, m in f["series"] if a - 1e-9 <= end - HANDOFF_BIN_S and end <= b + 1e-9)

        row["before"] = rate(r["warmup_s"], h["start_s"])
        row["after"] = rate(h["end_s"] + 2.0, r["duration_s"])
    return row


def handoff_report(rows: list, how: str) -> str:
    """Goodput per speed and variant (mean +- sd over the seeds, and the
    rank), then what the hand-off cost, means over the seeds."""
    by = group(rows, lambda r: (r["kmh"], r["variant"]))
    speeds = sorted({k for k, _ in by})
    n = len({r["seed"] for r in rows})
    good = []
    for k in speeds:
        means = {v: mean(r["goodput"] for r in by[(k, v)]) for v in VARIANTS}
        good.append([f"{k:g}"] + [f"{means[v]:.2f} ± {sd([r['goodput'] for r in by[(k, v)]]):.2f}"
                                  for v in VARIANTS]
                    + [", ".join(sorted(VARIANTS, key=lambda v: -means[v]))])
    cost = []
    for k in speeds:
        for v in VARIANTS:
            rs = by[(k, v)]
            ho = [r for r in rs if r["handoffs"]]
            m = lambda key, rs_=ho: mean(r[key] for r in rs_)   # noqa: E731
            cost.append([f"{k:g}", v, f"{m('ho_start'):.2f}", f"{m('outage_s'):.2f}", f"{m('frames_lost'):.1f}",
                         f"{m('tunnel_s'):.1f}", f"{m('before'):.2f} / {m('after'):.2f}",
                         f"{m('timeouts', rs):.1f}", f"{m('fast_rtx', rs):.1f}", f"{m('ifq_drops', rs):.1f}",
                         f"{m('retry_drops', rs):.1f}", f"{m('delay_ms', rs):.1f}",
                         f"{100 * m('bs0_chan', rs):.2f} / {100 * m('bs1_chan', rs):.2f}"])
    return (f"### Janevski & Petrov Figs. 8-11, 14-15, Table 6 on two channels ({how})\n\n"
            f"FTP goodput over 35-110 s, Mbit/s, mean ± sd over {n} seeds:\n\n"
            + table(["km/h"] + VARIANTS + ["rank (mean)"], good)
            + "\n\nMeans over the seeds:\n\n"
            + table(["km/h", "variant", "hand-off at (s)", "outage (s)", "frames lost at hand-off",
                     "on the tunnel (s)", "Mbit/s before / after", "RTOs", "fast rtx", "IFQ drops",
                     "retry drops", "delay (ms)", "BS0 / BS1 attempts failed on the channel (%)"], cost))


def handoff_grid_report(rows: list, grid: str) -> str:
    """Mean goodput per (variant, IFQ) row and L column, one block per speed."""
    speeds, Ls, ifqs = HANDOFF_GRIDS[grid]
    by = group(rows, lambda r: (r["kmh"], r["variant"], r["ifq"], r["L"]))
    n = len({r["seed"] for r in rows})
    out = [f"### Janevski & Petrov {grid}: FTP goodput over 35-110 s, Mbit/s, mean over {n} seeds, "
           "L MAC transmission attempts\n"]
    for k in speeds:
        out.append(f"{k:g} km/h:\n")
        out.append(table(["variant", "IFQ"] + [f"L = {L}" for L in Ls],
                         [[v, str(q)] + [f"{mean(r['goodput'] for r in by[(k, v, q, L)]):.2f}" for L in Ls]
                          for v in VARIANTS for q in ifqs]) + "\n")
    return "\n".join(out)


def handoff_runs(a, kw: dict, sets: list, speeds: Optional[set] = None) -> list:
    """The hand-off scenario's rows (`handoff_row`), with the options of the
    command line (``--seeds``, ``--fading``, ``--set``) and its walks kept
    to ``speeds`` (km/h; default ``--speeds``, else every walk)."""
    doc = tomllib.loads(scenario_path("janevski-handoff").read_text())
    extra = ["scenario.sample_interval_s=0.1"] + list(a.set or [])
    if a.seeds:
        extra.append(f"scenario.seeds=[{a.seeds}]")
    if a.fading:
        extra += ['channel.fading={model="rayleigh"}', "channel.propagation.frequency_hz=2.437e9",
                  f"channel.tx_power_dbm={doc['channel']['tx_power_dbm'] + FADING_DB}"]
    if speeds is None and a.speeds:
        speeds = {float(x) for x in a.speeds.split(",")}
    if speeds:
        key = "wlan.mobility[0].waypoints"
        walks = [w for w in doc["sweep"][key] if walk_speed_kmh({key: w}) in speeds]
        extra.append(f"sweep.{key}={json.dumps(walks)}")
    return run_scenario("janevski-handoff", sets=sets + extra, reduce=handoff_row, **kw)


def _handoff_options(ap) -> None:
    g = ap.add_argument_group("hand-off part (--only handoff)")
    g.add_argument("--speeds", default="", help="comma-separated km/h (default: every speed)")
    g.add_argument("--seeds", default="", help="comma-separated seeds (default: the scenario's)")
    g.add_argument("--fading", choices=["rayleigh"], help="add Rayleigh fading (FADING_DB above)")
    g.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                   help="scenario override, repeatable")
    g.add_argument("--grid", choices=sorted(HANDOFF_GRIDS),
                   help="MAC transmission attempts L = 1..4 x IFQ 25/50/100 at the figures' speeds")


# -- main --------------------------------------------------------------------

def main(argv: Optional[list] = None) -> int:
    a, want = parse_args("p002_janevski", __doc__, PARTS, argv, figures=FIGURES, extra=_handoff_options)
    cache = Path(a.cache) if a.cache else None
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    figdir = Path(a.figures)
    if not a.no_figures:
        figdir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    kw = dict(jobs=a.jobs, store=a.store, cache=cache)
    if "static" in want:
        runs = [(r, 5.0, 3) for r in run_scenario("janevski-near", sets=seeds, **kw)]
        runs += [(r, 50.0, 4) for r in run_scenario("janevski-static", sets=seeds, **kw)]
        agg = jp_aggregate(runs)  # NewReno at 5/10 m, L = 3 is in both files: seeds merged
        print(janevski_report(agg) + "\n", flush=True)
        if not a.no_figures:
            janevski_figures(agg, figdir)
        print(janevski_sensitivity(a.jobs, seeds, cache) + "\n", flush=True)
    if "mobility" in want:
        runs = run_scenario("janevski-mobility", sets=seeds, **kw)
        print(mobility_report(runs, "through the home agent") + "\n", flush=True)
        runs = run_scenario("janevski-mobility", sets=seeds + ['wlan.roaming.reroute="l2_update"'],
                            jobs=a.jobs, cache=cache)
        print(mobility_report(runs, "layer-2 update") + "\n", flush=True)
    if "handoff" in want:
        how = "with " + ", ".join(a.set) if a.set else "the scenario as written"
        if a.fading:
            how += ", Rayleigh fading"
        if a.grid:
            speeds, Ls, ifqs = HANDOFF_GRIDS[a.grid]
            rows = []
            for L in Ls:
                for q in ifqs:
                    got = handoff_runs(a, kw, seeds + [f"mac.short_retry_limit={L}", f"mac.long_retry_limit={L}",
                                                       f"mac.queue_packets={q}"], set(speeds))
                    rows += [dict(r, L=L, ifq=q) for r in got]
            print(handoff_grid_report(rows, a.grid) + "\n", flush=True)
        else:
            print(handoff_report(handoff_runs(a, kw, seeds), how) + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the claims beside the paper (``wifitcp report``) ---------------------------

def claims(full: bool = False, jobs: int = 2, cache: Optional[Path] = None):
    """The paper's claims beside this module's runs (`claims.PaperClaims`):
    the static scenarios (Figs. 3-5, 12-13, Tables 4-5), one seed unless
    ``full``; with ``full`` also the hand-off through the home agent
    (Table 6)."""
    from .claims import Claim, PaperClaims, pct, quick_sets, verdict, within

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    how = "scenario's seeds" if full else "seed 1"
    kw = dict(jobs=jobs, cache=cache, sets=quick_sets(full))
    out = PaperClaims("002", PAPER, __name__, cmd)
    runs = [(r, 5.0, 3) for r in run_scenario("janevski-near", **kw)]
    runs += [(r, 50.0, 4) for r in run_scenario("janevski-static", **kw)]
    agg = jp_aggregate(runs)
    out.tables.append(janevski_report(agg))
    src = f"scenarios/janevski-static.toml, {how}"
    static = f"{cmd} --only static"
    tp = {d: agg[("NewReno", d, 4, 50)]["tput"] for d in (5.0, 10.0, 50.0, 100.0)}
    v, c = verdict(tp[100.0] < 0.5 * tp[5.0] and tp[50.0] < 0.95 * tp[5.0], tp[100.0] < 0.5 * tp[5.0],
                   "only at 100 m: at 50 m the channel loses almost no frame")
    out.claims.append(Claim("002", "Fig. 3: throughput falls with distance, drastically at 100 m (NewReno, L = 4, "
                                   "IFQ 50)", "direction",
                            " / ".join(f"{tp[d]:.2f}" for d in tp) + " Mbit/s at 5 / 10 / 50 / 100 m",
                            v, c, static, src, "3.1"))
    by_l = [agg[("NewReno", 100.0, L, 50)]["tput"] for L in (1, 2, 3, 4)]
    rising = all(b > a for a, b in zip(by_l, by_l[1:]))
    v, c = verdict(rising, by_l[-1] > by_l[0], "not every added attempt helps")
    out.claims.append(Claim("002", "Figs. 3, 5: more MAC retransmissions give more throughput; L = 4 needed "
                                   "at 100 m (NewReno, IFQ 50)", "direction",
                            " / ".join(f"{x:.2f}" for x in by_l) + " Mbit/s for L = 1..4", v, c, static, src,
                            "3.1"))
    at100 = [agg[("NewReno", 100.0, 4, q)]["tput"] for q in IFQS]
    at5 = [agg[("NewReno", 5.0, 4, q)]["tput"] for q in IFQS]
    spread100 = max(at100) - min(at100)
    gain5 = pct(at5[-1], at5[0])
    v, c = verdict(spread100 < 0.2 and gain5 > 5.0, spread100 < 0.2 or gain5 > 5.0,
                   "the IFQ's effect is not where the paper puts it")
    out.claims.append(Claim("002", "Fig. 3: the IFQ does not matter at 100 m, matters at short distance "
                                   "(NewReno, L = 4)", "direction",
                            f"within {spread100:.2f} Mbit/s at 100 m; {gain5:+.0f} % from IFQ 25 to 100 at 5 m",
                            v, c, static, src, "3.1"))
    first = 0
    for q in IFQS:
        for L in (1, 2, 3, 4):
            cell = {var: agg[(var, 50.0, L, q)]["tput"] for var in VARIANTS if (var, 50.0, L, q) in agg}
            first += max(cell, key=cell.get) == "SACK"
    v, c = verdict(first >= 10, first >= 6, "variants 5-15 % apart, within the seed spread")
    out.claims.append(Claim("002", "Fig. 4: SACK the best variant at 50 m", "direction",
                            f"SACK first in {first} of 12 (IFQ, L) cells", v, c, static, src, "3.1"))
    near = f"scenarios/janevski-near.toml, {how}"
    overall = [mean(agg[(var, d, 3, q)]["delay"] for q in IFQS) for var in VARIANTS for d in (5.0, 10.0)]
    paper = [mean(JP_TABLE5[(var, int(d))]) for var in VARIANTS for d in (5.0, 10.0)]
    lo, hi = min(overall), max(overall)
    v, c = verdict(within(lo, 0.95 * min(paper), 1.05 * max(paper))
                   and within(hi, 0.95 * min(paper), 1.05 * max(paper)),
                   within(lo, 0.9 * min(paper), 1.1 * max(paper)) and within(hi, 0.9 * min(paper), 1.1 * max(paper)),
                   "below: three attempts keep BS1's queue short")
    out.claims.append(Claim("002", "Table 5: mean FTP delay at 5 and 10 m, L = 3 (overall per variant)",
                            f"{min(paper):.2f}-{max(paper):.2f} ms", f"{lo:.1f}-{hi:.1f} ms", v, c, static, near,
                            "3.2"))
    game = [agg[(var, 50.0, 3, q)]["game_delay"] for var in VARIANTS for q in IFQS]
    pg = [x for var in VARIANTS for x in JP_TABLE4[var]]
    lo, hi = min(game), max(game)
    v, c = verdict(within(lo, min(pg) - 1.5, max(pg) + 1.5) and within(hi, min(pg) - 1.5, max(pg) + 1.5),
                   within(hi, min(pg) - 5.0, max(pg) + 5.0), "the wired delays or BS0's queue differ")
    out.claims.append(Claim("002", "Table 4: the game traffic's mean delay, n3 at 50 m, L = 3",
                            f"{min(pg):.2f}-{max(pg):.2f} ms", f"{lo:.2f}-{hi:.2f} ms", v, c, static, src, "3.2"))
    if full:
        mob = run_scenario("janevski-mobility", jobs=jobs, cache=cache)
        out.tables.append(mobility_report(mob, "through the home agent"))
        moving = {var: mean(next(f for f in r["flows"] if f["name"].startswith("ftp"))["goodput_mbps"]
                            for r in mob if jp_variant(r["params"]) == var) for var in VARIANTS}
        below = [var for var in VARIANTS if moving[var] < agg[(var, 50.0, 4, 50)]["tput"]]
        v, c = verdict(len(below) == len(VARIANTS), bool(below), "the hand-off costs too little")
        out.claims.append(Claim("002", "Table 6: mobility lowers every variant's throughput", "direction",
                                f"{len(below)} of 5 variants below their static 50 m value "
                                f"(SACK {agg[('SACK', 50.0, 4, 50)]['tput']:.2f} -> {moving['SACK']:.2f} Mbit/s)",
                                v, c, f"python -m {__name__} --only mobility",
                                "scenarios/janevski-mobility.toml, scenario's seeds", "3.4"))
    return out
