"""Keceli, Inan & Ayanoglu, *TCP ACK Congestion Control and Filtering for
Fairness Provision in the Uplink of IEEE 802.11 Infrastructure BSS* (paper
001, ``../shared/seeds/001_cd4751798a246748.txt``): uplink TCP fairness at
the AP under its queue disciplines.

* Figs. 3-4 (equal RTTs): Jain index and total uplink goodput against the
  number of uplink flows n = 1..15 for default 802.11 (drop-tail), the
  paper's ACK congestion control and filtering with sorted and grouped
  threshold assignment, and Pilosof's advertised-window rewriting
  (``scenarios/keceli-figs3-6.toml``; the flagship short form
  ``scenarios/keceli-fairness.toml``, which ``make run`` runs;
  ``docs/figures/keceli-fig3-*.png``, ``keceli-fig4-*.png``,
  ``keceli-fairness.png``), with Pilosof's window bound and the starving
  flows at n = 15.
* Figs. 5-6 (unequal RTTs, flow i with (i+1)*10 ms of wire each way):
  ``scenarios/keceli-figs5-6-unequal-rtt.toml``
  (``docs/figures/keceli-fig5-*.png``, ``keceli-fig6-*.png``).
* Section IV, PER 0.1 against PER 0 (no figure in the paper):
  ``scenarios/keceli-per.toml`` (``docs/figures/keceli-per.png``).
* Beyond the paper, on its setup: today's Linux AP queues (CAKE's ACK
  filter, FQ-CoDel, airtime DRR; ``scenarios/keceli-linux-baselines.toml``,
  ``docs/figures/keceli-linux-baselines.png``), Pilosof against the wired
  delay (``docs/figures/keceli-pilosof-vs-delay.png``), the capacity with
  one TCP ACK per data segment, and RFC 6298's 1 s minimum RTO.

Fig. 1 (the unfairness itself, ``scenarios/keceli-uplink.toml``) is a
plain ``wifitcp run``; docs/validation.md section 2 discusses it.

Reproduce::

    python -m wifitcp.repro.p001_keceli                  # everything
    python -m wifitcp.repro.p001_keceli --only fairness  # the flagship
    python -m wifitcp.repro.p001_keceli --cached         # redraw only
    python -m wifitcp.repro.p001_keceli --quick          # one seed, 20 s: a smoke test

Each job runs a scenario file (with the overrides of `JOBS`) through the
campaign layer, as ``wifitcp run --no-store`` would; a compact summary of
every run is cached as JSON lines in ``results/repro-keceli/<job>.jsonl``
(``--cached`` reuses it). Figures go to ``docs/figures/`` (PNG), tables
(Markdown) to stdout. docs/validation.md sections 6-9 compare them with
the paper.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from .common import FIGURES, RESULTS, mean_ci, run_scenario, save_figure, summarise

PAPER = ("Keceli, Inan & Ayanoglu, TCP ACK Congestion Control and Filtering for Fairness "
         "Provision in the Uplink of IEEE 802.11 Infrastructure BSS (paper 001)")
CACHE = RESULTS / "repro-keceli"

#: the flagship reproduction (Figs. 3-4, short form): what ``make run`` and
#: ``bench/campaign`` run
FLAGSHIP = "keceli-fairness"

# job name -> (scenario file, extra --set arguments)
JOBS = {
    "fairness": (f"{FLAGSHIP}.toml", []),
    "figs3-6": ("keceli-figs3-6.toml", []),
    "unequal": ("keceli-figs5-6-unequal-rtt.toml", []),
    "linux": ("keceli-linux-baselines.toml", []),
    "per": ("keceli-per.toml", []),
}
# Pilosof's window-limited throughput against the wired delay: n = 15,
# Pilosof and grouped, one job per one-way delay (ms).
PILOSOF_DELAYS_MS = [5.0, 15.0, 25.0, 35.0]
for _d in PILOSOF_DELAYS_MS:
    JOBS[f"pilosof-delay-{_d:g}"] = ("keceli-figs3-6.toml", [
        "sweep.wlan.stations=[15]",
        'sweep.cases=[{"ap.qdisc.kind"="keceli-grouped"}, {"ap.qdisc.kind"="pilosof"}]',
        f"links[0].delay_ms={_d}",
        "scenario.seeds=[1, 2, 3]",
    ])
# The capacity of the WLAN when the AP must send one TCP ACK per data segment
# (no ACK is lost or filtered): drop-tail with an AP buffer larger than all
# windows (15 x 42 packets), n = 15.
JOBS["ack-bound"] = ("keceli-figs3-6.toml", [
    "sweep.wlan.stations=[15]", 'sweep.cases=[{"ap.qdisc.kind"="drop-tail"}]',
    "ap.queue_packets=1000", "scenario.seeds=[1, 2, 3]",
])
# RFC 6298's 1 s minimum RTO instead of ns-2.28's 200 ms, n = 5, 10, 15.
JOBS["rto-1s"] = ("keceli-figs3-6.toml", [
    "sweep.wlan.stations=[5, 10, 15]", "tcp.min_rto_ms=1000", "scenario.seeds=[1, 2, 3]",
])
DEFAULT_JOBS = ["fairness", "figs3-6", "unequal", "linux", "per",
                *[f"pilosof-delay-{d:g}" for d in PILOSOF_DELAYS_MS], "ack-bound", "rto-1s"]
#: the scenario files the jobs run
SCENARIOS = sorted({path[:-len(".toml")] for path, _ in JOBS.values()})

LABEL = {
    "drop-tail": "default 802.11 (drop-tail)",
    "keceli-sorted": "sorted assignment",
    "keceli-grouped": "grouped assignment",
    "pilosof": "Pilosof [4] (floor(B/n_act))",
    "cake-ack/conservative": "cake-ack conservative",
    "cake-ack/aggressive": "cake-ack aggressive",
    "fq-codel": "fq-codel",
    "airtime": "airtime (mac80211 ATF)",
}
STYLE = {
    "drop-tail": dict(color="k", marker="o"),
    "keceli-sorted": dict(color="tab:blue", marker="s"),
    "keceli-grouped": dict(color="tab:green", marker="^"),
    "pilosof": dict(color="tab:red", marker="v"),
    "cake-ack/conservative": dict(color="tab:purple", marker="D"),
    "cake-ack/aggressive": dict(color="tab:orange", marker="P"),
    "fq-codel": dict(color="tab:brown", marker="x"),
    "airtime": dict(color="tab:cyan", marker="*"),
}

# --------------------------------------------------------------------------
# running


def run_job(name: str, jobs: int, cache: Path, extra: list = ()) -> tuple:
    """Run one job (``extra``: more overrides); returns (summaries, meta)
    and caches them in ``cache``."""
    path, sets = JOBS[name]
    meta: dict = {}
    out = run_scenario(path, jobs=jobs, sets=list(sets) + list(extra), reduce=summarise, meta=meta)
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{name}.jsonl", "w") as fh:
        fh.write(json.dumps({"_meta": meta}) + "\n")
        for s in out:
            fh.write(json.dumps(s) + "\n")
    return out, meta


def load_job(name: str, cache: Path) -> tuple:
    f = cache / f"{name}.jsonl"
    if not f.exists():
        return None, None
    meta, out = {}, []
    for line in open(f):
        d = json.loads(line)
        if "_meta" in d:
            meta = d["_meta"]
        else:
            out.append(d)
    return out, meta


# --------------------------------------------------------------------------
# grouping


def scheme_of(r: dict) -> str:
    p = r["params"]
    kind = p.get("ap.qdisc.kind", "drop-tail")
    if "ap.qdisc.mode" in p:
        return f"{kind}/{p['ap.qdisc.mode']}"
    return kind


def by_scheme_n(runs: list, metric) -> dict:
    """{scheme: {n: [value per seed]}}"""
    d = defaultdict(lambda: defaultdict(list))
    for r in runs:
        d[scheme_of(r)][r["params"].get("wlan.stations")].append(metric(r))
    return d


def fair_sharing_jain(n: int, duration: float, stagger: float = 1.0) -> float:
    """Jain index of perfectly fair sharing when flow k starts at k*stagger
    and every flow ends at `duration`: the bound that staggered starts put
    on any scheme (goodput is averaged over the whole run)."""
    b = [0.0] * n
    for j in range(n):  # [j*stagger, (j+1)*stagger): j+1 active flows
        t0 = j * stagger
        t1 = duration if j == n - 1 else min((j + 1) * stagger, duration)
        for k in range(j + 1):
            b[k] += (t1 - t0) / (j + 1)
    return sum(b) ** 2 / (n * sum(x * x for x in b))


# --------------------------------------------------------------------------
# tables


def fmt(m: float, h: float, digits: int) -> str:
    return f"{m:.{digits}f} ± {h:.{digits}f}"


def table(title: str, d: dict, schemes: list, ns: list, digits: int) -> str:
    lines = [f"\n{title}\n", "| n | " + " | ".join(LABEL.get(s, s) for s in schemes) + " |",
             "|---|" + "---|" * len(schemes)]
    for n in ns:
        row = [str(n)]
        for s in schemes:
            xs = d.get(s, {}).get(n)
            row.append(fmt(*mean_ci(xs), digits) if xs else "")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


NS_TABLE = [1, 2, 3, 5, 8, 10, 12, 15]


def keceli_tables(name: str, runs: list, schemes: list) -> str:
    j = by_scheme_n(runs, lambda r: r["jain"])
    t = by_scheme_n(runs, lambda r: r["agg"])
    seeds = sorted({r["seed"] for r in runs})
    dur = runs[0]["duration_s"]
    out = [f"\n## {name} ({len(runs)} runs, seeds {seeds}, {dur:g} s; mean ± 95 % CI)"]
    out.append(table("Jain index", j, schemes, NS_TABLE, 3))
    out.append(table("Total uplink goodput (Mbit/s)", t, schemes, NS_TABLE, 2))
    out.append("\nfair-sharing bound on the Jain index from the 1-s staggered starts: "
               + ", ".join(f"n={n}: {fair_sharing_jain(n, dur):.3f}" for n in (5, 10, 15)))
    return "\n".join(out)


def pilosof_table(runs: list) -> str:
    """Pilosof's window-limited throughput: n*floor(B/n)*MSS*8 / RTT."""
    t = by_scheme_n(runs, lambda r: r["agg"])
    rtt = by_scheme_n([r for r in runs if scheme_of(r) == "pilosof"],
                      lambda r: sum(f["srtt_ms"] or 0 for f in r["flows"]) / max(1, len(r["flows"])))
    out = ["\n### Pilosof: throughput against its window bound and the proposed schemes",
           "\n| n | min(42, floor(50/n)) | W = n*min(42, floor(50/n)) | mean srtt (ms) | W*1460*8/srtt | Pilosof | sorted | grouped | gap to sorted | gap to grouped |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for n in sorted(t.get("pilosof", {})):
        w = n * min(42, 50 // n)
        srtt = sum(rtt["pilosof"][n]) / len(rtt["pilosof"][n])
        bound = w * 1460 * 8 / (srtt / 1e3) / 1e6
        p = mean_ci(t["pilosof"][n])[0]
        srt = mean_ci(t["keceli-sorted"][n])[0] if n in t.get("keceli-sorted", {}) else float("nan")
        grp = mean_ci(t["keceli-grouped"][n])[0]
        out.append(f"| {n} | {min(42, 50 // n)} | {w} | {srtt:.1f} | {bound:.2f} | {p:.2f} | {srt:.2f} | {grp:.2f} "
                   f"| {100 * (1 - p / srt):.0f} % | {100 * (1 - p / grp):.0f} % |")
    return "\n".join(out)


def unequal_flow_table(runs: list, schemes: list, n: int = 15) -> str:
    out = [f"\n### Per-flow goodput at n = {n}, unequal RTTs (Mbit/s, mean over seeds; flow i has {10}*(i+1) ms each way)",
           "\n| flow i | " + " | ".join(LABEL.get(s, s) for s in schemes) + " |",
           "|---|" + "---|" * len(schemes)]
    per = {}
    for s in schemes:
        rs = [r for r in runs if scheme_of(r) == s and r["params"].get("wlan.stations") == n]
        per[s] = [sum(r["flows"][i]["goodput"] for r in rs) / len(rs) for i in range(n)] if rs else []
    for i in range(n):
        out.append(f"| {i} | " + " | ".join(f"{per[s][i]:.2f}" if per[s] else "" for s in schemes) + " |")
    return "\n".join(out)


def starving_table(runs: list, schemes: list, n: int = 15) -> str:
    out = [f"\n### n = {n}: starving flows (< 0.1 Mbit/s), timeouts, AP queue",
           "\n| scheme | starving flows | RTOs per flow | SYN retx per flow | AP drops per run (reason) | ACKs filtered share |",
           "|---|---|---|---|---|---|"]
    for s in schemes:
        rs = [r for r in runs if scheme_of(r) == s and r["params"].get("wlan.stations") == n]
        if not rs:
            continue
        k = len(rs)
        starving = sum(sum(1 for f in r["flows"] if f["goodput"] < 0.1) for r in rs) / k
        rto = sum(sum(f["timeouts"] or 0 for f in r["flows"]) for r in rs) / k / n
        syn = sum(sum(f["syn_retransmits"] or 0 for f in r["flows"]) for r in rs) / k / n
        drops = defaultdict(float)
        for r in rs:
            for why, c in (r["queue"].get("dropped") or {}).items():
                drops[why] += c / k
        fs = sum(r["queue"].get("filtered_share") or 0 for r in rs) / k
        out.append(f"| {LABEL.get(s, s)} | {starving:.1f} | {rto:.1f} | {syn:.1f} | "
                   + ", ".join(f"{why} {c:.0f}" for why, c in sorted(drops.items())) + f" | {fs:.2f} |")
    return "\n".join(out)


def per_table(per: list, zero: list, schemes: list) -> str:
    tp = by_scheme_n(per, lambda r: r["agg"])
    t0 = by_scheme_n(zero, lambda r: r["agg"])
    jp = by_scheme_n(per, lambda r: r["jain"])
    j0 = by_scheme_n(zero, lambda r: r["jain"])
    seeds = sorted({r["seed"] for r in per})
    out = [f"\n### PER 0.1 against PER 0 (same seeds {seeds}): total goodput and Jain index",
           "\n| n | " + " | ".join(f"{LABEL.get(s, s)}: T(PER)/T(0), f(PER) [f(0)]" for s in schemes) + " |",
           "|---|" + "---|" * len(schemes)]
    ratios = defaultdict(list)
    for n in NS_TABLE:
        row = [str(n)]
        for s in schemes:
            a = [x for x in tp[s].get(n, [])]
            b = [x for x in t0[s].get(n, [])][:len(a)]
            if not a or not b:
                row.append("")
                continue
            ratio = (sum(a) / len(a)) / (sum(b) / len(b))
            row.append(f"{ratio:.3f}, {sum(jp[s][n]) / len(jp[s][n]):.3f} [{sum(j0[s][n][:len(a)]) / len(a):.3f}]")
        out.append("| " + " | ".join(row) + " |")
    for s in schemes:
        for n in range(1, 16):
            a, b = tp[s].get(n), t0[s].get(n, [])[:len(tp[s].get(n, []))]
            if a and b:
                ratios[s].append((sum(a) / len(a)) / (sum(b) / len(b)))
    out.append("\nmean over n = 1..15 of T(PER 0.1)/T(PER 0): "
               + ", ".join(f"{LABEL.get(s, s)} {sum(v) / len(v):.3f}" for s, v in ratios.items()))
    tcp_rtx = {}
    for s in schemes:
        rs = [r for r in per if scheme_of(r) == s and r["params"].get("wlan.stations") == 15]
        rs0 = [r for r in zero if scheme_of(r) == s and r["params"].get("wlan.stations") == 15 and r["seed"] in seeds]
        f = lambda rr, k: sum(sum(x[k] or 0 for x in r["flows"]) for r in rr) / max(1, len(rr))
        tcp_rtx[s] = (f(rs, "retransmitted"), f(rs0, "retransmitted"), f(rs, "timeouts"), f(rs0, "timeouts"),
                      sum(sum(st.get("channel_errors") or 0 for st in r["stations"]) for r in rs) / max(1, len(rs)),
                      sum(r["ledger_dropped"].get("retry_limit", 0) for r in rs) / max(1, len(rs)))
    out.append("\nn = 15, per run: TCP retransmitted segments PER 0.1 [PER 0], RTOs [PER 0], frames lost to channel errors, MAC retry-limit drops")
    for s, v in tcp_rtx.items():
        out.append(f"- {LABEL.get(s, s)}: {v[0]:.0f} [{v[1]:.0f}], {v[2]:.0f} [{v[3]:.0f}], {v[4]:.0f}, {v[5]:.1f}")
    return "\n".join(out)


# --------------------------------------------------------------------------
# figures


def plt_mod():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "legend.fontsize": 8})
    return plt


