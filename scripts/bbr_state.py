"""BBR's state over one download (scenarios/download.toml, one station,
802.11g 24 Mbit/s, drop-tail AP buffer): pacing rate, BtlBw estimate,
min-RTT estimate and cwnd against time, the mode shaded, as the figure
docs/figures/bbr-state.png of docs/validation.md (BBR v1 against ns-3),
or with `--cc bbr3` docs/figures/bbr3-state.png (BBR v3: the bandwidth
line is the draft's BBR.bw, max_bw bounded by bw_lo; the four ProbeBW
phases shaded apart).

    .venv/bin/python scripts/bbr_state.py [--cc bbr|bbr3] [--buffer 100] [--duration 30] [--seed 1]

Builds and runs the engine-only runner (cargo example run_file, release)
with the settings of bench/compare-cc's "bbr" case and `tcp.trace_cwnd`,
which records the controller's state on every change (the result's
`flows[0].tcp.cc_trace`: time, cwnd, mode, pacing rate, BtlBw, min RTT).
Prints the time spent in each mode and the last estimates.
"""
import argparse
import json
import os
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIGURES = {"bbr": ROOT / "docs" / "figures" / "bbr-state.png", "bbr3": ROOT / "docs" / "figures" / "bbr3-state.png"}
MODES = {
    "bbr": {"startup": "#f4cccc", "drain": "#fce5cd", "probe_bw": "#ffffff", "probe_rtt": "#cfe2f3"},
    "bbr3": {"startup": "#f4cccc", "drain": "#fce5cd", "probe_bw_down": "#ead1dc", "probe_bw_cruise": "#ffffff",
             "probe_bw_refill": "#d9ead3", "probe_bw_up": "#fff2cc", "probe_rtt": "#cfe2f3"},
}


def run(cc, buffer, duration, seed):
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "wifitcp-sim", "--example", "run_file"],
                   cwd=ROOT, check=True)
    sets = {"wlan.stations": 1, "ap.queue_packets": buffer, "scenario.duration_s": duration,
            "tcp.rwnd_packets": 1000, "tcp.window_scaling": True, "tcp.initial_window": 2,
            "tcp.cc": cc, "tcp.recovery": "sack", "tcp.sack": True, "tcp.trace_cwnd": True}
    args = [str(target / "release" / "examples" / "run_file"), str(ROOT / "scenarios" / "download.toml"), str(seed)]
    args += [f"{k}={json.dumps(v)}" for k, v in sets.items()]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def spans(tr, end):
    """(start, end, mode) runs of the trace."""
    out, start, mode = [], tr[0][0], tr[0][2]
    for t, _, m, *_ in tr[1:]:
        if m != mode:
            out.append((start, t, mode))
            start, mode = t, m
    out.append((start, end, mode))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", choices=sorted(FIGURES), default="bbr")
    ap.add_argument("--buffer", type=int, default=100)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = run(a.cc, a.buffer, a.duration, a.seed)
    modes, figure = MODES[a.cc], FIGURES[a.cc]
    tcp = r["flows"][0]["tcp"]
    tr = tcp["cc_trace"]
    mss = 1460.0
    t = [x[0] for x in tr]
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for ax in axes:
        for s, e, m in spans(tr, a.duration):
            ax.axvspan(s, e, color=modes[m], lw=0)
    axes[0].step(t, [x[3] / 1e6 for x in tr], where="post", lw=0.8, label="pacing rate")
    axes[0].step(t, [x[4] / 1e6 for x in tr], where="post", lw=1.2, label="BtlBw estimate")
    axes[0].set_ylabel("Mbit/s")
    axes[0].legend(loc="upper right")
    axes[1].step(t, [x[5] if x[5] is not None else float("nan") for x in tr], where="post", lw=1.2,
                 label="min-RTT estimate (RTprop)")
    axes[1].set_ylabel("ms")
    axes[1].legend(loc="upper right")
    axes[2].step(t, [x[1] / mss for x in tr], where="post", lw=0.8, label="cwnd")
    axes[2].set_ylabel("segments")
    axes[2].set_xlabel("time (s)")
    axes[2].legend(loc="upper right")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, ec="0.6") for c in modes.values()]
    fig.legend(handles, list(modes), loc="upper center", bbox_to_anchor=(0.5, 0.95), ncol=4, title="mode")
    name = {"bbr": "BBR v1", "bbr3": "BBR v3"}[a.cc]
    fig.suptitle(f"{name}, one 802.11g download, drop-tail AP buffer {a.buffer}: "
                 f"{r['aggregate_mbps']:.2f} Mbit/s", y=0.99)
    fig.tight_layout(rect=(0, 0, 1, 0.84 if len(modes) > 4 else 0.88))
    figure.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(figure, dpi=110)
    time_in = {}
    for s, e, m in spans(tr, a.duration):
        time_in[m] = time_in.get(m, 0.0) + e - s
    print(f"goodput {r['aggregate_mbps']:.2f} Mbit/s, mean RTT {tcp['rtt_mean_ms']:.1f} ms, "
          f"retransmitted {tcp['segments_retransmitted']}, trace points {len(tr)}")
    print("time in mode (s): " + ", ".join(f"{m} {v:.2f}" for m, v in time_in.items()))
    last = tr[-1]
    print(f"last: BtlBw {last[4] / 1e6:.2f} Mbit/s, min RTT {last[5]:.2f} ms, cwnd {last[1] / mss:.0f} segments")
    print(f"figure: {figure.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
