#!/usr/bin/env python3
"""Flent's RRUL through the emulated WLAN, drop-tail against FQ-CoDel at the
AP (docs/validation.md section 21.3), beside the simulator's RRUL-like run of
the same network (scenarios/rrul.toml).

Per case: `wifitcp emulate scenarios/emu-rrul.toml --set ap.qdisc.kind=K
--on server 'netserver -D -4' --on server 'irtt server' -- flent rrul -H
server -l LENGTH` (root); Flent's data file gives, over the loaded span
after 5 s of ramp-up (Flent's RRUL idles 5 s before and after the load),
the ICMP ping and the irtt UDP round-trip percentiles and the TCP upload
and download sums; the emulator's result gives the mean length of the
AP's WLAN queue over the same span. Then `wifitcp run scenarios/rrul.toml` with only the
AP's discipline changed (the station's stays drop-tail, as emulated), one
seed: its ping (UDP echo every 200 ms) RTT percentiles and TCP sums over
5-30 s.

Needs flent, irtt and netperf (with netserver, built with --enable-demo)
on PATH. usage: bench/emu/rrul.py [LENGTH_S]   (default 30)
"""
import datetime
import glob
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = os.environ.get("PYTHON", sys.executable)
#: Flent's RRUL: idle this long before (and after) the load
DELAY_S = 5.0
#: ramp-up left out of the statistics (as rrul.toml's warm-up)
RAMP_S = 5.0


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def queue_means(res, lo, hi):
    """Time-weighted mean length of the AP's WLAN queue over [lo, hi] s of
    simulated time (from its `series` of changes; the result lists the
    stations' queues only when they are not plain drop-tail)."""
    out = {}
    for q in res["queues"]:
        if q["node"] != "ap" or q.get("iface") != "wlan":
            continue
        area, last_t, last_v = 0.0, lo, 0
        for t, v in q["series"]:
            if t > hi:
                break
            if t > lo:
                area += last_v * (t - last_t)
                last_t = t
            last_v = v
        area += last_v * (hi - last_t)
        out[q["node"]] = area / (hi - lo)
    return out


def flent_stats(path, length):
    d = json.load(gzip.open(path))
    t0 = datetime.datetime.fromisoformat(d["metadata"]["T0"].replace("Z", "+00:00")).timestamp()
    lo, hi = DELAY_S + RAMP_S, DELAY_S + length
    out = {}
    for name in ("Ping (ms) ICMP", "Ping (ms) UDP BE"):
        v = [r["val"] for r in d["raw_values"].get(name, []) if lo <= r["t"] - t0 <= hi
             and r.get("val") is not None]
        out[name] = (pct(v, 0.5), pct(v, 0.9), pct(v, 0.99), len(v))
    xs = d["x_values"]
    for name in ("TCP upload sum", "TCP download sum"):
        v = [y for x, y in zip(xs, d["results"][name]) if lo <= x <= hi and y is not None]
        out[name] = statistics.mean(v) if v else float("nan")
    return out


def emulated(kind, length, work):
    outdir = Path(work) / kind
    outdir.mkdir(parents=True)
    r = subprocess.run([PY, "-m", "wifitcp", "emulate", str(ROOT / "scenarios" / "emu-rrul.toml"),
                        "--json", "--no-store", "--set", f'ap.qdisc.kind="{kind}"',
                        "--on", "server", "netserver -D -4", "--on", "server", "irtt server",
                        "--", "sh", "-c", f"sleep 0.5; exec flent rrul -H server -l {length} -D {outdir} -t {kind}"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"emulate failed: {r.stderr.strip()}")
    res = json.loads(r.stdout)
    files = glob.glob(str(outdir / "*.flent.gz"))
    if not files:
        main = [c for c in res["commands"] if c.get("main")][0]
        sys.exit(f"flent wrote no data file: {main.get('stderr', '')[-500:]}")
    # the loaded span in simulated time: from the first netperf data
    # connection's first segment (Flent's load starts then), after the ramp
    starts = sorted(f["first_s"] for f in res["flows"] if f["kind"] == "tcp" and f["bytes_delivered"] > 1e6)
    lo = starts[0] + RAMP_S if starts else DELAY_S + RAMP_S
    return flent_stats(files[0], length), res["emulation"], queue_means(res, lo, lo + length - RAMP_S)


def simulated(kind):
    r = subprocess.run([PY, "-m", "wifitcp", "run", str(ROOT / "scenarios" / "rrul.toml"), "--json",
                        "--no-store", "--seed", "1", "--set", f'sweep.cases=[{{"ap.qdisc.kind"="{kind}"}}]'],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run failed: {r.stderr.strip()}")
    res = json.loads(r.stdout.splitlines()[0])
    ping = [f for f in res["flows"] if f["name"].startswith("ping")][0]["ping"]
    up = sum(f["goodput_mbps"] for f in res["flows"] if f["name"].startswith("tcp-up"))
    down = sum(f["goodput_mbps"] for f in res["flows"] if f["name"].startswith("tcp-down"))
    return (ping["rtt_p50_ms"], ping["rtt_p90_ms"], ping["rtt_p99_ms"]), up, down, queue_means(res, 5.0, 30.0)


def main():
    length = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    for tool in ("flent", "irtt", "netperf", "netserver"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found on PATH")
    print(f"{'AP queue':10} {'':9} {'ping p50/p90/p99 ms':>22} {'UDP p50/p90/p99 ms':>22} "
          f"{'up Mbit/s':>9} {'down Mbit/s':>11} {'AP queue':>8}  emulation")
    with tempfile.TemporaryDirectory(prefix="wifitcp-rrul-") as work:
        for kind in ("drop-tail", "fq-codel"):
            st, e, qm = emulated(kind, length, work)
            p = st["Ping (ms) ICMP"]
            u = st["Ping (ms) UDP BE"]
            lag = e["event_lag"]
            print(f"{kind:10} {'emulated':9} {p[0]:6.1f} /{p[1]:6.1f} /{p[2]:6.1f}  "
                  f"{u[0]:6.1f} /{u[1]:6.1f} /{u[2]:6.1f}  {st['TCP upload sum']:9.2f} "
                  f"{st['TCP download sum']:11.2f} {qm.get('ap', 0):8.1f}  {p[3]} pings; lag p99 {lag['p99_ms']:.3f} ms max "
                  f"{lag['max_ms']:.1f} ms, {'valid' if e['valid'] else 'NOT VALID'}", flush=True)
            (s50, s90, s99), up, down, sq = simulated(kind)
            print(f"{'':10} {'simulated':9} {s50:6.1f} /{s90:6.1f} /{s99:6.1f}  {'(UDP echo = ping)':>22}  "
                  f"{up:9.2f} {down:11.2f} {sq.get('ap', 0):8.1f}", flush=True)


if __name__ == "__main__":
    main()