def curve(ax, d: dict, scheme: str, dashed: bool = False, label_suffix: str = "", offset: float = 0.0):
    ns = sorted(d[scheme])
    ms, hs = zip(*(mean_ci(d[scheme][n]) for n in ns))
    st = STYLE.get(scheme, {})
    ax.errorbar([n + offset for n in ns], ms, yerr=hs, capsize=2, lw=1.2, ms=4,
                ls="--" if dashed else "-", mfc="none" if dashed else None,
                label=LABEL.get(scheme, scheme) + label_suffix, **st)


def single_fig(plt, runs, schemes, metric, ylabel, title, path, bound=None, ylim=None):
    d = by_scheme_n(runs, metric)
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    offs = {s: (i - (len(schemes) - 1) / 2) * 0.08 for i, s in enumerate(schemes)}
    for s in schemes:
        if s in d:
            curve(ax, d, s, offset=offs[s])
    if bound is not None:
        ns = list(range(1, 16))
        ax.plot(ns, [bound(n) for n in ns], ":", color="gray", lw=1,
                label="fair sharing with 1-s staggered starts")
    ax.set_xlabel("number of uplink TCP flows n")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.set_xticks(range(1, 16))
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    save_figure(fig, path)
    plt.close(fig)


def two_panel(plt, solid: list, dashed: list, schemes_solid, schemes_dashed, title, path,
              suffix_solid="", suffix_dashed="", dur=100.0):
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, metric, ylabel in ((axes[0], lambda r: r["jain"], "Jain fairness index"),
                               (axes[1], lambda r: r["agg"], "total uplink goodput (Mbit/s)")):
        d1 = by_scheme_n(solid, metric)
        d2 = by_scheme_n(dashed, metric) if dashed else {}
        for s in schemes_solid:
            if s in d1:
                curve(ax, d1, s, label_suffix=suffix_solid)
        for s in schemes_dashed:
            if s in d2:
                curve(ax, d2, s, dashed=True, label_suffix=suffix_dashed)
        ax.set_xlabel("number of uplink TCP flows n")
        ax.set_ylabel(ylabel)
        ax.set_xticks(range(1, 16))
        ax.grid(alpha=0.3)
    axes[0].plot(range(1, 16), [fair_sharing_jain(n, dur) for n in range(1, 16)], ":", color="gray",
                 lw=1, label="fair sharing, staggered starts")
    axes[0].legend(loc="lower left")
    fig.suptitle(title, fontsize=9)
    save_figure(fig, path)
    plt.close(fig)


