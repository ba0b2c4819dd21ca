"""Reproductions of issue 5: channel-quality papers.

* Pokhrel & Williamson, *Modeling Compound TCP over WiFi for IoT*
  (``../shared/seeds/004_56e896ba65a998d3.txt``): download-download
  unfairness between two SNR classes (Figs. 11, 14, 15) and upload-download
  unfairness (Figs. 16, 17), each without and with Virtual Buffer Sharing
  (``scenarios/pokhrel-download.toml``, ``scenarios/pokhrel-updown.toml``).
* Janevski & Petrov, *Cross-layer Analysis of Transport Control Protocols
  over IEEE 802.11 Wireless Networks* (``../shared/seeds/002_da027b964479e57b.txt``):
  FTP throughput and delay for five TCP variants against MAC retry limit,
  interface queue and distance (Figs. 3-5, 12-13, Table 5;
  ``scenarios/janevski-static.toml``, ``scenarios/janevski-near.toml``).

Usage::

    python -m wifitcp.repro.channel [--quick] [--jobs 2] [--only pokhrel|janevski]
                                    [--figures docs/figures] [--no-figures] [--store]

prints one table per figure/table of the papers (simulation beside what the
paper states) and writes ``docs/figures/pokhrel-*.png`` and
``docs/figures/janevski-*.png``. ``--quick`` runs one seed (and shorter
Pokhrel runs) for a smoke test. ``docs/validation.md`` (sections on issue 5)
discusses the numbers.

Only the figures' captions and the prose survive in the plain-text papers, so
the "paper" columns hold what the text states: shapes, orderings, the AP
occupancy of about 60 packets with VBS and Janevski & Petrov's Table 5.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = REPO / "scenarios"
FIGURES = REPO / "docs" / "figures"

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


# -- running -----------------------------------------------------------------

CACHE: Optional[Path] = None  # --cache: keep each run set's records here and reuse them


def run_scenario(name: str, *, jobs: int, sets: Iterable[str] = (), store: bool = False) -> list[dict]:
    """Run ``scenarios/<name>.toml`` through the Python API; one dict per run."""
    import gzip
    import hashlib
    import json

    import wifitcp

    sets = list(sets)
    path = SCENARIOS / f"{name}.toml"
    cached = None
    if CACHE is not None:
        # the scenario text, the overrides and the compiled core (a rebuilt
        # engine may give other numbers) identify a run set
        import wifitcp._core as core_mod

        core_id = hashlib.sha1(Path(core_mod.__file__).read_bytes()).hexdigest()
        tag = hashlib.sha1(json.dumps([path.read_text(), sets, core_id]).encode()).hexdigest()[:12]
        cached = CACHE / f"{name}-{tag}.jsonl.gz"
        if cached.exists():
            with gzip.open(cached, "rt") as f:
                runs = [json.loads(line) for line in f]
            print(f"# {name}: {len(runs)} runs from {cached}", flush=True)
            return runs
    kw: dict[str, Any] = dict(set=list(sets), jobs=jobs)
    if store:
        kw["out"] = str(REPO / "results" / f"{name}.duckdb")
        kw["replace"] = True
    t0 = time.monotonic()
    try:
        runs = wifitcp.run(str(path), frame="records", raise_on_failure=False, **kw)
    except TypeError:  # an API without frames returns the records
        runs = wifitcp.run(str(path), **kw)
    wall = time.monotonic() - t0
    failed = [r for r in runs if r.get("error") or "flows" not in r]
    for r in failed:
        print(f"# {name}: run {r.get('params')} seed {r.get('seed')} FAILED: {r.get('error')}", flush=True)
    runs = [r for r in runs if r not in failed]
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(cached, "wt") as f:
            for r in runs:
                f.write(json.dumps(r, default=str) + "\n")
    cpu = sum(float(r.get("wall_time_s") or 0.0) for r in runs)
    print(f"# {name}: {len(runs)} runs in {wall:.1f} s wall ({cpu:.1f} s summed run time, jobs={jobs})",
          flush=True)
    return runs


# -- helpers -----------------------------------------------------------------

def mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def sd(xs: Iterable[float]) -> float:
    xs = list(xs)
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def jain(xs: list[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 1.0


def occupancy_after(queue: dict, t0: float, t1: float) -> float:
    """Time-weighted mean of the queue's sampled length over [t0, t1]."""
    series = queue.get("series") or []
    if not series:
        return float(queue.get("mean_len", float("nan")))
    area, last_t, last_n = 0.0, t0, 0.0
    for t, n in series:
        if t <= t0:
            last_n = n
            continue
        if t > t1:
            break
        area += (t - last_t) * last_n
        last_t, last_n = t, n
    area += (t1 - last_t) * last_n
    return area / (t1 - t0) if t1 > t0 else float("nan")


