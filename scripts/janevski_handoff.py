"""Paper 002's mobility half (scenarios/janevski-handoff.toml): FTP goodput of
n3 handing over from BS0 to BS1 per TCP variant and speed, with what the
hand-off cost, as the markdown tables of docs/validation.md section 3.5.

    python3 scripts/janevski_handoff.py                    # the scenario as written
    python3 scripts/janevski_handoff.py --fading rayleigh  # Rayleigh sensitivity
    python3 scripts/janevski_handoff.py --set 'wlan.roaming.reroute="l2_update"'
    python3 scripts/janevski_handoff.py --json out.json    # also every run's numbers
    python3 scripts/janevski_handoff.py --grid figs8-11    # L = 1..4 x IFQ 25/50/100, 15/25/50 km/h
    python3 scripts/janevski_handoff.py --grid figs14-15   # the same at 2/4/10 km/h

Runs the engine alone (crates/sim's example run_file; build it with `cargo
build --release -p wifitcp-sim --example run_file`, found under
$CARGO_TARGET_DIR or target/), expanding the scenario's sweep as the Python
front end does (grid x cases x seeds), one process per run, `--jobs` at a
time. Per run it reads the FTP flow's goodput over the counted window
(35-110 s), its TCP counters, the hand-off record, and the flow's goodput
in 100 ms bins (`scenario.sample_interval_s = 0.1`, set here; the
sampling changes no simulated event), from which:

- outage: from the hand-off's start (n3 leaves BS0) to the end of the
  run of 100 ms bins without a delivered byte that begins with the first
  bin starting after it (so up to 0.1 s short);
- on the tunnel: the time from the reassociation to the end of the run;
- before / after: the mean goodput from 35 s to the hand-off's start, and
  from 2 s after the reassociation to the end of the run.

`--fading rayleigh` adds `[channel.fading] model = "rayleigh"` with the
Doppler shift from the nodes' motion, at 2.437 GHz (802.11g channel 6)
instead of the scenario's 914 MHz, with the transmit power raised by
20 log10(2437 / 914) = 8.518 dB so that every mean received power, and so
the shadowing channel, the hand-off point and carrier sense, stay as they
are: only the fading is added. A station that stands still has a frozen
(constant) fading gain per link.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCEN = ROOT / "scenarios" / "janevski-handoff.toml"
VARIANTS = ["Tahoe", "Reno", "NewReno", "Vegas", "SACK"]
BIN_S = 0.1


def run_file_bin() -> Path:
    for base in [os.environ.get("CARGO_TARGET_DIR"), str(ROOT / "target")]:
        if base:
            p = Path(base) / "release" / "examples" / "run_file"
            if p.exists():
                return p
    sys.exit("run_file not found: cargo build --release -p wifitcp-sim --example run_file")


def variant(case: dict) -> str:
    if case["tcp.cc"] == "vegas":
        return "Vegas"
    return {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"}[case["tcp.recovery"]]


def expand(doc: dict, speeds_filter):
    """(speed km/h, variant, seed, overrides) per run."""
    base_mob = doc["wlan"]["mobility"][0]
    out = []
    for wps in doc["sweep"]["wlan.mobility[0].waypoints"]:
        (_, x0, _), (t0, _, _), (t1, x1, _) = wps
        kmh = round((x1 - x0) / (t1 - t0) * 3.6, 1)
        if speeds_filter and kmh not in speeds_filter:
            continue
        mob = dict(base_mob, waypoints=wps)
        for case in doc["sweep"]["cases"]:
            ov = {"wlan.mobility": [mob], **case}
            for seed in doc["scenario"]["seeds"]:
                out.append((kmh, variant(case), seed, ov))
    return out


def one(binary, kmh, var, seed, ov, extra):
    args = [str(binary), SCEN.name, str(seed), f"scenario.sample_interval_s={BIN_S}"]
    args += [f"{k}={json.dumps(v)}" for k, v in ov.items()] + extra
    p = subprocess.run(args, cwd=SCEN.parent, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: {p.stderr}")
    r = json.loads(p.stdout)
    f = next(f for f in r["flows"] if f["name"].startswith("ftp"))
    hl = r.get("handoffs", {}).get("list", [])
    row = {
        "kmh": kmh, "variant": var, "seed": seed,
        "goodput": f["goodput_mbps"], "delay_ms": f["mean_delay_ms"],
        "timeouts": f["tcp"]["timeouts"], "fast_rtx": f["tcp"]["fast_retransmits"],
        "rtx": f["tcp"]["segments_retransmitted"], "handoffs": len(hl),
        "ifq_drops": r["ledger"]["dropped"].get("queue_full", 0),
        "retry_drops": r["ledger"]["dropped"].get("retry_limit", 0),
        "handoff_drops": r["ledger"]["dropped"].get("handoff", 0),
    }
    # attempts of each base station's MAC that failed on the channel (data
    # frames corrupted or their ACKs lost), not by collision
    st = {x["name"]: x for x in r["stations"]}
    for ap, key in (("ap1", "bs0_chan"), ("ap", "bs1_chan")):
        a = st[ap]
        row[key] = (a["channel_errors"] + a["control_errors"]) / a["attempts"] if a["attempts"] else 0.0
    if hl:
        h = hl[0]
        row.update(ho_start=h["start_s"], ho_end=h["end_s"], frames_lost=r["handoffs"]["frames_lost"],
                   at_old_ap=h["dropped_at_old_ap"], old_ap_retry=h["old_ap_retry_drops"],
                   tunnel_s=r["duration_s"] - h["end_s"])
        # series: [bin end (s), Mbit/s]; the outage runs from the hand-off's
        # start to the end of the run of empty bins that begins with the
        # first bin starting after it
        t = h["start_s"]
        for end, mbps in f["series"]:
            if end - BIN_S < h["start_s"] - 1e-9:
                continue
            if mbps > 0:
                break
            t = end
        row["outage_s"] = t - h["start_s"]
        # goodput before the hand-off (from the counted window's start) and
        # from 2 s after the reassociation to the end
        def rate(a, b):
            xs = [m for end, m in f["series"] if a - 1e-9 <= end - BIN_S and end <= b + 1e-9]
            return mean(xs)
        row["before"] = rate(r["warmup_s"], h["start_s"])
        row["after"] = rate(h["end_s"] + 2.0, r["duration_s"])
    return row


def mean(xs):
    return statistics.fmean(xs) if xs else float("nan")


def table(rows, speeds):
    by = {}
    for r in rows:
        by.setdefault((r["kmh"], r["variant"]), []).append(r)
    out = ["| km/h | " + " | ".join(VARIANTS) + " | rank (mean) |", "|---|" + "---|" * (len(VARIANTS) + 1)]
    for k in speeds:
        cells, means = [], {}
        for v in VARIANTS:
            g = [r["goodput"] for r in by[(k, v)]]
            means[v] = mean(g)
            sd = statistics.stdev(g) if len(g) > 1 else 0.0
            cells.append(f"{mean(g):.2f} ± {sd:.2f}")
        rank = ", ".join(sorted(VARIANTS, key=lambda v: -means[v]))
        out.append(f"| {k:g} | " + " | ".join(cells) + f" | {rank} |")
    return "\n".join(out)


def costs(rows, speeds):
    by = {}
    for r in rows:
        by.setdefault((r["kmh"], r["variant"]), []).append(r)
    out = ["| km/h | variant | hand-off at (s) | outage (s) | frames lost at hand-off | on the tunnel (s) "
           "| Mbit/s before / after | RTOs | fast rtx | IFQ drops | retry drops | delay (ms) "
           "| BS0 / BS1 attempts failed on the channel (%) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in speeds:
        for v in VARIANTS:
            rs = by[(k, v)]
            ho = [r for r in rs if r["handoffs"]]
            out.append(
                f"| {k:g} | {v} | {mean([r['ho_start'] for r in ho]):.2f} | {mean([r['outage_s'] for r in ho]):.2f} "
                f"| {mean([r['frames_lost'] for r in ho]):.1f} | {mean([r['tunnel_s'] for r in ho]):.1f} "
                f"| {mean([r['before'] for r in ho]):.2f} / {mean([r['after'] for r in ho]):.2f} "
                f"| {mean([r['timeouts'] for r in rs]):.1f} | {mean([r['fast_rtx'] for r in rs]):.1f} "
                f"| {mean([r['ifq_drops'] for r in rs]):.1f} | {mean([r['retry_drops'] for r in rs]):.1f} "
                f"| {mean([r['delay_ms'] for r in rs]):.1f} "
                f"| {100 * mean([r['bs0_chan'] for r in rs]):.2f} / {100 * mean([r['bs1_chan'] for r in rs]):.2f} |")
    return "\n".join(out)


def grid_table(rows, speeds, Ls, ifqs):
    """Mean goodput per (variant, IFQ) row and L column, one block per speed."""
    by = {}
    for r in rows:
        by.setdefault((r["kmh"], r["variant"], r["ifq"], r["L"]), []).append(r["goodput"])
    out = []
    for k in speeds:
        out += [f"{k:g} km/h:\n", "| variant | IFQ | " + " | ".join(f"L = {L}" for L in Ls) + " |",
                "|---|---|" + "---|" * len(Ls)]
        for v in VARIANTS:
            for q in ifqs:
                out.append(f"| {v} | {q} | " + " | ".join(f"{mean(by[(k, v, q, L)]):.2f}" for L in Ls) + " |")
        out.append("")
    return "\n".join(out)


GRIDS = {
    # Figs. 8-10 (every variant, L, IFQ at 15/25/50 km/h) and Fig. 11 (SACK,
    # L = 3, IFQ at each speed) are one grid
    "figs8-11": ([15.0, 25.0, 50.0], [1, 2, 3, 4], [25, 50, 100]),
    # Figs. 14-15 (L and IFQ at 2 km/h; L = 3, IFQ at 2/4/10 km/h)
    "figs14-15": ([2.0, 4.0, 10.0], [1, 2, 3, 4], [25, 50, 100]),
}


def collect(doc, speeds_filter, extra, jobs, binary):
    runs = expand(doc, speeds_filter)
    with ThreadPoolExecutor(jobs) as ex:
        rows = list(ex.map(lambda x: one(binary, *x, extra), runs))
    ifq = doc["mac"]["queue_packets"]
    L = doc["mac"]["short_retry_limit"]
    for e in extra:
        k, _, v = e.partition("=")
        if k == "mac.queue_packets":
            ifq = int(v)
        if k == "mac.short_retry_limit":
            L = int(v)
    for r in rows:
        r["ifq"], r["L"] = ifq, L
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fading", choices=["rayleigh"], help="add small-scale fading (see above)")
    ap.add_argument("--set", action="append", default=[], help="dotted.key=JSON for run_file")
    ap.add_argument("--speeds", default="", help="comma-separated km/h (default: every speed)")
    ap.add_argument("--seeds", default="", help="comma-separated seeds (default: the scenario's)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every run's row here")
    ap.add_argument("--grid", choices=sorted(GRIDS),
                    help="MAC transmission attempts L = 1..4 x IFQ 25/50/100 at the figures' speeds")
    a = ap.parse_args()
    doc = tomllib.loads(SCEN.read_text())
    if a.seeds:
        doc["scenario"]["seeds"] = [int(s) for s in a.seeds.split(",")]
    speeds_filter = {float(s) for s in a.speeds.split(",")} if a.speeds else None
    extra = list(a.set)
    if a.fading:
        ch = doc["channel"]
        extra += ['channel.fading={"model":"rayleigh"}',
                  "channel.propagation.frequency_hz=2.437e9",
                  f"channel.tx_power_dbm={ch['tx_power_dbm'] + 8.518186669017858}"]
    binary = run_file_bin()
    if a.grid:
        speeds, Ls, ifqs = GRIDS[a.grid]
        rows = []
        for L in Ls:
            for q in ifqs:
                rows += collect(doc, set(speeds), extra + [f"mac.short_retry_limit={L}", f"mac.long_retry_limit={L}",
                                                          f"mac.queue_packets={q}"], a.jobs, binary)
        print(f"FTP goodput over 35-110 s, Mbit/s, mean over {len(doc['scenario']['seeds'])} seeds, "
              f"L MAC transmission attempts:\n")
        print(grid_table(rows, speeds, Ls, ifqs))
        if a.json:
            Path(a.json).write_text(json.dumps(rows, indent=1))
        return
    rows = collect(doc, speeds_filter, extra, a.jobs, binary)
    speeds = sorted({r["kmh"] for r in rows})
    print(f"FTP goodput over 35-110 s, Mbit/s, mean ± sd over {len(doc['scenario']['seeds'])} seeds:\n")
    print(table(rows, speeds) + "\n")
    print("Means over the seeds:\n")
    print(costs(rows, speeds))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
