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
* Section VI asked again on 802.11ac and 802.11ax (``ackairtime``): how much
  of the airtime the uplink TCP ACK stream of one download takes as the
  downlink rate grows (VHT MCS 0-9, HE MCS 0-11, 80 MHz), with the filter
  off and on (``scenarios/ack-airtime-vht-he.toml``).

Reproduce::

    python -m wifitcp.repro.p000_cuzanauskas [--only power,stations,one-active,cell,ackfilter,txop,ackairtime]
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
    "ackairtime": ["ack-airtime-vht-he"],
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
    "paper000-fig9": ("Fig. 9, ACK filtering under multi-poll, 1-8 TCP connections",
                      "about 18 % of the packets are redundant ACKs removed, throughput not "
                      "reduced."),
    "paper000-fig10": ("Fig. 10, 60 stations with duplex TCP",
                       "multi-poll with the filter about 10 % above round robin without it."),
    "paper000-fig11-txop": ("Fig. 11 with polled TXOPs carrying A-MPDUs, listed stations sending only "
                            "when polled, polling cycle 5-20 ms",
                            "94 Mbit/s down; the uplink ACK stream falls from 2-2.5 to 0.3-0.5 Mbit/s."),
    "paper000-fig9-txop": ("Fig. 9 with polled TXOPs carrying A-MPDUs, 5 ms polling cycle, 1-8 TCP connections",
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

POWER_CASES = (
    ("paper's cell, CSMA (hidden stations overlap), c = 1/cap", "cell", {}),
    ("paper's cell, eq. (1) literal (all 30 into the AP at once)", "cell", {"interference": "all"}),
    ("paper's cell, carrier sense at the scenario's 15 dBm", "cell", {"sense_power_w": 10 ** 1.5 / 1e3}),
    ("independent pairs, 0 dBi across (aligned antennas)", "pairs", {}),
    ("independent pairs, 20 dB across", "pairs", {"cross_gain_db": 20.0}),
    ("independent pairs, 33 dB across (omnidirectional)", "pairs", {"cross_gain_db": 33.0}),
)


def power_cases() -> list:
    """Fig. 1 per setting: ``(label, equilibrium, mean (I + n0)/h_ii W,
    largest gain of a unilateral deviation over a 40,001-point grid)``."""
    from ..models import power_game as G

    out = []
    for label, setting, kw in POWER_CASES:
        h = G.gains(30, setting, **kw)
        e = G.nash(h, p_max=4.0)
        n0 = G.noise_w()
        load = sum((G._interference(h, e.powers, i) + n0) / h[i][i] for i in range(30)) / 30
        gain = G.max_deviation_gain(h, e.powers, p_max=4.0)[0]
        out.append((label, e, load, gain))
    return out


def power_report() -> str:
    from ..models import power_game

    rows = []
    for label, e, load, gain in power_cases():
        at_cap = sum(1 for p in e.powers if p >= e.p_max - 1e-3)
        silent = sum(1 for p in e.powers if p <= 1e-9)
        rows.append([label, fmt(e.mean_power_w), at_cap, silent, 30 - at_cap - silent,
                     f"{load:.3g}", f"{max(gain, 0.0):.1e}"])
    fig2 = power_game.fig2()
    fixed = power_game.fig2(c=0.25)
    out = ["### Cuzanauskas & Anskaitis Fig. 1: 30 users, 4 W cap, Nash equilibrium of eq. (3)\n",
           "Paper: average power about 3 W; nobody rises indefinitely. c = 1/cap = 0.25 per W "
           "(wifitcp.models.power_game explains the choice); 'within 1 mW of the cap' counts "
           "players at 4 W less n0/h_ii.\n",
           table(["setting", "mean power (W)", "within 1 mW of the cap", "silent", "between",
                  "mean (I + n0)/h_ii (W)", "best unilateral gain"], rows),
           "\n### Cuzanauskas & Anskaitis Fig. 2: capacity against the power cap (paper's cell, 30 users)\n",
           "Paper: the capacity rises with the allowed power.\n",
           table(["cap (W)", "capacity, c = 1/cap (bit/s/Hz)", "mean power (W)",
                  "capacity, c = 0.25 fixed", "mean power (W)"],
                 [[f"{c:g}", fmt(cap, 1), fmt(p), fmt(cf, 1), fmt(pf)]
                  for (c, cap, p), (_, cf, pf) in zip(fig2, fixed)])]
    return "\n".join(out)


# -- Figs. 3-11: the simulated figures ---------------------------------------

def figure_report(name: str, runs: list) -> str:
    what, claim = CLAIMS.get(name, (name, ""))
    seeds = sorted({r["seed"] for r in runs})
    return (f"### Cuzanauskas & Anskaitis {what} (scenarios/{name}.toml, seeds {seeds})\n\n"
            + (f"Paper: {claim}\n\n" if claim else "") + config_table(runs))


def ack_filter_rows(runs: list) -> list:
    """Per configuration (dicts in run order), mean over seeds: ``params``,
    ``seeds``, total goodput ``agg``, ACKs the filters removed per run
    ``removed``, their share of the packets on the AP's wired link (both
    directions) ``share``, and the AP -> server packets as 66-octet Ethernet
    frames over the whole run ``up_mbps`` (Mbit/s: the uplink TCP ACK stream
    when every flow is a download)."""
    out = []
    for _, g in group(by_run(runs), lambda r: json.dumps(r["params"], sort_keys=True)).items():
        removed = [r["ledger_dropped"].get("ack_filtered", 0) for r in g]
        wire = [sum(l.get("sent", 0) for l in r["links"]) for r in g]
        up = [sum(l.get("sent", 0) for l in r["links"] if l.get("from") == "ap") * 66 * 8
              / r["duration_s"] / 1e6 for r in g]
        out.append({"params": g[0]["params"], "seeds": len(g), "agg": mean(r["agg"] for r in g),
                    "removed": mean(removed), "share": mean(a / max(1, b) for a, b in zip(removed, wire)),
                    "up_mbps": mean(up)})
    return out


def ack_filter_table(runs: list) -> str:
    """`ack_filter_rows` as a table."""
    rows = [[params_label(x["params"]), x["seeds"], fmt(x["agg"]), fmt(x["removed"], 0),
             fmt(100 * x["share"], 1) + " %", fmt(x["up_mbps"], 2)] for x in ack_filter_rows(runs)]
    return table(["configuration", "seeds", "total Mbit/s", "ACKs removed per run",
                  "removed / packets on the AP's wire", "AP -> server Mbit/s (66-octet frames)"], rows)


COUNTERS = (("service_periods", "service periods"), ("period_s", "in periods (s)"), ("polls", "polls"),
            ("null_answers_received", "Null answers"), ("no_answers", "no answer"),
            ("list_joins", "list joins"), ("list_leaves", "list leaves"))
FILTER = (("removed_at_enqueue", "removed at enqueue"), ("removed_at_dequeue", "removed at dequeue"),
          ("removed_at_receiver_dequeue", "removed at a per-station dequeue"),
          ("kept_duplicate", "kept: duplicate"), ("kept_sack", "kept: SACK"),
          ("kept_flagged", "kept: flagged"), ("kept_reordered", "kept: reordered"))


def counters_table(runs: list) -> str:
    """Per configuration, mean over seeds per run: the polling counters
    (the AP's and the stations', summed) and the ACK filter's removals and
    keeps by reason (docs/results.md)."""
    rows = []
    for _, g in group(by_run(runs), lambda r: json.dumps(r["params"], sort_keys=True)).items():
        pol = [r.get("polling") or {} for r in g]
        flt = [r.get("ack_filter") or {} for r in g]
        rows.append([params_label(g[0]["params"]), len(g)]
                    + [fmt(mean(p.get(k, 0) for p in pol), 2 if k == "period_s" else 0) for k, _ in COUNTERS]
                    + [fmt(mean(f.get(k, 0) for f in flt), 0) for k, _ in FILTER])
    return table(["configuration", "seeds"] + [h for _, h in COUNTERS] + [h for _, h in FILTER], rows)


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


# -- Section VI on 802.11ac/ax: the uplink ACK stream's airtime -----------------

def ack_airtime_summary(r: dict) -> dict:
    """What ``ack_airtime_rows`` reads of one run of
    ``scenarios/ack-airtime-vht-he.toml``: goodput, the station's data
    PPDUs (its TCP ACKs: the flow is a download) and their airtime, the
    airtime of every frame of both members (data, Ack, BlockAck, BlockAckReq,
    RTS/CTS; the whole run), the ACKs the filter removed."""
    st = {s["name"]: (s.get("hcf") or {}) for s in r.get("stations", [])}
    air = {n: (h.get("airtime_s") or {}) for n, h in st.items()}
    sta = st.get("sta0", {})
    return {"params": r.get("params", {}), "seed": r.get("seed"), "agg": r.get("aggregate_mbps"),
            "duration_s": r.get("duration_s"),
            "ack_air": air.get("sta0", {}).get("data", 0.0),
            "all_air": sum(sum(a.values()) for a in air.values()),
            "ack_ppdus": sta.get("data_ppdus", 0), "mpdus_per_ppdu": sta.get("mean_mpdus_per_ppdu", 0.0),
            "removed": (r.get("ledger") or {}).get("dropped", {}).get("ack_filtered", 0)}


def ack_airtime_rows(runs: list) -> list:
    """Per (standard, MCS), in that order, means over seeds with
    the filter off and on: goodput (``agg``), the TCP ACK PPDUs' share of
    all airtime (``share``, %), uplink PPDUs per second (``pps``), MPDUs per
    uplink PPDU (``mpp``) and ACKs removed per run (``removed``)."""
    g = group(runs, lambda r: (r["params"].get("phy.standard"), r["params"].get("phy.mcs"),
                               r["params"].get("wlan.station_qdisc.kind")))
    out = []
    for (std, mcs) in sorted({(k[0], k[1]) for k in g}):
        row = {"standard": std, "mcs": mcs}
        for filt, tag in (("drop-tail", "off"), ("ack-first", "on")):
            rs = g.get((std, mcs, filt), [])
            row[tag] = {"agg": mean(r["agg"] for r in rs),
                        "share": mean(100 * r["ack_air"] / max(r["all_air"], 1e-12) for r in rs),
                        "pps": mean(r["ack_ppdus"] / r["duration_s"] for r in rs),
                        "mpp": mean(r["mpdus_per_ppdu"] for r in rs),
                        "removed": mean(r["removed"] for r in rs), "seeds": len(rs)}
        out.append(row)
    return out


def ack_airtime_table(runs: list) -> str:
    """`ack_airtime_rows` as a table."""
    rows = [[x["standard"], x["mcs"], x["off"]["seeds"], fmt(x["off"]["agg"], 1), fmt(x["on"]["agg"], 1),
             f"{100 * (x['on']['agg'] / x['off']['agg'] - 1):+.1f} %" if x["off"]["agg"] else "",
             fmt(x["off"]["share"]) + " %", fmt(x["on"]["share"]) + " %",
             fmt(x["off"]["pps"], 0), fmt(x["on"]["pps"], 0), fmt(x["off"]["mpp"], 1), fmt(x["on"]["mpp"], 1),
             fmt(x["on"]["removed"], 0)] for x in ack_airtime_rows(runs)]
    return ("ack-airtime-vht-he (one download, 80 MHz, one stream; mean over seeds; airtime over the "
            "whole run)\n\n"
            + table(["standard", "MCS", "seeds", "Mbit/s, filter off", "on", "gain",
                     "ACK airtime share, off", "on", "uplink PPDUs/s, off", "on",
                     "MPDUs per uplink PPDU, off", "on", "ACKs removed per run"], rows))


def ack_airtime_verdict(rows: list) -> tuple:
    """(verdict, cause, text) of the 802.11ac/ax claim from
    `ack_airtime_rows`: holds when, for each standard, the ACK stream's
    share of the airtime without the filter is higher at the highest MCS
    than at MCS 0, and at every MCS the filter lowers that share and gains
    goodput, by at most the paper's 10 %."""
    from .claims import verdict
    by_std = group(rows, lambda x: x["standard"])
    grows = all(v[-1]["off"]["share"] > v[0]["off"]["share"] for v in by_std.values())
    gains = [100 * (x["on"]["agg"] / x["off"]["agg"] - 1) for x in rows if x["off"]["agg"]]
    lower = all(x["on"]["share"] < x["off"]["share"] for x in rows)
    ok = grows and lower and gains and all(0 < g <= 10 for g in gains)
    v, c = verdict(ok, lower and bool(gains) and all(g > 0 for g in gains),
                   "the share does not grow with the rate, or a gain is above the paper's 10 %")
    parts = []
    for std, v_ in by_std.items():
        parts.append(f"{std}: {v_[0]['off']['share']:.1f} % at MCS {v_[0]['mcs']} -> {v_[-1]['off']['share']:.1f} % "
                     f"at MCS {v_[-1]['mcs']} (filter on {min(x['on']['share'] for x in v_):.1f}-"
                     f"{max(x['on']['share'] for x in v_):.1f} %)")
    text = "; ".join(parts) + (f"; goodput {min(gains):+.1f} to {max(gains):+.1f} %" if gains else "")
    return v, c, text


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
                runs = run_scenario(name, **kw)
                print(figure_report(name, runs) + "\n\n" + counters_table(runs) + "\n", flush=True)
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
            print(figure_report(name, runs) + "\n\n" + ack_filter_table(runs) + "\n\n"
                  + counters_table(runs) + "\n", flush=True)
        for name in ("paper000-fig7-8-txop", "paper000-fig3-4-txop"):
            runs = run_scenario(name, **kw)
            print(figure_report(name, runs) + "\n\n" + counters_table(runs) + "\n", flush=True)
    if "ackairtime" in want:
        runs = run_scenario("ack-airtime-vht-he", **dict(kw, reduce=ack_airtime_summary))
        print(ack_airtime_table(runs) + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the claims beside the paper (``wifitcp report``) ---------------------------

def _by(runs: list, key: str) -> dict:
    """Mean total goodput and mean idle-station ping p99 per value of ``key``."""
    return {k: {"agg": mean(r["agg"] for r in g), "p99": mean(r["ping_p99"] for r in g)}
            for k, g in group(runs, lambda r: r["params"].get(key)).items()}


def claims(full: bool = False, jobs: int = 2, cache: Optional[Path] = None):
    """The paper's claims beside this module's runs (`claims.PaperClaims`):
    the power game (Figs. 1-2), the MACs in range (Figs. 3-8) and ACK
    filtering on polled stations (Figs. 9-11); one seed unless ``full``."""
    from ..models import power_game
    from .claims import Claim, PaperClaims, pct, quick_sets, verdict, within

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    how = "scenario's seeds" if full else "seed 1"
    kw = dict(jobs=jobs, cache=cache, reduce=summarise, sets=quick_sets(full))
    out = PaperClaims("000", PAPER, __name__, cmd)
    # Figs. 1-2: the model
    out.tables.append(power_report())
    e = power_game.fig1()
    near = sum(1 for p in e.powers if p > 0)
    # the average is the claim; that it comes from a split (near stations at
    # the cap, far ones silent) and not from players near 3 W makes it partial
    v, c = (("partial", f"the average only: {near} near stations at the cap less n0/h, the far ones "
                        "silenced by the hidden near stations' interference")
            if within(e.mean_power_w, 2.5, 3.5) else
            ("differs", "the near stations' share of the cell times the cap is not about 3 W"))
    out.claims.append(Claim("000", "Fig. 1: the power game's Nash equilibrium, 30 users of the paper's cell, "
                                   "4 W cap, c = 1/cap",
                            "average about 3 W", f"{e.mean_power_w:.2f} W ({near} of 30 transmit)",
                            v, c, f"{cmd} --only power",
                            "wifitcp.models.power_game (model, eqs. 1-3)", "17.6"))
    f2 = power_game.fig2()
    caps = [cap for _, cap, _ in f2]
    rising = all(b >= a - 1e-9 for a, b in zip(caps, caps[1:])) and caps[-1] > caps[0]
    v, c = verdict(rising, False, "the capacity does not rise with the cap")
    out.claims.append(Claim("000", "Fig. 2: capacity rises with the allowed power", "direction",
                            f"{caps[0]:.1f} -> {caps[-1]:.1f} bit/s/Hz from {f2[0][0]:g} to {f2[-1][0]:g} W",
                            v, c, f"{cmd} --only power", "wifitcp.models.power_game (model)", "17.6"))
    # Figs. 3-5 and 7-8, everyone in range
    st = run_scenario("multipoll-stations", **kw)
    out.tables.append(figure_report("multipoll-stations", st))
    nmax = max(r["params"]["wlan.stations"] for r in st)
    at = _by([r for r in st if r["params"]["wlan.stations"] == nmax], "mac.kind")
    g = pct(at["multipoll"]["agg"], at["pcf"]["agg"])
    v, c = verdict(within(g, 10.0, 30.0), g > 0,
                   "every station busy, each below the 100 packets/s threshold, so the list empties")
    out.claims.append(Claim("000", f"Figs. 3-5: multi-poll above round robin as stations grow (n = {nmax}, "
                                   "everyone in range)", "about +20 %",
                            f"{g:+.1f} % ({at['multipoll']['agg']:.2f} against {at['pcf']['agg']:.2f} Mbit/s)",
                            v, c, f"{cmd} --only stations", f"scenarios/multipoll-stations.toml, {how}", "1.5"))
    one = run_scenario("multipoll-one-active", **kw)
    out.tables.append(figure_report("multipoll-one-active", one))
    b = _by(one, "mac.kind")
    g = pct(b["multipoll"]["agg"], b["pcf"]["agg"])
    v, c = verdict(within(g, 10.0, 30.0), g > 0,
                   "round robin's CFP spends 82 of every 83 polls on idle stations")
    out.claims.append(Claim("000", "Fig. 8: one active station of 83, multi-poll above round robin",
                            "about +20 %",
                            f"{g:+.1f} % ({b['multipoll']['agg']:.2f} against {b['pcf']['agg']:.2f} Mbit/s)",
                            v, c, f"{cmd} --only one-active", f"scenarios/multipoll-one-active.toml, {how}", "1.6"))
    ratio = b["pcf"]["p99"] / b["multipoll"]["p99"]
    v, c = verdict(ratio >= 2.0, ratio > 1.0, "an unlisted station waits for the CP behind a 50 TU CFP")
    out.claims.append(Claim("000", "Fig. 7: the idle station's RTT lower with multi-poll", "up to 5x lower",
                            f"p99 {b['multipoll']['p99']:.1f} ms (multi-poll) against {b['pcf']['p99']:.1f} ms "
                            f"(round robin): {ratio:.2f}x", v, c, f"{cmd} --only one-active",
                            f"scenarios/multipoll-one-active.toml, {how}", "1.6"))
    # Figs. 9-11: ACK filtering on polled stations
    f10 = run_scenario("paper000-fig10", **kw)
    out.tables.append(figure_report("paper000-fig10", f10))
    a10 = {(r["params"]["mac.kind"], r["params"]["ap.qdisc.kind"]): r["agg"] for r in ack_filter_rows(f10)}
    g = pct(a10[("multipoll", "ack-first")], a10[("pcf", "drop-tail")])
    alone = (pct(a10[("pcf", "ack-first")], a10[("pcf", "drop-tail")]),
             pct(a10[("multipoll", "ack-first")], a10[("multipoll", "drop-tail")]))
    v, c = verdict(within(g, 5.0, 15.0), g > 0,
                   f"more than the paper's: the filter alone gives {alone[0]:+.1f} % (round robin), "
                   f"{alone[1]:+.1f} % (multi-poll)")
    out.claims.append(Claim("000", "Fig. 10: multi-poll with ACK filtering above round robin without, "
                                   "60 duplex stations", "about +10 %",
                            f"{g:+.1f} % ({a10[('multipoll', 'ack-first')]:.2f} against "
                            f"{a10[('pcf', 'drop-tail')]:.2f} Mbit/s)", v, c, f"{cmd} --only ackfilter",
                            f"scenarios/paper000-fig10.toml, {how}", "1.11"))
    f11 = run_scenario("paper000-fig11-txop", **kw)
    out.tables.append(figure_report("paper000-fig11-txop", f11) + "\n\n" + ack_filter_table(f11)
                      + "\n\n" + counters_table(f11))
    r11 = {(r["params"]["mac.poll_interval_ms"], r["params"]["ap.qdisc.kind"]): r for r in ack_filter_rows(f11)}
    off, on = r11[(5.0, "drop-tail")], r11[(5.0, "ack-first")]
    ok = within(off["up_mbps"], 1.8, 2.8) and within(on["up_mbps"], 0.2, 0.6) and on["agg"] >= 0.97 * off["agg"]
    v, c = verdict(ok, on["up_mbps"] < off["up_mbps"], "the filter removes too few ACKs here")
    out.claims.append(Claim("000", "Fig. 11: one download, the uplink ACK stream with ACK filtering off and on "
                                   "(polled TXOPs with A-MPDUs, 5 ms cycle)",
                            "94 Mbit/s down; ACK stream 2-2.5 -> 0.3-0.5 Mbit/s",
                            f"{off['agg']:.1f} / {on['agg']:.1f} Mbit/s down; ACK stream {off['up_mbps']:.2f} -> "
                            f"{on['up_mbps']:.2f} Mbit/s", v, c, f"{cmd} --only txop",
                            f"scenarios/paper000-fig11-txop.toml, {how}", "1.12"))
    # Section VI: the filter removes only superseded ACKs; duplicates, SACK
    # and flagged ACKs stay (counters of the 5 ms runs with the filter)
    g5 = [r for r in by_run(f11) if r["params"].get("mac.poll_interval_ms") == 5.0
          and r["params"].get("ap.qdisc.kind") == "ack-first"]
    af = {k: mean((r.get("ack_filter") or {}).get(k, 0) for r in g5) for k, _ in FILTER}
    removed = af["removed_at_enqueue"] + af["removed_at_dequeue"] + af["removed_at_receiver_dequeue"]
    dropped = mean(r["ledger_dropped"].get("ack_filtered", 0) for r in g5)
    v, c = verdict(removed > 0 and abs(removed - dropped) < 0.5, False,
                   "the reasons do not account for the ACKs removed")
    out.claims.append(Claim("000", "Section VI: only redundant ACKs are removed, the others kept "
                                   "(Fig. 11's download, 5 ms cycle)",
                            "redundant ACKs removed; flagged, duplicate, SACK ACKs kept",
                            f"{removed:.0f} superseded ACKs removed per run ({af['removed_at_enqueue']:.0f} at a full "
                            f"buffer); kept behind a newer ACK: {af['kept_duplicate']:.0f} duplicates, "
                            f"{af['kept_sack']:.0f} SACK, {af['kept_flagged']:.0f} flagged",
                            v, c, f"{cmd} --only txop", f"scenarios/paper000-fig11-txop.toml, {how}", "1.12"))
    f9 = run_scenario("paper000-fig9-txop", **kw)
    out.tables.append(figure_report("paper000-fig9-txop", f9) + "\n\n" + ack_filter_table(f9)
                      + "\n\n" + counters_table(f9))
    shares = [100 * x["share"] for x in ack_filter_rows(f9)]
    lo, hi = min(shares), max(shares)
    # a delayed-ACK stream (one ACK per two segments) made k times lower by
    # the filter (Fig. 11's 5 ms runs) loses 0.5 (1 - 1/k) packets per data
    # segment, out of 1 + 0.5 / k left on the wire
    k = off["up_mbps"] / max(on["up_mbps"], 1e-9)
    per_seg = 0.5 * (1 - 1 / k)
    v, c = verdict(within(lo, 13.0, 23.0) and within(hi, 13.0, 23.0), within(lo, 9.0, 27.0) and within(hi, 9.0, 27.0),
                   f"{k:.1f}x fewer delayed ACKs is {per_seg:.2f} packets per segment, about "
                   f"{100 * per_seg / (1 + 0.5 / k):.0f} % of the wire")
    out.claims.append(Claim("000", "Fig. 9: redundant ACKs removed, 1-8 TCP connections (polled TXOPs with A-MPDUs)",
                            "about 18 % of the packets", f"{lo:.1f}-{hi:.1f} % of the packets on the AP's wire",
                            v, c, f"{cmd} --only txop", f"scenarios/paper000-fig9-txop.toml, {how}", "1.12"))
    # Section VI on 802.11ac/ax: the uplink ACK stream's airtime
    aa = run_scenario("ack-airtime-vht-he", **dict(kw, reduce=ack_airtime_summary))
    out.tables.append(ack_airtime_table(aa))
    v, c, text = ack_airtime_verdict(ack_airtime_rows(aa))
    out.claims.append(Claim("000", "Section VI on 802.11ac/ax: the uplink TCP ACK stream's share of the airtime "
                                   "as the downlink rate grows, and what the ACK filter gives back",
                            "ACK filtering up to +10 % TCP throughput (802.11n)", text, v, c,
                            f"{cmd} --only ackairtime", f"scenarios/ack-airtime-vht-he.toml, {how}", "1.13"))
    return out