def pilosof_delay_fig(plt, data: dict, path: Path):
    """data: {delay_ms: runs}"""
    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    for s in ("keceli-grouped", "pilosof"):
        xs, ms, hs = [], [], []
        for dly, runs in sorted(data.items()):
            v = [r["agg"] for r in runs if scheme_of(r) == s]
            if v:
                m, h = mean_ci(v)
                xs.append(dly)
                ms.append(m)
                hs.append(h)
        ax.errorbar(xs, ms, yerr=hs, capsize=2, label=LABEL[s], **STYLE[s])
    # window bound: 45 packets of 1460 B per base RTT (2*delay + WLAN)
    ds = [d for d in sorted(data)]
    ax.set_xlabel("one-way wired delay behind the AP (ms)")
    ax.set_ylabel("total uplink goodput, n = 15 (Mbit/s)")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_xticks(ds)
    save_figure(fig, path)
    plt.close(fig)


# --------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wifitcp.repro.p001_keceli",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="worker processes per sweep (default 2)")
    ap.add_argument("--only", default=",".join(DEFAULT_JOBS),
                    help="comma-separated jobs: " + ", ".join(JOBS) + " (default all)")
    ap.add_argument("--cached", action="store_true", help="do not run; use the cached summaries")
    ap.add_argument("--quick", action="store_true",
                    help="one seed, 20 s runs, cached apart (CACHE/quick): a smoke test")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--figures", default=str(FIGURES))
    a = ap.parse_args(argv)
    want = [x.strip() for x in a.only.split(",") if x.strip()]
    for w in want:
        if w not in JOBS:
            ap.error(f"--only: unknown job {w!r} (one of {', '.join(JOBS)})")
    cache, figs = Path(a.cache), Path(a.figures)
    quick = ["scenario.seeds=[1]", "scenario.duration_s=20.0"] if a.quick else []
    if a.quick:
        cache = cache / "quick"
    data, meta = {}, {}
    for w in want:
        if a.cached:
            runs, m = load_job(w, cache)
            if runs is None:
                print(f"# {w}: no cached results in {cache}; run without --cached", file=sys.stderr)
                continue
        else:
            runs, m = run_job(w, a.jobs, cache, quick)
        data[w], meta[w] = runs, m
    # jobs whose figures need another job's data are read from the cache
    for extra in ("figs3-6",):
        if extra not in data:
            runs, m = load_job(extra, cache)
            if runs is not None:
                data[extra], meta[extra] = runs, m

    plt = plt_mod()
    paper4 = ["drop-tail", "keceli-sorted", "keceli-grouped", "pilosof"]
    linux = ["cake-ack/conservative", "cake-ack/aggressive", "fq-codel", "airtime"]
    print("# Keceli et al. (paper 001): AP queue disciplines (python -m wifitcp.repro.p001_keceli)")
    for w, m in meta.items():
        if m:
            print(f"- {w}: {m.get('runs')} runs, {m.get('wall_s', 0):.0f} s wall, {m.get('cpu_s', 0):.0f} s CPU (--jobs {m.get('jobs')}), core {m.get('core')}")

    if "fairness" in data and "fairness" in want:
        runs = data["fairness"]
        print(keceli_tables("keceli-fairness (flagship)", runs, ["drop-tail", "keceli-grouped", "pilosof"]))
        two_panel(plt, runs, [], ["drop-tail", "keceli-grouped", "pilosof"], [],
                  "Keceli Figs. 3-4 (flagship, 3 seeds x 100 s): 802.11g 54 Mbit/s, equal RTTs, mean and 95 % CI",
                  figs / "keceli-fairness.png", dur=runs[0]["duration_s"])
    if "figs3-6" in data and "figs3-6" in want:
        runs = data["figs3-6"]
        dur = runs[0]["duration_s"]
        print(keceli_tables("keceli-figs3-6 (equal RTTs, Figs. 3-4)", runs, paper4))
        print(starving_table(runs, paper4))
        print(pilosof_table(runs))
        single_fig(plt, runs, paper4, lambda r: r["jain"], "Jain fairness index",
                   "Keceli Fig. 3: fairness, equal RTTs (802.11g 54 Mbit/s, 5 seeds x 100 s)",
                   figs / "keceli-fig3-fairness-equal-rtt.png", bound=lambda n: fair_sharing_jain(n, dur),
                   ylim=(0, 1.05))
        single_fig(plt, runs, paper4, lambda r: r["agg"], "total uplink goodput (Mbit/s)",
                   "Keceli Fig. 4: total uplink throughput, equal RTTs",
                   figs / "keceli-fig4-throughput-equal-rtt.png")
    if "unequal" in data:
        runs = data["unequal"]
        dur = runs[0]["duration_s"]
        print(keceli_tables("keceli-figs5-6-unequal-rtt (Figs. 5-6)", runs, paper4))
        print(starving_table(runs, paper4))
        print(unequal_flow_table(runs, paper4))
        single_fig(plt, runs, paper4, lambda r: r["jain"], "Jain fairness index",
                   "Keceli Fig. 5: fairness, wired delay of flow i (i+1)*10 ms",
                   figs / "keceli-fig5-fairness-unequal-rtt.png", bound=lambda n: fair_sharing_jain(n, dur),
                   ylim=(0, 1.05))
        single_fig(plt, runs, paper4, lambda r: r["agg"], "total uplink goodput (Mbit/s)",
                   "Keceli Fig. 6: total uplink throughput, wired delay of flow i (i+1)*10 ms",
                   figs / "keceli-fig6-throughput-unequal-rtt.png")
    if "linux" in data:
        runs = data["linux"]
        seeds = {r["seed"] for r in runs}
        ref = [r for r in data.get("figs3-6", []) if r["seed"] in seeds
               and scheme_of(r) in ("drop-tail", "keceli-grouped")]
        print(keceli_tables("keceli-linux-baselines", runs + ref, linux + ["drop-tail", "keceli-grouped"]))
        print(starving_table(runs, linux))
        two_panel(plt, runs, ref, linux, ["drop-tail", "keceli-grouped"],
                  "Keceli Figs. 3-4 setup with Linux AP queues (3 seeds x 100 s; dashed: paper 001 schemes, same seeds)",
                  figs / "keceli-linux-baselines.png")
    if "per" in data:
        runs = data["per"]
        seeds = {r["seed"] for r in runs}
        zero = [r for r in data.get("figs3-6", []) if r["seed"] in seeds]
        print(keceli_tables("keceli-per (PER 0.1 both directions)", runs, paper4))
        print(starving_table(runs, paper4))
        if zero:
            print(per_table(runs, zero, paper4))
        two_panel(plt, runs, zero, paper4, paper4,
                  "Keceli section IV, PER 0.1 (solid) against PER 0 (dashed), 3 seeds x 100 s",
                  figs / "keceli-per.png", suffix_dashed=", PER 0")
    pd = {d: data[f"pilosof-delay-{d:g}"] for d in PILOSOF_DELAYS_MS if f"pilosof-delay-{d:g}" in data}
    if pd:
        print("\n## Pilosof against the wired delay, n = 15 (3 seeds x 100 s)")
        print("\n| one-way delay (ms) | grouped (Mbit/s) | Pilosof (Mbit/s) | Pilosof srtt (ms) | 45*1460*8/srtt | gap |")
        print("|---|---|---|---|---|---|")
        for dly, runs in sorted(pd.items()):
            g = mean_ci([r["agg"] for r in runs if scheme_of(r) == "keceli-grouped"])[0]
            pr = [r for r in runs if scheme_of(r) == "pilosof"]
            p = mean_ci([r["agg"] for r in pr])[0]
            srtt = sum(sum(f["srtt_ms"] or 0 for f in r["flows"]) / len(r["flows"]) for r in pr) / len(pr)
            print(f"| {dly:g} | {g:.2f} | {p:.2f} | {srtt:.1f} | {45 * 1460 * 8 / srtt / 1e3:.2f} | {100 * (1 - p / g):.0f} % |")
        pilosof_delay_fig(plt, pd, figs / "keceli-pilosof-vs-delay.png")
    if "rto-1s" in data:
        runs = data["rto-1s"]
        ref = [r for r in data.get("figs3-6", []) if r["seed"] in {x["seed"] for x in runs}
               and r["params"].get("wlan.stations") in (5, 10, 15)]
        print("\n## Minimum RTO 1 s (RFC 6298) against 200 ms (ns-2.28), same seeds: Jain index / goodput")
        print("\n| n | scheme | f, RTO 1 s | f, RTO 0.2 s | Mbit/s, 1 s | Mbit/s, 0.2 s | RTOs per flow, 1 s | 0.2 s |")
        print("|---|---|---|---|---|---|---|---|")
        for n in (5, 10, 15):
            for sch in paper4:
                a = [r for r in runs if scheme_of(r) == sch and r["params"]["wlan.stations"] == n]
                b = [r for r in ref if scheme_of(r) == sch and r["params"]["wlan.stations"] == n]
                if not a or not b:
                    continue
                mm = lambda rr, f: sum(f(r) for r in rr) / len(rr)
                rto = lambda r: sum(f["timeouts"] or 0 for f in r["flows"]) / n
                print(f"| {n} | {LABEL[sch]} | {mm(a, lambda r: r['jain']):.3f} | {mm(b, lambda r: r['jain']):.3f} | "
                      f"{mm(a, lambda r: r['agg']):.2f} | {mm(b, lambda r: r['agg']):.2f} | {mm(a, rto):.1f} | {mm(b, rto):.1f} |")
    if "ack-bound" in data:
        runs = data["ack-bound"]
        m, h = mean_ci([r["agg"] for r in runs])
        q = sum(r["queue"]["mean_len"] or 0 for r in runs) / len(runs)
        drops = sum(sum((r["queue"]["dropped"] or {}).values()) for r in runs) / len(runs)
        print(f"\n## One TCP ACK per data segment, n = 15 (drop-tail, AP buffer 1000): "
              f"{m:.2f} ± {h:.2f} Mbit/s, Jain {mean_ci([r['jain'] for r in runs])[0]:.3f}, "
              f"AP queue mean {q:.0f} packets, {drops:.0f} AP drops per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --------------------------------------------------------------------------
# the claims beside the paper (``wifitcp report``)

def claims(full: bool = False, jobs: int = 2, cache=None):
    """The paper's claims beside this module's runs (`claims.PaperClaims`):
    Fig. 1 (``scenarios/keceli-uplink.toml``) and Figs. 3-4
    (``scenarios/keceli-figs3-6.toml``); one seed and n = 3, 15 unless
    ``full``."""
    from .claims import Claim, PaperClaims, pct, quick_sets, verdict, within
    from .common import mean

    cmd = f"python -m {__name__}" + ("" if full else " --quick")
    how = "scenario's seeds" if full else "seed 1"
    sets = quick_sets(full)
    out = PaperClaims("001", PAPER, __name__, cmd)
    fig1 = run_scenario("keceli-uplink", jobs=jobs, sets=sets, reduce=summarise, cache=cache)
    j1 = mean(r["jain"] for r in fig1)
    starving = mean(sum(1 for f in r["flows"] if (f["goodput"] or 0) < 0.1) for r in fig1)
    v, c = verdict(within(j1, 0.3, 0.5), j1 < 0.7, "the AP's losses are spread more evenly over the flows")
    out.claims.append(Claim("001", "Fig. 1: 15 uplink flows through a drop-tail AP, 802.11g 24 Mbit/s",
                            "Jain 0.4, 9 of 15 flows starving",
                            f"Jain {j1:.3f}, {starving:.1f} flows below 0.1 Mbit/s", v, c,
                            "wifitcp run scenarios/keceli-uplink.toml", f"scenarios/keceli-uplink.toml, {how}",
                            "2.1"))
    grid = [] if full else ["sweep.wlan.stations=[3, 15]"]
    runs = run_scenario("keceli-figs3-6", jobs=jobs, sets=sets + grid, reduce=summarise, cache=cache)
    schemes = ["drop-tail", "keceli-sorted", "keceli-grouped", "pilosof"]
    out.tables.append(keceli_tables("keceli-figs3-6", runs, schemes) + "\n" + starving_table(runs, schemes))
    j = {s: {n: mean(xs) for n, xs in d.items()} for s, d in by_scheme_n(runs, lambda r: r["jain"]).items()}
    t = {s: {n: mean(xs) for n, xs in d.items()} for s, d in by_scheme_n(runs, lambda r: r["agg"]).items()}
    src = f"scenarios/keceli-figs3-6.toml, {how}" + ("" if full else ", n = 3 and 15")
    figs = f"python -m {__name__} --only figs3-6"
    g15 = j["keceli-grouped"][15]
    v, c = verdict(g15 >= 0.95, g15 > j["drop-tail"][15] + 0.2,
                   "ACKs overflow the 25-packet IFQ, and the flows they belong to time out")
    out.claims.append(Claim("001", "Fig. 3: grouped ACK congestion control keeps perfect fairness at 15 flows",
                            "perfect fairness (Jain about 1)",
                            f"Jain {g15:.3f} (default 802.11 {j['drop-tail'][15]:.3f})", v, c, figs, src, "2.3"))
    p15 = j["pilosof"][15]
    bound = fair_sharing_jain(15, runs[0]["duration_s"])
    v, c = verdict(p15 >= 0.95 * bound, p15 >= 0.8, "window rewriting leaves some flows behind")
    out.claims.append(Claim("001", "Fig. 3: Pilosof's window rewriting is perfectly fair at all loads (equal RTTs)",
                            "perfect fairness", f"Jain {p15:.3f} at n = 15 (bound for 1-s staggered starts "
                            f"{bound:.3f})", v, c, figs, src, "2.3"))
    ns = sorted(t["drop-tail"])
    gains = [pct(t["keceli-grouped"][n], t["drop-tail"][n]) for n in ns]
    v, c = verdict(all(x > 0 for x in gains), any(x > 0 for x in gains),
                   "at one flow a single group gets the largest threshold")
    out.claims.append(Claim("001", "Fig. 4: the proposed schemes carry more than default 802.11", "direction",
                            "grouped " + ", ".join(f"{x:+.0f} % at n = {n}" for x, n in zip(gains, ns)),
                            v, c, figs, src, "2.3"))
    gap = [100 * (1 - t["pilosof"][n] / t["keceli-grouped"][n]) for n in ns if n > 1]
    v, c = verdict(all(within(x, 36.0, 47.0) for x in gap), all(x > 0 for x in gap),
                   "Pilosof is window-limited: the gap follows the wired RTT")
    out.claims.append(Claim("001", "Fig. 4: Pilosof carries 38-45 % less than the proposed schemes",
                            "38-45 % less", ", ".join(f"{x:.0f} % less at n = {n}" for x, n in
                                                       zip(gap, [n for n in ns if n > 1])) + " (against grouped)",
                            v, c, figs, src, "2.3"))
    return out
