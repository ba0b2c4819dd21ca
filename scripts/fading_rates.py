"""Rate adaptation on a Rayleigh-fading link (scenarios/fading-rate-adaptation.toml):
ARF, AARF and Minstrel against the best fixed 802.11g rate at each
distance, as the markdown tables of docs/validation.md ("Rate adaptation
under fading") and the figure docs/figures/fading-rate-adaptation.png.

    .venv/bin/python scripts/fading_rates.py

Runs the scenario's 300 runs (about 10 s on one core) into a temporary
store, then prints per Doppler frequency and distance the best fixed rate
and its goodput, each controller's goodput with its mean airtime per
attempt, and the ratios; the figure shows goodput against distance, the
fixed rates' upper envelope as the reference.
"""
import collections
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "fading-rate-adaptation.toml"
FIGURE = ROOT / "docs" / "figures" / "fading-rate-adaptation.png"
FIXED = ["1", "2", "5.5", "11", "6", "9", "12", "18", "24", "36", "48", "54"]
ADAPTIVE = ["arf", "aarf", "minstrel"]


def collect(db: Path):
    con = duckdb.connect(str(db), read_only=True)
    good, air = collections.defaultdict(list), collections.defaultdict(list)
    for params, goodput, result in con.execute("select params, aggregate_mbps, result_json from runs").fetchall():
        p, r = json.loads(params), json.loads(result)
        case = p.get("phy.rate_control") or f"{p['phy.data_rate_mbps']:g}"
        key = (p["channel.fading.doppler_hz"], p["wlan.distance_m"], case)
        ap = r["stations"][0]
        good[key].append(goodput)
        air[key].append(ap["airtime_s"] / ap["attempts"] * 1e3)
    mean = lambda d: {k: statistics.mean(v) for k, v in d.items()}  # noqa: E731
    return mean(good), mean(air)


def tables(good, air) -> str:
    out = []
    for dop in sorted({k[0] for k in good}):
        out += [f"Doppler {dop:g} Hz (Mbit/s; in brackets the mean airtime per attempt, ms):", "",
                "| distance (m) | best fixed rate | its goodput | ARF | AARF | Minstrel "
                "| ARF / best | AARF / best | Minstrel / best |",
                "|---|---|---|---|---|---|---|---|---|"]
        for d in sorted({k[1] for k in good if k[0] == dop}):
            best_rate = max(FIXED, key=lambda c: good[(dop, d, c)])
            best = good[(dop, d, best_rate)]
            cells = [f"{good[(dop, d, a)]:.2f} ({air[(dop, d, a)]:.2f})" for a in ADAPTIVE]
            ratios = [f"{good[(dop, d, a)] / best:.2f}" for a in ADAPTIVE]
            out.append(f"| {d:g} | {best_rate} | {best:.2f} | " + " | ".join(cells + ratios) + " |")
        out.append("")
    return "\n".join(out)


def figure(good) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    dops = sorted({k[0] for k in good})
    fig, axes = plt.subplots(1, len(dops), figsize=(11, 4), sharey=True)
    for ax, dop in zip(axes, dops):
        ds = sorted({k[1] for k in good if k[0] == dop})
        env = [max(good[(dop, d, c)] for c in FIXED) for d in ds]
        ax.plot(ds, env, "k--", label="best fixed rate")
        for a, style in zip(ADAPTIVE, ["o-", "s-", "^-"]):
            ax.plot(ds, [good[(dop, d, a)] for d in ds], style, label=a.upper() if a != "minstrel" else "Minstrel")
        ax.set_title(f"Rayleigh fading, Doppler {dop:g} Hz")
        ax.set_xlabel("distance from the AP (m)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("UDP goodput (Mbit/s)")
    axes[0].legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=100)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.duckdb"
        subprocess.run([sys.executable, "-m", "wifitcp", "run", str(SCENARIO), "--out", str(db), "--quiet"],
                       check=True, cwd=ROOT)
        good, air = collect(db)
    print(tables(good, air))
    figure(good)
    print(f"figure: {FIGURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
