"""Pokhrel & Williamson, *Modeling Compound TCP over WiFi for IoT*
(paper 004, ``../shared/seeds/004_56e896ba65a998d3.txt``): the simulated
figures.

* Figs. 11, 14, 15 (and the AP occupancy of Figs. 2, 14): download-download
  unfairness between two SNR classes of five Compound TCP downloads, without
  and with Virtual Buffer Sharing, against class 2's frame error rate p_w
  and the MAC retry limit (``scenarios/pokhrel-download.toml``;
  ``docs/figures/pokhrel-download.png``).
* Figs. 16, 17: upload-download unfairness, five uploads and five downloads,
  against p_w and the AP buffer (``scenarios/pokhrel-updown.toml``;
  ``docs/figures/pokhrel-updown.png``).
* Fig. 18: VBS while users join and leave, class 1's throughput share after
  each event and the time it takes to settle
  (``scenarios/pokhrel-join-leave.toml``; reaction times by
  `wifitcp.models.vbs_stability.fig18`).
* At campus scale: Fig. 17's point (p_w = 0.2, B_ap = 100) on four APs,
  each AP on its own channel or all on one channel, drop-tail against VBS
  (``scenarios/pokhrel-campus.toml``, beside the one-AP runs of
  pokhrel-updown.toml at that point; docs/validation.md 24.5; also
  ``bench/campus-updown`` with the engine alone).

Reproduce::

    python -m wifitcp.repro.p004_pokhrel [--quick] [--jobs 2] [--seeds 1..3]
                                         [--only download,updown,join-leave,campus]
                                         [--figures docs/figures] [--no-figures] [--store]
                                         [--cache DIR]

prints one Markdown table per figure (simulation beside what the paper
states) and writes the PNG figures. ``--quick`` runs one seed (and 60 s
download/up-down runs; the campus runs keep their 200 s) for a smoke
test. docs/validation.md section 5 discusses the numbers (section 12.4
Fig. 18, section 24.5 the campus). The paper's analytical model
(its fixed point, eqs. 2-20, and VBS stability, eqs. 25-30) is
`wifitcp.models.pokhrel` and `wifitcp.models.vbs_stability`; the report
(``wifitcp report``) draws its curves beside these scenarios' runs.

Only the figures' captions and the prose survive in the plain-text paper,
so the "paper" columns hold what the text states: shapes, orderings and the
AP occupancy of about 60 packets with VBS.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

from .common import (parse_args, FIGURES, fmt, group, jain, mean, occupancy_after, run_scenario, sd, summarise,
                     table)

PAPER = "Pokhrel & Williamson, Modeling Compound TCP over WiFi for IoT (paper 004)"
#: part -> the scenario files it runs (``--only`` names parts)
PARTS = {
    "download": ["pokhrel-download"],
    "updown": ["pokhrel-updown"],
    "join-leave": ["pokhrel-join-leave"],
    "campus": ["pokhrel-campus"],
}
SCENARIOS = [s for names in PARTS.values() for s in names]


def qdisc_label(p: dict) -> str:
    """``drop-tail``, ``vbs-<update rule>``, then ``/<measure>`` when h_i is
    not the service share (``/occupancy``, ``/delivered``) and ``/w<n>`` when
    the measurement window is not the default B_ap."""
    kind = p.get("ap.qdisc.kind", "drop-tail")
    if kind == "vbs":
        lab = "vbs-" + p.get("ap.qdisc.update", "above-target")
        measure = p.get("ap.qdisc.measure", "service")
        if measure != "service":
            lab += "/" + measure
        if p.get("ap.qdisc.window") is not None:
            lab += f"/w{p['ap.qdisc.window']}"
        return lab
    return kind



# -- Pokhrel & Williamson: two SNR classes of downloads ----------------------

def pokhrel_download_stats(r: dict) -> dict:
    """Per-run quantities of pokhrel-download (sta0-4 class 1, sta5-9 class 2)."""
    g = [f["goodput_mbps"] for f in r["flows"]]
    q = r["queues"][0]
    ap = r["stations"][0]
    offered = q.get("enqueued", 0) or 1
    drops = q.get("dropped", {})
    sent = max(ap["attempts"] - ap["retries"], 1)  # frames the AP started
    return {
        "c1": sum(g[:5]), "c2": sum(g[5:10]), "total": sum(g),
        "jain": jain(g), "jain_classes": jain([sum(g[:5]), sum(g[5:10])]),
        "occ": occupancy_after(q, r.get("warmup_s", 0.0), r.get("duration_s", 0.0)),
        "p_buffer": drops.get("queue_full", 0) / offered,
        "p_admission": drops.get("queue_admission", 0) / offered,
        "f_ap": ap["failures"] / max(ap["attempts"], 1),
        "p_discard": ap["drops"]["retry_limit"] / sent,
        "timeouts": mean(f["tcp"]["timeouts"] for f in r["flows"]),
    }


def pokhrel_download_report(runs: list[dict]) -> tuple[str, dict]:
    g = group(runs, lambda r: (r["params"].get("mac.short_retry_limit", 7), qdisc_label(r["params"]),
                               r["params"]["channel.classes[1].per_down"]))
    agg: dict = {}
    for key, rs in sorted(g.items(), key=lambda kv: (-kv[0][0], kv[0][1], kv[0][2])):
        st = [pokhrel_download_stats(r) for r in rs]
        agg[key] = {k: mean(s[k] for s in st) for k in st[0]}
        for x in ("c1", "c2", "total", "occ"):
            agg[key][x + "_sd"] = sd(s[x] for s in st)
        agg[key]["n"] = len(st)
    rows = []
    for (k, qd, pw), a in agg.items():
        rows.append([k, qd, fmt(pw), f"{fmt(a['c1'])} ± {fmt(a['c1_sd'])}", f"{fmt(a['c2'])} ± {fmt(a['c2_sd'])}",
                     fmt(a["c1"] / a["c2"] if a["c2"] > 0 else float("inf")),
                     f"{fmt(a['total'])} ± {fmt(a['total_sd'])}",
                     fmt(a["jain"], 3), f"{fmt(a['occ'], 1)} ± {fmt(a['occ_sd'], 1)}", fmt(100 * a["p_buffer"], 2),
                     fmt(100 * a["p_admission"], 2), fmt(a["f_ap"], 3), f"{a['p_discard']:.1e}",
                     fmt(a["timeouts"], 1)])
    txt = ("### Pokhrel & Williamson Figs. 11, 14, 15: two SNR classes x 5 Compound TCP downloads\n\n"
           "Paper: without VBS class 2's throughput falls behind class 1's as p_w grows (Figs. 3, 11, 15);"
           " with VBS the classes are fair, the total is unchanged and the AP holds about c B = 60 packets"
           " (Fig. 14); without VBS the AP buffer is almost always full (Fig. 2).\n\n"
           + "Mean over seeds ± standard deviation over seeds.\n\n"
           + table(["retry limit", "AP queue", "p_w", "class 1 Mbit/s", "class 2 Mbit/s", "ratio", "total",
                    "Jain (10)", "AP occupancy", "buffer loss %", "VBS blocked %", "AP failure/attempt",
                    "AP discard/frame", "RTOs/flow"], rows))
    return txt, agg


QDISC_COLORS = {"drop-tail": "C0", "vbs-above-target": "C2", "vbs-literal": "C3", "vbs-partition": "C1",
                "vbs-above-target/occupancy": "C4", "vbs-above-target/delivered": "C5",
                "vbs-above-target/delivered/w20000": "C6"}


def pokhrel_download_figure(agg: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [k for k in (7, 4, 2) if any(kk == k for (kk, _, _) in agg)]
    fig, axes = plt.subplots(len(ks), 3, figsize=(13, 4.1 * len(ks)), sharex=True, squeeze=False)
    for row, k in enumerate(ks):
        ax = axes[row]
        for qd, color in QDISC_COLORS.items():
            pts = sorted((pw, a) for (kk, q, pw), a in agg.items() if kk == k and q == qd)
            if not pts:
                continue
            x = [p for p, _ in pts]
            ax[0].plot(x, [a["c1"] for _, a in pts], color=color, marker="o", ms=3)
            ax[0].plot(x, [a["c2"] for _, a in pts], color=color, ls="--", marker="x", ms=5)
            ax[1].errorbar(x, [a["total"] for _, a in pts], yerr=[a["total_sd"] for _, a in pts], color=color,
                           marker="o", ms=3, capsize=2, label=qd)
            ax[2].plot(x, [a["occ"] for _, a in pts], color=color, marker="o", ms=3, label=qd)
        ax[2].axhline(60, color="grey", lw=0.8, ls=":")
        ax[2].text(0.0, 62, "c B = 60 (paper, with VBS)", fontsize=7, color="grey")
        kk = {7: "retry limit 7 (paper)", 4: "limit 4 (discards as Fig. 10)", 2: "limit 2 (extreme)"}.get(k, f"retry limit {k}")
        ax[0].set_title(f"{kk}: per class, o- class 1 (p_w = 0), x-- class 2", fontsize=9)
        ax[1].set_title(f"{kk}: total throughput (± sd over seeds)", fontsize=9)
        ax[2].set_title(f"{kk}: AP occupancy after warm-up (Fig. 14)", fontsize=9)
        for a, yl in zip(ax, ["Mbit/s (sum of 5 flows)", "Mbit/s", "packets (B = 100)"]):
            a.set_ylabel(yl)
            a.grid(alpha=0.3)
            a.set_ylim(bottom=0)
    for a in axes[-1]:
        a.set_xlabel("p_w of class 2")
    handles, labels = axes[0][1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


# -- Pokhrel & Williamson: uploads and downloads -----------------------------

def pokhrel_updown_report(runs: list[dict]) -> tuple[str, dict]:
    def key(r):
        p = r["params"]
        return (qdisc_label(p), p["ap.queue_packets"], p["channel.classes[0].per_down"])

    agg: dict = {}
    for k, rs in sorted(group(runs, key).items()):
        up = [sum(f["goodput_mbps"] for f in r["flows"] if f["name"].startswith("up/")) for r in rs]
        dn = [sum(f["goodput_mbps"] for f in r["flows"] if f["name"].startswith("down/")) for r in rs]
        occ = [occupancy_after(r["queues"][0], r.get("warmup_s", 0.0), r.get("duration_s", 0.0)) for r in rs]
        full = [r["queues"][0].get("dropped", {}).get("queue_full", 0) for r in rs]
        agg[k] = {"up": mean(up), "down": mean(dn), "up_sd": sd(up), "down_sd": sd(dn), "occ": mean(occ),
                  "full": mean(full), "total": mean(u + d for u, d in zip(up, dn))}

    def ratio(a: dict) -> str:  # "-" when the downloads are (almost) starved
        return fmt(a["up"] / a["down"]) if a["down"] >= 0.05 else "-"

    rows16 = [[qd, fmt(pw), f"{fmt(a['up'])} ± {fmt(a['up_sd'])}", f"{fmt(a['down'])} ± {fmt(a['down_sd'])}",
               ratio(a), fmt(a["total"]), fmt(a["occ"], 0), fmt(a["full"], 0)]
              for (qd, b, pw), a in agg.items() if b == 500]
    rows17 = [[qd, b, f"{fmt(a['up'])} ± {fmt(a['up_sd'])}", f"{fmt(a['down'])} ± {fmt(a['down_sd'])}",
               ratio(a), fmt(a["total"]), fmt(a["occ"], 0), fmt(a["full"], 0)]
              for (qd, b, pw), a in agg.items() if abs(pw - 0.2) < 1e-9]
    txt = ("### Pokhrel & Williamson Fig. 16: 5 uploads + 5 downloads, p_w on every link, AP buffer 500\n\n"
           "Paper: without VBS the two groups diverge as p_w grows; with VBS they are fair, a small gap"
           " growing with p_w.\n\n"
           + table(["AP queue", "p_w", "uploads Mbit/s", "downloads Mbit/s", "up/down", "total",
                    "AP occupancy", "AP overflow drops"], rows16)
           + "\n\n### Pokhrel & Williamson Fig. 17: p_w = 0.2, AP buffer varied\n\n"
           "Paper: without VBS uploads win (download data lost at the AP's full buffer); with VBS fair for"
           " every buffer; total independent of the buffer.\n\n"
           + table(["AP queue", "B_ap", "uploads Mbit/s", "downloads Mbit/s", "up/down", "total",
                    "AP occupancy", "AP overflow drops"], rows17))
    return txt, agg


def pokhrel_updown_figure(agg: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(11, 5.0))
    for qd, c in QDISC_COLORS.items():
        p16 = sorted((pw, a) for (q, b, pw), a in agg.items() if q == qd and b == 500)
        p17 = sorted((b, a) for (q, b, pw), a in agg.items() if q == qd and abs(pw - 0.2) < 1e-9)
        for axis, pts in ((ax[0], p16), (ax[1], p17)):
            if not pts:
                continue
            x = [p for p, _ in pts]
            axis.plot(x, [a["up"] for _, a in pts], color=c, marker="^", ms=4, label=f"{qd}: uploads")
            axis.plot(x, [a["down"] for _, a in pts], color=c, ls="--", marker="v", ms=4, label=f"{qd}: downloads")
    ax[0].set_xlabel("p_w (every station, both directions)")
    ax[0].set_title("Fig. 16: AP buffer 500 packets", fontsize=9)
    ax[1].set_xlabel("AP buffer B_ap (packets)")
    ax[1].set_title("Fig. 17: p_w = 0.2", fontsize=9)
    for a in ax:
        a.set_ylabel("Mbit/s (sum of 5 flows)")
        a.set_ylim(bottom=0)
        a.grid(alpha=0.3)
    handles, labels = ax[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=6, frameon=False)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


# -- Fig. 18: users joining and leaving --------------------------------------

def join_leave_report(runs: list) -> str:
    """Class 1's share after each event and its reaction time, per run
    (`wifitcp.models.vbs_stability.fig18`)."""
    from ..models.vbs_stability import fig18

    rows = []
    for r in sorted(runs, key=lambda r: (r["run_index"], r["seed"])):
        p = r.get("params") or {}
        label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in p.items() if k != "ap.qdisc.shares")
        cells = []
        for e in fig18(r):
            rt = "never" if e["reaction_s"] is None else f"{e['reaction_s']:.0f} s"
            cells += [f"{e['event_s']:.0f}", fmt(e["share_level"], 3), rt]
        rows.append([label, r["seed"]] + cells)
    width = max((len(r) for r in rows), default=2)
    head = ["configuration", "seed"]
    for k in range((width - 2) // 3):
        head += [f"event {k + 1} (s)", "class 1 share", "reaction"]
    return ("### Pokhrel & Williamson Fig. 18: users joining and leaving, p_w = 0.3, h* = 0.526\n\n"
            "Paper: with VBS the desired ratio is kept as users come and go (convergence \"quite"
            " long\" in some cases). Per run: at each event (the departures' mean completion, the"
            " join at 150 s) class 1's share over the last 30 s of the phase and the time until its"
            " 10-s moving average stays within ±0.05 of it.\n\n"
            + table(head, [r + ["-"] * (width - len(r)) for r in rows]))


# -- at campus scale: Fig. 17 on four APs (docs/validation.md 24.5) ---------

#: the AP queues of scenarios/pokhrel-campus.toml, as `qdisc_label` names them
CAMPUS_QDISCS = ["drop-tail", "vbs-above-target", "vbs-above-target/delivered/w20000"]
CAMPUS_LAYOUTS = ["one AP", "own channels", "one channel"]
#: a group whose downloads carry less than this (Mbit/s) has no finite ratio
STARVED = 0.05


def campus_layout(r: dict) -> str:
    """``one AP``, ``own channels`` (every AP on its own channel) or ``one
    channel`` (all APs on one channel), from the run's ``wlan.ap_channels``
    (absent: one AP, as pokhrel-updown.toml)."""
    ch = r["params"].get("wlan.ap_channels")
    if not ch or len(ch) == 1:
        return "one AP"
    return "one channel" if len(set(ch)) == 1 else "own channels"


def _ratio(up: float, down: float) -> float:
    return up / down if down >= STARVED else float("inf")


def campus_run_stats(r: dict) -> dict:
    """One run's uploads and downloads per AP and over the campus. A flow's
    AP is its station's entry in the run's ``association`` (or, without one,
    station index // 10: ten stations per AP as pokhrel-campus.toml).
    Returns ``aps``: per AP ``up``, ``down`` (Mbit/s), ``ratio`` (up / down,
    inf when the downloads carry under `STARVED`) and ``jain`` (over its
    flows); and the campus's ``up``, ``down``, ``ratio``, ``jain`` (over
    every flow) and ``starving`` (flows under `STARVED`)."""
    import re

    assoc = r.get("association")
    per_ap: dict = {}
    allg = []
    up = down = 0.0
    for f in r["flows"]:
        g = f.get("goodput_mbps", f.get("goodput")) or 0.0
        n = int(re.search(r"sta(\d+)$", f["name"]).group(1))
        k = assoc[n] if assoc else n // 10
        a = per_ap.setdefault(k, {"up": 0.0, "down": 0.0, "g": []})
        d = "up" if f["name"].startswith("up/") else "down"
        a[d] += g
        a["g"].append(g)
        allg.append(g)
        if d == "up":
            up += g
        else:
            down += g
    aps = [{"up": a["up"], "down": a["down"], "ratio": _ratio(a["up"], a["down"]), "jain": jain(a["g"])}
           for _, a in sorted(per_ap.items())]
    return {"aps": aps, "up": up, "down": down, "ratio": _ratio(up, down), "jain": jain(allg),
            "starving": sum(1 for g in allg if g < STARVED)}


def campus_agg(runs: list) -> dict:
    """(layout, AP queue) -> over the seeds: ``up``, ``down`` (campus sums,
    mean over seeds, with ``up_sd``, ``down_sd``), ``ratio`` (of those
    means), ``ap_ratio_min`` / ``ap_ratio_max`` (every AP of every seed),
    ``ap_up`` / ``ap_down`` (mean per AP), ``jain_ap_min`` / ``jain_ap_mean``
    (each AP's flows), ``jain`` (every flow, mean over seeds), ``starving``
    (flows under `STARVED` per run, mean over seeds), ``total``,
    ``aps``, ``seeds``."""
    out = {}
    for k, rs in group(runs, lambda r: (campus_layout(r), qdisc_label(r["params"]))).items():
        st = [campus_run_stats(r) for r in rs]
        aps = [a for s in st for a in s["aps"]]
        up, dn = mean(s["up"] for s in st), mean(s["down"] for s in st)
        out[k] = {"up": up, "down": dn, "up_sd": sd(s["up"] for s in st), "down_sd": sd(s["down"] for s in st),
                  "ratio": _ratio(up, dn), "total": up + dn,
                  "ap_ratio_min": min(a["ratio"] for a in aps), "ap_ratio_max": max(a["ratio"] for a in aps),
                  "ap_up": mean(a["up"] for a in aps), "ap_down": mean(a["down"] for a in aps),
                  "jain_ap_min": min(a["jain"] for a in aps), "jain_ap_mean": mean(a["jain"] for a in aps),
                  "jain": mean(s["jain"] for s in st), "starving": mean(s["starving"] for s in st),
                  "flows": len(rs[0]["flows"]),
                  "aps": len(st[0]["aps"]), "seeds": len(st)}
    return out


def _fr(x: float) -> str:
    return "> 100" if x > 100 else fmt(x)


def _rng(lo: float, hi: float) -> str:
    """A range of ratios: ``1.01-1.20``, ``11.02 to > 100``, ``> 100``."""
    if lo > 100:
        return "> 100"
    return f"{fmt(lo)} to > 100" if hi > 100 else f"{fmt(lo)}-{fmt(hi)}"


def campus_report(runs: list) -> tuple[str, dict]:
    """The table of docs/validation.md 24.5 from runs of pokhrel-campus.toml
    (and the one-AP baseline: pokhrel-updown.toml at B_ap = 100, p_w =
    0.2); returns (Markdown, `campus_agg`)."""
    agg = campus_agg(runs)
    rows = []
    for lay in CAMPUS_LAYOUTS:
        for qd in CAMPUS_QDISCS:
            a = agg.get((lay, qd))
            if a is None:
                continue
            rows.append([lay, qd, a["aps"], a["seeds"], f"{fmt(a['up'])} ± {fmt(a['up_sd'])}",
                         f"{fmt(a['down'])} ± {fmt(a['down_sd'])}", f"{fmt(a['ap_up'])} / {fmt(a['ap_down'])}",
                         _fr(a["ratio"]), _rng(a["ap_ratio_min"], a["ap_ratio_max"]),
                         f"{fmt(a['jain_ap_min'], 3)} / {fmt(a['jain_ap_mean'], 3)}", fmt(a["jain"], 3),
                         f"{fmt(a['starving'], 1)} of {a['flows']}"])
    txt = ("### Pokhrel & Williamson Fig. 17 at campus scale: 4 APs x (5 uploads + 5 downloads), p_w = 0.2, "
           "B_ap = 100\n\n"
           "Paper (one AP): without VBS the uploads win (download data lost at the AP's full buffer); with"
           " VBS uploads and downloads are fair. Uploads and downloads: sums over the campus (Mbit/s, mean"
           " ± sd over seeds); per AP: mean over APs and seeds; up / down per AP: the range over every AP"
           " of every seed (> 100: the downloads starve); flows < 0.05 Mbit/s: mean per run.\n\n"
           + table(["layout", "AP queue", "APs", "seeds", "uploads", "downloads", "per AP up / down",
                    "up / down", "up / down per AP", "Jain per AP min / mean", "Jain, all flows",
                    "flows < 0.05 Mbit/s"], rows))
    return txt, agg


def campus_claims(agg: dict, cmd: str, where: str) -> list:
    """The claims of docs/validation.md 24.5 from `campus_agg` (`claims.Claim`
    list): drop-tail's unfairness at every AP, VBS as the paper measures
    h_i, and VBS with h_i = data moved over 20000 services (the variant
    fair on one AP here), each in both layouts (own channels, one channel)
    beside the one-AP runs. A layout missing from ``agg`` counts as not
    holding."""
    from .claims import Claim, verdict, within

    nan = float("nan")
    none = {"ratio": nan, "ap_ratio_min": nan, "ap_ratio_max": nan, "jain_ap_mean": nan}

    def get(lay, qd):
        return agg.get((lay, qd), none)

    def per_ap(qd):
        a, b, one = get("own channels", qd), get("one channel", qd), get("one AP", qd)
        return a, b, (f"up / down per AP {_rng(a['ap_ratio_min'], a['ap_ratio_max'])} on own channels,"
                      f" {_rng(b['ap_ratio_min'], b['ap_ratio_max'])} on one channel (campus"
                      f" {_fr(a['ratio'])}, {_fr(b['ratio'])}; one AP {_fr(one['ratio'])})")

    out = []
    a, b, txt = per_ap("drop-tail")
    v, c = verdict(a["ap_ratio_min"] > 2 and b["ap_ratio_min"] > 2, a["ratio"] > 2 and b["ratio"] > 2,
                   "some AP's downloads are not behind")
    out.append(Claim("004", "Fig. 17 on 4 APs (p_w 0.2, B_ap 100): with drop-tail the uploads win at every AP, "
                            "cells apart and cells interfering", "direction: uploads win (one AP)", txt,
                     v, c, cmd, where, "24.5"))

    def fair(x):
        return within(x["ap_ratio_min"], 0.8, 1.25) and within(x["ap_ratio_max"], 0.8, 1.25)

    dt = get("own channels", "drop-tail")["ratio"], get("one channel", "drop-tail")["ratio"]
    a, b, txt = per_ap("vbs-above-target")
    v, c = verdict(fair(a) and fair(b), a["ratio"] < dt[0] and b["ratio"] < dt[1],
                   "as on one AP (5.3): VBS rescues the downloads but equal shares of AP services are not equal "
                   "throughputs (a refused TCP ACK costs its upload almost nothing)")
    out.append(Claim("004", "VBS at each AP (Algorithm 1, c = 0.6, h_i = share of AP services) makes every AP "
                            "fair, cells apart and cells interfering", "up / down about 1 (one AP)", txt,
                     v, c, cmd, where, "24.5"))
    a, b, txt = per_ap("vbs-above-target/delivered/w20000")
    v, c = verdict(fair(a) and fair(b), within(a["ratio"], 0.8, 1.25) and within(b["ratio"], 0.8, 1.25),
                   "fair over the campus but not at every AP")
    out.append(Claim("004", "At scale: the per-AP fix that is fair on one AP here (VBS, h_i = share of TCP data "
                            "moved over 20000 services) keeps every AP fair, cells apart and cells interfering",
                     "up / down about 1 (one AP)", txt, v, c, cmd, where, "24.5"))
    return out


def campus_runs(sets: list, jobs: int, cache: Optional[Path], store: bool = False) -> list:
    """The runs of 24.5: scenarios/pokhrel-campus.toml and the one-AP
    baseline (pokhrel-updown.toml at B_ap = 100, p_w = 0.2 with the same
    three AP queues), with the ``sets`` overrides (the seeds). 200 s also
    for ``--quick``: the 20000-service window of the third queue spans
    40-60 s of one AP's services, about 150 s when four APs share a
    channel."""
    sets = list(sets)
    pw = ", ".join(f'"channel.classes[{i}].{d}"=0.2' for i in (0, 1) for d in ("per_down", "per_up"))
    cases = ", ".join("{" + pw + ", " + c + "}" for c in (
        '"ap.qdisc.kind"="drop-tail"', '"ap.qdisc.kind"="vbs", "ap.qdisc.update"="above-target"',
        '"ap.qdisc.kind"="vbs", "ap.qdisc.update"="above-target", "ap.qdisc.measure"="delivered", '
        '"ap.qdisc.window"=20000'))
    base = run_scenario("pokhrel-updown", jobs=jobs, cache=cache, reduce=summarise,
                        sets=sets + ["sweep.ap.queue_packets=[100]", f"sweep.cases=[{cases}]"])
    return base + run_scenario("pokhrel-campus", jobs=jobs, cache=cache, store=store, reduce=summarise, sets=sets)


# -- main --------------------------------------------------------------------

def main(argv: Optional[list] = None) -> int:
    a, want = parse_args("p004_pokhrel", __doc__, PARTS, argv, quick_help="one seed (and 60 s download/up-down runs; campus keeps 200 s): a smoke test", figures=FIGURES, seeds=True)
    cache = Path(a.cache) if a.cache else None
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    if a.seeds:
        from ..scenario import parse_seeds

        seeds = [f"scenario.seeds={parse_seeds(a.seeds)}"]
    short = ["scenario.duration_s=60.0"] if a.quick else []
    figdir = Path(a.figures)
    if not a.no_figures:
        figdir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    kw = dict(jobs=a.jobs, store=a.store, cache=cache)
    if "download" in want:
        runs = run_scenario("pokhrel-download", sets=seeds + short, **kw)
        txt, agg = pokhrel_download_report(runs)
        print(txt + "\n", flush=True)
        if not a.no_figures:
            pokhrel_download_figure(agg, figdir / "pokhrel-download.png")
    if "updown" in want:
        runs = run_scenario("pokhrel-updown", sets=seeds + short, **kw)
        txt, agg = pokhrel_updown_report(runs)
        print(txt + "\n", flush=True)
        if not a.no_figures:
            pokhrel_updown_figure(agg, figdir / "pokhrel-updown.png")
    if "join-leave" in want:
        runs = run_scenario("pokhrel-join-leave", sets=seeds, **kw)
        print(join_leave_report(runs) + "\n", flush=True)
    if "campus" in want:
        print(campus_report(campus_runs(seeds, a.jobs, cache, store=a.store))[0] + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the claims beside the paper (``wifitcp report``) ---------------------------

def claims(full: bool = False, jobs: int = 2, cache: Optional[Path] = None):
    """The paper's claims beside this module's runs (`claims.PaperClaims`):
    download-download unfairness and VBS (Figs. 2, 3, 11, 14, 15) at retry
    limits 7 and 4, p_w 0 and 0.3, drop-tail and VBS (above-target); one
    seed and 60 s runs unless ``full`` (the scenario's seeds, 200 s). Then
    Fig. 17 at campus scale (`campus_claims`, docs/validation.md 24.5): 200
    s runs, one seed unless ``full``."""
    from .claims import Claim, PaperClaims, pct, quick_sets, verdict, within

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    grid = ["sweep.mac.short_retry_limit=[7, 4]", "sweep.channel.classes[1].per_down=[0.0, 0.3]",
            'sweep.cases=[{"ap.qdisc.kind"="drop-tail"}, {"ap.qdisc.kind"="vbs", '
            '"ap.qdisc.update"="above-target"}]']
    short = [] if full else ["scenario.duration_s=60.0"]
    runs = run_scenario("pokhrel-download", jobs=jobs, cache=cache, sets=quick_sets(full) + short + grid)
    txt, agg = pokhrel_download_report(runs)
    out = PaperClaims("004", PAPER, __name__, cmd)
    out.tables.append(txt)
    src = ("scenarios/pokhrel-download.toml, " + ("scenario's seeds" if full else "seed 1, 60 s")
           + ", limits 7 and 4, p_w 0 and 0.3, drop-tail and VBS above-target")
    only = f"{cmd} --only download"

    def ratio(limit, qd, pw):
        a = agg[(limit, qd, pw)]
        return a["c1"] / a["c2"] if a["c2"] > 0 else float("inf")

    r7, r4 = ratio(7, "drop-tail", 0.3), ratio(4, "drop-tail", 0.3)
    grow7, grow4 = r7 / ratio(7, "drop-tail", 0.0), r4 / ratio(4, "drop-tail", 0.0)
    v, c = verdict(grow7 > 1.15, grow7 > 1.03, "MAC discards are at most f^7, far below the AP's buffer loss")
    out.claims.append(Claim("004", "Figs. 3, 11, 15: class 2 falls behind class 1 as p_w grows (retry limit 7, "
                                   "drop-tail)", "direction",
                            f"class 1 / class 2 {ratio(7, 'drop-tail', 0.0):.2f} at p_w 0, {r7:.2f} at 0.3",
                            v, c, only, src, "5.1"))
    v, c = verdict(grow4 > 1.15, grow4 > 1.03, "the discards stay rare even at 4 attempts")
    out.claims.append(Claim("004", "The same with retry limit 4", "direction",
                            f"class 1 / class 2 {ratio(4, 'drop-tail', 0.0):.2f} at p_w 0, {r4:.2f} at 0.3",
                            v, c, only, src, "5.1.1"))
    rv = ratio(4, "vbs-above-target", 0.3)
    v, c = verdict(within(rv, 0.9, 1.1), abs(rv - 1) < abs(r4 - 1), "VBS narrows the gap but does not close it")
    out.claims.append(Claim("004", "Figs. 14-15: VBS makes the classes fair (retry limit 4, p_w 0.3)",
                            "class ratio about 1", f"{rv:.2f} with VBS against {r4:.2f} with drop-tail",
                            v, c, only, src, "5.1.1"))
    od, ov = agg[(4, "drop-tail", 0.3)]["occ"], agg[(4, "vbs-above-target", 0.3)]["occ"]
    v, c = verdict(od > 75 and within(ov, 54, 66), od > 75 or within(ov, 54, 66),
                   "the occupancy is not where the paper puts it")
    out.claims.append(Claim("004", "Figs. 2, 14: AP occupancy almost full with drop-tail, about c B = 60 with VBS "
                                   "(B = 100)", "about 100 / 60 packets", f"{od:.1f} / {ov:.1f} packets",
                            v, c, only, src, "5.1"))
    tot = pct(agg[(4, "vbs-above-target", 0.3)]["total"], agg[(4, "drop-tail", 0.3)]["total"])
    v, c = verdict(abs(tot) <= 5.0, abs(tot) <= 10.0, "VBS's blocking leaves airtime unused")
    out.claims.append(Claim("004", "Figs. 14-15: VBS keeps the total throughput (retry limit 4, p_w 0.3)",
                            "total unchanged", f"{tot:+.1f} % of drop-tail", v, c, only, src, "5.1.1"))
    # at campus scale (docs/validation.md 24.5): 200 s runs, seed 1 unless full
    txt, agg = campus_report(campus_runs(quick_sets(full), jobs, cache))
    out.tables.append(txt)
    out.claims += campus_claims(agg, f"{cmd} --only campus",
                                "scenarios/pokhrel-campus.toml and pokhrel-updown.toml (B_ap 100, p_w 0.2), "
                                + ("scenario's seeds" if full else "seed 1") + ", 200 s")
    return out
