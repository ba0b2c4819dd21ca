"""Cuzanauskas & Anskaitis, *TCP Performance in Multi-Polling Game
Theory-Based IEEE 802.11 Networks* (paper 000,
``../shared/seeds/000_07812f89e147e17b.txt``): PCF round-robin polling, the
multi-poll hybrid, TCP ACK filtering and the power-control game.

* Figs. 1-2 (``power``): the transmit-power game, eqs. 1-3, 30 users, the
  4 W cap and the capacity against the cap (`wifitcp.models.power_game`;
  a model, nothing simulated).
* Figs. 3-6 (``stations``): DCF, round-robin PCF and multi-poll as the
  number of downloading stations grows, everyone in range, and latency
  under load (``scenarios/multipoll-stations.toml``).
* Figs. 7-8 (``one-active``): one active station of 83, everyone in range
  (``scenarios/multipoll-one-active.toml``).
* Figs. 3-8 on the paper's outdoor cell (``cell``): 83 stations, 61 near
  and 22 at 5-6 km, hidden from each other (``scenarios/paper000-fig3.toml``,
  ``paper000-fig4.toml``, ``paper000-fig7-8.toml``).
* Figs. 7-8, 9 and 11 with the paper's polling as its devices do it
  (``txop``): polled TXOPs carrying A-MPDUs, a listed station sending only
  when polled (``scenarios/paper000-fig11-txop.toml``,
  ``paper000-fig9-txop.toml``, ``paper000-fig7-8-txop.toml``,
  ``paper000-fig3-4-txop.toml``).
* Section VI, Figs. 9-11 (``ackfilter``): the ACK-first buffer with
  redundant-ACK removal: one download over 802.11a with the filter off and
  on (``scenarios/multipoll-ackfilter.toml``,
  ``docs/figures/multipoll-ackfilter.png``), the same over 802.11n A-MPDUs
  (``scenarios/hcf-ackfilter-ht.toml``), and on polled 802.11n stations
  (``scenarios/paper000-fig9.toml``, ``paper000-fig10.toml``,
  ``paper000-fig11.toml``).

Reproduce::

    python -m wifitcp.repro.p000_cuzanauskas [--only power,stations,one-active,cell,ackfilter,txop]
                                             [--quick] [--jobs 2] [--figures docs/figures]
                                             [--no-figures] [--store] [--cache DIR]

prints one Markdown table per figure (per configuration, mean over seeds;
the ACK-filter scenarios also the removed share of ACKs and the uplink ACK
stream) and writes ``docs/figures/multipoll-ackfilter.png``. ``--quick``
runs one seed. docs/validation.md compares with the paper: section 12.6
(Figs. 1-2), 30.4-30.7 (Figs. 3-8), 10, 29 and 30.8 (section VI), 25.3 (the
outdoor cell).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

from .common import (parse_args, FIGURES, by_run, config_table, fmt, group, mean, mean_ci, params_label, pyplot,
                     run_scenario, save_figure, summarise, table)

PAPER = ("Cuzanauskas & Anskaitis, TCP Performance in Multi-Polling Game Theory-Based "
         "IEEE 802.11 Networks (paper 000)")
#: part -> the scenario files it runs (``--only`` names parts)
PARTS = {
    "power": [],
    "stations": ["multipoll-stations"],
    "one-active": ["multipoll-one-active"],
    "cell": ["paper000-fig3", "paper000-fig4", "paper000-fig7-8"],
    "ackfilter": ["multipoll-ackfilter", "hcf-ackfilter-ht", "paper000-fig9", "paper000-fig10",
                  "paper000-fig11"],
    "txop": ["paper000-fig11-txop", "paper000-fig9-txop", "paper000-fig7-8-txop", "paper000-fig3-4-txop"],
}
SCENARIOS = [s for names in PARTS.values() for s in names]

#: what each scenario reproduces, and what the paper says of it
CLAIMS = {
    "multipoll-stations": ("Figs. 3-6, everyone in range",
                           "polling above the DCF, multi-poll above round robin with the gap growing "
                           "with the stations; latency under load rising with the load, lower with "
                           "multi-poll (Fig. 6)."),
    "multipoll-one-active": ("Figs. 7-8, one active station of 83, everyone in range",
                             "multi-poll about 20 % above round robin (Fig. 8); the idle station's "
                             "RTT steadier and lower with multi-poll (Fig. 7)."),
    "paper000-fig3": ("Fig. 3 on the outdoor cell (60 stations, hidden nodes)",
                      "polling above the DCF, multi-poll above round robin."),
    "paper000-fig4": ("Figs. 4-5 on the outdoor cell, 10-83 stations",
                      "multi-poll above round robin, the gap growing with the stations."),
    "paper000-fig7-8": ("Figs. 7-8 on the outdoor cell, one active station of 83",
                        "multi-poll about 20 % above round robin; the idle station's RTT lower "
                        "and steadier with multi-poll."),
    "paper000-fig9": ("Fig. 9, ACK filtering under multi-poll, 1-8 sessions",
                      "about 18 % of the packets are redundant ACKs removed, throughput not "
                      "reduced."),
    "paper000-fig10": ("Fig. 10, 60 stations with duplex TCP",
                       "multi-poll with the filter about 10 % above round robin without it."),
    "paper000-fig11-txop": ("Fig. 11 with polled TXOPs carrying A-MPDUs, listed stations sending only "
                            "when polled, polling cycle 5-20 ms",
                            "94 Mbit/s down; the uplink ACK stream falls from 2-2.5 to 0.3-0.5 Mbit/s."),
    "paper000-fig9-txop": ("Fig. 9 with polled TXOPs carrying A-MPDUs, 5 ms polling cycle, 1-8 sessions",
                           "about 18 % of the packets are redundant ACKs removed, throughput not "
                           "reduced."),
    "paper000-fig7-8-txop": ("Figs. 7-8 with polled TXOPs carrying A-MPDUs, one active station of 83, "
                             "everyone in range, EDCA / round robin / multi-poll",
                             "multi-poll about 20 % above round robin (Fig. 8); the idle station's "
                             "RTT up to five times lower with multi-poll (Fig. 7)."),
    "paper000-fig3-4-txop": ("Figs. 3-5 with polled TXOPs carrying A-MPDUs, n downloads, everyone in range, "
                             "EDCA / round robin / multi-poll",
                             "polling above the DCF (Fig. 3); multi-poll above round robin, the gap "
                             "growing with the stations (Fig. 4); latency rising with the load (Fig. 5)."),
    "paper000-fig11": ("Fig. 11, one download, the filter off and on",
                       "94 Mbit/s down; the uplink ACK stream falls from 2-2.5 to "
                       "0.3-0.5 Mbit/s."),
}


# -- Figs. 1-2: the power-control game ---------------------------------------

def power_report() -> str:
    from ..models import power_game

    rows = []
    for label, kw in (("default geometry (aligned antennas, 0 dBi across)", {}),
                      ("cross-link antenna gain 20 dB", {"cross_gain_db": 20.0}),
                      ("cross-link antenna gain 33 dB (omnidirectional)", {"cross_gain_db": 33.0})):
        e = power_game.fig1(**kw)
        at_cap = sum(1 for p in e.powers if p >= e.p_max - 1e-9)
        silent = sum(1 for p in e.powers if p <= 1e-9)
        rows.append([label, fmt(e.mean_power_w), at_cap, silent, fmt(max(e.powers)), e.iterations])
    fig2 = power_game.fig2()
    out = ["### Cuzanauskas & Anskaitis Fig. 1: 30 users, 4 W cap, Nash equilibrium of eq. (3)\n",
           "Paper: average power about 3 W; nobody rises indefinitely.\n",
           table(["geometry", "mean power (W)", "at the cap", "silent", "max power (W)", "rounds"], rows),
           "\n### Cuzanauskas & Anskaitis Fig. 2: capacity against the power cap (30 users)\n",
           "Paper: the capacity rises with the allowed power.\n",
           table(["cap (W)", "sum capacity (bit/s/Hz)", "mean power (W)"],
                 [[f"{c:g}", fmt(cap, 1), fmt(p)] for c, cap, p in fig2])]
    return "\n".join(out)


# -- Figs. 3-11: the simulated figures ---------------------------------------

def figure_report(name: str, runs: list) -> str:
    what, claim = CLAIMS.get(name, (name, ""))
    seeds = sorted({r["seed"] for r in runs})
    return (f"### Cuzanauskas & Anskaitis {what} (scenarios/{name}.toml, seeds {seeds})\n\n"
            + (f"Paper: {claim}\n\n" if claim else "") + config_table(runs))


def ack_filter_table(runs: list) -> str:
    """Per configuration, mean over seeds: ACKs the filters removed per run,
    their share of the packets on the AP's wired link (both directions), and
    the AP -> server packets as 66-octet Ethernet frames over the whole run
    (the uplink TCP ACK stream when every flow is a download)."""
    rows = []
    for _, g in group(by_run(runs), lambda r: json.dumps(r["params"], sort_keys=True)).items():
        removed = [r["ledger_dropped"].get("ack_filtered", 0) for r in g]
        wire = [sum(l.get("sent", 0) for l in r["links"]) for r in g]
        up = [sum(l.get("sent", 0) for l in r["links"] if l.get("from") == "ap") * 66 * 8
              / r["duration_s"] / 1e6 for r in g]
        rows.append([params_label(g[0]["params"]), len(g),
                     fmt(mean(r["agg"] for r in g)), fmt(mean(removed), 0),
                     fmt(100 * mean(a / max(1, b) for a, b in zip(removed, wire)), 1) + " %",
                     fmt(mean(up), 2)])
    return table(["configuration", "seeds", "total Mbit/s", "ACKs removed per run",
                  "removed / packets on the AP's wire", "AP -> server Mbit/s (66-octet frames)"], rows)


# -- Section VI on 802.11a and 802.11n A-MPDUs: one download, ACK filter ------

def multipoll_table(runs: list, title: str = "multipoll-ackfilter (one download, 802.11a 54 Mbit/s; "
                    "mean over seeds)") -> tuple:
    """ACK filter at the station of a single download; returns (text, rows)."""
    rows = []
    for r in runs:
        p = r["params"]
        secs = r["duration_s"] - r.get("warmup_s", 0.0)
        dur = r["duration_s"]
        up = next(l for l in r["links"] if l["from"] == "ap")
        down = next(l for l in r["links"] if l["to"] == "ap")
        sta = next(s for s in r["stations"] if s["name"] == "sta0")
        ap_filtered = (r["queue"].get("dropped") or {}).get("ack_filtered", 0)
        filtered = r["ledger_dropped"].get("ack_filtered", 0) - ap_filtered
        acks_sent = up["sent"]                      # ACKs that reached the wire
        acks_generated = acks_sent + filtered       # + removed at the station
        data = down["sent"]                         # data segments into the AP
        ack_ip_bytes = 20 + 20 + 12                 # IPv4 + TCP + timestamps option
        rows.append({
            "delayed_ack": p.get("tcp.delayed_ack"), "filter": p.get("wlan.station_qdisc.kind"),
            "seed": r["seed"], "goodput": r["agg"],
            "removed_share_all": filtered / max(1, data + acks_generated),
            "removed_share_acks": filtered / max(1, acks_generated),
            "ack_mbps": acks_sent * ack_ip_bytes * 8 / dur / 1e6,
            "acks_per_data": acks_sent / max(1, data),
            "sta_airtime_share": sta["airtime_s"] / dur,
            "timeouts": sum(f["timeouts"] or 0 for f in r["flows"]),
            "secs": secs,
        })
    out = [f"\n## {title}",
           "\n| delayed ACK | station/AP queue | downlink goodput (Mbit/s) | ACKs removed / all packets | ACKs removed / ACKs | uplink ACK IP bitrate (Mbit/s) | ACKs sent per data segment | station airtime share | RTOs per run |",
           "|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(x["delayed_ack"], x["filter"]) for x in rows}, key=lambda k: (not k[0], k[1] != "drop-tail"))
    for k in keys:
        xs = [x for x in rows if (x["delayed_ack"], x["filter"]) == k]
        m = lambda f: sum(x[f] for x in xs) / len(xs)
        out.append(f"| {'on (every 2nd)' if k[0] else 'off (every segment)'} | {k[1]} | {m('goodput'):.2f} | "
                   f"{100 * m('removed_share_all'):.1f} % | {100 * m('removed_share_acks'):.1f} % | {m('ack_mbps'):.3f} | "
                   f"{m('acks_per_data'):.3f} | {100 * m('sta_airtime_share'):.1f} % | {m('timeouts'):.1f} |")
    return "\n".join(out), rows


def multipoll_fig(rows: list, path: Path):
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.2))
    groups = [(True, "delayed ACK on"), (False, "delayed ACK off")]
    for ax, key, ylabel in ((axes[0], "goodput", "downlink goodput (Mbit/s)"),
                            (axes[1], "ack_mbps", "uplink ACK IP bitrate (Mbit/s)"),
                            (axes[2], "removed_share_all", "ACKs removed / all packets")):
        for gi, (da, gl) in enumerate(groups):
            for fi, (filt, col) in enumerate((("drop-tail", "0.6"), ("ack-first", "tab:green"))):
                xs = [x[key] for x in rows if x["delayed_ack"] == da and x["filter"] == filt]
                if not xs:
                    continue
                m, h = mean_ci(xs)
                ax.bar(gi * 3 + fi, m, yerr=h, color=col, capsize=3,
                       label=("filter off" if filt == "drop-tail" else "ACK-first + filter") if gi == 0 else None)
        ax.set_xticks([0.5, 3.5])
        ax.set_xticklabels([g[1] for g in groups])
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(loc="lower right")
    fig.suptitle("Paper 000 section VI on 802.11a 54 Mbit/s: one TCP download, ACK filter at the station", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


# -- main --------------------------------------------------------------------

def main(argv: Optional[list] = None) -> int:
    a, want = parse_args("p000_cuzanauskas", __doc__, PARTS, argv, figures=FIGURES)
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    kw = dict(jobs=a.jobs, store=a.store, cache=Path(a.cache) if a.cache else None,
              reduce=summarise, sets=seeds)
    t0 = time.monotonic()
    if "power" in want:
        print(power_report() + "\n", flush=True)
    for part in ("stations", "one-active", "cell"):
        if part in want:
            for name in PARTS[part]:
                print(figure_report(name, run_scenario(name, **kw)) + "\n", flush=True)
    if "ackfilter" in want:
        runs = run_scenario("multipoll-ackfilter", **kw)
        text, rows = multipoll_table(runs)
        print(text + "\n", flush=True)
        if not a.no_figures:
            multipoll_fig(rows, Path(a.figures) / "multipoll-ackfilter.png")
        runs = run_scenario("hcf-ackfilter-ht", **kw)
        text, _ = multipoll_table(runs, "hcf-ackfilter-ht (one download, 802.11n A-MPDUs under "
                                        "EDCA; mean over seeds)")
        print(text + "\n", flush=True)
        for name in ("paper000-fig9", "paper000-fig10", "paper000-fig11"):
            runs = run_scenario(name, **kw)
            print(figure_report(name, runs) + "\n\n" + ack_filter_table(runs) + "\n", flush=True)
    if "txop" in want:
        for name in ("paper000-fig11-txop", "paper000-fig9-txop"):
            runs = run_scenario(name, **kw)
            print(figure_report(name, runs) + "\n\n" + ack_filter_table(runs) + "\n", flush=True)
        for name in ("paper000-fig7-8-txop", "paper000-fig3-4-txop"):
            print(figure_report(name, run_scenario(name, **kw)) + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