def group(runs: list[dict], key: Callable[[dict], Any]) -> dict:
    g: dict = defaultdict(list)
    for r in runs:
        g[key(r)].append(r)
    return g


def fmt(x: float, nd: int = 2) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


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


# -- Janevski & Petrov -------------------------------------------------------

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


def janevski_sensitivity(jobs: int, seeds: list[str], store: bool) -> str:
    rows = []
    base = ['sweep.cases=[{"tcp.recovery"="newreno"}]', "sweep.wlan.positions[0]=[[5.0,0.0],[100.0,0.0]]"]
    for label, sets in JP_SENSITIVITY:
        runs = run_scenario("janevski-near", jobs=jobs, sets=base + seeds + sets, store=False)
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


# -- main --------------------------------------------------------------------

def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wifitcp.repro.channel", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one seed (and 60 s Pokhrel runs): a smoke test")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--only", choices=["pokhrel", "janevski"], help="run one paper's reproductions")
    ap.add_argument("--figures", default=str(FIGURES), help="directory of the PNG figures")
    ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--store", action="store_true", help="also store runs in results/<scenario>.duckdb")
    ap.add_argument("--cache", metavar="DIR", help="keep every run set's records in DIR and reuse them "
                    "(same scenario file and overrides) instead of running again")
    a = ap.parse_args(argv)
    global CACHE
    CACHE = Path(a.cache) if a.cache else None
    seeds = ["scenario.seeds=[1]"] if a.quick else []
    figdir = Path(a.figures)
    if not a.no_figures:
        figdir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    if a.only in (None, "pokhrel"):
        short = ["scenario.duration_s=60.0"] if a.quick else []
        runs = run_scenario("pokhrel-download", jobs=a.jobs, sets=seeds + short, store=a.store)
        txt, agg = pokhrel_download_report(runs)
        print(txt + "\n", flush=True)
        if not a.no_figures:
            pokhrel_download_figure(agg, figdir / "pokhrel-download.png")
        runs = run_scenario("pokhrel-updown", jobs=a.jobs, sets=seeds + short, store=a.store)
        txt, agg = pokhrel_updown_report(runs)
        print(txt + "\n", flush=True)
        if not a.no_figures:
            pokhrel_updown_figure(agg, figdir / "pokhrel-updown.png")
    if a.only in (None, "janevski"):
        runs = [(r, 5.0, 3) for r in run_scenario("janevski-near", jobs=a.jobs, sets=seeds, store=a.store)]
        runs += [(r, 50.0, 4) for r in run_scenario("janevski-static", jobs=a.jobs, sets=seeds, store=a.store)]
        agg = jp_aggregate(runs)  # NewReno at 5/10 m, L = 3 is in both files: seeds merged
        print(janevski_report(agg) + "\n", flush=True)
        if not a.no_figures:
            janevski_figures(agg, figdir)
        print(janevski_sensitivity(a.jobs, seeds, a.store) + "\n", flush=True)
    print(f"# total wall time {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
