#!/usr/bin/env python3
"""The simulator's TCP against Linux's on the same scenario
(bench/emu/uplink.toml): for each controller (simulator reno+NewReno vs
Linux reno; simulator CUBIC vs Linux cubic) and n = 1, 5, 15 uplink flows,
one simulated run (`wifitcp run`) and one emulated run (`wifitcp emulate`,
root needed), each measured at the MAC over the same 30 s window.

`--download`: bench/emu/download.toml instead (n downloads from the server)
for each AP queue discipline of `--qdisc` (default: drop-tail,
keceli-grouped, pilosof: the Keceli schemes). `--cc reno,cubic` picks the
controllers.

Prints one line per case: aggregate goodput and Jain index, simulated and
emulated, and the emulated run's lag.
usage: bench/emu/crossval.py [--download] [--qdisc K,...] [--cc C,...] [N...]
"""
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = os.environ.get("PYTHON", sys.executable)
TOML = HERE / "uplink.toml"
KECELI = "drop-tail,keceli-grouped,pilosof"


def wifitcp(*args):
    r = subprocess.run([PY, "-m", "wifitcp", *args], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"wifitcp {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def main():
    args = sys.argv[1:]
    toml, qdiscs, ccs = TOML, [None], ["reno", "cubic"]
    if "--download" in args:
        args.remove("--download")
        toml, qdiscs = HERE / "download.toml", KECELI.split(",")
    for opt in ("--qdisc", "--cc"):
        if opt in args:
            i = args.index(opt)
            vals = args[i + 1].split(",")
            del args[i:i + 2]
            if opt == "--qdisc":
                qdiscs = vals
            else:
                ccs = vals
    ns = [int(x) for x in args] or [1, 5, 15]
    print(f"{'AP queue':15} {'cc':6} {'n':>3} {'sim Mbit/s':>10} {'emu Mbit/s':>10} {'sim Jain':>8} "
          f"{'emu Jain':>8}  emu lag p99/max ms, retransmits (Linux)")
    for q in qdiscs:
        for cc in ccs:
            for n in ns:
                sets = ["--set", f"wlan.stations={n}", "--set", f'tcp.cc="{cc}"']
                if q is not None:
                    sets += ["--set", f'ap.qdisc.kind="{q}"']
                sim = json.loads(wifitcp("run", str(toml), *sets, "--json", "--no-store").splitlines()[0])
                emu = json.loads(wifitcp("emulate", str(toml), *sets, "--json", "--no-store"))
                e = emu["emulation"]
                rtx = sum((c.get("iperf3") or {}).get("retransmits") or 0 for c in emu["commands"])
                print(f"{q or '(scenario)':15} {cc:6} {n:3d} {sim['aggregate_mbps']:10.2f} "
                      f"{emu['aggregate_mbps']:10.2f} {sim['jain_index']:8.3f} {emu['jain_index']:8.3f}  "
                      f"{e['event_lag']['p99_ms']:.3f}/{e['event_lag']['max_ms']:.3f} "
                      f"{'valid' if e['valid'] else 'NOT VALID'}, {rtx}", flush=True)


if __name__ == "__main__":
    main()
