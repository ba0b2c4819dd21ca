"""A congestion controller's state over one download (scenarios/download.toml,
one station, 802.11g 24 Mbit/s, drop-tail AP buffer, bench/compare-cc's
settings for the case): cwnd and ssthresh with the controller's own
estimates against time, its modes shaded, as the figure
docs/figures/cc-<case>-state.png of docs/validation.md section 16
(docs/figures/bbr-state.png and bbr3-state.png for BBR v1 and v3).

    .venv/bin/python scripts/cc_state.py --cc cubic [--buffer 100] [--duration 30] [--seed 1]
    .venv/bin/python scripts/cc_state.py --all      # every figure of section 16

Builds and runs the engine-only runner (cargo example run_file, release)
with `tcp.trace_cwnd`, which records the controller's state on every
change: the result's `flows[0].tcp.cc_trace` rows are named by
`cc_trace_fields` (time, cwnd, mode, then the controller's estimates:
BBR's pacing rate, bandwidth and min-RTT estimates; CUBIC's W_max, K and
W_est; Westwood+'s bandwidth estimate; Veno's backlog; Vegas's and
Compound's diff; DCTCP's and Prague's alpha), and `cwnd_trace` holds
cwnd and ssthresh. Prints the time spent in each mode and the last
estimates.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"


def compare_cc():
    """bench/compare-cc as a module: its cases and their run settings."""
    loader = importlib.machinery.SourceFileLoader("compare_cc", str(ROOT / "bench" / "compare-cc"))
    spec = importlib.util.spec_from_loader("compare_cc", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


#: controllers compare-cc has no ns-3 counterpart for, with their AP queue
EXTRA = {
    "compound": ({"tcp.cc": "compound", "tcp.recovery": "sack", "tcp.sack": True}, "droptail"),
    "prague": ({"tcp.cc": "prague", "tcp.ecn": "accurate", "tcp.recovery": "sack", "tcp.sack": True,
                "ap.qdisc": {"kind": "dualpi2"}}, "droptail"),
}
#: the AP queue of the cases that need marking
AQM = {"dctcp": "red-ecn"}
#: the figures of section 16, one per controller
ALL = ["newreno", "cubic", "vegas", "compound", "westwood", "veno", "dctcp", "prague", "bbr", "bbr3"]
PALETTE = ["#f4cccc", "#ffffff", "#cfe2f3", "#fce5cd", "#d9ead3", "#fff2cc", "#ead1dc", "#d0e0e3"]
#: the scenario's segment size unless a case sets `tcp.mss` (`[tcp] mss`'s default)
MSS = 1460
UNITS = {"_bps": ("Mbit/s", 1e-6), "_ms": ("ms", 1.0), "_s": ("s", 1.0), "_segments": ("segments", 1.0)}


def figure_path(case):
    return FIGURES / (f"{case}-state.png" if case in ("bbr", "bbr3") else f"cc-{case}-state.png")


def run(cc_mod, case, buffer, duration, seed):
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "wifitcp-sim", "--example", "run_file"],
                   cwd=ROOT, check=True)
    if case in EXTRA:
        tcp_sets, aqm = EXTRA[case]
    else:
        tcp_sets, aqm = cc_mod.CASES[case][0], AQM.get(case, "droptail")
    sets = cc_mod.run_sets(tcp_sets, 1, buffer, duration, aqm=aqm)
    args = [str(target / "release" / "examples" / "run_file"), str(ROOT / "scenarios" / "download.toml"), str(seed)]
    args += [f"{k}={json.dumps(v)}" for k, v in sets.items()]
    r = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return r, float(sets.get("tcp.mss", MSS))


def spans(tr, end):
    """(start, end, mode) runs of the trace."""
    out, start, mode = [], tr[0][0], tr[0][2]
    for row in tr[1:]:
        if row[2] != mode:
            out.append((start, row[0], mode))
            start, mode = row[0], row[2]
    out.append((start, end, mode))
    return out


def unit_of(name):
    for suffix, (unit, scale) in UNITS.items():
        if name.endswith(suffix):
            return unit, scale
    return name, 1.0


def draw(case, r, mss, buffer, duration):
    tcp = r["flows"][0]["tcp"]
    tr, fields = tcp["cc_trace"], tcp["cc_trace_fields"]
    modes = list(dict.fromkeys(row[2] for row in tr))
    colors = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(modes)}
    # panels: the estimates grouped by unit; segments join cwnd's panel, which is last
    groups = {}
    for i, name in enumerate(fields[3:], start=3):
        unit, scale = unit_of(name)
        if unit != "segments":
            groups.setdefault(unit, []).append((i, name, scale))
    seg = [(i, n) for i, n in enumerate(fields[3:], start=3) if unit_of(n)[0] == "segments"]
    n_panels = len(groups) + 1
    fig, axes = plt.subplots(n_panels, 1, figsize=(9, 2.2 + 2.2 * n_panels), sharex=True, squeeze=False)
    axes = [a[0] for a in axes]
    for ax in axes:
        for s, e, m in spans(tr, duration):
            ax.axvspan(s, e, color=colors[m], lw=0)
    t = [row[0] for row in tr]
    for ax, (unit, members) in zip(axes, groups.items()):
        for i, name, scale in members:
            ax.step(t, [row[i] * scale if row[i] is not None else float("nan") for row in tr], where="post",
                    lw=1.0, label=name.rsplit("_", 1)[0].replace("_", " ") if unit != name else name)
        ax.set_ylabel(unit)
        ax.legend(loc="upper right")
    ax = axes[-1]
    ax.step(t, [row[1] / mss for row in tr], where="post", lw=0.8, label="cwnd")
    cw = tcp.get("cwnd_trace") or []
    ss = [(x[0], x[2] / mss) for x in cw if x[2] is not None and x[2] / mss < 10_000]
    if ss:
        ax.step([x[0] for x in ss], [x[1] for x in ss], where="post", lw=0.8, ls="--", label="ssthresh")
    for i, name in seg:
        ax.step(t, [row[i] if row[i] is not None else float("nan") for row in tr], where="post", lw=0.9,
                label=name.rsplit("_", 1)[0].replace("_", " "))
    ax.set_ylabel("segments")
    ax.set_xlabel("time (s)")
    ax.legend(loc="upper right")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[m], ec="0.6") for m in modes]
    height = fig.get_figheight()
    fig.legend(handles, modes, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.45 / height), ncol=4, title="mode")
    fig.suptitle(f"{case}, one 802.11g download, AP buffer {buffer}: {r['aggregate_mbps']:.2f} Mbit/s",
                 y=1 - 0.1 / height)
    legend_rows = (len(modes) + 3) // 4
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.75 + 0.3 * legend_rows) / height))
    path = figure_path(case)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    time_in = {}
    for s, e, m in spans(tr, duration):
        time_in[m] = time_in.get(m, 0.0) + e - s
    print(f"{case}: goodput {r['aggregate_mbps']:.2f} Mbit/s, mean RTT {tcp['rtt_mean_ms']:.1f} ms, "
          f"retransmitted {tcp['segments_retransmitted']}, trace points {len(tr)}")
    print("  time in mode (s): " + ", ".join(f"{m} {v:.2f}" for m, v in time_in.items()))
    last = dict(zip(fields, tr[-1]))
    print("  last: " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                  for k, v in last.items() if k not in ("time_s", "mode")))
    print(f"  figure: {path.relative_to(ROOT)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", default="bbr", help="a bench/compare-cc case, or " + ", ".join(EXTRA))
    ap.add_argument("--all", action="store_true", help="every figure of section 16: " + ", ".join(ALL))
    ap.add_argument("--buffer", type=int, default=100)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cc_mod = compare_cc()
    for case in ALL if a.all else [a.cc]:
        if case not in cc_mod.CASES and case not in EXTRA:
            raise SystemExit(f"cc_state: --cc {case}: not a case of bench/compare-cc nor one of {', '.join(EXTRA)}")
        r, mss = run(cc_mod, case, a.buffer, a.duration, a.seed)
        draw(case, r, mss, a.buffer, a.duration)


if __name__ == "__main__":
    main()
